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

The repository's address is written once, in ``_config.yml`` (``repository: url``); the README
in each archive takes it from there.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

STEPPER_JS = "course-rnn-stepper.js"
# the site's name for each script of course_rnn/widgets/static/ that pages load from _static/
SCRIPTS = {
    "stepper.js": STEPPER_JS,
    "playground_train.js": "course-rnn-playground-train.js",
    "playground.js": "course-rnn-playground.js",
}


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
    return {"parallel_read_safe": True, "parallel_write_safe": True}
