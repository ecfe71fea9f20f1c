"""Predict mode as a teacher and a learner tried it on Hengxin: what the form asks, what the score says back, and
what no screen may say before the learner has predicted."""

from __future__ import annotations

import json

from tests.conftest import load_bundled
from tests.screen import screen

TOOLS = [tool.name for tool in load_bundled("hengxin-expense").trace.rounds[0].request.tools]
"""Hengxin's tool list, as round 1's request sends it."""
HELD_1 = "Predict round 1 first: every later request carries what the model does in it, so round 1 is shown."
WAITS_1 = "Predict round 1 first: a request after it would carry what the model does in it."


def _predicting(app, round_=1, mode="predict", **more):
    app.query_params.update({"trace": "hengxin-expense", "round": str(round_), "mode": mode, **more})
    at = app.run()
    assert not at.exception
    return at


def _predict(at, round_, action, calls=None, messages=None):
    """Fill round `round_`'s form: the action, each tool named with its arguments, and the next request's size."""
    at.radio(key=f"predict.{round_}.action").set_value(action)
    if calls:
        at.multiselect(key=f"predict.{round_}.tools").set_value([TOOLS.index(name) for name in calls]).run()
        for name, arguments in calls.items():
            at.text_area(key=f"predict.{round_}.arguments.{TOOLS.index(name)}").set_value(arguments)
    if messages is not None:
        at.number_input(key=f"predict.{round_}.messages").set_value(messages)
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    return screen(at)


def _next(at):
    at.button(key="explorer.next").click().run()


def test_the_arguments_hint_is_the_chosen_tools_own_parameters_not_the_first_tools(app):
    # The box always showed {"user_id": "…", "status": "…"}, queryExpense's parameters whatever tool was chosen: in
    # round 1 exactly the names the model sends, given away.
    at = _predicting(app)
    assert not [box for box in at.text_area if box.placeholder and "user_id" in box.placeholder]
    at.multiselect(key="predict.1.tools").set_value([TOOLS.index("queryTravelPolicy")]).run()
    boxes = [box for box in at.text_area if box.key.startswith("predict.1.arguments")]
    assert [json.loads(box.placeholder) for box in boxes] == [{"job_level": "…", "city_tier": "…"}]
    at.multiselect(key="predict.1.tools").set_value([TOOLS.index("calcAmountOver")]).run()
    assert json.loads(at.text_area(key=f"predict.1.arguments.{TOOLS.index('calcAmountOver')}").placeholder) == {
        "actual_amount": 0, "limit_amount": 0}


def test_one_call_predicted_of_two_in_parallel_scores_part_and_says_the_model_made_two(app):
    # Round 1 calls queryExpense and queryTravelPolicy in parallel; naming one, rightly, got "5 of 5 points".
    at = _predicting(app)
    shown = _predict(at, 1, "call", {"queryTravelPolicy": '{"job_level": "P6", "city_tier": "2"}'}, 5)
    assert "Your prediction: 5 of 8 points" in shown
    assert "which tools (1/2)" in shown and "argument names (1/2)" in shown and "argument values (1/2)" in shown
    assert ("it called queryExpense and queryTravelPolicy in parallel: 2 calls in one response; you named "
            "queryTravelPolicy") in shown
    # Said once: the point above names the action alone.
    assert sum("queryExpense and queryTravelPolicy in parallel" in line for line in shown.splitlines()) == 1


def test_both_parallel_calls_predicted_earn_every_point(app):
    at = _predicting(app)
    shown = _predict(at, 1, "call", {"queryExpense": '{"user_id": "E10238", "status": "submitted"}',
                                     "queryTravelPolicy": '{"job_level": "P6", "city_tier": "2"}'}, 5)
    assert "Your prediction: 8 of 8 points" in shown


def test_a_tool_named_that_the_model_did_not_call_costs_the_point_it_would_earn(app):
    at = _predicting(app)
    shown = _predict(at, 1, "call", {"queryExpense": "", "calcAmountOver": ""})
    assert "which tools (0/2)" in shown and "it did not call calcAmountOver" in shown


def test_the_score_echoes_the_prediction_and_sets_its_arguments_beside_the_models(app):
    # Round 1's score never said what the learner had entered.
    at = _predicting(app)
    shown = _predict(at, 1, "call", {"queryTravelPolicy": '{"job_level": "P7", "city_tier": "2"}'}, 4)
    assert "call a tool: queryTravelPolicy; the next request: 4 messages" in shown
    codes = [c.value for c in at.code]
    assert '{"job_level": "P7", "city_tier": "2"}' in codes and '{"job_level": "P6", "city_tier": "2"}' in codes
    assert "queryTravelPolicy: values differ: job_level" in shown


def _to_round_3(app):
    at = _predicting(app)
    for round_ in (1, 2):
        at.button(key="predict.reveal").click().run()
        _next(at)
    return at


