"""The "your turn" exercises in the flow of the chapters (issue 43, item 4), and their check.

Each page has a short exercise right after the idea it practises: a stub the student completes
(a function whose body is ``...``), a check cell, and the solution in a dropdown. The check cell
is one call::

    from course_rnn.practice import check
    check("softmax", softmax)

``check`` calls the student's function on a few inputs, compares each result with the answer the
library computes (never a typed-in key) and prints one line:

- ``Right: …`` when every input gives the library's answer;
- ``Not yet: for <input> the answer is <right>, yours gave <theirs>.`` at the first that does not
  (or ``… yours raised ValueError: …``);
- ``Not done yet: …`` while the body is still ``...`` (the function returns ``None`` or
  ``Ellipsis``, or raises ``NotImplementedError``): the line then shows what a right answer gives
  on the first input, computed by the library, so a built page runs real code either way.

It never raises, whatever the student wrote: a page builds with a stub, a wrong answer or a
broken one. :func:`verdict` returns the same line with its status, for tests. The exercises are
in :data:`EXERCISES`; each builds its inputs and their answers with the library's own functions
(the language's ``deterministic_positions``, ``torch.softmax``, ``SRNCell``,
``clip_grad_norm_``, ``ElmanTemplates.next_distribution`` with ``kl_div``,
``Agreement.annotate``, SciPy's Student t, ``PDDA1.step``, ``mean_visitation_set``,
``matrix_exp``, ``metrics.validity_scores``, ``soft_stack_update``).
``tests/test_your_turn.py`` runs every page's exercise with its dropdown's solution (right), as
committed (not done) and with a wrong answer (not yet).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import torch

__all__ = ["EXERCISES", "Case", "Exercise", "Verdict", "check", "verdict"]

RIGHT, NOT_YET, NOT_DONE = "right", "not yet", "not done"


@dataclass(frozen=True)
class Case:
    """One input of an exercise: the arguments, how the line names them, and the right answer
    (computed by the library)."""

    args: tuple
    label: str
    want: object


@dataclass(frozen=True)
class Exercise:
    """An exercise: the function's name as the page writes it, what a right answer does (for the
    "Right" line), and its cases (built when checked, so that nothing is computed at import)."""

    function: str
    does: str
    cases: Callable[[], list[Case]]
    rtol: float = 1e-5
    atol: float = 1e-7


@dataclass(frozen=True)
class Verdict:
    status: str  # RIGHT, NOT_YET or NOT_DONE
    text: str

    def __bool__(self) -> bool:
        return self.status == RIGHT


# -- showing and comparing values -----------------------------------------------------------------


def _plain(value):
    """A tensor or an array as nested Python lists; anything else as it is."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def show(value, width: int = 90) -> str:
    """A short readable form: numbers to 4 significant digits, tensors and arrays as lists."""
    value = _plain(value)
    if isinstance(value, bool):
        text = str(value)
    elif isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, Mapping):
        text = "{" + ", ".join(f"{k!r}: {show(v, width)}" for k, v in value.items()) + "}"
    elif isinstance(value, (list, tuple)):
        inner = ", ".join(show(v, width) for v in value)
        text = f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    else:
        text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def same(got, want, rtol: float = 1e-5, atol: float = 1e-7) -> bool:
    """Whether the student's ``got`` is the library's ``want``: dictionaries key by key, numbers,
    lists, tuples, arrays and tensors as arrays of the same shape within the tolerance, anything
    else by ``==``."""
    got, want = _plain(got), _plain(want)
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and set(got) == set(want) and all(
            same(got[k], want[k], rtol, atol) for k in want)
    if isinstance(want, bool):  # booleans compare as booleans (1.0 is not True)
        return isinstance(got, bool) and got == want
    if isinstance(want, list) and want and all(isinstance(w, bool) for w in want):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            same(g, w) for g, w in zip(got, want))
    if isinstance(want, (int, float, list, tuple)):
        try:
            g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        except (TypeError, ValueError):
            return False
        return g.shape == w.shape and bool(np.allclose(g, w, rtol=rtol, atol=atol))
    return bool(got == want)


# -- the exercises ---------------------------------------------------------------------------------


