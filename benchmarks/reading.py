"""What each chapter asks of a reader: prose, code, figures, reading time, the learner frame.

Reads the chapter notebooks (no execution, no built site) and writes, per chapter page,

- prose words: the words of the Markdown cells, code excluded (fenced blocks, inline code
  spans, MyST directive option lines, roles' targets);
- code lines: the non-blank lines of the code cells a reader sees (cells tagged
  ``remove-cell`` or ``remove-input`` are hidden on the site and not counted);
- figures: code cells with a figure caption (``mystnb: figure``); tables: Markdown tables in
  the prose plus shown code cells that display a table (a rough count: a cell calling
  ``table(`` / ``markdown_table`` / building a ``DataFrame``);
- reading time by the formula of issue 33: prose words at 150 words a minute, plus 2 s per
  code line, plus 30 s per figure or table;
- prompts ("predict, then check" admonitions, class ``predict``), and whether the page has its
  outcomes box (class ``learning-outcomes``) and its key-ideas box (class ``key-ideas``);
- machinery : ideas in the main line: words about the project's own machinery against words
  about the ideas the chapter teaches, counted over the prose outside the paper-vs-ours and
  committed-run sections (``REPLICATION_HEADING``). The two word lists below are a rough proxy
  for what a sentence is about, not a classifier: "scale" can be Tabor's stack scale, "state"
  a sentence about the machinery. They are for following a trend, chapter by chapter.

Writes ``benchmarks/results/reading.md`` and ``reading.json``.

Usage: python benchmarks/reading.py [--chapters DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_LINE = 2
SECONDS_PER_FIGURE_OR_TABLE = 30

OUTCOMES_CLASS = "learning-outcomes"
KEY_IDEAS_CLASS = "key-ideas"
PROMPT_CLASS = "predict"

# Words about the project's own machinery (a rough proxy; see the docstring).
MACHINERY_WORDS = frozenset(
    """verdict verdicts scale scales committed seed seeds seed's criterion criteria twice
    provenance replication replications replicate replicated replicates budget budgets
    budget-limited agrees differs""".split()
)
# Phrases counted as one machinery word each.
MACHINERY_PHRASES = re.compile(r"\bpapers?(?:'s)? (?:vs\.?|versus) ours\b", re.IGNORECASE)
# Words about the ideas the chapters teach (a rough proxy; see the docstring).
IDEA_WORDS = frozenset(
    """state states gate gates gated counter counters counting stack stacks attractor
    attractors nesting nested depth gradient gradients generalise generalises generalised
    generalising generalisation generalize generalizes generalized generalizing generalization
    memory remember remembers recurrence recurrent embedding embeddings embedded hidden grammar
    grammars grammatical language languages syntax syntactic agreement rotation rotations
    rotate rotates contraction contract contracts fractal jacobian jacobians vanishing exploding
    predict predicts prediction predictions probability probabilities entropy perplexity
    distribution distributions recursion centre-embedding push pushes pop pops bracket
    brackets""".split()
)

# A section of the replication (paper-vs-ours tables, committed runs), by its heading.
REPLICATION_HEADING = re.compile(
    r"paper vs|paper versus|beside bengio|committed|paper's sizes?|papers' sizes?|paper's scale",
    re.IGNORECASE,
)
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
FENCE = re.compile(r"^\s*(`{3,}|:{3,})")
WORD = re.compile(r"[A-Za-zÀ-ÿ0-9][A-Za-zÀ-ÿ0-9'’-]*")


@dataclass
class Page:
    chapter: str
    prose_words: int
    main_line_words: int
    code_lines: int
    figures: int
    tables: int
    prompts: int
    outcomes_box: bool
    key_ideas_box: bool
    machinery_words: int
    idea_words: int
    machinery_to_ideas: float
    reading_minutes: float


def prose_lines(markdown: str) -> list[str]:
    """The lines of prose in a Markdown cell: fenced code blocks (```python …) dropped, MyST
    directives kept but their fence and option lines (``:class: …``) dropped."""
    lines, in_code = [], False
    fence_stack: list[str] = []
    for line in markdown.splitlines():
        match = FENCE.match(line)
        if match:
            rest = line.strip()[len(match.group(1)):].strip()
            if fence_stack and not rest and match.group(1) == fence_stack[-1]:
                fence_stack.pop()
                in_code = False
            elif rest.startswith("{"):  # a directive: its body is prose
                fence_stack.append(match.group(1))
            else:  # a code block (``` or ```python)
                fence_stack.append(match.group(1))
                in_code = True
            continue
        if in_code or re.match(r"^\s*:[\w-]+:", line):
            continue
        lines.append(line)
    return lines


def words(text: str) -> list[str]:
    text = re.sub(r"`[^`]*`", " ", text)  # inline code, and roles' targets: {cite}`key`
    text = re.sub(r"\{[\w-]+\}", " ", text)  # the role names themselves
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return WORD.findall(text)


def has_class(markdown: str, name: str) -> int:
    """How many directives in ``markdown`` carry the class ``name``."""
    return sum(name in line.split()[1:] for line in markdown.splitlines()
               if line.strip().startswith(":class:"))


def shown(cell: dict) -> bool:
    tags = set(cell.get("metadata", {}).get("tags", []))
    return not tags & {"remove-cell", "remove-input"}


TABLE_CODE = re.compile(r"\btable\w*\(|markdown_table|DataFrame")


def markdown_lines(notebook: dict):
    """Each prose line of the notebook's Markdown cells, with its cell's index and whether it lies
    in a replication section (a heading matching ``REPLICATION_HEADING``, down to the next
    heading of the same or a higher level that does not)."""
    replication_level = None  # the level of the replication heading we are under, if any
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for line in prose_lines("".join(cell["source"])):
            heading = HEADING.match(line)
            if heading:
                level = len(heading.group(1))
                if replication_level is not None and level <= replication_level:
                    replication_level = None
                if replication_level is None and REPLICATION_HEADING.search(heading.group(2)):
                    replication_level = level
            yield index, line, replication_level is not None


def measure(path: Path) -> Page:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    prose = main = machinery = ideas = code_lines = figures = tables = prompts = 0
    outcomes = key_ideas = False
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            if shown(cell):
                code_lines += sum(bool(line.strip()) for line in source.splitlines())
                tables += bool(TABLE_CODE.search(source))
            figures += "figure" in cell.get("metadata", {}).get("mystnb", {})
        elif cell["cell_type"] == "markdown":
            prompts += has_class(source, PROMPT_CLASS)
            outcomes |= has_class(source, OUTCOMES_CLASS) > 0
            key_ideas |= has_class(source, KEY_IDEAS_CLASS) > 0
    for _, line, in_replication in markdown_lines(notebook):
        if line.lstrip().startswith("|---"):
            tables += 1
        found = words(line)
        prose += len(found)
        if not in_replication:
            main += len(found)
            lowered = [w.lower().replace("’", "'") for w in found]
            machinery += sum(w in MACHINERY_WORDS for w in lowered)
            machinery += len(MACHINERY_PHRASES.findall(line))
            ideas += sum(w in IDEA_WORDS for w in lowered)
    minutes = (prose / WORDS_PER_MINUTE + (SECONDS_PER_CODE_LINE * code_lines
               + SECONDS_PER_FIGURE_OR_TABLE * (figures + tables)) / 60)
    return Page(
        chapter=path.stem, prose_words=prose, main_line_words=main, code_lines=code_lines,
        figures=figures, tables=tables, prompts=prompts, outcomes_box=outcomes,
        key_ideas_box=key_ideas, machinery_words=machinery, idea_words=ideas,
        machinery_to_ideas=round(machinery / ideas, 3) if ideas else float("inf"),
        reading_minutes=round(minutes, 1),
    )


def markdown(pages: list[Page]) -> str:
    lines = [
        "# Reading the chapters (benchmarks/reading.py)",
        "",
        f"Reading time = prose words at {WORDS_PER_MINUTE} a minute + {SECONDS_PER_CODE_LINE} s "
        f"per shown code line + {SECONDS_PER_FIGURE_OR_TABLE} s per figure or table (issue 33's "
        "formula), from the notebooks. Machinery : ideas counts, in the main line (outside the "
        "paper-vs-ours and committed-run sections), words about the project's own machinery "
        "(verdicts, scales, seeds, committed runs, criteria, twice the budget, paper vs ours, "
        "replication) against words about the ideas (state, gate, counter, stack, attractor, "
        "nesting, gradient, generalise, memory, grammar …): the lists are in the script, and "
        "they are a rough proxy, for following a trend. Tables are counted roughly (Markdown "
        "tables in the prose and code cells that display one).",
        "",
        "| chapter | prose words | main line | code lines | figures | tables | reading (min) "
        "| prompts | outcomes | key ideas | machinery : ideas |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pages:
        lines.append(
            f"| {p.chapter} | {p.prose_words:,} | {p.main_line_words:,} | {p.code_lines} | "
            f"{p.figures} | {p.tables} | {p.reading_minutes:.1f} | {p.prompts} | "
            f"{'yes' if p.outcomes_box else 'no'} | {'yes' if p.key_ideas_box else 'no'} | "
            f"{p.machinery_words} : {p.idea_words} = {p.machinery_to_ideas:.2f} |"
        )
    total = sum(p.reading_minutes for p in pages)
    lines += ["", f"All chapters: {total:.0f} minutes of reading by the formula.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=Path, default=ROOT / "chapters")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    pages = [measure(path) for path in sorted(args.chapters.glob("[0-9][0-9]_*.ipynb"))]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "reading.json").write_text(
        json.dumps({"pages": [asdict(p) for p in pages]}, indent=2) + "\n", encoding="utf-8"
    )
    (args.out / "reading.md").write_text(markdown(pages), encoding="utf-8")
    print(markdown(pages))


if __name__ == "__main__":
    main()
