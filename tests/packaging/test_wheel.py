"""The course as a learner outside the repository gets it: the release that ``make dist`` builds,
installed as the README says — PyTorch for the CPU first, then ``course_rnn[book,exercises]`` —
into a fresh virtual environment, run from a folder that is not the repository.

- The wheel declares MIT with its LICENSE, and does not pin torch to one version.
- Every chapter's first code cell runs (chapters 2, 3 and 7 need pandas: the ``book`` extra),
  chapter 0 runs up to its first training run, and chapter 3's first page runs whole.
- The installed command line trains a replication in two worker processes (tiny settings): the
  workers import the installed package, not the repository.
- The installed torch is the CPU build: no CUDA, no ``nvidia-*`` packages.
- A student's downloaded archive works: its blank notebook's checks run the public tests it
  carries, the reference answers pass them (``course_rnn.grading.feedback``; the ``exercises``
  extra brings otter, which only ``assign`` uses).
- The installed grader has no exercises beside it: outside a clone it asks for ``--exercises``
  at once, and with ``--exercises`` (after the command) grades a submission.

The wheel is built by ``scripts/release.py`` (what ``make dist`` runs), or taken from the folder
``COURSE_RNN_DIST`` names (``make dist`` sets it to dist/ and runs this file after building).
The environment gets the versions requirements.txt pins (as a constraint: torch is the pin, from
this machine's package sources, which here hold the CPU wheel), installed by uv (pip if uv is
missing). uv keeps what it fetched in ~/.cache/course-rnn-uv and installs from it with
``--offline`` — no network — once it is warm; the first run (or one after a pin changed) needs the
package registry and takes ≈30 s more.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
release = importlib.util.module_from_spec(spec)
spec.loader.exec_module(release)
CHECK_ARCHIVE = ROOT / "tests" / "exercises" / "check_archive.py"
UV_CACHE = Path.home() / ".cache" / "course-rnn-uv"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

# Runs notebooks' code cells as plain Python (magics dropped; the setup cell skipped), each
# notebook in its own namespace but all in one process (torch is imported once): for each
# notebook, at most `limit` cells (0: all), stopping before the first that contains `stop`.
# Prints one line per notebook, RESULT {json}: the cells it ran, or the error.
RUN_CELLS = r"""
import json, sys, traceback


def main():
    for job in json.loads(sys.argv[1]):
        path, stop, limit = job
        cells = [''.join(c['source']) for c in json.load(open(path))['cells']
                 if c['cell_type'] == 'code']
        cells = [c for c in cells if 'course-setup' not in c]
        namespace, ran, error = {'__name__': '__main__'}, 0, None
        try:
            for i, source in enumerate(cells[:limit or None]):
                if stop and stop in source:
                    break
                code = '\n'.join(l for l in source.splitlines()
                                 if not l.lstrip().startswith(('%', '!')))
                exec(compile(code, f'{path} code cell {i}', 'exec'), namespace)
                ran += 1
        except Exception:
            error = traceback.format_exc()[-1500:]
        print('RESULT', json.dumps({'notebook': path, 'ran': ran, 'error': error}), flush=True)


# The chapters' worker pools (parallel_map) start processes that import this file again as
# __mp_main__: only the first process runs the notebooks.
if __name__ == '__main__':
    main()
"""


def run(command: list, cwd: Path, timeout: int = 600, env: dict | None = None):
    return subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of ``make dist``: from $COURSE_RNN_DIST, or built as make dist builds it (into
    a temporary folder: nothing is left in the repository) and checked as it checks it."""
    name = f"course_rnn-{release.version()}-py3-none-any.whl"
    if os.environ.get("COURSE_RNN_DIST"):
        built = Path(os.environ["COURSE_RNN_DIST"]) / name
        assert built.is_file(), f"$COURSE_RNN_DIST has no {name}: run `make dist`"
        return built
    sdist, built = release.build(tmp_path_factory.mktemp("dist"))
    assert not release.check(sdist, built)
    return built


def package_sources() -> list[str]:
    """pip's configured extra sources (find-links, extra index URLs), as uv options: uv reads
    no pip.conf, and this machine keeps the CPU torch wheel in a find-links folder."""
    done = run([sys.executable, "-m", "pip", "config", "list"], cwd=ROOT)
    options = []
    links = [os.environ.get("PIP_FIND_LINKS", "")]
    indexes = [os.environ.get("PIP_EXTRA_INDEX_URL", "")]
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        value = value.strip().strip("'\"")
        if key.endswith(".find-links"):
            links.append(value)
        elif key.endswith(".extra-index-url"):
            indexes.append(value)
    for link in dict.fromkeys(w for v in links for w in v.split()):
        options += ["--find-links", link]
    for index in dict.fromkeys(w for v in indexes for w in v.split()):
        if not index.startswith("file://") or Path(index[7:]).exists():
            options += ["--extra-index-url", index]
    return options


