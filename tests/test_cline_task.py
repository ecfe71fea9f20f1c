"""Cline and Roo Code task histories (`api_conversation_history.json`, with `ui_messages.json`) read as rounds.

The fixtures are the first three requests of a real Roo Code task (tests/fixtures/containers/README.md says where and
what was cut): each test says what a user sees of them: the format named, one conversation, a round per assistant
turn cut out of the transcript, the system prompt and tool list said to be missing, and usage only where the UI
file's counts pair with the responses for certain. The newer native tool_use shape is written here from Cline's
stored shape, as no public recording of it with a licence was found.
"""

import json
import time
from pathlib import Path

from lib.logs.upload import read_upload
from lib.provenance import provenance_detail
from lib.summary import parts_not_logged, tool_list_never_logged

FIXTURES = Path(__file__).parent / "fixtures" / "containers"
HISTORY = "roo-code-api_conversation_history.json"
UI = "roo-code-ui_messages.json"


def _read(*names: str, ui: list | None = None):
    files = [(name, (FIXTURES / name).read_bytes()) for name in names]
    if ui is not None:
        files.append(("ui_messages.json", json.dumps(ui).encode()))
    return read_upload(files)


def _ui() -> list:
    return json.loads((FIXTURES / UI).read_text())


def _notes(upload) -> list[str]:
    return [n.message for n in upload.notes]


def test_a_history_alone_is_one_task_each_assistant_turn_a_round_with_no_usage_system_prompt_or_tool_list():
    upload = _read(HISTORY)
    assert upload.summary() == "6 elements: 3 rounds in 1 conversation; 0 elements skipped"
    assert upload.formats["cline-task"][1] == ("one JSON array of user and assistant turns carrying 'ts' (a Cline or "
                                               "Roo Code api_conversation_history.json)")
    [task] = upload.conversations
    assert task.id == "Cline / Roo Code task: PHASE 1 : Diagnostic Système Interface-First - Stratégie An…"
    rounds = task.trace.rounds
    assert [len(r.request.messages) for r in rounds] == [1, 3, 5]
    assert all(r.request_from_transcript for r in rounds)
    assert rounds[0].request.messages[0].text.startswith("<task>\n# PHASE 1 : Diagnostic Système Interface-First")
    # The file keeps no counts: not 0 tokens, not known, and the note says where they are.
    assert [r.response.usage for r in rounds] == [None, None, None]
    assert ("The history keeps no token counts: the counts are in ui_messages.json, which was not uploaded with it, "
            "so no round's usage is known.") in _notes(upload)
    # Sent, but not in the file: said to be missing, never an empty list.
    assert all(parts_not_logged(r) == ("instructions", "tools") and tool_list_never_logged(r) for r in rounds)
    detail = provenance_detail(rounds[0].provenance)
    assert "The file does not keep the system prompt: it was sent" in detail
    assert "tool list" not in detail  # said once, where the list would be (lib.summary.tool_list_missing)
    assert "may hold more than was sent" in detail


def test_calls_roo_code_had_written_as_xml_in_the_text_are_read_as_calls_answered_by_the_results_under_their_header():
    [task] = _read(HISTORY).conversations
    rounds = task.trace.rounds
    assert [[c.name for c in r.tool_calls] for r in rounds] == [["update_todo_list"], ["use_mcp_tool"],
                                                                ["update_todo_list"]]
    mcp = rounds[1].tool_calls[0]
    assert (mcp.arguments["server_name"], mcp.arguments["tool_name"]) == ("roo-state-manager", "list_conversations")
    assert json.loads(mcp.arguments["arguments"])["limit"] == 50
    # The XML left the text; what the model wrote around it stays.
    assert "<update_todo_list>" not in rounds[0].response.message.text
    assert rounds[0].response.message.text.startswith("Je vais suivre rigoureusement l'approche **Interface-First**")
    # "[update_todo_list] Result:" then "Todo list updated successfully.": the result of round 1's call, by its id.
    [result] = rounds[1].request.messages[2].tool_results
    assert (result.call_id, result.content) == (rounds[0].tool_calls[0].id, "Todo list updated successfully.")
    [mcp_result] = rounds[2].request.messages[4].tool_results
    assert mcp_result.call_id == mcp.id and mcp_result.content.startswith('[\n  {\n    "taskId": "3b9fdac8')
    # The editor's state after the result stays the turn's own text.
    assert rounds[1].request.messages[2].text.startswith("<environment_details>")
    assert all({"tool calls", "call ids"} <= set(r.extra["derived"]) for r in rounds)
    assert "they are read out of the text as tool calls, their ids made up" in provenance_detail(rounds[0].provenance)


