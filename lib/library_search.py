"""Finding kept traces: filters that run in the database, sorted and paginated with a total count;
averages of the scores notes give over the set found; the set exported with its notes and scores.

Every filter is one SQL condition on `library_traces` (lib/library_schema.py); the text filter goes
through PostgreSQL's full-text index or SQLite's FTS5 table, the label and note filters through the
notes tables (lib/store.py), which keep notes under the same fingerprint as the trace's id.
No Streamlit here.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lib.annotations import Note
from lib.library_schema import WORD_BYTES, WORDS, findings, query_words, tool_calls, traces, words_text
from lib.prices import TraceCost, cost_words
from lib.spreadsheet import csv_text
from lib.store import Store, note_labels, note_scores, notes
from lib.summary import conversation_tokens_words

SORTS = ("saved", "title", "model", "rounds", "tokens", "cost", "findings", "source")
"""The columns the list can be sorted by."""
PAGE_LIMIT = 500
"""The most rows one page may hold."""
COUNT_LIMIT = 10_000
"""Matches counted at most: past it the total reads "10,000+". Counting every match of a word nearly every
trace holds would cost more than the page itself, which stops at its last row."""

Range = tuple[float | None, float | None]
"""Lowest and highest allowed, both included; None leaves that end open."""
_OPEN: Range = (None, None)


class SearchError(ValueError):
    """A query the library cannot run; the message says which field is wrong and why, for a person."""


@dataclass(frozen=True, slots=True)
class LibraryQuery:
    """What to look for among kept traces; empty fields do not filter."""

    text: str = ""
    """Words that must all appear in the trace's messages and tool results, in one or in several (case ignored)."""
    tool: str = ""
    """A tool the model called."""
    model: str = ""
    """The trace's model, exactly."""
    finding: str = ""
    """A pitfall check's code that found something (lib/checks.py)."""
    severity: str = ""
    """A finding's severity: error, warning or info (with `finding`, of that finding)."""
    label: str = ""
    """A label some note on the trace carries."""
    note: str = ""
    """Words some note on the trace contains (case ignored)."""
    source: str = ""
    """upload, capture, live or fork."""
    saved_from: str = ""
    """Saved on or after: a date (`2026-11-30`) or a time as notes write it."""
    saved_to: str = ""
    """Saved on or before: a date counts the whole day."""
    rounds: Range = _OPEN
    """Rounds, lowest and highest."""
    tokens: Range = _OPEN
    """Tokens in and out, lowest and highest. A trace some of whose rounds' tokens are not known matches a lowest
    its known ones reach, never a highest: its total is not known to be under it."""
    cost: Range = _OPEN
    """Cost in USD, lowest and highest; a trace whose models have no price has no cost and is left out, and one some
    of whose rounds' cost is not known is left out of a highest, as with tokens."""
    sort: str = "saved"
    """One of SORTS."""
    descending: bool = True
    """Largest (or latest) first."""
    offset: int = 0
    """Rows skipped: the page's start."""
    limit: int = 50
    """Rows in the page, at most PAGE_LIMIT."""


@dataclass(frozen=True, slots=True)
class LibraryRow:
    """One kept trace as the Library lists it."""

    id: str
    """The trace's id: open it with `?trace=<id>`."""
    title: str
    """The title it was saved under."""
    model: str | None
    """The model it ran on."""
    rounds: int
    """How many rounds."""
    tokens: int | None
    """Tokens in and out over all rounds, reported or estimated (lib.summary.Snowball.tokens); None when some round's
    are not known."""
    tokens_known: int
    """Tokens in and out over the rounds whose figures are known: `tokens` when none is left out."""
    tokens_left_out: int
    """Rounds whose tokens in or out the log does not give: left out of tokens_known."""
    tokens_estimated: bool
    """Whether some round summed in tokens_known reported no usage, so that it holds our offline estimate."""
    cost: float | None
    """USD at the default prices; None when no round's model has a price, or some round's cost is not known."""
    cost_known: float | None
    """USD over the rounds whose cost is known (lib.summary.rows_cost): `cost` when none is left out."""
    cost_left_out: int
    """Rounds whose cost is not known (lib.summary.cost_known): left out of cost_known."""
    cost_estimated: bool
    """Whether cost_known was worked out from our estimate of some round's tokens."""
    estimate_of_what_the_log_holds: bool
    """Whether that estimate counts what the log holds only: its format never keeps a part of the request
    (lib.summary.Snowball.estimate_of_what_the_log_holds), sent and billed too."""
    billing_left_out: int
    """Of tokens_left_out, and of cost_left_out (the same calls), the failed calls whose input is known but not
    whether the provider billed them (lib.summary.billing_left_out)."""
    unpriced: tuple[str, ...]
    """The models of the summed rounds with no default price (lib.prices.TraceCost.unpriced): left out of cost_known."""
    unpriced_inside: tuple[str, ...]
    """The model of each call to another model inside a round that has no default price (lib.prices.TraceCost.
    unpriced_inside): left out of cost_known."""
    findings: int
    """How many pitfall findings."""
    finding_codes: tuple[str, ...]
    """The checks that found something, sorted."""
    source: str
    """upload, capture, live or fork."""
    saved: str
    """When it was saved, ISO 8601 in UTC."""
    author: str
    """Who saved it."""

    @property
    def tokens_words(self) -> str:
        """The tokens as every page writes them (lib.summary.conversation_tokens_words)."""
        return conversation_tokens_words(self.tokens_known, self.rounds, self.tokens_left_out, self.tokens_estimated,
                                         self.billing_left_out)

    @property
    def cost_words(self) -> str:
        """The cost as every page writes it (lib.prices.cost_words)."""
        return cost_words(TraceCost(self.cost_known, self.unpriced, self.cost_left_out, self.cost_estimated,
                                    self.billing_left_out, self.unpriced_inside))


