"""MLflow traces (`Trace.to_dict()`, a `search_traces()` row, a trace's `{"spans"}` data): each CHAT_MODEL or LLM
span a round, each TOOL span the execution of the call it answers, one conversation per trace. Fixture: the trace of
mlflow/mlflow-website's Bedrock ChatModel post (tests/fixtures/README.md); the tool-calling trace below is written in
the shape MLflow 3's OpenAI autologger records (mlflow/entities/span.py's to_dict), not a recording."""

import json
from pathlib import Path

from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures"


def upload(name, data=None):
    return read_upload([(name, (FIXTURES / name).read_bytes() if data is None else data)])


def _span(span_id, parent, name, kind, start, inputs, outputs, **attributes):
    """A span as MLflow 3 writes it: ids in base64, every attribute as JSON text."""
    attrs = {"mlflow.traceRequestId": json.dumps("tr-5f1c"), "mlflow.spanType": json.dumps(kind),
             "mlflow.spanInputs": json.dumps(inputs), "mlflow.spanOutputs": json.dumps(outputs)}
    attrs.update({k: json.dumps(v) for k, v in attributes.items()})
    return {"trace_id": "X8Hd3Q==", "span_id": span_id, "parent_span_id": parent, "name": name,
            "start_time_unix_nano": start, "end_time_unix_nano": start + 400_000_000, "events": [],
            "status": {"code": "STATUS_CODE_OK", "message": ""}, "attributes": attrs, "links": []}


TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
ASK = [{"role": "user", "content": "Weather in Paris?"}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}


def _completion(message, finish):
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}}


