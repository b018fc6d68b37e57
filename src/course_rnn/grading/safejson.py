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
    stack: list[list] = []  # frames [container, pending key, closing char]
    state, pos, n = _VALUE, 0, len(text)
    root = None

    def fail(message: str):
        raise ValueError(f"invalid JSON at character {pos}: {message}")

    while True:
        pos = _WS.match(text, pos).end()
        if pos >= n:
            if state != _DONE:
                fail("unexpected end")
            return root
        c = text[pos]
        if state == _DONE:
            fail("extra data after the document")

        if state in (_KEY, _KEY_OR_END):
            if c == "}" and state == _KEY_OR_END:
                pos += 1
                value = stack.pop()[0]
            elif c == '"':
                key, pos = scanstring(text, pos + 1, False)
                stack[-1][1] = key
                state = _COLON
                continue
            else:
                fail("expected a string key")
        elif state == _COLON:
            if c != ":":
                fail("expected ':'")
            pos += 1
            state = _VALUE
            continue
        elif state == _COMMA_OR_END:
            frame = stack[-1]
            if c == ",":
                pos += 1
                state = _KEY if frame[2] == "}" else _VALUE
                continue
            if c != frame[2]:
                fail(f"expected ',' or {frame[2]!r}")
            pos += 1
            value = stack.pop()[0]
        else:  # _VALUE or _VALUE_OR_END
            if c == "]" and state == _VALUE_OR_END:
                pos += 1
                value = stack.pop()[0]
            elif c in "[{":
                if len(stack) >= max_depth:
                    if not lenient:
                        raise JSONLimitError(f"nested deeper than {max_depth}")
                    value, pos = None, _skip(text, pos)  # dropped, without a token walk
                else:
                    pos += 1
                    stack.append([[] if c == "[" else {}, None, "]" if c == "[" else "}"])
                    state = _VALUE_OR_END if c == "[" else _KEY_OR_END
                    continue
            elif c == '"':
                value, pos = scanstring(text, pos + 1, False)
            elif text.startswith("-Infinity", pos):
                value, pos = _LITERALS["-Infinity"], pos + 9
            elif c in "-0123456789":
                match = _NUMBER.match(text, pos)
                if match is None:
                    fail("bad number")
                token = match.group()
                if len(token) > max_digits:
                    if not lenient:
                        raise JSONLimitError(f"a number of {len(token)} characters")
                    value, pos = None, match.end()
                else:
                    is_float = match.group(1) or match.group(2)
                    value, pos = (float(token) if is_float else int(token)), match.end()
            else:
                for word, literal in _LITERALS.items():
                    if text.startswith(word, pos):
                        value, pos = literal, pos + len(word)
                        break
                else:
                    fail("unexpected character")

        # a complete value: attach it to its container, or it is the document
        if not stack:
            root, state = value, _DONE
            continue
        frame = stack[-1]
        if frame[2] == "]":
            frame[0].append(value)
        else:
            frame[0][frame[1]] = value
        state = _COMMA_OR_END


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
