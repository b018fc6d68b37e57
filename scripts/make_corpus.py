"""Make ``src/course_rnn/data/austen.txt.xz``, the English corpus of chapter 1.

A one-off script, NOT run at build or test time: its output is vendored in the package so
that learners on any operating system have the corpus with no download. It is kept so that
anyone can check (or redo) how the file was made.

Source
    Jane Austen's six completed novels (all public domain), as shipped by the Debian package
    ``r-cran-janeaustenr`` (Julia Silge's CRAN package ``janeaustenr`` 1.0.0, MIT licence,
    texts from Project Gutenberg). Get it with::

        apt-get update && apt-get install -y --no-install-recommends r-cran-janeaustenr

    The package stores each novel as an R character vector (one element per printed line) in
    an R "lazy-load database" (``data/Rdata.rdx`` index + ``data/Rdata.rdb`` objects). We read
    it with the small R-unserialiser below (standard library only, no R and no pip package).

Cleaning (documented in ``src/course_rnn/data/README.md`` too)
    1. Drop the front matter: a novel starts at its first ``CHAPTER`` heading.
    2. Join wrapped lines into paragraphs (blank lines separate paragraphs); drop paragraphs
       with no lowercase letter (``CHAPTER IV``, ``VOLUME II``, ``FINIS``, …).
    3. Lowercase; remove the ``_`` italics marks and all quotation marks (Gutenberg's straight
       quotes cannot be told apart as opening or closing, and they are not words).
    4. Tokenise into words (letters, inner hyphens and apostrophes: ``brother-in-law``,
       ``woodhouse's``; titles keep their dot: ``mr.``, ``mrs.``), numbers, and the
       punctuation marks ``. , ; : ! ? ( )`` and the dash ``--``. Everything else is dropped.
    5. Split a paragraph into sentences after ``.``, ``!`` or ``?`` when the next word starts
       with a capital letter in the original text (so ``"Oh!" said she`` stays one sentence).
    6. Write one sentence per line, tokens separated by single spaces, novels in publication
       order, and compress with xz.

Usage::

    python scripts/make_corpus.py            # writes src/course_rnn/data/austen.txt.xz
    python scripts/make_corpus.py --out /tmp/austen.txt.xz
"""

from __future__ import annotations

import argparse
import gzip
import lzma
import re
import struct
import zlib
from pathlib import Path

JANEAUSTENR = Path("/usr/lib/R/site-library/janeaustenr/data")
NOVELS = (  # publication order
    "sensesensibility",
    "prideprejudice",
    "mansfieldpark",
    "emma",
    "northangerabbey",
    "persuasion",
)
OUT = Path(__file__).resolve().parents[1] / "src" / "course_rnn" / "data" / "austen.txt.xz"


# -- reading R's serialisation format (XDR, version 2 or 3) --------------------------------
# Only what character vectors and the lazy-load index need: NULL, symbols, pairlists,
# character/integer/logical/double vectors, lists, and attributes.

NILVALUE, SYM, LIST, CHAR, LGL, INT, REAL, STR, VEC, REF = 254, 1, 2, 9, 10, 13, 14, 16, 19, 255


