"""The Library page through the real app: saved traces listed with counts, filtered in the database, opened in the
explorer or Compare, scored, exported and deleted; a viewer browses but cannot delete."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog, library, library_search
from lib.ui import library as library_ui
from lib.annotations import Note, Score
from lib.logs.native import read_trace
from lib.encodings import encoding_name_for_model
from lib.logs.upload import read_upload
from lib.prices import DEFAULT_PRICES, cost_words
from lib.store import open_store
from lib.summary import rows_cost, snowball, summarize
from lib.tokens import counter_for
from tests.conftest import ROOT, load_bundled
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.hostile import HOSTILE, hostile_trace, markdown_leaks
from tests.screen import ALERTS, lines
from tests.synthetic import synthetic_lines

SAVED = {"hengxin-expense": "upload", "order-status-anthropic": "capture", "loan-calculator": "live"}
"""Bundled traces saved to the library for these tests, with the source each came from."""


@pytest.fixture
def ids(app_database) -> dict[str, str]:
    """The three bundled traces saved, each trace's id by name."""
    store = open_store(app_database)
    found = {name: library.save(store, load_bundled(name).trace, source=source, author="Ada")
             for name, source in SAVED.items()}
    store.close()
    return found


def _library(*, viewer: bool = False) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if viewer:
        at.user = {"is_logged_in": False}
    at.run()
    at.switch_page("pages/library.py").run()
    assert not at.exception
    return at


def _titles(at: AppTest) -> list[str]:
    return sorted(_listed(at).value["title"])


def _listed(at: AppTest):
    """The list of saved traces, under whichever key it has now (a selection let go draws it under a new one)."""
    return next(d for d in at.dataframe if d.key and d.key.startswith("library.table"))


def _select(at: AppTest, *titles: str) -> AppTest:
    listed = list(at.dataframe(key="library.table").value["title"])
    at.session_state["library.table"] = {"selection": {"rows": [listed.index(t) for t in titles], "columns": [],
                                                       "cells": []}}
    return at.run()