def install(python: Path, wanted: list, folder: Path) -> subprocess.CompletedProcess:
    """``pip install wanted`` into ``python``'s environment, with requirements.txt's pins as
    constraints: uv offline from its cache (online only to fill it), or pip."""
    constraints = ["-c", ROOT / "requirements.txt"]
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not uv:
        return run([python, "-m", "pip", "install", "-q", *wanted, *constraints], cwd=folder,
                   timeout=1100)
    command = [uv, "pip", "install", "-q", "--python", python, "--index-strategy",
               "unsafe-best-match", *package_sources(), *wanted, *constraints]
    env = {"UV_CACHE_DIR": str(UV_CACHE)}
    done = run([*command, "--offline"], cwd=folder, timeout=1100, env=env)
    if done.returncode != 0:  # a cold cache: fetch once from the package registry
        done = run(command, cwd=folder, timeout=1100, env=env)
    return done


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the release installed as the README says (PyTorch
    first, then the wheel with its extras): returns its python.

    With uv (requirements.txt) it takes seconds once uv's cache (~/.cache/course-rnn-uv) is
    warm; without it pip takes minutes."""
    folder = tmp_path_factory.mktemp("venv")
    base = getattr(sys, "_base_executable", sys.executable)
    done = run([base, "-m", "venv", "--without-pip", folder], cwd=folder)
    assert done.returncode == 0, done.stderr
    python = folder / "bin" / "python"
    if not shutil.which("uv", path=str(Path(sys.executable).parent)) and not shutil.which("uv"):
        run([python, "-m", "ensurepip", "-q"], cwd=folder)
    for wanted in ([f"torch=={release.torch_pin()}"], [f"{wheel}[book,exercises]"]):
        done = install(python, wanted, folder)
        if done.returncode != 0:
            reason = f"could not install {wanted}:\n{done.stderr[-3000:]}"
            if "connect" in done.stderr.lower() and os.environ.get("CI") != "true":
                pytest.skip(reason)
            pytest.fail(reason)
    return python


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A working folder outside the repository."""
    folder = tmp_path / "learner"
    folder.mkdir()
    return folder


