"""The trace library: conversations kept in the store, each with a stable id and a link `?trace=<id>`.

`save` keeps a trace content-addressed (lib/library_schema.py): each distinct message, system
prompt and tool list once, rounds referring to them, the raw bodies whole, so `load` gives back
the trace the file reader gives. A trace's id is its fingerprint (lib/fingerprint.py): saving
the same content again gives the same id and stores nothing, and the notes written on the trace
anywhere are the notes of the kept one. Figures the library filters on (rounds, tokens, cost,
tools called, pitfall findings) are worked out once, at save time. Searching, score averages and
export are in lib/library_search.py; their names are this module's too. No Streamlit here.
"""

from __future__ import annotations

import json
from collections import Counter
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, Iterator, Literal, Sequence

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from lib.annotations import AUTHOR_LIMIT, line_id, now
from lib.catalog import LoadedTrace, from_library
from lib.checks import run_checks
from lib.encodings import encoding_name_for_model
from lib.fingerprint import fingerprint
from lib.intern import content_key, loads_exact
from lib.lessons import lesson_line
from lib.library_search import (COUNT_LIMIT, PAGE_LIMIT, LibraryPage, LibraryQuery, LibraryRow, RubricAverage, SearchError,  # noqa: F401
                                export_csv, export_jsonl, score_averages, search)
from lib.library_schema import (BILLING, CHUNK, ESTIMATE_OF_WHAT_THE_LOG_HOLDS, LEFT_OUT, MESSAGE, SYSTEM, TOOLS,
                                Digest, add_column, add_words, bulk_insert, content, findings, index_known_first,
                                remove_words, rounds, tool_calls, trace_content, trace_words, traces)
from lib.logs.native import VERSION, read_objects, round_line
from lib.lru import LeastRecentlyUsed
from lib.model import Round, Trace
from lib.prices import DEFAULT_PRICES
from lib.store import Store
from lib.summary import RoundSummary, rows_cost, snowball, summarize
from lib.tokens import counter_for

Source = Literal["upload", "capture", "live", "fork"]
"""How a kept trace came in."""
SOURCES: tuple[Source, ...] = ("upload", "capture", "live", "fork")
"""Every source, in the order the Library lists them."""
LINK = "?trace={id}"
"""The query string that opens a kept trace in the explorer."""


class LibraryError(ValueError):
    """A request the library cannot carry out; the message says why, for a person."""


@dataclass(frozen=True, slots=True)
class ToKeep:
    """One trace to save, with what the library records about it."""

    trace: Trace
    """The conversation, as a file reader, a capture, a live run or a fork gives it."""
    source: Source
    """upload, capture, live or fork."""
    title: str | None = None
    """The title to list it under; the trace's own title when None."""
    author: str = ""
    """Who saved it: the signed-in identity."""


def link(trace_id: str) -> str:
    """The query string that opens a kept trace: `?trace=<id>`."""
    return LINK.format(id=trace_id)


# --- save ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A trace taken apart for the tables, before it has row numbers."""

    id: str
    """The fingerprint."""
    row: dict
    """The library_traces row, without its number."""
    contents: dict[str, tuple[str, str, Any]]
    """digest -> (kind, raw JSON text, parsed value) of every content the trace uses."""
    rounds: list[tuple[int, str, dict]]
    """(index, body JSON text, refs by digest) per round."""
    tools: frozenset[str]
    """The tool names the model called."""
    findings: Counter
    """(code, severity) -> how many findings."""
    words: list[str]
    """Its words for the text index (lib/library_schema.py `trace_words`)."""
    notes: tuple[dict, ...] = ()
    """The annotation lines its file carried: kept with the trace, and added to it when it was kept already."""


def save(store: Store, trace: Trace, *, source: Source, title: str | None = None, author: str = "") -> str:
    """Keep a trace; its id. The same content saved again gives the same id and stores nothing new."""
    return save_many(store, [ToKeep(trace, source, title, author)])[0]


def save_many(store: Store, kept: Sequence[ToKeep], saved: str | None = None) -> list[str]:
    """Keep several traces in one transaction with bulk inserts; their ids, in order."""
    prepared = [_prepare(item, saved or now()) for item in kept]
    for attempt in range(3):
        try:
            with store.transaction(write=True) as conn:
                _insert(conn, prepared)
            break
        except IntegrityError:
            # Another replica saved some of the same content meanwhile; the next attempt skips it.
            if attempt == 2:
                raise
    return [p.id for p in prepared]


