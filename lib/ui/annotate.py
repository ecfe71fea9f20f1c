"""The Annotate page's parts, and the note markers the explorer draws.

They lay out; lib/annotations.py decides what a note may hold and lib/store.py keeps it. One store
per database URL for the whole server; what it holds is read at most every few seconds and read
again at once after any write from this server. Notes, like traces, are untrusted: every string
of theirs goes to lib/ui/plain.text or a dataframe, and alerts hold only our own words.
"""

from __future__ import annotations

import uuid

import pandas as pd
import streamlit as st

from lib import access
from lib.annotations import (NOTE_LIMIT, TRACE, Note, NoteError, Score, annotated,
                             check_label, check_score, read_rubric, rubric_words, check_note, line_id, notes_csv, notes_from_lines, now,
                             note_heading, round_of, round_targets, score_words, target_words, time_words, unresolved)
from lib.catalog import LoadedTrace
from lib.logs.native import write_trace
from lib.store import Store, StoreUnavailable, database_url
from lib.text import plural, shorten
from lib.ui import access as ui_access, kept, navigation, picker, plain, state
from lib.ui.database import store as _store
from lib.ui.cache import per_trace
from lib.ui.notes import forget_notes, notes_on, snapshot, trace_id

TARGET, LABELS, TEXT = "annotate.target", "annotate.labels", "annotate.text"
EDIT, EDITING, EDIT_TEXT, EDIT_LABELS = "annotate.edit", "annotate.editing", "annotate.edit_text", "annotate.edit_labels"
LABEL_SET, PICK, JUMP, SAID = "annotate.label_set", "annotate.pick", "annotate.jump", "annotate.said"
RUBRIC_SET, SCORE, EDIT_SCORE = "annotate.rubric_set", "annotate.score.", "annotate.edit_score."
PASS_FAIL = {"": None, "pass": 1.0, "fail": 0.0}
"""A pass/fail rubric's choices and the marks they store."""
VIEWERS_READ = ("On this server viewers read notes; only editors write, change or delete them. "
                "Sign in as an editor to annotate.")
"""Why a viewer sees no note form, and why a forged write is refused."""
HELD_WHILE_PREDICTING = ("Hidden in predict mode: notes on every round, and the trace's files, would give away what "
                         "the model does in the rounds still to predict. A round's own notes show under This round "
                         "once you have predicted it.")
"""In place of the notes and files of a whole trace (or of every trace) while predicting."""
FORM_WAITS = ("A note on this round waits until you have predicted the response: the parts a note can be about name "
              "the model's calls.")
"""In place of the note form on a round still to predict."""


def _write(action, done: str | None, about: str = "") -> bool:
    if not ui_access.visitor().edits:  # the forms are not drawn for a viewer; a forged click changes nothing
        _say("error", VIEWERS_READ)
        return False
    try:
        action(_store(database_url()))
    except (NoteError, StoreUnavailable) as exc:
        _say("error", "Nothing was changed:", (str(exc),))
        return False
    finally:
        forget_notes()
    if done:
        _say("success", done, (about,) if about else ())
    return True


def _say(kind: str, words: str, details: tuple[str, ...] = ()) -> None:
    """Keep a message for the next run: `words` are our own, `details` (a note's target, an error) untrusted."""
    st.session_state.setdefault(SAID, []).append((kind, words, details))


def messages() -> None:
    """What the last action did: saved, refused and why, or the database's problem."""
    for kind, words, details in st.session_state.pop(SAID, []):
        getattr(st, kind)(words)
        if details:
            plain.text("\n".join(details))


# --- in the explorer -------------------------------------------------------------------------