def test_a_tool_tag_left_open_or_of_no_tool_the_extension_has_stays_text():
    history = [
        {"role": "user", "content": "<task>Look</task>", "ts": 1},
        {"role": "assistant", "content": "I'll use <thinking>a plan</thinking> then <read_file>\n<path>a.py", "ts": 2},
    ]
    [task] = _upload(history).conversations
    [round_] = task.trace.rounds
    assert round_.tool_calls == () and "<read_file>" in round_.response.message.text
    assert "read out of the text" not in provenance_detail(round_.provenance)


def test_with_its_ui_messages_each_round_has_the_counts_of_its_api_req_started_event():
    upload = _read(HISTORY, UI)
    assert upload.summary() == ("24 elements: 3 rounds in 1 conversation; 18 elements not model calls; "
                                "0 elements skipped")
    [task] = upload.conversations
    usage = [r.response.usage for r in task.trace.rounds]
    # Roo Code counted Anthropic's way (apiProtocol "anthropic"): 10 tokens of input beside the cache written.
    assert [(u.input_tokens, u.cache_write_tokens, u.cache_read_tokens, u.output_tokens) for u in usage] == [
        (37687, 37677, 0, 768), (38426, 38416, 0, 382), (52582, 52572, 0, 10)]
    assert [u.source for u in usage] == ["reported"] * 3
    assert all("api_req_started event of ui_messages.json paired with it" in provenance_detail(r.provenance)
               for r in task.trace.rounds)
    assert not [n for n in _notes(upload) if "usage" in n]


def test_a_response_the_extension_stopped_reading_says_its_text_and_output_count_may_be_cut_short():
    # Round 3 ends "[Response interrupted by a tool use result...]": Roo Code stopped the stream after the first tool,
    # and its count of 10 output tokens for 1,200 characters is what the stream reported as it began.
    [task] = _read(HISTORY, UI).conversations
    said = [provenance_detail(r.provenance) for r in task.trace.rounds]
    assert ["The extension stopped reading this response before it ended" in s for s in said] == [True, False, True]
    assert "an output count paired with it may be only what the stream reported at its start" in said[2]


def test_counts_that_do_not_pair_one_to_one_with_the_responses_are_not_read_and_the_note_says_why():
    events = [e for e in _ui() if e.get("say") != "api_req_started" or "update_todo_list" not in e["text"]]
    upload = _read(HISTORY, ui=events)
    [task] = upload.conversations
    assert [r.response.usage for r in task.trace.rounds] == [None, None, None]
    assert any(n.startswith("ui_messages.json holds 2 api_req_started events for 3 responses in the history")
               for n in _notes(upload))


def test_counts_timed_out_of_step_with_the_responses_are_not_read():
    events = _ui()
    first = next(e for e in events if e.get("say") == "api_req_started")
    first["ts"] += 60_000  # after the first response was written: it cannot be that response's request
    upload = _read(HISTORY, ui=events)
    assert [r.response.usage for r in upload.conversations[0].trace.rounds] == [None, None, None]
    assert any("request 1's api_req_started event in ui_messages.json is not timed between the response before and "
               "its own" in n for n in _notes(upload))


def test_ui_messages_alone_are_counted_not_read_and_say_to_upload_the_history_with_them():
    upload = _read(UI)
    assert upload.summary() == ("18 elements: 0 rounds in 0 conversations; 18 elements not model calls; "
                                "0 elements skipped")
    assert upload.problems == ()
    assert any("upload the task's api_conversation_history.json with it" in n for n in _notes(upload))


