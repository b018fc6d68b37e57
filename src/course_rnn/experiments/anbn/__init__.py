"""Counting a^n b^n (chapter 3): which recurrent networks learn to count, and which only fit?

The experiment of Levy's lecture (2023; slides *Training recurrent architectures on a^n b^n*,
*Hidden & cell state contents*, *Summary*): tiny language models – 4 units, one-hot inputs, as
tiny as Gers & Schmidhuber's (2001) and Weiss et al.'s (2018) counters – are trained on

    train = { a^n b^n : 1 ≤ n ≤ N_train }

and then asked whether they learned *to count* or only the lengths they saw.

**Training.** The training set is twenty strings, so every step sees all of them (full-batch
Adam, learning rate ``lr``, gradients clipped at norm ``clip``); the learning rate halves
whenever the training loss has not improved for ``lr_patience`` epochs (down to ``min_lr``).
``batch_size`` and ``repeats`` (copies of each string per epoch) give mini-batches instead.

**Learned?** The training loss has an exact minimum (:func:`course_rnn.metrics.optimal_loss`;
0.1362 nats per symbol for n uniform on 1 … 20: only where the a's stop is uncertain). A run
stops, *converged*, at the first of

* **fitted**: its training loss is within ``tolerance`` nats of that optimum
  (:class:`~course_rnn.training.Optimum`);
* **stalled**: its training loss has improved by less than ``min_delta`` (relative) over the
  last ``patience`` epochs (:class:`~course_rnn.training.Plateau`) while above the optimum. A
  stall may be slow learning, so every stalled run is continued to at least twice its epochs,
  and on to its own stop: one that stalls again short of the optimum is **stuck**, it *failed
  to learn*.

A run that reaches the cap of ``epochs`` first did **not** converge. Only the fitted runs are
asked about generalisation, so "did not generalise" never stands for "was not trained long
enough".

**Then generalised?** After the first b every symbol is forced, so a model is right on a^n b^n
when its top prediction is correct at each forced position (each later b, then the end);
:class:`CountingTest` (the test of :func:`course_rnn.metrics.anbn_generalisation`, in one pass)
turns that into

    max_correct_n = max { N ≤ N_test : every n ≤ N is right },

recorded at every evaluation (every ``eval_every`` epochs) and scored on the final model.
Generalisation is graded by how far past the training range a fitted run is right: it
*generalised* – it counts – when it is right on every n up to at least twice N_train
(max_correct_n ≥ 2 N_train, :data:`COUNTS_TO`; chapter 3 traces a^40 b^40, double the longest
training string); it *generalised part-way* when it is right beyond N_train but not that far,
as an approximate counter is for a few steps; otherwise it *learned, did not generalise*.

Models (:data:`MODELS`): the lecture's SRN (tanh), GRU and LSTM with ``hidden_size`` units, and
two SRNs that separate the architecture from its squashing nonlinearity: a ReLU SRN with
``hidden_size`` units and a tanh SRN with ``wide_hidden_size`` units. Weiss, Goldberg & Yahav
(2018) showed that under finite precision an LSTM or a ReLU SRN can implement a counter, a GRU or
a squashing SRN only an approximation of one.

**Verdicts.** The lecture's claims, each a :class:`~course_rnn.experiments.replication.Claim`
(:func:`lecture_claims`), are judged by :func:`~course_rnn.experiments.replication.judged_rows`
(with the table's other rows kept in place) on *settled* runs: :func:`settle`
continues every stalled run, and every run that ran out of epochs, to twice its epochs (same
seed, ``min_epochs``: the first part of the run is identical), and what it became – stuck,
fitted, or still out of epochs – stands in for it (a stuck run counts nothing). When a claim
disagrees with the lecture there, its deciding runs (the seeds that disagree,
:func:`deciding_pairs`) are continued to twice their epochs and scored again by
:func:`continue_disputed` (:func:`~course_rnn.experiments.replication.twice_the_budget`; a
deciding run that was a stalled run's continuation is continued once more). All of it is
trained before any row is built; the deciding runs the first runs already point to are
trained with the stalled ones.

``run(scale="quick")`` is what chapter 3 shows (:data:`DEFAULT_SEEDS` seeds of the lecture's
models, ``extra_seeds`` of the other two, trained in parallel processes); ``scale="paper"`` runs
10 seeds of each with a larger cap; ``settings=`` overrides entries of the scale's
:class:`~.settings.AnbnSettings` (the tests run it tiny).

The module reads top to bottom, the idea first: the settings (:mod:`.settings`, read alone by
the command line, with the models), the data and the jobs (the counting test, training one run),
one run's numbers (its score), the lecture's claims, the runs trained on before any row is built
(settled, then the deciding ones continued); then the bookkeeping: the summaries the rows and
the chapter read, the rows (the claims judged), the figures, the saved numbers and
:func:`run`. It is longer than most modules of the library because it is
the whole experiment: one run is followed from its training through its score to the claim it
decides without leaving the file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, partial

import numpy as np
import torch

from ...analysis.curves import learning_curves
from ...languages import AnBn, Vocab, make_batch
from ...metrics import optimal_loss
from ...models import build_model
from ...training import AnyOf, History, Optimum, Plateau, ReduceOnPlateau, fit
from ..records import Record, mean_se, saved_if_set, unsaved
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    converged_by_model,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import (
    COUNTS_TO,
    DEFAULT_SEEDS,
    EXTRA_MODELS,
    LECTURE_MODELS,  # noqa: F401 (the chapters read anbn.LECTURE_MODELS)
    MODELS,
    SETTINGS,
    AnbnSettings,
    model_name,
)

# -- the settings' companions: the sources, the claims, the outcomes ----------------------------

LECTURE = "Levy 2023, slides 'Hidden & cell state contents' and 'Summary'"
GERS = "Gers & Schmidhuber 2001"
WEISS = "Weiss, Goldberg & Yahav 2018"
#: The lecture's claim about each of its models: the SRN and the GRU do not count, the LSTM
#: does, more often than they ("works the best"). A run counts when it is right on every n up
#: to COUNTS_TO times the longest training n (:func:`counting_n`).
CLAIMS = {"srn": "no count", "gru": "no count", "lstm": "lstm best"}
#: What became of a run: it reached the cap first; it stalled above the optimum (converged,
#: training set not fitted); continued to twice its epochs, it stalled there again (stuck);
#: it fitted but got some n ≤ N_train + 1 wrong; it fitted and was right beyond the training
#: range but not up to COUNTS_TO × N_train; it fitted and was right up to there or further.
OUTCOMES = ("not converged", "stalled", "failed to learn", "learned, did not generalise",
            "generalised part-way", "generalised")
#: A run's ending in the glossary's words (:func:`~course_rnn.training.tally`), by outcome.
ENDING_OF = {"stalled": "stalled", "failed to learn": "stuck"}



# -- the data and the jobs: the counting test, train one run ------------------------------------


def model_seeds(model_id: str, seeds: Sequence[int], settings: AnbnSettings) -> list[int]:
    """The seeds ``model_id`` is trained on (the extra SRNs: the first ``extra_seeds``)."""
    return list(seeds[: settings.extra_seeds]) if model_id in EXTRA_MODELS else list(seeds)


def train_strings(train_max_n: int, repeats: int) -> list[tuple]:
    """One epoch's strings: a^n b^n for n = 1 … ``train_max_n``, each ``repeats`` times."""
    return [AnBn.string(n) for n in range(1, train_max_n + 1)] * repeats


