"""Dialects: any round written as Chat Completions or as Messages, through Roundtrip's data model, and back.

"The same model" is lib.dialects.equivalence.ModelView: the system prompt's texts; the conversation
as the model reads it (who wrote each text, each call's id, name and parsed arguments, each
result with the id of the call it answers); the tools' names, descriptions and schemas; the
response's texts and calls; the normalized stop; reported usage.
"""

import json
from dataclasses import replace

import pytest

from lib import catalog
from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat, other
from lib.dialects.common import Pools, dumps_as_written, loads_as_written
from lib.dialects.anthropic_messages import MAX_TOKENS_FILLED
from lib.dialects.convert import convert, reread
from lib.dialects.equivalence import model_view
from lib.dialects.field_table import field_mapping
from lib.live.wire import AnthropicMessages, OpenAIChat, RequestOptions
from lib.model import ToolResultPart, Usage
from tests.conftest import load_bundled

BUNDLED = [t.name for t in catalog.bundled_traces()]


def _there_and_back(round_, dialect):
    """The round converted to the other dialect, read back, converted home and read back again."""
    there = convert(round_.request, round_.response, dialect, other(dialect))
    away = reread(there)
    back = convert(*away, other(dialect), dialect)
    return there, away, reread(back)


def test_every_bundled_trace_is_listed_pitfalls_included():
    assert "hengxin-expense" in BUNDLED and "order-status-anthropic" in BUNDLED
    assert sum(name.startswith("pitfalls/") for name in BUNDLED) == 6


@pytest.mark.parametrize("name", BUNDLED)
def test_every_round_survives_the_other_dialect_and_back_as_the_same_model(name):
    trace = load_bundled(name).trace
    assert trace.rounds
    for round_ in trace.rounds:
        original = model_view(round_.request, round_.response)
        there, away, home = _there_and_back(round_, trace.dialect)
        assert there.request.dialect == other(trace.dialect)
        assert model_view(*away) == original, f"round {round_.index} in {other(trace.dialect)}"
        assert model_view(*home) == original, f"round {round_.index} back in {trace.dialect}"
        # Back home the packaging is the original's too: one message for one message.
        assert len(home[0].messages) == len(round_.request.messages)
        assert [m.role for m in home[0].messages] == [m.role for m in round_.request.messages]


def test_the_view_sees_what_matters_so_the_round_trip_test_can_fail(hengxin):
    round_ = hengxin.rounds[1]
    original = model_view(round_.request, round_.response)
    there = convert(round_.request, round_.response, OPENAI, ANTHROPIC)
    result_block = there.request.body["messages"][2]["content"][0]
    result_block["tool_use_id"] = "call_elsewhere"
    assert model_view(*reread(there)) != original
    there = convert(round_.request, round_.response, OPENAI, ANTHROPIC)
    there.response.body["content"][0]["input"]["actual_amount"] = 3861
    assert model_view(*reread(there)) != original
    there = convert(round_.request, round_.response, OPENAI, ANTHROPIC)
    there.response.body["stop_reason"] = "end_turn"
    assert model_view(*reread(there)) != original
    # Editing a converted body never reaches the trace every session shares.
    assert round_.response.message.tool_calls[0].arguments == {"actual_amount": 3860.0, "limit_amount": 3800.0}


def test_openai_to_anthropic_moves_system_arguments_ids_results_and_stop(hengxin):
    there = convert(hengxin.rounds[1].request, hengxin.rounds[1].response, OPENAI, ANTHROPIC)
    body = there.request.body
    assert body["system"].startswith("You are the internal affairs assistant of Hengxin Bank")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    calls = body["messages"][1]["content"]
    assert calls[0] == {"type": "tool_use", "id": "call_q1", "name": "queryExpense",
                        "input": {"user_id": "E10238", "status": "submitted"}}
    results = body["messages"][2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [("tool_result", "call_q1"), ("tool_result", "call_q2")]
    assert body["tools"][0]["input_schema"]["required"] == ["user_id"]
    assert body["tool_choice"] == {"type": "auto"}
    assert body["max_tokens"] == MAX_TOKENS_FILLED
    response = there.response.body
    assert response["stop_reason"] == "tool_use"
    assert response["content"] == [{"type": "tool_use", "id": "call_q3", "name": "calcAmountOver",
                                    "input": {"actual_amount": 3860.0, "limit_amount": 3800.0}}]


def test_anthropic_to_openai_splits_results_into_tool_messages_with_string_arguments(order_status):
    round_ = order_status.rounds[1]
    there = convert(round_.request, round_.response, ANTHROPIC, OPENAI)
    messages = there.request.body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in messages[3:]] == ["toolu_01A9kXq3vTn8RcW2mLp5dYh7", "toolu_01Fm4Rz8KwQ2nVb6TxJc9sLd"]
    arguments = messages[2]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(arguments, str) and json.loads(arguments) == {"order_id": "A-48213"}
    assert there.request.body["max_tokens"] == 1024
    assert there.response.body["choices"][0]["finish_reason"] == "stop"
    assert there.notes == ()


