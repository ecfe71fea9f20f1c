"""Pitfall checks: each check fires on a minimal trace that has its pitfall, and stays quiet on a near miss.

The gallery traces each show their own pitfall and no error they do not demonstrate; the four
clean bundled traces have no error or warning.
"""

import dataclasses
import json

import pytest

from lib import catalog
from lib.checks import CHECKS, TOO_MANY_TOOLS, Finding, run_checks
from lib.logs.native import read_trace
from lib.logs.upload import read_upload
from lib.growth import growth
from lib.steps import steps_for_round
from tests.conftest import load_bundled
from tests.screen import FIXTURES

# --- building minimal traces from native lines ---------------------------------------------------

LOOKUP = {"type": "function", "function": {
    "name": "lookup", "description": "Look up one order.",
    "parameters": {"type": "object", "additionalProperties": False, "required": ["order_id"], "properties": {
        "order_id": {"type": "string"}, "status": {"type": "string", "enum": ["open", "closed"]}}}}}
USER = {"role": "user", "content": "Where is order 7?"}
ARGS = '{"order_id": "7"}'


def call(id_, arguments=ARGS, name="lookup"):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


def calls(*made, content=None):
    return {"role": "assistant", "content": content, "tool_calls": list(made)}


def result(id_, content='{"status": "shipped"}'):
    return {"role": "tool", "tool_call_id": id_, "content": content}


def says(text):
    return {"role": "assistant", "content": text}


def model_round(messages, message, tools=(LOOKUP,), finish=None, **more):
    """One round line: the request's messages and tools, and the response's assistant message."""
    finish = finish or ("tool_calls" if message.get("tool_calls") else "stop")
    return {"request": {"messages": list(messages), "tools": list(tools)},
            "response": {"choices": [{"message": message, "finish_reason": finish}]}, **more}


