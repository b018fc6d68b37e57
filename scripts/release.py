"""The release of course_rnn: its one version, how a reader installs it, and ``make dist``.

The version is written once, in ``pyproject.toml``; the repository's address once, in
``book/_config.yml`` (``repository: url``). Everything else is made from those two and checked
against them: ``course_rnn.__version__`` (the installed package's metadata), the built book's
footer (``book/_ext/course_site.py``), every ``results.json`` (its provenance), the chapters'
setup cell (``scripts/notebook_setup.py``), the install commands of ``README.md`` and
``exercises/README.md``, and ``CITATION.cff``.

A reader installs the release that matches the book — the tagged release archive until the
package is on the package index — after PyTorch for the CPU (a bare ``pip install torch`` on
Linux is a multi-GB CUDA build; the version is requirements.txt's pin)::

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install "course_rnn[book] @ <url>/archive/refs/tags/v<version>.tar.gz"

    python scripts/release.py check [--release]   # the version agrees everywhere (exit 1 if not)
    python scripts/release.py dist [--release]    # build sdist and wheel into dist/, check them
    python scripts/release.py commands [EXTRA]    # print the install commands for this version

``--release`` adds what a tagged release needs: a dated ``## [<version>]`` entry in
CHANGELOG.md, a clean working tree, and no tag ``v<version>`` on another commit.
``make dist`` runs ``dist`` and then installs the wheel into a fresh virtual environment
(tests/packaging/test_wheel.py).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from email.parser import Parser
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import setup_cell  # noqa: E402  (scripts/setup_cell.py: the chapters' first cell)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "book" / "_config.yml"
PACKAGE = "course_rnn"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# What a wheel and an sdist may hold besides the package (everything else is a stray file).
SDIST_FILES = {"PKG-INFO", "pyproject.toml", "setup.cfg", "setup.py", "README.md", "LICENSE",
               "MANIFEST.in", "CHANGELOG.md", "CITATION.cff"}
#: The committed runs the chapters read: in the sdist as they are, in the wheel inside the
#: package (setup.py copies them; course_rnn.experiments.committed finds them there).
RUNS = "benchmarks/results/replications/"
PACKAGED_RUNS = f"{PACKAGE}/experiments/committed_runs/"
STRAY = re.compile(r"(^|/)(__pycache__|\.ipynb_checkpoints|\.venv|tests?|_build)(/|$)"
                   r"|\.(pyc|pyo|ipynb|egg-info)$|(^|/)\.")


class ReleaseError(Exception):
    """A release check failed; the message says what to fix."""


# -- the two facts written once ---------------------------------------------------------------

def version(root: Path = ROOT) -> str:
    """``[project] version`` of ``pyproject.toml``."""
    text = (Path(root) / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', text,
                      re.MULTILINE | re.DOTALL)
    if not found:
        raise ReleaseError(f"{root}/pyproject.toml: no version = \"X.Y.Z\" under [project]")
    return found.group(1)


def repository(config: Path = CONFIG) -> tuple[str, str]:
    """The repository's URL and branch, from the book's configuration."""
    settings = yaml.safe_load(Path(config).read_text(encoding="utf-8"))
    repo = settings.get("repository") or {}
    if not repo.get("url"):
        raise ValueError(f"{config}: no repository url (repository: url: ...)")
    return repo["url"].rstrip("/"), str(repo.get("branch") or "main")


def torch_pin(root: Path = ROOT) -> str:
    """The torch version requirements.txt pins (what the book is built and tested with)."""
    text = (Path(root) / "requirements.txt").read_text(encoding="utf-8")
    found = re.search(r"^torch==(\S+)", text, re.MULTILINE)
    if not found:
        raise ReleaseError("requirements.txt pins no torch (a line torch==X.Y.Z)")
    return found.group(1)


# -- how a reader installs it -----------------------------------------------------------------

def archive_url(url: str, release: str) -> str:
    """The tagged release's source archive on the repository's host."""
    return f"{url.rstrip('/')}/archive/refs/tags/v{release}.tar.gz"


def requirement(url: str, release: str, extra: str = "book") -> str:
    """What pip installs: ``course_rnn[extra] @ <url>/archive/refs/tags/v<release>.tar.gz``."""
    return f"{PACKAGE}[{extra}] @ {archive_url(url, release)}"


def torch_cpu_command(torch: str) -> str:
    return f"pip install torch=={torch} --index-url {TORCH_CPU_INDEX}"


def install_commands(extra: str = "book", root: Path = ROOT) -> list[str]:
    """The two commands the README gives: PyTorch for the CPU, then the matching release."""
    url, _ = repository(Path(root) / "book" / "_config.yml")
    return [torch_cpu_command(torch_pin(root)),
            f'pip install "{requirement(url, version(root), extra)}"']


# -- the version everywhere -------------------------------------------------------------------

def _git(*args: str, root: Path = ROOT) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def installed_version() -> str | None:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as metadata_version

    try:
        return metadata_version(PACKAGE)
    except PackageNotFoundError:
        return None


def problems(root: Path = ROOT, release: bool = False, installed: bool = True) -> list[str]:
    """Every place that disagrees with pyproject.toml's version or the one address, each with
    what to do; with ``release``, also what a tagged release needs. Empty: all agree."""
    from packaging.version import InvalidVersion, Version

    root = Path(root)
    found = []
    current = version(root)
    try:
        parsed = Version(current)
        if parsed.local or str(parsed) != current:
            found.append(f"pyproject.toml: version {current!r} is not a plain public version "
                         f"(write it as {parsed.public!r})")
    except InvalidVersion:
        found.append(f"pyproject.toml: version {current!r} is not a version (PEP 440: X.Y.Z)")
    if installed and (have := installed_version()) != current:
        found.append(f"the installed course_rnn is {have or 'missing'}, pyproject.toml says "
                     f"{current}: run `make install` (pip install --no-deps -e .)")
    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    for key, value in (("version", cff.get("version")),
                       ("preferred-citation: edition",
                        (cff.get("preferred-citation") or {}).get("edition"))):
        if str(value) != current:
            found.append(f"CITATION.cff: {key} is {value}, pyproject.toml says {current}")
    url, _ = repository(root / "book" / "_config.yml")
    urls = re.findall(r'^\w+ = "([^"]+)"', _section(root / "pyproject.toml", "project.urls"),
                      re.MULTILINE)
    if not urls or any(not u.startswith(url + "/") and u != url for u in urls):
        found.append(f"pyproject.toml: [project.urls] must all be under {url} (book/_config.yml)")
    for readme, extra in (("README.md", "book"), ("exercises/README.md", "exercises")):
        text = (root / readme).read_text(encoding="utf-8")
        missing = [c for c in install_commands(extra, root) if c not in text]
        if missing:
            found.append(f"{readme} does not give the install commands of {current}: "
                         + " / ".join(missing))
    stale = _stale_setup_cells(root)
    if stale:
        found.append("the chapters' setup cell installs another version in "
                     f"{', '.join(stale)}: run `python scripts/notebook_setup.py --write`")
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    if release:
        if not re.search(rf"^## \[{re.escape(current)}\] - \d{{4}}-\d{{2}}-\d{{2}}\s*$",
                         changelog, re.MULTILINE):
            found.append(f"CHANGELOG.md: no entry '## [{current}] - YYYY-MM-DD' (rename "
                         "'## [Unreleased]' for the release and start a new one above it)")
        status = _git("status", "--porcelain", "--", *DIST_SOURCES, "chapters", root=root)
        if status:
            found.append("the package's files have uncommitted changes: a release is built from "
                         "a commit (commit them, then run again):\n" + status.rstrip())
        tagged = _git("rev-list", "-n", "1", f"v{current}", root=root)
        head = _git("rev-parse", "HEAD", root=root)
        if tagged and head and tagged.strip() != head.strip():
            found.append(f"the tag v{current} exists on another commit ({tagged.strip()[:10]}): "
                         "bump the version for a new release")
    elif current not in changelog:
        found.append(f"CHANGELOG.md says nothing of {current}")
    return found


def _section(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"^\[{re.escape(name)}\]\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def setup_source(url: str, extra: str = "book", *, release: str | None = None,
                 torch: str | None = None, root: Path = ROOT) -> str:
    """The chapters' setup cell for the release ``release`` (default: pyproject.toml's version),
    with ``torch`` (default: requirements.txt's pin) for the CPU route (scripts/setup_cell.py)."""
    current = release or version(root)
    return setup_cell.render(requirement(url, current, extra), url, extra, current,
                             torch_cpu_command(torch or torch_pin(root)))


def _stale_setup_cells(root: Path) -> list[str]:
    source = setup_source(repository(root / "book" / "_config.yml")[0], root=root)
    return [p.name for p in sorted((root / "chapters").glob("*.ipynb"))
            if not setup_cell.is_current(json.loads(p.read_text(encoding="utf-8")), source)]


# -- build and check --------------------------------------------------------------------------

#: What a build starts from: the package and the files the sdist carries beside it.
DIST_SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE",
                "CHANGELOG.md", "CITATION.cff", "src", RUNS.rstrip("/"))


