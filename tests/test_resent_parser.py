"""Reading a line's resent history from an earlier line: the same values as parsing it whole."""

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.checks import run_checks
from lib.logs import resent
from lib.logs.resent import ResentParser
from lib.logs.resent_text import ResentTexts
from lib.logs.native import read_trace
from tests.synthetic import synthetic_lines, synthetic_log

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "tests" / "fixtures").glob("*.jsonl")) + sorted((ROOT / "traces").rglob("*.jsonl"))


INSTRUCTIONS = {"role": "system", "content": "Answer from the records only. " * 200}
"""Long enough that every line is worth reusing (lines under 4 KB are parsed whole)."""


def _conversation_lines(messages: list[dict], separators=(",", ":"), ensure_ascii=False) -> list[bytes]:
    """One request/response pair per round, each request resending everything before it."""
    lines = []
    for k in range(1, len(messages) + 1):
        pair = {"request": {"model": "m", "messages": [INSTRUCTIONS, *messages[:k]]},
                "response": {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"reply {k}"},
                                          "finish_reason": "stop"}]}}
        lines.append(json.dumps(pair, separators=separators, ensure_ascii=ensure_ascii).encode() + b"\n")
    return lines


def _assert_parses_like_orjson(parser: ResentParser | ResentTexts, line: bytes) -> None:
    try:
        expected = orjson.loads(line)
    except orjson.JSONDecodeError:
        with pytest.raises(orjson.JSONDecodeError):
            parser.parse(line)
    else:
        assert parser.parse(line) == expected


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fixture_and_bundled_trace_parses_exactly_as_orjson_does(path):
    parser = ResentParser()
    for line in path.read_bytes().splitlines(keepends=True):
        _assert_parses_like_orjson(parser, line)


def test_the_bundled_traces_resent_history_is_read_once():
    parser = ResentParser()
    lines = (ROOT / "traces" / "hengxin-expense.jsonl").read_bytes().splitlines()
    for line in lines:
        parser.parse(line)
    rounds = sum(b'"kind": "round"' in line for line in lines)
    assert parser.reused_lines == rounds - 1  # all rounds but the first; the header and the lessons have no messages


def test_a_snowball_log_of_interleaved_conversations_skips_nearly_all_resent_bytes():
    data = synthetic_log(3, 60, record_words=20)
    parser = ResentParser()
    for line in data.splitlines():
        assert parser.parse(line) == orjson.loads(line)
    long_lines = sum(len(line) >= resent.SMALL_LINE for line in data.splitlines())
    assert parser.reused_lines == long_lines - 3  # each conversation's first long line is read whole
    assert parser.saved_bytes > 0.9 * len(data)


def test_pretty_printed_and_escaped_non_ascii_lines_are_reused_too():
    messages = [{"role": "user", "content": f"报销 {k} — ünïcode"} for k in range(12)]
    for separators, ensure_ascii in (((", ", ": "), True), ((",", ":"), False)):
        parser = ResentParser()
        for line in _conversation_lines(messages, separators, ensure_ascii):
            assert parser.parse(line) == orjson.loads(line)
        assert parser.reused_lines == 11


def test_a_rewritten_message_in_the_history_is_read_from_the_new_bytes_and_flagged():
    lines = [line.encode() + b"\n" for line in synthetic_lines(6, record_words=800)]
    lines[-1] = lines[-1].replace(b"at a time.", b"at a time, and never guess.")
    parser = ResentParser()
    for line in lines:
        assert parser.parse(line) == orjson.loads(line)
    assert parser.reused_lines == 4  # rounds 2 to 5; the last round's history differs in its bytes

    trace, problems = read_trace(lines)
    assert not problems
    findings = [f for f in run_checks(trace) if f.code == "history-rewritten"]
    assert [f.round for f in findings] == [6]


def test_an_array_under_a_key_that_only_ends_in_messages_is_not_taken_for_the_messages():
    parser = ResentParser()
    first, second = _conversation_lines([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    parser.parse(first)
    # The first `"messages"` in these bytes closes the key `note"messages`, and its array repeats
    # the earlier elements exactly.
    elements = json.dumps([INSTRUCTIONS, {"role": "user", "content": "a"}], separators=(",", ":")).encode()[1:-1]
    decoy = b'{"note\\"messages":[' + elements + b',"x"],' + second[1:]
    assert orjson.loads(decoy)['note"messages'][2] == "x"
    assert parser.parse(decoy) == orjson.loads(decoy)
    assert parser.reused_lines == 0


def test_a_retried_request_and_a_branch_from_an_earlier_round_both_parse_whole_values():
    lines = _conversation_lines([{"role": "user", "content": f"m{k}"} for k in range(5)])
    branch = lines[2].replace(b'"content":"m2"', b'"content":"m2, another way"')
    parser = ResentParser()
    for line in [*lines[:3], lines[2], branch, *lines[3:]]:
        assert parser.parse(line) == orjson.loads(line)


def test_a_log_that_never_resends_stops_spending_on_reuse():
    parser = ResentParser()
    text = "x" * 20_000
    for k in range(300):
        line = orjson.dumps({"messages": [{"role": "user", "content": f"{k} {text}"}]})
        assert parser.parse(line) == orjson.loads(line)
    assert parser.reused_lines == 0
    assert parser.spent_bytes <= resent.SPARE_BYTES + 30_000


def test_a_line_that_is_not_bytes_is_parsed_whole():
    assert ResentParser().parse('{"messages": [1]}') == {"messages": [1]}


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_MESSAGE = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool"]), "content": _TEXT})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(_MESSAGE, min_size=1, max_size=8),
    spaced=st.booleans(),
    ascii_only=st.booleans(),
    mutations=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 20_000), st.integers(0, 255)), max_size=3),
)
def test_random_conversations_with_random_byte_changes_parse_as_orjson_does(messages, spaced, ascii_only, mutations):
    separators = (", ", ": ") if spaced else (",", ":")
    lines = [bytearray(line) for line in _conversation_lines(messages, separators, ascii_only)]
    for which, where, byte in mutations:
        line = lines[which % len(lines)]
        line[where % len(line)] = byte
    parser = ResentParser()
    for line in lines:
        _assert_parses_like_orjson(parser, bytes(line))
    if not mutations:
        assert parser.reused_lines == len(lines) - 1


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**15, 10**15) | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(_JSON, min_size=1, max_size=6), spaced=st.booleans(), window=st.sampled_from([1, 7, 4096]))
def test_each_value_of_a_document_is_found_whatever_the_window_it_is_read_through(values, spaced, window):
    separators = (", ", ": ") if spaced else (",", ":")
    document = json.dumps(values, separators=separators, ensure_ascii=False).encode()
    position, found = 1, []
    for _ in values:
        end = resent.value_end(document, position, window)
        found.append(orjson.loads(document[position:end]))
        position = end + len(separators[0])
    assert found == values
