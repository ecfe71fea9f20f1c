"""The Library page's parts: the filters as one query, the page of saved traces with its counts, rubric averages
over everything found, the exports, and opening one trace in the explorer or two in Compare.

lib/library_search.py runs every filter in the database; this module lays out. Titles, models, tools,
authors and notes are untrusted: they reach the page only in dataframes and lib/ui/plain.
"""

from __future__ import annotations

from dataclasses import astuple, replace
from datetime import date

import pandas as pd
import streamlit as st

from lib import access, library
from lib.checks import CHECKS, SEVERITIES
from lib.library_search import (SORTS, LibraryPage, LibraryQuery, LibraryRow, Range, SearchError, export_csv,
                                export_jsonl, score_averages, search)
from lib.store import StoreUnavailable
from lib.text import plural
from lib.ui import access as ui_access, annotate, compare, kept, picker, plain, predict
from lib.ui.database import store

TABLE = "library.table"
"""Session key of the list's row selection (table_key: with a count after it once a selection was let go)."""
PAGE = "library.page_number"
"""Session key: the 1-based page shown."""
ASKED = "library.asked"
"""Session key: the filters of the last run, so that a change of filter goes back to page 1."""
SORT = "library.sort"
"""Session key: the column the list is sorted by."""
LISTED = "library.listed"
"""Session key: the ids of the traces the list showed, in order, the last time it was drawn: its selection is of those
rows, by position."""
RESELECT = ("The list changed since you selected (a trace was saved or deleted, here or by someone else on this server, "
            "or the filters changed): nothing was opened, compared or deleted. Select again.")
"""Said where a selection was let go because the rows under it are no longer the traces selected."""
RESETS = "library.table_resets"
"""Session key: how many times the list's selection was let go (_let_go); the list's key counts them."""
DELETED = "library.deleted"
"""Session key: how many traces the last delete removed, said once on the next run."""
SIZES = (25, 50, 100)
"""Page sizes offered."""
ESTIMATED = ("≈ estimated: some or all of that trace's rounds report no usage; its token figure, and the cost worked "
             "out from it, hold our offline estimate for them.")
"""Said under a page of traces when a figure on it is marked."""
OF_WHAT_THE_LOG_HOLDS = ("Some of those estimates are of what the log holds only: an agent's session log never keeps "
                         "some of what its requests sent (the instructions, the tool list), which was billed too and "
                         "is in neither that trace's token figure nor its cost.")
"""Said after ESTIMATED when a marked figure on the page counts what its log holds only (an agent's session log)."""
LEFT_OUT = ("\u201cnot known\u201d, or \u201cleft out\u201d: the log lacks a request or an answer of a call of that "
            "trace, or a failed call's output, or whether a failed call was billed, so that call's tokens or cost are "
            "not known; a figure sums the calls that are, as the Tokens page does. A highest value filtered on leaves "
            "such a trace out, and a sort by tokens or cost lists it last.")
"""Said under a page of traces when a figure on it leaves out calls that are not known."""
UNPRICED = ("A cost of \u201cno price\u201d: the price table has no price for that trace's models, so no cost is "
            "worked out. The Tokens page lists the prices it knows.")
"""Said under a page of traces when a cost on it is missing."""
HELD_BACK = ("Predict mode is on: a trace with a round still to predict is listed without its rounds, tokens, cost and "
             "findings, and by its neutral name where its title would tell what the model does; they would give away "
             "what it does. Predict it in the round explorer, or turn predict mode off there.")
"""Said above the list of traces in predict mode."""
PREDICT_FILTERS = ("Predict mode is on, so the list cannot be filtered or sorted by rounds, tokens, cost or findings, "
                   "nor downloaded: a trace's length would show through them, and it tells the round its model "
                   "answers in. Turn predict mode off in the round explorer to use them.")
