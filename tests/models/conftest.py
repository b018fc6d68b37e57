"""What the model tests share: the web stepper's JavaScript run under Node.js."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from course_rnn.widgets.web import stepper_script

NODE = shutil.which("node")

# A browser-less page around the stepper script: it defines window.CourseRnnStepper, and this
# runs one exported model over one string and prints every step.
HARNESS = (
    'global.window = {}; global.document = {readyState: "complete", head: {append() {}},'
    " createElement() { return {}; }, querySelectorAll() { return []; }};"
    ' eval(require("fs").readFileSync(process.argv[2], "utf8"));'
    " const S = window.CourseRnnStepper, m = JSON.parse(process.argv[3]);"
    " process.stdout.write(JSON.stringify(S.run(m, S.tokenise(m, process.argv[4]))));"
)


@pytest.fixture
def js_stepper(tmp_path):
    """``run(spec, string)``: the steps (states, probabilities) the JavaScript stepper computes
    for an exported model (``widgets.export_model``). Skipped without Node.js, except in CI."""
    if NODE is None and os.environ.get("CI") != "true":
        pytest.skip("no Node.js")
    (tmp_path / "stepper.js").write_text(stepper_script())
    (tmp_path / "run.js").write_text(HARNESS)

    def run(spec: dict, string: str) -> list[dict]:
        command = [NODE, str(tmp_path / "run.js"), str(tmp_path / "stepper.js"),
                   json.dumps(spec), string]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
        return json.loads(done.stdout)

    return run
