"""``python -m course_rnn``: run the course's replications from the command line.

    python -m course_rnn replicate tabor-table4                  # the book's scale, on this CPU
    python -m course_rnn replicate urn-dyck --scale paper --device cuda --seeds 5
    python -m course_rnn replicate all --out replications/
    python -m course_rnn list

Each run writes ``results.json`` (every number, the settings, seeds, device and time),
``table.md`` (the paper-vs-ours table) and one PNG per figure into ``--out`` (default
``replications/<experiment>-<scale>/``); an existing ``results.json`` is never replaced unless
``--overwrite`` is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _experiments():
    from .experiments import all_experiments

    return all_experiments()


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _listing(experiments) -> str:
    width = max(map(len, experiments))
    return "\n".join(f"  {name:{width}s}  {e.title} (chapter {e.chapter})"
                     for name, e in experiments.items())


def build_parser(experiments) -> argparse.ArgumentParser:
    from .experiments.replication import SCALES

    parser = argparse.ArgumentParser(
        prog="python -m course_rnn", description="The course's replications, one command each.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="experiments:\n" + _listing(experiments))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="list the experiments")
    replicate = commands.add_parser(
        "replicate", help="run one experiment (or all) and save its numbers, table and figures",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an experiment and write results.json, table.md and its figures (PNG).",
        epilog="experiments:\n" + _listing(experiments)
        + "\n  all" + " " * (max(map(len, experiments)) - 1) + "every experiment above, in turn")
    replicate.add_argument("experiment", metavar="EXPERIMENT", choices=[*experiments, "all"],
                           help="which experiment (see below), or 'all'")
    replicate.add_argument("--scale", choices=SCALES, default="quick",
                           help="quick: the book's CPU scale (default); paper: the paper's "
                                "size, meant for a GPU")
    replicate.add_argument("--device", default=None,
                           help="cpu, cuda or cuda:N (default: $COURSE_RNN_DEVICE, else a GPU "
                                "when there is one)")
    replicate.add_argument("--seeds", type=_positive, default=None, metavar="N",
                           help="run seeds 0..N-1 (default: the experiment's own number)")
    replicate.add_argument("--out", type=Path, default=None, metavar="DIR",
                           help="output folder (default: replications/<experiment>-<scale>; "
                                "with 'all', one subfolder per experiment)")
    replicate.add_argument("--overwrite", action="store_true",
                           help="replace an existing results.json in the output folder")
    replicate.add_argument("--threads", type=_positive, default=None, metavar="N",
                           help="CPU threads for torch (default: 1 at quick scale, where the "
                                "models are tiny, torch's own choice at paper scale)")
    replicate.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _out_folder(args, name: str) -> Path:
    if args.out is None:
        return Path("replications") / f"{name}-{args.scale}"
    return args.out / name if args.experiment == "all" else args.out


def replicate(args, experiments) -> int:
    import matplotlib

    matplotlib.use("Agg")  # figures go to files; no display is needed
    import torch

    from .experiments.replication import check_output_folder
    from .utils import pick_device

    device = pick_device(args.device)  # ValueError for a bad or missing device, before any work
    if args.threads or args.scale == "quick":
        torch.set_num_threads(args.threads or 1)
    names = list(experiments) if args.experiment == "all" else [args.experiment]
    for name in names:  # refuse to overwrite before hours of work, not after
        check_output_folder(_out_folder(args, name), args.overwrite)
    for name in names:
        print(f"== {name}: {experiments[name].title} (scale {args.scale}, device {device})",
              flush=True)
        result = experiments[name].run(scale=args.scale, seeds=args.seeds, device=device,
                                       progress=False if args.quiet else None)
        paths = result.save(_out_folder(args, name), overwrite=args.overwrite)
        if result.runs:
            print(f"-- training runs ({len(result.runs) - len(result.unconverged())} of "
                  f"{len(result.runs)} converged)")
            print(result.convergence_report())
        print(result.table())
        print(f"{result.seconds:.1f} s; wrote " + ", ".join(str(p) for p in paths.values()),
              flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    experiments = _experiments()
    parser = build_parser(experiments)
    args = parser.parse_args(argv)
    if args.command == "list":
        print(_listing(experiments))
        return 0
    try:
        return replicate(args, experiments)
    except (ValueError, FileExistsError) as err:
        parser.exit(2, f"python -m course_rnn replicate: error: {err}\n")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
