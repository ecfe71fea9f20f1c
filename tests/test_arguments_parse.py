"""Tool-call arguments are read as json.loads reads them, and a problem is worded with json.loads's reason, said in
our words as an uploaded line's is (lib.text.json_words), and its place in the arguments (lib.dialects.common.parse_arguments calls json.loads's scanner directly first, for speed)."""

import json

import pytest

from lib.dialects.common import TOO_DEEP, parse_arguments


@pytest.mark.parametrize("text", [
    '{"city": "Oslo"}', ' {"city": "Oslo"}', '{"city": "Oslo"}\n', '[1, 2.50, -0.0, 1e5]', '"just text"',
    'NaN', '{"a": 1, "a": 2}', '123456789012345678901234567890', '"\\ud800"', '{"é": "\\u00e9"}',
])
def test_arguments_that_parse_read_as_json_loads_reads_them(text):
    raw, parsed, error = parse_arguments(text)
    assert (raw, error) == (text, None)
    assert repr(parsed) == repr(json.loads(text))  # repr: 1 and 1.0, -0.0 and 0.0 told apart


@pytest.mark.parametrize("text, said", [
    ('{"city": "Oslo"} x', "not valid JSON (at character 18 of the arguments: more follows after its one JSON value "
                           "has ended)"),
    ('{"city": ', "not valid JSON (at the end of the arguments: cut short: the JSON stops before it is complete)"),
    ('{"a" 1}', "not valid JSON (at character 6 of the arguments: a key is not followed by ':')"),
    ("[1, 2,]", "not valid JSON (at character 7 of the arguments: no JSON value where one should be: NaN, a bare word "
                "or a single-quoted string is none)"),
])
def test_arguments_that_do_not_parse_say_json_loads_reason_and_where_in_the_arguments(text, said):
    # Not json.loads's "line 1 column 18 (char 17)": arguments are one value, and a card already names its line.
    with pytest.raises(ValueError):
        json.loads(text)
    assert parse_arguments(text) == (text, None, said)


def test_arguments_past_pythons_digit_limit_say_what_json_loads_says():
    with pytest.raises(ValueError) as refused:
        json.loads("1" * 5000)
    assert parse_arguments("1" * 5000) == ("1" * 5000, None, f"not valid JSON: {refused.value}")


def test_arguments_nested_past_the_recursion_limit_are_kept_as_text():
    assert parse_arguments("[" * 100_000) == ("[" * 100_000, None, TOO_DEEP)
