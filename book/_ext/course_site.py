"""Sphinx extension: what the course's site adds to a plain Jupyter Book build.

1. The current web stepper (``course_rnn/widgets/static/stepper.js``) on every page. A chapter's
   stepper output embeds the script as it was when the chapter was executed, and Jupyter Book's
   execution cache keeps that output until the chapter's code changes; loading the package's
   script first makes every page use the current one (the embedded copy then only mounts).
   The playground's two scripts (``playground_train.js``, also its Web Worker, and
   ``playground.js``) are copied to ``_static/`` beside it; only ``playground.md`` loads them.
2. One download per assignment: ``exercises/<name>.zip`` at the site's root, made from
   ``exercises/student/<name>/`` (the notebook, its public tests, a README saying how to install
   the course and check an answer). ``book/exercises.md`` links them.

3. No stray HTML in the prose. MyST passes a ``<…>`` it finds in Markdown through as raw HTML,
   so the course's symbols — ``<s>``, ``</s>``, ``<pad>``, ``<unk>`` — written outside a code
   span (a figure's caption from ``mystnb: figure: caption``, a Markdown cell, a cell's Markdown
   output) would become HTML elements: ``<s>`` a strike-through running to the end of the page,
   ``<unk>`` an unknown element the browser hides. After each page is read, a raw HTML node of
   the prose whose tags are not all elements the site writes on purpose (``ALLOWED_TAGS``: links,
   the playground's ``<div>`` and ``<script>``, …) becomes its text, shown as written. Cell
   outputs that are HTML (``text/html``: tables, widgets) are left as they are.

The repository's address is written once, in ``_config.yml`` (``repository: url``); the README
in each archive takes it from there.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

STEPPER_JS = "course-rnn-stepper.js"
# the site's name for each script of course_rnn/widgets/static/ that pages load from _static/
SCRIPTS = {
    "stepper.js": STEPPER_JS,
    "playground_train.js": "course-rnn-playground-train.js",
    "playground.js": "course-rnn-playground.js",
}


# HTML elements that a page's Markdown may write on purpose (book/exercises.md's download links,
# book/playground.md's <div> and <script>, …). Deliberately absent: the strike-through elements
# (s, strike, del), whose names are also the course's start symbol, and every name that is not
# an HTML element (unk, pad, eos, …): those are the course's symbols, never markup.
ALLOWED_TAGS = frozenset(
    "a abbr b br caption code col colgroup details div em figcaption figure hr i img kbd li "
    "ol p pre script small span strong style sub summary sup table tbody td tfoot th thead "
    "tr ul".split()
)
TAG = re.compile(r"<\s*/?\s*([A-Za-z][A-Za-z0-9-]*)")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def stray_tags(html: str) -> list[str]:
    """The tag names in ``html`` that are not elements the site writes on purpose."""
    return [
        name
        for name in TAG.findall(COMMENT.sub("", html))
        if name.lower() not in ALLOWED_TAGS
    ]


def escape_stray_html(doctree: nodes.Node) -> int:
    """Turn every raw HTML node of the prose that holds a stray tag into its text; return how
    many. A cell's HTML output (class ``output``) is not prose and is kept."""
    replaced = 0
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split() or "output" in raw["classes"]:
            continue
        text = raw.astext()
        if not stray_tags(text):
            continue
        if isinstance(raw.parent, nodes.TextElement):  # inline: "… merged into <unk> …"
            raw.replace_self(nodes.Text(text))
        else:  # a block that Markdown took for HTML: a line that starts with "<s> a b"
            raw.replace_self(nodes.paragraph(text, text))
        replaced += 1
    return replaced


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    escape_stray_html(doctree)


def _add_scripts(app: Sphinx) -> None:
    from course_rnn.widgets.web import static_script

    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    for name, site_name in SCRIPTS.items():
        (static / site_name).write_text(static_script(name), encoding="utf-8")


def _exercise_archives(app: Sphinx) -> None:
    """Write the archives into a temporary folder that Sphinx copies to the site's root."""
    from course_rnn.grading.archives import write_archives

    exercises = (Path(app.confdir) / ".." / "exercises").resolve()
    folder = Path(tempfile.mkdtemp(prefix="course-rnn-archives-"))
    url = app.config.html_theme_options.get("repository_url", "")
    branch = app.config.html_theme_options.get("repository_branch", "main")
    write_archives(exercises, folder / "exercises", repository=url, branch=branch)
    app.config.html_extra_path = [*app.config.html_extra_path, str(folder)]
    app.connect("build-finished", lambda app, error: shutil.rmtree(folder, ignore_errors=True))


def _builder_inited(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    _add_scripts(app)
    _exercise_archives(app)


def setup(app: Sphinx) -> dict[str, Any]:
    # Before any page's own scripts: the first stepper.js to run defines CourseRnnStepper.
    app.add_js_file(STEPPER_JS, priority=200)
    app.connect("builder-inited", _builder_inited)
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
