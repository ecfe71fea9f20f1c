"""OpenCode session exports (`opencode export <sessionID>`) read as rounds, one per model call.

The fixtures (tests/fixtures/containers/README.md says where from): the export opencode-to-ccusage's tests read
(written by that project in the export's shape, no step parts), and one written by us from OpenCode's
session/message-v2.ts, no public export holding steps and tools being found: one assistant message of three model
calls (`step-start` ... `step-finish`, each with its tokens), a `bash` call and a failed `read` call, then a call
that failed with an API error. Each test says what a user sees: the steps as rounds, requests rebuilt from the
export, tool outputs as the next call's results, usage as recorded, and the system prompt and tool list OpenCode
does not export said to be missing, never empty.
"""

import json
from pathlib import Path

from lib.checks import run_checks
from lib.logs.opencode import OpenCodeSessionFormat
from lib.logs.upload import read_upload
from lib.provenance import origin_line, provenance_detail
from lib.summary import parts_not_logged
from tests.formats_support import assert_detects_only_its_own, assert_only_line_problems

FIXTURES = Path(__file__).parent / "fixtures" / "containers"
STEPS = FIXTURES / "opencode-export-steps.json"
SAMPLE = FIXTURES / "opencode-export-ccusage-sample.json"


def _read(path: Path):
    return read_upload([(path.name, path.read_bytes())])


def _document(**changes) -> dict:
    document = json.loads(STEPS.read_text(encoding="utf-8"))
    document.update(changes)
    return document


def _upload(document: dict):
    return read_upload([("session.json", json.dumps(document).encode())])


def test_each_step_of_an_assistant_message_is_a_round_its_request_the_conversation_before_it():
    upload = _read(STEPS)
    [conversation] = upload.conversations
    assert conversation.id == "session ses_4f1c2a7e9ffeQk2xV8bN3mR5tD"
    running, reading, answer, failed = conversation.trace.rounds
    assert all(r.request_from_transcript for r in conversation.trace.rounds)
    assert running.request.messages[0].text == "Run the tests and tell me which one fails."
    assert [(c.name, c.id, c.arguments) for c in running.tool_calls] == [
        ("bash", "toolu_01LmQ7v3XcTz9RbN4kWp2HsA", {"command": "npm test", "description": "Run the test suite"})]
    assert running.response.message.text == "I'll run the test suite."
    assert [c.name for c in reading.tool_calls] == ["read"]
    assert answer.response.message.text == 'The failing test is "marks a todo done" in src/todo.test.ts.'
    assert [r.response.finish_reason for r in (running, reading, answer)] == ["tool_use", "tool_use", "end_turn"]
    assert not [f for f in run_checks(conversation.trace) if f.code in ("missing-tool-result", "orphan-tool-result")]


def test_a_tool_parts_output_or_error_is_the_result_the_next_call_carries_paired_by_its_call_id():
    running, reading, answer, _ = _read(STEPS).conversations[0].trace.rounds
    [result] = [p for m in reading.request.messages for p in m.tool_results]
    assert result.call_id == "toolu_01LmQ7v3XcTz9RbN4kWp2HsA"
    assert result.content.startswith("FAIL src/todo.test.ts")
    results = [p for m in answer.request.messages for p in m.tool_results]
    assert [p.call_id for p in results] == ["toolu_01LmQ7v3XcTz9RbN4kWp2HsA", "toolu_01PzR8kYwD5sN2fV6tJh3QcE"]
    assert results[1].content == "Error: File not found: /home/dev/todo-app/src/todo.test.tsx"
    assert results[1].is_error


def test_each_rounds_usage_is_its_step_finish_tokens_not_the_messages_sum():
    rounds = _read(STEPS).conversations[0].trace.rounds
    # step 1: "input": 3, "output": 98, "cache": {"read": 10103, "write": 27}: input counted with the cache.
    usage = rounds[0].response.usage
    assert (usage.source, usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
            usage.output_tokens) == ("reported", 3 + 10103 + 27, 10103, 27, 98)
    assert [r.response.usage.output_tokens for r in rounds[:3]] == [98, 41, 48]
    assert rounds[0].request.model == "claude-sonnet-4-5"


