"""``python -m course_rnn``: run the course's replications from the command line.

    python -m course_rnn replicate tabor-table4                  # the book's scale, on this CPU
    python -m course_rnn replicate urn-dyck --scale paper --device cuda --seeds 5
    python -m course_rnn replicate all --out replications/
    python -m course_rnn list

Each run writes ``results.json`` (every number, the settings, seeds, device and time, and its
provenance: version, git commit, this command line, date, the ``--set`` overrides),
``table.md`` (the paper-vs-ours table) and one PNG per figure into ``--out`` (default
``replications/<experiment>-<scale>/``); an existing ``results.json`` is never replaced unless
``--overwrite`` is given.

While it runs, each finished training job is kept in ``<out>/jobs/`` (removed once results.json
is saved): after a crash, a kill or Ctrl-C, ``--resume`` trains only what is missing.
``--executor dask://HOST:PORT`` (or ``$COURSE_RNN_DASK``) runs the jobs on a Dask cluster
(:mod:`course_rnn.experiments.cluster`) instead of local processes.
"""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
from contextlib import ExitStack
from pathlib import Path

# The run's context is parsed by course_rnn.context, which imports no torch: bad arguments are
# refused by the library's own parsers before torch and the experiments are imported.
from .context import (
    LOCAL,
    SCALES,
    VARIABLES,
    parse_device,
    parse_executor,
    parse_seed_offset,
    run_context,
)


def _names() -> dict[str, str]:
    from .experiments import NAMES  # light: experiments/__init__ imports no model

    return NAMES


def _about() -> dict[str, tuple[str, str]]:
    """Each experiment's (title, chapter), read from its settings: listing them imports no
    experiment, torch or matplotlib, so ``--help`` and ``list`` answer at once."""
    from .experiments import about

    return about()


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


MAX_SEEDS = 1000  # --seeds: more is a typo, not a replication (each seed is a training run)
MAX_THREADS = 1024  # --threads: torch crashes far above the machine's cores (100,000: SIGSEGV)


def _bounded(high: int, what: str):
    """An argparse type: a whole number from 1 to ``high``."""
    def parse(text: str) -> int:
        value = _positive(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{what} must be at most {high}, got {value}")
        return value
    return parse


def _out(text: str) -> Path:
    """``--out``: a folder to write into, refused where writing could destroy or mislead: an
    empty name, a symlink (never followed), a device, FIFO, socket or file, a notebook."""
    if not text or not text.strip():
        raise argparse.ArgumentTypeError("--out needs a folder name, e.g. replications/mine")
    path = Path(text)
    if path.name.lower().endswith(".ipynb"):
        raise argparse.ArgumentTypeError(f"--out {text}: a notebook's name, not a folder's")
    try:
        info = os.lstat(path)
    except OSError:
        return path  # a new folder: made (and tested for writing) before any work
    if stat.S_ISLNK(info.st_mode):
        raise argparse.ArgumentTypeError(f"--out {text} is a symlink: name the folder itself")
    if not stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"--out {text} exists and is not a folder")
    return path


def _argument(parse):
    """An argparse type from one of :mod:`course_rnn.context`'s parsers."""
    def argument(text: str):
        try:
            return parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    argument.__name__ = parse.__name__.removeprefix("parse_")  # argparse's "invalid … value"
    return argument


_non_negative, _device, _executor = map(_argument, (parse_seed_offset, parse_device,
                                                    parse_executor))