@dataclass(frozen=True, slots=True)
class LibraryPage:
    """One page of a search."""

    rows: tuple[LibraryRow, ...]
    """The traces on this page, in the order asked for."""
    total: int
    """How many traces match, over all pages; COUNT_LIMIT when `more`."""
    offset: int
    """Where this page starts among them."""
    limit: int
    """The page size asked for."""
    more: bool = False
    """More than `total` match: counting stopped at COUNT_LIMIT."""

    def shown_total(self) -> str:
        """The total as a person reads it: "10,000+" when counting stopped."""
        return f"{self.total:,}+" if self.more else f"{self.total:,}"


@dataclass(frozen=True, slots=True)
class RubricAverage:
    """The mean score under one rubric over the notes of a set of traces."""

    rubric: str
    """The rubric's name."""
    mean: float
    """The average mark."""
    count: int
    """How many scores it averages."""


def search(store: Store, query: LibraryQuery) -> LibraryPage:
    """The page of kept traces matching the query, with the total count; SearchError for a bad query."""
    if query.sort not in SORTS:
        raise SearchError(f"Cannot sort by {query.sort!r}; choose one of {', '.join(SORTS)}.")
    if not 1 <= query.limit <= PAGE_LIMIT or query.offset < 0:
        raise SearchError(f"A page holds 1 to {PAGE_LIMIT} rows from an offset of 0 or more.")
    with store.transaction(write=False) as conn:
        found, total, more = _page_then_count(conn, _conditions(conn, query), _order(query), query)
        codes = _codes(conn, [row.number for row in found])
    rows = tuple(LibraryRow(id=r.id, title=r.title, model=r.model, rounds=r.rounds,
                            tokens=None if r.tokens_left_out else r.tokens, tokens_known=r.tokens,
                            tokens_left_out=r.tokens_left_out, tokens_estimated=r.tokens_estimated,
                            cost=None if r.cost_left_out else r.cost, cost_known=r.cost, cost_left_out=r.cost_left_out,
                            cost_estimated=r.cost_estimated,
                            estimate_of_what_the_log_holds=r.estimate_of_what_the_log_holds,
                            billing_left_out=r.billing_left_out, unpriced=_unpriced(r.unpriced)[0],
                            unpriced_inside=_unpriced(r.unpriced)[1],
                            findings=r.findings, finding_codes=codes.get(r.number, ()), source=r.source,
                            saved=r.saved, author=r.author) for r in found)
    return LibraryPage(rows, total, query.offset, query.limit, more)


_LEFT_OUT = {"tokens": traces.c.tokens_left_out, "cost": traces.c.cost_left_out}
"""The figures that may leave out rounds whose own are not known: how many they leave out."""


def _order(query: LibraryQuery) -> tuple:
    """The sort. A total that is not known comes last either way, never as a small one: the traces leaving out no
    round first, then those leaving out one, and so on; a cost without a price after the priced ones. An index
    serves each (lib/library_schema.py `index_known_first`)."""
    column = traces.c[query.sort]
    by = (column.desc(), traces.c.number.desc()) if query.descending else (column.asc(), traces.c.number.asc())
    if query.sort == "cost":
        by = (by[0].nulls_last(), by[1])
    return (_LEFT_OUT[query.sort].asc(), *by) if query.sort in _LEFT_OUT else by


_LISTED = [traces.c[name] for name in ("number", "id", "title", "model", "rounds", "tokens", "tokens_estimated",
                                        "tokens_left_out", "cost", "cost_left_out", "cost_estimated",
                                        "estimate_of_what_the_log_holds", "billing_left_out", "unpriced", "findings",
                                        "source", "saved", "author")]
