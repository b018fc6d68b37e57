"""Submissions for the grader's tests, and THE batch: every honest, broken and hostile notebook
below is graded in one run of the real command (``python -m course_rnn.grading grade``), two at a
time, as an instructor would. Tests read its CSV, its summary and what the host saw.

Hostile notebooks are written as a determined class would write them; each attack reports what
it managed from the inside in a cell error (``raise RuntimeError("leaks=[...]")``), which the CSV
keeps in ``notes``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import socket
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from course_rnn.grading.sandbox import ENV, PASSED_ENV, SANDBOX_UID_BASE

REPO = Path(__file__).resolve().parents[2]
EXERCISES = REPO / "exercises"  # the tests live in the repository: its exercises folder
# every source notebook is an assignment: a new one is graded, archived and checked at once
ASSIGNMENTS = tuple(sorted(p.stem for p in (EXERCISES / "source").glob("ch[0-9][0-9]_*.ipynb")))
TIME_LIMIT = 30.0  # the hard limit; a cell gets half of it (slack for a loaded machine: the
# assignments that train take ≈ 5 s of CPU, 15 s of wall time when other jobs share the cores)
MARK = f"grading-escape-{uuid.uuid4().hex[:8]}"  # files an attack tries to leave on the host
SECRET = f"hunter2-{uuid.uuid4().hex}"  # in the grader's environment: must never reach the CSV


# -- building notebooks ------------------------------------------------------------------------
def student(name: str) -> dict:
    return json.loads((EXERCISES / "student" / name / f"{name}.ipynb").read_text())


def solution(name: str) -> dict:
    return json.loads((EXERCISES / "autograder" / name / "solution.ipynb").read_text())


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


def answers(name: str) -> list[str]:
    """The functions a student writes in an assignment."""
    return [src.split("(")[0][4:] for src in ("".join(c["source"]) for c in
            student(name)["cells"]) if src.startswith("def ") and src.rstrip().endswith("...")]


# -- honest submissions ------------------------------------------------------------------------
LIBRARY_ANSWERS = {  # answers that call the library's reference implementations
    "ch05_pdda": {
        "pdda_step": "from course_rnn.languages.tabor import PDDA1\n"
        "def pdda_step(z, symbol):\n    return PDDA1().step(z, symbol)\n",
        "pdda_accepts": "def pdda_accepts(sentence):\n    return PDDA1().accepts(sentence)\n",
    },
    "ch01_bengio": {
        "kn_unigram": "def kn_unigram(sentences, discount=0.75):\n"
        "    lm = KneserNeyLM(order=2, discount=discount).fit(sentences)\n"
        "    return {w: lm.prob_by_order(w)[1] for w in lm.vocabulary}\n",
        "kn_perplexity": "def kn_perplexity(lm, sentences):\n    return lm.perplexity(sentences)\n",
    },
    "ch02_srn": {
        "srn_step": "from course_rnn.models.srn import SRNCell\n"
        "def srn_step(x, h, W, U, b):\n"
        "    return SRNCell.from_torch(torch_cell(W, U, b))(x, h)\n",
        "clip_gradients": "def clip_gradients(grads, max_norm):\n"
        "    norm = float(torch.nn.utils.get_total_norm(grads))\n"
        "    if norm > max_norm:\n"
        "        for g in grads:\n"
        "            g.mul_(max_norm / norm)\n"
        "    return norm\n",
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
        "    return library_cell(U, b, W, alpha).step(h, x)\n",
        "count_attractors": "from course_rnn.languages import agreement as grammar\n"
        "def count_attractors(words, subject_index, verb_index):\n"
        "    return grammar.count_attractors(words, subject_index, verb_index)\n",
    },
    "ch08_stack_reverser": {
        "set_actions": "from course_rnn.models.stack_rnn import set_reverser_actions\n"
        "def set_actions(model):\n    set_reverser_actions(model)\n",
    },
    "ch06_dyck_urn": {
        "attractors": "def attractors(string):\n    return dyck.attractors(string)\n",
        "skew": "from course_rnn.models.urn import skew_symmetric\n"
        "def skew(params, n):\n    return skew_symmetric(params, n)\n",
    },
}


def library_backed(name: str) -> dict:
    """The solution, with every answer the library implements taken from the library (an
    assignment whose answers the library does not hold is graded as its solution)."""
    nb = solution(name)
    for function, source in LIBRARY_ANSWERS.get(name, {}).items():
        answer(nb, function, source)
    return nb


PARTLY_WRONG = {  # one mistake each: (function, answer, points per question expected)
    "ch03_lstm_cell": (  # gates only nearly open (σ(5) ≈ 0.993): counts short strings only
        "counter_weights", "def counter_weights():\n"
        "    W = torch.tensor([[0.0, 0.0], [0.0, 0.0], [5.0, -5.0], [0.0, 0.0]])\n"
        "    return W, torch.zeros(4, 1), torch.tensor([5.0, 5.0, 0.0, 0.0])\n",
        {"q1": 1.0, "q2": 3.0, "q3": 3.0},
    ),
    "ch01_bengio": (  # the final </s> of each sentence not counted: every perplexity differs,
        # and q3's letter earns nothing beside no computed case of q3
        "kn_perplexity", "def kn_perplexity(lm, sentences):\n"
        "    return perplexity([lm.prob(t, s[:i]) for s in sentences for i, t in enumerate(s)])\n",
        {"q1": 3.0, "q2": 4.0, "q3": 0.0, "q4": 4.0},
    ),
    "ch02_srn": (  # each tensor clipped by its own norm: right only where nothing is clipped
        "clip_gradients", "def clip_gradients(grads, max_norm):\n"
        "    norm = math.sqrt(sum(float((g**2).sum()) for g in grads))\n"
        "    for g in grads:\n"
        "        own = float(g.norm())\n"
        "        if own > max_norm:\n"
        "            g.mul_(max_norm / own)\n"
        "    return norm\n",
        {"q1": 3.0, "q2": 4.0, "q3": 2.0, "q4": 4.0, "q5": 2.0},
    ),
    "ch08_stack_reverser": (  # logits ±5, not ±20: a wrong action 0.7 % a step blurs a long stack
        "set_actions", "def set_actions(model):\n"
        "    k = model.stack_width\n"
        "    with torch.no_grad():\n"
        "        model.actions.weight.zero_()\n"
        "        model.actions.bias.zero_()\n"
        "        model.actions.weight[0, :k] = model.actions.weight[1, k:2 * k] = 5.0\n"
        "        model.actions.bias[:2] = 5.0 * (k - 1)\n",
        {"q1": 1.0, "q2": 3.0, "q3": 2.0},
    ),
    "ch04_decay_rnn": (  # ⌊0.8 H⌋ excitatory units instead of ⌈0.8 H⌉: wrong for H = 1, 6, 7
        "dale_matrix", "def dale_matrix(W):\n"
        "    signs = -torch.ones(W.shape[0], dtype=W.dtype)\n"
        "    signs[: int(0.8 * W.shape[0])] = 1.0\n"
        "    return torch.relu(W) * signs\n",
        {"q1": 1.0, "q2": 2.0, "q3": 4.0, "q4": 4.0},
    ),
}

FAIR = {  # right answers in other forms the public tests accept: (assignment, {function: form
    # of the reference's result r}); each must get full marks
    "fair_ch03_lstm_cell_tensors": ("ch03_lstm_cell", {
        "forget_bias_for_half_life": "torch.tensor(r, dtype=torch.float64)",  # a 0-d tensor
        "counter_weights": "tuple(t.tolist() for t in r)"}),  # nested lists for tensors
    "fair_ch03_lstm_cell_numpy": ("ch03_lstm_cell", {
        "forget_bias_for_half_life": "np.array(r)"}),  # a 0-d array
    "fair_ch05_pdda_tuples": ("ch05_pdda", {
        "pdda_step": "tuple(float(v) for v in r)",  # np.allclose accepts a tuple
        "pdda_accepts": "def pdda_accepts(sentence):\n"
        "    z = (0.0, 0.0)\n"
        "    try:\n"
        "        for word in sentence:\n"
        "            z = pdda_step(z, word)\n"
        "    except ValueError:\n"
        "        return False\n"
        "    return len(sentence) > 0 and z == (0.0, 0.0)\n"}),
    "fair_ch02_srn_forms": ("ch02_srn", {
        "clip_gradients": "torch.tensor(r, dtype=torch.float64)",  # a 0-d tensor
        "state_gradients": "np.array(r)",  # an array for a list
        "sample_sentence": "list(r)"}),  # a list for a tuple
    "fair_ch01_bengio_numpy": ("ch01_bengio", {  # another key order, numpy values
        "kn_unigram": "dict(reversed([(w, np.float64(p)) for w, p in r.items()]))",
        "perplexity": "torch.tensor(r, dtype=torch.float64)"}),
    "fair_ch03_lstm_cell_continuations": ("ch03_lstm_cell", {  # lines IPython does not read
        # as magics: a continuation line starting with %, a U+2028 inside a string
        "forget_bias_for_half_life": "(r\n            % 10**9 if len('\u2028') == 1 else None)"}),
}


def fair(stem: str) -> dict:
    """The reference answers, their results returned in another form."""
    name, forms = FAIR[stem]
    nb = solution(name)
    for function, form in forms.items():
        if form.startswith("def "):
            answer(nb, function, form)
            continue
        cell = next(c for c in nb["cells"]
                    if "".join(c["source"]).startswith(f"def {function}("))
        reference = "".join(cell["source"]).replace(f"def {function}(", f"def _{function}(", 1)
        cell["source"] = (f"import numpy as np\nimport torch\n{reference}\n\n"
                          f"def {function}(*args, **kwargs):\n"
                          f"    r = _{function}(*args, **kwargs)\n    return {form}\n")
    return nb


# -- hostile submissions -----------------------------------------------------------------------
def _decoder() -> str:
    return (
        "def _decode(d):\n"
        "    t = d['t']\n"
        "    if t == 'array':\n"
        "        return torch.tensor(d['data'], dtype=torch.float32 if d['dtype'] == 'float'\n"
        "                            else None).reshape(d['shape'])\n"
        "    if t == 'list':\n"
        "        return [_decode(x) for x in d['items']]\n"
        "    if t == 'dict':\n"
        "        return {k: _decode(v) for k, v in d['items']}\n"
        "    return d.get('v')\n")


def read_key(ctx) -> dict:
    """Blank answers; finds the answer key on disk and answers every probe from it (q1's
    from the solution beside it)."""
    key = EXERCISES / "autograder" / "ch03_lstm_cell" / "expected.json"
    return with_cells(student("ch03_lstm_cell"), (
        "import json, os, torch\n" + _decoder() +
        # the key's own path first; the disk is walked only where that fails (a walk of a
        # busy host's /tmp can outlast the cell's time limit)
        "def places():\n"
        f"    yield {str(key)!r}\n"
        "    for top in ('/work', '/root', '/home', '/tmp', '/srv', '/opt', '/mnt'):\n"
        "        for d, dirs, files in os.walk(top):\n"
        "            dirs[:] = [x for x in dirs if x not in ('site-packages', '.git', '.venv')]\n"
        "            yield from (os.path.join(d, f) for f in files if f == 'expected.json')\n"
        "found = None\n"
        "for place in places():\n"
        "    try:\n"
        "        found = json.load(open(place))\n"
        "        break\n"
        "    except OSError:\n"
        "        pass\n"
        "if found:\n"
        "    def items(case):\n"
        "        return [_decode(v) for v in found[case]['items']]\n"
        "    calls = {'c': 0, 't': 0, 'n': 0, 'f': 0}\n"
        "    spans = items('q2/1') + items('q2/2')\n"
        "    best, best_w, best_u = items('q2/3')  # the grid's best count, and where it is\n"
        "    biases = items('q3/1') + [_decode(found['q3/2'])] + items('q3/3')\n"
        "    # q1's probes call the notebook's own helpers (restored before they run) on the\n"
        "    # answer's weights: take the weights from the solution beside the key\n"
        "    solution = json.load(open(os.path.join(os.path.dirname(place), 'solution.ipynb')))\n"
        "    for cell in solution['cells']:\n"
        "        if ''.join(cell['source']).startswith('def counter_weights'):\n"
        "            exec(''.join(cell['source']))\n"
        "    def largest_counted_n(w, u, *a):\n"
        "        calls['n'] += 1\n"
        "        if calls['n'] <= len(spans):\n"
        "            return spans[calls['n'] - 1]\n"
        "        return best if (w, u) == (best_w, best_u) else 0\n"
        "    def forget_bias_for_half_life(T):\n"
        "        calls['f'] += 1\n"
        "        return biases[calls['f'] - 1]\n"
        "raise RuntimeError(f'key-found={bool(found)}')\n"))


def _exec_notebooks(paths: list[str], extra: str = "") -> str:
    return (
        "import json, os\n"
        f"paths = {paths!r}\n" + extra +
        "ran = []\n"
        "for p in paths:\n"
        "    try:\n"
        "        nb = json.load(open(p))\n"
        "    except (OSError, ValueError):\n"
        "        continue\n"
        "    for cell in nb['cells']:\n"
        "        src = ''.join(cell['source'])\n"
        "        if cell['cell_type'] == 'code' and 'otter' not in src and 'grader.' not in src:\n"
        "            exec(src, globals())\n"
        "    ran.append(p)\n"
        "    break\n"
        "raise RuntimeError(f'ran={ran}')\n")


def run_solution(ctx) -> dict:
    """Blank answers; runs the instructor's solution notebook instead."""
    return with_cells(student("ch03_lstm_cell"), _exec_notebooks(
        [str(EXERCISES / "autograder" / "ch03_lstm_cell" / "solution.ipynb"),
         str(EXERCISES / "source" / "ch03_lstm_cell.ipynb")]))


