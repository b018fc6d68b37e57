"""The playground's JavaScript engine (widgets/static/playground_train.js) against PyTorch, run
under node: for every model the page offers, the forward pass, the loss and every gradient equal
PyTorch's on the same weights and batch (float32 tolerance), a whole training run (Adam, clipping)
follows PyTorch's step by step, the scores are the library's, the exported weights are what
``import_model`` reads, and bad settings are refused with a message that names them.
(tests/book/test_site_playground.py drives the page itself in headless Chromium.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from course_rnn.languages import AnBn, Dyck, Vocab, make_batch
from course_rnn.metrics import anbn_generalisation, next_symbol_logits, optimal_loss
from course_rnn.models import build_model
from course_rnn.training import LanguageModelling
from course_rnn.widgets import export_model, import_model

ENGINE = Path(__file__).parents[2] / "src/course_rnn/widgets/static/playground_train.js"
# the page's models: (option name, build_model kind, options)
MODELS = {
    "lstm": ("lstm", {}),
    "gru": ("gru", {}),
    "srn": ("srn", {}),
    "srn-relu": ("srn", {"nonlinearity": "relu"}),
}
LANGUAGES = {"anbn": AnBn(), "dyck1": Dyck("()"), "dyck2": Dyck("() []")}
# export_model's names for the parameters ↔ the torch tensors they fold (bias_ih is folded in P)
TORCH_NAMES = {"P": "rnn.weight_ih_l0", "U": "rnn.weight_hh_l0", "c": "rnn.bias_hh_l0",
               "R": "readout.weight", "r": "readout.bias"}


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("node is missing (CI=true: `make npm` installs it)")
        pytest.skip("node is missing (apt-get install nodejs; `make npm` does it)")
    return path


def run_js(node: str, body: str, payload=None):
    """Run ``body`` (JavaScript returning a JSON-able value) with the engine as ``E`` and
    ``payload`` as ``input``; return what it returned."""
    script = (
        f"const E = require({json.dumps(str(ENGINE))});\n"
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        f"const output = (() => {{ {body} }})();\n"
        "process.stdout.write(JSON.stringify(output));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def trained_looking(kind: str, options: dict, vocab: Vocab, seed: int = 0):
    """A model moved well away from its initialisation, so that every gate matters."""
    model = build_model(kind, vocab_size=len(vocab), hidden_size=3, seed=seed, **options)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.7 * torch.randn(p.shape, generator=generator))
    return model


def strings_of(language, count: int = 6, seed: int = 3) -> list[list[str]]:
    if isinstance(language, Dyck):
        return [list(s) for s in language.sample(count, seed=seed, length=8)]
    return [list(AnBn.string(n)) for n in range(1, count + 1)]


def torch_loss_and_grads(model, vocab, strings, dtype=torch.float32):
    model = model.to(dtype).train()
    model.zero_grad()
    loss, _, _ = LanguageModelling(vocab).loss(model, make_batch(vocab, strings))
    loss.backward()
    params = dict(model.named_parameters())
    grads = {name: params[torch_name].grad for name, torch_name in TORCH_NAMES.items()}
    grads["P"] = grads["P"].T  # P = W_ih e_x + b_ih: its row x is column x of weight_ih
    return loss.item(), grads


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("option", MODELS)
def test_loss_and_gradients_equal_pytorch(node, option, language):
    lang = LANGUAGES[language]
    vocab = Vocab(lang.alphabet)
    kind, options = MODELS[option]
    spec = export_model(trained_looking(kind, options, vocab), vocab, lang)
    strings = strings_of(lang)
    js = run_js(node, """
        const m = E.importSpec(input.spec);
        const r = E.lossAndGradient(m, E.encode(m.itos, input.strings));
        const grad = Object.entries(r.grad).map(([k, v]) => [k, Array.from(v)]);
        return {loss: r.loss, grad: Object.fromEntries(grad)};
    """, {"spec": spec, "strings": strings})
    model, _ = import_model(spec)  # the exported (float32) weights in PyTorch
    loss, grads = torch_loss_and_grads(model, vocab, strings)
    assert js["loss"] == pytest.approx(loss, rel=1e-5)
    for name, grad in grads.items():
        got = np.array(js["grad"][name]).reshape(grad.shape)
        assert np.allclose(got, grad.numpy(), rtol=1e-4, atol=1e-6), (
            f"{name}: differs by {np.abs(got - grad.numpy()).max():.2e}")


@pytest.mark.parametrize("option", MODELS)
def test_states_and_predictions_equal_pytorch(node, option):
    lang = LANGUAGES["dyck2"]
    vocab = Vocab(lang.alphabet)
    kind, options = MODELS[option]
    spec = export_model(trained_looking(kind, options, vocab), vocab, lang)
    string = list("([()])[]")
    js = run_js(node, "return E.run(E.importSpec(input.spec), input.string);",
                {"spec": spec, "string": string})
    model, _ = import_model(spec)
    trace = model.trace(torch.tensor([vocab.encode(string, bos=True)]))
    for name in ("hidden", "cell") if kind == "lstm" else ("hidden",):
        assert np.allclose(js[name], trace[name][0].numpy(), atol=1e-5), name
    probs = torch.softmax(trace["logits"][0, :, vocab.eos_id:], dim=-1)
    assert np.allclose(js["probs"], probs.numpy(), atol=1e-5)


@pytest.mark.parametrize("option", MODELS)
def test_training_follows_pytorch_step_by_step(node, option):
    """Full-batch Adam with the gradient clipped to norm 1, from the same weights: after 40
    epochs the weights and every epoch's loss are PyTorch's (in float64, where the only
    difference left is the order of additions)."""
    lang = LANGUAGES["anbn"]
    vocab = Vocab(lang.alphabet)
    kind, options = MODELS[option]
    model = build_model(kind, vocab_size=len(vocab), hidden_size=3, seed=5, **options)
    spec = export_model(model, vocab, lang)
    epochs, lr, settings = 40, 0.05, {"language": "anbn", "model": option, "hidden_size": 3,
                                      "range": 6, "lr": 0.05, "seed": 0}
    js = run_js(node, f"""
        const t = new E.Trainer(Object.assign({{initial: input.spec}}, input.settings));
        const losses = [];
        for (let e = 0; e < {epochs}; e++) losses.push(t.step().loss);
        return {{losses, spec: t.exportSpec()}};
    """, {"spec": spec, "settings": settings})

    reference, _ = import_model(spec)
    reference = reference.double().train()
    reference.rnn.bias_ih_l0.requires_grad_(False)  # zero: P holds the whole input drive
    params = [p for p in reference.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=lr)
    batch = make_batch(vocab, [AnBn.string(n) for n in range(1, 7)])
    losses = []
    for _ in range(epochs):
        loss, _, _ = LanguageModelling(vocab).loss(reference, batch)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        losses.append(loss.item())
    assert np.allclose(js["losses"], losses, rtol=1e-6)
    trained, _ = import_model(js["spec"])
    for name, torch_name in TORCH_NAMES.items():
        want = dict(reference.named_parameters())[torch_name].detach()
        got = dict(trained.named_parameters())[torch_name].detach().double()
        assert torch.allclose(got, want, atol=1e-5), f"{name} after {epochs} epochs"


def test_scores_are_the_librarys(node):
    """a^n b^n: which n are right is metrics.anbn_generalisation's answer; Dyck: the top choice
    among the closing brackets and </s> where one of them comes next; the optimum is
    metrics.optimal_loss of the same training strings."""
    anbn = LANGUAGES["anbn"]
    vocab = Vocab(anbn.alphabet)
    for seed in range(3):
        spec = export_model(trained_looking("lstm", {}, vocab, seed), vocab, anbn)
        js = run_js(node, """const m = E.importSpec(input);
                             return Array.from({length: 12}, (_, i) => E.scoreAnbn(m, i + 1));""",
                    spec)
        model, _ = import_model(spec)
        library = anbn_generalisation(model, vocab, 12)["right"]
        assert js == [library[n] for n in range(1, 13)]

    dyck = LANGUAGES["dyck2"]
    vocab = Vocab(dyck.alphabet)
    spec = export_model(trained_looking("gru", {}, vocab), vocab, dyck)
    strings = strings_of(dyck, count=20)
    js = run_js(node, """const m = E.importSpec(input.spec), pairs = [["(", ")"], ["[", "]"]];
                         return input.strings.map(s => E.scoreDyck(m, pairs, s));""",
                {"spec": spec, "strings": strings})
    model, _ = import_model(spec)
    outputs = vocab.output_symbols
    candidates = ["</s>", ")", "]"]
    for string, logits, records in zip(strings, next_symbol_logits(model, vocab, strings), js):
        expected = []
        for t, nxt in enumerate([*string, "</s>"]):
            if nxt in candidates:
                scores = [logits[t, outputs.index(c)] for c in candidates]
                height = sum(1 if s in "([" else -1 for s in string[:t])
                expected.append({"position": t, "depth": height,
                                 "right": candidates[int(np.argmax(scores))] == nxt})
        assert records == expected

    train = run_js(node, """
        return ["anbn", "dyck1", "dyck2"].map(language => {
          const t = new E.Trainer({language, range: 4, seed: 7});
          return {train: t.train, optimum: t.optimum};
        });
    """)
    for data in train:
        assert data["optimum"] == pytest.approx(optimal_loss(data["train"]), rel=1e-12)


def test_dyck_training_strings_are_members_of_the_depths_asked(node):
    data = run_js(node, """
        const t = new E.Trainer({language: "dyck2", range: 5, seed: 2});
        return {train: t.train, probe: t.probe};
    """)
    dyck = LANGUAGES["dyck2"]
    assert len(data["train"]) == 64
    assert all(dyck.is_member(s) for s in data["train"] + data["probe"])
    assert [dyck.depth(s) for s in data["train"][:5]] == [1, 2, 3, 4, 5]
    assert max(dyck.depth(s) for s in data["train"]) == 5
    assert max(dyck.depth(s) for s in data["probe"]) == 8  # three beyond the training range


def test_exported_weights_load_into_pytorch_with_the_same_predictions(node):
    """What the page's "download weights" saves: import_model gives PyTorch the same model."""
    js = run_js(node, """
        const t = new E.Trainer({language: "dyck1", model: "gru", hidden_size: 5, range: 3,
                                 seed: 4});
        for (let e = 0; e < 30; e++) t.step();
        return {spec: t.exportSpec(), run: E.run(t.model, input)};
    """, list("(()(()))"))
    spec = js["spec"]
    assert spec["language"] == {"name": "dyck", "pairs": [["(", ")"]],
                                "label": "the Dyck language of ()"}
    model, vocab = import_model(spec)
    assert (model.kind, model.hidden_size, vocab.alphabet) == ("gru", 5, ("(", ")"))
    trace = model.trace(torch.tensor([vocab.encode("(()(()))", bos=True)]))
    probs = torch.softmax(trace["logits"][0, :, vocab.eos_id:], dim=-1)
    assert np.allclose(js["run"]["probs"], probs.numpy(), atol=1e-5)
    assert np.allclose(js["run"]["hidden"], trace["hidden"][0].numpy(), atol=1e-5)


