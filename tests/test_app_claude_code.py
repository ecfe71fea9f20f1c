"""Claude Code's logs (session transcripts, stream-json output), as an engineer who uses Claude Code reads them."""

from lib.ui import state
from tests.screen import round_shown, uploaded


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
    at.switch_page("pages/tokens.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}
    assert rounds["in: earlier messages (resent)"].tolist()[2] == 145
    assert any("they were sent and billed, but they have no bar of their own; their tokens are in the part reported "
               "beyond our count" in c.value for c in at.main.caption)