def copy_sibling(ctx) -> dict:
    """Blank answers; copies a classmate's notebook found in the submissions folder or on the
    grader's command line (``/proc/*/cmdline``)."""
    scan = (
        "for pid in os.listdir('/proc'):\n"
        "    try:\n"
        "        argv = open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0')\n"
        "    except OSError:\n"
        "        continue\n"
        "    paths += [a.decode(errors='replace') for a in argv if a.endswith(b'.ipynb')\n"
        "              and a != b'/tmp/submission.ipynb']  # not its own\n"
        f"try:\n    paths += [os.path.join({str(ctx.folder)!r}, f) for f in "
        f"os.listdir({str(ctx.folder)!r})]\nexcept OSError:\n    pass\n")
    return with_cells(student("ch03_lstm_cell"), _exec_notebooks(
        [str(ctx.folder / "reference_ch03_lstm_cell.ipynb")], scan))


def raise_everything(name: str, error: str = "ValueError") -> dict:
    nb = student(name)
    for function in answers(name):
        answer(nb, function, f"def {function}(*args, **kwargs):\n    raise {error}('no')\n")
    return nb


def forge_results(ctx) -> dict:
    """Wrong answers; writes forged result lines straight into the results pipe (and where the
    old grader read them)."""
    nb = student("ch03_lstm_cell")
    return with_cells(nb, (
        "import json, os, sys\n"
        "fd = int(sys.argv[2]) if len(sys.argv) > 2 else 3\n"
        "lines = []\n"
        "for q, n in [('q1', 4), ('q2', 3), ('q3', 3)]:\n"
        "    for i in range(1, n + 1):\n"
        "        lines += [{'id': f'{q}/{i}', 'value': {'t': 'bool', 'v': True}, 'points': 99},\n"
        "                  {'id': f'{q}/{i}', 'value': {'t': 'raised', 'v': 'ValueError'}},\n"
        "                  {'id': f'{q}/{i}', 'score': 1}]\n"
        "text = ''.join(json.dumps(line) + '\\n' for line in lines)\n"
        "os.write(fd, text.encode())\n"
        "open('results.jsonl', 'w').write(text)\n"
        "os.mkfifo('results.fifo')  # where a reader that trusts file names would hang\n"
        "import course_rnn.grading.child as child\n"
        "child.to_value = lambda *a, **k: {'t': 'bool', 'v': True}\n"))


