"""The chapter-table helpers of course_rnn.analysis.report."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from course_rnn.analysis.report import keras_lstm_parameter_count, markdown_table
from course_rnn.models import build_model


def test_markdown_table_formats_numbers_and_missing_cells():
    table = markdown_table(
        [{"model": "URN", "acc": 0.5, "n": 3}, {"model": "LSTM", "acc": math.nan, "extra": None}]
    )
    assert table.splitlines() == [
        "| model | acc | n | extra |",
        "|---|---|---|---|",
        "| URN | 0.500 | 3 | — |",
        "| LSTM | — | — | — |",
    ]


def test_markdown_table_columns_digits_numpy_and_escaping():
    table = markdown_table([{"a": np.float64(1 / 3), "b": np.int64(7), "c": "x|y"}],
                           columns=["c", "a"], digits=1)
    assert table.splitlines()[0] == "| c | a |"
    assert table.splitlines()[2] == "| x\\|y | 0.3 |"
    assert "7" not in table


def test_markdown_table_shows_pandas_missing_values_as_a_dash():
    # a nullable column (convert_dtypes) holds pd.NA, whose str() is "<NA>"
    frame = pd.DataFrame({"n": [1, None]}).convert_dtypes()
    table = markdown_table(frame.to_dict("records"))
    assert table.splitlines()[2:] == ["| 1 |", "| — |"]


@pytest.mark.parametrize("bad", [[], [3], ])
def test_markdown_table_rejects_bad_rows(bad):
    with pytest.raises((ValueError, TypeError)):
        markdown_table(bad)


def test_markdown_table_rejects_bad_digits():
    with pytest.raises(ValueError):
        markdown_table([{"a": 1}], digits=-1)


@pytest.mark.parametrize(
    "hidden, vocab, emb, paper",
    [(8, 10, 20, 1218), (16, 10, 20, 2738), (32, 10, 20, 7314),  # B&L 2023 Table 1
     (8, 12, 12, 924), (16, 12, 12, 2204), (32, 12, 12, 6300)],  # B&L 2023 Table 2
)
def test_keras_lstm_count_matches_the_paper(hidden, vocab, emb, paper):
    assert keras_lstm_parameter_count(hidden, vocab, emb) == paper


def test_keras_lstm_count_is_torch_count_minus_the_second_bias():
    model = build_model("lstm", vocab_size=13, hidden_size=16, embedding_dim=12)
    assert model.num_parameters() == keras_lstm_parameter_count(16, 13, 12) + 4 * 16


def test_keras_lstm_count_rejects_nonsense():
    with pytest.raises(ValueError):
        keras_lstm_parameter_count(0, 10, 20)
    with pytest.raises(ValueError):
        keras_lstm_parameter_count(8, True, 20)