def _prepare(item: ToKeep, saved: str) -> _Prepared:
    if item.source not in SOURCES:
        raise LibraryError(f"{item.source!r} is not a source; expected one of {', '.join(SOURCES)}.")
    trace, contents = item.trace, _Contents()
    round_rows, previous = [], []
    for round_ in trace.rounds:
        row, previous = _round_row(round_, previous, contents)
        round_rows.append(row)
    found = Counter((f.code, f.severity) for f in run_checks(trace))
    row = _trace_row(item, saved, sum(found.values()))
    called = frozenset(call.name[:200] for r in trace.rounds for call in r.tool_calls)
    return _Prepared(row["id"], row, contents.kept, round_rows, called, found, trace_words(contents.kept.values()),
                     trace.annotations)


class _Contents:
    """The distinct contents of one trace, by digest."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[str, str, Any]] = {}
        """digest -> (kind, raw JSON text, parsed value)."""
        self._digests: dict[int, str] = {}

    def keep(self, kind: str, raw: Any) -> str:
        """The digest of `raw`, kept as content of this kind."""
        # Keyed by object identity first: interning hands every round the very same message objects.
        digest = self._digests.get(id(raw))
        if digest is None:
            digest = self._digests[id(raw)] = content_key(raw)
            self.kept.setdefault(digest, (kind, _dumps(raw), raw))
        return digest


def _round_row(round_: Round, previous: list, contents: _Contents) -> tuple[tuple[int, str, dict], list]:
    """(index, the round's line without its contents, refs to them) and the messages it sent."""
    line = round_line(round_)
    request = line["request"] = dict(line["request"])
    refs: dict[str, Any] = {}
    sent = request.get("messages")
    if isinstance(sent, list):
        kept = _shared(previous, sent)
        refs["messages"] = [kept, [contents.keep(MESSAGE, m) for m in sent[kept:]]]
        request["messages"], previous = None, sent
    for name, kind in (("system", SYSTEM), ("tools", TOOLS)):
        if request.get(name) is not None:
            refs[name], request[name] = contents.keep(kind, request[name]), None
    if round_.response is not None:
        at = _answer_path(line["response"])
        if at is None:
            refs["answer"] = contents.keep(MESSAGE, round_.response.message.raw)  # searched; the body keeps its copy
        else:
            line["response"], answer = _detached(line["response"], at)
            refs["answer"], refs["answer_at"] = contents.keep(MESSAGE, answer), at
    if round_.request.held_by_provider:
        refs["held"] = round_.request.held_by_provider
        if round_.request.held_system:
            refs["held_system"] = True
    return (round_.index, _dumps(line), refs), previous


def _trace_row(item: ToKeep, saved: str, findings_count: int) -> dict:
    """The library_traces row: what the list shows and filters on, worked out once."""
    trace = item.trace
    figures = _figures(trace)
    header = {"kind": "trace", "version": VERSION, "title": trace.title, "dialect": trace.dialect}
    header.update({k: v for k, v in trace.header.items() if k not in header})
    return {
        "id": fingerprint(trace), "title": _clean(item.title or trace.title), "dialect": trace.dialect,
        "model": _clean(_model(trace))[:200] or None, "source": item.source, "author": _clean(item.author)[:AUTHOR_LIMIT],
        "saved": saved, "rounds": len(trace.rounds), **_known_figures(figures), "findings": findings_count,
        "header": _dumps(header),
        # The file's other lines as write_trace writes them: lessons, then annotation lines.
        "annotations": _dumps([lesson_line(lesson) for lesson in trace.lessons] + list(trace.annotations)),
    }


def _figures(trace: Trace) -> tuple[RoundSummary, ...]:
    """The rounds' figures as the Tokens page works them out under its automatic tokenizer."""
    return summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)