def left_behind(ctx) -> dict:
    """Blank answers; tries to leave a process behind that rewrites the CSV after the grader
    is done (new session, fork, spawn, multiprocessing, raw clone), and a lingering thread."""
    payload = (f"import time; time.sleep(4); open({str(ctx.csv)!r}, 'a').write("
               "'left_behind_ch03_lstm_cell.ipynb,ch03_lstm_cell,4,3,3,10,10,ok,1,\\n')")
    return with_cells(student("ch03_lstm_cell"), *(
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {payload!r}], "
        "start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
        f"import os, time\npid = os.fork()\nif pid == 0:\n    os.setsid()\n    exec({payload!r})\n"
        "    os._exit(0)",
        "import os, sys\n"
        f"os.posix_spawn(sys.executable, [sys.executable, '-c', {payload!r}], {{}})",
        "import multiprocessing as mp, time\n"
        "mp.get_context('spawn').Process(target=time.sleep, args=(30,), daemon=False).start()",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "pid = libc.syscall(56, 17, 0, 0, 0, 0)  # clone(SIGCHLD): a raw fork\n"
        "if pid == 0:\n    libc.pause()\n"
        "assert pid > 0, f'raw clone refused ({ctypes.get_errno()})'",
        "import threading, time\ndef later():\n    time.sleep(1)\n"
        f"    open({str(ctx.csv)!r}, 'a').write('forged')\n"
        "threading.Thread(target=later, daemon=False).start()",
    ))


