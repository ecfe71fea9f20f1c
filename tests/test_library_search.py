"""Searching the trace library: each filter, sorting, pages and counts, scores and export, on a real
SQLite file and a real PostgreSQL server, over the bundled traces saved as a team would save them."""

from __future__ import annotations

import csv
import io
import json
import uuid
from dataclasses import replace

import pytest

from lib import catalog, library, library_search
from lib.annotations import Note, NoteError, Rubric, Score, check_score
from lib.library import LibraryQuery, ToKeep
from tests.conftest import load_bundled
from tests.databases import database_url, postgres_url, sqlite_url, store  # noqa: F401 (fixtures)

HENGXIN = "Hengxin expense reimbursement"
LARKFIELD = "Larkfield ticket T-80008: get_order"
LOAN = "Loan payment calculator"
ORDERS = "Where are my two orders? (parallel tool calls)"
PARALLEL = "Pitfall: a parallel call answered in part"
MODEL_FILLED = "Pitfall: a model-filled employee id"

SAVED = {"hengxin-expense": ("upload", "2026-11-01T09:00:00Z"), "larkfield-get-order": ("capture", "2026-11-10T12:00:00Z"),
         "order-status-anthropic": ("live", "2026-11-20T08:30:00Z"), "loan-calculator": ("fork", "2026-11-30T23:59:59Z")}
"""How the four main traces came in, and when; the pitfall gallery is uploaded on 2026-11-25."""


@pytest.fixture
def kept(store):
    """The bundled traces in the library: their ids by title."""
    ids = {}
    for bundled in catalog.bundled_traces():
        source, saved = SAVED.get(bundled.name, ("upload", "2026-11-25T10:00:00Z"))
        trace = load_bundled(bundled.name).trace
        ids[trace.title] = library.save_many(store, [ToKeep(trace, source, author="ada@example.org")], saved=saved)[0]
    return ids


def titles(store, **filters) -> set[str]:
    page = library.search(store, LibraryQuery(**filters))
    assert page.total == len(page.rows)
    return {row.title for row in page.rows}


def _note(trace_id: str, text: str = "", labels: tuple[str, ...] = (), scores: tuple[Score, ...] = ()) -> Note:
    return Note(id=str(uuid.uuid4()), trace=trace_id, target="trace", labels=labels, text=text, author="ada@example.org",
                created="2026-11-30T10:00:00Z", scores=scores)


def test_text_is_found_in_tool_results_user_messages_and_final_answers(store, kept):
    assert titles(store, text="81265") == {LARKFIELD}  # only in get_order's result
    assert titles(store, text="garden shed") == {LARKFIELD}  # the final answer
    assert titles(store, text="HENGXIN") >= {HENGXIN}  # case does not matter
    assert titles(store, text="garden Hengxin") == set()  # every word must be there
    assert titles(store, text="expects_a_word_no_trace_has") == set()


def test_the_words_of_a_text_search_may_be_in_different_messages_of_one_trace(store, kept):
    # The library lists conversations: 81265 is only in get_order's result, "Monday" only in the person's message
    # and the final answer.
    assert titles(store, text="81265 Monday") == {LARKFIELD}
    assert titles(store, text="81265 Hengxin") == set()  # each word is in some trace, never both in one


def test_a_text_search_counts_up_to_the_count_limit_like_every_other_filter(store, kept, monkeypatch):
    # "user" is in every trace (a role); a limit of two stands for 10,000 against 100,000 matches.
    monkeypatch.setattr(library_search, "COUNT_LIMIT", 2)
    first = library.search(store, LibraryQuery(text="user", sort="title", descending=False, limit=1))
    assert (first.total, first.more, first.shown_total()) == (2, True, "2+")
    assert first.rows[0].title == HENGXIN
    every = library.search(store, LibraryQuery(text="user", limit=100))
    assert (every.total, every.more, len(every.rows)) == (10, False, 10)  # the page shows where the matches end


def test_search_operators_in_the_text_are_words_not_syntax(store, kept):
    for text in ['"garden', "garden* (shed", "garden & !shed | (", "garden:*", 'shed")^']:
        assert titles(store, text=text) == {LARKFIELD}, text
    assert titles(store, text="garden OR xyzzy") == set()  # OR is one more word that must be there


def test_tool_model_and_source_filters(store, kept):
    assert titles(store, tool="get_order") == {LARKFIELD, PARALLEL}
    assert titles(store, model="gpt-6-luna") == {LARKFIELD}
    assert titles(store, source="capture") == {LARKFIELD}
    assert titles(store, source="fork", tool="calculate_loan_payment") == {LOAN}
    assert titles(store, source="fork", tool="get_order") == set()


