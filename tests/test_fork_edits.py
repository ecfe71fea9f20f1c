"""The fork editor's operations on real bundled requests, without Streamlit: each edit changes what it names
and nothing else, and the request given is never changed."""

import copy
import json

from lib.dialects import ANTHROPIC, OPENAI
from lib.fork import request_body
from lib.fork_edits import (entries, settings, system_prompt, tools, with_added_tool, with_entry, with_message,
                            with_model, with_results_emptied, with_settings, with_system, with_tool, without_entry,
                            without_tool)
from tests.conftest import load_bundled


def _hengxin(at: int) -> dict:
    return request_body(load_bundled("hengxin-expense").trace, at)


def _order_status(at: int) -> dict:
    return request_body(load_bundled("order-status-anthropic").trace, at)


def test_hengxin_round_2_lists_the_question_the_calls_and_both_results_and_keeps_the_system_prompt_apart():
    body = _hengxin(2)
    listed = entries(body)
    assert [(e.kind, e.role) for e in listed] == [("text", "user"), ("json", "assistant"), ("result", "tool"),
                                                  ("result", "tool")]
    assert [e.call_id for e in listed if e.kind == "result"] == ["call_q1", "call_q2"]
    assert '"expense_id": "BX-20261015-0932"' in listed[2].text
    assert system_prompt(body, OPENAI).startswith("You are the internal affairs assistant of Hengxin Bank.")


def test_editing_a_tool_result_changes_that_result_only_and_leaves_the_given_body_alone():
    body = _hengxin(2)
    kept = copy.deepcopy(body)
    result = next(e for e in entries(body) if e.call_id == "call_q2")
    edited, problem = with_entry(body, result, '{"total_limit": 5000.00}')
    assert problem is None and body == kept
    assert edited["messages"][4] == {"role": "tool", "tool_call_id": "call_q2", "content": '{"total_limit": 5000.00}'}
    assert edited["messages"][:4] == body["messages"][:4]


def test_emptying_the_results_empties_every_tool_message_in_openai_and_every_tool_result_block_in_anthropic():
    openai_body = with_results_emptied(_hengxin(2))
    assert [m["content"] for m in openai_body["messages"] if m["role"] == "tool"] == ["", ""]
    anthropic_body = with_results_emptied(_order_status(2))
    blocks = anthropic_body["messages"][-1]["content"]
    assert [(b["tool_use_id"], b["content"]) for b in blocks] == [(b["tool_use_id"], "") for b in blocks]
    assert len(blocks) == 2


def test_a_schema_typed_with_a_number_too_long_or_nesting_too_deep_for_python_is_a_problem_not_a_crash():
    body = _hengxin(1)
    for typed, said in [('{"type": "object", "maxLength": ' + "9" * 5000 + "}",
                         "The schema of the new tool 'lookup' could not be read: it holds a number of more than 4,300 "
                         "digits, past what Python reads."),
                        ('{"type": "object", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                         "The schema of the new tool 'lookup' is not valid JSON: it is nested too deeply to read.")]:
        unchanged, problem = with_added_tool(body, OPENAI, "lookup", "Looks up.", typed)
        assert unchanged is body
        assert problem == said


def test_a_message_edited_as_json_must_stay_a_json_object_and_the_problem_names_it():
    body = _hengxin(2)
    calls = next(e for e in entries(body) if e.kind == "json")
    unchanged, problem = with_entry(body, calls, '{"role": "assistant", oops}')
    assert unchanged is body
    # In our words, as every reader of a log says it (lib.text.json_said), not Python's "Expecting property name
    # enclosed in double quotes at line 1, column 23".
    assert problem == ("messages[2] is not valid JSON (at character 23 of the message: a key is not a string in double "
                       "quotes: unquoted, in single quotes, or after a comma too many).")
    for typed, said in [('{"role": "assistant"', "at the end of the message: cut short: the JSON stops before it is "
                                                 "complete"),
                        ('{"role": "assistant"}\n}', "at line 2, character 1 of the message: more follows after its "
                                                     "one JSON value has ended")]:
        assert with_entry(body, calls, typed)[1] == f"messages[2] is not valid JSON ({said})."
    assert with_entry(body, calls, "  ")[1] == "messages[2] is empty: it must be a JSON object."
    changed, problem = with_entry(body, calls, json.dumps({"role": "assistant", "content": "No calls."}))
    assert problem is None and changed["messages"][2] == {"role": "assistant", "content": "No calls."}


def test_deleting_one_of_two_anthropic_results_keeps_the_other_in_its_user_message():
    body = _order_status(2)
    first = next(e for e in entries(body) if e.kind == "result")
    edited = without_entry(body, first)
    assert len(edited["messages"]) == len(body["messages"])
    assert [b["tool_use_id"] for b in edited["messages"][-1]["content"]] == [
        b["tool_use_id"] for b in body["messages"][-1]["content"][1:]]
    question = entries(body)[0]
    assert len(without_entry(body, question)["messages"]) == len(body["messages"]) - 1


def test_an_added_tool_result_is_written_in_the_dialect_of_the_request():
    assert with_message(_hengxin(1), OPENAI, "tool", "{}", "call_x")["messages"][-1] == {
        "role": "tool", "tool_call_id": "call_x", "content": "{}"}
    assert with_message(_order_status(1), ANTHROPIC, "tool", "{}", "toolu_x")["messages"][-1] == {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "{}"}]}
    assert with_message(_hengxin(1), OPENAI, "user", "And last month?")["messages"][-1] == {
        "role": "user", "content": "And last month?"}


