"""Claude Code's logs (session transcripts, stream-json output), as an engineer who uses Claude Code reads them."""

from lib.ui import state
from tests.screen import FIXTURES, round_shown, screen, uploaded


def test_the_explorer_says_the_instructions_and_tool_list_are_not_in_a_claude_code_log_never_0(app):
    # Claude Code sent its system prompt and tool list (cache reads of 21,204 tokens) but logged neither: the input's
    # parts may not read "instructions 0", and the 43,354 tokens beyond our count are mostly those two, not a template.
    shown = round_shown(app, "claude-stream-json-read.jsonl", 2)
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions 0" not in split and "tool definitions 0" not in split
    assert "instructions not in the log · tool definitions not in the log" in split
    assert ("reported beyond our count (the instructions and tool definitions the log lacks, "
            "template, provider tokens) 43,354") in split


def test_a_session_logs_rounds_table_says_its_instructions_and_tools_are_not_in_the_log(app):
    at = uploaded(app, "claude-code-session.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}
    assert rounds["in: earlier messages (resent)"].tolist()[2] == 145
    # Round 6, the prompt the log ends on, has no reported usage: its input is estimated from what the log holds.
    assert any("they were sent and billed, but they have no bar of their own: on a round with reported usage their "
               "tokens are in the part reported beyond our count" in c.value for c in at.main.caption)


def _resent(at):
    return next(m for m in at.metric if m.label == "Input already sent in the previous request")


def test_what_was_resent_is_not_known_where_the_log_kept_no_request_before(app):
    # Round 1's request is not in the log (its prompt was not echoed), so what round 2 sent again is not known: not 0%.
    at = uploaded(app, "claude-stream-json-read.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert _resent(at).value == "not in the log"
    assert "what each request sent again is not known" in _resent(at).help


def test_a_session_logs_resent_share_says_it_leaves_out_the_instructions_and_tool_list(app):
    at = uploaded(app, "claude-code-session.jsonl")
    at.switch_page("pages/overview.py").run()
    assert _resent(at).value == "65%"
    # A share of our count, not of the bill: said beneath the figure, which the browser would cut short.
    assert any(c.value.startswith("A share of the 1,375 tokens we counted in ") for c in at.caption)
    assert ("The log keeps neither the instructions nor the tool list, which every request sends again: this is a "
            "share of the messages we counted, without them.") in _resent(at).help


def test_claude_codes_one_hour_cache_writes_are_priced_at_their_own_rate(app):
    # Claude Code writes its prompt cache for an hour (usage.cache_creation.ephemeral_1h_input_tokens: all 29,690
    # written here), which Anthropic bills at twice the input price, not the 5-minute write's 1.25 times: at Haiku
    # 4.5's $1 in, $0.10 cached, $2 a 1-hour write and $5 out, 18 + 34,984 × 0.1 + 29,690 × 2 + 4 × 5 = US$0.06292.
    at = uploaded(app, "claude-stream-json-read.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert next(m for m in at.metric if m.label == "Cost of the whole trace").value == "US$0.06292"


def test_presenter_step_1_says_the_model_also_read_instructions_the_claude_code_log_does_not_keep(app):
    # "What the model sees: this request is everything the model knows", over a request without Claude Code's system
    # prompt, and nothing on the slide said it was missing: a learner reads the messages shown as all the model had.
    at = uploaded(app, "claude-code-session.jsonl")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    shown = screen(at)
    assert ("This request is everything the model knows, but the log does not keep its instructions (the system "
            "prompt): they were sent with these messages, and are not shown here.") in shown


def test_the_rounds_table_and_chart_name_what_a_claude_code_logs_remainder_holds(app):
    # The explorer says the remainder holds the instructions and tool list the log lacks; the Tokens page's column
    # and legend called the same 43,354 tokens "template, provider tokens".
    at = uploaded(app, "claude-stream-json-read.jsonl")
    at.switch_page("pages/overview.py").run()
    named = "reported beyond our count (the instructions and tool definitions the log lacks, template, provider tokens)"
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds[f"in: {named}"].tolist()[1] == 43354
    assert "in: reported beyond our count (template, provider tokens)" not in rounds.columns
    chart = next(c for c in at.get("plotly_chart") if "input tokens" in c.proto.spec)
    assert f'"name":"{named}"' in chart.proto.spec.replace(": ", ":")


def test_a_claude_code_chat_without_tool_calls_is_not_said_to_have_called_tools(app):
    # The session's first exchange alone: a question and an answer in text. Claude Code still sent its tool list (its
    # format never logs it), but nothing here called a tool: the gap note said "though the model called tools".
    first_two = (FIXTURES / "claude-code-session.jsonl").read_text().splitlines()[:2]
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("chat.jsonl", ("\n".join(first_two) + "\n").encode())
    at.run()
    assert not at.exception
    shown = screen(at)
    assert "called tools" not in shown
    assert ("Why: the log's format does not always keep the tool list (an agent's session log never does), so "
            "the list sent and billed is not in our count;") in shown
    assert "whether or not one was sent" not in shown


def test_compare_does_not_say_two_claude_code_chats_called_tools(app):
    # Two sessions' first exchanges, each a question answered in text: Claude Code's format never logs its tool list,
    # but neither model called a tool. Compare said "though their models called tools".
    session = (FIXTURES / "claude-code-session.jsonl").read_text().splitlines()[:2]
    edge = (FIXTURES / "claude-code-edge-cases.jsonl").read_text().splitlines()[:2]
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("two.jsonl", ("\n".join(session + edge) + "\n").encode())
    at.run()
    at.query_params["compare"] = "upload:0,upload:1"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    shown = screen(at)
    assert "called tools" not in shown
    assert ("Neither run's log keeps a tool list (their format does not always keep one, as an agent's session "
            "log never does): their tools are not known.") in shown


def test_the_input_chart_draws_no_zero_bars_for_the_parts_a_claude_code_log_does_not_keep(app):
    # Its hover read "round 2, 0 tokens of instructions" for instructions that were sent and not logged.
    at = uploaded(app, "claude-code-session.jsonl")
    at.switch_page("pages/overview.py").run()
    chart = next(c for c in at.get("plotly_chart") if "input tokens" in c.proto.spec)
    spec = chart.proto.spec.replace(": ", ":")
    assert '"name":"instructions"' not in spec and '"name":"tool definitions"' not in spec
    assert '"name":"new messages"' in spec


def test_both_dialects_says_the_converted_request_lacks_the_system_prompt_and_tool_list_the_log_did_not_keep(app):
    # Claude Code sent its system prompt and tool list but logged neither: the request converted to Chat Completions
    # has no system message and no tools, which may not pass for a request sent so.
    at = uploaded(app, "claude-code-session.jsonl")
    at.radio(key="explorer.view").set_value("Both dialects").run()
    assert not at.exception
    assert ("The log did not keep the system prompt and the tool list this request was sent with, so this conversion "
            "lacks them too: it is not the request as the program sent it.") in [t.value for t in at.main.text]
    # Nor may the table of this round's fields put a dash, "none here", where the log kept no system prompt or tools.
    fields = next(d.value for d in at.dataframe if "what" in d.value.columns).set_index("what")
    assert fields.loc["System prompt"].tolist() == ["not in the log", "not in the log"]
    assert fields.loc["Tool definitions"].tolist() == ["not in the log", "not in the log"]


def test_the_cache_line_says_claude_codes_cache_write_was_for_an_hour(app):
    # Round 2 wrote 22,266 tokens to the cache, all of them for an hour (cache_creation.ephemeral_1h_input_tokens):
    # billed at twice the input price, not a 5-minute write's 1.25 times, so the line says which.
    shown = round_shown(app, "claude-stream-json-read.jsonl", 2)
    assert "22,266 written to it for an hour (included in the input)" in shown


def test_the_thinking_tokens_claude_code_logs_are_said_as_part_of_the_output(app):
    # Claude Code 2.1's usage carries output_tokens_details.thinking_tokens: 49 of round 1's 135 output tokens.
    shown = round_shown(app, "claude-code-2.1.233.jsonl", 1)
    assert "Output tokens (reported): **135**" in shown
    assert "49 reasoning tokens (included in the output)" in shown


def test_the_explorer_card_says_claude_code_wrote_the_summary_a_compaction_starts_again_from(app):
    # Round 3 of the recorded 2.1.233 session compacted after its answer (tests/test_claude_code.py builds the lines):
    # its request is the summary alone. The card read "changed since the previous request", a diff against the
    # person's first prompt, as if the person had rewritten it.
    import json

    from tests.screen import lines
    from tests.test_claude_code import _said, compacted_after_recorded
    at = app.run()
    log = compacted_after_recorded(_said("Continuing with the echo."))
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", "\n".join(map(json.dumps, log)).encode())
    at.run()
    at.number_input(key=state.ROUND).set_value(3).run()
    assert not at.exception
    shown = lines(at)
    card = shown.index("**messages[0]** · role **user** · :green-badge[new this round]")
    assert shown[card + 1] == "Written by the program in the user's role, not typed by the person."
    assert shown[card + 2].startswith("This session is being continued from a previous conversation")
    assert not any("changed since the previous request" in line for line in shown)