def trace_of(*rounds, dialect="openai-chat"):
    lines = [json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": dialect})]
    lines += [json.dumps({"kind": "round", "index": i, **r}) for i, r in enumerate(rounds, start=1)]
    trace, problems = read_trace(lines)
    assert problems == []
    return trace


def loop(turn, results, final="Order 7 has shipped.", first=None, second=None):
    """Two rounds: the model's turn on the question, then its answer once the results are appended."""
    return trace_of(model_round([USER], turn, **(first or {})),
                    model_round([USER, turn, *results], says(final), **(second or {})))


def found(trace, code):
    return [(f.severity, f.round, f.side, f.path) for f in run_checks(trace) if f.code == code]


def executed(id_, ok=True, arguments=None, **more):
    return {"tool_call_id": id_, "name": "lookup", "arguments": arguments or {"order_id": "7"}, "output": "{}",
            "ok": ok, **more}


# --- the registry ------------------------------------------------------------------------------


def test_every_check_from_the_issue_is_registered_by_its_code():
    assert set(CHECKS) == {
        "missing-tool-result", "orphan-tool-result", "text-with-tool-calls", "empty-tool-result",
        "narration-without-call", "unknown-tool", "invalid-arguments", "truncated-arguments",
        "model-filled-identity", "history-rewritten", "history-inserted", "tools-changed", "too-many-tools", "repeated-call",
        "provider-error", "declined-call", "reused-call-id", "instructions-not-resent", "model-filled-value",
        "write-tool-call", "limit-in-description", "call-sent-twice", "answer-cut-off",
    }


def test_a_finding_is_a_frozen_value_that_says_where_it_is():
    finding = Finding("orphan-tool-result", "error", 2, "request", "messages[3].content", "...")
    assert finding.where == "round 2 request messages[3].content"
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.round = 3


# --- one check at a time -----------------------------------------------------------------------


def test_missing_tool_result_points_at_the_parallel_call_left_unanswered():
    turn = calls(call("call_a"), call("call_b", '{"order_id": "8"}'))
    assert found(loop(turn, [result("call_a")]), "missing-tool-result") == [
        ("error", 2, "request", "messages[1].tool_calls[1]")]
    assert found(loop(turn, [result("call_a"), result("call_b")]), "missing-tool-result") == []


def test_missing_tool_result_when_the_next_request_drops_the_whole_turn_is_a_warning():
    turn = calls(call("call_a"))
    trace = trace_of(model_round([USER], turn), model_round([USER, says("ok"), USER], says("Order 7 shipped.")))
    assert found(trace, "missing-tool-result") == [("warning", 1, "response", "choices[0].message.tool_calls[0]")]


def test_orphan_tool_result_is_a_result_whose_call_no_earlier_message_made():
    turn = calls(call("call_a"))
    assert found(loop(turn, [result("call_a"), result("call_ghost")]), "orphan-tool-result") == [
        ("error", 2, "request", "messages[3].content")]
    assert found(loop(turn, [result("call_a")]), "orphan-tool-result") == []


def test_text_with_tool_calls_is_info_pointing_at_the_text():
    assert found(loop(calls(call("call_a"), content="Checking."), [result("call_a")]), "text-with-tool-calls") == [
        ("info", 1, "response", "choices[0].message.content")]
    assert found(loop(calls(call("call_a"), content=""), [result("call_a")]), "text-with-tool-calls") == []


@pytest.mark.parametrize("content", ["", "null", "[]", "{}", " [ ] ", '""'])
def test_empty_tool_result_flags_empty_null_and_empty_containers(content):
    turn = calls(call("call_a"))
    assert found(loop(turn, [result("call_a", content)]), "empty-tool-result") == [
        ("warning", 2, "request", "messages[2].content")]


@pytest.mark.parametrize("content", ['{"found": false, "searched": "orders"}', "0", "false", "no order 7"])
def test_a_result_that_says_nothing_was_found_is_not_empty(content):
    assert found(loop(calls(call("call_a")), [result("call_a", content)]), "empty-tool-result") == []


def test_narration_without_call_is_an_announced_action_with_no_call_and_no_result_behind_it():
    narrated = trace_of(model_round([USER], says("Sure, let me check order 7 for you.")))
    assert found(narrated, "narration-without-call") == [("warning", 1, "response", "choices[0].message.content")]
    plain = trace_of(model_round([USER], says("Order 7? I need the shop's name first.")))
    assert found(plain, "narration-without-call") == []
    after_a_result = loop(calls(call("call_a")), [result("call_a")], final="Shipped. Let me check again tomorrow.")
    assert found(after_a_result, "narration-without-call") == []


def test_a_request_that_offers_no_tool_has_no_narration_without_call():
    # A grader's call (Inspect's model_graded_qa) sends no tools: "I'll look at what was submitted" is the model
    # reasoning aloud, with no call it could have made. The same words where a tool was offered are narration.
    graded = [{"role": "user", "content": "Grade the answer '4' to 'What is 2+2?'. End with GRADE: C or GRADE: I."}]
    reasoning = says("First I'll look at what was submitted: 4. That is correct.\n\nGRADE: C")
    assert found(trace_of(model_round(graded, reasoning, tools=())), "narration-without-call") == []
    assert found(trace_of(model_round(graded, reasoning)), "narration-without-call") != []
    labels = steps_for_round(trace_of(model_round(graded, reasoning, tools=())), 1)
    assert not [label for label in labels if label.narration]


def test_unknown_tool_is_a_call_to_a_name_the_request_did_not_offer():
    assert found(loop(calls(call("call_a", name="cancel_order")), [result("call_a")]), "unknown-tool") == [
        ("error", 1, "response", "choices[0].message.tool_calls[0]")]
    assert found(loop(calls(call("call_a")), [result("call_a")]), "unknown-tool") == []


def test_a_bad_call_the_program_refused_is_a_warning_not_an_error():
    refused = {"executions": [executed("call_a", ok=False)]}
    trace = loop(calls(call("call_a", name="cancel_order")), [result("call_a")], first=refused)
    assert found(trace, "unknown-tool") == [("warning", 1, "response", "choices[0].message.tool_calls[0]")]


@pytest.mark.parametrize("arguments, says_", [
    ('{"order_id": 7}', "order_id: 7 is not a string"),
    ('{"order_id": null}', "order_id: null is not a string"),
    ("{}", "arguments: the required order_id is missing"),
    ('{"order_id": "7", "status": "lost"}', 'status: "lost" is not one of "open", "closed"'),
    ('{"order_id": "7", "rush": true}', "arguments: rush is not among the parameters it allows"),
    ("{'order_id': '7'}", "not valid JSON"),
])
def test_invalid_arguments_are_not_json_or_break_the_schema(arguments, says_):
    trace = loop(calls(call("call_a", arguments)), [result("call_a")])
    assert found(trace, "invalid-arguments") == [("error", 1, "response", "choices[0].message.tool_calls[0]")]
    assert says_ in next(f.message for f in run_checks(trace) if f.code == "invalid-arguments")


def test_arguments_that_fit_the_schema_are_valid():
    trace = loop(calls(call("call_a", '{"order_id": "7", "status": "open"}')), [result("call_a")])
    assert found(trace, "invalid-arguments") == []


def test_truncated_arguments_are_calls_under_a_length_finish_and_not_also_invalid():
    cut = calls(call("call_a", '{"order_id": "7'))
    trace = loop(cut, [result("call_a")], first={"finish": "length"})
    assert found(trace, "truncated-arguments") == [("error", 1, "response", "choices[0].message.tool_calls[0]")]
    assert found(trace, "invalid-arguments") == []
    assert found(loop(cut, [result("call_a")]), "truncated-arguments") == []


def test_a_call_cut_off_by_the_output_limit_is_truncated_arguments_not_also_a_cut_off_answer():
    cut = calls(call("call_a", '{"order_id": "7'))
    assert found(loop(cut, [result("call_a")], first={"finish": "length"}), "answer-cut-off") == []


def _recorded(name):
    return read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace


def test_an_answer_that_spent_its_whole_output_budget_on_reasoning_is_flagged_with_what_to_do():
    # The Responses chain's round 3: status incomplete, max_output_tokens 64, all 64 reasoning, no answer. The Checks
    # page said "No pitfalls found in this trace."
    trace = _recorded("openai-responses.jsonl")
    (finding,) = [f for f in run_checks(trace) if f.code == "answer-cut-off"]
    assert (finding.severity, finding.round, finding.side, finding.path) == \
        ("warning", 3, "response", "choices[0].finish_reason")
    assert finding.message == (
        "The model ran out of its output budget before it finished (the request gave it max_completion_tokens 64; it "
        "spent all 64 on reasoning): it wrote no answer. The program should not go on as if it had one: raise the "
        "output limit (a reasoning model spends part of it thinking before it writes) and send the request again.")


def test_an_answer_cut_mid_sentence_by_max_tokens_is_flagged_on_every_round_it_happens():
    # Mirascope's Anthropic recording: max_tokens 100, three answers that each end mid-sentence. The last round ends
    # the log, but its answer is no more finished than the others.
    trace = _recorded("containers/mirascope-anthropic-unmarked-as-string.har")
    cut = [f for f in run_checks(trace) if f.code == "answer-cut-off"]
    assert [(f.severity, f.round, f.path) for f in cut] == [("warning", k, "stop_reason") for k in (1, 2, 3)]
    assert cut[0].message.endswith(
        "its text stops where the budget ran out, so it is no finished answer. Do not show it as complete: raise the "
        "output limit, or continue the answer (send it back as the model's turn and ask it to go on).")


def test_a_gemini_answer_cut_off_while_thinking_is_flagged_with_raising_the_limit():
    # pydantic-ai's generateContent recording: maxOutputTokens 5, finishReason MAX_TOKENS, 2 thinking tokens, no part.
    trace = _recorded("containers/pydantic-ai-gemini-max-tokens-thinking-empty.yaml")
    assert [(f.code, f.severity, f.round) for f in run_checks(trace)] == [("answer-cut-off", "warning", 1)]
    assert run_checks(trace)[0].message.endswith("it wrote no answer. The program should not go on as if it had one: "
                                                 "raise the output limit (a reasoning model spends part of it "
                                                 "thinking before it writes) and send the request again.")


def test_a_complete_answer_is_not_flagged_as_cut_off():
    trace = _recorded("openai-responses.jsonl")
    assert [f.round for f in run_checks(trace) if f.code == "answer-cut-off"] == [3]  # round 2 answers in full
    assert found(loop(calls(call("call_a")), [result("call_a")]), "answer-cut-off") == []


def test_reasoning_in_think_tags_beside_the_calls_is_not_advised_to_be_shown_to_the_person():
    # hermes-agent's kimi-k2.6 writes `<think>` text beside each <tool_call>: the model reasoning before it acts, not
    # an answer. The finding told the reader to "show it to the person".
    upload = read_upload([("h.jsonl", (FIXTURES / "sharegpt-hermes-agent.jsonl").read_bytes())])
    said = [f.message for c in upload.conversations for f in run_checks(c.trace) if f.code == "text-with-tool-calls"]
    assert len(said) == 5
    assert all("show it to the person" not in message for message in said)
    assert set(said) == {
        "The model wrote reasoning, in <think> tags, beside its tool calls. It is not an answer for the person: do not "
        "show it as one. A client that reads only the calls loses it; send it back with the calls where the model's "
        "chat format keeps earlier reasoning."}


def test_text_beside_the_calls_after_reasoning_in_think_tags_is_the_part_to_show():
    said = next(f.message for f in run_checks(loop(calls(call("call_a"), content="<think>Look it up.</think>Checking."),
                                                   [result("call_a")])) if f.code == "text-with-tool-calls")
    assert said == ("The model wrote text beside its tool calls, after reasoning in <think> tags. That is legal, but a "
                    "client that reads only the calls loses it: show the person the text outside the tags (the "
                    "reasoning is not an answer for them) and send it all back with the calls in the next request.")


WHO = {"type": "function", "function": {"name": "lookup", "description": "Look up the caller's orders.", "parameters": {
    "type": "object", "properties": {
        "order_id": {"type": "string", "description": "The order to look up."},
        "caller": {"type": "string", "description": "Who is asking; supplied by the application."}}}}}


def test_model_filled_identity_is_a_warning_when_the_program_ran_the_models_value():
    turn = calls(call("call_a", '{"order_id": "7", "customerId": "C-1"}'))
    ran = {"executions": [executed("call_a", arguments={"order_id": "7", "customerId": "C-1"})]}
    assert found(loop(turn, [result("call_a")], first=ran), "model-filled-identity") == [
        ("warning", 1, "response", "choices[0].message.tool_calls[0]")]


def test_model_filled_identity_recognizes_a_description_that_says_the_application_supplies_it():
    turn = calls(call("call_a", '{"order_id": "7", "caller": "C-1"}'))
    assert found(loop(turn, [result("call_a")], first={"tools": [WHO]}, second={"tools": [WHO]}),
                 "model-filled-identity") == [("warning", 1, "response", "choices[0].message.tool_calls[0]")]
    plain = calls(call("call_a", '{"order_id": "7"}'))
    assert found(loop(plain, [result("call_a")], first={"tools": [WHO]}, second={"tools": [WHO]}),
                 "model-filled-identity") == []


@pytest.mark.parametrize("execution", [
    executed("call_a", arguments={"user_id": "U-1"}, overrides={"user_id": "U-1"}),
    executed("call_a", arguments={"user_id": "U-9"}),
])
def test_model_filled_identity_is_info_when_the_program_used_its_own_value(execution):
    turn = calls(call("call_a", '{"user_id": "U-1"}'))
    trace = loop(turn, [result("call_a")], first={"executions": [execution]})
    assert found(trace, "model-filled-identity") == [("info", 1, "response", "choices[0].message.tool_calls[0]")]


def test_hengxin_records_that_the_program_overrode_user_id_and_without_that_record_it_is_a_warning(hengxin):
    assert hengxin.rounds[0].executions[0].overrides == {"user_id": "E10238"}
    lines = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_text(encoding="utf-8").splitlines()
    round_1 = json.loads(lines[1])
    del round_1["executions"][0]["overrides"]
    lines[1] = json.dumps(round_1, ensure_ascii=False)
    trace, _ = read_trace(lines)
    assert found(trace, "model-filled-identity") == [("warning", 1, "response", "choices[0].message.tool_calls[0]")]


def test_history_rewritten_is_a_resent_message_that_changed_or_history_dropped():
    answered = [USER, says("Order 7 shipped.")]
    second = {"role": "user", "content": "And order 8?"}
    edited = trace_of(model_round([USER], answered[1]),
                      model_round([{"role": "user", "content": "Where is order 9?"}, answered[1], second], says("?")))
    assert found(edited, "history-rewritten") == [("warning", 2, "request", "messages[0]")]
    dropped = trace_of(model_round(answered + [second], says("Order 8 too.")), model_round([USER], says("?")))
    assert found(dropped, "history-rewritten") == [("warning", 2, "request", "messages")]
    grown = trace_of(model_round([USER], answered[1]), model_round(answered + [second], says("Order 8 too.")))
    assert found(grown, "history-rewritten") == []


def test_other_instructions_alone_are_said_as_such_not_as_a_history_the_model_did_not_write():
    triage = {"role": "system", "content": "Route the question to the right agent."}
    tutor = {"role": "system", "content": "Answer history questions."}
    answered = says("Order 7 shipped.")
    handed_off = trace_of(model_round([triage, USER], answered),
                          model_round([tutor, USER, answered, {"role": "user", "content": "And 8?"}], says("?")))
    assert found(handed_off, "history-rewritten") == [("info", 2, "request", "messages[0]")]
    both = trace_of(model_round([triage, USER], answered),
                    model_round([tutor, {"role": "user", "content": "Where is order 9?"}, answered], says("?")))
    assert found(both, "history-rewritten") == [("warning", 2, "request", "messages[0]")]


def test_a_call_written_out_as_text_is_said_so_only_where_its_id_is_in_the_text_and_long_enough_to_tell():
    def missing(call_id, sent_back):
        trace = trace_of(model_round([USER], calls(call(call_id))),
                         model_round([USER, says(sent_back), {"role": "user", "content": "Observation: shipped"}],
                                     says("Order 7 has shipped.")))
        return [f.message for f in run_checks(trace) if f.code == "missing-tool-result"][0]
    assert "names the call in its text" in missing("call_nxuBkOloEPe9", "Calling tools: [{'id': 'call_nxuBkOloEPe9'}]")
    assert "rewritten without it" in missing("0", "Looking up order 70 now.")


def test_history_rewritten_catches_the_text_beside_a_call_dropped_on_the_way_back():
    written = calls(call("call_a"), content="Checking order 7.")
    sent_back = calls(call("call_a"))
    trace = trace_of(model_round([USER], written), model_round([USER, sent_back, result("call_a")], says("Shipped.")))
    assert found(trace, "history-rewritten") == [("warning", 2, "request", "messages[1]")]
    assert found(loop(written, [result("call_a")]), "history-rewritten") == []


def test_a_request_that_leaves_its_instructions_out_is_checked_past_the_messages_it_resends():
    # The program asks again from the run's messages without the system message (pydantic-ai does), and sends back the
    # model's last turn without the text the model wrote beside its call. The user read only "This request resends
    # round 2's messages without the instructions they began with": the turn was looked for at messages[4], where
    # round 2's request ended, not at messages[3], where this request sends it back.
    instructions = {"role": "system", "content": "You answer questions about orders."}
    first, second = calls(call("c1"), content="Checking order 7."), calls(call("c2", '{"order_id": "8"}'),
                                                                          content="Now order 8.")
    asked = [model_round([instructions, USER], first), model_round([instructions, USER, first, result("c1")], second)]

    def findings(*messages):
        return [(f.code, f.severity, f.path, f.message) for f in run_checks(trace_of(*asked, model_round(
            [USER, first, result("c1"), *messages], says("Both have shipped.")))) if f.round == 3]
    left_out = ("history-rewritten", "warning", "messages",
                "This request resends round 2's messages without the instructions they began with (the system "
                "message); the 3 other messages are resent unchanged. The model answers this round without those "
                "instructions, and the prompt cache starts again. If the model should keep following them, send them "
                "with every request.")
    assert findings(second, result("c2")) == [left_out]
    assert findings(calls(call("c2", '{"order_id": "8"}')), result("c2")) == [left_out, (
        "history-rewritten", "warning", "messages[3]",
        "The assistant turn sent back here is not what the model wrote in round 2: the text the model wrote beside its "
        "calls is left out. Send the turn back as received, text beside the calls included.")]
    # What follows the resent messages is read as new, as growth reads it: a result for no call, a call with none.
    assert [f[:3] for f in findings(second, result("c2"), result("c9"))] == [
        ("orphan-tool-result", "error", "messages[5].content"), left_out[:3]]
    assert [f[:3] for f in findings(second, {"role": "user", "content": "Well?"})] == [
        ("missing-tool-result", "error", "messages[3].tool_calls[0]"), left_out[:3]]


def test_tools_changed_is_info_on_the_round_whose_tool_list_differs():
    extra = {"type": "function", "function": {"name": "track", "description": "Track a parcel.", "parameters": {}}}
    changed = loop(calls(call("call_a")), [result("call_a")], second={"tools": [LOOKUP, extra]})
    assert found(changed, "tools-changed") == [("info", 2, "request", "tools")]
    assert "added track" in next(f.message for f in run_checks(changed) if f.code == "tools-changed")
    assert found(loop(calls(call("call_a")), [result("call_a")]), "tools-changed") == []


def _tools(count):
    return [{"type": "function", "function": {"name": f"tool_{n}", "description": "", "parameters": {}}}
            for n in range(count)]


def test_too_many_tools_is_reported_once_for_a_list_longer_than_ten():
    many = _tools(TOO_MANY_TOOLS + 1)
    trace = loop(says("?"), [], first={"tools": many}, second={"tools": many})
    assert found(trace, "too-many-tools") == [("warning", 1, "request", "tools")]
    enough = _tools(TOO_MANY_TOOLS)
    assert found(loop(says("?"), [], first={"tools": enough}, second={"tools": enough}), "too-many-tools") == []


def test_repeated_call_is_the_same_tool_and_arguments_a_third_time():
    def rounds_calling(arguments):
        history, rounds = [USER], []
        for n, args in enumerate(arguments):
            turn = calls(call(f"call_{n}", args))
            rounds.append(model_round(history, turn))
            history = history + [turn, result(f"call_{n}")]
        return trace_of(*rounds, model_round(history, says("Done.")))

    same = '{"order_id": "7"}'
    assert found(rounds_calling([same, same, same]), "repeated-call") == [
        ("warning", 3, "response", "choices[0].message.tool_calls[0]")]
    assert found(rounds_calling([same, same]), "repeated-call") == []
    assert found(rounds_calling([same, '{"order_id": "8"}', same]), "repeated-call") == []


def _error_round(messages, error):
    return {"request": {"messages": messages}, "error": error}


@pytest.mark.parametrize("error, path", [
    ({"status": 400, "body": {"error": {"message": "An assistant message with 'tool_calls' must be followed by tool "
                                        "messages responding to each 'tool_call_id'.", "param": "messages.[1].role",
                                        "type": "invalid_request_error", "code": None}}}, "messages[1]"),
    ({"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message":
                              "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                              "call_b"}}}, "messages[1]"),
    ({"status": 400, "body": {"error": {"message": "No response message for call_b."}}}, "messages[1]"),
    ({"status": 500, "body": {"error": {"message": "The server had an error."}}}, ""),
    ({"status": None, "message": "connection reset"}, ""),
])
def test_provider_error_points_at_the_message_the_error_text_names(error, path):
    turn = calls(call("call_a"), call("call_b", '{"order_id": "8"}'))
    trace = trace_of(model_round([USER], turn), _error_round([USER, turn, result("call_a")], error))
    assert ("error", 2, "request", path) in found(trace, "provider-error")
    assert found(loop(turn, [result("call_a"), result("call_b")]), "provider-error") == []


def test_declined_call_is_info_on_the_execution():
    declined = {"executions": [executed("call_a", ok=False, approval="declined")]}
    assert found(loop(calls(call("call_a")), [result("call_a")], first=declined), "declined-call") == [
        ("info", 1, "execution", "executions[0]")]
    approved = {"executions": [executed("call_a", approval="approved")]}
    assert found(loop(calls(call("call_a")), [result("call_a")], first=approved), "declined-call") == []


def test_anthropic_results_are_checked_block_by_block():
    use = {"type": "tool_use", "id": "toolu_a", "name": "lookup", "input": {"order_id": "7"}}
    turn = {"role": "assistant", "content": [use]}
    blocks = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "[]"},
                                          {"type": "tool_result", "tool_use_id": "toolu_ghost", "content": "1"}]}
    tools = [{"name": "lookup", "input_schema": {"type": "object"}}]
    trace = trace_of(
        {"request": {"messages": [USER], "tools": tools}, "response": {"content": [use], "stop_reason": "tool_use"}},
        {"request": {"messages": [USER, turn, blocks], "tools": tools},
         "response": {"content": [{"type": "text", "text": "Nothing found."}], "stop_reason": "end_turn"}},
        dialect="anthropic-messages")
    assert found(trace, "empty-tool-result") == [("warning", 2, "request", "messages[2].content[0]")]
    assert found(trace, "orphan-tool-result") == [("error", 2, "request", "messages[2].content[1]")]


