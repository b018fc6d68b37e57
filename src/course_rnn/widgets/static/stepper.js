/* course_rnn web stepper: recompute a small trained RNN in the reader's browser.
 *
 * Each <div class="rnn-stepper" data-model="{json}"> holds a model exported by
 * course_rnn.widgets.web.export_model (and optionally, in data-highlight, {"cell": {"2": "label"}}:
 * units a page wants the reader to watch). This script needs no kernel and no network: it runs
 * the same equations as the PyTorch model (see web.py for the table) on whatever string the
 * reader types, and shows the states step by step, with a legend, the valid continuations and a
 * plot of the state over the string. CourseRnnStepper.run(model, symbols) is also what the
 * browser test calls to compare against PyTorch.
 */
(function () {
  "use strict";
  if (window.CourseRnnStepper) { window.CourseRnnStepper.mountAll(); return; }

  // ---- linear algebra on plain arrays ----------------------------------------------------
  const matvec = (M, v) => M.map(row => row.reduce((s, m, j) => s + m * v[j], 0));
  const add = (a, b) => a.map((x, i) => x + b[i]);
  const mul = (a, b) => a.map((x, i) => x * b[i]);
  const sigmoid = x => 1 / (1 + Math.exp(-x));
  const act = {tanh: Math.tanh, relu: x => Math.max(0, x)};
  const squash = {tanh: Math.tanh, sigmoid: sigmoid, none: x => x};
  const slice = (v, k, H) => v.slice(k * H, (k + 1) * H);
  const softmax = v => {
    const m = Math.max(...v);
    const e = v.map(x => Math.exp(x - m));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map(x => x / s);
  };

  // ---- one step of each model kind: (model, state, symbol index) -> record ----------------
  const cells = {
    srn(m, st, x) {  // h = f(P[x] + U h + c)
      const f = act[m.nonlinearity];
      return {hidden: add(m.P[x], add(matvec(m.U, st.hidden), m.c)).map(f)};
    },
    gru(m, st, x) {  // torch.nn.GRU, gates r, z, n
      const H = m.hidden_size, gi = m.P[x], gh = add(matvec(m.U, st.hidden), m.c);
      const r = add(slice(gi, 0, H), slice(gh, 0, H)).map(sigmoid);
      const z = add(slice(gi, 1, H), slice(gh, 1, H)).map(sigmoid);
      const n = add(slice(gi, 2, H), mul(r, slice(gh, 2, H))).map(Math.tanh);
      const h = n.map((ni, i) => (1 - z[i]) * ni + z[i] * st.hidden[i]);
      return {reset_gate: r, update_gate: z, candidate: n, hidden: h};
    },
    lstm(m, st, x) {  // torch.nn.LSTM, gates i, f, g, o
      const H = m.hidden_size, g = add(m.P[x], add(matvec(m.U, st.hidden), m.c));
      const i = slice(g, 0, H).map(sigmoid), f = slice(g, 1, H).map(sigmoid);
      const cand = slice(g, 2, H).map(Math.tanh), o = slice(g, 3, H).map(sigmoid);
      const cell = add(mul(f, st.cell), mul(i, cand));
      return {input_gate: i, forget_gate: f, cell_candidate: cand, cell: cell, output_gate: o,
              hidden: mul(o, cell.map(Math.tanh))};
    },
    decay_rnn(m, st, x) {  // h = f(α h + (1 − α)(P[x] + W h))
      const f = act[m.nonlinearity], a = m.alpha;
      const drive = m.W ? add(m.P[x], matvec(m.W, st.hidden)) : m.P[x];
      return {hidden: st.hidden.map((h, i) => f(a * h + (1 - a) * drive[i])), alpha: [a]};
    },
    urn(m, st, x) { return {hidden: matvec(m.Q[x], st.hidden)}; },  // h = Q_x h
    // Stack-RNN (models/stack_rnn.py): the controller reads the input and the top cells of the
    // stacks, then each stack becomes the mixture of its pushed, popped and unchanged versions.
    // The stack is flat, cell by cell from the top: cell i of stack s, entry j is at (i S + s) w + j.
    stack_rnn(m, st, x) {
      const S = m.n_stacks, w = m.stack_width, depth = m.stack_depth, old = st.stack;
      const read = old.slice(0, m.read_depth * S * w);                // r: the top cells
      let pre = add(m.P[x], matvec(m.stack_read, read));              // W x + b + P r
      if (m.U) pre = add(pre, matvec(m.U, st.hidden));                // + U h
      const h = pre.map(squash[m.controller]);                        // h = f(…)
      const scores = add(matvec(m.A, h), m.a), actions = m.no_op ? 3 : 2;
      const push = [], pop = [], noOp = [];
      for (let s = 0; s < S; s++) {                                   // a = softmax(A h + a)
        const p = softmax(scores.slice(s * actions, (s + 1) * actions));
        push.push(p[0]); pop.push(p[1]); noOp.push(actions === 3 ? p[2] : 0);
      }
      const v = add(matvec(m.D, h), m.d).map(squash[m.push_squash]);  // v = g(D h + d)
      const at = (i, s, j) => (i * S + s) * w + j;
      const stack = old.map((kept, k) => {
        const j = k % w, s = Math.floor(k / w) % S, i = Math.floor(k / (w * S));
        const pushed = i === 0 ? v[s * w + j] : old[at(i - 1, s, j)];
        const popped = i === depth - 1 ? m.empty : old[at(i + 1, s, j)];
        return push[s] * pushed + pop[s] * popped + noOp[s] * kept;
      });
      return {hidden: h, push: push, pop: pop, no_op: noOp, stack: stack};
    },
  };
  cells.matrix_rnn = cells.urn;
  cells.jm_stack_rnn = cells.stack_rnn;

  // The cell that computes a model's step: its kind, unless the export names another (a new
  // model whose step is one of the cells above, e.g. a matrix per symbol).
  const cellOf = m => m.cell || m.kind;

  function initialState(m) {
    const zeros = new Array(m.hidden_size).fill(0);
    const cell = cellOf(m);
    if (cell === "urn" || cell === "matrix_rnn") return {hidden: m.h0.slice()};
    if (cell === "lstm") return {hidden: zeros, cell: zeros.slice()};
    if (cell === "stack_rnn" || cell === "jm_stack_rnn") {  // every cell of every stack empty
      return {hidden: zeros, stack: new Array(m.stack_depth * m.n_stacks * m.stack_width).fill(m.empty)};
    }
    return {hidden: zeros};
  }

  // ---- tokenising and the language's valid continuations ---------------------------------
  function tokenise(m, text) {
    text = text.trim();
    const words = m.words || text.includes(" ") ? text.split(/\s+/).filter(w => w) : [...text];
    const alphabet = m.itos.slice(m.output_from + 1);
    words.forEach((w, i) => {
      if (!alphabet.includes(w)) {
        throw new Error(`symbol '${w}' at position ${i} is not in the alphabet: ${alphabet.join(" ")}`);
      }
    });
    return words;
  }

  // The symbols that may come next after `prefix` (EOS "</s>" when it may end here); [] when
  // `prefix` is no beginning of any string of the language; null when the language is unknown.
  function validNext(lang, prefix) {
    if (!lang) return null;
    if (lang.name === "anbn") {
      const as = prefix.filter(s => s === "a").length, bs = prefix.length - as;
      const firstB = prefix.indexOf("b");
      if (firstB >= 0 && prefix.slice(firstB).includes("a")) return [];
      if (bs === 0) return as === 0 ? ["a"] : ["a", "b"];
      if (bs < as) return ["b"];
      return bs === as ? ["</s>"] : [];
    }
    if (lang.name === "dyck") {
      const partner = Object.fromEntries(lang.pairs), stack = [];
      for (const s of prefix) {
        if (s in partner) stack.push(s);
        else if (stack.length && partner[stack[stack.length - 1]] === s) stack.pop();
        else return [];
      }
      const out = lang.pairs.map(p => p[0]);
      if (stack.length) out.push(partner[stack[stack.length - 1]]); else out.push("</s>");
      return out;
    }
    return null;
  }

  const languageLabel = lang => lang.label || {anbn: "aⁿbⁿ", dyck: "the Dyck language"}[lang.name] || lang.name;

  // ---- the forward pass: <s> w1 … wn -> per-step records and next-symbol probabilities ----
  function run(m, symbols) {
    const ids = [m.itos.indexOf("<s>"), ...symbols.map(s => m.itos.indexOf(s))];
    let st = initialState(m);
    const steps = [];
    for (const x of ids) {
      st = cells[cellOf(m)](m, st, x);
      const logits = add(matvec(m.R, st.hidden), m.r).slice(m.output_from);
      steps.push({states: st, probs: softmax(logits)});
    }
    return steps;
  }

  // Which units of `values` ([step][unit]) to draw: the highlighted ones, the ones the reader
  // picked, and, when there are more than `most` units, the ones that move most.
  function unitsToPlot(values, highlighted, picked, most = 8) {
    const n = values[0].length, all = [...Array(n).keys()];
    if (picked) return [...picked].sort((a, b) => a - b);
    if (n <= most) return all;
    const range = u => Math.max(...values.map(v => v[u])) - Math.min(...values.map(v => v[u]));
    const chosen = new Set(highlighted);
    all.slice().sort((a, b) => range(b) - range(a)).forEach(u => { if (chosen.size < 4 + highlighted.length) chosen.add(u); });
    return [...chosen].sort((a, b) => a - b);
  }

  // ---- the view --------------------------------------------------------------------------
  const el = (tag, attrs = {}, text = "") => {
    const e = document.createElement(tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    if (text) e.textContent = text;
    return e;
  };
  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs = {}, text = "") => {
    const e = document.createElementNS(SVG, tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    if (text) e.textContent = text;
    return e;
  };
  const colour = (v, scale) => {
    const x = Math.max(-1, Math.min(1, scale > 0 ? v / scale : 0));
    const c = Math.round(255 * (1 - Math.abs(x)));
    return x >= 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
  };
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                   "#17becf", "#bcbd22", "#7f7f7f"];
  const fmt = v => (Math.abs(v) < 5e-3 ? 0 : v).toFixed(2);

  // ---- the title: its formulas typeset as the prose sets them ---------------------------
  // A chapter titles its stepper in plain text, naming a language the library's way, in caret
  // notation ("LSTM trained on a^n b^n, n ≤ 10"). The formulas in it — a run of symbols with
  // exponents (a^n b^n, w c w^R, a^m b^n c^m d^n), a bound (n ≤ 10, n = 16) or $…$ — are set in
  // italics with superscripts, and then by MathJax where the page has it (the book), like the
  // prose around the stepper. Never as raw TeX: the italic form stays if MathJax is absent.
  // (no look-behind: Safari before 16.4 cannot parse it) `lead` is the character before a
  // formula, which must not be a letter or digit: "on" is a word, not the symbols o and n.
  const SYMBOL = String.raw`[A-Za-z](?:\^(?:\{[^{}]*\}|[A-Za-z0-9]+))?(?![\w^])`;
  const FORMULA = new RegExp(String.raw`\$([^$]+)\$|(^|[^\w^])(?:([A-Za-z]\s*[≤≥=<>≠]\s*\d+(?!\w))` +
                             `|(${SYMBOL}(?:\\s+${SYMBOL})*))`, "g");
  const RELATION_TEX = {"≤": String.raw`\le`, "≥": String.raw`\ge`, "≠": String.raw`\ne`};

  // "a^n" or "a^{n+1}" as <i>a</i><sup><i>n</i></sup>: letters italic, digits and signs upright
  function italic(text) {
    const span = document.createElement("span");
    for (const [, letters, other] of text.matchAll(/([A-Za-z]+)|([^A-Za-z]+)/g)) {
      span.append(letters ? el("i", {}, letters) : other);
    }
    return span;
  }
  function symbolsHtml(tex) {
    const span = el("span");
    for (const [, mark, group, one, other] of tex.matchAll(/([\^_])(?:\{([^{}]*)\}|(\w+))|([^\s^_]+)/g)) {
      if (other !== undefined) { span.append(italic(other.replace(/[{}]/g, ""))); continue; }
      const script = el(mark === "^" ? "sup" : "sub");
      script.append(italic(group ?? one));
      span.append(script);
    }
    return span;
  }
  function formula(tex, fallback) {
    const span = el("span", {class: "rnn-stepper-formula", "data-tex": tex});
    span.append(fallback);
    return span;
  }
  function titleNodes(text) {
    const nodes = [];
    let at = 0;
    for (const match of text.matchAll(FORMULA)) {
      const [whole, dollars, lead = "", bound, symbols] = match;
      if (symbols !== undefined && !symbols.includes("^")) continue;  // plain words
      nodes.push(text.slice(at, match.index + lead.length));
      at = match.index + whole.length;
      if (dollars !== undefined) nodes.push(formula(dollars, symbolsHtml(dollars)));
      else if (bound !== undefined) {
        const [, name, relation, value] = bound.match(/([A-Za-z])\s*(\S)\s*(\d+)/);
        nodes.push(formula(`${name} ${RELATION_TEX[relation] || relation} ${value}`,
                           italicBound(name, relation, value)));
      } else {  // a single letter after the formula is a word: "a^n b^n a lot"
        const kept = symbols.replace(/(\s+[A-Za-z])+$/, "");
        at -= symbols.length - kept.length;
        nodes.push(formula(kept, symbolsHtml(kept)));
      }
    }
    nodes.push(text.slice(at));
    return nodes.filter(node => node !== "");
  }
  function italicBound(name, relation, value) {
    const span = el("span");
    span.append(el("i", {}, name), ` ${relation} ${value}`);
    return span;
  }
  // Where the page runs MathJax 3, each formula is replaced by MathJax's rendering of its TeX
  // once MathJax has started (after the page's own math), and its CSS updated.
  function typesetFormulas(container) {
    if (!container.querySelector(".rnn-stepper-formula")) return;
    const upgrade = () => {
      const mj = window.MathJax;
      if (!mj || !mj.startup || !mj.startup.promise || !mj.tex2chtmlPromise) return;
      mj.startup.promise = mj.startup.promise.then(async () => {
        for (const span of container.querySelectorAll(".rnn-stepper-formula[data-tex]")) {
          const node = await mj.tex2chtmlPromise(span.dataset.tex, {display: false});
          span.replaceChildren(node);
          span.removeAttribute("data-tex");
        }
        mj.startup.document.clear();
        mj.startup.document.updateDocument();
      }).catch(() => {});  // the italic form stays
    };
    if (document.readyState === "complete") upgrade();
    else window.addEventListener("load", upgrade, {once: true});
  }

  function mount(root) {
    if (root.dataset.mounted) return;
    root.dataset.mounted = "1";
    const m = JSON.parse(root.dataset.model);
    // {state name: {unit: label}}: the units this page asks the reader to watch
    const highlight = root.dataset.highlight ? JSON.parse(root.dataset.highlight) : {};
    const marked = name => Object.keys(highlight[name] || {}).map(Number);
    const outputs = m.itos.slice(m.output_from);
    const alphabet = m.itos.slice(m.output_from + 1);
    root.classList.add("rnn-stepper-mounted");
    const title = el("div", {class: "rnn-stepper-title"});
    title.append(...titleNodes(root.dataset.title || m.kind));
    root.append(title);
    typesetFormulas(title);
    const input = el("input", {type: "text", class: "rnn-stepper-input", value: root.dataset.string || "",
                              "aria-label": "string to read", spellcheck: "false"});
    const back = el("button", {type: "button", "aria-label": "previous step", title: "previous step"}, "◀");
    const fwd = el("button", {type: "button", "aria-label": "next step", title: "next step"}, "▶");
    const play = el("button", {type: "button"}, "play");
    const slider = el("input", {type: "range", min: "0", max: "0", value: "0", class: "rnn-stepper-slider",
                               "aria-label": "step"});
    const position = el("span", {class: "rnn-stepper-position"});
    const help = el("div", {class: "rnn-stepper-help"},
      `Type a string of ${alphabet.join(" ")}` + (m.words ? " (separated by spaces)" : "") +
      ", then step through it with ◀ ▶ or the slider.");
    const message = el("div", {class: "rnn-stepper-message", role: "status"});
    const view = el("div", {class: "rnn-stepper-view"});
    const controls = el("div", {class: "rnn-stepper-controls"});
    controls.append(input, back, fwd, play, slider, position);
    root.append(controls, help, message, view);

    let steps = [], symbols = [], timer = null, picked = null;
    // the plot shows the first state the page highlights, else the LSTM's cell, else hidden
    const plotted = Object.keys(highlight)[0] || ("cell" in initialState(m) ? "cell" : "hidden");
    root.stepper = {get steps() { return steps; }, get symbols() { return symbols; },
                    get step() { return +slider.value; }};

    function stateTable(t) {
      const names = Object.keys(steps[t].states);
      const size = Math.max(...names.map(n => steps[t].states[n].length));
      const wrap = el("div", {class: "rnn-stepper-states"});
      const table = el("table");
      const head = el("tr", {class: "rnn-stepper-units"});
      head.append(el("th", {scope: "col"}, "unit"));
      for (let u = 0; u < Math.min(size, 64); u++) head.append(el("th", {scope: "col"}, String(u)));
      head.append(el("th", {scope: "col"}, "values"));
      table.append(head);
      for (const name of names) {
        const values = steps[t].states[name];
        const scale = Math.max(1e-9, ...steps.map(s => Math.max(...s.states[name].map(Math.abs))));
        const row = el("tr", {class: "rnn-stepper-state", "data-state": name});
        row.append(el("th", {scope: "row"}, name));
        values.slice(0, 64).forEach((v, u) => {
          const cell = el("td", {class: "unit", title: `${name}[${u}] = ${v.toFixed(4)}`});
          const square = el("span", {class: "square"});
          square.style.background = colour(v, scale);
          cell.append(square);
          if (marked(name).includes(u)) cell.classList.add("marked");
          if (name === plotted) {
            cell.classList.add("pickable");
            cell.addEventListener("click", () => togglePlotted(u));
          }
          row.append(cell);
        });
        for (let u = values.length; u < Math.min(size, 64); u++) row.append(el("td"));
        const shown = marked(name).length ? marked(name).filter(u => u < values.length) : [...values.keys()].slice(0, 6);
        const text = shown.map(u => (marked(name).length || values.length > 6 ? `${u}: ` : "") + fmt(values[u])).join("  ");
        row.append(el("td", {class: "numbers"}, text + (!marked(name).length && values.length > 6 ? " …" : "")));
        table.append(row);
      }
      wrap.append(table);
      return wrap;
    }

    function legend() {
      const box = el("div", {class: "rnn-stepper-legend"});
      const swatch = (v, label) => {
        const s = el("span", {class: "square"});
        s.style.background = colour(v, 1);
        const item = el("span", {class: "item"});
        item.append(s, document.createTextNode(" " + label));
        return item;
      };
      box.append(swatch(-1, "negative"), swatch(0, "zero"), swatch(1, "positive"),
        el("span", {}, "— one square per unit of each state after the highlighted symbol; the colour is " +
                       "the value divided by the largest |value| of that row over the whole string " +
                       "(hover a square for its value)."));
      const notes = Object.entries(highlight).flatMap(([name, units]) => Object.entries(units).map(
        ([u, label]) => `${name} unit ${u}` + (label ? ` (${label})` : "")));
      if (notes.length) box.append(el("div", {class: "rnn-stepper-marked"}, "Outlined: " + notes.join(", ") + "."));
      return box;
    }

    function nextTable(t) {
      const prefix = symbols.slice(0, t);
      const valid = validNext(m.language, prefix);
      const box = el("div", {class: "rnn-stepper-next"});
      if (valid && !valid.length) {
        box.append(el("div", {class: "rnn-stepper-ungrammatical"},
          `No symbol is valid next: “${prefix.join(" ")}” is not the beginning of any string of ` +
          `${languageLabel(m.language)}. The model still predicts:`));
      } else {
        box.append(el("div", {}, "What the model predicts next" +
          (valid ? ` (valid here: ${valid.join(" ")})` : "") + ":"));
      }
      const table = el("table", {class: "rnn-stepper-probs"});
      const head = el("tr");
      head.append(el("th", {scope: "col"}, "next"));
      if (valid) head.append(el("th", {scope: "col", title: "✓ the language allows this symbol here, ✗ it does not"}, "valid?"));
      head.append(el("th", {scope: "col"}, "probability"), el("th"));
      table.append(head);
      const order = outputs.map((s, i) => [s, steps[t].probs[i]]).sort((a, b) => b[1] - a[1]);
      for (const [s, p] of order) {
        const tr = el("tr");
        tr.append(el("td", {}, s));
        if (valid) tr.append(el("td", {class: valid.includes(s) ? "valid" : "invalid"}, valid.includes(s) ? "✓" : "✗"));
        const bar = el("div", {class: "bar"});
        bar.style.width = Math.round(140 * p) + "px";
        const td = el("td");
        td.append(bar);
        tr.append(td, el("td", {}, p.toFixed(3)));
        table.append(tr);
      }
      box.append(table);
      if (valid) {
        box.append(el("div", {class: "rnn-stepper-help"},
          "✓: the language allows this symbol after the prefix read so far; ✗: it does not. " +
          "</s> is the end of the string."));
      }
      return box;
    }

    function togglePlotted(u) {
      const current = new Set(unitsToPlot(steps.map(s => s.states[plotted]), marked(plotted), picked));
      if (current.has(u)) current.delete(u); else current.add(u);
      picked = current;
      show(+slider.value);
    }

    function plot(t) {  // the plotted state's units over the string, the cursor at step t
      const hs = steps.map(s => s.states[plotted]), n = hs.length, size = hs[0].length;
      const units = unitsToPlot(hs, marked(plotted), picked);
      const W = Math.max(300, Math.min(600, (view.clientWidth || root.clientWidth || 600) - 4));
      const H = 210, left = 46, right = 64, top = 22, bottom = 34;
      const values = units.flatMap(u => hs.map(h => h[u]));
      let lo = Math.min(0, ...values), hi = Math.max(0, ...values);
      if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
      const X = i => left + (W - left - right) * (n > 1 ? i / (n - 1) : 0.5);
      const Y = v => top + (H - top - bottom) * (hi - v) / (hi - lo);
      const svg = svgEl("svg", {class: "rnn-stepper-plot", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
                                role: "img", "aria-label": `${plotted} state over the string`});
      svg.append(svgEl("text", {x: 4, y: 14, class: "title"}, `${plotted} state per unit`));
      // axes: values on the left, the symbols read along the bottom
      svg.append(svgEl("line", {x1: left, x2: left, y1: top, y2: H - bottom, class: "axis"}));
      svg.append(svgEl("line", {x1: left, x2: W - right, y1: H - bottom, y2: H - bottom, class: "axis"}));
      for (const v of [lo, 0, hi]) {
        if (v !== 0 && Math.abs(v) < 1e-9) continue;
        svg.append(svgEl("line", {x1: left - 4, x2: W - right, y1: Y(v), y2: Y(v), class: v === 0 ? "zero" : "tick"}));
        svg.append(svgEl("text", {x: left - 6, y: Y(v) + 4, class: "ylabel", "text-anchor": "end"}, fmt(v)));
      }
      const tokens = ["<s>", ...symbols], every = Math.ceil(n / Math.max(1, Math.floor((W - left - right) / 16)));
      tokens.forEach((w, i) => {
        if (i % every) return;
        svg.append(svgEl("text", {x: X(i), y: H - bottom + 14, class: "xlabel", "text-anchor": "middle"}, w));
      });
      svg.append(svgEl("text", {x: (left + W - right) / 2, y: H - 4, class: "axislabel", "text-anchor": "middle"},
        "symbol just read"));
      // one line per unit, its number at the right end (labels pushed apart when they collide)
      const ends = [];
      units.forEach((u, k) => {
        const colourOf = PALETTE[k % PALETTE.length], strong = marked(plotted).includes(u);
        svg.append(svgEl("polyline", {points: hs.map((h, i) => `${X(i)},${Y(h[u])}`).join(" "),
                                      fill: "none", stroke: colourOf, "stroke-width": strong ? 3 : 1.5,
                                      "data-unit": u}));
        ends.push({u, y: Y(hs[n - 1][u]), colourOf, strong});
      });
      ends.sort((a, b) => a.y - b.y);
      ends.forEach((e, i) => { if (i && e.y - ends[i - 1].y < 12) e.y = ends[i - 1].y + 12; });
      for (const e of ends) {
        svg.append(svgEl("line", {x1: W - right + 4, x2: W - right + 14, y1: e.y, y2: e.y, stroke: e.colourOf,
                                  "stroke-width": e.strong ? 3 : 2}));
        svg.append(svgEl("text", {x: W - right + 17, y: e.y + 4, class: "unitlabel"}, `unit ${e.u}`));
      }
      svg.append(svgEl("line", {x1: X(t), x2: X(t), y1: top, y2: H - bottom, class: "cursor"}));
      const box = el("div", {class: "rnn-stepper-plotbox"});
      box.append(svg);
      if (size > 1) {
        box.append(el("div", {class: "rnn-stepper-help"},
          (size > units.length ? `Showing ${units.length} of ${size} units` +
           (picked ? "" : " (those that move most" + (marked(plotted).length ? ", and the outlined ones)" : ")")) +
           ". " : "") + `Click a square of the ${plotted} row to add or remove its line.`));
      }
      return box;
    }

    function show(t) {
      view.innerHTML = "";
      position.textContent = steps.length ? `step ${t} of ${steps.length - 1}` : "";
      if (!steps.length) return;
      const tokens = ["<s>", ...symbols];
      const line = el("div", {class: "rnn-stepper-string"});
      tokens.forEach((w, i) => {
        line.append(el("span", i === t ? {class: "current"} : {}, w), document.createTextNode(" "));
      });
      view.append(line, stateTable(t), legend(), nextTable(t), plot(t));
    }

    function update() {
      let next;
      try {
        next = tokenise(m, input.value);
      } catch (err) {
        message.textContent = "⚠ " + err.message;
        message.dataset.kind = "error";
        return;
      }
      message.textContent = "";
      const changed = next.join("\u0000") !== symbols.join("\u0000");
      symbols = next;
      steps = run(m, symbols);
      slider.max = String(steps.length - 1);
      if (changed) { slider.value = "0"; picked = null; stop(); }  // a new string starts at <s>
      if (m.language) {
        const bad = symbols.findIndex((s, i) => (validNext(m.language, symbols.slice(0, i)) || [s]).indexOf(s) < 0);
        if (bad >= 0) {
          message.dataset.kind = "note";
          message.textContent = `Note: this string leaves ${languageLabel(m.language)} at symbol ${bad + 1} ` +
            `(“${symbols[bad]}”): from there on no continuation is valid. The model still reads it.`;
        }
      }
      show(+slider.value);
    }
    function stop() {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; }
    }
    const go = t => { slider.value = String(Math.max(0, Math.min(steps.length - 1, t))); show(+slider.value); };
    input.addEventListener("input", update);
    slider.addEventListener("input", () => show(+slider.value));
    back.addEventListener("click", () => go(+slider.value - 1));
    fwd.addEventListener("click", () => go(+slider.value + 1));
    play.addEventListener("click", () => {
      if (timer) { stop(); return; }
      if (+slider.value >= steps.length - 1) go(0);
      play.textContent = "pause";
      timer = setInterval(() => {
        if (+slider.value >= steps.length - 1) stop();
        else go(+slider.value + 1);
      }, 500);
    });
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (steps.length) show(+slider.value); }, 150);
    });
    update();
  }

  function mountAll() { document.querySelectorAll(".rnn-stepper").forEach(mount); }

  // Colours: the stepper draws its own background, so its text keeps its contrast whatever the
  // page around it does. Dark when the site (pydata theme), JupyterLab or VS Code is dark, or,
  // on a page that says nothing, when the reader's system is.
  const LIGHT = `--rnn-fg: #1b1b1b; --rnn-muted: #4a4a4a; --rnn-bg: #ffffff; --rnn-field: #ffffff;
    --rnn-border: #9a9a9a; --rnn-error: #a4001d; --rnn-note: #7a4a00; --rnn-bar: #2f6db3;
    --rnn-cursor: #c00000; --rnn-grid: #d0d0d0; --rnn-valid: #1b6e20; --rnn-invalid: #a4001d;`;
  const DARK = `--rnn-fg: #ececec; --rnn-muted: #c4c4c4; --rnn-bg: #1c1d21; --rnn-field: #2a2c31;
    --rnn-border: #777; --rnn-error: #ff9a8f; --rnn-note: #ffd08a; --rnn-bar: #6ea8fe;
    --rnn-cursor: #ff6b6b; --rnn-grid: #4a4a4a; --rnn-valid: #8fdc93; --rnn-invalid: #ff9a8f;`;
  // (the playground's colours follow the same rule)
  const themeCss = (selector, light, dark) => `
    ${selector} { ${light} }
    html[data-theme="dark"] ${selector}, body[data-jp-theme-light="false"] ${selector},
    body.vscode-dark ${selector} { ${dark} }
    @media (prefers-color-scheme: dark) {
      html:not([data-theme]) body:not([data-jp-theme-light]):not(.vscode-light) ${selector} { ${dark} }
    }`;
  const style = document.createElement("style");
  style.textContent = themeCss(".rnn-stepper", LIGHT, DARK) + `
    .rnn-stepper { color: var(--rnn-fg); background: var(--rnn-bg); border: 1px solid var(--rnn-border);
      border-radius: 6px; padding: 8px; margin: 1em 0; max-width: 100%; box-sizing: border-box;
      font-size: 15px; line-height: 1.4; }
    .rnn-stepper * { color: inherit; }
    .rnn-stepper code, .rnn-stepper th, .rnn-stepper td { background: transparent; border: none; }
    .rnn-stepper-title { font-weight: bold; margin-bottom: 4px; }
    .rnn-stepper-controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
    .rnn-stepper input, .rnn-stepper button { color: var(--rnn-fg); background: var(--rnn-field);
      border: 1px solid var(--rnn-border); border-radius: 4px; font-size: 15px; }
    .rnn-stepper button { padding: 2px 10px; cursor: pointer; }
    .rnn-stepper-input { font-family: monospace; min-width: 12em; max-width: 100%; flex: 1 1 12em; }
    .rnn-stepper-slider { flex: 1 1 8em; min-width: 6em; accent-color: var(--rnn-bar); }
    .rnn-stepper-help { color: var(--rnn-muted); font-size: 13px; margin: 2px 0; }
    .rnn-stepper-message { color: var(--rnn-error); min-height: 1.2em; }
    .rnn-stepper-message[data-kind="note"] { color: var(--rnn-note); }
    .rnn-stepper-string { font-family: monospace; font-size: 1.1em; margin: 4px 0; overflow-wrap: anywhere; }
    .rnn-stepper-string .current { background: #ffd400; color: #000; padding: 0 2px; font-weight: bold; }
    .rnn-stepper-states { overflow-x: auto; max-width: 100%; }
    .rnn-stepper-states table { border-collapse: collapse; margin: 4px 0; }
    .rnn-stepper-states th { font-family: monospace; font-weight: normal; text-align: left; padding: 0 6px 0 0;
      white-space: nowrap; }
    .rnn-stepper-units th { font-size: 11px; color: var(--rnn-muted); text-align: center; padding: 0; }
    .rnn-stepper-units th:first-child { text-align: left; }
    .rnn-stepper td.unit { padding: 1px; text-align: center; }
    .rnn-stepper td.unit.pickable { cursor: pointer; }
    .rnn-stepper .square { display: inline-block; width: 13px; height: 13px; vertical-align: middle;
      border: 1px solid var(--rnn-grid); }
    .rnn-stepper td.unit.marked .square { outline: 3px solid var(--rnn-fg); outline-offset: 1px; }
    .rnn-stepper td.numbers { font-family: monospace; font-size: 13px; padding-left: 8px; white-space: nowrap; }
    .rnn-stepper-legend { font-size: 13px; color: var(--rnn-muted); margin: 4px 0 8px; }
    .rnn-stepper-legend .item { white-space: nowrap; margin-right: 10px; }
    .rnn-stepper-marked { color: var(--rnn-fg); }
    .rnn-stepper-ungrammatical { color: var(--rnn-note); font-weight: bold; }
    .rnn-stepper-probs { border-collapse: collapse; }
    .rnn-stepper-probs th { font-size: 13px; font-weight: normal; color: var(--rnn-muted); text-align: left; padding: 0 6px; }
    .rnn-stepper-probs td { padding: 0 6px; font-family: monospace; }
    .rnn-stepper-probs td.valid { color: var(--rnn-valid); }
    .rnn-stepper-probs td.invalid { color: var(--rnn-invalid); }
    .rnn-stepper-probs .bar { background: var(--rnn-bar); height: 10px; }
    .rnn-stepper-plotbox { margin-top: 6px; max-width: 100%; overflow-x: auto; }
    .rnn-stepper .rnn-stepper-plot { display: block; max-width: none; height: auto; }
    .rnn-stepper-plot text { fill: var(--rnn-fg); font-size: 12px; font-family: sans-serif; }
    .rnn-stepper-plot text.title { font-weight: bold; }
    .rnn-stepper-plot text.xlabel { font-family: monospace; }
    .rnn-stepper-plot .axis { stroke: var(--rnn-fg); stroke-width: 1; }
    .rnn-stepper-plot .tick { stroke: var(--rnn-grid); stroke-width: 1; }
    .rnn-stepper-plot .zero { stroke: var(--rnn-muted); stroke-width: 1; stroke-dasharray: 3 3; }
    .rnn-stepper-plot .cursor { stroke: var(--rnn-cursor); stroke-width: 2; }`;
  document.head.append(style);

  // `dom` and `themeCss`: the page-building pieces the playground (playground.js) shares
  window.CourseRnnStepper = {run, tokenise, validNext, unitsToPlot, mount, mountAll, titleNodes,
                             dom: {el, svgEl, PALETTE}, themeCss};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