def test_a_call_that_failed_is_a_failed_round_with_its_status_and_no_usage_claimed():
    trace = _read(STEPS).conversations[0].trace
    failed = trace.rounds[3]
    assert failed.response is None
    assert failed.error.status == 529 and failed.error.message == "APIError: Overloaded"
    assert failed.request.messages[-1].text == "Fix it."
    note = trace.round_provenance(failed).note
    assert "its usage is not in the log" in note and "no response is in the export" in note


def test_the_system_prompt_and_tool_list_opencode_does_not_export_are_said_to_be_missing_never_empty():
    trace = _read(STEPS).conversations[0].trace
    round_ = trace.rounds[1]
    assert round_.request.system is None and round_.request.tools == ()
    assert parts_not_logged(round_) == ("instructions", "tools")
    provenance = trace.round_provenance(round_)
    assert provenance.origin == "derived" and provenance.omitted == ("system", "tools")
    assert "OpenCode does not export its system prompt: it was sent" in provenance_detail(provenance)
    assert "tool list" not in provenance_detail(provenance)  # said once, where the list would be
    assert "Converted from an OpenCode session export" in origin_line(trace, round_)


def test_a_message_without_step_parts_is_one_call_its_usage_the_messages_and_empty_messages_are_said():
    upload = _read(SAMPLE)
    [round_] = upload.conversations[0].trace.rounds
    assert round_.response.message.text == "I'll help you with that."
    usage = round_.response.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        100 + 1000 + 500, 1000, 500, 200)
    assert round_.response.finish_reason == "end_turn"
    # Its 50 reasoning tokens have no field in the body shown: said, not dropped silently.
    assert "OpenCode counted 50 reasoning tokens for this call apart" in \
        upload.conversations[0].trace.round_provenance(round_).note
    # Their token counts (15,700 in, 325 out) are in no figure the app shows: said, so totals are not taken as whole.
    assert [n.message for n in upload.notes] == [
        "5 assistant messages of this session hold no parts: no response is in the export for them, so no round; "
        "OpenCode recorded 15,700 input and 325 output tokens on them, which no figure here counts"]


def test_the_results_of_the_last_calls_are_executions_no_request_after_them_carries():
    document = _document()
    document["messages"] = document["messages"][:2]
    answer = document["messages"][1]
    answer["parts"] = answer["parts"][:5]  # the first step only: its bash call's output ends the export
    [round_] = _upload(document).conversations[0].trace.rounds
    [ran] = round_.executions
    assert (ran.tool_call_id, ran.name, ran.ok) == ("toolu_01LmQ7v3XcTz9RbN4kWp2HsA", "bash", True)
    assert ran.output.startswith("FAIL src/todo.test.ts")


def test_a_damaged_message_is_named_and_the_others_still_load():
    document = _document()
    document["messages"].insert(1, {"info": "broken", "parts": []})
    upload = _upload(document)
    assert len(upload.conversations[0].trace.rounds) == 4
    assert any("messages[1]: its 'info' is" in n.message and "its other messages still load" in n.message
               for n in upload.notes)


def test_the_reader_claims_no_other_formats_lines():
    assert_detects_only_its_own(OpenCodeSessionFormat)


def test_any_one_damaged_place_of_an_export_is_a_problem_in_words_never_a_crash():
    assert assert_only_line_problems(OpenCodeSessionFormat, [_document()]) > 100


def _prompt_and_answer(document: dict, parts: list, error: dict | None = None) -> dict:
    """The document with one more prompt and an answer of `parts` (and `error`) after it, then one more prompt and
    its answer, so the requests after the answer show what OpenCode sent of it."""
    messages = document["messages"]
    prompt, answer = json.loads(json.dumps(messages[0])), json.loads(json.dumps(messages[1]))
    answer["info"].pop("error", None)
    failed = dict(answer, info={**answer["info"], **({"error": error} if error else {})}, parts=parts)
    messages[2:] = [prompt, failed, prompt, dict(answer, parts=answer["parts"][-3:])]
    return document


