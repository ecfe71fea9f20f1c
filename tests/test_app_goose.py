"""Goose session files, as an engineer who uses Goose reads them in the app."""

from tests.screen import lines, round_shown, uploaded


def test_the_explorer_shows_a_goose_round_rebuilt_its_result_ran_and_its_missing_parts_said(app):
    shown = round_shown(app, "goose-session.jsonl", 1)
    assert shown.count("Converted from a Goose session file") == 1 and "Rebuilt from" not in shown
    assert "Goose does not record its system prompt: it was sent" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions not in the log · tool definitions not in the log" in split
    # No call's usage is in the file: the round's tokens are estimated, never the session's counts.
    assert "Input tokens (estimated)" in shown and "Input tokens (reported)" not in shown
    assert "Call developer__shell · id toolu_bdrk_01H6Vzjip2dzWDWJMQkiwevZ" in shown
    assert "coding    1234  2.5  8.5 123456 87654 pts/0    R+   10:30   0:15 node worker.js" in shown
    assert "The log ends before the next request: no request carries these results back to the model." in shown


def test_the_tokens_page_shows_the_sessions_counts_beside_the_rounds_never_in_them(app):
    at = uploaded(app, "goose-session.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    shown = "\n".join(lines(at))
    assert ("Goose records no usage with its messages, only token counts on the session's first line: 980 input and "
            "270 output tokens in the provider's last report") in shown
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_with_no_usage_reported_the_instructions_and_tools_goose_lacks_are_said_to_be_in_no_figure(app):
    # Nothing was reported, so there is no part "reported beyond our count" to hold them: the estimates leave them out.
    at = uploaded(app, "goose-session.jsonl")
    at.switch_page("pages/overview.py").run()
    shown = "\n".join(lines(at))
    assert "their tokens are in the part reported beyond our count" not in shown
    assert ("they were sent and billed, but no usage was reported, so no figure here holds them: each round's input "
            "is estimated from what the log holds") in shown


def test_a_goose_rounds_estimated_input_is_said_to_be_of_what_the_log_holds_not_all_that_was_sent(app):
    shown = round_shown(app, "goose-session.jsonl", 1)
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert split.startswith("Where the input goes (19 by our count of what the log holds): instructions not in the log")


def test_the_stop_goose_never_recorded_is_said_to_be_read_from_the_message_not_shown_as_a_signal(app):
    # Goose keeps no stop_reason: the importer reads 'tool_use' off the calls, so no stop signal is on record.
    shown = round_shown(app, "goose-session.jsonl", 1)
    assert "Stop signal stop_reason: tool_use" not in shown
    assert "The log records no stop signal; read as stop_reason 'tool_use' from the message." in shown
    # Said once, under the response: the step's label does not say it again.
    assert "stop_reason 'tool_use': run the tools ·" in shown and "(read from the message" not in shown


def test_the_input_billed_over_all_calls_says_its_estimate_leaves_out_the_tool_list_goose_never_keeps(app):
    # ≈ 19 tokens "billed" for a call whose last report alone says 980: the estimate holds only what the file holds.
    at = uploaded(app, "goose-session.jsonl")
    at.switch_page("pages/overview.py").run()
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.value == "≈ 19"
    assert ("1 of them reported no usage: their tokens are our offline estimate, of what the log holds only: a "
            "tool list, which its format does not always keep, is billed too where one was sent, and is in no "
            "estimate.") in \
        billed.proto.help
