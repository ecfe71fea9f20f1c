"""Roles on a shared server, through the real app: a viewer opens, steps and reads; only an editor uploads,
annotates and deletes. The identity is the app's login (AppTest's `user`) and signs the notes."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib import library
from lib.annotations import Rubric, Score
from lib.store import open_store
from tests.conftest import ROOT, load_bundled
from tests.recorded_server import RecordedServer, Reply
from tests.screen import ALERTS, lines
from tests.test_app_annotate import TOOL_CALL, _seed

EDITOR = "ada@example.com"


@pytest.fixture
def server(tmp_path, monkeypatch) -> str:
    """A server deployment with one listed editor and a notes database of its own; its URL."""
    url = f"sqlite:///{tmp_path / 'notes.db'}"
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", url)
    monkeypatch.setenv("ROUNDTRIP_DEPLOYMENT", "server")
    monkeypatch.setenv("ROUNDTRIP_EDITORS", EDITOR)
    monkeypatch.setenv("ROUNDTRIP_AUTHOR", "a laptop name a server must not use")
    return url


def _visit(page: str | None = None, login: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.user = {"is_logged_in": True, "email": login, "email_verified": True} if login else {"is_logged_in": False}
    at.query_params["trace"], at.query_params["round"] = "hengxin-expense", "2"
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception
    return at


def _keys(at: AppTest, kind: str) -> set[str]:
    return {w.key for w in at.get(kind) if getattr(w, "key", None)}


def _said(at: AppTest) -> str:
    """The alerts and captions of the main area, then the sidebar's captions."""
    return "\n".join([*lines(at, ALERTS + ("caption",)), *(c.value for c in at.sidebar.caption)])


def test_a_viewer_steps_through_a_linked_trace_but_has_no_uploader(server):
    at = _visit()
    assert at.get("file_uploader") == []
    assert "only editors open their own logs" in _said(at)
    at.button(key="explorer.next").click().run()
    assert at.query_params["round"] == "3" and not at.exception


@pytest.mark.parametrize("login", [None, "bob@example.com"], ids=["anonymous", "signed in but not listed"])
def test_a_viewer_reads_notes_but_cannot_write_change_or_delete_one(server, login):
    _seed(server, "hengxin-expense", TOOL_CALL, "Amounts as strings.")
    at = _visit("pages/annotate.py", login)
    assert "only editors write, change or delete them" in _said(at)
    assert "Amounts as strings." in [d.value["note"].tolist() for d in at.dataframe if "note" in d.value.columns][0]
    drawn = _keys(at, "button") | _keys(at, "text_area") | _keys(at, "selectbox")
    drawn |= _keys(at, "number_input")
    assert not drawn & {"annotate.save", "annotate.text", "annotate.delete", "annotate.edit_save", "annotate.edit",
                        "annotate.save_labels", "annotate.import"}
    assert not [k for k in drawn if k.startswith(("annotate.score.", "annotate.edit_score."))]
    assert not [k for k in drawn if k.startswith("annotate.point.")]
    assert [n.text for n in open_store(server).notes()] == ["Amounts as strings."]


def test_a_listed_editor_uploads_and_annotates_and_the_note_is_signed_with_the_login(server):
    at = _visit("pages/annotate.py", EDITOR)
    assert at.get("file_uploader") != []
    at.selectbox(key="annotate.target").set_value(TOOL_CALL)
    at.text_area(key="annotate.text").set_value("Signed by my login.")
    at.button(key="annotate.save").click().run()
    (note,) = open_store(server).notes()
    assert (note.author, note.text) == (EDITOR, "Signed by my login.")


@pytest.mark.parametrize("claims", [{"email": EDITOR, "email_verified": False}, {"email": EDITOR}, {"sub": EDITOR}],
                         ids=["email not verified", "the provider does not say", "a sub spelt like the editor"])