# --- the newer shape: native tool_use blocks -----------------------------------------------------------------------

def _cline_history() -> list[dict]:
    """A history in the shape Cline 3.x stores with native tool calls: blocks, `ts`, `modelInfo`, `metrics`."""
    model = {"modelId": "claude-sonnet-4-5-20250929", "providerId": "anthropic", "mode": "act"}
    return [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nWhat is in README.md?\n</task>"}],
         "ts": 1767225600000},
        {"role": "assistant", "ts": 1767225605000, "modelInfo": model,
         "content": [{"type": "text", "text": "Let me read it."},
                     {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "README.md"}}]},
        {"role": "user", "ts": 1767225605100,
         "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "# Demo\nA demo project."}]},
        {"role": "assistant", "ts": 1767225609000, "modelInfo": model,
         "content": [{"type": "text", "text": "README.md describes a demo project."}]},
    ]


def _event(ts: int, **counts) -> dict:
    return {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps({"request": "…", **counts})}


def _upload(history: list[dict], ui: list[dict] | None = None):
    files = [("api_conversation_history.json", json.dumps(history).encode())]
    if ui is not None:
        files.append(("ui_messages.json", json.dumps(ui).encode()))
    return read_upload(files)


def test_native_tool_calls_are_read_and_answered_by_the_next_requests_result_with_the_model_cline_named():
    [task] = _upload(_cline_history()).conversations
    first, second = task.trace.rounds
    [call] = first.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01", "read_file", {"path": "README.md"})
    assert first.response.finish_reason == "tool_use" and second.response.finish_reason == "end_turn"
    [result] = second.request.messages[2].tool_results
    assert (result.call_id, result.content) == ("toolu_01", "# Demo\nA demo project.")
    assert task.trace.model == "claude-sonnet-4-5-20250929"
    assert "The model is the one the extension recorded on this response's turn ('modelInfo')." in \
        provenance_detail(first.provenance)


def test_clines_counts_are_read_only_where_no_cache_leaves_their_meaning_open():
    # Cline does not say whether its input count holds the cache (Roo Code's apiProtocol does): without cache
    # tokens both ways agree; with them the counts are not read, never guessed.
    history = _cline_history()
    plain = _upload(history, [_event(1767225600050, tokensIn=1200, tokensOut=40),
                              _event(1767225605200, tokensIn=1300, tokensOut=12)])
    assert [(u.input_tokens, u.output_tokens) for u in
            (r.response.usage for r in plain.conversations[0].trace.rounds)] == [(1200, 40), (1300, 12)]
    cached = _upload(history, [_event(1767225600050, tokensIn=1200, tokensOut=40, cacheReads=900),
                               _event(1767225605200, tokensIn=1300, tokensOut=12)])
    assert [r.response.usage for r in cached.conversations[0].trace.rounds] == [None, None]
    assert any("its counts cannot be read as Anthropic's" in n for n in _notes(cached))


def test_roo_codes_openai_counts_hold_the_cache_inside_the_input():
    ui = [_event(1767225600050, tokensIn=1200, tokensOut=40, cacheReads=900, cacheWrites=0, apiProtocol="openai"),
          _event(1767225605200, tokensIn=1300, tokensOut=12, cacheReads=1100, cacheWrites=100, apiProtocol="openai")]
    usage = [r.response.usage for r in _upload(_cline_history(), ui).conversations[0].trace.rounds]
    # Uncached input 300 and 100: the round's input still counts every token sent, the cache's with it.
    assert [(u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) for u in usage] == [(1200, 900, 0),
                                                                                          (1300, 1100, 100)]


