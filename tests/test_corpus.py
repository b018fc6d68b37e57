"""The vendored English corpus: it loads, it is big enough, and splits and vocabularies behave."""

import lzma

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.corpus import (
    UNK,
    build_vocab,
    load_corpus,
    map_unknown,
    read_corpus,
    split_corpus,
)


@pytest.fixture(scope="module")
def austen():
    return load_corpus("austen")


def test_austen_is_a_real_corpus_of_at_least_700k_words(austen):
    tokens = [t for sentence in austen for t in sentence]
    words = [t for t in tokens if t[0].isalnum()]
    assert len(words) >= 700_000
    assert len(austen) > 30_000
    assert all(t == t.lower() for t in tokens[:50_000])
    assert austen[0][:4] == ["the", "family", "of", "dashwood"]  # Sense and Sensibility, ch. 1
    assert austen[-1][-1] == "."


def test_unknown_corpus_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown corpus 'brown'.*austen"):
        load_corpus("brown")


def test_read_corpus_reads_compressed_files_and_rejects_empty_ones(tmp_path):
    path = tmp_path / "tiny.txt.xz"
    path.write_bytes(lzma.compress(b"a b .\n\nc d !\n"))
    assert read_corpus(path) == [["a", "b", "."], ["c", "d", "!"]]
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    with pytest.raises(ValueError, match="no sentences"):
        read_corpus(empty)


def test_split_is_reproducible_disjoint_and_complete(austen):
    sentences = austen[:3000]
    train, valid, test = split_corpus(sentences, seed=7)
    again = split_corpus(sentences, seed=7)
    assert (train, valid, test) == again
    assert split_corpus(sentences, seed=8)[0] != train
    assert (len(train), len(valid), len(test)) == (2400, 300, 300)
    # disjoint and complete as positions: tag each sentence with its index first
    tagged = [[str(i), *s] for i, s in enumerate(sentences)]
    parts = [{s[0] for s in part} for part in split_corpus(tagged, seed=7)]
    assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert set.union(*parts) == {str(i) for i in range(len(sentences))}


@settings(max_examples=30, deadline=None)
@given(n=st.integers(10, 200), seed=st.integers(0, 2**16), a=st.floats(0.1, 0.8))
def test_split_sizes_follow_the_fractions(n, seed, a):
    sentences = [[f"w{i}"] for i in range(n)]
    fractions = (a, (1 - a) / 2, (1 - a) / 2)
    train, valid, test = split_corpus(sentences, seed=seed, fractions=fractions)
    assert len(train) + len(valid) + len(test) == n
    assert abs(len(train) - a * n) <= 1


def test_split_rejects_bad_input():
    with pytest.raises(ValueError, match="fractions"):
        split_corpus([["a"]] * 10, seed=0, fractions=(0.5, 0.6, 0.1))
    with pytest.raises(ValueError, match="too few"):
        split_corpus([["a"], ["b"]], seed=0)
    with pytest.raises(ValueError, match="empty"):
        split_corpus([], seed=0)
    with pytest.raises(TypeError, match="list of tokens"):
        split_corpus(["the cat sat", "a dog ran"], seed=0)


def test_build_vocab_keeps_frequent_words_and_maps_the_rest_to_unk():
    sentences = [["the", "cat", "sat"], ["the", "dog", "sat"], ["the", "cat", "ran"]]
    vocab = build_vocab(sentences, min_count=2)
    assert vocab.alphabet == (UNK, "the", "cat", "sat")  # most frequent first
    assert vocab.index(UNK) == 3
    assert map_unknown(sentences, vocab)[1] == ["the", UNK, "sat"]
    assert build_vocab(["a", "b", "a"]).alphabet == (UNK, "a", "b")  # a flat token list works
    assert len(build_vocab(sentences, min_count=1)) == 3 + 1 + 5


def test_build_vocab_rejects_bad_input():
    with pytest.raises(ValueError, match="min_count"):
        build_vocab([["a"]], min_count=0)
    with pytest.raises(ValueError, match="no tokens"):
        build_vocab([])


def test_austen_vocabulary_at_min_count_3(austen):
    train, _, _ = split_corpus(austen, seed=0)
    vocab = build_vocab(train, min_count=3)
    assert 5_000 < len(vocab) < 10_000
    assert vocab.alphabet[:4] == (UNK, ",", ".", "the")
