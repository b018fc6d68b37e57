"""The record a training run leaves (:class:`History`), and what resuming it needs.

:func:`~course_rnn.training.fit` returns a :class:`History`: the learning curve, the
:class:`~course_rnn.training.Convergence` record, the settings, and the state the run stopped in
(:class:`ResumeState`), from which ``fit(..., resume=history)`` goes on exactly as if the run had
never stopped (:func:`check_resume`, :func:`restore`). Tabor's climber reports through the same
:class:`History`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field

import torch

from .convergence import Convergence


@dataclass
class History:
    """What happened during training.

    ``epochs``: one dict per evaluation (``epoch``, ``step``, ``train_loss``, ``valid_loss`` with
    a validation set, ``train_accuracy``/``valid_accuracy`` for tasks that count right answers,
    ``lr``, ``clipped`` (the share of steps whose gradient norm exceeded ``clip``),
    ``grad_norm`` (the largest gradient norm before clipping; with ``clip=None`` the norm at the
    round's last step, the only one where it is computed), each metric, ``seconds``) — the
    learning curve. ``steps``: one dict per recorded optimizer step (``step_metrics``).
    ``convergence``: whether the run learned (:class:`~course_rnn.training.Convergence`).
    ``settings``: how it was trained (optimizer, learning rate, criterion, …).
    ``state``: where training stopped (weights *before* the best ones were restored, optimizer,
    schedule, step, random state), so that ``fit(..., resume=history)`` can continue the run
    exactly; not part of :meth:`to_json`.
    """

    epochs: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    convergence: Convergence | None = None
    settings: dict = field(default_factory=dict)
    best_epoch: float | None = None
    state: ResumeState | None = field(default=None, repr=False)

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

    @property
    def stopped_early(self) -> bool:
        """True when training ended before its cap (criterion met, stalled or diverged)."""
        return self.convergence is not None and self.convergence.stopped != "budget spent"

    @property
    def converged(self) -> bool:
        return self.convergence is not None and self.convergence.converged

    def step_values(self, key: str) -> list:
        return [s.get(key) for s in self.steps]

    def to_json(self, max_points: int = 200) -> dict:
        """The convergence record, the settings and the learning curve (at most ``max_points``
        evaluations, evenly thinned, the last one always kept), as plain Python."""
        keep = _thin(len(self.epochs), max_points)
        keys = [k for k in dict.fromkeys(k for e in self.epochs for k in e)]
        curve = {k: [self.epochs[i].get(k) for i in keep] for k in keys}
        return {"convergence": self.convergence.to_json() if self.convergence else None,
                "settings": dict(self.settings), "curve": curve}


@dataclass
class ResumeState:
    """Everything :func:`fit` needs to go on from where a run stopped."""

    model: dict
    optimizer: dict
    scheduler: dict | None
    step: int
    best: tuple  # (value, epoch, weights or None) of the monitor's best evaluation so far
    rng: torch.Tensor

    @staticmethod
    def capture(model, opt, scheduler, step: int, best) -> ResumeState:
        """The run's state now; ``best``: the loop's best evaluation so far (its ``value``,
        ``epoch`` and ``state``, the weights or None)."""
        return ResumeState(
            model=_copy_state(model.state_dict()), optimizer=copy.deepcopy(opt.state_dict()),
            scheduler=scheduler.state_dict() if scheduler is not None else None, step=step,
            best=(best.value, best.epoch, best.state), rng=torch.get_rng_state())


def _copy_state(state: Mapping[str, torch.Tensor]) -> dict:
    return {k: v.detach().clone() for k, v in state.items()}


#: Settings a continuation may change; every other one must be the first run's (but see
#: :func:`widened`).
_RESUMABLE_CHANGES = {"epochs_cap", "steps_cap", "min_epochs", "device"}


def widened(before: str | None, now: str | None) -> bool:
    """Whether the criterion ``now`` is ``before`` with a plateau added (``"…, or <monitor>
    plateau: …"``, as :class:`~.convergence.AnyOf` describes it): a continuation may widen its
    first run's criterion so, to stop where it stalls again (a *stuck* run) instead of at its
    cap."""
    if not before or not now or not now.startswith(before + ", or "):
        return False
    return all(" plateau: " in part for part in now[len(before) + 5:].split(", or "))


def check_resume(resume, settings: dict) -> None:
    """Refuse a ``resume=`` that is not a History with a state, or whose settings differ from
    ``settings`` in more than the budget, the device and a plateau added to the criterion
    (:func:`widened`)."""
    if not isinstance(resume, History):
        raise TypeError(f"resume= takes the History of an earlier run, got "
                        f"{type(resume).__name__}")
    if resume.state is None:
        raise ValueError("resume=: this History has no saved state to go on from (a run "
                         "trained by fit keeps one; a History read back from JSON does not)")
    changed = sorted(k for k in settings.keys() | resume.settings.keys()
                     if k not in _RESUMABLE_CHANGES
                     and settings.get(k) != resume.settings.get(k)
                     and not (k == "criterion" and widened(resume.settings.get(k),
                                                            settings.get(k))))
    if changed:
        raise ValueError("resume= continues a run with its own settings; these differ: " +
                         ", ".join(f"{k} (was {resume.settings.get(k)!r}, now "
                                   f"{settings.get(k)!r})" for k in changed))


def _thin(n: int, max_points: int) -> list[int]:
    if n <= max_points:
        return list(range(n))
    picks = {round(i * (n - 1) / (max_points - 1)) for i in range(max_points)}
    return sorted(picks)


def restore(resume: History, model, opt, scheduler, best, device) -> int:
    """Put the state of the run ``resume`` ended with into ``model``, ``opt``, ``scheduler``
    and ``best``; return its step."""
    state = resume.state
    model.load_state_dict(state.model)
    opt.load_state_dict(copy.deepcopy(state.optimizer))  # a History can be resumed twice
    if scheduler is not None and state.scheduler is not None:
        scheduler.load_state_dict(state.scheduler)
    best.value, best.epoch, weights = state.best
    if best.keep_state and weights is not None:
        best.state = _copy_state(weights)
    torch.set_rng_state(state.rng)
    model.to(device)
    return state.step