def test_a_roo_code_summary_is_no_round_and_the_turns_it_condensed_leave_the_requests_after_it():
    history = [
        {"role": "user", "content": "<task>Fix the bug</task>", "ts": 1},
        {"role": "assistant", "content": "Looking.", "ts": 2, "condenseParent": "c1"},
        {"role": "user", "content": "[TASK RESUMPTION]", "ts": 3, "condenseParent": "c1"},
        {"role": "assistant", "content": "Summary of the work so far.", "ts": 4, "isSummary": True,
         "condenseId": "c1"},
        {"role": "user", "content": "Go on.", "ts": 5},
        {"role": "assistant", "content": "Done.", "ts": 6},
    ]
    upload = _upload(history)
    rounds = upload.conversations[0].trace.rounds
    assert [r.response.message.text for r in rounds] == ["Looking.", "Done."]
    assert [m.text for m in rounds[1].request.messages] == ["<task>Fix the bug</task>", "Summary of the work so far.",
                                                            "Go on."]
    assert any(n.startswith("turn 4 of the history is Roo Code's summary") for n in _notes(upload))


def test_an_array_of_chat_messages_without_clines_ts_is_still_read_as_a_transcript():
    plain = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]
    assert list(_upload(plain).formats) == ["openai-finetune"]


def test_counts_that_are_no_numbers_are_not_read_and_nothing_breaks():
    ui = [{"ts": 1767225600050, "type": "say", "say": "api_req_started",
           "text": '{"tokensIn": NaN, "tokensOut": Infinity}'},
          _event(1767225605200, tokensIn=1300, tokensOut=12)]
    upload = _upload(_cline_history(), ui)
    assert upload.problems == ()
    assert [r.response.usage for r in upload.conversations[0].trace.rounds] == [None, None]


def test_a_file_forced_on_this_reader_that_is_no_history_is_a_problem_naming_the_turn():
    files = [("h.json", json.dumps([{"role": "user", "content": "hi", "ts": 1},
                                    {"role": "system", "content": "x"}]).encode())]
    upload = read_upload(files, forced="cline-task")
    assert upload.conversations == ()
    assert any("messages[1]'s 'role' is neither 'user' nor 'assistant'" in p.message for p in upload.problems)



def test_a_turn_of_many_tags_left_open_reads_quickly():
    # A regular expression with a backreference scanned to the end for every open tag: 20,000 took 24 s.
    history = [{"role": "user", "content": "go", "ts": 1},
               {"role": "assistant", "content": "<read_file><path>" * 20_000, "ts": 2}]
    started = time.perf_counter()
    [task] = _upload(history).conversations
    assert time.perf_counter() - started < 5
    assert task.trace.rounds[0].tool_calls == ()


def test_a_subtasks_result_two_user_turns_later_answers_its_new_task_call_and_its_last_words_stay_text():
    # As Roo Code wrote it (jsboige/jsboige-mcp-servers' real task bc93a6f7, turns 33 to 35, texts shortened): the
    # subtask's last words come first, then the call's own result under a header spanning the subtask's message.
    created = "Successfully created new task in 🪲 Debug mode with message: **MISSION DEBUG**"
    call_text = ("\n<new_task>\n<mode>debug</mode>\n<message>\n**MISSION DEBUG**\nFind the loop.\n</message>\n"
                 "</new_task>")
    history = [
        {"role": "user", "content": "<task>Fix it</task>", "ts": 1},
        {"role": "assistant", "ts": 2, "content": [{"type": "text", "text": call_text}]},
        {"role": "user", "ts": 3, "content": [{"type": "text", "text": "[new_task completed] Result: Loop fixed."}]},
        {"role": "user", "ts": 4, "content": [
            {"type": "text", "text": "[new_task in 🪲 Debug mode: '**MISSION DEBUG**\nFind the loop.'] Result:"},
            {"type": "text", "text": created},
            {"type": "text", "text": "<environment_details>\n# VSCode Visible Files\n</environment_details>"}]},
        {"role": "assistant", "ts": 5, "content": [{"type": "text", "text": "The bug is fixed."}]},
    ]
    first, second = _upload(history).conversations[0].trace.rounds
    [call] = first.tool_calls
    assert (call.name, call.arguments) == ("new_task", {"mode": "debug",
                                                        "message": "**MISSION DEBUG**\nFind the loop."})
    [result] = [r for m in second.request.messages for r in m.tool_results]
    assert (result.call_id, result.content) == (call.id, created)
    assert second.request.messages[2].text == "[new_task completed] Result: Loop fixed."
    assert second.request.messages[3].text.startswith("<environment_details>")


