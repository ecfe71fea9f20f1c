"""Streamed responses logged piece by piece come back as the whole response the API would have sent."""

import pytest
from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

from lib.logs.streams import AnthropicStreamFormat, OpenAIChatStreamFormat
from tests.formats_support import (assert_detects_only_its_own, assert_only_line_problems, calls, feed,
                                    feed_files, lines, problems, read)

ANSWER = "It's 14:05 in Oslo, -3 °C with light snow and a light wind."


def _chunk(delta, finish=None, cid="chatcmpl-x", index=0, **extra):
    return {"id": cid, "object": "chat.completion.chunk", "created": 1767607200, "model": "gpt-4o",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}], **extra}


# --- OpenAI chunks -------------------------------------------------------------------------------


def test_fixture_lines_are_real_chat_completion_chunks():
    for obj in lines("openai-chat-stream.jsonl"):
        ChatCompletionChunk.model_validate(obj)


def test_chunks_assemble_into_one_completion_per_stream_with_parallel_calls_merged_by_index():
    first, second, cut = feed_files(OpenAIChatStreamFormat(), "openai-chat-stream.jsonl")
    assert (first.dialect, first.request, first.line, first.conversation) == ("openai-chat", None, 1, None)
    assert first.response["object"] == "chat.completion"
    assert first.response["id"] == "chatcmpl-CKq2kX4n8pRzNwE1vT6sYd3fGhJ1a"
    _, response = read(first)
    assert response.finish_reason == "tool_calls" and response.stop == "tool_calls"
    assert calls(response) == [("call_Wn3aQ9xLk2PbR7", "get_weather"), ("call_Ka72mVt0sQe4Hd", "get_local_time")]
    # '{"ci' + 'ty": "Oslo"}' is one argument string again.
    assert [c.arguments for c in response.message.tool_calls] == [{"city": "Oslo"}, {"city": "Oslo"}]
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.source) == (142, 46, "reported")
    assert first.timestamp == "2026-01-05T10:00:00.000000000Z"


def test_a_streamed_custom_tool_call_is_joined_into_its_free_text_input_as_the_unstreamed_one_is():
    # GPT-5's call of the custom tool math_exp with "4 + 4", as dd-trace-py's recording of the unstreamed call holds it
    # (containers/ddtrace-openai-custom-tool-chat.yaml), cut into chunks in that call's own shape: no recording of a
    # streamed custom tool call was found. Joined as a function's, it was a call named "" with no arguments.
    chunks = [_chunk({"role": "assistant", "content": None}),
              _chunk({"tool_calls": [{"index": 0, "id": "call_QpgJRI5C9DcjExMNU6lrJPcu", "type": "custom",
                                      "custom": {"name": "math_exp", "input": ""}}]}),
              _chunk({"tool_calls": [{"index": 0, "custom": {"input": "4 + "}}]}),
              _chunk({"tool_calls": [{"index": 0, "custom": {"input": "4"}}]}),
              _chunk({}, "tool_calls")]
    (record,) = feed(OpenAIChatStreamFormat(), chunks)
    assert record.response["choices"][0]["message"]["tool_calls"] == [
        {"id": "call_QpgJRI5C9DcjExMNU6lrJPcu", "type": "custom", "custom": {"name": "math_exp", "input": "4 + 4"}}]
    _, response = read(record)
    [call] = response.message.tool_calls
    assert (call.name, call.arguments_raw, call.arguments, call.arguments_error) == ("math_exp", "4 + 4", "4 + 4", None)


def test_interleaved_streams_are_kept_apart_by_id():
    _, second, _ = feed_files(OpenAIChatStreamFormat(), "openai-chat-stream.jsonl")
    _, response = read(second)
    assert second.line == 9
    assert response.message.text == ANSWER
    assert response.stop == "end" and response.message.tool_calls == ()
    assert (response.usage.input_tokens, response.usage.cache_read_tokens, response.usage.output_tokens) == (231, 128, 19)


def test_a_stream_cut_off_before_its_finish_reason_still_yields_a_record():
    *_, cut = feed_files(OpenAIChatStreamFormat(), "openai-chat-stream.jsonl")
    assert cut.response["choices"][0]["finish_reason"] is None
    assert "usage" not in cut.response
    _, response = read(cut)
    assert response.message.text == "Let me check Rome "
    (call,) = response.message.tool_calls
    assert (call.id, call.name, call.arguments_raw) == ("call_Rm90fJx3TbW1Ns", "get_weather", '{"city": "Ro')
    assert call.arguments is None and call.arguments_error.startswith("not valid JSON")
    assert response.usage is None


def test_a_stream_is_yielded_as_soon_as_its_usage_chunk_closes_it():
    fmt = OpenAIChatStreamFormat()
    yielded_at = {}
    for number, obj in enumerate(lines("openai-chat-stream.jsonl"), start=1):
        for record in fmt.feed(obj, number):
            yielded_at[record.response["id"]] = number
    assert yielded_at == {"chatcmpl-CKq2kX4n8pRzNwE1vT6sYd3fGhJ1a": 8, "chatcmpl-CKq2mP0b7VwzYq3RtL9eNf5cDs2Kb": 16}
    assert [r.response["id"] for r in fmt.finish()] == ["chatcmpl-CKq2pT6hUe1xMa8WcQ4rZk0oLv7Gc"]


