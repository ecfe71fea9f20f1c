"""The Checks page, driven through the real app with AppTest on the bundled gallery traces."""

import json

from lib.ui import findings
from tests.hostile import IMG, SCRIPT, UNESCAPED, markdown_like
from tests.screen import screen, uploaded
from tests.synthetic import synthetic_lines


def _open_checks(app, trace):
    app.query_params["trace"] = trace
    at = app.run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    return at


def _texts(at) -> str:
    return "\n".join(t.value for t in at.text)


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown).replace("\\", "")


def test_the_checks_page_lists_the_unanswered_call_with_its_round_path_and_advice(app):
    at = _open_checks(app, "pitfalls/unanswered-parallel-call")
    assert at.title[0].value == "Checks" and "Pitfall: a parallel call answered in part" in _texts(at)
    assert [s.value for s in at.subheader] == [":material/error: Errors (2)"]
    assert "**missing-tool-result**\nround 2 request messages[2].tool_calls[1]" in screen(at)
    assert "**provider-error**\nround 2 request messages[2]" in screen(at)
    assert "resends the get_order call call_Ng5cW2rJ8yFb6QaM1tPx4hUo, but no result for it follows" in _texts(at)


def test_a_gallery_trace_shows_its_explanation(app):
    at = _open_checks(app, "pitfalls/model-filled-employee-id")
    explained = _texts(at)
    assert "What happened: get_leave_balance takes employee_id" in explained
    assert "The fix: identity comes from the login session" in explained
    assert any(s.value.startswith(":material/warning: Warnings") for s in at.subheader)
    assert "The model filled the identity argument employee_id of get_leave_balance" in _texts(at)


def test_open_round_jumps_to_the_round_of_the_finding_in_the_explorer(app):
    at = _open_checks(app, "hengxin-expense")
    # Picked here, on the Checks page: the explorer has not shown this trace yet.
    at.selectbox(key="sidebar.trace").set_value("pitfalls/empty-result-invented-answer").run()
    at.button(key="checks.open.warning.0").click().run()
    assert not at.exception
    assert at.number_input(key="explorer.round").value == 2
    assert any(s.value.startswith("Round 2: ") for s in at.subheader)
    assert at.session_state["sidebar.trace"] == "pitfalls/empty-result-invented-answer"


def test_a_clean_trace_says_so(app):
    at = _open_checks(app, "loan-calculator")
    assert [s.value for s in at.success] == ["No pitfalls found in this trace."]
    assert at.info.len == 0 and "What happened, what the model saw" not in _markdown(at)


