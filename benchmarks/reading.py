"""What each chapter asks of a reader: prose, code, figures, reading time, the learner frame.

Reads the chapter notebooks (no execution, no built site) and writes, per chapter page,

- prose words: the words of the Markdown cells, code excluded (fenced blocks, inline code
  spans, MyST directive option lines, roles' targets);
- code lines: the non-blank lines of the code cells a reader sees (cells tagged
  ``remove-cell`` or ``remove-input`` are hidden on the site and not counted);
- the main line and the notes: the notes are what a reader has to open — Markdown inside a
  collapsed box of class ``replication-note`` (an admonition with
  ``:class: dropdown replication-note``) or ``aside-note`` (a side remark for the curious, such
  as a framework's conventions: ``:class: dropdown aside-note``) and code cells collapsed on
  the site (tag ``hide-cell``, or both ``hide-input`` and ``hide-output``); the main line is
  everything else. Prose words, code lines, figures and tables are counted for each, and the
  reading time is the main line's (the notes' own time is reported beside it);
- figures: code cells with a figure caption (``mystnb: figure``); tables: Markdown tables in
  the prose plus shown code cells that display a table (a rough count: a cell calling
  ``table(`` / ``markdown_table`` / building a ``DataFrame``);
- reading time by the formula of issue 33: prose words at 150 words a minute, plus 2 s per
  code line, plus 30 s per figure or table;
- prompts ("predict, then check" admonitions, class ``predict``), and whether the page has its
  outcomes box (class ``learning-outcomes``) and its key-ideas box (class ``key-ideas``);
- machinery : ideas in the main line: words about the project's own machinery against words
  about the ideas the chapter teaches, counted over the main line's prose. The two word lists
  below are a rough proxy for what a sentence is about, not a classifier: "scale" can be
  Tabor's stack scale, "state" a sentence about the machinery. They are for following a
  trend, chapter by chapter.

- numbers shown in the main line (``--site book/_build/html``): the numbers in the visible text
  of each built page's article — printed outputs, tables, prose — outside collapsed notes, the
  prompts' answers, code and formulas; those inside tables are counted apart. They need the
  executed outputs, so they are read from the built site, not from the (cleared) notebooks;
- reading as a reader reads (``--site``): the reading time above plus the words the code puts
  in the main line — printed lines, generated Markdown, figure captions — at the same 150 words
  a minute (a displayed table is already counted as one table).

Writes ``benchmarks/results/reading.md`` and ``reading.json``.

Usage: python benchmarks/reading.py [--chapters DIR] [--site book/_build/html] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_LINE = 2
SECONDS_PER_FIGURE_OR_TABLE = 30

OUTCOMES_CLASS = "learning-outcomes"
KEY_IDEAS_CLASS = "key-ideas"
PROMPT_CLASS = "predict"
# The collapsed replication notes (issue 33, item 3): a Markdown box of this class, and code cells
# hidden behind a toggle on the site.
NOTE_CLASS = "replication-note"
# A collapsed side remark that is not about the replication (e.g. PyTorch's conventions).
ASIDE_CLASS = "aside-note"
NOTE_CLASSES = frozenset({NOTE_CLASS, ASIDE_CLASS})
COLLAPSED_TAGS = frozenset({"hide-cell"})

# Words about the project's own machinery (a rough proxy; see the docstring).
MACHINERY_WORDS = frozenset(
    """verdict verdicts scale scales committed seed seeds seed's criterion criteria twice
    provenance replication replications replicate replicated replicates budget budgets
    budget-limited""".split()
)
# Phrases counted as one machinery word each: "paper vs ours", and the verdict words used as
# verdicts, i.e. marked (**differs**, "agrees", *not comparable*). Unmarked, "agrees" and "differs"
# are plain English — "the verb agrees with its subject" is chapter 4's idea, not its machinery.
MACHINERY_PHRASES = re.compile(
    r"\bpapers?(?:'s)? (?:vs\.?|versus) ours\b"
    r"|(?:\*\*?|[\"“])(?:agrees|differs|not comparable|not converged)(?:\*\*?|[\"”])",
    re.IGNORECASE)
LOG_SCALE = re.compile(r"\blog(?:arithmic)?[ -]scale\b", re.IGNORECASE)
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

# A heading that names the replication (paper-vs-ours tables, committed runs): since the notes are
# collapsed boxes, no such heading should stand in the main line (tests/test_reading.py).
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
    notes_words: int
    notes_code_lines: int
    notes_figures: int
    notes_tables: int
    prompts: int
    outcomes_box: bool
    key_ideas_box: bool
    machinery_words: int
    idea_words: int
    machinery_to_ideas: float
    reading_minutes: float
    notes_minutes: float
    # from the built site (``--site``), None without it
    numbers_shown: int | None = None
    numbers_in_tables: int | None = None
    output_words: int | None = None
    reader_minutes: float | None = None


def prose_lines(markdown: str) -> list[str]:
    """The lines of prose in a Markdown cell: fenced code blocks (```python …) dropped, MyST
    directives kept but their fence and option lines (``:class: …``) dropped."""
    return [line for line, _ in classified_lines(markdown)]


def classified_lines(markdown: str) -> list[tuple[str, bool]]:
    """``prose_lines`` with, for each line, whether it lies inside a collapsed note (a
    directive whose ``:class:`` holds one of ``NOTE_CLASSES``, at any depth)."""
    lines, in_code = [], False
    fence_stack: list[list] = []  # [fence, is a note] per open block
    for line in markdown.splitlines():
        match = FENCE.match(line)
        if match:
            rest = line.strip()[len(match.group(1)):].strip()
            if fence_stack and not rest and match.group(1) == fence_stack[-1][0]:
                fence_stack.pop()
                in_code = False
            elif rest.startswith("{"):  # a directive: its body is prose
                fence_stack.append([match.group(1), False])
            else:  # a code block (``` or ```python)
                fence_stack.append([match.group(1), False])
                in_code = True
            continue
        option = re.match(r"^\s*:([\w-]+):(.*)$", line)
        if option and fence_stack and option.group(1) == "class":
            fence_stack[-1][1] = bool(NOTE_CLASSES & set(option.group(2).split()))
        if in_code or option:
            continue
        lines.append((line, any(is_note for _, is_note in fence_stack)))
    return lines


def words(text: str) -> list[str]:
    # a glossary link is read as its text: {term}`attractors <attractor>` -> attractors
    text = re.sub(r"\{term\}`([^`<]*?)\s*(?:<[^`]*>)?`", r" \1 ", text)
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


def collapsed(cell: dict) -> bool:
    """Whether a code cell sits behind a toggle on the site: part of the replication notes."""
    tags = set(cell.get("metadata", {}).get("tags", []))
    return bool(tags & COLLAPSED_TAGS) or {"hide-input", "hide-output"} <= tags


TABLE_CODE = re.compile(r"\btable\w*\(|markdown_table|DataFrame")


def markdown_lines(notebook: dict):
    """Each prose line of the notebook's Markdown cells, with its cell's index and whether it lies
    in the notes (inside a box of one of ``NOTE_CLASSES``)."""
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for line, in_note in classified_lines("".join(cell["source"])):
            yield index, line, in_note


def measure(path: Path) -> Page:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    prose = main = machinery = ideas = prompts = 0
    # [main line, notes] each
    code_lines, figures, tables = [0, 0], [0, 0], [0, 0]
    outcomes = key_ideas = False
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            part = int(collapsed(cell))
            if shown(cell):
                code_lines[part] += sum(bool(line.strip()) for line in source.splitlines())
                tables[part] += bool(TABLE_CODE.search(source))
            figures[part] += "figure" in cell.get("metadata", {}).get("mystnb", {})
        elif cell["cell_type"] == "markdown":
            prompts += has_class(source, PROMPT_CLASS)
            outcomes |= has_class(source, OUTCOMES_CLASS) > 0
            key_ideas |= has_class(source, KEY_IDEAS_CLASS) > 0
    for _, line, in_replication in markdown_lines(notebook):
        if line.lstrip().startswith("|---"):
            tables[int(in_replication)] += 1
        found = words(line)
        prose += len(found)
        if not in_replication:
            main += len(found)
            lowered = [w.lower().replace("’", "'") for w in found]
            # "a log scale" is an axis, not the book's scale
            machinery += sum(w in MACHINERY_WORDS for w in lowered) - len(LOG_SCALE.findall(line))
            machinery += len(MACHINERY_PHRASES.findall(line))
            ideas += sum(w in IDEA_WORDS for w in lowered)

    def minutes(part: int, prose_words: int) -> float:
        return round(prose_words / WORDS_PER_MINUTE + (
            SECONDS_PER_CODE_LINE * code_lines[part]
            + SECONDS_PER_FIGURE_OR_TABLE * (figures[part] + tables[part])) / 60, 1)

    return Page(
        chapter=path.stem, prose_words=prose, main_line_words=main, code_lines=code_lines[0],
        figures=figures[0], tables=tables[0], notes_words=prose - main,
        notes_code_lines=code_lines[1], notes_figures=figures[1], notes_tables=tables[1],
        prompts=prompts, outcomes_box=outcomes,
        key_ideas_box=key_ideas, machinery_words=machinery, idea_words=ideas,
        machinery_to_ideas=round(machinery / ideas, 3) if ideas else float("inf"),
        reading_minutes=minutes(0, main), notes_minutes=minutes(1, prose - main),
    )


def markdown(pages: list[Page]) -> str:
    lines = [
        "# Reading the chapters (benchmarks/reading.py)",
        "",
        f"Reading time = prose words at {WORDS_PER_MINUTE} a minute + {SECONDS_PER_CODE_LINE} s "
        f"per shown code line + {SECONDS_PER_FIGURE_OR_TABLE} s per figure or table (issue 33's "
        "formula), from the notebooks, for the main line: what a reader sees without opening "
        "anything. The notes (Markdown in collapsed boxes of class `replication-note` or "
        "`aside-note`, code cells tagged `hide-cell`) are counted apart, with their own time at "
        "the same rates. Machinery : ideas counts, in the main line, words about the "
        "project's own machinery "
        "(verdicts, scales, seeds, committed runs, criteria, twice the budget, paper vs ours, "
        "replication) against words about the ideas (state, gate, counter, stack, attractor, "
        "nesting, gradient, generalise, memory, grammar …): the lists are in the script, and "
        "they are a rough proxy, for following a trend. Tables are counted roughly (Markdown "
        "tables in the prose and code cells that display one). Numbers shown: the numbers in "
        "the visible text of the built page's main line (printed outputs, tables and prose; not "
        "code, formulas, collapsed notes or prompts' answers), counted with `--site "
        "book/_build/html`, in brackets those inside tables; – where the site was not read. "
        "As a reader reads (also `--site`): the reading time plus the words the code puts in the "
        "main line (printed lines, generated Markdown, figure captions; tables counted as tables) "
        f"at {WORDS_PER_MINUTE} a minute.",
        "",
        "| chapter | prose words | main line | code lines | figures | tables | reading (min) "
        "| notes: words, code lines, figures + tables, min "
        "| prompts | outcomes | key ideas | machinery : ideas | numbers shown (in tables) "
        "| output words | as a reader reads (min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in pages:
        lines.append(
            f"| {p.chapter} | {p.prose_words:,} | {p.main_line_words:,} | {p.code_lines} | "
            f"{p.figures} | {p.tables} | {p.reading_minutes:.1f} | "
            f"{p.notes_words:,}, {p.notes_code_lines}, {p.notes_figures + p.notes_tables}, "
            f"{p.notes_minutes:.1f} | {p.prompts} | "
            f"{'yes' if p.outcomes_box else 'no'} | {'yes' if p.key_ideas_box else 'no'} | "
            f"{p.machinery_words} : {p.idea_words} = {p.machinery_to_ideas:.2f} | "
            + (f"{p.numbers_shown:,} ({p.numbers_in_tables:,}) | {p.output_words:,} | "
               f"{p.reader_minutes:.1f} |" if p.numbers_shown is not None else "– | – | – |")
        )
    total = sum(p.reading_minutes for p in pages)
    notes = sum(p.notes_minutes for p in pages)
    lines += ["", f"All chapters: {total:.0f} minutes of reading in the main line by the formula, "
              f"and {notes:.0f} more in the notes"
              + (f"; {sum(p.reader_minutes for p in pages):.0f} minutes in the main line as a "
                 "reader reads, outputs included."
                 if all(p.reader_minutes is not None for p in pages) else "."), ""]
    return "\n".join(lines)


# -- numbers shown in the main line: read from the built site, where the outputs are -------------

NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?", re.IGNORECASE)
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
# What a reader does not see without opening it (a collapsed note, a prompt's answer, a hidden
# cell) or what is not a shown number (code, formulas, scripts).
HIDDEN_CLASSES = NOTE_CLASSES | {"dropdown", "tag_hide-cell", "cell_input", "math"}
HIDDEN_TAGS = frozenset({"details", "script", "style", "code", "nav", "footer"})


# Elements that start a new line of text (so that a paragraph, a list item or a table row does not
# run into the next when the main line is read line by line).
BLOCKS = frozenset("p div pre li tr h1 h2 h3 h4 h5 h6 table section dt dd blockquote".split())


@dataclass(frozen=True)
class Shown:
    """A piece of a built page's main line: its text, whether it lies in a table, and whether in
    a cell's output (printed or displayed by the code; the rest is the page's own prose)."""

    text: str
    in_table: bool
    in_output: bool


class _MainLine(HTMLParser):
    """The visible text of a built page's article, outside collapsed boxes, code and formulas,
    piece by piece (:class:`Shown`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # (tag, hidden, in the article, in a cell's output)
        self.stack: list[tuple[str, bool, bool, bool]] = []
        self.shown: list[Shown] = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        hidden, in_article, in_output = self.stack[-1][1:] if self.stack else (False,) * 3
        classes = set((dict(attrs).get("class") or "").split())
        in_article = in_article or "bd-article" in classes
        in_output = in_output or "cell_output" in classes
        # a <pre> is a printed output inside a cell's output, a code block in the prose elsewhere
        hidden = (hidden or tag in HIDDEN_TAGS or bool(classes & HIDDEN_CLASSES)
                  or (tag == "pre" and not in_output))
        self.stack.append((tag, hidden, in_article, in_output))
        if tag in BLOCKS and not hidden and in_article:
            self.shown.append(Shown("\n", False, in_output))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):  # tolerate unclosed tags
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if not self.stack or self.stack[-1][1] or not self.stack[-1][2]:
            return
        self.shown.append(Shown(data, any(entry[0] == "table" for entry in self.stack),
                                self.stack[-1][3]))


def main_line(page: Path) -> list[Shown]:
    """What a reader sees of a built chapter page without opening anything, piece by piece."""
    parser = _MainLine()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.shown


def main_line_outputs(page: Path) -> list[str]:
    """The lines the code of a built page prints or displays in its main line (not the prose;
    not what a collapsed note or a prompt's answer holds), blank lines left out."""
    text = "".join(piece.text for piece in main_line(page) if piece.in_output)
    return [line.strip() for line in text.splitlines() if line.strip()]


def numbers_shown(page: Path) -> tuple[int, int]:
    """(numbers in the main line, of which in tables) of one built chapter page."""
    shown = main_line(page)
    return (sum(len(NUMBER.findall(piece.text)) for piece in shown),
            sum(len(NUMBER.findall(piece.text)) for piece in shown if piece.in_table))


def output_words(page: Path) -> int:
    """Words the code of one built chapter page puts in its main line — printed lines, generated
    Markdown, figure captions — outside tables (counted as tables) and collapsed notes."""
    return sum(len(words(piece.text)) for piece in main_line(page)
               if piece.in_output and not piece.in_table)


def as_a_reader_reads(page: Page, built: Path) -> None:
    """Fill in what only the built page knows: the numbers it shows and the reading time with its
    outputs counted."""
    page.numbers_shown, page.numbers_in_tables = numbers_shown(built)
    page.output_words = output_words(built)
    page.reader_minutes = round(page.reading_minutes + page.output_words / WORDS_PER_MINUTE, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=Path, default=ROOT / "chapters")
    parser.add_argument("--site", type=Path, default=None,
                        help="a built site (book/_build/html): also count the numbers each "
                             "page shows in its main line (from the executed outputs)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    if args.site and not (args.site / "chapters").is_dir():
        parser.error(f"{args.site} is not a built site: it has no chapters/ folder")
    pages = [measure(path) for path in sorted(args.chapters.glob("[0-9][0-9]_*.ipynb"))]
    if args.site:
        for page in pages:
            built = args.site / "chapters" / f"{page.chapter}.html"
            if not built.is_file():
                parser.error(f"{built} is missing: build the book first (make book)")
            as_a_reader_reads(page, built)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "reading.json").write_text(
        json.dumps({"pages": [asdict(p) for p in pages]}, indent=2) + "\n", encoding="utf-8"
    )
    (args.out / "reading.md").write_text(markdown(pages), encoding="utf-8")
    print(markdown(pages))


if __name__ == "__main__":
    main()
