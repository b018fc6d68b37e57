"""JSON and text from untrusted sources, with limits.

:func:`parse_json` never recurses (Python's ``json`` raises ``RecursionError`` on deep nesting,
and refuses integers of more than 4300 digits with an error that depends on the interpreter);
it bounds depth and number length. In *lenient* mode (a submitted notebook, whose outputs and
metadata are not graded) a too-deep container or a too-long number becomes ``None`` and the rest
of the document is kept; in strict mode (the sandbox's result lines) either is an error.

:func:`escape` makes any text one printable line: a file name or an error message can never
forge a line of the CSV or of the summary, whatever bytes it contains.
"""

from __future__ import annotations

import re
from json.decoder import scanstring

__all__ = ["JSONLimitError", "escape", "parse_json"]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]+|[\]}]+', re.S)  # strings, runs of brackets
_LITERALS = {"true": True, "false": False, "null": None, "NaN": float("nan"),
             "Infinity": float("inf"), "-Infinity": float("-inf")}

# what the parser expects next
_VALUE, _VALUE_OR_END, _KEY, _KEY_OR_END, _COLON, _COMMA_OR_END, _DONE = range(7)


class JSONLimitError(ValueError):
    """The document is valid JSON but beyond a limit (depth, number length), in strict mode."""


def parse_json(text: str, *, max_depth: int = 64, max_digits: int = 400, lenient: bool = False):
    """Parse one JSON document (Python's NaN/Infinity included) without recursion.

    Raises ``ValueError`` for malformed input and :class:`JSONLimitError` for a container
    nested deeper than ``max_depth`` or a number longer than ``max_digits`` characters, unless
    ``lenient``: then those become ``None``."""
    return _Parser(text, max_depth, max_digits, lenient).document()


#: what a reader returns when it read no complete value (a key, a ':', a ',', an opening bracket)
_MORE = object()


class _Parser:
    """One left-to-right pass over a JSON text. ``state`` says what may come next; ``stack``
    holds the open containers as frames ``[container, pending key, closing char]``. Each token
    is read by the reader of the current state, which returns the complete value it read (a
    scalar, or a container it closed) or :data:`_MORE`."""

    def __init__(self, text: str, max_depth: int, max_digits: int, lenient: bool):
        self.text, self.lenient = text, lenient
        self.max_depth, self.max_digits = max_depth, max_digits
        self.stack: list[list] = []
        self.state, self.pos, self.root = _VALUE, 0, None
        self.readers = {_VALUE: self.value, _VALUE_OR_END: self.value, _KEY: self.key,
                        _KEY_OR_END: self.key, _COLON: self.colon, _COMMA_OR_END: self.comma_or_end}

    def document(self):
        """The document: token after token to the end of the text, which must end it."""
        while True:
            self.pos = _WS.match(self.text, self.pos).end()
            if self.pos >= len(self.text):
                if self.state != _DONE:
                    self.fail("unexpected end")
                return self.root
            if self.state == _DONE:
                self.fail("extra data after the document")
            value = self.readers[self.state](self.text[self.pos])
            if value is not _MORE:
                self.attach(value)

    def fail(self, message: str):
        raise ValueError(f"invalid JSON at character {self.pos}: {message}")

    def attach(self, value) -> None:
        """A complete value goes into its container, or it is the document."""
        if not self.stack:
            self.root, self.state = value, _DONE
            return
        container, key, closing = self.stack[-1]
        if closing == "]":
            container.append(value)
        else:
            container[key] = value
        self.state = _COMMA_OR_END

    def close(self):
        """The container whose closing bracket is at ``pos``, now complete."""
        self.pos += 1
        return self.stack.pop()[0]

    def key(self, c: str):
        """After ``{`` or ``,`` in an object: a string key (or ``}`` right after ``{``)."""
        if c == "}" and self.state == _KEY_OR_END:
            return self.close()
        if c != '"':
            self.fail("expected a string key")
        self.stack[-1][1], self.pos = scanstring(self.text, self.pos + 1, False)
        self.state = _COLON
        return _MORE

    def colon(self, c: str):
        if c != ":":
            self.fail("expected ':'")
        self.pos += 1
        self.state = _VALUE
        return _MORE

    def comma_or_end(self, c: str):
        """After a value in a container: ``,`` and the next, or the container's closing."""
        closing = self.stack[-1][2]
        if c == ",":
            self.pos += 1
            self.state = _KEY if closing == "}" else _VALUE
            return _MORE
        if c != closing:
            self.fail(f"expected ',' or {closing!r}")
        return self.close()

    def value(self, c: str):
        """A value (or ``]`` right after ``[``): a container opens, a scalar is read whole."""
        if c == "]" and self.state == _VALUE_OR_END:
            return self.close()
        if c in "[{":
            return self.open(c)
        if c == '"':
            string, self.pos = scanstring(self.text, self.pos + 1, False)
            return string
        if self.text.startswith("-Infinity", self.pos):
            self.pos += len("-Infinity")
            return _LITERALS["-Infinity"]
        if c in "-0123456789":
            return self.number()
        return self.literal()

    def open(self, c: str):
        """A container opening at ``pos``; beyond ``max_depth``, an error or (lenient) ``None``."""
        if len(self.stack) >= self.max_depth:
            if not self.lenient:
                raise JSONLimitError(f"nested deeper than {self.max_depth}")
            self.pos = _skip(self.text, self.pos)  # dropped, without a token walk
            return None
        self.pos += 1
        self.stack.append([[] if c == "[" else {}, None, "]" if c == "[" else "}"])
        self.state = _VALUE_OR_END if c == "[" else _KEY_OR_END
        return _MORE

    def number(self):
        """An int or a float; longer than ``max_digits``, an error or (lenient) ``None``."""
        match = _NUMBER.match(self.text, self.pos)
        if match is None:
            self.fail("bad number")
        token, self.pos = match.group(), match.end()
        if len(token) > self.max_digits:
            if not self.lenient:
                raise JSONLimitError(f"a number of {len(token)} characters")
            return None
        is_float = match.group(1) or match.group(2)  # a fraction or an exponent
        return float(token) if is_float else int(token)

    def literal(self):
        """``true``, ``false``, ``null``, ``NaN`` or ``Infinity``."""
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return literal
        self.fail("unexpected character")


def _skip(text: str, pos: int) -> int:
    """The end of the container opening at ``pos`` (brackets counted in runs, strings jumped);
    its inside is not checked, since it is thrown away."""
    depth = 0
    for match in _SKIP.finditer(text, pos):
        token = match.group()
        if token[0] in "[{":
            depth += len(token)
        elif token[0] in "]}":
            if len(token) >= depth:
                return match.start() + depth
            depth -= len(token)
    raise ValueError("invalid JSON: unbalanced brackets")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape(text: str, limit: int | None = None) -> str:
    """One printable line: backslash, control, separator, unpaired-surrogate characters and
    undecodable bytes of a file name (``surrogateescape``) become escapes (``\\n``, ``\\x85``,
    ``\\u2028``); a leading character that spreadsheets read as a formula gets a ``'``."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF or not ch.isprintable():
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    line = "".join(out)
    if line[:1] in ("=", "+", "-", "@"):
        line = "'" + line
    if limit is not None and len(line) > limit:
        line = line[: max(0, limit - 1)] + "…"
    return line
