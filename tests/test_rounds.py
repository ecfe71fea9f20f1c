"""Growth of the messages array and the five step labels, on the bundled traces."""

import dataclasses
import json

from lib.logs.native import read_trace
from lib.growth import growth
from lib.steps import steps_for_round


def _steps(trace, index):
    return [(s.step, s.path) for s in steps_for_round(trace, index)]


def test_hengxin_messages_grow_2_5_7_9_with_2_3_2_2_new(hengxin):
    assert [len(r.request.messages) for r in hengxin.rounds] == [2, 5, 7, 9]
    assert [len(growth(hengxin, k).new) for k in range(1, 5)] == [2, 3, 2, 2]
    assert [len(r.tool_calls) for r in hengxin.rounds] == [2, 1, 1, 0]
    for k in range(2, 5):
        placed = growth(hengxin, k)
        assert placed.changed == () and placed.dropped == 0
        assert len(placed.resent) == len(hengxin.rounds[k - 2].request.messages)


def test_hengxin_new_messages_say_where_they_came_from(hengxin):
    origins = [(e.message.role, e.origin) for e in growth(hengxin, 2).new]
    assert origins == [("assistant", "response"), ("tool", "tool-result"), ("tool", "tool-result")]


def test_hengxin_round_1_labels_tools_calls_finish_reason_and_execution(hengxin):
    assert _steps(hengxin, 1) == [
        (1, "tools"),
        (2, "choices[0].message.tool_calls[0]"),
        (2, "choices[0].message.tool_calls[1]"),
        (2, "choices[0].finish_reason"),
        (3, "executions[0]"),
        (3, "executions[1]"),
    ]
    assert not steps_for_round(hengxin, 1)[0].resent


def test_hengxin_later_rounds_mark_the_tool_list_resent_and_pair_results(hengxin):
    labels = steps_for_round(hengxin, 2)
    assert labels[0].step == 1 and labels[0].resent and "resent unchanged" in labels[0].detail
    results = [s for s in labels if s.step == 4]
    assert [(s.path, s.call_id, s.call_round) for s in results] == [
        ("messages[3].content", "call_q1", 1),
        ("messages[4].content", "call_q2", 1),
    ]
    assert "queryExpense" in results[0].detail


def test_hengxin_round_4_is_the_answer(hengxin):
    assert _steps(hengxin, 4) == [(1, "tools"), (4, "messages[8].content"), (5, "choices[0].message.content")]


def test_anthropic_results_sit_in_one_user_message_paired_to_both_calls(order_status):
    calls = [c.id for c in order_status.rounds[0].tool_calls]
    assert len(calls) == 2
    results = [s for s in steps_for_round(order_status, 2) if s.step == 4]
    assert [s.call_id for s in results] == calls
    assert [s.path for s in results] == ["messages[2].content[0]", "messages[2].content[1]"]
    assert all(s.call_round == 1 for s in results)
    assert _steps(order_status, 1)[1:4] == [(2, "content[0]"), (2, "content[1]"), (2, "stop_reason")]