def escape_writes(ctx) -> dict:
    """A correct notebook that also tries, cell by cell, every way out it can think of."""
    out = str(ctx.outside)
    target = out + "/" + MARK + "-{}"
    keydir = str(EXERCISES / "autograder" / "ch03_lstm_cell")
    cells = [
        "import os; raise RuntimeError('env=' + repr(dict(os.environ)))",
        f"open({target.format('open')!r}, 'w').write('x')",
        f"import pathlib; pathlib.Path({target.format('pathlib')!r}).write_text('x')",
        f"import os; assert os.system('touch {target.format('system')}') == 0, 'system failed'",
        f"import subprocess; subprocess.run(['touch', {target.format('subprocess')!r}])",
        f"import os; os.chdir('/'); open({target.format('chdir')!r}.lstrip('/'), 'w')",
        f"import ctypes; assert ctypes.CDLL(None).system(b'touch {target.format('ctypes')}') == 0",
        f"import shutil; shutil.copy('submission.ipynb', {target.format('copy')!r})",
        f"import os; fd = os.open({out!r}, os.O_RDONLY | os.O_DIRECTORY)\n"
        f"os.write(os.open({MARK + '-dirfd'!r}, os.O_WRONLY | os.O_CREAT, dir_fd=fd), b'x')",
        f"import os; fd = os.open({keydir!r}, os.O_RDONLY | os.O_DIRECTORY)\n"
        "os.write(os.open('expected.json', os.O_RDWR | os.O_TRUNC, dir_fd=fd), b'{}')",
        f"import os; open({keydir + '/expected.json'!r}, 'w').write('{{}}')",
        f"import torch; torch.save(torch.zeros(3), {target.format('torch')!r})",
        f"import torch; torch.from_file({target.format('from_file')!r}, shared=True, size=8)",
        f"import numpy as np; np.zeros(3).tofile({target.format('numpy')!r})",
        f"import os; os.mkfifo({target.format('fifo')!r})",
        f"import os; os.symlink('/etc/passwd', {target.format('symlink')!r})",
        f"open('/dev/shm/{MARK}', 'w').write('x')\nopen('/tmp/{MARK}', 'w').write('x')",
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"s.sendto(b'escape', ('127.0.0.1', {ctx.udp_port}))\n"
        f"s.sendmsg([b'escape'], [], 0, ('127.0.0.1', {ctx.udp_port}))",
        "import socket\n"
        f"socket.create_connection(('127.0.0.1', {ctx.tcp_port}), timeout=2).sendall(b'escape')",
        "import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        f"s.connect({ctx.abstract!r}); s.sendall(b'escape')",
        "import socket; socket.create_connection(('1.1.1.1', 80), timeout=2)",
        "import gc, sys\n"  # the old grader's audit-hook state, rewritten through gc
        "for o in gc.get_objects():\n"
        "    if isinstance(o, tuple) and 'os.system' in o:\n"
        "        print('found the hook state')",
    ]
    return with_cells(solution("ch03_lstm_cell"), *cells)


def explorer(ctx) -> dict:
    """A correct notebook plus one cell that lists everything the sandbox lets it see or do
    that it should not; ``leaks=[]`` in the notes means nothing."""
    secret_paths = [str(EXERCISES / "autograder"), str(EXERCISES / "source"), str(EXERCISES),
                    str(REPO / ".git"), str(ctx.folder), str(ctx.csv.parent), str(ctx.outside),
                    "/root/.ssh", "/etc/shadow", "/var", "/home", "/run", "/sys/kernel"]
    return with_cells(solution("ch03_lstm_cell"), (
        "import os, socket, sys\n"
        "leaks = []\n"
        f"for p in {secret_paths!r}:\n"
        "    if os.path.exists(p):\n"
        "        leaks.append('sees ' + p)\n"
        f"repo = {str(REPO)!r}\n"
        "if os.path.isdir(repo) and set(os.listdir(repo)) - {'.venv', 'src'}:\n"
        "    leaks.append('project tree: ' + ','.join(sorted(os.listdir(repo))))\n"
        f"extra = set(os.environ) - {set(ENV) | {'PWD'} | set(PASSED_ENV)!r}  # bwrap: PWD\n"
        "if extra:\n    leaks.append('environment: ' + ','.join(sorted(extra)))\n"
        "if 0 in os.getresuid() or 0 in os.getresgid():\n    leaks.append('root')\n"
        "status = open('/proc/self/status').read()\n"
        "for field in ('CapEff', 'CapPrm', 'CapBnd'):\n"
        "    if f'{field}:\\t0000000000000000' not in status:\n"
        "        leaks.append(field)\n"
        "if 'NoNewPrivs:\\t1' not in status:\n    leaks.append('new privileges')\n"
        "if b'exercises' in open('/proc/1/cmdline', 'rb').read():\n"
        "    leaks.append('host paths in /proc/1/cmdline')\n"
        "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "if len(pids) > 2 or os.getpid() > 2:\n    leaks.append(f'processes {pids}')\n"
        "for path in ('/usr/x', '/x', f'{repo}/src/x', f'{sys.prefix}/x', '/dev/x'):\n"
        "    try:\n"
        "        open(path, 'w')\n"
        "        leaks.append('writes ' + path)\n"
        "    except OSError:\n"
        "        pass\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    link = os.readlink(f'/proc/self/fd/{fd}') if os.path.exists(f'/proc/self/fd/{fd}') "
        "else ''\n"
        "    if link.startswith('/') and not link.startswith(('/dev/', '/proc/', '/tmp/')):\n"
        "        leaks.append(f'fd {fd} -> {link}')\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=1)\n"
        "    leaks.append('network')\n"
        "except OSError:\n"
        "    pass\n"
        "try:\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os._exit(0)\n"
        "    leaks.append('fork')\n"
        "except OSError:\n"
        "    pass\n"
        "raise RuntimeError('leaks=[' + '|'.join(leaks) + ']')\n"))


def killer(ctx) -> dict:
    """Signals every process it can name (the grader, siblings, PID 1), then itself."""
    return with_cells(student("ch03_lstm_cell"), (
        "import os, signal\n"
        "me = os.getpid()\n"
        "for pid in range(1, 5000):\n"
        "    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP, signal.SIGINT):\n"
        "        if pid != me:\n"
        "            try:\n"
        "                os.kill(pid, sig)\n"
        "            except OSError:\n"
        "                pass\n"
        "for kill in (lambda: os.kill(os.getppid(), signal.SIGKILL),\n"
        "             lambda: os.kill(-1, signal.SIGKILL), lambda: os.killpg(0, signal.SIGKILL)):\n"
        "    try:\n"
        "        kill()\n"
        "    except OSError:\n"
        "        pass\n"))


