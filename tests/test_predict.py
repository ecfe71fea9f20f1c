"""Predict mode's scoring: tool or answer, which tool, argument names and values, the next request's size."""

from dataclasses import replace

from lib.predict import Expected, Prediction, expected, has_next_request, outcome, read_arguments, score, total
from tests.conftest import load_bundled


def _points(found):
    return {p.what: (p.earned, p.possible) for p in found.points}


def test_the_outcome_of_each_hengxin_round(hengxin):
    first = outcome(hengxin, 1)
    assert first.action == "call" and first.next_messages == 5
    assert first.calls == (("queryExpense", {"user_id": "E10238", "status": "submitted"}),
                           ("queryTravelPolicy", {"job_level": "P6", "city_tier": "2"}))
    last = outcome(hengxin, 4)
    assert last.action == "answer" and last.calls == () and last.next_messages is None


def _call(tool, arguments):
    return Prediction("call", (Expected(tool, arguments),))


def test_a_perfect_prediction_of_a_parallel_call_earns_every_point(hengxin):
    found = score(Prediction("call", (expected("queryTravelPolicy", '{"city_tier": "2", "job_level": "P6"}'),
                                      expected("queryExpense", '{"user_id": "E10238", "status": "submitted"}')), 5),
                  outcome(hengxin, 1))
    assert _points(found) == {"tool or answer": (1, 1), "which tools": (2, 2), "argument names": (2, 2),
                              "argument values": (2, 2), "messages in the next request": (1, 1)}
    assert (found.earned, found.possible) == (8, 8)
    assert found.points[0].says == "it called 2 tools in parallel"
    assert "queryExpense and queryTravelPolicy in parallel: 2 calls in one response" in found.points[1].says


def test_one_of_two_parallel_calls_predicted_earns_half_of_the_calls_points(hengxin):
    found = score(Prediction("call", (expected("queryTravelPolicy", '{"city_tier": "2", "job_level": "P6"}'),), 5),
                  outcome(hengxin, 1))
    assert _points(found) == {"tool or answer": (1, 1), "which tools": (1, 2), "argument names": (1, 2),
                              "argument values": (1, 2), "messages in the next request": (1, 1)}
    assert "queryExpense: you did not name it; queryTravelPolicy: the same values" in found.points[3].says


def test_free_text_is_not_scored_and_a_tool_of_free_text_alone_has_no_values_point(hengxin):
    found = score(_call("createExpenseSupplement", {"expense_id": "BX-20261015-0932", "over_amount": 60,
                                                    "reason": "hotel"}), outcome(hengxin, 3))
    assert _points(found)["argument values"] == (1, 1)
    prose = replace(outcome(hengxin, 3), calls=(("createExpenseSupplement", {"reason": "a reason in many words"}),),
                    arguments_raw=('{"reason": "a reason in many words"}',))
    found = score(_call("createExpenseSupplement", {"reason": "other"}), prose)
    assert "argument values" not in _points(found) and _points(found)["argument names"] == (1, 1)


def test_true_is_not_1(hengxin):
    flag = replace(outcome(hengxin, 2), calls=(("calcAmountOver", {"exact": True}),),
                   arguments_raw=('{"exact": true}',))
    assert _points(score(_call("calcAmountOver", {"exact": 1}), flag))["argument values"] == (0, 1)


def test_numbers_compare_as_json_values_not_as_text(hengxin):
    found = score(_call("calcAmountOver", {"actual_amount": 3860, "limit_amount": 3800}),
                  outcome(hengxin, 2))
    assert _points(found)["argument values"] == (1, 1)


def test_right_names_wrong_values_earn_the_names(hengxin):
    found = score(Prediction("call", (Expected("calcAmountOver", {"actual_amount": 3800, "limit_amount": 3860}),), 6),
                  outcome(hengxin, 2))
    assert _points(found)["argument names"] == (1, 1)
    assert _points(found)["argument values"] == (0, 1)
    assert _points(found)["messages in the next request"] == (0, 1)
    assert "request 3 carried 7 messages" in found.points[-1].says


