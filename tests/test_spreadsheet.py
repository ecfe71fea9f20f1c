"""CSV downloads opened in a spreadsheet: no cell taken from a trace runs as a formula."""

import csv
import io
import re
from dataclasses import replace

import pytest

from lib.summary import summarize
from lib.prices import DEFAULT_PRICES
from lib.spreadsheet import table_csv
from lib.tokens import CHARACTER_COUNTER
from lib.ui.accounting import rounds_table
from tests.conftest import load_bundled


def test_the_rounds_table_download_defuses_a_model_name_or_finish_reason_written_as_a_formula(hengxin):
    rows = summarize(hengxin, CHARACTER_COUNTER)
    hostile = (replace(rows[0], model=" =HYPERLINK(\"http://evil\",\"cheap\")"), replace(rows[1], finish_reason="@SUM(A1)"),
               *rows[2:])
    table = list(csv.DictReader(io.StringIO(table_csv(rounds_table(hostile, DEFAULT_PRICES)))))
    assert [row["model"] for row in table][:2] == ["' =HYPERLINK(\"http://evil\",\"cheap\")", rows[1].model]
    assert [row["finish reason"] for row in table] == ["tool_calls", "'@SUM(A1)", "tool_calls", "stop"]
    assert [row["tokens in"] for row in table][0] == "1247"


def test_a_header_a_user_named_is_defused_in_both_writers():
    import pandas as pd
    from lib.spreadsheet import csv_text
    assert csv_text(["note", "=1+1"], [["ok", 2]]).splitlines()[0] == "note,'=1+1"
    assert table_csv(pd.DataFrame({"@SUM(A1)": ["-x"]})).splitlines() == ["'@SUM(A1)", "'-x"]


@pytest.mark.parametrize("name", ["larkfield-get-order", "loan-calculator"])
def test_the_rounds_table_download_writes_each_cost_as_a_plain_decimal_not_float_noise(name):
    # At the default prices these rounds' costs were written 0.00021480000000000002 and 3.2099999999999994e-05.
    rows = summarize(load_bundled(name).trace, CHARACTER_COUNTER)
    table = rounds_table(rows, DEFAULT_PRICES)
    written = [row["cost USD"] for row in csv.DictReader(io.StringIO(table_csv(table)))]
    assert all(re.fullmatch(r"\d+\.\d{1,10}|\d+", cell) for cell in written), written
    assert [float(cell) for cell in written] == [round(cost, 10) for cost in table["cost USD"]]
