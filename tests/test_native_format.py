"""The native trace file: every bundled trace survives a write and a read; bad lines are named."""

import json

import pytest

from lib import catalog
from lib.logs.native import read_trace, write_trace
from tests.conftest import load_bundled

BUNDLED = [t.name for t in catalog.bundled_traces()]


def test_the_four_bundled_traces_are_there_with_hengxin_first():
    assert BUNDLED[0] == "hengxin-expense"
    assert set(BUNDLED) >= {"hengxin-expense", "order-status-anthropic", "larkfield-get-order", "loan-calculator"}


@pytest.mark.parametrize("name", BUNDLED)
def test_a_round_trip_through_writer_and_reader_loses_nothing(name):
    original = load_bundled(name)
    assert original.problems == ()
    written = list(write_trace(original.trace))
    again, problems = read_trace(written)
    assert problems == []
    assert again == original.trace
    source_lines = [json.loads(line) for line in (catalog.TRACES_DIR / f"{name}.jsonl").read_text().splitlines()]
    assert [json.loads(line) for line in written] == source_lines


def test_unknown_keys_and_annotations_are_kept():
    lines = [
        json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat", "team": "blue"}),
        json.dumps({"kind": "round", "index": 1, "request": {"messages": [{"role": "user", "content": "hi"}]},
                    "response": {"choices": [{"message": {"role": "assistant", "content": "hello"},
                                              "finish_reason": "stop"}]},
                    "executions": [], "latency_ms": 812.5, "started_at": "2026-11-29T10:00:00Z"}),
        json.dumps({"kind": "annotation", "target": "round:1", "labels": ["correct"], "note": "fine"}),
    ]
    trace, problems = read_trace(lines)
    assert problems == []
    assert trace.header["team"] == "blue"
    assert trace.rounds[0].extra == {"started_at": "2026-11-29T10:00:00Z"}
    assert trace.rounds[0].latency_ms == 812.5
    assert [json.loads(line) for line in write_trace(trace)] == [json.loads(line) for line in lines]


def test_bad_lines_are_named_and_the_good_lines_still_load():
    good = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_text().splitlines()
    lines = [good[0], good[1], "{not json", "[1, 2]", json.dumps({"kind": "round", "index": 2}), good[3],
             json.dumps({"kind": "banana"}), b"\xff\xfe broken bytes"]
    trace, problems = read_trace(lines)
    assert len(trace.rounds) == 2
    assert [len(r.request.messages) for r in trace.rounds] == [2, 7]
    by_line = {p.line: p.message for p in problems}
    assert "not valid JSON" in by_line[3]
    assert "is a list," in by_line[4]
    assert "without a 'request'" in by_line[5]
    assert "has index 3 where 2 was expected" in by_line[6]
    assert "unknown kind 'banana'" in by_line[7]
    assert "not UTF-8" in by_line[8]
    assert str(problems[0]).startswith("line 3: ")


def test_a_file_without_header_is_read_with_a_problem_for_line_1():
    round_line = json.dumps({"kind": "round", "index": 1,
                             "request": {"messages": [{"role": "user", "content": "hi"}]}})
    trace, problems = read_trace([round_line], name="bare.jsonl")
    assert len(trace.rounds) == 1 and trace.rounds[0].response is None
    assert problems[0].line == 1 and "no header" in problems[0].message
    assert trace.title == "bare.jsonl"


def test_an_unknown_dialect_is_reported_and_read_as_openai():
    trace, problems = read_trace([json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": "gemini"})])
    assert trace.dialect == "openai-chat"
    assert "dialect 'gemini'" in problems[0].message


def test_an_error_round_keeps_status_and_provider_message():
    lines = [
        json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}),
        json.dumps({"kind": "round", "index": 1, "request": {"messages": []},
                    "error": {"status": 400, "body": {"error": {"message": "tool_call_ids did not have response messages: call_9"}}}}),
    ]
    trace, problems = read_trace(lines)
    assert problems == []
    error = trace.rounds[0].error
    assert error.status == 400 and "call_9" in error.message
    assert json.loads(list(write_trace(trace))[1])["error"] == json.loads(lines[1])["error"]


def test_a_byte_order_mark_does_not_break_the_header():
    data = b"\xef\xbb\xbf" + (catalog.TRACES_DIR / "loan-calculator.jsonl").read_bytes()
    loaded = catalog.load_bytes(data, "loan.jsonl")
    assert loaded.problems == () and loaded.trace.title == "Loan payment calculator"


def test_provenance_of_the_bundled_traces_says_what_was_recorded_completed_and_constructed(hengxin):
    assert [hengxin.round_provenance(r).origin for r in hengxin.rounds] == [
        "recorded", "completed", "completed", "completed"]
    assert "envelope" in hengxin.round_provenance(hengxin.rounds[1]).note
    larkfield = load_bundled("larkfield-get-order").trace
    assert larkfield.provenance.origin == "completed" and "response_format" in larkfield.provenance.omitted
    gallery = [t.name for t in catalog.bundled_traces() if t.name.startswith("pitfalls/")]
    assert gallery and {load_bundled(name).trace.provenance.origin for name in gallery} == {"constructed"}


def test_a_round_derived_by_an_importer_says_so_and_unstated_provenance_is_recorded():
    trace, _ = read_trace([
        '{"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}',
        '{"kind": "round", "index": 1, "request": {"messages": []}, "derived": ["response", "usage"]}',
        '{"kind": "round", "index": 2, "request": {"messages": []}}',
    ])
    first, second = (trace.round_provenance(r) for r in trace.rounds)
    assert (first.origin, first.note) == ("derived", "inferred by the importer: response, usage")
    assert second.origin == "recorded"


def test_a_round_provenance_that_is_not_understood_is_named_and_ignored():
    trace, problems = read_trace([
        '{"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}',
        '{"kind": "round", "index": 1, "request": {"messages": []}, "provenance": {"origin": "made up"}}',
    ])
    assert [(p.line, p.message) for p in problems] == [
        (2, "has 'provenance' of the wrong type ({'origin': 'made up'}); ignored")]
    assert trace.round_provenance(trace.rounds[0]).origin == "recorded"
