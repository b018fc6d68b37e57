"""Tabor's gradient-sampling climber: a strict descent, one weight at a time, that shrinks its
radius when flat and says whether it converged."""

import pytest
import torch

from course_rnn.languages import TaborGrammar1, Vocab
from course_rnn.models.flnn import FLNN, evaluate
from course_rnn.training import ExactDistributions, hill_climb

G1 = TaborGrammar1()
VOCAB = Vocab(G1.alphabet)
TASK = ExactDistributions(G1, VOCAB)


def test_a_strict_descent_whose_kept_weights_are_the_best_found():
    model = FLNN(len(VOCAB), seed=0)
    corpus = G1.sentences(2)
    before = evaluate(model, G1, corpus, VOCAB)["kl_per_position"]
    history = hill_climb(model, TASK, corpus, max_steps=15, radii=0.01, seed=0)
    after = evaluate(model, G1, corpus, VOCAB)["kl_per_position"]
    losses = history["train_loss"]
    assert len(history) == 15 and after < before
    assert all(x > y for x, y in zip(losses, losses[1:]))
    assert after == pytest.approx(losses[-1], rel=1e-4)
    record = history.convergence
    assert not record.converged and record.stopped == "budget spent"
    assert "cap of 15 moves" in record.reason


def test_climbing_until_flat_at_every_radius_converges():
    model = FLNN(len(VOCAB), seed=0)
    corpus = G1.sentences(1)
    history = hill_climb(model, TASK, corpus, max_steps=50_000, radii=(0.2, 0.05), target=0.0)
    record = history.convergence
    assert record.converged and record.stopped == "criterion met"
    assert "flat at the smallest radius 0.05" in record.reason
    radii = history["radius"]
    assert radii[0] == 0.2 and radii[-1] == 0.05
    assert radii == sorted(radii, reverse=True)  # the radius only shrinks
    # flat means flat: no single ±0.05 move lowers the error from the weights kept
    flat = torch.cat([p.detach().reshape(-1) for p in model.weight_tensors()])
    again = FLNN(len(VOCAB), seed=0)
    hill_climb(again, TASK, corpus, max_steps=len(history), radii=(0.2, 0.05), target=0.0)
    assert torch.allclose(flat, torch.cat([p.detach().reshape(-1)
                                           for p in again.weight_tensors()]))


def test_random_directions_and_bad_arguments():
    corpus = G1.sentences(2)
    before = evaluate(FLNN(len(VOCAB), seed=0), G1, corpus, VOCAB)["kl_per_position"]
    sampled = hill_climb(FLNN(len(VOCAB), seed=0), TASK, corpus, max_steps=5, radii=0.01,
                         directions=4, seed=1)
    assert sampled["train_loss"][-1] < before
    model = FLNN(len(VOCAB), seed=0)
    for options, message in [({"directions": 0}, "directions"),
                             ({"directions": 10_000}, "at most"),
                             ({"max_steps": 0}, "max_steps"),
                             ({"radii": (0.01, 0.02)}, "shrink"),
                             ({"radii": -0.1}, "radii"),
                             ({"target": -1}, "target")]:
        with pytest.raises(ValueError, match=message):
            hill_climb(model, TASK, corpus, **options)
    with pytest.raises(TypeError, match="ExactDistributions"):
        hill_climb(model, VOCAB, corpus)