def round_notes(loaded: LoadedTrace, index: int, revealed: bool = True, opens: int | None = None) -> None:
    """Which rounds carry notes, and every note of this round with its target; with `revealed` False (predict mode,
    before the learner has predicted) only how many, since a note on the round may say what the model did. With
    `opens`, the last round a learner may open (lib.presenter.first_open), no later round is named: a note there is
    on what the model does in a round still to predict, and the list would tell how far the trace goes."""
    if snapshot().problem:
        st.caption("Notes are not shown: the database could not be read.")
        plain.text(snapshot().problem)
    mine = notes_on(loaded)
    rounds = sorted({r for r in map(round_of, (n.target for n in mine)) if r and (opens is None or r <= opens)})
    if rounds:
        st.caption(":material/edit_note: Notes on " + ", ".join(f"round {r}" for r in rounds))
    here = [note for note in mine if round_of(note.target) == index]
    if here and not revealed:
        st.caption(f"This round's notes ({len(here)}) are hidden until you predict the response: they may give it away.")
    elif here:
        with st.expander(f":material/edit_note: Notes on this round ({len(here)})", expanded=True):
            for note in here:
                note_entry(note, unresolved(loaded.trace, note.target), loaded)


def _targets_of(loaded: LoadedTrace, target: str) -> dict[str, str] | None:
    """The targets of the round `target` is in (worked out once), None when it names no round of this trace."""
    index = round_of(target)
    return _targets(loaded, index) if index and index <= len(loaded.trace.rounds) else None


def _said_target(loaded: LoadedTrace, target: str) -> str:
    """A target in the words a person reads, as a note's heading writes it."""
    return target_words(loaded.trace, target, _targets_of(loaded, target))


def note_entry(note: Note, detached: str | None, loaded: LoadedTrace) -> None:
    """One note: its target, labels, author and time, in words, then its text as plain text."""
    plain.text(note_heading(loaded.trace, note, snapshot().rubrics, _targets_of(loaded, note.target)))
    if detached:
        plain.text("Detached: " + detached)
    if note.text:
        plain.text(note.text)


# --- the Annotate page -----------------------------------------------------------------------


def follow_jump() -> None:
    """Open the explorer when a note's target was asked for on the previous run."""
    if st.session_state.pop(JUMP, False):
        st.switch_page(navigation.EXPLORER)


def editing() -> bool:
    """Whether this visitor may write notes; a viewer is told why there is no form, once, here."""
    if ui_access.visitor().edits:
        return True
    st.info(VIEWERS_READ)
    ui_access.say_login_refusal()
    return False


def store_problem() -> bool:
    """Show why the database cannot be used; True when it cannot."""
    problem = snapshot().problem
    if problem:
        st.error("The notes database does not answer. Notes cannot be read or saved until it answers; nothing "
                 "stored is lost.")
        plain.text(problem)
    return problem is not None


def import_offer(loaded: LoadedTrace) -> None:
    """For a file carrying annotation lines: how many are not stored yet, and a button to import them."""
    if not loaded.trace.annotations:
        return
    fp, stored = trace_id(loaded), {note.id for note in snapshot().notes}
    fresh = [line for line in loaded.trace.annotations if line_id(line, fp) not in stored]
    if not fresh:
        carried = len(loaded.trace.annotations)
        st.caption("The note this file carries is stored." if carried == 1 else
                   f"All {carried:,} notes this file carries are stored.")
        return
    st.info(f"This file carries {plural(len(fresh), 'note')} not stored yet.")
    st.button("Import them", key="annotate.import", on_click=_import, args=(loaded,))


def _import(loaded: LoadedTrace) -> None:
    importer = ui_access.visitor().identity
    if not importer:
        _say("error", VIEWERS_READ)
        return
    found = notes_from_lines(loaded.trace, trace_id(loaded), loaded.name, snapshot().labels, importer=importer)
    added = []
    if _write(lambda store: added.append(store.import_notes(found.notes)), None):
        kept = len(found.notes) - added[0]
        _say("success", f"Imported {plural(added[0], 'note')}" + (
            f"; {plural(kept, 'was', 'were')} stored already." if kept else "."))
    if found.problems:
        _say("warning", f"{plural(len(found.problems), 'annotation line')} could not be imported:", found.problems)