def _forced_cases() -> list[Case]:
    from .languages import AnBn

    anbn = AnBn(min_n=1, max_n=10)
    return [Case((s,), f"s = {s!r}", anbn.deterministic_positions(s))
            for s in ("aaabbb", "ab", "aabb", "aaaaabbbbb")]


def _softmax_cases() -> list[Case]:
    scores = ([1.0, 2.0, 3.0], [0.0, 0.0], [-5.0, 5.0, 0.0], [1000.0, 1000.0, 0.0])
    return [Case((torch.tensor(y, dtype=torch.float64),), f"y = {show(y)}",
                 torch.softmax(torch.tensor(y, dtype=torch.float64), dim=-1))
            for y in scores]


def _srn_step_cases() -> list[Case]:
    from .models.srn import SRNCell

    g = torch.Generator().manual_seed(0)
    cases = []
    for k, zero_state in enumerate((True, False)):
        cell = SRNCell(input_size=4, hidden_size=3)
        with torch.no_grad():
            for p in cell.parameters():
                p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
        W, U, b = (p.detach().double() for p in (cell.W, cell.U, cell.b))
        x = torch.nn.functional.one_hot(torch.tensor(k + 1), 4).double()
        h = torch.zeros(3, dtype=torch.float64) if zero_state else \
            torch.randn(3, generator=g, dtype=torch.float64)
        want = cell.double()(x[None], h[None])[0].detach()
        cases.append(Case((W, U, b, x, h), f"x = {show(x)}, h = {show(h)}", want))
    return cases


def _half_life_cases() -> list[Case]:
    def half_life(bias):  # the step t at which the forget gate's product sigma(bias)^t is 1/2
        return math.log(0.5) / math.log(torch.sigmoid(torch.tensor(bias, dtype=torch.float64)))
    return [Case((b,), f"bias = {b}", half_life(b)) for b in (3.0, 0.0, 1.0, 5.0)]


def _clip_cases() -> list[Case]:
    cases = []
    for grad, max_norm in (([30.0, 40.0], 1.0), ([0.3, 0.4], 1.0), ([3.0, -4.0, 12.0], 5.0),
                           ([0.0, 0.0], 1.0)):
        w = torch.nn.Parameter(torch.zeros(len(grad), dtype=torch.float64))
        w.grad = torch.tensor(grad, dtype=torch.float64)
        torch.nn.utils.clip_grad_norm_([w], max_norm=max_norm)  # what fit does at every step
        cases.append(Case((torch.tensor(grad, dtype=torch.float64), max_norm),
                          f"grad = {show(grad)}, max_norm = {max_norm}", w.grad.clone()))
    return cases


def _kl_cases() -> list[Case]:
    from .languages import ElmanTemplates, Vocab

    elman = ElmanTemplates()
    words = Vocab.for_language(elman).output_symbols  # every word a model predicts, and </s>

    def kl(exact, predicted):  # PyTorch's kl_div(log q, p) summed: sum of p log(p / q)
        allowed = [w for w, prob in exact.items() if prob > 0]
        p = torch.tensor([exact[w] for w in allowed], dtype=torch.float64)
        q = torch.tensor([predicted[w] for w in allowed], dtype=torch.float64)
        return float(torch.nn.functional.kl_div(q.log(), p, reduction="sum"))

    uniform = {w: 1 / len(words) for w in words}
    after_woman = elman.next_distribution(("woman",))
    after_dragon_eat = elman.next_distribution(("dragon", "eat"))
    mixed = {w: 0.8 * after_dragon_eat.get(w, 0.0) + 0.2 * uniform[w] for w in words}
    same = {w: after_dragon_eat.get(w, 0.0) for w in words}
    pairs = [
        ({"cookie": 0.5, "bread": 0.5}, {"cookie": 0.9, "bread": 0.1},
         "exact = {'cookie': 0.5, 'bread': 0.5}, predicted = {'cookie': 0.9, 'bread': 0.1}"),
        (after_woman, uniform,
         f"exact = after 'woman', predicted = uniform over {len(words)} words"),
        (after_dragon_eat, mixed,
         "exact = after 'dragon eat', predicted = 0.8 × exact + 0.2 × uniform"),
        (after_dragon_eat, same,
         "exact = after 'dragon eat', predicted = the same distribution"),
    ]
    return [Case((exact, predicted), label, kl(exact, predicted))
            for exact, predicted, label in pairs]


