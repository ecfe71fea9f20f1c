"""Gemini CLI session recordings, as an engineer who uses Gemini CLI reads them in the app."""

from tests.screen import round_shown, uploaded


def test_the_explorer_shows_a_gemini_cli_round_rebuilt_its_results_paired_and_its_missing_parts_said(app):
    shown = round_shown(app, "gemini-cli-session.jsonl", 2)
    assert "Converted from a Gemini CLI session recording" in shown
    assert "The request is the conversation before this answer as the recording kept it" in shown
    assert "Gemini CLI does not record its system prompt: it was sent" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions 0" not in split and "tool definitions 0" not in split
    assert "instructions not in the log · tool definitions not in the log" in split
    # Round 1's five calls are answered in this request by the results Gemini CLI recorded on them.
    assert "result for read_file (aao1q07o, called in round 1)" in shown
    assert "Input tokens (reported): **29,082**" in shown


def test_a_gemini_cli_session_documents_rounds_table_says_its_instructions_and_tools_are_not_in_the_log(app):
    at = uploaded(app, "containers/gemini-cli-session.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist() == [11894, 20960, 43494]
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_the_gap_beside_a_gemini_cli_round_names_what_the_log_lacks_in_words_and_each_once(app):
    shown = round_shown(app, "gemini-cli-session.jsonl", 1)
    said = next(line for line in shown.splitlines() if line.startswith("The reported input is"))
    assert "the log's format does not always keep the tool list" in said
    assert ("it does not always keep the instructions (the system prompt) either, so any sent and billed are not in "
            "our count;") in said
    assert "lacks system, tools" not in said


def test_the_program_lane_shows_what_gemini_cli_ran_after_every_answer_not_that_the_log_does_not_say(app):
    # Gemini CLI records each call's status and result on the call: round 1's five calls all ran, and succeeded.
    shown = round_shown(app, "gemini-cli-session.jsonl", 1)
    assert "not recorded: the trace does not say what the program ran" not in shown
    assert "read_file (hfq6e93w): ok · executions[4]" in shown
    assert "the recording ends on this result" not in shown


def test_each_call_and_its_result_carry_the_id_gemini_cli_recorded_so_they_can_be_found_in_the_file(app):
    # Gemini CLI records an id on each call and on the functionResponse it sent back: b5qo7ls5 is update_topic's.
    shown = round_shown(app, "gemini-cli-session.jsonl", 2)
    assert "Call update_topic · id b5qo7ls5" in shown
    assert "result for read_file (aao1q07o, called in round 1)" in shown
    assert "call_1_" not in shown


def test_the_explorer_shows_an_answers_thoughts_as_the_summaries_gemini_cli_recorded_as_text_not_markup(app):
    # Line 11: round 2's answer is two thoughts and three calls, and no text.
    shown = round_shown(app, "gemini-cli-session.jsonl", 2, ("text", "code"))
    assert shown.count("A thought_summary part, shown as the payload holds it") == 2
    assert '"subject": "Analyzing Project Context"' in shown
    assert "I've been poring over the project files." in shown
    ours = round_shown(app, "gemini-cli-session.jsonl", 2, ("markdown", "caption", "info"))
    assert "Analyzing Project Context" not in ours and "poring over" not in ours
    assert "each a summary of the model's reasoning that Gemini sent" in round_shown(app, "gemini-cli-session.jsonl", 2)
    # Thoughts beside calls are no text beside them: no finding is pinned on them.
    assert "text-with-tool-calls" not in ours


def test_the_answer_sent_back_without_its_thoughts_is_not_said_to_be_appended_unchanged(app):
    # Round 2's answer is two thought summaries and three calls; round 3's request carries the calls alone.
    shown = round_shown(app, "gemini-cli-session.jsonl", 3)
    turn = shown[shown.index("**messages[7]** · role **assistant**"):shown.index("Call read_file · id jw6mrjz7")]
    assert "appended unchanged" not in turn
    assert "The model's turn from the previous response, appended without its thought summaries." in turn


def test_a_gap_of_all_but_a_few_tokens_is_not_rounded_up_to_all_of_the_input(app):
    # Round 1: 13,906 reported, 35 counted: 99.7% of the input is beyond our count, not 100%.
    shown = round_shown(app, "gemini-cli-session.jsonl", 1)
    assert "The reported input is 13,871 tokens more than our count, over 99% of the input." in shown
    assert "100% of the input" not in shown


def test_a_part_left_out_of_the_turn_sent_back_is_named_in_our_words_or_counted_never_by_its_own_type():
    # The card's line is drawn as markdown: a part's type is the trace's text, so an unknown one is only counted.
    from lib.growth import MessageEntry, origin_words
    from lib.model import Message, TextPart

    turn = Message(role="assistant", parts=(TextPart(text="done"),), raw={"role": "assistant", "content": "done"},
                   key="k")
    entry = MessageEntry(2, turn, "new", "response", without=("thought_summary", "<img src=x onerror=alert(1)>"))
    said = origin_words(entry)
    assert said == ("the model's turn from the previous response, appended without its thought summaries and one "
                    "other kind of its parts")
    assert "<img" not in said


def _sentences(shown: str, about: str) -> list[str]:
    """The sentences of what a round shows that match `about`, a regular expression."""
    import re
    return [s for s in re.split(r"(?<=[.;])\s+|\n", shown) if re.search(about, s)]


def test_each_gemini_cli_round_says_once_in_the_log_s_word_that_the_stop_shown_is_read_not_recorded(app):
    for k in (1, 5):  # a round that ran tools, and one that answered
        said = _sentences(round_shown(app, "gemini-cli-session.jsonl", k), r"no stop|why the model stopped")
        assert said == ["The log records no stop signal;"], (k, said)


def test_the_last_gemini_cli_round_says_once_that_the_log_ends_before_a_request_carries_its_results(app):
    shown = round_shown(app, "gemini-cli-session.jsonl", 6)
    said = _sentences(shown, r"(log|trace|recording) ends")
    assert said == ["The log ends before the next request: no request carries these results back to the model."]


def test_the_request_cancelled_message_gemini_cli_recorded_is_shown_after_the_last_round_as_its_text(app):
    # Line 27: the info message Gemini CLI showed after round 6's calls ran; line 2 one before the first prompt.
    assert round_shown(app, "gemini-cli-session.jsonl", 6, ("text",)).count("Request cancelled.") == 1
    assert "Gemini CLI's message after this round (info):" in round_shown(app, "gemini-cli-session.jsonl", 6)
    assert "Request cancelled." not in round_shown(app, "gemini-cli-session.jsonl", 6, ("markdown", "caption"))
    first = round_shown(app, "gemini-cli-session.jsonl", 1)
    assert "Gemini CLI's message before this request (info):" in first
    assert first.count("Empty GEMINI.md created. Now analyzing the project to populate it.") == 1
    assert "Request cancelled." not in round_shown(app, "gemini-cli-session.jsonl", 5)


def test_a_gemini_cli_log_without_usage_shows_one_output_estimate_everywhere_saying_it_leaves_out_the_thoughts(app):
    import json
    from lib.logs.upload import read_upload
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.ui import state
    from tests.screen import FIXTURES, figures, lines
    recorded = (FIXTURES / "gemini-cli-session.jsonl").read_text(encoding="utf-8").splitlines()
    data = "\n".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "tokens"}, ensure_ascii=False)
                     for line in recorded).encode()
    trace = read_upload([("session.jsonl", data)]).conversations[0].trace
    rows = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)  # the sidebar's `auto`
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", data)
    at.run()
    at.number_input(key=state.ROUND).set_value(1).run()
    assert not at.exception
    shown = figures(at)["Output tokens (estimated)"]
    assert shown.value == f"≈ {rows[0].usage.output_tokens:,}"
    assert "The estimate leaves out the model's thought summaries" in shown.help
    assert any(line.startswith("The estimate leaves out the model's thought summaries") for line in lines(at))
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "tokens out" in d.value.columns)
    assert table["tokens out"].tolist() == [r.usage.output_tokens for r in rows]
    assert any(line.startswith("Tokens out of 5 rounds (1, 2, 3, 5, 6), estimated: The estimate leaves out the "
                               "model's thought summaries") for line in lines(at))


def test_each_gemini_cli_round_says_once_that_its_tool_list_was_sent_and_never_that_it_may_not_have_been(app):
    # Gemini CLI sends its function declarations with every request and never records them: one statement says so.
    from lib.summary import TOOL_LIST_SENT_NOT_LOGGED
    for k in range(1, 7):
        shown = round_shown(app, "gemini-cli-session.jsonl", k)
        assert "whether or not one was sent" not in shown
        assert "both were sent" not in shown and "The recorded request lacks" not in shown
        assert "Rebuilt from a Gemini CLI session recording" not in shown
        assert shown.count("Converted from a Gemini CLI session recording") == 1
        assert TOOL_LIST_SENT_NOT_LOGGED in shown
