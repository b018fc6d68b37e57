"""Sphinx extension: write each inline <script> of a page once.

Sphinx 7.4 re-adds the scripts that extensions register after the builder starts, looking them up
as filename '' where they were first stored as None. Inline scripts (filename None, a body) then
appear twice, and a repeated `const THEBE_JS_URL = ...` (sphinx-thebe) is a SyntaxError on every
page of the site. This keeps the first of each identical script.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _identity(script: Any) -> tuple:
    return (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))


def dedupe_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    unique = []
    for script in scripts:
        if _identity(script) not in seen:
            seen.add(_identity(script))
            unique.append(script)
    scripts[:] = unique


def setup(app: Sphinx) -> dict[str, Any]:
    # Late priority: after the extensions that add per-page scripts (MathJax, myst-nb widgets).
    app.connect("html-page-context", dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
