"""Predict mode's form, as a learner fills it in: what it asks and what the score says back."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.screen import screen, uploaded


QUESTION = "How many messages will the next request carry?"


def _questions(at) -> list[str]:
    return [n.label for n in at.number_input if n.label == QUESTION]


def _predicting(app, round_):
    app.query_params.update({"trace": "hengxin-expense", "round": str(round_), "mode": "predict"})
    at = app.run()
    assert not at.exception
    return at


def _predicted_up_to(app, round_):
    """On round `round_`, the rounds before it predicted: a later round opens only once they are."""
    at = _predicting(app, 1)
    for _ in range(1, round_):
        at.button(key="predict.reveal").click().run()
        at.button(key="explorer.next").click().run()
    assert not at.exception
    return at


def test_the_last_round_asks_for_the_next_requests_messages_as_every_round_does_and_says_after_why_none_scored(app):
    # A form that left the question out, or said "this is the trace's last round", told the learner that the model
    # answers in it: the last round of a trace is the one whose model answers.
    at = _predicted_up_to(app, 4)
    assert _questions(at) == [QUESTION]
    assert "last round" not in screen(at) and "no request follows" not in screen(at)
    at.radio(key="predict.4.action").set_value("answer")
    at.number_input(key="predict.4.messages").set_value(11)
    at.button(key="predict.reveal").click().run()
    assert "Your prediction: 1 of 1 point" in screen(at)
    assert NOT_SCORED in screen(at)


NOT_SCORED = "The trace ends with this round: no request follows it, so the messages asked for are not scored."


def test_a_round_with_a_next_request_asks_for_its_messages(app):
    at = _predicted_up_to(app, 3)
    assert _questions(at) == [QUESTION]


def test_arguments_that_do_not_parse_are_said_in_our_words_not_pythons(app):
    at = _predicted_up_to(app, 3)
    at.radio(key="predict.3.action").set_value("call")
    at.multiselect(key="predict.3.tools").set_value([3]).run()  # createExpenseSupplement, the fourth tool
    at.text_area(key="predict.3.arguments.3").set_value("{expense_id: BX}")
    at.button(key="predict.reveal").click().run()
    shown = screen(at)
    assert "yours were not valid JSON (at character 2 of the arguments: " in shown
    assert "line 1 column 2" not in shown and "char 1" not in shown


def test_a_request_whose_tool_list_the_log_lacks_scores_the_arguments_and_not_the_tool_it_offered_no_choice_of(app):
    # The stream kept only the answer: multiply({"a":1231,"b":2331}). With no tool list there is no tool to choose,
    # so the learner who predicted a call with exactly those arguments loses no point for it.
    app.query_params["mode"] = "predict"
    at = uploaded(app, "openai-chat-stream.sse")
    assert at.multiselect(key="predict.1.tools").disabled
    assert "The log kept no tool list for this request: there is no tool to choose, and none is scored." in screen(at)
    at.radio(key="predict.1.action").set_value("call")
    at.text_area(key="predict.1.arguments").set_value('{"a": 1231, "b": 2331}')
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    shown = screen(at)
    assert "Your prediction: 3 of 3 points" in shown
    assert "which tool" not in shown


HELD_1 = "Predict round 1 first: every later request carries what the model does in it, so round 1 is shown."
"""Why a link to a later round opens round 1, in words that name no later round (which would tell the length)."""


def _round_on_screen(at) -> str:
    return next(h.value for h in at.subheader if h.value.startswith("Round ")).split(":")[0]


def test_a_link_to_a_later_round_opens_the_first_round_still_to_predict_and_says_why(app):
    # Request 3 carries round 1's calls and their results: opening it would give round 1's answer away.
    at = _predicting(app, 3)
    assert _round_on_screen(at) == "Round 1"
    assert HELD_1 in [w.value for w in at.warning]
    assert at.query_params["round"] in ("1", ["1"])
    assert "Call queryExpense" not in screen(at)  # round 1's call, which request 3 carries back


def test_the_explorers_next_waits_on_a_round_still_to_predict_and_back_stays_free(app):
    at = _predicting(app, 1)
    assert at.button(key="explorer.next").disabled
    assert "Predict round 1 first: a request after it would carry what the model does in it." in [c.value for c in at.caption]
    assert at.number_input(key="explorer.round").max == 1  # the box goes no further than the round still to predict
    at.button(key="predict.reveal").click().run()
    assert not at.button(key="explorer.next").disabled
    at.button(key="explorer.next").click().run()
    assert _round_on_screen(at) == "Round 2" and at.button(key="explorer.next").disabled
    assert at.number_input(key="explorer.round").max == 2
    at.button(key="explorer.previous").click().run()
    assert _round_on_screen(at) == "Round 1" and not at.warning


def test_a_presenter_link_to_a_later_round_stops_at_the_first_round_still_to_predict(app):
    app.query_params.update({"trace": "hengxin-expense", "round": "3", "step": "1", "mode": "present,predict"})
    at = app.run()
    assert not at.exception
    assert HELD_1 in [w.value for w in at.warning]
    assert "**round 1**" in screen(at).split("\n") and "of 4" not in screen(at)
    assert at.query_params["round"] in ("1", ["1"])


def test_a_presenter_link_held_back_says_predict_round_1_first_once(app):
    # The link a teacher hands out (round 3, step 4) opened in predict mode: the warning says why round 1 is shown;
    # the caption for the waiting Next said "Predict round 1 first" a second time under it, as the explorer does not.
    app.query_params.update({"trace": "hengxin-expense", "round": "3", "step": "4", "mode": "present,predict"})
    at = app.run()
    assert not at.exception
    said = [e.value for e in [*at.warning, *at.caption] if e.value.startswith("Predict round 1 first")]
    assert said == [HELD_1]
    assert at.button(key="presenter.next").disabled


def _tokens_page_rounds(at) -> list[int]:
    tables = [d.value for d in at.dataframe if "finish reason" in d.value.columns]
    return [int(r) for table in tables for r in table["round"]]


def test_the_tokens_page_opened_while_predicting_lists_only_the_rounds_predicted_so_far(app):
    # Its table counts each round's tool calls and says why it stopped: the answers a learner is to predict.
    at = _predicting(app, 1)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert _tokens_page_rounds(at) == []
    assert "Predict round 1 first: this page would give away what the model does in it." in screen(at)
    at = _predicted_up_to(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), 3)
    at.switch_page("pages/overview.py").run()
    assert _tokens_page_rounds(at) == [1, 2]
    assert ("Rounds 1 to 2 only, the ones predicted so far: round 3 and after would give away what the model does "
            "in round 3.") in screen(at)


def test_revealing_without_saying_what_the_model_will_do_earns_no_point_for_it(app):
    # The form came with "call a tool" already chosen: a learner who pressed Reveal without a word scored a point on
    # every round that calls.
    at = _predicting(app, 1)
    assert at.radio(key="predict.1.action").value is None
    at.button(key="predict.reveal").click().run()
    assert "Your prediction: 0 of 8 points" in screen(at)  # round 1's two calls: 1 + 2 tools, 2 names, 2 values, 1


def test_an_estimated_input_shown_while_predicting_is_not_said_to_be_hidden(app):
    # Round 2 of Hengxin has no usage: its input is our estimate, shown before the prediction, so the caption
    # beside it may hide only the output.
    at = _predicted_up_to(app, 2)
    shown = screen(at)
    assert "Input tokens (estimated): **≈ 1,378**" in shown
    assert "Output tokens are hidden until you predict the response." in shown
    assert "our estimates are hidden" not in shown


def test_a_reported_input_shown_while_predicting_hides_our_estimate_of_it(app):
    shown = screen(_predicting(app, 1))
    assert "Input tokens (reported): **1,247**" in shown
    assert "Output tokens and our estimate of the input are hidden until you predict the response." in shown


def test_turning_predict_mode_off_returns_to_the_round_it_held_the_learner_back_from(app):
    # On round 3, predict mode shows round 1 (the first still to predict); turned off, the explorer stayed on round 1
    # and the learner had to find round 3 again.
    app.query_params.update({"trace": "hengxin-expense", "round": "3"})
    at = app.run()
    at.toggle(key="explorer.predict").set_value(True).run()
    assert at.number_input(key="explorer.round").value == 1
    assert "Predict round 1 first" in " ".join(w.value for w in at.warning)
    at.toggle(key="explorer.predict").set_value(False).run()
    assert not at.exception
    assert at.number_input(key="explorer.round").value == 3
    assert at.query_params["round"] == "3"


def test_a_round_chosen_in_predict_mode_is_kept_when_the_mode_is_turned_off(app):
    # Held at round 1, the learner predicts it and moves on to round 2: that is the round they are on now.
    app.query_params.update({"trace": "hengxin-expense", "round": "3"})
    at = app.run()
    at.toggle(key="explorer.predict").set_value(True).run()
    at.button(key="predict.reveal").click().run()
    at.button(key="explorer.next").click().run()
    assert at.number_input(key="explorer.round").value == 2
    at.toggle(key="explorer.predict").set_value(False).run()
    assert at.number_input(key="explorer.round").value == 2