def test_the_wheel_declares_its_license_and_leaves_torch_free(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    assert "License-Expression: MIT" in text
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    torch = [line for line in text.splitlines() if line.startswith("Requires-Dist: torch")]
    assert torch and "==" not in torch[0], torch
    for extra, needs in {"book": "pandas", "exercises": "otter-grader",
                         "cluster": "distributed"}.items():
        assert f"Provides-Extra: {extra}" in text
        assert any(line.startswith(f"Requires-Dist: {needs}") and f'extra == "{extra}"' in line
                   for line in text.splitlines()), (extra, needs)
    assert "course_rnn/widgets/static/stepper.js" in names
    assert "course_rnn/data/austen.txt.xz" in names
    # the committed runs the chapters read (setup.py copies them into the package)
    assert "course_rnn/experiments/committed_runs/anbn-paper/results.json" in names


def test_setuptools_is_new_enough_for_the_license_field():
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    (setuptools,) = [r.replace(" ", "") for r in requires if r.startswith("setuptools")]
    assert setuptools.startswith("setuptools>="), setuptools
    minimum = tuple(int(x) for x in setuptools.split(">=")[1].split(",")[0].split("."))
    assert minimum >= (77,), f"{setuptools}: setuptools < 77 cannot read license = 'MIT'"


def test_the_installed_package_is_the_release_and_torch_is_the_cpu_build(venv, elsewhere):
    done = run([venv, "-c", "import course_rnn, json, torch, importlib.metadata as m; "
                "print(json.dumps([course_rnn.__file__, course_rnn.__version__, torch.__version__,"
                " torch.version.cuda, sorted(d.metadata['Name'] for d in m.distributions())]))"],
               cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    location, version, torch, cuda, installed = json.loads(done.stdout)
    assert str(venv.parents[1]) in location and str(ROOT) not in location, location
    assert version == release.version(), version
    assert torch.split("+")[0] == release.torch_pin(), torch
    nvidia = [name for name in installed if name.lower().startswith("nvidia")]
    assert cuda is None and not nvidia, (
        f"torch {torch} (CUDA {cuda}, {nvidia}) is not the CPU build: this machine's package "
        "sources must offer it (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu)")


def test_every_chapter_starts_chapter_0_runs_to_its_training_and_chapter_3_whole(venv, elsewhere):
    script = elsewhere / "run_cells.py"
    script.write_text(RUN_CELLS)

    def job(chapter: Path) -> list:
        if chapter.name.startswith("00_"):  # the tour of the languages, up to its first training
            return [str(chapter), "fit(", 0]
        if chapter.name == "03_gates.ipynb":  # every cell (not 03_gates_counting: it trains)
            return [str(chapter), "", 0]
        return [str(chapter), "", 1]  # its first cell: imports and settings

    chapters = sorted((ROOT / "chapters").glob("*.ipynb"))
    jobs = [job(chapter) for chapter in chapters]
    done = run([venv, script, json.dumps(jobs)], cwd=elsewhere, timeout=1800,
               env={"MPLBACKEND": "Agg", "COURSE_RNN_PROGRESS": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()
               if line.startswith("RESULT ")]
    assert len(results) == len(jobs), done.stdout
    failures = [f"{Path(r['notebook']).name} (after {r['ran']} cells):\n{r['error']}"
                for r in results if r["error"] or not r["ran"]]
    assert not failures, "\n".join(failures)
    chapter0 = results[0]
    assert Path(chapter0["notebook"]).name.startswith("00_") and chapter0["ran"] >= 10, chapter0
    for result in results:  # chapter 3's first page: every code cell ran (not the setup cell)
        path = Path(result["notebook"])
        if path.name == "03_gates.ipynb":
            cells = [c for c in json.loads(path.read_text())["cells"]
                     if c["cell_type"] == "code" and "course-setup" not in "".join(c["source"])]
            assert result["ran"] == len(cells), result


def test_the_installed_command_trains_in_worker_processes(venv, elsewhere):
    tiny = dict(hidden_size=2, wide_hidden_size=3, train_max_n=4, test_max_n=8, repeats=1,
                batch_size=4, epochs=5, patience=3, extra_seeds=1)
    settings = [arg for key, value in tiny.items() for arg in ("--set", f"{key}={value}")]
    done = run([venv, "-m", "course_rnn", "replicate", "anbn", "--scale", "quick", "--seeds", "2",
                "--out", elsewhere / "anbn", *settings], cwd=elsewhere, timeout=600,
               env={"COURSE_RNN_WORKERS": "2", "COURSE_RNN_PROGRESS": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((elsewhere / "anbn" / "results.json").read_text())
    assert results["seeds"] == [0, 1]
    assert "site-packages" in run([venv, "-c", "import course_rnn; print(course_rnn.__file__)"],
                                  cwd=elsewhere).stdout


def test_a_downloaded_exercise_works_with_the_installed_package(venv, elsewhere):
    archives = elsewhere / "downloads"
    done = run([venv, "-m", "course_rnn.grading", "archives", "--out", archives,
                "--exercises", ROOT / "exercises"], cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    name = "ch03_lstm_cell"
    with zipfile.ZipFile(archives / f"{name}.zip") as archive:
        archive.extractall(elsewhere / "student")
    done = run([venv, CHECK_ARCHIVE, elsewhere / "student" / name,
                ROOT / "exercises" / "autograder" / name / "solution.ipynb"],
               cwd=elsewhere / "student" / name)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


def test_the_installed_grader_asks_for_exercises_and_then_grades(venv, elsewhere):
    done = run([venv, "-m", "course_rnn.grading", "check"], cwd=elsewhere, timeout=120,
               env={"COURSE_RNN_EXERCISES": ""})
    assert done.returncode == 2 and "pass --exercises DIR" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    submissions = elsewhere / "class"
    submissions.mkdir()
    name = "ch03_lstm_cell"
    shutil.copy(ROOT / "exercises" / "autograder" / name / "solution.ipynb",
                submissions / f"ada_{name}.ipynb")
    done = run([venv, "-m", "course_rnn.grading", "grade", submissions, "--csv",
                elsewhere / "grades.csv", "--exercises", ROOT / "exercises", "--unsafe-no-sandbox",
                "--time-limit", "120"], cwd=elsewhere, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("ada_"))
    got, total = line.split(": ")[1].split(" ")[0].split("/")
    assert got == total and float(total) > 0, line
