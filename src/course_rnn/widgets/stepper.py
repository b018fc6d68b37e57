"""The notebook stepper: type a string (or draw one), then step through the model's states.

    from course_rnn.widgets import Stepper
    Stepper(model, vocab, language=AnBn(), string="aaabbb")

Shows the string with the current symbol highlighted, every state the model's ``trace`` exposes
(hidden; the LSTM's cell and gates; the Decay RNN's α …), the next-symbol distribution beside the
valid continuations, and a plot of the state trajectory (each unit over time, at most eight of
them — ``highlight``'s first, then those that move most — or the path in the plane for 2-unit
states). ``highlight={"cell": [2]}`` outlines units the reader should watch. A symbol outside the
alphabet shows a message inside the widget; a new string starts at its first step.
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from ..languages.base import Language
from ..languages.vocab import Vocab
from .steps import Steps, render_step_html, run_steps


class Stepper:
    """An ipywidgets stepper over one trained model (see the module docstring)."""

    def __init__(
        self,
        model,
        vocab: Vocab,
        language: Language | None = None,
        string: str = "",
        seed: int = 0,
        plot: bool = True,
        highlight: dict | None = None,
    ):
        from .web import check_highlight

        self.model, self.vocab, self.language = model, vocab, language
        self.plot = plot
        self._rng = np.random.default_rng(seed)
        self.steps: Steps | None = None
        first = self._read(string)  # the model runs once per string
        if highlight:  # the states the model shows, and their sizes, from its own trace
            shown = first[0] or run_steps(model, vocab, "")  # a bad string: the states of <s>
            sizes = {name: values.shape[1] for name, values in shown.states.items()}
            check_highlight(model.kind, sizes, highlight)
        self.highlight = {name: [int(u) for u in units]
                          for name, units in (highlight or {}).items()}

        self.text = W.Text(value=string, description="string", continuous_update=False)
        self.sample_button = W.Button(description="draw from language", disabled=language is None)
        self.play = W.Play(value=0, min=0, max=0, interval=600, description="play")
        self.slider = W.IntSlider(value=0, min=0, max=0, description="step")
        W.jslink((self.play, "value"), (self.slider, "value"))
        self.message = W.HTML()
        self.view = W.HTML()
        self.figure = W.Output()

        self.text.observe(lambda change: self.set_string(change["new"]), names="value")
        self.sample_button.on_click(lambda _: self.draw())
        self.slider.observe(lambda change: self.show(change["new"]), names="value")
        self.widget = W.VBox(
            [
                W.HBox([self.text, self.sample_button]),
                W.HBox([self.play, self.slider]),
                self.message,
                self.view,
                self.figure,
            ]
        )
        self._show_string(*first)

    # -- actions ----------------------------------------------------------------------------
    def draw(self) -> None:
        """Replace the string by one drawn from the language."""
        seed = int(self._rng.integers(2**31))
        symbols = self.language.sample(1, seed=seed)[0]
        joiner = " " if self.language.words or any(len(s) > 1 for s in symbols) else ""
        self.text.value = joiner.join(symbols)

    def set_string(self, text: str) -> None:
        """Trace the model over ``text``; a bad symbol becomes a message, not a traceback."""
        self._show_string(*self._read(text))

    def _read(self, text: str) -> tuple[Steps | None, str]:
        """The steps of ``text``, or None and the message that says why not."""
        try:
            return run_steps(self.model, self.vocab, text, self.language), ""
        except ValueError as err:
            return None, f"<span style='color:#b00'>⚠ {err}</span>"

    def _show_string(self, steps: Steps | None, error: str) -> None:
        if steps is None:
            self.message.value = error
            return
        self.message.value = ""
        if self.language is not None and not self.language.is_prefix(steps.symbols):
            self.message.value = (
                "<span style='color:#a60'>note: this string is not a prefix of any string of "
                f"{self.language.name}; the model still reads it.</span>"
            )
        changed = self.steps is None or self.steps.symbols != steps.symbols
        self.steps = steps
        last = len(steps) - 1
        self.play.max = self.slider.max = last
        if changed and self.slider.value != 0:
            self.slider.value = 0  # a new string starts at its first step (observe shows it)
        else:
            self.show(min(self.slider.value, last))

    def show(self, t: int) -> None:
        if self.steps is not None:
            self.view.value = render_step_html(self.steps, t, highlight=self.highlight)
            self._draw_trajectory(t)

    # -- the plot ---------------------------------------------------------------------------
    def _draw_trajectory(self, t: int | None = None) -> None:
        if not self.plot or self.steps is None:
            return
        name = next(iter(self.highlight), "cell" if "cell" in self.steps.states else "hidden")
        hidden = self.steps.states[name]
        marked = self.highlight.get(name, [])
        self.figure.clear_output(wait=True)
        with self.figure:
            fig, ax = plt.subplots(figsize=(6, 2.6))
            if hidden.shape[1] == 2:
                ax.plot(hidden[:, 0], hidden[:, 1], "-o", ms=3, color="0.6")
                if t is not None:
                    ax.plot(*hidden[t], "o", ms=9, color="C3")
                ax.set_xlabel(f"{name} unit 0")
                ax.set_ylabel(f"{name} unit 1")
            else:
                moving = np.argsort(-np.ptp(hidden, axis=0))
                units = sorted(set(marked) | set(moving[: max(0, 8 - len(marked))].tolist()))
                for u in units:
                    ax.plot(hidden[:, u], lw=3 if u in marked else 1.2, label=f"unit {u}")
                if t is not None:
                    ax.axvline(t, color="C3", lw=1)
                tokens = ["<s>", *self.steps.symbols]
                every = max(1, len(tokens) // 30 + 1)
                ax.set_xticks(range(0, len(tokens), every), tokens[::every])
                ax.set_xlabel("symbol just read")
                ax.set_ylabel(f"{name} value")
                ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
            shown = "" if hidden.shape[1] <= 8 else f" ({min(8, hidden.shape[1])} units)"
            ax.set_title(f"{self.steps.kind}: {name} state per unit{shown}")
            plt.tight_layout()
            plt.show()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