def test_the_text_around_calls_read_out_of_that_text_raises_no_text_with_tool_calls_note():
    # Roo Code's calls are tags in the model's text: the extension reads the whole text to find them and sends it
    # back whole, so "a client that reads only the calls loses the text" is untrue of every one of its rounds.
    from lib.checks import run_checks
    [conversation] = _read(HISTORY, UI).conversations
    codes = [f.code for f in run_checks(conversation.trace)]
    assert "text-with-tool-calls" not in codes
    assert codes.count("write-tool-call") == 2


def test_reasoning_the_ui_file_shows_before_a_response_is_said_to_be_in_its_output_count_but_not_in_the_history():
    # Each of the three requests streamed `say: "reasoning"` events (the model's extended thinking) before its text:
    # the history keeps no thinking block, so the 768 output tokens of round 1 hold words the round does not show.
    [task] = _read(HISTORY, UI).conversations
    said = [provenance_detail(r.provenance) for r in task.trace.rounds]
    assert all("ui_messages.json shows the model reasoning before this response ('say': 'reasoning'), which the "
               "history does not keep: the output count includes it, the response shown lacks it" in s for s in said)
    # Without the UI file nothing says so: the history alone cannot tell.
    [alone] = _read(HISTORY).conversations
    assert not any("reasoning" in provenance_detail(r.provenance) for r in alone.trace.rounds)


def test_reasoning_after_the_last_response_or_none_at_all_is_not_said_of_a_round():
    ui = [e for e in _ui() if e.get("say") != "reasoning"]
    [task] = _read(HISTORY, ui=ui).conversations
    assert not any("'say': 'reasoning'" in provenance_detail(r.provenance) for r in task.trace.rounds)


def test_the_origin_line_names_the_extensions_task_history_not_another_log_format():
    from lib.provenance import origin_line
    [task] = _read(HISTORY).conversations
    said = origin_line(task.trace, task.trace.rounds[0])
    assert "Converted from a Cline or Roo Code task history, written here as an Anthropic Messages body" in said


# --- the model each request was sent to, and the extension's own cost ----------------------------------------------

def test_roo_codes_rounds_name_the_model_it_wrote_in_the_environment_details_of_their_request():
    # Roo Code ends each user turn with `<environment_details>`, whose "# Current Mode" names the model of the request
    # that turn began ("<model>claude-sonnet-4-20250514</model>"): the rounds name it, and say where it was read.
    [task] = _read(HISTORY).conversations
    assert [r.response.model for r in task.trace.rounds] == ["claude-sonnet-4-20250514"] * 3
    assert task.trace.model == "claude-sonnet-4-20250514"
    assert all("The model is as the extension wrote it in the environment details of the request's last user turn "
               "('# Current Mode', '<model>')" in provenance_detail(r.provenance) for r in task.trace.rounds)


def _environment(model: str) -> str:
    return ("<environment_details>\n# VSCode Visible Files\n\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>"
            f"\n<model>{model}</model>\n</environment_details>")


def test_a_model_tag_outside_the_last_user_turns_environment_details_names_no_model():
    # A `<model>` the person typed, or one in a tool's result, is the turn's text, not the extension's record; and the
    # model named before an earlier request may have been changed since.
    typed = [{"role": "user", "ts": 1, "content": [
                {"type": "text", "text": "<task>Use\n# Current Mode\n<slug>code</slug>\n<name>Code</name>\n"
                                         "<model>gpt-5</model></task>"}]},
             {"role": "assistant", "ts": 2, "content": [{"type": "text", "text": "Done."}]}]
    earlier = [{"role": "user", "ts": 1, "content": [{"type": "text", "text": "<task>Go</task>"},
                                                     {"type": "text", "text": _environment("gpt-5")}]},
               {"role": "assistant", "ts": 2, "content": [{"type": "text", "text": "Hm."}]},
               {"role": "user", "ts": 3, "content": [{"type": "text", "text": "Go on."}]},
               {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "Done."}]}]
    assert [r.response.model for r in _upload(typed).conversations[0].trace.rounds] == [None]
    rounds = _upload(earlier).conversations[0].trace.rounds
    assert [r.response.model for r in rounds] == ["gpt-5", None]
    assert "environment details" not in provenance_detail(rounds[1].provenance)


