"""The library's tables: kept traces, stored content-addressed, and what the search filters read.

Each distinct message, system prompt and tool list is one row of `library_content`, keyed by its
digest; a round keeps how many messages it shares with the round before and the content numbers
of the ones it adds, so a conversation costs its unique content, not the square of it.
`library_trace_content` says which trace uses which content: delete keeps content another trace
still uses, and the text search goes from matching content to the traces holding it.

Text search runs in the database over one row of words per kept trace (`library_words`): the
distinct words of the string values of its messages and tool results, split at every character that
is not a letter or digit and lowercased, here in Python, so that both databases hold the very same
words. PostgreSQL keeps them as a `tsvector` under a GIN index, SQLite in a contentless FTS5 table.
A trace is a row of its own, not each message: a word nearly every trace holds is then one index
entry per trace, and a page of the newest matches stops at its last row (schema version 3; version 2
indexed each content row, and its matches had to be gathered whole before the first row could be
sorted). No Streamlit, no SDK here.
"""

from __future__ import annotations

import re
import zlib
from typing import Any, Iterable, Iterator

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from lib.annotations import AUTHOR_LIMIT
from lib.intern import loads_exact

SEARCHED_BYTES = 500_000
"""Content longer than this (as JSON) is stored but not indexed for text search: one pasted document
should not swell the index."""
WORD_BYTES = 2_046
"""The longest word kept for search: PostgreSQL refuses a longer lexeme."""
TRACE_WORD_BYTES = 1_000_000
"""A trace's words are kept for search up to this many bytes in all: PostgreSQL refuses a text-search
vector of more than 1 MB of lexemes. Past it, the rest of a trace's words are not searched."""

CHUNK = 2_000
"""Rows per bulk statement, and values per IN list: under every database's limit on bound parameters."""

MESSAGE, SYSTEM, TOOLS = "m", "s", "t"
"""What a content row holds: a message (response messages included), a top-level system prompt, a tool list."""

ID_LIMIT = 64
"""Characters of a trace id: the hex SHA-256 fingerprint (lib/fingerprint.py) its notes are kept under."""

_NUMBER = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""A row number: 64 bits on PostgreSQL, SQLite's INTEGER (its rowid) there."""



class Digest(sa.types.TypeDecorator):
    """A content digest: hex text in Python, its 16 bytes in the database (half the row and index)."""

    impl = sa.LargeBinary(16)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else bytes.fromhex(value)

    def process_result_value(self, value, dialect):
        return None if value is None else bytes(value).hex()


class Packed(sa.types.TypeDecorator):
    """JSON text only Python reads (a round's own body): zlib-compressed in the database. PostgreSQL compresses
    nothing under 2 kB by itself, and most round bodies are a few hundred bytes."""

    impl = sa.LargeBinary
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else zlib.compress(value.encode())

    def process_result_value(self, value, dialect):
        return None if value is None else zlib.decompress(value).decode()


