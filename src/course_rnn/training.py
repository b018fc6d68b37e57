"""One training loop for every sequence model in the course.

``fit`` trains a :class:`~course_rnn.models.base.SequenceModel` as a language model on a list of
strings: at every position it minimises the cross-entropy of the next symbol (EOS included),

    L = − (1/N) Σ_{strings} Σ_t log p(w_{t+1} | w_1 … w_t).

It seeds everything, picks the device (CUDA when present, ``device=`` or ``$COURSE_RNN_DEVICE`` to
override), keeps a history of losses and metrics, can stop early on a validation loss (restoring the
best weights), and saves checkpoints that load with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.nn import functional as F

from .languages.vocab import Batch, Vocab, iterate_batches, make_batch
from .models.base import SequenceModel
from .utils import pick_device, seed_everything


@dataclass
class History:
    """What happened during training: one dict per epoch (``epoch``, ``train_loss``,
    ``valid_loss`` when a validation set was given, ``seconds``, and any metrics)."""

    epochs: list[dict] = field(default_factory=list)
    best_epoch: int | None = None
    stopped_early: bool = False

    def __getitem__(self, key: str) -> list:
        return [e.get(key) for e in self.epochs]

    def __len__(self) -> int:
        return len(self.epochs)

    @property
    def last(self) -> dict:
        return self.epochs[-1] if self.epochs else {}

    @property
    def seconds(self) -> float:
        return sum(e["seconds"] for e in self.epochs)


def sequence_loss(model: SequenceModel, batch: Batch, reduction: str = "mean") -> torch.Tensor:
    """Masked next-symbol cross-entropy of ``model`` on ``batch`` (pad positions ignored)."""
    logits = model(batch.inputs)
    losses = F.cross_entropy(logits.transpose(1, 2), batch.targets, reduction="none")
    losses = losses * batch.mask
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / batch.mask.sum()


@torch.no_grad()
def evaluate_loss(
    model: SequenceModel, vocab: Vocab, strings: Sequence, batch_size: int = 512
) -> float:
    """Mean next-symbol cross-entropy (nats per symbol, EOS included) over ``strings``."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for batch in iterate_batches(vocab, strings, batch_size, shuffle=False):
        batch = batch.to(model.device)
        total += float(sequence_loss(model, batch, reduction="sum"))
        count += int(batch.mask.sum())
    model.train(was_training)
    return total / count


def perplexity(
    model: SequenceModel, vocab: Vocab, strings: Sequence, batch_size: int = 512
) -> float:
    """exp(mean cross-entropy per symbol)."""
    return math.exp(evaluate_loss(model, vocab, strings, batch_size))


def progress_enabled(progress: bool | None) -> bool:
    """Progress bars are on by default, off when ``$COURSE_RNN_PROGRESS=0`` (book builds, CI)."""
    if progress is not None:
        return progress
    return os.environ.get("COURSE_RNN_PROGRESS", "1") != "0"


def make_optimizer(name: str, params, lr: float) -> torch.optim.Optimizer:
    optimizers = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD, "rmsprop": torch.optim.RMSprop}
    if name not in optimizers:
        raise ValueError(f"unknown optimizer {name!r}: choose one of {', '.join(optimizers)}")
    return optimizers[name](params, lr=lr)