def _setting(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as (key, the value's text); the experiment's typed settings
    (:class:`~course_rnn.experiments.settings.Scales`) read the text by its field's type."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def check_overrides(name: str, scale: str, pairs: list[tuple[str, str]]) -> None:
    """ValueError naming the setting when a ``--set`` pair does not fit experiment ``name`` at
    ``scale``: checked against its typed settings before torch is imported (a repeated key is
    refused too: which one was meant?)."""
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"--set {', '.join(repeated)} given more than once")
    from .experiments import check_overrides as check

    check(name, scale, dict(pairs))


def _listing(about: dict[str, tuple[str, str]]) -> str:
    width = max(map(len, about))
    return "\n".join(f"  {name:{width}s}  {title} (chapter {chapter})"
                     for name, (title, chapter) in about.items())


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help ends with the list of experiments (their titles from a
    table: no experiment is imported, so ``--help`` answers at once)."""

    listing_tail = ""

    def format_help(self) -> str:
        about = _about()
        self.epilog = "experiments:\n" + _listing(about) + self.listing_tail.format(
            pad=" " * (max(map(len, about)) - 1))
        return super().format_help()


def build_parser(names) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m course_rnn", description="The course's replications, one command each.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=_Parser)
    commands.add_parser("list", help="list the experiments")
    replicate = commands.add_parser(
        "replicate", help="run one experiment (or all) and save its numbers, table and figures",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an experiment and write results.json, table.md and its figures (PNG).")
    replicate.listing_tail = "\n  all{pad}every experiment above, in turn"
    replicate.add_argument("experiment", metavar="EXPERIMENT", choices=[*names, "all"],
                           help="which experiment (see below), or 'all'")
    replicate.add_argument("--scale", choices=SCALES, default="quick",
                           help="quick: the book's CPU scale (default); paper: the paper's "
                                "size; full: where the paper's size is out of a 2-core CPU's "
                                "reach, the committed run: what about an hour allows, with "
                                "every run trained to its own stop (only some experiments "
                                "have it)")
    replicate.add_argument("--device", type=_device, default=None,
                           help="cpu, cuda, cuda:N or checked (the CPU with a GPU's rules; "
                                "default: $COURSE_RNN_DEVICE, else a GPU when there is one)")
    replicate.add_argument("--seeds", type=_bounded(MAX_SEEDS, "--seeds"), default=None,
                           metavar="N",
                           help="run seeds 0..N-1 (default: the experiment's own number)")
    replicate.add_argument("--seed-offset", type=_non_negative, default=None, metavar="N",
                           help="add N to every seed (weights, data, sampling): the same run "
                                "with fresh randomness (default: $COURSE_RNN_SEED_OFFSET, else "
                                "0); results.json records it")
    replicate.add_argument("--out", type=_out, default=None, metavar="DIR",
                           help="output folder (default: replications/<experiment>-<scale>; "
                                "with 'all', one subfolder per experiment)")
    again = replicate.add_mutually_exclusive_group()
    again.add_argument("--overwrite", action="store_true",
                       help="replace an existing results.json in the output folder (and start "
                            "afresh, throwing away the jobs an unfinished run kept there)")
    again.add_argument("--resume", action="store_true",
                       help="continue an unfinished run in the output folder: while a run "
                            "goes, each finished job is kept in DIR/jobs/ (removed once "
                            "results.json is saved), and a resumed run loads those instead "
                            "of training them again; an experiment already finished there is "
                            "skipped")
    replicate.add_argument("--executor", type=_executor, default=None, metavar="WHERE",
                           help="where the training jobs run: 'local' (worker processes on "
                                "this machine) or dask://HOST:PORT, a Dask scheduler whose "
                                "workers have course_rnn installed (needs pip install "
                                "\"course_rnn[cluster]\"); default: $COURSE_RNN_DASK, "
                                "else local")
    replicate.add_argument("--threads", type=_bounded(MAX_THREADS, "--threads"), default=None,
                           metavar="N",
                           help="CPU threads for torch (default: 1 at quick scale, where the "
                                "models are tiny, torch's own choice at paper scale)")
    replicate.add_argument("--set", type=_setting, action="append", default=[], metavar="K=V",
                           dest="settings",
                           help="override one setting of the experiment's scale, e.g. --set "
                                "epochs=200 (repeatable; a value is read by the setting's type, "
                                "lists as JSON or a,b,c; an unknown key or a bad value is an "
                                "error naming it)")
    replicate.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _out_folder(args, name: str) -> Path:
    if args.out is None:
        return Path("replications") / f"{name}-{args.scale}"
    return args.out / name if args.experiment == "all" else args.out


def _context(args):
    """The run's context (:mod:`course_rnn.context`): the arguments, else the environment's
    variables, every one of them checked here, before torch is imported."""
    return run_context(device=args.device, seed_offset=args.seed_offset, scale=args.scale,
                       executor=args.executor, progress=False if args.quiet else None)


def _check_arguments(args, names) -> list[str]:
    """The experiments to run; ValueError for a bad combination of arguments, before torch is
    imported."""
    chosen = list(names) if args.experiment == "all" else [args.experiment]
    if args.seed_offset is not None:  # worker processes inherit it
        os.environ[VARIABLES["seed_offset"]] = str(args.seed_offset)
    if args.settings and args.experiment == "all":
        raise ValueError("--set applies to one experiment: each has its own settings")
    if args.scale == "full":  # only some experiments have it: say which before any work
        from .experiments import has_scale

        lacking = [n for n in chosen if not has_scale(n, "full")]
        if lacking:
            raise ValueError(f"no 'full' scale for {', '.join(lacking)} (only where the "
                             "paper's size is out of a 2-core CPU's reach in an hour): use "
                             "--scale quick or paper")
    if args.settings:  # a bad --set: refused before torch is imported
        check_overrides(args.experiment, args.scale, args.settings)
    return chosen


def _to_run(args, chosen: list[str]) -> list[str]:
    """``chosen`` less the experiments that ``--resume`` finds finished; every output folder
    checked (a file in the way, a results.json not to replace, an unfinished run's jobs that
    neither --resume nor --overwrite says what to do with) before any folder is made."""
    from .experiments.output import check_output_folder, check_unfinished

    left = []
    for name in chosen:
        out = _out_folder(args, name)
        if args.resume and (out / "results.json").is_file():
            print(f"== {name}: already finished in {out} (results.json): nothing to resume",
                  flush=True)
            continue
        check_output_folder(out, args.overwrite)
        check_unfinished(out, args.resume, args.overwrite)
        left.append(name)
    return left


def _connect(where: str, stack: ExitStack):
    """The executor the runs use (None: local processes, ``where`` is ``local``); a Dask
    scheduler that does not answer is refused here, in seconds, before any folder is made or
    torch is imported."""
    from .experiments.cluster import dask_executor

    if where == LOCAL:
        return None
    executor = stack.enter_context(dask_executor(where))
    print(f"   training jobs run on the Dask cluster at {where}", flush=True)
    return executor


def replicate(args, names, command: str | None = None) -> int:
    """Run the chosen experiments and save them; ``command`` (the command line as typed) goes
    into each results.json's provenance, beside the version, commit, date and overrides.
    Returns the exit status: 1 when some training jobs failed (the others are kept)."""
    from .experiments.output import check_output_folder

    context = _context(args)
    chosen = _to_run(args, _check_arguments(args, names))
    with ExitStack() as stack:
        executor = _connect(context.executor, stack)
        for name in chosen:  # refuse a folder that cannot take the results before any work
            check_output_folder(_out_folder(args, name), args.overwrite, create=True)

        import matplotlib

        matplotlib.use("Agg")  # figures go to files; no display is needed
        import torch

        from .experiments.workers import use_executor

        if args.threads or args.scale == "quick":
            torch.set_num_threads(args.threads or 1)
        stack.enter_context(use_executor(executor))
        for name in chosen:
            status = _replicate_one(args, name, context.device, context.progress, command)
            if status:
                return status
    return 0


#: What ``replicate`` writes beside the results when some jobs failed: each one's traceback.
FAILED_JOBS = "failed_jobs.txt"


def _replicate_one(args, name: str, device, progress: bool, command: str | None) -> int:
    """Run experiment ``name`` with its finished jobs kept in ``<out>/jobs/`` (loaded there
    with --resume, thrown away first with --overwrite, removed once results.json is saved).
    ``device`` is the run context's (a name, None: the default): the experiment's ``run``
    resolves it, once, before any training (a missing GPU is its ValueError), and the device
    it ran on is printed with its time."""
    from .experiments import get_experiment
    from .experiments.costs import estimate
    from .experiments.jobstore import JobsFailed
    from .experiments.output import JOBS
    from .experiments.workers import keep_jobs

    out = _out_folder(args, name)
    experiment = get_experiment(name)
    print(f"== {name}: {experiment.title} (scale {args.scale}, device {device or 'default'})\n"
          f"   expected: {estimate(name, args.scale)}", flush=True)
    with keep_jobs(out / JOBS) as store:
        if args.overwrite:
            store.remove()
        elif store.count():
            print(f"   resuming: {store.count()} finished jobs kept in {store.folder}",
                  flush=True)
        try:
            result = experiment.run(scale=args.scale, seeds=args.seeds, device=device,
                                    progress=progress,
                                    settings=dict(args.settings) or None)
        except JobsFailed as failed:
            (out / FAILED_JOBS).write_text(failed.report())
            print(f"python -m course_rnn replicate: {failed}\nfinished jobs are kept in "
                  f"{store.folder}; rerun with --resume (tracebacks in {out / FAILED_JOBS})",
                  file=sys.stderr, flush=True)
            return 1
        except BaseException:  # Ctrl-C, a lost scheduler, a bug: what finished is kept
            if store.count():
                print(f"finished jobs are kept in {store.folder}; rerun with --resume",
                      file=sys.stderr, flush=True)
            raise
    result.provenance["command"] = command
    paths = result.save(out, overwrite=args.overwrite)
    store.remove()  # results.json holds everything now
    (out / FAILED_JOBS).unlink(missing_ok=True)  # an earlier try's failures, now mended
    if result.runs:
        print(f"-- training runs ({result.run_summary()})")
        print(result.convergence_report())
    print(result.table())
    print(f"   jobs: {store.saved} trained, {store.loaded} loaded from an earlier try's "
          f"{JOBS}/")
    print(f"{result.seconds:.1f} s on {result.device}; wrote "
          + ", ".join(str(p) for p in paths.values()),
          flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    names = _names()
    parser = build_parser(names)
    args = parser.parse_args(argv)
    if args.command == "list":
        print(_listing(_about()))
        return 0
    try:
        return replicate(args, names, shlex.join(["python", "-m", "course_rnn", *argv]))
    except (ValueError, FileExistsError, OSError) as err:
        parser.exit(2, f"python -m course_rnn replicate: error: {err}\n")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
