"""Notes without a database: a trace's identity, what a note can point at, what it may hold, how it travels."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest

from lib import catalog
from lib.annotations import (DEFAULT_LABELS, NOTE_LIMIT, Note, NoteError, Rubric, Score, annotated, annotation_line, check_author,
                             check_label, check_note, line_id, marks_for_round, note_heading, notes_csv, notes_from_lines,
                             round_targets, score_words, unresolved)
from lib.fingerprint import fingerprint
from lib.logs.native import write_trace
from lib.logs.upload import read_upload
from tests.conftest import load_bundled

HENGXIN = catalog.TRACES_DIR / "hengxin-expense.jsonl"
TOOL_CALL = "round:2/response.choices[0].message.tool_calls[0]"


def _note(target: str, text: str = "a note", labels=("costly",), trace: str = "fp") -> Note:
    return Note(id=f"id-{target}-{text}", trace=trace, target=target, labels=tuple(labels), text=text, author="Ada",
                created="2026-11-29T10:00:00Z")


def _with_annotations(trace, *lines):
    return replace(trace, annotations=tuple(lines))


# --- identity --------------------------------------------------------------------------------


def test_the_same_file_under_another_name_title_or_with_notes_added_has_the_same_fingerprint():
    data = HENGXIN.read_bytes()
    lines = data.decode().splitlines()
    header = json.loads(lines[0]) | {"title": "Renamed for class", "description": "other words"}
    retitled = "\n".join([json.dumps(header), *lines[1:]]).encode()
    noted = data + b'{"kind": "annotation", "target": "trace", "note": "hi"}\n'
    prints = {fingerprint(catalog.load_bytes(d, name).trace)
              for d, name in [(data, "hengxin-expense"), (data, "copy.jsonl"), (retitled, "x.jsonl"), (noted, "y.jsonl")]}
    assert len(prints) == 1


def test_a_log_uploaded_under_another_file_name_has_the_same_fingerprint():
    data = (catalog.TRACES_DIR.parent / "tests" / "fixtures" / "openai-pairs.jsonl").read_bytes()
    first, second = (read_upload([(name, data)]) for name in ("monday.jsonl", "copy of monday.jsonl"))
    assert first.conversations and len(first.conversations) == len(second.conversations)
    assert [fingerprint(c.trace) for c in first.conversations] == [fingerprint(c.trace) for c in second.conversations]


def test_key_order_does_not_change_the_fingerprint_but_content_does():
    lines = HENGXIN.read_text().splitlines()
    round_1 = json.loads(lines[1])
    backwards = {key: round_1[key] for key in reversed(list(round_1))}
    reordered = json.dumps(backwards | {"request": dict(reversed(round_1["request"].items()))})
    changed = json.loads(lines[1])
    changed["request"]["messages"][1]["content"] += "!"
    base = fingerprint(catalog.load_bytes(HENGXIN.read_bytes(), "a").trace)
    as_bytes = lambda second: "\n".join([lines[0], second, *lines[2:]]).encode()  # noqa: E731
    assert fingerprint(catalog.load_bytes(as_bytes(reordered), "b").trace) == base
    assert fingerprint(catalog.load_bytes(as_bytes(json.dumps(changed)), "c").trace) != base


# --- targets ---------------------------------------------------------------------------------


def test_every_target_offered_for_every_round_of_every_bundled_trace_resolves():
    for bundled in catalog.bundled_traces():
        trace = load_bundled(bundled.name).trace
        for index in range(1, len(trace.rounds) + 1):
            for target in round_targets(trace, index):
                assert unresolved(trace, target) is None, (bundled.name, target)


def test_round_2_of_hengxin_offers_its_messages_parts_steps_tool_call_and_execution(hengxin):
    offered = round_targets(hengxin, 2)
    assert offered[TOOL_CALL].strip() == "choices[0].message.tool_calls[0] · call calcAmountOver (call_q3)"
    assert offered["round:2/step:4"] == "Step 4 · Result appended"
    assert offered["round:2/request.messages[3]"].startswith("request messages[3] · tool · new · result for call_q1")
    assert offered["round:2/executions[0]"] == "program ran calcAmountOver · call call_q3"
    assert "round:2" in offered and "round:2/request.tools[2]" in offered


def test_a_target_that_points_at_nothing_says_why(hengxin):
    assert unresolved(hengxin, "round:9") == "the trace has no round 9"
    assert unresolved(hengxin, "round:4/step:2") == "round 4 has no step 2"
    assert unresolved(hengxin, "round:2/request.messages[42]") == "round 2 has nothing at request.messages[42]"
    assert "is not a target" in unresolved(hengxin, "round:2/request..messages")
    assert "is not a target" in unresolved(hengxin, "message 3")
    assert unresolved(hengxin, "trace") is None and unresolved(hengxin, TOOL_CALL) is None


def test_notes_on_paths_are_placed_on_the_cards_of_their_round():
    notes = [_note(TOOL_CALL), _note("round:2/request.messages[3]"), _note("round:2/executions[0]"),
             _note("round:2"), _note("round:2/step:3"), _note("round:3/request.messages[3]"), _note("trace")]
    placed = {(m.side, m.path) for m in marks_for_round(notes, 2)}
    assert placed == {("response", "choices[0].message.tool_calls[0]"), ("request", "messages[3]"),
                      ("execution", "executions[0]")}


# --- what a note may hold --------------------------------------------------------------------


def test_an_overlong_note_is_refused_with_the_limit_named():
    assert check_note("x" * NOTE_LIMIT, (), DEFAULT_LABELS) == ("x" * NOTE_LIMIT, ())
    with pytest.raises(NoteError, match=f"has {NOTE_LIMIT + 1:,} characters; the limit is {NOTE_LIMIT:,}"):
        check_note("x" * (NOTE_LIMIT + 1), (), DEFAULT_LABELS)


def test_unknown_labels_are_named_and_a_note_needs_text_or_a_label():
    with pytest.raises(NoteError, match="Not in the label set: 'vibes', 'meh'"):
        check_note("text", ["costly", "vibes", "meh"], DEFAULT_LABELS)
    with pytest.raises(NoteError, match="Write something or choose at least one label"):
        check_note("   ", [], DEFAULT_LABELS)
    assert check_note("", ["costly", "costly"], DEFAULT_LABELS) == ("", ("costly",))


def test_labels_and_author_names_are_trimmed_and_bounded():
    assert check_label("  wrong tool ") == "wrong tool"
    assert check_author("  Ada   Lovelace ") == "Ada Lovelace"
    for bad in ("", "x" * 41, "two\nlines"):
        with pytest.raises(NoteError):
            check_label(bad)
    with pytest.raises(NoteError, match="Enter your name first"):
        check_author("  ")


# --- in the native file and in CSV -----------------------------------------------------------


def test_an_annotation_line_carries_the_documented_fields():
    line = annotation_line(_note(TOOL_CALL, labels=("wrong tool", "costly")))
    assert line == {"kind": "annotation", "id": f"id-{TOOL_CALL}-a note", "target": TOOL_CALL,
                    "labels": ["wrong tool", "costly"], "note": "a note", "author": "Ada",
                    "created": "2026-11-29T10:00:00Z"}


def test_a_line_written_by_hand_without_an_id_gets_the_same_id_every_time_and_per_trace():
    line = {"kind": "annotation", "target": "round:1", "labels": [], "note": "by hand"}
    assert line_id(line, "fp-a") == line_id(dict(line), "fp-a")
    assert line_id(line, "fp-a") != line_id(line, "fp-b")
    assert line_id(line | {"note": "other"}, "fp-a") != line_id(line, "fp-a")
    assert line_id(line | {"id": "given"}, "fp-a") == "given"


def test_an_import_refuses_lines_with_unknown_labels_or_overlong_text_and_keeps_the_others(hengxin):
    trace = _with_annotations(
        hengxin,
        {"kind": "annotation", "id": "good", "target": TOOL_CALL, "labels": ["costly"], "note": "fine"},
        {"kind": "annotation", "id": "odd", "target": "round:1", "labels": ["vibes"], "note": "x"},
        {"kind": "annotation", "id": "long", "target": "round:1", "labels": [], "note": "x" * (NOTE_LIMIT + 1)},
        {"kind": "annotation", "id": "lost", "target": "round:9", "labels": [], "note": "detached, still kept"},
        {"kind": "annotation", "id": "bad", "target": "the tool call", "labels": [], "note": "x"},
    )
    found = notes_from_lines(trace, "fp", "upload.jsonl", DEFAULT_LABELS, importer="Ada")
    assert [n.id for n in found.notes] == ["good", "lost"]
    assert found.notes[0].trace_title == "Hengxin expense reimbursement" and found.notes[0].trace_name == "upload.jsonl"
    problems = "\n".join(found.problems)
    assert "Annotation 2 (round:1) was not imported: Not in the label set: 'vibes'" in problems
    assert "Annotation 3 (round:1) was not imported: The note has 5,001 characters" in problems
    assert "Annotation 5 (the tool call) was not imported: 'the tool call' is not a target" in problems
    assert unresolved(hengxin, found.notes[1].target) == "the trace has no round 9"


def test_an_export_carries_stored_notes_and_the_files_own_unstored_lines_each_once(hengxin):
    stored = _note(TOOL_CALL, "stored")
    own = {"kind": "annotation", "target": "round:1", "labels": [], "note": "only in the file"}
    again = annotation_line(stored)
    trace = annotated(_with_annotations(hengxin, own, again), "fp", [stored])
    lines = [json.loads(line) for line in write_trace(trace) if '"kind": "annotation"' in line]
    assert [line["note"] for line in lines] == ["stored", "only in the file"]


def test_the_csv_has_one_row_per_note_and_defuses_spreadsheet_formulas():
    notes = [_note("round:1", "=HYPERLINK(\"http://evil\")"), _note("round:2/step:3", "plain, with a comma")]
    rows = list(csv.DictReader(io.StringIO(notes_csv(notes, detached={notes[1].id}))))
    assert [r["note"] for r in rows] == ["'=HYPERLINK(\"http://evil\")", "plain, with a comma"]
    assert [r["detached"] for r in rows] == ["", "yes"]
    assert rows[0]["target"] == "round:1" and rows[0]["labels"] == "costly" and rows[0]["author"] == "Ada"


def test_the_csv_defuses_a_formula_hidden_behind_leading_whitespace_or_a_control_character():
    formulas = [" =HYPERLINK(\"http://evil\")", "\t=1+1", "\r+cmd|' /C calc'!A0", "\n@SUM(A1:A9)", "  -2+3"]
    notes = [_note(f"round:{n}", text) for n, text in enumerate([*formulas, " indented, not a formula"], start=1)]
    rows = list(csv.DictReader(io.StringIO(notes_csv(notes, detached=set()))))
    assert [r["note"] for r in rows] == ["'" + text for text in formulas] + [" indented, not a formula"]


def test_the_csv_has_a_column_per_rubric_scored_holding_each_notes_mark():
    rubrics = (Rubric("grounded", 0, 3), Rubric("safe", 0, 1, pass_fail=True), Rubric("unused", 0, 5))
    notes = [replace(_note("round:1", "both"), scores=(Score("safe", 1.0), Score("grounded", 2.0))),
             _note("round:2", "none"),
             replace(_note("round:3", "partly"), scores=(Score("grounded", 1.5), Score("=1+1", -2.0)))]
    text = notes_csv(notes, detached=set(), rubrics=rubrics)
    rows = list(csv.DictReader(io.StringIO(text)))
    # In the rubric set's order, then a rubric no longer set; none for a rubric no exported note scores. A rubric's
    # name comes after "score: ", so no header cell can start a formula.
    assert list(rows[0])[-3:] == ["score: grounded", "score: safe", "score: =1+1"]
    assert [(r["score: grounded"], r["score: safe"], r["score: =1+1"]) for r in rows] == [
        ("2", "pass", ""), ("", "", ""), ("1.5", "", "-2")]
    # Notes scored under no rubric export the columns they always had.
    assert list(csv.DictReader(io.StringIO(notes_csv([_note("round:1")], set(), rubrics))))[0].keys() == {
        "trace", "target", "detached", "labels", "note", "author", "claimed author", "created", "id", "fingerprint"}


def test_scores_travel_in_the_annotation_line_and_a_malformed_scores_object_is_refused(hengxin):
    scored = replace(_note(TOOL_CALL), scores=(Score("grounded", 2.0), Score("resolved", 1.0)))
    line = annotation_line(scored)
    assert line["scores"] == {"grounded": 2.0, "resolved": 1.0}
    trace = _with_annotations(hengxin, line, {"kind": "annotation", "id": "bad", "target": "round:1", "labels": ["costly"],
                                              "scores": {"grounded": "three"}})
    found = notes_from_lines(trace, "fp", "upload.jsonl", DEFAULT_LABELS, importer="Ada")
    assert [n.scores for n in found.notes] == [scored.scores]
    assert "Annotation 2 (round:1) was not imported: its scores are not an object of rubric names and numbers." \
        in found.problems


def test_a_score_reads_as_its_rubric_gives_it_pass_or_fail_or_a_whole_mark_of_its_range():
    rubrics = (Rubric("grounded", 0, 3), Rubric("correct", 0, 1, pass_fail=True))
    assert score_words(Score("grounded", 2.0), rubrics) == "grounded 2 of 0-3"
    assert score_words(Score("grounded", 1.5), rubrics) == "grounded 1.5 of 0-3"
    assert score_words(Score("correct", 1.0), rubrics) == "correct: pass"
    assert score_words(Score("correct", 0.0), rubrics) == "correct: fail"
    # Under a rubric no longer set there is no scale to read it on: its name and mark.
    assert score_words(Score("tone", 4.0), rubrics) == "tone 4"


def test_an_imported_note_is_signed_by_its_importer_and_keeps_the_files_author_as_a_claim(hengxin):
    trace = _with_annotations(hengxin, {"kind": "annotation", "id": "forged", "target": TOOL_CALL, "labels": [],
                                        "note": "Approved.", "author": "The Dean", "created": "2026-11-28T09:00:00Z"})
    note, = notes_from_lines(trace, "fp", "upload.jsonl", DEFAULT_LABELS, importer="Bo").notes
    assert (note.author, note.claimed_author) == ("Bo", "The Dean")
    assert "Bo · claimed author: The Dean" in note_heading(hengxin, note)
    assert (annotation_line(note)["author"], annotation_line(note)["claimed_author"]) == ("Bo", "The Dean")
    row, = csv.DictReader(io.StringIO(notes_csv([note], detached=set())))
    assert (row["author"], row["claimed author"]) == ("Bo", "The Dean")
    # A note written here claims nothing: its line and heading say no more than before.
    written = _note(TOOL_CALL)
    assert "claimed_author" not in annotation_line(written) and "claimed" not in note_heading(hengxin, written)


def test_a_note_imported_by_the_author_its_file_names_claims_nothing_more(hengxin):
    trace = _with_annotations(hengxin, {"kind": "annotation", "id": "mine", "target": TOOL_CALL, "labels": [],
                                        "note": "Checked.", "author": "Bo", "created": "2026-11-28T09:00:00Z"})
    note, = notes_from_lines(trace, "fp", "upload.jsonl", DEFAULT_LABELS, importer="Bo").notes
    assert (note.author, note.claimed_author) == ("Bo", "")
    assert "claimed" not in note_heading(hengxin, note)
