"""The trace library's store: save, load, link and delete kept traces, on a real SQLite file and a
real PostgreSQL server. Searching is in tests/test_library_search.py."""

from __future__ import annotations

import json
from dataclasses import replace

import sqlalchemy as sa

from lib import catalog, library
from lib.checks import run_checks
from lib.encodings import encoding_name_for_model
from lib.fingerprint import fingerprint
from lib.logs.native import read_trace, write_trace
from lib.logs.upload import read_upload
from lib.library_schema import BILLING, ESTIMATE_OF_WHAT_THE_LOG_HOLDS, LEFT_OUT
from lib.store import MIGRATIONS, open_store
from lib.summary import snowball, summarize
from lib.tokens import CHARACTER_COUNTER, counter_for
from tests.conftest import load_bundled
from tests.databases import database_url, postgres_url, sqlite_url, store  # noqa: F401 (fixtures)
from tests.synthetic import synthetic_lines, synthetic_log


def _trace(name: str):
    return load_bundled(name).trace


def _synthetic(rounds: int):
    return read_trace(list(synthetic_lines(rounds, record_words=20)))[0]


def rows_per_table(store) -> dict[str, int]:
    """Every table's row count, SQLite's text index tables included."""
    names = sa.inspect(store.engine).get_table_names()
    with store.engine.connect() as conn:
        return {name: conn.execute(sa.text(f'SELECT count(*) FROM "{name}"')).scalar() for name in names
                if not name.endswith(("_data", "_idx", "_config")) and name != "library_words"}


def test_every_bundled_trace_comes_back_as_the_file_reader_reads_it_with_the_same_figures_and_findings(store):
    for bundled in catalog.bundled_traces():
        trace = _trace(bundled.name)
        trace_id = library.save(store, trace, source="upload")
        back = library.load(store, trace_id)
        assert back == read_trace(list(write_trace(trace)))[0], bundled.name
        assert back.rounds == trace.rounds
        assert summarize(back, CHARACTER_COUNTER) == summarize(trace, CHARACTER_COUNTER)
        assert run_checks(back) == run_checks(trace)
        assert [r.request.raw for r in back.rounds] == [r.request.raw for r in trace.rounds]


def test_the_raw_bodies_keep_their_key_order_so_the_explorer_shows_them_as_the_file_did(store):
    trace = _trace("order-status-anthropic")
    back = library.load(store, library.save(store, trace, source="upload"))
    for kept, original in zip(back.rounds, trace.rounds):
        assert list(kept.request.raw) == list(original.request.raw)
        assert [list(m) for m in kept.request.raw["messages"]] == [list(m) for m in original.request.raw["messages"]]
        assert list(kept.response.raw) == list(original.response.raw)


def test_a_conversation_of_an_uploaded_log_comes_back_with_its_rounds(store):
    upload = read_upload([("pairs.jsonl", synthetic_log(conversations=2, rounds=4))])
    ids = [library.save(store, c.trace, source="upload") for c in upload.conversations]
    assert len(set(ids)) == 2
    for conversation, trace_id in zip(upload.conversations, ids):
        back = library.load(store, trace_id)
        assert back.rounds == conversation.trace.rounds
        assert summarize(back, CHARACTER_COUNTER) == summarize(conversation.trace, CHARACTER_COUNTER)


def test_the_id_is_the_fingerprint_notes_use_and_the_link_opens_it(store):
    trace = _trace("hengxin-expense")
    trace_id = library.save(store, trace, source="upload", title="Expense claim, week 48", author="ada@example.org")
    assert trace_id == fingerprint(trace)
    assert library.link(trace_id) == f"?trace={trace_id}"
    back = library.load(store, trace_id)
    assert back.title == "Expense claim, week 48"
    assert library.load(store, "0" * 64) is None


