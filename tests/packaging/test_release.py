"""One version, shown everywhere, and a `make dist` that refuses what is wrong
(scripts/release.py).

pyproject.toml's version is the one place it is written: the installed package
(``course_rnn.__version__``), results.json's provenance, the site's footer
(book/_ext/course_site.py), the chapters' setup cell, the README's and exercises/README.md's
install commands and CITATION.cff all show it. The built sdist and wheel hold the package, its
licence and nothing else, and pass ``twine check --strict``; a broken one is refused with the
reason. No network.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

import course_rnn
from course_rnn.experiments.provenance import source_facts

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
release = importlib.util.module_from_spec(spec)
spec.loader.exec_module(release)
VERSION = release.version()


def load_course_site():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import course_site
    finally:
        sys.path.pop(0)
    return course_site


def test_every_place_shows_pyprojects_version():
    assert release.problems() == []
    assert course_rnn.__version__ == VERSION
    assert source_facts()["course_rnn"] == VERSION  # every results.json's provenance


def test_the_readmes_give_the_cpu_route_first_then_the_matching_release():
    url, _ = release.repository()
    torch, course = release.install_commands("book")
    assert torch == (f"pip install torch=={release.torch_pin()} "
                     "--index-url https://download.pytorch.org/whl/cpu")
    assert course == f'pip install "course_rnn[book] @ {url}/archive/refs/tags/v{VERSION}.tar.gz"'
    for readme, extra in (("README.md", "book"), ("exercises/README.md", "exercises")):
        text = (ROOT / readme).read_text(encoding="utf-8")
        torch, course = release.install_commands(extra)
        assert text.index(torch) < text.index(course), readme
        assert "git+" not in text.replace("git+<", ""), f"{readme} still installs from git"


def copy_of_the_project(tmp_path: Path) -> Path:
    """The files release.problems reads, in a folder of their own (no git)."""
    for name in ("pyproject.toml", "README.md", "CHANGELOG.md", "CITATION.cff",
                 "requirements.txt", "book/_config.yml", "exercises/README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "chapters", tmp_path / "chapters")
    return tmp_path


def test_the_students_archive_installs_what_the_release_script_gives():
    """The archive README's commands come from the installed package (the grader's CLI has no
    scripts/ beside it); they must be the release script's, which reads the repository."""
    from course_rnn.grading.archives import install_commands

    url, _ = release.repository()
    assert install_commands(url) == release.install_commands("exercises")


def test_a_version_bumped_in_one_place_only_is_refused_with_what_to_do(tmp_path):
    root = copy_of_the_project(tmp_path)
    assert release.problems(root, installed=False) == []
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f'version = "{VERSION}"',
                                                       'version = "9.8.7"'))
    found = "\n".join(release.problems(root, installed=False))
    for expected in ("CITATION.cff: version is", "README.md does not give the install commands "
                     "of 9.8.7", "exercises/README.md", "notebook_setup.py --write",
                     "CHANGELOG.md says nothing of 9.8.7"):
        assert expected in found, (expected, found)
    pyproject.write_text(pyproject.read_text().replace('"9.8.7"', '"1.0+local"'))
    assert "not a plain public version" in "\n".join(release.problems(root, installed=False))


def test_a_release_needs_a_dated_changelog_entry(tmp_path):
    root = copy_of_the_project(tmp_path)
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text()
    if f"## [{VERSION}] - " not in text:
        assert any("CHANGELOG.md: no entry" in p for p in release.problems(root, release=True,
                                                                          installed=False))
    changelog.write_text(text.replace("## [Unreleased]", f"## [{VERSION}] - 2026-11-26", 1))
    assert not [p for p in release.problems(root, release=True, installed=False)
                if "CHANGELOG" in p]


def test_the_release_script_says_what_is_wrong_without_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, ROOT / "scripts" / "release.py", "check"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and f"course_rnn {VERSION}: every place agrees" in done.stdout
    done = subprocess.run([sys.executable, ROOT / "scripts" / "release.py", "commands",
                           "exercises"], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == release.install_commands("exercises")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    return release.build(tmp_path_factory.mktemp("dist"))


def test_the_built_sdist_and_wheel_pass_their_checks(built):
    sdist, wheel = built
    assert sdist.name == f"course_rnn-{VERSION}.tar.gz"
    assert wheel.name == f"course_rnn-{VERSION}-py3-none-any.whl"
    assert release.check(sdist, wheel) == []
    meta = release.wheel_metadata(wheel)
    assert meta["Version"] == VERSION and meta["License-Expression"] == "MIT"
    url, _ = release.repository()
    assert all(link.split(", ", 1)[1].startswith(url) for link in meta.get_all("Project-URL"))


def test_a_wheel_with_a_stray_file_or_without_its_licence_is_refused(built, tmp_path):
    sdist, wheel = built
    bad = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(bad, "w") as target:
        for item in source.infolist():
            if not item.filename.endswith("licenses/LICENSE"):
                target.writestr(item, source.read(item))
        target.writestr("tests/test_secret.py", "")
        target.writestr("course_rnn/__pycache__/cli.cpython-311.pyc", "")
    found = "\n".join(release.check(sdist, bad))
    assert "lacks course_rnn-" in found and "licenses/LICENSE" in found
    assert "tests/test_secret.py" in found and "__pycache__" in found


def test_the_books_footer_names_the_release_and_a_stale_install_stops_the_build(monkeypatch):
    course_site = load_course_site()
    config = types.SimpleNamespace(
        html_theme_options={"repository_url": "https://example.org/r", "extra_footer": "<p>x</p>"},
        myst_substitutions={}, version="", release="")
    app = types.SimpleNamespace(confdir=str(ROOT / "book"))
    course_site._config_inited(app, config)
    footer = config.html_theme_options["extra_footer"]
    assert f"course_rnn {VERSION}" in footer and footer.endswith("<p>x</p>")
    assert f"https://example.org/r/blob/v{VERSION}/CHANGELOG.md" in footer
    assert config.release == VERSION
    assert config.myst_substitutions["install_course"] == f"`{release.install_commands()[1]}`"
    assert config.myst_substitutions["install_exercises"] == \
        f"`{release.install_commands('exercises')[1]}`"
    monkeypatch.setattr(course_rnn, "__version__", "0.0.1")
    with pytest.raises(Exception, match="installed course_rnn is 0.0.1, pyproject.toml says"):
        course_site._config_inited(app, config)
