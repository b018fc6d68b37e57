"""Every network of the course, one readable file per family.

==============  ==========================  ============================================
kind            class                       paper
==============  ==========================  ============================================
``srn``         :class:`~.srn.SRN`          Elman 1990
``gru``         :class:`~.gru.GRU`          Cho et al. 2014
``lstm``        :class:`~.lstm.LSTM`        Hochreiter & Schmidhuber 1997
``decay_rnn``   :class:`~.decay_rnn.DecayRNN` Bhatt et al. 2020
``flnn``        :class:`~.flnn.FLNN`        Tabor 2011
``urn``         :class:`~.urn.URN`          Bernardy & Lappin 2022, 2023
``matrix_rnn``  :class:`~.urn.MatrixRNN`    the unconstrained baseline of Bernardy & Lappin 2022
``stack_rnn``   :class:`~.stack_rnn.StackRNN`  Delétang et al. 2023
``jm_stack_rnn`` :class:`~.stack_rnn.JoulinMikolovStackRNN`  Joulin & Mikolov 2015
==============  ==========================  ============================================

``build_model(kind, **kwargs)`` makes any of them by name (the CLI, checkpoints and widgets use
it). The chapters' names of the variants the papers compare ("ReLU SRN", "SDRNN", "3-TURN" …)
are in one table, :data:`NAMED_MODELS`: name → (kind, constructor options). Classes are
imported lazily, so ``import course_rnn.models`` stays fast. A new model is one line in
``_REGISTRY`` (its module and class; a class itself also works, e.g. one a test defines).
Every recurrent model writes its step once (:class:`~.base.RecurrentModel`, see :mod:`.base`).
"""

from __future__ import annotations

import inspect
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import SequenceModel

_REGISTRY = {
    "srn": ("srn", "SRN"),
    "gru": ("gru", "GRU"),
    "lstm": ("lstm", "LSTM"),
    "decay_rnn": ("decay_rnn", "DecayRNN"),
    "flnn": ("flnn", "FLNN"),
    "urn": ("urn", "URN"),
    "matrix_rnn": ("urn", "MatrixRNN"),
    "stack_rnn": ("stack_rnn", "StackRNN"),
    "jm_stack_rnn": ("stack_rnn", "JoulinMikolovStackRNN"),
}
_CLASSES = {cls: module for module, cls in _REGISTRY.values()}  # the course's own models
_CLASSES.update({"BengioMLP": "bengio", "KneserNeyLM": "kneser_ney",
                 # the base classes, imported on first use too: the tables below need no torch
                 # (the command line checks ``--set`` against them before torch is imported)
                 "SequenceModel": "base", "RecurrentModel": "base"})

MODEL_KINDS = tuple(_REGISTRY)

#: The names the chapters give to the models and variants they compare → (kind, the constructor
#: options that make the variant); an experiment picks its models from here.
NAMED_MODELS: dict[str, tuple[str, dict]] = {
    "SRN": ("srn", {}),
    "ReLU SRN": ("srn", {"nonlinearity": "relu"}),
    "GRU": ("gru", {}),
    "LSTM": ("lstm", {}),
    "DRNN": ("decay_rnn", {"variant": "drnn"}),
    "SDRNN": ("decay_rnn", {"variant": "sdrnn"}),
    "Ab-DRNN": ("decay_rnn", {"variant": "abdrnn"}),
    "FLNN": ("flnn", {}),
    "3-TURN": ("urn", {"k": 3}),  # the generators' first 3 rows (Bernardy & Lappin 2023)
    "Full-URN": ("urn", {"k": None}),
    "MatrixRNN": ("matrix_rnn", {}),
    "Stack-RNN": ("stack_rnn", {}),  # Delétang et al. 2023, the chapters' Stack-RNN
    "J&M Stack-RNN": ("jm_stack_rnn", {}),  # Joulin & Mikolov 2015
}


def named_models(*names: str | tuple[str, str]) -> dict[str, tuple[str, dict]]:
    """The entries of :data:`NAMED_MODELS` an experiment compares, in its order; a pair
    ``(own name, name)`` gives one a name of the experiment's own (``("URN", "3-TURN")``: the
    gym's URN is the 3-TURN). ValueError naming an unknown one."""
    pairs = [(n, n) if isinstance(n, str) else tuple(n) for n in names]
    unknown = [name for _, name in pairs if name not in NAMED_MODELS]
    if unknown:
        raise ValueError(f"unknown model name(s) {unknown}: choose from "
                         f"{', '.join(NAMED_MODELS)}")
    return {own: (NAMED_MODELS[name][0], dict(NAMED_MODELS[name][1])) for own, name in pairs}


def model_class(kind: str) -> type[SequenceModel]:
    """The class registered under ``kind`` (ValueError listing the kinds otherwise)."""
    if not isinstance(kind, str) or kind not in _REGISTRY:
        raise ValueError(f"unknown model {kind!r}: choose one of {', '.join(_REGISTRY)}")
    entry = _REGISTRY[kind]
    if isinstance(entry, type):
        return entry
    module, name = entry
    return getattr(import_module(f".{module}", __name__), name)


def build_model(kind: str, **kwargs) -> SequenceModel:
    """``build_model("lstm", vocab_size=5, hidden_size=3)`` and so on. An argument the model
    does not take is a TypeError naming it and the ones it takes; bad values are checked by the
    model's constructor."""
    cls = model_class(kind)
    takes = inspect.signature(cls.__init__).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in takes.values()):
        unknown = sorted(set(kwargs) - set(takes) - {"self"})
        if unknown:
            raise TypeError(f"build_model({kind!r}): unknown argument(s) {', '.join(unknown)}; "
                            f"{cls.__name__} takes {', '.join(n for n in takes if n != 'self')}")
    return cls(**kwargs)


def __getattr__(name: str):
    if name in _CLASSES:
        return getattr(import_module(f".{_CLASSES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["build_model", "model_class", "MODEL_KINDS", "NAMED_MODELS", "named_models",
           *_CLASSES]
