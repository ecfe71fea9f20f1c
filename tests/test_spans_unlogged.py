"""What a span does not log is "not in the log", never none: OpenTelemetry GenAI's `gen_ai.tool.definitions` and
`gen_ai.system_instructions` are opt-in, so a span without them says nothing of what was sent, while OpenInference's
`llm.tools` and the Vercel AI SDK's `ai.prompt.tools` are written whenever a request carries tools."""

import csv
import io
import json

import pytest

from lib.compare import round_contents, verdict
from lib.logs.spans import SpanFormat
from lib.logs.upload import read_upload
from lib.summary import NOT_IN_THE_LOG, TOOL_LIST_NOT_LOGGED, parts_not_logged, snowball, summarize
from lib.tokens import counter_for
from lib.ui import picker
from lib.ui.accounting import rounds_table
from lib.spreadsheet import table_csv
from tests.formats_support import FIXTURES, feed
from tests.screen import screen, uploaded

TIMED_OUT = "9a8b7c6d5e4f30211203f4e5d6c7b8a9"
"""otel-genai.jsonl's second trace: a call that timed out, its span without tool definitions or instructions."""


def _upload(name: str):
    return read_upload([(name, (FIXTURES / name).read_bytes())])


def _rows(trace):
    return summarize(trace, counter_for("o200k_base").counter)


def test_a_genai_span_without_its_opt_in_tools_and_instructions_lacks_them_and_one_with_them_does_not():
    agent, timed_out = (c.trace for c in _upload("otel-genai.jsonl").conversations)
    assert [parts_not_logged(r) for r in agent.rounds] == [(), ()]
    [round_] = timed_out.rounds
    assert parts_not_logged(round_) == ("instructions", "tools")
    assert "this span carries neither, so neither is shown or counted here" in round_.provenance.note


def test_the_timed_out_calls_tool_list_and_instructions_read_not_in_the_log_on_the_tokens_page_and_its_csv():
    trace = _upload("otel-genai.jsonl").conversations[1].trace
    rows = _rows(trace)
    table = rounds_table(rows)
    assert table["in: instructions"].tolist() == [NOT_IN_THE_LOG]
    assert table["in: tool definitions"].tolist() == [NOT_IN_THE_LOG]
    [row] = csv.DictReader(io.StringIO(table_csv(table)))
    assert (row["in: instructions"], row["in: tool definitions"]) == (NOT_IN_THE_LOG, NOT_IN_THE_LOG)
    ball = snowball(rows)
    assert not ball.tool_list_recorded and ball.tool_list_never_logged


def test_compare_does_not_say_the_timed_out_call_removed_tools_or_sent_another_system_message():
    agent, timed_out = (round_contents(c.trace) for c in _upload("otel-genai.jsonl").conversations)
    said = verdict(agent[0], timed_out[0])
    assert "removed" not in said and "different system message sent" not in said
    assert "the right run's log kept no tool list, so the tools are not compared" in said
    assert "the right run's log keeps no instructions, so they are not compared" in said


def test_the_explorer_says_the_tool_list_is_not_in_the_log_not_that_the_request_had_none(app):
    at = uploaded(app, "otel-genai.jsonl")
    at.selectbox(key=picker.CONVERSATION).set_value(1).run()
    assert not at.exception
    shown = screen(at)
    assert TOOL_LIST_NOT_LOGGED in shown
    assert "No tools in this request" not in shown
    assert "instructions 0" not in shown and "tool definitions 0" not in shown


def test_an_otlp_document_read_by_the_typed_reader_lacks_the_tool_list_but_not_the_system_message_it_sends():
    # The openai-v2 instrumentation's span: the system prompt opens gen_ai.input.messages; no tool definitions.
    trace = _upload("otlp-span-per-call.jsonl").conversations[0].trace
    assert {parts_not_logged(r) for r in trace.rounds} == {("tools",)}


def _chat(**extra):
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                  "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]),
                  **extra}
    return {"context": {"trace_id": "0xabc", "span_id": "0x1"}, "start_time": "2026-01-05T10:00:00Z",
            "attributes": attributes}


@pytest.mark.parametrize(("extra", "lacked"), [
    ({}, ["system", "tools"]),
    # Logged as empty: none was sent, which the round says as it says any empty list.
    ({"gen_ai.tool.definitions": "[]", "gen_ai.system_instructions": "[]"}, None),
    ({"gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}])}, ["tools"]),
])
def test_only_an_absent_opt_in_attribute_is_unlogged_an_empty_one_is_none(extra, lacked):
    [record] = feed(SpanFormat(), [_chat(**extra)])
    assert (record.provenance or {}).get("omitted") == lacked


@pytest.mark.parametrize("name", ["openinference.jsonl", "otlp-vercel-ai-sdk.jsonl", "otel-genai-legacy.jsonl"])
def test_conventions_that_write_the_tool_list_whenever_one_is_sent_are_not_said_to_lack_it(name):
    for conversation in _upload(name).conversations:
        assert {parts_not_logged(r) for r in conversation.trace.rounds} == {()}


# --- the upload's summary adds up ---------------------------------------------------------------------


def test_span_lines_that_are_no_model_call_are_counted_so_the_summary_adds_up():
    # Two execute_tool spans and the invoke_agent span around them: read (the tools' as executions), but no rounds.
    upload = _upload("otel-genai.jsonl")
    assert upload.summary() == "6 lines: 3 rounds in 2 conversations; 3 lines not model calls; 0 lines skipped"
    assert upload.rounds + upload.not_calls + upload.skipped_lines == upload.lines


def test_an_otlp_documents_spans_that_are_no_model_call_are_counted_as_spans():
    # One document: three chat spans, an execute_tool span and the agent's span around them.
    upload = _upload("otlp-resource-spans.jsonl")
    assert upload.summary() == "1 line: 3 rounds in 1 conversation; 2 spans not model calls; 0 lines skipped"
