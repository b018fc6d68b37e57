"""Stack-augmented RNNs: a recurrent controller that pushes to and pops from a soft stack.

A simple recurrent network keeps everything it remembers in a fixed vector, so it can count
(chapter 3) but not keep an unbounded record of *what* it has seen in order; Tabor's FLNN
(chapter 5) keeps a stack in the digits of a fractal. A **Stack-RNN** gives the network an
external stack instead and makes every stack operation differentiable: at each step the
controller chooses a *mixture* of push, pop and no-op, and the new stack is that mixture of the
three stacks the operations would give. With one-hot choices it is an ordinary stack.

Both papers' versions are here, sharing one step (:class:`StackStep`):

* :class:`StackRNN` (kind ``"stack_rnn"``) — Delétang et al. (2023, "Neural networks and the
  Chomsky hierarchy", ICLR; their ``models/stack_rnn.py``): one stack (or several) of *vectors*;
  the controller reads the top cell::

      r_{t-1} = s_{t-1}[0]                            the top cell, read before the step
      h_t = tanh(W x_t + U h_{t-1} + P r_{t-1} + b)   the controller (a simple RNN)
      a_t = softmax(A h_t + a)                        (push, pop, no-op) probabilities
      v_t = D h_t + d                                 the vector a push would put on top
      s_t = a_push · push(s_{t-1}, v_t) + a_pop · pop(s_{t-1}) + a_no-op · s_{t-1}
      y_t = R h_t + c                                 the output logits

* :class:`JoulinMikolovStackRNN` (kind ``"jm_stack_rnn"``) — Joulin & Mikolov (2015,
  "Inferring algorithmic patterns with stack-augmented recurrent nets"; their C++
  ``StackRNN.h``): several stacks of *scalars*; the controller reads the top ``k`` cells of
  each, and pushes a squashed value::

      h_t = σ(W x_t + U h_{t-1} + P s_{t-1}[0:k] + b)
      a_t = softmax(A h_t + a)                        (push, pop) — or (push, pop, no-op)
      v_t = σ(D h_t + d)                              a value in (0, 1)
      s_t = a_push · push(s_{t-1}, v_t) + a_pop · pop(s_{t-1}) (+ a_no-op · s_{t-1})

  An empty cell holds −1 (their ``EMPTY_STACK_VALUE``); Delétang et al.'s holds 0.

with, for a stack of ``D`` cells (cell 0 the top)::

    push(s, v) = [v, s[0], …, s[D−2]]        everything moves down; the bottom cell falls off
    pop(s)     = [s[1], …, s[D−1], empty]    everything moves up; an empty cell comes in

(:func:`soft_stack_update`). **Which a chapter trains, and why:** Delétang et al.'s. It is the
model behind the Table 2 that the chapter sets its numbers beside (Stack-RNN 100 % on reverse
string and stack manipulation, lengths 41–500), and a cell wide enough for a whole symbol makes a
trained or hand-set stack readable in the stepper: each cell is one symbol. Joulin & Mikolov's
is here for their a^n b^n result (trained to n < 20, tested to 60) and as the first of the line;
its scalar cells need several stacks, each a bit of a symbol.

**Where the code departs from the papers.** The readout is linear, ``y_t = R h_t + c``, as in
every model of the course (Delétang et al.'s ``make_rnn`` puts a ReLU before it); weights start
as PyTorch draws them (uniform in ±1/√fan-in; haiku draws truncated normals of standard
deviation 1/√fan-in, the C++ code its own). The controller reads ``<s>`` first, as every course
model does (Delétang et al.'s reads the first input symbol first). Joulin & Mikolov's paper
writes the recurrence with a hidden-to-hidden matrix ``U``; their released experiments
(``script_tasks.sh``, ``-mod 1``) run without it — the state then recurs only through the
stacks — and so does :class:`JoulinMikolovStackRNN` by default (``recurrent=True`` adds
``U``). Their experiments use 40 hidden units, 10 stacks and k = 2 (the defaults below), and
train with their own truncated BPTT and error clipping, which are the training loop's business,
not the model's.

**A finite stack.** The stack has ``stack_depth`` cells: pushing onto a full stack drops its
bottom cell. A task that must keep the whole input on the stack (reverse string) can only be
solved up to that many symbols, so give a test of length generalisation a stack at least as deep
as its longest input (Delétang et al.'s example script uses 40 cells of width 8). A deep stack
costs nothing until it is used: a step works on the cells that can hold something so far.

**What ``trace`` shows** (and the steppers): ``"hidden"`` (h_t), ``"push"``, ``"pop"`` and
``"no_op"`` (the probabilities, one per stack) and ``"stack"``: all ``stack_depth`` cells after
the step (the state itself stores only the top cells that can hold something so far),
cell by cell from the top (for each cell, every stack, for each stack its ``stack_width``
numbers), so the first numbers of the row are the top of every stack.

The step is written once, in :class:`StackStep`, beside the equations. ``forward`` runs the same
step with the input drive ``W x_t + b`` of every step computed at once, and the readout after
the loop (``benchmarks/stack_rnn_step.py`` measures its cost against the LSTM's).
"""

