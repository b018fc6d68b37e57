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
* **stuck**: its training loss has improved by less than ``min_delta`` (relative) over the last
  ``patience`` epochs (:class:`~course_rnn.training.Plateau`) while above the optimum: it settled
  in a minimum where the training set is not fitted. It *failed to learn*, and every stuck run
  is continued to twice its epochs to check that more training does not rescue it.

A run that reaches the cap of ``epochs`` first did **not** converge. Only the fitted runs are
asked about generalisation, so "did not generalise" never stands for "was not trained long
enough".

**Then generalised?** After the first b every symbol is forced, so a model is right on a^n b^n
when its top prediction is correct at each forced position (each later b, then the end);
:class:`CountingTest` (the test of :func:`course_rnn.metrics.anbn_generalisation`, in one pass)
turns that into

    max_correct_n = max { N ≤ N_test : every n ≤ N is right },

recorded at every evaluation (every ``eval_every`` epochs) and scored on the final model. A
fitted run *generalises* when its max_correct_n exceeds N_train.

Models (:data:`MODELS`): the lecture's SRN (tanh), GRU and LSTM with ``hidden`` units, and two
SRNs that separate the architecture from its squashing nonlinearity: a ReLU SRN with ``hidden``
units and a tanh SRN with ``wide_hidden`` units. Weiss, Goldberg & Yahav (2018) showed that under
finite precision an LSTM or a ReLU SRN can implement a counter, a GRU or a squashing SRN only an
approximation of one.

**Verdicts** (:func:`~course_rnn.experiments.replication.judge`): a claim about counting is
checked on the runs that converged (a stuck run counts nothing); when it disagrees with the
lecture, the deciding runs (the seeds that disagree) are continued to twice their epochs (same
seed, ``min_epochs``: the first part of the run is identical) and scored again.


``run(scale="quick")`` is what chapter 3 shows (:data:`DEFAULT_SEEDS` seeds of the lecture's
models, ``extra_seeds`` of the other two, trained in parallel processes); ``scale="paper"`` runs
10 seeds of each with a larger cap; ``settings=`` overrides entries of the scale's
:class:`~.settings.AnbnSettings` (the tests run it tiny).