def test_the_model_cline_recorded_on_its_paired_request_event_names_the_round_only_where_the_pairing_is_certain():
    # Cline 3.x records on its UI events the model they were written under (`modelInfo`); a history whose turns do not
    # name it takes the model from the request's own event, and only where which event is whose is certain.
    history = [{k: v for k, v in turn.items() if k != "modelInfo"} for turn in _cline_history()]
    model = {"modelId": "claude-sonnet-4-5-20250929", "providerId": "anthropic", "mode": "act"}
    ui = [{**_event(1767225600050, tokensIn=1200, tokensOut=40), "modelInfo": model},
          {**_event(1767225605200, tokensIn=1300, tokensOut=12), "modelInfo": model}]
    rounds = _upload(history, ui).conversations[0].trace.rounds
    assert [r.response.model for r in rounds] == ["claude-sonnet-4-5-20250929"] * 2
    assert all("The model is the one the extension recorded on this request's api_req_started event in "
               "ui_messages.json ('modelInfo')" in provenance_detail(r.provenance) for r in rounds)
    unpaired = _upload(history, ui[:1]).conversations[0].trace.rounds
    assert [r.response.model for r in unpaired] == [None, None]


def test_the_extensions_own_cost_of_each_paired_request_is_said_beside_the_round_never_taken_as_ours():
    # Each api_req_started event carries the extension's own `cost` (US$0.14134875 for request 1): worked out at its
    # prices when it wrote the event, it is said in the round's note; the cost the app shows is its own.
    [task] = _read(HISTORY, UI).conversations
    said = [provenance_detail(r.provenance) for r in task.trace.rounds]
    assert [s.count("The extension's own cost for this request (the event's 'cost'):") for s in said] == [1, 1, 1]
    assert "'cost'): US$0.14135." in said[0] and "'cost'): US$0.14427." in said[1]
    assert "'cost'): US$0.19733." in said[2]
    assert all("It is the extension's figure, worked out at its own prices, not a cost this app worked out" in s
               for s in said)
    # Without the pairing no event is this round's, so no cost is said.
    events = [e for e in _ui() if e.get("say") != "api_req_started" or "update_todo_list" not in e["text"]]
    [unpaired] = _read(HISTORY, ui=events).conversations
    assert not any("own cost" in provenance_detail(r.provenance) for r in unpaired.trace.rounds)


def test_a_cost_that_is_no_amount_is_not_said():
    ui = [_event(1767225600050, tokensIn=1200, tokensOut=40, cost="0.5"),
          _event(1767225605200, tokensIn=1300, tokensOut=12, cost=-1)]
    rounds = _upload(_cline_history(), ui).conversations[0].trace.rounds
    assert not any("own cost" in provenance_detail(r.provenance) for r in rounds)


def test_a_task_is_titled_by_its_agent_and_the_first_words_of_the_task_not_by_its_file_count():
    upload = _read(HISTORY, UI)
    [task] = upload.conversations
    # The person's task, out of the <task> tags of the first prompt: "# PHASE 1 : Diagnostic Système Interface-First".
    # Of the two files, the one that holds the task's calls names it (not "2 files").
    assert task.trace.title == ("roo-code-api_conversation_history.json · Cline / Roo Code task: PHASE 1 : "
                                "Diagnostic Système Interface-First - Stratégie An…")


def test_two_tasks_with_the_same_first_words_stay_two_conversations():
    history = (FIXTURES / HISTORY).read_bytes()
    # Not byte for byte (a newline more): a file given twice byte for byte is read once.
    upload = read_upload([("a/api_conversation_history.json", history), ("b/api_conversation_history.json", history + b"\n")])
    assert [c.id for c in upload.conversations] == [
        "Cline / Roo Code task: PHASE 1 : Diagnostic Système Interface-First - Stratégie An…",
        "Cline / Roo Code task: PHASE 1 : Diagnostic Système Interface-First - Stratégie An… (2)"]
