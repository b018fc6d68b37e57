"""The string-to-string tasks of Delétang et al. (2023), checked against the definitions of the
authors' code (google-deepmind/neural_networks_chomsky_hierarchy, ``tasks/``): the examples in
its docstrings, an independent oracle where one exists (Python's own arithmetic, the course's
Dyck and a^n b^n recognisers), and the shapes of what its generators draw."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from course_rnn.languages import TRANSDUCTIONS, AnBn, Dyck, make_transduction
from course_rnn.languages.chomsky import END, LEVELS, ModularArithmetic

# (task, input, output): the examples of the authors' docstrings (odds first: the paper's order)
EXAMPLES = [
    ("parity_check", "1010100", "1"),
    ("parity_check", "01111", "0"),
    ("modular_arithmetic", "1+2*3", "2"),
    ("modular_arithmetic", "1-1-1", "4"),
    ("modular_arithmetic", "0*1+4*3-2", "0"),
    ("reverse_string", "011010", "010110"),
    ("stack_manipulation", "0 1 1 0 PUSH1 POP POP", "1 1 0 # 0 0 0 0"),
    ("stack_manipulation", "1 1 0 POP POP POP", "# 0 0 0 0 0 0"),
    ("duplicate_string", "101", "101101"),
    ("duplicate_string", "111111", "111111111111"),
    ("odds_first", "00110101", "01000111"),
    ("odds_first", "110", "101"),
    ("anbn", "aaa", "bbb#"),
    ("dyck_completion", "([][(", ")])###"),
]


@pytest.mark.parametrize("name, string, output", EXAMPLES)
def test_the_authors_examples(name, string, output):
    task = make_transduction(name)
    assert task.transduce(string) == task.check_output(output)


def test_modular_arithmetic_is_python_s_arithmetic_with_precedence():
    """Every expression up to 7 symbols over a modulus of 3, against ``eval`` (``*`` first)."""
    task = ModularArithmetic(modulus=3)
    for length in (1, 3, 5, 7):
        digits = itertools.product("012", repeat=length // 2 + 1)
        for ds, ops in itertools.product(digits, itertools.product("+-*", repeat=length // 2)):
            expression = ds[0] + "".join(o + d for o, d in zip(ops, ds[1:]))
            assert task.transduce(expression) == (str(eval(expression) % 3),), expression


def test_modular_arithmetic_makes_an_even_length_odd_as_the_code_does():
    task = make_transduction("modular_arithmetic")
    assert {len(x) for x, _ in task.sample(8, 20, seed=0)} == {7}
    assert {len(x) for x, _ in task.sample(9, 20, seed=0)} == {9}
    assert set(x for x, _ in task.sample(41, 50, seed=1)) != set()
    for x, _ in task.sample(41, 50, seed=1):
        assert all(s.isdigit() == (i % 2 == 0) for i, s in enumerate(x))


def test_stack_manipulation_draws_a_stack_then_instructions():
    """The code's generator: 1 … n − 1 stack symbols, then instructions; length 1 is one stack
    symbol; the output ends with # and is padded to n + 1 with 0s, scored up to #."""
    task = make_transduction("stack_manipulation")
    stack_lengths = set()
    for x, y in task.sample(6, 400, seed=2):
        stack = list(itertools.takewhile(lambda s: s in "01", x))
        assert all(s in ("POP", "PUSH0", "PUSH1") for s in x[len(stack):])
        stack_lengths.add(len(stack))
        assert len(y) == 7 and y[task.scored(y) - 1] == END and set(y[task.scored(y):]) <= {"0"}
    assert stack_lengths == {1, 2, 3, 4, 5}
    assert all(len(x) == 1 and x[0] in "01" for x, _ in task.sample(1, 20, seed=3))


def test_the_context_free_tasks_complete_members_of_the_course_s_languages():
    anbn, dyck = make_transduction("anbn"), make_transduction("dyck_completion")
    for n in range(1, 12):
        (x, y), = anbn.sample(n, 1, seed=n)
        assert AnBn(max_n=20).is_member(x + y[:-1]) and y[-1] == END
    language, depths = Dyck("() []"), set()
    for x, y in dyck.sample(16, 300, seed=4):
        assert language.valid_next(x), x  # a prefix of a member …
        closers = y[: dyck.scored(y) - 1]
        assert language.is_member(x + closers)  # … that the output completes
        assert set(y[dyck.scored(y):]) <= {END} and len(y) == 17
        depths.add(len(closers))
    assert min(depths) == 0 and max(depths) >= 8  # closed strings and deep ones are drawn


@pytest.mark.parametrize("name", TRANSDUCTIONS)
def test_every_task_keeps_its_own_rules(name):
    task = make_transduction(name)
    assert task.level in LEVELS and task.name == name
    for length in range(1, 13):
        for x, y in task.sample(length, 5, seed=length):
            assert set(x) <= set(task.input_alphabet) and set(y) <= set(task.output_alphabet)
            assert len(y) == task.output_length(len(x)) and y == task.transduce(x)
            assert 1 <= task.scored(y) <= len(y)
    first, again = task.sample(10, 30, seed=7), task.sample(10, 30, seed=7)
    assert first == again
    if name != "anbn":  # a^n is the one input of length n
        assert first != task.sample(10, 30, seed=8)
    assert len(task.dataset(range(3, 6), 4, seed=0)) == 12


@pytest.mark.parametrize("name", ["parity_check", "reverse_string", "duplicate_string"])
def test_binary_inputs_are_uniform(name):
    x = np.array([[s == "1" for s in string] for string, _ in
                  make_transduction(name).sample(30, 2000, seed=0)])
    assert abs(x.mean() - 0.5) < 0.01 and np.all(np.abs(x.mean(0) - 0.5) < 0.06)


@pytest.mark.parametrize("call, error, named", [
    (lambda: make_transduction("nope"), ValueError, "unknown transduction 'nope'"),
    (lambda: make_transduction("reverse_string").sample(0, 3), ValueError, "length"),
    (lambda: make_transduction("reverse_string").sample(True, 3), ValueError, "length"),
    (lambda: make_transduction("reverse_string").sample(3, -1), ValueError, "count"),
    (lambda: make_transduction("reverse_string").transduce("012"), ValueError, "'2' at position 2"),
    (lambda: make_transduction("reverse_string").dataset("123", 2), TypeError, "lengths"),
    (lambda: make_transduction("modular_arithmetic", modulus=1), ValueError, "modulus"),
    (lambda: make_transduction("modular_arithmetic", modulus=11), ValueError, "modulus"),
    (lambda: make_transduction("modular_arithmetic").transduce("1+"), ValueError, "expression"),
    (lambda: make_transduction("dyck_completion").transduce("(]"), ValueError, "closes nothing"),
    (lambda: make_transduction("stack_manipulation").check_output("2"), ValueError, "output"),
])
def test_bad_input_is_named(call, error, named):
    with pytest.raises(error, match=named):
        call()
