/* course_rnn web stepper: recompute a small trained RNN in the reader's browser.
 *
 * Each <div class="rnn-stepper" data-model="{json}"> holds a model exported by
 * course_rnn.widgets.web.export_model. This script needs no kernel and no network: it runs the
 * same equations as the PyTorch model (see web.py for the table) on whatever string the reader
 * types, and shows the states step by step. CourseRnnStepper.run(model, symbols) is also what the
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
  };
  cells.matrix_rnn = cells.urn;

  function initialState(m) {
    const zeros = new Array(m.hidden_size).fill(0);
    if (m.kind === "urn" || m.kind === "matrix_rnn") return {hidden: m.h0.slice()};
    if (m.kind === "lstm") return {hidden: zeros, cell: zeros.slice()};
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

  // ---- the forward pass: <s> w1 … wn -> per-step records and next-symbol probabilities ----
  function run(m, symbols) {
    const ids = [m.itos.indexOf("<s>"), ...symbols.map(s => m.itos.indexOf(s))];
    let st = initialState(m);
    const steps = [];
    for (const x of ids) {
      st = cells[m.kind](m, st, x);
      const logits = add(matvec(m.R, st.hidden), m.r).slice(m.output_from);
      steps.push({states: st, probs: softmax(logits)});
    }
    return steps;
  }

  // ---- the view --------------------------------------------------------------------------
  const el = (tag, attrs = {}, text = "") => {
    const e = document.createElement(tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    if (text) e.textContent = text;
    return e;
  };
  const colour = (v, scale) => {
    const x = Math.max(-1, Math.min(1, scale > 0 ? v / scale : 0));
    const c = Math.round(255 * (1 - Math.abs(x)));
    return x >= 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
  };

  function mount(root) {
    if (root.dataset.mounted) return;
    root.dataset.mounted = "1";
    const m = JSON.parse(root.dataset.model);
    const outputs = m.itos.slice(m.output_from);
    root.classList.add("rnn-stepper-mounted");
    root.append(el("div", {class: "rnn-stepper-title"}, root.dataset.title || m.kind));
    const input = el("input", {type: "text", class: "rnn-stepper-input", value: root.dataset.string || "",
                              "aria-label": "string to read", spellcheck: "false"});
    const back = el("button", {type: "button"}, "◀"), fwd = el("button", {type: "button"}, "▶");
    const play = el("button", {type: "button"}, "play");
    const slider = el("input", {type: "range", min: "0", max: "0", value: "0", class: "rnn-stepper-slider",
                               "aria-label": "step"});
    const message = el("div", {class: "rnn-stepper-message"});
    const view = el("div", {class: "rnn-stepper-view"});
    const controls = el("div", {class: "rnn-stepper-controls"});
    controls.append(input, back, fwd, play, slider);
    root.append(controls, message, view);

    let steps = [], symbols = [], timer = null;
    root.stepper = {get steps() { return steps; }, get symbols() { return symbols; }};

    function show(t) {
      view.innerHTML = "";
      if (!steps.length) return;
      const tokens = ["<s>", ...symbols];
      const line = el("div", {class: "rnn-stepper-string"});
      tokens.forEach((w, i) => {
        const span = el("span", i === t ? {class: "current"} : {}, w);
        line.append(span, document.createTextNode(" "));
      });
      view.append(line);
      for (const [name, values] of Object.entries(steps[t].states)) {
        const scale = Math.max(1e-9, ...steps.map(s => Math.max(...s.states[name].map(Math.abs))));
        const row = el("div", {class: "rnn-stepper-state"});
        row.append(el("code", {}, name + " "));
        values.slice(0, 64).forEach(v => {
          const cell = el("span", {class: "unit", title: v.toFixed(4)});
          cell.style.background = colour(v, scale);
          row.append(cell);
        });
        row.append(el("small", {}, " " + values.slice(0, 6).map(v => v.toFixed(2)).join(" ") +
                                   (values.length > 6 ? " …" : "")));
        view.append(row);
      }
      const valid = validNext(m.language, symbols.slice(0, t));
      const table = el("table", {class: "rnn-stepper-probs"});
      const order = outputs.map((s, i) => [s, steps[t].probs[i]]).sort((a, b) => b[1] - a[1]);
      for (const [s, p] of order) {
        const tr = el("tr");
        tr.append(el("td", {}, s), el("td", {}, valid ? (valid.includes(s) ? "✓" : "✗") : ""));
        const bar = el("div", {class: "bar"});
        bar.style.width = Math.round(160 * p) + "px";
        const td = el("td");
        td.append(bar);
        tr.append(td, el("td", {}, p.toFixed(3)));
        table.append(tr);
      }
      view.append(el("div", {}, "next symbol" + (valid ? " — valid: " + valid.join(" ") : "")), table);
      view.append(plot(t));
    }

    function plot(t) {  // every unit of the state over time (the LSTM's cell), cursor at step t
      const key = "cell" in steps[0].states ? "cell" : "hidden";
      const W = 420, H = 120, hs = steps.map(s => s.states[key]), n = hs.length;
      const lo = Math.min(...hs.flat()), hi = Math.max(...hs.flat()), span = hi - lo || 1;
      const X = i => 10 + (W - 20) * (n > 1 ? i / (n - 1) : 0.5), Y = v => H - 8 - (H - 16) * (v - lo) / span;
      const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
      svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("class", "rnn-stepper-plot");
      const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
      for (let u = 0; u < Math.min(hs[0].length, 16); u++) {
        const path = document.createElementNS(ns, "polyline");
        path.setAttribute("points", hs.map((h, i) => `${X(i)},${Y(h[u])}`).join(" "));
        path.setAttribute("fill", "none"); path.setAttribute("stroke", palette[u % palette.length]);
        svg.append(path);
      }
      const label = document.createElementNS(ns, "text");
      label.setAttribute("x", 14); label.setAttribute("y", 12); label.setAttribute("font-size", "11");
      label.textContent = key + " state over the string";
      svg.append(label);
      const cursor = document.createElementNS(ns, "line");
      [["x1", X(t)], ["x2", X(t)], ["y1", 0], ["y2", H], ["stroke", "#d00"]].forEach(([k, v]) => cursor.setAttribute(k, v));
      svg.append(cursor);
      return svg;
    }

    function update() {
      try {
        symbols = tokenise(m, input.value);
        message.textContent = "";
      } catch (err) {
        message.textContent = "⚠ " + err.message;
        return;
      }
      steps = run(m, symbols);
      slider.max = String(steps.length - 1);
      if (+slider.value > steps.length - 1) slider.value = String(steps.length - 1);
      show(+slider.value);
    }
    const go = t => { slider.value = String(Math.max(0, Math.min(steps.length - 1, t))); show(+slider.value); };
    input.addEventListener("input", update);
    slider.addEventListener("input", () => show(+slider.value));
    back.addEventListener("click", () => go(+slider.value - 1));
    fwd.addEventListener("click", () => go(+slider.value + 1));
    play.addEventListener("click", () => {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
      if (+slider.value >= steps.length - 1) go(0);
      play.textContent = "pause";
      timer = setInterval(() => {
        if (+slider.value >= steps.length - 1) { clearInterval(timer); timer = null; play.textContent = "play"; }
        else go(+slider.value + 1);
      }, 500);
    });
    update();
  }

  function mountAll() { document.querySelectorAll(".rnn-stepper").forEach(mount); }

  const style = document.createElement("style");
  style.textContent = `
    .rnn-stepper { border: 1px solid #ccc; border-radius: 6px; padding: 8px; margin: 1em 0; }
    .rnn-stepper-title { font-weight: bold; margin-bottom: 4px; }
    .rnn-stepper-controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
    .rnn-stepper-input { font-family: monospace; min-width: 16em; }
    .rnn-stepper-message { color: #b00; min-height: 1.2em; }
    .rnn-stepper-string { font-family: monospace; font-size: 1.1em; margin: 4px 0; }
    .rnn-stepper-string .current { background: #fd0; padding: 0 2px; font-weight: bold; }
    .rnn-stepper-state .unit { display: inline-block; width: 12px; height: 12px; border: 1px solid #eee; }
    .rnn-stepper-probs td { padding: 0 6px; font-family: monospace; }
    .rnn-stepper-probs .bar { background: #4a90d9; height: 10px; }`;
  document.head.append(style);

  window.CourseRnnStepper = {run, tokenise, validNext, mount, mountAll};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
