"""Bengio et al. (2003)'s figures that chapter 1 compares with: Table 1's test perplexities on
the Brown corpus and §4's set-up (typed in from the paper)."""

#: the rows that chapter 1 discusses (as on Levy's 2023 slide). n = context + 1 words,
#: h hidden units, m embedding size:
#:
#: ==========================================================  =====
#: model                                                       test
#: ==========================================================  =====
#: Kneser–Ney back-off 3-gram                                    323
#: Kneser–Ney back-off 4-gram                                    321
#: Kneser–Ney back-off 5-gram                                    321
#: class-based back-off 3-gram, 500 classes (best n-gram)        312
#: MLP1: n=5, h=50, m=60, direct connections                     268
#: MLP9: n=5, h=100, m=30, no direct connections                 276
#: MLP10: MLP9 mixed (averaged) with an interpolated trigram     252
#: ==========================================================  =====
PAPER_KN = {3: 323, 4: 321, 5: 321}
PAPER_CLASS_BASED = 312
PAPER_MLP = {"direct": ("MLP1: n=5, h=50, m=60", 268), "no direct": ("MLP9: n=5, h=100, m=30", 276)}
PAPER_MIXTURE = 252
#: §4: the first 800,000 words of Brown trained on; "convergence of the stochastic gradient
#: ascent procedure was obtained after around 10 to 20 epochs"; words of frequency ≤ 3 merged,
#: leaving a vocabulary of 16,383 symbols.
BROWN_TRAIN_WORDS = 800_000
BROWN_EPOCHS = (10, 20)
BROWN_VOCAB = 16_383
# "frequency ≤ 3" merged: a word is kept when seen at least 4 times (BROWN_MIN_COUNT, defined in
# .settings so that the settings are read without importing this package: the CLI checks --set)
from .settings import BROWN_MIN_COUNT as BROWN_MIN_COUNT  # noqa: E402
