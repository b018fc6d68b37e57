"""The grader's promises: reference → full marks, blank → 0, partly wrong → partial credit, and
hostile or broken submissions scored without crashing the batch or being believed.

All submissions are graded in ONE batch (``grade_folder``, 2 at a time), as an instructor would.
"""

import csv
import json
from pathlib import Path

import pytest

from course_rnn.grading import ROOT, check_up_to_date, grade_folder, values_match

ASSIGNMENTS = ("ch01_bengio", "ch02_srn", "ch03_lstm_cell", "ch04_decay_rnn", "ch05_pdda",
               "ch06_dyck_urn")
TIME_LIMIT = 12.0  # the hard limit; a cell gets half of it
OUTSIDE = "grading-escape-{}.txt"  # files a hostile submission tries to create outside its folder


def student(name: str) -> dict:
    return json.loads((ROOT / "student" / name / f"{name}.ipynb").read_text())


def solution(name: str) -> dict:
    return json.loads((ROOT / "autograder" / name / "solution.ipynb").read_text())


def code(text: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": text}


def answer(nb: dict, function: str, source: str) -> dict:
    """Replace the cell that defines ``function`` with ``source``."""
    for cell in nb["cells"]:
        if "".join(cell["source"]).startswith(f"def {function}("):
            cell["source"] = source
            return nb
    raise AssertionError(f"no answer cell for {function}")


def with_cells(nb: dict, *sources: str, at: int | None = None) -> dict:
    cells = [code(s) for s in sources]
    if at is None:
        nb["cells"] += cells
    else:
        nb["cells"][at:at] = cells
    return nb


# -- the submissions ---------------------------------------------------------------------------
LIBRARY_ANSWERS = {  # answers that call the library's reference implementations
    "ch03_lstm_cell": {
        "lstm_step": "from course_rnn.models.lstm import LSTMCell\n"
        "def lstm_step(x, h, c, W, U, b):\n"
        "    with torch.no_grad():\n"
        "        return LSTMCell.from_torch(torch_cell(W, U, b))(x, (h, c))\n",
    },
    "ch05_pdda": {
        "pdda_step": "from course_rnn.languages.tabor import PDDA1\n"
        "def pdda_step(z, symbol):\n    return PDDA1().step(z, symbol)\n",
        "pdda_accepts": "def pdda_accepts(sentence):\n    return PDDA1().accepts(sentence)\n",
    },
    "ch01_bengio": {
        "bengio_logits": "def bengio_logits(contexts, C, H, d, U, W, b):\n"
        "    return library_model(C, H, d, U, W, b)(contexts)\n",
        "kn_unigram": "def kn_unigram(sentences, discount=0.75):\n"
        "    lm = KneserNeyLM(order=2, discount=discount).fit(sentences)\n"
        "    return {w: lm.prob_by_order(w)[1] for w in lm.vocabulary}\n",
        "kn_perplexity": "def kn_perplexity(lm, sentences):\n    return lm.perplexity(sentences)\n",
    },
    "ch02_srn": {
        "srn_step": "from course_rnn.models.srn import SRNCell\n"
        "def srn_step(x, h, W, U, b):\n"
        "    return SRNCell.from_torch(torch_cell(W, U, b))(x, h)\n",
        "srn_run": "def srn_run(xs, W, U, b, h0=None):\n"
        "    with torch.no_grad():\n"
        "        return torch_rnn(W, U, b)(xs, None if h0 is None else h0[None])[0]\n",
        "loss_lower_bound": "from course_rnn.analysis.hidden import exact_cross_entropy\n"
        "from course_rnn.languages.vocab import Vocab\n"
        "from course_rnn.models.srn import SRN\n"
        "def loss_lower_bound():\n"
        "    vocab = Vocab(elman.alphabet)\n"
        "    return exact_cross_entropy(SRN(len(vocab), 4, seed=0), vocab, elman)['entropy']\n",
    },
    "ch04_decay_rnn": {
        "dale_matrix": "def dale_matrix(W):\n"
        "    model = DecayRNN(vocab_size=1, hidden_size=W.shape[0])\n"
        "    with torch.no_grad():\n"
        "        model.weight_hh.copy_(W)\n"
        "        return model.recurrent_matrix()\n",
        "decay_step": "def decay_step(x, h, U, b, W, alpha):\n"
        "    with torch.no_grad():\n"
        "        return library_cell(U, b, W, alpha).step(x, h)\n",
        "count_attractors": "from course_rnn.languages import agreement as grammar\n"
        "def count_attractors(words, subject_index, verb_index):\n"
        "    return grammar.count_attractors(words, subject_index, verb_index)\n",
    },
    "ch06_dyck_urn": {
        "attractors": "def attractors(string):\n    return dyck.attractors(string)\n",
        "skew": "from course_rnn.models.urn import skew_symmetric\n"
        "def skew(params, n):\n    return skew_symmetric(params, n)\n",
    },
}


def library_backed(name: str) -> dict:
    nb = solution(name)
    for function, source in LIBRARY_ANSWERS[name].items():
        answer(nb, function, source)
    return nb


def partly_wrong() -> dict:
    """The output gate forgets the tanh: C_t right, h_t wrong; q3 is answered right."""
    nb = solution("ch03_lstm_cell")
    return answer(nb, "lstm_step", (
        "def lstm_step(x, h, c, W, U, b):\n"
        "    i, f, g, o = (x @ W.T + h @ U.T + b).chunk(4, dim=-1)\n"
        "    c_t = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)\n"
        "    return torch.sigmoid(o) * c_t, c_t\n"))


PARTLY_WRONG = {  # one mistake each in the other assignments: points per question expected
    "ch01_bengio": (  # the context read newest word first: right only when it is one word
        "bengio_logits", "def bengio_logits(contexts, C, H, d, U, W, b):\n"
        "    x = C[contexts.flip(1)].flatten(1)\n"
        "    y = b + (0 if W is None else x @ W.T)\n"
        "    return y if H is None else y + torch.tanh(d + x @ H.T) @ U.T\n",
        {"q1": 1.0, "q2": 3.0, "q3": 3.0, "q4": 3.0},
    ),
    "ch02_srn": (  # h0 ignored: only the case that starts from h0 fails
        "srn_run", "def srn_run(xs, W, U, b, h0=None):\n"
        "    h, states = xs.new_zeros(xs.shape[1], U.shape[1]), []\n"
        "    for x in xs:\n"
        "        h = srn_step(x, h, W, U, b)\n"
        "        states.append(h)\n"
        "    return torch.stack(states)\n",
        {"q1": 3.0, "q2": 2.0, "q3": 3.0, "q4": 2.0},
    ),
    "ch04_decay_rnn": (  # ⌊0.8 H⌋ excitatory units instead of ⌈0.8 H⌉: wrong for H = 1, 6, 7
        "dale_matrix", "def dale_matrix(W):\n"
        "    signs = -torch.ones(W.shape[0])\n"
        "    signs[: int(0.8 * W.shape[0])] = 1.0\n"
        "    return torch.relu(W) * signs\n",
        {"q1": 1.0, "q2": 2.0, "q3": 2.0, "q4": 3.0},
    ),
}


def cheater() -> dict:
    """Wrong answers plus every way of faking a pass from inside the process."""
    nb = student("ch03_lstm_cell")
    answer(nb, "lstm_step", "def lstm_step(x, h, c, W, U, b):\n    return h, c\n")
    answer(nb, "lstm_run", "def lstm_run(xs, W, U, b):\n    return xs\n")
    answer(nb, "forget_bias_for_half_life", "def forget_bias_for_half_life(T):\n    return 0.0\n")
    return with_cells(nb, (
        "import json, builtins, numpy, otter\n"
        "torch.allclose = lambda *a, **k: True\n"
        "torch.equal = lambda *a, **k: True\n"
        "numpy.allclose = lambda *a, **k: True\n"
        "otter.Notebook.check = lambda self, *a, **k: None\n"
        "import course_rnn.grading as g\n"
        "g.values_match = lambda *a, **k: True\n"
        "g.to_value = lambda obj, depth=0: {'t': 'bool', 'v': True}\n"
        "with open('results.jsonl', 'w') as f:\n"
        "    for q, n in [('q1', 4), ('q2', 3), ('q3', 3)]:\n"
        "        for i in range(1, n + 1):\n"
        "            f.write(json.dumps({'id': f'{q}/{i}', 'value': {'t': 'bool', 'v': True},\n"
        "                                'points': 99}) + '\\n')\n"))


def escaper(outside: Path) -> dict:
    """A correct notebook that also tries to write outside its folder, in several ways."""
    target = str(outside / OUTSIDE)
    return with_cells(solution("ch03_lstm_cell"), *(
        f"open({target.format('open')!r}, 'w').write('x')",
        f"import pathlib; pathlib.Path({target.format('pathlib')!r}).write_text('x')",
        f"import os; os.system('touch {target.format('system')}')",
        f"import subprocess; subprocess.run(['touch', {target.format('subprocess')!r}])",
        f"import os; os.chdir('/'); open({target.format('chdir')!r}.lstrip('/'), 'w')",
        f"import ctypes; ctypes.CDLL(None).system(b'touch {target.format('ctypes')}')",
        f"import shutil; shutil.copy('submission.ipynb', {target.format('copy')!r})",
        "import os.path; os.path.realpath = lambda p: '.'; "
        f"open({target.format('patched')!r}, 'w')",
    ))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade every submission below in one batch; return {submission: (row, result)}."""
    folder = tmp_path_factory.mktemp("submissions")
    outside = tmp_path_factory.mktemp("outside")
    notebooks = {}
    for name in ASSIGNMENTS:
        notebooks[f"reference_{name}"] = solution(name)
        notebooks[f"library_{name}"] = library_backed(name)
        notebooks[f"blank_{name}"] = student(name)
    for name, (function, source, _) in PARTLY_WRONG.items():
        notebooks[f"partial_{name}"] = answer(solution(name), function, source)
    notebooks |= {
        "partial_ch03_lstm_cell": partly_wrong(),
        "cheater_ch03_lstm_cell": cheater(),
        "escaper_ch03_lstm_cell": escaper(outside),
        "loop_ch03_lstm_cell": with_cells(solution("ch03_lstm_cell"), "while True: pass", at=2),
        "stubborn_loop_ch03_lstm_cell": with_cells(solution("ch03_lstm_cell"), (
            "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "while True:\n    try:\n        pass\n    except BaseException:\n        pass")),
        "sysexit_ch03_lstm_cell": with_cells(solution("ch03_lstm_cell"), "import sys; sys.exit(3)",
                                             "exit()", at=2),
        "osexit_ch03_lstm_cell": with_cells(solution("ch03_lstm_cell"), "import os; os._exit(0)"),
        "syntax_ch03_lstm_cell": answer(solution("ch03_lstm_cell"), "forget_bias_for_half_life",
                                        "def forget_bias_for_half_life(T)\n    return 1"),
        "loud_ch03_lstm_cell": with_cells(solution("ch03_lstm_cell"),
                                          "for _ in range(40):\n    print('x' * 1_000_000)", at=2),
    }
    for stem, nb in notebooks.items():
        (folder / f"{stem}.ipynb").write_text(json.dumps(nb))
    (folder / "broken_ch03_lstm_cell.ipynb").write_text("{ this is not json")
    (folder / "unknown.ipynb").write_text(json.dumps(student("ch03_lstm_cell") | {"metadata": {}}))

    csv_path = folder / "grades.csv"
    results = grade_folder(folder, csv_path, time_limit=TIME_LIMIT, jobs=2)
    rows = {row["submission"]: row for row in csv.DictReader(csv_path.open())}
    return {Path(r.submission).stem: (rows[r.submission], r) for r in results}, outside


def total(graded, stem) -> float:
    return graded[0][stem][1].total


def full(graded, stem) -> float:
    return sum(graded[0][stem][1].max_points.values())


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_reference_solution_gets_full_marks(graded, name):
    assert total(graded, f"reference_{name}") == full(graded, f"reference_{name}") > 0


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_answer_key_agrees_with_the_library(graded, name):
    """Answers that call course_rnn's reference implementations also get full marks."""
    assert total(graded, f"library_{name}") == full(graded, f"library_{name}")


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_blank_student_notebook_gets_zero(graded, name):
    assert total(graded, f"blank_{name}") == 0


def test_partly_wrong_gets_partial_credit_per_case(graded):
    points = graded[0]["partial_ch03_lstm_cell"][1].points
    assert points == {"q1": 1.0, "q2": 0.0, "q3": 3.0}  # q1: only the C_t case passes


@pytest.mark.parametrize("name", PARTLY_WRONG)
def test_one_mistake_costs_only_the_cases_it_breaks(graded, name):
    assert graded[0][f"partial_{name}"][1].points == PARTLY_WRONG[name][2]


def test_monkeypatching_the_checker_earns_nothing(graded):
    assert total(graded, "cheater_ch03_lstm_cell") == 0


def test_writes_outside_the_folder_are_refused_and_still_scored(graded):
    outside = graded[1]
    assert list(outside.iterdir()) == []
    assert total(graded, "escaper_ch03_lstm_cell") == full(graded, "escaper_ch03_lstm_cell")
    notes = " ".join(graded[0]["escaper_ch03_lstm_cell"][1].run.notes)
    assert notes.count("PermissionError") >= 7


def test_infinite_loop_in_a_cell_is_interrupted_and_the_rest_scored(graded):
    assert total(graded, "loop_ch03_lstm_cell") == full(graded, "loop_ch03_lstm_cell")


def test_loop_that_ignores_interrupts_hits_the_time_limit(graded):
    row, result = graded[0]["stubborn_loop_ch03_lstm_cell"]
    assert result.run.status == "timeout" and result.total == 0
    assert result.run.seconds < TIME_LIMIT + 10


def test_sys_exit_does_not_stop_the_notebook(graded):
    assert total(graded, "sysexit_ch03_lstm_cell") == full(graded, "sysexit_ch03_lstm_cell")


def test_os_exit_is_scored_zero_not_crashed_on(graded):
    assert total(graded, "osexit_ch03_lstm_cell") == 0


def test_syntax_error_costs_only_that_question(graded):
    points = graded[0]["syntax_ch03_lstm_cell"][1].points
    assert points == {"q1": 4.0, "q2": 3.0, "q3": 0.0}


def test_huge_output_is_capped(graded):
    _, result = graded[0]["loud_ch03_lstm_cell"]
    assert result.total == full(graded, "loud_ch03_lstm_cell")
    assert len(result.run.output) <= 64_000


def test_batch_writes_one_row_per_submission_with_points_per_question(graded):
    rows = {stem: row for stem, (row, _) in graded[0].items()}
    assert len(rows) == 3 * len(ASSIGNMENTS) + len(PARTLY_WRONG) + 11
    assert rows["broken_ch03_lstm_cell"]["total"] == "0.0"
    assert rows["unknown"]["assignment"] == "?"
    assert rows["partial_ch03_lstm_cell"]["q1"] == "1.0"
    assert rows["reference_ch06_dyck_urn"]["q4"] == "2.0"


def test_values_match_is_strict_about_type_and_shape():
    a = {"t": "array", "dtype": "float", "shape": [2], "data": [1.0, 2.0]}
    assert values_match(a, a)
    assert values_match({**a, "data": [1.0, 2.0 + 1e-7]}, a)
    assert not values_match({**a, "data": [1.0, 2.01]}, a)
    assert not values_match({**a, "shape": [1, 2]}, a)
    assert not values_match({"t": "bool", "v": True}, a)
    assert not values_match({**a, "data": [1.0, float("nan")]}, a)
    assert not values_match("garbage", a)


def test_committed_student_versions_are_up_to_date():
    assert check_up_to_date() == [], "run: python -m course_rnn.grading assign"