def test_saving_the_same_content_twice_gives_the_same_id_and_stores_nothing_more(store):
    trace = _trace("larkfield-get-order")
    first = library.save(store, trace, source="upload")
    before = rows_per_table(store)
    assert library.save(store, trace, source="capture", title="again") == first
    assert rows_per_table(store) == before


def test_saving_again_a_kept_trace_from_a_file_carrying_notes_keeps_its_notes(store):
    """A trace saved from a capture, then the same conversation uploaded as a file carrying annotation lines and
    saved: the kept trace is the capture's, and the file's notes are kept with it, once however often it is saved."""
    trace = _trace("hengxin-expense")
    trace_id = library.save(store, trace, source="capture")
    opened = library.OpenedTraces(store)
    assert opened.open(trace_id).trace.annotations == ()
    note = {"kind": "annotation", "id": "note-1", "target": "round:2", "labels": ["costly"],
            "note": "The whole policy is resent.", "author": "Ada", "created": "2026-12-01T09:00:00Z"}
    by_hand = {"kind": "annotation", "target": "trace", "labels": [], "note": "Good example.", "author": "Bo"}
    written = "\n".join([*write_trace(trace), json.dumps(note), json.dumps(by_hand)]).encode()
    [conversation] = read_upload([("expense-notes.jsonl", written)]).conversations
    for _ in range(2):
        assert library.save(store, conversation.trace, source="upload") == trace_id
    assert library.load(store, trace_id).annotations == (note, by_hand)
    assert opened.open(trace_id).trace.annotations == (note, by_hand)  # not the copy read before the notes came
    assert library.load(store, trace_id).lessons == trace.lessons


def test_the_same_conversation_twice_in_one_batch_keeps_the_notes_of_each(store):
    trace = _trace("hengxin-expense")
    first = {"kind": "annotation", "id": "note-1", "target": "trace", "labels": [], "note": "one", "author": "Ada"}
    second = {**first, "id": "note-2", "note": "two"}
    kept = [library.ToKeep(replace(trace, annotations=(first,)), "upload"),
            library.ToKeep(replace(trace, annotations=(second,)), "upload")]
    [trace_id, again] = library.save_many(store, kept)
    assert again == trace_id
    assert {line["id"] for line in library.load(store, trace_id).annotations} == {"note-1", "note-2"}


def test_a_200_round_conversation_stores_rows_and_bytes_linear_in_its_unique_content(store):
    short, long = _synthetic(100), _synthetic(200)
    empty = rows_per_table(store)
    library.save(store, short, source="upload")
    after_short = rows_per_table(store)
    library.save(store, long, source="upload")
    after_long = rows_per_table(store)
    short_rows = sum(after_short.values()) - sum(empty.values())
    long_rows = sum(after_long.values()) - sum(after_short.values())
    # 200 rounds send 40,200 message references and hold 401 distinct messages (tests/test_interning.py).
    assert sum(len(r.request.messages) for r in long.rounds) > 40_000
    assert long.unique_messages < 410
    assert long_rows <= 4 * long.unique_messages
    assert 1.7 < (long_rows + short_rows) / short_rows < 3.3  # twice the rounds: about twice the rows, not four times
    with store.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT sum(length(body) + length(refs)) FROM library_rounds")).scalar()
        stored += conn.execute(sa.text("SELECT sum(length(raw)) FROM library_content")).scalar()
    file_bytes = sum(len(line) for line in synthetic_lines(200, record_words=20))
    assert stored < file_bytes / 20


def test_deleting_removes_rounds_and_unshared_content_and_keeps_what_another_trace_uses(store):
    empty = rows_per_table(store)
    hengxin, shared = _trace("hengxin-expense"), _synthetic(6)
    other = read_trace(list(synthetic_lines(8, record_words=20)))[0]  # starts with the same system prompt
    assert shared.rounds[0].request.messages[0] == other.rounds[0].request.messages[0]
    first, second = library.save(store, shared, source="upload"), library.save(store, other, source="live")
    library.save(store, hengxin, source="upload")
    with_all = rows_per_table(store)

    assert library.delete(store, first)
    assert library.load(store, first) is None
    assert library.load(store, second).rounds == other.rounds  # the shared system prompt is still there
    assert library.search(store, library.LibraryQuery(text="records one at a time")).total == 1
    assert library.delete(store, second)
    assert not library.delete(store, second)
    assert library.search(store, library.LibraryQuery(text="records one at a time")).total == 0

    hengxin_id = fingerprint(hengxin)
    assert library.delete(store, hengxin_id)
    assert rows_per_table(store) == empty
    assert with_all != empty


