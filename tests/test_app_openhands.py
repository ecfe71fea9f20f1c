"""OpenHands' completion logs and trajectories, as an engineer who runs OpenHands reads them in the app."""

import json

from tests.formats_support import lines as fixture_lines
from tests.screen import lines, round_shown, uploaded
from tests.test_openhands import _in_text


def test_the_explorer_shows_a_trajectory_round_rebuilt_with_the_runs_tools_and_its_result_paired(app):
    shown = round_shown(app, "openhands-output.jsonl", 2)
    assert "Rebuilt from an OpenHands trajectory: the request is the run's events before this response" in shown
    assert "4 tools resent unchanged: execute_bash, think, finish, str_replace_editor · tools" in shown
    # Round 1's call is answered in this request by the observation OpenHands recorded for it.
    assert "result for execute_bash (toolu_01, called in round 1)" in shown
    assert "Input tokens (reported): **6,736**" in shown


def test_a_completion_logs_tool_list_is_counted_not_said_missing(app):
    shown = round_shown(app, "openhands-completions.jsonl", 1)
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "tool definitions not in the log" not in split and "tool definitions 1,292" in split
    assert "Input tokens (reported): **5,920**" in shown


def test_a_call_with_function_calling_in_text_says_the_tool_list_went_as_text_and_is_not_counted(app):
    at = app.run()
    data = "".join(json.dumps(_in_text(c)) + "\n" for c in fixture_lines("openhands-completions.jsonl")).encode()
    at.file_uploader(key="sidebar.upload").upload("completions.jsonl", data).run()
    assert not at.exception
    shown = "\n".join(lines(at))
    assert "OpenHands called this model without native function calling" in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "tool definitions not in the log" in split and "tool definitions 0" not in split


def test_a_trajectory_without_model_responses_says_where_the_calls_are(app):
    at = uploaded(app, "openhands-resolver-output.jsonl")
    said = " ".join(str(e.value) for e in (*at.main.error, *at.main.warning, *at.main.info))
    assert "This file holds no readable rounds. The sidebar says what it holds and why none could be read." in said
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "an OpenHands trajectory of 8 events, none of which keeps the model response" in sidebar
    assert "log_completions=True" in sidebar


def test_a_rebuilt_rounds_gap_names_the_rebuild_among_its_reasons(app):
    shown = round_shown(app, "openhands-output.jsonl", 2)
    why = next(line for line in shown.splitlines() if line.startswith("The reported input is"))
    assert ("the request is rebuilt from the log's transcript, not recorded as sent, so what the program added to the "
            "turns or left out of them when it sent them is not in our count") in why


def test_a_response_that_calls_a_tool_under_a_stop_finish_is_not_called_an_answer_without_a_call(app):
    # OpenRouter's Llama answers each call with finish_reason 'stop': the round still asks for execute_bash.
    shown = round_shown(app, "openhands-output.jsonl", 1)
    assert "execute_bash (toolu_01) · choices[0].message.tool_calls[0]" in shown
    assert "answer in text, no tool call" not in shown
    last = round_shown(app, "openhands-output.jsonl", 6)
    assert "finish (toolu_23) · choices[0].message.tool_calls[0]" in last and "final answer" not in last
