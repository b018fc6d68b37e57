"""String-to-string tasks of Delétang et al. (2023), "Neural networks and the Chomsky hierarchy".

A **transduction** maps an input string to an output string. The network reads the input, then
one blank per output symbol, and its predictions at the blanks are the output (the training side
is :mod:`course_rnn.training.transduction`). The tasks are ordered by the weakest automaton that
computes them: a finite-state machine (regular), a pushdown automaton (deterministic
context-free), a linear-bounded one (context-sensitive). The question the paper asks of each
network: trained on inputs of length ≤ 40, does it still compute the task on lengths 41–500?

=========================  =====================  ============================================
name                       level                  output for an input ``x1 … xn``
=========================  =====================  ============================================
``parity_check``           regular                ``1`` if the count of 1s is odd, else ``0``
``modular_arithmetic``     regular                the value mod 5 of ``d ∘ d ∘ … ∘ d``
``reverse_string``         deterministic CF       ``xn … x1``
``stack_manipulation``     deterministic CF       the stack after the instructions, top first
``anbn``                   deterministic CF       for ``a^n``: ``b^n #`` (Joulin & Mikolov)
``dyck_completion``        deterministic CF       the brackets that close a Dyck-2 prefix, ``#``
``duplicate_string``       context-sensitive      ``x1 … xn x1 … xn``
``odds_first``             context-sensitive      ``x1 x3 x5 … x2 x4 …``
=========================  =====================  ============================================

Each task says what it computes (:meth:`Transduction.transduce`, one string: the definition),
how it draws inputs of a given length (:meth:`~Transduction.sample`) and how many output
positions are scored (:meth:`~Transduction.scored`: all of them, except where an end marker
``#`` is followed by padding). The first five are the paper's; we checked each against the
definitions in the authors' code (google-deepmind/neural_networks_chomsky_hierarchy, ``tasks/``)
and say in each class where the code, the paper and this file part. a^n b^n (Joulin & Mikolov
2015) and Dyck-2 completion are not in the paper; they put the course's two context-free
languages into the same protocol.

Symbols are strings, as for every language of the course: binary strings use ``"0"`` and ``"1"``
(the paper's alphabet for every string task), so ``"0110"`` is read as four symbols.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

import numpy as np

from ..checks import MAX_LENGTH, check_integer, check_items
from .base import Symbols, as_symbols, check_count, make_rng

#: the end marker of an output shorter than its output positions (the rest is padding)
END = "#"
#: the symbol the network reads at every output position (the "empty" input of the paper)
BLANK = "_"
#: the Chomsky-hierarchy levels, weakest automaton first
LEVELS = ("regular", "deterministic context-free", "context-sensitive")

Pair = tuple[Symbols, Symbols]  # (input, output)


class Transduction(ABC):
    """A task that maps an input string to an output string (see the module docstring).

    Subclasses set ``name``, ``level``, ``input_alphabet`` and ``output_alphabet``, and write
    :meth:`transduce` (the definition) and :meth:`output_length`; :meth:`draw_input` (uniform
    symbols by default) and :meth:`scored` (every position by default) where they differ.
    """

    name: str = "transduction"
    level: str = "regular"
    input_alphabet: Symbols = ()
    output_alphabet: Symbols = ()
    #: the shortest input the task draws
    min_length: int = 1

    # -- the definition ------------------------------------------------------------------------
    @abstractmethod
    def transduce(self, string: str | Iterable[str]) -> Symbols:
        """The output of one input string (padded to :meth:`output_length` where it ends
        early)."""

    @abstractmethod
    def output_length(self, length: int) -> int:
        """How many output positions follow an input of ``length`` symbols."""

    def scored(self, output: Sequence[str]) -> int:
        """How many leading positions of ``output`` are scored (all of them, unless the output
        ends with an end marker and padding)."""
        return len(output)

    # -- drawing examples ----------------------------------------------------------------------
    def draw_input(self, length: int, rng: np.random.Generator) -> Symbols:
        """One input of ``length`` symbols (uniform over the input alphabet unless the task
        says otherwise)."""
        picks = rng.integers(len(self.input_alphabet), size=length)
        return tuple(self.input_alphabet[i] for i in picks)

    def sample(self, length: int, count: int, seed=None) -> list[Pair]:
        """``count`` ``(input, output)`` pairs with inputs of ``length`` symbols, reproducible
        from ``seed`` (an integer or a numpy Generator)."""
        length = self.check_length(length)
        rng = make_rng(seed)
        pairs = []
        for _ in range(check_count(count, "count")):
            string = self.draw_input(length, rng)
            pairs.append((string, self.transduce(string)))
        return pairs

    def dataset(self, lengths: Sequence[int], per_length: int, seed=None) -> list[Pair]:
        """A fixed set: ``per_length`` pairs at every length of ``lengths``, from ``seed``."""
        check_items(lengths, "lengths", "input lengths (a list or a range)")
        rng = make_rng(seed)
        return [pair for length in lengths for pair in self.sample(length, per_length, rng)]

    # -- checks --------------------------------------------------------------------------------
    def check_length(self, length) -> int:
        return check_integer(length, f"length (of a {self.name} input)", self.min_length,
                             MAX_LENGTH)

    def check_input(self, string: str | Iterable[str]) -> Symbols:
        """The input as symbols; a ValueError names a symbol outside the input alphabet."""
        return self._symbols(string, self.input_alphabet, "input")

    def check_output(self, string: str | Iterable[str]) -> Symbols:
        """An output as symbols; a ValueError names a symbol outside the output alphabet."""
        return self._symbols(string, self.output_alphabet, "output")

    def _symbols(self, string, alphabet: Symbols, what: str) -> Symbols:
        symbols = as_symbols(string, f"an {what} string")
        for position, symbol in enumerate(symbols):
            if symbol not in alphabet:
                raise ValueError(f"{self.name}: symbol {symbol!r} at position {position} is not "
                                 f"in the {what} alphabet {' '.join(alphabet)}")
        return symbols

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: the binary alphabet of every string task of the paper
BINARY = ("0", "1")


# -- regular ----------------------------------------------------------------------------------


class ParityCheck(Transduction):
    """Is the number of 1s odd? ``1010100 → 1`` (three 1s), ``01111 → 0``.

    As the authors' ``tasks/regular/parity_check.py``: uniform binary inputs, one output
    symbol (their class 1 for odd, 0 for even).
    """

    name, level = "parity_check", "regular"
    input_alphabet = output_alphabet = BINARY

    def transduce(self, string):
        ones = self.check_input(string).count("1")
        return (str(ones % 2),)

    def output_length(self, length):
        return 1


class ModularArithmetic(Transduction):
    """The value of ``d ∘ d ∘ … ∘ d`` modulo 5, digits ``d`` in 0…4, ``∘`` in ``+ − *``, with
    the usual precedence (``*`` first)::

        1 + 2 * 3 → 2        1 - 1 - 1 → 4        0 * 1 + 4 * 3 - 2 → 0

    As the authors' ``tasks/regular/modular_arithmetic.py`` (the three examples are theirs):
    digits and operators uniform; its evaluation replaces ``a − b`` by ``a + (−b)`` and does the
    products first, which is the value with the usual precedence.

    **Lengths (code and paper part).** An expression has an odd number of symbols. The paper
    trains on lengths 1–40 and tests on 41–500 as for every task; the code makes an even length
    odd by dropping a symbol (``if length % 2 != 1: length -= 1``), so a batch "of length 2k" holds
    expressions of length 2k − 1, and half the lengths of the curriculum and of the test range are
    repeats. We do the same — :meth:`sample` at an even length draws expressions one symbol
    shorter — so that scores compare with Table 2, and say so here.

    (As written, the code also keeps its operators in a generator expression, which only the
    first trace of its jitted ``sample_batch`` finds full; we read that as a slip and draw from
    all three operators at every length.)
    """

    name, level = "modular_arithmetic", "regular"
    operators = ("+", "-", "*")

    def __init__(self, modulus: int = 5):
        self.modulus = check_integer(modulus, "modulus", 2)
        if self.modulus > 10:
            raise ValueError(f"modulus must be at most 10 (one symbol per digit), got {modulus}")
        digits = tuple(str(d) for d in range(self.modulus))
        self.input_alphabet = digits + self.operators
        self.output_alphabet = digits

    def draw_input(self, length, rng):
        length -= 1 - length % 2  # the code's rule: an even length loses a symbol
        digits = rng.integers(self.modulus, size=length // 2 + 1)
        ops = rng.integers(len(self.operators), size=length // 2)
        symbols = [str(digits[0])]
        for op, digit in zip(ops, digits[1:]):
            symbols += [self.operators[op], str(digit)]
        return tuple(symbols)

    def transduce(self, string):
        symbols = self.check_input(string)
        if len(symbols) % 2 == 0 or any(
                (s in self.operators) != (i % 2 == 1) for i, s in enumerate(symbols)):
            raise ValueError(f"modular_arithmetic: {' '.join(symbols)!r} is not an expression "
                             "(digits at odd positions, operators between them)")
        total, sign, product = 0, 1, int(symbols[0])
        for op, digit in zip(symbols[1::2], symbols[2::2]):
            if op == "*":
                product *= int(digit)  # products first
            else:
                total += sign * product  # a term ends
                sign, product = (1 if op == "+" else -1), int(digit)
        return (str((total + sign * product) % self.modulus),)

    def output_length(self, length):
        return 1

    def __repr__(self):
        return f"ModularArithmetic(modulus={self.modulus})"


# -- deterministic context-free ---------------------------------------------------------------


class ReverseString(Transduction):
    """``x1 … xn → xn … x1`` (``011010 → 010110``), over binary strings as in the paper.

    As the authors' ``tasks/dcf/reverse_string.py``: uniform inputs, output length n.
    """

    name, level = "reverse_string", "deterministic context-free"
    input_alphabet = output_alphabet = BINARY

    def transduce(self, string):
        return self.check_input(string)[::-1]

    def output_length(self, length):
        return length


class StackManipulation(Transduction):
    """Run stack instructions; output the final stack, top first, then ``#``.

    The input is a stack of 0s and 1s given bottom to top, then instructions ``POP``, ``PUSH0``,
    ``PUSH1``; a ``POP`` of an empty stack does nothing. The output is the final stack from the
    top, the end marker ``#``, then ``0``s up to n + 1 positions. The authors' example::

        0 1 1 0 PUSH1 POP POP  →  1 1 0 # 0 0 0 0

    As their ``tasks/dcf/stack_manipulation.py``: the initial stack has 1 … n − 1 symbols (its
    length uniform), the instructions are uniform over the three, and an input of length 1 is one
    stack symbol; the output is padded with ``0`` (their padding is their 0 too); only the
    positions up to and including ``#`` are scored (their ``accuracy_mask``). Their loss also
    trains the padding after ``#``; ours trains the scored positions only (see
    :class:`course_rnn.training.transduction.TransductionTask`). Defined as one pass that
    pushes every stack symbol and follows every instruction, which is what their generator
    computes for every input it draws.
    """

    name, level = "stack_manipulation", "deterministic context-free"
    input_alphabet = ("0", "1", "POP", "PUSH0", "PUSH1")
    output_alphabet = ("0", "1", END)

    def draw_input(self, length, rng):
        if length == 1:
            return (str(rng.integers(2)),)
        stack_length = int(rng.integers(1, length))  # 1 … n − 1, as the code
        stack = tuple(str(s) for s in rng.integers(2, size=stack_length))
        actions = rng.integers(3, size=length - stack_length)
        return stack + tuple(("POP", "PUSH0", "PUSH1")[a] for a in actions)

    def transduce(self, string):
        symbols = self.check_input(string)
        stack: list[str] = []
        for symbol in symbols:
            if symbol == "POP":
                if stack:
                    stack.pop()
            else:
                stack.append(symbol[-1])  # "0", "1", "PUSH0" → 0, "PUSH1" → 1
        output = (*stack[::-1], END)
        return output + ("0",) * (len(symbols) + 1 - len(output))

    def output_length(self, length):
        return length + 1

    def scored(self, output):
        return list(output).index(END) + 1


class AnBnContinuation(Transduction):
    """a^n b^n as a transduction: ``a^n → b^n #`` — after n a's, n b's and the end.

    Joulin & Mikolov (2015) trained their Stack-RNN to predict the next symbol of a^n b^n
    strings and counted a string right when every *deterministic* prediction was (the b's after
    the first, and the end); here the whole b^n is deterministic, since the input a^n is given
    whole, and the end is ``#``. Not in Delétang et al. Each length has one input, so the
    per-position score flatters a model that never stops (it gets n of n + 1): read the
    sequence accuracy of :func:`~course_rnn.training.transduction.length_generalisation` beside
    it, which is Joulin & Mikolov's measure.
    """

    name, level = "anbn", "deterministic context-free"
    input_alphabet = ("a",)
    output_alphabet = ("b", END)

    def transduce(self, string):
        return ("b",) * len(self.check_input(string)) + (END,)

    def output_length(self, length):
        return length + 1


class DyckCompletion(Transduction):
    """Close a Dyck-2 prefix: ``( [ ] [ ( → ) ] ) #`` — the closing brackets of what is still
    open, innermost first, then ``#`` and padding to n + 1 positions.

    Inputs are prefixes of strings of the Dyck language over ``()`` and ``[]`` (chapter 7's
    Dyck-2), drawn as a walk: at height 0 an opening bracket, else an opening or the closing of
    the innermost open bracket with equal chance, each opening's kind uniform. Which closers are
    needed, in which order, is the stack of what is open: a deterministic context-free task.
    Scored up to and including ``#``, as stack manipulation. Not in Delétang et al.
    """

    name, level = "dyck_completion", "deterministic context-free"
    pairs = {"(": ")", "[": "]"}
    input_alphabet = ("(", ")", "[", "]")
    output_alphabet = (")", "]", END)

    def draw_input(self, length, rng):
        openers, open_now, string = tuple(self.pairs), [], []
        for _ in range(length):
            if open_now and rng.random() < 0.5:
                string.append(self.pairs[open_now.pop()])
            else:
                open_now.append(openers[rng.integers(2)])
                string.append(open_now[-1])
        return tuple(string)

    def transduce(self, string):
        symbols = self.check_input(string)
        open_now: list[str] = []
        for position, symbol in enumerate(symbols):
            if symbol in self.pairs:
                open_now.append(symbol)
            elif open_now and self.pairs[open_now[-1]] == symbol:
                open_now.pop()
            else:
                raise ValueError(f"dyck_completion: {symbol!r} at position {position} closes "
                                 f"nothing open in {''.join(symbols)!r} (not a Dyck prefix)")
        output = (*(self.pairs[b] for b in reversed(open_now)), END)
        return output + (END,) * (len(symbols) + 1 - len(output))

    def output_length(self, length):
        return length + 1

    def scored(self, output):
        return list(output).index(END) + 1


# -- context-sensitive ------------------------------------------------------------------------


class DuplicateString(Transduction):
    """``x1 … xn → x1 … xn x1 … xn`` (``101 → 101101``), over binary strings.

    As the authors' ``tasks/cs/duplicate_string.py``: uniform inputs, output length 2n.
    """

    name, level = "duplicate_string", "context-sensitive"
    input_alphabet = output_alphabet = BINARY

    def transduce(self, string):
        symbols = self.check_input(string)
        return symbols + symbols

    def output_length(self, length):
        return 2 * length


class OddsFirst(Transduction):
    """The symbols at odd positions first, then those at even positions:
    ``x1 x2 … xn → x1 x3 x5 … x2 x4 …`` (``00110101 → 0100 0111``).

    **Code and paper part.** The paper defines it so, and so do the code's docstring and example;
    the code (``tasks/cs/odds_first.py``) outputs ``strings[:, 1::2]`` first, i.e. x2 x4 …
    then x1 x3 …, the other order (``00110101 → 0111 0100``). We follow the paper; the two are
    the same task up to a fixed permutation of the output.
    """

    name, level = "odds_first", "context-sensitive"
    input_alphabet = output_alphabet = BINARY

    def transduce(self, string):
        symbols = self.check_input(string)
        return symbols[0::2] + symbols[1::2]

    def output_length(self, length):
        return length


#: every transduction by name, in the order of the hierarchy
TRANSDUCTIONS: dict[str, type[Transduction]] = {
    "parity_check": ParityCheck,
    "modular_arithmetic": ModularArithmetic,
    "reverse_string": ReverseString,
    "stack_manipulation": StackManipulation,
    "anbn": AnBnContinuation,
    "dyck_completion": DyckCompletion,
    "duplicate_string": DuplicateString,
    "odds_first": OddsFirst,
}


def make_transduction(name: str, **kwargs) -> Transduction:
    """A transduction by name (ValueError listing the names otherwise)."""
    if not isinstance(name, str) or name not in TRANSDUCTIONS:
        raise ValueError(f"unknown transduction {name!r}: choose one of "
                         f"{', '.join(TRANSDUCTIONS)}")
    return TRANSDUCTIONS[name](**kwargs)
