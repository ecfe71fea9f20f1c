"""OpenCode's `opencode run --format json` output, read into rounds as a user who ran it would see them."""

import json
from pathlib import Path

from lib.logs.upload import read_upload

FIXTURE = Path(__file__).parent / "fixtures" / "opencode-run-json.jsonl"


def _read(text: str, name: str = "run.jsonl"):
    return read_upload([(name, text.encode())])


def _fixture():
    return read_upload([(FIXTURE.name, FIXTURE.read_bytes())])


def test_each_step_is_a_round_with_its_step_finish_tokens():
    upload = _fixture()
    assert upload.formats["opencode-run-json"][0] == 5
    rounds = upload.conversations[0].trace.rounds
    first, second = (r.response.usage for r in rounds)
    assert (first.input_tokens, first.output_tokens, first.cache_read_tokens) == (21772, 110, 0)
    # OpenCode's input excludes the cache: the round's input is 671 new tokens plus 21,415 read from the cache.
    assert (second.input_tokens, second.output_tokens, second.cache_read_tokens) == (671 + 21415, 8, 21415)
    assert [r.response.finish_reason for r in rounds] == ["tool_use", "end_turn"]


def test_the_second_request_is_rebuilt_with_the_bash_call_and_its_output_paired_by_id():
    rounds = _fixture().conversations[0].trace.rounds
    call = rounds[0].response.message.parts[0]
    assert (call.name, call.id, call.arguments) == ("bash", "r9bQWsNLvOrJGIOz",
                                                   {"command": "echo hello", "description": "Print hello to stdout"})
    sent = rounds[1].request.messages
    assert [m.role for m in sent] == ["assistant", "user"]
    result = sent[1].parts[0]
    assert (result.call_id, result.content) == ("r9bQWsNLvOrJGIOz", "hello\n")
    ran = rounds[0].executions[0]
    assert (ran.name, ran.output, ran.ok, ran.duration_ms) == ("bash", "hello\n", True, 50)


def test_the_prompt_system_prompt_and_tool_list_are_said_not_in_the_log_never_empty():
    upload = _fixture()
    assert any("the person's prompt (the message given to opencode run) is not in its output" in n.message
               for n in upload.notes)
    for round_ in upload.conversations[0].trace.rounds:
        provenance = round_.extra["provenance"]
        assert provenance["omitted"] == ["system", "tools"]
        assert "OpenCode does not print its system prompt: it was sent" in provenance["note"]
        assert provenance["sent"] == ["tools"] and "tool list" not in provenance["note"]
        assert "The person's prompt (the message given to opencode run) is not in the output" in provenance["note"]


def _line(kind: str, part: dict | None = None, **extra) -> str:
    body = {"type": kind, "timestamp": 1767036059338, "sessionID": "ses_x", **extra}
    if part is not None:
        body["part"] = part
    return json.dumps(body)


def test_a_step_the_output_does_not_finish_is_a_round_whose_usage_is_said_not_in_the_log():
    text = "\n".join([_line("step_start", {"type": "step-start"}),
                      _line("text", {"type": "text", "text": "Looking"})])
    rounds = _read(text).conversations[0].trace.rounds
    assert len(rounds) == 1 and rounds[0].response.usage is None
    assert "its usage is not in the log" in rounds[0].extra["provenance"]["note"]


def test_an_error_line_ends_the_open_step_as_a_failed_round_naming_the_error():
    text = "\n".join([_line("step_start", {"type": "step-start"}),
                      _line("error", error={"name": "APIError",
                                            "data": {"message": "Rate limit exceeded", "statusCode": 429}})])
    upload = _read(text)
    round_ = upload.conversations[0].trace.rounds[0]
    assert round_.error.status == 429 and "APIError: Rate limit exceeded" in round_.error.message
    assert "OpenCode printed an error before this call finished (APIError)" in round_.extra["provenance"]["note"]


def test_a_failed_tool_use_is_sent_back_as_an_error_result_and_ran_not_ok():
    failed = {"type": "tool", "callID": "c1", "tool": "read",
              "state": {"status": "error", "input": {"filePath": "/nope"}, "error": "File not found: /nope"}}
    text = "\n".join([_line("step_start", {"type": "step-start"}), _line("tool_use", failed),
                      _line("step_finish", {"type": "step-finish", "reason": "tool-calls",
                                            "tokens": {"input": 10, "output": 2, "cache": {"read": 0, "write": 0}}}),
                      _line("step_start", {"type": "step-start"}), _line("text", {"type": "text", "text": "Gone."}),
                      _line("step_finish", {"type": "step-finish", "reason": "stop"})])
    rounds = _read(text).conversations[0].trace.rounds
    result = rounds[1].request.messages[1].parts[0]
    assert (result.call_id, result.content, result.is_error) == ("c1", "File not found: /nope", True)
    assert rounds[0].executions[0].ok is False