def test_fragments_without_an_index_start_a_new_call_when_a_new_id_arrives():
    records = feed(OpenAIChatStreamFormat(), [
        _chunk({"role": "assistant", "tool_calls": [{"id": "call_1", "function": {"name": "a", "arguments": "{\"x\""}}]}),
        _chunk({"tool_calls": [{"function": {"arguments": ": 1}"}}]}),
        _chunk({"tool_calls": [{"id": "call_2", "function": {"name": "b", "arguments": "{}"}}]}),
        _chunk({}, "tool_calls"),
    ])
    _, response = read(records[0])
    assert calls(response) == [("call_1", "a"), ("call_2", "b")]
    assert [c.arguments for c in response.message.tool_calls] == [{"x": 1}, {}]


def test_usage_sent_beside_the_last_choice_is_kept_too():
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    (record,) = feed(OpenAIChatStreamFormat(), [_chunk({"content": "Hi"}), _chunk({}, "stop", usage=usage)])
    assert record.response["usage"] == usage


def test_two_choices_of_one_stream_are_two_records():
    records = feed(OpenAIChatStreamFormat(), [
        _chunk({"content": "Yes"}, index=0), _chunk({"content": "No"}, index=1),
        _chunk({}, "stop", index=0), _chunk({}, "stop", index=1),
    ])
    assert [(r.response["choices"][0]["index"], r.response["choices"][0]["message"]["content"]) for r in records] == [(0, "Yes"), (1, "No")]


def test_a_chunk_line_that_carries_the_request_gives_the_record_its_request():
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
    (record,) = feed(OpenAIChatStreamFormat(), [_chunk({"content": "Hello"}, request=request), _chunk({}, "stop")])
    assert record.request == request
    parsed, _ = read(record)
    assert len(parsed.messages) == 1