from __future__ import annotations

import torch
from torch import nn

from ..checks import check_flag, check_items, check_positive
from .base import Parts, RecurrentModel, check_time_steps, seeded
from .recurrent import InputLayer, ReadsInputVectors

#: the stack operations, in the order of the action probabilities
ACTIONS = ("push", "pop", "no_op")
#: the controller's nonlinearity and the squashing of the pushed value, by name
SQUASHES = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "none": lambda z: z}

State = tuple[torch.Tensor, torch.Tensor]  # (h [B, hidden], stack [B, depth, stacks, width])


def soft_stack_update(stack: torch.Tensor, actions: torch.Tensor, pushed: torch.Tensor,
                      empty: float = 0.0, depth: int | None = None) -> torch.Tensor:
    """The new stacks: the mixture of the three stacks that push, pop and no-op would give.

    ``stack [B, D, S, m]`` (D cells, cell 0 the top; S stacks; cells of m numbers),
    ``actions [B, S, 3]`` (the push, pop, no-op probabilities of each stack),
    ``pushed [B, S, m]`` (the value a push puts on top), ``empty``: what an empty cell holds::

        s_t = a_push · [v, s[0], …, s[D−2]] + a_pop · [s[1], …, s[D−1], empty] + a_no-op · s

    With one-hot ``actions`` this is an exact stack (the bottom cell is lost on a push to a
    full stack; a pop of an empty stack leaves it empty).

    ``depth``: the stack's depth when ``stack`` stores only its top cells, the ones below being
    empty (after t steps, no more than t cells can hold anything). The result then stores one
    cell more, up to ``depth``, and is exactly the top of the full update: a step costs what the
    stack can hold so far, not its whole depth (a stack of 512 cells read for 81 steps costs
    what one of 82 does).
    """
    a_push, a_pop, a_noop = (actions[:, None, :, k, None] for k in range(3))  # [B, 1, S, 1]
    bottom = stack.new_full((stack.shape[0], 1, *stack.shape[2:]), empty)
    if depth is not None and stack.shape[1] < depth:
        stack = torch.cat([stack, bottom], dim=1)  # the empty cell a push would fill
    after_push = torch.cat([pushed[:, None], stack[:, :-1]], dim=1)  # push(s, v)
    after_pop = torch.cat([stack[:, 1:], bottom], dim=1)  # pop(s)
    return a_push * after_push + a_pop * after_pop + a_noop * stack


