"""The notes store, each test against a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import uuid
from dataclasses import replace
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from lib import catalog, library_schema
from lib.annotations import DEFAULT_LABELS, Note, annotated, notes_from_lines
from lib.fingerprint import fingerprint
from lib.library_schema import WORDS
from lib.logs.native import write_trace
import lib.store
from lib.store import MIGRATIONS, StoreUnavailable, not_created_yet, open_store, schema_version
from tests.conftest import load_bundled
from tests.databases import database_url, postgres_url, sqlite_url, store, wipe  # noqa: F401 (fixtures)


def _note(text: str = "Passed the amounts as strings", trace: str = "fp-hengxin", target: str = "round:2",
          labels: tuple[str, ...] = ("bad arguments",), author: str = "Ada") -> Note:
    return Note(id=str(uuid.uuid4()), trace=trace, target=target, labels=labels, text=text, author=author,
                created="2026-11-29T10:00:00Z", trace_title="Hengxin expense reimbursement", trace_name="hengxin-expense")


def test_a_saved_note_comes_back_whole_with_its_labels_in_their_order(store):
    note = _note(labels=("wrong tool", "costly", "bad arguments"), text="Wrong tool\n\tand «costly» ✓")
    store.add(note)
    assert store.notes("fp-hengxin") == (note,)


def test_notes_are_listed_per_trace_and_all_together(store):
    mine, other = _note(), _note(trace="fp-loan", text="Another trace")
    store.add(mine)
    store.add(other)
    assert store.notes("fp-hengxin") == (mine,)
    assert {n.text for n in store.notes()} == {mine.text, other.text}


def test_editing_replaces_text_and_labels_and_deleting_removes_only_that_note(store):
    kept, edited, deleted = _note("kept"), _note("draft"), _note("deleted")
    for note in (kept, edited, deleted):
        store.add(note)
    assert store.edit(edited.id, "final", ["hallucinated", "costly"])
    assert store.delete(deleted.id)
    found = {n.id: n for n in store.notes()}
    assert set(found) == {kept.id, edited.id}
    assert (found[edited.id].text, found[edited.id].labels) == ("final", ("hallucinated", "costly"))
    assert found[kept.id] == kept
    assert not store.edit(deleted.id, "too late", []) and not store.delete(deleted.id)


def test_a_new_database_starts_at_the_latest_schema_version_with_the_default_labels(store):
    assert store.version() == len(MIGRATIONS)
    assert store.labels() == DEFAULT_LABELS


def test_the_label_set_is_editable_and_notes_keep_labels_it_no_longer_has(store):
    note = _note(labels=("costly",))
    store.add(note)
    store.set_labels(["tool misuse", "correct"])
    assert store.labels() == ("tool misuse", "correct")
    assert store.notes()[0].labels == ("costly",)


def test_importing_the_same_notes_twice_adds_nothing(store):
    notes = [_note(f"note {i}") for i in range(3)]
    store.add(notes[0])
    assert store.import_notes(notes) == 2
    assert store.import_notes(notes) == 0
    assert sorted(n.text for n in store.notes()) == ["note 0", "note 1", "note 2"]


def test_concurrent_sessions_adding_and_editing_notes_on_one_trace_lose_nothing(database_url):
    servers = [open_store(database_url) for _ in range(3)]  # three app servers, each with its own engine
    shared = _note("shared", labels=())
    servers[0].add(shared)

    def session(worker: int) -> None:
        store = servers[worker % len(servers)]
        for i in range(8):
            note = _note(f"draft {worker}/{i}")
            store.add(note)
            assert store.edit(note.id, f"final {worker}/{i}", ["costly", "wrong tool"])
            assert store.edit(shared.id, f"edited by {worker}", [DEFAULT_LABELS[worker], "question for class"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(session, range(8)))
    found = servers[1].notes("fp-hengxin")
    assert sorted(n.text for n in found if n.id != shared.id) == sorted(f"final {w}/{i}" for w in range(8) for i in range(8))
    assert all(n.labels == ("costly", "wrong tool") for n in found if n.id != shared.id)
    last = next(n for n in found if n.id == shared.id)
    worker = int(last.text.removeprefix("edited by "))
    assert last.labels == (DEFAULT_LABELS[worker], "question for class")  # one edit whole, never two mixed
    for server in servers:
        server.close()


def test_annotate_export_wipe_import_brings_every_note_back_on_its_target_and_twice_adds_nothing(store):
    loaded = load_bundled("hengxin-expense")
    fp = fingerprint(loaded.trace)
    targets = ["trace", "round:1", "round:2/step:3", "round:2/request.messages[3]",
               "round:2/response.choices[0].message.tool_calls[0]", "round:1/executions[1]", "round:9"]
    written = [_note(f"about {t}", trace=fp, target=t, labels=(DEFAULT_LABELS[i],)) for i, t in enumerate(targets)]
    for note in written:
        store.add(note)
    exported = ("\n".join(write_trace(annotated(loaded.trace, fp, store.notes(fp)))) + "\n").encode()

    wipe(store)
    fresh = open_store(store.url)
    assert fresh.notes() == ()
    reopened = catalog.load_bytes(exported, "my copy.jsonl")
    assert reopened.problems == () and fingerprint(reopened.trace) == fp
    found = notes_from_lines(reopened.trace, fp, reopened.name, fresh.labels(), importer="Ada")
    assert found.problems == ()
    assert fresh.import_notes(found.notes) == len(written)
    assert fresh.import_notes(found.notes) == 0

    def essence(notes):
        return {n.id: (n.target, n.labels, n.text, n.author, n.created) for n in notes}
    assert essence(fresh.notes(fp)) == essence(written)
    fresh.close()


def test_an_upgrade_keeps_every_note(database_url):
    first = open_store(database_url)
    for text in ("one", "two"):
        first.add(_note(text))
    before = first.notes()
    first.close()

    def add_review_column(conn):
        conn.exec_driver_sql("ALTER TABLE notes ADD COLUMN reviewed VARCHAR(10)")

    upgraded = open_store(database_url, MIGRATIONS + (add_review_column,))
    assert upgraded.version() == len(MIGRATIONS) + 1
    assert upgraded.notes() == before
    upgraded.close()


def test_a_failed_upgrade_leaves_the_notes_and_the_version_as_they_were(database_url):
    first = open_store(database_url)
    first.add(_note("precious"))
    before = first.notes()

    def broken(conn):
        conn.exec_driver_sql("DELETE FROM notes")
        conn.exec_driver_sql("ALTER TABLE notes ADD COLUMN half_done INTEGER")
        raise RuntimeError("a bug in the migration")

    with pytest.raises(StoreUnavailable, match=f"to schema version {len(MIGRATIONS) + 1} failed .a bug in the migration."):
        open_store(database_url, MIGRATIONS + (broken,))
    assert first.version() == len(MIGRATIONS)
    assert first.notes() == before
    first.close()


def test_a_database_from_a_newer_roundtrip_is_refused_and_left_untouched(database_url):
    first = open_store(database_url)
    first.add(_note("from the future"))
    with first.engine.begin() as conn:
        conn.execute(schema_version.insert().values(version=99, applied="2030-01-01T00:00:00Z"))
    with pytest.raises(StoreUnavailable, match="has schema version 99; this Roundtrip knows up to"):
        open_store(database_url)
    assert [n.text for n in first.notes()] == ["from the future"]
    first.close()


def test_an_unreachable_server_gets_a_clear_message_that_hides_the_password():
    with pytest.raises(StoreUnavailable) as caught:
        open_store("postgresql+psycopg://roundtrip:s3cret@127.0.0.1:1/notes")
    message = str(caught.value)
    assert "The notes database at postgresql+psycopg://***@127.0.0.1:1/notes cannot be used" in message
    assert "s3cret" not in message and "roundtrip" not in message


def test_a_url_is_shown_without_its_user_info_or_any_credential_in_its_query():
    shown = lib.store.shown("postgresql+psycopg://ada:s3cret@db.example:5432/notes"
                            "?password=sentinel1&sslmode=require&SSLPassword=sentinel2&Token=sentinel3"
                            "&api_key=sentinel4&sslkey=/home/ada/sentinel5.key&application_name=roundtrip")
    assert shown == ("postgresql+psycopg://***@db.example:5432/notes?password=***&sslmode=require&SSLPassword=***"
                     "&Token=***&api_key=***&sslkey=***&application_name=roundtrip")
    assert lib.store.shown("postgresql+psycopg://ada@db.example/notes") == "postgresql+psycopg://***@db.example/notes"
    assert lib.store.shown("sqlite:////srv/roundtrip/notes.db") == "sqlite:////srv/roundtrip/notes.db"


def test_an_unreachable_server_named_with_a_password_parameter_gets_a_message_without_it():
    with pytest.raises(StoreUnavailable) as caught:
        open_store("postgresql+psycopg://127.0.0.1:1/notes?password=sentinel&sslpassword=sentinel")
    message = str(caught.value)
    assert "The notes database at postgresql+psycopg://127.0.0.1:1/notes?password=***&sslpassword=*** " \
           "cannot be used" in message
    assert "sentinel" not in message


def test_a_setting_that_is_no_database_url_gets_a_clear_message():
    with pytest.raises(StoreUnavailable, match="is not a database URL such as sqlite:///notes.db"):
        open_store("my notes please")
    with pytest.raises(StoreUnavailable, match="No database driver for nosuchdb://"):
        open_store("nosuchdb://host/notes")


def test_sqlite_runs_in_wal_mode_and_waits_for_other_writers(sqlite_url):
    opened = open_store(sqlite_url)
    with opened.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000
    opened.close()


def test_reading_whether_an_sqlite_file_holds_notes_does_not_create_it(sqlite_url, tmp_path):
    assert not_created_yet(sqlite_url)
    assert not (tmp_path / "notes.db").exists()
    open_store(sqlite_url).close()
    assert not not_created_yet(sqlite_url)


def test_the_default_database_is_a_file_under_data_until_the_variable_names_another(monkeypatch):
    monkeypatch.delenv("ROUNDTRIP_DATABASE_URL", raising=False)
    default = lib.store.database_url()
    assert default.startswith("sqlite:///") and default.endswith("/data/roundtrip.db")
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", "postgresql+psycopg://workshop@db.example/notes")
    assert lib.store.database_url() == "postgresql+psycopg://workshop@db.example/notes"


def test_the_postgresql_schema_matches_the_sqlite_one(sqlite_url, postgres_url):
    shapes = []
    for url in (sqlite_url, postgres_url):
        opened = open_store(url)
        inspector = sa.inspect(opened.engine)
        # SQLite's FTS5 table and its shadow tables are its counterpart of PostgreSQL's text index.
        shapes.append({t: sorted(c["name"] for c in inspector.get_columns(t)) for t in inspector.get_table_names()
                       if not t.startswith(WORDS)})
        opened.close()
    assert shapes[0] == shapes[1]
    assert set(shapes[0]) == {"schema_version", "notes", "note_labels", "labels", "note_scores", "rubrics",
                              *(table.name for table in library_schema.TABLES)}


def test_an_imported_notes_claimed_author_is_stored_beside_its_signer(store):
    claimed = replace(_note("Approved."), author="Bo", claimed_author="The Dean")
    assert store.import_notes([claimed, _note("written here")]) == 2
    assert {(n.text, n.author, n.claimed_author) for n in store.notes()} == {("Approved.", "Bo", "The Dean"),
                                                                            ("written here", "Ada", "")}


def test_notes_kept_before_claimed_authors_were_stored_claim_nothing_after_the_upgrade(database_url):
    older = open_store(database_url, MIGRATIONS[:4])
    with older.transaction(write=True) as conn:
        conn.execute(sa.insert(sa.table("notes", *(sa.column(name) for name in (
            "id", "trace", "target", "text", "author", "created", "trace_title", "trace_name")))),
            {"id": "n1", "trace": "fp", "target": "trace", "text": "old", "author": "Ada", "created": "2026-11-01T00:00:00Z",
             "trace_title": "", "trace_name": ""})
    older.close()
    upgraded = open_store(database_url)
    assert upgraded.version() == len(MIGRATIONS) >= 5
    assert [(n.text, n.author, n.claimed_author) for n in upgraded.notes()] == [("old", "Ada", "")]
    upgraded.close()
