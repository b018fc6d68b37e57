"""The ``gym``'s training runs: one model on one language until it has learned, then scored;
every (model, language, seed) in parallel worker processes."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from ...languages import Vocab
from ...metrics import next_symbol_validity
from ...models import build_model
from ...training import Plateau, fit
from ...utils import pick_device
from ..workers import parallel_map
from .results import GymRun
from .settings import FLNN_LANGUAGES, GYM_LANGUAGES, GYM_MODELS, OWN_METRICS, GymSettings
from .tasks import cached_task, make_task

#: The FLNN's self-weights s_j learn at a tenth of the learning rate, as in chapter 5 (with
#: equal rates a run can collapse to s ≈ 0, which resets the state at every word).
FLNN_LR_FACTORS = {"scale": 0.1}


def applicable(model: str, language: str) -> bool:
    """Does the gym run ``model`` on ``language``? Everything except the FLNN off its ground."""
    _check_names([model], GYM_MODELS, "model")
    _check_names([language], GYM_LANGUAGES, "language")
    return GYM_MODELS[model][0] != "flnn" or language in FLNN_LANGUAGES


def _check_names(names: Iterable[str], known: dict, what: str) -> list[str]:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {what}(s) {unknown}: choose from {', '.join(known)}")
    if not names:
        raise ValueError(f"no {what} given: choose from {', '.join(known)}")
    return names


def _build(model: str, vocab: Vocab, cfg: GymSettings, seed: int):
    kind, options = GYM_MODELS[model]
    if kind == "urn":
        return build_model(kind, vocab_size=len(vocab), hidden_size=cfg.urn_n, seed=seed, **options)
    if kind == "flnn":
        return build_model(kind, vocab_size=len(vocab), seed=seed, **options)
    return build_model(kind, vocab_size=len(vocab), hidden_size=cfg.hidden, seed=seed,
                       **options)


def gym_run(language: str, model_name: str, seed: int, cfg: GymSettings, device=None,
            min_epochs: int = 0, resume=None) -> GymRun:
    """Train one model on one language until its validation loss plateaus (at least
    ``min_epochs``; ``resume``: the History of the run to continue), then score it. ``cfg`` is
    the whole gym's settings. Returns the run's :class:`~.results.GymRun` with its ``history``
    and CPU model (``trained``). A top-level function, so that worker processes can run it."""
    task = cached_task(language, cfg.languages[language])
    model = _build(model_name, task.vocab, cfg, seed)
    flnn = GYM_MODELS[model_name][0] == "flnn"
    batch_size, lr, patience = cfg.training(language)
    start = time.process_time()  # CPU time: steady on a shared machine, unlike wall time
    history = fit(model, task.vocab, task.train, valid=task.valid,
                  epochs=max(task.epochs, min_epochs), min_epochs=min_epochs,
                  batch_size=batch_size, lr=lr, lr_factors=FLNN_LR_FACTORS if flnn else None,
                  until=Plateau(patience=patience), seed=seed, device=device, progress=False,
                  resume=resume)
    seconds = time.process_time() - start
    validity = next_symbol_validity(model, task.language, task.vocab, task.test)
    record = history.convergence
    return GymRun(
        model=model_name, language=language, seed=seed, params=model.num_parameters(),
        train_seconds=seconds, epochs=record.epochs, converged=record.converged,
        final_loss=record.final["train_loss"], valid_loss=record.best,
        valid_strings=validity["strings"], valid_positions=validity["positions"],
        own_metric=OWN_METRICS[language], own=float(task.own(model)),
        breakdown=task.breakdown(model) if task.breakdown else None,
        history=history, trained=model.cpu())


def _jobs_of(pairs, seeds) -> list[tuple[str, str, int]]:
    """Jobs ordered slowest language first (agreement, Dyck), so that parallel workers do not
    end on one long run."""
    order = {"agreement": 0, "dyck": 1, "palindrome": 2, "cross_serial": 3, "anbn": 4}
    return sorted(((lang, m, s) for lang, m in pairs for s in seeds),
                  key=lambda j: order[j[0]])


def run_gym(cfg: GymSettings, seeds: Sequence[int] = (0,), device=None,
            progress: bool | None = None, models: Iterable[str] | None = None,
            languages: Iterable[str] | None = None, min_epochs: dict | None = None,
            resume: dict | None = None) -> list[GymRun]:
    """Train every model on every language (where :func:`applicable`) for every seed, in
    parallel worker processes, each until it has learned, with the settings ``cfg`` (a
    :class:`~.settings.GymSettings`, e.g. ``SETTINGS["quick"].replace({"hidden": 8})``).

    Returns one :class:`~.results.GymRun` per run, in the order (language, model, seed) of the
    arguments. ``models``/``languages`` pick subsets (ValueError naming the known ones
    otherwise); ``min_epochs`` maps (language, model, seed) to a least number of epochs (the
    doubled budget) and ``resume`` to the History that run continues: given ``resume``, only the
    runs it names are trained and returned.
    """
    if not isinstance(cfg, GymSettings):
        raise TypeError(f"run_gym needs the gym's settings (a GymSettings, e.g. "
                        f"SETTINGS['quick']), got {type(cfg).__name__}")
    model_names = _check_names(GYM_MODELS if models is None else models, GYM_MODELS, "model")
    language_names = _check_names(GYM_LANGUAGES if languages is None else languages,
                                  GYM_LANGUAGES, "language")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("give at least one seed")
    pairs = [(lang, m) for lang in language_names for m in model_names if applicable(m, lang)]
    if not pairs:
        raise ValueError(f"none of the models {model_names} applies to {language_names} "
                         f"(the FLNN runs only on {', '.join(FLNN_LANGUAGES)})")
    device = pick_device(device)
    for lang in language_names:  # bad settings fail here, before any training
        make_task(lang, cfg.languages[lang])
    jobs = _jobs_of(pairs, seeds)
    if resume:
        jobs = [job for job in jobs if job in resume]
    more, resume = min_epochs or {}, resume or {}
    done = parallel_map(gym_run, [(lang, m, s, cfg, str(device), more.get((lang, m, s), 0),
                                   resume.get((lang, m, s))) for lang, m, s in jobs],
                        device=device, desc="gym", progress=progress)
    by_job = dict(zip(jobs, done))
    return [by_job[lang, m, s] for lang, m in pairs for s in seeds if (lang, m, s) in by_job]
