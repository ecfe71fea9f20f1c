"""Forks run by the live loop without Streamlit: the bundled teaching forks offline, a fork that goes on with the
scenario's real tools or with results a person types, one that stops after a round, and one sent in the other
dialect. Each fork is read back as a trace and compared with its parent."""

import json

from lib.checks import run_checks
from lib.compare import Run, compare
from lib.dialects import ANTHROPIC
from lib.fork import ForkSetup, advance, in_dialect, original_result, replay, request_body, start
from lib.fork_edits import tools, with_results_emptied, without_tool
from lib.fork_lessons import FILE, LESSONS, body, rebuild
from lib.live.rebuild import Scripted, ScriptedProvider, said
from lib.live.replay import read_recordings
from lib.prices import DEFAULT_PRICES
from lib.summary import summarize
from lib.tokens import counter_for
from tests.conftest import load_bundled

PARENT = "hengxin-expense"


def _hengxin():
    return load_bundled(PARENT).trace


def _replay():
    return replay(_hengxin(), "openai-chat")


def _played(setup: ForkSetup, provider, tmp_path, approve=True):
    runner = start(setup, provider, tmp_path)
    status = advance(runner, setup.continuation)
    while status.state == "needs-approval":
        (runner.approve if approve else runner.decline)(status.pending.id)
        status = advance(runner, setup.continuation)
    fork, problems = runner.trace.read()
    assert problems == []
    return status, fork


def _compared(parent, fork):
    def run(trace, name):
        return Run(name, trace, summarize(trace, counter_for("o200k_base").counter), run_checks(trace))
    return compare(run(parent, "parent"), run(fork, "fork"), DEFAULT_PRICES)


def _lesson(name):
    return next(lesson for lesson in LESSONS if lesson.name == name)


def test_the_bundled_teaching_forks_are_exactly_what_their_rebuild_writes(tmp_path):
    written = rebuild(_hengxin(), tmp_path / "forks.jsonl")
    assert written.read_text(encoding="utf-8") == FILE.read_text(encoding="utf-8"), "run python -m lib.fork_lessons"
    assert all("not a real model's answer" in r.note for r in read_recordings(FILE))


def test_the_empty_result_fork_replays_offline_and_the_model_invents_an_answer_at_round_2(tmp_path):
    parent = _hengxin()
    status, fork = _played(ForkSetup(parent, PARENT, 2, body(_lesson("empty-result"), parent), "tools"), _replay(),
                           tmp_path)
    assert status.outcome == "answered"
    assert fork.header["fork"]["parent"] == PARENT and fork.header["fork"]["round"] == 2
    assert "3,200.00 yuan is within" in fork.rounds[1].response.message.text
    found = _compared(parent, fork)
    assert found.first_divergence == 2 and "empty-tool-result" in found.pairs[1].findings_right


def test_the_vague_description_fork_runs_the_real_write_tool_after_approval_and_answers_offline(tmp_path):
    parent = _hengxin()
    status, fork = _played(ForkSetup(parent, PARENT, 2, body(_lesson("vague-description"), parent), "tools"),
                           _replay(), tmp_path)
    assert status.outcome == "answered" and [r.index for r in fork.rounds] == [1, 2, 3]
    execution = fork.rounds[1].executions[0]
    assert (execution.name, execution.approval) == ("createExpenseSupplement", "approved")
    assert "BC-20261020-0417" in execution.output
    assert [c.name for c in fork.rounds[1].tool_calls] == ["createExpenseSupplement"]  # calcAmountOver skipped


def test_the_write_tool_removed_fork_answers_without_filing_and_forced_tool_choice_loops_to_the_cap(tmp_path):
    parent = _hengxin()
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    status, fork = _played(ForkSetup(parent, PARENT, 3, body(_lesson("write-tool-removed"), parent), "tools"),
                           _replay(), tmp_path / "a")
    assert status.outcome == "answered" and "cannot submit the supplementary form" in fork.rounds[2].response.message.text
    status, fork = _played(ForkSetup(parent, PARENT, 4, body(_lesson("tool-choice-forced"), parent), "tools"),
                           _replay(), tmp_path / "b")
    assert status.outcome == "capped" and [r.index for r in fork.rounds] == [1, 2, 3, 4, 5, 6, 7]
    assert {c.name for r in fork.rounds[3:] for c in r.tool_calls} == {"queryExpense"}


