"""SequenceClassifier: the last real hidden state → a label; fit_classifier and its accuracy."""

from __future__ import annotations

import pytest
import torch

from course_rnn.languages.vocab import Vocab, make_batch
from course_rnn.models import build_model
from course_rnn.models.classifier import (
    SequenceClassifier,
    classifier_accuracy,
    classifier_loss,
    fit_classifier,
    predict_proba,
)

VOCAB = Vocab(["a", "b", "c"])
# label = the FIRST symbol (a → 0, b → 1), with c's after it: the answer lies at the start,
# so the classifier must carry it through the whole string to the last real position
TRAIN = [(first + "c" * k, int(first == "b")) for first in "ab" for k in range(6)] * 4
KINDS = [("srn", {}), ("gru", {}), ("lstm", {}), ("decay_rnn", {"variant": "drnn"}),
         ("decay_rnn", {"variant": "sdrnn"}), ("decay_rnn", {"variant": "abdrnn"})]


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def classifier(kind="lstm", seed=0, hidden=8, **options):
    model = build_model(kind, vocab_size=len(VOCAB), hidden_size=hidden, seed=seed, **options)
    return SequenceClassifier(model, n_classes=2, seed=seed)


@pytest.mark.parametrize("kind,options", KINDS)
def test_features_are_the_state_after_the_last_real_symbol(kind, options):
    clf = classifier(kind, **options).eval()
    batch = make_batch(VOCAB, ["ab", "abccc", "c"])
    with torch.no_grad():
        hidden = clf.model.hidden_states(batch.inputs)
        features = clf.features(batch.inputs, batch.lengths)
        logits = clf(batch.inputs, batch.lengths)
    assert logits.shape == (3, 2)
    for row, n in enumerate(batch.lengths.tolist()):
        assert torch.allclose(features[row], hidden[row, n - 1])
    # padding never leaks in: a string alone gives the same features as inside a padded batch
    alone = make_batch(VOCAB, ["ab"])
    with torch.no_grad():
        single = clf.features(alone.inputs, alone.lengths)
    assert torch.allclose(single[0], features[0], atol=1e-6)


def test_models_without_hidden_states_use_their_trace():
    model = build_model("urn", vocab_size=len(VOCAB), n=4, seed=0)
    clf = SequenceClassifier(model, 2, seed=0)
    batch = make_batch(VOCAB, ["ab", "c"])
    logits = clf(batch.inputs, batch.lengths)
    logits.sum().backward()  # the URN's trace keeps gradients: it can be trained
    assert logits.shape == (2, 2) and model.generators.grad is not None


def test_fit_classifier_learns_a_long_range_label_and_reports_accuracy():
    clf = classifier("lstm", hidden=8)
    before = classifier_loss(clf, VOCAB, TRAIN)
    history = fit_classifier(clf, VOCAB, TRAIN, valid=TRAIN, epochs=12, batch_size=12, lr=0.05,
                             progress=False)
    assert len(history) == 12 and history["epoch"][-1] == 12
    assert classifier_loss(clf, VOCAB, TRAIN) < 0.2 * before
    result = classifier_accuracy(clf, VOCAB, TRAIN, by=[len(s) for s, _ in TRAIN])
    assert result["accuracy"] == 1.0 and result["n"] == len(TRAIN)
    assert set(result["by"]) == set(range(1, 7)) and all(v == 1.0 for v in result["by"].values())
    assert sum(result["count"].values()) == len(TRAIN)
    assert history.last["valid_accuracy"] == pytest.approx(1.0)
    probs = predict_proba(clf, VOCAB, ["acc", "bcc"])
    assert probs.shape == (2, 2) and torch.allclose(probs.sum(-1), torch.ones(2))
    assert probs[0, 0] > 0.5 and probs[1, 1] > 0.5


def test_same_seed_same_numbers_and_the_global_rng_is_untouched():
    runs = []
    for _ in range(2):
        clf = classifier("decay_rnn", seed=3, variant="drnn")
        runs.append(fit_classifier(clf, VOCAB, TRAIN, epochs=2, batch_size=5, seed=7,
                                   progress=False)["train_loss"])
    assert runs[0] == runs[1]
    torch.manual_seed(123)
    expected = torch.rand(1)
    torch.manual_seed(123)
    classifier(seed=5)
    assert torch.equal(torch.rand(1), expected), "building a seeded classifier used the global RNG"


def test_step_metrics_track_alpha_after_every_kth_step():
    clf = classifier("decay_rnn", variant="drnn", alpha_init=0.3)
    history = fit_classifier(
        clf, VOCAB, TRAIN, epochs=2, batch_size=8, lr=0.05, progress=False,
        step_metrics={"alpha": lambda c: c.model.alpha.item()}, step_every=2,
    )
    steps_per_epoch = -(-len(TRAIN) // 8)
    assert len(history.steps) == 1 + (2 * steps_per_epoch) // 2
    alphas = history.step_values("alpha")
    assert alphas[0] == pytest.approx(0.3) and alphas[-1] != pytest.approx(0.3)
    assert [s["step"] for s in history.steps[:3]] == [0, 2, 4]
    assert all(0 < a < 1 for a in alphas)


def test_early_stopping_restores_the_best_weights():
    clf = classifier("srn")
    history = fit_classifier(clf, VOCAB, TRAIN, valid=TRAIN[:6], epochs=40, batch_size=4, lr=0.5,
                             patience=2, progress=False)
    if history.stopped_early:
        assert len(history) < 40
    best = min(history["valid_loss"])
    assert classifier_loss(clf, VOCAB, TRAIN[:6]) == pytest.approx(best, rel=1e-5)


def test_explicit_cpu_device():
    clf = classifier("gru")
    fit_classifier(clf, VOCAB, TRAIN[:4], epochs=1, device="cpu", progress=False)
    assert clf.device.type == "cpu" and next(clf.head.parameters()).device.type == "cpu"


def test_clear_errors():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=4)
    with pytest.raises(TypeError, match="SequenceModel"):
        SequenceClassifier(torch.nn.Linear(2, 2), 2)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SequenceClassifier(model, 1)
    clf = SequenceClassifier(model, 2)
    with pytest.raises(TypeError, match="SequenceClassifier"):
        fit_classifier(model, VOCAB, TRAIN)
    with pytest.raises(ValueError, match="empty"):
        fit_classifier(clf, VOCAB, [], progress=False)
    with pytest.raises(ValueError, match="labels are integers in 0..1"):
        fit_classifier(clf, VOCAB, [("ab", 2)], progress=False)
    with pytest.raises(ValueError, match="labels are integers"):
        fit_classifier(clf, VOCAB, [("ab", True)], progress=False)
    with pytest.raises(ValueError, match=r"\(string, label\) pair"):
        fit_classifier(clf, VOCAB, ["ab"], progress=False)
    with pytest.raises(ValueError, match="vocab_size"):
        fit_classifier(clf, Vocab(["a"]), [("a", 0)], progress=False)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        fit_classifier(clf, VOCAB, [("az", 0)], progress=False)
    with pytest.raises(ValueError, match="epochs"):
        fit_classifier(clf, VOCAB, TRAIN, epochs=0, progress=False)
    with pytest.raises(ValueError, match="by has"):
        classifier_accuracy(clf, VOCAB, TRAIN, by=[0])
    batch = make_batch(VOCAB, ["ab"])
    with pytest.raises(ValueError, match="lengths must lie"):
        clf(batch.inputs, torch.tensor([9]))
    with pytest.raises(ValueError, match="lengths"):
        clf(batch.inputs, torch.tensor([1, 2]))