def resources(ctx) -> dict:
    """A correct notebook that also tries to exhaust memory, disk, processes and threads."""
    return with_cells(solution("ch03_lstm_cell"), *(
        "hog = bytearray(16 * 2**30)",
        "zeros = open('/dev/zero', 'rb').read(2**34)",
        "with open('/tmp/fill', 'wb') as f:\n    for _ in range(100):\n"
        "        f.write(b'\\0' * 2**20)",
        "import os\nfor i in range(100):\n    with open(f'/tmp/fill{i}', 'wb') as f:\n"
        "        f.write(b'\\0' * 2**20 * 20)",
        "import glob, os\nfor p in glob.glob('/tmp/fill*'):\n    os.remove(p)",
        "import os\nfor _ in range(100):\n    os.fork()",
        "import threading, time\nfor _ in range(1000):\n"
        "    threading.Thread(target=time.sleep, args=(1,), daemon=True).start()",
    ))


def garbage_results(ctx) -> dict:
    """A correct notebook that writes malformed lines into its own results pipe first."""
    return with_cells(solution("ch03_lstm_cell"), (
        "import os, sys\n"
        "fd = int(sys.argv[2])\n"
        "os.write(fd, b'x' * (5 * 2**20))  # one 5 MiB line\n"
        "os.write(fd, b'\\n' + b'[' * 200000 + b'\\n')\n"
        "os.write(fd, b'{\"id\": \"q1/1\", \"value\": {\"t\": \"int\", \"v\": ' + b'9' * 100000 "
        "+ b'}}\\n')\n"
        "os.write(fd, b'{\"id\": 5}\\n{\"id\": \"q9/9\", \"value\": {\"t\": \"none\"}}\\n'\n"
        "             b'{\"cell\": \"x\", \"error\": 1}\\n\\xff\\xfe\\n[]\\n\"q1/2\"\\n')\n"
        "os.write(fd, b'{\"id\": \"q2/1\", \"value\": {\"t\": \"array\", \"dtype\": \"float\", '\n"
        "             b'\"shape\": [2], \"data\": \"xx\"}}\\n')\n"
        "os.write(fd, b'{\"id\": \"q2/2\", \"value\": {\"t\": \"list\", \"items\": ' + "
        "b'[' * 50 + b']' * 50 + b'}}\\n')\n"))


# Reports a 351-digit int and a NaN as the answers of two float cases of q3 before the probes
# run (the first line of a case is its answers): once, comparing the int with the key raised
# OverflowError in the parent and stopped the whole batch, with no CSV. (Written as values,
# they are not answers at all: ignored.)
HUGE_NUMBERS = (
    "import json, os, sys\n"
    "fd = int(sys.argv[2])\n"
    "def answered(case, out):\n"
    "    name = 'forget_bias_for_half_life'\n"
    "    return {'id': case, 'events': [{'k': 'function', 'name': name},\n"
    "                                   {'k': 'call', 'name': name, 'out': out}]}\n"
    "for line in ({'id': 'q3/2', 'value': {'t': 'int', 'v': 10**350}},\n"
    "             answered('q3/2', {'t': 'int', 'v': 10**350}),\n"
    "             answered('q3/3', {'t': 'float', 'v': float('nan')})):\n"
    "    os.write(fd, (json.dumps(line) + '\\n').encode())\n")


# Blank answers; the notebook's own helpers rebound to give what a perfect counter gives.
REBOUND_HELPERS = (
    "counted_up_to = lambda W, U, b, n_max: n_max\n"
    "def count_trace(W, U, b, string):\n"
    "    return [string[:i + 1].count('a') - string[:i + 1].count('b')\n"
    "            for i in range(len(string))]\n")
# Weights of the right shapes, every one NaN (a NaN once passed the helpers' tolerance tests).
NAN_WEIGHTS = ("def counter_weights():\n"
               "    nan = float('nan')\n"
               "    return (torch.full((4, 2), nan), torch.full((4, 1), nan),\n"
               "            torch.full((4,), nan))\n")
# An exception whose class name raises when read: it once crashed the child.
NAMELESS_ERROR = ("class _Nameless(type):\n"
                  "    @property\n"
                  "    def __name__(cls):\n"
                  "        raise RuntimeError('no name')\n"
                  "class Odd(Exception, metaclass=_Nameless):\n"
                  "    pass\n"
                  "raise Odd('odd')")