def test_an_unknown_source_is_refused_with_a_clear_message(store):
    try:
        library.save(store, _trace("loan-calculator"), source="email")
    except library.LibraryError as exc:
        assert "'email' is not a source; expected one of upload, capture, live, fork" in str(exc)
    else:
        raise AssertionError("saved with an unknown source")


def test_a_kept_trace_opens_as_the_explorer_takes_a_loaded_trace(store):
    trace = _trace("order-status-anthropic")
    trace_id = library.save(store, trace, source="live")
    opened = library.open_kept(store, trace_id)
    assert (opened.name, opened.problems) == (trace.title, ())
    assert opened.digest.startswith(f"library:{trace_id}:")  # and the saving it was read from
    assert opened.trace.rounds == trace.rounds
    assert library.open_kept(store, "f" * 64) is None


def test_a_trace_deleted_through_one_replica_no_longer_opens_through_another_that_holds_it(store, database_url):
    """Each replica keeps the traces it read in memory, on its own connection to the one database."""
    other = open_store(database_url)
    here, there = library.OpenedTraces(store), library.OpenedTraces(other)
    trace = _trace("hengxin-expense")
    trace_id = library.save(store, trace, source="upload", title="Week 48")
    held = there.open(trace_id)
    assert held.trace.rounds == trace.rounds
    assert there.open(trace_id) is held  # read once: later opens check the database, not parse again

    assert library.delete(store, trace_id)
    assert there.open(trace_id) is None
    assert here.open(trace_id) is None

    library.save(store, trace, source="upload", title="Week 49")  # the same content, so the same id, saved again
    assert there.open(trace_id).trace.title == "Week 49"
    other.close()


def test_a_message_holding_a_nul_character_is_kept_and_loads_back(store):
    lines = list(synthetic_lines(2))
    first = json.loads(lines[1])
    first["request"]["messages"][1]["content"] = "order \u0000 nul marker"
    lines[1] = json.dumps(first)
    trace = read_trace(lines)[0]
    trace_id = library.save(store, trace, source="upload", title="a title with \u0000 inside")
    back = library.load(store, trace_id)
    assert back.rounds == trace.rounds
    assert back.rounds[0].request.messages[1].raw["content"] == "order \u0000 nul marker"
    assert library.search(store, library.LibraryQuery(text="records")).total == 1  # the rest is searched as ever
    assert library.delete(store, trace_id)


def test_traces_kept_before_the_per_trace_text_index_are_found_and_deleted_after_the_upgrade(database_url, monkeypatch):
    # Schema version 2 indexed each content row; a trace kept then has no row of words until version 3 makes it.
    older = open_store(database_url, migrations=MIGRATIONS[:2])
    monkeypatch.setattr(library, "add_words", lambda conn, by_trace: None)
    _rows_as_before_version_4(monkeypatch)
    larkfield = library.save(older, _trace("larkfield-get-order"), source="capture")
    hengxin = library.save(older, _trace("hengxin-expense"), source="upload")
    older.close()
    monkeypatch.undo()

    upgraded = open_store(database_url)
    assert upgraded.version() == len(MIGRATIONS)
    found = library.search(upgraded, library.LibraryQuery(text="81265 garden"))
    assert [row.id for row in found.rows] == [larkfield]
    assert library.delete(upgraded, larkfield)
    assert library.search(upgraded, library.LibraryQuery(text="81265")).total == 0
    assert [row.id for row in library.search(upgraded, library.LibraryQuery(text="hengxin")).rows] == [hengxin]
    upgraded.close()


