"""Issue 16: Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`) read as rounds.

The fixtures are public recordings of the format (tests/fixtures/README.md says where): each test says what a user
sees of them: the format named, the conversations, the rounds, the tool calls answered, the usage as reported, and
that the log's missing system prompt and tool list are said to be missing, never shown as empty.
"""

import json
from pathlib import Path

import pytest

from lib.checks import run_checks
from lib.failures import failed_tries
from lib.logs.upload import read_upload
from lib.provenance import provenance_detail
from lib.summary import summarize
from lib.tokens import CHARACTER_COUNTER

FIXTURES = Path(__file__).parent / "fixtures"


def _read(*names: str):
    return read_upload([(name, (FIXTURES / name).read_bytes()) for name in names])


def _upload_lines(*lines: dict):
    return read_upload([("session.jsonl", "\n".join(json.dumps(line) for line in lines).encode())])


def test_a_session_is_one_conversation_each_response_a_round_cut_out_of_the_transcript():
    upload = _read("claude-code-session.jsonl")
    assert upload.summary() == "12 lines: 6 rounds in 1 conversation; 1 line not a model call; 0 lines skipped"
    assert upload.formats["claude-code"][0] == 12
    assert "a Claude Code session log" in upload.formats["claude-code"][1]
    [conversation] = upload.conversations
    assert conversation.id == "session test_session"
    rounds = conversation.trace.rounds
    assert [len(r.request.messages) for r in rounds] == [1, 3, 5, 7, 9, 11]
    assert [r.resent_prefix for r in rounds] == [0, 1, 3, 5, 7, 9]
    assert all(r.request_from_transcript for r in rounds)
    # The log ends on the person's last prompt, which no response answers: a request the log ends on.
    *rounds, unanswered = rounds
    assert (unanswered.response, unanswered.error) == (None, None)
    assert unanswered.request.messages[-1].text.startswith("This is really helpful! Let me try to implement a timing")
    assert rounds[0].request.messages[0].text == "Hello Claude! Can you help me understand how Python decorators work?"
    # The Edit call of round 2 is answered by the next request's tool_result.
    [edit] = rounds[1].tool_calls
    assert (edit.id, edit.name, edit.arguments["file_path"]) == ("tool_001", "Edit", "/tmp/decorator_example.py")
    [result] = rounds[2].request.messages[4].tool_results
    assert (result.call_id, result.content) == ("tool_001", "File created successfully at: /tmp/decorator_example.py")
    assert [r.response.finish_reason for r in rounds] == ["end_turn", "tool_use", "end_turn", "tool_use", "end_turn"]
    assert conversation.trace.model == "claude-3-sonnet-20240229"
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in rounds] == [
        (25, 120), (45, 85), (78, 95), (25, 35), (45, 110)]
    assert not [f for f in run_checks(conversation.trace) if f.code in ("missing-tool-result", "orphan-tool-result")]


def test_a_response_written_over_several_lines_is_one_round_with_its_usage_once_and_a_subagent_its_own_conversation():
    # Recorded by Claude Code 2.0.46: the subagent's response is two lines (a text block, then a Grep call) sharing
    # message.id and requestId, each repeating the call's usage.
    upload = _read("claude-code-sidechain.jsonl")
    assert upload.summary() == "6 lines: 3 rounds in 2 conversations; 0 lines skipped"
    session, subagent = upload.conversations
    assert session.id == "session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358"
    assert subagent.id == "session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358, subagent run 1"
    [searching] = subagent.trace.rounds
    assert searching.response.message.text.startswith("I'll research how `data-border-color` is used")
    assert [(c.id, c.name) for c in searching.tool_calls] == [("toolu_01BWgwmyj8gGuqFNHMPqqtN2", "Grep")]
    usage = searching.response.usage
    assert (usage.input_tokens, usage.cache_write_tokens, usage.output_tokens) == (19833, 19830, 183)
    # The session's Task call is answered in the next round's request; that round read its history from the cache.
    task, after = session.trace.rounds
    assert [(c.id, c.name) for c in task.tool_calls] == [("toolu_01JA2mLseQCAW3MdwPE4qWEk", "Task")]
    assert [p.call_id for p in after.request.messages[1].tool_results] == ["toolu_01JA2mLseQCAW3MdwPE4qWEk"]
    usage = after.response.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        144227, 141272, 2952, 190)
    # The excerpt starts mid-session: the first round's history is not in the log, and says so.
    assert not task.request_recorded


def test_a_subagent_result_whose_parent_line_the_log_lacks_joins_the_run_of_the_call_it_answers():
    # The recorded excerpt's fifth line is a subagent's tool result whose parent line the excerpt does not hold. Here
    # it answers the subagent's Grep call, which the log holds: the broken parent chain is mended by the call's id.
    lines = [json.loads(line) for line in (FIXTURES / "claude-code-sidechain.jsonl").read_text().splitlines()]
    lines[4]["message"]["content"][0]["tool_use_id"] = "toolu_01BWgwmyj8gGuqFNHMPqqtN2"
    upload = _upload_lines(*lines)
    assert [c.id for c in upload.conversations] == [
        "session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358", "session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358, subagent run 1"]
    [searching] = upload.conversations[1].trace.rounds
    [ran] = searching.executions
    assert (ran.tool_call_id, ran.name) == ("toolu_01BWgwmyj8gGuqFNHMPqqtN2", "Grep")
    assert ran.output.startswith("  3130")
    assert not upload.notes


def test_the_missing_system_prompt_and_tool_list_are_said_to_be_missing_never_empty():
    upload = _read("claude-code-session.jsonl")
    trace = upload.conversations[0].trace
    round_ = trace.rounds[1]
    assert round_.request.system is None and round_.request.tools == ()
    provenance = trace.round_provenance(round_)
    assert provenance.origin == "derived" and provenance.omitted == ("system", "tools")
    detail = provenance_detail(provenance)
    assert "Claude Code does not log its system prompt: it was sent" in detail
    assert "tool list" not in detail  # said once, where the list would be (lib.summary.tool_list_missing)
    rows = summarize(trace, CHARACTER_COUNTER)
    assert not any(row.tool_list_recorded for row in rows)  # the model called tools: a list was sent, unlogged


def test_a_session_without_usage_or_message_ids_reads_and_its_consecutive_user_lines_are_one_turn():
    # simonw/claude-code-transcripts' sample: no usage, no message ids, no stop reasons.
    upload = _read("claude-code-transcripts-sample.jsonl")
    assert upload.summary() == "8 lines: 3 rounds in 1 conversation; 1 line not a model call; 0 lines skipped"
    write, bash, last = upload.conversations[0].trace.rounds
    assert [(c.name, c.arguments["file_path"]) for c in write.tool_calls] == [("Write", "/project/hello.py")]
    assert write.response.usage is None  # not logged: the app estimates it, and says so
    assert [m.role for m in last.request.messages] == ["user", "assistant", "user", "assistant", "user"]
    # Two user lines (a tool result, then the person's next words) are one user turn, as the API reads them.
    assert [type(p).__name__ for p in last.request.messages[4].parts] == ["ToolResultPart", "TextPart"]


def test_a_log_ending_on_tool_results_keeps_them_as_what_the_program_ran():
    lines = (FIXTURES / "claude-code-session.jsonl").read_text().splitlines()
    # Cut after round 4's Bash call and its result: no request after the result was logged.
    upload = read_upload([("cut.jsonl", "\n".join(lines[:9]).encode())])
    last = upload.conversations[0].trace.rounds[-1]
    [ran] = last.executions
    assert (ran.tool_call_id, ran.name) == ("tool_002", "Bash")
    assert not ran.note  # that the log ends here is said under the lane, for every format


def test_bookkeeping_lines_are_counted_as_no_model_call_and_claude_codes_own_words_are_no_round():
    session = {"sessionId": "s-1", "isSidechain": False}
    upload = _upload_lines(
        {"type": "file-history-snapshot", "messageId": "m-0", "isSnapshotUpdate": False,
         "snapshot": {"messageId": "m-0", "trackedFileBackups": {}, "timestamp": "2026-01-01T00:00:00Z"}},
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {**session, "type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": None,
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
            "usage": {"input_tokens": 4, "output_tokens": 1}}, "requestId": "req_1"},
        # Claude Code starts the tool while the response is still being written: its result comes first.
        {**session, "type": "user", "uuid": "u-2", "parentUuid": "a-1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "README.md"}]}},
        {**session, "type": "assistant", "uuid": "a-2", "parentUuid": "u-2", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pwd"}}],
            "usage": {"input_tokens": 4, "output_tokens": 30}}, "requestId": "req_1"},
        {**session, "type": "user", "uuid": "u-3", "parentUuid": "a-2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "/work"}]}},
        {**session, "type": "system", "subtype": "turn_duration", "uuid": "y-1", "durationMs": 88947},
        {**session, "type": "assistant", "uuid": "a-3", "parentUuid": "u-3", "message": {
            "id": "msg_synthetic", "role": "assistant", "model": "<synthetic>",
            "content": [{"type": "text", "text": "No response requested."}]}},
        {**session, "type": "assistant", "uuid": "a-4", "parentUuid": "u-3", "message": {
            "id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Done."}], "usage": {"input_tokens": 60, "output_tokens": 2}}},
    )
    assert upload.summary() == "9 lines: 2 rounds in 1 conversation; 3 lines not model calls; 0 lines skipped"
    first, second = upload.conversations[0].trace.rounds
    assert [c.id for c in first.tool_calls] == ["toolu_1", "toolu_2"]
    assert (first.response.finish_reason, first.response.usage.output_tokens) == ("tool_use", 30)
    assert [m.role for m in second.request.messages] == ["user", "assistant", "user"]
    assert [p.call_id for p in second.request.messages[2].tool_results] == ["toolu_1", "toolu_2"]
    assert second.response.message.text == "Done."


