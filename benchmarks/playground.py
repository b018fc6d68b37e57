"""How fast does the website's playground train, against PyTorch on one CPU thread?

The same training both ways: a 4-unit LSTM language model on aⁿbⁿ, n = 1 … 10 (ten strings, one
full batch per epoch), Adam at learning rate 0.05, the gradient clipped to norm 1, from seed 0.

* **browser, engine**: ``playground_train.js``'s ``Trainer.step()`` in headless Chromium, on the
  page's main thread, nothing else running there: the JavaScript engine's own speed.
* **browser, worker**: what the playground page does when a reader presses ▶ at "as fast as it
  can": the engine in a Web Worker, evaluating and posting the weights, the loss curve and the
  scores to the page about every 60 ms (epochs counted from those messages).
* **torch**: the bare PyTorch loop (forward, loss, backward, clip, Adam step) on the library's
  ``LSTM`` with ``torch.set_num_threads(1)``.

Chromium and PyTorch alternate (torch, browser, torch, browser, …) so that other work on the
machine slows both alike. Each is timed by the wall clock and by CPU time: this process's for
PyTorch, the summed user + system time of Chromium's processes (read from /proc: Linux only) for
the browser, so that on a busy machine the CPU figures are the ones to compare. The load average
before and after is recorded. Writes ``benchmarks/results/playground.json``.

    python benchmarks/playground.py [--seconds 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch
from provenance import provenance

from course_rnn.languages import AnBn, Vocab, make_batch
from course_rnn.models import build_model
from course_rnn.training import LanguageModelling
from course_rnn.widgets.web import static_script

DEFAULT_OUT = Path(__file__).parent / "results" / "playground.json"
CHROMIUM = "/usr/bin/chromium"
SETTINGS = {"language": "anbn", "model": "lstm", "hidden_size": 4, "range": 10, "lr": 0.05,
            "seed": 0, "batch_size": "full"}

# In the page: a warmed-up engine on the main thread, then `epochs` epochs timed (wall clock).
ENGINE_WARM_UP = """(settings) => {
  window.trainer = new CourseRnnTrain.Trainer(settings);
  for (let e = 0; e < 200; e++) trainer.step();
}"""
ENGINE_RUN = """(epochs) => {
  const start = performance.now();
  for (let e = 0; e < epochs; e++) trainer.step();
  return (performance.now() - start) / 1000;
}"""

# In the page: the engine as the playground runs it, in a Web Worker made from its own source.
WORKER_RATE = """async ([source, settings, seconds]) => {
  const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
  const worker = new Worker(url);
  let firstAt = null, firstEpoch = 0, lastAt = 0, lastEpoch = 0, reports = 0;
  await new Promise(done => {
    worker.onmessage = ({data}) => {
      if (data.type !== "progress" || !data.running) return;
      const now = performance.now();
      if (firstAt === null && data.epoch >= 200) { firstAt = now; firstEpoch = data.epoch; }
      else if (firstAt !== null) { lastAt = now; lastEpoch = data.epoch; reports += 1; }
      if (firstAt !== null && now - firstAt > 1000 * seconds) done();
    };
    worker.postMessage({type: "speed", speed: null});
    worker.postMessage({type: "init", settings, run: 1});
    worker.postMessage({type: "play"});
  });
  worker.terminate();
  const elapsed = (lastAt - firstAt) / 1000;
  return {rate: (lastEpoch - firstEpoch) / elapsed, reports_per_second: reports / elapsed};
}"""


def descendants_cpu_seconds() -> float:
    """User + system CPU seconds of every live process below this one (Chromium's, here)."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        pid, parent = int(entry.name), int(fields[1])
        children.setdefault(parent, []).append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    total, stack = 0.0, list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack += children.get(pid, [])
    return total


def browser_rates(browser, seconds: float) -> dict:
    """Epochs per second of the engine on the page (wall, and per Chromium CPU second), and as
    the playground trains it, in a worker."""
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html><head><meta charset='utf-8'></head></html>")
        source = static_script("playground_train.js")
        page.add_script_tag(content=source)
        page.evaluate(ENGINE_WARM_UP, SETTINGS)
        probe = page.evaluate(ENGINE_RUN, 200)  # how many epochs fill `seconds`
        epochs = max(200, int(200 * seconds / max(probe, 1e-3)))
        cpu = descendants_cpu_seconds()
        wall = page.evaluate(ENGINE_RUN, epochs)
        cpu = descendants_cpu_seconds() - cpu
        cpu_worker = descendants_cpu_seconds()
        start = time.perf_counter()
        worker = page.evaluate(WORKER_RATE, [source, SETTINGS, seconds])
        cpu_worker = (descendants_cpu_seconds() - cpu_worker) / (time.perf_counter() - start)
        return {"engine": epochs / wall, "engine_cpu": epochs / cpu, "worker": worker["rate"],
                "worker_reports_per_second": worker["reports_per_second"],
                "worker_cores_busy": cpu_worker}
    finally:
        page.close()


def torch_rate(seconds: float) -> dict:
    """The bare PyTorch loop on the same model, data and optimizer; epochs per second."""
    vocab = Vocab(AnBn().alphabet)
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=SETTINGS["hidden_size"], seed=0)
    batch = make_batch(vocab, [AnBn.string(n) for n in range(1, SETTINGS["range"] + 1)])
    task = LanguageModelling(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=SETTINGS["lr"])
    model.train()

    def epoch() -> None:
        loss, _, _ = task.loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    for _ in range(200):
        epoch()
    epochs, cpu, wall = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        epoch()
        epochs += 1
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"wall": epochs / wall, "cpu": epochs / cpu}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each timing")
    parser.add_argument("--repeats", type=int, default=3, help="timings of each")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds and --repeats must be positive")
    if not Path(CHROMIUM).exists():
        parser.error(f"{CHROMIUM} is missing (apt-get install chromium; `make chromium` does it)")
    from playwright.sync_api import sync_playwright

    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    runs: dict[str, list[float]] = {"browser_engine": [], "browser_engine_cpu": [],
                                    "browser_worker": [], "worker_reports_per_second": [],
                                    "worker_cores_busy": [], "torch_wall": [], "torch_cpu": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            for _ in range(args.repeats):
                t = torch_rate(args.seconds)
                runs["torch_wall"].append(t["wall"])
                runs["torch_cpu"].append(t["cpu"])
                b = browser_rates(browser, args.seconds)
                for key in ("engine", "engine_cpu", "worker"):
                    runs[f"browser_{key}"].append(b[key])
                for key in ("worker_reports_per_second", "worker_cores_busy"):
                    runs[key].append(b[key])
            version = browser.version
        finally:
            browser.close()
    median = {name: statistics.median(values) for name, values in runs.items()}
    result = {
        "what": "epochs per second, 4-unit LSTM on a^n b^n (n ≤ 10, full batch, Adam 0.05, "
                "clip 1): the playground's JavaScript in headless Chromium vs PyTorch on one "
                "CPU thread",
        "settings": SETTINGS, "seconds": args.seconds, "repeats": args.repeats,
        "epochs_per_second": runs,
        "median": median,
        "browser_engine_over_torch_cpu": median["browser_engine_cpu"] / median["torch_cpu"],
        "browser_engine_over_torch_wall": median["browser_engine"] / median["torch_wall"],
        "browser_worker_over_torch_wall": median["browser_worker"] / median["torch_wall"],
        "chromium": version,
        **provenance(load_before),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"epochs per CPU second (median of {args.repeats}): browser engine "
          f"{median['browser_engine_cpu']:.0f}, torch one thread {median['torch_cpu']:.0f} "
          f"(ratio {result['browser_engine_over_torch_cpu']:.1f}); per wall second: engine "
          f"{median['browser_engine']:.0f}, worker as the page trains "
          f"{median['browser_worker']:.0f}, torch {median['torch_wall']:.0f} → {args.out}")
    return result


if __name__ == "__main__":
    main()