def test_a_trace_of_very_long_words_and_a_huge_vocabulary_is_kept_and_its_first_words_searched(store):
    # PostgreSQL refuses a lexeme over 2,046 bytes and a text-search vector over 1 MB: neither may refuse the save.
    lines = list(synthetic_lines(4))
    first = json.loads(lines[1])
    many = " ".join(f"w{n:06d}" for n in range(60_000))
    first["request"]["messages"][1]["content"] = f"lookup {'x' * 3_000} {many}"
    lines[1] = json.dumps(first)
    second = json.loads(lines[2])
    second["request"]["messages"][1]["content"] = first["request"]["messages"][1]["content"]
    second["request"]["messages"][3]["content"] = " ".join(f"z{n:06d}" for n in range(70_000))
    lines[2] = json.dumps(second)
    trace = read_trace(lines)[0]
    trace_id = library.save(store, trace, source="upload")
    assert library.load(store, trace_id).rounds == trace.rounds
    assert library.search(store, library.LibraryQuery(text="w000001 w059999 lookup")).total == 1
    assert library.search(store, library.LibraryQuery(text="x" * 3_000)).total == 0  # too long a word to index
    assert library.search(store, library.LibraryQuery(text="z069999")).total == 0  # past the 1 MB of words
    assert library.delete(store, trace_id)
    assert library.search(store, library.LibraryQuery(text="lookup")).total == 0


def test_a_save_that_meets_content_another_replica_stored_meanwhile_tries_again_and_keeps_the_trace(store, monkeypatch):
    first, second = _synthetic(6), read_trace(list(synthetic_lines(8, record_words=20)))[0]  # the same system prompt
    library.save(store, first, source="upload")
    looked_up, lookups = library._numbers, []

    def blind_once(conn, key, number, keys):
        # The first look finds no content, as if another replica stored the shared prompt just after it.
        lookups.append(key.name)
        return {} if lookups.count("digest") == 1 else looked_up(conn, key, number, keys)

    monkeypatch.setattr(library, "_numbers", blind_once)
    second_id = library.save(store, second, source="live")
    assert lookups.count("digest") == 2  # the insert met the stored prompt's digest, and the save went again
    assert library.load(store, second_id).rounds == second.rounds
    assert library.search(store, library.LibraryQuery(text="records one at a time")).total == 2


def _rows_as_before_version_6(monkeypatch, *dropped: str) -> None:
    """Saves write library_traces rows as the code before schema version 6 did: without the columns it adds (nor
    `dropped`), a round whose tokens are not known counted as 0 and its input alone priced."""
    from lib.prices import DEFAULT_PRICES, trace_cost
    marked = library._trace_row

    def old_row(item, *given):
        figures = library._figures(item.trace)
        ball = snowball(figures)
        # Every known input, a call whose billing the log does not say included, as that code summed it.
        row = {**marked(item, *given), "tokens": sum(r.input_if_known or 0 for r in figures) + ball.output,
               "tokens_estimated": bool(ball.estimated_calls),
               "cost": trace_cost(((r.model, r.usage) for r in figures), DEFAULT_PRICES).total}
        return {name: value for name, value in row.items()
                if name not in (*LEFT_OUT, ESTIMATE_OF_WHAT_THE_LOG_HOLDS, *BILLING, *dropped)}

    monkeypatch.setattr(library, "_trace_row", old_row)


def _rows_as_before_version_4(monkeypatch) -> None:
    """Saves write library_traces rows as the code before schema version 4 did: without tokens_estimated."""
    _rows_as_before_version_6(monkeypatch, "tokens_estimated")


def _tokens_page_total(trace) -> tuple[int | None, bool]:
    """The trace's tokens in and out as the Tokens page gives them under the automatic tokenizer, and whether any
    round's are our estimate."""
    ball = snowball(summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter))
    return ball.tokens, bool(ball.estimated_calls)