def _line(uuid: str, parent: str, message: dict, kind: str = "assistant", **more) -> dict:
    """A session line in Claude Code 2.1.92's shape (its keys as a recording of that version writes them)."""
    return {"parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uuid, "sessionId": "s-2192",
            "version": "2.1.92", "timestamp": "2026-04-05T19:42:30.897Z", "message": message, **more}


def _written(msg_id: str, block: dict, stop: str | None, output: int) -> dict:
    return {"model": "claude-haiku-4-5-20251001", "id": msg_id, "type": "message", "role": "assistant",
            "content": [block], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 50973, "output_tokens": output}}


def test_a_session_log_says_an_output_count_written_before_the_response_ended_may_fall_short():
    # Claude Code 2.1.x writes each block's line as the block ends, before the response does: those lines say
    # `stop_reason: null` and the count so far (1, 8 tokens); the response's last line, written when it ended,
    # carries its stop reason and the final count (108). Where the log has no such line, the count may fall short.
    bash = {"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}
    read = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "pyproject.toml"}}
    upload = _upload_lines(
        _line("u-1", None, {"role": "user", "content": "Map this codebase."}, kind="user"),
        _line("a-1", "u-1", _written("msg_1", {"type": "text", "text": "Let me look."}, None, 8), requestId="req_1"),
        _line("a-2", "a-1", _written("msg_1", bash, "tool_use", 108), requestId="req_1"),
        _line("u-2", "a-2", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "pyproject.toml"}]}, kind="user"),
        _line("a-3", "u-2", _written("msg_2", {"type": "text", "text": "Now the config."}, None, 1),
              requestId="req_2"),
        _line("a-4", "a-3", _written("msg_2", read, None, 1), requestId="req_2"),
    )
    trace = upload.conversations[0].trace
    ended, unended = trace.rounds
    assert (ended.response.usage.output_tokens, ended.response.finish_reason) == (108, "tool_use")
    assert "may fall short" not in trace.round_provenance(ended).note
    # The second response's lines were all written before it ended: its count (1) may fall short, and the log does
    # not say why the model stopped, so no stop reason is shown as if it had been recorded.
    assert unended.response.usage.output_tokens == 1
    note = trace.round_provenance(unended).note
    assert "Claude Code writes each assistant line before the response ends, so the output count on its lines " \
           "may fall short of what the call produced; the log kept no later count for this response." in note
    assert "the log does not record why the model stopped" in note
    assert (unended.response.finish_reason, unended.response.finish_reason_path) == (None, None)
    # A 2.1.233 recording (OthmanAdi/margin) whose lines all carry the stop reason and final count: nothing said.
    recorded = _read("claude-code-2.1.233.jsonl").conversations[0].trace
    assert [(r.response.finish_reason, r.response.usage.output_tokens) for r in recorded.rounds] == [
        ("tool_use", 135), ("end_turn", 177)]
    assert not any("may fall short" in recorded.round_provenance(r).note for r in recorded.rounds)


