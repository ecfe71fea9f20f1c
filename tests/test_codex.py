"""OpenAI Codex CLI session logs (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read as rounds.

The fixture is a public recording of the format (tests/fixtures/README.md says where); the lines built here are in the
shapes it and older versions write. Each test says what a user sees: the format named, the conversation, each model
call a round with the items before it as its request, the calls paired with their outputs, the usage each token count
reported, and that the tool list (and, where the log lacks them, the instructions and the usage) are not in the log.
"""

import json
from pathlib import Path

from lib.logs.upload import read_upload
from lib.provenance import provenance_detail
from lib.summary import parts_not_logged, tool_list_always_sent, tool_list_never_logged

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = "codex-rollout-0.125.jsonl"
SESSION = "session 019e1625-789d-76c0-80ab-3724b5ddb799"


def _read(name: str = FIXTURE):
    return read_upload([(name, (FIXTURES / name).read_bytes())])


def _lines(*lines: dict | str):
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    return read_upload([("rollout.jsonl", text.encode())])


def _line(kind: str, payload, at: str = "2026-05-11T08:27:00.000Z") -> dict:
    return {"timestamp": at, "type": kind, "payload": payload}


def _user(text: str) -> dict:
    return _line("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]})


def _said(text: str) -> dict:
    return _line("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": text}]})


def _call(call_id: str, command: str) -> dict:
    return _line("response_item", {"type": "function_call", "name": "exec_command",
                                   "arguments": json.dumps({"cmd": command}), "call_id": call_id})


def _output(call_id: str, output: str) -> dict:
    return _line("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})


def _count(total: int, last_in: int, last_out: int) -> dict:
    usage = {"input_tokens": last_in, "cached_input_tokens": 0, "output_tokens": last_out,
             "reasoning_output_tokens": 0, "total_tokens": last_in + last_out}
    return _line("event_msg", {"type": "token_count", "info": {
        "total_token_usage": {**usage, "total_tokens": total}, "last_token_usage": usage}, "rate_limits": None})


META = _line("session_meta", {"id": "s-1", "cwd": "/repo", "originator": "codex_cli_rs", "cli_version": "0.46.0",
                              "instructions": None})


def test_a_session_is_one_conversation_each_model_call_a_round_its_request_the_items_before_it():
    upload = _read()
    assert upload.summary() == "19 lines: 3 rounds in 1 conversation; 10 lines not model calls; 0 lines skipped"
    assert upload.formats["codex-rollout"][0] == 19
    assert "a Codex CLI rollout" in upload.formats["codex-rollout"][1]
    [conversation] = upload.conversations
    assert conversation.id == SESSION
    rounds = conversation.trace.rounds
    # The base instructions, Codex's developer message, AGENTS.md and the prompt; then each call and its output.
    assert [len(r.request.messages) for r in rounds] == [4, 6, 8]
    assert [m.role for m in rounds[2].request.messages] == ["system", "developer", "user", "user", "assistant", "tool",
                                                            "assistant", "tool"]
    assert rounds[0].request.messages[3].text == "show tools"
    assert all(r.request_from_transcript for r in rounds)
    assert {r.request.model for r in rounds} == {"gpt-5.5"}  # the turn_context's


def test_each_call_is_paired_with_its_output_by_call_id_and_the_answer_is_the_last_round():
    rounds = _read().conversations[0].trace.rounds
    assert [[c.name for c in r.response.message.tool_calls] for r in rounds] == [["exec_command"], ["write_stdin"], []]
    call = rounds[0].response.message.tool_calls[0]
    assert call.id == "call_Y2p6KmqwoTtpi6atpDPuxC5M"
    assert "using-superpowers/SKILL.md" in call.arguments["cmd"]
    [result] = rounds[1].request.messages[5].tool_results
    assert result.call_id == call.id
    assert "Process running with session ID 48230" in result.content
    assert rounds[2].response.message.text.startswith("Available tool groups in this session:")
    assert [r.response.finish_reason for r in rounds] == ["tool_calls", "tool_calls", "stop"]


def test_each_round_has_the_usage_of_the_token_count_that_followed_its_items():
    rounds = _read().conversations[0].trace.rounds
    usage = [(r.response.usage.input_tokens, r.response.usage.output_tokens, r.response.usage.cache_read_tokens,
              r.response.usage.reasoning_tokens) for r in rounds]
    # last_token_usage of lines 10, 14 and 18, not their running totals (37,614 and 57,906 tokens in).
    assert usage == [(18703, 167, 0, 62), (18911, 37, 18304, 0), (20292, 170, 18816, 0)]
    # Together they are the session's running total on the last count (line 18): no call counted twice or missed.
    assert sum(u[0] for u in usage) == 57906 and sum(u[1] for u in usage) == 374


def test_the_tool_list_is_said_to_be_missing_and_the_logged_base_instructions_are_shown():
    trace = _read().conversations[0].trace
    for round_ in trace.rounds:
        assert round_.request.messages[0].role == "system"
        assert round_.request.messages[0].text.startswith("You are Codex, a coding agent based on GPT-5.")
        assert parts_not_logged(round_) == ("tools",)
        assert tool_list_never_logged(round_)
        said = provenance_detail(trace.round_provenance(round_))
        # Codex sends its tool list with every request: said once, where the list would be (tool_list_missing).
        assert tool_list_always_sent(round_) and "tool list" not in said
        assert "base instructions the session_meta line recorded" in said
        assert "not in the log" not in said  # each round has its token count


def test_a_log_without_base_instructions_or_token_counts_says_both_are_not_in_the_log():
    upload = _lines(META, _user("list the files"), _call("call_1", "ls"), _output("call_1", "a.txt\n"),
                    _said("There is one file, a.txt."))
    assert upload.summary() == "5 lines: 2 rounds in 1 conversation; 1 line not a model call; 0 lines skipped"
    trace = upload.conversations[0].trace
    for round_ in trace.rounds:
        assert round_.response.usage is None
        assert parts_not_logged(round_) == ("instructions", "tools")
        said = provenance_detail(trace.round_provenance(round_))
        assert "does not hold Codex's base instructions" in said
        assert "its usage is not in the log" in said
        assert [m.role for m in round_.request.messages][0] == "user"


def test_a_repeated_token_count_is_no_new_call_and_leaves_the_next_round_without_usage():
    # Codex writes the last count again at a turn's start (same running total): it is not the next call's usage.
    upload = _lines(META, _user("go"), _call("call_1", "ls"), _count(110, 100, 10), _output("call_1", "a.txt"),
                    _count(110, 100, 10), _said("done"))
    rounds = upload.conversations[0].trace.rounds
    assert rounds[0].response.usage.input_tokens == 100
    assert rounds[1].response.usage is None
    assert "its usage is not in the log" in provenance_detail(upload.conversations[0].trace.round_provenance(rounds[1]))


def test_a_token_count_written_after_the_output_still_belongs_to_the_call_before_it():
    upload = _lines(META, _user("go"), _call("call_1", "ls"), _output("call_1", "a.txt"), _count(110, 100, 10),
                    _said("done"), _count(230, 115, 5))
    rounds = upload.conversations[0].trace.rounds
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in rounds] == [(100, 10), (115, 5)]


