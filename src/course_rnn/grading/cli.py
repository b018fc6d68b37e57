"""``python -m course_rnn.grading assign | check | grade | archives``.

The exercises folder (``source/``, ``student/``, ``autograder/``) comes from ``--exercises DIR``
(before or after the command), else ``$COURSE_RNN_EXERCISES``, else the nearest ``exercises/``
at or above the current directory (:mod:`.locate`); never from where the package is installed.
Where there is none the command says what it searched, before any work.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .assignments import assign, check_up_to_date
from .locate import ENV_VAR, ExercisesNotFound, find_exercises
from .runner import MAX_JOBS, TIME_LIMIT, TIME_LIMIT_RANGE, SandboxError, check_time_limit
from .sandbox import SandboxUnavailable

# What each command reads from the exercises folder.
NEEDS = {"assign": "source", "check": "source", "grade": "autograder", "archives": "student"}
EXERCISES_HELP = (f"the exercises folder, holding source/, student/ and autograder/ (default: "
                  f"${ENV_VAR}, else the nearest exercises/ at or above the current folder)")


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="python -m course_rnn.grading",
        description="Graded exercises: student versions, answer keys, downloads, and the "
                    "sandboxed batch grader (exercises/README.md).")
    main.add_argument("--exercises", type=Path, default=None, metavar="DIR",
                      help=EXERCISES_HELP)
    # --exercises after the command too: the command's value, when given, wins
    exercises = argparse.ArgumentParser(add_help=False)
    exercises.add_argument("--exercises", type=Path, default=argparse.SUPPRESS, metavar="DIR",
                      help=EXERCISES_HELP)
    sub = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    assign_cmd = sub.add_parser(
        "assign", parents=[exercises],
        help="generate student versions, autograder bundles, answer keys",
        description="Run otter assign on source/chNN_*.ipynb: write student/<name>/ (notebook "
                    "and public tests) and autograder/<name>/ (solution, all tests, answer key).")
    assign_cmd.add_argument("names", nargs="*", metavar="NAME",
                            help="only these assignments, e.g. ch01_bengio (default: all)")
    sub.add_parser(
        "check", parents=[exercises], help="fail if the committed generated files are out of date",
        description="Regenerate into a temporary folder and list every file of student/ and "
                    "autograder/ that differs; exit 1 if any does.")
    archives = sub.add_parser(
        "archives", parents=[exercises], help="write one zip per assignment for students",
        description="Write <name>.zip for every assignment: the student notebook, its public "
                    "tests and a README (what the website's Exercises page offers).")
    archives.add_argument("--out", type=Path, required=True,
                          help="the folder to write the archives into")
    archives.add_argument("--repository", default="",
                          help="the course repository's URL, for the README's install line")
    grade = sub.add_parser(
        "grade", parents=[exercises], help="grade every notebook in a folder, each in a sandbox",
        description="Grade every *.ipynb in SUBMISSIONS, each in its own bubblewrap sandbox, "
                    "and write one CSV row per submission (points per question, status, notes).")
    grade.add_argument("submissions", type=Path, metavar="SUBMISSIONS",
                       help="the folder of handed-in notebooks (one per student)")
    grade.add_argument("--csv", type=Path, default=Path("grades.csv"),
                       help="where to write the grades (default: grades.csv)")
    grade.add_argument("--overwrite", action="store_true",
                       help="replace the CSV if it exists (without it, grade refuses to start)")
    grade.add_argument("--time-limit", type=_time_limit, default=TIME_LIMIT,
                       help=f"seconds per submission, sandbox start-up included, from "
                            f"{TIME_LIMIT_RANGE[0]:g} to {TIME_LIMIT_RANGE[1]:g} "
                            f"(default {TIME_LIMIT:g})")
    grade.add_argument("--jobs", type=_jobs, default=2,
                       help=f"submissions graded at once, 1 to {MAX_JOBS} (default 2)")
    grade.add_argument("--unsafe-no-sandbox", action="store_true",
                       help="run submissions WITHOUT isolation (they can read the answer key, "
                            "write anywhere, outlive the grader): trusted notebooks only")
    return main


def _time_limit(text: str) -> float:
    try:
        return check_time_limit(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if not 1 <= jobs <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"--jobs must be a whole number from 1 to {MAX_JOBS}, "
                                         f"not {text!r}")
    return jobs


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        root = find_exercises(args.exercises, NEEDS[args.command])
    except ExercisesNotFound as e:
        print(f"{args.command}: {e}", file=sys.stderr)
        return 2

    if args.command == "assign":
        try:
            assigned = assign(root, names=args.names or None)
        except ValueError as e:  # a name with no source notebook, before any work
            print(f"assign: {e}", file=sys.stderr)
            return 2
        for name in assigned:
            print(f"assigned {name}")
        return 0
    if args.command == "check":
        stale = check_up_to_date(root)
        for rel in stale:
            print(f"out of date: {rel}")
        if stale:
            print("run: python -m course_rnn.grading assign")
        return 1 if stale else 0
    if args.command == "archives":
        from .archives import write_archives

        for path in write_archives(root, args.out, repository=args.repository):
            print(f"wrote {path}")
        return 0
    return grade(args, root)


def grade(args: argparse.Namespace, root: Path) -> int:
    from .batch import check_csv_path, grade_folder

    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    try:  # before any submission runs: a CSV that cannot be written would lose the batch
        args.csv = check_csv_path(args.csv, overwrite=args.overwrite,
                                  submissions=args.submissions)
    except ValueError as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: submissions run unisolated, as this user",
              file=sys.stderr)
    try:
        results = grade_folder(args.submissions, args.csv, root, args.time_limit,
                               args.jobs, sandboxed=not args.unsafe_no_sandbox)
    except SandboxUnavailable as e:
        print(f"grade: refusing to run submissions without a sandbox.\n{e}\n"
              "Fix that, or pass --unsafe-no-sandbox to grade without isolation (only for "
              "notebooks you trust).", file=sys.stderr)
        return 2
    except SandboxError as e:
        print(f"grade: stopped: {e}", file=sys.stderr)
        return 3
    except ValueError as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2

    for r in results:  # names and statuses are escaped: one line each
        print(f"{r.submission}: {r.total:g}/{sum(r.max_points.values()):g} ({r.run.status})")
    print(f"wrote {args.csv}")
    return 0