# --- the bundled traces ------------------------------------------------------------------------

CLEAN = ["hengxin-expense", "larkfield-get-order", "order-status-anthropic", "loan-calculator"]

GALLERY = {
    "unanswered-parallel-call": {("error", "missing-tool-result"), ("error", "provider-error")},
    "empty-result-invented-answer": {("warning", "empty-tool-result")},
    "narration-without-call": {("warning", "narration-without-call"), ("info", "text-with-tool-calls")},
    "wrong-tool-declined": {("info", "declined-call"), ("info", "write-tool-call")},
    "invalid-arguments-corrected": {("warning", "invalid-arguments"), ("info", "write-tool-call"),
                                    ("info", "model-filled-value")},
    "model-filled-employee-id": {("warning", "model-filled-identity"), ("info", "model-filled-value")},
}


@pytest.mark.parametrize("name", CLEAN)
def test_the_clean_bundled_traces_have_no_error_or_warning(name):
    assert [f for f in run_checks(load_bundled(name).trace) if f.severity != "info"] == []


def test_hengxin_has_notes_only_the_overridden_user_id_the_filled_values_and_the_write_tool():
    assert [(f.code, f.severity, f.round) for f in run_checks(load_bundled("hengxin-expense").trace)] == [
        ("model-filled-identity", "info", 1), ("model-filled-value", "info", 1), ("model-filled-value", "info", 1),
        ("limit-in-description", "info", 3), ("write-tool-call", "info", 3)]


