"""A stepper for the static website: the model's weights as JSON, the forward pass in JavaScript.

A built Jupyter Book page runs no Python, so an ipywidgets slider there moves but computes
nothing. Instead :func:`web_stepper_html` embeds the trained model's weights (they are tiny) and
``static/stepper.js``, which recomputes the model step by step in the reader's browser for any
string they type. The browser test checks that the JavaScript states equal PyTorch's ``trace``.

The JavaScript knows a few *cells* (the steps below). A model says which one computes its step,
and with which weights, in its ``web_form()`` (beside its equations in :mod:`course_rnn.models`);
a new model whose step is one of these needs nothing here. Everything that does not depend on
the hidden state is folded into one vector per symbol, so the JavaScript needs only
matrix–vector products:

=============  ==============================================================================
cell           what is exported (``P[x]`` is the input drive of symbol x)
=============  ==============================================================================
``srn``        h = f(P[x] + U h + c)                         P[x] = W e_x + b
``gru``        torch's GRU with P[x] = W_{r,z,n} e_x + b_{r,z,n}, U, c (gate order r, z, n)
``lstm``       torch's LSTM with P[x] = W_{i,f,g,o} e_x + b, U, c (gate order i, f, g, o)
``decay_rnn``  h = f(α h + (1 − α)(P[x] + W_rec h))          W_rec is null for Ab-DRNN
``urn``        h = Q_x h, from h0 (``<s>`` too)               one orthogonal matrix per symbol
``matrix_rnn`` the same with an unconstrained matrix per symbol
``stack_rnn``  h = f(P[x] + U h + S r); a = softmax(A h + a) per stack; v = g(D h + d); the
               soft stack update (``models/stack_rnn.py``; r: the top cells read)
``jm_stack_rnn`` the same cell, with Joulin & Mikolov's choices (exported: ``controller`` f,
               ``push_squash`` g, ``empty``, the sizes)
=============  ==============================================================================

and every cell reads out ``softmax(R h + r)`` over ``EOS`` and the alphabet (``R, r``: the
model's ``readout``). The exported ``kind`` is the model's; ``cell`` is added when it differs.
:func:`import_model` rebuilds, for each cell, the course model that computes exactly it.
"""

from __future__ import annotations

import html
import json
import operator
from importlib import resources

import torch

from ..languages.base import Language
from ..languages.vocab import Vocab

# The states each cell of stepper.js shows, in its order (the same names as the models' ``trace``).
WEB_STATES = {
    "srn": ("hidden",),
    "gru": ("reset_gate", "update_gate", "candidate", "hidden"),
    "lstm": ("input_gate", "forget_gate", "cell_candidate", "cell", "output_gate", "hidden"),
    "decay_rnn": ("hidden", "alpha"),
    "urn": ("hidden",),
    "matrix_rnn": ("hidden",),
    "stack_rnn": ("hidden", "push", "pop", "no_op", "stack"),
    "jm_stack_rnn": ("hidden", "push", "pop", "no_op", "stack"),
}
#: the cells whose step is a Stack-RNN's (a controller and soft stacks)
STACK_CELLS = ("stack_rnn", "jm_stack_rnn")
#: the cells stepper.js runs
WEB_CELLS = tuple(WEB_STATES)


def web_kinds() -> tuple[str, ...]:
    """The course's model kinds that the web stepper runs (their class has a ``web_form``)."""
    from ..models import MODEL_KINDS, model_class

    return tuple(kind for kind in MODEL_KINDS if hasattr(model_class(kind), "web_form"))


WEB_KINDS = web_kinds()


def _rounded(t: torch.Tensor, digits: int = 7):
    """Nested lists of floats with ``digits`` significant digits (float32 has about 7)."""
    return (
        [float(f"{v:.{digits}g}") for v in t.reshape(-1).tolist()]
        if t.dim() <= 1
        else [_rounded(row, digits) for row in t]
    )


def _language_spec(language: Language | None) -> dict | None:
    """What the JavaScript needs to mark valid continuations (a^n b^n and Dyck only)."""
    from ..languages.anbn import AnBn
    from ..languages.dyck import Dyck

    if isinstance(language, Dyck):
        pairs = [[o, language.partner(o)] for o in language.openers]
        label = "the Dyck language of " + " ".join(o + c for o, c in pairs)
        return {"name": "dyck", "pairs": pairs, "label": label}
    if type(language) is AnBn:
        return {"name": "anbn", "label": "aⁿbⁿ"}
    return None