def test_claude_codes_api_error_line_is_a_failed_round_and_an_interruption_no_model_call():
    # Claude Code writes a call that failed as an assistant line of its own (`model: "<synthetic>"`, flagged
    # `isApiErrorMessage`), in the shapes of 2.1.x lines: a rate limit with `apiErrorStatus`, a server error whose
    # status is only in its text, and an error without any status.
    session = {"sessionId": "s-err", "isSidechain": False}

    def failed(uuid: str, parent: str, text: str, **more) -> dict:
        return {**session, "type": "assistant", "uuid": uuid, "parentUuid": parent, "isApiErrorMessage": True,
                **more, "message": {"id": f"msg_{uuid}", "model": "<synthetic>", "role": "assistant",
                                    "type": "message", "content": [{"type": "text", "text": text}]}}

    upload = _upload_lines(
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        failed("e-1", "u-1", "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                             "\"message\":\"Internal server error\"}}"),
        {**session, "type": "user", "uuid": "u-2", "parentUuid": "e-1",
         "message": {"role": "user", "content": "try again"}},
        failed("e-2", "u-2", "You've hit your session limit · resets 9:50pm", error="rate_limit",
               apiErrorStatus=429),
        failed("e-3", "e-2", "API Error: Connection closed mid-response"),
        {**session, "type": "user", "uuid": "u-3", "parentUuid": "e-3", "message": {"role": "user", "content": "go"}},
        {**session, "type": "assistant", "uuid": "a-1", "parentUuid": "u-3", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Hello."}], "usage": {"input_tokens": 9, "output_tokens": 2}}},
        {**session, "type": "user", "uuid": "u-4", "parentUuid": "a-1",
         "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}},
        {**session, "type": "assistant", "uuid": "a-2", "parentUuid": "u-4", "message": {
            "id": "msg_synthetic", "role": "assistant", "model": "<synthetic>",
            "content": [{"type": "text", "text": "No response requested."}]}},
    )
    # The rate-limited request went out again with nothing new (e-3 goes on from e-2): one round with its two tries.
    assert upload.summary() == ("9 lines: 3 rounds in 1 conversation; 1 round sent more than once (session s-err, "
                                "round 2: HTTP 429, then no answer); 1 line not a model call; 0 lines skipped")
    trace = upload.conversations[0].trace
    server, limit, answered = trace.rounds
    assert [(r.error.status, r.response) for r in (server, limit)] == [(500, None), (None, None)]
    assert server.error.message.startswith("API Error: 500")
    assert limit.error.message == "API Error: Connection closed mid-response"
    assert [(t["status"], t["message"]) for t in failed_tries(limit)] == [
        (429, "You've hit your session limit · resets 9:50pm")]
    # Each failed request is the conversation before the error: the person's words the call carried.
    assert [m.text for m in server.request.messages] == ["hi"]
    assert [[p.text for p in m.parts] for m in limit.request.messages] == [["hi", "try again"]]
    assert [m.role for m in answered.request.messages] == ["user"] and answered.response.message.text == "Hello."
    said = [f.message for f in run_checks(trace) if f.code == "provider-error"]
    assert len(said) == 2
    assert any("with HTTP 500" in s for s in said)
    assert any("(HTTP status not recorded)" in s and s.endswith("HTTP 429, then no answer.") for s in said)
    assert "Claude Code wrote this error in the log in place of a response" in trace.round_provenance(server).note
    # stream-json writes the same line with its own keys (`is_api_error_message`).
    streamed = _upload_lines(
        {**STREAMED, "type": "system", "subtype": "init", "model": "claude-sonnet-4-5", "tools": ["Bash"]},
        {**STREAMED, "type": "assistant", "parent_tool_use_id": None, "uuid": "a", "is_api_error_message": True,
         "message": {"id": "msg_e", "model": "<synthetic>", "role": "assistant", "type": "message",
                     "content": [{"type": "text", "text": "API Error: 529 Overloaded"}]}},
    )
    [overloaded] = streamed.conversations[0].trace.rounds
    assert (overloaded.error.status, overloaded.error.message) == (529, "API Error: 529 Overloaded")
    provenance = streamed.conversations[0].trace.round_provenance(overloaded)
    assert "Cut out of Claude Code's stream-json output" in provenance.note
    assert "a user turn (the person's prompt)" in provenance.omitted


def _cut_by_error() -> tuple[list[dict], list[dict]]:
    """The 2.1.233 recording's prompt and the first two lines of its first response (thinking, then text), written
    as 2.1.x writes a block's line before the response ends (`stop_reason: null`), then the API-error line Claude
    Code writes when the connection breaks before the tool_use line came; and the recording's lines."""
    lines = [json.loads(line) for line in (FIXTURES / "claude-code-2.1.233.jsonl").read_text().splitlines()]
    prompt, thinking, text = lines[2], lines[4], lines[5]
    for written in (thinking, text):
        written["message"]["stop_reason"] = None
    error = {"sessionId": prompt["sessionId"], "isSidechain": False, "type": "assistant", "uuid": "e-1",
             "parentUuid": text["uuid"], "isApiErrorMessage": True,
             "message": {"id": "msg_e-1", "model": "<synthetic>", "role": "assistant", "type": "message",
                         "content": [{"type": "text", "text": "API Error: Connection closed mid-response"}]}}
    return [prompt, thinking, text, error], lines


def test_an_api_error_while_a_response_is_still_being_written_ends_that_call_one_round_not_two():
    # The connection broke while the response was being written: one call, its lines and the error that ended it.
    (prompt, thinking, text, error), lines = _cut_by_error()
    session = {"sessionId": prompt["sessionId"], "isSidechain": False}
    again = {**session, "type": "user", "uuid": "u-2", "parentUuid": "e-1",
             "message": {"role": "user", "content": "try again"}}
    upload = _upload_lines(prompt, thinking, text, error, again, {**lines[8], "parentUuid": "u-2"}, lines[9])
    trace = upload.conversations[0].trace
    cut, answered = trace.rounds
    assert [b.get("type") for b in cut.response.raw["content"]] == ["thinking", "text"]
    assert (cut.error.status, cut.error.message) == (None, "API Error: Connection closed mid-response")
    assert [m.text for m in cut.request.messages] == [prompt["message"]["content"]]
    assert "The call failed while its response was being written" in trace.round_provenance(cut).note
    [failed] = [f.message for f in run_checks(trace) if f.code == "provider-error"]
    assert "The response broke off part way: what came before the failure is shown" in failed
    # A response whose lines were all in (its stop reason recorded) is its own round; the error after it is the next.
    ended = [dict(line, message={**line["message"], "stop_reason": "end_turn"}) for line in (thinking, text)]
    rounds = _upload_lines(prompt, *ended, error).conversations[0].trace.rounds
    assert [(r.response is not None, r.error is not None) for r in rounds] == [(True, False), (False, True)]


def test_the_explorer_shows_the_error_and_what_came_back_before_it_of_a_response_an_error_cut_short(app):
    from lib.ui import state
    cut, _ = _cut_by_error()
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("cut.jsonl", "\n".join(json.dumps(line) for line in cut).encode())
    at.run()
    at.number_input(key=state.ROUND).set_value(1).run()
    assert not at.exception
    assert any(e.value.startswith("The call failed, and no HTTP status was recorded") for e in at.error)
    shown = [t.value for t in at.main.text] + [c.value for c in at.main.code]
    assert "API Error: Connection closed mid-response" in shown
    assert "I'll run that bash command for you." in shown


def test_the_html_export_shows_the_error_and_what_came_back_before_it_of_a_response_an_error_cut_short():
    from lib.export_html import trace_html
    cut, _ = _cut_by_error()
    page = trace_html(_upload_lines(*cut).conversations[0].trace)
    failed = page.index("API Error: Connection closed mid-response")
    assert page.index("Before the call failed, part of the response had come back:") > failed
    assert page.index("I&#39;ll run that bash command for you.") > failed


def test_a_subagent_whose_rounds_close_first_is_still_listed_after_the_session_that_started_it():
    session = {"sessionId": "s-order"}
    task = {"type": "tool_use", "id": "toolu_task", "name": "Task", "input": {"prompt": "count the files"}}

    def said(uuid: str, parent: str, msg_id: str, blocks: list, sidechain: bool = False) -> dict:
        return {**session, "type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": sidechain,
                "message": {"id": msg_id, "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                            "content": blocks, "usage": {"input_tokens": 5, "output_tokens": 3}}}

    def heard(uuid: str, parent: str, content, sidechain: bool = False) -> dict:
        return {**session, "type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": sidechain,
                "message": {"role": "user", "content": content}}

    upload = _upload_lines(
        heard("u-1", None, "How many files?"),
        said("a-1", "u-1", "msg_1", [task]),
        heard("s-u1", None, "count the files", sidechain=True),
        said("s-a1", "s-u1", "msg_s1", [{"type": "tool_use", "id": "toolu_ls", "name": "Bash",
                                         "input": {"command": "ls"}}], sidechain=True),
        heard("s-u2", "s-a1", [{"type": "tool_result", "tool_use_id": "toolu_ls", "content": "a b c"}],
              sidechain=True),
        said("s-a2", "s-u2", "msg_s2", [{"type": "text", "text": "3 files"}], sidechain=True),
        heard("u-2", "a-1", [{"type": "tool_result", "tool_use_id": "toolu_task", "content": "3 files"}]),
        said("a-2", "u-2", "msg_2", [{"type": "text", "text": "There are 3 files."}]),
    )
    assert [c.id for c in upload.conversations] == ["session s-order", "session s-order, subagent run 1"]
    assert [len(c.trace.rounds) for c in upload.conversations] == [2, 2]


def test_a_damaged_line_is_a_problem_naming_the_line_and_the_rest_still_load():
    # daaain/claude-code-log's edge cases: a message whose content key is misspelt, a message that is a string,
    # a content list holding a bare string, and lines that are no JSON object.
    upload = _read("claude-code-edge-cases.jsonl")
    said = [upload.said(p) for p in upload.problems]
    assert said[0] == ("line 10: the user line's message.content is missing, expected a string or a list of blocks "
                       "(read as Claude Code session log)")
    assert said[1] == "line 11: 'message' is a string, expected an object (read as Claude Code session log)"
    assert said[-1].startswith("line 18: the user line's message.content[0] is a string")
    assert [c.id for c in upload.conversations] == ["session edge_cases", "session todowrite_session"]
    assert len(upload.conversations[0].trace.rounds) == 4


def test_a_last_prompt_after_a_call_whose_result_the_log_lost_is_the_request_the_log_ends_on():
    # The edge cases end on the person's "Testing special characters: café, ..." after round 3's MultiEdit call, whose
    # result sat on line 10, the line with its content key misspelt. The prompt was on no page: the rule that made the
    # last prompt a round of its own left it out wherever a call before it had no result in the log.
    upload = _read("claude-code-edge-cases.jsonl")
    rounds = upload.conversations[0].trace.rounds
    assert [len(r.request.messages) for r in rounds] == [1, 3, 5, 7]
    last = rounds[-1]
    assert (last.response, last.error) == (None, None)
    assert last.request.messages[-1].text.startswith("Testing special characters: café, naïve, résumé")
    assert [c.id for c in last.request.messages[-2].tool_calls] == ["tool_edge_002"]
    assert "A call of the response before it has no result in the log (a line the log could not read may have held " \
           "it" in last.provenance.note
    # The history it holds lacks the call's result, which the checks say as of a transcript: no request on record.
    (missing,) = [f for f in run_checks(upload.conversations[0].trace) if f.code == "missing-tool-result"]
    assert (missing.round, missing.severity) == (4, "error")
    assert missing.message.startswith("This transcript records no result for the MultiEdit call tool_edge_002 before "
                                      "the last turn, where the log ends: the log kept none")


def test_other_formats_lines_are_not_taken_for_claude_codes():
    from lib.logs.claude_code import ClaudeCodeFormat
    detect = ClaudeCodeFormat().detect
    assert detect({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}) is None
    assert detect({"type": "message", "role": "assistant", "content": [], "id": "msg_1"}) is None
    assert detect({"type": "assistant", "message": {"role": "assistant", "content": "x"}}) is None  # no session key
    assert detect({"type": "summary", "summary": "Title", "leafUuid": "u-9"})


@pytest.mark.parametrize("fixture", ["claude-code-session.jsonl", "claude-code-edge-cases.jsonl",
                                     "claude-code-transcripts-sample.jsonl", "claude-stream-json-sample.jsonl"])
def test_what_a_coding_agent_composes_itself_is_not_called_a_value_someone_should_have_given(fixture):
    # A Bash call's description ("Commit changes") and command ("ls"), the file it writes ("/project/hello.py") and
    # what it writes there ("hello"), the timeout it lets a command run: the model's own work, not a fact to ask for.
    upload = _read(fixture)
    assert [f.brief for c in upload.conversations for f in run_checks(c.trace) if f.code == "model-filled-value"] == []


def test_a_value_the_model_filled_is_not_said_to_be_missing_from_instructions_the_log_does_not_keep():
    # Claude Code's system prompt is not in its log: a date in a call may come from there (it names today's date).
    session = {"sessionId": "s-3", "isSidechain": False}
    upload = _upload_lines(
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None,
         "message": {"role": "user", "content": "Book the team room for the retro"}},
        {**session, "type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "requestId": "req_1", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__rooms__book",
                         "input": {"room": "team room", "date": "2026-11-24", "description": "Sprint retro"}}],
            "usage": {"input_tokens": 4, "output_tokens": 30}}})
    [filled] = [f for f in run_checks(upload.conversations[0].trace) if f.code == "model-filled-value"]
    assert filled.brief == 'Filled by the model, in no earlier message: date "2026-11-24"'
    assert "the log does not keep the instructions, which may hold it" in filled.message
    assert "a tool result, the instructions)" not in filled.message