"""Said in place of the filters and sorts predict mode leaves out."""
HIDDEN_WHILE_PREDICTING = ("rounds", "tokens", "cost", "findings")
"""The figures the list holds back in predict mode (HELD_BACK), which it therefore neither filters nor sorts by."""
RANGES = (("rounds", "Rounds", 1.0), ("tokens", "Tokens", 1000.0), ("cost", "Cost (USD)", 0.01))
"""The range filters: query field, our label, and the step of their number boxes."""


def query() -> LibraryQuery:
    """The filters, sort and page size chosen, as one query on the page shown; in predict mode, none on a figure the
    list holds back (HIDDEN_WHILE_PREDICTING)."""
    # A filter or a sort by a held-back figure would find or order a trace still to predict by it all the same. A sort
    # chosen before predict mode came on and no longer offered goes back to the first one (Streamlit resets it).
    predicting = predict.predicting()
    with st.expander("Filters", expanded=True):
        text, tool, model = st.columns(3)
        found = dict(text=text.text_input("Words in messages and tool results", key="library.text"),
                     tool=tool.text_input("Tool called", key="library.tool"),
                     model=model.text_input("Model (exactly)", key="library.model"))
        if predicting:
            label, note = st.columns(2)
        else:
            finding, severity, label, note = st.columns(4)
            found.update(finding=finding.selectbox("Finding", ["", *sorted(CHECKS)], key="library.finding"),
                         severity=severity.selectbox("Severity", ["", *SEVERITIES], key="library.severity"))
        found.update(label=label.selectbox("Label on a note", ["", *annotate.snapshot().labels], key="library.label"),
                     note=note.text_input("Words in a note", key="library.note"))
        source, since, until = st.columns(3)
        found.update(source=source.selectbox("Source", ["", *library.SOURCES], key="library.source"),
                     saved_from=_day(since.date_input("Saved from", value=None, key="library.from")),
                     saved_to=_day(until.date_input("Saved until", value=None, key="library.to")))
        if predicting:
            st.caption(PREDICT_FILTERS)
        else:
            for (field, words, step), column in zip(RANGES, st.columns(len(RANGES))):
                found[field] = _range(column, field, words, step)
    sorts = [s for s in SORTS if not (predicting and s in HIDDEN_WHILE_PREDICTING)]
    sort, order, size = st.columns(3)
    found.update(sort=sort.selectbox("Sort by", sorts, key=SORT),
                 descending=order.toggle("Largest or latest first", value=True, key="library.descending"))
    limit = size.selectbox("Per page", SIZES, index=1, key="library.size")
    return _on_page(LibraryQuery(**found), limit)


def _day(chosen: date | None) -> str:
    return chosen.isoformat() if chosen else ""


def _range(column, field: str, words: str, step: float) -> Range:
    low, high = column.columns(2)
    return (low.number_input(f"{words}, from", min_value=0.0, step=step, value=None, key=f"library.{field}_low"),
            high.number_input("to", min_value=0.0, step=step, value=None, key=f"library.{field}_high"))


def _on_page(asked: LibraryQuery, limit: int) -> LibraryQuery:
    """The query on the page asked for; a changed filter, sort or size goes back to the first page."""
    signature = (astuple(asked), limit)
    if st.session_state.get(ASKED) != signature:
        st.session_state[ASKED], st.session_state[PAGE] = signature, 1
    return replace(asked, offset=(st.session_state[PAGE] - 1) * limit, limit=limit)


def found(asked: LibraryQuery) -> LibraryPage | None:
    """The page of traces the query finds (the last page when the one asked for is past the end); None, said why,
    when the query or the database cannot be used."""
    try:
        page = search(store(), asked)
        if not page.rows and page.total:
            last = (page.total - 1) // asked.limit
            st.session_state[PAGE] = last + 1
            page = search(store(), replace(asked, offset=last * asked.limit))
        return page
    except SearchError as exc:
        st.error("The search cannot run as asked:")
        plain.text(str(exc))
    except StoreUnavailable as exc:
        st.error("The library's database does not answer; nothing stored is lost.")
        plain.text(str(exc))
    return None


