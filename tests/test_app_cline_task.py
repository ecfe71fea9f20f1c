"""A Cline or Roo Code task history opened in the app, as an engineer who uses either extension reads it."""

from tests.screen import FIXTURES, screen, uploaded

HISTORY = "containers/roo-code-api_conversation_history.json"


def test_a_task_historys_rounds_table_says_its_instructions_and_tools_are_not_in_the_log_never_0(app):
    # The extension sent its system prompt and tool list with every request, but the file keeps neither.
    at = uploaded(app, HISTORY)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert len(rounds) == 3
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_the_explorer_says_the_request_was_cut_out_of_the_task_history(app):
    at = uploaded(app, HISTORY)
    shown = screen(at)
    assert shown.count("Converted from a Cline or Roo Code task history") == 1
    assert "The request is the conversation before this response as the task history (api_conversation_history.json)" \
        in shown


def test_why_the_reported_input_is_above_our_count_names_the_instructions_the_file_never_keeps_not_abridged(app):
    # With its UI file the history's rounds have the extension's counts; the system prompt is not abridged but absent.
    at = _with_ui_file(app)
    shown = screen(at)
    assert "The reported input is 37,367 tokens more than our count, 99% of the input." in shown
    assert "abridged" not in shown
    # The model called tools, so a list was sent: "the list", as the card where the list would be says.
    assert ("Why: the log's format does not always keep the tool list (an agent's session log never does), so "
            "the list sent and billed is not in our count; it does not always keep the instructions (the system "
            "prompt) either, so "
            "any sent and billed are not in our count; the request is rebuilt from the log's transcript, not recorded "
            "as sent, so what the program added to the turns or left out of them when it sent them is not in our "
            "count; we count with o200k_base") in shown


def test_the_tokens_page_names_the_model_roo_code_wrote_not_a_log_that_names_none(app):
    # The rounds were sent to claude-sonnet-4-20250514, which Roo Code wrote in each turn's environment details:
    # the page lists it for a price, where it said "(the log names no model)".
    at = uploaded(app, HISTORY)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    shown = screen(at)
    assert "(the log names no model)" not in shown
    assert "claude-sonnet-4-20250514" in shown
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["model"]) == {"claude-sonnet-4-20250514"}


def test_the_explorer_says_the_extensions_own_cost_of_a_paired_request_as_its_figure_not_ours(app):
    at = _with_ui_file(app)
    shown = screen(at)
    assert "The extension's own cost for this request (the event's 'cost'): US$0.14135. It is the extension's " \
           "figure, worked out at its own prices, not a cost this app worked out" in shown
    assert "The model is as the extension wrote it in the environment details of the request's last user turn" in shown


def _with_ui_file(app):
    """The app with the Roo Code task's history and its ui_messages.json uploaded together."""
    at = app.run()
    at.file_uploader(key="sidebar.upload").set_value(
        [(name.split("/")[-1], (FIXTURES / name).read_bytes(), "application/json")
         for name in (HISTORY, "containers/roo-code-ui_messages.json")]).run()
    assert not at.exception
    return at