@torch.no_grad()
def export_model(model, vocab: Vocab, language: Language | None = None) -> dict:
    """The JSON-able description of ``model`` that ``stepper.js`` runs (see the table above)."""
    kind = model.kind
    if not callable(getattr(model, "web_form", None)):
        raise ValueError(f"the web stepper runs a model whose step is one of its cells "
                         f"({', '.join(WEB_CELLS)}); a {kind!r} model has no web_form()")
    if model.vocab_size != len(vocab):
        raise ValueError(f"model has vocab_size {model.vocab_size}, vocabulary has {len(vocab)}")
    model.eval()
    form = model.web_form()
    cell = form.pop("cell")
    if cell not in WEB_CELLS:
        raise ValueError(f"{type(model).__name__}.web_form() names the cell {cell!r}; "
                         f"stepper.js runs {', '.join(WEB_CELLS)}")
    spec = {
        "kind": kind,
        **({} if cell == kind else {"cell": cell}),
        "itos": list(vocab.itos),
        "output_from": vocab.eos_id,
        "words": bool(getattr(language, "words", False)),
        "language": _language_spec(language),
        "hidden_size": model.hidden_size,
    }
    for key, value in form.items():  # weights as lists of floats (with float32's 7 digits)
        spec[key] = _rounded(value) if isinstance(value, torch.Tensor) else value
    spec["R"] = _rounded(model.readout.weight)
    spec["r"] = _rounded(model.readout.bias)
    return spec