@pytest.mark.parametrize("stem", GALLERY)
def test_each_gallery_trace_shows_its_own_pitfall_and_nothing_else(stem):
    loaded = load_bundled(f"pitfalls/{stem}")
    assert loaded.problems == ()
    assert {(f.severity, f.code) for f in run_checks(loaded.trace)} == GALLERY[stem]


@pytest.mark.parametrize("stem", GALLERY)
def test_each_gallery_trace_explains_itself_and_resends_its_history_unchanged(stem):
    trace = load_bundled(f"pitfalls/{stem}").trace
    assert trace.description and trace.title.startswith("Pitfall: ")
    explanation = trace.header["explanation"]
    assert all(part in explanation for part in ("What happened:", "What the model saw:", "The fix:"))
    for k in range(2, len(trace.rounds) + 1):
        placed = growth(trace, k)
        assert placed.changed == () and placed.dropped == 0


def test_the_gallery_is_bundled_after_the_top_level_traces_in_both_dialects():
    names = [t.name for t in catalog.bundled_traces()]
    gallery = [n for n in names if n.startswith("pitfalls/")]
    assert sorted(gallery) == sorted(f"pitfalls/{stem}" for stem in GALLERY)
    assert names[-len(gallery):] == gallery and names[0] == catalog.FIRST_TRACE
    dialects = {load_bundled(n).trace.dialect for n in gallery}
    assert dialects == {"openai-chat", "anthropic-messages"}


