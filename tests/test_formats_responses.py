"""Responses API logs read as Chat Completions rounds, with previous_response_id chains rebuilt."""

import pytest
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from lib.dialects.common import Pools
from lib.logs.responses import ResponsesFormat
from tests.formats_support import (assert_detects_only_its_own, assert_only_line_problems, calls, feed,
                                    feed_files, lines, problems, read, results)

FIRST = "resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"
SYSTEM = "You are a concise travel assistant. Use the tools for live facts."


def _records():
    return feed_files(ResponsesFormat(), "openai-responses.jsonl")


def _response(rid, output, **extra):
    return {"id": rid, "object": "response", "created_at": 1767607200, "status": "completed", "model": "gpt-5-mini",
            "output": output, **extra}


def _said(text, role="assistant"):
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def test_fixture_lines_are_real_responses_objects_and_stream_events():
    events = TypeAdapter(ResponseStreamEvent)
    for obj in lines("openai-responses.jsonl"):
        if "response" in obj and "request" in obj:
            Response.model_validate(obj["response"])
        elif "type" in obj:
            events.validate_python(obj)


def test_a_previous_response_id_chain_is_one_conversation_named_by_its_first_response():
    records = _records()
    assert [r.line for r in records] == [1, 2, 3, 5, 6]
    assert [r.conversation or r.name for r in records] == [FIRST, FIRST, FIRST, "resp_68b1c4a5b6c7d8e9f0a1b2c3d4e5f6a7", FIRST]
    assert {(r.dialect, r.converted_from) for r in records} == {("openai-chat", "openai-responses")}


def test_each_chained_request_carries_the_whole_history_rebuilt_from_the_earlier_responses():
    records = _records()
    sizes = [len(r.request["messages"]) if r.request else None for r in records]
    # system + user; + the assistant's calls + two results; + the answer + a new user turn; request-only line last.
    assert sizes == [2, 5, 7, None, 9]
    assert records[0].request["messages"] == [{"role": "system", "content": SYSTEM},
                                              {"role": "user", "content": "What's the weather and the local time in Oslo right now?"}]
    assert records[4].request["messages"][-1] == {"role": "user", "content": "Just the list, please."}


def test_the_history_resends_each_earlier_assistant_message_unchanged():
    records = _records()
    pools = Pools()
    _, first_response = read(records[0], pools)
    second_request, _ = read(records[1], pools)
    # Interning hands back the very same message: the rebuilt history is byte-for-byte what came back.
    assert second_request.messages[2] is first_response.message


def test_function_calls_become_one_assistant_message_with_call_ids_not_item_ids():
    _, response = read(_records()[0])
    assert calls(response) == [("call_Wn3aQ9xLk2PbR7", "get_weather"), ("call_Ka72mVt0sQe4Hd", "get_local_time")]
    assert [c.arguments for c in response.message.tool_calls] == [{"city": "Oslo"}, {"city": "Oslo"}]
    assert response.finish_reason == "tool_calls" and response.stop == "tool_calls"


def test_reasoning_items_stay_as_a_raw_content_block_beside_the_calls():
    _, response = read(_records()[0])
    (reasoning,) = [p for p in response.message.parts if p.kind == "other"]
    assert reasoning.type == "reasoning" and reasoning.raw["id"] == "rs_68b1c2d4a0b1c2d3e4f5a6b7c8d9e0f1"


def test_function_call_outputs_become_tool_messages_answering_the_call_ids():
    request, _ = read(_records()[1])
    assert [m.role for m in request.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert results(request) == ["call_Wn3aQ9xLk2PbR7", "call_Ka72mVt0sQe4Hd"]
    assert '"temp_c": -3' in request.messages[3].tool_results[0].content


def test_flat_tools_are_nested_the_chat_completions_way():
    request, _ = read(_records()[0])
    assert [(t.name, t.description) for t in request.tools] == [("get_weather", "Current weather for a city."),
                                                                ("get_local_time", "Local time in a city.")]
    assert request.tools[0].parameters["required"] == ["city"]
    assert request.raw["tools"][0]["function"]["strict"] is True
    assert request.raw["parallel_tool_calls"] is True


def test_usage_keeps_cached_and_reasoning_tokens():
    records = _records()
    usage = read(records[0])[1].usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens, usage.reasoning_tokens) == (142, 0, 46, 12)
    assert records[1].response["usage"] == {"prompt_tokens": 231, "completion_tokens": 19, "total_tokens": 250,
                                            "prompt_tokens_details": {"cached_tokens": 128},
                                            "completion_tokens_details": {"reasoning_tokens": 0}}


def test_status_becomes_the_finish_reason():
    records = _records()
    assert [r.response["choices"][0]["finish_reason"] if r.response else None for r in records] == [
        "tool_calls", "stop", "length", "stop", None]
    assert read(records[2])[1].stop == "length"
    assert records[2].request["max_completion_tokens"] == 64


def test_only_the_final_stream_event_makes_a_record_and_it_starts_its_own_conversation():
    fmt = ResponsesFormat()
    stream = lines("openai-responses.jsonl")[3:5]
    assert list(fmt.feed(stream[0], 4)) == []
    (record,) = fmt.feed(stream[1], 5)
    assert record.request is None and record.conversation == "resp_68b1c4a5b6c7d8e9f0a1b2c3d4e5f6a7"
    assert read(record)[1].message.text == "Bonjour ! Comment puis-je vous aider ?"
    assert record.timestamp == "2026-01-05T10:01:40.000000000Z"