CHAT_ONLY = [
    {"type": "user", "sessionId": "s-2", "uuid": "u-1", "parentUuid": None,
     "message": {"role": "user", "content": "What does this repository do?"}},
    {"type": "assistant", "sessionId": "s-2", "uuid": "a-1", "parentUuid": "u-1", "requestId": "req_1",
     "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                 "content": [{"type": "text", "text": "It reads logs."}],
                 "usage": {"input_tokens": 3, "cache_read_input_tokens": 14000, "output_tokens": 5}}},
]
"""A session in which the model called no tool: Claude Code sent its tool list all the same."""


def test_a_session_without_tool_calls_never_says_its_requests_carried_no_tools():
    from lib.slide_words import snowball, tools_line
    from lib.summary import TOOL_LIST_NOT_LOGGED, tool_list_missing
    trace = _upload_lines(*CHAT_ONLY).conversations[0].trace
    [row] = summarize(trace, CHARACTER_COUNTER)
    assert not row.tool_list_recorded and row.tool_list_never_logged
    assert tool_list_missing(row.tool_list_never_logged) == TOOL_LIST_NOT_LOGGED
    assert tools_line(snowball(trace, (row,), 1)) == (
        "not in the log (its format does not always keep the tool list; it is not counted here)")


def test_after_a_compaction_the_requests_start_again_from_its_summary():
    session = {"sessionId": "s-3", "isSidechain": False}
    upload = _upload_lines(
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {**session, "type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "long work"}], "usage": {"input_tokens": 9, "output_tokens": 9}}},
        {**session, "type": "system", "subtype": "compact_boundary", "uuid": "c-1", "parentUuid": None,
         "logicalParentUuid": "a-1", "content": "Conversation compacted",
         "compactMetadata": {"trigger": "auto", "preTokens": 155025}},
        {**session, "type": "user", "uuid": "s-1", "parentUuid": "c-1", "isCompactSummary": True,
         "message": {"role": "user", "content": [{"type": "text", "text": "Summary: long work done."}]}},
        {**session, "type": "assistant", "uuid": "a-2", "parentUuid": "s-1", "message": {
            "id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Carrying on."}], "usage": {"input_tokens": 5, "output_tokens": 3}}},
    )
    assert upload.summary() == "5 lines: 2 rounds in 1 conversation; 1 line not a model call; 0 lines skipped"
    before, after = upload.conversations[0].trace.rounds
    assert [m.text for m in after.request.messages] == ["Summary: long work done."]
    assert after.resent_prefix == 0
    assert [upload.said(n) for n in upload.notes] == [
        "line 3: Claude Code compacted the conversation here: the requests after this line start again from its "
        "summary, not from the turns before it"]


def _compacted_session(metadata: dict) -> list[dict]:
    """A session compacted after its second answer, keeping the second prompt and its answer (the boundary line in
    the shape Claude Code 2.1.226 writes it: `preservedSegment` and `preservedMessages`, whose `allUuids` also names
    a line that is no message)."""
    session = {"sessionId": "s-4", "isSidechain": False}

    def answer(uuid: str, parent: str, msg: str, text: str) -> dict:
        return {**session, "type": "assistant", "uuid": uuid, "parentUuid": parent, "message": {
            "id": msg, "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 9, "output_tokens": 9}}}

    return [
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None,
         "message": {"role": "user", "content": "Read the notes."}},
        answer("a-1", "u-1", "msg_1", "They say hello."),
        {**session, "type": "user", "uuid": "u-2", "parentUuid": "a-1",
         "message": {"role": "user", "content": "Now count their words."}},
        {**session, "type": "attachment", "uuid": "at-1", "parentUuid": "u-2", "attachment": {"type": "todo"}},
        answer("a-2", "at-1", "msg_2", "Two words."),
        {**session, "type": "system", "subtype": "compact_boundary", "uuid": "c-1", "parentUuid": None,
         "logicalParentUuid": "a-2", "content": "Conversation compacted", "level": "info",
         "compactMetadata": {"trigger": "manual", "preTokens": 801920, "postTokens": 19650, **metadata}},
        {**session, "type": "user", "uuid": "s-1", "parentUuid": "c-1", "isCompactSummary": True,
         "message": {"role": "user", "content": [{"type": "text", "text": "Summary: notes read."}]}},
        {**session, "type": "user", "uuid": "u-3", "parentUuid": "a-2",
         "message": {"role": "user", "content": "And now?"}},
        answer("a-3", "u-3", "msg_3", "Done."),
    ]


@pytest.mark.parametrize("metadata", [
    {"preservedSegment": {"headUuid": "u-2", "anchorUuid": "s-1", "tailUuid": "a-2"},
     "preservedMessages": {"anchorUuid": "s-1", "uuids": ["u-2", "a-2"], "allUuids": ["u-2", "at-1", "a-2"]}},
    {"preservedSegment": {"headUuid": "u-2", "anchorUuid": "s-1", "tailUuid": "a-2"}},
], ids=["preserved messages", "preserved segment only"])
def test_after_a_compaction_the_requests_carry_the_turns_it_kept_after_its_summary(metadata):
    upload = _upload_lines(*_compacted_session(metadata))
    *_, after = upload.conversations[0].trace.rounds
    assert [(m.role, [p.text for p in m.parts]) for m in after.request.messages] == [
        ("user", ["Summary: notes read.", "Now count their words."]),
        ("assistant", ["Two words."]),
        ("user", ["And now?"]),
    ]
    assert [upload.said(n) for n in upload.notes] == [
        "line 6: Claude Code compacted the conversation here: the requests after this line start again from its "
        "summary and the 2 turns it kept (named in its compactMetadata), not from the other turns before it"]


def test_a_compaction_that_kept_messages_the_log_does_not_hold_says_the_requests_lack_them():
    lines = _compacted_session({"preservedMessages": {"anchorUuid": "s-1", "uuids": ["u-0", "a-2"]}})
    upload = _upload_lines(*lines)
    *_, after = upload.conversations[0].trace.rounds
    assert [m.role for m in after.request.messages] == ["user", "assistant", "user"]
    assert [upload.said(n) for n in upload.notes] == [
        "line 6: Claude Code compacted the conversation here: the requests after this line start again from its "
        "summary and the 1 turn it kept (named in its compactMetadata), not from the other turns before it; 1 of "
        "the messages it says it kept is not in the log, so the requests after it lack it"]


# --- Claude Code's stream-json output (`claude -p --output-format stream-json --verbose`, the Agent SDK) ------------


def test_stream_json_is_named_with_its_rule_each_response_a_round_its_usage_once_and_the_missing_prompt_said():
    # Recorded from Claude Code 2.1.285 (littlebearapps/untether): one run, two responses each written over two lines,
    # a rate_limit_event, thinking_tokens lines and the closing result line. The run did not echo the prompt.
    upload = _read("claude-stream-json-read.jsonl")
    assert upload.summary() == "10 lines: 2 rounds in 1 conversation; 5 lines not model calls; 0 lines skipped"
    assert list(upload.formats) == ["claude-stream-json"]
    assert "a line with 'session_id' and 'parent_tool_use_id' (Claude Code's stream-json output) (5 lines)" in (
        upload.formats["claude-stream-json"][1])
    [conversation] = upload.conversations
    assert conversation.id == "session 4cda4f2a-2a49-499b-af37-c6f4739bd0c7"
    read, answer = conversation.trace.rounds
    assert [(c.id, c.name, c.arguments) for c in read.tool_calls] == [
        ("toolu_01HuM79SMKPFWsfqfwtvd858", "Read", {"file_path": "/tmp/fixture/big1.txt"})]
    assert [p.call_id for p in answer.request.messages[1].tool_results] == ["toolu_01HuM79SMKPFWsfqfwtvd858"]
    assert answer.response.message.text == "901"
    usage = read.response.usage  # two lines, each repeating the call's usage: counted once
    assert (usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (13780, 7424, 3)
    # The first request is not shown as an empty conversation: the log lacks the prompt, and says so.
    assert not read.request_recorded
    provenance = conversation.trace.round_provenance(read)
    assert provenance.omitted == ("system", "tools", "a user turn (the person's prompt)")
    assert "A user turn before this response is not in the log either (the person's prompt" in provenance_detail(
        provenance)
    assert "a user turn (the person's prompt)" in conversation.trace.round_provenance(answer).omitted  # still lacks it
    said = [upload.said(n) for n in upload.notes]
    assert "line 2: the person's prompt before this response is not in the log (stream-json echoes it only when the " \
           "run used --replay-user-messages): the request shown lacks it" in said
    # The result line is no round; its totals are checked against the rounds', and the difference said.
    assert ("line 10: the result line's usage differs from the sum of the 2 rounds read since the run began "
            "(output 234 against 4); each round shows the counts its own lines report") in said
    assert "may fall short of what the call produced" in provenance.note


def test_stream_json_init_line_names_the_tools_offered_but_never_stands_for_their_definitions():
    upload = _read("claude-stream-json-read.jsonl")
    trace = upload.conversations[0].trace
    [init] = [upload.said(n) for n in upload.notes if n.line == 1]
    assert init.startswith("line 1: Claude Code's init line says the run was started with model "
                           "claude-haiku-4-5-20251001 and offered 29 tools by name (Task, Bash, CronCreate,")
    assert init.endswith("the log keeps their names only, not their definitions, so the tool list is neither shown nor "
                         "counted")
    rows = summarize(trace, CHARACTER_COUNTER)
    assert all(r.request.tools == () for r in trace.rounds)
    assert all(row.tool_list_never_logged and not row.tool_list_recorded for row in rows)


def test_stream_json_with_the_prompt_echoed_reads_it_and_a_result_without_responses_is_said():
    # littlebearapps/untether's sample, written by that project in the CLI's shape: a prompt echoed
    # (--replay-user-messages), two tool results on two lines, a second session that ended in an error, and a
    # rate_limit_event without a session_id.
    upload = _read("claude-stream-json-sample.jsonl")
    assert upload.summary() == "10 lines: 2 rounds in 1 conversation; 5 lines not model calls; 0 lines skipped"
    first, second = upload.conversations[0].trace.rounds
    assert first.request.messages[0].text == "List the files in the current directory, then summarize what you see."
    assert upload.conversations[0].trace.round_provenance(first).omitted == ("system", "tools")
    assert [p.call_id for p in second.request.messages[2].tool_results] == ["toolu_01BASH_LS_EXAMPLE", "toolu_02"]
    said = [upload.said(n) for n in upload.notes]
    assert not [s for s in said if "prompt before this response" in s]
    assert ("line 9: the result line reports usage (input 40, output 12) for a run whose responses are not in the "
            "log; the run ended with error_during_execution") in said


STREAMED = {"session_id": "s-9"}
"""The keys every line of the run below shares."""


def _event(event: dict, parent: str | None = None) -> dict:
    return {**STREAMED, "type": "stream_event", "event": event, "parent_tool_use_id": parent, "uuid": "e"}


def _assistant(msg_id: str, blocks: list, parent: str | None = None, output: int = 1) -> dict:
    return {**STREAMED, "type": "assistant", "parent_tool_use_id": parent, "uuid": "a", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": None,
        "content": blocks, "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": output}}}


