"""Formal languages: grammars, generators, recognisers and exact next-symbol sets."""

from .base import EOS, Language, as_symbols
from .vocab import BOS, PAD, Batch, Vocab, iterate_batches, make_batch

__all__ = ["EOS", "BOS", "PAD", "Language", "as_symbols", "Vocab", "Batch", "make_batch",
           "iterate_batches"]