def test_a_chain_whose_first_response_is_not_in_the_file_is_named_by_the_missing_id():
    (record,) = feed(ResponsesFormat(), [{"request": {"previous_response_id": "resp_gone", "input": "And tomorrow?"},
                                          "response": _response("resp_2", [_said("Sunny.")], previous_response_id="resp_gone")}])
    assert record.conversation == "resp_gone"
    assert record.request["messages"] == [{"role": "user", "content": "And tomorrow?"}]


def test_input_that_resends_a_whole_history_leaves_grouping_to_the_request_prefixes():
    history = [_said("Hi", "user"), _said("Hello"), _said("Weather?", "user")]
    (record,) = feed(ResponsesFormat(), [{"request": {"model": "gpt-5-mini", "store": False, "input": history},
                                          "response": _response("resp_9", [_said("Sunny.")])}])
    assert record.conversation is None
    assert [m["role"] for m in record.request["messages"]] == ["user", "assistant", "user"]


def test_a_conversations_api_id_names_the_conversation_and_carries_its_history():
    records = feed(ResponsesFormat(), [
        {"request": {"conversation": "conv_42", "input": "Hi"},
         "response": _response("resp_a", [_said("Hello")], conversation={"id": "conv_42"})},
        {"request": {"conversation": "conv_42", "input": "Weather?"},
         "response": _response("resp_b", [_said("Sunny.")], conversation={"id": "conv_42"})},
    ])
    assert [r.conversation for r in records] == ["conv_42", "conv_42"]
    assert [m["content"] for m in records[1].request["messages"]] == ["Hi", "Hello", "Weather?"]


def test_a_failed_response_or_an_error_body_becomes_the_records_error():
    failed = _response("resp_f", [], status="failed", error={"code": "server_error", "message": "The model crashed."})
    error_body = {"error": {"message": "No tool output found for function call call_x.", "type": "invalid_request_error"}, "status_code": 400}
    first, second = feed(ResponsesFormat(), [failed, {"request": {"model": "gpt-5-mini", "input": "Hi", "tools": []}, "response": error_body}])
    assert first.response is None and first.error["message"] == "The model crashed."
    assert second.response is None
    assert (second.error["status"], second.error["message"]) == (400, "No tool output found for function call call_x.")


def test_an_http_status_recorded_beside_the_bodies_is_the_errors_status():
    # pydantic-ai's deepseek cassette, as a pair line: the status sits beside the bodies, not inside the error body.
    refused = {"request": {"model": "deepseek-v4-flash", "input": "Hi", "tools": []}, "status_code": 400,
               "response": {"error": {"message": "No tool output found for tool call call-a.", "code": "400"}}}
    cut = {"request": {"model": "gpt-5-mini", "input": "Hi", "tools": []}, "status_code": 502, "response": {}}
    first, second = feed(ResponsesFormat(), [refused, cut])
    assert (first.error["status"], first.error["message"]) == (400, "No tool output found for tool call call-a.")
    assert (second.error["status"], second.error["message"]) == (502, "HTTP 502")


@pytest.mark.parametrize("obj, words", [
    ({"model": "gpt-5-mini", "instructions": "x", "input": 7}, "'input' is a number"),
    ({"model": "gpt-5-mini", "instructions": "x", "input": ["hello"]}, "input[0] is a string"),
    (_response("resp_1", [{"type": "function_call", "id": "fc_1", "name": "get_weather", "arguments": "{}"}]),
     "output[0] function_call has no 'call_id'"),
    (_response("resp_1", [{"type": "message", "role": "assistant", "content": 42}]), "output[0].content is a number"),
    ({"request": None, "response": None}, "both null"),
    ({"request": {"input": "Hi", "instructions": "x"}, "response": {"status": "completed"}}, "neither a response object"),
])
def test_a_malformed_responses_line_is_a_line_problem_that_names_the_field(obj, words):
    _, found = problems(ResponsesFormat(), [obj])
    assert words in found[1]


def test_responses_detection_leaves_embeddings_and_chat_pairs_alone():
    fmt = ResponsesFormat()
    assert fmt.detect({"model": "text-embedding-3-small", "input": ["light snow", "Oslo"]}) is None
    assert fmt.detect({"model": "text-embedding-3-small", "input": "light snow"}) is None
    assert fmt.detect({"request": {"model": "gpt-4o", "messages": []}, "response": {"object": "chat.completion", "choices": []}}) is None
    assert fmt.detect({"event": "model", "model": "gpt-4o", "input": [{"role": "user", "content": "Hi"}], "output": {}}) is None
    assert fmt.detect({"model": "gpt-5-mini", "input": [{"role": "user", "content": "Hi"}]}) == "'input' with Responses request keys"
    assert_detects_only_its_own(ResponsesFormat)


def test_any_one_place_changed_in_a_responses_line_gives_a_line_problem_or_a_record_never_a_crash():
    assert assert_only_line_problems(ResponsesFormat, lines("openai-responses.jsonl")) > 2000
