"""``python -m course_rnn``: see :mod:`course_rnn.cli`."""

import sys

from .cli import main

sys.exit(main())
