"""OpenCode's run --format json output, as an engineer who ran `opencode run` reads it in the app."""

from tests.screen import round_shown


def test_the_explorer_shows_an_opencode_run_step_rebuilt_its_result_paired_and_its_missing_parts_said(app):
    shown = round_shown(app, "opencode-run-json.jsonl", 2)
    assert shown.count("Converted from OpenCode's run --format json output") == 1 and "Rebuilt from" not in shown
    assert "The person's prompt (the message given to opencode run) is not in the output" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "instructions 0" not in split and "tool definitions 0" not in split
    assert "instructions not in the log · tool definitions not in the log" in split
    assert "result for bash (r9bQWsNLvOrJGIOz, called in round 1)" in shown