def test_the_two_bodies_read_by_the_real_readers_agree_with_the_source(hengxin):
    """The converted body is one the dialect's own reader takes: parts, ids and usage come out right."""
    there = convert(hengxin.rounds[0].request, hengxin.rounds[0].response, OPENAI, ANTHROPIC)
    response = anthropic_messages.read_response(there.response.body, Pools())
    assert [c.id for c in response.message.tool_calls] == ["call_q1", "call_q2"]
    assert response.usage == Usage(input_tokens=1247, output_tokens=58, source="reported")
    back = convert(*reread(there), ANTHROPIC, OPENAI)
    assert openai_chat.read_response(back.response.body, Pools()).usage.input_tokens == 1247


def test_what_cannot_survive_is_named_not_dropped_silently(hengxin):
    larkfield = load_bundled("larkfield-get-order").trace.rounds[0]
    notes = convert(larkfield.request, larkfield.response, OPENAI, ANTHROPIC).notes
    assert "reasoning_effort: has no Messages form; left out" in notes
    assert any(n.startswith("max_tokens: Messages requires it") for n in notes)

    # An error flag on a result has no Chat Completions field.
    narration = load_bundled("pitfalls/wrong-tool-declined").trace.rounds[1]
    message = narration.request.messages[2]
    flagged = replace(message, parts=tuple(replace(p, is_error=True) if isinstance(p, ToolResultPart) else p
                                           for p in message.parts))
    request = replace(narration.request, messages=(*narration.request.messages[:2], flagged))
    there = convert(request, narration.response, ANTHROPIC, OPENAI)
    assert any("is_error has no Chat Completions field" in n for n in there.notes)

    # Cache writes have no Chat Completions field, reasoning tokens no Messages one.
    response = replace(hengxin.rounds[0].response, usage=Usage(100, 10, "reported", cache_write_tokens=40, reasoning_tokens=5))
    assert any("written to the prompt cache" in n for n in convert(hengxin.rounds[0].request, response, ANTHROPIC, OPENAI).notes)
    assert any("reasoning tokens" in n for n in convert(hengxin.rounds[0].request, response, OPENAI, ANTHROPIC).notes)


def test_arguments_that_are_not_json_cannot_become_an_input_object():
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    response_body = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1'}}]},
        "finish_reason": "tool_calls"}]}
    pools = Pools()
    request, response = openai_chat.read_request(body, pools), openai_chat.read_response(response_body, pools)
    there = convert(request, response, OPENAI, ANTHROPIC)
    assert there.response.body["content"][0]["input"] == {}
    assert any("not valid JSON" in n for n in there.notes)


def test_a_system_message_mid_conversation_moves_to_the_top_and_says_so():
    body = {"model": "m", "messages": [{"role": "developer", "content": "Be brief."},
                                       {"role": "user", "content": "hi"},
                                       {"role": "system", "content": "Now be kind."}]}
    request = openai_chat.read_request(body, Pools())
    there = convert(request, None, OPENAI, ANTHROPIC)
    assert there.request.body["system"] == [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Now be kind."}]
    assert there.request.body["messages"] == [{"role": "user", "content": "hi"}]
    assert any("developer role becomes part of the top-level system" in n for n in there.notes)
    assert any("messages[2]: a system message after the conversation began" in n for n in there.notes)


def test_tool_choice_and_parallel_calls_map_both_ways():
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "parallel_tool_calls": False,
            "tool_choice": {"type": "function", "function": {"name": "lookup"}}, "stop": "END"}
    there = convert(openai_chat.read_request(body, Pools()), None, OPENAI, ANTHROPIC)
    assert there.request.body["tool_choice"] == {"type": "tool", "name": "lookup", "disable_parallel_tool_use": True}
    assert there.request.body["stop_sequences"] == ["END"]
    back = convert(anthropic_messages.read_request(there.request.body, Pools()), None, ANTHROPIC, OPENAI)
    assert back.request.body["tool_choice"] == {"type": "function", "function": {"name": "lookup"}}
    assert back.request.body["parallel_tool_calls"] is False
    assert back.request.body["stop"] == ["END"]


