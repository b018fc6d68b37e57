"""The fractal learning neural network (Tabor 2011): shapes, equations, errors (its trainers are
tested in tests/training/)."""

import pytest
import torch

from course_rnn.languages.tabor import TaborGrammar1, TaborGrammar2
from course_rnn.languages.vocab import Vocab, make_batch
from course_rnn.models.flnn import (
    FLNN,
    IMPOSSIBLE_LOGIT,
    evaluate,
    exact_targets,
    kl_error,
)

G1 = TaborGrammar1()
VOCAB = Vocab(G1.alphabet)


def test_forward_and_trace_shapes():
    model = FLNN(len(VOCAB), hidden_size=2, rbf_size=4, seed=0)
    batch = make_batch(VOCAB, ["a b c", "a a b c b c"])
    trace = model.trace(batch.inputs)
    b, t = batch.inputs.shape
    assert trace["hidden"].shape == (b, t, 2)
    assert trace["rbf"].shape == (b, t, 4)
    assert trace["logits"].shape == (b, t, len(VOCAB))
    assert torch.equal(model(batch.inputs), trace["logits"])
    assert (trace["logits"][..., :2] == IMPOSSIBLE_LOGIT).all()  # <pad>, <s> never come next
    assert model.kind == "flnn" and model.config()["rbf_size"] == 4
    assert model.num_parameters() == 3 + 3 * 2 + 4 * 2 + 4 * 4


def test_hidden_layer_implements_equation_4_and_bos_resets():
    model = FLNN(len(VOCAB), seed=0)
    with torch.no_grad():  # load PDDA 1 (Table 1) into the self-weights and offsets
        model.scale.copy_(torch.tensor([0.5, 1.0, 2.0]))
        model.offset.copy_(torch.tensor([[-1.0, -1.0], [0.0, 2.0], [2.0, -2.0]]))
    sentence = "a b a a b c b c c"
    inputs = torch.tensor([VOCAB.encode(sentence, bos=True)])
    hidden = model.trace(inputs)["hidden"][0]
    from course_rnn.languages.tabor import PDDA1

    expected = torch.tensor(PDDA1().trajectory(sentence), dtype=torch.float32)
    assert torch.allclose(hidden, expected)  # row 0: <s> puts the state at the origin
    # a second <s> in the middle resets to the start state again
    again = model.trace(torch.tensor([VOCAB.encode("a b", bos=True) + [VOCAB.bos_id]]))
    assert torch.equal(again["hidden"][0, -1], torch.zeros(2))


def test_rbf_layer_is_equation_5():
    model = FLNN(len(VOCAB), seed=1, rbf_variance=0.25)
    trace = model.trace(torch.tensor([[1, 3, 4]]))
    z, g = trace["hidden"][0], trace["rbf"][0]
    expected = torch.exp(-((z[:, None] - model.centers[None]) ** 2).sum(-1) / 0.25)
    assert torch.allclose(g, expected)


def test_bad_inputs_and_parameters():
    model = FLNN(len(VOCAB), seed=0)
    with pytest.raises(ValueError, match="out of range"):
        model(torch.tensor([[1, 3, 99]]))
    with pytest.raises(ValueError, match="integer"):
        model(torch.zeros(1, 3))
    with pytest.raises(TypeError):
        model([[1, 3]])
    with pytest.raises(ValueError, match="vocab_size"):
        FLNN(3)
    with pytest.raises(ValueError, match="hidden_size"):
        FLNN(6, hidden_size=0)
    with pytest.raises(ValueError, match="rbf_variance"):
        FLNN(6, rbf_variance=0.0)


