"""The Annotate page and the note markers, driven through the real app with a real SQLite file per test."""

from __future__ import annotations

import csv
import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from lib import annotations as annotate, catalog
from lib.annotations import Note, Rubric, Score
from lib.fingerprint import fingerprint
from lib.store import open_store
from lib.ui import annotate as ui_annotate
from lib.ui.cards import TOOLS_OPEN
from tests.conftest import ROOT, load_bundled
from tests.hostile import HOSTILE, SHOWN, UNESCAPED, markdown_like
from tests.screen import ALERTS, lines, screen
from tests.test_live_app import rendered

TOOL_CALL = "round:2/response.choices[0].message.tool_calls[0]"
TOOL_CALL_WORDS = "round 2 · choices[0].message.tool_calls[0] · call calcAmountOver (call_q3)"
"""What a person reads for that target: its words, never the path the store keeps."""


@pytest.fixture
def notes_url(tmp_path, monkeypatch) -> str:
    """The app's database for this test: an SQLite file of its own, named the way a deployment names one; the
    laptop's author name set once, as its user would."""
    url = f"sqlite:///{tmp_path / 'notes.db'}"
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", url)
    monkeypatch.setenv("ROUNDTRIP_AUTHOR", "Ada")
    return url


def _session(trace: str = "hengxin-expense", round_: int = 2) -> AppTest:
    """A new browser session on the Annotate page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["trace"], at.query_params["round"] = trace, str(round_)
    at.run()
    at.switch_page("pages/annotate.py").run()
    assert not at.exception
    return at


def _write(at: AppTest, text: str, target: str = TOOL_CALL, labels=("bad arguments",)) -> AppTest:
    at.selectbox(key="annotate.target").set_value(target)
    at.multiselect(key="annotate.labels").set_value(list(labels))
    at.text_area(key="annotate.text").set_value(text)
    return at.button(key="annotate.save").click().run()


def _said(at: AppTest) -> str:
    """The alerts on the page, each with the text below it (a target, an error), one line each."""
    return "\n".join(lines(at, ALERTS + ("text",)))


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def _seed(url: str, trace: str, target: str, text: str, author: str = "Ada", labels=("costly",)) -> Note:
    note = Note(id=f"seed-{author}-{trace}", trace=fingerprint(load_bundled(trace).trace), target=target,
                labels=tuple(labels), text=text, author=author, created="2026-11-29T10:00:00Z",
                trace_title=load_bundled(trace).trace.title, trace_name=trace)
    store = open_store(url)
    store.add(note)
    store.close()
    return note


def test_a_note_on_round_2s_tool_call_is_found_by_a_fresh_session(notes_url):
    at = _write(_session(), "The model passed the amounts as strings with two decimals.")
    assert not at.exception
    assert f"Saved your note on:\n{TOOL_CALL_WORDS}" in _said(at)

    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    fresh.query_params["round"] = "2"
    fresh.run()
    assert not fresh.exception
    assert ":blue-badge[:material/edit_note: note]\nAda · bad arguments" in screen(fresh)
    assert "The model passed the amounts as strings with two decimals." in _texts(fresh)
    assert ":material/edit_note: Notes on round 2" in [c.value for c in fresh.caption]
    fresh.switch_page("pages/annotate.py").run()
    listed = next(d.value for d in fresh.dataframe if "author" in d.value.columns)
    assert listed[["target", "labels", "author"]].values.tolist() == [[TOOL_CALL, "bad arguments", "Ada"]]


def test_an_overlong_note_is_refused_stays_in_the_field_and_nothing_stored_is_lost(notes_url):
    at = _write(_session(), "Kept.")
    at = _write(at, "x" * 5_001)
    assert "The note was not saved:\nThe note has 5,001 characters; the limit is 5,000." in _said(at)
    assert at.text_area(key="annotate.text").value == "x" * 5_001
    assert [n.text for n in open_store(notes_url).notes()] == ["Kept."]


def test_a_note_is_signed_with_the_visitors_identity_and_no_name_is_typed(notes_url, monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_AUTHOR", "  Ada   Lovelace ")
    at = _session()
    assert not [t for t in at.text_input if t.key == "annotate.author_field"]
    assert "Ada Lovelace" in _texts(at)
    _write(at, "Signed by who I am.")
    assert [n.author for n in open_store(notes_url).notes()] == ["Ada Lovelace"]


def test_an_unreachable_database_is_named_and_the_explorer_still_works(monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", "postgresql+psycopg://roundtrip:s3cret@127.0.0.1:1/notes")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert any(s.value.startswith("Round 1: ") for s in at.subheader)
    at.switch_page("pages/annotate.py").run()
    assert not at.exception
    said = _said(at)
    assert "The notes database at postgresql+psycopg://***@127.0.0.1:1/notes cannot be used" in said
    assert "s3cret" not in said
    assert at.button(key="annotate.save").disabled


def test_no_credential_in_the_database_url_reaches_the_explorer_annotate_or_checks_page(monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", "postgresql+psycopg://sentinel-user:sentinel-pw@127.0.0.1:1/notes"
                       "?password=sentinel-query&sslpassword=sentinel-ssl&token=sentinel-token")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    seen = {"pages/explorer.py": rendered(at)}
    for page in ("pages/annotate.py", "pages/checks.py"):
        at.switch_page(page).run()
        assert not at.exception
        seen[page] = rendered(at)
    assert "Notes are not shown" in seen["pages/explorer.py"]
    assert "The notes database at postgresql+psycopg://***@127.0.0.1:1/notes?password=***" in seen["pages/annotate.py"]
    assert {page: "sentinel" in text for page, text in seen.items()} == dict.fromkeys(seen, False)


def test_an_annotated_upload_restores_its_notes_once_and_the_bundled_copy_shows_them(notes_url):
    line = {"kind": "annotation", "id": "from-class", "target": TOOL_CALL, "labels": ["question for class"],
            "note": "Why two decimals?", "author": "Teacher", "created": "2026-11-28T09:00:00Z"}
    data = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_bytes() + json.dumps(line).encode() + b"\n"
    at = _session()
    at.file_uploader(key="sidebar.upload").upload("for class.jsonl", data).run()
    assert "This file carries 1 note not stored yet." in _said(at)
    at.button(key="annotate.import").click().run()
    assert "Imported 1 note." in _said(at)
    assert "The note this file carries is stored." in [c.value for c in at.caption]
    assert not any(b.key == "annotate.import" for b in at.button)
    assert [(n.id, n.text) for n in open_store(notes_url).notes()] == [("from-class", "Why two decimals?")]

    at.button(key="sidebar.close_upload").click().run()
    at.button(key="explorer.next").click().run()
    assert at.session_state["sidebar.trace"] == "hengxin-expense"
    assert any(s.value.startswith("Round 2: ") for s in at.subheader)
    assert "Why two decimals?" in _texts(at)


def test_an_imported_note_is_signed_by_whoever_imports_it_and_the_files_author_reads_as_a_claim(notes_url):
    # On a round the trace lacks, so that the Annotate page lists it, heading and all, among the detached notes.
    line = {"kind": "annotation", "id": "forged", "target": "round:9", "labels": [], "note": "Approved by the dean.",
            "author": "The Dean", "created": "2026-11-28T09:00:00Z"}
    data = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_bytes() + json.dumps(line).encode() + b"\n"
    at = _session()
    at.file_uploader(key="sidebar.upload").upload("forged.jsonl", data).run()
    at.button(key="annotate.import").click().run()
    assert "Imported 1 note." in _said(at)
    assert [(n.author, n.claimed_author) for n in open_store(notes_url).notes()] == [("Ada", "The Dean")]
    listed = next(d.value for d in at.dataframe if "author" in d.value.columns)
    assert listed[["author", "claimed author"]].values.tolist() == [["Ada", "The Dean"]]
    assert any(" · Ada · claimed author: The Dean · 28 Nov 2026, 09:00 UTC" in text for text in _texts(at))


def test_the_notes_list_filters_by_author_and_opens_a_note_on_another_trace_in_the_explorer(notes_url):
    _seed(notes_url, "hengxin-expense", "round:3", "Round 3 compares the amounts.", author="Ada")
    _seed(notes_url, "loan-calculator", "round:1", "The program computes.", author="Bo")
    at = _session("loan-calculator", 1)
    at.multiselect(key="annotate.by_author").set_value(["Ada"]).run()
    listed = next(d.value for d in at.dataframe if "author" in d.value.columns)
    assert listed["note"].tolist() == ["Round 3 compares the amounts."]
    assert listed["trace"].tolist() == ["Hengxin expense reimbursement"]
    at.button(key="annotate.open").click().run()
    assert not at.exception
    assert at.session_state["sidebar.trace"] == "hengxin-expense"
    assert any(s.value.startswith("Round 3: ") for s in at.subheader)
    assert "Round 3 compares the amounts." in _texts(at)


def test_a_note_can_be_edited_and_deleted(notes_url):
    _seed(notes_url, "hengxin-expense", TOOL_CALL, "First thought.")
    at = _session()
    assert at.text_area(key="annotate.edit_text").value == "First thought."
    at.text_area(key="annotate.edit_text").set_value("Second thought.")
    at.multiselect(key="annotate.edit_labels").set_value(["hallucinated"])
    at.button(key="annotate.edit_save").click().run()
    assert f"Saved the changes to the note on:\n{TOOL_CALL_WORDS}" in _said(at)
    assert [(n.text, n.labels) for n in open_store(notes_url).notes()] == [("Second thought.", ("hallucinated",))]
    at.button(key="annotate.delete").click().run()
    assert f"Deleted the note on:\n{TOOL_CALL_WORDS}" in _said(at)
    assert open_store(notes_url).notes() == ()


def test_a_label_added_to_the_set_can_be_chosen(notes_url):
    at = _session()
    labels = at.text_area(key="annotate.label_set")
    labels.set_value(labels.value + "\ntool misuse")
    at.button(key="annotate.save_labels").click().run()
    assert "Saved 10 labels." in _said(at)
    assert "tool misuse" in at.multiselect(key="annotate.labels").options


def test_note_text_and_labels_are_shown_as_text_never_as_markup(notes_url):
    _seed(notes_url, "hengxin-expense", TOOL_CALL, HOSTILE, author=f"Eve {HOSTILE}", labels=(HOSTILE[:40],))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["round"] = "2"
    at.run()
    assert SHOWN in _texts(at)
    for value in markdown_like(at):
        assert not UNESCAPED.search(value), value
    at.switch_page("pages/annotate.py").run()
    for value in markdown_like(at):
        assert not UNESCAPED.search(value), value


def test_a_cards_note_button_points_the_form_at_that_card(notes_url):
    at = _session()
    at.button(key="annotate.point.round:2/request.messages[3]").click().run()
    assert at.selectbox(key="annotate.target").value == "round:2/request.messages[3]"
    assert "The note form above is now about:\nrequest messages[3] · tool" in _said(at)

    at.text_area(key="annotate.text").set_value("The second result of round 1's parallel calls.")
    at.button(key="annotate.save").click().run()
    (note,) = open_store(notes_url).notes()
    assert note.target == "round:2/request.messages[3]" and note.text.startswith("The second result")
    at.session_state[TOOLS_OPEN] = True  # the tool definitions' section, opened
    at.run()
    assert {b.key for b in at.button if (b.key or "").startswith("annotate.point.")} >= {
        "annotate.point.round:2/request.tools[0]", "annotate.point.round:2/response.choices[0].message"}


def test_the_explorer_draws_no_note_buttons():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not [b for b in at.button if (b.key or "").startswith("annotate.point.")]


def test_a_notes_target_and_time_are_shown_in_words(notes_url):
    _seed(notes_url, "hengxin-expense", TOOL_CALL, "Amounts as strings.")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["round"] = "2"
    at.run()
    entry = next(t for t in _texts(at) if "Ada" in t and "costly" in t)
    assert entry.startswith("round 2 · ") and "calcAmountOver" in entry
    assert entry.endswith("29 Nov 2026, 10:00 UTC")
    assert "round:2/" not in entry and "2026-11-29T10:00:00Z" not in entry


def test_rubrics_are_set_once_and_a_note_is_scored_under_them(notes_url):
    at = _session()
    at.text_area(key="annotate.rubric_set").set_value("grounded: 0-3\ncorrect: pass/fail")
    at.button(key="annotate.save_rubrics").click().run()
    assert "Saved 2 rubrics." in _said(at)

    at.number_input(key="annotate.score.grounded").set_value(2)
    at.selectbox(key="annotate.score.correct").set_value("pass")
    at = _write(at, "Grounded in the policy lookup, and right.")
    (note,) = open_store(notes_url).notes()
    assert {(s.rubric, s.value) for s in note.scores} == {("grounded", 2.0), ("correct", 1.0)}
    assert any(t.startswith("round 2 ·") and "grounded 2 of 0-3" in t and "correct: pass" in t for t in _texts(at))


def _scored(url: str, *scores: Score) -> Note:
    """A note on round 2's tool call, scored, under the rubrics grounded (0 to 3) and correct (pass/fail)."""
    store = open_store(url)
    store.set_rubrics([Rubric("grounded", 0, 3), Rubric("correct", 0, 1, pass_fail=True)])
    store.close()
    note = _seed(url, "hengxin-expense", TOOL_CALL, "Scored when written.")
    store = open_store(url)
    store.edit(note.id, note.text, note.labels, scores)
    store.close()
    return note