def dist_files(root: Path = ROOT) -> list[str]:
    """The files a build copies: in a git checkout, those git tracks or would track (new files
    included; ignored ones — caches, egg-info, a venv — left out), with their working-tree
    content; outside one (an unpacked archive), the files themselves, caches left out."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
                  *DIST_SOURCES, root=root)
    if listed is not None:
        names = {n for n in listed.split("\0") if n}
    else:
        names = {str(p.relative_to(root)) for name in DIST_SOURCES
                 for p in ([root / name] if (root / name).is_file() else (root / name).rglob("*"))
                 if p.is_file() and "__pycache__" not in p.parts}
    # a tracked file deleted in the working tree is left out
    return sorted(n for n in names if (Path(root) / n).is_file())


def build(out: Path, root: Path = ROOT) -> tuple[Path, Path]:
    """Build the sdist, then the wheel from the sdist (``python -m build``, with this
    environment's setuptools: no network), from a copy of :func:`dist_files` into ``out``.
    Returns (sdist, wheel)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="course-rnn-dist-") as tmp:
        source = Path(tmp) / "source"
        for name in dist_files(root):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, source / name)
        done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                               str(out), str(source)], capture_output=True, text=True)
        if done.returncode != 0:
            raise ReleaseError("python -m build failed:\n" + (done.stdout + done.stderr)[-3000:])
    release = version(root)
    sdist = out / f"{PACKAGE}-{release}.tar.gz"
    wheel = out / f"{PACKAGE}-{release}-py3-none-any.whl"
    for path in (sdist, wheel):
        if not path.is_file():
            raise ReleaseError(f"the build made no {path.name} (made: "
                               f"{sorted(p.name for p in out.iterdir())})")
    return sdist, wheel