# Each way a blank ch03 notebook with fake helpers once scored 4/10 (issue 42): the submission
# owned the process that evaluated the probes. Each now runs only where answers are produced.
OWNING_THE_PROCESS = {
    # the provided code's re-run stopped at its first import, leaving the fakes in place
    "modules": REBOUND_HELPERS + "import sys\nsys.modules['course_rnn.models.lstm'] = None\n",
    # the child's own functions replaced
    "child": REBOUND_HELPERS + (
        "import course_rnn.grading.child as child\n"
        "child._exec_cell = lambda source, namespace: None\n"
        "child._eval_probe = lambda code, namespace: 50\n"),
    # frames walked up to main(): the provided code and the probes cleared or rewritten
    "frames": REBOUND_HELPERS + (
        "import sys\n"
        "f = sys._getframe()\n"
        "while f is not None:\n"
        "    spec = f.f_locals.get('spec')\n"
        "    if isinstance(spec, dict):\n"
        "        spec['provided'] = []\n"
        "        spec['helpers'] = []\n"
        "        for case in spec.get('cases', []):\n"
        "            case['code'] = '50'\n"
        "    f = f.f_back\n"),
    # compile itself patched: every later cell and probe compiled to the fakes
    "compile": REBOUND_HELPERS + (
        "import builtins\n_compile = builtins.compile\n"
        "def compile(source, *a, **k):\n"
        "    if isinstance(source, str) and 'counted_up_to' in source:\n"
        "        source = 'counted_up_to = lambda W, U, b, n_max: n_max\\n' + source\n"
        "    return _compile(source, *a, **k)\n"
        "builtins.compile = compile\n"),
    # a profile hook that rebinds the fakes before each probe
    "profile": (
        "import sys\n_fakes = {}\nexec(" + repr(REBOUND_HELPERS) + ", _fakes)\n"
        "def hook(frame, event, arg):\n"
        "    if event == 'call':\n"
        "        frame.f_globals.update({k: v for k, v in _fakes.items() if k[0] != '_'})\n"
        "sys.setprofile(hook)\n"),
    # the library patched: the course's cell counts whatever the weights
    "library": (
        "import torch\nfrom course_rnn.models.lstm import LSTMCell\n"
        "def step(self, state, x_t):\n"
        "    raise RuntimeError('patched')\n"
        "LSTMCell.step = step\n"
        "LSTMCell.forward = lambda self, *a, **k: (_ for _ in ()).throw(RuntimeError('x'))\n"
        + REBOUND_HELPERS),
    # an object whose __del__ restores the fakes in the middle of the course's code
    "del": (
        "class Restore:\n"
        "    def __del__(self):\n"
        "        exec(" + repr(REBOUND_HELPERS) + ", globals())\n"
        "import gc\ngc.disable()\n_cycle = Restore(); _cycle.me = _cycle\ndel _cycle\n"
        + REBOUND_HELPERS),
    # answers whose reading patches the library (torch.as_tensor reads them)
    "getitem": (
        "import torch\n"
        "class Sly(list):\n"
        "    def __getitem__(self, i):\n"
        "        import course_rnn.models.lstm as m\n"
        "        m.LSTMCell.step = lambda *a, **k: None\n"
        "        return list.__getitem__(self, i)\n"
        "def counter_weights():\n"
        "    return Sly([[0.0, 0.0]] * 4), Sly([[0.0]] * 4), Sly([0.0] * 4)\n"
        + REBOUND_HELPERS),
    # the probes read from the spec and evaluated with the fakes, reported first, as values
    # and as answers
    "report_first": REBOUND_HELPERS + (
        "import json, os, sys\n"
        "fd = int(sys.argv[2])\n"
        "spec = json.load(open('/grading/spec.json'))\n"
        "ns = dict(globals())\n"
        "ns['__answer__'] = lambda name: ns[name]\n"
        "for case in spec['cases']:\n"
        "    try:\n"
        "        *body, last = case['code'].split('\\n')\n"
        "        exec('\\n'.join(body), ns)\n"
        "        value = eval(last, ns)\n"
        "    except Exception:\n"
        "        continue\n"
        "    from course_rnn.grading.values import to_value\n"
        "    for line in ({'id': case['id'], 'value': to_value(value)},\n"
        "                 {'id': case['id'], 'events': [{'k': 'value', 'name': 'x',\n"
        "                                                'v': {'t': 'int', 'v': 50}}]}):\n"
        "        os.write(fd, (json.dumps(line) + '\\n').encode())\n"),
}


def owning_the_process(attack: str) -> dict:
    return with_cells(student("ch03_lstm_cell"), OWNING_THE_PROCESS[attack])


def read_like_jupyter() -> dict:
    """A correct ch03 notebook written with what Jupyter runs and the old intake did not: an
    answer bound by ``%time``, drafts under ``%%writefile`` and ``%%script false``, a help line
    (``name?``), a ``%%time`` cell, ``%timeit``."""
    nb = solution("ch03_lstm_cell")
    cell = next(c for c in nb["cells"]
                if "".join(c["source"]).startswith("def forget_bias_for_half_life("))
    cell["source"] = "".join(cell["source"]).replace(
        "def forget_bias_for_half_life(", "def _half_life_bias(", 1)
    return with_cells(
        nb,
        "%time forget_bias_for_half_life = _half_life_bias",
        "forget_bias_for_half_life?\nx = forget_bias_for_half_life(3)",
        "%%writefile draft.py\ndef forget_bias_for_half_life(T):\n    return 0.0\n",
        "%%script false\ndef largest_counted_n(*args):\n    return 0\n",
        "%%time\ny = forget_bias_for_half_life(4)\n",
        "%timeit -n 1 -r 1 forget_bias_for_half_life(5)\n!echo hello",
        "%%capture\nz = 1\n")


def own_definition() -> dict:
    """A correct ch03 notebook whose answer calls its own version of a provided helper
    (``anbn_states`` with another argument order), defined after the provided one."""
    nb = solution("ch03_lstm_cell")
    return answer(nb, "largest_counted_n", (
        "_course_anbn_states = anbn_states\n"
        "def anbn_states(w, u, nonlinearity, n_max):  # my order\n"
        "    return _course_anbn_states(w, u, n_max, nonlinearity)\n"
        "def largest_counted_n(w, u, nonlinearity, n_max=50):\n"
        "    states = anbn_states(w, u, nonlinearity, n_max)\n"
        "    tol = abs(u) / 2\n"
        "    for n in range(1, n_max + 1):\n"
        "        path = states[: 2 * n, n - 1].abs()\n"
        "        if not (path[-1] < tol and bool((path[:-1] >= tol).all())):\n"
        "            return n - 1\n"
        "    return n_max\n"))


def timed_training() -> dict:
    """The ch08 reference with its training run under ``%time`` (one line, as a student
    writes it) after ``torch.set_default_dtype(torch.float64)``."""
    nb = solution("ch08_stack_reverser")
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if "lstm_history = fit(" in text:
            start = text.index("lstm_history = fit(")
            end = text.index("progress=False)", start) + len("progress=False)")
            call = " ".join(part.strip() for part in text[start:end].split("\n"))
            cell["source"] = text[:start] + "%time " + call + text[end:]
            break
    return with_cells(nb, "import torch\ntorch.set_default_dtype(torch.float64)", at=2)


def with_widget_state(nb: dict, megabytes: float = 19.0) -> dict:
    """``nb`` with ≈ ``megabytes`` of ipywidgets state in its metadata, as a notebook with live
    widgets is saved (parsed once, outside the time limit: it once timed out)."""
    model = {"model_name": "LayoutModel", "state": {"width": "100px", "values": list(range(200))}}
    count = int(megabytes * 1e6 / (len(json.dumps(model)) + 16))
    state = {f"model-{i:07d}": model for i in range(count)}
    return nb | {"metadata": nb["metadata"] | {"widgets": {
        "application/vnd.jupyter.widget-state+json": {"state": state, "version_major": 2}}}}


