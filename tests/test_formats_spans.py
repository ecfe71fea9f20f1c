"""Tracing spans read as Chat Completions rounds: OTel GenAI (current and legacy keys) and OpenInference."""

import json

import pytest

from lib.logs.spans import SpanFormat
from lib.logs.upload import read_upload
from tests.formats_support import (FIXTURES, assert_detects_only_its_own, assert_only_line_problems, calls, feed,
                                    feed_files, lines, problems, read, results)

OTEL_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
ANSWER = "It's 14:05 in Oslo, -3 °C with light snow and a light wind."


def _span(attributes, trace="0xabc", start="2026-01-05T10:00:00.000000Z", **extra):
    return {"name": "chat", "context": {"trace_id": trace, "span_id": "0x1"}, "start_time": start,
            "end_time": "2026-01-05T10:00:01.000000Z", "status": {"status_code": "UNSET"}, "attributes": attributes, **extra}


def _chat_attributes(text="Hi", answer="Hello"):
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": text}]}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                                                   "finish_reason": "stop"}])}


# --- OpenTelemetry GenAI, current conventions ---------------------------------------------------------


def test_chat_spans_become_rounds_of_their_trace_and_other_spans_do_not():
    records = feed_files(SpanFormat(), "otel-genai.jsonl")
    assert [(r.line, r.conversation) for r in records] == [(1, OTEL_TRACE), (4, OTEL_TRACE), (6, "9a8b7c6d5e4f30211203f4e5d6c7b8a9")]
    assert {(r.dialect, r.converted_from) for r in records} == {("openai-chat", "otel-genai")}
    assert [r.timestamp for r in records] == [
        "2026-01-05T10:00:00.120000000Z", "2026-01-05T10:00:01.410000000Z", "2026-01-05T10:05:00.000000000Z"]
    assert records[0].latency_ms == pytest.approx(1212.0)


def test_input_and_output_message_parts_read_as_chat_messages():
    first, second, _ = feed_files(SpanFormat(), "otel-genai.jsonl")
    request, response = read(first)
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].text.startswith("You are a concise travel assistant")
    assert [t.name for t in request.tools] == ["get_weather", "get_local_time"]
    assert calls(response) == [("call_Gx1aB2cD3eF4gH", "get_weather"), ("call_Gx2iJ3kL4mN5oP", "get_local_time")]
    assert [c.arguments for c in response.message.tool_calls] == [{"city": "Oslo"}, {"city": "Oslo"}]
    # The message-level "tool_call" is the semconv's word; Chat Completions says "tool_calls".
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (142, 46)
    request, response = read(second)
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert results(request) == ["call_Gx1aB2cD3eF4gH", "call_Gx2iJ3kL4mN5oP"]
    assert json.loads(request.messages[3].tool_results[0].content)["conditions"] == "light snow"
    assert response.message.text == ANSWER and response.finish_reason == "stop"


def test_tool_spans_become_the_executions_of_the_round_that_asked_for_them():
    first, second, _ = feed_files(SpanFormat(), "otel-genai.jsonl")
    assert second.executions == []
    weather, clock = first.executions
    assert (weather["tool_call_id"], weather["name"], weather["arguments"], weather["ok"]) == (
        "call_Gx1aB2cD3eF4gH", "get_weather", {"city": "Oslo"}, True)
    assert json.loads(weather["output"])["temp_c"] == -3 and weather["duration_ms"] == pytest.approx(62.0)
    assert clock["tool_call_id"] == "call_Gx2iJ3kL4mN5oP"


def test_a_chat_span_that_failed_is_a_round_with_the_error():
    *_, failed = feed_files(SpanFormat(), "otel-genai.jsonl")
    assert failed.response is None
    assert failed.error["message"] == "Request timed out."
    assert read(failed)[0].messages[0].text == "Weather in Bergen?"


# --- legacy flattened keys, OTLP attribute lists ---------------------------------------------------------


def test_legacy_flattened_keys_read_the_same_and_rounds_follow_start_time_not_file_order():
    records = feed_files(SpanFormat(), "otel-genai-legacy.jsonl")
    assert [r.line for r in records] == [2, 1]
    assert [len(r.request["messages"]) for r in records] == [2, 5]
    request, response = read(records[0])
    assert [t.name for t in request.tools] == ["get_weather", "get_local_time"]
    assert request.tools[0].parameters["required"] == ["city"]
    assert calls(response) == [("call_Lg1qW2eR3tY4uI", "get_weather"), ("call_Lg2oP3aS4dF5gH", "get_local_time")]
    assert response.finish_reason == "tool_calls" and response.usage.input_tokens == 142
    request, response = read(records[1])
    assert results(request) == ["call_Lg1qW2eR3tY4uI", "call_Lg2oP3aS4dF5gH"]
    assert response.message.text == ANSWER and response.usage.output_tokens == 19
    assert records[0].timestamp == "2026-01-05T10:00:00.100000000Z"


