"""The JavaScript forward pass equals PyTorch's trace, for every kind the web stepper supports.

Node.js runs ``stepper.js`` with a minimal stand-in for the browser's ``document``; the browser
test (tests/book) checks the same thing inside the built site.
"""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest
import torch

from course_rnn.languages import AnBn, Dyck, Vocab
from course_rnn.models import build_model
from course_rnn.widgets import WEB_KINDS, export_model, import_model, run_steps, web_stepper_html
from course_rnn.widgets.web import WEB_STATES, exported_cell, state_sizes, stepper_script

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None and os.environ.get("CI") != "true", reason="Node.js is not installed"
)

NODE_HARNESS = """
const fs = require("fs");
global.window = {};
global.document = {readyState: "complete", head: {append() {}},
                   createElement() { return {}; }, querySelectorAll() { return []; }};
eval(fs.readFileSync(process.argv[2], "utf8"));
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const S = window.CourseRnnStepper;
const out = job.strings.map(s => {
  try { return S.run(job.model, S.tokenise(job.model, s)); }
  catch (e) { return {error: e.message}; }
});
const valid = job.prefixes.map(p => window.CourseRnnStepper.validNext(job.model.language, p));
process.stdout.write(JSON.stringify({out, valid}));
"""


def run_js(tmp_path, model_json, strings, prefixes=()):
    script = tmp_path / "stepper.js"
    script.write_text(stepper_script())
    harness = tmp_path / "harness.js"
    harness.write_text(NODE_HARNESS)
    job = json.dumps({"model": model_json, "strings": strings, "prefixes": list(prefixes)})
    done = subprocess.run(
        [NODE, str(harness), str(script)],
        input=job,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def make(kind, vocab, seed=0):
    torch.manual_seed(seed)
    sizes = {"urn": dict(hidden_size=6, k=2)}.get(kind, dict(hidden_size=5))
    if kind == "decay_rnn":
        sizes["variant"] = "drnn"
    model = build_model(kind, vocab_size=len(vocab), **sizes)
    with torch.no_grad():  # move away from the initialisation, so every weight matters
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return model.eval()


@pytest.mark.parametrize("kind", WEB_KINDS)
def test_javascript_equals_pytorch(kind, tmp_path):
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    model = make(kind, vocab)
    strings = ["([])()", "[[[]]]", ""]
    js = run_js(tmp_path, export_model(model, vocab, dyck), strings)["out"]
    for string, steps_js in zip(strings, js):
        steps = run_steps(model, vocab, string, dyck)
        assert len(steps_js) == len(steps)
        for name, values in steps.states.items():
            got = np.array([s["states"][name] for s in steps_js], dtype=float).reshape(values.shape)
            np.testing.assert_allclose(got, values, atol=2e-5, err_msg=f"{kind} {name}")
        probs = np.array([s["probs"] for s in steps_js])
        np.testing.assert_allclose(probs, steps.probs, atol=2e-5)


def test_javascript_names_a_foreign_symbol_and_knows_valid_continuations(tmp_path):
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    result = run_js(
        tmp_path,
        export_model(make("lstm", vocab), vocab, dyck),
        ["(x)"],
        prefixes=[[], ["("], ["(", "["], ["(", "]"]],
    )
    assert "'x'" in result["out"][0]["error"]
    expected = [sorted(dyck.valid_next(p)) for p in ["", "(", "([", "(]"]]
    assert [sorted(v) for v in result["valid"]] == expected

    anbn = AnBn()
    v2 = Vocab(anbn.alphabet)
    prefixes = ["", "a", "aab", "aabb", "aba", "abb"]
    result = run_js(
        tmp_path, export_model(make("srn", v2), v2, anbn), [], prefixes=[list(p) for p in prefixes]
    )
    assert [sorted(v) for v in result["valid"]] == [sorted(anbn.valid_next(p)) for p in prefixes]


def test_export_rejects_what_it_cannot_run():
    vocab = Vocab("ab")
    with pytest.raises(ValueError, match="single-layer"):
        export_model(build_model("lstm", vocab_size=len(vocab), num_layers=2), vocab)
    with pytest.raises(ValueError, match="vocab_size"):
        export_model(build_model("lstm", vocab_size=9), vocab)


def test_html_block_is_self_contained():
    vocab = Vocab("ab")
    page = web_stepper_html(make("gru", vocab), vocab, AnBn(), string="aabb")
    assert "class='rnn-stepper'" in page and "CourseRnnStepper" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page


@pytest.mark.parametrize("kind", WEB_KINDS)
def test_import_rebuilds_a_model_that_computes_the_same_states(kind):
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    model = make(kind, vocab)
    spec = json.loads(json.dumps(export_model(model, vocab, dyck)))
    rebuilt, rebuilt_vocab = import_model(spec)
    assert rebuilt_vocab.alphabet == vocab.alphabet
    original, again = run_steps(model, vocab, "([])[", dyck), run_steps(rebuilt, vocab, "([])[")
    np.testing.assert_allclose(again.states["hidden"], original.states["hidden"], atol=1e-5)
    np.testing.assert_allclose(again.probs, original.probs, atol=1e-5)
    with pytest.raises(ValueError, match="unknown exported model kind"):
        import_model({**{k: v for k, v in spec.items() if k != "cell"}, "kind": "transformer"})


@pytest.mark.parametrize("parametrisation", ["sigmoid", "direct"])
def test_a_decay_rnn_comes_back_with_its_alpha_and_how_it_is_trained(parametrisation):
    vocab = Vocab(AnBn().alphabet)
    torch.manual_seed(0)
    model = build_model("decay_rnn", vocab_size=len(vocab), hidden_size=4, alpha_init=0.3,
                        alpha_parametrisation=parametrisation).eval()
    spec = json.loads(json.dumps(export_model(model, vocab, AnBn())))
    rebuilt, _ = import_model(spec)
    assert rebuilt.alpha_parametrisation == parametrisation
    assert float(rebuilt.alpha.detach()) == pytest.approx(0.3, abs=1e-6)
    np.testing.assert_allclose(run_steps(rebuilt, vocab, "aabb").probs,
                               run_steps(model, vocab, "aabb").probs, atol=1e-5)
    with pytest.raises(ValueError, match="alpha_init must lie strictly between 0 and 1"):
        import_model({**spec, "alpha": 1.5})


@pytest.mark.parametrize("kind", WEB_KINDS)
def test_the_stepper_lists_the_states_the_model_traces(kind):
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    model = make(kind, vocab)
    spec = export_model(model, vocab, dyck)
    # the states of the cell it runs (a model may run another kind's cell)
    assert tuple(run_steps(model, vocab, "([])").states) == WEB_STATES[exported_cell(spec)]
    sizes = {name: values.shape[1] for name, values in run_steps(model, vocab, "()").states.items()}
    assert state_sizes(spec) == sizes


def test_highlight_marks_units_and_names_what_it_cannot_mark():
    anbn = AnBn()
    vocab = Vocab(anbn.alphabet)
    lstm = make("lstm", vocab)  # hidden_size 5
    page = web_stepper_html(lstm, vocab, anbn, highlight={"cell": {2: "the counter"}})
    assert 'data-highlight="{&quot;cell&quot;: {&quot;2&quot;: &quot;the counter&quot;}}"' in page
    page = web_stepper_html(lstm, vocab, anbn, highlight={"cell": [np.int64(4), 0]})
    assert "&quot;0&quot;: &quot;&quot;, &quot;4&quot;: &quot;&quot;" in page
    assert "data-highlight=" not in web_stepper_html(lstm, vocab, anbn)
    with pytest.raises(ValueError, match="shows the states input_gate, .*; not 'hiden'"):
        web_stepper_html(lstm, vocab, anbn, highlight={"hiden": [0]})
    with pytest.raises(ValueError, match="cell has units 0 to 4; not 5"):
        web_stepper_html(lstm, vocab, anbn, highlight={"cell": [5]})
    with pytest.raises(ValueError, match="not 1.0"):
        web_stepper_html(lstm, vocab, anbn, highlight={"cell": [1.0]})
    with pytest.raises(ValueError, match="not True"):
        web_stepper_html(lstm, vocab, anbn, highlight={"cell": [True]})
    with pytest.raises(ValueError, match="must map a state name"):
        web_stepper_html(lstm, vocab, anbn, highlight=[2])


def test_the_plot_draws_few_units_all_and_many_units_a_few(tmp_path):
    script = tmp_path / "stepper.js"
    script.write_text(stepper_script())
    harness = tmp_path / "plot.js"
    harness.write_text(
        NODE_HARNESS.split("const job")[0]
        + """
const U = window.CourseRnnStepper.unitsToPlot;
// unit u moves by u per step
const values = n => [0, 1, 2].map(t => [...Array(n).keys()].map(u => u * t));
process.stdout.write(JSON.stringify({
  few: U(values(3), [], null), many: U(values(16), [], null), marked: U(values(16), [0], null),
  picked: U(values(16), [0], new Set([5, 1]))}));
"""
    )
    done = subprocess.run([NODE, str(harness), str(script)], capture_output=True, text=True,
                          timeout=60, check=True)
    result = json.loads(done.stdout)
    assert result["few"] == [0, 1, 2]
    assert result["many"] == [12, 13, 14, 15]  # the four that move most
    assert result["marked"] == [0, 12, 13, 14, 15]  # and the one the page marks
    assert result["picked"] == [1, 5]  # the reader's choice wins
