"""Where notes and the trace library are kept: any SQLAlchemy database, an SQLite file by default.

Every write is one transaction. The schema's version is kept in `schema_version`; opening a store
applies the migrations the database lacks in one transaction, so an upgrade either completes or
leaves the notes exactly as they were. No Streamlit here: lib/ui/annotate.py caches one store
per URL.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence
from urllib.parse import quote_plus

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError

from lib import library_schema
from lib.annotations import AUTHOR_LIMIT, DEFAULT_LABELS, LABEL_LIMIT, Note, Rubric, Score, now

URL_VARIABLE = "ROUNDTRIP_DATABASE_URL"
"""The environment variable naming the database, as an SQLAlchemy URL."""
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "roundtrip.db"
"""The SQLite file used when no URL is given; created on first use."""
BUSY_SECONDS = 30
"""How long an SQLite writer waits for another one before giving up."""
HIDDEN = "***"
"""What a message shows in place of a user name, password or other credential."""
_CREDENTIAL = re.compile(r"pass|pwd|token|secret|key|auth|cred", re.IGNORECASE)
"""Query parameter names that may carry a credential (password, sslpassword, api_key, sslkey, access_token...)."""
_WRITES = "roundtrip_writes"
"""Execution option marking a connection that will write (SQLite then takes the write lock first)."""

METADATA = sa.MetaData()
schema_version = sa.Table(
    "schema_version", METADATA,
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("applied", sa.String(40), nullable=False),
)
notes = sa.Table(
    "notes", METADATA,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("trace", sa.String(64), nullable=False, index=True),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("author", sa.String(AUTHOR_LIMIT), nullable=False),
    sa.Column("created", sa.String(40), nullable=False),
    sa.Column("trace_title", sa.Text, nullable=False),
    sa.Column("trace_name", sa.Text, nullable=False),
    # Schema version 5.
    sa.Column("claimed_author", sa.String(AUTHOR_LIMIT), nullable=False, server_default=""),
)
note_labels = sa.Table(
    "note_labels", METADATA,
    sa.Column("note_id", sa.String(64), sa.ForeignKey("notes.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("label", sa.String(LABEL_LIMIT), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
)
labels = sa.Table(
    "labels", METADATA,
    sa.Column("name", sa.String(LABEL_LIMIT), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
)
note_scores = sa.Table(
    "note_scores", METADATA,
    sa.Column("note_id", sa.String(64), sa.ForeignKey("notes.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rubric", sa.String(LABEL_LIMIT), primary_key=True, index=True),
    sa.Column("value", sa.Float, nullable=False),
)
rubrics = sa.Table(
    "rubrics", METADATA,
    sa.Column("name", sa.String(LABEL_LIMIT), primary_key=True),
    sa.Column("low", sa.Float, nullable=False),
    sa.Column("high", sa.Float, nullable=False),
    sa.Column("pass_fail", sa.Boolean, nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
)


class StoreUnavailable(Exception):
    """The database cannot be reached or used; the message says which and why, without credentials."""


def _v1(conn: Connection) -> None:
    # Version 1 creates the tables as defined above. When a later migration alters a table, give
    # this one a frozen copy of the version 1 shapes first: a migration must never change.
    library_schema.as_before(notes, "claimed_author").create(conn)
    METADATA.create_all(conn, tables=[note_labels, labels])
    conn.execute(labels.insert(), [{"name": name, "position": i} for i, name in enumerate(DEFAULT_LABELS)])


def _v2(conn: Connection) -> None:
    # The trace library (lib/library_schema.py) and scores beside labels. Both add tables only.
    METADATA.create_all(conn, tables=[note_scores, rubrics])
    library_schema.create(conn)


def _v3(conn: Connection) -> None:
    # The library's text index: one row of words per kept trace instead of one per content row.
    library_schema.index_words_per_trace(conn)


def _v4(conn: Connection) -> None:
    # A kept trace's tokens say whether they hold our estimate (lib/library.py, which needs this module first).
    from lib import library

    library.mark_estimated_tokens(conn)


def _v5(conn: Connection) -> None:
    # An imported note is signed by its importer; the author its file named is kept apart. Which notes stored so far
    # were imported is not recorded, so they claim nothing.
    library_schema.add_column(conn, notes.c.claimed_author)


def _v6(conn: Connection) -> None:
    # A kept trace's tokens and cost leave out the rounds whose figures the log lacks, and count them, instead of
    # counting them as 0 (lib/library.py).
    from lib import library

    library.leave_out_unknown_figures(conn)


def _v7(conn: Connection) -> None:
    # A kept trace says whether its estimate counts what the log holds only (lib/library.py).
    from lib import library

    library.mark_estimates_of_what_the_log_holds(conn)


def _v8(conn: Connection) -> None:
    # A kept trace's tokens leave out a failed call whose billing is not known, as its cost does, and count it apart;
    # its cost keeps the models without a price (lib/library.py).
    from lib import library

    library.count_failed_calls_apart(conn)


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8)
"""Schema migrations in order: the database is at version N once the first N have run."""


def database_url() -> str:
    """The database notes are kept in: `ROUNDTRIP_DATABASE_URL`, else the default SQLite file."""
    return os.environ.get(URL_VARIABLE, "").strip() or f"sqlite:///{DEFAULT_PATH}"


def shown(url: str) -> str:
    """The URL as a message may show it: user info and every credential-bearing query parameter as ***."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "(not a database URL)"
    bare = sa.URL.create(parsed.drivername, host=parsed.host, port=parsed.port, database=parsed.database)
    scheme, _, place = bare.render_as_string().partition("://")
    who = f"{HIDDEN}@" if parsed.username or parsed.password else ""
    query = "&".join(f"{quote_plus(name)}={HIDDEN if _CREDENTIAL.search(name) else quote_plus(value)}"
                     for name, values in parsed.query.items()
                     for value in (values if isinstance(values, tuple) else (values,)))
    return f"{scheme}://{who}{place}" + (f"?{query}" if query else "")


