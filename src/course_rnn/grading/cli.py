"""``python -m course_rnn.grading assign | check | grade``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .assignments import ROOT, assign, check_up_to_date
from .batch import grade_folder
from .runner import TIME_LIMIT, SandboxError, SandboxUnavailable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_rnn.grading",
        description="Graded exercises: student versions, answer keys, the sandboxed grader.")
    parser.add_argument("--root", type=Path, default=ROOT, help="the exercises/ folder")
    sub = parser.add_subparsers(dest="command", required=True)
    assign_cmd = sub.add_parser(
        "assign", help="generate student versions, autograder bundles, answer keys"
    )
    assign_cmd.add_argument("names", nargs="*", help="only these assignments (default: all)")
    sub.add_parser("check", help="fail if the committed generated files are out of date")
    grade = sub.add_parser("grade", help="grade every notebook in a folder, each in a sandbox")
    grade.add_argument("submissions", type=Path)
    grade.add_argument("--csv", type=Path, default=Path("grades.csv"))
    grade.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                       help="seconds per submission, sandbox start-up included (default 60)")
    grade.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    grade.add_argument("--unsafe-no-sandbox", action="store_true",
                       help="run submissions WITHOUT isolation (they can read the answer key, "
                            "write anywhere, outlive the grader): trusted notebooks only")
    args = parser.parse_args(argv)

    if args.command == "assign":
        for name in assign(args.root, names=args.names or None):
            print(f"assigned {name}")
        return 0
    if args.command == "check":
        stale = check_up_to_date(args.root)
        for rel in stale:
            print(f"out of date: {rel}")
        if stale:
            print("run: python -m course_rnn.grading assign")
        return 1 if stale else 0
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: submissions run unisolated, as this user",
              file=sys.stderr)
    try:
        results = grade_folder(args.submissions, args.csv, args.root, args.time_limit,
                               args.jobs, sandboxed=not args.unsafe_no_sandbox)
    except SandboxUnavailable as e:
        print(f"grade: refusing to run submissions without a sandbox.\n{e}\n"
              "Fix that, or pass --unsafe-no-sandbox to grade without isolation (only for "
              "notebooks you trust).", file=sys.stderr)
        return 2
    except SandboxError as e:
        print(f"grade: stopped: {e}", file=sys.stderr)
        return 3

    for r in results:  # names and statuses are escaped: one line each
        print(f"{r.submission}: {r.total:g}/{sum(r.max_points.values()):g} ({r.run.status})")
    print(f"wrote {args.csv}")
    return 0
