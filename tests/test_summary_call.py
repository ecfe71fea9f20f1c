"""A compaction's summary call (the Anthropic SDK tool runner's: past a token threshold it asks the model to sum the
conversation up, then sends the summary in place of the history) is named for what it is wherever rounds are headed:
the explorer, the round navigator, the HTML file, the handout and presenter mode. It read as one more model round, its
summary a "final answer"."""

from __future__ import annotations

import json

import pytest

from lib.condensed import condensed_rounds
from lib.export_html import handout_html, trace_html
from lib.growth import SUMMARY_CALL_WORDS, growth, origin_words
from lib.logs.upload import read_upload
from lib.slide_words import step_lead
from lib.steps import steps_for_round
from lib.ui import state
from tests.screen import FIXTURES, READ, lines, uploaded

TS = "containers/anthropic-ts-tool-runner-compaction.json"
"""The summary call, then the request that goes on from its summary (found by that request: no header)."""
PY = "containers/anthropic-py-tool-runner-compaction-summary.json"
"""The summary call, named by its `x-stainless-helper: compaction` header, and no request after it."""


def _trace(fixture: str, data: bytes | None = None):
    data = (FIXTURES / fixture).read_bytes() if data is None else data
    (conversation,) = read_upload([(fixture.split("/")[-1], data)]).conversations
    return conversation.trace


@pytest.mark.parametrize("fixture", [TS, PY])
def test_only_the_summary_call_is_one(fixture):
    rounds = _trace(fixture).rounds
    assert [r.summary_call for r in rounds] == [r.index == 2 for r in rounds]


def test_a_summary_prompt_the_program_did_not_name_so_is_no_summary_call():
    data = json.loads((FIXTURES / PY).read_bytes())
    for interaction in data:
        interaction["request"]["headers"].pop("x-stainless-helper")
    found = read_upload([("unmarked.json", json.dumps(data).encode())])
    assert not any(r.summary_call for c in found.conversations for r in c.trace.rounds)


HEADING = "Round 2, the summary call of a compaction: the program sends 2 messages, 1 of them new"


def test_the_explorer_heads_the_summary_call_as_what_it_is_and_says_what_its_answer_is(app):
    at = uploaded(app, TS)
    at.number_input(key=state.ROUND).set_value(2).run()
    assert HEADING in [s.value for s in at.subheader]
    shown = lines(at, READ)
    assert SUMMARY_CALL_WORDS in shown
    # Its answer is the summary, not an answer; its prompt the program's, not the person's.
    assert ("the summary the program asked for, not an answer to the person: the program sends it in place of the "
            "history from round 3 on · content[0]") in shown
    assert "Written by the program in the user's role, not typed by the person." in shown
    at.number_input(key=state.ROUND).set_value(3).run()
    assert not any("summary call" in s.value for s in at.subheader)


def test_the_navigator_the_html_file_the_handout_and_the_slide_say_it_alike():
    trace = _trace(TS)
    assert [r["heading"] for r in condensed_rounds(trace)["rounds"]][1] == HEADING
    page = trace_html(trace).replace("&#39;", "'")
    assert f"<h2>{HEADING}</h2>" in page and SUMMARY_CALL_WORDS in page
    assert "<h2>Round 3: " in page
    handout = handout_html(trace).replace("&#39;", "'")
    assert "<h2>Round 2, the summary call of a compaction: the program sends 2 messages" in handout
    assert "<h3>Round 2, the summary call of a compaction</h3>" in handout
    assert step_lead(trace.rounds[1], 5, 3) == ("The summary the program asked for, not an answer to the person: the "
                                               "program sends it in place of the history from round 3 on.")
    [label] = [s for s in steps_for_round(trace, 2) if s.step == 5]
    assert label.detail.startswith("the summary the program asked for")
    assert origin_words(growth(trace, 2).new[-1]) == "written by the program in the user's role, not typed by the person"


def test_with_no_request_after_it_the_summary_is_still_no_final_answer():
    trace = _trace(PY)
    [label] = [s for s in steps_for_round(trace, 2) if s.step == 5]
    assert label.detail == "the summary the program asked for, not an answer to the person: no request after it is in " \
                           "the log"
    assert step_lead(trace.rounds[1], 5) == ("The summary the program asked for, not an answer to the person: no "
                                            "request after it is in the log.")


def test_presenter_mode_says_where_it_stands_on_the_summary_call(app):
    at = uploaded(app, TS)
    at.number_input(key=state.ROUND).set_value(2).run()
    at.toggle(key=state.PRESENTER).set_value(True).run()
    assert not at.exception
    assert "**round 2 of 4, the summary call of a compaction**" in lines(at, READ)
