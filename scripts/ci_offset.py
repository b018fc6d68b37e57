"""The seed offset ``make test`` builds the book under (and ``make notebooks-elsewhere`` runs
the chapters under): taken from the commit, once no claim is listed as weak.

A fixed offset (1000 until session 24) is one draw that every claim can end up fitted to, one
edit at a time. Derived from the commit's hash, the offset changes with every commit, so CI runs
each chapter at an offset nobody chose; printed in the log, it can be repeated::

    python scripts/ci_offset.py                        # this checkout's offset
    python scripts/ci_offset.py 123456                 # a chosen one, checked: 123456
    make test SEED_OFFSET=123456                       # repeat the one a CI log printed

Offsets lie in 1 … 999,999, the range ``benchmarks/robustness.py`` draws its fresh offsets from.
While ``benchmarks/weak_claims.json`` lists a claim — one that failed on some fresh draw, or has
less than 4 spreads of room — a fresh offset would fail CI on whichever commit draws it, so the
offset stays FIXED (1000, where CI has run every chapter) and the script says why on stderr; it
follows the commit as soon as the list is empty. Outside a git checkout (an unpacked archive)
there is no commit: FIXED again, said on stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from course_rnn.checks import check_seed  # torch-free

ROOT = Path(__file__).resolve().parents[1]
WEAK_LIST = ROOT / "benchmarks" / "weak_claims.json"
LOWEST, HIGHEST = 1, 999_999
FIXED = 1000


def offset_from(commit: str) -> int:
    """A number in LOWEST … HIGHEST from a commit hash (its first 12 hex digits)."""
    try:
        number = int(commit[:12], 16)
    except ValueError:
        raise ValueError(f"not a commit hash: {commit!r}") from None
    return LOWEST + number % (HIGHEST - LOWEST + 1)


def head_commit(root: Path = ROOT) -> str | None:
    """The checked-out commit's hash, or None outside a git checkout."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip()


def weak_claims(path: Path = WEAK_LIST) -> int:
    """How many claims ``benchmarks/weak_claims.json`` lists (0 when it is missing)."""
    if not path.is_file():
        return 0
    return sum(len(listed) for listed in json.loads(path.read_text())["chapters"].values())


def chosen(text: str) -> int:
    """An offset typed by hand, checked before an hour of chapters runs under it."""
    try:
        return check_seed(int(text), "a seed offset")
    except ValueError:
        raise SystemExit(f"ci_offset: a seed offset is an integer ≥ 0, got {text!r}") from None


def ci_offset(root: Path = ROOT, weak_list: Path = WEAK_LIST) -> tuple[int, str]:
    """The offset and, when it is not the commit's, why."""
    weak = weak_claims(weak_list)
    if weak:
        return FIXED, (f"{weak} weak claims are listed in benchmarks/weak_claims.json: the offset "
                       f"stays {FIXED} until they are restated (a fresh one may fail them)")
    commit = head_commit(root)
    if commit is None:
        return FIXED, f"not a git checkout, so no commit to derive the offset from: {FIXED}"
    return offset_from(commit), ""


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise SystemExit(f"usage: python scripts/ci_offset.py [OFFSET] (got {len(argv)} arguments)")
    if argv:
        print(chosen(argv[0]))
        return 0
    offset, why = ci_offset()
    if why:
        print(f"ci_offset: {why}", file=sys.stderr)
    print(offset)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