def test_the_unanswered_call_is_pinned_to_the_call_and_the_error_to_its_message():
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    unanswered = trace.rounds[0].tool_calls[1].id
    by_code = {f.code: f for f in run_checks(trace)}
    assert by_code["missing-tool-result"].where == "round 2 request messages[2].tool_calls[1]"
    assert unanswered in by_code["missing-tool-result"].message
    assert by_code["provider-error"].where == "round 2 request messages[2]"
    assert unanswered in trace.rounds[1].error.message


@pytest.mark.parametrize("schema", [
    {"$schema": {"not": "a uri"}},
    {"type": "grammar", "syntax": "lark", "definition": "start: WORD"},
    {"type": "object", "properties": {"order_id": {"$ref": "#/nowhere"}}},
])
def test_a_schema_the_checks_cannot_use_is_skipped_not_fatal(schema):
    tool = {"type": "function", "function": {"name": "lookup", "parameters": schema}}
    trace = loop(calls(call("call_a")), [result("call_a")], first={"tools": [tool]}, second={"tools": [tool]})
    assert found(trace, "invalid-arguments") == []


def test_the_step_labels_call_a_narration_what_the_narration_check_calls_it():
    trace = load_bundled("pitfalls/narration-without-call").trace
    flagged = {f.round for f in run_checks(trace) if f.code == "narration-without-call"}
    labelled = {r.index for r in trace.rounds for lab in steps_for_round(trace, r.index) if lab.narration}
    assert flagged == labelled == {1}
    assert all(lab.title != "Model answers" for lab in steps_for_round(trace, 1))


# --- values the model filled in, and tools that change things ------------------------------------


def test_hengxin_job_level_p6_and_city_tier_2_are_marked_as_filled_by_the_model(hengxin):
    filled = {f.where: f.message for f in run_checks(hengxin) if f.code == "model-filled-value"}
    travel = filled["round 1 response choices[0].message.tool_calls[1]"]
    # city_tier "2" is one of the schema's values, nothing says which; P6 is the example in job_level's description.
    assert travel.startswith('The model filled city_tier "2" in the queryTravelPolicy call itself: it appears in no '
                             "earlier message as written")
    assert ('job_level "P6" (job_level\'s description: "Job level code, in the form P6, P7") is in the tool '
            "definition sent with the request, though no earlier message says it: the model may have taken it from "
            "there, not from the person or a tool result.") in travel
    # The subject is the value, not the parameter: "2" is one of city_tier's values.
    assert '"2" is one of the values city_tier allows, but nothing in the conversation says which.' in travel
    assert "city_tier is one of the values" not in travel
    # Each value's source is said with the values, before the advice that closes the finding, not tacked on after it.
    assert travel.index('job_level "P6"') < travel.index("A value the program knows should come from the program")
    assert travel.endswith("one nobody gave, the model should ask the person for.")
    # user_id is identity: model-filled-identity speaks of it, once, not this check.
    assert "user_id" not in filled.get("round 1 response choices[0].message.tool_calls[0]", "")
    # Round 2 copies 3860.00 and 3800.00 from the results, round 3 the ticket number: nothing invented there.
    assert [where for where in filled if not where.startswith("round 1 ")] == []


def test_hengxins_status_submitted_is_the_default_the_tool_description_documents_not_a_value_made_up(hengxin):
    # queryExpense's status parameter: "Filter by status; defaults to submitted". The model used that default.
    [query] = [f for f in run_checks(hengxin)
               if f.code == "model-filled-value" and f.where == "round 1 response choices[0].message.tool_calls[0]"]
    assert query.severity == "info"
    # The schema gives status no default: the words of its description do, and the finding names them, not the schema.
    assert query.message == ('The model filled status "submitted" in the queryExpense call with the default its '
                             "description states in words (status's description: \"Filter by status; defaults to "
                             "submitted\"): the tool definition says it, though no earlier message does.")
    assert query.brief == 'The default its description states: status "submitted"'
    assert "schema" not in query.message + query.brief
    assert "made it up" not in query.message and "nothing in the conversation says which" not in query.message