"""The columns a row shows: the header and annotation lines stay out of the sort."""


def _page_then_count(conn: Connection, conditions: list, order: tuple, query: LibraryQuery) -> tuple[list, int, bool]:
    """The page alone, so that PostgreSQL walks the sort's index and stops at the page's last row; then the count,
    capped, unless the page already shows where the matches end."""
    found = conn.execute(sa.select(*_LISTED).where(*conditions).order_by(*order).offset(query.offset)
                         .limit(query.limit)).all()
    if len(found) < query.limit and (found or query.offset == 0):
        return found, query.offset + len(found), False
    return found, *_count(conn, conditions)


def _count(conn: Connection, conditions: list) -> tuple[int, bool]:
    """(matches, whether there are more than COUNT_LIMIT): the database stops at the one past the limit."""
    matched = sa.select(traces.c.number).where(*conditions).limit(COUNT_LIMIT + 1).subquery()
    counted = conn.execute(sa.select(sa.func.count()).select_from(matched)).scalar() or 0
    return min(counted, COUNT_LIMIT), counted > COUNT_LIMIT


def score_averages(store: Store, query: LibraryQuery) -> tuple[RubricAverage, ...]:
    """Per rubric, the mean of the scores notes give on the traces the query finds (all pages), by rubric name."""
    with store.transaction(write=False) as conn:
        chosen = sa.select(traces.c.id).where(*_conditions(conn, query))
        rows = conn.execute(
            sa.select(note_scores.c.rubric, sa.func.avg(note_scores.c.value), sa.func.count())
            .join(notes, notes.c.id == note_scores.c.note_id).where(notes.c.trace.in_(chosen))
            .group_by(note_scores.c.rubric).order_by(note_scores.c.rubric)).all()
    return tuple(RubricAverage(rubric, float(mean), count) for rubric, mean, count in rows)


def _codes(conn: Connection, numbers: list[int]) -> dict[int, tuple[str, ...]]:
    found: dict[int, set[str]] = {}
    if numbers:
        query = sa.select(findings.c.trace, findings.c.code).where(findings.c.trace.in_(numbers))
        for number, code in conn.execute(query).all():
            found.setdefault(number, set()).add(code)
    return {number: tuple(sorted(codes)) for number, codes in found.items()}


# --- the filters ----------------------------------------------------------------------------------


def _conditions(conn: Connection, query: LibraryQuery) -> list:
    """One SQL condition per filter given."""
    out = []
    words = query_words(query.text)
    if words:
        # A word too long for the index is in no trace's words (and PostgreSQL would refuse it in a query).
        indexed = all(len(word.encode()) <= WORD_BYTES for word in words)
        out.append(traces.c.number.in_(_matching(conn, words)) if indexed else sa.false())
    if query.tool:
        out.append(traces.c.number.in_(sa.select(tool_calls.c.trace).where(tool_calls.c.name == query.tool)))
    if query.model:
        out.append(traces.c.model == query.model)
    if query.finding or query.severity:
        found = sa.select(findings.c.trace)
        if query.finding:
            found = found.where(findings.c.code == query.finding)
        if query.severity:
            found = found.where(findings.c.severity == query.severity)
        out.append(traces.c.number.in_(found))
    if query.label:
        labelled = sa.select(notes.c.trace).join(note_labels, note_labels.c.note_id == notes.c.id)
        out.append(traces.c.id.in_(labelled.where(note_labels.c.label == query.label)))
    if query.note.strip():
        pattern = "%" + re.sub(r"([\\%_])", r"\\\1", query.note.strip().lower()) + "%"
        out.append(traces.c.id.in_(sa.select(notes.c.trace).where(sa.func.lower(notes.c.text).like(pattern, escape="\\"))))
    if query.source:
        out.append(traces.c.source == query.source)
    if query.saved_from:
        out.append(traces.c.saved >= _moment(query.saved_from, "saved_from"))
    if query.saved_to:
        out.append(_until(query.saved_to))
    for name in ("rounds", "tokens", "cost"):
        low, high = getattr(query, name)
        if low is not None:
            # The known rounds reaching it, the whole reaches it too.
            out.append(traces.c[name] >= low)
        if high is not None:
            out.append(traces.c[name] <= high)
            if name in _LEFT_OUT:
                out.append(_LEFT_OUT[name] == 0)
    return out


