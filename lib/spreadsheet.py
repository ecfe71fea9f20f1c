"""CSV that a spreadsheet opens as text: no cell from a trace or a note runs as a formula. No Streamlit here."""

from __future__ import annotations

import csv
import io
from typing import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@")
"""First characters a spreadsheet reads as a formula, even after leading whitespace."""
CONTROL_STARTS = ("\t", "\r", "\n")
"""First characters that some spreadsheets drop before reading the rest as a formula."""


def defused(cell: str) -> str:
    """The cell with a leading ' when a spreadsheet could read it as a formula (OWASP's CSV injection rule)."""
    if cell[:1] in CONTROL_STARTS or cell.lstrip()[:1] in FORMULA_STARTS:
        return "'" + cell
    return cell


def _defused_value(value):
    return defused(value) if isinstance(value, str) else value


def csv_text(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A header and rows as CSV text, every text cell defused, the header's too: a column may be named by a user
    (a rubric's name)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([defused(column) for column in columns])
    writer.writerows([_defused_value(value) for value in row] for row in rows)
    return out.getvalue()


def _decimal(value: float) -> str:
    # A cost is a sum of products of prices: written as Python writes the float, it shows binary noise
    # (0.00021480000000000002) or an exponent (3.21e-05). Ten decimals keep every figure to a ten-thousandth of a cent.
    return f"{value:.10f}".rstrip("0").rstrip(".")


def table_csv(table) -> str:
    """A pandas table as CSV text without its index, every text cell defused, the header's too, every fractional
    number a plain decimal of at most ten places."""
    return table.map(_defused_value).rename(columns=_defused_value).to_csv(index=False, float_format=_decimal)
