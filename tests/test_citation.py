"""Citable and licensed: CITATION.cff (software and book) repeats what the project says in one
place (the version, the repository's address), the content licence exists and the site's footer
states it, and the changelog names the current version. No network and no Sphinx build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import course_rnn

ROOT = Path(__file__).resolve().parents[1]
CFF = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
CONFIG = yaml.safe_load((ROOT / "book" / "_config.yml").read_text(encoding="utf-8"))
# pyproject.toml's [project] version (read by pattern: tomllib is Python ≥ 3.11)
VERSION = re.search(r'^\[project\][^\[]*?^version = "([^"]+)"',
                    (ROOT / "pyproject.toml").read_text(), re.MULTILINE | re.DOTALL).group(1)
CC_BY = "https://creativecommons.org/licenses/by/4.0/"


def test_citation_is_cff_1_2_0_with_what_it_requires():
    assert CFF["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "type", "version", "license"):
        assert CFF.get(key), f"CITATION.cff has no {key}"
    assert CFF["type"] == "software"
    assert all(author.get("name") or author.get("family-names") for author in CFF["authors"])
    book = CFF["preferred-citation"]
    assert book["type"] == "book" and book["title"] == CONFIG["title"] and book["authors"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(CFF["date-released"]))


def test_citation_repeats_the_version_and_the_address_kept_in_one_place():
    assert CFF["version"] == VERSION == course_rnn.__version__
    assert CFF["preferred-citation"]["edition"] == VERSION
    address = CONFIG["repository"]["url"]
    assert CFF["repository-code"] == address
    assert CFF["preferred-citation"]["repository-code"] == address


def test_citation_names_both_licences():
    assert set(CFF["license"]) == {"MIT", "CC-BY-4.0"}
    assert CFF["preferred-citation"]["license"] == "CC-BY-4.0"


def test_the_content_licence_gives_the_notice_and_the_legal_code():
    text = (ROOT / "LICENSE-CONTENT").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0 International" in text
    assert CC_BY in text and CC_BY + "legalcode" in text
    assert "MIT" in text and "LICENSE" in text  # what it does not cover: the code
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_site_footer_states_the_licences():
    assert "the course_rnn authors" in CONFIG["copyright"]
    footer = CONFIG["html"]["extra_footer"]
    assert f'href="{CC_BY}"' in footer and "CC BY 4.0" in footer and "MIT" in footer
    assert "vendor/LICENSES.txt" in footer


def test_the_book_config_is_valid_for_jupyter_book():
    """Jupyter Book's own schema check of book/_config.yml, and the footer reaches the theme —
    without building anything."""
    config = pytest.importorskip("jupyter_book.config")
    final, *_ = config.get_final_config(
        user_yaml=ROOT / "book" / "_config.yml", sourcedir=ROOT / "book",
        cli_config={"latex_individualpages": False}, validate=True, raise_on_invalid=True)
    assert final["copyright"] == CONFIG["copyright"]
    assert final["html_theme_options"]["extra_footer"] == CONFIG["html"]["extra_footer"]


def test_readme_has_the_licence_and_citation_section():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Licence and citation"):]
    for name in ("LICENSE", "LICENSE-CONTENT", "CITATION.cff", "CHANGELOG.md", "CC BY 4.0"):
        assert name in section


def test_the_changelog_covers_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    headings = re.findall(r"^## \[([^\]]+)\]", text, flags=re.MULTILINE)
    assert headings, "no version headings"
    assert VERSION in headings or (headings[0] == "Unreleased" and VERSION in text), \
        f"CHANGELOG.md says nothing of version {VERSION}"
