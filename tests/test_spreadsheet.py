"""CSV downloads opened in a spreadsheet: no cell taken from a trace runs as a formula."""

import csv
import io
from dataclasses import replace

from lib.summary import summarize
from lib.prices import DEFAULT_PRICES
from lib.spreadsheet import table_csv
from lib.tokens import CHARACTER_COUNTER
from lib.ui.accounting import rounds_table


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
