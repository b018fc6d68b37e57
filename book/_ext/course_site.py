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

4. The release the book is made with, on every page: the footer names ``course_rnn``'s version
   (``pyproject.toml``'s, which the installed package must report: a stale install stops the
   build), and the pages may write ``{{ course_rnn_version }}``, ``{{ install_torch_cpu }}``,
   ``{{ install_course }}`` and ``{{ install_exercises }}`` (MyST substitutions: the READMEs'
   install commands, as inline code).

5. No build logs in the site. When a chapter's cell fails, MyST-NB writes its traceback into
   the site's folder (``_build/html/reports/<page>.err.log``), where it would be published with
   the pages. After the build it is moved beside the site, to ``book/_build/reports/`` (emptied
   at the start of each build, so what it holds is this build's failures), and the build says
   where.

6. Launch links that open the page's own file. The theme builds a notebook's Colab link as the
   repository's root plus the page's name: right for the chapters (``book/chapters`` is a link to
   the root's ``chapters/``), wrong for a notebook kept in ``book/`` itself (the maths page), whose
   file is ``book/<page>.ipynb``; such links get the book's folder in front.

The repository's address is written once, in ``_config.yml`` (``repository: url``); the README
in each archive takes it from there. The version and the install commands come from
``scripts/release.py``.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

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


def release_script(confdir: str | Path):
    """scripts/release.py of the repository the book is in."""
    path = Path(confdir).resolve().parent / "scripts" / "release.py"
    spec = importlib.util.spec_from_file_location("course_rnn_release", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def version_footer(version: str, url: str) -> str:
    return (f'<p>This is the book of course_rnn {version} (<a href="{url}/blob/v{version}/'
            f'CHANGELOG.md">what changed</a>); install the same release to run its chapters.</p>')


def _config_inited(app: Sphinx, config: Config) -> None:
    import course_rnn

    release = release_script(app.confdir)
    version = release.version(release.ROOT)
    if course_rnn.__version__ != version:
        raise ExtensionError(
            f"the installed course_rnn is {course_rnn.__version__}, pyproject.toml says {version}: "
            "the chapters would run another version than the book shows (run `make install`)")
    config.version = config.release = version
    options = config.html_theme_options
    url = options.get("repository_url") or release.repository()[0]
    options["extra_footer"] = version_footer(version, url) + options.get("extra_footer", "")
    torch, course = release.install_commands("book", release.ROOT)
    _, exercises = release.install_commands("exercises", release.ROOT)
    config.myst_substitutions = {**(config.myst_substitutions or {}),
                                 "course_rnn_version": version,
                                 "install_torch_cpu": f"`{torch}`",
                                 "install_course": f"`{course}`",
                                 "install_exercises": f"`{exercises}`"}


def reports_folder(outdir: Path) -> Path:
    """Where a build's failure logs are kept: beside the site (``book/_build/reports/``)."""
    return Path(outdir).parent / "reports"


def move_reports(outdir: Path) -> list[Path]:
    """Move MyST-NB's failure logs out of the site (``outdir/reports``) into
    :func:`reports_folder`; return where they now are."""
    source, target = Path(outdir) / "reports", reports_folder(outdir)
    if not source.is_dir():
        return []
    moved = []
    for log in sorted(path for path in source.rglob("*") if path.is_file()):
        destination = target / log.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(log, destination)
        moved.append(destination)
    shutil.rmtree(source)
    return moved


def _move_reports(app: Sphinx, error: Exception | None) -> None:
    from sphinx.util import logging

    for log in move_reports(Path(app.outdir)):
        logging.getLogger(__name__).warning(f"a notebook's traceback is kept in {log}")


def _builder_inited(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    _add_scripts(app)
    _exercise_archives(app)
    # this build's failures only; the site's own folder must not publish any
    shutil.rmtree(reports_folder(Path(app.outdir)), ignore_errors=True)
    shutil.rmtree(Path(app.outdir) / "reports", ignore_errors=True)
    app.connect("build-finished", _move_reports)


def launch_from_book_folder(buttons: list[dict], pagename: str, book_folder: str) -> int:
    """Point the launch links of page ``pagename`` (the theme's ``header_buttons``) at
    ``<book_folder>/<pagename>.ipynb`` where they name ``<pagename>.ipynb`` at the repository's
    root; the chapters (``chapters/…``) are left as they are. Returns how many were changed."""
    if pagename.startswith("chapters/"):
        return 0
    wrong, right = f"/{pagename}.ipynb", f"/{book_folder}/{pagename}.ipynb"
    changed = 0
    for group in buttons:
        for button in group.get("buttons", []) if group.get("label") == "launch-buttons" else []:
            if button.get("url", "").endswith(wrong):
                button["url"] = button["url"][: -len(wrong)] + right
                changed += 1
    return changed


def _launch_links(app: Sphinx, pagename: str, templatename: str, context: dict,
                  doctree) -> None:
    launch_from_book_folder(context.get("header_buttons", []), pagename, Path(app.confdir).name)


def setup(app: Sphinx) -> dict[str, Any]:
    # Before any page's own scripts: the first stepper.js to run defines CourseRnnStepper.
    app.add_js_file(STEPPER_JS, priority=200)
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _builder_inited)
    app.connect("doctree-read", _doctree_read)
    # after the theme's launch buttons (priority 501)
    app.connect("html-page-context", _launch_links, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