def _attractor_cases() -> list[Case]:
    from .languages import Agreement

    examples = sorted(Agreement().sample_examples(6, seed=4), key=lambda e: e.attractors == 0)
    return [Case((e.sentence[e.subject_index], e.intervening),
                 f"“{' '.join(e.prefix)} …” (subject {e.sentence[e.subject_index]!r}, "
                 f"intervening {show(e.intervening)})", e.attractors) for e in examples]


def _paired_cases() -> list[Case]:
    from .metrics import mean_interval

    def interval(ours, reference):  # the mean of the paired differences and its 95 % t-interval
        return mean_interval(np.subtract(ours, reference))

    rng = np.random.default_rng(4)
    twelve = (np.round(97 + 2 * rng.random(12), 1).tolist(),
              np.round(97.5 + 2 * rng.random(12), 1).tolist())
    data = [([99.0, 98.5, 99.5, 97.0], [99.5, 99.0, 99.0, 98.5], "four seeds"),
            (*twelve, "twelve seeds"),
            ([80.0, 90.0], [85.0, 85.0], "two seeds, one up and one down"),
            ([91.0, 92.0, 93.0], [90.0, 91.0, 92.0], "three seeds, always one point ahead")]
    return [Case((ours, ref), f"{label}: ours = {show(ours)}, reference = {show(ref)}",
                 interval(ours, ref)) for ours, ref, label in data]


def _pdda_cases() -> list[Case]:
    from .languages import PDDA1

    pdda = PDDA1()
    moves = (((0.0, 0.0), "a"), ((-1.0, -1.0), "b"), ((-1.0, 1.0), "c"), ((-1.5, -1.5), "a"),
             ((-1.5, -1.5), "b"), ((-1.5, 0.5), "c"))
    return [Case((z, symbol), f"z = {z}, symbol {symbol!r}", pdda.step(z, symbol))
            for z, symbol in moves]


def _mean_states_cases() -> list[Case]:
    from .analysis.dynamics import mean_visitation_set

    data = [
        (["", "A", "AB", "A", ""], [[0.0, 0.0], [-1.0, -1.0], [-1.0, 1.0], [-0.8, -1.2],
                                    [0.2, 0.0]]),
        (["", "A", "AA", "AB", "AA"], [[0.0, 0.1], [-1.0, -0.9], [-1.5, -1.5], [-1.0, 1.0],
                                       [-1.4, -1.6]]),
    ]
    cases = []
    for stacks, states in data:
        states = np.array(states)
        want = mean_visitation_set(SimpleNamespace(stacks=stacks, states=states))
        label = f"stacks = {show(stacks)}, states = {show(states)}"
        cases.append(Case((stacks, states), label, want))
    return cases


def _rotation_cases() -> list[Case]:
    from .models.urn import skew_symmetric

    cases = []
    for theta in (0.5, 0.0, math.pi / 2, 3.0):
        S = skew_symmetric(torch.tensor([theta], dtype=torch.float64), 2)
        cases.append(Case((theta,), f"theta = {theta:.4g}", torch.linalg.matrix_exp(S)))
    return cases


def _cantor_cases() -> list[Case]:
    def state(stack):  # pushes from the bottom of the stack (left) to its top (right)
        z = 0.0
        for symbol in stack:
            z = z / 3 + (2 / 3 if symbol == "a" else -2 / 3)
        return z
    return [Case((s,), f"stack {s!r}", state(s)) for s in ("ab", "", "a", "b", "ba", "aab", "bbba")]


def _validity_cases() -> list[Case]:
    from .metrics import validity_scores

    data = ([[True, True, False], [True, True, True]],
            [[True, True, True, True], [True, False, True, True], [True, True, True, False]],
            [[True], [True, True]])
    cases = []
    for ok in data:
        scores = validity_scores(ok)
        cases.append(Case((ok,), f"ok = {show(ok)}", (scores["positions"], scores["strings"])))
    return cases