def _results(call: str, text: str, parent: str | None = None) -> dict:
    return {**STREAMED, "type": "user", "parent_tool_use_id": parent, "uuid": "u", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": text}]}}


TASK = {"type": "tool_use", "id": "toolu_task", "name": "Task", "input": {"prompt": "count the files"}}
"""The session's call that starts a subagent."""


def test_stream_json_subagent_lines_are_their_own_conversation_and_stream_events_do_not_double_rounds_or_usage():
    upload = _upload_lines(
        {**STREAMED, "type": "system", "subtype": "init", "model": "claude-sonnet-4-5", "tools": ["Task", "Bash"]},
        {**STREAMED, "type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": "Count."}},
        _event({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        _event({"type": "content_block_start", "index": 0, "content_block": {**TASK, "input": {}}}),
        _event({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
        _event({"type": "content_block_stop", "index": 0}),
        _assistant("msg_1", [TASK]),
        _event({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 57}}),
        _event({"type": "message_stop"}),
        {**STREAMED, "type": "user", "parent_tool_use_id": "toolu_task",
         "message": {"role": "user", "content": [{"type": "text", "text": "count the files"}]}},
        _assistant("msg_s1", [{"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}],
                   parent="toolu_task", output=9),
        _results("toolu_ls", "a b c", parent="toolu_task"),
        _assistant("msg_s2", [{"type": "text", "text": "3 files"}], parent="toolu_task"),
        _results("toolu_task", "3 files"),
        _assistant("msg_2", [{"type": "text", "text": "There are 3 files."}]),
        {**STREAMED, "type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
         "usage": {"input_tokens": 20, "cache_read_input_tokens": 400, "output_tokens": 68}},
    )
    assert upload.summary() == "16 lines: 4 rounds in 2 conversations; 8 lines not model calls; 0 lines skipped"
    by_id = {c.id: c for c in upload.conversations}
    assert by_id.keys() == {"session s-9", "session s-9, subagent of call toolu_task"}
    session, subagent = by_id["session s-9"], by_id["session s-9, subagent of call toolu_task"]
    task, answer = session.trace.rounds
    assert [c.id for c in task.tool_calls] == ["toolu_task"]
    # The usage the stream wrote when the response ended replaces the count on its line, taken once.
    assert (task.response.usage.output_tokens, task.response.finish_reason) == (57, "tool_use")
    assert "may fall short" not in session.trace.round_provenance(task).note
    assert [p.call_id for p in answer.request.messages[2].tool_results] == ["toolu_task"]
    listing, counted = subagent.trace.rounds
    assert listing.request.messages[0].text == "count the files"  # the subagent's prompt was on record
    assert [m.role for m in counted.request.messages] == ["user", "assistant", "user"]
    # The result's totals are those of the four rounds: no note.
    assert not [n for n in upload.notes if "result line" in n.message]


def test_stream_json_a_later_prompt_the_log_lacks_is_said_at_the_response_after_it():
    upload = _upload_lines(
        {**STREAMED, "type": "system", "subtype": "init", "model": "claude-sonnet-4-5", "tools": []},
        {**STREAMED, "type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": "Hi."}},
        _assistant("msg_1", [{"type": "text", "text": "Hello."}]),
        {**STREAMED, "type": "result", "subtype": "success", "is_error": False},
        {**STREAMED, "type": "system", "subtype": "init", "model": "claude-sonnet-4-5", "tools": []},
        _assistant("msg_2", [{"type": "text", "text": "Done."}]),
    )
    first, second = upload.conversations[0].trace.rounds
    trace = upload.conversations[0].trace
    assert trace.round_provenance(first).omitted == ("system", "tools")
    assert trace.round_provenance(second).omitted == ("system", "tools", "a user turn (the person's prompt)")
    assert [n.line for n in upload.notes if "prompt before this response" in n.message] == [6]


def test_amps_claude_compatible_stream_json_is_named_amps_never_claude_codes():
    # littlebearapps/untether's samples of `amp -x --stream-json` (Amp thread ids `T-<uuid>`): Claude Code's shapes,
    # no message ids. Read as Amp's output: the rounds and tool results as Claude Code's, nothing said of Claude Code.
    upload = _read("amp-stream-json-success.jsonl")
    assert upload.summary() == "5 lines: 2 rounds in 1 conversation; 2 lines not model calls; 0 lines skipped"
    assert list(upload.formats) == ["amp-stream-json"]
    assert "is an Amp thread id (T-...): Amp's output" in upload.formats["amp-stream-json"][1]
    [conversation] = upload.conversations
    assert conversation.id == "session T-2775dc92-90ed-4f85-8b73-8f9766029e83"
    bash, answer = conversation.trace.rounds
    assert [(c.id, c.name, c.arguments) for c in bash.tool_calls] == [("toolu_01", "Bash", {"command": "echo hello"})]
    assert [p.call_id for p in answer.request.messages[1].tool_results] == ["toolu_01"]
    assert (answer.response.message.text, answer.response.usage.output_tokens) == ("hello", 10)
    trace = conversation.trace
    said = [upload.said(n) for n in upload.notes] + [trace.round_provenance(r).note for r in (bash, answer)]
    assert not [s for s in said if "Claude Code" in s]
    assert "Cut out of Amp's stream-json output" in said[-1]
    assert "line 1: Amp's init line says the run offered 3 tools by name (Bash, Read, Write)" in said[0]
    failed = _read("amp-stream-json-error.jsonl")
    assert list(failed.formats) == ["amp-stream-json"]
    # The run's own words say why it ended; the note said only "the run ended with error".
    assert [failed.said(n) for n in failed.notes] == [
        "line 1: Amp's init line says the run offered no tools",
        'line 2: the run ended with error (its words: "Authentication failed")']


def _amp_run(session: str) -> list[dict]:
    """A run of `amp -x --stream-json` as amp 0.0.1775837683 writes one (keys and values as a public project's Amp
    parser tests hold its captured stdout, the tool list cut): an init line naming the working directory and no model,
    the echoed prompt, an assistant line with usage and no message id or model, the result without cost or usage."""
    return [
        {"type": "system", "subtype": "init", "cwd": "/Users/test/repo", "session_id": session,
         "tools": ["Bash", "Read", "Task"], "mcp_servers": []},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "What is 2+2? Answer in one number only."}]},
         "parent_tool_use_id": None, "session_id": session},
        {"type": "assistant", "message": {"type": "message", "role": "assistant", "content": [
            {"type": "text", "text": "4"}], "stop_reason": "end_turn", "usage": {
            "input_tokens": 7, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 14009, "output_tokens": 13,
            "max_tokens": 300000, "service_tier": "standard"}}, "parent_tool_use_id": None, "session_id": session},
        {"type": "result", "subtype": "success", "duration_ms": 2442, "is_error": False, "num_turns": 1, "result": "4",
         "session_id": session},
    ]