def _table(at: AppTest, column: str):
    """The table with this column (a table without selection has no key AppTest can find)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _said(at: AppTest) -> str:
    return "\n".join(lines(at, ALERTS + ("caption", "text")))


def _title(name: str) -> str:
    return load_bundled(name).trace.title


def test_every_saved_trace_is_listed_with_its_count(ids):
    at = _library()
    assert _titles(at) == sorted(_title(name) for name in SAVED)
    assert "3 saved traces match; showing 1 to 3." in _said(at)
    listed = at.dataframe(key="library.table").value.set_index("title")
    assert listed.loc[_title("hengxin-expense"), "rounds"] == 4
    assert listed.loc[_title("loan-calculator"), "source"] == "live"


@pytest.mark.parametrize("key, value, expected", [
    ("library.tool", "queryExpense", ["hengxin-expense"]),
    ("library.source", "capture", ["order-status-anthropic"]),
    ("library.text", "monthly payment", ["loan-calculator"]),
    ("library.rounds_low", 4.0, ["hengxin-expense"]),
])
def test_a_filter_narrows_the_list(ids, key, value, expected):
    at = _library()
    widget = next(w for kind in ("text_input", "selectbox", "number_input") for w in at.get(kind) if w.key == key)
    widget.set_value(value).run()
    assert _titles(at) == sorted(_title(name) for name in expected)


def test_one_match_is_counted_in_the_singular(ids):
    at = _library()
    at.text_input(key="library.tool").set_value("queryExpense").run()
    assert "1 saved trace matches; showing 1 to 1." in _said(at)


def test_a_filter_that_matches_nothing_says_so(ids):
    at = _library()
    at.text_input(key="library.tool").set_value("no_such_tool").run()
    assert "No saved trace matches." in _said(at)


def test_one_selected_row_opens_in_the_explorer_on_its_permanent_link(ids):
    at = _select(_library(), _title("loan-calculator"))
    at.button(key="library.open").click().run()
    assert not at.exception
    assert at.selectbox(key="sidebar.trace").value == "(saved trace)"
    assert at.query_params["trace"] == ids["loan-calculator"]
    assert next(s.value for s in at.subheader if s.value.startswith("Round ")).startswith("Round 1:")


def test_two_selected_rows_open_in_compare(ids):
    at = _select(_library(), _title("hengxin-expense"), _title("loan-calculator"))
    at.button(key="library.compare").click().run()
    assert not at.exception
    assert at.selectbox(key="compare.left").value == f"saved:{ids['hengxin-expense']}"
    assert at.selectbox(key="compare.right").value == f"saved:{ids['loan-calculator']}"
    summary = _table(at, "tool calls")
    assert list(summary["rounds"]) == [4, len(load_bundled("loan-calculator").trace.rounds)]


def test_an_editor_deletes_a_saved_trace_and_its_link_stops_opening(ids, app_database):
    at = _select(_library(), _title("order-status-anthropic"))
    at.button(key="library.delete").click().run()
    assert "Deleted 1 trace from the library" in _said(at)
    assert _title("order-status-anthropic") not in _titles(at)
    assert ids["order-status-anthropic"] not in library.trace_ids(open_store(app_database))

    linked = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    linked.query_params["trace"] = ids["order-status-anthropic"]
    linked.run()
    assert "No trace with this id is kept in the library" in _said(linked)


def test_a_viewer_browses_and_opens_but_cannot_delete(ids, monkeypatch, app_database):
    monkeypatch.setenv("ROUNDTRIP_DEPLOYMENT", "server")
    at = _select(_library(viewer=True), _title("hengxin-expense"))
    assert [b.key for b in at.button if b.key == "library.open"] == ["library.open"]
    assert not [b for b in at.button if b.key == "library.delete"]
    assert len(library.trace_ids(open_store(app_database))) == 3


def test_scores_are_averaged_per_rubric_over_the_filtered_set_and_exported(ids, app_database):
    store = open_store(app_database)
    for n, (name, mark) in enumerate([("hengxin-expense", 1.0), ("hengxin-expense", 3.0), ("loan-calculator", 0.0)]):
        store.add(Note(id=f"n{n}", trace=ids[name], target="trace", labels=(), text=f"graded {n}", author="Ada",
                       created=f"2026-11-30T10:0{n}:00Z", trace_title=_title(name), trace_name=name,
                       scores=(Score("grounded", mark),)))
    at = _library()
    assert _table(at, "rubric").to_dict("records") == [
        {"rubric": "grounded", "average": pytest.approx(4 / 3), "scores": 3}]
    at.text_input(key="library.tool").set_value("queryExpense").run()
    assert _table(at, "rubric").to_dict("records") == [
        {"rubric": "grounded", "average": 2.0, "scores": 2}]
    csv = at.get("download_button")
    assert {b.proto.label for b in csv} >= {"Download these traces with their notes (.jsonl)",
                                            "Download them as CSV, one row per note"}


def _save_synthetic(database: str, count: int) -> None:
    """Saves synthetic traces of 1 to `count` rounds."""
    store = open_store(database)
    for rounds in range(1, count + 1):
        trace, _ = read_trace(iter(line.encode() + b"\n" for line in synthetic_lines(rounds)), name=f"s{rounds}")
        library.save(store, trace, source="upload")


def test_many_saved_traces_are_paged(app_database):
    _save_synthetic(app_database, 30)
    at = _library()
    at.selectbox(key="library.size").set_value(25).run()
    assert "30 saved traces match; showing 1 to 25." in _said(at)
    at.number_input(key="library.page_number").set_value(2).run()
    assert "30 saved traces match; showing 26 to 30." in _said(at)
    at.selectbox(key="library.sort").set_value("rounds").run()  # another sort goes back to page 1
    assert "showing 1 to 25." in _said(at)
    assert list(at.dataframe(key="library.table").value["rounds"])[:3] == [30, 29, 28]


def test_past_the_count_limit_the_total_reads_as_a_floor_and_says_where_counting_stopped(app_database, monkeypatch):
    # 30 saved against a limit of 26 stand for 100,000 against 10,000.
    monkeypatch.setattr(library_search, "COUNT_LIMIT", 26)
    _save_synthetic(app_database, 30)
    at = _library()
    at.selectbox(key="library.size").set_value(25).run()
    assert "26+ saved traces match; showing 1 to 25." in _said(at)
    assert "Counting stops at 26" in _said(at)
    at.number_input(key="library.page_number").set_value(2).run()
    assert "30 saved traces match; showing 26 to 30." in _said(at)  # the last page knows where the matches end


def test_a_hostile_saved_trace_reaches_the_list_only_as_table_cells(app_database):
    store = open_store(app_database)
    library.save(store, catalog.load_bytes(hostile_trace(), "hostile").trace, source="upload", author=HOSTILE[:80])
    at = _select(_library(), *_titles(_library()))
    assert len(at.dataframe(key="library.table").value) == 1
    assert markdown_leaks(at) == []


def _figures(at: AppTest) -> dict[str, tuple[str, str]]:
    """The tokens and cost each listed trace shows, by title."""
    table = at.dataframe(key="library.table").value
    return {title: (tokens, cost) for title, tokens, cost in zip(table["title"], table["tokens (in + out)"],
                                                                 table["cost"])}


def _tokens_page_words(trace) -> tuple[str, str]:
    """The trace's tokens in and out and its cost as lib.summary writes them, under the automatic tokenizer."""
    rows = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    return snowball(rows).tokens_words, cost_words(rows_cost(rows, DEFAULT_PRICES))