@pytest.mark.parametrize("broken, words", [
    ({"choices": "none"}, "'choices' is a string"),
    ({"choices": [{"index": 0, "delta": "Hello"}]}, "delta is a string"),
    ({"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]}, "delta.tool_calls is an object"),
    ({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": {"city": "Oslo"}}}]}}]},
     "function.arguments is an object"),
])
def test_a_malformed_chunk_is_a_line_problem_that_names_the_field(broken, words):
    _, found = problems(OpenAIChatStreamFormat(), [{"id": "c", "object": "chat.completion.chunk", **broken}])
    assert words in found[1]


def test_openai_stream_detection_claims_chunks_and_nothing_else():
    assert OpenAIChatStreamFormat().detect(_chunk({})) == "object is 'chat.completion.chunk'"
    assert_detects_only_its_own(OpenAIChatStreamFormat)


def test_an_error_chunk_ends_the_open_completion_with_the_providers_error():
    # Groq's words and shape (pydantic-ai's test_tool_use_failed_error_streaming_with_text cassette): text streamed,
    # then an error where a call was required, its failed_generation empty.
    error = {"error": {"message": "Tool choice is required, but model did not call a tool", "type":
                       "invalid_request_error", "code": "tool_use_failed", "failed_generation": "", "status_code": 400}}
    (record,) = feed(OpenAIChatStreamFormat(), [_chunk({"role": "assistant", "content": ""}), _chunk({"content": "maybe"}),
                                                error])
    assert record.response is None and record.streamed
    assert record.error == {"status": 400, "body": error, "message": error["error"]["message"], "failed_generation": "maybe",
                            "stream_ended": {"http_status": None}}  # a log of chunks keeps no status line
    (alone,) = feed(OpenAIChatStreamFormat(), [{"error": {"message": "Overloaded"}}])
    assert (alone.response, alone.error["status"], alone.error["message"]) == (None, None, "Overloaded")


def test_any_one_place_changed_in_a_chunk_line_gives_a_line_problem_or_a_record_never_a_crash():
    assert assert_only_line_problems(OpenAIChatStreamFormat, lines("openai-chat-stream.jsonl"), stride=2) > 500


# --- Anthropic events ----------------------------------------------------------------------------


def test_fixture_lines_are_real_messages_stream_events():
    adapter = TypeAdapter(RawMessageStreamEvent)
    for obj in lines("anthropic-stream.jsonl"):
        if obj["type"] != "ping":  # the SDK swallows pings before they become events
            adapter.validate_python(obj)


def test_events_assemble_into_a_message_with_text_and_parallel_tool_uses():
    first, _, _ = feed_files(AnthropicStreamFormat(), "anthropic-stream.jsonl")
    assert (first.dialect, first.request, first.line) == ("anthropic-messages", None, 1)
    assert first.response["id"] == "msg_01XFDUDYJgAACzvnptvVoYEL" and first.response["type"] == "message"
    _, response = read(first)
    assert response.message.text == "I'll check the weather and the local time."
    assert calls(response) == [("toolu_01A09q90qw90lq917835lq9", "get_weather"), ("toolu_01B7sKq2Vb3nT8dWx4LmR5pE", "get_local_time")]
    assert [c.arguments for c in response.message.tool_calls] == [{"city": "Oslo"}, {"city": "Oslo"}]
    assert (response.finish_reason, response.stop) == ("tool_use", "tool_calls")
    # message_start's input counts stay; message_delta's output count replaces the placeholder 1.
    usage = response.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (412 + 1024, 1024, 89)


def test_each_message_stop_ends_one_message():
    records = feed_files(AnthropicStreamFormat(), "anthropic-stream.jsonl")
    assert [r.line for r in records] == [1, 17, 24]
    _, second = read(records[1])
    assert second.message.text == ANSWER and second.finish_reason == "end_turn"


def test_a_cut_off_stream_keeps_unparseable_tool_input_as_its_raw_text():
    *_, cut = feed_files(AnthropicStreamFormat(), "anthropic-stream.jsonl")
    block = cut.response["content"][0]
    assert block["input"] == '{"city": "Ber'
    assert cut.response["stop_reason"] is None
    _, response = read(cut)
    (call,) = response.message.tool_calls
    # The reader shows the text as the model wrote it and says why it does not parse.
    assert (call.id, call.arguments_raw, call.arguments) == ("toolu_01Cc9Lp0Oi8Uy7Tr6Ew5Qa4Z", '{"city": "Ber', None)
    assert call.arguments_error.startswith("not valid JSON")


def test_events_wrapped_as_server_sent_events_read_the_same():
    plain = feed_files(AnthropicStreamFormat(), "anthropic-stream.jsonl")
    wrapped = feed(AnthropicStreamFormat(), [{"event": obj["type"], "data": obj} for obj in lines("anthropic-stream.jsonl")])
    assert [r.response for r in wrapped] == [r.response for r in plain]
    assert AnthropicStreamFormat().detect({"event": "message_stop", "data": {"type": "message_stop"}})


def test_a_new_message_start_closes_a_message_that_never_stopped():
    events = lines("anthropic-stream.jsonl")
    records = feed(AnthropicStreamFormat(), events[:5] + events[16:])
    assert [r.response["id"] for r in records] == [
        "msg_01XFDUDYJgAACzvnptvVoYEL", "msg_01Q2w3E4r5T6y7U8i9O0pAsD", "msg_01ZxCvBnM1a2S3d4F5g6H7jK"]
    assert records[0].response["stop_reason"] is None
    assert records[0].response["content"] == [{"type": "text", "text": "I'll check the weather and the local time."}]


def test_an_error_event_ends_the_message_with_an_error():
    events = lines("anthropic-stream.jsonl")[:5]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    (record,) = feed(AnthropicStreamFormat(), events + [error])
    assert record.error["message"] == "Overloaded" and record.error["body"] == error


@pytest.mark.parametrize("events, words", [
    ([{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}], "no message_start before it"),
    ([{"type": "message_start"}], "'message' is missing"),
    ([{"type": "message_start", "message": {"id": "msg_1"}},
      {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "Hi"}}], "block 3, which no content_block_start opened"),
    ([{"type": "message_start", "message": {"id": "msg_1"}},
      {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}}},
      {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 7}}], "'partial_json' is a number"),
])
def test_a_malformed_event_is_a_line_problem_that_names_the_field(events, words):
    _, found = problems(AnthropicStreamFormat(), events)
    assert words in found[len(events)]


def test_anthropic_stream_detection_claims_events_and_nothing_else():
    assert AnthropicStreamFormat().detect({"type": "message_stop"}) == "type names a Messages stream event"
    assert_detects_only_its_own(AnthropicStreamFormat)


def test_any_one_place_changed_in_an_event_line_gives_a_line_problem_or_a_record_never_a_crash():
    assert assert_only_line_problems(AnthropicStreamFormat, lines("anthropic-stream.jsonl")) > 500


def test_a_stream_cut_inside_a_calls_arguments_marks_that_call_as_cut():
    # Conversation 3 of each recording ends inside get_weather's arguments: no finish chunk, no content_block_stop.
    *whole, openai_cut = feed_files(OpenAIChatStreamFormat(), "openai-chat-stream.jsonl")
    *closed, anthropic_cut = feed_files(AnthropicStreamFormat(), "anthropic-stream.jsonl")
    assert openai_cut.cut_calls == [0] and anthropic_cut.cut_calls == [0]
    assert all(record.cut_calls == [] for record in (*whole, *closed))


def test_a_call_whose_block_closed_before_the_stream_was_cut_is_not_marked():
    # The first tool_use block closed; the stream ended inside the second one.
    events = [{"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "c",
                                                    "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}},
              {"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": "t1", "name": "a", "input": {}}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
              {"type": "content_block_stop", "index": 0},
              {"type": "content_block_start", "index": 1,
               "content_block": {"type": "tool_use", "id": "t2", "name": "b", "input": {}}},
              {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"x"}}]
    (record,) = feed(AnthropicStreamFormat(), events)
    assert record.cut_calls == [1]
