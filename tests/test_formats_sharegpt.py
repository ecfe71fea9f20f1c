"""ShareGPT / Hermes function-calling transcripts: calls parsed out of text, one round per assistant turn."""

import json

import pytest

from lib.logs.sharegpt import ShareGPTFormat
from tests.formats_support import (assert_detects_only_its_own, assert_only_line_problems, calls, feed, feed_files,
                                    lines, problems, read, results)

PARSED = ["request", "usage", "finish", "tool calls", "call ids"]


def test_glaive_function_call_and_observation_turns_become_calls_and_results():
    records = feed_files(ShareGPTFormat(), "sharegpt-glaive.jsonl")
    assert [len(r.request["messages"]) for r in records] == [1, 3, 5, 7, 9, 11]
    first, second = records[:2]
    request, response = read(first)
    assert [t.name for t in request.tools] == ["calculate_area", "calculate_discount"]
    assert calls(response) == [("call_1_0", "calculate_area")]
    assert response.message.tool_calls[0].arguments == {"shape": "rectangle", "dimensions": [5, 3]}
    assert response.finish_reason == "tool_calls"
    request, response = read(second)
    assert results(request) == ["call_1_0"] and request.messages[2].tool_results[0].content == '{"area": 15}'
    assert response.message.text.startswith("The area of the rectangle") and response.finish_reason == "stop"
    assert {(r.conversation, r.converted_from) for r in records} == {("line 1", "sharegpt")}
    assert all(r.derived == PARSED for r in records)


def test_hermes_tool_call_tags_become_parallel_calls_and_tool_responses_their_results():
    first, second = feed_files(ShareGPTFormat(), "sharegpt-hermes.jsonl")
    request, response = read(first)
    # The tool list comes from the system prompt's <tools> block.
    assert [t.name for t in request.tools] == ["get_stock_fundamentals", "get_stock_price"]
    assert calls(response) == [("call_2_0", "get_stock_fundamentals"), ("call_2_1", "get_stock_price")]
    assert response.message.text == ""
    request, response = read(second)
    assert results(request) == ["call_2_0", "call_2_1"]
    assert json.loads(request.messages[3].tool_results[0].content)["pe_ratio"] == 49.6
    assert response.message.text.startswith("Tesla (TSLA) trades at $201.30")


def test_a_hermes_agent_trajectory_reads_its_rounds_results_and_the_model_it_names():
    # Recorded by NousResearch hermes-agent (tests/fixtures/README.md): `<think>` text beside each
    # call, `tool_call_id` inside each `<tool_response>`, the model in a top-level `model` key.
    records = [r for r in feed_files(ShareGPTFormat(), "sharegpt-hermes-agent.jsonl") if r.line == 1]
    assert [len(r.request["messages"]) for r in records] == [2, 4, 6]
    (request, response), (second, answer), (third, last) = [read(r) for r in records]
    assert {request.model, second.model, third.model} == {"kimi-k2.6"}
    assert [t.name for t in request.tools] == ["altercraft_look", "altercraft_say"]
    # The call text has no id, but the result says which id the call had: the log has it, so it is kept.
    assert calls(response) == [("tool_wt9u5QSCiCE517xMGep6aFcS", "altercraft_look")]
    assert response.message.text.startswith("<think>\nThe user is telling me")
    assert results(second) == ["tool_wt9u5QSCiCE517xMGep6aFcS"]
    assert calls(answer) == [("tool_x0hhK6m2VXSZ1NU4vWQ5hEUa", "altercraft_say")]
    assert second.messages[3].tool_results[0].content.startswith("Scene (r=16):\nLooking at grass_block.")
    assert answer.message.tool_calls[0].arguments == {"text": "Hello, Mira! Nice to meet you."}
    assert last.message.text.endswith("</think>\nDone.") and last.message.tool_calls == ()


def test_an_assistant_turn_that_called_tools_is_a_round_of_its_own_even_when_no_result_follows():
    # hermes-agent left the results out of this recorded run: four assistant turns in a row, three
    # of them asking for a tool. Each was its own model call; read as one round, three calls vanished.
    records = [r for r in feed_files(ShareGPTFormat(), "sharegpt-hermes-agent.jsonl") if r.line == 2]
    assert [len(r.request["messages"]) for r in records] == [2, 3, 4, 5]
    responses = [read(r)[1] for r in records]
    assert [calls(r) for r in responses] == [[("call_2_0", "altercraft_look")], [("call_3_0", "altercraft_say")],
                                            [("call_4_0", "altercraft_stop")], []]
    assert results(read(records[-1])[0]) == []


def test_assistant_turns_without_calls_in_a_row_still_end_in_one_round():
    line = {"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Let me think."},
                              {"from": "gpt", "value": "Hello!"}]}
    (record,) = feed(ShareGPTFormat(), [line])
    assert [m["role"] for m in record.request["messages"]] == ["user", "assistant"]


def test_a_role_content_transcript_with_tool_call_text_and_ipython_turns_reads_the_same():
    line = {"messages": [
        {"role": "user", "content": "Is it raining in Bergen?"},
        {"role": "assistant", "content": "Let me check.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Bergen\"}}</tool_call>"},
        {"role": "ipython", "content": "{\"conditions\": \"rain\"}"},
        {"role": "assistant", "content": "Yes, it is raining."}]}
    fmt = ShareGPTFormat()
    assert fmt.detect(line) == "'messages' with <tool_call> text in an assistant turn (Hermes-style)"
    first, second = feed(fmt, [line])
    _, response = read(first)
    assert calls(response) == [("call_1_0", "get_weather")] and response.message.text == "Let me check."
    request, _ = read(second)
    assert results(request) == ["call_1_0"]


def test_a_tool_call_that_is_not_json_stays_in_the_text_where_the_checks_can_see_it():
    line = {"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "<tool_call>get_weather(Bergen)</tool_call>"}]}
    (record,) = feed(ShareGPTFormat(), [line])
    _, response = read(record)
    assert response.message.tool_calls == () and response.message.text == ""


@pytest.mark.parametrize("obj, words", [
    ({"conversations": [{"from": "human", "value": "Hi"}, "Hello"]}, "conversations[1] is a string"),
    ({"conversations": [{"from": "human", "value": "Hi"}, {"value": "Hello"}]}, "conversations[1] 'from' is missing"),
    ({"conversations": [{"from": "human", "value": "Hi"}]}, "no assistant turn"),
])
def test_a_malformed_transcript_is_a_line_problem_that_names_the_turn(obj, words):
    _, found = problems(ShareGPTFormat(), [obj])
    assert words in found[1]


def test_transcript_detection_leaves_plain_fine_tuning_lines_alone():
    fmt = ShareGPTFormat()
    assert fmt.detect({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}) is None
    assert_detects_only_its_own(ShareGPTFormat)


def test_any_one_place_changed_in_a_transcript_gives_a_line_problem_or_records_never_a_crash():
    assert assert_only_line_problems(ShareGPTFormat, lines("sharegpt-hermes.jsonl")) > 100
    assert assert_only_line_problems(ShareGPTFormat, lines("sharegpt-hermes-agent.jsonl")) > 100