def training_optimum(settings: AnbnSettings) -> float:
    """The exact minimum of the mean training loss (nats per symbol) on the training strings."""
    return _optimum(settings.train_max_n, settings.repeats)


@cache  # asked for by every run's criterion and score, and by the claims: computed once
def _optimum(train_max_n: int, repeats: int) -> float:
    return optimal_loss(train_strings(train_max_n, repeats))


def evaluations(epochs: int, settings: AnbnSettings) -> int:
    """``epochs`` counted in evaluations (one every ``eval_every`` epochs; at least one)."""
    return max(1, epochs // settings.eval_every)


def learned(settings: AnbnSettings) -> AnyOf:
    """When a run stops, converged: fitted (within ``tolerance`` of the optimum) or stalled (a
    plateau of the training loss over ``patience`` epochs)."""
    return AnyOf(Optimum(training_optimum(settings), settings.tolerance),
                 Plateau("train_loss", patience=evaluations(settings.patience, settings),
                         min_delta=settings.min_delta))


class CountingTest:
    """Which of a^n b^n, n = 1 … ``max_n``, a model gets right, in one forward pass.

    The test of :func:`course_rnn.metrics.anbn_generalisation`: a string is right when the
    model's top prediction (over EOS and the letters) is the forced symbol at every position
    after the first b – each later b, then the end. The strings are batched once, here, with
    the mask of those ``forced`` positions (:func:`loss_by_phase` reads them too).
    """

    def __init__(self, vocab: Vocab, max_n: int):
        batch = make_batch(vocab, [AnBn.string(n) for n in range(1, max_n + 1)])
        n = torch.arange(1, max_n + 1)[:, None]
        t = torch.arange(batch.inputs.shape[1])[None, :]
        self.forced = (t > n) & (t <= 2 * n)  # row t predicts the symbol after t inputs
        self.inputs, self.targets, self.mask = batch.inputs, batch.targets, batch.mask
        self.first = vocab.eos_id  # the output symbols: EOS, then the letters

    def logits(self, model) -> torch.Tensor:
        """The model's logits on every string (evaluation mode, no gradient)."""
        was_training = model.training
        model.eval()
        with torch.no_grad():
            logits = model(self.inputs.to(model.device))
        model.train(was_training)
        return logits

    def right(self, model) -> np.ndarray:
        """A boolean per n = 1 … max_n: every forced position right."""
        guess = self.logits(model)[..., self.first:].argmax(-1).cpu() + self.first
        return ((guess == self.targets) | ~self.forced).all(dim=1).numpy()

    def max_correct_n(self, model) -> int:
        """The largest N such that every n ≤ N is right (0 when n = 1 is wrong)."""
        return max_correct_n(self.right(model))


def max_correct_n(right: np.ndarray) -> int:
    """The largest N such that ``right[n - 1]`` holds for every n ≤ N."""
    wrong = np.flatnonzero(~np.asarray(right, dtype=bool))
    return int(wrong[0]) if wrong.size else len(right)


def train_one(model_id: str, seed: int, settings: AnbnSettings, device=None, min_epochs: int = 0,
              clip="settings", resume=None) -> tuple:
    """Build and train one model until it fits its training set, stalls, or hits the cap;
    return ``(model, history)``. ``history["max_correct_n"]`` is max_correct_n (n ≤
    ``test_max_n``) at every evaluation (every ``eval_every`` epochs). ``min_epochs``
    trains at least that long and ``resume`` (the History of the seed's first run) continues
    it (twice its budget, and then to its own stop within the continued run's cap, which
    :func:`~course_rnn.training.fit` sets); ``clip`` overrides the setting (None: no
    clipping). Top level, for worker processes."""
    kind, options, size = MODELS[model_id]
    vocab = Vocab.for_language(AnBn())
    model = build_model(kind, vocab_size=len(vocab), hidden_size=getattr(settings, size), seed=seed,
                        **options)
    test = CountingTest(vocab, settings.test_max_n)
    strings = train_strings(settings.train_max_n, settings.repeats)
    steps_per_epoch = math.ceil(len(strings) / (settings.batch_size or len(strings)))
    history = fit(model, vocab, strings, epochs=settings.epochs,
                  min_epochs=min_epochs, batch_size=settings.batch_size, lr=settings.lr,
                  schedule=ReduceOnPlateau(0.5, evaluations(settings.lr_patience, settings),
                                           settings.min_lr),
                  clip=settings.clip if clip == "settings" else clip, until=learned(settings),
                  eval_every=settings.eval_every * steps_per_epoch, seed=seed, device=device,
                  metrics={"max_correct_n": test.max_correct_n}, progress=False, resume=resume)
    return model, history


def train_all(pairs, settings, device, progress, min_epochs=None, resume=None) -> list:
    """Train every (model id, seed) of ``pairs`` in parallel; ``min_epochs`` and ``resume``
    map a pair to its budget and the History it continues."""
    jobs = [(m, s, settings, str(device), (min_epochs or {}).get((m, s), 0), "settings",
             (resume or {}).get((m, s))) for m, s in pairs]
    return parallel_map(train_one, jobs, device=device, desc="a^n b^n", progress=progress)


# -- one run's numbers: its score ---------------------------------------------------------------


@dataclass
class RunScore(Record):
    """One run (:func:`score_run`): its model's name and id, seed; whether and when it
    converged and whether it fitted; its final and best training loss and the gap to the
    optimum; how many n are right inside (n ≤ N_train) and beyond the training range;
    max_correct_n at the end, at its best evaluation and at every evaluation
    (``curve_epochs``); each n's verdict (``right``); its training loss by phase
    (:func:`loss_by_phase`: ``uncertain`` and ``forced``); the largest gradient norm and the
    share of clipped steps; and its outcome (one of :data:`OUTCOMES`). A run continued to
    twice its epochs also has the epochs it was made to train (``min_epochs``) and, not saved,
    its ``history`` and trained ``network``."""

    model: str
    id: str
    seed: int
    converged: bool
    fitted: bool
    stopped: str
    epochs: float
    steps: int
    final_loss: float
    best_loss: float
    gap_to_optimum: float
    train_right: int
    beyond_right: int
    max_correct_n: int
    max_correct_n_best_epoch: int
    max_correct_n_curve: list[int]
    curve_epochs: list[float]
    right: list[bool]
    loss_by_phase: dict[str, float]
    max_grad_norm: float
    clipped_share: float
    outcome: str
    min_epochs: int | None = saved_if_set()
    history: History | None = unsaved(default=None, repr=False)
    network: object = unsaved(default=None, repr=False)

    @property
    def ending(self) -> str:
        """How the run ended, as :func:`~course_rnn.training.tally` counts it: "fitted",
        "stalled" (a first run converged above the optimum), "stuck" (a continued run that
        stalled again) or how it stopped without converging."""
        return "fitted" if self.fitted else ENDING_OF.get(self.outcome, self.stopped)


def loss_by_phase(model, vocab: Vocab, train_max_n: int) -> dict[str, float]:
    """The mean training loss (nats per predicted symbol, n = 1 … ``train_max_n`` once each)
    split in two parts that add up to it: ``uncertain``, the predictions made while reading
    the a's (will another a come, or the first b?), and ``forced``, those after the first b
    (each later b, then the end), which a counter gets right with certainty. The exact optimum
    puts all of its loss in the first part."""
    strings = CountingTest(vocab, train_max_n)
    each = torch.nn.functional.cross_entropy(
        strings.logits(model).float().cpu().transpose(1, 2), strings.targets, reduction="none")
    mask, forced = strings.mask, strings.forced
    total = mask.sum()
    return {"uncertain": float((each * (mask & ~forced)).sum() / total),
            "forced": float((each * forced).sum() / total)}


def outcome(converged: bool, fitted: bool, max_correct_n: int, train_max_n: int,
            continued: bool = False) -> str:
    """One of :data:`OUTCOMES` (``continued``: the run was continued to twice its epochs, so
    a stall there is a failure to learn)."""
    if not converged:
        return "not converged"
    if not fitted:
        return "failed to learn" if continued else "stalled"
    if max_correct_n >= counting_n(train_max_n):
        return "generalised"
    return "generalised part-way" if max_correct_n > train_max_n else "learned, did not generalise"


def counting_n(train_max_n: int) -> int:
    """The n up to which a run must be right on every string to count: :data:`COUNTS_TO`
    times the longest training n (40 for n ≤ 20)."""
    return COUNTS_TO * train_max_n


def score_run(model_id: str, seed: int, model, history, settings: AnbnSettings,
              continued: bool = False) -> RunScore:
    """One run's numbers (a :class:`RunScore`): whether and when it converged and
    whether it fitted (its final loss within ``tolerance`` of the optimum), where its loss lies
    (:func:`loss_by_phase`), how many n are right inside (n ≤ N_train) and beyond the training
    range, max_correct_n at the end, at every evaluation (``curve_epochs``) and at its best
    evaluation, the largest gradient norm and the share of clipped steps, and its
    :func:`outcome` (``continued``: a run continued to twice its epochs)."""
    train_n, test_n = settings.train_max_n, settings.test_max_n
    right = CountingTest(Vocab.for_language(AnBn()), test_n).right(model)
    max_correct = max_correct_n(right)
    curve = [int(v) for v in history["max_correct_n"]]
    record = history.convergence
    final_loss = float(history.last["train_loss"])
    gap = final_loss - training_optimum(settings)
    fitted = bool(record.converged) and gap <= settings.tolerance
    clipped = history["clipped"]
    return RunScore(
        model=model_name(model_id, settings), id=model_id, seed=int(seed),
        converged=bool(record.converged), fitted=fitted, stopped=record.stopped,
        epochs=float(record.epochs), steps=int(record.steps),
        final_loss=final_loss, best_loss=float(min(history["train_loss"])), gap_to_optimum=gap,
        train_right=int(right[:train_n].sum()), beyond_right=int(right[train_n:].sum()),
        max_correct_n=max_correct, max_correct_n_best_epoch=max(curve),
        max_correct_n_curve=curve, curve_epochs=[float(e) for e in history["epoch"]],
        right=[bool(v) for v in right],
        loss_by_phase=loss_by_phase(model, Vocab.for_language(AnBn()), train_n),
        max_grad_norm=float(max(history["grad_norm"])),
        clipped_share=float(np.mean(clipped)) if clipped else 0.0,
        outcome=outcome(record.converged, fitted, max_correct, train_n, continued))


# -- the lecture's claims: rules read on the runs -----------------------------------------------


def generalises(run: RunScore, train_max_n: int) -> bool:
    """A fitted run that counts: right on every n up to twice the training range
    (:func:`counting_n`) or further."""
    return bool(run.fitted) and run.max_correct_n >= counting_n(train_max_n)


def _counting_share(runs: Sequence[RunScore], train_max_n: int) -> tuple[int, int]:
    """(converged seeds that generalise, converged seeds): a seed that did not fit counts
    nothing."""
    converged = [r for r in runs if r.converged]
    return sum(generalises(r, train_max_n) for r in converged), len(converged)


def _share(runs: Sequence[RunScore], train_max_n: int) -> float:
    k, converged = _counting_share(runs, train_max_n)
    return k / converged if converged else 0.0


def no_count_compared(runs: Sequence[RunScore], train_max_n: int) -> tuple[int, bool, float]:
    """The lecture's claim for the SRN and the GRU, no seed counts, on ``runs``: (the converged
    seeds that do – fitted and right up to twice N_train, :func:`generalises` –, whether none
    does, their share: the gap)."""
    k, converged = _counting_share(runs, train_max_n)
    return k, k == 0, k / max(converged, 1)


def lstm_best_compared(lstm: Sequence[RunScore], rivals: Sequence[Sequence[RunScore]],
                       train_max_n: int) -> tuple[float, bool, float]:
    """The lecture's claim for the LSTM: it counts (:func:`generalises`), and more often
    than the SRN and the GRU ("works the best"). (The share of converged LSTM seeds that
    generalise; whether some do and the share beats that of every rival; the gap: the share of
    seeds the LSTM would have to gain to lead, one seed when it ties.)"""
    k, converged = _counting_share(lstm, train_max_n)
    share = k / converged if converged else 0.0
    rival = max((_share(r, train_max_n) for r in rivals), default=0.0)
    agrees = k > 0 and share > rival
    return share, agrees, 0.0 if agrees else max(rival - share, 0.0) + 1 / max(converged, 1)


@dataclass
class ClaimNumbers:
    """What the lecture's claims read (the ``numbers`` of
    :func:`~course_rnn.experiments.replication.judged_rows`): ``runs``, each model's scored runs
    by id – the first ones, the settled ones (:func:`settle`), or those with their deciding
    runs at twice the budget (:func:`continue_disputed`) –; and for the rows' words,
    ``summary``, the first runs by model name (:func:`summarise`), and ``continued``, what
    became of the stalled ones (:func:`recheck`)."""

    runs: Mapping[str, Sequence[RunScore]]
    summary: Mapping[str, ModelSummary]
    continued: Mapping[str, Continued] = field(default_factory=dict)


def lecture_claims(settings: AnbnSettings) -> list[Claim]:
    """The lecture's claim about each of its models that ``settings`` trains (:data:`CLAIMS`), as
    rows to judge: the SRN's and the GRU's, then the LSTM's."""
    optimum = training_optimum(settings)
    rivals = tuple(m for m in ("srn", "gru") if m in settings.models)
    return [no_count_claim(m, settings, optimum) if claim == "no count"
            else lstm_claim(rivals, settings)
            for m, claim in CLAIMS.items() if m in settings.models]


def no_count_claim(model_id: str, settings: AnbnSettings, optimum: float) -> Claim:
    """The lecture's claim that ``model_id`` (the SRN or the GRU) does not count, decided by its
    own seeds; the note says what they did (:func:`_no_count_note`)."""
    name, train_n = model_name(model_id, settings), settings.train_max_n

    def check(numbers: ClaimNumbers):
        return (_fitted_text(numbers.summary[name], train_n),
                *no_count_compared(numbers.runs[model_id], train_n))

    def note(numbers: ClaimNumbers) -> str:
        return _no_count_note(numbers.summary[name], train_n, settings.tolerance, optimum,
                              numbers.continued.get(name))

    return Claim(f"{name} ({settings.hidden_size} units): counts, right on every n ≤ "
                 f"{counting_n(train_n)} (trained on n ≤ {train_n}, "
                 f"tested to {settings.test_max_n})",
                 f"no: its state saturates ({LECTURE})", check, (model_id,), note)


def _no_count_note(s: ModelSummary, train_max_n: int, tolerance: float, optimum: float,
                   again: Continued | None = None) -> str:
    """What the seeds of a model the lecture says cannot count did, in words (``again``: what
    became of its stalled seeds, continued)."""
    if not s.converged:
        note = ("no seed converged in its first budget (the cap on epochs came first): each "
                "was continued to twice its epochs, and the verdict is judged on those runs")
    elif not s.fitted:
        note = (f"no seed fitted the training set in its first budget (a seed has fitted when its "
                f"training loss is within {tolerance:g} nats of the optimum {optimum:.4f})")
        if not (again and again.fitted):
            note += ": it fails before counting is tested, so it cannot count either"
    elif s.generalised:
        note = (f"{s.generalised} fitted seed(s) get every n right up to "
                f"{counting_n(train_max_n)} or further: they count")
    elif s.part_way:
        note = (f"{s.part_way} fitted seed(s) are right a few steps past {train_max_n} (best "
                f"{s.max_correct_n_best_seed}), none up to {counting_n(train_max_n)}: an "
                "approximate counter, as a squashing unit can be for a while")
    else:
        note = f"no fitted seed is right on every n ≤ {train_max_n + 1}"
    if s.fitted and s.stalled:
        note += f"; {s.stalled} seed(s) stalled above the optimum (a stuck seed counts nothing)"
    if again and (again.generalised or again.part_way):
        note += (f"; continued, {again.generalised + again.part_way} stalled seed(s) fitted and "
                 f"are right past {train_max_n} ({again.generalised} up to "
                 f"{counting_n(train_max_n)}): the verdict is judged on the continued runs")
    return note


def lstm_claim(rivals: tuple[str, ...], settings: AnbnSettings) -> Claim:
    """The lecture's claim that the LSTM counts, and more often than its ``rivals`` (the ids of
    the SRN and the GRU, where trained): decided by every seed of the three."""
    train_n = settings.train_max_n
    names = [model_name(m, settings) for m in rivals]

    def check(numbers: ClaimNumbers):
        return (_fitted_text(numbers.summary[model_name("lstm", settings)], train_n),
                *lstm_best_compared(numbers.runs["lstm"], [numbers.runs[m] for m in rivals],
                                    train_n))

    note = ("the share of settled seeds that fit and count, against the "
            + (" and the ".join(f"{r}'s" for r in names) or "rivals'")
            + " (a stalled seed stands for its continuation; a stuck one counts as not counting)")
    return Claim(f"LSTM ({settings.hidden_size} units): counts (right on every n ≤ "
                 f"{counting_n(train_n)}), more often than SRN and GRU",
                 f"yes: \"for classic counting language, LSTM works the best\" ({LECTURE})",
                 check, ("lstm", *rivals), note)


def deciding_pairs(numbers: ClaimNumbers, settings: AnbnSettings) -> list[tuple[str, int]]:
    """The (model id, seed) pairs to continue at twice the budget because a claim disagrees on
    ``numbers``: of the models behind such claims
    (:func:`~course_rnn.experiments.replication.deciding_models`), the seeds whose outcome goes
    against the lecture – the converged LSTM seeds that do not count, the converged SRN and GRU
    seeds that do –, model by model in the order of :data:`CLAIMS`.

    Only those seeds: continuing one that agrees could not close the gap. (An SRN or a GRU
    behind the LSTM's claim alone has none: its own claim agrees, so none of its seeds counts.)
    """
    models = deciding_models(lecture_claims(settings), numbers, converged_by_model)
    return [(m, r.seed) for m in CLAIMS if m in models for r in numbers.runs[m]
            if r.converged and generalises(r, settings.train_max_n) != (m == "lstm")]


# -- trained on before any row is built: the runs settled, the deciding ones continued ----------


def stalled(run: RunScore) -> bool:
    """Whether a run converged without fitting: it stopped on a plateau above the optimum."""
    return run.converged and not run.fitted


def stalled_runs(by_model: Mapping[str, Sequence[RunScore]]) -> list[tuple[str, int]]:
    """The (model id, seed) pairs that converged without fitting: each is continued to twice
    its epochs, to tell a stuck run from a slow one."""
    return [(m, r.seed) for m, runs in by_model.items() for r in runs if stalled(r)]


def unsettled_runs(by_model: Mapping[str, Sequence[RunScore]]) -> list[tuple[str, int]]:
    """The runs that have not settled, each continued to twice its epochs before any claim is
    measured: the stalled ones (:func:`stalled_runs`) and those that reached the cap still
    short of their criterion (ran out of epochs)."""
    return [*stalled_runs(by_model),
            *((m, r.seed) for m, runs in by_model.items() for r in runs if not r.converged)]


def continue_runs(min_epochs: Mapping[tuple[str, int], int], resume: Mapping,
                  settings: AnbnSettings, device=None, progress=None
                  ) -> dict[tuple[str, int], RunScore]:
    """The runs of ``min_epochs`` continued from their ``resume[pair]`` History to that many
    epochs, trained together and scored (the ``train_again`` of
    :func:`~course_rnn.experiments.replication.twice_the_budget`)."""
    pairs = list(min_epochs)
    trained = train_all(pairs, settings, device, progress, min_epochs, resume)
    return {p: replace(score_run(*p, model, history, settings, continued=True),
                       min_epochs=min_epochs[p], history=history, network=model)
            for p, (model, history) in zip(pairs, trained)}


@dataclass
class Settled:
    """The runs once :func:`settle` has trained them on: ``doubled``, every run it continued to
    twice its epochs, by (model id, seed); ``stand_ins``, those of them that stand in for their
    first run (the unsettled ones; the others are deciding runs continued in advance); and
    ``numbers``, what the claims read on the settled runs."""

    doubled: dict[tuple[str, int], RunScore]
    stand_ins: list[tuple[str, int]]
    numbers: ClaimNumbers


def settle(first: ClaimNumbers, histories: Mapping, settings: AnbnSettings, device=None,
           progress=None) -> Settled:
    """Train the first runs on until they have settled (through :func:`continue_runs`).

    A stalled run has not settled, nor has one that ran out of epochs (:func:`unsettled_runs`):
    each is continued to twice its epochs, and its continuation stands in for it. The deciding
    runs of the claims that disagree on the first runs (:func:`deciding_pairs`) are continued
    with them, in one go, as the settled runs will most likely ask for them too
    (:func:`continue_disputed`). ``histories``: the first runs' Histories, by (model id, seed).
    """
    unsettled = unsettled_runs(first.runs)
    doubled = twice_the_budget(histories, [*unsettled, *deciding_pairs(first, settings)],
                               partial(continue_runs, settings=settings, device=device,
                                       progress=progress))
    standing = set(unsettled)
    runs = {m: [doubled[m, r.seed] if (m, r.seed) in standing else r for r in runs]
            for m, runs in first.runs.items()}
    continued = recheck([r for runs in first.runs.values() for r in runs], doubled)
    return Settled(doubled, unsettled, ClaimNumbers(runs, first.summary, continued))


def continue_disputed(settled: Settled, histories: Mapping, settings: AnbnSettings, device=None,
                      progress=None) -> tuple[dict[tuple[str, int], RunScore], ClaimNumbers]:
    """Train to twice their budget the deciding runs of the claims that disagree on the settled
    runs (:func:`deciding_pairs`; through :func:`continue_runs`): a first run from its History
    (``histories``), a stand-in from its own (a continuation continued once more). One that
    :func:`settle` continued in advance is not trained again.

    Returns the runs continued here, by (model id, seed), and the settled numbers with every
    deciding run at twice its budget: the ``doubled_numbers`` of
    :func:`~course_rnn.experiments.replication.judged_rows`."""
    disputed = deciding_pairs(settled.numbers, settings)
    in_advance = {p: d for p, d in settled.doubled.items() if p not in settled.stand_ins}
    latest = {**histories, **{p: settled.doubled[p].history for p in settled.stand_ins}}
    again = twice_the_budget(latest, [p for p in disputed if p not in in_advance],
                             partial(continue_runs, settings=settings, device=device,
                                     progress=progress))
    twice = {p: in_advance[p] if p in in_advance else again[p] for p in disputed}
    runs = {m: [twice.get((m, r.seed), r) for r in runs]
            for m, runs in settled.numbers.runs.items()}
    return again, replace(settled.numbers, runs=runs)


# -- the summaries the rows and the chapter read ------------------------------------------------


@dataclass
class ModelSummary:
    """One model's seeds (:func:`summarise`): how many converged, fitted, stalled above the
    optimum (with the range of their final losses) or hit the cap; how many fitted seeds
    generalised (count up to twice the training range) and how many only ``part_way``;
    max_correct_n over the fitted seeds (mean, SE, the best and its seed; None
    when none fitted); the lowest final loss; the mean epochs and the best epoch of any
    seed."""

    n_seeds: int
    converged: int
    fitted: int
    stalled: int
    stalled_loss_min: float | None
    stalled_loss_max: float | None
    generalised: int
    part_way: int
    max_correct_n_mean: float | None
    max_correct_n_se: float | None
    best_seed: int | None
    max_correct_n_best_seed: int | None
    lowest_final_loss: float
    epochs_mean: float
    best_epoch_any_seed: int


def summarise(runs: Sequence[RunScore]) -> dict[str, ModelSummary]:
    """Per model (by name), a :class:`ModelSummary` of its seeds."""
    summary = {}
    for name in dict.fromkeys(r.model for r in runs):
        mine = [r for r in runs if r.model == name]
        fitted = [r for r in mine if r.fitted]
        stuck = [r.final_loss for r in mine if stalled(r)]
        finals = [r.max_correct_n for r in fitted]
        grades = [r.outcome for r in fitted]  # as recheck reads them: one route to a grade
        mean, se = mean_se(finals) if finals else (None, None)
        best = max(fitted, key=lambda r: r.max_correct_n) if fitted else None
        summary[name] = ModelSummary(
            n_seeds=len(mine), converged=sum(r.converged for r in mine), fitted=len(fitted),
            stalled=len(stuck), stalled_loss_min=min(stuck, default=None),
            stalled_loss_max=max(stuck, default=None),
            generalised=grades.count("generalised"),
            part_way=grades.count("generalised part-way"),
            max_correct_n_mean=mean, max_correct_n_se=se,
            best_seed=best.seed if best else None,
            max_correct_n_best_seed=best.max_correct_n if best else None,
            lowest_final_loss=min(r.final_loss for r in mine),
            epochs_mean=float(np.mean([r.epochs for r in mine])),
            best_epoch_any_seed=max(r.max_correct_n_best_epoch for r in mine))
    return summary


@dataclass
class Continued:
    """What became of one model's stalled runs continued to twice their epochs and on to their
    own stop (:func:`recheck`): how many were ``continued``, ``fitted`` then (``generalised``:
    and counting, right up to twice the training range; ``part_way``: right beyond it, not
    that far), are ``stuck`` (stalled again; their losses
    ``stuck_min`` … ``stuck_max``) or ``still_improving`` at the cap (``improving_min`` …
    ``improving_max``)."""

    continued: int
    fitted: int
    generalised: int
    part_way: int
    stuck: int
    stuck_min: float | None
    stuck_max: float | None
    still_improving: int
    improving_min: float | None
    improving_max: float | None


def recheck(runs: Sequence[RunScore], doubled: Mapping[tuple, RunScore]) -> dict[str, Continued]:
    """What became of the stalled first ``runs`` (converged, not fitted) continued to twice
    their epochs (``doubled``, by (model id, seed)), per model name, in the runs' order."""
    result = {}
    for name in dict.fromkeys(r.model for r in runs):
        again = [doubled[r.id, r.seed] for r in runs
                 if r.model == name and stalled(r) and (r.id, r.seed) in doubled]
        if not again:
            continue
        still = [d.final_loss for d in again if stalled(d)]
        moving = [d.final_loss for d in again if not d.converged]
        result[name] = Continued(
            continued=len(again), fitted=sum(d.fitted for d in again),
            generalised=sum(d.outcome == "generalised" for d in again),
            part_way=sum(d.outcome == "generalised part-way" for d in again), stuck=len(still),
            stuck_min=min(still, default=None), stuck_max=max(still, default=None),
            still_improving=len(moving), improving_min=min(moving, default=None),
            improving_max=max(moving, default=None))
    return result


@dataclass
class Instability:
    """How a run's max_correct_n moves once it first passes N_train (:func:`instability`): the
    ``seed``, the first evaluated epoch where it does, the lowest and highest value from then on
    (None when it never does)."""

    seed: int
    first_epoch_beyond: int | None
    min_after: int | None
    max_after: int | None


def instability(run: RunScore, train_max_n: int) -> Instability:
    """How the run's max_correct_n moves once it first passes ``train_max_n``."""
    curve = np.array(run.max_correct_n_curve)
    beyond = np.flatnonzero(curve > train_max_n)
    if beyond.size == 0:
        return Instability(run.seed, None, None, None)
    after = curve[beyond[0]:]
    return Instability(run.seed, int(run.curve_epochs[beyond[0]]), int(after.min()),
                       int(after.max()))


def lstm_instability(runs: Sequence[RunScore], train_max_n: int) -> Instability | None:
    """The :func:`instability` of the fitted LSTM seed that counts furthest (None when no LSTM
    seed fitted)."""
    fitted = [r for r in runs if r.id == "lstm" and r.fitted]
    return instability(max(fitted, key=lambda r: r.max_correct_n), train_max_n) if fitted \
        else None


# -- the rows: the lecture's claims judged, ours beside the papers ------------------------------


def table_rows(settled: ClaimNumbers, twice: ClaimNumbers, unstable: Instability | None,
               settings: AnbnSettings) -> list[Row]:
    """The paper-vs-ours table: the lecture's claim per model (:func:`lecture_claims`) judged
    on the ``settled`` runs and, where one disagrees, on ``twice``, its deciding runs at twice
    their budget (:func:`continue_disputed`); Gers & Schmidhuber's reach, Weiss et al.'s theory
    for the two extra SRNs, the seeds that stalled and what became of them at twice the epochs,
    and the best LSTM's stability across epochs (plain rows, kept in their place)."""
    summary = settled.summary
    rows = [*lecture_claims(settings), *reach_rows(summary, settings),
            *theory_rows(summary, settings),
            *stalled_rows(summary, settled.continued, settings, training_optimum(settings)),
            *instability_rows(unstable, settings.train_max_n)]
    return judged_rows(rows, settled, twice, converged_by_model)


def reach_rows(summary: Mapping[str, ModelSummary], settings: AnbnSettings) -> list[Row]:
    """The best fitted LSTM seed's max_correct_n beside Gers & Schmidhuber's."""
    train_n, test_n = settings.train_max_n, settings.test_max_n
    s = summary.get(model_name("lstm", settings))
    if s is None:
        return []
    best = s.max_correct_n_best_seed
    return [Row("LSTM: best fitted seed's max_correct_n",
                f"trained on n ≤ 10, right on every n up to ≈ 1,000 ({GERS}, peephole LSTM)",
                f"{best} (seed {s.best_seed}; trained on n ≤ {train_n}, tested to {test_n})"
                if best is not None else "no seed fitted",
                "different training range, test range, size and cell (no peepholes)"
                + ("; ours is right to the end of our test" if best == test_n else ""),
                "not comparable")]


def theory_rows(summary: Mapping[str, ModelSummary], settings: AnbnSettings) -> list[Row]:
    """Weiss et al.'s theory about the two extra SRNs (a theorem, not a training result)."""
    theory = {"srn-relu": "can implement an exact counter (theory: finite precision)",
              "srn-wide": "can only approximate a counter: a squashing unit saturates (theory)"}
    return [Row(f"{name}: counts (right on every n ≤ {counting_n(settings.train_max_n)})",
                f"{claim} ({WEISS})",
                _fitted_text(summary[name], settings.train_max_n),
                "a theorem about what the weights can express, not about what training finds",
                "not comparable")
            for name, claim in ((model_name(m, settings), c) for m, c in theory.items())
            if name in summary]


def stalled_rows(summary: Mapping[str, ModelSummary], continued: Mapping[str, Continued],
                 settings: AnbnSettings, optimum: float) -> list[Row]:
    """Per model, the seeds that stalled, and what became of them at twice the epochs (stuck,
    fitted or still improving)."""
    rows = []
    for model_id in settings.models:
        name = model_name(model_id, settings)
        s = summary.get(name)
        if not s or not s.stalled:
            continue
        ours = (f"{s.stalled}/{s.n_seeds} seeds stalled at "
                f"{_span(s.stalled_loss_min, s.stalled_loss_max)} nats")
        if name in continued:
            ours += f"; at twice the epochs: {_twice_text(continued[name], settings.train_max_n)}"
        rows.append(Row(
            f"{name}: seeds that fail to learn n ≤ {settings.train_max_n}", "— (not reported)",
            ours,
            f"stalled: the training loss improved by < {settings.min_delta:.1%} over "
            f"{settings.patience} epochs, more than {settings.tolerance:g} nats above the optimum "
            f"{optimum:.4f}; each stalled seed was continued to twice its epochs (same seed); "
            "stuck: it stalled there again"))
    return rows


def _twice_text(again: Continued, train_max_n: int) -> str:
    """"1 stuck at 0.280, 0 fitted" (and how many still improve at the cap, how many fitted
    are right past ``train_max_n`` and how many count)."""
    parts = [f"{again.stuck} stuck"
             + (f" at {_span(again.stuck_min, again.stuck_max)}" if again.stuck else "")]
    if again.still_improving:
        parts.append(f"{again.still_improving} still improving at the cap, at "
                     f"{_span(again.improving_min, again.improving_max)}")
    past = again.generalised + again.part_way
    counting = (f" ({past} right past {train_max_n}, {again.generalised} up to "
                f"{counting_n(train_max_n)})" if past else "")
    parts.append(f"{again.fitted} fitted{counting}")
    return ", ".join(parts)


def instability_rows(unstable: Instability | None, train_max_n: int) -> list[Row]:
    """The best fitted LSTM seed's max_correct_n over the epochs after it is first right beyond
    the training range."""
    if unstable is None:
        return []
    if unstable.first_epoch_beyond is None:
        ours, note = f"never beyond n = {train_max_n}", "no fitted LSTM seed gets there"
    else:
        ours = (f"seed {unstable.seed}: first beyond n = {train_max_n} at epoch "
                f"{unstable.first_epoch_beyond}, then {unstable.min_after}"
                f"…{unstable.max_after}")
        note = ("the slides show one checkpoint; ours moves between epochs"
                if unstable.max_after > unstable.min_after else "stable once it counts")
    return [Row("best LSTM seed: max_correct_n over the epochs after it is first right "
                f"beyond n = {train_max_n}", "— (not reported)", ours, note)]


def _fitted_text(s: ModelSummary, train_max_n: int) -> str:
    """"fitted 5/6 seeds (1 stalled above the optimum); of those, 2/5 count (right up to 40),
    1 more part-way past 20; max_correct_n 25.1 ± 3.2, best 41 (seed 2)"."""
    text = f"fitted {s.fitted}/{s.n_seeds} seeds"
    if s.stalled:
        text += f" ({s.stalled} stalled above the optimum)"
    if not s.fitted:
        return text + f"; lowest final loss {s.lowest_final_loss:.3f}"
    text += (f"; of those, {s.generalised}/{s.fitted} count (right up to "
             f"{counting_n(train_max_n)}), {s.part_way} more part-way past {train_max_n}; "
             f"max_correct_n {pm(s.max_correct_n_mean, s.max_correct_n_se, digits=1)}, "
             f"best {s.max_correct_n_best_seed} (seed {s.best_seed})")
    return text


def _span(low: float, high: float) -> str:
    """"0.271" or "0.271–0.301" (three decimals; one value when both round alike)."""
    low, high = f"{low:.3f}", f"{high:.3f}"
    return low if low == high else f"{low}–{high}"


# -- the figures: every seed's final max_correct_n, the LSTM seeds over the epochs, the curves --


def final_figure(runs: Sequence[RunScore], train_max_n: int, test_max_n: int):
    """Final max_correct_n, one marker per seed, per model: filled when the seed fitted its
    training set, hollow when it stalled above the optimum, a cross when it hit the cap (the
    dashed line: longest training n; the dotted line: where a run counts, :func:`counting_n`)."""
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(r.model for r in runs))
    fig = Figure(figsize=(1.3 * len(names) + 1.5, 3.2), layout="tight")
    ax = fig.subplots()
    for i, name in enumerate(names):
        mine = [r for r in runs if r.model == name]
        xs = np.full(len(mine), i) + np.linspace(-0.15, 0.15, len(mine))
        for x, r in zip(xs, mine):
            if not r.converged:
                ax.scatter([x], [r.max_correct_n], s=36, color=f"C{i}", marker="x")
            else:
                ax.scatter([x], [r.max_correct_n], s=36, color=f"C{i}",
                           facecolors=f"C{i}" if r.fitted else "none")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.text(-0.4, train_max_n + 1, "longest training n", ha="left", fontsize=8, color="grey")
    ax.axhline(counting_n(train_max_n), color="grey", ls=":", lw=1)
    ax.text(-0.4, counting_n(train_max_n) + 1, "twice that: counts", ha="left", fontsize=8,
            color="grey")
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(-2, test_max_n + 3)
    ax.set_ylabel("max_correct_n (final model)")
    ax.set_title("a^n b^n, one marker per seed (hollow: stalled above the optimum)", fontsize=9)
    return fig


