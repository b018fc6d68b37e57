"""The intake never changes what Python would run: IPython magics and shell lines are recognised
only at the start of a logical line (where IPython itself recognises them), and a cell is split
into lines at ``\\n`` only, so that a continuation line starting with ``!=`` or ``%`` inside
brackets, and U+2028, U+0085 or a form feed inside a string literal, reach the sandbox as the
student wrote them."""

from __future__ import annotations

import json

import pytest

from course_rnn.grading.child import _Shell
from course_rnn.grading.intake import as_ipython_runs, notebook_cells, without_magics

KEPT = [  # Python that must reach the sandbox unchanged (each compiles)
    'ok = (nonlinearity\n != "tanh")',
    "ok = (10\n % 3)",
    "ok = [1,\n    2 != 3]",
    'ok = """\n%not a magic\n!nor a shell line\n"""',
    "ok = 1 + \\\n  2",
    "ok = max(\n'''(\n''',\n 'x')",
    "ok = 'a(' + \\\n'b'",
    "ok = ('(' # a comment (\n , 3)",
    "ok = ('a\\\n%b')",
]


@pytest.mark.parametrize("source", KEPT)
def test_python_inside_brackets_strings_and_continuations_is_kept(source):
    compile(source, "<cell>", "exec")
    assert without_magics(source) == source


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x0c", "\x1c", "\x1d", "\x1e",
                                  "\x0b"])
def test_line_separators_inside_strings_stay_where_they_are(char):
    source = f"s = 'a{char}b'\nt = len(s)"
    assert without_magics(source) == source
    nb = {"cells": [{"cell_type": "code", "source": source, "metadata": {}}]}
    [[_, code]] = notebook_cells(json.dumps(nb).encode())
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["s"] == f"a{char}b" and namespace["t"] == 3


def test_a_continuation_line_that_starts_with_bang_equals_runs():
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": [
        "nonlinearity = 'relu'\n", "different = (nonlinearity\n", "             != 'tanh')\n",
        "%matplotlib inline\n", "!pip install nothing\n"]}]}
    [[_, code]] = notebook_cells(json.dumps(nb).encode())  # the cell as written: the sandbox
    runs = as_ipython_runs(code)  # reads it as IPython does
    namespace: dict = {"get_ipython": _Shell({}).get}
    exec(runs, namespace)
    assert namespace["different"] is True
    assert all("get_ipython()" in line for line in runs.splitlines()[3:])


MAGICS = [
    "%time f()\n!ls -la (\ny = 1",
    "if a:\n    %matplotlib inline\nelse:\n    !pip install x\nz = 2",
    "x = 1\n  %load_ext autoreload\ny = (2,\n3)\n!echo ')'\nw = 4",
    's = "a\u2028b"\n%magic\nt = 1',
    "def f():\n    !ls\n    return 1",
]


@pytest.mark.filterwarnings("ignore:`make_tokens_by_line`:UserWarning")
@pytest.mark.parametrize("source", MAGICS)
def test_magics_become_pass_on_the_lines_ipython_would_run_as_magics(source):
    """IPython's own transformer is the reference for which lines are magics."""
    transformer = pytest.importorskip("IPython.core.inputtransformer2")
    ipython = transformer.TransformerManager().transform_cell(source).split("\n")
    ours = without_magics(source).split("\n")
    assert len(ours) == len(source.split("\n"))  # line numbers stay
    theirs = {i for i, line in enumerate(ipython) if "get_ipython()" in line}
    assert {i for i, line in enumerate(ours) if line.strip() == "pass"} == theirs
    for i, (mine, original) in enumerate(zip(ours, source.split("\n"))):
        if i not in theirs:
            assert mine == original


def test_otter_statements_are_dropped_whole_even_over_several_lines():
    source = ('import otter\ngrader = otter.Notebook("x.ipynb")\ngrader.check(\n    "q1")\n'
              "x = 1")
    assert without_magics(source) == "pass\npass\npass\n\nx = 1"
    assert without_magics("graded = grader_check(1)") == "graded = grader_check(1)"


def test_scanning_a_long_hostile_line_is_linear():
    import time

    line = "x = '" + "\\\\" * 1_000_000 + "'" + " + (" * 100_000 + "1" + ")" * 100_000
    start = time.process_time()
    assert without_magics(line + "\n!ls") == line + "\npass"
    assert time.process_time() - start < 10
