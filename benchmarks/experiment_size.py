"""What a reader opens to understand one experiment, and issue 44's other size figures.

Reads the source (nothing runs) and writes, per experiment package of
``src/course_rnn/experiments/``,

- its own lines (every ``.py`` file of the package);
- what a reader opens for it: the package's files plus every module of ``experiments/`` they
  import, followed through those modules' own imports inside ``experiments/`` (the shared
  modules: ``replication.py``, ``settings.py``, ``records.py`` …), files and lines;
- its ``Record`` classes (a class whose bases name ``Record``, or a subclass of one);

and for ``experiments/`` as a whole its lines and ``Record`` classes; over ``src/``, the places
that choose a device (calls of ``pick_device``); in ``experiments/``, the calls of ``fit`` that
raise a continued run's cap by hand (a cap computed from ``min_epochs``). Issue 44's "done
when" reads these numbers.

Writes ``benchmarks/results/experiment_size.md`` and ``experiment_size.json``.

Usage: python benchmarks/experiment_size.py [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "course_rnn"
EXPERIMENTS = PACKAGE / "experiments"


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def module_of(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def path_of(module: tuple[str, ...]) -> Path | None:
    base = PACKAGE.parent.joinpath(*module)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(path: Path) -> set[Path]:
    """The files of ``course_rnn`` that ``path`` imports (module level or inside functions)."""
    module = module_of(path)
    package = module if path.name == "__init__.py" else module[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = (*base, *(node.module.split(".") if node.module else ()))
            else:
                target = tuple((node.module or "").split("."))
            names = [(*target, alias.name) for alias in node.names]
            for candidate in (*names, target):  # `from . import x` names a module
                hit = path_of(candidate)
                if hit is not None:
                    found.add(hit)
                    if candidate == target:
                        break
        elif isinstance(node, ast.Import):
            for alias in node.names:
                hit = path_of(tuple(alias.name.split(".")))
                if hit is not None:
                    found.add(hit)
    return {p for p in found if p != path}


def opened_for(package: Path) -> list[Path]:
    """The package's files and the modules of ``experiments/`` they import, transitively."""
    todo = sorted(package.rglob("*.py"))
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(p for p in imported_modules(path)
                    if EXPERIMENTS in p.parents and p not in seen
                    and p != EXPERIMENTS / "__init__.py")
    return sorted(seen)


def record_classes(paths) -> list[str]:
    """Classes whose bases name ``Record`` or another class found here (a Record's subclass)."""
    classes: dict[str, list[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                         for b in node.bases]
                classes[f"{path.relative_to(EXPERIMENTS)}:{node.name}"] = bases
    records, changed = {"Record"}, True
    while changed:
        before = len(records)
        records |= {key.split(":")[1] for key, bases in classes.items()
                    if any(b in records for b in bases)}
        changed = len(records) != before
    return sorted(key for key in classes if key.split(":")[1] in records - {"Record"})


def calls_of(name: str, under: Path = PACKAGE) -> list[str]:
    """``file:line`` of every call of ``name`` in ``under`` (default ``src/``; its definition
    excluded)."""
    found = []
    for path in sorted(under.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if called == name:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def caps_raised_by_hand() -> list[str]:
    """``file:line`` of every call of ``fit`` in ``experiments/`` whose cap (``epochs=`` or
    ``steps=``) is computed from the run's ``min_epochs``, directly, through a name assigned
    from it in the same function, or in a ``dict(...)`` of arguments passed as ``**``: a
    continued run's cap raised by hand, which ``fit`` does itself."""
    found = []
    for path in sorted(EXPERIMENTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            tainted, raised = {"min_epochs"}, set()
            for node in ast.walk(function):
                if isinstance(node, ast.Assign):
                    targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
                    if isinstance(node.value, ast.Call) and _raises_cap(node.value, tainted):
                        raised |= targets  # common = dict(epochs=…, …)
                    elif _names(node.value) & tainted:
                        tainted |= targets
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "fit" and (
                        _raises_cap(node, tainted) or any(
                            k.arg is None and _names(k.value) & raised for k in node.keywords)):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return sorted(set(found))


def _raises_cap(call: ast.Call, tainted: set[str]) -> bool:
    return any(k.arg in ("epochs", "steps") and _names(k.value) & tainted for k in call.keywords)


def measure() -> dict:
    packages = sorted(p for p in EXPERIMENTS.iterdir() if (p / "__init__.py").is_file())
    per = {}
    for package in packages:
        own = sorted(package.rglob("*.py"))
        opened = opened_for(package)
        per[package.name] = {
            "own_files": len(own), "own_lines": sum(map(lines, own)),
            "opened_files": len(opened), "opened_lines": sum(map(lines, opened)),
            "opened": [str(p.relative_to(EXPERIMENTS)) for p in opened],
            "record_classes": len(record_classes(own)),
        }
    everything = sorted(EXPERIMENTS.rglob("*.py"))
    return {
        "experiments": per,
        "experiments_lines": sum(map(lines, everything)),
        "record_classes": record_classes(everything),
        "pick_device_calls": calls_of("pick_device"),
        "caps_raised_by_hand": caps_raised_by_hand(),
        # one verdict path: rows judged by replication.judged_rows, not by calls of judge
        "judged_by_hand": {p.name: calls_of("judge", p) for p in packages
                           if calls_of("judge", p)},
    }


def markdown(m: dict) -> str:
    rows = ["| package | own files | own lines | a reader opens: files | lines | Record classes |",
            "|---|---|---|---|---|---|"]
    for name, e in m["experiments"].items():
        rows.append(f"| {name} | {e['own_files']} | {e['own_lines']:,} | {e['opened_files']} | "
                    f"{e['opened_lines']:,} | {e['record_classes']} |")
    return "\n".join([
        "# The size of an experiment (issue 44)", "",
        "What a reader opens for one experiment: its package and the modules of `experiments/` "
        "it imports, followed through their imports. Read from the source by "
        "`benchmarks/experiment_size.py`.", "", *rows, "",
        f"- `experiments/`: {m['experiments_lines']:,} lines, "
        f"{len(m['record_classes'])} `Record` classes.",
        f"- `pick_device` is called in {len(m['pick_device_calls'])} places: "
        + ", ".join(f"`{c}`" for c in m["pick_device_calls"]) + ".",
        f"- a continued run's cap raised by hand (a `fit` call whose `epochs=` or `steps=` is "
        f"computed from `min_epochs`) in {len(m['caps_raised_by_hand'])} places"
        + (": " + ", ".join(f"`{c}`" for c in m["caps_raised_by_hand"]) if m[
            "caps_raised_by_hand"] else " (`fit` sets a continued run's cap)") + ".",
        f"- rows judged by their own calls of `judge`, not through `judged_rows` (one verdict "
        f"path): {len(m['judged_by_hand'])} of {len(m['experiments'])} packages"
        + (": " + ", ".join(f"{name} ({len(calls)})" for name, calls in
                            m["judged_by_hand"].items()) if m["judged_by_hand"] else "") + ".",
        ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    m = measure()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "experiment_size.json").write_text(json.dumps(m, indent=1) + "\n")
    (args.out / "experiment_size.md").write_text(markdown(m))
    print(markdown(m))


if __name__ == "__main__":
    main()