def test_a_login_that_only_claims_the_editors_address_views(server, claims):
    """With Streamlit's login, the listed address counts only when the provider says it is verified."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.user = {"is_logged_in": True, **claims}
    at.query_params["trace"] = "hengxin-expense"
    at.run()
    assert not at.exception
    assert at.get("file_uploader") == []
    assert "only editors open their own logs" in _said(at)
    said_why = ("your sign-in gives no email address" if "sub" in claims
                else "your sign-in provider does not vouch for your email address")
    assert f"You are signed in, but {said_why}" in _said(at)


def test_a_write_forged_by_a_viewer_is_refused_in_words_and_changes_nothing(server):
    """A click that reaches the server from a form a viewer was never shown (a stale tab after the operator took the
    role away) must not write."""
    seeded = _seed(server, "hengxin-expense", TOOL_CALL, "Keep me.")
    at = _visit("pages/annotate.py", EDITOR)
    at.selectbox(key="annotate.edit").set_value(seeded.id)
    at.user = {"is_logged_in": False}
    at.button(key="annotate.delete").click().run()
    assert "only editors write, change or delete them" in _said(at)
    assert [n.text for n in open_store(server).notes()] == ["Keep me."]


def test_a_score_change_forged_by_a_viewer_is_refused_and_the_score_stays(server):
    store = open_store(server)
    store.set_rubrics([Rubric("grounded", 0, 3)])
    seeded = _seed(server, "hengxin-expense", TOOL_CALL, "Scored.")
    store.edit(seeded.id, seeded.text, seeded.labels, [Score("grounded", 2)])
    at = _visit("pages/annotate.py", EDITOR)
    at.number_input(key="annotate.edit_score.grounded").set_value(None)
    at.user = {"is_logged_in": False}
    at.button(key="annotate.edit_save").click().run()
    assert "only editors write, change or delete them" in _said(at)
    assert [n.scores for n in open_store(server).notes()] == [(Score("grounded", 2.0),)]


def test_a_viewer_cannot_send_a_fork_to_a_model_only_replay_it(server):
    """Fork is a live call like the Live page's: on a server a viewer may replay, never call a model, even from a
    form filled in while they were an editor (a stale tab)."""
    assert _visit("pages/fork.py").selectbox(key="fork.provider").options == ["Replay (recorded answers only, no key)"]
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401)]}) as model:
        at = _visit("pages/fork.py", EDITOR)
        at.selectbox(key="fork.provider").set_value("compatible").run()
        at.text_input(key="fork.base_url").set_value(f"{model.url}/v1")
        at.text_input(key="fork.api_key").set_value("typed-key").run()
        at.user = {"is_logged_in": False}
        at.button(key="fork.run").click().run()
        assert model.received == []
    assert "only editors make live calls" in "\n".join(lines(at, ("text",)))


def test_a_viewer_is_not_shown_the_servers_captures(server):
    at = _visit("pages/watch.py")
    assert "only the editors its operator names watch captures" in _said(at)
    assert not [s for s in at.selectbox if s.key == "watch.capture"] and at.get("number_input") == []


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_an_editor_on_a_server_cannot_aim_a_live_run_at_the_servers_own_network(server, host):
    """A typed base URL makes the server itself send a POST and show the answer: on a shared server it may name
    only a public address, not this machine, its network or a cloud metadata service (the name is resolved)."""
    with RecordedServer({"/v1/chat/completions": [Reply({"error": {"message": "internal admin"}}, 418)]}) as inside:
        at = _visit("pages/live.py", EDITOR)
        at.radio(key="live.provider").set_value("openai").run()
        at.text_input(key="live.base_url.openai").input(inside.url.replace("127.0.0.1", host) + "/v1")
        at.text_input(key="live.api_key").input("typed-key").run()
        at.button(key="live.run").click().run()
        assert inside.received == []
    said = "\n".join(lines(at, ("text",)))
    assert "internal admin" not in said
    assert "a base URL typed on this server must name a public address" in said
    # Nothing was sent: the round says Roundtrip refused it, and no check calls it a provider's failure.
    shown = "\n".join(lines(at, ("text", "markdown", "caption", "error")))
    assert "Roundtrip refused to send this call, so no provider saw it." in shown
    assert "This call failed" not in shown and "provider-error" not in shown
    # The run's own headline says why it stopped, not that anything errored.
    assert [box.value for box in at.warning if "refused to send its request" in box.value] == [
        "The run stopped before round 1 was sent: Roundtrip refused to send its request."]
    assert "The run ended with an error." not in [box.value for box in at.error]


def test_an_editor_on_a_server_cannot_aim_a_fork_at_the_servers_own_network(server):
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401)]}) as inside:
        at = _visit("pages/fork.py", EDITOR)
        at.selectbox(key="fork.provider").set_value("compatible").run()
        at.text_input(key="fork.base_url").set_value(f"{inside.url}/v1")
        at.text_input(key="fork.api_key").set_value("typed-key").run()
        at.button(key="fork.run").click().run()
        assert inside.received == []
    assert "a base URL typed on this server must name a public address" in "\n".join(lines(at, ("text",)))


TEACHER = "teacher@example.org"
"""The editor the operator names in a room where every learner who signs in also edits."""


@pytest.fixture
def room(server, monkeypatch) -> str:
    """A server where the teacher is named and every identified learner edits (`*`)."""
    monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},*")
    return server


def _options(at: AppTest, key: str) -> list[str]:
    return list(at.selectbox(key=key).options) if key in _keys(at, "selectbox") else []


def test_in_a_room_where_everyone_edits_a_learner_changes_only_their_own_notes(room):
    # Any editor could rewrite any note while it stayed signed by its author: bob put words in the teacher's mouth.
    theirs = _seed(room, "hengxin-expense", TOOL_CALL, "The teacher's words.", author=TEACHER)
    _seed(room, "hengxin-expense", TOOL_CALL, "Bob's words.", author="bob@example.com")
    at = _visit("pages/annotate.py", "bob@example.com")
    offered = _options(at, "annotate.edit")
    assert len(offered) == 1 and "Bob's words." in offered[0]
    assert "changes or deletes only what they wrote or saved themselves" in _said(at)
    assert at.text_area(key="annotate.edit_text").value == "Bob's words."
    assert theirs.text not in offered[0]


def test_a_stale_tab_cannot_change_or_delete_another_learners_note(room, monkeypatch):
    """Bob was named an editor when his tab drew the teacher's note; the operator then let him edit his own only."""
    seeded = _seed(room, "hengxin-expense", TOOL_CALL, "The teacher's words.", author=TEACHER)
    monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},bob@example.com")
    at = _visit("pages/annotate.py", "bob@example.com")
    at.selectbox(key="annotate.edit").set_value(seeded.id)
    monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},*")
    at.text_area(key="annotate.edit_text").set_value("Words the teacher never wrote.")
    at.button(key="annotate.edit_save").click().run()
    assert "changes or deletes only what they wrote or saved themselves" in _said(at)
    monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},bob@example.com")
    at.run()
    at.selectbox(key="annotate.edit").set_value(seeded.id).run()
    monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},*")
    at.button(key="annotate.delete").click().run()
    assert "changes or deletes only what they wrote or saved themselves" in _said(at)
    assert [(n.text, n.author) for n in open_store(room).notes()] == [("The teacher's words.", TEACHER)]


