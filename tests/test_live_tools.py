"""The scenarios' tools: Decimal money done right, refusals as readable results, identity from the app."""

import json
from dataclasses import replace
from decimal import Decimal

import pytest

from lib.live import data, handlers
from lib.live.scenarios import HENGXIN, LARKFIELD, LOAN, ORDER_STATUS
from lib.live.tools import DECLINED, Context, Toolbox, result_text
from lib.model import ToolCallPart


def call(name: str, arguments, call_id: str = "call_1") -> ToolCallPart:
    """A call as the model would write it: arguments as JSON text."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    try:
        parsed, error = json.loads(raw), None
    except ValueError as exc:
        parsed, error = None, str(exc)
    return ToolCallPart(id=call_id, name=name, arguments_raw=raw, arguments=parsed, arguments_error=error)


def toolbox(scenario, tmp_path, session=None) -> Toolbox:
    database = data.create_database(tmp_path / "db.sqlite", scenario.data) if scenario.data else None
    context = Context(database, scenario.session if session is None else session, scenario.now)
    return Toolbox({t.name: t for t in scenario.tools}, context)


# --- calcAmountOver: quantize to cents, then compare ----------------------------------------------


def test_3860_against_3800_is_60_over_at_a_ratio_of_0_0158():
    result = handlers.calc_amount_over(None, {"actual_amount": 3860.00, "limit_amount": 3800.00})
    assert result == {"ok": True, "over_amount": Decimal("60.00"), "over_ratio": Decimal("0.0158"), "is_over": True}
    assert result_text(result) == '{"ok": true, "over_amount": 60.00, "over_ratio": 0.0158, "is_over": true}'


def test_0_1_plus_0_2_against_0_3_is_not_over():
    # Compared before quantizing, the float error would say "over" by an amount of 0.00.
    result = handlers.calc_amount_over(None, {"actual_amount": 0.1 + 0.2, "limit_amount": 0.3})
    assert result["ok"] is True
    assert result["is_over"] is False
    assert result["over_amount"] == Decimal("0.00") and result["over_ratio"] == Decimal("0.0000")


def test_a_zero_limit_is_a_failure_the_model_can_repeat():
    result = handlers.calc_amount_over(None, {"actual_amount": 3860, "limit_amount": 0})
    assert result["ok"] is False
    assert "limit is 0" in result["error"]


@pytest.mark.parametrize("actual, limit", [(-1, 3800), (3860, -0.01)])
def test_a_negative_amount_is_a_failure(actual, limit):
    result = handlers.calc_amount_over(None, {"actual_amount": actual, "limit_amount": limit})
    assert result == {"ok": False, "error": "An amount cannot be negative."}


def test_an_amount_that_is_not_a_finite_number_is_a_failure_not_an_exception():
    assert handlers.calc_amount_over(None, {"actual_amount": float("nan"), "limit_amount": 3800})["ok"] is False
    assert handlers.calc_amount_over(None, {"actual_amount": "lots", "limit_amount": 3800})["ok"] is False


# --- the registry: schema checks, unknown tools, refusals -----------------------------------------


def test_schema_violations_come_back_as_a_readable_result_naming_each_problem(tmp_path):
    tools = toolbox(HENGXIN, tmp_path)
    result = tools.run(call("calcAmountOver", {"actual_amount": "3860 yuan"}))
    assert result.rejected and result.execution["ok"] is False
    assert result.content.startswith("Invalid arguments for calcAmountOver: ")
    assert "'limit_amount' is a required property" in result.content
    assert "actual_amount: '3860 yuan' is not of type 'number'" in result.content


def test_an_enum_violation_names_the_allowed_values(tmp_path):
    result = toolbox(HENGXIN, tmp_path).run(call("queryTravelPolicy", {"job_level": "P6", "city_tier": "first"}))
    assert result.rejected
    assert "city_tier: 'first' is not one of ['1', '2', '3', 'other']" in result.content


def test_arguments_that_are_not_json_are_refused_with_the_reason(tmp_path):
    result = toolbox(HENGXIN, tmp_path).run(call("calcAmountOver", '{"actual_amount": 3860, '))
    assert result.rejected
    assert result.content.startswith("Invalid arguments for calcAmountOver: ")
    assert result.execution["arguments"] == '{"actual_amount": 3860, '


def test_an_unknown_tool_is_an_error_result_listing_the_real_ones(tmp_path):
    result = toolbox(ORDER_STATUS, tmp_path).run(call("refund_order", {"order_id": "A-48213"}))
    assert result.rejected and result.execution["ok"] is False
    assert result.content == ("No tool named 'refund_order' is available. The tools are: get_order_status, "
                              "search_orders_by_email, cancel_order.")


def test_a_strict_schema_refuses_an_argument_it_does_not_name(tmp_path):
    result = toolbox(LARKFIELD, tmp_path).run(call("get_order", {"order_id": "LK-581106", "customer_id": "C-38852"}))
    assert result.rejected
    assert "Additional properties are not allowed ('customer_id' was unexpected)" in result.content


def test_a_handler_that_breaks_is_a_result_that_hides_the_internals(tmp_path):
    def broken(ctx, args):
        raise RuntimeError("sqlite3 table secret_internal_table is locked")

    tools = toolbox(LOAN, tmp_path)
    loan = replace(tools.tools["calculate_loan_payment"], handler=broken)
    tools = replace(tools, tools={"calculate_loan_payment": loan})
    result = tools.run(call("calculate_loan_payment", {"principal": 1000, "rate": 0.05, "years": 2}))
    assert result.execution["ok"] is False
    assert "calculate_loan_payment failed inside the program (RuntimeError)" in result.content
    assert "secret_internal_table" not in result.content


# --- identity from the app, writes, approval ------------------------------------------------------


def test_the_customer_id_comes_from_the_app_and_is_recorded_as_an_override(tmp_path):
    result = toolbox(LARKFIELD, tmp_path).run(call("get_order", {"order_id": "LK-581106"}))
    assert result.execution["arguments"] == {"order_id": "LK-581106", "customer_id": "C-81265"}
    assert result.execution["overrides"] == {"customer_id": "C-81265"}
    assert json.loads(result.content)["order"]["status"] == "shipped"


def test_another_customers_order_is_not_available(tmp_path):
    result = toolbox(LARKFIELD, tmp_path).run(call("get_order", {"order_id": "LK-615204"}))
    assert json.loads(result.content) == {"ok": False, "error": "No order LK-615204 is available for this customer."}


def test_the_employee_id_the_model_wrote_is_replaced_by_the_sessions(tmp_path):
    result = toolbox(HENGXIN, tmp_path).run(call("queryExpense", {"user_id": "E10311"}))
    assert result.execution["overrides"] == {"user_id": "E10238"}
    assert json.loads(result.content)["expense_id"] == "BX-20261015-0932"
    assert result.content == ('{"ok": true, "expense_id": "BX-20261015-0932", "amount": 3860.00, '
                              '"status": "submitted", "submit_date": "2026-10-15"}')


def test_a_declined_write_runs_nothing_and_says_so_plainly(tmp_path):
    tools = toolbox(HENGXIN, tmp_path)
    supplement = call("createExpenseSupplement", {"expense_id": "BX-20261015-0932", "over_amount": 60, "reason": "x"})
    declined = tools.run(supplement, approval="declined")
    assert declined.content == DECLINED
    assert declined.execution["approval"] == "declined" and declined.execution["ok"] is False
    with tools.context.database.connect() as db:
        assert db.execute("SELECT COUNT(*) FROM supplements").fetchone()[0] == 0
    approved = tools.run(supplement, approval="approved")
    assert json.loads(approved.content)["supplement_id"] == "BC-20261020-0417"
    assert approved.execution["approval"] == "approved"
    with tools.context.database.connect() as db:
        assert db.execute("SELECT over_amount FROM supplements").fetchone()[0] == "60.00"


def test_a_shipped_order_cannot_be_cancelled_but_a_processing_one_can(tmp_path):
    tools = toolbox(ORDER_STATUS, tmp_path)
    assert json.loads(tools.run(call("cancel_order", {"order_id": "A-48213"}), "approved").content)["ok"] is False
    assert json.loads(tools.run(call("cancel_order", {"order_id": "A-48219"}), "approved").content) == {
        "ok": True, "order_id": "A-48219", "status": "cancelled"}
    assert json.loads(tools.run(call("get_order_status", {"order_id": "A-48219"})).content)["status"] == "cancelled"


def test_the_loan_payment_matches_the_bundled_trace():
    result = handlers.calculate_loan_payment(None, {"principal": 250000, "rate": 0.065, "years": 30})
    assert result_text(result) == ('{"ok": true, "monthly_payment": 1580.17, "number_of_payments": 360, '
                                   '"total_paid": 568861.20, "total_interest": 318861.20}')
    assert handlers.calculate_loan_payment(None, {"principal": 1200, "rate": 0, "years": 1})["monthly_payment"] == 100
    assert handlers.calculate_loan_payment(None, {"principal": 1200, "rate": 6.5, "years": 1})["ok"] is False
