"""Shared test settings and fixtures."""

import os

import pytest
import torch

from course_rnn.device_check import checking
from course_rnn.device_check import set_up as checked_device_set_up

# The models in the tests are tiny: on a 2-core machine one thread is many times faster than
# two competing ones (measured: 3.9 ms vs 106 ms per step under load).
torch.set_num_threads(1)


# The checked device and a CUDA GPU cannot share a process: once PyTorch's spare device type is
# named "checked", PyTorch takes it for the process's accelerator, and CUDA's backward pass then
# fails (course_rnn.device_check). The two fixtures keep them apart on a machine with a GPU.


@pytest.fixture
def checked_device():
    """The checked device for one test (``checking()``), switched off after it. Skipped on a
    machine with a CUDA GPU unless the whole run is checked (``COURSE_RNN_DEVICE=checked``, as in
    ``make test``): there the tests train on the GPU itself."""
    if torch.cuda.is_available() and os.environ.get("COURSE_RNN_DEVICE") != "checked":
        pytest.skip("the checked device cannot share this process with the CUDA GPU the other "
                    "tests use")
    with checking() as device:
        yield device


@pytest.fixture
def cuda():
    """A CUDA GPU, for a test that compares it with the CPU: skipped where there is none, or
    where this process runs checked."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    if checked_device_set_up():
        pytest.skip("this process runs the checked device, which cannot share it with CUDA")
    return torch.device("cuda")