def test_the_named_teacher_changes_and_deletes_a_learners_note(room):
    _seed(room, "hengxin-expense", TOOL_CALL, "Bob's words.", author="bob@example.com")
    at = _visit("pages/annotate.py", TEACHER)
    at.button(key="annotate.delete").click().run()
    assert open_store(room).notes() == ()


def test_in_a_room_where_everyone_edits_a_learner_deletes_only_the_traces_they_saved(room):
    # Any editor could delete any saved trace: a learner broke the link the teacher had handed to the room.
    store = open_store(room)
    teachers = library.save(store, load_bundled("hengxin-expense").trace, source="upload", author=TEACHER)
    bobs = library.save(store, load_bundled("loan-calculator").trace, source="upload", author="bob@example.com")
    store.close()
    at = _visit("pages/library.py", "bob@example.com")
    listed = list(at.dataframe(key="library.table").value["title"])
    teacher_title = load_bundled("hengxin-expense").trace.title
    at.session_state["library.table"] = {"selection": {"rows": [listed.index(teacher_title)], "columns": [],
                                                       "cells": []}}
    at.run()
    assert not [b for b in at.button if b.key == "library.delete"]
    assert "changes or deletes only what they wrote or saved themselves" in _said(at)
    at.session_state["library.table"] = {"selection": {"rows": list(range(len(listed))), "columns": [], "cells": []}}
    at.run()
    at.button(key="library.delete").click().run()
    kept = set(library.trace_ids(open_store(room)))
    assert teachers in kept and bobs not in kept