def test_a_second_count_after_one_response_is_said_to_count_a_call_the_log_does_not_hold():
    upload = _lines(META, _user("go"), _said("done"), _count(110, 100, 10), _count(230, 115, 5))
    [round_] = upload.conversations[0].trace.rounds
    assert round_.response.usage.input_tokens == 100
    [note] = upload.notes
    assert note.line == 5 and "a token count of a model call whose items the log does not hold" in note.message


def test_parallel_calls_are_one_round_and_reasoning_stays_in_the_response():
    reasoning = _line("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Look"}],
                                        "content": None, "encrypted_content": "gAAAA"})
    upload = _lines(META, _user("go"), reasoning, _call("call_1", "ls"), _call("call_2", "pwd"),
                    _output("call_1", "a.txt"), _output("call_2", "/repo"), _said("done"))
    rounds = upload.conversations[0].trace.rounds
    assert len(rounds) == 2
    assert [c.id for c in rounds[0].response.message.tool_calls] == ["call_1", "call_2"]
    assert [r.call_id for m in rounds[1].request.messages for r in m.tool_results] == ["call_1", "call_2"]


def test_a_local_shell_call_pairs_with_its_output_and_a_ghost_snapshot_is_no_part_of_any_request():
    shell = _line("response_item", {"type": "local_shell_call", "call_id": "call_9", "status": "completed",
                                    "action": {"type": "exec", "command": ["ls"]}})
    ghost = _line("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}})
    upload = _lines(META, _user("go"), ghost, shell, _output("call_9", "a.txt"), _said("done"))
    rounds = upload.conversations[0].trace.rounds
    [call] = rounds[0].response.message.tool_calls
    assert (call.id, call.name) == ("call_9", "local_shell")
    assert [m.role for m in rounds[1].request.messages] == ["user", "assistant", "tool"]
    assert upload.summary() == "6 lines: 2 rounds in 1 conversation; 2 lines not model calls; 0 lines skipped"


def test_a_damaged_line_is_a_problem_naming_the_line_and_the_rest_still_load():
    upload = _lines(META, _user("go"), _line("response_item", "not an object"),
                    _line("response_item", {"type": "function_call_output", "output": "lost"}),
                    _call("call_1", "ls"), _output("call_1", "a.txt"), _said("done"))
    problems = {p.line: p.message for p in upload.problems}
    assert "payload' is a string, expected an object" in problems[3]
    assert "has no 'call_id', so its result cannot be paired" in problems[4]
    assert len(upload.conversations[0].trace.rounds) == 2


def test_a_compaction_starts_the_next_request_from_the_history_codex_wrote_in_its_place():
    kept = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Summary: listed a.txt"}]}]
    upload = _lines(META, _user("go"), _said("a.txt"), _line("compacted", {"message": "", "replacement_history": kept}),
                    _user("and now?"), _said("nothing else"))
    rounds = upload.conversations[0].trace.rounds
    assert [m.text for m in rounds[1].request.messages] == ["go", "Summary: listed a.txt", "and now?"]
    assert any("Codex compacted the conversation here" in n.message for n in upload.notes)


def test_a_compaction_is_said_to_be_codex_summarising_the_conversation_not_a_history_rewritten():
    # A compaction whose summary replaces the person's first message: history-rewritten warned "1 resent message
    # changed. The model now reads a history it did not write ... If this is deliberate trimming, keep each call
    # together with its result", as if someone had edited that message.
    from lib.checks import run_checks
    upload = _lines(META, _user("go"), _said("a.txt"), _line("compacted", {"message": "Summary: listed a.txt"}),
                    _user("and now?"), _said("nothing else"))
    trace = upload.conversations[0].trace
    assert [m.text for m in trace.rounds[1].request.messages] == ["Summary: listed a.txt", "and now?"]
    [finding] = [f for f in run_checks(trace) if f.code == "history-rewritten"]
    assert (finding.severity, finding.round) == ("info", 2)
    assert finding.message.startswith("The program compacted the conversation before this request: it left out the 1 "
                                      "message of round 1's request and sent a summary it wrote in its place")
    # A compaction that keeps the request's messages before its summary drops nothing: nothing to say.
    kept = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Summary: listed a.txt"}]}]
    upload = _lines(META, _user("go"), _said("a.txt"), _line("compacted", {"message": "", "replacement_history": kept}),
                    _user("and now?"), _said("nothing else"))
    assert [f for f in run_checks(upload.conversations[0].trace) if f.code == "history-rewritten"] == []


def test_a_replacement_history_item_codex_could_not_send_is_left_out_and_said_at_the_compaction():
    kept = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call_output", "output": "no call id"}, {"type": "ghost_snapshot"}]
    upload = _lines(META, _user("go"), _said("a.txt"), _line("compacted", {"message": "", "replacement_history": kept}),
                    _user("and now?"), _said("nothing else"))
    rounds = upload.conversations[0].trace.rounds
    assert [m.text for m in rounds[1].request.messages] == ["go", "and now?"]
    assert any(n.line == 4 and "2 of the 3 items of its replacement_history" in n.message for n in upload.notes)


def test_an_older_rollout_of_a_bare_header_and_bare_items_reads_without_usage():
    upload = _lines({"id": "c27a914d", "timestamp": "2025-08-20T13:20:47.060Z", "instructions": None,
                     "git": {"branch": "main"}},
                    {"record_type": "state"},
                    {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                    {"type": "function_call", "id": "fc_1", "name": "shell", "arguments": "{\"command\":[\"ls\"]}",
                     "call_id": "call_1"},
                    {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
                    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a.txt"}]})
    assert upload.summary() == "6 lines: 2 rounds in 1 conversation; 2 lines not model calls; 0 lines skipped"
    assert "an older Codex CLI rollout" in upload.formats["codex-rollout"][1]
    [conversation] = upload.conversations
    assert conversation.id == "session c27a914d"
    assert all(r.response.usage is None for r in conversation.trace.rounds)
    assert conversation.trace.rounds[0].response.message.tool_calls[0].name == "shell"


def test_other_formats_lines_are_not_taken_for_codex_lines():
    for name in ("claude-code-session.jsonl", "claude-stream-json-read.jsonl", "openai-responses.jsonl",
                 "openai-pairs.jsonl"):
        assert "codex-rollout" not in _read(name).formats
    # A bare item with no header before it is no Codex line.
    upload = _lines({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]})
    assert "codex-rollout" not in upload.formats


def test_how_long_codex_lets_a_command_run_and_how_much_output_it_reads_is_not_called_a_value_to_ask_for():
    # exec_command's yield_time_ms and max_output_tokens: the model's own settings for the tool, like Claude Code's
    # Bash timeout, not a fact the person should have given.
    from lib.checks import run_checks
    trace = _read().conversations[0].trace
    assert [f.brief for f in run_checks(trace) if f.code == "model-filled-value"] == []


# Codex writes a turn's failure as an `error` event (openai/codex codex-rs/protocol/src/protocol.rs at commit
# edb4efee49ae9f130636fab25f2e398a931dd987, `ErrorEvent`: `message`, `codex_error_info`; persisted by
# codex-rs/rollout/src/policy.rs at commit 851c9d5ef023ef39288bd3cb9bde3bdee8812d93, `EventMsg::Error` in its Extended
# mode), after retries (its `stream_error` events are never persisted). No public
# rollout holding one was found: these lines are written in that shape, the messages in the words of
# codex-rs/core/src/error.rs (`RetryLimitReachedError`, `UsageLimitReachedError`, `CodexErr::Stream`).
def _error(message: str, info=None) -> dict:
    return _line("event_msg", {"type": "error", "message": message, "codex_error_info": info})


def test_an_error_event_is_a_failed_round_whose_request_is_the_items_before_it():
    from lib.checks import run_checks
    upload = _lines(META, _user("list the files"), _call("call_1", "ls"), _count(110, 100, 10),
                    _output("call_1", "a.txt\n"),
                    _error("exceeded retry limit, last status: 500 Internal Server Error, request id: req_1",
                           {"response_too_many_failed_attempts": {"http_status_code": 500}}),
                    _user("try again"), _said("There is one file, a.txt."), _count(230, 115, 5))
    assert upload.summary() == "9 lines: 3 rounds in 1 conversation; 3 lines not model calls; 0 lines skipped"
    trace = upload.conversations[0].trace
    listing, failed, answer = trace.rounds
    assert failed.response is None
    assert (failed.error.status, failed.error.message) == (
        500, "exceeded retry limit, last status: 500 Internal Server Error, request id: req_1")
    # Its request is everything before the error: the prompt, the call and its output.
    assert [m.role for m in failed.request.messages] == ["user", "assistant", "tool"]
    assert failed.request.messages[2].tool_results[0].content == "a.txt\n"
    said = provenance_detail(trace.round_provenance(failed))
    assert "Codex wrote this error in the log where the turn failed" in said
    assert "does not hold Codex's base instructions" in said
    assert [f.brief for f in run_checks(trace) if f.code == "provider-error"]
    # The error is no item: the next request carries the output and the person's words, not the error.
    assert [m.role for m in answer.request.messages] == ["user", "assistant", "tool", "user"]
    assert answer.response.usage.input_tokens == 115


def test_an_error_without_a_status_says_none_was_recorded_and_the_words_give_the_status_where_they_can():
    upload = _lines(META, _user("go"),
                    _error("You've hit your usage limit. Try again at 4:05 AM.", "usage_limit_exceeded"),
                    _user("go on"), _error("unexpected status 503 Service Unavailable: overloaded", "other"))
    limit, overloaded = upload.conversations[0].trace.rounds
    assert (limit.error.status, limit.error.message) == (None, "You've hit your usage limit. Try again at 4:05 AM.")
    assert [m.text for m in limit.request.messages] == ["go"]
    assert overloaded.error.status == 503
    assert [m.text for m in overloaded.request.messages] == ["go", "go on"]


def test_an_error_while_the_calls_items_are_being_written_ends_that_call_one_round_not_two():
    # The stream broke after the model's first item was written and before its token count.
    upload = _lines(META, _user("go"), _said("Let me look at"),
                    _error("stream disconnected before completion: stream closed before response.completed",
                           {"response_stream_disconnected": {"http_status_code": None}}))
    [cut] = upload.conversations[0].trace.rounds
    assert cut.response.message.text == "Let me look at"
    assert (cut.error.status, cut.error.message) == (
        None, "stream disconnected before completion: stream closed before response.completed")
    assert "The call failed while its response was being written" in provenance_detail(
        upload.conversations[0].trace.round_provenance(cut))
    # A call whose count came is complete: the error after it is the next call's.
    complete = _lines(META, _user("go"), _said("done"), _count(110, 100, 10), _error("boom"))
    rounds = complete.conversations[0].trace.rounds
    assert [(r.response is not None, r.error is not None) for r in rounds] == [(True, False), (False, True)]


def test_errors_that_are_no_model_call_and_an_aborted_turn_make_no_round_and_the_abort_is_said():
    upload = _lines(META, _user("go"), _said("done"), _count(110, 100, 10),
                    _error("Cannot steer this turn", {"active_turn_not_steerable": {"turn_kind": "review"}}),
                    _line("event_msg", {"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"}))
    assert upload.summary() == "6 lines: 1 round in 1 conversation; 4 lines not model calls; 0 lines skipped"
    [round_] = upload.conversations[0].trace.rounds
    assert round_.error is None
    [note] = [n for n in upload.notes if n.line == 6]
    assert "Codex stopped the turn here (turn_aborted, reason interrupted)" in note.message
    assert "no failed model call" in note.message


def test_outputs_after_the_logs_last_call_are_its_executions_where_the_log_records_how_the_run_ended():
    # The recorded session cut after line 12: the exec_command call, its output and its exec_command_end (exit 0);
    # no model call after them was logged.
    lines = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)[:12]
    upload = read_upload([("rollout.jsonl", b"".join(lines))])
    [round_] = upload.conversations[0].trace.rounds
    [ran] = round_.executions
    assert (ran.tool_call_id, ran.name, ran.ok) == ("call_Y2p6KmqwoTtpi6atpDPuxC5M", "exec_command", True)
    assert "using-superpowers/SKILL.md" in ran.arguments["cmd"]
    assert ran.output.startswith("Chunk ID: a21e41\nWall time: 1.0037 seconds\nProcess running with session ID 48230")
    assert "log ends" not in ran.note  # said under the lane, for every format
    # A failed end is a failed execution; an output whose end the log lacks is no execution (its success unknown).
    end = _line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "exit_code": 2})
    rounds = _lines(META, _user("go"), _call("call_1", "ls /x"), _call("call_2", "pwd"),
                    _output("call_1", "ls: /x: No such file"), end, _output("call_2", "/repo")).conversations[0]
    assert [(e.tool_call_id, e.ok) for e in rounds.trace.rounds[0].executions] == [("call_1", False)]