def test_the_forced_lessons_recordings_do_not_answer_round_4_sent_unforced(tmp_path):
    parent = _hengxin()
    status, fork = _played(ForkSetup(parent, PARENT, 4, request_body(parent, 4), "tools"), _replay(), tmp_path)
    assert status.outcome == "answered"
    assert fork.rounds[3].response.raw == parent.rounds[3].response.raw


def test_an_edit_with_no_recording_is_answered_with_no_recording_never_a_connection_failure(tmp_path):
    parent = _hengxin()
    edited = without_tool(request_body(parent, 2), 0)
    status, fork = _played(ForkSetup(parent, PARENT, 2, edited, "tools"), _replay(), tmp_path)
    assert status.outcome == "no-recording"  # no call was made, so no provider erred
    assert status.message == "Round 2: no call made (Replay has no recording of this request)."
    assert "Connection" not in status.message and fork.rounds[1].error is not None


def test_stopping_after_one_round_records_the_answer_and_runs_none_of_its_calls(tmp_path):
    parent = _hengxin()
    status, fork = _played(ForkSetup(parent, PARENT, 2, request_body(parent, 2), "stop"), _replay(), tmp_path)
    assert status.outcome == "cancelled" and [r.index for r in fork.rounds] == [1, 2]
    assert [(e.name, e.ok) for e in fork.rounds[1].executions] == [("calcAmountOver", False)]
    assert "not executed" in fork.rounds[1].executions[0].output.lower()


def test_typed_results_default_to_the_parents_and_carry_the_fork_on_to_the_recorded_answer(tmp_path):
    parent = _hengxin()
    runner = start(ForkSetup(parent, PARENT, 2, request_body(parent, 2), "typed"), _replay(), tmp_path)
    status = advance(runner, "typed")
    typed = []
    while status.state == "needs-approval":
        default = original_result(parent, status.pending)
        typed.append((status.pending.name, default))
        runner.answer(status.pending.id, default)
        status = advance(runner, "typed")
    assert [name for name, _ in typed] == ["calcAmountOver", "createExpenseSupplement"]
    assert typed[0][1] == '{"over_amount": 60.00, "over_ratio": 0.0158, "is_over": true}'
    assert status.outcome == "answered"
    fork, _ = runner.trace.read()
    assert _compared(parent, fork).first_divergence is None
    assert "typed by the person" in fork.rounds[1].executions[0].note


def test_a_reused_call_id_is_refused_and_a_removed_tool_is_not_run_in_a_fork(tmp_path):
    parent = _hengxin()
    body_ = without_tool(request_body(parent, 3), 3)
    assert "createExpenseSupplement" not in [t.name for t in tools(body_, "openai-chat")]
    call = {"id": "call_q1", "type": "function", "function": {"name": "createExpenseSupplement", "arguments": "{}"}}
    reused = Scripted({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [call]}}]}, "test")
    scripted = ScriptedProvider("openai-chat", [reused, said("Done.", "test")])
    status, fork = _played(ForkSetup(parent, PARENT, 3, body_, "tools"), scripted, tmp_path)
    execution = fork.rounds[2].executions[0]
    assert not execution.ok and "already used earlier in this conversation" in execution.output
    assert status.outcome == "answered"


def test_a_fork_sent_in_the_other_dialect_is_written_wholly_in_it_and_compares_with_its_openai_parent(tmp_path):
    parent = _hengxin()
    converted, notes = in_dialect(with_results_emptied(request_body(parent, 2)), "openai-chat", ANTHROPIC)
    assert converted["system"].startswith("You are the internal affairs assistant")
    assert [b["content"] for b in converted["messages"][-1]["content"]] == ["", ""]
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
              "content": [{"type": "text", "text": "Nothing was found."}], "stop_reason": "end_turn",
              "usage": {"input_tokens": 900, "output_tokens": 5}}
    scripted = ScriptedProvider(ANTHROPIC, [Scripted(answer, "test")])
    status, fork = _played(ForkSetup(parent, PARENT, 2, converted, "tools", notes), scripted, tmp_path)
    assert status.outcome == "answered" and fork.dialect == ANTHROPIC
    assert "tool_use" in json.dumps(fork.rounds[0].response.raw)
    assert _compared(parent, fork).first_divergence == 2
