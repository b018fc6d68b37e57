"""How the course scores a trained language model on a formal language.

All metrics look at the model's next-symbol predictions, restricted to the symbols that can
actually come next in a string (``EOS`` and the alphabet; never ``<pad>`` or ``<s>``):

* :func:`next_symbol_validity` – is the top prediction a legal continuation (``valid_next``)?
* :func:`anbn_generalisation` – for a^n b^n: the largest n up to which *every* deterministic
  prediction (the b's after the first b, and the end) is right.
* :func:`dyck_closing_accuracy` – Bernardy & Lappin: at each position whose next symbol is a
  closing bracket, is the argmax over the closing brackets the right one? Reported by number of
  attractors, by the nesting inside the pair and by the depth outside it
  (:func:`pooled_accuracy` pools a range of them).
* :func:`cross_serial_accuracy` – Bernardy & Lappin 2023's whole-string criterion.
* :func:`agreement_accuracy` – does the model prefer the verb form that agrees with the subject?
  Reported by number of attractors (Linzen et al. 2016).

And one number about the data rather than the model: :func:`optimal_loss`, the lowest training
loss any language model can reach on a corpus – what "has fitted its training set" means; and
two about a score over several seeds: :func:`mean_se` and :func:`mean_interval` (the mean and
its Student-t interval, what "as accurate as" is judged by).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import torch

from .checks import check_callable, check_items, check_positive
from .languages.base import EOS, as_symbols
from .languages.vocab import Vocab, make_batch


@torch.no_grad()
def next_symbol_logits(model, vocab: Vocab, strings: Sequence, batch_size: int = 512) -> list:
    """For each string ``w1 … wn`` a numpy array ``[n + 1, len(vocab.output_symbols)]`` of logits:
    row ``t`` scores the symbol after ``w1 … wt`` over ``vocab.output_symbols`` (EOS first)."""
    check_scoring(model, vocab, strings)
    check_positive(batch_size, "batch_size")
    model.eval()
    first = vocab.eos_id  # output symbols are EOS followed by the alphabet, contiguous indices
    out = []
    for start in range(0, len(strings), batch_size):
        chunk = strings[start : start + batch_size]
        batch = make_batch(vocab, chunk).to(model.device)
        logits = model(batch.inputs)[..., first:].float().cpu().numpy()
        out.extend(logits[i, : int(n)] for i, n in enumerate(batch.lengths))
    return out


def check_scoring(model, vocab: Vocab, strings: Sequence, what: str = "strings") -> None:
    """Clear errors for what the scores below are given: a model (a torch module), a
    :class:`Vocab`, and a non-empty list of strings (a bare string is one string, not a list)."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a trained model (a torch.nn.Module), got "
                        f"{type(model).__name__}")
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}")
    if len(check_items(strings, what, empty=True)) == 0:
        raise ValueError(f"{what}: no strings to score")


def _check_language(language, what: str, needs: tuple[str, ...]) -> None:
    """A TypeError naming ``what`` when ``language`` lacks what the score asks of it (None, a
    string, a language of another kind)."""
    missing = [n for n in needs if not hasattr(language, n)]
    if missing:
        raise TypeError(f"{what} must be a language object (with {', '.join(needs)}), got "
                        f"{type(language).__name__}: {language!r:.60}")


def optimal_loss(strings: Sequence) -> float:
    """The exact minimum of the mean next-symbol cross-entropy (nats per symbol, EOS included)
    on ``strings``: the conditional entropy of the next symbol given the whole prefix, under the
    corpus' own distribution,

        L* = (1/N) Σ_prefixes c(prefix) · H(next | prefix),

    ``c(prefix)``: how many strings of the corpus start with it, ``N``: predicted symbols. A model
    that sees the whole prefix can reach ``L*`` and none can go below it, so a training loss
    within a small tolerance of ``L*`` means the model fitted its training set (for a^n b^n with
    n uniform on 1 … 20, ``L*`` ≈ 0.136 nats: only the end of the a's is uncertain).
    """
    if len(check_items(strings, "strings", empty=True)) == 0:
        raise ValueError("optimal_loss needs at least one string")
    following: dict[tuple, Counter] = defaultdict(Counter)
    predicted = 0
    for s in strings:
        symbols = as_symbols(s)
        for t in range(len(symbols) + 1):
            following[symbols[:t]][symbols[t] if t < len(symbols) else EOS] += 1
        predicted += len(symbols) + 1
    total = 0.0
    for counts in following.values():
        n = sum(counts.values())
        total -= sum(c * math.log(c / n) for c in counts.values())
    return total / predicted


def _summary(correct: Iterable[bool]) -> float:
    correct = list(correct)
    return float(np.mean(correct)) if correct else float("nan")


def validity_scores(correct_by_string: Iterable[Iterable[bool]]) -> dict:
    """From whether each prediction of each string was right: the share of right positions (every
    prediction of every string counted once) and the share of strings right at every position."""
    positions, whole = [], []
    for ok in correct_by_string:
        ok = [bool(x) for x in ok]
        positions.extend(ok)
        whole.append(all(ok))
    return {"positions": _summary(positions), "strings": _summary(whole)}