# Names that print alike: NFC and NFD of "café", a Latin and a Cyrillic "e" (U+0435).
ALIKE_NAMES = {
    "caf\u00e9_ch03_lstm_cell.ipynb": lambda: solution("ch03_lstm_cell"),
    "cafe\u0301_ch03_lstm_cell.ipynb": lambda: student("ch03_lstm_cell"),
    "r\u0435ference_ch03_lstm_cell.ipynb": lambda: student("ch03_lstm_cell"),
}


def big_output(ctx) -> dict:
    """A correct notebook whose cells print huge, deeply nested and huge-number lines."""
    return with_cells(solution("ch03_lstm_cell"), *(
        "for _ in range(40):\n    print('x' * 1_000_000)",
        "print('[' * 1_000_000)",
        "import sys\nsys.set_int_max_str_digits(0)\nprint(10 ** 50_000)",
    ), at=2)


def raw_notebook(nb: dict, *, deep: int = 0, huge_int: int = 0, bad_bytes: bool = False) -> bytes:
    """The notebook's JSON text with things Python's json cannot read back."""
    text = json.dumps(nb)
    if deep:
        nested = "[" * deep + "]" * deep
        text = text[:-1] + f', "deep": {{"a": {nested}}}}}'
        text = text.replace('"outputs": []', f'"outputs": [{{"data": {nested}}}]', 1)
    if huge_int:
        text = text.replace('"execution_count": null', f'"execution_count": {"9" * huge_int}', 1)
    data = text.encode()
    if bad_bytes:
        data = data.replace(b"Question 1.", b"Question \xff\xfe 1.", 1)
    return data


# -- the batch ---------------------------------------------------------------------------------
def _write(folder: Path, name: str | bytes, content: dict | bytes) -> None:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    path = os.path.join(os.fsencode(folder), os.fsencode(name))
    with open(path, "wb") as f:
        f.write(data)


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p).encode() + p.read_bytes())
    return h.hexdigest()


