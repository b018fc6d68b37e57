/* course_rnn playground engine: tiny recurrent language models trained by backpropagation
 * through time in plain JavaScript (no library, no network).
 *
 * The models are the library's SRN, GRU and LSTM (models/srn.py, gru.py, lstm.py) with one-hot
 * inputs, in exactly the layout that export_model writes and import_model reads
 * (course_rnn/widgets/web.py), so the weights trained here step in the site's steppers and load
 * into PyTorch:
 *
 *   P [V, G·H]  the input drive of each symbol (PyTorch's W_ih e_x + b_ih, folded)
 *   U [G·H, H]  the recurrent matrix (weight_hh), c [G·H] its bias (bias_hh)
 *   R [V, H], r [V]  the readout: logits = R h + r over the whole vocabulary
 *
 * with G = 1 (SRN), 3 (GRU: gates r, z, n) or 4 (LSTM: gates i, f, g, o), PyTorch's orders.
 * The loss is the library's language-modelling loss (training/tasks.py): the mean next-symbol
 * cross-entropy over every predicted symbol, </s> included; Adam is torch.optim.Adam's; the
 * gradient is clipped to norm `clip` as `clip_grad_norm_` does. tests/widgets/test_playground_js.py
 * checks losses, gradients and whole training runs against PyTorch.
 *
 * One file, three uses: under node (module.exports, for the tests), in a page
 * (window.CourseRnnTrain, used by playground.js) and as a Web Worker (it then answers the
 * messages of playground.js: init, play, pause, step).
 */