def wheel_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode("utf-8"))


def check(sdist: Path, wheel: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with a built sdist and wheel (empty: nothing): their metadata (the version,
    the licence, the addresses, a long description; ``twine check --strict``) and their files
    (the whole package, the committed runs the chapters read, the licence, nothing else)."""
    root = Path(root)
    found = []
    release, (url, _) = version(root), repository(root / "book" / "_config.yml")
    meta = wheel_metadata(wheel)
    expected = {"Name": PACKAGE, "Version": release, "License-Expression": "MIT",
                "License-File": "LICENSE", "Description-Content-Type": "text/markdown"}
    for key, value in expected.items():
        if meta.get(key) != value:
            found.append(f"{wheel.name}: METADATA {key} is {meta.get(key)!r}, not {value!r}")
    if len(meta.get_payload() or "") < 500:
        found.append(f"{wheel.name}: no long description (README.md)")
    links = [v.split(",", 1)[-1].strip() for v in meta.get_all("Project-URL") or []]
    if not links or any(not link.startswith(url) for link in links):
        found.append(f"{wheel.name}: Project-URL {links} not under {url}")
    pinned = [r for r in meta.get_all("Requires-Dist") or [] if r.startswith("torch") and "==" in r]
    if pinned:
        found.append(f"{wheel.name}: pins {pinned[0]} (it would replace a working torch)")

    files = dist_files(root)
    package = {n.removeprefix("src/") for n in files if n.startswith(f"src/{PACKAGE}/")}
    runs = {n for n in files if n.startswith(RUNS) and n.count("/") == RUNS.count("/") + 1}
    packaged_runs = {PACKAGED_RUNS + n[len(RUNS):] for n in runs}
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    info = f"{PACKAGE}-{release}.dist-info/"
    modules = {n for n in package if n.endswith(".py")}
    if missing := sorted(modules - names):
        found.append(f"{wheel.name} lacks {len(missing)} module(s): {missing[:5]}")
    for needed in (f"{info}licenses/LICENSE", f"{PACKAGE}/data/austen.txt.xz",
                   f"{PACKAGE}/widgets/static/stepper.js", f"{PACKAGE}/experiments/costs.json"):
        if needed not in names:
            found.append(f"{wheel.name} lacks {needed}")
    if missing := sorted(packaged_runs - names):
        found.append(f"{wheel.name} lacks {len(missing)} committed run file(s): {missing[:5]}")
    stray = sorted(n for n in names if not n.startswith(info) and
                   (n not in package | packaged_runs or STRAY.search(n)))
    if stray:
        found.append(f"{wheel.name} holds files that are not the package's: {stray[:8]}")

    top = f"{PACKAGE}-{release}/"
    with tarfile.open(sdist) as archive:
        members = [m.name for m in archive.getmembers() if m.isfile()]
    outside = [m for m in members if not m.startswith(top)]
    inside = {m[len(top):] for m in members if m.startswith(top)}
    in_src = {n[len("src/"):] for n in inside if n.startswith("src/")}
    if outside:
        found.append(f"{sdist.name} has files outside {top}: {outside[:5]}")
    if missing := sorted(modules - in_src):
        found.append(f"{sdist.name} lacks {len(missing)} module(s): {missing[:5]}")
    extra = sorted(n for n in inside if not n.startswith(("src/", f"src/{PACKAGE}.egg-info/"))
                   and n not in SDIST_FILES and n not in runs and n != RUNS + "README.md")
    extra += sorted(n for n in inside if n.startswith(f"src/{PACKAGE}/")
                    and (n[len("src/"):] not in package or STRAY.search(n)))
    if extra:
        found.append(f"{sdist.name} holds stray files: {extra[:8]}")
    if missing := sorted(runs - inside):
        found.append(f"{sdist.name} lacks {len(missing)} committed run file(s): {missing[:5]}")
    for needed in ("LICENSE", "README.md", "pyproject.toml", "setup.py", "CHANGELOG.md",
                   "CITATION.cff"):
        if needed not in inside:
            found.append(f"{sdist.name} lacks {needed}")

    twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist),
                            str(wheel)], capture_output=True, text=True)
    if twine.returncode != 0:
        found.append("twine check --strict: " + (twine.stdout + twine.stderr).strip()[-2000:])
    return found


def dist(out: Path = ROOT / "dist", release: bool = False, root: Path = ROOT) -> tuple[Path, Path]:
    """``make dist``: refuse before building if the version disagrees anywhere, build, check,
    and leave the sdist and wheel in ``out`` (an earlier build's course_rnn files removed)."""
    if found := problems(root, release=release):
        raise ReleaseError("not built:\n  - " + "\n  - ".join(found))
    with tempfile.TemporaryDirectory(prefix="course-rnn-built-") as tmp:
        sdist, wheel = build(Path(tmp), root)
        if found := check(sdist, wheel, root):
            raise ReleaseError("the built files fail their checks:\n  - " + "\n  - ".join(found))
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob(f"{PACKAGE}-*"):
            old.unlink()
        return Path(shutil.move(sdist, out)), Path(shutil.move(wheel, out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("check", "check that the version agrees everywhere"),
                       ("dist", "build sdist and wheel into dist/ and check them")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("--release", action="store_true",
                         help="also what a tagged release needs (CHANGELOG entry, clean tree)")
    sub.add_argument("--out", type=Path, default=ROOT / "dist", help="default: dist/")
    commands.add_parser("commands", help="print the install commands").add_argument(
        "extra", nargs="?", default="book", choices=("book", "exercises", "all"))
    args = parser.parse_args(argv)
    try:
        if args.command == "commands":
            print("\n".join(install_commands(args.extra)))
        elif args.command == "check":
            if found := problems(release=args.release):
                raise ReleaseError("\n  - ".join(["the version disagrees:", *found]))
            print(f"course_rnn {version()}: every place agrees")
        else:
            start = time.perf_counter()
            built = dist(args.out, release=args.release)
            for path in built:
                print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
                      f"{path.stat().st_size / 1e6:.2f} MB")
            print(f"built and checked course_rnn {version()} in "
                  f"{time.perf_counter() - start:.1f} s")
    except ReleaseError as error:
        print(f"release.py {args.command}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