class StackAugmentedRNN(RecurrentModel):
    """What both Stack-RNNs share: the weights, the step (:class:`StackStep`), the fast pass
    and the web form. A subclass fixes its paper's choices (``controller``, ``push_squash``,
    ``empty``) and the sizes it offers."""

    #: the controller's nonlinearity f, the squashing g of the pushed value, an empty cell
    controller: str
    push_squash: str
    empty: float

    def __init__(self, vocab_size: int, hidden_size: int, *, n_stacks: int, stack_width: int,
                 stack_depth: int, read_depth: int, no_op: bool, recurrent: bool,
                 embedding_dim: int | None, seed: int | None):
        super().__init__()
        self.vocab_size = check_positive(vocab_size, "vocab_size")
        self.hidden_size = H = check_positive(hidden_size, "hidden_size")
        self.n_stacks = S = check_positive(n_stacks, "n_stacks")
        self.stack_width = m = check_positive(stack_width, "stack_width")
        self.stack_depth = check_positive(stack_depth, "stack_depth")
        self.read_depth = k = check_positive(read_depth, "read_depth")
        if k > stack_depth:
            raise ValueError(f"read_depth ({k}) cannot exceed stack_depth ({stack_depth}): "
                             "the controller reads the top read_depth cells")
        self.no_op = check_flag(no_op, "no_op")
        self.recurrent = check_flag(recurrent, "recurrent")
        self.n_actions = 3 if self.no_op else 2
        with seeded(seed):
            self.input_layer = InputLayer(vocab_size, embedding_dim)
            self.input_to_hidden = nn.Linear(self.input_layer.size, H)  # W, b
            self.hidden_to_hidden = nn.Linear(H, H, bias=False) if recurrent else None  # U
            self.stack_to_hidden = nn.Linear(k * S * m, H, bias=False)  # P
            self.actions = nn.Linear(H, S * self.n_actions)  # A, a
            self.push_value = nn.Linear(H, S * m)  # D, d
            self.readout = nn.Linear(H, self.vocab_size)  # R, c

    def recurrence(self) -> StackStep:
        """The step (:class:`StackStep`): ``trace`` gives ``"hidden"`` ``[B, T, hidden]``,
        ``"push"``, ``"pop"``, ``"no_op"`` ``[B, T, n_stacks]``, ``"stack"``
        ``[B, T, depth·n_stacks·width]`` and ``"logits"``."""
        return StackStep(self)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-symbol logits ``[B, T, V]``: the step of :class:`StackStep`, with ``W x_t + b``
        of every step computed before the loop and the readout after it."""
        inputs = check_time_steps(self.check_inputs(inputs))
        step = self.recurrence()
        drives = self.input_to_hidden(step.inputs(inputs))  # W x_t + b, every t at once
        state = step.initial_state(inputs.shape[0])
        hidden = []
        for drive in drives.unbind(1):  # (drives[:, t] would cost a [B, T, H] gradient per step)
            state, _ = step.advance(state, drive)
            hidden.append(state[0])
        return self.readout(torch.stack(hidden, dim=1))  # y_t = R h_t + c

    def web_form(self) -> dict:
        """The step as ``stepper.js`` runs it: the input drive of every symbol
        ``P[x] = W e_x + b``, ``U`` (null without one), the stack-reading matrix, ``A, a``,
        ``D, d``, the paper's choices, and the sizes (``options``) that rebuild the model."""
        symbols = torch.arange(self.vocab_size, device=self.device)
        every_input = self.input_layer(symbols, dtype=self.readout.weight.dtype)
        options = {name: value for name, value in self.config().items()
                   if name not in ("vocab_size", "hidden_size", "embedding_dim", "seed")}
        return {
            "cell": self.kind,
            "P": self.input_to_hidden(every_input),
            "U": None if self.hidden_to_hidden is None else self.hidden_to_hidden.weight,
            "stack_read": self.stack_to_hidden.weight,
            "A": self.actions.weight, "a": self.actions.bias,
            "D": self.push_value.weight, "d": self.push_value.bias,
            "controller": self.controller, "push_squash": self.push_squash, "empty": self.empty,
            "n_stacks": self.n_stacks, "stack_width": self.stack_width,
            "stack_depth": self.stack_depth, "read_depth": self.read_depth, "no_op": self.no_op,
            "options": options,
        }