def test_hengxins_user_id_is_said_to_be_the_example_in_its_parameters_description(hengxin):
    # "Employee ID, in the form E10238, ...": the model wrote the description's example. The program overrode it
    # with the login session's id, which is E10238 too; the finding may not hide where the model's value came from.
    [identity] = [f for f in run_checks(hengxin) if f.code == "model-filled-identity"]
    assert identity.severity == "info"
    assert ('"E10238" is in the tool definition sent with the request (user_id\'s description: "Employee ID, in the '
            'form E10238, obtained from the login session; do…"), though no earlier message says it: the model may '
            'have taken it from there. "E10238" is the definition\'s example, not an id anyone gave it.') in (
        identity.message)


def test_hengxins_identity_lesson_and_execution_note_say_e10238_is_the_descriptions_example(hengxin):
    [lesson] = [lesson for lesson in hengxin.lessons if lesson.title == "Identity comes from the program"]
    assert "the example in the parameter's description" in lesson.text
    note = hengxin.rounds[0].executions[0].note
    assert "happened to match" not in note and "the model's copied from its parameter's description" in note


@pytest.mark.parametrize("parameter, where", [
    ({"type": "string", "examples": ["EU-WEST"]}, "region's examples"),
    ({"type": "string", "description": "Region code such as EU-WEST"},
     'region\'s description: "Region code such as EU-WEST"'),
    ({"type": "string"}, 'the tool\'s description: "Look up one order in EU-WEST."'),
])
def test_a_value_the_tool_definition_holds_is_said_to_come_from_it(parameter, where):
    tool = {"type": "function", "function": {"name": "lookup", "description": "Look up one order in EU-WEST.",
                                             "parameters": {"type": "object", "properties": {
                                                 "order_id": {"type": "string"}, "region": parameter}}}}
    if "examples" in parameter or "description" in parameter:
        tool["function"]["description"] = "Look up one order."
    turn = calls(call("call_a", '{"order_id": "7", "region": "EU-WEST"}'))
    trace = loop(turn, [result("call_a")], first={"tools": [tool]}, second={"tools": [tool]})
    [finding] = [f for f in run_checks(trace) if f.code == "model-filled-value"]
    assert finding.severity == "info"
    assert finding.message.startswith(f'The model filled region "EU-WEST" ({where}) in the lookup call with a value '
                                      "the tool definition sent with the request holds, though no earlier message "
                                      "says it")
    assert finding.brief == 'In the tool definition: region "EU-WEST"'
    assert "made it up" not in finding.message


def test_values_the_model_may_have_read_from_the_persons_other_words_are_not_said_to_be_invented():
    # invalid-arguments-corrected: the person asked for "tomorrow at 10 for an hour, six of us" and the
    # instructions give today's date; the call's date, start and duration are a reading of those words, which the
    # check cannot follow. The finding said they were "not the person's words"; it must leave both readings open.
    trace = load_bundled("pitfalls/invalid-arguments-corrected").trace
    messages = [f.message for f in run_checks(trace) if f.code == "model-filled-value"]
    assert messages and all("not the person's words" not in m for m in messages)
    assert all("read" in m and "from something said another way" in m and "cannot tell which" in m for m in messages)



def test_the_ways_of_saying_a_value_are_given_as_examples_not_as_words_of_this_conversation(hengxin):
    # Hengxin's employee never wrote "tomorrow" nor "for an hour": bare in quotes after status "submitted", they read
    # as words of this conversation. Said as examples of a day and a length, they fit every trace.
    messages = [f.message for f in run_checks(hengxin) if f.code == "model-filled-value"]
    assert messages and all('another way ("tomorrow"' not in m for m in messages)
    # status "submitted" is the documented default: only city_tier "2" is a value the model may have read that way.
    assert [m for m in messages if 'said another way (a day as "tomorrow", a length as "for an hour")' in m] == [
        m for m in messages if "city_tier" in m]

@pytest.mark.parametrize("arguments, results, expected", [
    ('{"order_id": "7"}', [], []),                                    # the user's words
    ('{"order_id": "7", "status": "closed"}', [], ['status "closed"']),  # an allowed value nobody asked for
    ('{"order_id": "7", "note": "The customer would like a call back tomorrow morning"}', [], []),  # prose
])
def test_model_filled_value_flags_a_short_value_no_earlier_message_holds(arguments, results, expected):
    turn = calls(call("call_a", arguments))
    trace = loop(turn, [result("call_a")])
    messages = [f.message for f in run_checks(trace) if f.code == "model-filled-value"]
    assert [e for e in expected if any(e in m for m in messages)] == expected
    assert len(messages) == (1 if expected else 0)


def test_a_value_the_schema_gives_as_its_default_is_said_to_be_the_default_not_unsaid():
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"order_id": {"type": "string"}, "unit": unit}}}}
    said = {}
    for value in ("celsius", "fahrenheit"):
        turn = calls(call("call_a", f'{{"order_id": "7", "unit": "{value}"}}'))
        trace = loop(turn, [result("call_a")], first={"tools": [tool]}, second={"tools": [tool]})
        [said[value]] = [f for f in run_checks(trace) if f.code == "model-filled-value"]
    assert said["celsius"].message == ('The model filled unit "celsius" in the lookup call with the default the '
                                       "tool's schema gives: the tool definition says it, though no earlier message "
                                       "does.")
    assert said["celsius"].brief == 'The schema\'s default: unit "celsius"'
    assert '"fahrenheit" is one of the values unit allows, but nothing in the conversation says which' \
        in said["fahrenheit"].message


def test_a_number_from_a_tool_result_is_copied_not_filled_whatever_its_formatting():
    first = calls(call("call_a"))
    copied = calls(call("call_b", '{"order_id": "7", "amount": 250000}'))
    trace = trace_of(model_round([USER], first),
                     model_round([USER, first, result("call_a", '{"total": "$250,000.00"}')], copied),
                     model_round([USER, first, result("call_a", '{"total": "$250,000.00"}'), copied,
                                  result("call_b")], says("Done.")))
    assert found(trace, "model-filled-value") == []


def test_a_rate_given_as_a_percentage_is_copied_when_the_call_writes_it_as_a_fraction():
    asked = {"role": "user", "content": "A $250,000 loan at 6.5% for 30 years: what is the payment?"}
    for rate, flagged in (("0.065", []), ("0.07", ['rate 0.07'])):
        turn = calls(call("call_a", f'{{"rate": {rate}}}'))
        trace = trace_of(model_round([asked], turn), model_round([asked, turn, result("call_a")], says("Done.")))
        messages = [f.message for f in run_checks(trace) if f.code == "model-filled-value"]
        assert [word for word in flagged if any(word in m for m in messages)] == flagged and len(messages) == len(flagged)



