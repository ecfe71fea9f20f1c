"""OpenAI Codex CLI session logs (rollouts), as an engineer who uses Codex reads them in the app."""

from tests.screen import round_shown, uploaded


def test_the_explorer_shows_a_codex_round_its_call_and_usage_and_says_the_tool_list_is_not_in_the_log(app):
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 1)
    assert "Input tokens (reported): **18,703**" in shown
    assert "Output tokens (reported): **167**" in shown
    assert "exec_command (call_Y2p6KmqwoTtpi6atpDPuxC5M)" in shown
    assert "show tools" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "tool definitions 0" not in split and "tool definitions not in the log" in split
    assert "Converted from an OpenAI Codex CLI session log (a rollout)" in shown
    assert "The log kept no tool list: its format does not always keep one, but a list was sent;" in shown


def test_the_rounds_table_lists_each_model_call_of_the_session_with_its_reported_tokens(app):
    at = uploaded(app, "codex-rollout-0.125.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist() == [18703, 18911, 20292]
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_no_view_of_a_codex_session_calls_its_log_claude_codes(app):
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 2)
    at = uploaded(app, "codex-rollout-0.125.jsonl")
    at.switch_page("pages/overview.py").run()
    tokens_page = "\n".join(str(e.value) for e in (*at.markdown, *at.caption, *at.text, *at.info, *at.warning))
    assert "Claude Code" not in shown and "Claude Code" not in tokens_page
    assert "an agent's session log" in tokens_page


def test_the_explorer_shows_a_codex_call_that_failed_with_the_status_its_error_recorded(app):
    # An `error` event in codex-rs/protocol's ErrorEvent shape after the recorded session's first call
    # (tests/test_codex.py says where the shape is from).
    import json
    from pathlib import Path

    from lib.ui import state
    recorded = (Path(__file__).parent / "fixtures" / "codex-rollout-0.125.jsonl").read_bytes().splitlines()[:12]
    error = {"timestamp": "2026-05-11T08:27:30.000Z", "type": "event_msg", "payload": {
        "type": "error", "message": "exceeded retry limit, last status: 500 Internal Server Error",
        "codex_error_info": {"response_too_many_failed_attempts": {"http_status_code": 500}}}}
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("rollout.jsonl", b"\n".join([*recorded, json.dumps(error).encode()]))
    at.run()
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = [t.value for t in at.main.text] + [c.value for c in at.main.code] + [e.value for e in at.error]
    assert any("exceeded retry limit, last status: 500 Internal Server Error" in s for s in shown)
    assert "The call failed: HTTP 500. The provider said:" in [e.value for e in at.error]


def _tokens_page(app):
    at = uploaded(app, "codex-rollout-0.125.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_the_tokens_page_says_a_codex_log_lacks_the_tool_list_not_the_instructions_it_kept(app):
    # Codex 0.125's session_meta carries its base instructions: the rounds table counts them (286 tokens a round).
    at = _tokens_page(app)
    captions = " ".join(c.value for c in at.caption)
    assert "keeps neither the instructions nor the tool list" not in captions
    assert ("This log's format (an agent's session log) keeps no tool list: it was sent and billed, but it has no bar "
            "of its own; its tokens are in the part reported beyond our count.") in captions
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert "neither the instructions" not in resent.help
    assert ("The log keeps no tool list, which every request sends again: this is a share of the instructions and "
            "messages we counted, without it.") in resent.help


def test_the_gap_is_explained_once_by_the_tool_list_the_log_never_keeps_not_by_abridged_instructions(app):
    at = _tokens_page(app)
    said = next(t.value for t in at.main.text if t.value.startswith("Round 1: The reported input is"))
    assert "the log's format does not always keep the tool list" in said
    assert "abridged" not in said and "lacks tools" not in said


def test_the_tokens_page_prices_no_gpt_5_5_round_at_gpt_5s_rate(app):
    # The rollout's turn_context asks for gpt-5.5; the table's gpt-5 row is another model's price.
    at = _tokens_page(app)
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["model"]) == {"gpt-5.5"}
    assert "cost USD" not in rounds.columns or rounds["cost USD"].isna().all()
    shown = "\n".join(str(e.value) for e in (*at.markdown, *at.caption, *at.text, *at.info, *at.warning))
    assert "No price for these models" in shown and "gpt-5.5" in shown


