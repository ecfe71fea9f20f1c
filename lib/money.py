"""Money as a program should handle it: Decimal from the digits as written, quantized, then compared.

The model does no arithmetic; the program does, and never in binary floating point (3860.00 - 3800.00
is not exactly 60 in a float). Next to a call that hands the program two amounts, the app shows the
computation worked out here from the call's own arguments. Pure: no Streamlit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from lib.model import Execution, Round, ToolCallPart

MONEY_TITLE = "Money as the program should compute it"
"""The badge over the Decimal computation in the program's lane: short enough for a half-width column."""
MONEY_WHY = ("Worked out here from the call's JSON as the model wrote it: each number parsed as Decimal, never as a "
             "float, quantized to cents, then compared. The log does not record how the handler did its arithmetic.")
"""Under that badge: where the digits come from (the handler's arguments above may be written as floats, 3860.0)
and that the app, not the log, worked it out."""

CENT = Decimal("0.01")
"""What amounts are quantized to: the currency's smallest unit, cents (fen, for yuan)."""
MONEY_NAMES = re.compile(r"amount|price|cost|total|limit|fee|balance|budget|salary|payment|sum", re.IGNORECASE)
"""Argument names that hold money."""


@dataclass(frozen=True, slots=True)
class Amount:
    """One money argument of a call."""

    name: str
    """The argument's name."""
    written: str
    """The digits exactly as the call's JSON wrote them."""
    quantized: Decimal
    """The value as a Decimal, quantized to cents."""


@dataclass(frozen=True, slots=True)
class MoneyComparison:
    """Two amounts of one call, compared the way a program should."""

    first: Amount
    """The first money argument, in the order the call wrote them."""
    second: Amount
    """The second."""

    @property
    def difference(self) -> Decimal:
        """first - second, exact."""
        return self.first.quantized - self.second.quantized

    def lines(self) -> tuple[str, ...]:
        """The computation as Python a reader can run: quantize each, then compare."""
        quantize = 'quantize(Decimal("0.01"), ROUND_HALF_UP)'
        steps = tuple(f'{a.name} = Decimal("{a.written}").{quantize}  # {a.quantized}'
                      for a in (self.first, self.second))
        relation = ">" if self.difference > 0 else "<" if self.difference < 0 else "=="
        verdict = {">": "over by", "<": "under by", "==": "equal:"}[relation]
        return (*steps, f"{self.first.name} {relation} {self.second.name}  # {self.first.quantized} {relation} "
                        f"{self.second.quantized}: {verdict} {abs(self.difference)}")


def _amount(name: str, value: object) -> Amount | None:
    if not isinstance(value, Decimal) or not value.is_finite() or not MONEY_NAMES.search(name):
        return None
    try:
        return Amount(name, str(value), value.quantize(CENT, rounding=ROUND_HALF_UP))
    except InvalidOperation:  # too many digits to quantize: not an amount anyone pays
        return None


def money_comparison(call: ToolCallPart) -> MoneyComparison | None:
    """The Decimal comparison of a call's two money arguments, read from its JSON text so `3860.00` stays
    `3860.00`; None unless the call has exactly two."""
    try:
        arguments = json.loads(call.arguments_raw, parse_float=Decimal, parse_int=Decimal)
    except (ValueError, RecursionError):
        return None
    if not isinstance(arguments, dict):
        return None
    amounts = [found for name, value in arguments.items() if (found := _amount(str(name), value)) is not None]
    return MoneyComparison(*amounts) if len(amounts) == 2 else None


def worked_money(round_: Round, execution: Execution) -> MoneyComparison | None:
    """The Decimal computation shown beside an execution in the program's lane (the explorer's card, the HTML file):
    that of the call it ran, where that call hands over two amounts; None for a call refused or declined before its
    handler ran, which computed nothing."""
    if not execution.ok:
        return None
    call = next((c for c in round_.tool_calls if c.id == execution.tool_call_id), None)
    return money_comparison(call) if call is not None else None