def note_form(loaded: LoadedTrace, index: int, disabled: bool) -> None:
    """Pick what the note is about in this round, write it, label it, save it."""
    targets = {**_targets(loaded, index), TRACE: "The whole trace"}
    with st.container(border=True):
        st.markdown(f"**Add a note to round {index}**")
        st.caption("Signed as (your sign-in; on a laptop, ROUNDTRIP_AUTHOR or your login name):")
        plain.text(ui_access.visitor().identity or "")
        st.selectbox("About", list(targets), format_func=plain.options(targets.get), key=TARGET,
                     help="The same parts the cards below show: a message, a part of it, a step, the round.")
        st.multiselect("Labels", snapshot().labels, key=LABELS)
        _score_fields()
        st.text_area("Note", key=TEXT, help=f"Up to {NOTE_LIMIT:,} characters.")
        st.button("Save the note", key="annotate.save", type="primary", disabled=disabled,
                  on_click=_save, args=(loaded,))


def _score_fields(prefix: str = SCORE) -> None:
    """One optional score per rubric: pass or fail, or a number in its range; widget keys start with `prefix`."""
    rubrics = snapshot().rubrics
    for rubric, column in zip(rubrics, st.columns(len(rubrics)) if rubrics else ()):
        with column:
            st.caption("Score under the rubric (optional):")
            plain.text(rubric_words(rubric))
            if rubric.pass_fail:
                st.selectbox("Pass or fail", list(PASS_FAIL), key=prefix + rubric.name)
            else:
                # %g: a mark is the number it is (2, 1.5), not 2.00
                st.number_input("Score", min_value=rubric.low, max_value=rubric.high, value=None, format="%g",
                                key=prefix + rubric.name)


def _score_choices(note: Note) -> dict[str, float | str | None]:
    """The note's scores as the score fields show them, by widget key: "pass" or "fail", a number, or empty."""
    marks = {score.rubric: score.value for score in note.scores}
    shown: dict[str, float | str | None] = {}
    for rubric in snapshot().rubrics:
        mark = marks.get(rubric.name)
        if rubric.pass_fail:
            shown[EDIT_SCORE + rubric.name] = next((k for k, v in PASS_FAIL.items() if v == mark and k), "")
        else:  # a mark outside a range changed since shows empty: the number box cannot hold it
            shown[EDIT_SCORE + rubric.name] = mark if mark is not None and rubric.low <= mark <= rubric.high else None
    return shown


def _unshown(note: Note) -> list[Score]:
    """The note's scores no field can show: under a rubric no longer set, or outside its rubric's range now. An edit
    keeps them, unless it gives a new score under that rubric."""
    shown = _score_choices(note)
    return [score for score in note.scores if shown.get(EDIT_SCORE + score.rubric) in (None, "")]


def _scores(prefix: str = SCORE) -> tuple[Score, ...]:
    """The scores given in the form, each checked against its rubric; NoteError when one is out of range."""
    rubrics = snapshot().rubrics
    given = [(r, st.session_state.get(prefix + r.name)) for r in rubrics]
    marks = [(r, PASS_FAIL.get(value) if r.pass_fail else value) for r, value in given]
    return tuple(check_score(Score(r.name, mark), rubrics) for r, mark in marks if mark is not None)


@per_trace()
def _targets(loaded: LoadedTrace, index: int) -> dict[str, str]:
    """Round `index`'s targets, worked out once per trace and round: a late round of a long trace has thousands of
    messages to place. Shared by every session: read it, never change it."""
    return round_targets(loaded.trace, index)


def card_pointer(loaded: LoadedTrace, index: int, editing: bool):
    """For the round's cards: a button on each that points the note form at what the card shows (for a viewer,
    who has no form, nothing)."""
    targets = _targets(loaded, index)

    def pointer(path: str) -> None:
        target = f"round:{index}/{path}"
        if editing and target in targets:
            st.button("Note on this", icon=":material/edit_note:", key=f"annotate.point.{target}", type="tertiary",
                      on_click=_point_at, args=(target, targets[target]), help="Points the note form above at this card.")

    return pointer