def test_a_trace_whose_rounds_report_no_usage_is_kept_with_its_tokens_marked_estimated(store):
    # Hengxin's log reports usage on one round of four, Larkfield's on both of its rounds.
    hengxin, larkfield = _trace("hengxin-expense"), _trace("larkfield-get-order")
    ids = {library.save(store, hengxin, source="upload"): hengxin, library.save(store, larkfield, source="upload"): larkfield}
    rows = {row.id: row for row in library.search(store, library.LibraryQuery()).rows}
    for trace_id, trace in ids.items():
        assert (rows[trace_id].tokens, rows[trace_id].tokens_estimated) == _tokens_page_total(trace)
    assert rows[fingerprint(hengxin)].tokens_estimated and not rows[fingerprint(larkfield)].tokens_estimated
    # The figure stored is the one a tokens range filters on.
    total = rows[fingerprint(hengxin)].tokens
    assert [row.id for row in library.search(store, library.LibraryQuery(tokens=(total, total))).rows] == [fingerprint(hengxin)]


def test_traces_kept_before_tokens_were_marked_estimated_are_marked_by_the_upgrade(database_url, monkeypatch):
    older = open_store(database_url, migrations=MIGRATIONS[:3])
    _rows_as_before_version_4(monkeypatch)
    hengxin = library.save(older, _trace("hengxin-expense"), source="upload")
    larkfield = library.save(older, _trace("larkfield-get-order"), source="capture")
    older.close()
    monkeypatch.undo()

    upgraded = open_store(database_url)
    assert upgraded.version() == len(MIGRATIONS) >= 4
    rows = {row.id: row for row in library.search(upgraded, library.LibraryQuery()).rows}
    assert (rows[hengxin].tokens, rows[hengxin].tokens_estimated) == _tokens_page_total(_trace("hengxin-expense"))
    assert (rows[larkfield].tokens, rows[larkfield].tokens_estimated) == _tokens_page_total(_trace("larkfield-get-order"))
    upgraded.close()


def test_a_library_kept_when_unknown_figures_counted_as_0_is_upgraded_without_losing_a_row(database_url, monkeypatch):
    # Schema version 5 stored ticket-8's tokens as its input alone and priced that: its answer is not in the log.
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([("requests.jsonl", (FIXTURES / "anthropic-batch-requests.jsonl").read_bytes())])
    ticket_8 = next(c.trace for c in upload.conversations if c.id == "ticket-8")
    older = open_store(database_url, migrations=MIGRATIONS[:5])
    _rows_as_before_version_6(monkeypatch)
    unknown = library.save(older, ticket_8, source="upload")
    larkfield = library.save(older, _trace("larkfield-get-order"), source="capture")
    monkeypatch.undo()
    with older.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT tokens, cost FROM library_traces WHERE id = :id"), {"id": unknown}).one()
    assert stored.tokens > 0 and stored.cost > 0  # a figure that was not true
    before = rows_per_table(older)
    older.close()

    upgraded = open_store(database_url)
    assert upgraded.version() == len(MIGRATIONS) == 8
    assert rows_per_table(upgraded) == {**before, "schema_version": 8}
    assert library.load(upgraded, unknown).rounds == ticket_8.rounds
    rows = {row.id: row for row in library.search(upgraded, library.LibraryQuery()).rows}
    assert (rows[unknown].tokens, rows[unknown].tokens_words, rows[unknown].cost_words) == (None, "not known",
                                                                                          "not known")
    assert (rows[larkfield].tokens, rows[larkfield].tokens_left_out) == (_tokens_page_total(
        _trace("larkfield-get-order"))[0], 0)
    small = library.search(upgraded, library.LibraryQuery(tokens=(None, 100_000), cost=(None, 1.0)))
    assert [row.id for row in small.rows] == [larkfield]
    # A sort by either figure, the unknown last, walks an index in each direction instead of sorting every trace.
    indexed = {index["name"] for index in sa.inspect(upgraded.engine).get_indexes("library_traces")}
    assert indexed >= {f"library_traces_{figure}_{way}" for figure in ("tokens", "cost") for way in ("up", "down")}
    upgraded.close()


