"""Graded exercises: student versions from otter-grader, and a batch grader that a hostile class
cannot fool, escape or stop.

Four commands (``python -m course_rnn.grading assign | check | archives | grade``; each takes
``--exercises DIR``, the exercises folder, before or after the command; without it,
``$COURSE_RNN_EXERCISES``, else the nearest ``exercises/`` at or above the current folder:
:mod:`.locate`. In Python the same folder is ``root=``):

``assign``
    Runs ``otter assign`` on every source notebook ``exercises/source/chNN_*.ipynb`` (solutions
    and tests in otter's format) and writes the student notebook with its *public* tests to
    ``exercises/student/chNN_*/`` and the instructor bundle (solution notebook, all tests,
    hidden ones included) to ``exercises/autograder/chNN_*/``. It then runs the solution through
    the grader and stores what every hidden test case evaluates to in ``expected.json``: those
    values are the answer key.
``check``
    Regenerates into a temporary folder and lists every committed file that differs.
``archives --out DIR``
    One zip per assignment for students: the notebook, its public tests, a README
    (:mod:`.archives`; the website's Exercises page offers them). The notebook alone is enough:
    ``assign`` packs its public tests into its setup cell (:mod:`.handout`).
``grade SUBMISSIONS [--csv grades.csv] [--overwrite] [--jobs 2] [--time-limit 60] …``
    Grades every notebook in a folder, each in its own bubblewrap sandbox, and writes one CSV
    row per submission with points per question.

How a submission is graded, and why it cannot fake its score
------------------------------------------------------------
Students get instant feedback from ``grader.check("q1")`` (:mod:`.feedback`: the public tests
packed into the notebook, one sentence per failed check); those carry no points. Every point
comes from a *hidden* case, a *probe*: code whose last expression is a value computed from the
student's answers (``counted_up_to(*counter_weights(), 50)``), never a verdict.

1. The parent (:mod:`.batch`) takes only regular files of bounded size (never following a
   symlink, never opening a FIFO or device), extracts the code cells with a parser that bounds
   depth and number length (:mod:`.intake`, :mod:`.safejson`) and never runs them.
2. :mod:`.runner` starts one sandbox for the submission (:mod:`.sandbox` says exactly what it
   sees and may do): no answer key, solutions, other submissions or project tree inside, no
   network, its own PID namespace, one unprivileged process with rlimits.
3. Inside, :mod:`.child` runs the course's provided code, then the cells as Jupyter reads them
   (IPython's input transformation; an exception or ``sys.exit()`` costs only its cell; a cell
   gets ``cell_timeout`` seconds), then each probe with its reads of the answers recorded
   (:mod:`.answers`), and reports **only the answers, as data** (numbers, strings, tensors
   and arrays of exact dtype; for an answer function, its outputs on the inputs the probe
   gave it and the new state of any argument it changed; never pickle). Then that sandbox is
   killed.
4. A second, fresh sandbox holds only the course's code and that data: it runs the provided
   code and every probe again, the answers given back as recorded, so that every measurement
   (building a model from submitted weights, counting, training, predicting) is the course's
   own code, which the submission never touched. It reports each probe's value.
5. The parent reads bounded, strictly parsed lines (:mod:`.collector`), kills each sandbox at
   its end or at the time limit and waits until it is gone, compares each value with the key
   (:mod:`.scoring`, :mod:`.values`: numbers by value, floats within ``rtol=1e-4, atol=1e-6``)
   and writes the CSV atomically.

The modules, one job each: :mod:`.locate` (where the exercises folder is), :mod:`.assignments`
(building the student versions and the answer keys), :mod:`.otter_files` (otter's test files,
read), :mod:`.handout` (the student notebook's top and setup cell), :mod:`.feedback`
(``grader.check`` in the student's kernel), :mod:`.archives` (the students' downloads),
:mod:`.intake`, :mod:`.sandbox`, :mod:`.runner`, :mod:`.collector`, :mod:`.child`,
:mod:`.answers` (sandboxed running), :mod:`.scoring` and :mod:`.values` (scoring), :mod:`.batch`
(a folder of submissions to a CSV), :mod:`.cli` (the commands).

Whatever the submission does to its own process, it changes only the answers it reports; an
answer earns a point only if what the course's code computes from it equals what it computes
from the reference solution's, which no sandbox sees. Limits: no defence against a student who
calls the course library's reference implementation instead of writing their own; the probes'
code and inputs are visible in the submission's sandbox (it must call the answers on them).
"""

from .assignments import (
    Assignment,
    Case,
    asked_errors,
    assign,
    check_up_to_date,
    hidden_cases,
    load_assignment,
    write_answer_key,
)
from .batch import Result, grade_folder, grade_notebook, write_csv
from .cli import main
from .intake import read_submission
from .locate import ExercisesNotFound, find_exercises
from .runner import TIME_LIMIT, RunInfo, SandboxError, run_notebook, sandbox_problem
from .safejson import escape, parse_json
from .sandbox import SandboxUnavailable
from .scoring import score
from .values import to_value, values_match

__all__ = [
    "TIME_LIMIT", "Assignment", "Case", "ExercisesNotFound", "Result", "RunInfo", "SandboxError",
    "SandboxUnavailable", "asked_errors", "assign", "check_up_to_date", "escape",
    "find_exercises", "grade_folder", "grade_notebook", "hidden_cases", "load_assignment", "main",
    "parse_json", "read_submission", "run_notebook", "sandbox_problem", "score", "to_value",
    "values_match", "write_answer_key", "write_csv",
]
