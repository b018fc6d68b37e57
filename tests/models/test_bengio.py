"""The Bengio et al. (2003) neural n-gram model: shapes, parameters, errors (that it learns:
tests/training/test_tasks.py)."""


import pytest
import torch
from torch.nn import functional as F

from course_rnn.corpus import build_vocab, map_unknown
from course_rnn.models.bengio import BengioMLP, ngram_pairs

SENTENCES = [
    ["the", "cat", "sat", "on", "the", "mat", "."],
    ["the", "dog", "sat", "on", "the", "rug", "."],
    ["a", "cat", "ran", "."],
    ["a", "dog", "ran", "."],
] * 10


@pytest.fixture
def vocab():
    return build_vocab(SENTENCES)


def test_forward_shapes(vocab):
    model = BengioMLP(len(vocab), context=3, embedding_dim=8, hidden_size=5)
    contexts = torch.randint(len(vocab), (7, 3))
    assert model(contexts).shape == (7, len(vocab))
    assert model(contexts[0]).shape == (1, len(vocab))  # one context, no batch axis
    probs = model.predict_proba(contexts)
    assert torch.allclose(probs.sum(-1), torch.ones(7))


def test_parameter_counts_follow_the_equation():
    v, n1, m, h = 100, 4, 6, 5
    base = v * m + (n1 * m * h + h) + h * v + v  # C, H and d, U, b
    assert BengioMLP(v, n1, m, h).num_parameters() == base
    assert BengioMLP(v, n1, m, h, direct=True).num_parameters() == base + v * n1 * m  # + W
    only_direct = BengioMLP(v, n1, m, hidden_size=0, direct=True)  # y = b + W x (the paper's MLP3)
    assert only_direct.num_parameters() == v * m + v * n1 * m + v


def test_output_is_the_equation():
    torch.manual_seed(0)
    model = BengioMLP(11, context=2, embedding_dim=3, hidden_size=4, direct=True)
    contexts = torch.tensor([[1, 5], [7, 7]])
    x = torch.cat([model.C.weight[contexts[:, 0]], model.C.weight[contexts[:, 1]]], dim=1)
    h = torch.tanh(x @ model.H.weight.T + model.H.bias)
    y = model.b + x @ model.W.weight.T + h @ model.U.weight.T
    assert torch.allclose(model(contexts), y, atol=1e-6)


def test_bad_input_is_a_clear_error(vocab):
    model = BengioMLP(len(vocab), context=3, embedding_dim=4, hidden_size=3)
    with pytest.raises(ValueError, match=r"shape \[batch, 3\]"):
        model(torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="integer"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="out of range"):
        model(torch.tensor([[0, 1, len(vocab)]]))
    with pytest.raises(TypeError, match="torch.Tensor"):
        model([[0, 1, 2]])
    with pytest.raises(ValueError, match="hidden_size=0"):
        BengioMLP(10, hidden_size=0, direct=False)
    with pytest.raises(ValueError, match="context"):
        BengioMLP(10, context=0)
    with pytest.raises(ValueError, match="not in the vocabulary.*map_unknown"):
        ngram_pairs([["the", "zebra"]], vocab, context=3)


def test_ngram_pairs_pad_with_bos_and_end_with_eos(vocab):
    contexts, targets = ngram_pairs([["a", "cat"]], vocab, context=2)
    s, a, cat, end = vocab.bos_id, vocab.index("a"), vocab.index("cat"), vocab.eos_id
    assert contexts.tolist() == [[s, s], [s, a], [a, cat]]
    assert targets.tolist() == [a, cat, end]
    assert len(ngram_pairs(SENTENCES, vocab, 4)[1]) == sum(len(s) + 1 for s in SENTENCES)


def test_unknown_words_can_be_mapped_first():
    vocab = build_vocab(SENTENCES, min_count=15)  # only the frequent words survive
    contexts, targets = ngram_pairs(map_unknown([["the", "zebra", "."]], vocab), vocab, 2)
    assert vocab.index("<unk>") in targets.tolist()

def test_config_rebuilds_the_model():
    model = BengioMLP(50, context=2, embedding_dim=4, hidden_size=3, direct=True)
    clone = BengioMLP(**model.config())
    assert clone.num_parameters() == model.num_parameters()
    clone.load_state_dict(model.state_dict())


@pytest.mark.parametrize("direct, hidden, chunk", [(False, 5, 3), (True, 5, 4), (True, 0, 64),
                                                   (False, 5, None)])
def test_chunked_loss_is_cross_entropy_with_the_same_gradients(direct, hidden, chunk):
    torch.manual_seed(0)
    model = BengioMLP(23, context=3, embedding_dim=4, hidden_size=hidden, direct=direct)
    torch.nn.init.normal_(model.b)  # a non-zero bias, so that its gradient is tested too
    contexts, targets = torch.randint(23, (10, 3)), torch.randint(23, (10,))
    reference = F.cross_entropy(model.scores(contexts), targets)
    reference.backward()
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad()
    loss = model.nll(contexts, targets, chunk=chunk)
    loss.backward()
    assert loss.item() == pytest.approx(reference.item(), rel=1e-6)
    for name, p in model.named_parameters():
        assert torch.allclose(p.grad, expected[name], atol=1e-7), name
    with torch.no_grad():  # evaluation: the loss alone
        assert model.nll(contexts, targets, chunk=chunk).item() == pytest.approx(reference.item(),
                                                                                rel=1e-6)


def test_the_hidden_size_has_the_name_of_every_model():
    model = BengioMLP(20, context=2, embedding_dim=3, hidden_size=4)
    assert model.hidden_size == 4 and model.config()["hidden_size"] == 4
    assert "hidden" not in model.config()
    assert BengioMLP(20).hidden_size == 50  # the paper's MLP1 size
    with pytest.raises(TypeError, match="hidden"):
        BengioMLP(20, hidden=4)  # no shim: no checkpoint was ever saved under the old name
