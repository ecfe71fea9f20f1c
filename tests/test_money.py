"""Money next to a call: the Decimal computation, quantize then compare, worked out from the call's own JSON."""

from decimal import Decimal

from lib.model import ToolCallPart
from lib.money import money_comparison


def _call(arguments: str) -> ToolCallPart:
    return ToolCallPart(id="call_a", name="calcAmountOver", arguments_raw=arguments, arguments=None)


def test_hengxin_calc_amount_over_is_quantized_to_cents_then_compared(hengxin):
    call = hengxin.rounds[1].tool_calls[0]
    worked = money_comparison(call)
    assert worked.difference == Decimal("60.00")
    assert worked.lines() == (
        'actual_amount = Decimal("3860.00").quantize(Decimal("0.01"), ROUND_HALF_UP)  # 3860.00',
        'limit_amount = Decimal("3800.00").quantize(Decimal("0.01"), ROUND_HALF_UP)  # 3800.00',
        "actual_amount > limit_amount  # 3860.00 > 3800.00: over by 60.00",
    )


def test_amounts_are_read_as_written_not_through_a_float():
    worked = money_comparison(_call('{"price": 0.1, "limit_amount": 0.30000000000000004, "note": "x"}'))
    assert [a.written for a in (worked.first, worked.second)] == ["0.1", "0.30000000000000004"]
    assert worked.lines()[-1] == "price < limit_amount  # 0.10 < 0.30: under by 0.20"


def test_a_call_without_exactly_two_amounts_or_with_unreadable_ones_shows_no_computation():
    assert money_comparison(_call('{"order_id": "7"}')) is None
    assert money_comparison(_call('{"amount": 1, "limit": 2, "total": 3}')) is None
    assert money_comparison(_call('{"amount": 1e999999, "limit": 2}')) is None
    assert money_comparison(_call('{"amount": "12", "limit": 2}')) is None
    assert money_comparison(_call('{"amount": 1, "limit": ')) is None
