"""Truncated BPTT on a stream: the layout keeps the stream in order, carrying the state across
windows reads the stream exactly as one long pass would, ``fit`` with the task is the loop a
learner writes by hand, and bad input is named."""

import math

import pytest
import torch
from torch.nn import functional as F

from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.training import Target, fit
from course_rnn.training.stream import (
    StreamModelling,
    detach_state,
    stream_layout,
    stream_loss,
)

VOCAB = Vocab("abc")
STREAM = tuple("abcab" * 9 + "cba")  # 48 words


def model(kind="srn", seed=0, hidden=6):
    return build_model(kind, vocab_size=len(VOCAB), hidden_size=hidden, seed=seed)


@pytest.mark.parametrize("streams, chunk", [(1, 5), (3, 5), (4, 7), (48, 1), (5, 48)])
def test_layout_keeps_the_stream_in_order(streams, chunk):
    ids = torch.tensor(VOCAB.encode(STREAM, bos=True))
    inputs, targets, mask = stream_layout(ids, streams, chunk)
    assert inputs.shape == targets.shape == mask.shape
    assert inputs.shape[0] == streams and inputs.shape[1] % chunk == 0
    # read row by row, the real positions are the stream: inputs <s> w1 … w47, targets w1 … w48
    assert inputs[mask].tolist() == ids[:-1].tolist()
    assert targets[mask].tolist() == ids[1:].tolist()
    # each row is one contiguous part: padding only at its end
    for row in mask:
        n = int(row.sum())
        assert row[:n].all() and not row[n:].any()


@pytest.mark.parametrize("kind", ["srn", "gru", "lstm"])
@pytest.mark.parametrize("streams", [1, 3])
def test_carrying_the_state_equals_one_long_pass(kind, streams):
    """Evaluation with the state carried across windows = reading each part in one go."""
    net = model(kind).eval()
    ids = torch.tensor(VOCAB.encode(STREAM, bos=True))
    inputs, targets, mask = stream_layout(ids, streams, chunk=7)
    with torch.no_grad():
        logits, _ = net.run(inputs)
        losses = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    whole = float((losses * mask).sum() / mask.sum())
    assert stream_loss(net, VOCAB, STREAM, chunk=7, streams=streams) == pytest.approx(whole,
                                                                                     abs=1e-6)


def test_resetting_the_state_would_differ():
    """What carrying buys: with the state reset at every window the loss is another number."""
    net = model("lstm").eval()
    carried = stream_loss(net, VOCAB, STREAM, chunk=4, streams=1)
    ids = torch.tensor(VOCAB.encode(STREAM, bos=True))
    inputs, targets, mask = stream_layout(ids, 12, 4)  # twelve parts of 4: every window alone
    with torch.no_grad():
        logits, _ = net.run(inputs)
    reset = float((F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
                   * mask).sum() / mask.sum())
    assert abs(carried - reset) > 1e-4


@pytest.mark.parametrize("kind", ["srn", "lstm"])
def test_fit_is_the_hand_written_loop(kind):
    """One epoch of ``fit`` with the task = the truncated-BPTT loop of the module docstring."""
    chunk, streams, lr = 5, 2, 0.05
    by_fit = model(kind, seed=3)
    history = fit(by_fit, StreamModelling(VOCAB, chunk), STREAM, epochs=1, batch_size=streams,
                  lr=lr, clip=1.0, seed=0, progress=False, device="cpu",  # the loop's device
                  until=Target("train_loss", 0.0, mode="min"))
    by_hand = model(kind, seed=3)
    optimizer = torch.optim.Adam(by_hand.parameters(), lr=lr)
    ids = torch.tensor(VOCAB.encode(STREAM, bos=True))
    inputs, targets, mask = stream_layout(ids, streams, chunk)
    state, losses = None, []
    by_hand.train()
    for start in range(0, inputs.shape[1], chunk):
        window = slice(start, start + chunk)
        logits, state = by_hand.run(inputs[:, window], state)
        each = F.cross_entropy(logits.transpose(1, 2), targets[:, window], reduction="none")
        loss = (each * mask[:, window]).sum() / mask[:, window].sum()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(by_hand.parameters(), 1.0)
        optimizer.step()
        state = detach_state(state)
        losses.append((float(loss.detach()), int(mask[:, window].sum())))
    assert history.convergence.steps == len(losses) == math.ceil(len(STREAM) / (chunk * streams))
    for (name, a), b in zip(by_fit.named_parameters(), by_hand.parameters()):
        assert torch.allclose(a, b, atol=1e-6), name
    mean = sum(v * n for v, n in losses) / sum(n for _, n in losses)
    assert history["train_loss"][0] == pytest.approx(mean, rel=1e-5)


def test_fit_learns_a_periodic_stream_and_validates_on_another():
    train, valid = tuple("abc" * 60), tuple("abc" * 20)
    net = model("srn", hidden=8)
    history = fit(net, StreamModelling(VOCAB, chunk=6, eval_streams=2), train, valid=valid,
                  epochs=80, batch_size=4, lr=0.05, seed=0, progress=False,
                  until=Target("valid_loss", 0.05, mode="min"))
    assert history.converged and history["valid_loss"][-1] <= 0.05
    assert stream_loss(net, VOCAB, valid, chunk=6, streams=2) == pytest.approx(
        min(history["valid_loss"]), rel=1e-5)  # the best weights were restored


def test_detach_state_cuts_the_history():
    h = torch.ones(1, 2, 3, requires_grad=True) * 2
    assert not detach_state(h).requires_grad
    h_c = detach_state((h, h + 1))
    assert isinstance(h_c, tuple) and not any(t.requires_grad for t in h_c)


@pytest.mark.parametrize("data, error, message", [
    ((), ValueError, "stream is empty"),
    ("abc", TypeError, "sequence of words"),
    (tuple("abz"), ValueError, "'z'"),
])
def test_bad_streams_are_named(data, error, message):
    with pytest.raises(error, match=message):
        StreamModelling(VOCAB).prepare(data)


def test_bad_settings_and_models_are_named():
    with pytest.raises(ValueError, match="chunk"):
        StreamModelling(VOCAB, chunk=0)
    with pytest.raises(ValueError, match="eval_streams"):
        StreamModelling(VOCAB, eval_streams=1.5)
    with pytest.raises(TypeError, match="Vocab"):
        StreamModelling("abc")
    with pytest.raises(TypeError, match="run"):
        StreamModelling(VOCAB).check_model(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="vocab_size"):
        StreamModelling(Vocab("ab")).check_model(model())