def test_the_write_check_marks_a_patch_codex_applies_not_the_input_it_polls_a_running_command_with():
    # write_stdin with no chars reads what the command started in round 1 printed since; apply_patch edits files.
    from lib.checks import run_checks
    assert [f.round for f in run_checks(_read().conversations[0].trace) if f.code == "write-tool-call"] == []
    patch = _line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c-2",
                                    "input": "*** Begin Patch\n*** Update File: a.py\n*** End Patch"})
    done = _line("response_item", {"type": "custom_tool_call_output", "call_id": "c-2", "output": "Success."})
    plan = _line("response_item", {"type": "function_call", "name": "update_plan", "call_id": "c-3",
                                   "arguments": json.dumps({"explanation": "Tests pass", "plan": []})})
    trace = _lines(META, _user("fix a.py"), patch, _count(10, 5, 5), done, plan, _count(20, 5, 5),
                   _output("c-3", "Plan updated"), _said("Done."), _count(30, 5, 5)).conversations[0].trace
    findings = run_checks(trace)
    assert [f.round for f in findings if f.code == "write-tool-call"] == [1]
    assert [f.round for f in findings if f.code == "model-filled-value"] == []


# ExecCommandEndEvent (codex-rs/protocol/src/protocol.rs at commit edb4efee49ae9f130636fab25f2e398a931dd987):
# `call_id`, `exit_code`, `duration` (a Rust Duration, written {"secs", "nanos"}), `stdout`, `stderr`,
# `aggregated_output`, `formatted_output`; PatchApplyEndEvent: `call_id`, `stdout`, `stderr`, `success`. The fixture's
# line 12 is one, recorded.
def _ended(call_id: str, code: int, secs, nanos=0) -> dict:
    return _line("event_msg", {"type": "exec_command_end", "call_id": call_id, "stdout": "", "stderr": "",
                               "aggregated_output": "a.txt\n", "exit_code": code,
                               "duration": {"secs": secs, "nanos": nanos}, "formatted_output": "a.txt\n"})