def next_symbol_validity(model, language, vocab: Vocab, strings: Sequence) -> dict:
    """Share of positions (and of whole strings) where the top prediction is in ``valid_next``
    (:func:`validity_scores` of the right predictions)."""
    check_scoring(model, vocab, strings)
    _check_language(language, "language", ("valid_next",))
    symbols = vocab.output_symbols
    correct = []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        s = as_symbols(s)
        correct.append([
            symbols[int(np.argmax(row))] in language.valid_next(s[:t])
            for t, row in enumerate(logits)
        ])
    return validity_scores(correct)


# -- over seeds: a mean and how sure it is ------------------------------------------------------
def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (NaN with fewer than two values)."""
    values = np.asarray(list(values), dtype=float)
    if values.size == 0:
        raise ValueError("mean_se needs at least one value")
    se = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else float("nan")
    return float(values.mean()), float(se)


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean and the ``level`` Student-t interval of the mean: (mean, low, high). With one value
    the interval is unknown: (mean, -inf, inf), which no equivalence margin can contain."""
    from scipy import stats

    mean, se = mean_se(values)
    if math.isnan(se):
        return mean, -math.inf, math.inf
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1)) * se
    return mean, mean - half, mean + half


# -- a^n b^n --------------------------------------------------------------------------------------
def anbn_generalisation(model, vocab: Vocab, max_n: int, letters: str = "ab") -> dict:
    """Score a^n b^n for n = 1..max_n.

    A string is *right* when the model's top prediction is the forced symbol at every deterministic
    position: each b after the first one, and EOS after the last b. (After the a's the model cannot
    know whether another a comes, so those positions are not scored.) ``max_correct_n`` is the
    largest N such that every n ≤ N is right – generalisation without holes.
    """
    check_scoring(model, vocab, ["ab"])  # the model and the vocabulary; the strings are made here
    check_positive(max_n, "max_n")
    letters = as_symbols(letters, "letters") if isinstance(letters, str) else letters
    if isinstance(letters, str) or not isinstance(letters, Sequence) or len(letters) != 2 \
            or letters[0] == letters[1]:
        raise ValueError(f"letters must be two different symbols (a, b), got {letters!r}")
    a, b = letters
    strings = [(a,) * n + (b,) * n for n in range(1, max_n + 1)]
    symbols = vocab.output_symbols
    right = {}
    for n, logits in zip(range(1, max_n + 1), next_symbol_logits(model, vocab, strings)):
        # rows n+1 .. 2n-1 must predict b, row 2n must predict EOS
        forced = [(t, b) for t in range(n + 1, 2 * n)] + [(2 * n, EOS)]
        right[n] = all(symbols[int(np.argmax(logits[t]))] == want for t, want in forced)
    max_correct = 0
    while max_correct + 1 in right and right[max_correct + 1]:
        max_correct += 1
    return {"right": right, "max_correct_n": max_correct}


# -- Dyck -----------------------------------------------------------------------------------------
#: The three ways to break down closing-bracket accuracy, each named for what it counts about the
#: closing bracket's pair (see :func:`dyck_closing_accuracy`).
DYCK_BREAKDOWNS = {
    "attractors": "brackets of another kind opened inside the pair (the papers' attractors)",
    "inner_nesting": "how deep the nesting goes inside the pair (the papers' 'nesting depth', "
                     "the seeds' parenDepths)",
    "outer_depth": "brackets open when the pair closes, itself included (the stack height)",
}


def dyck_closing_accuracy(model, dyck, vocab: Vocab, strings: Sequence) -> dict:
    """Bernardy & Lappin's Dyck metric, broken down three ways.

    At every position whose next symbol is a closing bracket, the prediction is the argmax over
    the closing brackets only; it is right when it matches the actual one (chance: 1 / kinds).
    Each closing bracket is also filed under three numbers about its pair
    (:data:`DYCK_BREAKDOWNS`): ``attractors`` (:meth:`Dyck.attractors`), ``inner_nesting``
    (:meth:`Dyck.inner_depths`: 0 for ``()``; what the papers call nesting depth) and
    ``outer_depth`` (:meth:`Dyck.outer_depths`: 1 for an outermost pair; how deep in the
    stack the pair sits, which the papers do not measure). In ``( [ ] )`` the ``)`` has 1
    attractor, inner nesting 1 and outer depth 1; the ``]`` has 0, 0 and 2.

    Returns ``accuracy`` (over all closing brackets), ``strings`` (share of strings with every
    closer right), and for each breakdown ``by_<name>`` ({value: accuracy}) and
    ``count_by_<name>`` ({value: closing brackets}).
    """
    check_scoring(model, vocab, strings)
    _check_language(dyck, "dyck", ("closers", "attractors", "inner_depths", "outer_depths"))
    symbols = vocab.output_symbols
    closer_cols = [symbols.index(c) for c in dyck.closers]
    groups = {name: defaultdict(list) for name in DYCK_BREAKDOWNS}
    whole, flat = [], []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        s = dyck.symbols(s)
        keys = zip(dyck.attractors(s), dyck.inner_depths(s), dyck.outer_depths(s))
        closing_steps = [t for t, sym in enumerate(s) if sym in dyck.closers]
        ok_here = []
        for t, values in zip(closing_steps, keys):
            ok = dyck.closers[int(np.argmax(logits[t, closer_cols]))] == s[t]
            for name, value in zip(DYCK_BREAKDOWNS, values):
                groups[name][value].append(ok)
            ok_here.append(ok)
        flat.extend(ok_here)
        whole.append(all(ok_here))
    if not flat:
        raise ValueError("strings: no closing bracket to score (every string is empty or "
                         "opens only)")
    result = {"accuracy": _summary(flat), "strings": _summary(whole)}
    for name, group in groups.items():
        result[f"by_{name}"] = {k: _summary(v) for k, v in sorted(group.items())}
        result[f"count_by_{name}"] = {k: len(v) for k, v in sorted(group.items())}
    return result


