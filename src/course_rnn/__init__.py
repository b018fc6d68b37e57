"""course_rnn: the shared library behind the course "How recurrent networks learn syntax"."""

__version__ = "0.1.0"
