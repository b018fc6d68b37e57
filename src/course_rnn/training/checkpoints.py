"""Checkpoints: a trained sequence model, its vocabulary and its learning curve in one file that
loads with ``torch.load(weights_only=True)`` (plain tensors and Python types only)."""

from __future__ import annotations

from pathlib import Path

import torch

from ..languages.vocab import Vocab
from ..models.base import SequenceModel
from ..utils import pick_device


def save_checkpoint(model: SequenceModel, vocab: Vocab, path: str | Path, history=None) -> Path:
    """Save weights, constructor arguments, vocabulary and (optionally) the history's curve."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise ValueError(f"checkpoint path {str(path)!r} is a folder: give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "kind": model.kind,
        "config": model.config(),
        "alphabet": list(vocab.alphabet),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "history": list(history.epochs) if history is not None else [],
    }
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)  # never leave a half-written checkpoint behind
    return path


def load_checkpoint(path: str | Path, device: str | torch.device | None = None):
    """Rebuild ``(model, vocab)`` from :func:`save_checkpoint`'s file."""
    from ..models import build_model

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}")
    payload = torch.load(path, map_location="cpu", weights_only=True)
    model = build_model(payload["kind"], **payload["config"])
    model.load_state_dict(payload["state_dict"])
    model.to(pick_device(device)).eval()
    return model, Vocab(payload["alphabet"])
