"""The shared tokenisation and batching layer."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages import BOS, EOS, PAD, Vocab, as_symbols, iterate_batches, make_batch


def test_reserved_indices_come_first():
    v = Vocab("ab")
    assert v.itos[:3] == [PAD, BOS, EOS]
    assert (v.pad_id, v.bos_id, v.eos_id) == (0, 1, 2)
    assert v.output_symbols == (EOS, "a", "b")
    assert len(v) == 5


def test_as_symbols_splits_words_or_characters():
    assert as_symbols("aabb") == ("a", "a", "b", "b")
    assert as_symbols("the dog runs") == ("the", "dog", "runs")
    assert as_symbols(["(", ")"]) == ("(", ")")
    assert as_symbols("") == ()


@pytest.mark.parametrize("bad", [["a", 3], 42])
def test_as_symbols_rejects_non_strings(bad):
    with pytest.raises(TypeError):
        as_symbols(bad)


def test_foreign_symbol_is_named():
    with pytest.raises(ValueError, match="'x'"):
        Vocab("ab").encode("abx")


@pytest.mark.parametrize("alphabet", [[], ["a", "a"], ["a", EOS]])
def test_bad_alphabets(alphabet):
    with pytest.raises(ValueError):
        Vocab(alphabet)


def test_decode_rejects_out_of_range():
    with pytest.raises(ValueError, match="outside"):
        Vocab("ab").decode([7])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(alphabet="ab", max_size=12), min_size=1, max_size=8))
def test_batch_is_a_shifted_copy_of_the_strings(strings):
    v = Vocab("ab")
    batch = make_batch(v, strings)
    for row, s in enumerate(strings):
        n = len(s) + 1
        assert batch.lengths[row] == n
        assert v.decode(batch.inputs[row, :n]) == (BOS, *s)
        assert v.decode(batch.targets[row, :n]) == (*s, EOS)
        assert batch.mask[row].sum() == n
        assert torch.all(batch.targets[row, n:] == v.pad_id)


def test_empty_batch_and_corpus_are_errors():
    v = Vocab("ab")
    with pytest.raises(ValueError, match="zero strings"):
        make_batch(v, [])
    with pytest.raises(ValueError, match="empty corpus"):
        list(iterate_batches(v, [], 4))


def test_batches_cover_every_string_once_and_are_reproducible():
    v = Vocab("ab")
    strings = ["a" * i for i in range(10)]
    first = [b.lengths.tolist() for b in iterate_batches(v, strings, 3, seed=1)]
    again = [b.lengths.tolist() for b in iterate_batches(v, strings, 3, seed=1)]
    other = [b.lengths.tolist() for b in iterate_batches(v, strings, 3, seed=2)]
    assert first == again != other
    assert sorted(sum(first, [])) == list(range(1, 11))