def _hostile_checks_trace() -> bytes:
    ghost = {"id": f"call_{SCRIPT}", "type": "function", "function": {"name": IMG, "arguments": "{}"}}
    turn = {"role": "assistant", "content": None, "tool_calls": [ghost]}
    lines = [
        {"kind": "trace", "version": 1, "title": f"T {SCRIPT}", "dialect": "openai-chat", "explanation": IMG},
        {"kind": "round", "index": 1, "request": {"messages": [{"role": "user", "content": "hi"}],
                                                  "tools": [{"type": "function", "function": {"name": "real"}}]},
         "response": {"choices": [{"message": turn, "finish_reason": "tool_calls"}]}},
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_trace_text_in_findings_is_shown_literally_never_as_markup(app):
    at = app.run()
    at.switch_page("pages/checks.py").run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", _hostile_checks_trace()).run()
    assert not at.exception
    assert f"The model called {IMG}, which this request does not offer." in _texts(at)
    for value in markdown_like(at):
        assert not UNESCAPED.search(value), value
    assert IMG in _texts(at)  # the explanation, as text


def test_three_calls_in_one_turn_are_not_called_a_loop(app):
    # Gemini, recorded by pydantic-ai: asked for three jokes, the model calls generate_topic three times in its
    # first turn, in parallel. No result exists yet, so nothing can have failed to tell it what it needs.
    at = uploaded(app, "gemini.jsonl")
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert "repeated-call" not in screen(at) and "looping" not in _texts(at)


def test_an_answer_cut_off_at_the_output_limit_is_a_pitfall_on_the_checks_page(app):
    # The Responses chain's round 3 spent its whole max_output_tokens on reasoning and wrote no answer: the page said
    # "No pitfalls found in this trace."
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert "**answer-cut-off**\nround 3 response choices[0].finish_reason" in screen(at)
    assert "raise the output limit" in _texts(at) and "No pitfalls found" not in screen(at)


def test_a_long_traces_findings_are_drawn_a_page_at_a_time_and_the_last_is_a_page_away(app):
    # 997 findings (a model-filled record number each round): the page drew 100 cards with a button each, and said
    # nothing of the other 897 but to use the command line.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("long.jsonl", "\n".join(synthetic_lines(1000)).encode()).run()
    at.switch_page("pages/checks.py").run()
    assert [s.value for s in at.subheader] == [":material/info: Worth knowing (997)"]
    assert len([b for b in at.button if str(b.key).startswith("checks.open.")]) == findings.PAGE
    pages = at.selectbox(key="checks.page.info")
    last = pages.options[-1]
    assert last == "991 to 997 (rounds 992 to 998)"
    pages.set_value(990).run()
    assert [b.label for b in at.button if str(b.key).startswith("checks.open.")][-1] == "Open round 998"
    at.button(key="checks.open.info.996").click().run()
    assert at.number_input(key="explorer.round").value == 998


def test_a_trace_whose_requests_the_log_lacks_is_not_called_free_of_pitfalls(app):
    # The span kept neither messages nor tools: the checks of what the program sent had nothing to read.
    at = uploaded(app, "otlp-span-per-call-no-content.jsonl")
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert [s.value for s in at.success] == []
    assert [i.value for i in at.info] == ["No pitfalls found in what the log kept."]
    assert ("The log kept no request for round 1, so what the program sent (its messages, its tool list, the "
            "results it owed) was not checked.") in screen(at)


def test_a_finding_that_something_is_missing_is_read_beside_the_lines_the_upload_could_not_read(app):
    # A recorded Claude Code 2.1.233 session whose tool_result line (line 8) was cut short, as a copy cut off mid-write
    # is: the sidebar skips that line, and the Checks page said, as fact, that the transcript "records no result for
    # the Bash call", with nothing to say that a line it could not read sat right there.
    from pathlib import Path
    lines = (Path(__file__).parent / "fixtures" / "claude-code-2.1.233.jsonl").read_bytes().splitlines(keepends=True)
    lines[7] = lines[7][:120] + b"\n"
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", b"".join(lines))
    at.run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert "This transcript records no result for the Bash call toolu_01CAFZGHQyrx8WTjhhDvCQMm" in _texts(at)
    said = " ".join(c.value for c in at.caption)
    assert ("The file had 1 part that could not be read (the sidebar lists it): what it held is in no round here, so a "
            "finding that something is missing may be about it.") in said


def test_a_file_read_whole_says_nothing_of_parts_it_could_not_read(app):
    at = _open_checks(app, "pitfalls/unanswered-parallel-call")
    assert "could not be read" not in " ".join(c.value for c in at.caption)


def test_a_call_and_its_result_sent_twice_in_one_request_is_pointed_out(app):
    # langsmith-sdk's cassette: ADK's runner, run a second time on the question "What is the weather in New York?",
    # sends its get_weather call and the result twice over in its last request. Gemini names no calls, so the copies
    # differ only by place. No check said anything: the Checks page read "No pitfalls found".
    at = uploaded(app, "containers/langsmith-adk-second-run-call-twice.yaml")
    box = at.selectbox(key="sidebar.conversation")
    box.set_value(box.options[1]).run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert "**call-sent-twice**\nround 2 request messages[4].tool_calls[0]" in screen(at)
    assert ("The model reads the same call and result twice: get_weather {\"city\": \"New York\"} and its result are "
            "in messages[2] and messages[3], and again in messages[4] and messages[5]") in _texts(at)


def test_a_call_and_its_result_twice_in_a_request_no_logged_response_made_is_said_as_far_as_the_log_tells(app):
    # The same cassette's last interaction alone: ADK's request holds the get_weather call and its result twice over,
    # and no response in the log made that call. Gemini names no calls, so the check waited for a response that made
    # it fewer times than the request holds it, and said nothing: "No pitfalls found".
    import yaml
    from tests.screen import FIXTURES
    cassette = yaml.safe_load((FIXTURES / "containers/langsmith-adk-second-run-call-twice.yaml").read_bytes())
    cassette["interactions"] = cassette["interactions"][3:]
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("adk-last-call.yaml", yaml.safe_dump(cassette).encode())
    at.run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert "**call-sent-twice**\nround 1 request messages[4].tool_calls[0]" in screen(at)
    said = _texts(at)
    assert ("This request holds the same call and result twice: get_weather {\"city\": \"New York\"} and its result "
            "are in messages[2] and messages[3], and again in messages[4] and messages[5] (the provider gives calls no "
            "id, so they are alike in name, arguments and result). No response in the log made this call, so whether "
            "the model made it twice or the program added a copy of it is not known from the log.") in said
    assert "The model reads the same call and result twice" not in said  # not said to be the program's copy