def test_a_request_that_forbids_tools_carries_no_parallel_flag_into_messages():
    """Messages' {"type": "none"} takes no disable_parallel_tool_use (only auto, any and tool do), so
    a Chat Completions request with tool_choice none and parallel calls off is written without it,
    as a live run writes it."""
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tool_choice": "none",
            "parallel_tool_calls": False,
            "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]}
    there = convert(openai_chat.read_request(body, Pools()), None, OPENAI, ANTHROPIC)
    assert there.request.body["tool_choice"] == {"type": "none"}


@pytest.mark.parametrize("choice, parallel", [("auto", None), ("required", False), ("none", False),
                                             ("lookup", False), ("lookup", None), (None, False)])
def test_a_live_run_and_the_converter_write_the_same_messages_tool_choice(choice, parallel):
    """One tool_choice mapping: what a live Anthropic run sends for a setting is what the converter
    writes for the Chat Completions request a live OpenAI run sends for the same setting."""
    options = RequestOptions(model="m", tool_choice=choice, parallel_tool_calls=parallel)
    tools = [{"name": "lookup", "description": "", "input_schema": {"type": "object"}}]
    messages = [{"role": "user", "content": "hi"}]
    live_openai = OpenAIChat().body(options, None, messages,
                                    [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}])
    converted = convert(openai_chat.read_request(live_openai, Pools()), None, OPENAI, ANTHROPIC).request.body
    live_anthropic = AnthropicMessages().body(options, None, messages, tools)
    assert converted.get("tool_choice") == live_anthropic.get("tool_choice")


def test_the_field_mapping_names_this_rounds_own_fields(hengxin):
    round_ = hengxin.rounds[1]
    rows = {r.what: r for r in field_mapping(convert(round_.request, round_.response, OPENAI, OPENAI),
                                             convert(round_.request, round_.response, OPENAI, ANTHROPIC))}
    assert set(rows) == {"System prompt", "Call arguments", "Which call a result answers", "Tool results",
                         "Stop signal", "Tool definitions", "Messages array", "Input tokens"}
    assert rows["Call arguments"].openai_here.startswith("choices[0].message.tool_calls[0].function.arguments = \"{")
    assert rows["Call arguments"].anthropic_here == 'content[0].input = {"actual_amount": 3860.00, "limit_amount": 3800.00}'
    assert rows["Which call a result answers"].openai_here == "messages[3].tool_call_id = call_q1"
    assert rows["Which call a result answers"].anthropic_here == "messages[2].content[0].tool_use_id = call_q1"
    assert rows["Tool results"].openai_here == "messages[3], messages[4] (2 tool messages)"
    assert rows["Tool results"].anthropic_here == "messages[2] (role user, 2 tool_result blocks)"
    assert (rows["Stop signal"].openai_here, rows["Stop signal"].anthropic_here) == (
        "finish_reason = tool_calls", "stop_reason = tool_use")
    assert (rows["Messages array"].openai_here, rows["Messages array"].anthropic_here) == (
        "5 messages", "3 messages plus system")
    assert rows["Input tokens"].openai_here == "–"  # round 2 reported no usage


def test_a_conversion_keeps_the_digits_of_the_arguments_as_the_model_wrote_them(hengxin):
    round_ = hengxin.rounds[1]
    converted = convert(round_.request, round_.response, hengxin.dialect, ANTHROPIC)
    assert dumps_as_written(converted.response.body["content"][0]["input"]) == (
        '{"actual_amount": 3860.00, "limit_amount": 3800.00}')
    assert dumps_as_written(loads_as_written('{"a": [1, 2.50, {"b": null}]}'), indent=2) == json.dumps(
        {"a": [1, 2.5, {"b": None}]}, indent=2).replace("2.5", "2.50")
    assert dumps_as_written(loads_as_written('{"x": 60.00, "y": 1e3, "z": "60.00"}')) == '{"x": 60.00, "y": 1e3, "z": "60.00"}'


def test_a_chat_usage_reads_its_details_whether_present_null_absent_or_damaged():
    read = openai_chat.read_usage
    assert read({"prompt_tokens": 120, "completion_tokens": 30}) == Usage(120, 30, "reported")
    assert read({"prompt_tokens": 120, "completion_tokens": 30, "prompt_tokens_details": None,
                 "completion_tokens_details": None}) == Usage(120, 30, "reported")
    assert read({"prompt_tokens": 120, "completion_tokens": 30, "prompt_tokens_details": [64],
                 "completion_tokens_details": "12"}) == Usage(120, 30, "reported")
    assert read({"prompt_tokens": 120, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 64},
                 "completion_tokens_details": {"reasoning_tokens": 12}}) \
        == Usage(120, 30, "reported", cache_read_tokens=64, reasoning_tokens=12)