(function (global) {
  "use strict";

  const PAD = "<pad>", BOS = "<s>", EOS = "</s>";

  // ---- seeded random numbers (mulberry32): the same seed gives the same numbers everywhere ----
  function randomStream(seed) {
    let a = (seed >>> 0) ^ 0x9e3779b9;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const randomInt = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));  // lo..hi

  // ---- the languages -------------------------------------------------------------------------
  // `range`: the training ranges the page accepts (a^n b^n: n ≤ N; Dyck: depth ≤ N), `start`
  // the one it starts with.
  const LANGUAGES = {
    anbn: {label: "aⁿbⁿ", alphabet: ["a", "b"], range: [1, 30], start: 10, rangeName: "n"},
    dyck1: {label: "Dyck-1: ( )", pairs: [["(", ")"]], range: [1, 8], start: 4, rangeName: "depth"},
    dyck2: {label: "Dyck-2: ( ) [ ]", pairs: [["(", ")"], ["[", "]"]], range: [1, 8], start: 4, rangeName: "depth"},
  };
  for (const lang of Object.values(LANGUAGES)) {
    if (lang.pairs) lang.alphabet = lang.pairs.flat();  // opener next to its closer, as Dyck's
  }
  // The spec stepper.js reads to mark valid continuations (web.py: _language_spec).
  function languageSpec(name) {
    const lang = LANGUAGES[name];
    if (!lang.pairs) return {name: "anbn", label: "aⁿbⁿ"};
    return {name: "dyck", pairs: lang.pairs,
            label: "the Dyck language of " + lang.pairs.map(p => p.join("")).join(" ")};
  }

  const anbn = n => [...Array(n).fill("a"), ...Array(n).fill("b")];

  // Dyck paths of `length` steps that stay within [0, depth] and touch `depth`: ways[t][h][r]
  // counts the ways to finish from height h after t steps (r = 1 once `depth` was reached), so a
  // path drawn step by step with these odds is uniform among them (languages/dyck.py does the same).
  function pathCounts(length, depth) {
    const ways = [];
    for (let t = 0; t <= length; t++) ways.push(Array.from({length: depth + 2}, () => [0, 0]));
    ways[length][0] = [0, 1];
    for (let t = length - 1; t >= 0; t--) {
      for (let h = 0; h <= depth; h++) {
        for (const r of [0, 1]) {
          const up = h < depth ? ways[t + 1][h + 1][h + 1 === depth ? 1 : r] : 0;
          const down = h > 0 ? ways[t + 1][h - 1][r] : 0;
          ways[t][h][r] = up + down;
        }
      }
    }
    return ways;
  }

  // A Dyck string of `length` symbols and depth exactly `depth`, each pair of a random kind.
  function dyckString(rng, pairs, length, depth) {
    const ways = pathCounts(length, depth), out = [], stack = [];
    let h = 0, r = 0;
    for (let t = 0; t < length; t++) {
      const upWays = h < depth ? ways[t + 1][h + 1][h + 1 === depth ? 1 : r] : 0;
      if (rng() * ways[t][h][r] < upWays) {
        const kind = Math.floor(rng() * pairs.length);
        stack.push(kind);
        out.push(pairs[kind][0]);
        h += 1;
        if (h === depth) r = 1;
      } else {
        out.push(pairs[stack.pop()][1]);
        h -= 1;
      }
    }
    return out;
  }

  // `count` strings whose depths go round 1, 2, …, maxDepth, each 2d to 2d + 6 symbols long.
  function dyckStrings(rng, pairs, maxDepth, count) {
    return Array.from({length: count}, (_, i) => {
      const d = 1 + (i % maxDepth);
      return dyckString(rng, pairs, 2 * d + 2 * randomInt(rng, 0, 3), d);
    });
  }

  // The exact minimum of the mean next-symbol loss on a corpus (course_rnn.metrics.optimal_loss):
  // the conditional entropy of the next symbol given the whole prefix.
  function optimalLoss(strings) {
    const following = new Map();
    let predicted = 0;
    for (const s of strings) {
      for (let t = 0; t <= s.length; t++) {
        const key = s.slice(0, t).join("\u0000"), next = t < s.length ? s[t] : EOS;
        if (!following.has(key)) following.set(key, new Map());
        const counts = following.get(key);
        counts.set(next, (counts.get(next) || 0) + 1);
      }
      predicted += s.length + 1;
    }
    let total = 0;
    for (const counts of following.values()) {
      let n = 0;
      for (const c of counts.values()) n += c;
      for (const c of counts.values()) total -= c * Math.log(c / n);
    }
    return total / predicted;
  }

  // ---- settings, checked before any work -------------------------------------------------------
  const MODELS = {
    lstm: {kind: "lstm", label: "LSTM"},
    gru: {kind: "gru", label: "GRU"},
    srn: {kind: "srn", nonlinearity: "tanh", label: "SRN (tanh)"},
    "srn-relu": {kind: "srn", nonlinearity: "relu", label: "SRN (ReLU)"},
  };
  const GATES = {srn: 1, gru: 3, lstm: 4};
  // (the training range defaults to the language's `start`)
  const DEFAULTS = {language: "anbn", model: "lstm", hidden_size: 4, lr: 0.05, seed: 0, batch_size: "full",
                    clip: 1.0, dyckStrings: 64};

  //: Settings' old names (one name per idea): refused with today's, never silently ignored.
  const RENAMED = {hidden: "hidden_size", batch: "batch_size"};

  function checkSettings(given) {
    for (const [old, now] of Object.entries(RENAMED)) {
      if (given && old in given) throw new Error(`the setting "${old}" is now called "${now}"`);
    }
    const s = Object.assign({}, DEFAULTS, given);
    const integer = (v, name, lo, hi) => {
      const x = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
      if (typeof x !== "number" || !Number.isInteger(x) || x < lo || x > hi) {
        throw new Error(`${name} must be a whole number from ${lo} to ${hi}, not ${JSON.stringify(v)}`);
      }
      return x;
    };
    if (!(s.language in LANGUAGES)) {
      throw new Error(`unknown language ${JSON.stringify(s.language)}: choose ${Object.keys(LANGUAGES).join(", ")}`);
    }
    if (!(s.model in MODELS)) {
      throw new Error(`unknown model ${JSON.stringify(s.model)}: choose ${Object.keys(MODELS).join(", ")}`);
    }
    const lang = LANGUAGES[s.language];
    s.hidden_size = integer(s.hidden_size, "the state size", 1, 8);
    s.range = integer(s.range ?? lang.start, `the training range (largest ${lang.rangeName})`, lang.range[0], lang.range[1]);
    s.seed = integer(s.seed, "the seed", 0, 2 ** 31 - 1);
    const lr = typeof s.lr === "string" ? Number(s.lr) : s.lr;
    if (typeof lr !== "number" || !(lr > 0 && lr <= 1)) {
      throw new Error(`the learning rate must be a number above 0 and at most 1, not ${JSON.stringify(s.lr)}`);
    }
    s.lr = lr;
    if (s.batch_size !== "full") s.batch_size = integer(s.batch_size, "the batch size", 1, 1024);
    if (s.clip !== null && !(s.clip > 0)) throw new Error(`clip must be positive or null, not ${s.clip}`);
    s.dyckStrings = integer(s.dyckStrings, "the number of Dyck training strings", 1, 4096);
    return s;
  }

  // ---- the model: parameters in export_model's layout ----------------------------------------
  const PARAMS = ["P", "U", "c", "R", "r"];

  function shapes(kind, H, V) {
    const GH = GATES[kind] * H;
    return {P: [V, GH], U: [GH, H], c: [GH], R: [V, H], r: [V]};
  }

  // PyTorch's initialisation: every recurrent weight and the readout uniform in ±1/√H; P is
  // W_ih e_x + b_ih, a sum of two such draws.
  function initModel(kind, H, itos, rng, nonlinearity = "tanh") {
    const V = itos.length, bound = 1 / Math.sqrt(H), m = {kind, H, V, G: GATES[kind], itos, nonlinearity};
    const draw = () => (2 * rng() - 1) * bound;
    for (const [name, shape] of Object.entries(shapes(kind, H, V))) {
      const p = new Float64Array(shape.reduce((a, b) => a * b, 1));
      for (let k = 0; k < p.length; k++) p[k] = name === "P" ? draw() + draw() : draw();
      m[name] = p;
    }
    return m;
  }

  const nested = (flat, rows, cols) => Array.from({length: rows}, (_, i) => Array.from(flat.subarray(i * cols, (i + 1) * cols)));

  // The model as export_model writes it (what the steppers and import_model read).
  function exportSpec(m, language) {
    const sh = shapes(m.kind, m.H, m.V);
    return {
      kind: m.kind, itos: m.itos.slice(), output_from: m.itos.indexOf(EOS), words: false,
      language: language ? languageSpec(language) : null, hidden_size: m.H,
      P: nested(m.P, ...sh.P), U: nested(m.U, ...sh.U), c: Array.from(m.c),
      nonlinearity: m.nonlinearity, R: nested(m.R, ...sh.R), r: Array.from(m.r),
    };
  }

  // A model from an export_model spec (srn, gru or lstm).
  function importSpec(spec) {
    if (!(spec.kind in GATES)) throw new Error(`the playground trains srn, gru and lstm, not ${JSON.stringify(spec.kind)}`);
    const H = spec.hidden_size, V = spec.itos.length;
    const m = {kind: spec.kind, H, V, G: GATES[spec.kind], itos: spec.itos.slice(), nonlinearity: spec.nonlinearity || "tanh"};
    for (const [name, shape] of Object.entries(shapes(spec.kind, H, V))) {
      const flat = [spec[name]].flat(2);
      if (flat.length !== shape.reduce((a, b) => a * b, 1)) {
        throw new Error(`${name} has ${flat.length} numbers, expected ${shape.join(" × ")}`);
      }
      m[name] = Float64Array.from(flat);
    }
    return m;
  }

  // ---- one step of each cell, forward and backward ---------------------------------------------
  // Each step reads the previous state from `mem` at step t − 1 and writes its own at step t;
  // `mem` holds everything the backward pass needs.
  const sigmoid = x => 1 / (1 + Math.exp(-x));

  // Scratch memory for strings of up to T steps, kept on the model and grown when needed.
  function workspace(m, T) {
    if (m.scratch && m.scratch.T >= T) return m.scratch;
    m.scratch = newWorkspace(m, Math.max(T, 16));
    return m.scratch;
  }

  function newWorkspace(m, T) {
    const H = m.H, GH = m.G * H, V = m.V;
    const w = {T, h: new Float64Array((T + 1) * H), gates: new Float64Array(T * GH), probs: new Float64Array(T * V),
               da: new Float64Array(GH), dh: new Float64Array(H), dhPrev: new Float64Array(H),
               dz: new Float64Array(V)};
    if (m.kind === "lstm") {
      w.C = new Float64Array((T + 1) * H);
      w.tanhC = new Float64Array(T * H);
      w.dC = new Float64Array(H);
    }
    if (m.kind === "gru") w.hn = new Float64Array(T * H);  // U_n h + b_hn, inside the reset gate
    return w;
  }

  // y = W x + b, W [rows, cols] stored row by row, x read from `x` at offset x0.
  function affine(W, b, x, x0, y, rows, cols) {
    for (let k = 0; k < rows; k++) {
      let s = b[k];
      for (let j = 0; j < cols; j++) s += W[k * cols + j] * x[x0 + j];
      y[k] = s;
    }
  }

  // Its backward pass: gW += dy xᵀ, gb += dy, dx += Wᵀ dy.
  function affineBackward(dy, W, x, x0, gW, gb, dx, rows, cols) {
    for (let k = 0; k < rows; k++) {
      const d = dy[k];
      if (d === 0) continue;
      gb[k] += d;
      for (let j = 0; j < cols; j++) {
        gW[k * cols + j] += d * x[x0 + j];
        dx[j] += W[k * cols + j] * d;
      }
    }
  }

  // U h_{t-1} + c, every gate's rows (h at step t − 1 is stored at slot t)
  const recurrentDrive = (m, w, t, out) => affine(m.U, m.c, w.h, t * m.H, out, m.G * m.H, m.H);

  const forwardStep = {
    srn(m, w, t, x) {  // h_t = f(P[x] + U h_{t-1} + c)
      const H = m.H, g = w.gates.subarray(t * H, (t + 1) * H);
      recurrentDrive(m, w, t, g);
      for (let k = 0; k < H; k++) {
        const a = g[k] + m.P[x * H + k];
        g[k] = a;
        w.h[(t + 1) * H + k] = m.nonlinearity === "relu" ? Math.max(0, a) : Math.tanh(a);
      }
    },
    gru(m, w, t, x) {  // torch.nn.GRU: r, z, n = gates; h_t = (1 − z) n + z h_{t-1}
      const H = m.H, GH = 3 * H, g = w.gates.subarray(t * GH, (t + 1) * GH), gh = w.da;
      recurrentDrive(m, w, t, gh);
      for (let k = 0; k < H; k++) {
        const r = sigmoid(m.P[x * GH + k] + gh[k]);
        const z = sigmoid(m.P[x * GH + H + k] + gh[H + k]);
        const n = Math.tanh(m.P[x * GH + 2 * H + k] + r * gh[2 * H + k]);
        g[k] = r; g[H + k] = z; g[2 * H + k] = n;
        w.hn[t * H + k] = gh[2 * H + k];
        w.h[(t + 1) * H + k] = (1 - z) * n + z * w.h[t * H + k];
      }
    },
    lstm(m, w, t, x) {  // torch.nn.LSTM: i, f, g, o; C_t = f C_{t-1} + i g; h_t = o tanh(C_t)
      const H = m.H, GH = 4 * H, g = w.gates.subarray(t * GH, (t + 1) * GH);
      recurrentDrive(m, w, t, g);
      for (let k = 0; k < GH; k++) g[k] += m.P[x * GH + k];
      for (let k = 0; k < H; k++) {
        const i = sigmoid(g[k]), f = sigmoid(g[H + k]), c = Math.tanh(g[2 * H + k]), o = sigmoid(g[3 * H + k]);
        g[k] = i; g[H + k] = f; g[2 * H + k] = c; g[3 * H + k] = o;
        const C = f * w.C[t * H + k] + i * c, tc = Math.tanh(C);
        w.C[(t + 1) * H + k] = C;
        w.tanhC[t * H + k] = tc;
        w.h[(t + 1) * H + k] = o * tc;
      }
    },
  };

  // Given dL/dh_t in w.dh (and dL/dC_t in w.dC), add this step's gradients to `grad`, put the
  // gate pre-activations' gradient in w.da and dL/dh_{t-1} (dL/dC_{t-1}) in w.dhPrev (w.dC).
  const backwardStep = {
    srn(m, w, t, x, grad) {
      const H = m.H;
      for (let k = 0; k < H; k++) {
        const h = w.h[(t + 1) * H + k];
        w.da[k] = w.dh[k] * (m.nonlinearity === "relu" ? (w.gates[t * H + k] > 0 ? 1 : 0) : 1 - h * h);
        grad.P[x * H + k] += w.da[k];
      }
      finishRecurrent(m, w, t, grad, H);
    },
    gru(m, w, t, x, grad) {
      const H = m.H, GH = 3 * H, g = w.gates.subarray(t * GH, (t + 1) * GH);
      for (let k = 0; k < H; k++) {
        const r = g[k], z = g[H + k], n = g[2 * H + k], hPrev = w.h[t * H + k], dh = w.dh[k];
        const dn = dh * (1 - z) * (1 - n * n);                  // through n = tanh(·)
        const dz = dh * (hPrev - n) * z * (1 - z);
        const dr = dn * w.hn[t * H + k] * r * (1 - r);
        grad.P[x * GH + k] += dr; grad.P[x * GH + H + k] += dz; grad.P[x * GH + 2 * H + k] += dn;
        w.da[k] = dr; w.da[H + k] = dz; w.da[2 * H + k] = dn * r;  // the recurrent rows' share
        w.dhPrev[k] = dh * z;                                       // h_t = … + z h_{t-1}
      }
      finishRecurrent(m, w, t, grad, GH, true);
    },
    lstm(m, w, t, x, grad) {
      const H = m.H, GH = 4 * H, g = w.gates.subarray(t * GH, (t + 1) * GH);
      for (let k = 0; k < H; k++) {
        const i = g[k], f = g[H + k], c = g[2 * H + k], o = g[3 * H + k], tc = w.tanhC[t * H + k];
        const dC = w.dC[k] + w.dh[k] * o * (1 - tc * tc);
        w.da[k] = dC * c * i * (1 - i);
        w.da[H + k] = dC * w.C[t * H + k] * f * (1 - f);
        w.da[2 * H + k] = dC * i * (1 - c * c);
        w.da[3 * H + k] = w.dh[k] * tc * o * (1 - o);
        w.dC[k] = dC * f;                                           // dL/dC_{t-1}
      }
      for (let k = 0; k < GH; k++) grad.P[x * GH + k] += w.da[k];
      finishRecurrent(m, w, t, grad, GH);
    },
  };

  // The recurrent matrix's share: dU += da h_{t-1}ᵀ, dc += da, dh_{t-1} (+)= Uᵀ da.
  function finishRecurrent(m, w, t, grad, GH, accumulate = false) {
    if (!accumulate) w.dhPrev.fill(0);
    affineBackward(w.da, m.U, w.h, t * m.H, grad.U, grad.c, w.dhPrev, GH, m.H);
  }

  function initialState(m, w) {
    w.h.fill(0, 0, m.H);
    if (w.C) w.C.fill(0, 0, m.H);
  }

  // Forward through one string: inputs <s> w1 … wn, targets w1 … wn </s> (as ids). Fills w and
  // returns the summed cross-entropy of the targets.
  function forwardString(m, w, inputs, targets) {
    const H = m.H, V = m.V;
    initialState(m, w);
    let loss = 0;
    for (let t = 0; t < inputs.length; t++) {
      forwardStep[m.kind](m, w, t, inputs[t]);
      const p = w.probs.subarray(t * V, (t + 1) * V);
      affine(m.R, m.r, w.h, (t + 1) * H, p, V, H);  // the logits, then their softmax
      let max = -Infinity, sum = 0;
      for (let v = 0; v < V; v++) max = Math.max(max, p[v]);
      for (let v = 0; v < V; v++) { p[v] = Math.exp(p[v] - max); sum += p[v]; }
      for (let v = 0; v < V; v++) p[v] /= sum;
      if (targets) loss -= Math.log(p[targets[t]]);
    }
    return loss;
  }

  // Backward through the string forwardString last read; every gradient is scaled by `scale`
  // (1 / the batch's predicted symbols: the loss is their mean).
  function backwardString(m, w, inputs, targets, grad, scale) {
    const H = m.H, V = m.V;
    w.dh.fill(0);
    if (w.dC) w.dC.fill(0);
    for (let t = inputs.length - 1; t >= 0; t--) {
      for (let v = 0; v < V; v++) w.dz[v] = (w.probs[t * V + v] - (v === targets[t] ? 1 : 0)) * scale;
      affineBackward(w.dz, m.R, w.h, (t + 1) * H, grad.R, grad.r, w.dh, V, H);  // dL/dz = p − onehot
      backwardStep[m.kind](m, w, t, inputs[t], grad);
      w.dh.set(w.dhPrev);
    }
  }

  const zerosLike = m => Object.fromEntries(PARAMS.map(n => [n, new Float64Array(m[n].length)]));

  // Encode strings (arrays of symbols) as input and target ids.
  function encode(itos, strings) {
    const id = Object.fromEntries(itos.map((s, i) => [s, i]));
    return strings.map(s => {
      const ids = s.map(x => {
        if (!(x in id)) throw new Error(`symbol ${JSON.stringify(x)} is not in the alphabet ${itos.slice(3).join(" ")}`);
        return id[x];
      });
      return {inputs: [id[BOS], ...ids], targets: [...ids, id[EOS]]};
    });
  }

  // The mean loss over every predicted symbol of `batch` (encoded strings) and its gradient.
  function lossAndGradient(m, batch) {
    const grad = zerosLike(m);
    let loss = 0, count = 0;
    for (const s of batch) count += s.targets.length;
    const longest = Math.max(...batch.map(s => s.inputs.length));
    const w = workspace(m, longest);
    for (const s of batch) {
      loss += forwardString(m, w, s.inputs, s.targets);
      backwardString(m, w, s.inputs, s.targets, grad, 1 / count);
    }
    return {loss: loss / count, count, grad};
  }

  // torch.nn.utils.clip_grad_norm_: scale the whole gradient to norm `clip` when it is longer.
  function clipGradient(grad, clip) {
    let sq = 0;
    for (const n of PARAMS) for (const g of grad[n]) sq += g * g;
    const norm = Math.sqrt(sq);
    if (clip !== null && norm > clip) {
      const coef = clip / (norm + 1e-6);
      for (const n of PARAMS) for (let k = 0; k < grad[n].length; k++) grad[n][k] *= coef;
    }
    return norm;
  }

  // torch.optim.Adam (betas 0.9, 0.999, eps 1e-8, no weight decay).
  class Adam {
    constructor(m, lr) {
      this.lr = lr; this.t = 0;
      this.m1 = zerosLike(m); this.m2 = zerosLike(m);
    }
    step(m, grad) {
      const b1 = 0.9, b2 = 0.999, eps = 1e-8;
      this.t += 1;
      const c1 = 1 - b1 ** this.t, c2 = Math.sqrt(1 - b2 ** this.t), stepSize = this.lr / c1;
      for (const n of PARAMS) {
        const p = m[n], g = grad[n], m1 = this.m1[n], m2 = this.m2[n];
        for (let k = 0; k < p.length; k++) {
          m1[k] = b1 * m1[k] + (1 - b1) * g[k];
          m2[k] = b2 * m2[k] + (1 - b2) * g[k] * g[k];
          p[k] -= stepSize * m1[k] / (Math.sqrt(m2[k]) / c2 + eps);
        }
      }
    }
  }

  // ---- what the page shows: the states along a string, and the scores ------------------------
  // States after <s> and each symbol: {hidden: [[…]], cell: [[…]] (LSTM)} and the next-symbol
  // probabilities over </s> and the alphabet (the steppers' `probs`).
  function run(m, symbols) {
    const [s] = encode(m.itos, [symbols]);
    const w = workspace(m, s.inputs.length), H = m.H, V = m.V, from = m.itos.indexOf(EOS);
    forwardString(m, w, s.inputs, null);
    const steps = [...s.inputs.keys()];
    const states = a => steps.map(t => Array.from(a.subarray((t + 1) * H, (t + 2) * H)));
    // over </s> and the alphabet only, as the steppers show them (softmax of those logits)
    const outputs = t => {
      const p = Array.from(w.probs.subarray(t * V + from, (t + 1) * V)), sum = p.reduce((a, b) => a + b, 0);
      return p.map(x => x / sum);
    };
    const out = {hidden: states(w.h), probs: steps.map(outputs)};
    if (w.C) out.cell = states(w.C);
    return out;
  }

  // The library's scores, position by position. a^n b^n (metrics.anbn_generalisation): a string
  // is right when the top prediction is the forced symbol at each b after the first and at the
  // end. Dyck: at each position whose next symbol is a closing bracket or the end, the top choice
  // among the closing brackets and </s> must be the right one (openers may always come next, so
  // they are not scored); `depth` is the number of brackets open there (0 at the end).
  // The top prediction among `candidates` (symbols) after the prefix of t symbols, from the
  // probabilities forwardString left in w (no arrays made: the page scores often).
  function topAmong(m, w, t, candidates) {
    let best = null, bestP = -1;
    for (const c of candidates) {
      const p = w.probs[t * m.V + m.itos.indexOf(c)];
      if (p > bestP) { best = c; bestP = p; }
    }
    return best;
  }

  function scoreAnbn(m, n) {
    const [s] = encode(m.itos, [anbn(n)]), w = workspace(m, s.inputs.length);
    const outputs = m.itos.slice(m.itos.indexOf(EOS));
    forwardString(m, w, s.inputs, null);
    for (let t = n + 1; t < 2 * n; t++) if (topAmong(m, w, t, outputs) !== "b") return false;
    return topAmong(m, w, 2 * n, outputs) === EOS;
  }

  function scoreDyck(m, pairs, s) {
    const [e] = encode(m.itos, [s]), w = workspace(m, e.inputs.length);
    forwardString(m, w, e.inputs, null);
    const closers = [EOS, ...pairs.map(p => p[1])];
    const partner = Object.fromEntries(pairs.map(([o, c]) => [c, o]));
    const records = [], stack = [];
    for (let t = 0; t <= s.length; t++) {
      const next = t < s.length ? s[t] : EOS;
      if (next === EOS || next in partner) {
        const choice = topAmong(m, w, t, closers);
        records.push({position: t, depth: stack.length, right: choice === next});
      }
      if (t < s.length) { if (next in partner) stack.pop(); else stack.push(next); }
    }
    return records;
  }

  // ---- a training run --------------------------------------------------------------------------
  class Trainer {
    constructor(settings) {
      this.settings = checkSettings(settings);
      const s = this.settings, lang = LANGUAGES[s.language], model = MODELS[s.model];
      this.language = lang;
      this.itos = [PAD, BOS, EOS, ...lang.alphabet];
      const dataRng = randomStream(s.seed * 2 + 1);
      if (lang.pairs) {
        this.train = dyckStrings(dataRng, lang.pairs, s.range, Math.max(s.dyckStrings, s.range));
        this.testDepth = s.range + 3;  // probed 3 depths beyond the training range
        this.probe = dyckStrings(dataRng, lang.pairs, this.testDepth, 12 * this.testDepth);
      } else {
        this.train = Array.from({length: s.range}, (_, i) => anbn(i + 1));
        this.testMax = Math.max(3 * s.range, s.range + 10);
      }
      this.encoded = encode(this.itos, this.train);
      this.optimum = optimalLoss(this.train);
      this.rng = randomStream(s.seed * 2);
      this.model = settings.initial ? importSpec(settings.initial)
        : initModel(model.kind, s.hidden_size, this.itos, this.rng, model.nonlinearity || "tanh");
      this.adam = new Adam(this.model, s.lr);
      this.epoch = 0;
    }

    // Batches of one epoch: all strings at once, or shuffled (seeded) mini-batches.
    batches() {
      const n = this.encoded.length, size = this.settings.batch_size;
      if (size === "full" || size >= n) return [this.encoded];
      const order = [...Array(n).keys()];
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(this.rng() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      const out = [];
      for (let i = 0; i < n; i += size) out.push(order.slice(i, i + size).map(k => this.encoded[k]));
      return out;
    }

    // One epoch; its training loss is the mean of the batches' losses before each update,
    // weighted by their predicted symbols (what fit records as train_loss).
    step() {
      let total = 0, count = 0, norm = 0;
      for (const batch of this.batches()) {
        const r = lossAndGradient(this.model, batch);
        norm = Math.max(norm, clipGradient(r.grad, this.settings.clip));
        this.adam.step(this.model, r.grad);
        total += r.loss * r.count;
        count += r.count;
      }
      this.epoch += 1;
      const loss = total / count;
      if (!Number.isFinite(loss)) throw new Error(`the loss became ${loss} at epoch ${this.epoch}: lower the learning rate`);
      return {epoch: this.epoch, loss, gradNorm: norm};
    }

    // The scores the page shows. a^n b^n: which n ≤ testMax are right, max correct n, and the
    // share of the training range right. Dyck: accuracy by depth on strings up to 3 deeper than
    // the training range, and on the training strings.
    evaluate() {
      const s = this.settings, m = this.model;
      if (!this.language.pairs) {
        const right = Array.from({length: this.testMax}, (_, i) => scoreAnbn(m, i + 1));
        let maxCorrect = 0;
        while (maxCorrect < right.length && right[maxCorrect]) maxCorrect += 1;
        const train = right.slice(0, s.range).filter(x => x).length / s.range;
        return {kind: "anbn", right, maxCorrect, train};
      }
      const pairs = this.language.pairs, flat = ss => ss.flatMap(x => scoreDyck(m, pairs, x));
      const share = rs => rs.length ? rs.filter(r => r.right).length / rs.length : null;
      const trainRecords = flat(this.train), probeRecords = flat(this.probe);
      const byDepth = [];
      for (let d = 0; d <= this.testDepth; d++) {
        const rs = probeRecords.filter(r => r.depth === d);
        byDepth.push({depth: d, accuracy: share(rs), count: rs.length});
      }
      return {kind: "dyck", byDepth, train: share(trainRecords),
              beyond: share(probeRecords.filter(r => r.depth > s.range))};
    }

    // The mean loss on the whole training set, without training (the curve's epoch 0).
    loss() {
      const w = workspace(this.model, Math.max(...this.encoded.map(s => s.inputs.length)));
      let total = 0, count = 0;
      for (const s of this.encoded) {
        total += forwardString(this.model, w, s.inputs, s.targets);
        count += s.targets.length;
      }
      return total / count;
    }

    exportSpec() { return exportSpec(this.model, this.settings.language); }
  }

  // ---- the Web Worker's side of playground.js ---------------------------------------------------
  // Messages in: {type: "init", settings, run} | "play" | "pause" | "step" | {type: "speed",
  // speed} (epochs per second, null: as fast as it can). Out, each with the `run` of the last
  // init: {type: "ready", optimum, initialLoss, …}, {type: "progress", epochs: [{epoch, loss}],
  // evaluation, spec, running, epoch} or {type: "error", message}.
  function serve(postMessage, sliceMs = 60) {
    let trainer = null, running = false, timer = null, pending = [], run, speed = null, credit = 0, tick = 0;
    const post = message => postMessage(Object.assign({run}, message));
    const report = (extra = {}) => {
      post(Object.assign({type: "progress", epochs: pending, evaluation: trainer.evaluate(),
                          spec: trainer.exportSpec(), running, epoch: trainer.epoch}, extra));
      pending = [];
    };
    const fail = error => {
      running = false;
      post({type: "error", message: error.message});
    };
    // Train for up to sliceMs (at a limited speed: as many epochs as the time since the last
    // slice allows), report, and yield so that the next message (pause) can arrive.
    function loop() {
      timer = null;
      if (!running || !trainer) return;
      const start = Date.now(), first = trainer.epoch;
      let allowed = Infinity;
      if (speed) {
        credit = Math.min(credit + speed * (start - tick) / 1000, Math.max(1, speed * sliceMs / 1000));
        allowed = Math.floor(credit);
      }
      tick = start;
      try {
        while (trainer.epoch - first < allowed && Date.now() - start < sliceMs) pending.push(trainer.step());
        credit -= trainer.epoch - first;
        if (trainer.epoch > first) report();
      } catch (error) { fail(error); return; }
      timer = setTimeout(loop, speed ? 20 : 0);
    }
    return function (message) {
      try {
        if (message.type === "init") {
          running = false;
          run = message.run;
          trainer = new Trainer(message.settings);
          pending = [];
          post({type: "ready", optimum: trainer.optimum, initialLoss: trainer.loss(),
                train: trainer.train.map(s => s.join("")), settings: trainer.settings});
          report();
        } else if (message.type === "speed") {
          speed = message.speed || null;
        } else if (!trainer) {
          throw new Error("the playground has no model yet");
        } else if (message.type === "play") {
          running = true;
          credit = 0;
          tick = Date.now();
          if (!timer) timer = setTimeout(loop, 0);
        } else if (message.type === "pause") {
          running = false;
          report();
        } else if (message.type === "step") {
          running = false;
          pending.push(trainer.step());
          report();
        }
      } catch (error) { fail(error); }
    };
  }

  const api = {LANGUAGES, MODELS, DEFAULTS, checkSettings, initModel, importSpec, exportSpec,
               encode, lossAndGradient, clipGradient, Adam, Trainer, run, scoreAnbn, scoreDyck,
               optimalLoss, dyckString, randomStream, serve};
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  } else if (typeof WorkerGlobalScope !== "undefined" && global instanceof WorkerGlobalScope) {
    const handle = serve(message => global.postMessage(message));
    global.onmessage = event => handle(event.data);
  } else {
    global.CourseRnnTrain = api;
  }
})(typeof self !== "undefined" ? self : globalThis);