def test_every_rounds_command_is_an_execution_with_the_time_it_ran_where_codex_logged_its_end():
    # A command that ended within its call: Codex writes its end, then the output the model gets.
    upload = _lines(META, _user("list the files"), _call("call_1", "ls"), _count(110, 100, 10),
                    _ended("call_1", 0, 1, 250_000_000), _output("call_1", "a.txt\n"),
                    _said("There is one file, a.txt."), _count(230, 115, 5))
    listing, answer = upload.conversations[0].trace.rounds
    [ran] = listing.executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == ("call_1", "exec_command", True, 1250.0)
    assert ran.arguments == {"cmd": "ls"} and ran.output == "a.txt\n"
    assert ran.note == "Codex logged the command's end before this output: exit code 0."
    assert answer.executions == ()


def test_a_command_that_outlived_its_call_says_so_and_its_run_time_is_not_given_as_the_calls():
    # The recorded session: exec_command returned after its 1 s yield ("Process running with session ID 48230",
    # line 11); the command's end (exit 0, 5.087741459 s) is logged after that output, at line 12, and reached the
    # model through round 2's write_stdin (its execution is that command's: the test below).
    first, polled, answer = _read().conversations[0].trace.rounds
    [ran] = first.executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == ("call_Y2p6KmqwoTtpi6atpDPuxC5M", "exec_command",
                                                                      True, None)
    assert "Process running with session ID 48230" in ran.output
    assert ran.note == ("Codex logged the command's end after this output: it was still running when Codex returned "
                        "the output, and ended later with exit code 0 after 5,088 ms: the command's time, not this "
                        "call's.")
    assert answer.executions == ()