The package, by job: :mod:`.settings` (``AnbnSettings`` and its scales, the models),
:mod:`.compute` (the data, the counting test, training and scoring one run), :mod:`.results`
(the typed numbers and artefacts, and the summaries of the scored runs), :mod:`.report` (the
lecture's claims measured, the paper-vs-ours table), :mod:`.figures`, and here :func:`run`,
which puts them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ...languages import AnBn, Vocab
from ..replication import (
    Experiment,
    Measurement,
    Replication,
    judge,
    needs_twice,
    twice_the_budget,
)
from ..setup import begin
from .compute import (
    OUTCOMES,
    CountingTest,
    evaluations,
    learned,
    loss_by_phase,
    max_correct_n,
    model_seeds,
    outcome,
    score_run,
    train_all,
    train_one,
    train_strings,
    training_optimum,
)
from .figures import curves_figures, epochs_figure, final_figure
from .report import (
    GERS,
    LECTURE,
    WEISS,
    claims,
    deciding_runs,
    generalises,
    lstm_best_measurement,
    no_count_measurement,
    stuck_runs,
)
from .results import (
    AnbnArtefacts,
    AnbnNumbers,
    DoubledRun,
    Instability,
    LossByPhase,
    ModelSummary,
    RunScore,
    StuckTwice,
    instability,
    recheck,
    summarise,
)
from .settings import (
    DEFAULT_SEEDS,
    EXTRA_MODELS,
    LECTURE_MODELS,
    MODELS,
    SETTINGS,
    AnbnSettings,
    model_name,
)


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """Train every model of ``settings.models`` on a^n b^n (n ≤ ``train_max_n``) for every
    seed until it fits its training set or is stuck; score them; judge the lecture's claims.

    ``numbers`` is an :class:`~.results.AnbnNumbers`: ``runs``, one
    :class:`~.results.RunScore` per (model, seed) (:func:`~.compute.score_run`); ``summary``,
    per model name (:func:`~.results.summarise`); ``optimum``, the exact training optimum;
    ``lstm_instability``, the best fitted LSTM's per-epoch range (:func:`~.results.instability`);
    ``doubled``, the runs continued to twice their epochs (the stuck ones, and the deciding ones
    of a claim that disagreed); ``stuck_twice``, per model name, what became of its stuck seeds
    then (:func:`~.results.recheck`). ``runs``: every training history by name ("LSTM seed 0",
    "GRU seed 2 (twice the budget)"). ``artefacts`` is an :class:`~.results.AnbnArtefacts`:
    ``models`` and ``histories`` keyed by (model id, seed), e.g. ("lstm", 0), ``doubled`` (the
    same for the continued runs), ``vocab`` and ``language``. Figures: ``final`` (one marker
    per seed), ``lstm_epochs`` and ``curves_<id>``.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress)
    cfg, seeds, device, progress = setup.settings, setup.seeds, setup.device, setup.progress
    language = AnBn(min_n=1, max_n=cfg.train_max_n)
    vocab = Vocab.for_language(language)
    train_n, test_n = cfg.train_max_n, cfg.test_max_n
    optimum = training_optimum(cfg)

    pairs = [(m, s) for m in cfg.models for s in model_seeds(m, seeds, cfg)]
    trained = train_all(pairs, cfg, device, progress)
    models = {p: t[0] for p, t in zip(pairs, trained)}
    histories = {p: t[1] for p, t in zip(pairs, trained)}
    scores = {p: score_run(*p, models[p], histories[p], cfg) for p in pairs}
    runs = list(scores.values())
    by_model = {m: [scores[p] for p in pairs if p[0] == m] for m in cfg.models}
    verdicts, doubled = _verdicts(by_model, cfg, device, progress, histories)
    summary = summarise(runs, train_n)
    stuck_twice = recheck(doubled, stuck_runs(by_model), cfg)
    fitted_lstm = [r for r in runs if r.id == "lstm" and r.fitted]
    best_lstm = max(fitted_lstm, key=lambda r: r.max_correct_n) if fitted_lstm else None
    unstable = instability(best_lstm, train_n) if best_lstm else None
    named = {f"{model_name(m, cfg)} seed {s}": histories[m, s] for m, s in pairs}
    named.update({f"{model_name(m, cfg)} seed {s} (twice the budget)": d.history
                  for (m, s), d in doubled.items()})
    numbers = AnbnNumbers(runs, summary, optimum, unstable, train_n, test_n,
                          list(doubled.values()), stuck_twice)
    figures = {"final": final_figure(runs, train_n, test_n)}
    if any(r.id == "lstm" for r in runs):
        figures["lstm_epochs"] = epochs_figure(runs, train_n)
    figures.update(curves_figures(histories, cfg, optimum))
    artefacts = AnbnArtefacts(models, histories, vocab, language,
                              {p: (d.network, d.history) for p, d in doubled.items()})
    rows = claims(summary, verdicts, unstable, cfg, optimum, stuck_twice)
    return setup.replication(numbers, rows, figures, artefacts, named)


def _verdicts(by_model: Mapping[str, list[RunScore]], cfg: AnbnSettings, device, progress,
              histories: Mapping) -> tuple[dict, dict[tuple[str, int], DoubledRun]]:
    """The lecture's claims judged (``{model id: Verdict}``) and the runs continued to twice
    their epochs (``{(id, seed): DoubledRun}``): every stuck run, and the deciding runs of each
    claim that disagrees, trained together."""
    train_n = cfg.train_max_n
    claims_ = {m: "no count" for m in ("srn", "gru") if m in by_model}
    if "lstm" in by_model:
        claims_["lstm"] = "lstm best"
    rivals = [m for m in ("srn", "gru") if m in by_model]

    def involved(model_id: str) -> list[str]:
        return [model_id] if model_id != "lstm" else ["lstm", *rivals]

    def measure(current: Mapping[str, list], model_id: str) -> Measurement:
        if claims_[model_id] == "no count":
            return no_count_measurement(current[model_id], train_n)
        return lstm_best_measurement(current["lstm"], [current[m] for m in rivals], train_n)

    first = {m: measure(by_model, m) for m in claims_}
    wanted = list(stuck_runs(by_model))
    for m, measurement in first.items():
        if needs_twice(measurement):
            wanted += deciding_runs({k: by_model[k] for k in involved(m)}, claims_[m], train_n)

    def train_again(min_epochs, resume):
        keys = list(min_epochs)
        return {p: DoubledRun.of(score_run(*p, model, history, cfg), min_epochs[p], history,
                                 model)
                for p, (model, history) in zip(keys, train_all(keys, cfg, device, progress,
                                                                min_epochs, resume))}

    doubled = twice_the_budget(histories, wanted, train_again)
    current = {m: [doubled.get((m, r.seed), r) for r in runs] for m, runs in by_model.items()}
    verdicts = {m: judge(first[m], measure(current, m) if needs_twice(first[m]) else None)
                for m in claims_}
    return verdicts, doubled


EXPERIMENTS = (Experiment(
    name="anbn",
    title="a^n b^n: which recurrent networks learn to count (SRN, GRU, LSTM, ReLU and wide "
          "SRNs trained on n ≤ 20, tested up to n = 60)",
    chapter="03_gates_counting", run=run, settings=SETTINGS),)

__all__ = [
    "run", "EXPERIMENTS", "SETTINGS", "AnbnSettings", "DEFAULT_SEEDS", "MODELS",
    "LECTURE_MODELS", "EXTRA_MODELS", "OUTCOMES", "LECTURE", "GERS", "WEISS", "model_name",
    "model_seeds", "train_strings", "training_optimum", "evaluations", "learned", "CountingTest",
    "loss_by_phase", "max_correct_n", "train_one", "train_all", "outcome", "score_run",
    "summarise", "instability", "recheck", "generalises", "no_count_measurement",
    "lstm_best_measurement", "deciding_runs", "stuck_runs", "claims", "final_figure",
    "epochs_figure", "curves_figures", "AnbnNumbers", "AnbnArtefacts", "RunScore",
    "DoubledRun", "LossByPhase", "ModelSummary", "Instability", "StuckTwice",
]
