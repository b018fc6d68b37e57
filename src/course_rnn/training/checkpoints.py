"""Checkpoints: a trained sequence model, its vocabulary and its learning curve in one file that
loads with ``torch.load(weights_only=True)`` (plain tensors and Python types only)."""

from __future__ import annotations

from pathlib import Path

import torch

from ..languages.vocab import Vocab
from ..models.base import SequenceModel
from .loop import model_device


def save_checkpoint(model: SequenceModel, vocab: Vocab, path: str | Path, history=None) -> Path:
    """Save weights, constructor arguments, vocabulary and (optionally) the history's curve."""
    if not isinstance(model, SequenceModel):
        raise TypeError(f"model must be one of the course's sequence models (build_model), got "
                        f"{type(model).__name__}")
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}")
    if not isinstance(path, (str, Path)) or not str(path):
        raise TypeError(f"path must be a file name (a str or a Path), got {path!r:.60}")
    if history is not None and not isinstance(getattr(history, "epochs", None), list):
        raise TypeError(f"history must be the History that fit returned (or None), got "
                        f"{type(history).__name__}")
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
    """Rebuild ``(model, vocab)`` from :func:`save_checkpoint`'s file, on ``device`` (chosen as
    :func:`~course_rnn.training.fit` chooses it: :func:`~.loop.model_device`)."""
    from ..models import build_model

    if not isinstance(path, (str, Path)) or not str(path):
        raise TypeError(f"path must be a file name (a str or a Path), got {path!r:.60}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}")
    if not path.is_file():
        raise ValueError(f"checkpoint path {str(path)!r} is not a file")
    device = model_device(device, "hold a loaded model")  # named before the file is read
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 – pickle, zip and torch's own errors alike
        raise ValueError(f"{path} is not a checkpoint that save_checkpoint wrote (torch.load "
                         f"could not read it: {type(e).__name__}: {str(e)[:120]})") from e
    parts = {"kind": str, "config": dict, "alphabet": list, "state_dict": dict}
    wrong = [k for k, kind in parts.items()
             if not isinstance(payload, dict) or not isinstance(payload.get(k), kind)]
    if wrong:
        raise ValueError(f"{path} is not a checkpoint that save_checkpoint wrote: it holds "
                         f"{type(payload).__name__}, without a valid {', '.join(wrong)}")
    model = build_model(payload["kind"], **payload["config"])
    try:
        model.load_state_dict(payload["state_dict"])
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"the weights in {path} do not fit a {payload['kind']!r} model of "
                         f"{payload['config']}: {str(e)[:200]}") from e
    model.to(device).eval()
    return model, Vocab(payload["alphabet"])
