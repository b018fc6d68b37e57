"""SequenceClassifier: the last real hidden state → a label, and its accuracy (training it with
`fit` is tested in tests/training/test_tasks.py)."""

from __future__ import annotations

import pytest
import torch

from course_rnn.languages.vocab import Vocab, make_batch
from course_rnn.models import build_model
from course_rnn.models.classifier import (
    SequenceClassifier,
    classifier_accuracy,
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
    model = build_model("urn", vocab_size=len(VOCAB), hidden_size=4, seed=0)
    clf = SequenceClassifier(model, 2, seed=0)
    batch = make_batch(VOCAB, ["ab", "c"])
    logits = clf(batch.inputs, batch.lengths)
    logits.sum().backward()  # the URN's trace keeps gradients: it can be trained
    assert logits.shape == (2, 2) and model.generators.grad is not None


def test_a_seeded_classifier_leaves_the_global_rng_untouched():
    torch.manual_seed(123)
    expected = torch.rand(1)
    torch.manual_seed(123)
    classifier(seed=5)
    assert torch.equal(torch.rand(1), expected), "building a seeded classifier used the global RNG"


def test_accuracy_by_key_and_probabilities():
    clf = classifier("lstm", hidden=8)
    result = classifier_accuracy(clf, VOCAB, TRAIN, by=[len(s) for s, _ in TRAIN])
    assert result["n"] == len(TRAIN) and set(result["by"]) == set(range(1, 7))
    assert sum(result["count"].values()) == len(TRAIN)
    right = sum(result["by"][k] * result["count"][k] for k in result["by"])
    assert right == pytest.approx(result["accuracy"] * len(TRAIN))
    probs = predict_proba(clf, VOCAB, ["acc", "bcc"])
    assert probs.shape == (2, 2) and torch.allclose(probs.sum(-1), torch.ones(2))


def test_clear_errors():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=4)
    with pytest.raises(TypeError, match="SequenceModel"):
        SequenceClassifier(torch.nn.Linear(2, 2), 2)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SequenceClassifier(model, 1)
    clf = SequenceClassifier(model, 2)
    with pytest.raises(ValueError, match="by has"):
        classifier_accuracy(clf, VOCAB, TRAIN, by=[0])
    batch = make_batch(VOCAB, ["ab"])
    with pytest.raises(ValueError, match="lengths must lie"):
        clf(batch.inputs, torch.tensor([9]))
    with pytest.raises(ValueError, match="lengths"):
        clf(batch.inputs, torch.tensor([1, 2]))