@pytest.mark.parametrize("session", ["T-019e47a8-5090-7538-9035-f2fde26859b7", "9f0c2d7e-redacted"],
                         ids=["thread id", "thread id rewritten"])
def test_amps_output_is_known_by_its_shape_as_well_as_by_its_thread_id(session):
    upload = _upload_lines(*_amp_run(session))
    assert list(upload.formats) == ["amp-stream-json"]
    [answer] = upload.conversations[0].trace.rounds
    assert [m.text for m in answer.request.messages] == ["What is 2+2? Answer in one number only."]
    assert answer.response.message.text == "4"
    # Claude Code's outputs stay its own: their init lines name the model, their responses carry the API's id.
    for name in ("claude-stream-json-read.jsonl", "claude-stream-json-sample.jsonl"):
        assert list(_read(name).formats) == ["claude-stream-json"]


def test_stream_json_a_damaged_line_is_a_problem_naming_the_line_and_the_rest_still_load():
    upload = _upload_lines(
        {**STREAMED, "type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": "Hi."}},
        {**STREAMED, "type": "assistant", "parent_tool_use_id": None, "message": {"role": "assistant"}},
        _event("not an event"),
        _assistant("msg_1", [{"type": "text", "text": "Hello."}]),
    )
    assert [upload.said(p) for p in upload.problems] == [
        "line 2: the assistant line's message.content is missing, expected a string or a list of blocks (read as "
        "Claude Code stream-json output)",
        "line 3: 'event' is a string, expected an object (read as Claude Code stream-json output)"]
    assert len(upload.conversations[0].trace.rounds) == 1


def test_stream_json_and_session_logs_do_not_take_each_others_lines_nor_other_formats():
    from lib.logs.claude_stream_json import ClaudeStreamJsonFormat
    detect = ClaudeStreamJsonFormat().detect
    assert _read("claude-code-sidechain.jsonl").formats.keys() == {"claude-code"}
    assert detect({"type": "assistant", "sessionId": "s", "uuid": "u", "message": {"role": "assistant"}}) is None
    assert detect({"type": "result", "result": "done"}) is None  # no session_id
    assert detect({"type": "message_start", "message": {"id": "msg_1"}}) is None
    assert detect({"type": "rate_limit_event", "rate_limit_info": {}}) is None  # not before a line of stream-json


def test_stream_json_after_a_compaction_the_next_request_says_it_lacks_the_summary():
    upload = _upload_lines(
        {**STREAMED, "type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": "Go."}},
        _assistant("msg_1", [{"type": "text", "text": "Long work."}]),
        {**STREAMED, "type": "system", "subtype": "compact_boundary", "uuid": "c",
         "compact_metadata": {"trigger": "auto", "pre_tokens": 155025}},
        _assistant("msg_2", [{"type": "text", "text": "Carrying on."}]),
    )
    before, after = upload.conversations[0].trace.rounds
    assert not after.request_recorded  # not the turns before the compaction, and not an empty conversation
    assert [upload.said(n) for n in upload.notes] == [
        "line 3: Claude Code compacted the conversation here: the requests after this line start again from its "
        "summary, not from the turns before it",
        "line 4: the summary Claude Code started the conversation again from after the compaction is not in the log: "
        "the request shown lacks it"]


def test_stream_json_the_summary_a_compaction_writes_as_a_user_line_is_what_the_next_request_starts_from():
    # Claude Code 2.1.207 writes the summary after the boundary as a user line without 'parent_tool_use_id'
    # ("isSynthetic": true): it is stream-json's line, not a session log's for its 'uuid'.
    upload = _upload_lines(
        {**STREAMED, "type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": "Go."}},
        _assistant("msg_1", [{"type": "text", "text": "Long work."}]),
        {**STREAMED, "type": "system", "subtype": "compact_boundary", "uuid": "c",
         "compact_metadata": {"trigger": "manual", "pre_tokens": 36663, "post_tokens": 972}},
        {**STREAMED, "type": "user", "uuid": "s", "isReplay": False, "isSynthetic": True,
         "message": {"role": "user", "content": "This session is being continued from a previous conversation."}},
        _assistant("msg_2", [{"type": "text", "text": "Carrying on."}]),
    )
    assert list(upload.formats) == ["claude-stream-json"]
    before, after = upload.conversations[0].trace.rounds
    assert [m.text for m in after.request.messages] == ["This session is being continued from a previous conversation."]
    assert upload.conversations[0].trace.round_provenance(after).omitted == ("system", "tools")
    assert not [n for n in upload.notes if "not in the log" in n.message]


def test_a_damaged_call_id_costs_that_call_s_pairing_not_the_session():
    # Found by the damage test: a tool_use id written as a list stopped the whole file at its end ("unhashable type"),
    # losing a round; the call is now simply unpaired with its result.
    lines = (FIXTURES / "claude-code-sidechain.jsonl").read_text().splitlines()
    damaged = json.loads(lines[3])
    damaged["message"]["content"][0]["id"] = []
    lines[3] = json.dumps(damaged)
    upload = read_upload([("session.jsonl", "\n".join(lines).encode())])
    assert upload.rounds == 3
    assert not [p for p in upload.problems if "unhashable" in p.message]


def test_a_cache_write_says_for_how_long_only_where_the_log_tells():
    # Claude Code's stream-json output states every write as an hour's; a usage that states no hour does not say which.
    from lib.summary import cache_written
    upload = _read("claude-stream-json-read.jsonl")
    usages = [r.response.usage for c in upload.conversations for r in c.trace.rounds if r.response.usage]
    written = {cache_written(u) for u in usages if u.cache_write_tokens}
    assert "22,266 written to it for an hour" in written
    assert all(words.endswith(" for an hour") for words in written)
    untold = _upload_lines(*CHAT_ONLY[:1], {**CHAT_ONLY[1], "message": {**CHAT_ONLY[1]["message"], "usage": {
        "input_tokens": 3, "cache_creation_input_tokens": 900, "output_tokens": 5}}})
    assert cache_written(untold.conversations[0].trace.rounds[0].response.usage) == "900 written to it"


def test_a_subagent_line_whose_parent_is_not_in_the_log_is_no_conversation_and_said_for_what_it_holds():
    # Line 5 is a subagent's tool result (agentId e1c84ba5) answering a call whose line the excerpt does not hold: it
    # makes no round, so no conversation is listed for it, but the upload says what the line held, not nothing.
    upload = _read("claude-code-sidechain.jsonl")
    assert [len(c.trace.rounds) for c in upload.conversations] == [2, 1]
    assert [(n.line, n.message, n.conversation) for n in upload.notes] == [
        (5, "a subagent line holds a tool result answering a call the log does not hold, and no response "
            "of the model's: no round, so no conversation is listed for it", None)]


def test_the_write_check_marks_a_multiedit_call_and_leaves_the_model_s_todo_list_alone():
    # MultiEdit edits a file as Edit does, though its name starts with no verb; TodoWrite is the list Claude Code
    # shows the person, and what the model writes into it is its own account of its work.
    upload = _read("claude-code-edge-cases.jsonl")
    findings = {c.id: run_checks(c.trace) for c in upload.conversations}
    assert [(f.code, f.round) for f in findings["session edge_cases"] if f.code != "text-with-tool-calls"] == [
        ("write-tool-call", 3), ("missing-tool-result", 4)]
    assert findings["session todowrite_session"] == ()


