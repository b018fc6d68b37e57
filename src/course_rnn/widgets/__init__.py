"""Hidden-state steppers: in a notebook (ipywidgets) and on the static website (JavaScript).

* :class:`Stepper` – the notebook widget (needs a running kernel).
* :func:`export_model` / :func:`web_stepper` – the model's weights as JSON and a kernel-free
  stepper that runs the same forward pass in the reader's browser.
* :func:`run_steps` – the data both show, computed once.
"""

from .stepper import Stepper
from .steps import Steps, parse_string, render_step_html, run_steps
from .web import WEB_CELLS, WEB_KINDS, export_model, import_model, web_stepper, web_stepper_html

__all__ = [
    "Steps",
    "run_steps",
    "parse_string",
    "render_step_html",
    "Stepper",
    "WEB_CELLS",
    "WEB_KINDS",
    "export_model",
    "import_model",
    "web_stepper",
    "web_stepper_html",
]