def _scores(url: str) -> set[tuple[str, float]]:
    (note,) = open_store(url).notes()
    return {(s.rubric, s.value) for s in note.scores}


def test_the_notes_list_and_both_csv_exports_carry_a_notes_scores(notes_url, monkeypatch):
    _scored(notes_url, Score("grounded", 2), Score("correct", 1))
    exported = []

    def recorded(*args):
        exported.append(annotate.notes_csv(*args))
        return exported[-1]

    monkeypatch.setattr(ui_annotate, "notes_csv", recorded)
    at = _session()
    listed = next(d.value for d in at.dataframe if "author" in d.value.columns)
    scores, = listed["scores"].tolist()
    assert set(scores.split(" · ")) == {"grounded 2 of 0-3", "correct: pass"}
    assert any(scores in t for t in _texts(at))  # as the note's heading writes them
    assert len(exported) == 2  # this trace's notes, and the list's
    for text in exported:
        row, = csv.DictReader(io.StringIO(text))
        assert (row["note"], row["score: grounded"], row["score: correct"]) == ("Scored when written.", "2", "pass")


def test_an_editor_changes_a_notes_scores_and_clears_them(notes_url):
    _scored(notes_url, Score("grounded", 1), Score("correct", 1))
    at = _session()
    assert at.number_input(key="annotate.edit_score.grounded").value == 1
    assert at.selectbox(key="annotate.edit_score.correct").value == "pass"

    at.number_input(key="annotate.edit_score.grounded").set_value(3)
    at.selectbox(key="annotate.edit_score.correct").set_value("fail")
    at.button(key="annotate.edit_save").click().run()
    assert f"Saved the changes to the note on:\n{TOOL_CALL_WORDS}" in _said(at)
    assert _scores(notes_url) == {("grounded", 3.0), ("correct", 0.0)}
    assert any("grounded 3 of 0-3" in t and "correct: fail" in t for t in _texts(at))

    at.number_input(key="annotate.edit_score.grounded").set_value(None)
    at.selectbox(key="annotate.edit_score.correct").set_value("")
    at.button(key="annotate.edit_save").click().run()
    assert _scores(notes_url) == set()
    assert (open_store(notes_url).notes()[0].text) == "Scored when written."