def _stack_cases() -> list[Case]:
    from .models.stack_rnn import soft_stack_update

    cases = []
    for actions in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.25, 0.25)):
        stack, v = [1.0, 2.0, 3.0], 9.0
        new = soft_stack_update(torch.tensor(stack, dtype=torch.float64).reshape(1, 3, 1, 1),
                                torch.tensor(actions, dtype=torch.float64).reshape(1, 1, 3),
                                torch.tensor([v], dtype=torch.float64).reshape(1, 1, 1))
        cases.append(Case((stack, actions, v), f"stack {stack}, actions (push, pop, no-op) = "
                          f"{actions}, v = {v}", new.reshape(-1).tolist()))
    return cases


EXERCISES: dict[str, Exercise] = {
    "forced": Exercise("forced", "the forced positions of every string", _forced_cases),
    "softmax": Exercise("softmax", "the probabilities, even for scores of 1000", _softmax_cases),
    "srn_step": Exercise("srn_step", "the library's SRNCell step", _srn_step_cases),
    "half_life": Exercise("half_life", "the half-life of every bias", _half_life_cases),
    "clip": Exercise("clip", "what clip_grad_norm_ gives", _clip_cases),
    "kl": Exercise("kl", "the KL divergence of every prediction", _kl_cases),
    "attractors": Exercise("attractors", "Linzen's count on every sentence", _attractor_cases),
    "paired_interval": Exercise("paired_interval", "the mean and interval on every set of seeds",
                                _paired_cases),
    "pdda_step": Exercise("step", "PDDA 1's move in every case", _pdda_cases),
    "mean_states": Exercise("mean_states", "the mean visitation set", _mean_states_cases),
    "rotation": Exercise("rotation", "e^S for every angle", _rotation_cases),
    "cantor": Exercise("state", "the point of every stack", _cantor_cases),
    "validity": Exercise("scores", "both shares on every set", _validity_cases),
    "stack_update": Exercise("update", "the library's soft stack update", _stack_cases),
}


# -- the check ------------------------------------------------------------------------------------


def _stub(value) -> bool:
    return value is None or value is Ellipsis


def verdict(name: str, answer) -> Verdict:
    """The line :func:`check` prints, with its status. Never raises."""
    try:
        return _verdict(name, answer)
    except Exception as error:  # noqa: BLE001 — a page must build whatever the student wrote
        return Verdict(NOT_YET, f"Not yet: the check could not read your answer "
                                f"({type(error).__name__}: {error}).")


def _verdict(name: str, answer) -> Verdict:
    exercise = EXERCISES.get(name)
    if exercise is None:
        return Verdict(NOT_YET, f"Not yet: there is no exercise {name!r} "
                                f"(the exercises: {', '.join(EXERCISES)}).")
    fn = exercise.function
    cases = exercise.cases()
    first = cases[0]
    right_example = f"a right answer gives, for {first.label}: {show(first.want)}"
    if not callable(answer):
        return Verdict(NOT_DONE, f"Not done yet: `{fn}` is not a function yet; {right_example}.")
    for case in cases:
        try:
            got = answer(*copy.deepcopy(case.args))
        except NotImplementedError:
            return Verdict(NOT_DONE, f"Not done yet: fill in `{fn}` above; {right_example}.")
        except Exception as error:  # noqa: BLE001
            return Verdict(NOT_YET, f"Not yet: for {case.label} the answer is {show(case.want)}, "
                                    f"yours raised {type(error).__name__}: {error}")
        if _stub(got):
            if case is first:
                return Verdict(NOT_DONE, f"Not done yet: `{fn}` returns {got!r} — fill in its "
                                         f"body above; {right_example}.")
            return Verdict(NOT_YET, f"Not yet: for {case.label} the answer is {show(case.want)}, "
                                    f"yours gave {got!r}.")
        if not same(got, case.want, exercise.rtol, exercise.atol):
            return Verdict(NOT_YET, f"Not yet: for {case.label} the answer is {show(case.want)}, "
                                    f"yours gave {show(got)}.")
    return Verdict(RIGHT, f"Right: `{fn}` gives {exercise.does} ({len(cases)} inputs checked).")


def check(name: str, answer) -> None:
    """Print whether ``answer`` (the student's function) solves exercise ``name``: one line,
    "Right: …", "Not yet: …" or "Not done yet: …". Never raises."""
    print(verdict(name, answer).text)