def test_a_message_is_inserted_at_the_position_asked_and_the_rest_move_down():
    body = _hengxin(2)
    kept = copy.deepcopy(body)
    edited = with_message(body, OPENAI, "user", "Check the limit first.", at=3)
    assert body == kept
    assert edited["messages"][3] == {"role": "user", "content": "Check the limit first."}
    assert edited["messages"][:3] + edited["messages"][4:] == body["messages"]
    result = with_message(_order_status(2), ANTHROPIC, "tool", "{}", "toolu_x", at=1)
    assert result["messages"][1] == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x",
                                                                   "content": "{}"}]}
    assert with_message(body, OPENAI, "user", "Last.")["messages"][-1] == {"role": "user", "content": "Last."}


def test_the_system_prompt_is_the_first_message_in_openai_and_the_top_level_field_in_anthropic():
    openai_body = with_system(_hengxin(1), OPENAI, "Be brief.")
    assert openai_body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert len(with_system(_hengxin(1), OPENAI, "")["messages"]) == 1
    anthropic_body = with_system(_order_status(1), ANTHROPIC, "Be brief.")
    assert anthropic_body["system"] == "Be brief." and system_prompt(anthropic_body, ANTHROPIC) == "Be brief."
    assert "system" not in with_system(_order_status(1), ANTHROPIC, "")


def test_a_tool_description_schema_and_strict_flag_are_edited_where_the_dialect_keeps_them():
    body = _hengxin(2)
    names = [t.name for t in tools(body, OPENAI)]
    assert names == ["queryExpense", "queryTravelPolicy", "calcAmountOver", "createExpenseSupplement"]
    edited, problem = with_tool(body, OPENAI, 2, description="Does math.", strict=True)
    assert problem is None
    assert edited["tools"][2]["function"]["description"] == "Does math." and edited["tools"][2]["function"]["strict"]
    assert tools(edited, OPENAI)[2].strict and not tools(body, OPENAI)[2].strict
    _, problem = with_tool(body, OPENAI, 0, schema="[1, 2]")
    assert problem == "The schema of tools[0] must be a JSON object."
    schema = {"type": "object", "properties": {}}
    anthropic_body, _ = with_tool(_order_status(1), ANTHROPIC, 0, schema=json.dumps(schema))
    assert anthropic_body["tools"][0]["input_schema"] == schema


def test_removing_the_write_tool_leaves_three_and_removing_every_tool_drops_the_tool_settings():
    body = _hengxin(3)
    edited = without_tool(body, 3)
    assert [t.name for t in tools(edited, OPENAI)] == ["queryExpense", "queryTravelPolicy", "calcAmountOver"]
    for _ in range(3):
        edited = without_tool(edited, 0)
    assert {"tools", "tool_choice", "parallel_tool_calls"}.isdisjoint(edited)


def test_an_added_tool_needs_a_name_and_a_json_schema():
    body = _order_status(1)
    added, problem = with_added_tool(body, ANTHROPIC, "refund", "Refund an order.", '{"type": "object"}')
    assert problem is None and added["tools"][-1] == {"name": "refund", "description": "Refund an order.",
                                                      "input_schema": {"type": "object"}}
    assert with_added_tool(body, ANTHROPIC, "", "x", "{}") == (body, "A new tool needs a name.")
    assert with_added_tool(body, OPENAI, "refund", "x", "{")[1].startswith("The schema of the new tool 'refund' is not")


def test_tool_choice_and_parallel_calls_are_written_as_each_dialect_writes_them():
    body = _hengxin(4)
    assert settings(body, OPENAI) == ("auto", True)
    forced = with_settings(body, OPENAI, "queryExpense", False)
    assert forced["tool_choice"] == {"type": "function", "function": {"name": "queryExpense"}}
    assert forced["parallel_tool_calls"] is False and settings(forced, OPENAI) == ("queryExpense", False)
    anthropic_body = with_settings(_order_status(1), ANTHROPIC, "required", False)
    assert anthropic_body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert "tool_choice" not in with_settings(anthropic_body, ANTHROPIC, None, None)
    assert with_model(body, "gpt-5-mini")["model"] == "gpt-5-mini" and body["model"] == "DeepSeek-V4-Flash"
