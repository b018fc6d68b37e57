/* course_rnn playground: train a tiny recurrent network on aⁿbⁿ or Dyck in the page and watch it
 * learn — the loss, the accuracy inside and beyond the training range, and the states along a
 * string the reader types, all updating while it trains.
 *
 * <div class="rnn-playground" data-string="aaaabbbb"></div> mounts it. The training itself is
 * playground_train.js (loaded before this file), run in a Web Worker so that the page stays
 * responsive; where a worker cannot start (a page opened from disk) the same code runs on the
 * page in short slices. The site's stepper (stepper.js, on every page) lends its page-building
 * helpers and opens the trained network. Nothing is fetched from the network.
 */
(function () {
  "use strict";
  if (window.CourseRnnPlayground) { window.CourseRnnPlayground.mountAll(); return; }
  const Train = window.CourseRnnTrain, Stepper = window.CourseRnnStepper;
  if (!Train || !Stepper || !Stepper.dom) {
    const missing = !Train ? "course-rnn-playground-train.js" : "course-rnn-stepper.js";
    document.querySelectorAll(".rnn-playground").forEach(root => {
      root.textContent = `The playground needs ${missing}, which did not load.`;
    });
    return;
  }
  const {el, svgEl, PALETTE} = Stepper.dom;
  // the engine's address, for the worker: next to this script, under the name the site gives it
  const ENGINE = document.currentScript
    ? new URL("course-rnn-playground-train.js", document.currentScript.src).href : null;

  // ---- charts --------------------------------------------------------------------------------
  const percent = x => (x === null || x === undefined ? "—" : `${Math.round(100 * x)}%`);
  const niceNumber = v => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toPrecision(2));

  // A line chart: `series` [{points: [[x, y]], colour, label, dashed}], y on a log scale if asked.
  function lineChart({width, height = 190, title, xLabel, series, yLog = false, yMin, yMax, className}) {
    const left = 46, right = 12, top = 22, bottom = 34;
    const ys = series.flatMap(s => s.points.map(p => p[1])).filter(y => Number.isFinite(y) && (!yLog || y > 0));
    const xs = series.flatMap(s => s.points.map(p => p[0]));
    let lo = yMin ?? Math.min(...ys), hi = yMax ?? Math.max(...ys);
    if (!ys.length) { lo = yLog ? 0.1 : 0; hi = 1; }
    if (yLog) { lo = Math.log10(lo); hi = Math.log10(hi); }
    if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
    const x0 = Math.min(0, ...xs), x1 = Math.max(1, ...xs);
    const X = x => left + (width - left - right) * (x - x0) / (x1 - x0);
    const Y = y => top + (height - top - bottom) * (hi - (yLog ? Math.log10(y) : y)) / (hi - lo);
    const svg = svgEl("svg", {class: `rnn-playground-chart ${className || ""}`, viewBox: `0 0 ${width} ${height}`,
                              width, height, role: "img", "aria-label": title});
    svg.append(svgEl("text", {x: 4, y: 14, class: "title"}, title));
    svg.append(svgEl("line", {x1: left, x2: left, y1: top, y2: height - bottom, class: "axis"}));
    svg.append(svgEl("line", {x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "axis"}));
    // ticks at both ends and at 0 (or the middle when 0 is not in view)
    for (const v of [lo, !yLog && lo < 0 && hi > 0 ? 0 : (lo + hi) / 2, hi]) {
      const y = yLog ? 10 ** v : v;
      svg.append(svgEl("line", {x1: left - 4, x2: width - right, y1: Y(y), y2: Y(y), class: "tick"}));
      svg.append(svgEl("text", {x: left - 6, y: Y(y) + 4, class: "ylabel", "text-anchor": "end"}, niceNumber(y)));
    }
    for (const x of [x0, x1]) {
      svg.append(svgEl("text", {x: X(x), y: height - bottom + 14, class: "xlabel",
                                "text-anchor": x === x0 ? "start" : "end"}, String(Math.round(x))));
    }
    svg.append(svgEl("text", {x: (left + width - right) / 2, y: height - 4, class: "axislabel", "text-anchor": "middle"}, xLabel));
    for (const s of series) {
      const pts = s.points.filter(p => Number.isFinite(p[1]) && (!yLog || p[1] > 0));
      if (!pts.length) continue;
      svg.append(svgEl("polyline", {points: pts.map(p => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" "),
                                    fill: "none", style: `stroke: ${s.colour}`, "stroke-width": s.dashed ? 1.5 : 2,
                                    "stroke-dasharray": s.dashed ? "5 4" : "none"}));
    }
    return svg;
  }

  // A legend under a chart: a coloured line and its label per series.
  function legend(series) {
    const box = el("div", {class: "rnn-playground-legend"});
    for (const s of series) {
      const item = el("span", {class: "item"});
      const swatch = el("span", {class: "swatch" + (s.dashed ? " dashed" : "")});
      swatch.style.borderColor = s.colour;
      item.append(swatch, document.createTextNode(" " + s.label));
      box.append(item);
    }
    return box;
  }

  // ---- where the training runs: a Web Worker, or this page when no worker can start ----------
  function startRunner(receive) {
    const local = () => {
      const handle = Train.serve(message => setTimeout(() => receive(message), 0), 25);
      return {post: handle, where: "page", stop() {}};
    };
    let runner;
    try {
      const worker = new Worker(ENGINE);
      worker.onmessage = event => receive(event.data);
      runner = {post: message => worker.postMessage(message), where: "worker", stop: () => worker.terminate()};
      worker.onerror = event => {  // the script could not load: train on the page instead
        event.preventDefault();
        worker.terminate();
        Object.assign(runner, local());
        receive({type: "moved"});
      };
    } catch (error) {
      runner = local();
    }
    return runner;
  }

  // ---- the playground --------------------------------------------------------------------------
  function mount(root) {
    if (root.dataset.mounted) return;
    root.dataset.mounted = "1";
    root.classList.add("rnn-playground-mounted");
    const D = Train.DEFAULTS;

    // controls
    const field = (label, input, help) => {
      const box = el("label", {class: "rnn-playground-field"});
      box.append(el("span", {class: "name"}, label), input);
      if (help) box.append(el("span", {class: "hint"}, help));
      return box;
    };
    const select = (name, options, value) => {
      const s = el("select", {name});
      for (const [v, text] of options) {
        const o = el("option", {value: v}, text);
        if (v === value) o.selected = true;
        s.append(o);
      }
      return s;
    };
    const number = (name, value, attrs) =>
      el("input", Object.assign({type: "number", name, value: String(value), inputmode: "decimal"}, attrs));
    const inputs = {
      language: select("language", Object.entries(Train.LANGUAGES).map(([k, l]) => [k, l.label]), root.dataset.language || D.language),
      model: select("model", Object.entries(Train.MODELS).map(([k, m]) => [k, m.label]), root.dataset.model || D.model),
      hidden_size: number("hidden_size", root.dataset.hiddenSize || D.hidden_size, {min: 1, max: 8, step: 1}),
      range: number("range", root.dataset.range || Train.LANGUAGES[root.dataset.language || D.language].start, {min: 1, step: 1}),
      lr: number("lr", root.dataset.lr || D.lr, {min: 0, max: 1, step: "any"}),
      seed: number("seed", root.dataset.seed || D.seed, {min: 0, step: 1}),
      batch_size: select("batch_size", [["full", "all (full batch)"], ["4", "4 strings"], ["16", "16 strings"]], "full"),
    };
    // how fast to train (epochs per second); not a setting of the run, so changing it resets nothing
    const speed = select("speed", [["10", "10 epochs/s"], ["100", "100 epochs/s"], ["", "as fast as it can"]],
                         root.dataset.speed ?? "100");
    const rangeHint = el("span", {class: "hint"});
    const playButton = el("button", {type: "button", class: "play", "aria-label": "train"}, "▶ train");
    const stepButton = el("button", {type: "button", class: "step"}, "+1 epoch");
    const resetButton = el("button", {type: "button", class: "reset"}, "reset");
    const exportButton = el("button", {type: "button", class: "export"}, "download weights (JSON)");
    const stepperButton = el("button", {type: "button", class: "open-stepper"}, "step through it");
    const status = el("div", {class: "rnn-playground-status", "aria-live": "polite"});
    const message = el("div", {class: "rnn-playground-message", role: "alert"});
    const stringInput = el("input", {type: "text", class: "rnn-playground-string", spellcheck: "false",
                                     "aria-label": "string whose states are shown"});
    const stringMessage = el("div", {class: "rnn-playground-message string", role: "alert"});

    const form = el("div", {class: "rnn-playground-form"});
    const rangeField = field("training range", inputs.range);
    rangeField.append(rangeHint);
    form.append(field("language", inputs.language), field("model", inputs.model),
                field("state size (1–8)", inputs.hidden_size), rangeField,
                field("learning rate (Adam)", inputs.lr), field("seed", inputs.seed), field("batch", inputs.batch_size));
    const buttons = el("div", {class: "rnn-playground-buttons"});
    const speedField = el("label", {class: "rnn-playground-speed"});
    speedField.append(el("span", {class: "name"}, "speed "), speed);
    buttons.append(playButton, stepButton, resetButton, speedField);

    const lossBox = el("div", {class: "rnn-playground-panel loss"});
    const accuracyBox = el("div", {class: "rnn-playground-panel accuracy"});
    const scoresBox = el("div", {class: "rnn-playground-panel scores"});
    const statesBox = el("div", {class: "rnn-playground-panel states"});
    const stringRow = el("label", {class: "rnn-playground-field wide"});
    stringRow.append(el("span", {class: "name"}, "a string to watch"), stringInput);
    const exportRow = el("div", {class: "rnn-playground-buttons"});
    exportRow.append(exportButton, stepperButton);
    const stepperBox = el("div", {class: "rnn-playground-stepper"});
    root.append(form, buttons, message, status, lossBox, accuracyBox, scoresBox, stringRow, stringMessage,
                statesBox, exportRow, stepperBox);

    // state of the page
    let settings = null, optimum = null, running = false, epoch = 0, spec = null, evaluation = null;
    let generation = 0, model = null, rate = null, clock = [], lastLoss = null, trainerRunning = false;
    let curve = [], accuracyCurve = [], stride = 1, sinceKept = 0;
    const MAX_POINTS = 1500;  // the loss curve keeps every `stride`-th epoch, stride doubling
    root.playground = {
      get settings() { return settings; }, get epoch() { return epoch; }, get spec() { return spec; },
      get evaluation() { return evaluation; }, get running() { return running; }, get where() { return runner.where; },
      get trajectory() { return model ? trajectory() : null; },
      // paused, and the trainer has said so (no report of an older epoch is still on its way)
      get idle() { return !running && !trainerRunning; },
    };

    const runner = startRunner(receive);
    const sendSpeed = () => runner.post({type: "speed", speed: speed.value ? Number(speed.value) : null});
    sendSpeed();

    function readSettings() {
      const s = {};
      for (const [k, input] of Object.entries(inputs)) s[k] = input.value;
      return Train.checkSettings(s);
    }

    function setRunning(on) {
      running = on;
      playButton.textContent = on ? "⏸ pause" : "▶ train";
      playButton.setAttribute("aria-label", on ? "pause" : "train");
    }

    function restart(event) {
      const lang = Train.LANGUAGES[inputs.language.value];
      if (event && event.target === inputs.language) inputs.range.value = String(lang.start);
      if (lang) {
        inputs.range.max = String(lang.range[1]);
        rangeHint.textContent = `largest ${lang.rangeName} trained on (${lang.range[0]}–${lang.range[1]})`;
      }
      let next;
      try {
        next = readSettings();
      } catch (error) {
        setRunning(false);
        runner.post({type: "pause"});
        message.textContent = "⚠ " + error.message;
        return false;
      }
      message.textContent = "";
      if (settings && next.language !== settings.language) stringInput.value = "";
      settings = next;
      if (!stringInput.value) stringInput.value = defaultString(settings);
      setRunning(false);
      epoch = 0; curve = []; accuracyCurve = []; stride = 1; sinceKept = 0; rate = null; clock = [];
      lastLoss = null;
      generation += 1;
      runner.post({type: "init", settings, run: generation});
      return true;
    }

    // a string a little beyond the training range
    function defaultString(s) {
      if (s.language === "anbn") return "a".repeat(s.range + 2) + "b".repeat(s.range + 2);
      const pairs = Train.LANGUAGES[s.language].pairs, d = Math.min(s.range + 2, 8);
      const opens = Array.from({length: d}, (_, i) => pairs[i % pairs.length]);
      return opens.map(p => p[0]).join("") + opens.reverse().map(p => p[1]).join("") + pairs[0].join("");
    }

    function receive(data) {
      if (data.run !== undefined && data.run !== generation) return;  // from a run since reset
      if (data.type === "moved") {
        sendSpeed();
        if (settings) runner.post({type: "init", settings, run: generation});
        return;
      }
      if (data.type === "error") {
        setRunning(false);
        message.textContent = "⚠ " + data.message;
        return;
      }
      if (data.type === "ready") {
        optimum = data.optimum;
        curve = [[0, data.initialLoss]];  // before any training
        lastLoss = data.initialLoss;
        return;
      }
      if (data.type !== "progress") return;
      for (const e of data.epochs) {
        lastLoss = e.loss;
        if (++sinceKept >= stride) { curve.push([e.epoch, e.loss]); sinceKept = 0; }
        if (curve.length > MAX_POINTS) { curve = curve.filter((_, i) => i % 2 === 0); stride *= 2; }
      }
      epoch = data.epoch;
      trainerRunning = data.running;
      spec = data.spec;
      model = Train.importSpec(spec);
      evaluation = data.evaluation;
      // epochs per second over the last two seconds
      const now = performance.now();
      clock.push([now, epoch]);
      while (clock.length > 2 && now - clock[0][0] > 2000) clock.shift();
      rate = clock.length > 1 ? (epoch - clock[0][1]) / ((now - clock[0][0]) / 1000) : null;
      const beyond = evaluation.kind === "anbn" ? beyondShare(evaluation) : evaluation.beyond;
      if (!accuracyCurve.length || accuracyCurve[accuracyCurve.length - 1][0] !== epoch) {
        accuracyCurve.push([epoch, evaluation.train, beyond]);
        if (accuracyCurve.length > MAX_POINTS) accuracyCurve = accuracyCurve.filter((_, i) => i % 2 === 0);
      }
      draw();
    }

    const beyondShare = ev => {
      const rest = ev.right.slice(settings.range);
      return rest.length ? rest.filter(x => x).length / rest.length : null;
    };

    const chartWidth = () => Math.max(260, Math.min(640, (root.clientWidth || 640) - 20));

    function draw() {
      const width = chartWidth();
      status.textContent = `epoch ${epoch}` + (lastLoss !== null ? ` · training loss ${lastLoss.toFixed(4)}` : "") +
        (optimum !== null ? ` (optimum ${optimum.toFixed(4)})` : "") +
        (running && rate ? ` · ${Math.round(rate)} epochs/s` : "") +
        ` · training ${runner.where === "worker" ? "in a background thread" : "on this page"}`;
      drawLoss(width);
      drawAccuracy(width);
      drawScores();
      drawStates(width);
    }

    function drawLoss(width) {
      const series = [{points: curve, colour: "var(--pg-line1)", label: "training loss (nats per symbol)"}];
      if (optimum !== null && curve.length) {
        series.push({points: [[curve[0][0], optimum], [Math.max(epoch, 1), optimum]], colour: "var(--pg-muted)",
                     label: "the exact optimum of the training set", dashed: true});
      }
      const low = optimum !== null ? optimum * 0.9 : undefined;
      lossBox.replaceChildren(lineChart({width, title: "training loss", xLabel: "epoch", series, yLog: true,
                                         yMin: curve.length ? Math.min(low, ...curve.map(p => p[1])) : undefined}),
                              legend(series));
    }

    function drawAccuracy(width) {
      const N = settings.range, lang = Train.LANGUAGES[settings.language];
      const beyondLabel = settings.language === "anbn" ? `n from ${N + 1} to ${evaluation ? evaluation.right.length : 2 * N}`
        : `depths ${N + 1}–${N + 3}`;
      const series = [
        {points: accuracyCurve.map(p => [p[0], p[1]]), colour: "var(--pg-line1)", label: `training range (${lang.rangeName} ≤ ${N})`},
        {points: accuracyCurve.map(p => [p[0], p[2]]), colour: "var(--pg-line2)", label: `beyond it (${beyondLabel})`},
      ];
      accuracyBox.replaceChildren(lineChart({width, title: "accuracy", xLabel: "epoch", series, yMin: 0, yMax: 1}),
                                  legend(series));
    }

    function drawScores() {
      if (!evaluation) return;
      const N = settings.range;
      const summary = el("div", {class: "rnn-playground-summary", "data-train-accuracy": String(evaluation.train)});
      const box = [summary];
      if (evaluation.kind === "anbn") {
        const right = evaluation.right.slice(0, N).filter(x => x).length;
        summary.textContent = `Training range (n ≤ ${N}): ${right} of ${N} strings right (${percent(evaluation.train)}). ` +
          `Max correct n: ${evaluation.maxCorrect}` + (evaluation.maxCorrect === evaluation.right.length ? " (every n tested)" : "") +
          (evaluation.maxCorrect > N ? " — beyond the training range." : ".");
        summary.dataset.maxCorrect = String(evaluation.maxCorrect);
        const strip = el("div", {class: "rnn-playground-strip", role: "list", "aria-label": "which n are right"});
        evaluation.right.forEach((ok, i) => {
          const n = i + 1;
          strip.append(el("span", {role: "listitem", class: `n ${ok ? "right" : "wrong"}${n <= N ? " trained" : ""}`,
                                  title: `aⁿbⁿ with n = ${n}: ${ok ? "right" : "wrong"}${n <= N ? " (in the training range)" : ""}`},
                          `${n}${ok ? "✓" : "✗"}`));
        });
        box.push(strip, el("div", {class: "hint"}, `Each box is one string aⁿbⁿ (n = 1…${evaluation.right.length}); ` +
          "outlined: the training range; ✓ every forced prediction right."));
      } else {
        summary.textContent = `Training strings (depth ≤ ${N}): ${percent(evaluation.train)} of the scored predictions right; ` +
          `deeper than ${N}: ${percent(evaluation.beyond)}.`;
        const table = el("table", {class: "rnn-playground-depths"});
        const head = el("tr");
        head.append(el("th", {scope: "col"}, "brackets open"), el("th", {scope: "col"}, "accuracy"), el("th", {scope: "col"}, ""));
        table.append(head);
        for (const row of evaluation.byDepth) {
          const tr = el("tr", {class: row.depth > N ? "beyond" : "trained"});
          const bar = el("div", {class: "bar"});
          bar.style.width = `${Math.round(100 * (row.accuracy || 0))}px`;
          const cell = el("td");
          cell.append(bar);
          tr.append(el("td", {}, row.depth === 0 ? "0 (the end)" : String(row.depth) + (row.depth > N ? " (beyond)" : "")),
                    el("td", {}, `${percent(row.accuracy)} of ${row.count}`), cell);
          table.append(tr);
        }
        box.push(table);
      }
      scoresBox.replaceChildren(...box);
    }

    // The states after <s> and each symbol of the typed string, under the current weights.
    function trajectory() {
      const text = stringInput.value.replace(/\s+/g, "");
      return {symbols: [...text], ...Train.run(model, [...text])};
    }

    function drawStates(width) {
      if (!model) return;
      let t;
      try {
        t = trajectory();
        stringMessage.textContent = "";
      } catch (error) {
        stringMessage.textContent = "⚠ " + error.message;
        statesBox.replaceChildren();
        return;
      }
      const names = t.cell ? [["cell", "cell state C"], ["hidden", "hidden state h"]] : [["hidden", "hidden state h"]];
      const tokens = ["<s>", ...t.symbols];
      const charts = names.map(([key, title]) => {
        const series = Array.from({length: model.H}, (_, u) => ({
          points: t[key].map((v, i) => [i, v[u]]), colour: PALETTE[u % PALETTE.length], label: `unit ${u}`}));
        const chart = lineChart({width, height: 170, title: `${title} after each symbol`, xLabel: "symbol just read", series});
        // the symbols along the x axis (thinned when they would overlap)
        const left = 46, right = 12, every = Math.ceil(tokens.length / Math.max(1, Math.floor((width - left - right) / 14)));
        chart.querySelectorAll("text.xlabel").forEach(e => e.remove());
        tokens.forEach((w, i) => {
          if (i % every) return;
          const x = left + (width - left - right) * (tokens.length > 1 ? i / (tokens.length - 1) : 0);
          chart.append(svgEl("text", {x, y: 170 - 34 + 14, class: "xlabel", "text-anchor": "middle"}, w));
        });
        const box = el("div");
        box.append(chart, legend(series));
        return box;
      });
      statesBox.replaceChildren(...charts);
    }

    function download() {
      if (!spec) return;
      const blob = new Blob([JSON.stringify(spec)], {type: "application/json"});
      const a = el("a", {href: URL.createObjectURL(blob),
                         download: `playground-${settings.model}-${settings.language}-h${settings.hidden_size}-epoch${epoch}.json`});
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    }

    function openStepper() {
      if (!spec) return;
      const div = el("div", {class: "rnn-stepper", "data-model": JSON.stringify(spec),
                             "data-string": stringInput.value.replace(/\s+/g, ""),
                             "data-title": `${Train.MODELS[settings.model].label} after ${epoch} epochs (weights frozen)`});
      stepperBox.replaceChildren(div);
      Stepper.mount(div);
    }

    Object.values(inputs).forEach(input => input.addEventListener("change", restart));
    playButton.addEventListener("click", () => {
      if (!settings && !restart()) return;
      if (running) { setRunning(false); runner.post({type: "pause"}); }
      else if (!message.textContent) { setRunning(true); runner.post({type: "play"}); }
    });
    stepButton.addEventListener("click", () => {
      if (message.textContent && !restart()) return;
      setRunning(false);
      runner.post({type: "step"});
    });
    resetButton.addEventListener("click", restart);
    speed.addEventListener("change", sendSpeed);
    document.addEventListener("visibilitychange", () => {  // no training in a tab nobody looks at
      if (document.hidden && running) { setRunning(false); runner.post({type: "pause"}); }
    });
    stringInput.addEventListener("input", () => { if (settings) drawStates(chartWidth()); });
    exportButton.addEventListener("click", download);
    stepperButton.addEventListener("click", openStepper);
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (evaluation) draw(); }, 150);
    });
    if (root.dataset.string) stringInput.value = root.dataset.string;
    restart();
  }

  function mountAll() { document.querySelectorAll(".rnn-playground").forEach(mount); }

  // Colours: like the steppers, the playground draws its own background so that its text keeps
  // its contrast in the site's light and dark modes (and in a dark system with a silent page).
  const LIGHT = `--pg-fg: #1b1b1b; --pg-muted: #4a4a4a; --pg-bg: #ffffff; --pg-field: #ffffff;
    --pg-border: #9a9a9a; --pg-error: #a4001d; --pg-grid: #d0d0d0; --pg-line1: #1f5fae; --pg-line2: #c2410c;
    --pg-right: #dff3e0; --pg-wrong: #fbe0e0; --pg-bar: #2f6db3;`;
  const DARK = `--pg-fg: #ececec; --pg-muted: #c4c4c4; --pg-bg: #1c1d21; --pg-field: #2a2c31;
    --pg-border: #777; --pg-error: #ff9a8f; --pg-grid: #4a4a4a; --pg-line1: #6ea8fe; --pg-line2: #ffa36b;
    --pg-right: #1d3b22; --pg-wrong: #4a1f22; --pg-bar: #6ea8fe;`;
  const style = document.createElement("style");
  style.textContent = Stepper.themeCss(".rnn-playground", LIGHT, DARK) + `
    .rnn-playground { color: var(--pg-fg); background: var(--pg-bg); border: 1px solid var(--pg-border);
      border-radius: 6px; padding: 10px; margin: 1em 0; max-width: 100%; box-sizing: border-box;
      font-size: 15px; line-height: 1.4; }
    .rnn-playground * { color: inherit; box-sizing: border-box; }
    .rnn-playground-form { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 12px; }
    .rnn-playground-field { display: flex; flex-direction: column; gap: 2px; font-size: 14px; min-width: 0; }
    .rnn-playground-field.wide { margin-top: 10px; }
    .rnn-playground-field .name { font-weight: bold; }
    .rnn-playground .hint { color: var(--pg-muted); font-size: 13px; }
    .rnn-playground input, .rnn-playground select, .rnn-playground button { color: var(--pg-fg);
      background: var(--pg-field); border: 1px solid var(--pg-border); border-radius: 4px; font-size: 15px;
      max-width: 100%; min-width: 0; }
    .rnn-playground input, .rnn-playground select { padding: 3px 5px; width: 100%; }
    .rnn-playground-string { font-family: monospace; }
    .rnn-playground-buttons { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0 4px; }
    .rnn-playground button { padding: 4px 12px; cursor: pointer; }
    .rnn-playground button.play { font-weight: bold; min-width: 7em; }
    .rnn-playground-speed { font-size: 14px; display: flex; align-items: center; gap: 4px; }
    .rnn-playground .rnn-playground-speed select { width: auto; }
    .rnn-playground-message { color: var(--pg-error); min-height: 1.2em; }
    .rnn-playground-status { font-family: monospace; font-size: 13px; overflow-wrap: anywhere; }
    .rnn-playground-panel { margin-top: 10px; max-width: 100%; overflow-x: auto; }
    .rnn-playground .rnn-playground-chart { display: block; max-width: none; height: auto; }
    .rnn-playground-chart text { fill: var(--pg-fg); font-size: 12px; font-family: sans-serif; }
    .rnn-playground-chart text.title { font-weight: bold; }
    .rnn-playground-chart text.xlabel { font-family: monospace; }
    .rnn-playground-chart .axis { stroke: var(--pg-fg); stroke-width: 1; }
    .rnn-playground-chart .tick { stroke: var(--pg-grid); stroke-width: 1; }
    .rnn-playground-legend { font-size: 13px; display: flex; flex-wrap: wrap; gap: 2px 14px; }
    .rnn-playground-legend .item { white-space: nowrap; }
    .rnn-playground-legend .swatch { display: inline-block; width: 18px; height: 0; border-top: 3px solid;
      vertical-align: middle; }
    .rnn-playground-legend .swatch.dashed { border-top-style: dashed; }
    .rnn-playground-summary { font-weight: bold; margin-bottom: 4px; }
    .rnn-playground-strip { display: flex; flex-wrap: wrap; gap: 3px; }
    .rnn-playground-strip .n { font-family: monospace; font-size: 12px; padding: 1px 3px; border-radius: 3px;
      border: 1px solid transparent; }
    .rnn-playground-strip .n.right { background: var(--pg-right); }
    .rnn-playground-strip .n.wrong { background: var(--pg-wrong); }
    .rnn-playground-strip .n.trained { border-color: var(--pg-fg); }
    .rnn-playground-depths { border-collapse: collapse; }
    .rnn-playground-depths th, .rnn-playground-depths td { background: transparent; border: none; padding: 1px 8px 1px 0;
      text-align: left; font-size: 14px; }
    .rnn-playground-depths th { font-weight: normal; color: var(--pg-muted); }
    .rnn-playground-depths .bar { background: var(--pg-bar); height: 10px; }
    .rnn-playground-depths tr.beyond td:first-child { font-style: italic; }`;
  document.head.append(style);

  window.CourseRnnPlayground = {mount, mountAll};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