def test_a_date_the_model_wrote_in_iso_form_from_the_persons_words_is_not_filled():
    # Recorded Bedrock Converse: the person asked about "1st January 2022"; the model called temperature with
    # date "2022-01-01", the same day as the schema's `format: date` wants it. A day nobody named is still flagged.
    data = (FIXTURES / "bedrock-converse.jsonl").read_bytes()
    trace = read_upload([("bedrock-converse.jsonl", data)]).conversations[0].trace
    assert found(trace, "model-filled-value") == []
    other_day = read_upload([("moved.jsonl", data.replace(b'"date": "2022-01-01"', b'"date": "2022-01-02"'))])
    messages = [f.message for f in run_checks(other_day.conversations[0].trace) if f.code == "model-filled-value"]
    assert any('date "2022-01-02"' in m for m in messages)



def test_a_response_whose_request_the_log_did_not_keep_has_no_filled_value_said_to_be_in_no_earlier_message():
    # A log of bare Chat Completions responses: the model called get_weather for Oslo and Rome, but the request
    # that asked it is not in the log. Nothing says whether the person named the city, so nothing is flagged.
    data = (FIXTURES / "bare-responses.jsonl").read_bytes()
    (first, *_) = read_upload([("bare-responses.jsonl", data)]).conversations
    assert not first.trace.rounds[0].request_recorded and first.trace.rounds[0].tool_calls
    assert found(first.trace, "model-filled-value") == []

BOOK = {"type": "function", "function": {"name": "bookRoom", "description": "Book a room.", "parameters": {
    "type": "object", "properties": {"order_id": {"type": "string"}}}}}
# The OpenAI Agents SDK's own description of a handoff, and tau-bench's transfer to a person (its real description).
HANDOFF = {"type": "function", "function": {"name": "transfer_to_billing_agent", "parameters": {"type": "object"},
                                            "description": "Handoff to the Billing agent to handle the request. "}}
TO_HUMAN = {"type": "function", "function": {"name": "transfer_to_human_agents", "parameters": {"type": "object"},
                                             "description": "Transfer the user to a human agent, with a summary of the "
                                                            "user's issue. Only transfer if the user explicitly asks "
                                                            "for a human agent, or if the user's issue cannot be "
                                                            "resolved by the agent with the available tools."}}