def test_a_write_stdin_call_runs_the_command_it_wrote_to_and_ends_as_that_commands_logged_end_says():
    # Round 2 polls process 48230 (write_stdin, session_id 48230); Codex logged that command's end at line 12
    # (process_id "48230", the exec_command call's id, exit code 0) before the poll's output at line 15.
    first, polled, answer = _read().conversations[0].trace.rounds
    [ran] = polled.executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == ("call_QazIeAavKevvIILVQkrDdKKT", "write_stdin",
                                                                      True, None)
    assert ran.arguments["session_id"] == 48230
    assert ran.output.startswith("Chunk ID: 853167\nWall time: 0.0000 seconds\nProcess exited with code 0")
    assert ran.note == ("This call wrote to (or polled) the command that call call_Y2p6KmqwoTtpi6atpDPuxC5M started, "
                        "process 48230; Codex logged that command's end before this output: it had exited with code 0. "
                        "Its run time is the command's, not this call's.")
    from lib.sequence import sequence
    labels = [a.label for a in sequence(_read().conversations[0].trace) if a.round == 2]
    assert "runs write_stdin" in labels and not any("not recorded" in label for label in labels)


def _stdin(call_id: str, process: int, chars: str = "") -> dict:
    return _line("response_item", {"type": "function_call", "name": "write_stdin", "call_id": call_id,
                                   "arguments": json.dumps({"session_id": process, "chars": chars})})


def test_a_write_stdin_whose_command_ends_later_or_not_at_all_says_so():
    started = _output("call_1", "Process running with session ID 7\nOutput:\n")
    end = _line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "process_id": "7", "exit_code": 1,
                              "duration": {"secs": 3, "nanos": 0}})
    # The end after the write_stdin's output: the command ran on, then failed.
    upload = _lines(META, _user("run it"), _call("call_1", "./serve"), started, _stdin("call_2", 7, "q\n"),
                    _output("call_2", "Process running with session ID 7"), end, _said("It stopped."))
    _, wrote, _ = upload.conversations[0].trace.rounds
    [ran] = wrote.executions
    assert (ran.name, ran.ok, ran.duration_ms) == ("write_stdin", False, None)
    assert "Codex logged that command's end after this output: it was still running" in ran.note
    assert "ended later with exit code 1" in ran.note
    # No end logged: no execution, and the round says what is not in the log.
    upload = _lines(META, _user("run it"), _call("call_1", "./serve"), started, _stdin("call_2", 7),
                    _output("call_2", "Process running with session ID 7"), _said("Still running."))
    trace = upload.conversations[0].trace
    assert trace.rounds[1].executions == ()
    said = provenance_detail(trace.round_provenance(trace.rounds[1]))
    assert ("The write_stdin call call_2 wrote to (or polled) the command running as process 7 and returned its "
            "output so far; Codex logged no end of that command before the next model call (or the log's end): "
            "whether it ran on or ended, and how, is not in the log.") in said
    assert trace.rounds[1].extra["unended_writes"] == ["call_2"]