def _point_at(target: str, words: str) -> None:
    st.session_state[TARGET] = target
    _say("info", "The note form above is now about:", (words.strip(),))


def _save(loaded: LoadedTrace) -> None:
    s = st.session_state
    author = ui_access.visitor().identity
    try:
        if not author:
            raise NoteError(VIEWERS_READ)
        target = s.get(TARGET) or TRACE
        if reason := unresolved(loaded.trace, target):
            raise NoteError(f"The target {target} points at nothing: {reason}.")
        text, labels = check_note(s.get(TEXT, ""), s.get(LABELS, []), snapshot().labels)
        scores = _scores()
    except NoteError as exc:
        _say("error", "The note was not saved:", (str(exc),))
        return
    note = Note(id=str(uuid.uuid4()), trace=trace_id(loaded), target=target, labels=labels, text=text,
                author=author, created=now(), trace_title=loaded.trace.title, trace_name=loaded.name, scores=scores)
    if _write(lambda store: store.add(note), "Saved your note on:", _said_target(loaded, target)):
        s[TEXT], s[LABELS] = "", []
        for rubric in snapshot().rubrics:
            s.pop(SCORE + rubric.name, None)


def editor(loaded: LoadedTrace, disabled: bool, editing: bool) -> None:
    """Change or delete one note of this trace (an editor); detached notes are listed, kept, and editable here too."""
    mine = {note.id: note for note in notes_on(loaded)}
    detached = {i: reason for i, note in mine.items() if (reason := unresolved(loaded.trace, note.target))}
    if detached:
        st.warning(f"{plural(len(detached), 'note')} of this trace point at something it does not have. "
                   "They are kept, not dropped: edit or delete them here.")
        for note_id, reason in detached.items():
            note_entry(mine[note_id], reason, loaded)
    if not mine:
        st.caption("No notes on this trace yet.")
    if not mine or not editing:
        return
    # In a room where every learner who signs in edits (ROUNDTRIP_EDITORS=*), one learner's words must not be
    # changed under another's name, nor deleted by them: each changes their own.
    theirs = {i: n for i, n in mine.items() if ui_access.may_change(n.author)}
    if len(theirs) < len(mine):
        st.caption(access.NOT_YOURS)
    if not theirs:
        return
    chosen = st.selectbox("Edit or delete a note", list(theirs), key=EDIT,
                          format_func=plain.options(
                              lambda i: shorten(f"{mine[i].target} · {mine[i].author} · {mine[i].text}", 100)))
    note = mine[chosen]
    if st.session_state.get(EDITING) != chosen:
        st.session_state[EDITING], st.session_state[EDIT_TEXT] = chosen, note.text
        st.session_state[EDIT_LABELS] = list(note.labels)
        st.session_state.update(_score_choices(note))
    choices = list(dict.fromkeys([*snapshot().labels, *note.labels]))
    st.multiselect("Labels", choices, key=EDIT_LABELS)
    _score_fields(EDIT_SCORE)
    if unshown := _unshown(note):
        st.caption("Scores kept as they are, since no field above can show them (the rubric was dropped or its "
                   "range changed); a new score under the same rubric replaces one:")
        plain.text(", ".join(score_words(score) for score in unshown))
    st.text_area("Note", key=EDIT_TEXT)
    save, delete = st.columns(2)
    save.button("Save the changes", key="annotate.edit_save", disabled=disabled, on_click=_edit,
                args=(note, choices, _said_target(loaded, note.target)))
    delete.button("Delete this note", key="annotate.delete", disabled=disabled, on_click=_delete,
                  args=(note, _said_target(loaded, note.target)))


def _edit(note: Note, known: list[str], about: str) -> None:
    if ui_access.visitor().edits and not ui_access.may_change(note.author):  # not offered; a forged click changes nothing
        _say("error", access.NOT_YOURS)
        return

    def change(store: Store) -> None:
        text, labels = check_note(st.session_state.get(EDIT_TEXT, ""), st.session_state.get(EDIT_LABELS, []), known)
        given = _scores(EDIT_SCORE)
        kept = [score for score in _unshown(note) if score.rubric not in {g.rubric for g in given}]
        if not store.edit(note.id, text, labels, [*given, *kept]):
            raise NoteError("That note was deleted meanwhile.")
    _write(change, "Saved the changes to the note on:", about)