def test_finding_code_and_severity_filters(store, kept):
    assert titles(store, finding="model-filled-identity") == {HENGXIN, MODEL_FILLED}
    assert titles(store, finding="missing-tool-result", severity="error") == {PARALLEL}
    assert titles(store, finding="missing-tool-result", severity="info") == set()
    errors = titles(store, severity="error")
    assert PARALLEL in errors and LOAN not in errors


def test_label_and_note_filters_read_the_notes_kept_under_the_trace_id(store, kept):
    store.add(_note(kept[LOAN], "Rounds the payment, check the cents", labels=("costly",)))
    store.add(_note(kept[HENGXIN], "100% of the claim; user_id came from the model", labels=("hallucinated",)))
    assert titles(store, label="costly") == {LOAN}
    assert titles(store, note="CHECK THE CENTS") == {LOAN}
    assert titles(store, note="100%") == {HENGXIN}  # % and _ are matched as themselves
    assert titles(store, note="user_id") == {HENGXIN}
    assert titles(store, note="10%0") == set()


def test_date_range_counts_whole_days_and_exact_times(store, kept):
    assert titles(store, saved_to="2026-11-10") == {HENGXIN, LARKFIELD}
    assert titles(store, saved_from="2026-11-30") == {LOAN}
    assert titles(store, saved_from="2026-11-10T12:00:01Z", saved_to="2026-11-24") == {ORDERS}
    with pytest.raises(library.SearchError, match="saved_to 'last week' is not a date such as 2026-11-30"):
        library.search(store, LibraryQuery(saved_to="last week"))


def test_rounds_tokens_and_cost_ranges(store, kept):
    assert titles(store, rounds=(4, None)) == {HENGXIN}
    assert titles(store, rounds=(None, 2), source="fork") == {LOAN}
    page = library.search(store, LibraryQuery(tokens=(1000, 2000)))
    assert page.rows and all(1000 <= row.tokens <= 2000 for row in page.rows)
    # Hengxin's model has no price: a cost range leaves it out.
    assert HENGXIN not in titles(store, cost=(0, 1))
    assert titles(store, cost=(0.001, None)) == {row.title for row in library.search(store, LibraryQuery(limit=50)).rows
                                                 if row.cost is not None and row.cost >= 0.001}


def test_sorting_and_pages_with_the_total_over_all_pages(store, kept):
    everything = library.search(store, LibraryQuery(sort="tokens", descending=True, limit=100))
    assert everything.total == len(kept) == 10
    # The parallel-call pitfall's failed call wrote no output we know of: its total is not known, and comes last.
    known = [row.tokens for row in everything.rows[:-1]]
    assert known == sorted(known, reverse=True) and None not in known
    assert (everything.rows[-1].title, everything.rows[-1].tokens) == (PARALLEL, None)
    second = library.search(store, LibraryQuery(sort="tokens", descending=True, offset=3, limit=3))
    assert second.total == 10 and second.rows == everything.rows[3:6]
    assert library.search(store, LibraryQuery(sort="title", descending=False, limit=1)).rows[0].title == HENGXIN
    latest = library.search(store, LibraryQuery(limit=1)).rows[0]
    assert (latest.title, latest.source, latest.saved, latest.author) == (LOAN, "fork", "2026-11-30T23:59:59Z", "ada@example.org")
    with pytest.raises(library.SearchError, match="Cannot sort by 'id; DROP TABLE'"):
        library.search(store, LibraryQuery(sort="id; DROP TABLE"))


def test_a_row_carries_what_the_list_shows(store, kept):
    row = library.search(store, LibraryQuery(tool="get_order", finding="missing-tool-result")).rows[0]
    assert (row.id, row.title, row.model, row.rounds, row.findings) == (kept[PARALLEL], PARALLEL, "gpt-4o-mini", 3, 2)
    assert row.finding_codes == ("missing-tool-result", "provider-error")
    # The failed call's output is not known, nor whether it was billed: it is left out of the tokens and of the cost
    # alike, in the words the Tokens page says it in.
    failed = "(1 failed call left out: whether it was billed is not in the log)"
    assert row.tokens is None and row.tokens_known > 0 and row.cost is None and row.cost_known > 0
    assert row.tokens_words.endswith(failed) and row.cost_left_out == row.billing_left_out == 1
    assert row.cost_words.startswith("≈ US$") and row.cost_words.endswith(failed)


