"""Gemini CLI session recordings (`~/.gemini/tmp/<project hash>/chats/session-*.json` and `.jsonl`) read as rounds.

The fixtures are two real sessions of Gemini CLI (tests/fixtures/README.md and tests/fixtures/containers/README.md
say where from): the one-object `.json` that versions before spring 2026 wrote, and the JSON-lines file later ones
write. Each test says what a user sees of them: the format named, the rounds and their requests rebuilt from the
recording, the calls answered by the results recorded on them, the usage as recorded, and that the system prompt and
tool list Gemini CLI does not record are said to be missing, never shown as empty.
"""

import json
from pathlib import Path

from lib.checks import run_checks
from lib.logs.upload import read_upload
from lib.provenance import origin_line, provenance_detail
from lib.steps import join_path
from lib.summary import parts_not_logged, tool_list_always_sent
from tests.formats_support import assert_detects_only_its_own

FIXTURES = Path(__file__).parent / "fixtures"
DOCUMENT = FIXTURES / "containers" / "gemini-cli-session.json"
LINES = FIXTURES / "gemini-cli-session.jsonl"


def _read(path: Path):
    return read_upload([(path.name, path.read_bytes())])


def _lines(*lines: dict, name: str = "session.jsonl"):
    return read_upload([(name, "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode())])


def _recorded_lines() -> list[dict]:
    return [json.loads(line) for line in LINES.read_text(encoding="utf-8").splitlines()]


def test_a_session_document_is_one_conversation_each_answer_a_round_its_request_rebuilt_from_the_recording():
    upload = _read(DOCUMENT)
    assert upload.summary() == "1 document: 3 rounds in 1 conversation; 0 documents skipped"
    assert upload.formats["gemini-cli-session"][1] == ("'sessionId' and 'projectHash' beside 'messages' "
                                                       "(a Gemini CLI session)")
    [conversation] = upload.conversations
    assert conversation.id == "session 8a20078e-2d5e-4f81-a640-9b879bbb7e6d"
    reading, writing, answer = conversation.trace.rounds
    assert all(r.request_from_transcript for r in conversation.trace.rounds)
    assert reading.request.messages[0].text.startswith("請幫我依照專案實際狀況更新 README.md")
    assert [(c.name, c.arguments) for c in reading.tool_calls] == [
        ("read_file", {"file_path": "README.md"}), ("read_file", {"file_path": "README.zh-CN.md"}),
        ("read_file", {"file_path": "README.zh-TW.md"})]
    # The results Gemini CLI recorded on each call are the next request's tool results, paired with the calls.
    results = [p for m in writing.request.messages for p in m.tool_results]
    assert [p.call_id for p in results] == [c.id for c in reading.tool_calls]
    assert results[0].content.startswith('{"output": "<div align=\\"center\\" markdown=\\"1\\">')
    assert [c.name for c in writing.tool_calls] == ["write_file"] * 4
    assert answer.response.message.text.startswith("已經幫你整理好囉！")
    roles = ["user", "assistant"] + ["tool"] * 3 + ["assistant"] + ["tool"] * 4
    assert [m.role for m in answer.request.messages] == roles
    assert not [f for f in run_checks(conversation.trace) if f.code in ("missing-tool-result", "orphan-tool-result")]


def test_each_answers_usage_is_the_tokens_gemini_cli_recorded_its_thoughts_counted_as_output():
    rounds = _read(DOCUMENT).conversations[0].trace.rounds
    # "tokens": {"input": 11894, "output": 68, "cached": 7900, "thoughts": 344, "total": 12306}
    usage = rounds[0].response.usage
    assert (usage.source, usage.input_tokens, usage.cache_read_tokens, usage.output_tokens, usage.reasoning_tokens) == (
        "reported", 11894, 7900, 68 + 344, 344)
    assert [r.response.usage.input_tokens for r in rounds] == [11894, 20960, 43494]
    assert rounds[0].request.model == "gemini-3.1-pro-preview-customtools"


def test_each_answers_thoughts_are_shown_as_the_summaries_gemini_cli_recorded_beside_its_text_never_in_it():
    rounds = _read(LINES).conversations[0].trace.rounds
    # Line 11: "thoughts": [{"subject": "Analyzing Project Context", "description": "I've been poring over ...", ...}]
    second = rounds[1]
    thoughts = [p for p in second.response.message.parts if p.kind == "other"]
    assert [(p.type, p.raw["subject"], p.raw["timestamp"]) for p in thoughts] == [
        ("thought_summary", "Analyzing Project Context", "2026-04-23T12:53:15.115Z"),
        ("thought_summary", "Defining Project's Building Blocks", "2026-04-23T12:53:16.526Z")]
    assert thoughts[0].raw["description"].startswith("I've been poring over the project files.")
    # Beside the answer, never its text: a turn of calls alone has none, and an answer's text is the recorded one.
    assert second.response.message.text == ""
    fifth = rounds[4].response.message
    assert [p.raw["subject"] for p in fifth.parts if p.kind == "other"] == ["Assessing Next Steps"]
    assert fifth.text.startswith("我已經完成了 `GEMINI.md` 的撰寫") and "Assessing Next Steps" not in fifth.text
    # Their tokens stay the count Gemini CLI recorded (tokens.thoughts): the output's reasoning.
    assert [r.response.usage.reasoning_tokens for r in rounds] == [306, 642, 232, 161, 348, 452]
    # Gemini CLI does not send them back: the requests rebuilt after them do not carry them.
    sent = json.dumps([m.raw for m in rounds[-1].request.messages], ensure_ascii=False)
    assert "Analyzing Project Context" not in sent and "Assessing Next Steps" not in sent
    document = _read(DOCUMENT).conversations[0].trace.rounds
    assert [[p.raw["subject"] for p in r.response.message.parts if p.kind == "other"] for r in document] == [
        ["Initiating Stepwise Analysis"], ["Advancing toward next goal", "Refining action steps"],
        ["Advancing toward next goal", "Finalizing Documentation Updates"]]


def test_a_thought_that_is_not_a_subject_and_description_is_shown_whole_and_its_answer_still_a_round():
    lines = _recorded_lines()
    # Line 20's answer, its thoughts damaged: a bare string beside the recorded one.
    lines[19] = {**lines[19], "thoughts": ["Assessing", *lines[19]["thoughts"]]}
    upload = _lines(*lines)
    assert upload.problems == ()
    fifth = upload.conversations[0].trace.rounds[4].response.message
    assert [p.raw for p in fifth.parts if p.kind == "other"][0] == {"type": "thought_summary", "recorded": "Assessing"}
    assert fifth.text.startswith("我已經完成了 `GEMINI.md` 的撰寫")


def test_the_checks_read_the_thoughts_as_no_answer_text_only_the_text_beside_calls_is_flagged():
    trace = _read(LINES).conversations[0].trace
    thoughts = {(r.index, join_path(r.response.message_path, p.path)): p.raw["subject"] for r in trace.rounds
                for p in r.response.message.parts if p.kind == "other"}
    assert len(thoughts) == 7
    found = run_checks(trace)
    assert not [f for f in found if (f.round, f.path) in thoughts or any(s in f.message for s in thoughts.values())]
    # Rounds 1, 2, 3 and 6 are thoughts and calls: only round 4 wrote text beside its call.
    assert [(f.round, f.path) for f in found if f.code == "text-with-tool-calls"] == [
        (4, "choices[0].message.content")]


def test_the_note_says_the_thoughts_are_shown_as_summaries_gemini_cli_recorded_not_the_models_reasoning():
    trace = _read(LINES).conversations[0].trace
    detail = provenance_detail(trace.round_provenance(trace.rounds[1]))
    assert "is not shown" not in detail
    assert ("The model's thoughts are shown as Gemini CLI recorded them, in thought_summary parts before the "
            "answer's text and calls: each a summary of the model's reasoning that Gemini sent (a subject and a "
            "description, as Gemini CLI split it), not the reasoning itself, and not text the model wrote to the "
            "person.") in detail


def test_the_system_prompt_and_tool_list_gemini_cli_does_not_record_are_said_to_be_missing_never_empty():
    trace = _read(DOCUMENT).conversations[0].trace
    round_ = trace.rounds[1]
    assert round_.request.system is None and round_.request.tools == ()
    assert parts_not_logged(round_) == ("instructions", "tools")
    provenance = trace.round_provenance(round_)
    assert provenance.origin == "derived" and provenance.omitted == ("system", "tools")
    detail = provenance_detail(provenance)
    assert "Gemini CLI does not record its system prompt: it was sent" in detail
    # The tool list it sends with every request is said once, where the list would be (tool_list_missing).
    assert "tool list" not in detail and tool_list_always_sent(round_)
    # That it keeps no stop is said under each response (lib.summary.stop_unrecorded_words), not again here.
    assert "why the model stopped" not in detail
    assert "Converted from a Gemini CLI session recording" in origin_line(trace, round_)


def test_json_lines_an_answer_written_again_once_its_calls_ran_is_one_round_at_its_last_copy():
    # Lines 6 and 8 are one answer (id 52e62e67-...), written before and after its five calls ran.
    upload = _read(LINES)
    assert upload.summary() == "28 lines: 6 rounds in 1 conversation; 14 lines not model calls; 0 lines skipped"
    assert "a Gemini CLI session's first line" in upload.formats["gemini-cli-session"][1]
    [conversation] = upload.conversations
    rounds = conversation.trace.rounds
    assert [r.extra["source_line"] for r in rounds] == [8, 11, 14, 17, 20, 26]
    first = rounds[0]
    assert [c.name for c in first.tool_calls] == ["update_topic", "read_file", "read_file", "read_file", "read_file"]
    assert [(r.response.usage.input_tokens, r.response.usage.cache_read_tokens) for r in rounds] == [
        (13906, 0), (29082, 8156), (38324, 0), (40914, 32637), (40122, 8158), (40238, 0)]
    # The info lines ("Empty GEMINI.md created...", "Request cancelled.") were shown to the person, never sent.
    said = [m.text for r in rounds for m in r.request.messages]
    assert not any("Request cancelled." in t or "Empty GEMINI.md created" in t for t in said)
    assert rounds[-1].request.model == "gemini-3.1-pro-preview"


def test_the_results_of_the_last_answers_calls_are_what_the_program_ran_no_recorded_call_sent_them():
    last = _read(LINES).conversations[0].trace.rounds[-1]
    assert [(e.name, e.ok) for e in last.executions] == [("update_topic", True), ("replace", True)]
    assert [e.tool_call_id for e in last.executions] == [c.id for c in last.tool_calls]
    assert last.executions[1].output.startswith("Successfully modified file: /home/wei/repo/discordbot/GEMINI.md")
    assert not last.executions[0].note  # that the log ends here is said under the lane, for every format
    # How the session ended: Gemini CLI's info message after the last answer, kept as its words.
    assert [(n.by, n.kind, n.text, n.after) for n in last.notices] == [
        ("Gemini CLI", "info", "Request cancelled.", True)]


def test_results_also_recorded_as_a_user_message_are_sent_once():
    # Newer Gemini CLI also records the results it sends back as a user message of functionResponse parts
    # (geminiChat.ts, recordSyntheticMessage): they are the calls' recorded results, not a second turn.
    lines = _recorded_lines()
    call = next(c for line in lines if line.get("id", "").startswith("cda8a342") and "toolCalls" in line
                for c in line["toolCalls"])
    echoed = {"id": "echo-1", "timestamp": "2026-04-23T12:53:40.000Z", "type": "user", "content": call["result"]}
    at = next(i for i, line in enumerate(lines) if line.get("id", "").startswith("edf94f05"))
    upload = _lines(*lines[:at], echoed, *lines[at:])
    after = upload.conversations[0].trace.rounds[3]
    results = [p.call_id for m in after.request.messages for p in m.tool_results]
    assert len(results) == len(set(results)) == 9


def test_a_rewind_drops_the_message_it_names_and_every_one_after_it():
    lines = _recorded_lines()
    # Rewound to the person's second prompt ("幫我做一個小修改..."): the answer to it is gone.
    upload = _lines(*lines, {"$rewindTo": "231038fa-bbfb-4b43-9a30-b8b7fcf54895"})
    rounds = upload.conversations[0].trace.rounds
    assert len(rounds) == 5
    assert not any("uv run" in m.text for m in rounds[-1].request.messages)


def test_a_damaged_line_is_a_problem_naming_the_line_and_the_rest_still_load():
    lines = _recorded_lines()
    damaged = {"id": "x-1", "timestamp": "2026-04-23T12:53:06.000Z", "type": "gemini", "content": "",
               "toolCalls": "read_file"}
    upload = _lines(*lines[:4], damaged, *lines[4:])
    assert [upload.said(p) for p in upload.problems] == [
        "line 5: a gemini message's 'toolCalls' is a string, expected a list of call objects (read as Gemini CLI "
        "session)"]
    assert len(upload.conversations[0].trace.rounds) == 6


def test_gemini_clis_prompt_log_is_its_own_not_taken_for_a_claude_code_session_and_says_it_holds_no_call():
    # logs.json beside the chats folder: what the person typed (logger.ts's LogEntry), one array of entries. Its
    # 'sessionId' beside a string 'message' was read as Claude Code's, and every entry refused as a bad message.
    typed = ["/init", "幫我做一個小修改"]
    entries = [{"sessionId": "0ab84937-9fe7-4284-986a-33c832af0b6a", "messageId": n, "type": "user", "message": said,
                "timestamp": "2026-04-23T12:53:05.283Z"} for n, said in enumerate(typed)]
    upload = read_upload([("logs.json", json.dumps(entries, ensure_ascii=False).encode())])
    assert list(upload.formats) == ["gemini-cli-session"]
    assert upload.problems == ()
    assert upload.summary() == "2 elements: 0 rounds in 0 conversations; 2 elements not model calls; 0 elements skipped"
    [note] = upload.notes
    assert "logs.json keeps only what the person typed (2 prompts)" in note.message


def test_a_saved_chat_is_not_read_as_rounds_and_says_why():
    # `/chat save <tag>` writes checkpoint-<tag>.json: {"history": Content[], "authType"} (logger.ts's Checkpoint).
    history = [{"role": "user", "parts": [{"text": "list files"}]},
               {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]}]
    for body in ({"history": history, "authType": "oauth-personal"}, history):
        upload = read_upload([("checkpoint-x.json", json.dumps(body).encode())])
        assert upload.conversations == ()
        said = upload.problems[0].message
        assert "a Gemini CLI saved chat or checkpoint (`/chat save`, checkpoint-<tag>.json)" in said


def test_other_formats_lines_are_not_taken_for_gemini_clis():
    from lib.logs.gemini_cli import GeminiCliSessionFormat
    assert_detects_only_its_own(GeminiCliSessionFormat)
    detect = GeminiCliSessionFormat().detect
    # Before a session's first line, a message-shaped line is no one's; a Claude Code line never is Gemini CLI's.
    assert detect({"id": "m1", "type": "user", "content": "hi"}) is None
    assert detect({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "x"}}) is None
    assert detect({"$set": {"lastUpdated": "2026-04-23T12:53:02.597Z"}}) is None


def test_a_damaged_message_of_a_session_document_is_named_and_the_others_still_load():
    session = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    session["messages"][1]["toolCalls"][0]["result"] = 7
    upload = read_upload([("session.json", json.dumps(session, ensure_ascii=False).encode())])
    # The first answer (three read_file calls) is left out; the two after it are still rounds.
    assert upload.summary() == "1 document: 2 rounds in 1 conversation; 0 documents skipped"
    assert [c.name for c in upload.conversations[0].trace.rounds[0].tool_calls] == ["write_file"] * 4
    [note] = upload.notes
    assert note.message == ("messages[1]: a message's toolCalls[].result is a number, expected text or a list of "
                            "parts: that message is left out of the session read as Gemini CLI's; its other messages "
                            "still load, and the requests rebuilt after it lack it")


def test_a_subagents_recording_is_named_as_a_subagents_run():
    # Gemini CLI writes a subagent's run as a session file of its own, `"kind": "subagent"` on its first line.
    first, *rest = _recorded_lines()
    upload = _lines({**first, "kind": "subagent"}, *rest)
    assert [c.id for c in upload.conversations] == ["session 0ab84937-9fe7-4284-986a-33c832af0b6a, a subagent's run"]


# Gemini CLI records an error it shows the person as an `error` message (packages/cli/src/ui/hooks/useHistoryManager.ts
# at google-gemini/gemini-cli commit 5411f113cafae26161b4969b0237b8e1e024e2c2); when the model call failed, its text is
# parseAndFormatApiError's (packages/core/src/utils/errorParsing.ts, same commit): "[API Error: ...]". No public
# recording holding one was found: these lines are written in that shape, after the recorded session; the quota words
# are those a Gemini CLI 2026 run printed (ai-supervisor-foundry/foundry's geminiStub), the status words those of the
# Gemini SDK's errors ("got status: 429 Too Many Requests.").
QUOTA = "[API Error: You have exhausted your capacity on this model. Your quota will reset after 2h52m39s.]"


def _notice(kind: str, content: str, at: str = "2026-04-23T12:59:10.000Z") -> dict:
    return {"id": f"{kind}-{at}", "timestamp": at, "type": kind, "content": content}


def test_an_api_error_is_a_failed_round_whose_request_is_the_conversation_before_it():
    from lib.checks import run_checks
    lines = _recorded_lines()
    upload = _lines(*lines, _notice("error", QUOTA))
    assert upload.summary() == "29 lines: 7 rounds in 1 conversation; 14 lines not model calls; 0 lines skipped"
    trace = upload.conversations[0].trace
    answered, failed = trace.rounds[-2:]
    assert failed.response is None
    assert (failed.error.status, failed.error.message) == (None, QUOTA)
    # The failed call carried the last answer and the results of its calls, so they are no longer left unsent.
    before = len(answered.request.messages)
    assert failed.request.messages[:before] == answered.request.messages
    assert [c.id for c in failed.request.messages[before].tool_calls] == [c.id for c in answered.tool_calls]
    assert [r.call_id for m in failed.request.messages[before + 1:] for r in m.tool_results] == [
        c.id for c in answered.tool_calls]
    # What the program ran after the answer is still shown.
    assert answered.executions
    assert "Gemini CLI recorded this error in place of an answer" in provenance_detail(trace.round_provenance(failed))
    assert parts_not_logged(failed) == ("instructions", "tools")
    assert [f for f in run_checks(trace) if f.code == "provider-error"]


def test_an_api_errors_status_is_read_from_its_words_and_other_errors_stay_notices():
    upload = _lines(*_recorded_lines(), _notice("user", [{"text": "try again"}], "2026-04-23T12:59:00.000Z"),
                    _notice("error", "[API Error: got status: 429 Too Many Requests. {\"error\":{\"code\":429}}]"),
                    _notice("error", "Failed to update the model about exiting Plan Mode.", "2026-04-23T12:59:20.000Z"))
    assert upload.summary() == "31 lines: 7 rounds in 1 conversation; 15 lines not model calls; 0 lines skipped"
    failed = upload.conversations[0].trace.rounds[-1]
    assert failed.error.status == 429
    assert failed.request.messages[-1].text == "try again"


def _called(trace, finding) -> str:
    """The name of the tool whose call a finding is about (its path ends `tool_calls[n]`)."""
    index = int(finding.path.rsplit("[", 1)[1].rstrip("]"))
    return trace.rounds[finding.round - 1].response.message.tool_calls[index].name


def test_the_write_checks_mark_the_calls_that_change_files_not_the_topic_gemini_cli_shows():
    # Gemini CLI's update_topic sets the title it shows the person; replace edits a file, as write_file writes one.
    trace = _read(LINES).conversations[0].trace
    writes = [(f.round, _called(trace, f)) for f in run_checks(trace) if f.code == "write-tool-call"]
    assert writes == [(3, "write_file"), (6, "replace")]


def test_the_words_the_model_writes_into_update_topic_are_not_values_someone_should_have_given():
    # update_topic's title and strategic_intent are the model's account of its own work, as a summary is.
    trace = _read(LINES).conversations[0].trace
    assert [f.round for f in run_checks(trace) if f.code == "model-filled-value"] == []


def _without_tokens() -> list[dict]:
    """The recording with no answer's `tokens`: a log without usage, whose every figure is our estimate."""
    return [{k: v for k, v in line.items() if k != "tokens"} for line in _recorded_lines()]


def test_an_output_estimate_counts_what_the_model_wrote_not_its_thought_summaries_and_says_it_leaves_them_out():
    from lib.export_html import trace_html
    from lib.summary import summarize, tokens_words
    from lib.tokens import CHARACTER_COUNTER
    trace = _lines(*_without_tokens()).conversations[0].trace
    rows = summarize(trace, CHARACTER_COUNTER)
    assert {r.usage.source for r in rows} == {"estimated"}
    # Round 1 answered with a thought summary and five calls: its output is the calls as written, name and
    # arguments, four characters a token; the summary's subject, description and JSON wrapper are not counted.
    first = trace.rounds[0]
    calls = "\n".join(f"{c.name} {c.arguments_raw}" for c in first.tool_calls)
    assert rows[0].usage.output_tokens == CHARACTER_COUNTER.count(calls)
    # Round 5 wrote text beside one summary: the text alone.
    assert rows[4].usage.output_tokens == CHARACTER_COUNTER.count(trace.rounds[4].response.message.text)
    assert [r.output_left_out for r in rows] == [("thought_summary",)] * 3 + [()] + [("thought_summary",)] * 2
    said = ("The estimate leaves out the model's thought summaries: they summarize the model's thinking, which the "
            "provider bills as output tokens; the log holds neither that thinking nor its count, so it is not in "
            "this estimate.")
    # The file says the same figure as the rounds table, and says what it leaves out.
    page = trace_html(trace, rows).replace("&#39;", "'")
    assert f"≈ {rows[0].usage.output_tokens} out, estimated offline (characters); the API reported none. {said}" in page
    assert tokens_words(rows[0])[1] == f"≈ {rows[0].usage.output_tokens}"
    # With usage recorded nothing is left out: the count is Gemini CLI's own.
    assert all(r.output_left_out == () for r in summarize(_read(LINES).conversations[0].trace, CHARACTER_COUNTER))


def test_the_please_continue_gemini_cli_sends_after_an_invalid_stream_is_drawn_as_the_program_not_the_person():
    # Line 18's user text is Gemini CLI's own retry after an invalid stream (core/client.ts), not the person's words.
    from lib.sequence import sequence
    trace = _read(LINES).conversations[0].trace
    asked = [a.label for a in sequence(trace) if a.source == "user"]
    assert asked and not any("Please continue" in label for label in asked)
    assert any(a.source == a.target == "program" and a.label.endswith("of its own context in the user's role")
               for a in sequence(trace))


def test_the_prompt_gemini_cli_submits_for_init_is_drawn_as_the_program_not_the_person_asking():
    # Line 2's user text is the prompt Gemini CLI's /init command submits in the person's place
    # (packages/core/src/commands/init.ts); the person typed only "/init". Line 26's request is the person's own.
    from lib.growth import growth
    from lib.sequence import sequence
    trace = _read(LINES).conversations[0].trace
    asked = [a.label for a in sequence(trace) if a.source == "user"]
    assert not any("brings the power of Gemini" in label for label in asked)
    assert any("uv run" in label for label in asked)  # the person's later request is still theirs
    [init] = growth(trace, 1).entries
    assert init.message.text.lstrip().startswith("You are an AI agent") and init.origin == "program"