def _known_figures(figures: tuple[RoundSummary, ...]) -> dict:
    """The library_traces columns of the tokens and cost: the sums over the rounds whose figures are known, how many
    rounds they leave out, of them the failed calls whose billing is not known, whether they hold our estimate, and
    the models without a price (with, as {"inside": model}, each call to another model inside a round that has
    none: TraceCost.unpriced_inside): what the Tokens page and Compare write their figures from (lib.summary.snowball,
    rows_cost), so that the Library writes the same."""
    ball, spent = snowball(figures), rows_cost(figures, DEFAULT_PRICES)
    # The tokens and the cost leave out the same calls (lib.summary.cost_known), the failed ones among them too: one
    # count of those serves both.
    return {"tokens": ball.known_tokens, "tokens_estimated": ball.known_tokens_estimated,
            "tokens_left_out": ball.unknown_calls,
            "cost": spent.total, "cost_left_out": spent.unknown, "cost_estimated": spent.estimated,
            "estimate_of_what_the_log_holds": ball.estimate_of_what_the_log_holds,
            "billing_left_out": ball.billing_unknown_calls,
            "unpriced": _dumps([*spent.unpriced, *({"inside": m} for m in spent.unpriced_inside)])}


def mark_estimated_tokens(conn: Connection) -> None:
    """Schema version 4: a kept trace's tokens say whether they hold an estimate. Each trace kept so far is read
    back and its figure worked out again, as a save did then (frozen: version 6 works them out anew)."""
    add_column(conn, traces.c.tokens_estimated)
    for number in conn.execute(sa.select(traces.c.number)).scalars().all():
        ball = snowball(_figures(_read(conn, traces.c.number == number)[1]))
        conn.execute(traces.update().where(traces.c.number == number)
                     .values(tokens=ball.billed_input + ball.output, tokens_estimated=bool(ball.estimated_calls)))


def leave_out_unknown_figures(conn: Connection) -> None:
    """Schema version 6: a kept trace's tokens and cost leave out the rounds whose figures the log does not give,
    and say how many, instead of counting them as 0. Each trace kept so far is read back and its figures worked out
    again, as a save now does."""
    for name in LEFT_OUT:
        add_column(conn, traces.c[name])
    index_known_first(conn)
    for number in conn.execute(sa.select(traces.c.number)).scalars().all():
        figures = _figures(_read(conn, traces.c.number == number)[1])
        # Version 7's and 8's columns are not there yet: their own migrations fill them.
        known = {k: v for k, v in _known_figures(figures).items()
                 if k not in (ESTIMATE_OF_WHAT_THE_LOG_HOLDS, *BILLING)}
        conn.execute(traces.update().where(traces.c.number == number).values(**known))


def mark_estimates_of_what_the_log_holds(conn: Connection) -> None:
    """Schema version 7: a kept trace says whether its estimate counts what the log holds only (an agent's session
    log, which never keeps the instructions or the tool list it sent). Each trace kept so far is read back for it."""
    add_column(conn, traces.c.estimate_of_what_the_log_holds)
    for number in conn.execute(sa.select(traces.c.number)).scalars().all():
        ball = snowball(_figures(_read(conn, traces.c.number == number)[1]))
        conn.execute(traces.update().where(traces.c.number == number)
                     .values(estimate_of_what_the_log_holds=ball.estimate_of_what_the_log_holds))


def count_failed_calls_apart(conn: Connection) -> None:
    """Schema version 8: a kept trace's tokens leave out a failed call whose billing is not known, as its cost and the
    Tokens page's sums do, and count such calls apart (their words are not a missing figure's); its cost keeps the
    models without a price. Each trace kept so far is read back and its figures worked out again, as a save now
    does."""
    for name in BILLING:
        add_column(conn, traces.c[name])
    for number in conn.execute(sa.select(traces.c.number)).scalars().all():
        figures = _figures(_read(conn, traces.c.number == number)[1])
        conn.execute(traces.update().where(traces.c.number == number).values(**_known_figures(figures)))


def _answer_path(response: Any) -> list | None:
    """Where a response body holds the model's message: `choices[0].message`, or a Messages body's `content`."""
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
        return ["choices", 0, "message"]
    return ["content"] if isinstance(response.get("content"), list) else None


def _detached(body: Any, path: list) -> tuple[Any, Any]:
    """(a copy of body with None at path, the value that was there); body itself is left as it is."""
    if not path:
        return None, body
    copy = dict(body) if isinstance(body, dict) else list(body)
    copy[path[0]], value = _detached(body[path[0]], path[1:])
    return copy, value


def _attached(body: Any, path: list, value: Any) -> None:
    for step in path[:-1]:
        body = body[step]
    body[path[-1]] = value