def test_a_score_no_field_can_show_stays_when_the_note_is_edited_and_says_so(notes_url):
    _scored(notes_url, Score("grounded", 3), Score("correct", 1))
    # grounded is dropped; correct is now scored from 0 to 0.5, so its mark 1 is out of range
    open_store(notes_url).set_rubrics([Rubric("correct", 0, 0.5), Rubric("tone", 0, 5)])
    at = _session()
    assert not [w for w in at.number_input if w.key == "annotate.edit_score.grounded"]
    assert at.number_input(key="annotate.edit_score.correct").value is None
    assert "correct 1, grounded 3" in _texts(at)
    at.number_input(key="annotate.edit_score.tone").set_value(4)
    at.button(key="annotate.edit_save").click().run()
    assert _scores(notes_url) == {("grounded", 3.0), ("correct", 1.0), ("tone", 4.0)}

    at.number_input(key="annotate.edit_score.correct").set_value(0.5)
    at.button(key="annotate.edit_save").click().run()
    assert _scores(notes_url) == {("grounded", 3.0), ("correct", 0.5), ("tone", 4.0)}


def test_a_rubric_line_that_is_not_one_is_refused_naming_it(notes_url):
    at = _session()
    at.text_area(key="annotate.rubric_set").set_value("grounded: 0-3\nhelpful, from one to five")
    at.button(key="annotate.save_rubrics").click().run()
    assert "The rubrics were not saved:\n'helpful, from one to five' is not a rubric" in _said(at)
    assert open_store(notes_url).rubrics() == ()