# --- OpenInference -------------------------------------------------------------------------------------


def test_openinference_llm_spans_read_as_rounds():
    records = feed_files(SpanFormat(), "openinference.jsonl")
    assert [(r.line, r.converted_from) for r in records] == [(1, "openinference"), (4, "openinference")]
    assert {r.conversation for r in records} == {"7e3a1f0c9b8d2e4f6a5b3c1d0e9f8a7b"}
    request, response = read(records[0])
    assert [m.role for m in request.messages] == ["system", "user"]
    assert [t.name for t in request.tools] == ["get_weather", "get_local_time"]
    assert calls(response) == [("call_Oi1zX2cV3bN4mQ", "get_weather"), ("call_Oi2wE3rT4yU5iO", "get_local_time")]
    # OpenInference records no finish reason: it stays unknown and the reader infers the stop.
    assert response.finish_reason is None and response.stop == "tool_calls"
    request, response = read(records[1])
    assert results(request) == ["call_Oi1zX2cV3bN4mQ", "call_Oi2wE3rT4yU5iO"]
    assert (response.usage.input_tokens, response.usage.cache_read_tokens, response.usage.output_tokens) == (231, 128, 19)


def test_a_turn_in_geminis_role_model_is_the_assistants():
    # google-adk's OpenInference spans (as Langfuse's google-adk export keeps them) name the answer's role `model`:
    # the answer, its calls and the reported usage were dropped. The same spans with Gemini's role:
    from tests.formats_support import lines
    spans = [json.loads(json.dumps(obj).replace('.message.role": "assistant"', '.message.role": "model"'))
             for obj in lines("openinference.jsonl")]
    fmt = SpanFormat()
    records = [r for number, obj in enumerate(spans, start=1) for r in fmt.feed(obj, number)] + list(fmt.finish())
    request, response = read(records[0])
    assert calls(response) == [("call_Oi1zX2cV3bN4mQ", "get_weather"), ("call_Oi2wE3rT4yU5iO", "get_local_time")]
    request, response = read(records[1])
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (231, 19)


def test_openinference_tool_spans_attach_by_call_id_or_else_by_tool_name():
    first, _ = feed_files(SpanFormat(), "openinference.jsonl")
    assert [(e["tool_call_id"], e["name"]) for e in first.executions] == [
        ("call_Oi1zX2cV3bN4mQ", "get_weather"), ("call_Oi2wE3rT4yU5iO", "get_local_time")]


# --- a whole OTLP/JSON document on one line ----------------------------------------------------------


def test_an_otlp_document_on_one_line_yields_every_chat_span_of_it():
    records = feed_files(SpanFormat(), "otlp-resource-spans.jsonl")
    assert [len(r.request["messages"]) for r in records] == [1, 3, 5]
    assert {(r.line, r.conversation) for r in records} == {(1, "2f8e4c6a0b1d3e5f7a9c8b6d4e2f0a1c")}
    _, response = read(records[0])
    assert response.message.text == "Let me search."
    assert calls(response) == [("toolu_01Tr4Ns5Pq6Rs7Tu8Vw9Xy0Z", "search_trains")]
    # int64 attributes arrive as strings; the provider's raw "tool_use" is read as a tool-call stop.
    assert (response.usage.input_tokens, response.finish_reason) == (1650, "tool_calls")
    request, response = read(records[2])
    assert results(request) == ["toolu_01Tr4Ns5Pq6Rs7Tu8Vw9Xy0Z", "toolu_01Bk5Lm6No7Pq8Rs9Tu0Vw1X"]
    assert response.finish_reason == "stop"


def test_a_failed_tool_span_is_an_execution_that_did_not_succeed():
    records = feed_files(SpanFormat(), "otlp-resource-spans.jsonl")
    (booking,) = records[1].executions
    assert (booking["name"], booking["ok"], booking["note"]) == ("book_train", False, "payment service unavailable, retried once")
    assert booking["arguments"] is None