def test_a_patch_codex_could_not_apply_is_a_failed_execution_without_a_run_time():
    patch = _line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c-2",
                                    "input": "*** Begin Patch\n*** Update File: a.py\n*** End Patch"})
    end = _line("event_msg", {"type": "patch_apply_end", "call_id": "c-2", "stdout": "",
                              "stderr": "Failed to find expected lines in a.py", "success": False})
    done = _line("response_item", {"type": "custom_tool_call_output", "call_id": "c-2",
                                   "output": "Failed to find expected lines in a.py"})
    trace = _lines(META, _user("fix a.py"), patch, _count(10, 5, 5), end, done, _said("The patch failed."),
                   _count(30, 5, 5)).conversations[0].trace
    [ran] = trace.rounds[0].executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == ("c-2", "apply_patch", False, None)
    assert ran.note == "Codex logged the patch's end before this output: not applied."


def test_a_duration_codex_did_not_write_as_seconds_and_nanoseconds_gives_no_run_time():
    end = _line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "exit_code": 0, "duration": "1.2s"})
    upload = _lines(META, _user("go"), _call("call_1", "ls"), end, _output("call_1", "a.txt"), _said("done"))
    [ran] = upload.conversations[0].trace.rounds[0].executions
    assert (ran.ok, ran.duration_ms) == (True, None)


# ThreadRolledBackEvent (codex-rs/protocol/src/protocol.rs): `num_turns`, written as an event_msg when the person undoes
# turns; Codex rebuilds the history without the last `num_turns` turns of the person's, each from their message on,
# and without the context it wrote just before them (codex-rs/core's ContextManager.drop_last_n_user_turns).
def _rollback(turns) -> dict:
    return _line("event_msg", {"type": "thread_rolled_back", "num_turns": turns})


CONTEXT = ("<environment_context>\n  <cwd>/Users/Sample_User/repos/codemie-ai/codemie-code</cwd>\n"
           "  <shell>zsh</shell>\n</environment_context>")


def _rolled_back_session():
    """The recorded first turn, a second turn the person then undid, and the turn they asked in its place."""
    recorded = (FIXTURES / FIXTURE).read_bytes()
    added = [_user(CONTEXT), _user("now list the skills"), _said("The skills are: superpowers, browser-use."),
             _count(80000, 22094, 12), _rollback(1), _user("show tools again, briefly"), _said("web, functions."),
             _count(100500, 22494, 6)]
    for second, line in enumerate(added):  # after the recorded turn's last line (08:27:32)
        line["timestamp"] = f"2026-05-11T08:30:{second:02d}.000Z"
    text = recorded + b"".join(json.dumps(line).encode() + b"\n" for line in added)
    return read_upload([("rollout.jsonl", text)])


def test_a_rollback_drops_the_undone_turn_from_the_requests_after_it_and_they_count_only_what_was_sent():
    from lib.growth import growth
    from lib.summary import summarize
    from lib.tokens import counter_for
    upload = _rolled_back_session()
    trace = upload.conversations[0].trace
    undone, after = trace.rounds[3], trace.rounds[4]
    # The undone turn's request: the first turn (8 messages), its answer, Codex's context and the prompt.
    assert [m.text for m in undone.request.messages[-2:]] == [CONTEXT, "now list the skills"]
    # The next request carries the first turn and its answer, then the new prompt: not the undone turn.
    texts = [m.text for m in after.request.messages]
    assert len(texts) == 10 and texts[-1] == "show tools again, briefly"
    assert "now list the skills" not in texts and CONTEXT not in texts
    assert not any("The skills are" in t for t in texts)
    placed = growth(trace, 5)
    assert [e.status for e in placed.entries].count("resent") == 9 and after.resent_prefix == 9
    assert [e.message.text for e in placed.new] == ["show tools again, briefly"]
    assert placed.changed == () and placed.dropped == 2  # the context and the undone prompt
    assert summarize(trace, counter_for("o200k_base").counter)[4].new_messages == 1
    said = [n.message for n in upload.notes if "rolled back" in n.message]
    assert said == ["Codex rolled back the last turn of the conversation here (the person undid it): the requests "
                    "after this line no longer carry it, 3 items that the requests before it held"]
    from lib.sequence import sequence
    asks = [a.label for a in sequence(trace) if a.round == 5 and a.source == "user"]
    assert asks == ["asks: show tools again, briefly"]


def test_a_rollback_of_more_turns_than_the_log_holds_keeps_what_came_before_the_first_and_one_of_none_says_so():
    upload = _lines(META, _user("first"), _said("one"), _user("second"), _said("two"), _rollback(5), _user("again"),
                    _said("three"), _rollback(0))
    rounds = upload.conversations[0].trace.rounds
    assert [m.text for m in rounds[2].request.messages] == ["again"]
    said = [n.message for n in upload.notes if "rollback" in n.message or "rolled back" in n.message]
    assert said[0].startswith("Codex rolled back the last 2 turns of the conversation here (the person undid them)")
    assert said[1].startswith("Codex logged a rollback here (num_turns 0), but the history before it holds no turn")