def _two_rounds(second_messages):
    first = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    return read_trace([
        json.dumps({"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}),
        json.dumps({"kind": "round", "index": 1, "request": {"messages": first}}),
        json.dumps({"kind": "round", "index": 2, "request": {"messages": second_messages}}),
    ])[0]


def test_a_resent_message_that_differs_is_marked_changed_with_its_earlier_copy():
    trace = _two_rounds([{"role": "user", "content": "hi!"}, {"role": "assistant", "content": "hello"},
                         {"role": "user", "content": "more"}])
    placed = growth(trace, 2)
    assert [e.status for e in placed.entries] == ["changed", "resent", "new"]
    assert placed.changed[0].previous.text == "hi"


def test_history_dropped_is_counted():
    assert growth(_two_rounds([{"role": "user", "content": "hi"}]), 2).dropped == 1


def test_a_result_for_a_call_nobody_made_is_labeled_as_such():
    trace = _two_rounds([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                         {"role": "tool", "tool_call_id": "call_ghost", "content": "42"}])
    (label,) = [s for s in steps_for_round(trace, 2) if s.step == 4]
    assert label.call_round is None and "no earlier call" in label.detail


def test_each_dialect_names_its_own_stop_field_in_the_call_intent_label(hengxin, order_status):
    anthropic = next(s for s in steps_for_round(order_status, 1) if s.path == "stop_reason")
    assert anthropic.detail == "stop_reason 'tool_use': run the tools"
    openai = next(s for s in steps_for_round(hengxin, 1) if s.path == "choices[0].finish_reason")
    assert openai.detail == "finish_reason 'tool_calls': run the tools"


def test_a_call_with_no_execution_is_unrecorded_in_a_log_and_waiting_in_a_live_run_held_for_approval(hengxin):
    held = dataclasses.replace(hengxin.rounds[2], executions=())
    trace = dataclasses.replace(hengxin, rounds=(*hengxin.rounds[:2], held, *hengxin.rounds[3:]))
    (call,) = held.tool_calls

    def lane(**kwargs):
        return [s.detail for s in steps_for_round(trace, 3, **kwargs) if s.step == 3]

    assert lane() == ["not recorded: the trace does not say what the program ran"]
    assert lane(waiting=call.id) == [f"waiting for your approval: {call.name} ({call.id})"]
    assert lane(waiting="call_elsewhere") == ["not recorded: the trace does not say what the program ran"]


def _conversation(fixture: str):
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    return read_upload([(fixture, (FIXTURES / fixture).read_bytes())]).conversations[0].trace


def test_a_result_for_a_call_the_program_sent_back_under_another_id_names_the_round_that_made_it():
    # pydantic-ai gave round 1's call, which came back with an empty id, an id of its own before sending it back.
    # Step 4 said the result answered a call "by no response in the log"; the Checks page says, rightly, that it is
    # round 1's get_current_time call under a rewritten id.
    trace = _conversation("openai-compatible-empty-call-id.jsonl")
    [label] = [s for s in steps_for_round(trace, 2) if s.step == 4]
    assert label.call_round == 1
    assert label.detail == ("result for get_current_time (pyd_ai_cee885c699414386a7e14b7ec43cadbc, called in round 1 "
                            "with an empty id, which the program sent back under this one)")
    # simonw/llm renamed OpenRouter's id llm_version:0 to 0.
    trace = _conversation("containers/llm-openrouter-renamed-call.yaml")
    [label] = [s for s in steps_for_round(trace, 2) if s.step == 4]
    assert label.call_round == 1
    assert label.detail == ("result for llm_version (0, called in round 1 as llm_version:0, which the program sent "
                            "back under this one)")


def test_a_span_that_kept_no_content_labels_its_loop_ending_stop_as_step_5_on_the_stop_signal():
    # opentelemetry-instrumentation-openai-v2 without content capture: the second call's span says finish_reason
    # 'stop' and holds no message. The cards labelled nothing, while the diagram drew "⑤ answers in text" and presenter
    # mode showed "⑤ Model answers" with nothing on it.
    from lib.logs.upload import read_upload
    from lib.presenter import Position, reveal
    from lib.sequence import sequence
    from tests.screen import FIXTURES
    upload = read_upload([("spans.jsonl", (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes())])
    trace = next(c.trace for c in upload.conversations if c.id == "43e09334a2dca25f5654e3198343348f")
    [label] = [s for s in steps_for_round(trace, 1) if s.step == 5]
    # The span is known not to have captured the turn (Round.answer_recorded): every view says so, as the card does,
    # not that the model may have written nothing.
    assert (label.path, label.detail) == ("choices[0].finish_reason", "finish_reason 'stop': the loop ends; the "
                                          "log did not capture what the model wrote")
    assert reveal(trace, Position(1, 5)).labels == (label,)
    assert [(a.step, a.label) for a in sequence(trace) if a.step == 5] == [
        (5, "the loop ends: the log did not capture what the model wrote")]
