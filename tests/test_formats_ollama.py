"""Ollama /api/chat bodies read as Chat Completions rounds: object arguments, no ids, results paired by order."""

import json

import pytest

from lib.logs.ollama import OllamaFormat
from tests.formats_support import (assert_detects_only_its_own, assert_only_line_problems, calls, feed, feed_files,
                                    lines, problems, read, results)


def test_a_call_with_object_arguments_reads_as_a_call_with_a_made_up_id():
    first, _ = feed_files(OllamaFormat(), "ollama-chat.jsonl")
    request, response = read(first)
    assert [t.name for t in request.tools] == ["get_current_weather"] and request.model == "llama3.2"
    assert calls(response) == [("call_1_0", "get_current_weather")]
    assert response.message.tool_calls[0].arguments == {"format": "celsius", "location": "Paris, FR"}
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (122, 33)
    assert first.latency_ms == pytest.approx(885.095291) and first.timestamp == "2024-07-22T20:33:28.123648Z"
    assert first.derived == ["call ids"] and first.converted_from == "ollama"


def test_the_tool_message_answers_the_call_before_it_by_order_and_the_echoed_call_keeps_its_id():
    _, second = feed_files(OllamaFormat(), "ollama-chat.jsonl")
    request, response = read(second)
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"]
    assert [c.id for c in request.messages[1].tool_calls] == ["call_1_0"]
    assert results(request) == ["call_1_0"]
    assert json.loads(request.messages[2].tool_results[0].content)["conditions"] == "sunny"
    assert response.message.text == "It is sunny in Paris today, 22 °C." and response.finish_reason == "stop"
    assert second.derived == ["call ids"]


def test_parallel_calls_of_one_tool_are_answered_in_order_and_tool_name_picks_among_tools():
    request = {"model": "qwen3", "messages": [
        {"role": "user", "content": "Weather in Oslo and Bergen, and the time?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "weather", "arguments": {"city": "Oslo"}}},
            {"function": {"name": "clock", "arguments": {}}},
            {"function": {"name": "weather", "arguments": {"city": "Bergen"}}}]},
        {"role": "tool", "content": "14:05", "tool_name": "clock"},
        {"role": "tool", "content": "-3 C", "tool_name": "weather"},
        {"role": "tool", "content": "4 C"}]}
    (record,) = feed(OllamaFormat(), [{"request": request}])
    chat, _ = read(record)
    assert [(m.tool_results[0].call_id, m.tool_results[0].content) for m in chat.messages[2:]] == [
        ("call_1_1", "14:05"), ("call_1_0", "-3 C"), ("call_1_2", "4 C")]


def test_a_streamed_response_is_its_chunks_joined_until_done():
    chunks = [{"model": "llama3.2", "created_at": "2026-01-05T10:00:00Z", "message": {"role": "assistant", "content": "It is"}, "done": False},
              {"model": "llama3.2", "created_at": "2026-01-05T10:00:01Z", "message": {"role": "assistant", "content": " sunny."}, "done": False},
              {"model": "llama3.2", "created_at": "2026-01-05T10:00:02Z", "message": {"role": "assistant", "content": ""}, "done": True,
               "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 4, "total_duration": 2000000}]
    (record,) = feed(OllamaFormat(), chunks)
    _, response = read(record)
    assert response.message.text == "It is sunny." and response.usage.output_tokens == 4
    assert record.line == 1 and record.timestamp == "2026-01-05T10:00:00Z"
    (cut_off,) = feed(OllamaFormat(), chunks[:2])
    assert read(cut_off)[1].message.text == "It is sunny." and cut_off.response["choices"][0]["finish_reason"] is None


def test_an_ollama_error_string_is_the_rounds_error():
    (record,) = feed(OllamaFormat(), [{"request": lines("ollama-chat.jsonl")[0]["request"],
                                       "response": {"error": "model 'llama3.9' not found"}}])
    assert record.response is None and record.error["message"] == "model 'llama3.9' not found"


@pytest.mark.parametrize("obj, words", [
    ({"request": {"model": "m", "options": {}, "messages": ["Hi"]}}, "messages[0] is a string"),
    ({"request": {"model": "m", "options": {}, "messages": [{"role": "assistant", "tool_calls": "x"}]}}, "messages[0].tool_calls is a string"),
    ({"model": "m", "message": {"role": "assistant", "tool_calls": [7]}, "done": True}, "message.tool_calls[0] is a number"),
])
def test_a_malformed_ollama_line_is_a_line_problem_that_names_the_place(obj, words):
    _, found = problems(OllamaFormat(), [obj])
    assert words in found[1]


def test_ollama_detection_claims_its_own_lines_and_no_one_elses():
    fmt = OllamaFormat()
    assert fmt.detect({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}) is None
    assert fmt.detect({"model": "llama3.2", "messages": [], "keep_alive": 0}) == "an Ollama /api/chat request on its own"
    assert_detects_only_its_own(OllamaFormat)


def test_any_one_place_changed_in_an_ollama_line_gives_a_line_problem_or_records_never_a_crash():
    assert assert_only_line_problems(OllamaFormat, lines("ollama-chat.jsonl")) > 800
    assert assert_only_line_problems(OllamaFormat, lines("ollama-chat-cloud.jsonl")) > 800


def test_a_call_resent_without_an_id_takes_the_id_the_response_gave_it():
    first, second, _ = feed_files(OllamaFormat(), "ollama-chat-cloud.jsonl")
    _, response = read(first)
    assert calls(response) == [("call_mo1wm122", "getWeather")]
    request, _ = read(second)
    assert [c.id for c in request.messages[1].tool_calls] == ["call_mo1wm122"]
    assert results(request) == ["call_mo1wm122"]
    # The id was not in the request: taking it from the response is worked out, and says so.
    assert second.derived == ["call ids"]


def test_a_resent_call_takes_a_recorded_id_only_from_a_call_of_the_same_tool_and_arguments():
    answer = {"model": "gpt-oss:120b", "done": True, "done_reason": "stop", "message": {
        "role": "assistant", "content": "", "tool_calls": [{"id": "call_a", "function": {"name": "weather", "arguments": {"city": "Oslo"}}}]}}
    resent = {"model": "gpt-oss:120b", "messages": [
        {"role": "user", "content": "Weather in Bergen?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Bergen"}}}]},
        {"role": "tool", "content": "4 C"}]}
    _, record = feed(OllamaFormat(), [{"request": {"model": "gpt-oss:120b", "messages": [{"role": "user", "content": "Oslo?"}]},
                                       "response": answer}, {"request": resent}])
    request, _ = read(record)
    assert [c.id for c in request.messages[1].tool_calls] == ["call_1_0"] and results(request) == ["call_1_0"]
