"""Predict mode beside the explorer: the Checks, Annotate, Tokens, Compare and Fork pages and a plan's slides hold
back what the model does in a round the learner has not predicted yet, by the explorer's one rule
(lib.presenter.open_rounds, first_open): a round still to predict, and every round after it, whose request carries
its answer; a page that shows every round at once waits for every round."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.workshop_plan import unpack
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.conftest import ROOT, load_bundled
from tests.screen import screen

ROUND_1_FIRST = "Predict round 1 first: this page would give away what the model does in it."




def _predicting(trace: str = "hengxin-expense", predicted: int = 0) -> AppTest:
    """A learner in the explorer in predict mode, rounds 1 to `predicted` predicted (each a call)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": trace, "round": "1", "mode": "predict"})
    at.run()
    for index in range(1, predicted + 1):
        at.radio(key=f"predict.{index}.action").set_value("call")
        at.button(key="predict.reveal").click().run()
        if index < len(load_bundled(trace).trace.rounds):
            at.button(key="explorer.next").click().run()
    assert not at.exception
    return at


def _on(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception
    return at


def test_the_checks_page_names_no_call_of_a_round_still_to_predict():
    # Hengxin's findings name round 1's calls (queryExpense, queryTravelPolicy and what they were given) and round
    # 3's write tool: the very answers a learner is asked for.
    at = _on(_predicting(), "pages/checks.py")
    shown = screen(at)
    assert ROUND_1_FIRST in shown
    assert "queryExpense" not in shown and "createExpenseSupplement" not in shown and not at.subheader
    at = _on(_predicting(predicted=1), "pages/checks.py")
    shown = screen(at)
    assert ("Round 1 only, the one predicted so far: round 2 and after would give away what the model does in "
            "round 2.") in shown
    assert "0 errors, 0 warnings and 3 worth knowing." in shown
    assert "user_id of queryExpense" in shown and "createExpenseSupplement" not in shown
    assert "round 3" not in shown


def test_the_checks_page_holds_a_gallery_traces_explanation_until_every_round_is_predicted():
    # The explanation tells what the model did: "the model filled employee_id itself".
    at = _on(_predicting("pitfalls/model-filled-employee-id"), "pages/checks.py")
    assert "What happened" not in screen(at) and ROUND_1_FIRST in screen(at)
    rounds = len(load_bundled("pitfalls/model-filled-employee-id").trace.rounds)
    at = _on(_predicting("pitfalls/model-filled-employee-id", predicted=rounds), "pages/checks.py")
    assert "What happened: get_leave_balance takes employee_id" in screen(at)
    assert "predicted so far" not in screen(at) and "Predict round" not in screen(at)


def test_a_predicted_round_with_no_finding_is_not_called_a_trace_free_of_pitfalls():
    # loan-calculator has no finding at all; with round 1 predicted the page has checked round 1 alone.
    at = _on(_predicting("loan-calculator", predicted=1), "pages/checks.py")
    assert [s.value for s in at.success] == ["No pitfalls found in the rounds predicted so far."]


def test_the_annotate_page_in_predict_mode_hides_the_response_and_waits_on_it_as_the_explorer_does(app_database):
    at = _on(_predicting(), "pages/annotate.py")
    shown = screen(at)
    assert "Call queryExpense" not in shown and "queryTravelPolicy(" not in shown
    assert "What will the model do with request 1?" in shown
    assert at.button(key="explorer.next").disabled
    assert "Predict round 1 first: a request after it would carry what the model does in it." in shown
    # A note's target names every part of the round: the response's calls among them.
    assert not [t for t in at.selectbox if t.key == "annotate.target"]


def test_the_annotate_page_in_predict_mode_offers_no_file_and_no_note_of_a_later_round(app_database):
    editor = _on(_predicting(predicted=4), "pages/annotate.py")
    editor.number_input(key="explorer.round").set_value(3).run()
    editor.selectbox(key="annotate.target").set_value("round:3/response.choices[0].message.tool_calls[0]")
    editor.text_area(key="annotate.text").set_value("It submits the form without asking")
    editor.button(key="annotate.save").click().run()
    assert not editor.exception
    at = _on(_predicting(), "pages/annotate.py")
    assert not at.get("download_button")  # the trace with its notes: every response
    assert "It submits the form without asking" not in screen(at)
    assert not [d for d in at.dataframe if "note" in d.value.columns and len(d.value)]


def test_compare_in_predict_mode_shows_no_call_of_a_run_still_to_predict():
    at = _on(_predicting(), "pages/compare.py")
    shown = screen(at) + "\n".join(str(d.value.to_dict()) for d in at.dataframe)
    assert "queryTravelPolicy" not in shown and "find_orders" not in shown  # round 1's calls, on either side
    assert [i.value for i in at.info] == [
        "Predict mode is on: the left run has round 1 still to predict, and comparing the runs would give away what "
        "the model does in it. Predict it in the round explorer, or turn predict mode off there."]


@pytest.fixture(scope="module")
def workshop():
    return unpack("hengxin-workshop", {t.name: len(load_bundled(t.name).trace.rounds)
                                       for t in catalog.bundled_traces()}).plan


def _slide(slide_id: str, workshop) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    number = [s.id for s in workshop.slides].index(slide_id) + 1
    at.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": "present,predict"})
    at.run()
    assert not at.exception
    return at


def test_a_gallery_slide_in_predict_mode_holds_back_what_happened_until_the_trace_is_predicted(workshop):
    at = _slide("gallery-empty-result-invented-answer", workshop)
    shown = screen(at)
    assert "What happened" not in shown and "The fix" not in shown and "empty-tool-result" not in shown
    assert "Predict round 1 first: this slide would give away what the model does in it." in shown


def test_a_plans_next_waits_on_a_round_still_to_predict_as_the_presenters_next_does(workshop):
    at = _slide("hengxin-r1s2", workshop)
    assert at.button(key="presenter.next").disabled
    assert "Predict round 1 first: a request after it would carry what the model does in it." in screen(at)
    assert not at.button(key="presenter.previous").disabled
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    assert not at.button(key="presenter.next").disabled


def test_the_fork_page_waits_until_every_round_is_predicted():
    # Replay answers a fork with the recorded responses, and the bundled forks' words tell what the model does in
    # rounds 2 to 4 ("createExpenseSupplement removed from the tools. Without the write tool ... cannot file the form").
    at = _on(_predicting(predicted=3), "pages/fork.py")
    assert "createExpenseSupplement removed" not in screen(at) and "fork.run" not in [b.key for b in at.button]
    assert [i.value for i in at.info] == [
        "Predict mode is on: round 4 of this trace is still to predict, and a fork replays its recorded answers. "
        "Predict every round in the round explorer first, or turn predict mode off there."]
    at = _on(_predicting(predicted=4), "pages/fork.py")
    assert "createExpenseSupplement removed" in screen(at) and not at.info


def test_a_slide_that_holds_its_round_back_says_predict_round_1_first_once(workshop):
    # The slide asks for round 2 of a trace whose round 1 is still to predict: why round 1 is shown already says that
    # round 1 is to be predicted first; a second sentence for the waiting Next said it again.
    at = _slide("gallery-empty-result-invented-answer-r2s5", workshop)
    assert at.button(key="presenter.next").disabled
    assert [c.value for c in at.caption if c.value.startswith("Predict round 1 first")] == [
        "Predict round 1 first: request 2 carries what the model does in round 1, so round 1 is shown."]


def test_the_explorer_offers_a_fork_in_predict_mode_only_once_every_round_is_predicted():
    # The Fork page waits until then: a button to it would lead to a page that says no.
    at = _predicting(predicted=1)
    at.button(key="explorer.previous").click().run()
    assert "Your prediction" in screen(at) and "explorer.fork" not in [b.key for b in at.button]
    assert "explorer.fork" in [b.key for b in _predicting(predicted=4).button]


def test_the_annotate_page_gets_no_round_navigator_on_a_long_trace_in_predict_mode(app_database, app):
    # The navigator holds every round's response, as the explorer's would; the explorer has none in predict mode.
    from tests.synthetic import synthetic_lines
    from tests.test_app_explorer import _navigator_data

    app.query_params["mode"] = "predict"
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("long.jsonl", "\n".join(synthetic_lines(61)).encode()).run()
    at = _on(at, "pages/annotate.py")
    assert any(e.value.startswith("Round 1:") for e in at.subheader)
    assert _navigator_data(at) == []


def test_the_tokens_page_does_not_call_the_cost_of_the_rounds_predicted_so_far_the_whole_traces():
    at = _on(_predicting(predicted=1), "pages/overview.py")
    assert [m.label for m in at.metric if m.label.startswith("Cost of")] == ["Cost of the rounds predicted so far"]
    at = _on(_predicting(predicted=4), "pages/overview.py")
    assert [m.label for m in at.metric if m.label.startswith("Cost of")] == ["Cost of the whole trace"]


def test_a_link_with_mode_predict_to_the_checks_page_holds_it_back_as_it_would_the_explorer():
    from lib.ui.navigation import FRAME

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": "hengxin-expense", "mode": "predict"})
    at.session_state[FRAME] = True  # the page opened inside app.py's frame, as a browser's link opens it
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert ROUND_1_FIRST in screen(at) and "queryExpense" not in screen(at)


def test_a_gallery_slide_in_predict_mode_asks_the_round_to_predict_so_the_learner_can_go_on(workshop):
    # The bundled plan has no step slide of the unanswered parallel call: a learner following it in predict mode met
    # "Predict round 1 first" and nothing to predict on. The slide asks each round, request and question, then tells
    # what happened once every round is predicted.
    at = _slide("gallery-unanswered-parallel-call", workshop)
    shown = screen(at)
    assert "What happened" not in shown and "What will the model do with request 1?" in shown
    assert "When will my orders LK-310552 and LK-310587 arrive?" in shown  # the request the learner predicts from
    asked = []
    while [r for r in at.radio if r.key.startswith("predict.")]:  # round 2, refused by the provider, asks nothing
        radio = next(r for r in at.radio if r.key.startswith("predict."))
        asked.append(radio.key)
        radio.set_value("call")
        at.button(key="predict.reveal").click().run()
        assert not at.exception
        assert "Your prediction: " in screen(at)  # the score of the round just revealed, before the next question
    assert asked == ["predict.1.action", "predict.3.action"]
    shown = screen(at)
    assert "What happened" in shown and "What will the model do" not in shown


def test_a_gallery_slides_next_question_shows_the_results_the_learner_has_not_seen_unfolded(workshop):
    # After round 1 of the wrong-tool pitfall, round 2's request was shown with its new messages folded under "2 new
    # messages that steps ② and ④ of round 1 already showed", which this slide never showed: the program's refusal,
    # the one thing round 2's answer turns on, was hidden behind a sentence that is not true here.
    at = _slide("gallery-wrong-tool-declined", workshop)
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    shown = screen(at)
    assert "What will the model do with request 2?" in shown
    assert "already showed" not in shown
    assert not [e for e in at.expander if "already showed" in e.label]
    assert "**messages[2]** · role **user** · :green-badge[new this round]" in shown
    assert any("cancel_order was not run: the customer asked where the order is" in c.value for c in at.code)
