"""The trace library at scale: 100,000 synthetic conversations of mixed lengths in one store.

Issue 20's targets, measured in one run:
- save throughput against the file import of the same content: seconds per conversation to save
  (figures, checks and the bulk inserts, `library.save_many` in batches) ÷ seconds per conversation
  to read the same conversations from their native files (`read_trace`); no target, the ratio is printed;
- p95 of the text search and of each filter over the whole library: at most 300 ms;
- storage bytes (tables, indexes and the text index) ÷ the sum of the unique content (each distinct
  message, system prompt and tool list once, plus each round's own body): at most 2.

PostgreSQL when ROUNDTRIP_TEST_POSTGRES_URL's server answers (in a schema of its own, dropped at the
end), SQLite otherwise. `--scale 0.01` runs 1,000 conversations for a quick look.

    .venv/bin/python -m bench.library [--scale 1.0] [--sqlite]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import orjson
import sqlalchemy as sa

from lib import library
from lib.annotations import Note, Rubric, Score
from lib.library import LibraryQuery, ToKeep
from lib.library_schema import TABLES, WORDS, content, rounds
from lib.logs.native import read_trace
from lib.store import open_store

CONVERSATIONS = 100_000
"""Conversations at scale 1."""
BATCH = 1_000
"""Conversations per save_many call."""
SEARCH_TARGET_MS = 300
STORAGE_TARGET = 2.0
QUERIES = 20
"""Timings per filter: its p95 is the 19th of 20."""

TOOL_NAMES = ("get_order", "refund_order", "track_parcel", "find_customer", "update_address", "cancel_order",
              "list_invoices", "check_stock", "open_ticket", "escalate", "send_email", "lookup_policy")
MODELS = ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5-mini", "deepseek-chat", "local-llama")
SOURCES = library.SOURCES
VOCABULARY = tuple(f"{stem}{n}" for stem in ("order", "parcel", "refund", "invoice", "courier", "address", "stock",
                                              "ticket", "policy", "customer", "warehouse", "payment")
                   for n in range(400))
"""4,800 words; drawn with a skew, as real text is."""


def _tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": f"{name.replace('_', ' ')} for one record.",
                                             "parameters": {"type": "object", "properties": {"id": {"type": "string"}},
                                                            "required": ["id"]}}}


def _words(rng: random.Random, count: int) -> str:
    return " ".join(VOCABULARY[min(int(rng.paretovariate(1.1)) - 1, len(VOCABULARY) - 1)]
                    if rng.random() < 0.5 else rng.choice(VOCABULARY) for _ in range(count))


def conversation(n: int) -> bytes:
    """Conversation n as a native trace file: 1 to 11 rounds, each but the last calling one tool."""
    rng = random.Random(n)
    model = MODELS[n % len(MODELS)]
    rounds_ = rng.randint(1, 11)
    offered = [_tool(name) for name in TOOL_NAMES[(n % 4) * 3:(n % 4) * 3 + 6]]
    lines = [{"kind": "trace", "version": 1, "title": f"Ticket {n}: {_words(rng, 3)}", "dialect": "openai-chat",
              "model": model}]
    messages = [{"role": "system", "content": f"You are the support agent of shop {n % 20}. Use the tools."},
                {"role": "user", "content": f"Customer {n} asks: {_words(rng, 25)}"}]
    for k in range(1, rounds_ + 1):
        usage = {"prompt_tokens": 120 * k + 200, "completion_tokens": 30, "total_tokens": 120 * k + 230}
        request = {"model": model, "messages": messages, "tools": offered}
        if k < rounds_:
            name = offered[rng.randrange(len(offered))]["function"]["name"]
            call = {"id": f"call_{n}_{k}", "type": "function",
                    "function": {"name": name, "arguments": orjson.dumps({"id": f"R-{n}-{k}"}).decode()}}
            assistant = {"role": "assistant", "content": None, "tool_calls": [call]}
            # One result in fifty comes back empty: the empty-tool-result check finds it.
            output = "" if rng.random() < 0.02 else orjson.dumps({"id": f"R-{n}-{k}", "note": _words(rng, 30)}).decode()
            response = {"object": "chat.completion", "model": model, "usage": usage,
                        "choices": [{"index": 0, "message": assistant, "finish_reason": "tool_calls"}]}
            lines.append({"kind": "round", "index": k, "request": request, "response": response, "executions": [
                {"tool_call_id": call["id"], "name": name, "arguments": {"id": f"R-{n}-{k}"}, "output": output}]})
            messages = messages + [assistant, {"role": "tool", "tool_call_id": call["id"], "content": output}]
        else:
            answer = {"role": "assistant", "content": f"Done: {_words(rng, 20)}"}
            lines.append({"kind": "round", "index": k, "request": request, "executions": [], "response": {
                "object": "chat.completion", "model": model, "usage": usage,
                "choices": [{"index": 0, "message": answer, "finish_reason": "stop"}]}})
    return b"\n".join(orjson.dumps(line) for line in lines) + b"\n"


def _fill(store, count: int) -> dict:
    """Save `count` conversations; timings, message references and the unique content's bytes."""
    import_s = save_s = 0.0
    references = 0
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        files = [conversation(n) for n in range(start, min(count, start + BATCH))]
        began = time.perf_counter()
        traces = [read_trace(data.splitlines())[0] for data in files]
        import_s += time.perf_counter() - began
        references += sum(len(r.request.messages) for t in traces for r in t.rounds)
        day = 1 + (start // BATCH) % 28
        began = time.perf_counter()
        ids = library.save_many(store, [ToKeep(t, SOURCES[i % 4], author="nightly") for i, t in enumerate(traces)],
                                saved=f"2026-11-{day:02d}T02:00:00Z")
        save_s += time.perf_counter() - began
        _annotate(store, ids, start)
        if start // BATCH % 10 == 9:
            print(f"  {start + BATCH:,} saved, {time.perf_counter() - started:.0f} s", flush=True)
    return {"import_s": import_s, "save_s": save_s, "references": references}


def _annotate(store, ids: list[str], start: int) -> None:
    # One conversation in twenty gets a note with a label and a score.
    store.import_notes(Note(id=str(uuid.UUID(int=start + i)), trace=trace_id, target="trace",
                            labels=(("costly",) if i % 40 else ("wrong tool",)), text=f"reviewed {_words(random.Random(i), 4)}",
                            author="ada", created="2026-11-30T10:00:00Z", scores=(Score("grounded", i % 4),))
                       for i, trace_id in enumerate(ids) if i % 20 == 0)


def _storage(store) -> tuple[int, int]:
    """(bytes the library takes on disk, bytes of its unique content)."""
    with store.engine.connect() as conn:
        unique = conn.execute(sa.select(sa.func.sum(sa.func.length(content.c.raw)))).scalar() or 0
        # Round bodies are stored compressed; their content is what they hold as JSON text.
        unique += sum(len(body) for body in conn.execution_options(yield_per=10_000).execute(sa.select(rounds.c.body)).scalars())
        if conn.dialect.name == "postgresql":
            names = [t.name for t in TABLES]
            used = sum(conn.execute(sa.text("SELECT pg_total_relation_size(:t)"), {"t": name}).scalar() for name in names)
        else:
            tables = {t.name for t in TABLES} | {n for n in sa.inspect(conn).get_table_names() if n.startswith(WORDS)}
            objects = [name for name, table in conn.exec_driver_sql("SELECT name, tbl_name FROM sqlite_master")
                       if table in tables]  # the tables and their indexes
            used = sum(conn.exec_driver_sql("SELECT sum(pgsize) FROM dbstat WHERE name = ?", (name,)).scalar() or 0
                       for name in objects)
    return used, unique


def _queries(count: int) -> dict[str, list[LibraryQuery]]:
    rng = random.Random(7)
    # Most words are drawn evenly: one is in about 2% of the conversations. The skewed draws make the first
    # words of the first stem (order0 to order3) ones that nearly every conversation holds.
    typical, others = [rng.choice(VOCABULARY[100:]) for _ in range(QUERIES)], [rng.choice(VOCABULARY) for _ in range(QUERIES)]
    everywhere = [VOCABULARY[i % 4] for i in range(QUERIES)]
    pages = [dict(offset=rng.randrange(0, max(1, count // 2)), limit=50) for _ in range(QUERIES)]
    return {
        "text, a typical word": [LibraryQuery(text=w) for w in typical],
        "text, two words": [LibraryQuery(text=f"{a} {b}") for a, b in zip(typical, others)],
        "text, a word nearly every conversation holds": [LibraryQuery(text=w) for w in everywhere],
        "tool": [LibraryQuery(tool=TOOL_NAMES[i % len(TOOL_NAMES)]) for i in range(QUERIES)],
        "model": [LibraryQuery(model=MODELS[i % len(MODELS)]) for i in range(QUERIES)],
        "finding code": [LibraryQuery(finding="empty-tool-result") for _ in range(QUERIES)],
        "finding severity": [LibraryQuery(severity=("warning", "error", "info")[i % 3]) for i in range(QUERIES)],
        "label": [LibraryQuery(label=("costly", "wrong tool")[i % 2]) for i in range(QUERIES)],
        "note": [LibraryQuery(note=f"reviewed {VOCABULARY[i]}") for i in range(QUERIES)],
        "source": [LibraryQuery(source=SOURCES[i % 4]) for i in range(QUERIES)],
        "date range": [LibraryQuery(saved_from=f"2026-11-{1 + i % 20:02d}", saved_to=f"2026-11-{5 + i % 20:02d}")
                       for i in range(QUERIES)],
        "rounds range": [LibraryQuery(rounds=(1 + i % 5, 3 + i % 5)) for i in range(QUERIES)],
        "tokens range": [LibraryQuery(tokens=(1000 + 100 * i, 3000 + 100 * i)) for i in range(QUERIES)],
        "cost range": [LibraryQuery(cost=(0.0001 * i, 0.0005 + 0.0001 * i)) for i in range(QUERIES)],
        "sorted by tokens, a deep page": [LibraryQuery(sort="tokens", **page) for page in pages],
        "score averages, one source": [LibraryQuery(source=SOURCES[i % 4]) for i in range(QUERIES)],
    }


def _p95_ms(store, name: str, queries: list[LibraryQuery]) -> tuple[float, str]:
    timings, total = [], "0"
    for query in queries:
        began = time.perf_counter()
        if name.startswith("score averages"):
            total = f"{len(library.score_averages(store, query)):,}"
        else:
            total = library.search(store, query).shown_total()
        timings.append((time.perf_counter() - began) * 1000)
    return statistics.quantiles(timings, n=20)[-1], total


def _when() -> str:
    # The machine is shared: every latency is read against the load it ran under.
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.1f}"


def _verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "ABOVE TARGET"


def _postgres_url() -> str | None:
    url = os.environ.get("ROUNDTRIP_TEST_POSTGRES_URL") or "postgresql+psycopg://roundtrip:roundtrip@127.0.0.1:5432/roundtrip_test"
    engine = sa.create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect():
            return url
    except sa.exc.OperationalError:
        return None
    finally:
        engine.dispose()


def run(scale: float, force_sqlite: bool) -> None:
    count = max(BATCH, int(CONVERSATIONS * scale))
    server = None if force_sqlite else _postgres_url()
    schema = f"bench_library_{uuid.uuid4().hex[:8]}"
    folder = tempfile.TemporaryDirectory()
    if server:
        admin = sa.create_engine(server)
        with admin.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
        url = sa.make_url(server).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    else:
        url = f"sqlite:///{Path(folder.name) / 'library.db'}"
    store = open_store(url)
    try:
        print(f"library bench: {count:,} conversations (--scale {scale}) on {store.engine.dialect.name}, {_when()}",
              flush=True)
        store.set_rubrics([Rubric("grounded", 0, 3)])
        filled = _fill(store, count)
        if server:
            with store.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")
        used, unique = _storage(store)
        ratio = filled["save_s"] / filled["import_s"]
        print(f"message references: {filled['references']:,}")
        print(f"save: {count / filled['save_s']:,.0f} conversations/s ({filled['save_s']:.0f} s); file import of the "
              f"same: {count / filled['import_s']:,.0f}/s ({filled['import_s']:.0f} s); save ÷ import {ratio:.2f} (no target)")
        for name, queries in _queries(count).items():
            p95, total = _p95_ms(store, name, queries)
            print(f"p95 {name}: {p95:.0f} ms ({total} found by the last) target <= {SEARCH_TARGET_MS} ms "
                  f"{_verdict(p95, SEARCH_TARGET_MS)}")
        print(f"storage: {used / 1e6:,.0f} MB for {unique / 1e6:,.0f} MB of unique content, {used / unique:.2f}x "
              f"target <= {STORAGE_TARGET}x {_verdict(used / unique, STORAGE_TARGET)}")
        print(f"done {_when()}")
    finally:
        store.close()
        if server:
            with admin.begin() as conn:
                conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
            admin.dispose()
        folder.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.library", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 100,000 conversations (0.01: 1,000)")
    parser.add_argument("--sqlite", action="store_true", help="use SQLite even when the PostgreSQL server answers")
    args = parser.parse_args()
    run(args.scale, args.sqlite)


if __name__ == "__main__":
    main()
