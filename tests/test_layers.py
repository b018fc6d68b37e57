"""The layers of ARCHITECTURE.md, checked: a module of ``course_rnn`` imports only from its own
package and from packages of lower layers, and the packages of one layer never import one
another. Imports inside functions count too (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import course_rnn

PACKAGE = Path(course_rnn.__file__).parent
# Lowest first; ARCHITECTURE.md draws the same picture.
LAYERS = (
    ("checks", "utils"),
    ("languages",),
    ("corpus",),
    ("models", "metrics"),
    ("training", "analysis", "widgets"),
    ("experiments", "grading"),
    ("cli",),
    ("__main__",),
)
LAYER = {part: level for level, parts in enumerate(LAYERS) for part in parts}
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def part_of(path: Path) -> str:
    """``models`` for models/srn.py, ``metrics`` for metrics.py."""
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def imported_parts(path: Path) -> set[str]:
    """The parts of course_rnn (``models``, ``metrics`` …) that a module imports."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1] if module[-1] != "__init__" else module[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = (*base, *(node.module.split(".") if node.module else ()))
            else:
                target = tuple((node.module or "").split("."))
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