class StackStep(ReadsInputVectors):
    """One step of a Stack-RNN on its input vectors: the controller reads the input and the top
    of the stacks, then chooses how to change the stacks (the equations of the module
    docstring). The state is ``(h, stacks)``, the stacks ``[B, depth, n_stacks, width]``."""

    def __init__(self, model: StackAugmentedRNN):
        super().__init__(model)
        self.f = SQUASHES[model.controller]
        self.g = SQUASHES[model.push_squash]

    def initial_state(self, batch: int) -> State:
        """h_0 = 0, and every cell empty. Only the cells that can hold something are stored
        (the top ``read_depth`` at first, one more after each step: see
        :func:`soft_stack_update`)."""
        model = self.model
        h = model.readout.weight.new_zeros(batch, model.hidden_size)  # h_0 = 0
        stacks = h.new_full((batch, model.read_depth, model.n_stacks, model.stack_width),
                            model.empty)
        return h, stacks

    def step(self, state: State, x_t: torch.Tensor) -> tuple[State, Parts]:
        (h, stack), actions = self.advance(state, self.model.input_to_hidden(x_t))  # W x_t + b
        parts = {"hidden": h, "push": actions[..., 0], "pop": actions[..., 1],
                 "no_op": actions[..., 2], "stack": self.whole(stack).flatten(1)}
        return (h, stack), parts

    def advance(self, state: State, drive: torch.Tensor) -> tuple[State, torch.Tensor]:
        """``(h_t, s_t)`` from ``(h_{t-1}, s_{t-1})`` and the input drive ``W x_t + b``, and
        the action probabilities ``a_t`` ``[B, S, 3]``."""
        model, (h, stack) = self.model, state
        batch = h.shape[0]
        read = stack[:, : model.read_depth].flatten(1)  # r_{t-1}: the top k cells, every stack
        pre = drive + model.stack_to_hidden(read)  # W x_t + b + P r_{t-1}
        if model.hidden_to_hidden is not None:
            pre = pre + model.hidden_to_hidden(h)  # + U h_{t-1}
        h = self.f(pre)  # h_t = f(…)
        actions = self.action_probabilities(h)  # a_t = softmax(A h_t + a)     [B, S, 3]
        shape = (batch, model.n_stacks, model.stack_width)
        pushed = self.g(model.push_value(h)).reshape(shape)  # v_t = g(D h_t + d)
        stack = soft_stack_update(stack, actions, pushed, model.empty, model.stack_depth)  # s_t
        return (h, stack), actions

    def whole(self, stack: torch.Tensor) -> torch.Tensor:
        """The stored top of the stacks with the empty cells below it: ``[B, depth, S, m]``."""
        missing = self.model.stack_depth - stack.shape[1]
        below = stack.new_full((stack.shape[0], missing, *stack.shape[2:]), self.model.empty)
        return torch.cat([stack, below], dim=1)

    def action_probabilities(self, h: torch.Tensor) -> torch.Tensor:
        """``softmax(A h_t + a)`` per stack, ``[B, S, 3]`` in the order push, pop, no-op (a
        model without no-op chooses between push and pop; its no-op probability is 0)."""
        model = self.model
        logits = model.actions(h).reshape(h.shape[0], model.n_stacks, model.n_actions)
        probabilities = torch.softmax(logits, dim=-1)
        if model.n_actions == 2:
            probabilities = torch.cat([probabilities, torch.zeros_like(logits[..., :1])], -1)
        return probabilities


class StackRNN(StackAugmentedRNN):
    """Delétang et al.'s (2023) Stack-RNN: a tanh controller, stacks of ``stack_width``-wide
    vectors, the top cell read, push / pop / no-op (see the module docstring).

    ``StackRNN(vocab_size, hidden_size=32, stack_width=8, stack_depth=64, n_stacks=1,
    embedding_dim=None, seed=None)``; ``embedding_dim=None`` reads one-hot symbols.
    """

    kind = "stack_rnn"
    controller, push_squash, empty = "tanh", "none", 0.0

    def __init__(self, vocab_size: int, hidden_size: int = 32, stack_width: int = 8,
                 stack_depth: int = 64, n_stacks: int = 1, embedding_dim: int | None = None,
                 seed: int | None = None):
        super().__init__(vocab_size, hidden_size, n_stacks=n_stacks, stack_width=stack_width,
                         stack_depth=stack_depth, read_depth=1, no_op=True, recurrent=True,
                         embedding_dim=embedding_dim, seed=seed)


class JoulinMikolovStackRNN(StackAugmentedRNN):
    """Joulin & Mikolov's (2015) Stack-RNN: a sigmoid controller, ``n_stacks`` stacks of
    scalars, the top ``read_depth`` cells of each read, a squashed value pushed, empty cells −1
    (see the module docstring).

    ``JoulinMikolovStackRNN(vocab_size, hidden_size=40, n_stacks=10, stack_depth=64,
    read_depth=2, no_op=False, recurrent=False, embedding_dim=None, seed=None)``: their
    experiments' sizes; ``no_op=True`` adds the no-op action of their "+ NO-OP" runs,
    ``recurrent=True`` the hidden-to-hidden matrix of their equation.
    """

    kind = "jm_stack_rnn"
    controller, push_squash, empty = "sigmoid", "sigmoid", -1.0

    def __init__(self, vocab_size: int, hidden_size: int = 40, n_stacks: int = 10,
                 stack_depth: int = 64, read_depth: int = 2, no_op: bool = False,
                 recurrent: bool = False, embedding_dim: int | None = None,
                 seed: int | None = None):
        super().__init__(vocab_size, hidden_size, n_stacks=n_stacks, stack_width=1,
                         stack_depth=stack_depth, read_depth=read_depth, no_op=no_op,
                         recurrent=recurrent, embedding_dim=embedding_dim, seed=seed)