def test_in_a_room_where_everyone_edits_only_the_named_teacher_saves_a_run_into_traces(room):
    # traces/ is the operator's folder, read into every visitor's list: under `*` each learner's click wrote another
    # file there, as many as they liked.
    for who, offered in (("bob@example.com", False), (TEACHER, True)):
        at = _visit("pages/live.py", who)
        at.button(key="live.run").click().run()
        assert not at.exception
        assert any(b.key == "live.save" for b in at.button) is offered
        assert ("only the editors its operator names save into traces/" in _said(at)) is not offered


def test_in_a_room_where_everyone_edits_only_the_named_teacher_changes_the_label_set_and_rubrics(room, monkeypatch):
    # The label set and the rubrics are the room's: under `*` any learner replaced the teacher's grading scheme.
    store = open_store(room)
    store.set_labels(["costly"])
    store.set_rubrics([Rubric("grounded", 0, 3)])
    at = _visit("pages/annotate.py", "bob@example.com")
    assert not _keys(at, "button") & {"annotate.save_labels", "annotate.save_rubrics"}
    assert "only the editors its operator names in ROUNDTRIP_EDITORS change this for everyone" in _said(at)
    # A tab drawn while bob was named, clicked after the operator let him edit his own notes only.
    for field, value, button in (("annotate.label_set", "nothing", "annotate.save_labels"),
                                 ("annotate.rubric_set", "vibes: pass/fail", "annotate.save_rubrics")):
        monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},bob@example.com")
        at.run()
        at.text_area(key=field).set_value(value)
        monkeypatch.setenv("ROUNDTRIP_EDITORS", f"{TEACHER},*")
        at.button(key=button).click().run()
        assert "only the editors its operator names in ROUNDTRIP_EDITORS change this for everyone" in _said(at)
    assert (open_store(room).labels(), open_store(room).rubrics()) == (("costly",), (Rubric("grounded", 0, 3),))
    teacher = _visit("pages/annotate.py", TEACHER)
    assert {"annotate.save_labels", "annotate.save_rubrics"} <= _keys(teacher, "button")


def test_in_a_room_where_everyone_edits_only_the_named_teacher_watches_the_operators_captures(room, tmp_path,
                                                                                              monkeypatch):
    # Captures hold whatever the operator's agents sent, unreviewed: under `*` every learner could read them.
    from lib.capture import files
    monkeypatch.setattr(files, "CAPTURES_DIR", tmp_path)
    (tmp_path / "capture-2026-12-06T10-00-00Z.jsonl").write_text("")
    learner = _visit("pages/watch.py", "bob@example.com")
    assert "only the editors its operator names watch captures" in _said(learner)
    assert not [s for s in learner.selectbox if s.key == "watch.capture"]
    teacher = _visit("pages/watch.py", TEACHER)
    assert [s.key for s in teacher.selectbox if s.key == "watch.capture"] == ["watch.capture"]