def test_wrong_values_are_named_and_free_text_is_not_scored(app):
    # Round 3: "wrong argument values (0/1)" came with the model's arguments alone, cut at "…", and the reason, a
    # sentence no learner can write word for word, counted against them.
    at = _to_round_3(app)
    shown = _predict(at, 3, "call", {"createExpenseSupplement": '{"expense_id": "BX-20261015-0932", "over_amount": 60, '
                                                                '"reason": "over the hotel limit"}'})
    assert "argument values (1/1)" in shown
    assert "the same values (reason: free text, not scored)" in shown
    model = next(c.value for c in at.code if c.value.startswith('{"expense_id": "BX-20261015-0932", "over_amount": 60.'))
    assert model.endswith('according to bank standards"}')  # whole, not cut at "…"


def test_a_wrong_value_is_named(app):
    at = _to_round_3(app)
    shown = _predict(at, 3, "call", {"createExpenseSupplement": '{"expense_id": "BX-1", "over_amount": 60, '
                                                                '"reason": "over the hotel limit"}'})
    assert "argument values (0/1)" in shown and "values differ: expense_id (reason: free text, not scored)" in shown


def test_the_presenters_first_slide_says_nothing_of_requests_after_before_the_round_is_predicted(app):
    # "sent with this request and paid for with it, again with every request after": more requests follow, so the
    # model calls a tool.
    at = _predicting(app, 1, "present,predict", step="1")
    shown = screen(at)
    assert "sent with this request and paid for with it" in shown
    assert "every request after" not in shown and "request after" not in shown


def test_start_over_goes_back_to_round_1_with_one_word_on_why_next_waits(app):
    # After Start over on round 3, the held-back warning and Next's caption both said to predict round 1 first.
    at = _to_round_3(app)
    at.button(key="predict.start_over").click().run()
    assert not at.exception
    said = [w.value for w in at.warning] + [c.value for c in at.caption]
    assert [s for s in said if s.startswith("Predict round 1 first")] == [WAITS_1]


def test_a_link_to_a_later_round_says_once_why_round_1_is_shown(app):
    at = _predicting(app, 3)
    said = [w.value for w in at.warning] + [c.value for c in at.caption]
    assert [s for s in said if s.startswith("Predict round 1 first")] == [HELD_1]


def test_every_round_still_to_predict_says_the_same_of_why_next_waits_the_last_too(app):
    # Rounds 1 to 3 said "Predict round N first: the next request carries what the model does in it."; round 4 said
    # nothing, which told the learner it was the last round, the one whose model answers in text.
    at = _predicting(app)
    said = []
    for round_ in (1, 2, 3, 4):
        said.append([c.value for c in at.caption if c.value.startswith("Predict round")])
        assert at.button(key="explorer.next").disabled
        at.button(key="predict.reveal").click().run()
        if round_ < 4:
            _next(at)
    assert said == [[f"Predict round {k} first: a request after it would carry what the model does in it."]
                    for k in (1, 2, 3, 4)]


def test_the_presenters_prediction_slot_of_the_last_round_waits_as_the_others_do(app):
    at = _predicting(app, 1, "present,predict", step="1")
    for round_ in (1, 2, 3, 4):
        at.button(key="presenter.next").click().run()  # the request, then the prediction slot
        assert at.button(key="presenter.next").disabled
        assert f"Predict round {round_} first: a request after it would carry what the model does in it." in screen(at)
        at.button(key="predict.reveal").click().run()
        while round_ < 4 and not at.query_params["round"] in (str(round_ + 1), [str(round_ + 1)]):
            at.button(key="presenter.next").click().run()


def test_an_argument_left_out_costs_the_names_point_only_and_is_not_called_a_differing_value(app):
    # Round 1, status left out: "values differ: status", though the one value given, user_id, was the model's.
    at = _predicting(app)
    shown = _predict(at, 1, "call", {"queryExpense": '{"user_id": "E10238"}'}, 5)
    assert "queryExpense: you gave no status" in shown
    assert "queryExpense: the same values for user_id" in shown
    assert "values differ: status" not in shown and "it also sent" not in shown


def test_a_misnamed_argument_is_one_names_loss_and_no_value_is_said_to_differ(app):
    # Round 3, {"amount": 60}: "it also sent over_amount; it sent no amount", then "values differ: over_amount".
    at = _to_round_3(app)
    shown = _predict(at, 3, "call", {"createExpenseSupplement": '{"amount": 60}'})
    assert "argument names (0/1)" in shown
    assert "you gave no expense_id, over_amount and reason; it sent no amount" in shown
    assert "argument values (0/1)" in shown
    assert "no value of yours to compare: it sent expense_id and over_amount" in shown
    assert "values differ" not in shown


def test_the_last_rounds_score_echoes_the_messages_asked_for_as_not_scored(app):
    # Round 4: "You said: answer in text", the 11 typed left out, while the caption spoke of "the messages asked for".
    at = _predicting(app)
    for round_ in (1, 2, 3):
        at.button(key="predict.reveal").click().run()
        _next(at)
    shown = _predict(at, 4, "answer", messages=11)
    assert "answer in text; the next request: 11 messages (not scored)" in shown
    assert "messages in the next request" not in shown


def test_an_earlier_rounds_score_echoes_the_messages_asked_for_alone(app):
    shown = _predict(_predicting(app), 1, "answer", messages=5)
    assert "answer in text; the next request: 5 messages" in shown and "(not scored)" not in shown
