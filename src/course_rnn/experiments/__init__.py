"""The course's experiments as library functions.

A chapter calls the very same function that ``python -m course_rnn replicate NAME`` will call, so
no experiment is written twice. Each module exposes its settings per scale and one ``run``-style
function that returns plain rows (dicts) ready for a table.

=========  ===================================  ==========================================
name       module                               what it runs
=========  ===================================  ==========================================
``gym``    :mod:`~course_rnn.experiments.gym`   every model on every language (chapter 7)
=========  ===================================  ==========================================
"""

from .gym import GYM_LANGUAGES, GYM_MODELS, gym_settings, run_gym

__all__ = ["GYM_LANGUAGES", "GYM_MODELS", "gym_settings", "run_gym"]