def listing(page: LibraryPage) -> list[LibraryRow]:
    """The counts, the page's traces as a table, and the pager; the rows selected in the table."""
    if deleted := st.session_state.pop(DELETED, 0):
        st.success(f"Deleted {plural(deleted, 'trace')} from the library, with the content no other trace uses.")
    if not page.total:
        st.info("No saved trace matches. An editor saves one with Save to library, beside an upload, a capture on "
                "the Watch page or a finished live run.")
        return []
    matched = f"{page.shown_total()} saved traces" if page.more else plural(page.total, 'saved trace')
    verb = "matches" if page.total == 1 and not page.more else "match"
    st.caption(f"{matched} {verb}; showing {page.offset + 1:,} to {page.offset + len(page.rows):,}. "
               "Select one row to open it, two to compare them.")
    if page.more:
        st.caption(f"Counting stops at {page.total:,}: the pages go that far; narrow the filters to see the rest, "
                   "or export the set, which holds every match.")
    # The figures in the words every page writes them in: a total some rounds are missing from is no number to sort
    # by (Sort by sorts them in the database, the unknown last).
    table = pd.DataFrame([{"title": r.title, "model": r.model or "", "rounds": r.rounds,
                           "tokens (in + out)": r.tokens_words, "cost": r.cost_words, "findings": r.findings,
                           "checks": ", ".join(r.finding_codes), "source": r.source, "saved": r.saved,
                           "saved by": r.author} for r in page.rows])
    if predict.predicting():
        st.caption(HELD_BACK)
        for number, row in enumerate(page.rows):
            title, open_ = _predicting_words(row)
            table.loc[number, "title"] = title
            if not open_:
                table.loc[number, ["rounds", "findings"]] = None
                table.loc[number, ["tokens (in + out)", "cost", "checks"]] = ""
    columns = {"rounds": st.column_config.NumberColumn(format="localized")}
    # The table's selection is of row positions: once another trace sits at a selected position (one saved or deleted
    # through another session moves every row below it), a button would open, compare or delete a trace nobody chose.
    listed = [r.id for r in page.rows]
    moved = st.session_state.get(LISTED, listed) != listed and bool(_selected_rows())
    if moved:
        _let_go()
    st.session_state[LISTED] = listed
    shown = st.dataframe(plain.cells(table), key=table_key(), on_select="rerun", selection_mode="multi-row", hide_index=True,
                         width="stretch", column_config=columns)
    if any(r.tokens_estimated or r.cost_estimated for r in page.rows):
        partial = any(r.estimate_of_what_the_log_holds for r in page.rows)
        st.caption(ESTIMATED + (f" {OF_WHAT_THE_LOG_HOLDS}" if partial else ""))
    if any(r.tokens_left_out or r.cost_left_out for r in page.rows):
        st.caption(LEFT_OUT)
    if any(r.cost_known is None and (r.unpriced or not r.cost_left_out) for r in page.rows):  # "no price": cost_figure
        st.caption(UNPRICED)
    if moved:
        st.warning(RESELECT)
    pages = (page.total - 1) // page.limit + 1
    if pages > 1:
        st.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, key=PAGE)
    return [page.rows[i] for i in shown.selection.rows if i < len(page.rows)]


def table_key() -> str:
    """The list's key: TABLE until a selection is let go (_let_go), then a new one each time."""
    resets = st.session_state.get(RESETS, 0)
    return TABLE if not resets else f"{TABLE}.{resets}"


def _let_go() -> None:
    """Let go of the list's selection, on screen too: the browser keeps the boxes ticked at their positions, over
    whichever traces sit there now, and sends them again with the next click, unless the list is a new widget."""
    st.session_state.pop(table_key(), None)
    st.session_state[RESETS] = st.session_state.get(RESETS, 0) + 1