def _shared(before: list, now: list) -> int:
    """How many leading messages `now` takes over from `before`, unchanged."""
    count = 0
    for old, new in zip(before, now):
        if old is not new and old != new:
            break
        count += 1
    return count


def _model(trace: Trace) -> str:
    if trace.model:
        return trace.model
    for round_ in trace.rounds:
        named = (round_.response.model if round_.response else None) or round_.request.model
        if named:
            return named
    return ""


def _clean(text: str) -> str:
    # PostgreSQL refuses NUL in text; a title read from a hostile log may carry one.
    return str(text or "").replace("\x00", "")


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        # orjson refuses integers beyond 64 bits; the standard library does not.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _insert(conn: Connection, prepared: list[_Prepared]) -> None:
    stored = _existing(conn, [p.id for p in prepared])
    _add_notes(conn, [(stored[p.id], p) for p in prepared if p.id in stored])
    fresh = list({p.id: p for p in prepared if p.id not in stored}.values())
    if not fresh:
        return
    inserted = {id(p) for p in fresh}
    twice = [p for p in prepared if p.id not in stored and id(p) not in inserted]
    numbers = _store_contents(conn, fresh)
    trace_numbers = dict(zip((p.id for p in fresh), _new_numbers(conn, traces, len(fresh))))
    bulk_insert(conn, traces, [{"number": trace_numbers[p.id], **p.row} for p in fresh])
    # One bulk statement per table for the whole batch, not one per trace.
    used, kept, called, found = [], [], [], []
    for p in fresh:
        number = trace_numbers[p.id]
        used += [(n, number) for n in {numbers[d] for d in p.contents}]
        kept += [(number, index, body, _dumps(_numbered(refs, numbers))) for index, body, refs in p.rounds]
        called += [(number, name) for name in p.tools]
        found += [(number, code, severity, count) for (code, severity), count in p.findings.items()]
    for table, rows in ((trace_content, used), (rounds, kept), (tool_calls, called), (findings, found)):
        bulk_insert(conn, table, rows)
    add_words(conn, {trace_numbers[p.id]: p.words for p in fresh})
    # The same content twice in one batch is kept once: the notes of each copy are kept with it.
    _add_notes(conn, [(trace_numbers[p.id], p) for p in twice])


def _add_notes(conn: Connection, saved_again: list[tuple[int, _Prepared]]) -> None:
    """Add to kept traces (by row number) the annotation lines of their files that they do not keep yet: saving a
    trace kept already stores nothing else, but the notes its file carries are not to be lost."""
    saved_again = [(number, p) for number, p in saved_again if p.notes]
    if not saved_again:
        return
    wanted = list({number for number, _ in saved_again})
    kept = {number: loads_exact(text) for number, text in conn.execute(
        sa.select(traces.c.number, traces.c.annotations).where(traces.c.number.in_(wanted))).all()}
    grown = set()
    for number, p in saved_again:
        lines = kept[number]
        have = {line_id(line, p.id) for line in lines if isinstance(line, dict) and line.get("kind") == "annotation"}
        for line in p.notes:
            if line_id(line, p.id) not in have:
                have.add(line_id(line, p.id))
                lines.append(line)
                grown.add(number)
    for number in grown:
        conn.execute(traces.update().where(traces.c.number == number).values(annotations=_dumps(kept[number])))


def _new_numbers(conn: Connection, table: sa.Table, count: int) -> list[int]:
    """Row numbers for `count` new rows, taken before inserting them, so that nothing is looked up afterwards."""
    if conn.dialect.name == "postgresql":
        taken = sa.text("SELECT nextval(pg_get_serial_sequence(:table, 'number')) FROM generate_series(1, :count)")
        return list(conn.execute(taken, {"table": table.name, "count": count}).scalars())
    # SQLite: the transaction holds the write lock from its start, so no one else takes these.
    last = conn.execute(sa.select(sa.func.max(table.c.number))).scalar() or 0
    return list(range(last + 1, last + 1 + count))


def _existing(conn: Connection, ids: list[str]) -> dict[str, int]:
    return _numbers(conn, traces.c.id, traces.c.number, ids)