def test_scores_average_per_rubric_over_the_filtered_set(store, kept):
    store.set_rubrics([Rubric("grounded", 0, 3), Rubric("resolved", pass_fail=True)])
    assert store.rubrics() == (Rubric("grounded", 0, 3), Rubric("resolved", 0, 1, True))
    store.add(_note(kept[LOAN], "exact", scores=(Score("grounded", 3), Score("resolved", 1))))
    store.add(_note(kept[LARKFIELD], "made up the date", scores=(Score("grounded", 1),)))
    store.add(_note(kept[HENGXIN], "", labels=("costly",), scores=(Score("grounded", 2), Score("resolved", 0))))
    averages = {a.rubric: (a.mean, a.count) for a in library.score_averages(store, LibraryQuery())}
    assert averages == {"grounded": (2.0, 3), "resolved": (0.5, 2)}
    forked = {a.rubric: (a.mean, a.count) for a in library.score_averages(store, LibraryQuery(source="capture"))}
    assert forked == {"grounded": (1.0, 1)}
    assert store.notes(kept[LOAN])[0].scores == (Score("grounded", 3), Score("resolved", 1))


def test_a_rubric_named_as_a_formula_heads_its_csv_column_as_text(store, kept):
    # A rubric's name is typed by an editor and becomes a column's header: the header row was written as it was, so
    # a rubric named =HYPERLINK(...) ran as a formula in the spreadsheet of whoever opened the export.
    rubric = '=HYPERLINK("http://x.example")'
    store.set_rubrics([Rubric(rubric, 0, 3)])
    store.add(_note(kept[LOAN], "Fine.", scores=(Score(rubric, 2),)))
    header = next(csv.reader(io.StringIO(library.export_csv(store, LibraryQuery(source="fork")))))
    assert header[-1] == "'" + rubric
    assert not any(cell.lstrip()[:1] in "=+-@" for cell in header)


def test_a_score_outside_its_rubric_is_refused_with_the_reason():
    rubrics = (Rubric("grounded", 0, 3), Rubric("resolved", pass_fail=True))
    assert check_score(Score("grounded", 2.5), rubrics) == Score("grounded", 2.5)
    with pytest.raises(NoteError, match="'grounded' is scored from 0 to 3, not 4"):
        check_score(Score("grounded", 4), rubrics)
    with pytest.raises(NoteError, match="'resolved' is pass/fail: its score is 1 \\(pass\\) or 0 \\(fail\\)"):
        check_score(Score("resolved", 0.5), rubrics)
    with pytest.raises(NoteError, match="There is no rubric 'tone'"):
        check_score(Score("tone", 1), rubrics)


def test_export_gives_the_filtered_set_with_notes_and_scores_as_jsonl_and_safe_csv(store, kept):
    store.set_rubrics([Rubric("grounded", 0, 3)])
    store.add(_note(kept[LOAN], "=HYPERLINK(\"http://evil.example\")", labels=("costly",), scores=(Score("grounded", 3),)))
    query = LibraryQuery(source="fork")
    lines = [json.loads(line) for line in library.export_jsonl(store, query)]
    assert [line["title"] for line in lines] == [LOAN]
    assert lines[0]["link"] == f"?trace={kept[LOAN]}"
    assert lines[0]["notes"][0]["scores"] == {"grounded": 3.0}
    assert lines[0]["notes"][0]["labels"] == ["costly"]
    rows = list(csv.DictReader(io.StringIO(library.export_csv(store, query))))
    assert len(rows) == 1
    assert rows[0]["note"] == "'=HYPERLINK(\"http://evil.example\")"
    assert (rows[0]["title"], rows[0]["grounded"], rows[0]["labels"]) == (LOAN, "3.0", "costly")
    everything = list(csv.DictReader(io.StringIO(library.export_csv(store, LibraryQuery()))))
    assert len(everything) == 10  # a trace without notes still has its row
    assert (rows[0]["note author"], rows[0]["note claimed author"]) == ("ada@example.org", "")
    store.import_notes([replace(_note(kept[LOAN], "Approved."), id="claimed", author="Bo", claimed_author="The Dean")])
    claimed = [row for row in csv.DictReader(io.StringIO(library.export_csv(store, query))) if row["note"] == "Approved."]
    assert [(row["note author"], row["note claimed author"]) for row in claimed] == [("Bo", "The Dean")]
    noted = next(json.loads(line) for line in library.export_jsonl(store, query))["notes"]
    assert {(note["author"], note["claimed_author"]) for note in noted} == {("ada@example.org", ""), ("Bo", "The Dean")}
    # Larkfield's log reports usage on every round; Hengxin's on one of four, so its figure holds our estimate.
    marked = {row["title"]: row["tokens estimated"] for row in everything}
    assert (marked[LARKFIELD], marked[HENGXIN]) == ("", "yes")
    assert {line["title"]: line["tokens_estimated"] for line in map(json.loads, library.export_jsonl(
        store, LibraryQuery()))}.items() >= {LARKFIELD: False, HENGXIN: True}.items()