def test_the_text_claude_code_adds_to_a_user_turn_is_not_drawn_as_the_user_asking():
    # Claude Code's system reminder beside the person's words, and a local command's caveat and name on lines of
    # their own: the user lane shows only what the person wrote.
    from lib.sequence import sequence
    session = {"sessionId": "s-1", "cwd": "/repo", "version": "2.0.46", "isSidechain": False, "userType": "external",
               "timestamp": "2026-01-01T00:00:01Z"}
    caveat = ("<local-command-caveat>Caveat: The messages below were generated by the user while running local "
              "commands.</local-command-caveat>")
    upload = _upload_lines(
        {**session, "type": "user", "uuid": "u-1", "parentUuid": None, "message": {"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>\nThe date is 2026-01-01.\n</system-reminder>"},
            {"type": "text", "text": "fix the failing test"}]}},
        {**session, "type": "assistant", "uuid": "a-1", "parentUuid": "u-1", "requestId": "req_1", "message": {
            "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Fixed."}], "usage": {"input_tokens": 4, "output_tokens": 1}}},
        {**session, "type": "user", "uuid": "u-2", "parentUuid": "a-1", "isMeta": True,
         "message": {"role": "user", "content": caveat}},
        {**session, "type": "user", "uuid": "u-3", "parentUuid": "u-2", "message": {
            "role": "user", "content": "<command-name>/model</command-name>\n<command-args></command-args>"}},
        {**session, "type": "assistant", "uuid": "a-2", "parentUuid": "u-3", "requestId": "req_2", "message": {
            "id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "Model set."}], "usage": {"input_tokens": 9, "output_tokens": 2}}},
    )
    arrows = sequence(upload.conversations[0].trace)
    assert [(a.round, a.label) for a in arrows if a.source == "user"] == [(1, "asks: fix the failing test")]
    assert [(a.round, a.label) for a in arrows if (a.source, a.target) == ("program", "program")] == [
        (2, "adds 1 message of its own context in the user's role")]


def test_claude_codes_untagged_caveat_line_is_the_programs_words_not_the_person_asking():
    # Claude Code writes an `isMeta` user line before a local command's output, in versions before the
    # <local-command-caveat> tag with no tag at all (its text as claude-code-edge-cases.jsonl line 6 holds it). Put
    # before the prompt of a recorded 2.1.233 session, the picture said the person
    # "asks: Caveat: The messages below…".
    from lib.growth import growth
    from lib.sequence import sequence
    caveat = json.loads((FIXTURES / "claude-code-edge-cases.jsonl").read_text().splitlines()[5])["message"]
    lines = [json.loads(line) for line in (FIXTURES / "claude-code-2.1.233.jsonl").read_text().splitlines()]
    prompt = lines[2]
    meta = {**prompt, "uuid": "caveat-1", "isMeta": True, "message": caveat}
    lines[2:3] = [meta, {**prompt, "parentUuid": "caveat-1"}]
    [conversation] = _upload_lines(*lines).conversations
    asked = [a.label for a in sequence(conversation.trace) if a.source == "user"]
    assert asked == ["asks: Run the bash command 'echo hello' using your Ba…"]
    [turn] = growth(conversation.trace, 1).entries
    assert turn.message.text.startswith("Caveat: The messages below") and turn.origin == "input"  # the person's too


# Claude Code marks a user line it wrote itself `isMeta: true`: a skill's body after the slash command that loaded it
# ("Base directory for this skill: ..."), an image reference after the prompt it came with, its automatic "continue"
# after a usage limit. When the person presses Esc it writes "[Request interrupted by user]" as a user line. Lines in
# those shapes, with the keys of the recorded 2.1.233 session they follow (claude-code-2.1.233.jsonl).
RECORDED = "claude-code-2.1.233.jsonl"


def _after_recorded(*added: tuple[str, str | list, dict]) -> list[dict]:
    """The recorded session, then lines of it continued: each (type, content, keys more), chained by uuid."""
    lines = [json.loads(line) for line in (FIXTURES / RECORDED).read_text().splitlines()]
    shared = {k: lines[2][k] for k in ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch")}
    parent = lines[-2]["uuid"]
    for n, (kind, content, more) in enumerate(added, 1):
        message = ({"role": "user", "content": content} if kind == "user" else
                   {"model": "claude-haiku-4-5-20251001", "id": f"msg_added{n}", "type": "message",
                    "role": "assistant", "content": content, "stop_reason": "end_turn",
                    "usage": {"input_tokens": 3, "output_tokens": 5}})
        lines.append({"parentUuid": parent, "isSidechain": False, "type": kind, "message": message,
                      "uuid": f"added-{n}", "timestamp": f"2026-08-20T10:23:{n:02d}.000Z", **shared, **more})
        parent = f"added-{n}"
    return lines


def _said(text: str) -> tuple[str, list, dict]:
    return "assistant", [{"type": "text", "text": text}], {}


SKILL = ("Base directory for this skill: C:\\Users\\<user>\\.claude\\skills\\brainstorming\n\n"
         "# Brainstorming Ideas Into Designs\n\nHelp turn ideas into fully formed designs.")


def test_a_line_claude_code_marked_is_meta_is_the_programs_words_never_the_person_asking():
    from lib.growth import growth
    from lib.sequence import sequence
    upload = _upload_lines(*_after_recorded(
        # The person runs a skill: the command line, then the skill's body Claude Code loads as a meta line.
        ("user", "<command-message>brainstorming</command-message>\n<command-name>/brainstorming</command-name>", {}),
        ("user", [{"type": "text", "text": SKILL}], {"isMeta": True}),
        _said("What shall we design?"),
        # A prompt the person wrote, then the reference to the image pasted with it.
        ("user", [{"type": "text", "text": "a login page like this"}], {}),
        ("user", [{"type": "text", "text": "[Image: source: C:\\Users\\<user>\\Pictures\\login.png]"}],
         {"isMeta": True}),
        _said("A form with two fields."),
        # Claude Code going on by itself after a usage limit reset.
        ("user", "Continue from where you left off.", {"isMeta": True}),
        _said("Continuing.")))
    trace = upload.conversations[0].trace
    assert len(trace.rounds) == 5
    labels = [a.label for a in sequence(trace) if a.round >= 3]
    assert [label for label in labels if label.startswith("asks")] == ["asks: a login page like this"]
    assert not any("Base directory" in label or "[Image" in label or "Continue from" in label for label in labels)
    assert [a.label for a in sequence(trace) if a.round in (3, 5) and a.source == "program" == a.target] == [
        "adds 1 message of its own context in the user's role"] * 2
    # The card of each request's new messages: the meta texts are the program's, the person's prompt is input.
    origins = {e.message.text[:22]: e.origin for k in (3, 4, 5) for e in growth(trace, k).entries
               if e.status == "new" and e.message.role == "user"}
    assert origins == {"<command-message>brain": "program", "a login page like this": "input",
                       "Continue from where yo": "program"}
    # What the program marked is carried by path, the way a saved trace keeps it.
    assert trace.rounds[3].extra["program_wrote"] == ["messages[4].content[1]", "messages[6].content[1]"]


def test_the_interrupt_claude_code_writes_when_the_person_presses_esc_is_the_persons_act_not_their_words():
    from lib.growth import growth
    from lib.sequence import sequence
    upload = _upload_lines(*_after_recorded(
        ("user", [{"type": "text", "text": "[Request interrupted by user]"}], {}),
        ("user", "say it shorter", {}),
        _said("Yes: 'hello'.")))
    trace = upload.conversations[0].trace
    labels = [a.label for a in sequence(trace) if a.round == 3]
    assert "interrupts (the program notes it in the user's role)" in labels
    assert [label for label in labels if label.startswith("asks")] == ["asks: say it shorter"]
    [entry] = [e for e in growth(trace, 3).entries if e.status == "new" and e.message.role == "user"]
    assert entry.origin == "input"  # the interrupt and the prompt after it are one user turn: the person's words in it
    alone = _upload_lines(*_after_recorded(("user", [{"type": "text", "text": "[Request interrupted by user]"}], {}),
                                           _said("Stopped.")))
    trace = alone.conversations[0].trace
    labels = [a.label for a in sequence(trace) if a.round == 3]
    assert "interrupts (the program notes it in the user's role)" in labels
    assert not any(label.startswith("asks") for label in labels)
    [entry] = [e for e in growth(trace, 3).entries if e.status == "new" and e.message.role == "user"]
    assert entry.origin == "program"



# After /compact or an automatic compaction Claude Code writes a compact_boundary line, then the summary of the
# conversation it starts again from as a user line marked `isCompactSummary: true` (with `isVisibleInTranscriptOnly`),
# in the shape other projects quote from Claude Code 2.1.x sessions and Claude Code's own wording ("This session is
# being continued from a previous conversation that ran out of context..."). The recorded 2.1.233 session continued
# so, with its keys (tests/fixtures/README.md).
def compacted_after_recorded(*after: tuple[str, str | list, dict]) -> list[dict]:
    """The recorded session compacted after its answer: the boundary line, the summary, then the lines `after`."""
    lines = _after_recorded(("user", SUMMARY, {"isCompactSummary": True, "isVisibleInTranscriptOnly": True}), *after)
    recorded = len(lines) - len(after) - 1
    summary = lines[recorded]
    boundary = {"parentUuid": None, "logicalParentUuid": summary["parentUuid"], "isSidechain": False,
                **{k: summary[k] for k in ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch")},
                "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
                "timestamp": "2026-08-20T10:23:00.500Z", "uuid": "boundary-1", "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 167204}}
    summary["parentUuid"] = "boundary-1"
    return lines[:recorded] + [boundary] + lines[recorded:]


def test_the_summary_claude_code_writes_after_a_compaction_is_the_programs_words_never_the_person_asking():
    # Drawn before as a change the person made to their first prompt: the card "changed since the previous request",
    # and no arrow at all in the sequence; now the program's own context, as its isMeta lines are.
    from lib.growth import growth
    from lib.sequence import sequence
    upload = _upload_lines(*compacted_after_recorded(_said("Continuing with the echo.")))
    trace = upload.conversations[0].trace
    assert len(trace.rounds) == 3
    after = trace.rounds[2]
    assert [m.text for m in after.request.messages] == [SUMMARY]
    assert after.extra["program_wrote"] == ["messages[0].content"]
    labels = [a.label for a in sequence(trace) if a.round == 3]
    assert "adds 1 message of its own context in the user's role" in labels
    assert not any(label.startswith("asks") for label in labels)
    placed = growth(trace, 3)
    assert [(e.status, e.origin) for e in placed.entries] == [("new", "program")]
    assert placed.dropped == 3  # the turns before the compaction, gone from the request
    # The person's next prompt, joined to the summary in one user turn, is what the person asks.
    upload = _upload_lines(*compacted_after_recorded(("user", "now in French", {}), _said("Bonjour.")))
    trace = upload.conversations[0].trace
    assert [a.label for a in sequence(trace) if a.round == 3 and a.label.startswith("asks")] == ["asks: now in French"]
    [entry] = growth(trace, 3).entries
    assert (entry.status, entry.origin) == ("new", "input")  # the person's words are in it, beside the summary
    assert trace.rounds[2].extra["program_wrote"] == ["messages[0].content[0]"]


def test_a_session_file_that_starts_from_a_compaction_summary_does_not_open_with_the_person_asking():
    # A session continued from a compacted one opens on the summary line: drawn before as "asks: This session is
    # being continued from a previ…", the first thing the person said.
    from lib.growth import growth
    from lib.sequence import sequence
    lines = compacted_after_recorded(_said("Continuing with the echo."))
    first = next(i for i, line in enumerate(lines) if line.get("isCompactSummary"))
    upload = _upload_lines(*[{**lines[first], "parentUuid": None}, *lines[first + 1:]])
    trace = upload.conversations[0].trace
    labels = [a.label for a in sequence(trace) if a.round == 1]
    assert labels[0] == "adds 1 message of its own context in the user's role"
    assert not any(label.startswith("asks") for label in labels)
    assert [e.origin for e in growth(trace, 1).entries] == ["program"]


def test_a_compaction_is_said_to_be_the_program_summarising_the_conversation_not_a_history_rewritten():
    # The request after a compaction drops the turns before it for the summary Claude Code wrote. history-rewritten
    # warned "3 messages dropped. The model now reads a history it did not write ... If this is deliberate trimming,
    # keep each call together with its result", words for a person undoing turns; a compaction is the agent at work.
    from lib.checks import run_checks
    for after in [(_said("Continuing with the echo."),), (("user", "now in French", {}), _said("Bonjour."))]:
        trace = _upload_lines(*compacted_after_recorded(*after)).conversations[0].trace
        [finding] = [f for f in run_checks(trace) if f.code == "history-rewritten"]
        assert (finding.severity, finding.round) == ("info", 3)
        assert finding.message.startswith(
            "The program compacted the conversation before this request: it left out the 3 messages of round 2's "
            "request and sent a summary it wrote in their place")
        assert "a history it did not write" not in finding.message and "trimming" not in finding.message
    # A compaction that kept turns after its summary is said the same way.
    trace = _upload_lines(*_compacted_session({"preservedSegment": {
        "headUuid": "u-2", "anchorUuid": "s-1", "tailUuid": "a-2"}})).conversations[0].trace
    assert [(f.severity, f.round) for f in run_checks(trace) if f.code == "history-rewritten"] == [("info", 3)]
    assert trace.rounds[2].compacted and not trace.rounds[1].compacted


# Claude Code's stream-json output (2.1.x) marks a user line it wrote itself `"isSynthetic": true` (recorded in this
# shape for the summary a compaction starts again from: keys isReplay, isSynthetic, message, parent_tool_use_id,
# session_id, timestamp, type, uuid); its session log marks them `isMeta`. Either is the program's words in the user's
# role: the session log's reader code lists them in program_wrote, and no view draws them as the person asking.
SUMMARY = ("This session is being continued from a previous conversation that ran out of context. The summary below "
           "covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent:\n   [elided]\n")


def _stream_json_after_sample(*added: dict) -> list[dict]:
    """The recorded-shape stream-json run (claude-stream-json-sample.jsonl, its first run), then lines of it continued,
    with the keys a 2.1.x user line carries."""
    lines = [json.loads(line) for line in (FIXTURES / "claude-stream-json-sample.jsonl").read_text().splitlines()][:7]
    session = lines[1]["session_id"]
    keys = {"session_id": session, "parent_tool_use_id": None}
    return lines + [{**keys, "uuid": f"added-{n}", "timestamp": f"2026-08-09T01:06:{n:02d}.757Z", **line}
                    for n, line in enumerate(added, 1)]


def _answered(text: str) -> dict:
    return {"type": "assistant", "message": {
        "model": "claude-sonnet-4-5", "id": "msg_added", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 5}}}


@pytest.mark.parametrize("mark", ["isSynthetic", "isMeta"])
def test_stream_json_a_line_claude_code_marked_its_own_is_the_programs_words_never_the_person_asking(mark):
    from lib.growth import growth
    from lib.sequence import sequence
    upload = _upload_lines(*_stream_json_after_sample(
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "design a login page"}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": SKILL}]}, "isReplay": False,
         mark: True},
        _answered("A form.")))
    assert list(upload.formats) == ["claude-stream-json"]
    trace = upload.conversations[0].trace
    last = len(trace.rounds)
    asked = [a.label for a in sequence(trace) if a.round == last and a.label.startswith("asks")]
    assert asked == ["asks: design a login page"]  # not "asks: design a login page Base directory for this ski…"
    [turn] = [e for e in growth(trace, last).entries if e.status == "new" and e.message.role == "user"]
    assert turn.origin == "input"  # the person's words are in it, beside the skill's body
    assert trace.rounds[-1].extra.get("program_wrote") == ["messages[4].content[1]"]


def test_stream_json_the_summary_a_compaction_starts_from_is_listed_as_the_programs():
    upload = _upload_lines(*_stream_json_after_sample(
        {"type": "system", "subtype": "compact_boundary",
         "compact_metadata": {"trigger": "manual", "pre_tokens": 36663, "post_tokens": 972}},
        {"type": "user", "message": {"role": "user", "content": SUMMARY}, "isReplay": False, "isSynthetic": True},
        _answered("Carrying on.")))
    after = upload.conversations[0].trace.rounds[-1]
    assert [m.text for m in after.request.messages] == [SUMMARY]
    assert after.extra["program_wrote"] == ["messages[0].content"]


def test_a_session_cut_before_a_prompt_reads_as_its_one_run_where_the_prompt_follows_an_entry_of_the_other_file():
    # The recorded 2.1.233 session, then the person's next prompt and its answer (chained by uuid, as Claude Code
    # writes them), cut before that prompt: the second file opens on a prompt, as a session opens, but its parentUuid
    # names the first file's last answer and its sessionId is the first file's.
    lines = [json.dumps(line).encode() + b"\n" for line in _after_recorded(("user", "say it shorter", {}),
                                                                             _said("Yes: 'hello'."))]
    recorded = len((FIXTURES / RECORDED).read_text().splitlines())
    part_1, part_2 = ("part-1.jsonl", b"".join(lines[:recorded])), ("part-2.jsonl", b"".join(lines[recorded:]))
    whole = read_upload([("session.jsonl", b"".join(lines))])
    for files in ([part_1, part_2], [part_2, part_1]):
        upload = read_upload(files)
        (run,) = upload.conversations
        assert run.source == "part-1.jsonl + part-2.jsonl"
        assert [len(r.request.messages) for r in run.trace.rounds] == \
            [len(r.request.messages) for r in whole.conversations[0].trace.rounds] == [1, 3, 5]
        assert "part-2.jsonl read as the rest of part-1.jsonl's run (one run's file cut in two)" in upload.summary()
    # Beside another session's file, whose entries it does not follow, the prompt's file is a run of its own.
    other = ("other.jsonl", (FIXTURES / "claude-code-session.jsonl").read_bytes())
    assert sorted(c.source for c in read_upload([other, part_2]).conversations) == ["other.jsonl", "part-2.jsonl"]