def _selected_rows() -> list[int]:
    """The rows selected in the list as its last run left them."""
    state = st.session_state.get(table_key())
    try:
        return list(state["selection"]["rows"])
    except (KeyError, TypeError):
        return []


def _predicting_words(row: LibraryRow) -> tuple[str, bool]:
    """A saved trace's title as predict mode shows it (predict.title), and whether every round of it is predicted
    (predict.known_rounds); a trace that cannot be read now is held back as one still to predict."""
    try:
        loaded = kept.load(row.id)
    except StoreUnavailable:
        loaded = None
    if loaded is None:
        return "(not read: its title is held back in predict mode)", False
    return predict.title(loaded, True), predict.known_rounds(loaded, True) is not None


def actions(chosen: list[LibraryRow]) -> None:
    """Open one chosen trace in the explorer or two in Compare; an editor may delete the chosen ones."""
    if len(chosen) == 1 and st.button("Open in the round explorer", key="library.open", type="primary"):
        picker.open_saved(chosen[0].id)
    if len(chosen) == 2 and st.button("Compare these two", key="library.compare", type="primary"):
        compare.open_saved(chosen[0].id, chosen[1].id)
    if len(chosen) > 2:
        st.caption("Select one trace to open it, or two to compare them.")
    if chosen and ui_access.visitor().edits:
        # In a room where every learner who signs in edits (ROUNDTRIP_EDITORS=*), a learner must not delete the
        # trace whose link the teacher handed out: each deletes what they saved.
        theirs = [r for r in chosen if ui_access.may_change(r.author)]
        if len(theirs) < len(chosen):
            st.caption(access.NOT_YOURS)
        if not theirs:
            return
        with st.popover(f"Delete {plural(len(theirs), 'trace')}…"):
            st.caption("Its rounds go, and any content no other saved trace uses. Notes stay: they belong to the "
                       "content, and come back if it is saved again.")
            st.button("Delete for good", key="library.delete", on_click=_delete,
                      args=([(r.id, r.author) for r in theirs],))


def _delete(chosen: list[tuple[str, str]]) -> None:
    if not ui_access.visitor().edits:  # the button is not drawn for a viewer; a forged click changes nothing
        return
    removed = 0
    for trace_id, author in chosen:
        if not ui_access.may_change(author):  # not offered to this visitor
            continue
        removed += library.delete(store(), trace_id)
        kept.forget(trace_id)
    st.session_state[DELETED] = removed
    _let_go()  # the rows selected are gone; others have moved up under their ticks


def averages(asked: LibraryQuery) -> None:
    """Each rubric's mean score over the notes on every trace found, all pages together."""
    try:
        found = score_averages(store(), asked)
    except (SearchError, StoreUnavailable):
        return  # said already by found()
    if found:
        st.subheader("Scores over these traces")
        st.dataframe(pd.DataFrame([{"rubric": a.rubric, "average": a.mean, "scores": a.count} for a in found]),
                     hide_index=True, key="library.averages",
                     column_config={"average": st.column_config.NumberColumn(format="%.2f")})


def exports(asked: LibraryQuery) -> None:
    """Download every trace found, all pages, with its notes and scores, as JSONL or CSV; not in predict mode, where
    each trace's rounds in the files would give away its length (PREDICT_FILTERS says so)."""
    if predict.predicting():
        return
    every = replace(asked, offset=0)
    left, right = st.columns(2)
    left.download_button("Download these traces with their notes (.jsonl)", key="library.jsonl", on_click="ignore",
                         data=lambda: "".join(line + "\n" for line in export_jsonl(store(), every)).encode(),
                         file_name="library.jsonl", mime="application/jsonl")
    right.download_button("Download them as CSV, one row per note", key="library.csv", on_click="ignore",
                          data=lambda: export_csv(store(), every).encode(), file_name="library.csv", mime="text/csv")