def _goose():
    """Goose's session log: it reports no usage per call and never keeps the instructions or the tool list sent."""
    from tests.screen import FIXTURES
    upload = read_upload([("goose-session.jsonl", (FIXTURES / "goose-session.jsonl").read_bytes())])
    return upload.conversations[0].trace


def test_an_agent_sessions_estimate_is_kept_as_one_of_what_the_log_holds_only(store):
    goose, hengxin = _goose(), _trace("hengxin-expense")
    kept = {library.save(store, trace, source="upload"): trace for trace in (goose, hengxin)}
    rows = {row.id: row for row in library.search(store, library.LibraryQuery()).rows}
    assert rows[fingerprint(goose)].tokens_estimated and rows[fingerprint(goose)].estimate_of_what_the_log_holds
    # Hengxin's requests are whole: its estimate counts all that was sent.
    assert rows[fingerprint(hengxin)].tokens_estimated and not rows[fingerprint(hengxin)].estimate_of_what_the_log_holds
    exported = {line.split(",")[0]: line for line in library.export_csv(store, library.LibraryQuery()).splitlines()}
    assert ",yes, of what the log holds only," in exported[fingerprint(goose)].replace('"', "")
    assert len(kept) == 2


def test_traces_kept_before_version_7_are_marked_by_the_upgrade(database_url, monkeypatch):
    older = open_store(database_url, migrations=MIGRATIONS[:6])
    marked = library._trace_row
    monkeypatch.setattr(library, "_trace_row", lambda *given: {
        name: value for name, value in marked(*given).items()
        if name not in (ESTIMATE_OF_WHAT_THE_LOG_HOLDS, *BILLING)})
    goose = library.save(older, _goose(), source="upload")
    hengxin = library.save(older, _trace("hengxin-expense"), source="upload")
    older.close()
    monkeypatch.undo()

    upgraded = open_store(database_url)
    rows = {row.id: row for row in library.search(upgraded, library.LibraryQuery()).rows}
    assert rows[goose].estimate_of_what_the_log_holds and not rows[hengxin].estimate_of_what_the_log_holds
    upgraded.close()


def _refused():
    """Groq's recorded tool_use_failed: round 1's generation refused with HTTP 400, no usage reported; rounds 2 and
    3 reported."""
    from tests.screen import FIXTURES
    name = "openai-compatible-tool-use-failed.jsonl"
    return read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace


REFUSED_LEFT_OUT = "1 failed call left out: whether it was billed is not in the log"
"""What every view says of a figure the refused call is left out of (lib.prices.calls_left_out_words)."""


def test_a_refused_call_is_left_out_of_a_kept_traces_tokens_and_cost_as_the_tokens_page_leaves_it(store):
    # The Library summed the refused call's estimate in (≈ 988) and said nothing of it; the Tokens page's input billed
    # (637) and cost leave it out: whether the provider billed it is not in the log.
    refused = _refused()
    kept = library.save(store, refused, source="upload")
    row = next(row for row in library.search(store, library.LibraryQuery()).rows if row.id == kept)
    assert (row.tokens, row.tokens_known) == (None, 637 + 148)
    ball = snowball(library._figures(refused))
    assert ball.billed_input_figure == "637" and ball.output_figure == "148"
    assert row.tokens_words == f"785 ({REFUSED_LEFT_OUT})" == ball.tokens_words
    # Its model has no price: the cost reads so, as on the Tokens page, not "not known".
    assert row.cost_words == f"no price ({REFUSED_LEFT_OUT})"
    assert row.unpriced == ("openai/gpt-oss-120b",)