def tool_trace():
    """An AGENT span holding two OpenAI calls and the tool run between them, listed out of order."""
    first = _completion({"role": "assistant", "content": None, "tool_calls": [CALL]}, "tool_calls")
    second = _completion({"role": "assistant", "content": "Sunny, 21°C."}, "stop")
    sent_back = ASK + [first["choices"][0]["message"],
                       {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21C"}]
    spans = [
        _span("AAAAAAAAAAM=", "AAAAAAAAAAE=", "Completions_2", "CHAT_MODEL", 3_000_000_000,
              {"model": "gpt-4o-mini", "messages": sent_back, "tools": TOOLS}, second,
              **{"mlflow.chat.tokenUsage": {"input_tokens": 80, "output_tokens": 7, "total_tokens": 87}}),
        _span("AAAAAAAAAAE=", None, "agent", "AGENT", 1_000_000_000, {"question": "Weather in Paris?"}, "Sunny"),
        _span("AAAAAAAAAAI=", "AAAAAAAAAAE=", "Completions_1", "CHAT_MODEL", 1_100_000_000,
              {"model": "gpt-4o-mini", "messages": ASK, "tools": TOOLS}, first),
        _span("AAAAAAAAAAQ=", "AAAAAAAAAAE=", "get_weather", "TOOL", 2_000_000_000, {"city": "Paris"}, "sunny, 21C"),
    ]
    return {"info": {"trace_id": "tr-5f1c", "state": "OK", "request_time": "2025-06-01T10:00:00Z",
                     "trace_metadata": {"mlflow.trace.tokenUsage": json.dumps({"input_tokens": 130})},
                     "tags": {"mlflow.traceName": "agent"}},
            "data": {"spans": spans}}


def test_a_chat_model_trace_in_mlflow_2_16s_shape_is_one_round_that_says_what_the_trace_lacks():
    loaded = upload("mlflow-bedrock-chat-model.json")
    rule = "'spans' whose attributes carry 'mlflow.spanType' (an MLflow trace's data)"
    assert loaded.formats == {"mlflow": (1, rule)}
    (conversation,) = loaded.conversations
    assert conversation.id == "bedrock-agent (7c1e04a9d2b84f0e9a3b65d1c0f2e871)"
    (round_,) = conversation.trace.rounds
    assert round_.request.messages[0].text == "which of our warehouses has the most pallets free this week?"
    assert round_.response.message.text == "The Tilburg warehouse has the most free pallets this week: 412."
    assert round_.response.model == "anthropic.claude-v2"
    assert round_.response.usage is None  # the trace's usage is all nulls: not in the log, never 0
    assert round_.provenance.omitted == ("system", "tools")
    assert round_.latency_ms == 6665.556


def test_an_agents_openai_calls_are_chained_in_span_order_with_the_tool_run_paired_by_name():
    loaded = upload("trace.json", json.dumps(tool_trace()).encode())
    assert loaded.formats == {"mlflow": (1, "'info' beside 'data.spans' (an MLflow trace)")}
    (conversation,) = loaded.conversations
    assert conversation.id == "agent (tr-5f1c)"
    first, second = conversation.trace.rounds
    assert [c.name for c in first.tool_calls] == ["get_weather"]
    (run,) = first.executions
    assert (run.tool_call_id, run.name, run.output) == ("call_1", "get_weather", "sunny, 21C")
    assert [t.name for t in first.request.tools] == ["get_weather"]
    assert second.response.message.text == "Sunny, 21°C."
    # The provider's own usage is the round's; MLflow's count is read where the body has none.
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (50, 12)
    assert first.provenance is None or not first.provenance.omitted


def test_a_search_traces_row_reads_like_the_trace():
    trace = tool_trace()
    row = {"trace_id": "tr-5f1c", "trace": json.dumps(trace), "state": "OK", "trace_metadata": {},
           "tags": trace["info"]["tags"], "spans": trace["data"]["spans"]}
    loaded = upload("traces.jsonl", json.dumps(row).encode())
    assert loaded.formats == {"mlflow": (1, "'spans' beside 'trace_id' (a row of mlflow.search_traces())")}
    assert [len(r.request.messages) for r in loaded.conversations[0].trace.rounds] == [1, 3]


def test_a_trace_with_no_model_call_span_is_counted_as_no_model_call():
    trace = tool_trace()
    spans = trace["data"]["spans"]
    trace["data"]["spans"] = [s for s in spans if "CHAT_MODEL" not in s["attributes"]["mlflow.spanType"]]
    loaded = upload("trace.json", json.dumps(trace).encode())
    assert loaded.summary() == ("1 document: 0 rounds in 0 conversations; 1 document not a model call; "
                                "0 documents skipped")


def test_otlp_documents_still_go_to_the_spans_reader():
    loaded = upload("otlp-resource-spans.jsonl")
    assert set(loaded.formats) == {"spans"}


def langchain_trace(normalized=True):
    """A LangGraph agent's two ChatOpenAI calls and its tool run, as MLflow's LangChain autologger writes them: MLflow
    3 writes Chat Completions messages and choices, earlier versions LangChain's own messages and LLMResult."""
    ask = {"role": "user", "content": "What is 3 * 12?"}
    call = {"id": "call_m1", "type": "function", "function": {"name": "multiply", "arguments": "{\"a\": 3, \"b\": 12}"}}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    result = {"role": "tool", "content": "36", "tool_call_id": "call_m1"}
    if normalized:
        first_in, first_out = {"messages": [ask]}, {"choices": [{"message": asked, "finish_reason": None}]}
        second_in = {"messages": [ask, asked, result]}
        second_out = {"choices": [{"message": {"role": "assistant", "content": "36."}, "finish_reason": None}]}
    else:
        human = {"content": "What is 3 * 12?", "type": "human", "additional_kwargs": {}}
        ai = {"content": "", "type": "ai", "tool_calls": [{"name": "multiply", "args": {"a": 3, "b": 12},
                                                          "id": "call_m1", "type": "tool_call"}]}
        tool = {"content": "36", "type": "tool", "tool_call_id": "call_m1", "name": "multiply"}
        first_in, first_out = [[human]], {"generations": [[{"text": "", "message": ai,
                                                            "generation_info": {"finish_reason": "tool_calls"}}]]}
        second_in = [[human, ai, tool]]
        second_out = {"generations": [[{"text": "36.", "message": {"content": "36.", "type": "ai"},
                                        "generation_info": {"finish_reason": "stop"}}]]}
    said = {"mlflow.message.format": "langchain"} if normalized else {}
    usage = {"mlflow.chat.tokenUsage": {"input_tokens": 60, "output_tokens": 18, "total_tokens": 78},
             "mlflow.chat.tools": [{"type": "function", "function": {"name": "multiply"}}], **said}
    spans = [
        _span("AAAAAAAAAAE=", None, "LangGraph", "CHAIN", 1_000_000_000, {"messages": [ask]}, {"messages": []}),
        _span("AAAAAAAAAAI=", "AAAAAAAAAAE=", "ChatOpenAI", "CHAT_MODEL", 1_100_000_000, first_in, first_out, **usage),
        _span("AAAAAAAAAAM=", "AAAAAAAAAAE=", "multiply", "TOOL", 2_000_000_000, {"a": 3, "b": 12},
              {"content": "36", "type": "tool", "tool_call_id": "call_m1", "name": "multiply", "status": "success"}),
        _span("AAAAAAAAAAQ=", "AAAAAAAAAAE=", "ChatOpenAI", "CHAT_MODEL", 3_000_000_000, second_in, second_out, **said),
    ]
    return {"info": {"trace_id": "tr-9a0b", "state": "OK"}, "data": {"spans": spans}}


def test_langchain_calls_in_either_shape_mlflow_wrote_read_alike_with_the_tool_run_paired_by_id():
    for normalized in (True, False):
        (conversation,) = upload("trace.json", json.dumps(langchain_trace(normalized)).encode()).conversations
        assert conversation.id == "LangGraph (tr-9a0b)"
        first, second = conversation.trace.rounds
        assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("call_m1", "multiply", {"a": 3, "b": 12})]
        (run,) = first.executions
        assert (run.tool_call_id, run.output, run.ok) == ("call_m1", "36", True)
        assert [m.role for m in second.request.messages] == ["user", "assistant", "tool"]
        assert second.response.message.text == "36."
        assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (60, 18)
        assert second.response.usage is None  # the second span kept no token count: not 0
        assert [t.name for t in first.request.tools] == ["multiply"]
        # LangChain's messages and the tools MLflow lists beside them are what it sent: nothing is said to be missing.
        assert [r.provenance.omitted if r.provenance else () for r in (first, second)] == [(), ()]


def test_a_failed_tool_span_is_a_failed_run_with_mlflows_message():
    trace = langchain_trace()
    tool = trace["data"]["spans"][2]
    tool["status"] = {"code": "STATUS_CODE_ERROR", "message": "ZeroDivisionError: division by zero"}
    tool["attributes"]["mlflow.spanOutputs"] = json.dumps(None)
    first = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace.rounds[0]
    (run,) = first.executions
    assert (run.tool_call_id, run.ok) == ("call_m1", False)
    assert "ZeroDivisionError: division by zero" in run.note


def test_a_model_call_in_a_shape_not_read_keeps_its_usage_and_says_so():
    trace = tool_trace()
    trace["data"]["spans"] = [_span("AAAAAAAAAAE=", None, "dspy.LM", "LLM", 1, {"prompt": "2+2?"}, ["4"],
                                    **{"mlflow.chat.tokenUsage": {"input_tokens": 9, "output_tokens": 1}})]
    loaded = upload("trace.json", json.dumps(trace).encode())
    (round_,) = loaded.conversations[0].trace.rounds
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (9, 1)
    (note,) = loaded.notes
    assert "span 1 (dspy.LM)" in note.message and "shape Roundtrip does not read" in note.message


def test_spans_whose_ids_repeat_or_loop_are_each_read_once():
    trace = tool_trace()
    for span in trace["data"]["spans"]:
        span["span_id"] = span["parent_span_id"] = "<redacted>"
    rounds = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace.rounds
    assert [len(r.request.messages) for r in rounds] == [1, 3]


def test_the_reader_claims_mlflow_traces_and_nothing_of_any_other_format():
    from lib.logs.mlflow_traces import MlflowTraceFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(MlflowTraceFormat)
    other_spans = {"spans": [{"name": "x", "attributes": {"gen_ai.operation.name": "chat"}}]}
    assert MlflowTraceFormat().detect(other_spans) is None


def _opened(trace):
    """The trace with its span attributes opened from JSON text, so the mutations reach inside them."""
    opened = json.loads(json.dumps(trace))
    for span in opened["data"]["spans"]:
        span["attributes"] = {k: json.loads(v) for k, v in span["attributes"].items()}
    return opened


def test_any_one_place_changed_in_a_trace_gives_a_line_problem_or_records_never_a_crash():
    from lib.logs.mlflow_traces import MlflowTraceFormat
    from tests.formats_support import assert_only_line_problems
    fixture = json.loads((FIXTURES / "mlflow-databricks-agent-openai.json").read_bytes())
    bedrock = json.loads((FIXTURES / "mlflow-bedrock-chat-model.json").read_bytes())
    assert assert_only_line_problems(MlflowTraceFormat, [fixture, bedrock, tool_trace(), langchain_trace(False)]) > 1000
    assert assert_only_line_problems(MlflowTraceFormat, [_opened(tool_trace()), _opened(langchain_trace(False))]) > 1000


def test_a_failed_model_call_keeps_its_request_and_mlflows_message_and_no_answer():
    trace = tool_trace()
    failed = trace["data"]["spans"][0]  # the second call
    failed["status"] = {"code": "STATUS_CODE_ERROR", "message": "RateLimitError: 429 Too Many Requests"}
    failed["attributes"]["mlflow.spanOutputs"] = json.dumps(None)
    loaded = upload("trace.json", json.dumps(trace).encode())
    assert not loaded.notes  # a failed call is no shape left unread
    first, second = loaded.conversations[0].trace.rounds
    assert [m.role for m in second.request.messages] == ["user", "assistant", "tool"]
    assert second.response is None
    assert "RateLimitError: 429 Too Many Requests" in second.error.message


def test_an_attribute_nested_deeper_than_the_app_walks_stays_text_and_the_trace_still_loads():
    trace = tool_trace()
    trace["data"]["spans"][3]["attributes"]["mlflow.spanOutputs"] = "[" * 100_000 + "]" * 100_000
    rounds = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace.rounds
    assert len(rounds) == 2 and rounds[0].executions[0].output.startswith("[[[")


def test_a_tool_span_that_recorded_an_exception_is_a_failed_run_with_what_it_raised_not_its_stack_trace():
    # MLflow's tracer records what a traced tool raised as an `exception` event; the status may say no more.
    trace = langchain_trace()
    tool = trace["data"]["spans"][2]
    tool["status"] = {"code": "STATUS_CODE_UNSET", "message": ""}
    tool["attributes"]["mlflow.spanOutputs"] = json.dumps(None)
    tool["events"] = [{"name": "exception", "time_unix_nano": 2_300_000_000, "attributes": {
        "exception.type": "ZeroDivisionError", "exception.message": "division by zero",
        "exception.stacktrace": "Traceback (most recent call last):\n  File \"tools.py\", line 3",
        "exception.escaped": "False"}}]
    first = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace.rounds[0]
    (run,) = first.executions
    assert (run.tool_call_id, run.ok, run.output, run.note) == (
        "call_m1", False, "ZeroDivisionError: division by zero", "ZeroDivisionError: division by zero")
    assert "Traceback" not in json.dumps([run.output, run.note])


def test_a_tool_span_whose_tool_message_langchain_marked_status_error_is_a_failed_run():
    # The ToolMessage a LangChain tool span returned says status 'error'; the span's own status says OK.
    from lib.steps import steps_for_round
    trace = langchain_trace()
    outputs = json.loads(trace["data"]["spans"][2]["attributes"]["mlflow.spanOutputs"])
    outputs.update(content="Error: ZeroDivisionError('division by zero')", status="error")
    trace["data"]["spans"][2]["attributes"]["mlflow.spanOutputs"] = json.dumps(outputs)
    loaded = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace
    (run,) = loaded.rounds[0].executions
    assert (run.ok, run.output) == (False, "Error: ZeroDivisionError('division by zero')")
    assert "LangChain marked the ToolMessage it returned status 'error'" in run.note
    assert [label.detail for label in steps_for_round(loaded, 1) if label.step == 3] == ["multiply (call_m1): failed"]


def test_a_failed_model_call_without_a_status_message_says_what_its_exception_event_recorded():
    trace = tool_trace()
    failed = trace["data"]["spans"][0]  # the second call
    failed["status"] = {"code": "STATUS_CODE_ERROR", "message": ""}
    failed["attributes"]["mlflow.spanOutputs"] = json.dumps(None)
    failed["events"] = [{"name": "exception", "attributes": {"exception.type": "openai.RateLimitError",
                                                             "exception.message": "Error code: 429"}}]
    second = upload("trace.json", json.dumps(trace).encode()).conversations[0].trace.rounds[1]
    assert second.error.message == "openai.RateLimitError: Error code: 429"
