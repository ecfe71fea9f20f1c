"""Goose session files (`~/.local/share/goose/sessions/*.jsonl`) and `goose session export` JSON, read as rounds.

The fixture is a Goose session file written by a project that reads them (tests/fixtures/README.md says where from): a
metadata line with the session's token counts, a prompt, a response with a `developer__shell` call, and its result.
The other sessions here are built line by line in the shapes Goose's source writes (crates/goose/src/session, its
conversation/message.rs and tool_result_serde.rs). Each test says what a user sees: the format named, each response
a round with its request rebuilt from the file, calls paired with their results by id, and that the system prompt,
the tool list and each call's usage, which Goose does not record, are said to be missing, never shown as empty or 0.
"""

import json
from pathlib import Path

from lib.logs.goose import GooseSessionFormat
from lib.logs.upload import read_upload
from lib.provenance import origin_line, provenance_detail
from lib.summary import parts_not_logged
from tests.formats_support import assert_detects_only_its_own

FIXTURE = Path(__file__).parent / "fixtures" / "goose-session.jsonl"

META = {"working_dir": "/home/u/proj", "description": "Fix flaky test", "schedule_id": None, "message_count": 5,
        "total_tokens": 1300, "input_tokens": 1200, "output_tokens": 100, "accumulated_total_tokens": 2150,
        "accumulated_input_tokens": 1950, "accumulated_output_tokens": 200}


def _read(path: Path = FIXTURE):
    return read_upload([(path.name, path.read_bytes())])


def _lines(*lines: dict, name: str = "20250101_120000.jsonl"):
    return read_upload([(name, "\n".join(json.dumps(line) for line in lines).encode())])


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"type": "toolRequest", "id": call_id,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}}}


def _result(call_id: str, *contents: dict) -> dict:
    return {"type": "toolResponse", "id": call_id, "toolResult": {"status": "success", "value": list(contents)}}


def _message(role: str, *content: dict, created: int = 1759154590) -> dict:
    return {"role": role, "created": created, "content": list(content)}


def _session() -> list[dict]:
    """A session of two responses: a shell call, its result (one copy for the model, one for the person), the answer."""
    return [
        META,
        _message("user", _text("why does test_x flake?")),
        _message("assistant", {"type": "thinking", "thinking": "Run it first.", "signature": "sig"},
                 _text("Let me run it."), _call("toolu_01", "developer__shell", {"command": "cargo test"})),
        _message("user", _result("toolu_01",
                                 {"type": "text", "text": "test_x ... FAILED (timeout)",
                                  "annotations": {"audience": ["assistant"]}},
                                 {"type": "text", "text": "FAILED shown to you",
                                  "annotations": {"audience": ["user"]}})),
        _message("assistant", _text("It times out: raise the timeout.")),
        _message("user", _text("thanks")),
    ]


def test_a_session_file_is_one_conversation_its_response_a_round_its_request_rebuilt_from_the_file():
    upload = _read()
    assert upload.summary() == "4 lines: 1 round in 1 conversation; 1 line not a model call; 0 lines skipped"
    assert "a Goose session file's first line" in upload.formats["goose-session"][1]
    [conversation] = upload.conversations
    assert conversation.id == "session Debug memory leak in worker process"
    [round_] = conversation.trace.rounds
    assert round_.request_from_transcript
    assert [(m.role, m.text) for m in round_.request.messages] == [
        ("user", "I'm seeing a memory leak in my worker process. Can you help me investigate?")]
    assert round_.response.message.text.startswith("I'll help you investigate the memory leak.")
    assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [
        ("toolu_bdrk_01H6Vzjip2dzWDWJMQkiwevZ", "developer__shell", {"command": "ps aux | grep worker"})]


def test_the_result_the_file_ends_on_is_what_the_program_ran_no_recorded_call_sent_it():
    [round_] = _read().conversations[0].trace.rounds
    [ran] = round_.executions
    assert (ran.tool_call_id, ran.name, ran.ok) == ("toolu_bdrk_01H6Vzjip2dzWDWJMQkiwevZ", "developer__shell", True)
    assert ran.output.startswith("USER       PID %CPU %MEM")
    assert "node worker.js" in ran.output
    assert not ran.note  # that the log ends here is said under the lane, for every format


def test_the_system_prompt_tool_list_and_usage_goose_does_not_record_are_said_to_be_missing_never_empty():
    trace = _read().conversations[0].trace
    [round_] = trace.rounds
    assert round_.request.system is None and round_.request.tools == ()
    assert parts_not_logged(round_) == ("instructions", "tools")
    assert round_.response.usage is None
    provenance = trace.round_provenance(round_)
    assert provenance.origin == "derived" and provenance.omitted == ("system", "tools")
    detail = provenance_detail(provenance)
    assert "Goose does not record its system prompt: it was sent" in detail and "tool list" not in detail
    assert "Nor does it record this call's usage" in detail
    assert "Converted from a Goose session file" in origin_line(trace, round_)


def test_the_session_token_counts_are_said_as_the_sessions_beside_it_and_its_message_count_checked():
    upload = _read()
    notes = [upload.said(n) for n in upload.notes]
    assert notes == [
        # Goose writes input_tokens and output_tokens over with each call's usage: the last call's, not the session's.
        "line 1: Goose records no usage with its messages, only token counts on the session's first line: 980 input "
        "and 270 output tokens in the provider's last report (input_tokens, output_tokens). Its rounds show none of "
        "them: the last report is one call's, the session's last, and the file does not say which response that "
        "call made",
        # The metadata counts the response's result message as well as one the file does not hold.
        "line 1: the first line counts 4 messages in the session; the file holds 3 messages: the rounds are made "
        "from the messages it holds"]
    assert all(n.conversation == "session Debug memory leak in worker process" for n in upload.notes)


