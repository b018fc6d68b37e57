"""What a hidden-state stepper shows, computed once, without any widget.

``run_steps(model, vocab, string, language)`` reads ``<s> w1 … wn`` with the model's ``trace``
and returns a :class:`Steps` record: for every step ``t = 0 … n`` (``t = 0`` is "after ``<s>``,
before any symbol") the internal states the model exposes (hidden, and e.g. the LSTM's cell and
gates), the predicted next-symbol distribution, and — when a language is given — the set of
valid continuations. Both the ipywidgets stepper and the static-site export are views of this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..languages.base import Language
from ..languages.vocab import Vocab


@dataclass
class Steps:
    """Everything a stepper displays, as numpy arrays indexed by step ``t = 0 … n``."""

    symbols: tuple[str, ...]  # w1 … wn (step t has read the first t of them)
    output_symbols: tuple[str, ...]  # EOS followed by the alphabet
    states: dict[str, np.ndarray]  # name -> [n + 1, size] (scalars become size 1)
    probs: np.ndarray  # [n + 1, len(output_symbols)]
    valid: list[frozenset[str]] | None = None  # per step, when a language is known
    kind: str = "model"
    extras: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.symbols) + 1

    def top_prediction(self, t: int) -> str:
        return self.output_symbols[int(np.argmax(self.probs[t]))]


def parse_string(text: str, vocab: Vocab, language: Language | None = None) -> tuple[str, ...]:
    """A user's string as symbols, with a ValueError that names a symbol outside the alphabet."""
    if language is not None:
        return language.symbols(text)
    words = text.split() if " " in text.strip() else list(text.strip())
    for i, w in enumerate(words):
        if w not in vocab.alphabet:
            raise ValueError(
                f"symbol {w!r} at position {i} is not in the alphabet: {' '.join(vocab.alphabet)}"
            )
    return tuple(words)


@torch.no_grad()
def run_steps(model, vocab: Vocab, string, language: Language | None = None) -> Steps:
    """Trace ``model`` over ``string`` (text or symbols) and collect what a stepper shows."""
    symbols = parse_string(string, vocab, language) if isinstance(string, str) else tuple(string)
    if language is not None:
        language.symbols(symbols)
    ids = torch.tensor([vocab.encode(symbols, bos=True)])
    model.eval()
    trace = model.trace(ids)
    logits = trace.pop("logits")[0, :, vocab.eos_id :]
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()  # a model on a GPU too
    states = {}
    for name, value in trace.items():
        value = value[0].double().cpu().numpy()
        states[name] = value.reshape(value.shape[0], -1)
    valid = None
    if language is not None:
        valid = [language.valid_next(symbols[:t]) for t in range(len(symbols) + 1)]
    return Steps(symbols, vocab.output_symbols, states, probs, valid, kind=model.kind)


# -- rendering one step as HTML (used by the notebook widget) ---------------------------------
def _colour(value: float, scale: float) -> str:
    """Blue for negative, red for positive, white for zero."""
    x = max(-1.0, min(1.0, value / scale)) if scale > 0 else 0.0
    r, g, b = (
        (255, int(255 * (1 - x)), int(255 * (1 - x)))
        if x >= 0
        else (int(255 * (1 + x)), int(255 * (1 + x)), 255)
    )
    return f"rgb({r},{g},{b})"


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


LEGEND = (
    "<small>Each square is one unit of a state after the highlighted symbol: "
    "<span style='background:rgb(0,0,255);color:#fff;padding:0 3px'>negative</span> "
    "<span style='background:#fff;color:#000;border:1px solid #999;padding:0 3px'>zero</span> "
    "<span style='background:rgb(255,0,0);color:#fff;padding:0 3px'>positive</span>, "
    "scaled to the largest |value| of that row over the string (hover a square for its value)."
    "</small>"
)


def render_step_html(
    steps: Steps, t: int, max_units: int = 64, highlight: dict | None = None
) -> str:
    """The string with the current symbol highlighted, each state as a row of coloured cells
    (unit numbers above, ``highlight``'s units outlined), a legend, and the next-symbol
    distribution with the valid continuations ticked and explained."""
    if not 0 <= t < len(steps):
        raise ValueError(f"step {t} is outside 0..{len(steps) - 1}")
    marks = {name: set(units) for name, units in (highlight or {}).items()}
    tokens = ["&lt;s&gt;"] + [_escape(s) for s in steps.symbols]
    shown = " ".join(
        f"<b style='background:#fd0;color:#000;padding:0 2px'>{w}</b>" if i == t else w
        for i, w in enumerate(tokens)
    )
    parts = [f"<div style='font-family:monospace;font-size:1.1em'>{shown}</div>"]
    size = min(max_units, max(values.shape[1] for values in steps.states.values()))
    header = "".join(f"<th style='font-size:10px;font-weight:normal'>{u}</th>" for u in range(size))
    rows = [f"<tr><th style='font-weight:normal;text-align:left'>unit</th>{header}<th></th></tr>"]
    for name, values in steps.states.items():
        row = values[t][:max_units]
        scale = float(np.abs(values).max()) or 1.0
        cells = "".join(
            f"<td title='{name}[{u}] = {v:+.3f}' style='width:14px;height:14px;padding:0;"
            f"background:{_colour(v, scale)};border:1px solid #aaa"
            + (";outline:3px solid currentColor" if u in marks.get(name, ()) else "")
            + "'></td>"
            for u, v in enumerate(row)
        )
        numbers = " ".join(f"{v:+.2f}" for v in row[:8]) + (" …" if len(row) > 8 else "")
        rows.append(
            f"<tr><th style='font-family:monospace;font-weight:normal;text-align:left'>{name}"
            f"</th>{cells}<td><small>{numbers}</small></td></tr>"
        )
    parts.append(f"<table style='border-collapse:separate;border-spacing:2px'>{''.join(rows)}"
                 f"</table>{LEGEND}")
    valid = None if steps.valid is None else steps.valid[t]
    bars = []
    for sym, p in sorted(zip(steps.output_symbols, steps.probs[t]), key=lambda x: -x[1]):
        ok = "" if valid is None else ("✓" if sym in valid else "✗")
        bars.append(
            f"<tr><td><code>{_escape(sym)}</code></td><td>{ok}</td><td><div style='background:"
            f"#4a90d9;height:10px;width:{int(200 * p)}px'></div></td><td>{p:.3f}</td></tr>"
        )
    prefix = " ".join(_escape(s) for s in steps.symbols[:t])
    if valid is None:
        title = "<b>What the model predicts next</b>"
    elif not valid:
        title = (f"<b>No symbol is valid next</b>: “{prefix}” is not the beginning of any string "
                 "of the language. The model still predicts:")
    else:
        title = ("<b>What the model predicts next</b> (valid here: "
                 + " ".join(_escape(s) for s in sorted(valid)) + ")")
    explain = ("" if valid is None else "<br><small>✓: the language allows this symbol after "
               "the prefix read so far; ✗: it does not. &lt;/s&gt; ends the string.</small>")
    parts.append(f"<div>{title}<table>{''.join(bars)}</table>{explain}</div>")
    return "\n".join(parts)