def test_int64_attribute_values_arrive_as_strings_and_are_read_as_numbers():
    (document,) = lines("otlp-resource-spans.jsonl")
    search = document["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    search["attributes"].append({"key": "gen_ai.tool.call.result", "value": {"intValue": "42"}})
    first, *_ = feed(SpanFormat(), [document])
    assert first.executions[0]["output"] == 42


def test_tool_results_and_text_in_one_user_message_become_tool_messages_then_the_text():
    said = [{"role": "user", "parts": [{"type": "tool_call_response", "id": "toolu_1", "response": {"ok": True}},
                                        {"type": "text", "content": "Now book it."}]}]
    (record,) = feed(SpanFormat(), [_span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": said})])
    assert record.request["messages"] == [{"role": "tool", "tool_call_id": "toolu_1", "content": '{"ok": true}'},
                                          {"role": "user", "content": "Now book it."}]
    assert record.response is None and record.error is None


# --- bad spans ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("obj, words", [
    (_span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": "[{oops"}), "attribute 'gen_ai.input.messages' is not valid JSON"),
    (_span({"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps([{"role": "user"}])}),
     "'gen_ai.input.messages' has a message without a 'parts' list"),
    (_span({"gen_ai.operation.name": "chat", "gen_ai.output.messages": {"role": "assistant"}}),
     "'gen_ai.output.messages' is an object, expected a list"),
    (_span("gen_ai.operation.name=chat"), "'attributes' is a string"),
    ({"name": "chat", "context": {"span_id": "0x1"}, "attributes": {}}, "no trace id"),
    ({"traceId": "ab", "attributes": [{"k": "gen_ai.operation.name"}]}, "attributes[0] is an object, expected {key, value}"),
    ({"resourceSpans": {"scopeSpans": []}}, "'resourceSpans' is an object, expected a list"),
])
def test_a_malformed_span_is_a_line_problem_that_names_the_attribute(obj, words):
    _, found = problems(SpanFormat(), [obj])
    assert words in found[1]


def test_one_bad_span_in_an_otlp_document_is_reported_and_the_others_still_load():
    (document,) = lines("otlp-resource-spans.jsonl")
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[2]["attributes"] = [a for a in spans[2]["attributes"] if a["key"] != "gen_ai.input.messages"] + [
        {"key": "gen_ai.input.messages", "value": {"stringValue": "not json"}}]
    records, found = problems(SpanFormat(), [document])
    assert found[1].startswith("1 of 5 spans could not be read (span 3: attribute 'gen_ai.input.messages' is not valid JSON")
    assert [len(r.request["messages"]) for r in records] == [1, 5]


def test_spans_of_one_trace_spread_over_lines_come_back_in_start_order():
    later = _span(_chat_attributes("Second", "Two"), start="2026-01-05T10:00:05.000000Z")
    earlier = _span(_chat_attributes("First", "One"), start="2026-01-05T10:00:01.000000Z")
    records = feed(SpanFormat(), [later, earlier])
    assert [read(r)[1].message.text for r in records] == ["One", "Two"]


def test_span_detection_claims_spans_and_otlp_documents_and_nothing_else():
    fmt = SpanFormat()
    assert fmt.detect({"resourceSpans": []}) == "has 'resourceSpans' (an OTLP/JSON document)"
    assert fmt.detect(_span({})) == "'attributes' with a trace id (a span)"
    assert fmt.detect({"attributes": {"gen_ai.operation.name": "chat"}}) is None
    assert_detects_only_its_own(SpanFormat)


@pytest.mark.parametrize("name", ["otel-genai.jsonl", "otel-genai-legacy.jsonl", "openinference.jsonl"])
def test_any_one_place_changed_in_a_span_line_gives_a_line_problem_or_records_never_a_crash(name):
    assert assert_only_line_problems(SpanFormat, lines(name), stride=2) > 500


def test_any_one_place_changed_inside_the_message_attributes_gives_a_line_problem_or_records_never_a_crash():
    # The fixture writes these attributes as JSON text; opened up, the mutations reach every part.
    opened = []
    for span in lines("otel-genai.jsonl")[:4]:
        attributes = span["attributes"]
        for key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.definitions", "gen_ai.system_instructions"):
            if key in attributes:
                attributes[key] = json.loads(attributes[key])
        opened.append(span)
    assert feed(SpanFormat(), opened)[1].request["messages"][3]["role"] == "tool"
    assert assert_only_line_problems(SpanFormat, opened, stride=3) > 1000


def test_any_one_place_changed_in_an_otlp_document_gives_a_line_problem_or_records_never_a_crash():
    (document,) = lines("otlp-resource-spans.jsonl")
    # The whole document is one line: mutate one span at a time to keep the run short.
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    one_span = {"resourceSpans": [{"resource": document["resourceSpans"][0]["resource"], "scopeSpans": [{"spans": spans[:2]}]}]}
    assert assert_only_line_problems(SpanFormat, [one_span]) > 300


SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "Answer from the order records only. " * 20}]}
CALLED = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"n": 7}}]}
ANSWERED = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "shipped"}]}