def test_a_call_still_running_when_the_session_ended_is_answered_as_interrupted_as_opencode_sends_it():
    running = {"type": "tool", "callID": "toolu_running", "tool": "bash",
               "state": {"status": "running", "input": {"command": "npm run dev"}, "time": {"start": 1}}}
    document = _prompt_and_answer(_document(), [{"type": "step-start"}, running],
                                  {"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}})
    rounds = _upload(document).conversations[0].trace.rounds
    stopped, after = rounds[3], rounds[4]
    assert [c.id for c in stopped.tool_calls] == ["toolu_running"]
    assert stopped.error.message == "MessageAbortedError: The operation was aborted."
    # The person stopped it after it had called a tool: OpenCode keeps it in later requests, the call answered so.
    [result] = [p for p in after.request.messages[-1].tool_results]
    assert after.request.messages[-1].text.endswith("Run the tests and tell me which one fails.")
    assert (result.call_id, result.content, result.is_error) == ("toolu_running", "[Tool execution was interrupted]",
                                                                 True)


def test_a_call_that_failed_before_any_part_is_a_failed_round_and_left_out_of_later_requests():
    error = {"name": "ProviderAuthError", "data": {"providerID": "anthropic", "message": "Invalid API key"}}
    document = _prompt_and_answer(_document(), [], error)
    upload = _upload(document)
    rounds = upload.conversations[0].trace.rounds
    failed, after = rounds[3], rounds[4]
    assert failed.response is None and failed.error.message == "ProviderAuthError: Invalid API key"
    assert failed.error.status is None
    assert not upload.notes
    # OpenCode sends no turn of a failed message: the two prompts around it are one user turn.
    assert [m.role for m in after.request.messages][-1] == "user"
    assert len(after.request.messages) == len(failed.request.messages)


def test_opencodes_own_editing_tools_are_write_tools_and_its_todo_list_is_narration():
    # multiedit and apply_patch edit files though their names start with no verb that says so.
    document = _document()
    bash, read = (p for p in document["messages"][1]["parts"] if p.get("type") == "tool")
    bash["tool"], bash["state"]["input"] = "multiedit", {"filePath": "src/todo.ts", "edits": []}
    read["tool"], read["state"]["input"] = "todowrite", {"todos": [{"content": "Fix the test", "status": "pending"}]}
    trace = _upload(document).conversations[0].trace
    assert [(f.code, f.round) for f in run_checks(trace) if f.code == "write-tool-call"] == [("write-tool-call", 1)]
    from lib.checks import declared_effect, is_write_tool
    assert all(is_write_tool(trace, name) for name in ("write", "edit", "multiedit", "patch", "apply_patch"))
    assert declared_effect(trace, "todowrite") == "narration" and not is_write_tool(trace, "todoread")


def test_every_steps_tool_parts_are_what_the_program_ran_after_it_with_their_outcome_and_time():
    # The export keeps each tool part's state (its status, output or error, when it started and ended): what the program
    # ran is on record for every step, not only the last.
    running, reading, answer, _ = _read(STEPS).conversations[0].trace.rounds
    [ran] = running.executions
    assert (ran.tool_call_id, ran.name, ran.ok, ran.duration_ms) == (
        "toolu_01LmQ7v3XcTz9RbN4kWp2HsA", "bash", True, 6100)
    assert ran.output.startswith("FAIL src/todo.test.ts") and ran.note is None
    [failed] = reading.executions
    assert (failed.name, failed.ok, failed.output) == (
        "read", False, "Error: File not found: /home/dev/todo-app/src/todo.test.tsx")
    assert answer.executions == ()


def test_the_code_an_edit_writes_and_the_lines_a_read_asks_for_are_the_models_own_not_values_it_filled():
    # edit's oldString and newString are code the model writes; read's offset and limit how much of a file it reads.
    document = _document()
    bash, read = (p for p in document["messages"][1]["parts"] if p.get("type") == "tool")
    bash["tool"], bash["state"]["input"] = "edit", {"filePath": "/home/dev/todo-app/src/todo.ts",
                                                   "oldString": "done = false", "newString": "done = true"}
    read["state"]["input"] = {"filePath": "/home/dev/todo-app/src/todo.test.ts", "offset": 120, "limit": 40}
    trace = _upload(document).conversations[0].trace
    assert not [f.message for f in run_checks(trace) if f.code == "model-filled-value"]
