"""Predict mode gives nothing away: nothing above a hidden response, in its form or in the address tells
what the model did before the learner has said what it will do."""

from __future__ import annotations

import json

import pytest

from tests.conftest import load_bundled
from tests.screen import figures, screen


def _query(at, name):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def _headers(at) -> list[str]:
    return [h.value for h in at.header if h.value != "Roundtrip"]


def _metrics(at) -> list[str]:
    return list(figures(at))


def test_above_a_hidden_response_neither_the_description_nor_the_output_tokens_show(app):
    description = load_bundled("hengxin-expense").trace.header["description"]
    assert "two calls in parallel in round 1" in description  # the very answer a learner is asked for
    app.query_params.update({"trace": "hengxin-expense", "round": "1", "mode": "predict"})
    at = app.run()
    assert not at.exception
    shown = screen(at)
    assert "two calls in parallel" not in shown and "2, 5, 7, 9" not in shown
    assert not [label for label in _metrics(at) if "Output" in label or "estimate" in label]
    assert "Input tokens (reported)" in _metrics(at)
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    assert {"Output tokens (reported)", "Our estimate of the input"} <= set(_metrics(at))


def test_outside_predict_mode_the_description_and_every_figure_show(app):
    app.query_params.update({"trace": "hengxin-expense", "round": "1"})
    at = app.run()
    assert "two calls in parallel in round 1" in screen(at)
    assert "Output tokens (reported)" in _metrics(at)
    assert at.get("download_button")  # the trace's files, which predict mode holds back


@pytest.mark.parametrize("trace", ["hengxin-expense", "order-status-anthropic", "loan-calculator"])
def test_the_argument_placeholder_comes_from_the_traces_own_tools(app, trace):
    app.query_params.update({"trace": trace, "round": "1", "mode": "predict"})
    at = app.run()
    tools = load_bundled(trace).trace.rounds[0].request.tools
    for place, tool in enumerate(tools):  # each tool chosen hints its own parameters, and no value
        at.multiselect(key="predict.1.tools").set_value([place]).run()
        placeholder = at.text_area(key=f"predict.1.arguments.{place}").placeholder
        assert list(json.loads(placeholder)) == list((tool.parameters or {}).get("properties", {}))
        assert "A-48213" not in placeholder


def _present_predicting(app, round_, step):
    app.query_params.update({"trace": "hengxin-expense", "round": str(round_), "step": str(step),
                             "mode": "present,predict"})
    at = app.run()
    assert not at.exception
    return at


ANSWERS = {1: "Call queryExpense", 2: "Call calcAmountOver", 3: "Call createExpenseSupplement",
           4: "exceeding the bank's travel standard"}
"""A line each round's response shows once revealed."""


@pytest.mark.parametrize("round_", [1, 3, 4])
@pytest.mark.parametrize("step", [2, 3, 4, 5])
def test_a_step_in_the_link_does_not_reveal_a_hidden_response(app, round_, step):
    at = _present_predicting(app, round_, step)
    assert _headers(at) == [":material/help: What will the model do?"]
    assert _query(at, "step") == "2"  # the same for a round that calls and a round that answers
    shown = screen(at)
    assert ANSWERS[round_] not in shown
    assert "Program executes" not in shown and "Model answers" not in shown and "Result appended" not in shown


def test_next_waits_on_a_hidden_response_for_the_prediction_and_says_why(app):
    # Request 2 carries round 1's tool calls back to the model: moving on to it would give round 1's answer away.
    at = _present_predicting(app, 1, 2)
    assert at.button(key="presenter.next").disabled
    assert "Predict round 1 first: a request after it would carry what the model does in it." in screen(at)
    assert _headers(at) == [":material/help: What will the model do?"]
    assert ANSWERS[1] not in screen(at)
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    assert not at.button(key="presenter.next").disabled
    assert "Predict round 1 first" not in screen(at)


def test_once_predicted_the_round_unfolds_step_by_step_again(app):
    at = _present_predicting(app, 1, 3)
    for k in (1, 2, 3):  # round 4 opens once the rounds before it are predicted
        at.button(key="predict.reveal").click().run()
        while (_query(at, "round"), _query(at, "step")) != (str(k + 1), "2"):  # on to the next prediction
            at.button(key="presenter.next").click().run()
    at.radio(key="predict.4.action").set_value("answer")
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    assert _headers(at) == ["⑤ Model answers"] and _query(at, "step") == "5"
    assert "Your prediction: 1 of 1 point" in screen(at)


def test_a_hidden_round_has_the_same_two_positions_whether_it_calls_or_answers(hengxin):
    from lib.presenter import Position, following, preceding, settle

    hidden = {1, 4}.__contains__
    assert [settle(hengxin, 1, 5, hidden), settle(hengxin, 4, 5, {4}.__contains__)] == [Position(1, 2), Position(4, 2)]
    assert settle(hengxin, 4, 5, hidden) == Position(1, 2)  # request 4 carries round 1's calls
    assert following(hengxin, Position(1, 2), hidden) is None  # request 2 would show round 1's calls
    assert preceding(hengxin, Position(2, 1), hidden) == Position(1, 2)
    assert following(hengxin, Position(3, 4), hidden) == Position(4, 1)
    assert following(hengxin, Position(4, 2), hidden) is None
    assert settle(hengxin, 4, 2) == Position(4, 5)  # once revealed, the round's own steps again


def test_predict_mode_offers_no_download_of_the_answers(app):
    # The HTML file holds every response and the handout ends on the answers: in predict mode they gave away what
    # the overview and the diagram are hidden for.
    app.query_params.update({"trace": "hengxin-expense", "round": "1", "mode": "predict"})
    at = app.run()
    assert not at.exception
    assert not at.get("download_button")


def test_an_estimated_input_above_a_hidden_response_is_marked_as_an_estimate(app):
    # loan-calculator's API reported no usage: outside predict mode its input reads "≈ N"; above a hidden response
    # it read as an exact figure.
    app.query_params.update({"trace": "loan-calculator", "round": "1", "mode": "predict"})
    at = app.run()
    shown = figures(at)
    assert shown["Input tokens (estimated)"].value.startswith("≈ ")