def _user(text):
    return {"role": "user", "parts": [{"type": "text", "content": text}]}


def _chat_spans(inputs, traces):
    """A chat span per input, a minute apart, in the given traces."""
    return [_span({**_chat_attributes(), "gen_ai.input.messages": json.dumps(history)}, trace=trace,
                  start=f"2026-01-05T10:0{minute}:00.000000Z") for minute, (history, trace) in enumerate(zip(inputs, traces))]


def test_each_call_of_a_run_hands_on_the_very_list_its_resent_history_extends():
    first = [SYSTEM, _user("Where is order 7?")]
    records = feed(SpanFormat(), _chat_spans([first, first + [CALLED, ANSWERED]], ["0xa", "0xb"]))
    assert records[0].resends is None
    assert records[1].resends is records[0].request["messages"]
    assert records[1].request["messages"][:2] == records[0].request["messages"]


def test_an_answer_resent_as_it_was_written_is_the_very_message_the_call_before_got():
    first = [SYSTEM, _user("Where is order 7?")]
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}  # _chat_attributes' answer
    records = feed(SpanFormat(), _chat_spans([first, first + [answer, _user("And order 9?")]], ["0xa", "0xb"]))
    resent = records[1].request["messages"][2]
    assert resent is records[0].response["choices"][0]["message"]
    assert resent == {"role": "assistant", "content": "Hello"}


def test_an_answer_resent_otherwise_than_it_was_written_is_read_as_the_request_sends_it():
    # A program may resend an edited answer (or a framework its own rendering of it): the request's
    # own words are what the round shows, not the answer the call before got.
    first = [SYSTEM, _user("Where is order 7?")]
    edited = {"role": "assistant", "parts": [{"type": "text", "content": "Hello, edited"}]}
    records = feed(SpanFormat(), _chat_spans([first, first + [edited, _user("And order 9?")]], ["0xa", "0xb"]))
    assert records[1].request["messages"][2] == {"role": "assistant", "content": "Hello, edited"}
    assert records[0].response["choices"][0]["message"]["content"] == "Hello"


def test_a_call_that_resends_an_earlier_calls_history_keeps_its_own_messages_when_another_call_came_between():
    first = [SYSTEM, _user("Where is order 7?")]
    inputs = [first, [SYSTEM, _user("Cancel order 9.")], first + [CALLED, ANSWERED]]
    spans = _chat_spans(inputs, ["0xabc"] * 3)
    upload = read_upload([("spans.jsonl", "\n".join(map(json.dumps, spans)).encode())])

    (conversation,) = upload.conversations
    last = conversation.trace.rounds[-1].request
    # The third call's text extends the first call's, but the call before it in the trace is the second.
    assert [m.role for m in last.messages] == ["system", "user", "assistant", "tool"]
    assert last.messages[1].text == "Where is order 7?"


# --- the Vercel AI SDK's own spans (experimental_telemetry) ------------------------------------------------

VERCEL_TRACE = "849b2198dcb60ea2cccd2129e578d9ea"
VERCEL_CALL = "call_IgqlTCby7lsxDXPIUPgkmAiq"


def _vercel_spans():
    """The recorded AI SDK run's document and its spans: doGenerate, ai.toolCall, doGenerate, generateText."""
    (document,) = lines("otlp-vercel-ai-sdk.jsonl")
    return document, document["resourceSpans"][0]["scopeSpans"][0]["spans"]