def test_counting_stops_past_the_count_limit_and_says_so_while_the_export_gives_every_match(store, kept, monkeypatch):
    # Ten kept traces against a limit of four stand for 100,000 against 10,000: the page is still exact.
    monkeypatch.setattr(library_search, "COUNT_LIMIT", 4)
    everything = library.search(store, LibraryQuery(sort="title", descending=False, limit=100))
    page = library.search(store, LibraryQuery(sort="title", descending=False, offset=2, limit=3))
    assert (page.total, page.more, page.shown_total()) == (4, True, "4+")
    assert page.rows == everything.rows[2:5]
    last = library.search(store, LibraryQuery(sort="title", descending=False, offset=8, limit=3))
    assert (last.total, last.more, [row.title for row in last.rows]) == (10, False, [r.title for r in everything.rows[8:]])
    assert len(list(library.export_jsonl(store, LibraryQuery()))) == 10
    few = library.search(store, LibraryQuery(source="upload", limit=1))
    assert (few.total, few.more) == (4, True)
    assert library.search(store, LibraryQuery(source="capture", limit=1)).shown_total() == "1"


def _batch_requests() -> dict[str, object]:
    """Anthropic's batch requests without their results, each conversation's trace by id: ticket-8's one call has no
    answer in the log, nor has the second call of ticket-7-round-1."""
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([("requests.jsonl", (FIXTURES / "anthropic-batch-requests.jsonl").read_bytes())])
    return {c.id: c.trace for c in upload.conversations}


def _tokens_page_words(trace) -> tuple[str, str]:
    """The trace's tokens in and out and its cost as lib.summary writes them, under the automatic tokenizer."""
    from lib.encodings import encoding_name_for_model
    from lib.prices import DEFAULT_PRICES, cost_words
    from lib.summary import rows_cost, snowball, summarize
    from lib.tokens import counter_for
    rows = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    return snowball(rows).tokens_words, cost_words(rows_cost(rows, DEFAULT_PRICES))


def test_a_conversation_whose_answer_the_log_lacks_is_no_small_total_to_a_filter_or_a_sort(store):
    # The library stored ticket-8's tokens as its input alone (≈ 520) and priced that input alone: "tokens under
    # 1,000" and "cost under a cent" found it, and an ascending sort put it among the smallest.
    traces = _batch_requests()
    ids = {name: library.save(store, traces[name], source="upload") for name in ("ticket-8", "ticket-7-round-1")}
    larkfield = library.save(store, load_bundled("larkfield-get-order").trace, source="upload")
    rows = {row.id: row for row in library.search(store, LibraryQuery()).rows}
    ticket_8, ticket_7 = rows[ids["ticket-8"]], rows[ids["ticket-7-round-1"]]
    assert (ticket_8.tokens, ticket_8.cost, ticket_8.tokens_left_out, ticket_8.cost_left_out) == (None, None, 1, 1)
    assert (ticket_8.tokens_words, ticket_8.cost_words) == ("not known", "not known")
    assert (ticket_7.tokens_words, ticket_7.cost_words) == _tokens_page_words(traces["ticket-7-round-1"])
    assert ticket_7.tokens_words.endswith("(1 call not known, left out)") and ticket_7.tokens is None
    assert (rows[larkfield].tokens_words, rows[larkfield].cost_words) == _tokens_page_words(
        load_bundled("larkfield-get-order").trace)

    def found(**filters) -> list[str]:
        return [row.id for row in library.search(store, LibraryQuery(**filters)).rows]

    assert found(tokens=(None, 100_000)) == [larkfield]
    assert found(cost=(None, 1.0)) == [larkfield]
    # What the known calls reach, the whole reaches too.
    assert set(found(tokens=(ticket_7.tokens_known, None))) == {ids["ticket-7-round-1"], larkfield}
    for descending in (True, False):
        for sort in ("tokens", "cost"):
            assert found(sort=sort, descending=descending)[0] == larkfield, (sort, descending)