def pooled_accuracy(result: dict, breakdown: str, keep) -> float:
    """Accuracy over all closing brackets whose ``breakdown`` value satisfies ``keep``.

    ``result`` is a :func:`dyck_closing_accuracy` dict, ``breakdown`` one of
    :data:`DYCK_BREAKDOWNS` (``"by_"`` prefix optional): Σ_k acc_k · count_k / Σ_k count_k over
    the kept k (NaN when no closing bracket is kept).
    """
    if not isinstance(result, dict):
        raise TypeError(f"result must be what dyck_closing_accuracy returned (a dict), got "
                        f"{type(result).__name__}")
    if not isinstance(breakdown, str):
        raise TypeError(f"breakdown must be one of {', '.join(DYCK_BREAKDOWNS)}, got "
                        f"{breakdown!r:.60}")
    check_callable(keep, "keep")
    name = breakdown.removeprefix("by_")
    if name not in DYCK_BREAKDOWNS:
        raise ValueError(f"unknown breakdown {breakdown!r}: choose one of "
                         f"{', '.join(DYCK_BREAKDOWNS)}")
    acc, count = result[f"by_{name}"], result[f"count_by_{name}"]
    kept = [k for k in acc if keep(k)]
    total = sum(count[k] for k in kept)
    return sum(acc[k] * count[k] for k in kept) / total if total else float("nan")


# -- cross-serial ---------------------------------------------------------------------------------
def cross_serial_accuracy(model, language, vocab: Vocab, strings: Sequence) -> dict:
    """Bernardy & Lappin 2023: a string counts only if every prediction is acceptable – after an
    ``a`` or ``b`` the top prediction must be a possible continuation, after a ``c`` or ``d`` (and
    at the end) it must be exactly the next symbol; the end symbol must be predicted.
    Returns the overall share and the share by length (m + n)."""
    check_scoring(model, vocab, strings)
    _check_language(language, "language", ("symbols", "must_be_exact", "valid_next"))
    symbols = vocab.output_symbols
    by_length, whole = defaultdict(list), []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        s = language.symbols(s)
        target = list(s[1:]) + [EOS]
        ok = True
        for t in range(1, len(s) + 1):
            guess = symbols[int(np.argmax(logits[t]))]
            prefix = s[:t]
            if language.must_be_exact(prefix):
                ok &= guess == target[t - 1]
            else:
                ok &= guess in language.valid_next(prefix)
        whole.append(ok)
        by_length[len(s) // 2].append(ok)
    return {
        "accuracy": _summary(whole),
        "by_length": {k: _summary(v) for k, v in sorted(by_length.items())},
    }


# -- agreement ------------------------------------------------------------------------------------
def agreement_accuracy(model, vocab: Vocab, examples: Sequence) -> dict:
    """Linzen et al.'s language-model test: after the prefix, is the agreeing verb form more
    probable than the other one? Examples need ``prefix``, ``verb``, ``wrong_verb`` and
    ``attractors`` (see :class:`course_rnn.languages.agreement.AgreementExample`)."""
    check_scoring(model, vocab, examples, "examples")
    prefixes = [tuple(e.prefix) for e in examples]
    symbols = vocab.output_symbols
    by_attr, flat = defaultdict(list), []
    for e, logits in zip(examples, next_symbol_logits(model, vocab, prefixes)):
        last = logits[len(e.prefix)]
        ok = bool(last[symbols.index(e.verb)] > last[symbols.index(e.wrong_verb)])
        by_attr[e.attractors].append(ok)
        flat.append(ok)
    return {
        "accuracy": _summary(flat),
        "by_attractors": {k: _summary(v) for k, v in sorted(by_attr.items())},
        "count_by_attractors": {k: len(v) for k, v in sorted(by_attr.items())},
    }