def test_vercel_ai_sdk_provider_calls_read_as_rounds_with_calls_paired_with_their_results():
    first, second = feed_files(SpanFormat(), "otlp-vercel-ai-sdk.jsonl")
    assert {(r.conversation, r.converted_from) for r in (first, second)} == {(VERCEL_TRACE, "vercel-ai-sdk")}
    request, response = read(first)
    assert [(m.role, m.text) for m in request.messages] == [
        ("system", "You are a helpful assistant."), ("user", "What is the temperature in Tokyo?")]
    assert [(t.name, t.parameters["required"]) for t in request.tools] == [("get_temperature", ["city"])]
    assert request.model == "gpt-4.1-mini" and response.model == "gpt-4.1-mini-2025-04-14"
    assert calls(response) == [(VERCEL_CALL, "get_temperature")]
    assert response.message.tool_calls[0].arguments == {"city": "Tokyo"}
    # The SDK's "tool-calls" in Chat Completions words; the counts as the SDK reported them.
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (50, 14)
    assert first.latency_ms == pytest.approx(57.125333) and first.timestamp == "2026-12-06T02:17:18.155000000Z"
    request, response = read(second)
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool"]
    assert results(request) == [VERCEL_CALL] and request.messages[3].tool_results[0].content == "20.0"
    assert response.message.text == "The temperature in Tokyo is currently 20.0 degrees Celsius."
    assert (response.finish_reason, response.usage.input_tokens, response.usage.output_tokens) == ("stop", 75, 14)


def test_the_ai_sdks_tool_call_span_is_the_execution_of_the_call_that_asked_for_it():
    first, second = feed_files(SpanFormat(), "otlp-vercel-ai-sdk.jsonl")
    (execution,) = first.executions
    assert (execution["tool_call_id"], execution["name"], execution["arguments"], execution["ok"]) == (
        VERCEL_CALL, "get_temperature", {"city": "Tokyo"}, True)
    # The SDK writes the result as JSON text ("\"20.0\""): the execution shows the string the tool returned.
    assert execution["output"] == "20.0" and second.executions == []


def test_ai_sdk_calls_in_traces_of_their_own_are_chained_by_the_request_that_extends_the_one_before():
    # Without a context manager registered, each AI SDK span is the root of a trace of its own.
    document, spans = _vercel_spans()
    spans[2]["traceId"] = "0f" * 16
    first, second = feed(SpanFormat(), [document])
    assert first.conversation == second.conversation == VERCEL_TRACE


def test_the_ai_sdks_generate_stream_and_object_calls_read_and_its_wrapper_and_embedding_spans_do_not():
    # openinference-vercel's recording of ai 6.0.68: each span the root of its own trace.
    records = feed_files(SpanFormat(), "otlp-vercel-ai-sdk-v6.jsonl")
    said = [(read(r)[0].messages[-1].text, read(r)[1].message.text[:24]) for r in records]
    assert said == [("Write a haiku about programming.", "Lines of code align,  \nL"),
                    ("And what is 3 + 3?", "3 + 3 equals 6."),
                    ("Generate a simple recipe for scrambled eggs.", '{"name":"Scrambled Eggs"'),
                    ("Write a short poem about TypeScript.", "In code’s embrace, where")]
    # Version 6 still writes promptTokens on generateText's calls, and inputTokens on streamText's.
    assert [(read(r)[1].usage.input_tokens, read(r)[1].usage.output_tokens) for r in records] == [
        (14, 20), (50, 9), (63, 156), (15, 112)]
    request, _ = read(records[1])
    assert [(m.role, m.text) for m in request.messages][:1] == [("system", "You are a helpful assistant.")]


def test_version_4_tool_calls_and_results_read_as_version_6_ones():
    # Before version 5 the SDK wrote a call's arguments as an object under `args` and a result under `result`.
    document, spans = _vercel_spans()
    for span in spans:
        for attribute in span["attributes"]:
            value = attribute["value"].get("stringValue", "")
            if attribute["key"] == "ai.response.toolCalls":
                attribute["value"]["stringValue"] = value.replace('"input":"{\\"city\\":\\"Tokyo\\"}"',
                                                                  '"args":{"city":"Tokyo"}')
            elif attribute["key"] == "ai.prompt.messages":
                attribute["value"]["stringValue"] = value.replace('"input":', '"args":').replace(
                    '"output":{"type":"text","value":"20.0"}', '"result":"20.0"')
    first, second = feed(SpanFormat(), [document])
    assert read(first)[1].message.tool_calls[0].arguments == {"city": "Tokyo"}
    request, _ = read(second)
    assert request.messages[2].tool_calls[0].arguments == {"city": "Tokyo"}
    assert request.messages[3].tool_results[0].content == "20.0"