def epochs_figure(runs: Sequence[RunScore], train_max_n: int, model: str = "LSTM"):
    """max_correct_n at every evaluation, one line per seed of ``model`` (dashed: a seed that
    did not fit its training set)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), layout="tight")
    ax = fig.subplots()
    for r in (r for r in runs if r.model == model):
        ax.plot(r.curve_epochs, r.max_correct_n_curve, lw=1,
                ls="-" if r.fitted else "--", label=f"{model} seed {r.seed}")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("max_correct_n")
    ax.legend(fontsize=7, ncol=2)
    return fig


def curves_figures(histories: Mapping, settings: AnbnSettings, optimum: float) -> dict:
    """One learning-curve figure per model (``curves_<id>``): every seed's training loss against
    the exact optimum; unconverged seeds dashed."""
    figures = {}
    for model_id in settings.models:
        mine = {f"seed {seed}": h for (m, seed), h in histories.items() if m == model_id}
        if mine:
            figures[f"curves_{model_id}"] = learning_curves(
                mine, ("train_loss",), optimum=optimum, logy=True, size=(4.6, 3.2),
                title=f"{model_name(model_id, settings)}: training loss")
    return figures


# -- run: the saved numbers, the artefacts ------------------------------------------------------


@dataclass
class AnbnNumbers(Record):
    """Every number of the replication (see :func:`~course_rnn.experiments.anbn.run`): the
    first ``runs``, the runs continued to twice their epochs (``doubled``) and the deciding runs
    that were continuations, continued again (``doubled_again``); the summaries are computed
    from them where they are read (:attr:`summary`, :attr:`continued`,
    :func:`lstm_instability`)."""

    runs: list[RunScore]
    doubled: list[RunScore]
    doubled_again: list[RunScore]

    @property
    def summary(self) -> dict[str, ModelSummary]:
        """Per model name, its first runs (:func:`summarise`)."""
        return summarise(self.runs)

    @property
    def continued(self) -> dict[str, Continued]:
        """Per model name, what became of its stalled runs at twice the epochs
        (:func:`recheck`)."""
        return recheck(self.runs, {(d.id, d.seed): d for d in self.doubled})


@dataclass
class AnbnArtefacts:
    """What the chapter reads beyond the numbers (not saved): the trained ``models`` and their
    ``histories`` keyed by (model id, seed), e.g. ("lstm", 0), and the ``vocab`` (the continued
    runs keep their network and history in :attr:`AnbnNumbers.doubled` and ``doubled_again``)."""

    models: dict[tuple[str, int], object]
    histories: dict[tuple[str, int], History]
    vocab: Vocab


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """Train every model of ``settings.models`` on a^n b^n (n ≤ ``train_max_n``) for every
    seed until it fits its training set or stalls; score them; judge the lecture's claims.

    ``numbers`` is an :class:`AnbnNumbers`: ``runs``, one :class:`RunScore` per (model, seed)
    (:func:`score_run`); ``doubled``, the runs continued to twice their epochs (the stalled
    ones, and the deciding ones of a claim that disagreed); ``doubled_again``, the deciding
    runs of a claim that disagreed on the settled runs only, continued then (a stalled run's
    continuation continued once more; :func:`continue_disputed`); computed from them,
    ``summary``, per model name (:func:`summarise`), and ``continued``, per model name, what
    became of its stalled seeds at twice the epochs (:func:`recheck`). ``runs``: every training
    history by name ("LSTM seed 0", "GRU seed 2 (twice the budget)"). ``artefacts`` is an
    :class:`AnbnArtefacts`: ``models`` and ``histories`` keyed by (model id, seed), e.g.
    ("lstm", 0), and the ``vocab``. Figures: ``final`` (one marker per seed), ``lstm_epochs``
    and ``curves_<id>``.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress)
    # settings: from here on, the overrides completed by the scale's settings
    settings, seeds, device, progress = setup.settings, setup.seeds, setup.device, setup.progress
    vocab = Vocab.for_language(AnBn(min_n=1, max_n=settings.train_max_n))
    train_n, test_n = settings.train_max_n, settings.test_max_n
    optimum = training_optimum(settings)

    pairs = [(m, s) for m in settings.models for s in model_seeds(m, seeds, settings)]
    trained = train_all(pairs, settings, device, progress)
    models = {p: t[0] for p, t in zip(pairs, trained)}
    histories = {p: t[1] for p, t in zip(pairs, trained)}
    scores = {p: score_run(*p, models[p], histories[p], settings) for p in pairs}
    runs = list(scores.values())
    by_model = {m: [scores[p] for p in pairs if p[0] == m] for m in settings.models}
    settled = settle(ClaimNumbers(by_model, summarise(runs)), histories, settings, device, progress)
    again, twice = continue_disputed(settled, histories, settings, device, progress)
    doubled = settled.doubled
    unstable = lstm_instability(runs, train_n)
    named = {f"{model_name(m, settings)} seed {s}": histories[m, s] for m, s in pairs}
    named.update({f"{model_name(m, settings)} seed {s} (twice the budget)": d.history
                  for (m, s), d in doubled.items()})
    named.update({f"{model_name(m, settings)} seed {s} (twice the budget"
                  + (", again)" if (m, s) in doubled else ")"): d.history
                  for (m, s), d in again.items()})
    numbers = AnbnNumbers(runs, list(doubled.values()), list(again.values()))
    figures = {"final": final_figure(runs, train_n, test_n)}
    if any(r.id == "lstm" for r in runs):
        figures["lstm_epochs"] = epochs_figure(runs, train_n)
    figures.update(curves_figures(histories, settings, optimum))
    artefacts = AnbnArtefacts(models, histories, vocab)
    rows = table_rows(settled.numbers, twice, unstable, settings)
    return setup.replication(numbers, rows, figures, artefacts, named)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)
