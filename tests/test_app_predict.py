"""Predict mode's form, as a learner fills it in: what it asks and what the score says back."""

from __future__ import annotations

from tests.screen import screen, uploaded


QUESTION = "How many messages will the next request carry?"


def _questions(at) -> list[str]:
    return [n.label for n in at.number_input if n.label == QUESTION]


def _predicting(app, round_):
    app.query_params.update({"trace": "hengxin-expense", "round": str(round_), "mode": "predict"})
    at = app.run()
    assert not at.exception
    return at


def test_the_last_round_does_not_ask_for_the_next_requests_messages(app):
    at = _predicting(app, 4)
    assert _questions(at) == []
    assert "no request follows it, so there are no messages to count" in screen(at)
    at.radio(key="predict.4.action").set_value("answer")
    at.button(key="predict.reveal").click().run()
    assert "Your prediction: 1 of 1 point" in screen(at)


def test_a_round_with_a_next_request_asks_for_its_messages(app):
    at = _predicting(app, 3)
    assert _questions(at) == [QUESTION]


def test_arguments_that_do_not_parse_are_said_in_our_words_not_pythons(app):
    at = _predicting(app, 3)
    at.radio(key="predict.3.action").set_value("call")
    at.selectbox(key="predict.3.tool").set_value("createExpenseSupplement")
    at.text_area(key="predict.3.arguments").set_value("{expense_id: BX}")
    at.button(key="predict.reveal").click().run()
    shown = screen(at)
    assert "yours were not valid JSON (at character 2 of the arguments: " in shown
    assert "line 1 column 2" not in shown and "char 1" not in shown


def test_a_request_whose_tool_list_the_log_lacks_scores_the_arguments_and_not_the_tool_it_offered_no_choice_of(app):
    # The stream kept only the answer: multiply({"a":1231,"b":2331}). With no tool list there is no tool to choose,
    # so the learner who predicted a call with exactly those arguments loses no point for it.
    app.query_params["mode"] = "predict"
    at = uploaded(app, "openai-chat-stream.sse")
    assert at.selectbox(key="predict.1.tool").disabled
    assert "The log kept no tool list for this request: there is no tool to choose, and none is scored." in screen(at)
    at.radio(key="predict.1.action").set_value("call")
    at.text_area(key="predict.1.arguments").set_value('{"a": 1231, "b": 2331}')
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    shown = screen(at)
    assert "Your prediction: 3 of 3 points" in shown
    assert "which tool" not in shown
