"""The built site names the release it was made with: every page's footer gives course_rnn's
version (pyproject.toml's), and the introduction gives the commands that install that release,
PyTorch for the CPU first (scripts/release.py makes both; book/_ext/course_site.py puts them in)."""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

from .conftest import ROOT

spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
release = importlib.util.module_from_spec(spec)
spec.loader.exec_module(release)


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_every_page_footer_names_the_release(site_pages: list[Path]):
    version = release.version()
    footer = f"This is the book of course_rnn {version}"
    # index.html is Jupyter Book's one-line redirect to the first page: it has no footer
    pages = [p for p in site_pages if 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8")]
    assert len(pages) >= len(site_pages) - 1
    missing = [p.name for p in pages if footer not in p.read_text(encoding="utf-8")]
    assert not missing, f"pages whose footer does not say {footer!r}: {missing[:5]}"


def test_the_introduction_and_exercises_install_the_release_after_cpu_torch(site: Path):
    for page, extra in (("intro.html", "book"), ("exercises.html", "exercises")):
        text = plain((site / page).read_text(encoding="utf-8"))
        torch, course = release.install_commands(extra)
        assert torch in text and course in text, page
        assert text.index(torch) < text.index(course), page