def test_a_refused_call_kept_before_version_8_is_left_out_after_the_upgrade(database_url, monkeypatch):
    older = open_store(database_url, migrations=MIGRATIONS[:7])
    marked = library._trace_row

    def as_version_7(item, *given):
        # Version 7 summed every call whose tokens in and out were known, a refused call's estimate among them.
        figures = library._figures(item.trace)
        summed = [r for r in figures if r.input_if_known is not None and r.output_if_known is not None]
        row = {**marked(item, *given), "tokens": sum(r.usage.input_tokens + r.usage.output_tokens for r in summed),
               "tokens_estimated": any(r.usage.source != "reported" for r in summed),
               "tokens_left_out": len(figures) - len(summed)}
        return {name: value for name, value in row.items() if name not in BILLING}

    monkeypatch.setattr(library, "_trace_row", as_version_7)
    refused = library.save(older, _refused(), source="upload")
    larkfield = library.save(older, _trace("larkfield-get-order"), source="capture")
    monkeypatch.undo()
    with older.engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT tokens, tokens_estimated, tokens_left_out FROM library_traces "
                                      "WHERE id = :id"), {"id": refused}).one()
    # The figure the Library showed: "≈ 988", nothing left out.
    assert (stored.tokens, bool(stored.tokens_estimated), stored.tokens_left_out) == (988, True, 0)
    before = rows_per_table(older)
    older.close()

    upgraded = open_store(database_url)
    rows = {row.id: row for row in library.search(upgraded, library.LibraryQuery()).rows}
    assert (rows[refused].tokens_words, rows[refused].cost_words) == (f"785 ({REFUSED_LEFT_OUT})",
                                                                      f"no price ({REFUSED_LEFT_OUT})")
    assert upgraded.version() == len(MIGRATIONS) == 8
    assert rows_per_table(upgraded) == {**before, "schema_version": 8}
    assert rows[larkfield].tokens == _tokens_page_total(_trace("larkfield-get-order"))[0]
    # Left out, it is not known whole: a highest value filtered on leaves it out, as it leaves out every such trace.
    assert [row.id for row in library.search(upgraded, library.LibraryQuery(tokens=(None, 100_000))).rows] == [
        larkfield]
    upgraded.close()


def test_a_kept_trace_whose_round_called_another_model_says_the_call_is_not_in_its_cost(store):
    # vercel/ai's recording: claude-sonnet-4-6 consulted the advisor tool, a call to claude-opus-4-7 inside the round,
    # billed at that model's rates, which have no default price. The Library wrote the cost of Sonnet's tokens alone.
    from tests.screen import FIXTURES
    name = "vercel-anthropic-advisor-usage.json"
    trace = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations[0].trace
    kept = library.save(store, trace, source="upload")
    row = next(row for row in library.search(store, library.LibraryQuery()).rows if row.id == kept)
    assert row.cost_words == "US$0.05524 (one call to another model inside a round, not in the cost: its model has no price)"
    assert row.unpriced == ("claude-opus-4-7",)
    (round_,) = library.open_kept(store, kept).trace.rounds
    assert [c.model for c in round_.response.usage.other_model_calls] == ["claude-opus-4-7"]


def test_a_kept_trace_still_says_which_messages_the_provider_held(store):
    # openai-dotnet's recording of a conversation created with a system message, then a call in it: the system
    # message is the held one, which the library's copy must keep saying, or the question reads as held instead.
    from pathlib import Path
    from lib.growth import held_indices
    path = Path(__file__).parent / "fixtures" / "containers" / "openai-dotnet-conversation-created-with-instructions.json"
    (conversation,) = read_upload([(path.name, path.read_bytes())]).conversations
    trace_id = library.save(store, conversation.trace, source="upload")
    (round_,) = library.open_kept(store, trace_id).trace.rounds
    assert [round_.request.messages[i].role for i in held_indices(round_)] == ["system"]