LIBRARY = sa.MetaData()
traces = sa.Table(
    "library_traces", LIBRARY,
    sa.Column("number", _NUMBER, primary_key=True, autoincrement=True),
    sa.Column("id", sa.String(ID_LIMIT), nullable=False, unique=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("dialect", sa.String(40), nullable=False),
    sa.Column("model", sa.String(200), nullable=True, index=True),
    sa.Column("source", sa.String(10), nullable=False, index=True),
    sa.Column("author", sa.String(AUTHOR_LIMIT), nullable=False),
    sa.Column("saved", sa.String(40), nullable=False, index=True),
    sa.Column("rounds", sa.Integer, nullable=False, index=True),
    # Over the rounds whose tokens in and out are both known; since schema version 6 the rounds whose are not are
    # left out and counted in tokens_left_out (version 5 and before counted them as 0, or their input alone).
    sa.Column("tokens", sa.BigInteger, nullable=False, index=True),
    # Schema version 4; version 2 kept the figure unmarked. Since version 6: of the rounds summed in `tokens`.
    sa.Column("tokens_estimated", sa.Boolean, nullable=False, server_default=sa.false()),
    # Schema version 6: the trace's tokens are known only when this is 0 (lib.summary.Snowball.unknown_calls).
    sa.Column("tokens_left_out", sa.Integer, nullable=False, server_default=sa.text("0")),
    # Over the rounds whose cost is known (lib.summary.rows_cost) since schema version 6; NULL without a price.
    sa.Column("cost", sa.Float, nullable=True, index=True),
    # Schema version 6: the rounds whose cost is not known, and whether the cost holds our estimate.
    sa.Column("cost_left_out", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("cost_estimated", sa.Boolean, nullable=False, server_default=sa.false()),
    # Schema version 7: the estimate in `tokens` and `cost` counts what the log holds only, its format never keeping a
    # part of the request (lib.summary.Snowball.estimate_of_what_the_log_holds).
    sa.Column("estimate_of_what_the_log_holds", sa.Boolean, nullable=False, server_default=sa.false()),
    # Schema version 8: of the calls tokens_left_out and cost_left_out count, the failed calls whose input is known but
    # not whether the provider billed them (lib.summary.billing_left_out), said apart as every page says them.
    sa.Column("billing_left_out", sa.Integer, nullable=False, server_default=sa.text("0")),
    # Schema version 8: the models of the summed calls that have no default price (lib.prices.TraceCost.unpriced), a
    # JSON list: a cost of none reads "no price", as on the Tokens page, not "not known".
    sa.Column("unpriced", sa.Text, nullable=False, server_default=sa.text("'[]'")),
    sa.Column("findings", sa.Integer, nullable=False),
    sa.Column("header", sa.Text, nullable=False),
    sa.Column("annotations", sa.Text, nullable=False),
)
content = sa.Table(
    "library_content", LIBRARY,
    sa.Column("number", _NUMBER, primary_key=True, autoincrement=True),
    sa.Column("digest", Digest, nullable=False, unique=True),
    sa.Column("kind", sa.String(1), nullable=False),
    sa.Column("raw", sa.Text, nullable=False),
)
trace_content = sa.Table(
    "library_trace_content", LIBRARY,
    # Content first: the text search goes from matching content to its traces on the key alone.
    sa.Column("content", _NUMBER, sa.ForeignKey("library_content.number"), primary_key=True),
    sa.Column("trace", _NUMBER, sa.ForeignKey("library_traces.number", ondelete="CASCADE"), primary_key=True,
              index=True),
)
rounds = sa.Table(
    "library_rounds", LIBRARY,
    sa.Column("trace", _NUMBER, sa.ForeignKey("library_traces.number", ondelete="CASCADE"), primary_key=True),
    sa.Column("index", sa.Integer, primary_key=True),
    sa.Column("body", Packed, nullable=False),
    sa.Column("refs", sa.Text, nullable=False),
)
tool_calls = sa.Table(
    "library_tool_calls", LIBRARY,
    sa.Column("trace", _NUMBER, sa.ForeignKey("library_traces.number", ondelete="CASCADE"), primary_key=True),
    sa.Column("name", sa.String(200), primary_key=True, index=True),
)
findings = sa.Table(
    "library_findings", LIBRARY,
    sa.Column("trace", _NUMBER, sa.ForeignKey("library_traces.number", ondelete="CASCADE"), primary_key=True),
    sa.Column("code", sa.String(60), primary_key=True, index=True),
    sa.Column("severity", sa.String(10), primary_key=True, index=True),
    sa.Column("count", sa.Integer, nullable=False),
)
LEFT_OUT = ("tokens_left_out", "cost_left_out", "cost_estimated")
"""The library_traces columns schema version 6 adds: what the figures leave out as not known."""
ESTIMATE_OF_WHAT_THE_LOG_HOLDS = "estimate_of_what_the_log_holds"
"""The library_traces column schema version 7 adds."""
BILLING = ("billing_left_out", "unpriced")
"""The library_traces columns schema version 8 adds."""
TABLES = (traces, content, trace_content, rounds, tool_calls, findings)
"""Every library table, parents first."""

WORDS = "library_words"
"""The text index, one row per kept trace: on PostgreSQL a table (`trace`, `words` tsvector) under a GIN
index, on SQLite a contentless FTS5 table whose rowid is the trace's number."""

PG_WORDS = sa.Table(WORDS, sa.MetaData(), sa.Column("trace", sa.BigInteger, primary_key=True),
                    sa.Column("words", TSVECTOR, nullable=False))
"""The text index's table on PostgreSQL, as index_words_per_trace creates it."""

_WORD = re.compile(r"[^\W_]+")
"""A word: letters and digits. The query is split the same way, so no FTS5 or tsquery operator in it is obeyed."""


def searched(kind: str) -> bool:
    """Whether content of this kind is in the text search: tool lists are not, the search is over
    messages and tool results."""
    return kind != TOOLS


def query_words(text: str) -> list[str]:
    """The words of a search, as the text index holds them: lowercased, then split."""
    return _WORD.findall(text.lower()) if text else []


def trace_words(contents: Iterable[tuple[str, str, Any]]) -> list[str]:
    """The distinct words of a trace's searched content, sorted, as the text index holds them; contents are
    (kind, raw JSON text, parsed value). Delete works them out again from the stored content: keep it pure."""
    strings = [value for kind, text, raw in contents
               if searched(kind) and (len(text) <= SEARCHED_BYTES // 4 or len(text.encode()) <= SEARCHED_BYTES)
               for value in _strings(raw)]
    # One split of all the text at once: a line break is no part of a word, so no two words run together.
    kept, size = [], 0
    for word in sorted(set(query_words("\n".join(strings)))):
        length = len(word.encode())
        if length <= WORD_BYTES and size + length <= TRACE_WORD_BYTES:
            kept.append(word)
            size += length
    return kept


def words_text(words: list[str], between: str = " ") -> str:
    """Words as PostgreSQL's tsvector input reads them (`'a' 'b'`), or its tsquery input with `between` " & ":
    a word holds no quote, backslash or space, so quoting it is enough."""
    return between.join(f"'{word}'" for word in words)


_V2_PG_WORDS_FUNCTION = """
CREATE OR REPLACE FUNCTION library_words(raw text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('simple', regexp_replace(coalesce(string_agg(value #>> '{}', ' '), ''), '[^[:alnum:]]+', ' ', 'g'))
  FROM jsonb_path_query(CASE WHEN octet_length(raw) <= %d AND strpos(raw, '\\u0000') = 0
                             THEN raw::jsonb ELSE 'null'::jsonb END, 'strict $.**') AS value
  WHERE jsonb_typeof(value) = 'string'
$$""" % SEARCHED_BYTES
"""Schema version 2's words of one content row on PostgreSQL; version 3 drops it. Frozen: a migration never changes."""


def as_before(table: sa.Table, *added: str) -> sa.Table:
    """The table as an earlier migration created it: without the columns later ones `added`. A migration never
    changes, so it creates this, not the table as it stands now."""
    kept = (column._copy() for column in table.columns if column.name not in added)
    return sa.Table(table.name, sa.MetaData(), *kept)


def add_column(conn: Connection, column: sa.Column) -> None:
    """Add a column of the tables above to its table as it stands in the database, its default in existing rows."""
    ddl = conn.dialect.ddl_compiler(conn.dialect, None)
    conn.exec_driver_sql(f"ALTER TABLE {column.table.name} ADD COLUMN {ddl.get_column_specification(column)}")


def index_known_first(conn: Connection) -> None:
    """Schema version 6: indexes that give a sort by tokens or by cost in either direction as lib/library_search.py
    asks it (the fewest rounds left out first, then the figure, then the row number), so that a deep page walks an
    index instead of sorting every trace."""
    cost_down = "cost DESC NULLS LAST" if conn.dialect.name == "postgresql" else "cost DESC"  # SQLite: NULL is least
    for name, columns in (("tokens_up", "tokens_left_out, tokens, number"),
                          ("tokens_down", "tokens_left_out, tokens DESC, number DESC"),
                          ("cost_up", "cost_left_out, cost, number"),
                          ("cost_down", f"cost_left_out, {cost_down}, number DESC")):
        conn.exec_driver_sql(f"CREATE INDEX library_traces_{name} ON library_traces ({columns})")


def create(conn: Connection) -> None:
    """Create the library's tables and schema version 2's per-content text index (a migration step of
    lib/store.py, frozen; `index_words_per_trace` replaces that index)."""
    as_before(traces, "tokens_estimated", *LEFT_OUT, ESTIMATE_OF_WHAT_THE_LOG_HOLDS, *BILLING).create(conn)
    LIBRARY.create_all(conn, tables=[table for table in TABLES if table is not traces])
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(_V2_PG_WORDS_FUNCTION)
        conn.exec_driver_sql("CREATE INDEX library_content_words ON library_content USING gin ((library_words(raw))) "
                             "WITH (fastupdate = off) WHERE kind <> 't'")
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("CREATE VIRTUAL TABLE library_words USING fts5(words, content='', tokenize='unicode61')")


def index_words_per_trace(conn: Connection) -> None:
    """Schema version 3: the text index becomes one row of words per kept trace; the traces kept so far are indexed."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("DROP INDEX library_content_words")
        conn.exec_driver_sql("DROP FUNCTION library_words(text)")
        # Kept whole in the row up to 8 kB: a count of 10,000 matches reads 10,000 vectors, and unpacking a compressed
        # or TOASTed one cost four times the check itself (100,000 traces, 2026-11-30).
        conn.exec_driver_sql(f"CREATE TABLE {WORDS} (trace bigint PRIMARY KEY REFERENCES library_traces (number) "
                             "ON DELETE CASCADE, words tsvector NOT NULL) WITH (toast_tuple_target = 8160)")  # PG_WORDS
        # Without the pending list: with it the index stood at five times its size after a VACUUM.
        conn.exec_driver_sql(f"CREATE INDEX {WORDS}_index ON {WORDS} USING gin (words) WITH (fastupdate = off)")
    else:
        conn.exec_driver_sql(f"DROP TABLE {WORDS}")
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE {WORDS} USING fts5(words, content='', tokenize='unicode61')")
    for number in conn.execute(sa.select(traces.c.number)).scalars().all():
        add_words(conn, {number: trace_words(stored_contents(conn, number))})


def stored_contents(conn: Connection, trace_number: int) -> Iterator[tuple[str, str, Any]]:
    """(kind, raw JSON text, parsed value) of every content a kept trace uses."""
    query = (sa.select(content.c.kind, content.c.raw).join(trace_content, trace_content.c.content == content.c.number)
             .where(trace_content.c.trace == trace_number))
    for kind, raw in conn.execute(query).all():
        yield kind, raw, loads_exact(raw)


def add_words(conn: Connection, by_trace: dict[int, list[str]]) -> None:
    """Put kept traces' words in the text index: trace number -> trace_words."""
    if not by_trace:
        return
    if conn.dialect.name == "postgresql":
        bulk_insert(conn, PG_WORDS, [(number, words_text(found)) for number, found in by_trace.items()])
        return
    # A contentless FTS5 row is removed by giving back the very words it was indexed with: remove_words works them out.
    rows = [{"trace": number, "words": " ".join(found)} for number, found in by_trace.items() if found]
    if rows:
        conn.execute(sa.text(f"INSERT INTO {WORDS} (rowid, words) VALUES (:trace, :words)"), rows)


def bulk_insert(conn: Connection, table: sa.Table, rows: list[dict] | list[tuple]) -> None:
    """Insert rows, as dicts or as tuples in the table's column order."""
    if not rows:
        return
    names = list(rows[0]) if isinstance(rows[0], dict) else [column.name for column in table.columns][:len(rows[0])]
    if conn.dialect.driver == "psycopg":
        _copy(conn, table, names, rows)
        return
    if not isinstance(rows[0], dict):
        rows = [dict(zip(names, row)) for row in rows]
    for start in range(0, len(rows), CHUNK):
        conn.execute(table.insert(), rows[start:start + CHUNK])


def _copy(conn: Connection, table: sa.Table, names: list[str], rows: list[dict] | list[tuple]) -> None:
    """PostgreSQL's COPY: an executemany of the same rows spent more time in the driver and SQLAlchemy than the
    server spent storing them. A duplicate key (another replica saving the same content) is an IntegrityError."""
    import psycopg

    processors = [table.c[name].type.bind_processor(conn.dialect) for name in names]
    quoted = ", ".join(conn.dialect.identifier_preparer.quote(name) for name in names)
    as_dicts = isinstance(rows[0], dict)
    try:
        with conn.connection.driver_connection.cursor() as cursor:
            with cursor.copy(f"COPY {table.name} ({quoted}) FROM STDIN") as copy:
                for row in rows:
                    values = [row[name] for name in names] if as_dicts else row
                    copy.write_row([value if process is None else process(value)
                                    for process, value in zip(processors, values)])
    except psycopg.IntegrityError as exc:
        raise IntegrityError(f"COPY {table.name}", None, exc) from exc


def remove_words(conn: Connection, trace_number: int) -> None:
    """Take a kept trace out of the text index, before its content goes."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text(f"DELETE FROM {WORDS} WHERE trace = :trace"), {"trace": trace_number})
        return
    found = trace_words(stored_contents(conn, trace_number))
    if found:
        conn.execute(sa.text(f"INSERT INTO {WORDS} ({WORDS}, rowid, words) VALUES ('delete', :trace, :words)"),
                     {"trace": trace_number, "words": " ".join(found)})


def _strings(value: Any) -> Iterator[str]:
    # A stack, not recursion: a hostile message may nest deeper than Python's recursion limit.
    pending = [value]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            pending.extend(reversed(value.values()))
        elif isinstance(value, list):
            pending.extend(reversed(value))