def test_a_mark_on_a_range_rubric_is_written_as_the_number_it_is_in_its_box(notes_url):
    _scored(notes_url, Score("grounded", 2), Score("correct", 1))
    at = _session()
    box = at.number_input(key="annotate.edit_score.grounded")
    # What the browser writes in the box: the widget's printf format applied to its value.
    assert box.proto.format % box.value == "2"
    assert at.number_input(key="annotate.score.grounded").proto.format % 1.5 == "1.5"


def test_a_rounds_note_targets_are_worked_out_once_per_trace_and_round_not_on_every_rerun(notes_url, monkeypatch):
    # Round 999 of a 1,000-round trace has about 2,000 messages to place; the form and the cards' "Note on this"
    # buttons worked them out again on every rerun of the page, twice.
    import lib.annotations
    import lib.ui.annotate as annotate_page
    import streamlit as st

    worked_out = []
    real = lib.annotations.round_targets
    counted = lambda trace, index: worked_out.append(index) or real(trace, index)  # noqa: E731
    monkeypatch.setattr(annotate_page, "round_targets", counted)
    monkeypatch.setattr(lib.annotations, "round_targets", counted)  # the note's heading, under the cards
    st.cache_resource.clear()  # what another test left in the server's caches
    first = _session(round_=3)
    _write(first, "Why this policy lookup?", target="round:3")
    assert "Saved your note on:" in _said(first)
    again = _session(round_=3)  # another visitor, the same round, its note's heading above the cards
    assert any(t.startswith("Round 3 as a whole · bad arguments · Ada") for t in _texts(again))
    assert worked_out == [3]


def test_predict_mode_keeps_a_rounds_notes_hidden_until_the_learner_has_predicted(notes_url):
    # A note on round 2's call names the call and what is wrong with its arguments: the answer to predict.
    _write(_session(), "calcAmountOver gets the amounts straight from the results")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": "hengxin-expense", "round": "1", "mode": "predict"})
    at.run()
    at.button(key="predict.reveal").click().run()  # round 2 opens once round 1 is predicted
    at.button(key="explorer.next").click().run()
    assert not at.exception
    assert "calcAmountOver gets the amounts straight from the results" not in screen(at)
    assert "This round's notes (1) are hidden until you predict the response: they may give it away." in screen(at)
    at.radio(key="predict.2.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    assert "calcAmountOver gets the amounts straight from the results" in screen(at)
