"""OpenCode session exports, as an engineer who uses OpenCode reads them in the app."""

from tests.screen import round_shown, uploaded


def test_the_explorer_shows_an_opencode_step_rebuilt_its_result_paired_and_its_missing_parts_said(app):
    shown = round_shown(app, "containers/opencode-export-steps.json", 2)
    assert shown.count("Converted from an OpenCode session export") == 1 and "Rebuilt from" not in shown
    assert "The request is the conversation before this model call as the export kept it" in shown
    assert "OpenCode does not export its system prompt: it was sent" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions 0" not in split and "tool definitions 0" not in split
    assert "instructions not in the log · tool definitions not in the log" in split
    # Step 1's bash call is answered in this request by the output its tool part recorded.
    assert "result for bash (toolu_01LmQ7v3XcTz9RbN4kWp2HsA, called in round 1)" in shown


def test_an_opencode_exports_rounds_table_has_each_steps_tokens_and_no_instructions_or_tools_counted(app):
    at = uploaded(app, "containers/opencode-export-steps.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist()[:3] == [3 + 10103 + 27, 5 + 10130 + 166, 4 + 10351 + 234]
    assert set(rounds["in: instructions"]) == {"not in the log"}
    assert set(rounds["in: tool definitions"]) == {"not in the log"}


def test_the_explorer_shows_what_opencode_ran_for_a_steps_call_not_that_it_is_not_recorded(app):
    shown = round_shown(app, "containers/opencode-export-steps.json", 1)
    assert "bash (toolu_01LmQ7v3XcTz9RbN4kWp2HsA): ok" in shown
    assert "not recorded: the trace does not say what the program ran" not in shown
    second = round_shown(app, "containers/opencode-export-steps.json", 2)
    assert "read (toolu_01PzR8kYwD5sN2fV6tJh3QcE): failed" in second


def test_a_reasoning_part_written_into_a_messages_body_by_the_importer_is_not_said_to_be_kept_as_sent(app):
    # OpenCode's reasoning part becomes a thinking block of a body the importer writes: nobody sent that block.
    from pathlib import Path

    from lib.export_html import trace_html
    from lib.logs.upload import read_upload
    shown = round_shown(app, "containers/opencode-export-steps.json", 1)
    assert "A thinking part, shown as the payload holds it" in shown and "kept as sent" not in shown
    path = Path("tests/fixtures/containers/opencode-export-steps.json")
    exported = trace_html(read_upload([(path.name, path.read_bytes())]).conversations[0].trace)
    assert "A thinking part, shown as the payload holds it" in exported and "kept as sent" not in exported