def test_a_token_figure_holding_an_estimate_reads_with_its_mark_and_why(ids, app_database):
    # Hengxin reports usage on one round of four: its figure holds our estimate of the other three. Larkfield reports
    # usage on every round.
    store = open_store(app_database)
    library.save(store, load_bundled("larkfield-get-order").trace, source="upload")
    shown = _figures(_library())
    for name in ("hengxin-expense", "larkfield-get-order"):
        assert shown[_title(name)] == _tokens_page_words(load_bundled(name).trace), name
    assert shown[_title("hengxin-expense")][0].startswith("≈ ")
    assert shown[_title("larkfield-get-order")][0][0].isdigit()
    assert ("≈ estimated: some or all of that trace's rounds report no usage; its token figure, and the cost worked "
            "out from it, hold our offline estimate for them.") \
        in _said(_library())


def test_a_trace_whose_model_has_no_price_reads_no_price_not_none(app_database):
    # A new user saved an upload whose model (openai/gpt-oss-120b) the price table lacks: its cost cell read a grey
    # "None", where the Tokens page says "no price" of the same trace.
    store = open_store(app_database)
    upload = (ROOT / "tests" / "fixtures" / "openai-compatible-tool-use-failed.jsonl").read_bytes()
    library.save(store, catalog.load_bytes(upload, "tool-use-failed").trace, source="upload")
    library.save(store, load_bundled("loan-calculator").trace, source="upload")  # gpt-4o-mini: priced
    at = _library()
    costs = {title: cost for title, (_, cost) in _figures(at).items()}
    assert costs[_title("loan-calculator")].startswith("≈ US$")
    assert [c for c in costs.values() if c == "no price"] == ["no price"]
    assert ("A cost of “no price”: the price table has no price for that trace's models, so no cost is worked out. "
            "The Tokens page lists the prices it knows.") in _said(at)


def test_a_refused_call_reads_the_same_in_the_library_on_the_tokens_page_and_in_compare(app_database):
    # Groq refused round 1's generation (HTTP 400, tool_use_failed): whether it was billed is not in the log. The
    # Tokens page and Compare left it out of the input billed, 637, and said so, but counted its output in "≈ 170";
    # the Library counted all of it, "≈ 988", said nothing of it, and read its cost "not known" where the model has
    # no price.
    store = open_store(app_database)
    name = "openai-compatible-tool-use-failed.jsonl"
    trace = read_upload([(name, (ROOT / "tests" / "fixtures" / name).read_bytes())]).conversations[0].trace
    kept = library.save(store, trace, source="upload")
    store.close()
    left_out = "1 failed call left out: whether it was billed is not in the log"

    compare = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    compare.query_params["compare"] = f"{kept},{kept}"
    compare.run()
    compare.switch_page("pages/compare.py").run()
    assert not compare.exception
    totals = _table(compare, "tokens out").iloc[0]
    tokens_in, tokens_out = int(totals["tokens in"].replace(",", "")), int(totals["tokens out"].replace(",", ""))
    assert (tokens_in, tokens_out, totals["cost USD"]) == (637, 148, "no price")
    captions = [c.value for c in compare.main.caption]
    for figure in ("Tokens in", "Tokens out", "Cost"):
        assert f"{figure} of the left run: {left_out}." in captions

    tokens = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    tokens.query_params["trace"] = kept
    tokens.run()
    tokens.switch_page("pages/overview.py").run()
    assert not tokens.exception
    metrics = {m.label: m for m in tokens.metric}
    assert metrics["Input billed over all calls"].value == f"{tokens_in:,}"
    assert f"{tokens_out:,} ({left_out}) out." in metrics["Input billed over all calls"].help
    assert metrics["Cost of the whole trace"].value == totals["cost USD"]
    assert [c.value for c in tokens.main.caption].count(f"{left_out[0].upper()}{left_out[1:]}.") == 2

    at = _library()
    assert _figures(at)[trace.title] == (f"{tokens_in + tokens_out:,} ({left_out})",
                                         f"{totals['cost USD']} ({left_out})")
    assert library_ui.UNPRICED in _said(at) and library_ui.LEFT_OUT in _said(at)