def test_a_codex_round_does_not_say_0_tokens_were_written_to_the_prompt_cache(app):
    # OpenAI reports cache reads (cached_input_tokens), never writes: round 1's 18,703 input must have been written for
    # round 2 to read 18,304, so "0 written to it" would be a figure the log does not hold.
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 2)
    assert "0 written to it" not in shown
    assert ("18,304 read from the prompt cache (included in the input); the API does not report what it wrote to "
            "the cache.") in shown


def test_the_program_lane_of_round_1_shows_the_command_codex_logged_the_end_of_and_claims_no_run_time_for_the_call(app):
    # The exec_command call's command outlived the call (line 11's output: "Process running"); its end, exit 0 after
    # 5.09 s, is logged at line 12. The lane shows that, and not "not recorded", nor 5,088 ms as the call's time.
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 1)
    lane = shown[shown.index("The program's lane, after response 1"):]
    assert "not recorded: the trace does not say what the program ran" not in lane
    assert ":green-badge[ran ok]" in lane
    assert "handler exec_command · call call_Y2p6KmqwoTtpi6atpDPuxC5M" in lane.splitlines()
    assert ("Codex logged the command's end after this output: it was still running when Codex returned the output, "
            "and ended later with exit code 0 after 5,088 ms: the command's time, not this call's.") in lane
    assert "Appended to round 2's request as messages[5]" in lane
    assert "exec_command (call_Y2p6KmqwoTtpi6atpDPuxC5M): ok" in lane


def test_round_2s_lane_shows_write_stdin_run_as_the_command_it_polled_ended(app):
    # write_stdin polled process 48230, whose end (exit 0) Codex logged at line 12 under the exec_command's call id.
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 2)
    lane = shown[shown.index("The program's lane, after response 2"):]
    assert "not recorded: the trace does not say what the program ran" not in lane
    assert "write_stdin (call_QazIeAavKevvIILVQkrDdKKT): ok" in lane
    assert "process 48230; Codex logged that command's end before this output: it had exited with code 0" in lane


def test_the_explorers_table_of_all_rounds_writes_its_counts_as_the_tokens_page_does(app):
    # Round 1's 18,703 input tokens: the explorer's table drew 18703 beside the figure above it that says 18,703.
    import json
    at = uploaded(app, "codex-rollout-0.125.jsonl")
    table = next(d for d in at.dataframe if "tokens in" in d.value.columns)
    assert table.value["tokens in"].tolist()[0] == 18703
    columns = json.loads(table.proto.columns)
    assert columns["tokens in"]["type_config"]["format"] == "localized"
    assert columns["tokens out"]["type_config"]["format"] == "localized"
    assert "round" not in columns


def _sentences(shown: str, about: str) -> list[str]:
    """The sentences of what a round shows that match `about`, a regular expression."""
    import re
    return [s for s in re.split(r"(?<=[.;])\s+|\n", shown) if re.search(about, s)]


def test_each_codex_round_says_once_in_the_log_s_word_that_the_stop_shown_is_read_not_recorded(app):
    for k in (1, 3):  # a round that ran a command, and the answer
        said = _sentences(round_shown(app, "codex-rollout-0.125.jsonl", k), r"no stop|why the model stopped")
        assert said == ["The log records no stop signal;"], (k, said)


def _sentences_with(shown: str, words: str) -> list[str]:
    return [s for line in shown.splitlines() for s in line.split(". ") if words in s]