def test_same_seed_same_run_and_minibatches_are_seeded(node):
    runs = run_js(node, """
        const losses = s => {
          const t = new E.Trainer(s);
          return Array.from({length: 5}, () => t.step().loss);
        };
        return [losses({seed: 1, batch_size: 4}), losses({seed: 1, batch_size: 4}),
                losses({seed: 2, batch_size: 4}), losses({language: "dyck2", seed: 1}),
                losses({language: "dyck2", seed: 1})];
    """)
    assert runs[0] == runs[1] and runs[3] == runs[4]
    assert runs[0] != runs[2]


@pytest.mark.parametrize("settings, named", [
    ({"hidden_size": 0}, "the state size must be a whole number from 1 to 8"),
    ({"hidden_size": 9}, "the state size must be a whole number from 1 to 8"),
    ({"hidden_size": "2.5"}, "the state size must be a whole number from 1 to 8"),
    ({"range": 31}, "the training range (largest n) must be a whole number from 1 to 30"),
    ({"language": "dyck2", "range": 9},
     "the training range (largest depth) must be a whole number from 1 to 8"),
    ({"lr": 0}, "the learning rate must be a number above 0 and at most 1"),
    ({"lr": "fast"}, "the learning rate must be a number above 0 and at most 1"),
    ({"seed": -1}, "the seed must be a whole number"),
    ({"language": "palindromes"}, "unknown language \"palindromes\""),
    ({"model": "urn"}, "unknown model \"urn\""),
    ({"batch_size": 0}, "the batch size must be a whole number from 1"),
    ({"hidden": 3}, "the setting \"hidden\" is now called \"hidden_size\""),  # old names
    ({"batch": 4}, "the setting \"batch\" is now called \"batch_size\""),
])
def test_bad_settings_are_refused_with_a_message_naming_them(node, settings, named):
    message = run_js(node, """try { new E.Trainer(input); return null; }
                              catch (e) { return e.message; }""", settings)
    assert message is not None and named in message


def test_a_foreign_symbol_is_named(node):
    message = run_js(node, """
        const t = new E.Trainer({});
        try { E.run(t.model, ["a", "c"]); return null; } catch (e) { return e.message; }
    """)
    assert message == 'symbol "c" is not in the alphabet a b'