class RReader:
    def __init__(self, data: bytes):
        if data[:2] != b"X\n":
            raise ValueError("not an R XDR serialisation")
        self.data, self.pos, self.refs = data, 2, []
        version = self.int()
        self.int(), self.int()  # R version that wrote it, minimal R version to read it
        if version == 3:
            self.bytes(self.int())  # native encoding name, e.g. UTF-8

    def int(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return value

    def bytes(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind == NILVALUE:
            return None
        if kind == REF:
            return self.refs[(flags >> 8) - 1]
        if kind == SYM:
            name = self.item()
            self.refs.append(name)
            return name
        if kind == CHAR:
            n = self.int()
            return None if n == -1 else self.bytes(n).decode("utf-8")
        if kind == LIST:  # pairlist: attributes, tag, value, rest
            out = {}
            while kind == LIST:
                if has_attr:
                    self.item()
                tag = self.item() if has_tag else len(out)
                out[tag] = self.item()
                flags = self.int()
                kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
            assert kind == NILVALUE, f"unexpected pairlist end {kind}"
            return out
        n = self.int()
        if kind in (STR, VEC):
            value = [self.item() for _ in range(n)]
        elif kind in (INT, LGL):
            value = list(struct.unpack_from(f">{n}i", self.bytes(4 * n)))
        elif kind == REAL:
            value = list(struct.unpack_from(f">{n}d", self.bytes(8 * n)))
        else:
            raise ValueError(f"R type {kind} is not supported by this small reader")
        if has_attr:
            attributes = self.item()
            if kind == VEC and "names" in attributes:
                return dict(zip(attributes["names"], value))
        return value


def read_lazyload_db(folder: Path) -> dict[str, list[str]]:
    """All objects of an R lazy-load database (``Rdata.rdx`` + ``Rdata.rdb``)."""
    index = RReader(gzip.decompress((folder / "Rdata.rdx").read_bytes())).item()
    if index["compressed"] not in ([True], [1]):
        raise ValueError(f"only zlib-compressed databases are supported: {index['compressed']}")
    blob = (folder / "Rdata.rdb").read_bytes()
    objects = {}
    for name, (offset, length) in index["variables"].items():
        chunk = blob[int(offset) : int(offset + length)]
        objects[name] = RReader(zlib.decompress(chunk[4:])).item()  # 4 bytes: raw length
    return objects


# -- cleaning --------------------------------------------------------------------------------

TITLES = r"(?:mr|mrs|dr|st|messrs|col)\."
TOKEN = re.compile(rf"{TITLES}|[a-z]+(?:[-'][a-z]+)*|[0-9]+|--|[.,;:!?()]", re.IGNORECASE)
SENTENCE_END = {".", "!", "?"}
END_MARK = re.compile(r"^(finis|the end)\W*$", re.IGNORECASE)


def paragraphs(lines: list[str]) -> list[str]:
    """Wrapped lines → paragraphs, starting at the first chapter, headings dropped."""
    start = next(i for i, line in enumerate(lines) if line.strip().upper().startswith("CHAPTER"))
    text = "\n".join(lines[start:])
    paras = (" ".join(p.split()) for p in re.split(r"\n\s*\n", text))
    return [p for p in paras if re.search("[a-z]", p) and not END_MARK.match(p)]


def sentences(paragraph: str) -> list[list[str]]:
    """One paragraph → lowercase token lists, one per sentence."""
    text = paragraph.replace("_", "").replace('"', " ")
    tokens = TOKEN.findall(text)
    # ".--" and "!--" end a sentence and then start the next one with a dash: drop that dash
    pairs = zip([None, *tokens], tokens)
    tokens = [t for prev, t in pairs if not (t == "--" and prev in SENTENCE_END)]
    out, current = [], []
    for i, token in enumerate(tokens):
        current.append(token.lower())
        next_is_capital = i + 1 < len(tokens) and tokens[i + 1][0].isupper()
        if token in SENTENCE_END and (next_is_capital or i + 1 == len(tokens)):
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=JANEAUSTENR)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    novels = read_lazyload_db(args.source)
    lines_out, n_tokens = [], 0
    for name in NOVELS:
        book = [s for p in paragraphs(novels[name]) for s in sentences(p)]
        lines_out += [" ".join(s) for s in book]
        n_tokens += sum(map(len, book))
        print(f"{name:18s} {len(book):6d} sentences {sum(map(len, book)):8d} tokens")
    text = "\n".join(lines_out) + "\n"
    data = lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME)
    args.out.write_bytes(data)
    print(f"{len(lines_out)} sentences, {n_tokens} tokens → {args.out} ({len(data) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
