"""The layers of ARCHITECTURE.md, checked: a module of ``course_rnn`` imports only from its own
package and from packages of lower layers, and the packages of one layer never import one
another. Imports inside functions count too (a lazy import is still a dependency).

Within a package, no two modules import each other, directly or round a longer circle; every
import counts, at module level or inside a function (a lazy import that closes a circle hides it
from Python, not from a reader) and under ``if TYPE_CHECKING:`` (a circle that exists only for a
type hint is still one a reader has to untangle)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import course_rnn

PACKAGE = Path(course_rnn.__file__).parent
# Lowest first; ARCHITECTURE.md draws the same picture.
LAYERS = (
    ("device_check", "context"),
    ("checks", "claims", "utils"),
    ("languages",),
    ("corpus",),
    ("models", "metrics"),
    ("training", "analysis", "widgets"),
    ("experiments", "grading", "practice"),
    ("cli",),
    ("__main__",),
)
LAYER = {part: level for level, parts in enumerate(LAYERS) for part in parts}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def part_of(path: Path) -> str:
    """``models`` for models/srn.py, ``metrics`` for metrics.py."""
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def import_target(node: ast.ImportFrom, package: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The module a ``from … import`` names, as its dotted parts (a relative one resolved
    against ``package``, the parts of the importing module's package)."""
    if not node.level:
        return tuple((node.module or "").split("."))
    base = package[: len(package) - node.level + 1]
    return (*base, *(node.module.split(".") if node.module else ()))


def imported_parts(path: Path) -> set[str]:
    """The parts of course_rnn (``models``, ``metrics`` …) that a module imports."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1] if module[-1] != "__init__" else module[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = import_target(node, package)
            if target[0] != "course_rnn":
                continue
            if len(target) > 1:
                found.add(target[1])
            else:  # from course_rnn import models
                found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names
                      if alias.name.startswith("course_rnn.")}
    return found


def module_name(path: Path) -> str:
    """``course_rnn.experiments.replication`` for experiments/replication.py (a package's
    ``__init__.py``: the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


NAMED = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imported_modules(path: Path, name: str, named=NAMED) -> set[str]:
    """The modules (of ``named``: module name → file) that module ``name`` at ``path`` imports,
    anywhere in it (``from .x import y`` counts as x, or as x.y when that is a module)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.ImportFrom):
            target = ".".join(import_target(node, package))
            found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in named else target
                      for a in node.names}
        else:
            found |= {a.name for a in node.names}
    return {m for m in found if m in named and m != name}


def circles(named=NAMED) -> list[list[str]]:
    """Every set of modules that import one another round a circle (Tarjan's components)."""
    graph = {name: imported_modules(path, name, named) for name, path in named.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    assert circles() == [], "modules that import one another (move what both need down a level)"


def test_a_circle_is_found(tmp_path):
    """The check itself: two modules that import each other are one circle, whether the import
    back is a type-hint import or a lazy one inside a function; a module importing itself and
    an import one way only are not."""
    (tmp_path / "a.py").write_text("from .b import x\n")
    (tmp_path / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                   "    from .a import y\n")
    (tmp_path / "c.py").write_text("from .b import x\n\n\ndef f():\n    from .c import y\n")
    named = {f"pkg.{n}": tmp_path / f"{n}.py" for n in "abc"}
    assert circles(named) == [["pkg.a", "pkg.b"]]
    (tmp_path / "b.py").write_text("def g():\n    from .a import y\n")
    assert circles(named) == [["pkg.a", "pkg.b"]]
    (tmp_path / "b.py").write_text("def g():\n    from .c import y\n")
    assert circles(named) == [["pkg.b", "pkg.c"]]
    (tmp_path / "c.py").write_text("def f():\n    from .c import y\n")
    assert circles(named) == []


#: The command-line scripts, imported by one another by plain name (each puts scripts/ on sys.path).
SCRIPTS = {p.stem: p for p in (PACKAGE.parents[1] / "scripts").glob("*.py")}


def test_no_import_circles_among_the_scripts():
    assert SCRIPTS, "scripts/ not found"
    assert circles(SCRIPTS) == [], ("scripts that import one another (what both need belongs in a "
                                     "third one both import: scripts/setup_cell.py, say)")


def test_every_part_of_the_package_has_a_layer():
    parts = {part_of(p) for p in MODULES}
    assert parts <= set(LAYER), f"give these a layer in LAYERS and ARCHITECTURE.md: " \
                                f"{sorted(parts - set(LAYER))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down_the_layers(path):
    own = part_of(path)
    wrong = sorted(part for part in imported_parts(path) - {own}
                   if part in LAYER and LAYER[part] >= LAYER[own])
    assert not wrong, (f"{path.relative_to(PACKAGE)} ({own}, layer {LAYER[own]}) imports "
                       f"{', '.join(f'{w} (layer {LAYER[w]})' for w in wrong)}: a module imports "
                       "only from lower layers (ARCHITECTURE.md)")
