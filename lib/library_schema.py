"""The library's tables: kept traces, stored content-addressed, and what the search filters read.

Each distinct message, system prompt and tool list is one row of `library_content`, keyed by its
digest; a round keeps how many messages it shares with the round before and the content numbers
of the ones it adds, so a conversation costs its unique content, not the square of it.
`library_trace_content` says which trace uses which content: delete keeps content another trace
still uses, and the text search goes from matching content to the traces holding it.

Text search runs in the database: PostgreSQL through a GIN index on the string values of each
message (`library_words`, split as SQLite splits them, no stemming), SQLite
through a contentless FTS5 table filled with the same words. No Streamlit, no SDK here.
"""

from __future__ import annotations

import zlib
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lib.annotations import AUTHOR_LIMIT

SEARCHED_BYTES = 500_000
"""Content longer than this (as JSON) is stored but not indexed for text search: PostgreSQL refuses
a text-search vector over 1 MB, and one pasted document should not swell the index."""

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
    sa.Column("tokens", sa.BigInteger, nullable=False, index=True),
    sa.Column("cost", sa.Float, nullable=True, index=True),
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
TABLES = (traces, content, trace_content, rounds, tool_calls, findings)
"""Every library table, parents first."""

WORDS = "library_words"
"""SQLite's contentless FTS5 table: one row per searchable content row, its rowid the content number."""

PG_WORDS = "library_words(raw)"
"""The text-search vector of a content row on PostgreSQL. Index and queries use this very expression,
or the index is not used."""

_PG_WORDS_FUNCTION = """
CREATE OR REPLACE FUNCTION library_words(raw text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('simple', regexp_replace(coalesce(string_agg(value #>> '{}', ' '), ''), '[^[:alnum:]]+', ' ', 'g'))
  FROM jsonb_path_query(CASE WHEN octet_length(raw) <= %d AND strpos(raw, '\\u0000') = 0
                             THEN raw::jsonb ELSE 'null'::jsonb END, 'strict $.**') AS value
  WHERE jsonb_typeof(value) = 'string'
$$""" % SEARCHED_BYTES
"""The words of a content row's string values, split at every character that is not a letter or digit, as
SQLite's unicode61 tokenizer splits them (PostgreSQL's own parser would keep `1580.17` or `-81265` whole).
A `\\u0000` escape, which jsonb refuses, leaves the row unsearched rather than unsaved."""

_SEARCHED = f"kind <> '{TOOLS}'"
"""Tool lists are not searched: the text search is over messages and tool results."""


def searched(kind: str) -> bool:
    """Whether content of this kind is in the text search."""
    return kind != TOOLS


def create(conn: Connection) -> None:
    """Create the library's tables and its text index (a migration step of lib/store.py)."""
    LIBRARY.create_all(conn, tables=list(TABLES))
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(_PG_WORDS_FUNCTION)
        conn.exec_driver_sql(f"CREATE INDEX library_content_words ON library_content USING gin (({PG_WORDS})) WITH (fastupdate = off) "
                             f"WHERE {_SEARCHED}")
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE {WORDS} USING fts5(words, content='', tokenize='unicode61')")


def words(raw: Any) -> str:
    """The words of a JSON value for SQLite's index: its string values, as PostgreSQL's jsonb_to_tsvector takes them."""
    return "\n".join(_strings(raw))


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