def test_the_context_codex_writes_as_a_user_message_is_drawn_as_the_program_adding_it_not_the_user_asking():
    # Line 4 is a user-role message Codex wrote (AGENTS.md's instructions, then <environment_context>); line 6,
    # "show tools", is what the person typed.
    import json as json_
    from lib.sequence import sequence
    from lib.ui.charts import sequence_diagram
    trace = _read().conversations[0].trace
    assert trace.rounds[0].request.messages[2].text.startswith("# AGENTS.md instructions for /Users/Sample_User")
    arrows = sequence(trace)
    assert [a.label for a in arrows if a.source == "user"] == ["asks: show tools"]
    assert [a.label for a in arrows if a.round == 1 and (a.source, a.target) == ("program", "program")] == [
        "adds 1 message of its own context in the user's role"]
    figure = json_.loads(sequence_diagram(arrows, 3).to_json())
    texts = [a.get("text", "") for a in figure["layout"]["annotations"]]
    assert not any("AGENTS.md" in t or "environment_context" in t for t in texts)
    assert any(t.endswith("asks: show tools") for t in texts)


def _without_command_ends(lines: list[bytes]) -> bytes:
    """The recorded rollout as newer Codex versions write it: no exec_command_end (codex-rs/rollout/src/policy.rs at
    commit 0136a731d73e681bbc7826c9cf7ae2ae09d89fe9 persists no ExecCommandEnd event)."""
    return b"".join(line for line in lines if b'"type":"exec_command_end"' not in line)


def test_without_exec_command_end_the_outcome_is_read_from_the_output_codex_wrote_and_said_so():
    from lib.sequence import sequence
    from lib.steps import steps_for_round
    recorded = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)
    upload = read_upload([("rollout.jsonl", _without_command_ends(recorded))])
    trace = upload.conversations[0].trace
    first, polled, _ = trace.rounds
    # Round 1's output says the command is still running ("Process running with session ID 48230"): no end is known.
    assert first.executions == ()
    # Round 2's write_stdin output says "Process exited with code 0": that is the command's end, read from the output.
    [ran] = polled.executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == ("call_QazIeAavKevvIILVQkrDdKKT", "write_stdin",
                                                                      True, None)
    assert ran.note == ("This call wrote to (or polled) process 48230; Codex logged no end of that command (newer "
                        "versions do not write one to the rollout): its outcome is read from the output Codex wrote "
                        "for the model, which says 'Process exited with code 0'. Its run time is not logged.")
    assert "not in the log" not in provenance_detail(trace.round_provenance(polled))
    labels = [a.label for a in sequence(trace) if a.round == 2]
    assert "runs write_stdin" in labels and "returns" in labels
    assert not any("not recorded" in label for label in labels)
    steps = [label.detail for label in steps_for_round(trace, 2) if label.step == 3]
    assert steps == ["write_stdin (call_QazIeAavKevvIILVQkrDdKKT): ok"]


def _polled_while_running(lines: list[bytes]) -> bytes:
    """The recorded rollout without exec_command_end, its write_stdin returning before the command exited: the header
    of that output says the command is running, as unified exec writes it then (format_response), not that it
    exited."""
    text = _without_command_ends(lines)
    return text.replace(b"Wall time: 0.0000 seconds\\nProcess exited with code 0\\n",
                        b"Wall time: 1.0000 seconds\\nProcess running with session ID 48230\\n")


def test_a_write_stdin_whose_command_has_no_end_in_the_log_is_drawn_run_with_its_output_so_far():
    # Round 2's write_stdin polled process 48230 and came back with the command's output so far; no end of that
    # command is in the log. The note said so, but the diagram read "runs write_stdin? (not recorded)" and step 3
    # "not recorded: the trace does not say what the program ran", as if the call had not run.
    from lib.sequence import sequence
    from lib.steps import steps_for_round
    recorded = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)
    call = "call_QazIeAavKevvIILVQkrDdKKT"
    for lines in (recorded, recorded[:15]):  # mid-log, and the log ending on that output
        trace = read_upload([("rollout.jsonl", _polled_while_running(lines))]).conversations[0].trace
        polled = trace.rounds[1]
        assert polled.executions == () and polled.extra["unended_writes"] == [call]
        assert "unended_calls" not in polled.extra  # the call did not start the command: it wrote to it
        steps = [label.detail for label in steps_for_round(trace, 2) if label.step == 3]
        assert steps == [f"write_stdin ({call}): ran; the end of the command it wrote to is not in the log"]
        ran = [(a.source, a.target, a.label, a.recorded) for a in sequence(trace) if a.round == 2 and "tools" in
               (a.source, a.target)]
        assert ran == [("program", "tools", "runs write_stdin: the command's end is not in the log", True),
                       ("tools", "program", "returns its output so far", True)]
        said = provenance_detail(trace.round_provenance(polled))
        assert (f"The write_stdin call {call} wrote to (or polled) the command running as process 48230 and "
                "returned its output so far; Codex logged no end of that command") in said