def static_script(name: str) -> str:
    """The text of ``static/<name>`` (the steppers' and the playground's JavaScript)."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def stepper_script() -> str:
    return static_script("stepper.js")


def check_highlight(kind: str, sizes: dict[str, int], highlight) -> dict[str, dict[str, str]]:
    """``highlight`` as stepper.js reads it: ``{state: {unit: label}}`` (JSON keys are strings).

    ``highlight`` maps a state's name to the units to mark: a list (``{"cell": [2]}``) or a dict
    of unit → label (``{"cell": {2: "the counter"}}``). A state the model does not show or a unit
    outside the state is a ValueError that names it.
    """
    if not highlight:
        return {}
    if not isinstance(highlight, dict):
        raise ValueError(f"highlight must map a state name to units, e.g. {{'hidden': [0]}}; "
                         f"got {highlight!r}")
    checked = {}
    for name, units in highlight.items():
        if name not in sizes:
            raise ValueError(f"highlight: a {kind} stepper shows the states "
                             f"{', '.join(sizes)}; not {name!r}")
        labels = dict(units) if isinstance(units, dict) else {unit: "" for unit in units}
        marks = {}
        for unit, label in labels.items():
            try:  # ints, NumPy and torch integers; not booleans, floats or strings
                index = -1 if isinstance(unit, bool) else operator.index(unit)
            except TypeError:
                index = -1
            if not 0 <= index < sizes[name]:
                raise ValueError(f"highlight: {name} has units 0 to {sizes[name] - 1}; "
                                 f"not {unit!r}")
            marks[index] = str(label)
        checked[name] = {str(unit): label for unit, label in sorted(marks.items())}
    return checked


def exported_cell(spec: dict) -> str:
    """The stepper.js cell an exported model runs (its ``kind`` unless ``cell`` says otherwise)."""
    cell = spec.get("cell", spec.get("kind"))
    if cell not in WEB_CELLS:
        raise ValueError(f"unknown exported model kind {cell!r}: expected one of {WEB_CELLS}")
    return cell


def state_sizes(spec: dict) -> dict[str, int]:
    """The size of every state the stepper shows for an exported model."""
    size, cell = spec["hidden_size"], exported_cell(spec)
    if cell in STACK_CELLS:  # one action probability per stack; the stack cell by cell
        stacks = spec["n_stacks"]
        cells = spec["stack_depth"] * stacks * spec["stack_width"]
        return {"hidden": size, "push": stacks, "pop": stacks, "no_op": stacks, "stack": cells}
    return {name: 1 if name == "alpha" else size for name in WEB_STATES[cell]}


def web_stepper_html(
    model,
    vocab: Vocab,
    language: Language | None = None,
    string: str = "",
    title: str = "",
    highlight: dict | None = None,
) -> str:
    """A self-contained HTML block (weights + script) that steps ``model`` in the browser.

    ``highlight`` marks units the reader should watch, e.g. ``{"cell": [2]}`` or
    ``{"cell": {2: "the counting unit"}}``: they are outlined in the state rows, drawn thick in
    the plot (which then shows that state) and named under the legend.
    """
    spec = export_model(model, vocab, language)
    marks = check_highlight(spec["kind"], state_sizes(spec), highlight)
    data = html.escape(json.dumps(spec, separators=(",", ":")))
    title = html.escape(title or f"{model.kind} stepper")
    marked = (
        f' data-highlight="{html.escape(json.dumps(marks, ensure_ascii=False))}"' if marks else ""
    )
    return (
        f'<div class=\'rnn-stepper\' data-model="{data}" data-string="{html.escape(string)}" '
        f'data-title="{title}"{marked}></div>\n<script>{stepper_script()}</script>'
    )


def web_stepper(
    model,
    vocab: Vocab,
    language: Language | None = None,
    string: str = "",
    title: str = "",
    highlight: dict | None = None,
):
    """:func:`web_stepper_html` wrapped for display in a notebook cell."""
    from IPython.display import HTML

    return HTML(web_stepper_html(model, vocab, language, string, title, highlight))


@torch.no_grad()
def import_model(spec: dict):
    """Rebuild ``(model, vocab)`` that computes exactly what ``stepper.js`` computes from
    ``spec`` (an :func:`export_model` result, e.g. read back from a built page).

    The weights are the exported (folded) ones: the input drive ``P`` becomes the input matrix of
    a one-hot model, a Dale-constrained recurrent matrix becomes a plain one (same product), and
    a URN's orthogonal matrices (or any model's that runs the ``urn`` or ``matrix_rnn`` cell)
    become the matrices of a :class:`MatrixRNN`, and a Stack-RNN comes back as its own kind with
    the sizes it was exported with (``options``), reading one-hot symbols.
    """
    from ..models import build_model

    cell = exported_cell(spec)
    vocab = Vocab(spec["itos"][spec["output_from"] + 1 :])
    size, hidden = len(vocab), spec["hidden_size"]
    tensor = lambda key: torch.tensor(spec[key], dtype=torch.float32)  # noqa: E731
    if cell in ("srn", "gru", "lstm"):
        options = {"nonlinearity": spec["nonlinearity"]} if cell == "srn" else {}
        model = build_model(cell, vocab_size=size, hidden_size=hidden, **options)
        model.rnn.weight_ih_l0.copy_(tensor("P").T)
        model.rnn.bias_ih_l0.zero_()
        model.rnn.weight_hh_l0.copy_(tensor("U"))
        model.rnn.bias_hh_l0.copy_(tensor("c"))
    elif cell == "decay_rnn":
        variant = "abdrnn" if spec["W"] is None else "sdrnn"
        model = build_model(
            cell,
            vocab_size=size,
            hidden_size=hidden,
            variant=variant,
            nonlinearity=spec["nonlinearity"],
            alpha_parametrisation=spec.get("alpha_parametrisation", "sigmoid"),
            alpha_init=float(spec["alpha"]),
        )
        model.weight_ih.copy_(tensor("P").T)
        model.bias.zero_()
        if spec["W"] is not None:
            model.weight_hh.copy_(tensor("W"))
    elif cell in STACK_CELLS:
        model = build_model(cell, vocab_size=size, hidden_size=hidden, **spec["options"])
        model.input_to_hidden.weight.copy_(tensor("P").T)
        model.input_to_hidden.bias.zero_()
        if spec["U"] is not None:
            model.hidden_to_hidden.weight.copy_(tensor("U"))
        model.stack_to_hidden.weight.copy_(tensor("stack_read"))
        model.actions.weight.copy_(tensor("A"))
        model.actions.bias.copy_(tensor("a"))
        model.push_value.weight.copy_(tensor("D"))
        model.push_value.bias.copy_(tensor("d"))
    else:
        model = build_model("matrix_rnn", vocab_size=size, hidden_size=hidden, dropout=0.0)
        model.matrices.copy_(tensor("Q"))
        model.start_state.copy_(tensor("h0").reshape(model.start_state.shape))
    model.readout.weight.copy_(tensor("R"))
    model.readout.bias.copy_(tensor("r"))
    return model.eval(), vocab