def _delete(note: Note, about: str) -> None:
    st.session_state.pop(EDITING, None)
    if ui_access.visitor().edits and not ui_access.may_change(note.author):  # not offered; a forged click changes nothing
        _say("error", access.NOT_YOURS)
        return
    _write(lambda store: store.delete(note.id), "Deleted the note on:", about)


def exports(loaded: LoadedTrace) -> None:
    """Download the trace with its notes as annotation lines, or the notes alone as CSV."""
    mine, fp, name = notes_on(loaded), trace_id(loaded), loaded.name.rsplit(".jsonl", 1)[0].replace("/", "-")
    detached = {note.id for note in mine if unresolved(loaded.trace, note.target)}
    st.download_button(
        "Download the trace with its notes (.jsonl)", key="annotate.export_trace", on_click="ignore",
        data=lambda: ("\n".join(write_trace(annotated(loaded.trace, fp, mine))) + "\n").encode(),
        file_name=f"{name}.annotated.jsonl", mime="application/jsonl",
        help="The native format with one annotation line per note: open it here again to bring the notes back.")
    st.download_button("Download this trace's notes as CSV", key="annotate.export_csv", on_click="ignore",
                       data=notes_csv(mine, detached, snapshot().rubrics).encode(), file_name=f"{name}.notes.csv",
                       mime="text/csv")


def all_notes(loaded: LoadedTrace) -> None:
    """Every note on every trace, filtered by label, author and trace, with a jump to a note's round."""
    everything = snapshot().notes
    if not everything:
        st.caption("No notes yet.")
        return
    titles = {note.trace: note.trace_title or note.trace[:12] for note in everything}
    by_label, by_author, by_trace = st.columns(3)
    labels = set(by_label.multiselect("Label", sorted({x for n in everything for x in n.labels}), key="annotate.by_label"))
    authors = set(by_author.multiselect("Author", sorted({n.author for n in everything}), key="annotate.by_author"))
    traces = set(by_trace.multiselect("Trace", list(titles), format_func=plain.options(titles.get),
                                      key="annotate.by_trace"))
    shown = [n for n in everything if (not labels or labels & set(n.labels)) and (not authors or n.author in authors)
             and (not traces or n.trace in traces)]
    rubrics = snapshot().rubrics
    st.dataframe(plain.cells(pd.DataFrame([{"trace": titles[n.trace], "target": n.target, "labels": ", ".join(n.labels),
                                "note": n.text, "scores": " · ".join(score_words(s, rubrics) for s in n.scores),
                                "author": n.author, "claimed author": n.claimed_author,
                                "created": time_words(n.created)} for n in shown],
                              columns=["trace", "target", "labels", "note", "scores", "author", "claimed author",
                                       "created"])),
                 hide_index=True, width="stretch", key="annotate.all")
    st.download_button("Download these notes as CSV", key="annotate.all_csv", on_click="ignore",
                       data=notes_csv(shown, set(), rubrics).encode(), file_name="notes.csv", mime="text/csv")
    if not shown:
        return
    by_id = {note.id: note for note in shown}
    chosen = by_id[st.selectbox("Open a note's round", list(by_id), key=PICK, format_func=plain.options(lambda i: shorten(
        f"{titles[by_id[i].trace]} · {by_id[i].target} · {by_id[i].text}", 100)))]
    here = chosen.trace == trace_id(loaded)
    bundled = None if here else _bundled_ids().get(chosen.trace)
    saved = None if here or bundled else _saved(chosen.trace)
    unreachable = not here and bundled is None and saved is None
    st.button("Open in the round explorer", key="annotate.open", on_click=_jump, args=(loaded, chosen, bundled, saved),
              disabled=unreachable, help="That trace is not open: open its file in the sidebar first."
              if unreachable else None)
    if unreachable:
        plain.text(f"That trace is not open: open {chosen.trace_name or 'its file'} in the sidebar first.")