def test_each_codex_round_says_once_that_its_tool_list_was_sent_and_never_that_it_may_not_have_been(app):
    # Codex sends its tool list with every request and never logs it: a fact of the agent, said in one statement
    # where the list would be (the input split, step 1's card), never contradicted by a reader's note beside it.
    from lib.summary import TOOL_LIST_SENT_NOT_LOGGED
    for k in (1, 2, 3):
        shown = round_shown(app, "codex-rollout-0.125.jsonl", k)
        assert "whether or not one was sent" not in shown
        assert "The recorded request lacks" not in shown
        assert "Codex does not log its tool list" not in shown
        said = _sentences_with(shown, "tool list")
        assert not [s for s in said if "whether" in s or "any list" in s or "may" in s]
        assert TOOL_LIST_SENT_NOT_LOGGED in shown


def test_a_codex_round_says_once_what_it_was_converted_from_and_that_it_is_a_rollout_not_an_api_object(app):
    from lib.export_html import trace_html
    from lib.summary import summarize
    from lib.tokens import CHARACTER_COUNTER
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    shown = round_shown(app, "codex-rollout-0.125.jsonl", 1)
    name = "codex-rollout-0.125.jsonl"
    trace = read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace
    page = trace_html(trace, summarize(trace, CHARACTER_COUNTER))
    for view in (shown, page):
        assert "Responses API object" not in view
        assert "Cut out of" not in view
        assert view.count("Converted from an OpenAI Codex CLI session log (a rollout)") == (1 if view is shown else 3)
        assert "The recorded request lacks" not in view and "whether or not one was sent" not in view


def test_the_program_lane_of_a_command_still_running_when_the_rollout_ends_says_it_started_its_end_not_in_the_log(app):
    # The recorded rollout as newer versions write it (no exec_command_end), cut after the exec_command's output, which
    # says "Process running with session ID 48230". The lane read "not recorded: the trace does not say what the
    # program ran" under the note saying the command started and was still running.
    from tests.screen import FIXTURES, lines
    from tests.test_codex import _without_command_ends
    at = app.run()
    recorded = (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes().splitlines(keepends=True)
    at.file_uploader(key="sidebar.upload").upload("rollout.jsonl", _without_command_ends(recorded[:12]))
    at.run()
    assert not at.exception
    shown = "\n".join(lines(at))
    lane = shown[shown.index("The program's lane, after response 1"):]
    assert "exec_command (call_Y2p6KmqwoTtpi6atpDPuxC5M): started; its end is not in the log" in lane.splitlines()
    assert "not recorded" not in lane
    assert ("The command exec_command started (call call_Y2p6KmqwoTtpi6atpDPuxC5M) was still running when Codex wrote "
            "its output for the model") in shown


def test_the_program_lane_of_a_write_stdin_whose_command_has_no_end_in_the_log_says_it_ran(app):
    # The recorded rollout without exec_command_end, its write_stdin returning while the command still ran (the output
    # says "Process running with session ID 48230"). Round 2's lane read "not recorded: the trace does not say what the
    # program ran" under the note saying the call wrote to that command and returned its output so far.
    from lib.ui import state
    from tests.screen import FIXTURES, lines
    from tests.test_codex import _polled_while_running
    at = app.run()
    recorded = (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes().splitlines(keepends=True)
    at.file_uploader(key="sidebar.upload").upload("rollout.jsonl", _polled_while_running(recorded[:15]))
    at.run()
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = "\n".join(lines(at))
    lane = shown[shown.index("The program's lane, after response 2"):]
    assert ("write_stdin (call_QazIeAavKevvIILVQkrDdKKT): ran; the end of the command it wrote to is not in the log"
            in lane.splitlines())
    assert "not recorded" not in lane
    assert ("The write_stdin call call_QazIeAavKevvIILVQkrDdKKT wrote to (or polled) the command running as process "
            "48230 and returned its output so far") in shown