def fit(
    model: SequenceModel,
    vocab: Vocab,
    train: Sequence,
    *,
    valid: Sequence | None = None,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 1e-3,
    optimizer: str = "adam",
    clip: float | None = 1.0,
    seed: int = 0,
    device: str | torch.device | None = None,
    patience: int | None = None,
    metrics: dict[str, Callable[[SequenceModel], float]] | None = None,
    checkpoint: str | Path | None = None,
    progress: bool | None = None,
) -> History:
    """Train ``model`` on the strings ``train``; return a :class:`History`.

    ``metrics`` maps a name to ``f(model) -> float``, evaluated after every epoch (the model is in
    eval mode). With ``valid`` and ``patience``, training stops after ``patience`` epochs without
    a better validation loss and the best weights are restored. ``checkpoint`` saves the final
    (or best) model there.
    """
    if not isinstance(model, SequenceModel):
        raise TypeError(f"fit trains a SequenceModel, got {type(model).__name__}")
    if len(train) == 0:
        raise ValueError("the training corpus is empty")
    if valid is not None and len(valid) == 0:
        raise ValueError("the validation corpus is empty (pass valid=None to skip validation)")
    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise ValueError(
            f"need epochs ≥ 1, batch_size ≥ 1 and lr > 0; got {epochs}, {batch_size}, {lr}"
        )
    if model.vocab_size != len(vocab):
        raise ValueError(
            f"model has vocab_size {model.vocab_size} but the vocabulary has {len(vocab)}"
        )
    make_batch(vocab, train[:1])  # fail early, with the symbol's name, on a foreign symbol

    seed_everything(seed)
    model.to(pick_device(device))
    opt = make_optimizer(optimizer, model.parameters(), lr)
    history = History()
    stopper = EarlyStopping(model, patience) if valid is not None and patience else None
    bar = EpochProgress(epochs, progress)

    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        model.train()
        total, count = 0.0, 0
        for batch in iterate_batches(vocab, train, batch_size, shuffle=True, seed=seed + epoch):
            batch = batch.to(model.device)
            loss = sequence_loss(model, batch)
            opt.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            n = int(batch.mask.sum())
            total, count = total + loss.item() * n, count + n
        record = {"epoch": epoch, "train_loss": total / count}
        model.eval()
        if valid is not None:
            record["valid_loss"] = evaluate_loss(model, vocab, valid)
        for name, metric in (metrics or {}).items():
            with torch.no_grad():
                record[name] = float(metric(model))
        record["seconds"] = time.perf_counter() - start
        history.epochs.append(record)
        bar.update(record)

        if stopper is not None and stopper.should_stop(record["valid_loss"], epoch, history):
            break
    bar.close()
    if stopper is not None:
        stopper.restore_best()
    model.eval()
    if checkpoint is not None:
        save_checkpoint(model, vocab, checkpoint, history)
    return history


class EarlyStopping:
    """Remember the weights with the best validation loss; stop after ``patience`` epochs
    without improvement. Shared by every training loop of the library."""

    def __init__(self, model: torch.nn.Module, patience: int):
        if patience < 1:
            raise ValueError(f"patience must be ≥ 1, got {patience}")
        self.model, self.patience = model, patience
        self.best_loss, self.best_state, self.waited = math.inf, None, 0

    def should_stop(self, loss: float, epoch: int, history: History) -> bool:
        if loss < self.best_loss - 1e-6:
            self.best_loss, self.waited, history.best_epoch = loss, 0, epoch
            self.best_state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
            return False
        self.waited += 1
        history.stopped_early = self.waited >= self.patience
        return history.stopped_early

    def restore_best(self) -> None:
        if self.best_state is not None:
            self.model.load_state_dict(self.best_state)


class EpochProgress:
    """tqdm over epochs, showing the latest losses; silent when progress is off."""

    def __init__(self, epochs: int, progress: bool | None):
        self.bar = None
        if progress_enabled(progress):
            from tqdm.auto import tqdm

            self.bar = tqdm(total=epochs, desc="training", unit="epoch", file=sys.stderr)

    def update(self, record: dict) -> None:
        if self.bar is not None:
            shown = {k: f"{v:.4f}" for k, v in record.items() if k.endswith("loss")}
            self.bar.set_postfix(shown)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# -- checkpoints ----------------------------------------------------------------------------
def save_checkpoint(model: SequenceModel, vocab: Vocab, path: str | Path, history=None) -> Path:
    """Save weights, constructor arguments and vocabulary (plain types only, so that the file
    loads with ``weights_only=True``)."""
    path = Path(path)
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
    from .models import build_model

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}")
    payload = torch.load(path, map_location="cpu", weights_only=True)
    model = build_model(payload["kind"], **payload["config"])
    model.load_state_dict(payload["state_dict"])
    model.to(pick_device(device)).eval()
    return model, Vocab(payload["alphabet"])
