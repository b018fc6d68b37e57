"""The shared fit loop: it learns, it is reproducible, it stops early, checkpoints round-trip."""

import pytest
import torch

from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.training import evaluate_loss, fit, load_checkpoint, perplexity, save_checkpoint

PERIODIC = ["ab" * n for n in range(1, 8)]


def small_lstm(seed=0):
    torch.manual_seed(seed)
    return build_model("lstm", vocab_size=len(Vocab("ab")), hidden_size=8)


def test_fit_lowers_the_loss_and_keeps_a_history():
    vocab = Vocab("ab")
    model = small_lstm()
    before = evaluate_loss(model, vocab, PERIODIC)
    history = fit(model, vocab, PERIODIC, epochs=25, batch_size=4, lr=0.05, progress=False)
    after = evaluate_loss(model, vocab, PERIODIC)
    assert len(history) == 25 and history["epoch"] == list(range(1, 26))
    assert after < 0.5 * before
    assert history.last["train_loss"] == pytest.approx(history["train_loss"][-1])
    # a periodic language with a known length distribution: perplexity close to 1 at the
    # deterministic positions, so well below the 5 symbols of the vocabulary
    assert perplexity(model, vocab, PERIODIC) < 2.0


def test_same_seed_same_numbers():
    vocab = Vocab("ab")
    runs = []
    for _ in range(2):
        model = small_lstm(seed=1)
        runs.append(fit(model, vocab, PERIODIC, epochs=3, batch_size=3, seed=5, progress=False))
    assert runs[0]["train_loss"] == runs[1]["train_loss"]


def test_metrics_are_recorded_every_epoch():
    vocab = Vocab("ab")
    calls = []
    history = fit(
        small_lstm(), vocab, PERIODIC, epochs=2, progress=False,
        metrics={"calls": lambda m: calls.append(1) or len(calls)},
    )
    assert history["calls"] == [1.0, 2.0]


def test_early_stopping_restores_the_best_weights():
    vocab = Vocab("ab")
    model = small_lstm()
    # a huge learning rate makes validation loss bounce, so patience 1 stops early
    history = fit(model, vocab, PERIODIC, valid=["ba", "bb"], epochs=30, lr=0.5,
                  patience=1, progress=False)
    assert history.stopped_early and len(history) < 30
    best = min(history["valid_loss"])
    assert evaluate_loss(model, vocab, ["ba", "bb"]) == pytest.approx(best, rel=1e-5)


def test_bad_input_is_named():
    vocab = Vocab("ab")
    with pytest.raises(ValueError, match="empty"):
        fit(small_lstm(), vocab, [], progress=False)
    with pytest.raises(ValueError, match="'x'"):
        fit(small_lstm(), vocab, ["axb"], progress=False)
    with pytest.raises(ValueError, match="vocab_size"):
        fit(small_lstm(), Vocab("abc"), ["ab"], progress=False)
    with pytest.raises(ValueError, match="unknown optimizer"):
        fit(small_lstm(), vocab, ["ab"], optimizer="magic", progress=False)
    with pytest.raises(TypeError, match="SequenceModel"):
        fit(torch.nn.Linear(2, 2), vocab, ["ab"], progress=False)


def test_checkpoint_round_trip(tmp_path):
    vocab = Vocab("ab")
    model = small_lstm()
    fit(model, vocab, PERIODIC, epochs=2, progress=False)
    path = save_checkpoint(model, vocab, tmp_path / "lstm.pt")
    loaded, loaded_vocab = load_checkpoint(path, device="cpu")
    assert loaded_vocab.alphabet == vocab.alphabet
    x = torch.tensor([[1, 3, 4, 3]])
    assert torch.allclose(loaded(x), model.cpu()(x))
    # plain tensors and Python types only: loads with weights_only=True
    torch.load(path, weights_only=True)
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")


def test_unknown_model_kind_lists_the_choices():
    with pytest.raises(ValueError, match="lstm"):
        build_model("transformer", vocab_size=3)