def test_a_conversation_whose_answers_the_log_lacks_reads_not_known_as_on_the_tokens_page_not_a_small_sum(
        app_database):
    # Anthropic's batch requests without their results: no answer of ticket-8 is in the log, nor the second of
    # ticket-7-round-1. The Library listed ticket-8 at "≈ 520" tokens and the price of that input alone, sorted it
    # among the smallest, and a "tokens to 1,000" filter found it.
    store = open_store(app_database)
    upload = read_upload([("requests.jsonl", (ROOT / "tests" / "fixtures" / "anthropic-batch-requests.jsonl")
                           .read_bytes())])
    traces = {c.id: c.trace for c in upload.conversations}
    for name in ("ticket-8", "ticket-7-round-1"):
        library.save(store, traces[name], source="upload")
    library.save(store, load_bundled("larkfield-get-order").trace, source="upload")
    at = _library()
    shown = _figures(at)
    assert shown[traces["ticket-8"].title] == ("not known", "not known")
    assert shown[traces["ticket-7-round-1"].title] == _tokens_page_words(traces["ticket-7-round-1"])
    assert shown[traces["ticket-7-round-1"].title][0].endswith(" (1 call not known, left out)")
    assert shown[_title("larkfield-get-order")] == _tokens_page_words(load_bundled("larkfield-get-order").trace)
    assert ("“not known”, or “left out”: the log lacks a request or an answer of a call of that trace, or a failed "
            "call's output, or whether a failed call was billed, so that call's tokens or cost are not known; a figure "
            "sums the calls that are, as the Tokens page does. A highest value filtered on leaves such a trace out, "
            "and a sort by tokens or cost lists it last.") in _said(at)

    at.selectbox(key="library.sort").set_value("tokens").run()
    at.toggle(key="library.descending").set_value(False).run()
    assert list(at.dataframe(key="library.table").value["title"])[0] == _title("larkfield-get-order")
    at.number_input(key="library.tokens_high").set_value(100_000.0).run()
    assert _titles(at) == [_title("larkfield-get-order")]


def test_an_agent_sessions_estimate_is_said_to_hold_only_what_the_log_holds(ids, app_database):
    # Goose's log reports no usage and never keeps the instructions or the tool list its requests sent: its "≈ 54"
    # counts what the log holds, as the Tokens page says beside the same figure.
    store = open_store(app_database)
    goose = read_upload([("goose-session.jsonl", (ROOT / "tests" / "fixtures" / "goose-session.jsonl").read_bytes())])
    library.save(store, goose.conversations[0].trace, source="upload")
    store.close()
    said = _said(_library())
    assert ("Some of those estimates are of what the log holds only: an agent's session log never keeps some of what "
            "its requests sent (the instructions, the tool list), which was billed too and is in neither that "
            "trace's token figure nor its cost.") in said


def test_a_page_whose_estimates_count_whole_requests_claims_nothing_of_what_the_log_holds(ids):
    assert "of what the log holds" not in _said(_library())


def test_a_selection_is_let_go_when_another_session_saves_a_trace_above_it(ids, app_database):
    # The list's selection is of row positions. A trace saved through another session, listed first (latest saved
    # first), moved every row down a place under the ticks: "Compare these two" then compared larkfield-get-order
    # with hengxin-expense, neither of them selected, and "Delete" would have deleted a trace nobody chose.
    at = _select(_library(), _title("hengxin-expense"), _title("loan-calculator"))
    store = open_store(app_database)
    library.save(store, load_bundled("larkfield-get-order").trace, source="upload", author="Grace")
    store.close()
    at.button(key="library.compare").click().run()
    assert not at.exception
    assert "compare.left" not in at.session_state
    assert [w.value for w in at.warning] == [library_ui.RESELECT]
    assert not [b for b in at.button if b.key in ("library.compare", "library.open", "library.delete")]
    assert _titles(at) == sorted(_title(name) for name in (*SAVED, "larkfield-get-order"))
    assert _listed(at).key != "library.table"  # a new list: the browser keeps no box ticked over another trace