def _numbers(conn: Connection, key: sa.Column, number: sa.Column, keys: list[str]) -> dict[str, int]:
    """Row numbers by key for the keys stored (hex digests or trace ids)."""
    if conn.dialect.name == "postgresql":
        # One text parameter: a bound list of 10,000 values cost more in the driver than the lookup on the server.
        wanted = sa.func.unnest(sa.func.string_to_array(sa.bindparam("keys", " ".join(keys), type_=sa.Text), " "))
        if isinstance(key.type, Digest):
            wanted = sa.func.decode(wanted, "hex")
        return dict(conn.execute(sa.select(key, number).where(key.in_(sa.select(wanted)))).all())
    found: dict[str, int] = {}
    for start in range(0, len(keys), CHUNK):
        found.update(conn.execute(sa.select(key, number).where(key.in_(keys[start:start + CHUNK]))).all())
    return found


def _store_contents(conn: Connection, fresh: list[_Prepared]) -> dict[str, int]:
    """Content numbers by digest for every content of these traces, storing what is not stored yet."""
    wanted = {digest: value for p in fresh for digest, value in p.contents.items()}
    numbers = _numbers(conn, content.c.digest, content.c.number, list(wanted))
    missing = [d for d in wanted if d not in numbers]
    added = dict(zip(missing, _new_numbers(conn, content, len(missing))))
    bulk_insert(conn, content, [(added[d], d, wanted[d][0], wanted[d][1]) for d in missing])
    return {**numbers, **added}


def _numbered(refs: dict, numbers: dict[str, int]) -> dict:
    out = dict(refs)
    if "messages" in refs:
        kept, added = refs["messages"]
        out["messages"] = [kept, [numbers[d] for d in added]]
    for name in ("system", "tools", "answer"):
        if name in refs:
            out[name] = numbers[refs[name]]
    return out


# --- load -----------------------------------------------------------------------------------------


def load(store: Store, trace_id: str) -> Trace | None:
    """The kept trace, as the native reader gives it from a file; None when no trace has this id."""
    found = _load(store, trace_id)
    return None if found is None else found[1]


def open_kept(store: Store, trace_id: str) -> LoadedTrace | None:
    """A kept trace as the explorer and compare take one; None when no trace has this id."""
    found = _load(store, trace_id)
    return None if found is None else from_library(found[1], trace_id, found[0])


Generation = tuple[int, str, str, int]
"""What tells one saving of a trace from another under the same id: (row number, when saved, title, length of its
file's other lines). SQLite may give a trace deleted and saved again its old row number; the time and title then tell
them apart; the length grows when a save of it again adds the notes its file carried."""


class OpenedTraces:
    """The kept traces one process has read, parsed once and shared by its sessions. Each open asks the database
    whether the trace is still kept, as saved then: one lookup by id, so that a trace deleted through another
    replica stops opening here the moment its delete returns, and one saved again is read again."""

    def __init__(self, store: Store, size: int = 32) -> None:
        self.store = store
        """The database every replica shares."""
        self._held: LeastRecentlyUsed[tuple[Generation, LoadedTrace]] = LeastRecentlyUsed(size)

    def open(self, trace_id: str, reading: AbstractContextManager | None = None) -> LoadedTrace | None:
        """The kept trace with this id, or None when there is none; `reading` is entered while it is read
        from the database rather than taken from memory. StoreUnavailable when the database fails."""
        with self.store.transaction(write=False) as conn:
            current = _generation(conn, trace_id)
        held = self._held.get(trace_id)
        if held is not None and held[0] == current:
            return held[1]
        self._held.drop(trace_id)
        if current is None:
            return None
        with reading or nullcontext():
            found = _load(self.store, trace_id)
        if found is None:  # deleted between the lookup and the read
            return None
        opened = from_library(found[1], trace_id, found[0])
        self._held.put(trace_id, (found[0], opened))
        return opened

    def forget(self, trace_id: str) -> None:
        """Let go of a trace's parsed model, as after deleting it."""
        self._held.drop(trace_id)


def _generation(conn: Connection, trace_id: str) -> Generation | None:
    found = conn.execute(sa.select(traces.c.number, traces.c.saved, traces.c.title,
                                   sa.func.length(traces.c.annotations)).where(traces.c.id == trace_id))
    row = found.first()
    return None if row is None else tuple(row)