# Over all the bundled traces at once, so not per trace.
@st.cache_resource(show_spinner="Finding the bundled traces…")
def _bundled_ids() -> dict[str, str]:
    return {trace_id(state.load_bundled(t.name)): t.name for t in state.bundled()}


def _saved(trace: str) -> LoadedTrace | None:
    """The saved trace a note is on, when the library keeps it (a note's trace is the saved trace's id)."""
    try:
        return kept.load(trace)
    except StoreUnavailable:
        return None


def _jump(loaded: LoadedTrace, note: Note, bundled: str | None, saved: LoadedTrace | None) -> None:
    if bundled is not None:  # the note is on a bundled trace that is not open: open it, leaving any upload
        st.session_state.pop(picker.FILES, None)
        st.session_state[picker.TRACE] = bundled
        loaded = state.load_bundled(bundled)
    elif saved is not None:  # on a saved trace: open it from the library
        picker.pick_saved(note.trace)
        loaded = saved
    navigation.point_explorer_at(loaded, round_of(note.target) or 1)
    st.session_state[JUMP] = True  # a callback cannot switch pages: follow_jump does on the next run


def _room_set(words: str, shown: list[str]) -> bool:
    """Whether this visitor may change a set the whole room uses; for one who may not, the set as it is, and why."""
    if ui_access.moderates():
        return True
    st.caption(access.ROOMS_TO_SET)
    plain.text("\n".join(shown) or words)
    return False


def label_editor(disabled: bool) -> None:
    """The label set, one per line, editable; notes keep the labels they have."""
    if not _room_set("No labels yet.", list(snapshot().labels)):
        return
    if LABEL_SET not in st.session_state:
        st.session_state[LABEL_SET] = "\n".join(snapshot().labels)
    st.text_area("One label per line", key=LABEL_SET, height=240)
    st.button("Save the label set", key="annotate.save_labels", disabled=disabled, on_click=_save_labels)


def _save_labels() -> None:
    if ui_access.visitor().edits and not ui_access.moderates():  # not drawn for them; a forged click changes nothing
        _say("error", access.ROOMS_TO_SET)
        return
    try:
        names = list(dict.fromkeys(check_label(line) for line in st.session_state[LABEL_SET].splitlines() if line.strip()))
    except NoteError as exc:
        _say("error", "The label set was not saved:", (str(exc),))
        return
    if _write(lambda store: store.set_labels(names), f"Saved {plural(len(names), 'label')}."):
        st.session_state.pop(LABEL_SET)


def rubric_editor(disabled: bool) -> None:
    """The rubrics, one per line (`grounded: 0-3`, `correct: pass/fail`), editable; scores keep their rubric's name."""
    if not _room_set("No rubrics yet.", list(map(rubric_words, snapshot().rubrics))):
        return
    if RUBRIC_SET not in st.session_state:
        st.session_state[RUBRIC_SET] = "\n".join(map(rubric_words, snapshot().rubrics))
    st.text_area("One rubric per line: a name, a colon, then a range (grounded: 0-3) or pass/fail", key=RUBRIC_SET,
                 height=160)
    st.button("Save the rubrics", key="annotate.save_rubrics", disabled=disabled, on_click=_save_rubrics)


def _save_rubrics() -> None:
    if ui_access.visitor().edits and not ui_access.moderates():  # not drawn for them; a forged click changes nothing
        _say("error", access.ROOMS_TO_SET)
        return
    try:
        found = [read_rubric(line) for line in st.session_state[RUBRIC_SET].splitlines() if line.strip()]
    except NoteError as exc:
        _say("error", "The rubrics were not saved:", (str(exc),))
        return
    chosen = list({rubric.name: rubric for rubric in found}.values())
    if _write(lambda store: store.set_rubrics(chosen), f"Saved {plural(len(chosen), 'rubric')}."):
        st.session_state.pop(RUBRIC_SET)