def test_spans_none_of_which_is_a_model_call_say_so_and_name_their_attribute_prefixes():
    # The embedding spans of openinference-vercel's recording: read, and no round in them.
    (document,) = lines("otlp-vercel-ai-sdk-v6.jsonl")
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[:] = [s for s in spans if s["name"].startswith("ai.embed")]
    upload = read_upload([("embed.jsonl", json.dumps(document).encode())])
    assert upload.rounds == 0 and not upload.problems
    (note,) = upload.notes
    assert upload.said(note) == (
        "line 1: 2 spans read, and none is a model call in a convention Roundtrip reads: OpenTelemetry GenAI "
        "(gen_ai.operation.name chat, text_completion or generate_content), OpenInference (openinference.span.kind "
        "LLM) and the Vercel AI SDK (ai.operationId ending in .doGenerate or .doStream). Their attribute names: "
        "ai.*, operation.*, resource.*. Spans of another instrumentation, or only tool, embedding or wrapper spans, "
        "give no rounds.")


def test_an_upload_with_a_model_call_span_has_no_such_note():
    (document,) = lines("otlp-vercel-ai-sdk.jsonl")
    assert read_upload([("run.jsonl", json.dumps(document).encode())]).notes == ()


def test_any_one_place_changed_in_the_ai_sdks_spans_gives_a_line_problem_or_records_never_a_crash():
    # The SDK writes its messages, calls and tools as JSON text; opened up, the mutations reach every part.
    _, spans = _vercel_spans()
    flat = [{"traceId": s["traceId"], "spanId": s["spanId"], "startTimeUnixNano": s["startTimeUnixNano"],
             "endTimeUnixNano": s["endTimeUnixNano"],
             "attributes": {a["key"]: _opened_value(a["key"], a["value"]) for a in s["attributes"]}} for s in spans]
    assert feed(SpanFormat(), flat)[1].request["messages"][3]["role"] == "tool"
    assert assert_only_line_problems(SpanFormat, flat, stride=2) > 500


def _opened_value(key, value):
    """An OTLP attribute value as the flat span lines carry it, with the SDK's JSON text opened."""
    if "arrayValue" in value:
        values = [v["stringValue"] for v in value["arrayValue"]["values"]]
        return [json.loads(v) for v in values] if key == "ai.prompt.tools" else values
    found = next(iter(value.values()))
    return json.loads(found) if key in ("ai.prompt.messages", "ai.response.toolCalls") else found


def test_ai_sdk_calls_recorded_without_inputs_or_outputs_say_which_setting_left_them_out():
    # experimental_telemetry: {recordInputs: false, recordOutputs: false} keeps prompts and answers off the spans.
    document, spans = _vercel_spans()
    for span in spans:
        span["attributes"] = [a for a in span["attributes"]
                              if a["key"] not in ("ai.prompt.messages", "ai.response.text", "ai.response.toolCalls")]
    upload = read_upload([("run.jsonl", json.dumps(document).encode())])
    assert upload.rounds == 2
    assert [upload.said(n) for n in upload.notes] == [
        "line 1: 2 model-call spans carry no messages: the Vercel AI SDK was told not to record them, as "
        "experimental_telemetry's recordInputs and recordOutputs were set to false. Leave them unset (true is the "
        "default) and the SDK records the messages again. Each call's model, token counts and finish reason are shown "
        "as recorded, but not the messages, and calls in traces of their own cannot be joined into one conversation "
        "without their messages."]


def test_an_attribute_nested_past_what_python_can_walk_is_named_and_the_other_spans_still_load():
    # 900 levels parse (orjson reads 1,024) but broke the dialects, Fork and Annotate views that walk the value.
    lines = (FIXTURES / "otel-genai.jsonl").read_text().splitlines()
    span = json.loads(lines[0])
    definitions = json.loads(span["attributes"]["gen_ai.tool.definitions"])
    definitions[0]["parameters"]["properties"]["city"]["examples"] = json.loads("[" * 900 + "]" * 900)
    span["attributes"]["gen_ai.tool.definitions"] = json.dumps(definitions)
    result = read_upload([("deep.jsonl", "\n".join([json.dumps(span), *lines[1:]]).encode())])
    assert [str(p) for p in result.problems] == [
        "line 1: attribute 'gen_ai.tool.definitions' nests more than 200 levels deep; no model call does "
        "(read as OpenTelemetry / OpenInference spans)"]
    assert sum(len(c.trace.rounds) for c in result.conversations) == 2