def sandbox_processes() -> list[str]:
    """Processes of any sandbox user, or running the sandbox's child, anywhere on the host."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        uid = int(status.split("\nUid:")[1].split()[0])
        if SANDBOX_UID_BASE <= uid < SANDBOX_UID_BASE + 1000 or b"grading.child" in cmdline:
            found.append(f"{pid} uid={uid} {cmdline[:100]!r}")
    return found


NEWLINE_NAME = ("evil\nreference_ch03_lstm_cell.ipynb,ch03_lstm_cell,4.0,3.0,3.0,10.0,10.0,ok,"
                "1.0,\r\nx_ch03_lstm_cell.ipynb")
NON_UTF8_NAME = b"caf\xe9_ch03_lstm_cell.ipynb"
REFUSED = ("fifo_ch03_lstm_cell", "zero_ch03_lstm_cell", "link_ch03_lstm_cell",
           "dir_ch03_lstm_cell", "socket_ch03_lstm_cell", "big_ch03_lstm_cell",
           "=HYPERLINK(1)_ch03_lstm_cell")


def pytest_collection_modifyitems(items):
    """Tests that read the batch are ``slow`` (the batch takes minutes): ``-m "not slow"`` skips
    them while editing; ``make test`` runs them."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents and "batch" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def batch(tmp_path_factory):
    """Grade every submission in one run of the real command; what the host saw after it."""
    base = tmp_path_factory.mktemp("batch")
    folder, outside, out = base / "submissions", base / "outside", base / "out"
    for d in (folder, outside, out):
        d.mkdir()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract = "\0" + MARK
    unix.bind(abstract)
    unix.listen(8)
    for s in (udp, tcp, unix):
        s.setblocking(False)
    ctx = SimpleNamespace(folder=folder, outside=outside, csv=out / "grades.csv",
                          udp_port=udp.getsockname()[1], tcp_port=tcp.getsockname()[1],
                          abstract=abstract)

    notebooks: dict[str, dict | bytes] = {}
    for name in ASSIGNMENTS:
        notebooks[f"reference_{name}"] = solution(name)
        notebooks[f"library_{name}"] = library_backed(name)
        notebooks[f"blank_{name}"] = student(name)
    for name, (function, source, _) in PARTLY_WRONG.items():
        notebooks[f"partial_{name}"] = answer(solution(name), function, source)
    for stem in FAIR:
        notebooks[stem] = fair(stem)
    ch03 = "ch03_lstm_cell"
    notebooks |= {
        # score faking: blank answers underneath, must score 0
        "fake_key_ch03_lstm_cell": read_key(ctx),
        "fake_solution_ch03_lstm_cell": run_solution(ctx),
        "fake_sibling_ch03_lstm_cell": copy_sibling(ctx),
        "fake_raise_ch05_pdda": raise_everything("ch05_pdda"),
        "fake_typeerror_ch02_srn": raise_everything("ch02_srn", "TypeError"),
        "fake_forge_ch03_lstm_cell": forge_results(ctx),
        "fake_left_behind_ch03_lstm_cell": left_behind(ctx),
        "fake_helpers_ch03_lstm_cell": with_cells(student(ch03), REBOUND_HELPERS),
        "fake_nan_ch03_lstm_cell": answer(student(ch03), "counter_weights", NAN_WEIGHTS),
        **{f"fake_owner_{attack}_ch03_lstm_cell": owning_the_process(attack)
           for attack in OWNING_THE_PROCESS},
        "cheater_ch03_lstm_cell": with_cells(student(ch03), (
            "import numpy\n"
            "torch.allclose = lambda *a, **k: True\n"
            "numpy.allclose = lambda *a, **k: True\n"
            "import course_rnn.grading as g\n"
            "g.values_match = lambda *a, **k: True\n")),
        # escapes: correct underneath, must keep full marks and leave nothing outside
        "escape_ch03_lstm_cell": escape_writes(ctx),
        "explorer_ch03_lstm_cell": explorer(ctx),
        # batch stopping
        "killer_ch03_lstm_cell": killer(ctx),
        "resources_ch03_lstm_cell": resources(ctx),
        "loop_ch03_lstm_cell": with_cells(solution(ch03), "while True: pass", at=2),
        "stubborn_loop_ch03_lstm_cell": with_cells(solution(ch03), (
            "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "while True:  # asleep, not spinning: the other job keeps the CPU\n"
            "    try:\n        time.sleep(1)\n    except BaseException:\n        pass")),
        "sysexit_ch03_lstm_cell": with_cells(solution(ch03), "import sys; sys.exit(3)", "exit()",
                                             at=2),
        "osexit_ch03_lstm_cell": with_cells(solution(ch03), "import os; os._exit(0)"),
        "syntax_ch03_lstm_cell": answer(solution(ch03), "forget_bias_for_half_life",
                                        "def forget_bias_for_half_life(T)\n    return 1"),
        # correct work that must not be lost
        "lost_garbage_ch03_lstm_cell": garbage_results(ctx),
        "lost_output_ch03_lstm_cell": big_output(ctx),
        "lost_odd_json_ch03_lstm_cell": raw_notebook(solution(ch03), deep=100_000,
                                                     huge_int=50_000, bad_bytes=True),
        "lost_huge_number_ch03_lstm_cell": with_cells(solution(ch03), HUGE_NUMBERS),
        "lost_nameless_error_ch03_lstm_cell": with_cells(solution(ch03), NAMELESS_ERROR),
        "lost_widgets_ch03_lstm_cell": raw_notebook(with_widget_state(solution(ch03))),
        "lost_jupyter_ch03_lstm_cell": read_like_jupyter(),
        "lost_own_definition_ch03_lstm_cell": own_definition(),
        "lost_timed_float64_ch08_stack_reverser": timed_training(),
        "lost_recursion_ch03_lstm_cell": with_cells(solution(ch03), (
            "import sys\nsys.setrecursionlimit(10**6)\n"
            "def deep(n):\n    return deep(n + 1)\ndeep(0)"), at=2),
        "lost_failing_cells_ch03_lstm_cell": with_cells(solution(ch03), *(
            f"1 / 0  # {i}" for i in range(10_000))),
        # broken
        "broken_ch03_lstm_cell": b"{ this is not json",
        "nested_only_ch03_lstm_cell": b"[" * 1_000_000,
        "unknown": student(ch03) | {"metadata": {}},
    }
    for stem, nb in notebooks.items():
        _write(folder, stem + ".ipynb", nb)
    _write(folder, NEWLINE_NAME, student(ch03))
    _write(folder, NON_UTF8_NAME, solution(ch03))
    for name, nb in ALIKE_NAMES.items():  # print alike, differ in code points
        _write(folder, name, nb())
    os.mkfifo(folder / "fifo_ch03_lstm_cell.ipynb")
    os.symlink("/dev/zero", folder / "zero_ch03_lstm_cell.ipynb")
    os.symlink(folder / "reference_ch03_lstm_cell.ipynb", folder / "link_ch03_lstm_cell.ipynb")
    (folder / "dir_ch03_lstm_cell.ipynb").mkdir()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "socket_ch03_lstm_cell.ipynb"))
    with open(folder / "big_ch03_lstm_cell.ipynb", "wb") as f:
        f.truncate(64 * 2**20)  # sparse: larger than the cap
    os.mkfifo(folder / "=HYPERLINK(1)_ch03_lstm_cell.ipynb")
    devices = []
    if os.geteuid() == 0:  # a character device (/dev/zero's numbers) named like a notebook
        os.mknod(folder / "device_ch03_lstm_cell.ipynb", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        devices.append("device_ch03_lstm_cell")

    keys_before = _digest(EXERCISES / "autograder")
    shm_before = set(os.listdir("/dev/shm"))
    env = {**os.environ, "COURSE_RNN_TEST_SECRET": SECRET}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "course_rnn.grading", "grade", str(folder), "--csv",
         str(ctx.csv), "--time-limit", str(TIME_LIMIT), "--jobs", "2",
         "--exercises", str(EXERCISES)],
        capture_output=True, env=env, timeout=900)
    seconds = time.perf_counter() - start
    left = sandbox_processes()  # at once: nothing may outlive the command
    csv_bytes = ctx.csv.read_bytes() if ctx.csv.exists() else b""
    assert done.returncode == 0, (
        f"the grader failed (exit {done.returncode}): {done.stderr.decode(errors='replace')}")
    received = []
    try:
        received.append(udp.recv(4096))
    except BlockingIOError:
        pass
    for listener in (tcp, unix):
        try:
            conn, _ = listener.accept()
            received.append(b"connection")
            conn.close()
        except BlockingIOError:
            pass
    for s in (udp, tcp, unix, sock):
        s.close()
    text = csv_bytes.decode("utf-8")
    rows = {row["submission"]: own_columns(row) for row in csv.DictReader(io.StringIO(text))}
    return SimpleNamespace(
        rows=rows, csv_text=text, csv_bytes=csv_bytes, csv_path=ctx.csv, finished=time.time(),
        summary=done.stdout.decode("utf-8"), stderr=done.stderr.decode(errors="replace"),
        seconds=seconds, leftovers=left, outside=outside, received=received,
        keys_changed=_digest(EXERCISES / "autograder") != keys_before,
        shm_new=set(os.listdir("/dev/shm")) - shm_before, folder=folder, devices=devices,
        names=sorted(os.listdir(os.fsencode(folder))), mark=MARK, secret=SECRET)


@pytest.fixture(scope="session")
def nbs():
    """This module: the notebook builders, for tests that grade on their own."""
    return sys.modules[__name__]


def own_columns(row: dict) -> dict:
    """A CSV row of a mixed class (``ch03_lstm_cell:q1`` …) with its own assignment's question
    columns also under their plain names (``q1``)."""
    prefix = row["assignment"] + ":"
    return row | {k[len(prefix):]: v for k, v in row.items() if k.startswith(prefix)}


def row(batch, stem: str) -> dict:
    return batch.rows[stem + ".ipynb"]


def total(batch, stem: str) -> float:
    return float(row(batch, stem)["total"])


def full(batch, stem: str) -> float:
    return float(row(batch, stem)["max"])


def points(batch, stem: str) -> dict[str, float]:
    r = row(batch, stem)
    return {q: float(v) for q, v in r.items() if q.startswith("q") and ":" not in q and v != ""}