@pytest.mark.parametrize("tools, header, writes", [
    ([BOOK], {}, ["bookRoom"]),                                     # the name says it: book…
    ([LOOKUP], {}, []),                                             # a lookup changes nothing
    ([LOOKUP], {"tool_effects": {"lookup": "write"}}, ["lookup"]),  # the trace says so
    ([BOOK], {"tool_effects": {"bookRoom": "read"}}, []),           # …and the trace overrides the name
    ([HANDOFF], {}, []),                                            # another agent takes over: nothing changes
    ([TO_HUMAN], {}, ["transfer_to_human_agents"]),                 # a person is brought in: that is an action
])
def test_a_write_tool_call_is_marked_with_where_a_persons_approval_belongs(tools, header, writes):
    name = tools[0]["function"]["name"]
    turn = calls(call("call_a", name=name))
    lines = [json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat", **header})]
    lines += [json.dumps({"kind": "round", "index": i, **r}) for i, r in enumerate(
        [model_round([USER], turn, tools=tools), model_round([USER, turn, result("call_a")], says("Done."), tools=tools)],
        start=1)]
    trace, problems = read_trace(lines)
    assert problems == []
    marked = [f for f in run_checks(trace) if f.code == "write-tool-call"]
    assert [name for f in marked if name in f.message] == writes
    for f in marked:
        assert (f.severity, f.where) == ("info", "round 1 response choices[0].message.tool_calls[0]")
        assert "a person approves it between the call intent (step 2) and the program running it (step 3)" in f.message
        assert "The trace records no approval." in f.message


def test_hengxin_round_3_create_expense_supplement_is_a_write_tool(hengxin):
    marked = [f for f in run_checks(hengxin) if f.code == "write-tool-call"]
    assert [(f.round, f.severity) for f in marked] == [(3, "info")]
    assert "createExpenseSupplement changes something" in marked[0].message


@pytest.mark.parametrize("status, said", [
    (400, "The provider refused this request with HTTP 400."),
    (429, "This call failed with HTTP 429. Its words: \"Slow down.\" No response came back, and the status is the "
          "provider's trouble, not the request's: send it again after a pause."),
    (503, "This call failed with HTTP 503."),
    (None, "the log does not say whether the request was at fault"),
])
def test_a_provider_error_blames_the_request_only_for_a_status_that_does(status, said):
    error = {"status": status, "body": {"error": {"message": "Slow down."}}, "message": "Slow down."}
    trace = trace_of(_error_round([USER], error))
    [finding] = [f for f in run_checks(trace) if f.code == "provider-error"]
    assert said in finding.message
    assert ("fix the request" in finding.message) == (status == 400)


def test_a_call_roundtrip_refused_to_send_is_no_providers_error():
    # What live mode writes when a base URL typed on a shared server leads inside its network: nothing was sent.
    said = "The base URL's host localhost is inside this server's network."
    error = {"status": None, "message": said, "body": {"error": {"type": "refused_before_sending", "message": said}}}
    assert [f for f in run_checks(trace_of(_error_round([USER], error))) if f.code == "provider-error"] == []


@pytest.mark.parametrize("fixture", ["anthropic-stream.jsonl", "openai-chat-stream.jsonl"])
def test_a_stream_cut_inside_the_arguments_is_said_to_be_cut_not_the_models_bad_json(fixture):
    # Conversation 3 ends inside get_weather's arguments: the model did not write bad JSON, the stream was cut.
    upload = read_upload([(fixture, (FIXTURES / fixture).read_bytes())])
    trace = upload.conversations[2].trace
    found = {f.code: f for f in run_checks(trace)}
    assert "invalid-arguments" not in found
    cut = found["truncated-arguments"]
    assert "The recording ends" in cut.message and "get_weather" in cut.message
    assert "correct" not in cut.message and "output limit" not in cut.message
    assert cut.where == "round 1 response " + ("content[0]" if fixture.startswith("anthropic") else
                                               "choices[0].message.tool_calls[0]")


@pytest.mark.parametrize("fixture", ["anthropic-stream.jsonl", "openai-chat-stream.jsonl"])
def test_a_recording_that_ends_mid_call_is_a_warning_about_the_recording_not_an_error_of_a_call_that_ran(fixture):
    # Conversation 3's chunks end inside get_weather's arguments, and nothing after them: the log cannot say whether
    # the program's own stream was cut there too, nor whether it ran the call. It was an error, as for a bad call the
    # program ran, and said "Do not run it" as though it had.
    trace = read_upload([(fixture, (FIXTURES / fixture).read_bytes())]).conversations[2].trace
    [cut] = [f for f in run_checks(trace) if f.code == "truncated-arguments"]
    assert cut.severity == "warning"
    assert cut.message == (
        "The recording ends while the model was writing this get_weather call, before its arguments closed: the "
        "arguments shown are cut short by the recording, not written wrong by the model. The log does not show "
        "whether the program got the rest of the stream, and nothing in it shows the program ran the call. A call "
        "whose stream is cut like this should not be run: send the request again.")


def test_a_call_the_recording_cut_that_the_log_shows_run_is_an_error():
    # The same recording, with the program's run of the cut call recorded beside it (as a native trace holds it).
    from lib.model import Execution
    trace = read_upload([("a.jsonl", (FIXTURES / "anthropic-stream.jsonl").read_bytes())]).conversations[2].trace
    first = trace.rounds[0]
    [call] = first.cut_calls
    ran = dataclasses.replace(first, executions=(Execution(call.id, call.name, call.arguments, "12 C"),))
    [cut] = [f for f in run_checks(dataclasses.replace(trace, rounds=(ran,))) if f.code == "truncated-arguments"]
    assert cut.severity == "error"
    assert "yet the program ran the call: if its stream was cut here too, it ran arguments the model never finished" \
        in cut.message


def test_a_cut_stream_saved_as_a_trace_file_and_read_back_is_still_said_to_be_cut():
    # A kept trace (the library, a download) is the native format: the mark travels with the round.
    from lib.logs.native import write_trace
    fixture = "anthropic-stream.jsonl"
    trace = read_upload([(fixture, (FIXTURES / fixture).read_bytes())]).conversations[2].trace
    again, problems = read_trace(list(write_trace(trace)))
    assert not problems
    assert [f.code for f in run_checks(again) if "arguments" in f.code] == ["truncated-arguments"]


def test_text_beside_calls_that_the_next_request_carries_back_is_said_to_be_carried_back():
    # anthropic-pairs.jsonl's first answer writes text beside its call, and the second request resends that turn whole;
    # anthropic-stream.jsonl's answer has no request after it: there the advice to send it back stands.
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES

    def said(name: str) -> str:
        conversations = read_upload([(name, (FIXTURES / name).read_bytes())]).conversations
        return next(f.message for c in conversations for f in run_checks(c.trace) if f.code == "text-with-tool-calls")

    assert "the next request in the log carries it back with the calls, as it should" in said("anthropic-pairs.jsonl")
    assert "send it back with the calls in the next request" in said("anthropic-stream.jsonl")


def test_hengxins_reason_breaks_the_limit_its_description_states_in_words_and_no_schema_catches_it(hengxin):
    # The article's createExpenseSupplement asks for a reason "no more than 50 characters" in its description only;
    # the model wrote 109, and the schema, which has no maxLength, passes it.
    [limit] = [f for f in run_checks(hengxin) if f.code == "limit-in-description"]
    assert (limit.severity, limit.where) == ("info", "round 3 response choices[0].message.tool_calls[0]")
    assert limit.message.startswith("createExpenseSupplement's reason is 109 characters, and its description "
                                    "allows 50.")
    assert '"maxLength": 50' in limit.message
    assert [f for f in run_checks(hengxin) if f.code == "invalid-arguments"] == []


def _noted(description, value, **schema):
    tool = {"type": "function", "function": {"name": "note", "description": "Keep a note.", "parameters": {
        "type": "object", "properties": {"text": {"type": "string", "description": description, **schema}}}}}
    turn = calls(call("c1", json.dumps({"text": value}), name="note"))
    return found(trace_of(model_round([USER], turn, tools=(tool,))), "limit-in-description")


def test_a_limit_in_words_is_said_only_where_the_value_breaks_it_and_the_schema_does_not_state_it():
    assert _noted("The note, at most 10 characters.", "x" * 11) == [
        ("info", 1, "response", "choices[0].message.tool_calls[0]")]
    assert _noted("The note, at most 10 characters.", "x" * 10) == []
    assert _noted("The note, under 10 chars.", "x" * 10) != []  # "under" leaves the number itself out
    assert _noted("The note, at most 10 characters.", "x" * 11, maxLength=10) == []  # invalid-arguments says it
    assert _noted("The note, in 10 words at most.", "x" * 99) == []


def test_a_call_the_program_refused_before_running_is_said_refused_not_told_to_be_refused():
    # Pitfall 2: book_room's arguments broke the schema and the program refused the call, as the finding advises; the
    # finding still said "Do not run the call", and the write-tool finding that "the trace records no approval".
    trace = load_bundled("pitfalls/invalid-arguments-corrected").trace
    said = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert said[("invalid-arguments", 1)].endswith(
        "The program refused it before running and sent these problems back as its result, as it should: the model "
        "can correct them in the next round.")
    assert "Do not run the call" not in said[("invalid-arguments", 1)]
    assert said[("write-tool-call", 1)].endswith(
        "The program refused it before running, so nothing was changed and no approval was needed.")
    assert said[("write-tool-call", 2)].endswith("The trace records no approval.")  # round 2's booking ran


def test_a_request_a_log_holds_refused_on_every_try_says_how_often_it_was_already_sent():
    # The first two tries of anthropic-sdk-python's rate-limited recording (its answer left out): one request sent
    # twice, HTTP 429 both times. Read as one round with its tries, the finding said "send it again after a pause" as
    # if it had been sent once.
    name = "anthropic-py-rate-limited-twice-then-answered.json"
    tries = json.loads((FIXTURES / "containers" / name).read_bytes())[:2]
    (conversation,) = read_upload([("two-429s.json", json.dumps(tries).encode())]).conversations
    (round_,) = conversation.trace.rounds
    (said,) = [f.message for f in run_checks(conversation.trace) if f.code == "provider-error"]
    assert round_.error.status == 429
    assert said.endswith("send it again after a pause. It was sent 2 times in all, this try the last: HTTP 429, then "
                         "HTTP 429.")