def test_without_exec_command_end_a_command_whose_output_says_it_exited_with_a_code_other_than_0_failed():
    # The recorded first turn, then an exec_command that ended within its call, its output as unified exec writes it.
    recorded = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)
    added = [_user("run the tests"), _call("call_t", "pytest -q"), _count(70000, 500, 20),
             _output("call_t", "Chunk ID: 1f2e3d\nWall time: 2.1000 seconds\nProcess exited with code 1\n"
                               "Original token count: 12\nOutput:\n1 failed, 3 passed\n"),
             # Text in the command's own output is never read as its end.
             _call("call_u", "cat log.txt"), _count(71000, 500, 20),
             _output("call_u", "Chunk ID: 2a\nWall time: 0.0100 seconds\nProcess running with session ID 9\n"
                               "Output:\nProcess exited with code 0\n"),
             _said("One test fails."), _count(72000, 500, 20)]
    text = _without_command_ends(recorded).rstrip(b"\n") + b"\n" + "\n".join(map(json.dumps, added)).encode()
    trace = read_upload([("rollout.jsonl", text)]).conversations[0].trace
    ran_by_call = {c.id: r.executions for r in trace.rounds for c in r.tool_calls}
    [ran] = ran_by_call["call_t"]
    assert (ran.name, ran.ok, ran.duration_ms) == ("exec_command", False, None)
    assert ran.note == ("Codex logged no end of this command (newer versions do not write one to the rollout): its "
                        "outcome is read from the output Codex wrote for the model, which says 'Process exited with "
                        "code 1'. No run time is logged.")
    assert ran_by_call["call_u"] == ()


def test_without_exec_command_end_a_command_still_running_when_the_rollout_ends_is_said_started_and_running():
    # The recorded rollout as a newer version writes it (no exec_command_end), cut after the exec_command's output:
    # that output's header says "Process running with session ID 48230", and nothing later in the log ends it.
    from lib.steps import steps_for_round
    recorded = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)
    upload = read_upload([("rollout.jsonl", _without_command_ends(recorded[:12]))])
    trace = upload.conversations[0].trace
    [first] = trace.rounds
    said = provenance_detail(trace.round_provenance(first))
    assert ("The command exec_command started (call call_Y2p6KmqwoTtpi6atpDPuxC5M) was still running when Codex wrote "
            "its output for the model, which says 'Process running with session ID 48230'; Codex logged no end of it "
            "with that output, so whether it succeeded is not known from this call.") in said
    # How it ended is not known: no execution entry, so no card, step or arrow says it ran ok or failed.
    assert first.executions == ()
    steps = [label.detail for label in steps_for_round(trace, 1) if label.step == 3]
    assert not any(s.endswith((": ok", ": failed")) for s in steps)


def test_a_command_still_running_when_the_rollout_ends_is_drawn_started_with_its_end_not_in_the_log():
    # The same cut rollout: the note says the command started and was still running, but step 3 said "not recorded:
    # the trace does not say what the program ran" and the diagram "runs exec_command? (not recorded)", as if the log
    # held nothing of the run. It holds the start and the output so far; only the end is missing.
    from lib.sequence import sequence
    from lib.steps import steps_for_round
    recorded = (FIXTURES / FIXTURE).read_bytes().splitlines(keepends=True)
    trace = read_upload([("rollout.jsonl", _without_command_ends(recorded[:12]))]).conversations[0].trace
    call = "call_Y2p6KmqwoTtpi6atpDPuxC5M"
    assert trace.rounds[0].extra["unended_calls"] == [call]
    steps = [label.detail for label in steps_for_round(trace, 1) if label.step == 3]
    assert steps == [f"exec_command ({call}): started; its end is not in the log"]
    ran = [(a.source, a.target, a.label, a.recorded) for a in sequence(trace) if a.round == 1 and "tools" in
           (a.source, a.target)]
    assert ran == [("program", "tools", "starts exec_command: its end is not in the log", True),
                   ("tools", "program", "returns its output so far", True)]
    # Mid-log too: round 1 of the whole rollout without its end lines, its output carried by round 2's request.
    whole = read_upload([("rollout.jsonl", _without_command_ends(recorded))]).conversations[0].trace
    assert [label.detail for label in steps_for_round(whole, 1) if label.step == 3] == steps
    # A command whose end the log holds is no unended one.
    [ended] = read_upload([("rollout.jsonl", b"".join(recorded))]).conversations
    assert "unended_calls" not in ended.trace.rounds[0].extra


def test_an_apply_patch_call_is_free_text_not_arguments_that_break_their_schema():
    # Codex's apply_patch is a custom tool: the model writes the patch as free text (custom_tool_call.input). It was read
    # as JSON arguments, so every patch was "error invalid-arguments: The arguments of apply_patch break its schema
    # (not valid JSON ...)" and `lib check` exited 1 on any session that edited a file.
    from lib.checks import run_checks
    text = "*** Begin Patch\n*** Update File: a.py\n*** End Patch"
    patch = _line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c-2", "input": text})
    done = _line("response_item", {"type": "custom_tool_call_output", "call_id": "c-2", "output": "Success."})
    trace = _lines(META, _user("fix a.py"), patch, _count(10, 5, 5), done, _said("Done."),
                   _count(20, 5, 5)).conversations[0].trace
    [call] = trace.rounds[0].tool_calls
    assert (call.name, call.arguments_raw, call.arguments_error) == ("apply_patch", text, None)
    assert [f.code for f in run_checks(trace) if f.severity == "error"] == []
