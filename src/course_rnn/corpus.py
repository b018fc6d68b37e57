"""Real English for chapter 1: a vendored corpus, a reproducible split, and a closed vocabulary.

The corpus ships inside the package (``course_rnn/data/``), so nothing is downloaded at run
time. It is Jane Austen's six novels, lowercased and tokenised into words and punctuation, one
sentence per line (``data/README.md`` says where it comes from and how it was cleaned;
``scripts/make_corpus.py`` made it)::

    sentences = load_corpus("austen")                 # list of token lists
    train, valid, test = split_corpus(sentences, seed=0)
    vocab = build_vocab(train, min_count=3)           # rarer words will read as <unk>
    train = map_unknown(train, vocab)

Like Bengio et al. (2003) on the Brown corpus, words seen fewer than ``min_count`` times in the
training text are merged into one symbol, ``<unk>``; validation and test words the training text
never saw become ``<unk>`` too. Perplexities are only comparable between models that share the
same vocabulary.
"""

from __future__ import annotations

import gzip
import lzma
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib import resources
from numbers import Real
from pathlib import Path

import numpy as np

from .checks import check_positive, check_seed
from .languages.vocab import Vocab
from .utils import shift_seed

UNK = "<unk>"

#: corpus name → (file in ``course_rnn/data``, description)
CORPORA = {
    "austen": ("austen.txt.xz", "Jane Austen's six novels, 33K sentences, 828K tokens"),
}

Sentence = list[str]


def read_corpus(path: str | Path) -> list[Sentence]:
    """Sentences from a text file (plain, ``.xz`` or ``.gz``): one per line, tokens split on
    whitespace, blank lines skipped."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no corpus file at {path}")
    opener = {".xz": lzma.open, ".gz": gzip.open}.get(path.suffix, open)
    with opener(path, "rt", encoding="utf-8") as f:
        sentences = [line.split() for line in f if line.strip()]
    if not sentences:
        raise ValueError(f"the corpus file {path} holds no sentences")
    return sentences


def load_corpus(name: str = "austen") -> list[Sentence]:
    """The vendored corpus ``name`` as a list of sentences (each a list of lowercase tokens)."""
    if not isinstance(name, str) or name not in CORPORA:
        raise ValueError(f"unknown corpus {name!r}: choose one of {', '.join(CORPORA)}")
    filename, _ = CORPORA[name]
    with resources.as_file(resources.files("course_rnn") / "data" / filename) as path:
        return read_corpus(path)


def check_sentences(sentences: Sequence[Sequence[str]], what: str = "sentences") -> None:
    """Clear errors for the usual mix-ups: a bare string, or one string per sentence."""
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError(f"{what} must be a list of token lists, got {type(sentences).__name__}")
    if len(sentences) == 0:
        raise ValueError(f"{what} is empty")
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, Sequence):
            raise TypeError(
                f"sentence {i} must be a list of tokens (e.g. line.split()), "
                f"got {type(sentence).__name__}: {sentence!r:.60}"
            )


def split_corpus(
    sentences: Sequence[Sentence],
    seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
) -> tuple[list[Sentence], list[Sentence], list[Sentence]]:
    """Shuffle the sentences with ``seed`` and cut them into (train, valid, test).

    Sentences, not running text, are shuffled, so every split mixes all six novels. The three
    parts are disjoint (as positions in ``sentences``) and together hold every sentence.
    """
    check_sentences(sentences)
    check_seed(seed)
    if isinstance(fractions, str) or not isinstance(fractions, Sequence) or len(fractions) != 3 \
            or not all(isinstance(f, Real) and not isinstance(f, bool) and 0 <= f <= 1
                       for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1: {fractions}")
    order = np.random.default_rng(shift_seed(seed)).permutation(len(sentences))
    n_train = round(fractions[0] * len(sentences))
    n_valid = round(fractions[1] * len(sentences))
    cuts = (order[:n_train], order[n_train : n_train + n_valid], order[n_train + n_valid :])
    for part, fraction, indices in zip(("train", "valid", "test"), fractions, cuts):
        if fraction > 0 and len(indices) == 0:
            raise ValueError(
                f"{len(sentences)} sentences are too few: the {part} part would be empty"
            )
    return tuple([list(sentences[i]) for i in indices] for indices in cuts)


def count_tokens(tokens: Iterable[str] | Iterable[Sequence[str]]) -> Counter:
    """Token counts of a flat token sequence or of a list of sentences."""
    if isinstance(tokens, str) or not isinstance(tokens, Iterable):
        raise TypeError(f"tokens must be a list of tokens or of sentences, got "
                        f"{type(tokens).__name__}: {tokens!r:.60}")
    tokens = list(tokens)
    if tokens and not isinstance(tokens[0], str):
        check_sentences(tokens)
        tokens = [t for sentence in tokens for t in sentence]
    odd = next((t for t in tokens if not isinstance(t, str)), None)
    if odd is not None:
        raise TypeError(f"tokens must be strings, got {odd!r} ({type(odd).__name__})")
    return Counter(tokens)


def build_vocab(tokens: Iterable[str] | Sequence[Sentence], min_count: int = 1) -> Vocab:
    """A :class:`~course_rnn.languages.vocab.Vocab` of the words seen at least ``min_count``
    times, most frequent first, plus :data:`UNK` for all the others.

    ``tokens`` is a flat token sequence or a list of sentences (pass the training part only).
    Indices: ``<pad>``=0, ``<s>``=1, ``</s>``=2, ``<unk>``=3, then the words.
    """
    check_positive(min_count, "min_count")
    counts = count_tokens(tokens)
    if not counts:
        raise ValueError("cannot build a vocabulary from no tokens")
    counts.pop(UNK, None)  # a text that was already mapped keeps one <unk>
    kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    return Vocab([UNK, *kept])


def map_unknown(sentences: Sequence[Sentence], vocab: Vocab) -> list[Sentence]:
    """``sentences`` with every token that ``vocab`` lacks replaced by :data:`UNK`."""
    check_sentences(sentences)
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab (from build_vocab), got {type(vocab).__name__}")
    if UNK not in vocab:
        raise ValueError(f"the vocabulary has no {UNK!r} symbol: build it with build_vocab")
    known = vocab.stoi
    return [[t if t in known else UNK for t in sentence] for sentence in sentences]
