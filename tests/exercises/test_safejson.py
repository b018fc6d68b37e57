"""course_rnn.grading.safejson.parse_json: every branch of the token walk, beside Python's json.

The bounds themselves (depth, number length) and a few malformed documents are tested with the
other hostile inputs in test_hostile.py."""

import json
import math

import pytest

from course_rnn.grading.safejson import JSONLimitError, parse_json


@pytest.mark.parametrize("text", [
    "{}", "[]", '""', "0", "-0.5e-3", "true", "false", "null",
    '{"a": [], "b": {}, "c": [1, [2, {"d": "e\\u00e9\\n"}]]}',
    ' \n\t[ 1 ,\r 2 ] \n',
])
def test_what_json_reads_it_reads_the_same(text):
    assert parse_json(text) == json.loads(text)


def test_python_s_non_finite_numbers():
    nan, inf, minus_inf = parse_json("[NaN, Infinity, -Infinity]")
    assert math.isnan(nan) and inf == math.inf and minus_inf == -math.inf


@pytest.mark.parametrize("text, message", [
    ("", "at character 0: unexpected end"),
    ("[1, 2", "at character 5: unexpected end"),
    ("[1] [2]", "at character 4: extra data after the document"),
    ("{1: 2}", "at character 1: expected a string key"),
    ('{"a", 1}', "at character 4: expected ':'"),
    ('{"a": 1]', "at character 7: expected ',' or '}'"),
    ("[1}", "at character 2: expected ',' or ']'"),
    ("-", "at character 0: bad number"),
    ("[1, ]", "at character 4: unexpected character"),
    ("nul", "at character 0: unexpected character"),
])
def test_malformed_documents_are_refused_where_they_go_wrong(text, message):
    with pytest.raises(ValueError, match=f"^invalid JSON {message}"):
        parse_json(text)


def test_limits_raise_in_strict_mode_and_become_none_in_lenient_mode():
    with pytest.raises(JSONLimitError, match="nested deeper than 2"):
        parse_json("[[[1]]]", max_depth=2)
    with pytest.raises(JSONLimitError, match="a number of 4 characters"):
        parse_json("[1234]", max_digits=3)
    assert parse_json('[[["]"], 1], 2]', max_depth=1, lenient=True) == [None, 2]
    assert parse_json('{"n": 1234, "m": 12}', max_digits=3, lenient=True) == {"n": None, "m": 12}
    with pytest.raises(ValueError, match="unbalanced brackets"):
        parse_json("[[[", max_depth=1, lenient=True)