def test_each_response_is_a_round_its_calls_paired_with_the_results_sent_to_the_model():
    upload = _lines(*_session())
    assert upload.summary() == "6 lines: 2 rounds in 1 conversation; 1 line not a model call; 0 lines skipped"
    [conversation] = upload.conversations
    running, answer = conversation.trace.rounds
    assert [c.name for c in running.tool_calls] == ["developer__shell"]
    results = [p for m in answer.request.messages for p in m.tool_results]
    assert [p.call_id for p in results] == ["toolu_01"]
    # The copy of the output Goose shows the person only (audience "user") was never sent to the model.
    assert results[0].content == "test_x ... FAILED (timeout)"
    assert answer.response.message.text == "It times out: raise the timeout."
    assert [m.role for m in answer.request.messages] == ["user", "assistant", "user"]
    assert not running.executions and not answer.executions
    notes = [upload.said(n) for n in upload.notes]
    assert notes == [
        "line 1: Goose records no usage with its messages, only token counts on the session's first line: 1,950 "
        "input and 200 output tokens over all its calls (accumulated_*), and 1,200 input and 100 output tokens in "
        "the provider's last report (input_tokens, output_tokens). Its rounds show none of them: the counts over all "
        "its calls are the session's, not any one round's; the last report is one call's, the session's last, and "
        "the file does not say which response that call made"]


def test_a_call_goose_could_not_read_is_left_out_and_said_and_a_failed_result_is_an_error():
    broken = {"type": "toolRequest", "id": "toolu_02", "toolCall": {"status": "error", "error": "invalid JSON"}}
    failed = {"type": "toolResponse", "id": "toolu_01", "toolResult": {"status": "error", "error": "no such file"}}
    upload = _lines({**META, "message_count": 5}, _message("user", _text("read it")),
                    _message("assistant", _call("toolu_01", "developer__text_editor", {"path": "a.txt"}), broken),
                    _message("user", failed), _message("assistant", _text("The file is missing.")),
                    _message("user", _text("ok")))
    first, second = upload.conversations[0].trace.rounds
    assert [c.id for c in first.tool_calls] == ["toolu_01"]
    [result] = [p for m in second.request.messages for p in m.tool_results]
    assert (result.call_id, result.content, result.is_error) == ("toolu_01", "no such file", True)
    assert ("line 3: a tool call Goose could not read (its toolCall's error: invalid JSON) is left out of the "
            "response; a result answering it stays unpaired") in [
        upload.said(n) for n in upload.notes]


def test_an_export_is_one_document_its_conversation_the_session():
    messages = [{**m, "id": f"msg_{i}", "metadata": {"userVisible": True, "agentVisible": True}}
                for i, m in enumerate(_session()[1:])]
    # Newer Goose keeps each result's whole MCP CallToolResult under `value`.
    messages[2]["content"][0]["toolResult"]["value"] = {"content": [_text("test_x ... FAILED (timeout)")],
                                                        "isError": False}
    export = {"id": "20251110_3", "working_dir": "/home/u/proj", "name": "Fix flaky test", "user_set_name": False,
              "session_type": "user", "created_at": "2025-11-10T09:00:00Z", "updated_at": "2025-11-10T09:05:00Z",
              "extension_data": {}, "total_tokens": None, "input_tokens": None, "output_tokens": None,
              "accumulated_total_tokens": None, "accumulated_input_tokens": None, "accumulated_output_tokens": None,
              "schedule_id": None, "recipe": None, "conversation": messages, "message_count": 5}
    upload = read_upload([("session.json", json.dumps(export, indent=2).encode())])
    assert upload.summary() == "1 document: 2 rounds in 1 conversation; 0 documents skipped"
    assert upload.formats["goose-session"][1] == ("'working_dir' and 'message_count' beside 'conversation' "
                                                  "(a Goose session export)")
    [conversation] = upload.conversations
    assert conversation.id == "session 20251110_3"
    running, answer = conversation.trace.rounds
    assert [p.content for m in answer.request.messages for p in m.tool_results] == ["test_x ... FAILED (timeout)"]
    assert [upload.said(n) for n in upload.notes] == [
        "document 1: Goose recorded no token counts for this session: its rounds show no usage"]


def test_a_damaged_line_is_a_problem_naming_the_line_and_the_rest_still_load():
    lines = _session()
    lines.insert(2, {"role": "assistant", "created": 1759154591, "content": [42]})
    upload = _lines(*lines)
    assert [upload.said(p) for p in upload.problems] == [
        "line 3: the line's 'content' holds a number, expected a block object (read as Goose session)"]
    assert len(upload.conversations[0].trace.rounds) == 2


def test_goose_lines_are_read_as_goose_and_no_other_formats_lines_are():
    assert_detects_only_its_own(GooseSessionFormat)


def test_messages_goose_hid_from_the_model_are_kept_in_the_requests_and_said():
    lines = _session()
    lines[1] = {**lines[1], "metadata": {"userVisible": True, "agentVisible": False}}
    upload = _lines(*lines)
    assert ("line 1: Goose marked 1 message as not sent to the model (metadata.agentVisible false, as it does when it "
            "compacts a session): the requests rebuilt here include it, so a request after the compaction may hold "
            "turns that were not sent") in [upload.said(n) for n in upload.notes]
    assert upload.conversations[0].trace.rounds[0].request.messages[0].text == "why does test_x flake?"