def test_predicting_an_answer_when_the_model_calls_earns_nothing_for_the_call(hengxin):
    found = score(Prediction("answer", next_messages=5), outcome(hengxin, 1))
    assert (found.earned, found.possible) == (1, 8)
    assert _points(found)["which tools"] == (0, 2)


def test_the_final_answer_has_no_next_request_to_count(hengxin):
    found = score(Prediction("answer"), outcome(hengxin, 4))
    assert _points(found) == {"tool or answer": (1, 1)}
    assert found.points[0].says == "it answered in text"


def test_arguments_that_do_not_parse_are_said_and_score_nothing(hengxin):
    arguments, problem = read_arguments('{"user_id": ')
    assert arguments is None and problem.startswith("not valid JSON")
    found = score(Prediction("call", (Expected("queryExpense", arguments, problem),)), outcome(hengxin, 1))
    assert _points(found)["argument names"] == (0, 2)
    assert "queryExpense: yours were not valid JSON" in found.points[2].says
    assert read_arguments("  ") == (None, None)


def test_arguments_typed_thousands_of_brackets_deep_are_said_not_raised():
    assert read_arguments("[" * 5000) == (None, "not valid JSON (it is nested too deeply to read)")


def test_a_failed_call_has_nothing_to_predict():
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    assert outcome(trace, 2) is None


def test_the_total_adds_every_round(hengxin):
    scores = [score(Prediction("call", (Expected("queryExpense", {"user_id": "E10238", "status": "submitted"}),), 5),
                    outcome(hengxin, 1)),
              score(Prediction("call"), outcome(hengxin, 4))]
    assert total(scores) == (5 + 0, 8 + 1)


def test_feedback_names_the_values_that_differ_and_quotes_the_arguments_as_the_model_wrote_them(hengxin):
    found = score(Prediction("call", (expected("calcAmountOver", '{"actual_amount": 3800, "limit_amount": 3860}'),)),
                  outcome(hengxin, 2))
    says = next(p.says for p in found.points if p.what == "argument values")
    assert says == "values differ: actual_amount and limit_amount"
    assert [(s.yours, s.model) for s in found.sides] == [('{"actual_amount": 3800, "limit_amount": 3860}',
                                                          '{"actual_amount": 3860.00, "limit_amount": 3800.00}')]


def test_on_a_held_chain_the_next_requests_size_is_what_the_program_sends(responses_chain):
    # Request 2 of the Responses chain sends the instructions and two tool results; the provider holds the question
    # and the model's turn (previous_response_id), which the program does not send.
    assert outcome(responses_chain, 1).next_messages == 3
    assert score(Prediction("call", next_messages=3), outcome(responses_chain, 1)).points[-1].earned == 1


def test_arguments_that_do_not_parse_say_where_as_an_uploaded_line_does():
    assert read_arguments("{expense_id: BX}")[1] == ("not valid JSON (at character 2 of the arguments: a key is not a "
                                                     "string in double quotes: unquoted, in single quotes, or after a "
                                                     "comma too many)")
    assert read_arguments('{"a": 1,\n x}')[1].startswith("not valid JSON (at line 2, character 2 of the arguments")


def test_only_a_round_followed_by_a_request_has_messages_to_count(hengxin):
    assert [has_next_request(hengxin, k) for k in (1, 2, 3, 4)] == [True, True, True, False]


def test_a_short_value_typed_in_another_case_or_spacing_is_the_models_value(hengxin):
    found = score(_call("queryExpense", {"user_id": "e10238", "status": " Submitted"}), outcome(hengxin, 1))
    assert _points(found)["argument values"] == (1, 2)
    found = score(_call("queryExpense", {"user_id": "E10239", "status": "submitted"}), outcome(hengxin, 1))
    assert _points(found)["argument values"] == (0, 2)