def not_created_yet(url: str) -> bool:
    """True for an SQLite file that does not exist yet: it holds no notes, and reading need not create it."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return False
    return parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") \
        and not Path(parsed.database).exists()


def open_store(url: str, migrations: Sequence[Callable[[Connection], None]] = MIGRATIONS) -> "Store":
    """A store on this database, its schema brought up to date; StoreUnavailable when that fails."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreUnavailable(f"{URL_VARIABLE} is not a database URL such as sqlite:///notes.db "
                               "or postgresql+psycopg://user:password@host/database.") from None
    try:
        engine = _engine(parsed)
    except (NoSuchModuleError, ImportError) as exc:
        raise StoreUnavailable(f"No database driver for {shown(url)}: {exc}") from None
    except OSError as exc:
        raise StoreUnavailable(f"The folder for the notes database {shown(url)} cannot be created: {exc}") from None
    store = Store(engine, url)
    try:
        store.upgrade(migrations)
    except BaseException:
        engine.dispose()
        raise
    return store


def _engine(url: sa.URL) -> Engine:
    if url.get_backend_name() != "sqlite":
        args = {"connect_timeout": 5} if url.get_backend_name() == "postgresql" else {}
        return sa.create_engine(url, pool_pre_ping=True, connect_args=args)
    if url.database not in (None, "", ":memory:"):
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, connect_args={"timeout": BUSY_SECONDS})
    sa.event.listen(engine, "connect", _sqlite_connect)
    sa.event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection, _record) -> None:
    # pysqlite's own BEGIN is deferred: a reader that later writes can fail at once with "database
    # is locked" instead of waiting. Transactions are begun in _sqlite_begin instead.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
    cursor.execute("PRAGMA journal_mode = WAL")  # readers do not block the writer, nor it them
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITES) else "BEGIN")


