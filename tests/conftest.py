"""Shared test settings."""

import torch

# The models in the tests are tiny: on a 2-core machine one thread is many times faster than
# two competing ones (measured: 3.9 ms vs 106 ms per step under load).
torch.set_num_threads(1)