def _matching(conn: Connection, words: list[str]):
    """The numbers of the traces holding every one of these words, from the text index (one row per trace)."""
    if conn.dialect.name == "postgresql":
        return sa.select(sa.literal_column("trace")).select_from(sa.table(WORDS)).where(
            sa.text("words @@ CAST(:words AS tsquery)").bindparams(words=words_text(words, " & ")))
    return sa.select(sa.literal_column("rowid")).select_from(sa.table(WORDS)).where(
        sa.text(f"{WORDS} MATCH :words").bindparams(words=" ".join(f'"{word}"' for word in words)))


def _moment(given: str, field: str) -> str:
    """A date or time as the `saved` column compares it; SearchError when it is neither."""
    given = given.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", given):
        try:
            date.fromisoformat(given)
        except ValueError:
            raise SearchError(f"{field} {given!r} is not a date.") from None
        return given
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", given):
        return given
    raise SearchError(f"{field} {given!r} is not a date such as 2026-11-30 or a time such as 2026-11-30T17:49:00Z.")


def _until(given: str):
    moment = _moment(given, "saved_to")
    if len(moment) == 10:
        # A date counts the whole day: everything before the next one.
        return traces.c.saved < (date.fromisoformat(moment) + timedelta(days=1)).isoformat()
    return traces.c.saved <= moment


# --- export -----------------------------------------------------------------------------------------


def export_jsonl(store: Store, query: LibraryQuery) -> Iterator[str]:
    """Every trace the query finds (all pages, in its order), one JSON line each, with its link, notes and scores."""
    for row, kept in _with_notes(store, query):
        yield json.dumps({**asdict(row), "tokens_words": row.tokens_words, "cost_words": row.cost_words,
                          "finding_codes": list(row.finding_codes), "link": f"?trace={row.id}",
                          "notes": [_note_fields(note) for note in kept]}, ensure_ascii=False)


EXPORT_COLUMNS = ("id", "title", "model", "rounds", "tokens", "tokens estimated", "cost", "findings", "source", "saved",
                  "link", "note target", "labels", "note", "note author", "note claimed author", "note created")
"""The CSV's columns before one column per rubric."""


def _estimated_cell(row: LibraryRow) -> str:
    """The CSV's "tokens estimated": yes, saying so when the estimate counts what the log holds only."""
    if not row.tokens_estimated:
        return ""
    return "yes, of what the log holds only" if row.estimate_of_what_the_log_holds else "yes"


def export_csv(store: Store, query: LibraryQuery) -> str:
    """The traces the query finds as CSV: one row per note (a trace without notes gets one row), a column per
    rubric; a cell a spreadsheet would run as a formula gets a leading '."""
    listed = list(_with_notes(store, query))
    rubrics = sorted({score.rubric for _, kept in listed for note in kept for score in note.scores})
    out = []
    for row, kept in listed:
        # A figure not known whole reads in words, as on the page, never as the sum of the rest.
        trace_cells = [row.id, row.title, row.model or "", row.rounds,
                       row.tokens_words if row.tokens is None else row.tokens, _estimated_cell(row),
                       row.cost_words if row.cost is None else row.cost,
                       row.findings, row.source, row.saved, f"?trace={row.id}"]
        for note in kept or [None]:
            if note is None:
                out.append(trace_cells + [""] * (6 + len(rubrics)))
                continue
            marks = {score.rubric: score.value for score in note.scores}
            out.append(trace_cells + [note.target, "; ".join(note.labels), note.text, note.author, note.claimed_author,
                                      note.created] + [marks.get(name, "") for name in rubrics])
    return csv_text([*EXPORT_COLUMNS, *rubrics], out)


def _with_notes(store: Store, query: LibraryQuery) -> Iterator[tuple[LibraryRow, list[Note]]]:
    offset = 0
    while True:
        page = search(store, LibraryQuery(**{**asdict(query), "offset": offset, "limit": PAGE_LIMIT}))
        by_trace: dict[str, list[Note]] = {}
        for note in store.notes_on([row.id for row in page.rows]):
            by_trace.setdefault(note.trace, []).append(note)
        for row in page.rows:
            yield row, by_trace.get(row.id, [])
        offset += len(page.rows)
        # Not the total: it stops counting at COUNT_LIMIT, and the export does not.
        if len(page.rows) < PAGE_LIMIT:
            return


def _note_fields(note: Note) -> dict:
    return {"id": note.id, "target": note.target, "labels": list(note.labels), "text": note.text,
            "author": note.author, "claimed_author": note.claimed_author, "created": note.created,
            "scores": {score.rubric: score.value for score in note.scores}}


def _unpriced(stored: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The `unpriced` column as TraceCost holds it: the models with no price, and, stored as {"inside": model}, each
    call to another model inside a round that has none (lib.library._known_figures)."""
    found = json.loads(stored)
    return (tuple(m for m in found if isinstance(m, str)),
            tuple(str(m.get("inside")) for m in found if isinstance(m, dict)))
