"""A Cline or Roo Code task history opened in the app, as an engineer who uses either extension reads it."""

from tests.screen import screen, uploaded

HISTORY = "containers/roo-code-api_conversation_history.json"


def test_a_task_historys_rounds_table_says_its_instructions_and_tools_are_not_in_the_log_never_0(app):
    # The extension sent its system prompt and tool list with every request, but the file keeps neither.
    at = uploaded(app, HISTORY)
    at.switch_page("pages/tokens.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert len(rounds) == 3
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_the_explorer_says_the_request_was_cut_out_of_the_task_history(app):
    at = uploaded(app, HISTORY)
    shown = screen(at)
    assert "Cut out of a Cline or Roo Code task history (api_conversation_history.json)" in shown