def test_same_seed_same_weights():
    a, b = FLNN(len(VOCAB), seed=5), FLNN(len(VOCAB), seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_exact_targets_align_with_batches():
    targets = exact_targets(G1, ["a b c"], VOCAB)
    assert targets.shape == (1, 4, len(VOCAB))
    assert targets[0, 0, VOCAB.index("a")] == 1.0
    assert targets[0, 3, VOCAB.eos_id] == pytest.approx(0.8)
    assert torch.allclose(targets.sum(-1), torch.ones(1, 4))


def test_grammar_2_model_runs():
    g2 = TaborGrammar2()
    vocab = Vocab(g2.alphabet)
    model = FLNN(len(vocab), seed=0)
    scores = evaluate(model, g2, g2.sentences(1), vocab)
    assert scores["positions"] == 2 * 3 and 0 <= scores["percent_correct"] <= 100


def test_public_pieces_equal_the_forward_pass():
    """word_maps() and readout_at() are the model's own eqs. 4-7, step by step."""
    vocab = Vocab("abc")
    model = FLNN(len(vocab), rbf_size=3, seed=1)
    inputs = torch.tensor([vocab.encode("a b c", bos=True)])
    trace = model.trace(inputs)
    s, w = model.word_maps()
    z = model.start.clone()
    for t, x in enumerate(inputs[0]):
        z = w[x] + s[x] * z
        assert torch.allclose(z, trace["hidden"][0, t], atol=1e-6)
    probs = model.readout_at(trace["hidden"][0])
    expected = torch.softmax(trace["logits"][0, :, Vocab.eos_id:], dim=-1)
    assert torch.allclose(probs, expected, atol=1e-6)
    with pytest.raises(ValueError, match=r"states must be \[N, 2\]"):
        model.readout_at(torch.zeros(3))


def test_a_population_is_k_networks_at_once():
    """run_population and kl_error on K weight settings equal K separate networks, and the
    recurrence is eq. 4 written out."""
    vocab = Vocab("abc")
    batch = make_batch(vocab, ["a b c", "a a b c b c", "a b a b c c"])
    targets = exact_targets(G1, ["a b c", "a a b c b c", "a b a b c c"], vocab)
    models = [FLNN(len(vocab), rbf_size=3, seed=s) for s in range(3)]
    for k, m in enumerate(models):
        with torch.no_grad():
            m.scale.copy_(torch.tensor([0.5, 1.1, 1.9]) + 0.1 * k)
            m.offset.normal_(generator=torch.Generator().manual_seed(k))
    stacked = [torch.stack(ws) for ws in zip(*(m.weight_tensors() for m in models))]
    out = models[0].run_population(batch.inputs, *stacked)
    errors = kl_error(out["logits"], targets, batch.mask)
    for k, m in enumerate(models):
        one = m.trace(batch.inputs)
        assert torch.allclose(out["logits"][k], one["logits"], atol=1e-5)
        single = kl_error(one["logits"], targets, batch.mask)
        assert torch.allclose(errors[k], single, rtol=1e-5)
        s, w = m.word_maps()
        z = m.start.expand(batch.inputs.shape[0], 2)
        for t in range(batch.inputs.shape[1]):  # z(t) = w_j + s_j z(t-1)
            x = batch.inputs[:, t]
            z = w[x] + s[x, None] * z
            assert torch.allclose(one["hidden"][:, t], z, atol=1e-5)
    log_o = torch.log_softmax(out["logits"][0], -1)  # the plain layout, symbols last
    by_hand = (targets * (torch.log(targets.clamp_min(1e-30)) - log_o)).sum(-1)
    assert torch.allclose(errors[0], (by_hand * batch.mask).sum(), rtol=1e-4)


def test_scoring_at_tabors_points():
    model = FLNN(len(VOCAB), rbf_size=3, seed=0)
    corpus = G1.training_corpus()
    ours = evaluate(model, G1, corpus, VOCAB)
    tabors = evaluate(model, G1, corpus, VOCAB, after_start=False)
    assert ours["positions"] == 129 + len(corpus) and tabors["positions"] == 129  # Table 4
    assert tabors["rmse"] != ours["rmse"]