def _load(store: Store, trace_id: str) -> tuple[Generation, Trace] | None:
    """The kept trace and the generation it was read at, in one transaction; None when no trace has this id."""
    with store.transaction(write=False) as conn:
        return _read(conn, traces.c.id == trace_id)


def _read(conn: Connection, which: sa.ColumnElement) -> tuple[Generation, Trace] | None:
    """The kept trace the condition picks, and the generation it was read at; None when there is none."""
    row = conn.execute(sa.select(traces.c.number, traces.c.saved, traces.c.title, traces.c.header,
                                 traces.c.annotations, sa.func.length(traces.c.annotations).label("length"))
                       .where(which)).first()
    if row is None:
        return None
    kept = conn.execute(sa.select(rounds.c.body, rounds.c.refs).where(rounds.c.trace == row.number)
                        .order_by(rounds.c.index)).all()
    refs = [orjson.loads(r.refs) for r in kept]
    wanted = sorted({n for ref in refs for n in _referenced(ref)})
    values: dict[int, Any] = {}
    for start in range(0, len(wanted), CHUNK):
        query = sa.select(content.c.number, content.c.raw).where(content.c.number.in_(wanted[start:start + CHUNK]))
        values.update((n, loads_exact(raw)) for n, raw in conn.execute(query).all())
    header = loads_exact(row.header)
    header["title"] = row.title
    lines = list(_round_lines(kept, refs, values))
    trace, _ = read_objects([header, *lines, *loads_exact(row.annotations)], name=row.title)
    return (row.number, row.saved, row.title, row.length), _with_held(trace, refs)


def _referenced(refs: dict) -> Iterator[int]:
    if "messages" in refs:
        yield from refs["messages"][1]
    if "answer_at" in refs:
        yield refs["answer"]
    for name in ("system", "tools"):
        if name in refs:
            yield refs[name]


def _round_lines(kept: list, refs: list[dict], values: dict[int, Any]) -> Iterator[dict]:
    previous: list = []
    for row, ref in zip(kept, refs):
        line = loads_exact(row.body)
        request = line["request"]
        if "messages" in ref:
            count, added = ref["messages"]
            # The very objects of the round before, so the reader takes the prefix over without hashing it.
            previous = request["messages"] = previous[:count] + [values[n] for n in added]
        for name in ("system", "tools"):
            if name in ref:
                request[name] = values[ref[name]]
        if "answer_at" in ref:
            _attached(line["response"], ref["answer_at"], values[ref["answer"]])
        yield line


def _with_held(trace: Trace, refs: list[dict]) -> Trace:
    # The native line does not carry how many messages a provider held; the refs do.
    if not any("held" in ref for ref in refs):
        return trace
    restored = tuple(replace(r, request=replace(r.request, held_by_provider=ref.get("held", 0),
                                                held_system=bool(ref.get("held_system"))))
                     for r, ref in zip(trace.rounds, refs))
    return replace(trace, rounds=restored)


# --- delete ---------------------------------------------------------------------------------------


def delete(store: Store, trace_id: str) -> bool:
    """Remove a kept trace, its rounds and figures, and the content no other kept trace uses; False when
    there was none. Notes stay: they are kept by fingerprint and belong to the same content opened from a file."""
    with store.transaction(write=True) as conn:
        number = conn.execute(sa.select(traces.c.number).where(traces.c.id == trace_id).with_for_update()).scalar()
        if number is None:
            return False
        remove_words(conn, number)
        used = list(conn.execute(sa.select(trace_content.c.content).where(trace_content.c.trace == number)).scalars())
        for table in (trace_content, rounds, tool_calls, findings):
            conn.execute(table.delete().where(table.c.trace == number))
        conn.execute(traces.delete().where(traces.c.number == number))
        for start in range(0, len(used), CHUNK):
            _drop_unused(conn, used[start:start + CHUNK])
        return True


def _drop_unused(conn: Connection, numbers: list[int]) -> None:
    still = sa.select(trace_content.c.content).where(trace_content.c.content == content.c.number).exists()
    conn.execute(content.delete().where(sa.and_(content.c.number.in_(numbers), ~still)))


def trace_ids(store: Store) -> tuple[str, ...]:
    """Every kept trace's id, the most recently saved first."""
    with store.transaction(write=False) as conn:
        return tuple(conn.execute(sa.select(traces.c.id).order_by(traces.c.saved.desc(), traces.c.number.desc())).scalars())
