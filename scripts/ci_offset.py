"""The seed offset ``make notebooks-elsewhere`` runs the chapters under, taken from the commit.

A fixed offset (it was 1000) is one draw that every claim can end up fitted to, one edit at a
time. Derived from the commit's hash, the offset changes with every commit, so CI runs each
chapter at an offset nobody chose; printed in the log, it can be repeated::

    python scripts/ci_offset.py                        # this checkout's offset
    python scripts/ci_offset.py 123456                 # a chosen one, checked: 123456
    make notebooks-elsewhere SEED_OFFSET=123456        # repeat the one a CI log printed

Offsets lie in 1 … 999,999, the range ``benchmarks/robustness.py`` draws its fresh offsets from.
Outside a git checkout (an unpacked archive) there is no commit: the offset is 1000, and the
script says so on stderr.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOWEST, HIGHEST = 1, 999_999
WITHOUT_A_COMMIT = 1000


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


def chosen(text: str) -> int:
    """An offset typed by hand, checked before an hour of chapters runs under it."""
    try:
        offset = int(text)
    except ValueError:
        offset = -1
    if offset < 0:
        raise SystemExit(f"ci_offset: a seed offset is an integer ≥ 0, got {text!r}")
    return offset


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        raise SystemExit(f"usage: python scripts/ci_offset.py [OFFSET] (got {len(argv)} arguments)")
    if argv:
        print(chosen(argv[0]))
        return 0
    commit = head_commit()
    if commit is None:
        print(f"ci_offset: not a git checkout, so no commit to derive the seed offset from: "
              f"using {WITHOUT_A_COMMIT}", file=sys.stderr)
        print(WITHOUT_A_COMMIT)
    else:
        print(offset_from(commit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