class Store:
    """Notes and the label set in one database; each method is one transaction."""

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        """The SQLAlchemy engine, one per URL."""
        self.url = url
        """The database URL, password included: show `shown(url)` instead."""

    @contextmanager
    def transaction(self, write: bool) -> Iterator[Connection]:
        """One transaction on a connection; `write` takes SQLite's write lock at once. StoreUnavailable on failure."""
        try:
            with self.engine.connect() as conn:
                if write:
                    conn.execution_options(**{_WRITES: True})
                with conn.begin():
                    yield conn
        except IntegrityError:
            raise
        except DBAPIError as exc:
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
            raise StoreUnavailable(f"The notes database at {shown(self.url)} cannot be used: {reason}") from None

    def upgrade(self, migrations: Sequence[Callable[[Connection], None]] = MIGRATIONS) -> int:
        """Apply the migrations the database lacks, all in one transaction; the version it is at."""
        with self.transaction(write=True) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(7411706)"))  # one upgrader at a time
            schema_version.create(conn, checkfirst=True)
            current = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0
            if current > len(migrations):
                raise StoreUnavailable(f"The notes database at {shown(self.url)} has schema version {current}; "
                                       f"this Roundtrip knows up to {len(migrations)}. Use a newer Roundtrip.")
            for version in range(current + 1, len(migrations) + 1):
                try:
                    migrations[version - 1](conn)
                except Exception as exc:
                    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    raise StoreUnavailable(f"Upgrading the notes database at {shown(self.url)} to schema version "
                                           f"{version} failed ({reason}); it stays at version {current}, "
                                           "its notes untouched.") from exc
                conn.execute(schema_version.insert().values(version=version, applied=now()))
        return len(migrations)

    def version(self) -> int:
        """The schema version the database is at."""
        with self.transaction(write=False) as conn:
            return conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0

    def notes(self, trace: str | None = None) -> tuple[Note, ...]:
        """The notes on one trace (by fingerprint), or on every trace; oldest first."""
        return self._read_notes(None if trace is None else notes.c.trace == trace)

    def notes_on(self, traces: Sequence[str]) -> tuple[Note, ...]:
        """The notes on any of these traces (by fingerprint); oldest first."""
        return self._read_notes(notes.c.trace.in_(list(traces))) if traces else ()

    def _read_notes(self, condition) -> tuple[Note, ...]:
        query = sa.select(notes).order_by(notes.c.created, notes.c.id)
        labelled = sa.select(note_labels).join(notes).order_by(note_labels.c.position)
        scored = sa.select(note_scores).join(notes).order_by(note_scores.c.rubric)
        if condition is not None:
            query, labelled, scored = query.where(condition), labelled.where(condition), scored.where(condition)
        with self.transaction(write=False) as conn:
            rows = conn.execute(query).all()
            found: dict[str, list[str]] = {}
            for row in conn.execute(labelled):
                found.setdefault(row.note_id, []).append(row.label)
            marks: dict[str, list[Score]] = {}
            for row in conn.execute(scored):
                marks.setdefault(row.note_id, []).append(Score(row.rubric, row.value))
        return tuple(Note(labels=tuple(found.get(row.id, ())), scores=tuple(marks.get(row.id, ())), **row._mapping)
                     for row in rows)

    def add(self, note: Note) -> None:
        """Store a new note."""
        with self.transaction(write=True) as conn:
            _insert(conn, [note])

    def edit(self, note_id: str, text: str, new_labels: Iterable[str], new_scores: Iterable[Score] | None = None) -> bool:
        """Replace a note's text and labels, and its scores when given; False when the note is gone."""
        with self.transaction(write=True) as conn:
            # Lock the note's row so two edits of one note apply one after the other, never interleaved.
            found = conn.execute(sa.select(notes.c.id).where(notes.c.id == note_id).with_for_update()).first()
            if found is None:
                return False
            conn.execute(notes.update().where(notes.c.id == note_id).values(text=text))
            conn.execute(note_labels.delete().where(note_labels.c.note_id == note_id))
            _insert_labels(conn, [(note_id, new_labels)])
            if new_scores is not None:
                conn.execute(note_scores.delete().where(note_scores.c.note_id == note_id))
                _insert_scores(conn, [(note_id, new_scores)])
            return True

    def delete(self, note_id: str) -> bool:
        """Remove a note; False when it was not there."""
        with self.transaction(write=True) as conn:
            conn.execute(note_labels.delete().where(note_labels.c.note_id == note_id))
            conn.execute(note_scores.delete().where(note_scores.c.note_id == note_id))
            return conn.execute(notes.delete().where(notes.c.id == note_id)).rowcount > 0

    def import_notes(self, imported: Iterable[Note]) -> int:
        """Store the notes whose ids are not stored yet; how many were added. Importing twice adds nothing."""
        imported = list({note.id: note for note in imported}.values())
        for attempt in range(3):
            try:
                with self.transaction(write=True) as conn:
                    stored: set[str] = set()
                    for start in range(0, len(imported), 500):
                        ids = [note.id for note in imported[start:start + 500]]
                        stored.update(conn.execute(sa.select(notes.c.id).where(notes.c.id.in_(ids))).scalars())
                    fresh = [note for note in imported if note.id not in stored]
                    _insert(conn, fresh)
                    return len(fresh)
            except IntegrityError:
                if attempt == 2:
                    raise
                # Another session imported the same notes meanwhile; the next attempt skips them.
        return 0

    def labels(self) -> tuple[str, ...]:
        """The label set, in its order."""
        with self.transaction(write=False) as conn:
            return tuple(conn.execute(sa.select(labels.c.name).order_by(labels.c.position)).scalars())

    def set_labels(self, names: Sequence[str]) -> None:
        """Replace the label set; notes keep the labels they have."""
        with self.transaction(write=True) as conn:
            conn.execute(labels.delete())
            if names:
                conn.execute(labels.insert(), [{"name": name, "position": i} for i, name in enumerate(names)])

    def rubrics(self) -> tuple[Rubric, ...]:
        """The rubrics notes can be scored under, in their order."""
        with self.transaction(write=False) as conn:
            rows = conn.execute(sa.select(rubrics).order_by(rubrics.c.position)).all()
        return tuple(Rubric(row.name, row.low, row.high, row.pass_fail) for row in rows)

    def set_rubrics(self, chosen: Sequence[Rubric]) -> None:
        """Replace the rubric set; scores already given keep their rubric's name."""
        with self.transaction(write=True) as conn:
            conn.execute(rubrics.delete())
            if chosen:
                conn.execute(rubrics.insert(), [{"name": r.name, "low": r.low, "high": r.high, "pass_fail": r.pass_fail,
                                                 "position": i} for i, r in enumerate(chosen)])

    def close(self) -> None:
        """Close the engine's connections."""
        self.engine.dispose()


def _insert(conn: Connection, new: Sequence[Note]) -> None:
    if not new:
        return
    conn.execute(notes.insert(), [
        {"id": n.id, "trace": n.trace, "target": n.target, "text": n.text, "author": n.author,
         "claimed_author": n.claimed_author, "created": n.created, "trace_title": n.trace_title,
         "trace_name": n.trace_name} for n in new
    ])
    _insert_labels(conn, [(n.id, n.labels) for n in new])
    _insert_scores(conn, [(n.id, n.scores) for n in new])


def _insert_labels(conn: Connection, labelled: Iterable[tuple[str, Iterable[str]]]) -> None:
    rows = [{"note_id": note_id, "label": name, "position": i}
            for note_id, names in labelled for i, name in enumerate(dict.fromkeys(names))]
    if rows:
        conn.execute(note_labels.insert(), rows)


def _insert_scores(conn: Connection, scored: Iterable[tuple[str, Iterable[Score]]]) -> None:
    # One mark per rubric: the last one given wins.
    rows = [{"note_id": note_id, "rubric": rubric, "value": value}
            for note_id, marks in scored for rubric, value in {m.rubric: m.value for m in marks}.items()]
    if rows:
        conn.execute(note_scores.insert(), rows)
