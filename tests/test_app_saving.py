"""Saving to the library and the permanent link, through the real app: an upload saved by an editor opens in a
fresh session (another browser, another replica) from `?trace=<id>`, on the round the link names; a fork keeps
its source, and so does a finished fork; a note on a saved trace opens it."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from lib import library
from lib.annotations import Note
from lib.library_search import LibraryQuery, search
from lib.logs.native import read_trace
from lib.store import open_store
from tests.conftest import ROOT
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.screen import ALERTS, lines
from tests.synthetic import synthetic_lines

FIXTURES = Path(__file__).parent / "fixtures"
PAIRS = (FIXTURES / "openai-pairs.jsonl").read_bytes()
"""Three conversations of OpenAI request/response pairs; conversation 1 has two rounds."""


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for name, value in query.items():
        at.query_params[name] = value
    return at.run()


def _uploaded_and_saved() -> tuple[AppTest, str]:
    at = _app()
    at.file_uploader(key="sidebar.upload").upload("pairs.jsonl", PAIRS)
    at.run()
    at.button(key="sidebar.save").click().run()
    assert not at.exception
    (shown,) = [c.value for c in at.sidebar.code]
    return at, shown.rsplit("?trace=", 1)[1]


def _title(at: AppTest) -> str:
    return next(t.value for t in at.main.text)


def test_an_upload_saved_by_an_editor_opens_from_its_link_in_a_fresh_session(app_database):
    at, trace_id = _uploaded_and_saved()
    assert "Saved to the library" in " ".join(c.value for c in at.sidebar.caption)
    saved = open_store(app_database)
    assert library.trace_ids(saved) == (trace_id,)

    fresh = _app(trace=trace_id, round="2")
    assert not fresh.exception
    assert fresh.selectbox(key="sidebar.trace").value == "(saved trace)"
    assert _title(fresh) == _title(at)
    assert next(s.value for s in fresh.subheader if s.value.startswith("Round ")).startswith("Round 2:")
    assert fresh.query_params["trace"] == trace_id
    assert "Kept in the library; this address is its permanent link." in [c.value for c in fresh.sidebar.caption]


def test_saving_the_same_conversation_twice_keeps_one_copy_with_one_link(app_database):
    at, first = _uploaded_and_saved()
    at.button(key="sidebar.save").click().run()
    assert [c.value for c in at.sidebar.code] == [f"?trace={first}"]
    assert library.trace_ids(open_store(app_database)) == (first,)


def test_a_link_to_a_trace_not_in_the_library_says_so_and_shows_a_bundled_trace(app_database):
    at = _app(trace="0" * 64, round="3")
    assert not at.exception
    said = "\n".join(lines(at, ALERTS + ("text",)))
    assert "The saved trace asked for cannot be opened. Showing a bundled trace instead, from round 1." in said
    assert "No trace with this id is kept in the library" in said
    assert at.selectbox(key="sidebar.trace").value == "hengxin-expense"
    assert at.query_params["trace"] == "hengxin-expense"


def test_a_trace_deleted_through_another_replica_stops_opening_here_at_once(app_database):
    _, trace_id = _uploaded_and_saved()
    reading = _app(trace=trace_id, round="2")  # this server has read the trace and keeps it in memory
    assert reading.selectbox(key="sidebar.trace").value == "(saved trace)"

    # Another replica deletes it: through its own connection, so this server's memory is not told.
    assert library.delete(open_store(app_database), trace_id)

    fresh = _app(trace=trace_id)
    assert "No trace with this id is kept in the library" in "\n".join(lines(fresh, ALERTS + ("text",)))
    assert fresh.selectbox(key="sidebar.trace").value == "hengxin-expense"
    reading.run()  # the session that had it open, on its next rerun
    assert "The saved trace asked for cannot be opened." in "\n".join(lines(reading, ALERTS))
    assert reading.selectbox(key="sidebar.trace").value == "hengxin-expense"


def test_picking_a_bundled_trace_leaves_the_saved_one(app_database):
    _, trace_id = _uploaded_and_saved()
    at = _app(trace=trace_id)
    at.selectbox(key="sidebar.trace").set_value("loan-calculator").run()
    assert at.query_params["trace"] == "loan-calculator"
    assert "(saved trace)" not in at.selectbox(key="sidebar.trace").options


def test_a_viewer_opens_a_saved_link_but_is_offered_no_save(app_database, monkeypatch):
    _, trace_id = _uploaded_and_saved()
    monkeypatch.setenv("ROUNDTRIP_DEPLOYMENT", "server")
    at = _app(trace=trace_id)
    assert at.selectbox(key="sidebar.trace").value == "(saved trace)"
    assert not [b for b in at.button if b.key == "sidebar.save"]


def test_a_finished_fork_is_saved_as_a_fork(app_database):
    at = _app(trace="hengxin-expense")
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(2).run()
    at.button(key="fork.run").click().run()  # replayed to its end
    at.button(key="fork.save").click().run()
    assert not at.exception
    (row,) = search(open_store(app_database), LibraryQuery()).rows
    assert (row.source, row.author) == ("fork", "Ada")
    assert [c.value for c in at.code if "?trace=" in c.value] == [f"?trace={row.id}"]


def test_a_note_on_a_saved_trace_opens_it_from_the_list_of_every_note(app_database):
    store = open_store(app_database)
    trace, _ = read_trace(synthetic_lines(3), name="synthetic")
    trace_id = library.save(store, trace, source="capture")
    store.add(Note(id="on-saved", trace=trace_id, target="round:2", labels=(), text="Look at round 2.", author="Ada",
                   created="2026-11-30T10:00:00Z", trace_title=trace.title, trace_name="a capture"))
    at = _app()  # on a bundled trace
    at.switch_page("pages/annotate.py").run()
    at.button(key="annotate.open").click().run()
    at.run()
    assert at.selectbox(key="sidebar.trace").value == "(saved trace)"
    assert at.query_params["trace"] == trace_id
    assert next(s.value for s in at.subheader if s.value.startswith("Round ")).startswith("Round 2:")


def test_saving_an_upload_of_several_conversations_says_it_keeps_the_one_on_screen_only(app_database):
    # The pairs file holds 2 conversations; "Save to library" kept the one on screen and said only "Saved to the
    # library" beside "4 lines: 4 rounds in 2 conversations", as if the whole upload were kept.
    at = _app()
    at.file_uploader(key="sidebar.upload").upload("pairs.jsonl", PAIRS)
    at.run()
    assert "1 of the upload's 2" in at.button(key="sidebar.save").help
    at.button(key="sidebar.save").click().run()
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "Saved to the library: the conversation on screen only, 1 of the upload's 2; the other one is not saved" \
        in said
    assert len(library.trace_ids(open_store(app_database))) == 1
    # A file of one conversation is saved whole, said as before.
    at = _app()
    at.file_uploader(key="sidebar.upload").upload("one.jsonl", b"\n".join(PAIRS.splitlines()[:1]))
    at.run()
    at.button(key="sidebar.save").click().run()
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "Saved to the library. Its permanent link" in said and "on screen only" not in said


def test_a_conversation_saved_from_an_upload_of_several_files_is_titled_by_the_file_that_held_it(app_database):
    # Uploaded with two other files, the one conversation of sess-42.jsonl was saved as "3 files · conversation 2".
    at = _app()
    pairs = PAIRS.splitlines()
    files = [("monday.jsonl", b"\n".join([pairs[0], pairs[2]])), ("broken.jsonl", b"{x"), ("sess-42.jsonl", pairs[1])]
    for name, data in files:
        at.file_uploader(key="sidebar.upload").upload(name, data)
    at.run()
    picker = at.selectbox(key="sidebar.conversation")
    picker.set_value(next(n for n, label in enumerate(picker.options) if label.startswith("conversation 2"))).run()
    assert _title(at) == "sess-42.jsonl · conversation 2"
    at.button(key="sidebar.save").click().run()
    assert not at.exception
    (row,) = search(open_store(app_database), LibraryQuery()).rows
    assert row.title == "sess-42.jsonl · conversation 2"
