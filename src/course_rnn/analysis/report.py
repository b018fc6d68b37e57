"""Small helpers for the tables a chapter computes when the book builds.

* :func:`markdown_table` – a list of dicts (one per row) as a Markdown table, numbers formatted,
  missing cells shown as "—"; display it with ``IPython.display.Markdown``.
* :func:`keras_lstm_parameter_count` – the parameters of a Keras-style LSTM language model
  (learned embedding, one bias per gate, dense readout), the convention behind the LSTM counts of
  Bernardy & Lappin (2023, Tables 1–2). PyTorch's ``nn.LSTM`` keeps two bias vectors per gate,
  so a course :class:`~course_rnn.models.lstm.LSTM` of the same shape has 4·hidden more.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Integral, Real

from ..checks import check_count, check_positive


def _format(value, digits: int) -> str:
    # pandas' NA (a nullable column's missing value) is known by its type's name: pandas is not a
    # dependency of the library
    if value is None or type(value).__name__ == "NAType":
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        value = float(value)
        if math.isnan(value):
            return "—"
        return f"{value:.{digits}f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None,
                   digits: int = 3) -> str:
    """Rows (dicts) as a Markdown table.

    ``columns`` picks and orders the columns (default: keys in order of first appearance).
    Integers print as they are, other numbers with ``digits`` decimals, None, NaN and pandas'
    ``NA`` as "—",
    and a ``|`` inside a cell is escaped.

    >>> print(markdown_table([{"model": "URN", "acc": 0.5}, {"model": "LSTM", "acc": 1}]))
    | model | acc |
    |---|---|
    | URN | 0.500 |
    | LSTM | 1 |
    """
    digits = check_count(digits, "digits")
    rows = list(rows)
    if not rows:
        raise ValueError("markdown_table needs at least one row")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"row {i} must be a dict, got {type(row).__name__}")
    if columns is None:
        columns = list(dict.fromkeys(key for row in rows for key in row))
    columns = [str(c) for c in columns]
    if not columns:
        raise ValueError("markdown_table needs at least one column")
    lines = ["| " + " | ".join(_format(c, digits) for c in columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(_format(row.get(c), digits) for c in columns) + " |")
    return "\n".join(lines)


def keras_lstm_parameter_count(hidden_size: int, vocab_size: int, embedding_dim: int) -> int:
    """Embedding V·e, four gates 4h(e + h) + 4h (one bias each), readout V(h + 1).

    Reproduces Bernardy & Lappin (2023): cross-serial (V=10, e=20) h=8, 16, 32 → 1218, 2738, 7314
    (Table 1); Dyck (V=12, e=12) → 924, 2204, 6300 (Table 2).
    """
    h, v, e = (check_positive(hidden_size, "hidden_size"), check_positive(vocab_size, "vocab_size"),
               check_positive(embedding_dim, "embedding_dim"))
    return v * e + 4 * h * (e + h) + 4 * h + v * (h + 1)