def hand_set_reverser(vocab, alphabet=("0", "1"), blank: str = "_", stack_depth: int = 64,
                      actions: bool = True) -> StackRNN:
    """A :class:`StackRNN` whose weights are set by hand so that it reverses strings over
    ``alphabet`` exactly, at any length up to ``stack_depth``: it pushes each symbol it reads
    (as a one-hot cell), and at every ``blank`` writes the symbol on top and pops it.

    ``vocab``: the model's vocabulary (e.g. ``TransductionTask(make_transduction(
    "reverse_string")).vocab``), holding every symbol of ``alphabet`` and ``blank``. With k
    symbols the controller has 2k units, each ±1 (tanh of ±5), and every other weight is 0::

        h_c     = tanh(10·[x_t = c] − 5)                    "read c"          (units 0 … k−1)
        h_{k+c} = tanh(10·[x_t = blank] + 10·r_{t−1}[c] − 15) "blank over c"  (units k … 2k−1)
        push logit = 20 Σ_c h_c + 20 (k − 1)        = +20 after a symbol, −20 otherwise
        pop logit  = 20 Σ_c h_{k+c} + 20 (k − 1)    = +20 at a blank over a symbol, else −20
        no-op logit = 0                             (so ``<s>`` and a blank over nothing: no-op)
        v_t[c] = (h_c + 1) / 2                      the one-hot symbol a push puts on top
        y_t[c] = 10 h_{k+c}                         write the symbol on top

    A wrong action's probability is about e^{−20} ≈ 2·10⁻⁹ a step, so the stack stays exact
    over hundreds of steps. ``actions=False`` leaves the action weights ``A, a`` at 0 (every
    action 1/3): the controller, push value and readout set, for a reader to set the actions.
    """
    symbols = tuple(check_items(alphabet, "alphabet", "symbols"))
    for symbol in (*symbols, blank):
        if symbol not in vocab:
            raise ValueError(f"hand_set_reverser: {symbol!r} is not in the vocabulary "
                             f"{list(vocab.itos)}")
    if blank in symbols or len(set(symbols)) != len(symbols):
        raise ValueError(f"hand_set_reverser: the alphabet {list(symbols)} must have distinct "
                         f"symbols, none of them the blank {blank!r}")
    k = len(symbols)
    model = StackRNN(len(vocab), hidden_size=2 * k, stack_width=k, stack_depth=stack_depth)
    ids, blank_id = [vocab.index(s) for s in symbols], vocab.index(blank)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        W, b = model.input_to_hidden.weight, model.input_to_hidden.bias
        for c, symbol_id in enumerate(ids):
            W[c, symbol_id], b[c] = 10.0, -5.0  # "read c"
            W[k + c, blank_id], b[k + c] = 10.0, -15.0  # "blank over c" …
            model.stack_to_hidden.weight[k + c, c] = 10.0  # … with c on top
            model.push_value.weight[c, c], model.push_value.bias[c] = 0.5, 0.5  # v = one-hot
            model.readout.weight[symbol_id, k + c] = 10.0  # write the symbol on top
        if actions:
            set_reverser_actions(model)
    return model.eval()


def set_reverser_actions(model: StackRNN) -> None:
    """The action weights of :func:`hand_set_reverser` (in place): push after a symbol, pop at
    a blank over a symbol, no-op otherwise (the logits ±20 and 0)."""
    if not isinstance(model, StackRNN) or model.hidden_size != 2 * model.stack_width:
        raise TypeError("set_reverser_actions needs the StackRNN of hand_set_reverser (2k "
                        f"units for stack cells of width k), got {model!r:.80}")
    k = model.stack_width
    with torch.no_grad():
        A, a = model.actions.weight, model.actions.bias  # rows: push, pop, no-op
        A.zero_()
        a.zero_()
        A[0, :k] = A[1, k:2 * k] = 20.0
        a[:2] = 20.0 * (k - 1)
