"""A notebook that knows only the question earns nothing (issue 42, item 2).

For every assignment, the student's notebook with each answer replaced by what its question
alone gives away, without doing the work: values typed from the text (a bias of 0 for a
half-life of one step, the perplexity of a fair die, a perfect reverser's accuracy of 1), the
right letter of every multiple-choice question (the best guess there is: taken from the
solution), constants of the right shape, shortcuts where the text or a public test states the
value (the Ab-DRNN's (1 − α) α^s, "the stack never breaks", "the LSTM breaks within two symbols
past its training lengths"), and stand-ins for records (``SimpleNamespace(converged=True)``).
All of them are graded together in one run of the real command, two at a time, and each must
score 0: a point must need the student's own code, model or measurement.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from .conftest import ASSIGNMENTS, EXERCISES, solution, student, with_cells

# What each question gives away, per assignment: code appended after the student's cells (a
# later definition wins, as in Jupyter). The multiple-choice variables are added from the
# solution by ``question_only``.
GUESSES = {
    "ch01_bengio": """
import math
def perplexity(probabilities):  # the rule the text states, and a fair die's value
    probabilities = list(probabilities)
    if not probabilities or any(not 0 < p <= 1 for p in probabilities):
        raise ValueError("the text says so")
    return 1 / probabilities[0]
def kn_unigram(sentences, discount=0.75):  # the right keys, uniform
    vocabulary = {w for s in sentences for w in s} | {"</s>", "<unk>"}
    return {w: 1 / len(vocabulary) for w in vocabulary}
def kn_perplexity(lm, sentences):  # "between 1 and |V|": a uniform model's
    return float(len(lm.vocabulary))
def mixture_weight(p_mlp, p_count, grid):  # the middle of the grid
    return list(grid)[len(grid) // 2]
def mixture_perplexities(p_mlp_valid, p_kn_valid, p_mlp_test, p_kn_test, grid):
    lam = mixture_weight(p_mlp_valid, p_kn_valid, grid)
    return {"lambda": lam, "MLP": 175.0, "KN": 175.0, "mixture": 175.0}
""",
    "ch02_srn": """
def srn_step(x, h, W, U, b):  # the right shape
    return torch.zeros(x.shape[0], W.shape[0], dtype=x.dtype)
def state_gradients(xs, w):  # T + 1 numbers, the last one 1
    return [0.0] * len(xs) + [1.0]
def memory_span(xs, w, threshold=0.01):  # the public test's span
    return 6
def clip_gradients(grads, max_norm):  # nothing clipped, the bound returned
    return float(max_norm)
def sample_sentence(next_distribution, uniforms, max_words=10):  # a sentence of the grammar
    return ("man", "eat", "cookie")
def grammatical_share(sentences):
    return 0.0
def loss_lower_bound():  # between 0 and log(30)
    return math.log(30) / 2
""",
    "ch03_lstm_cell": """
def counter_weights():  # the right shapes
    return torch.zeros(4, 2), torch.zeros(4, 1), torch.zeros(4)
def largest_counted_n(w, u, nonlinearity, n_max=50):  # the public tests' values
    return n_max if nonlinearity == "relu" and w == 1.0 else 1
def forget_bias_for_half_life(T):  # "PyTorch initialises b_f near 0, a half-life of one step"
    return 0.0 if T == 1 else 3.0
""",
    "ch04_decay_rnn": """
def dale_matrix(W):  # the right shape
    return torch.zeros_like(W)
def decay_step(x, h, U, b, W, alpha):
    return torch.zeros_like(h)
def influence_by_distance(xs, U, b, W, alpha):  # the text's (1 − α) α^s, scaled as the public
    # test states it for s = 0
    return [float((1 - alpha) * alpha**s * U.sum(0).norm()) for s in range(len(xs))]
def count_attractors(words, subject_index, verb_index):  # most sentences have none
    return 0
""",
    "ch05_pdda": """
import numpy as np
def pdda_step(z, symbol):  # the right shape
    return np.zeros(2)
def pdda_accepts(sentence):  # Grammar 1's samples are sentences
    return len(sentence) > 0
def deepest_embedding(sentence):
    return 1
def pdda_accepts_rounded(sentence, bits):
    return len(sentence) > 0
def deepest_nesting(accepts, max_depth=60):  # "a float's 52-bit fraction bounds the depth"
    return min(53, max_depth)
""",
    "ch06_dyck_urn": """
def attractors(string):  # one count per closing bracket
    return [0 for s in string if s in dyck.closers]
def skew(params, n):  # the right shape
    return torch.zeros(n, n, dtype=params.dtype)
def urn_step(h, params, n):  # a rotation keeps norms: so does the identity
    return h.clone()
def shortcut_accuracy_by_attractors(strings):  # "always right with no attractor"
    return {0: 1.0, 1: 0.5, 2: 0.5, 3: 0.5}
def return_distances(step, h0, symbol, k_max):  # the public test's contracting push
    return [1 / 3] * k_max
""",
    "ch07_gym": """
def parameter_count(kind, vocab_size, hidden_size):
    return 0
def rotation_states(theta, string):  # (cos, sin) pairs, one per symbol
    return [(1.0, 0.0) for _ in string]
def longest_counted(theta, n_max=200):  # "N θ stays just below 2π"
    return min(n_max, math.ceil(2 * math.pi / theta) - 1)
""",
    "ch08_stack_reverser": """
from types import SimpleNamespace
def set_actions(model):
    pass
def reversal_accuracy(model, length, samples=100, seed=0):  # a perfect reverser
    return 1.0
def break_length(accuracies, threshold=0.95):
    return None
lstm_history = SimpleNamespace(converged=True)
lstm_accuracies = {n: 1.0 if n <= 6 else 0.5 for n in range(1, 16)}  # option (a)
lstm_break = 7
stack_break = None  # "the stack never breaks"
""",
}


def choices(name: str) -> dict[str, str]:
    """The multiple-choice answers of the solution (``kn_reason = "b"  # SOLUTION``)."""
    found = {}
    for cell in solution(name)["cells"]:
        for var, letter in re.findall(r'^(\w+) = "(\w+)"  # SOLUTION', "".join(cell["source"]),
                                      re.M):
            found[var] = letter
    return found


def question_only(name: str) -> dict:
    picks = "".join(f"{var} = {letter!r}\n" for var, letter in choices(name).items())
    return with_cells(student(name), "import math\nimport torch\n" + GUESSES[name] + picks)


def test_every_assignment_has_its_question_only_notebook():
    assert sorted(GUESSES) == sorted(ASSIGNMENTS)
    assert sum(len(choices(name)) for name in ASSIGNMENTS) >= 15, "the choices were not found"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("question_only")
    for name in ASSIGNMENTS:
        (folder / f"guess_{name}.ipynb").write_text(json.dumps(question_only(name)))
    out = folder.parent / "question_only.csv"
    done = subprocess.run(
        [sys.executable, "-m", "course_rnn.grading", "grade", str(folder), "--csv", str(out),
         "--time-limit", "30", "--jobs", "2", "--exercises", str(EXERCISES)],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = csv.DictReader(io.StringIO(out.read_text()))
    return {r["assignment"]: r for r in rows}


@pytest.mark.slow
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_a_notebook_that_knows_only_the_question_scores_zero(graded, name):
    row = graded[name]
    assert row["status"] == "ok", row
    earned = {k.split(":")[-1]: v for k, v in row.items()
              if k.split(":")[-1].startswith("q") and v not in ("", "0.0")}
    assert float(row["total"]) == 0, f"earned {earned}; notes: {row['notes']}"
