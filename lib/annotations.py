"""Notes on a trace: what they point at, what makes one valid, and how they travel in a file.

Pure logic, no database and no Streamlit: lib/store.py keeps notes, lib/ui/annotate.py shows them.
A target names a whole trace, a round, a step of a round, or a JSON path in the round's line of
the native file (docs/trace-format.md), with the step labels' path conventions.
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Literal, Mapping

from lib.logs.native import round_line
from lib.growth import growth
from lib.intern import canonical_json
from lib.model import Trace
from lib.spreadsheet import csv_text
from lib.steps import STEP_TITLES, join_path, steps_for_round
from lib.text import summarize_message

DEFAULT_LABELS = ("correct", "wrong tool", "bad arguments", "missing result", "hallucinated",
                  "narrated without calling", "needed approval", "costly", "question for class")
"""The label set a new database starts with; editable on the Annotate page."""

NOTE_LIMIT = 5_000
"""Characters a note's text may have: a paragraph or five, never a pasted log."""
LABEL_LIMIT = 40
"""Characters a label may have."""
AUTHOR_LIMIT = 80
"""Characters an author name may have."""
TRACE = "trace"
"""The target of a note on the whole trace."""
RESENT_TARGETS = 300
"""Resent messages offered as targets, the latest ones; a long trace's whole history would swamp the picker."""

_TARGET = re.compile(r"round:([1-9]\d*)(?:/(?:step:([1-5])|(.+)))?")
_PATH = re.compile(r"[^.\[\]]+(?:\.[^.\[\]]+|\[\d+\])*")
_PIECE = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_IDS = uuid.UUID("6f1c1a52-5d0b-4f7e-9a57-0d4c3c9e2b11")
"""Namespace of the ids given to annotation lines written without one."""


class NoteError(ValueError):
    """A note, label or target that cannot be accepted; the message says why, for a person."""


@dataclass(frozen=True, slots=True)
class Score:
    """A mark under a named rubric, beside a note's labels."""

    rubric: str
    """The rubric's name, e.g. `grounded`."""
    value: float
    """The mark: within the rubric's range; 1 for pass and 0 for fail on a pass/fail rubric."""


@dataclass(frozen=True, slots=True)
class Rubric:
    """A named scale notes are scored on: a range such as `grounded: 0-3`, or pass/fail."""

    name: str
    """What is scored, e.g. `grounded`."""
    low: float = 0
    """The lowest mark."""
    high: float = 1
    """The highest mark."""
    pass_fail: bool = False
    """True for a pass/fail rubric: its marks are 0 (fail) and 1 (pass)."""


def check_score(score: Score, rubrics: Iterable[Rubric]) -> Score:
    """The score as stored; NoteError for an unknown rubric or a mark outside its range."""
    found = {rubric.name: rubric for rubric in rubrics}.get(score.rubric)
    if found is None:
        raise NoteError(f"There is no rubric {score.rubric!r}. Add it first, or leave the score out.")
    value = float(score.value)
    if found.pass_fail and value not in (0, 1):
        raise NoteError(f"{found.name!r} is pass/fail: its score is 1 (pass) or 0 (fail), not {score.value!r}.")
    if not found.low <= value <= found.high:
        raise NoteError(f"{found.name!r} is scored from {found.low:g} to {found.high:g}, not {score.value!r}.")
    return Score(found.name, value)


_RUBRIC = re.compile(r"^(?P<name>[^:]+):\s*(?:(?P<pf>pass\s*/\s*fail)|(?P<low>-?\d+(?:\.\d+)?)\s*(?:-|–|to)\s*"
                     r"(?P<high>-?\d+(?:\.\d+)?))\s*$", re.IGNORECASE)


def read_rubric(line: str) -> Rubric:
    """A rubric as a person writes it, `grounded: 0-3` or `correct: pass/fail`; NoteError saying the form otherwise."""
    found = _RUBRIC.match(" ".join(line.split()))
    if found is None:
        raise NoteError(f"{line.strip()!r} is not a rubric: write a name, a colon, then a range such as 0-3, "
                        "or pass/fail.")
    name = check_label(found["name"])
    if found["pf"]:
        return Rubric(name, 0, 1, pass_fail=True)
    low, high = float(found["low"]), float(found["high"])
    if low >= high:
        raise NoteError(f"The rubric {name!r} runs from {low:g} to {high:g}: the first must be the lower.")
    return Rubric(name, low, high)


def rubric_words(rubric: Rubric) -> str:
    """A rubric as read_rubric reads it."""
    return f"{rubric.name}: " + ("pass/fail" if rubric.pass_fail else f"{rubric.low:g}-{rubric.high:g}")


@dataclass(frozen=True, slots=True)
class Note:
    """One annotation: free text and labels pinned to a target of one trace."""

    id: str
    """Stable across export and import, so importing a file twice adds nothing."""
    trace: str
    """The fingerprint of the trace it is on (lib/fingerprint.py)."""
    target: str
    """What it is about: `trace`, `round:K`, `round:K/step:N` or `round:K/<JSON path in the round line>`."""
    labels: tuple[str, ...]
    """Zero or more labels from the label set."""
    text: str
    """The note itself, untrusted: shown only as text."""
    author: str
    """Who wrote it, as they named themselves; for an imported note, who imported it."""
    created: str
    """When it was written, ISO 8601 in UTC."""
    trace_title: str = ""
    """The trace's title when the note was written, to list notes of traces not open."""
    trace_name: str = ""
    """Where that trace was opened from then: a bundled trace's name or an uploaded file's name."""
    scores: tuple[Score, ...] = ()
    """Marks under named rubrics, beside the labels; at most one per rubric."""
    claimed_author: str = ""
    """For an imported note, the author its file named: a claim no one checked, so never its signature."""


@dataclass(frozen=True, slots=True)
class Target:
    """A target string taken apart."""

    round: int | None
    """1-based round, or None for the whole trace."""
    step: int | None
    """1 to 5 for a step of the round, else None."""
    path: str
    """JSON path in the round line (`request.messages[3]`, `executions[0]`), or empty."""


@dataclass(frozen=True, slots=True)
class NoteMark:
    """A note placed on a card, found by the same body-relative path as a step label."""

    note: Note
    """The note."""
    side: Literal["request", "response", "execution"]
    """Which body the path is in."""
    path: str
    """JSON path in that body (`messages[3]`, `choices[0].message.tool_calls[0]`, `executions[0]`)."""


@dataclass(frozen=True, slots=True)
class Imported:
    """What a file's annotation lines yield: the notes to store and the lines refused."""

    notes: tuple[Note, ...]
    """Valid notes, detached ones included."""
    problems: tuple[str, ...]
    """One sentence per refused line, naming it."""


# --- targets ---------------------------------------------------------------------------------


def parse_target(target: str) -> Target:
    """The target taken apart; NoteError when it is not written like one."""
    if target == TRACE:
        return Target(None, None, "")
    found = _TARGET.fullmatch(target) if isinstance(target, str) else None
    if found is None or (found[3] is not None and not _PATH.fullmatch(found[3])):
        raise NoteError(f"{target!r} is not a target: expected `trace`, `round:K`, `round:K/step:N` "
                        "or `round:K/` and a JSON path such as `request.messages[3]`.")
    return Target(int(found[1]), int(found[2]) if found[2] else None, found[3] or "")


def unresolved(trace: Trace, target: str) -> str | None:
    """Why the target points at nothing in this trace, or None when it resolves."""
    try:
        parsed = parse_target(target)
    except NoteError as exc:
        return str(exc)
    if parsed.round is None:
        return None
    if parsed.round > len(trace.rounds):
        return f"the trace has no round {parsed.round}"
    if parsed.step is not None:
        steps = {label.step for label in steps_for_round(trace, parsed.round)}
        return None if parsed.step in steps else f"round {parsed.round} has no step {parsed.step}"
    value: Any = round_line(trace.rounds[parsed.round - 1])
    for key, position in _PIECE.findall(parsed.path):
        if key and isinstance(value, dict) and key in value:
            value = value[key]
        elif position and isinstance(value, list) and int(position) < len(value):
            value = value[int(position)]
        else:
            return f"round {parsed.round} has nothing at {parsed.path}"
    return None


def round_targets(trace: Trace, index: int) -> dict[str, str]:
    """Every target of round `index` a note can be pinned to, described in a line, in payload order."""
    round_ = trace.rounds[index - 1]
    at = f"round:{index}/"
    found = {f"round:{index}": f"Round {index} as a whole"}
    for step in sorted({label.step for label in steps_for_round(trace, index)}):
        found[f"{at}step:{step}"] = f"Step {step} · {STEP_TITLES[step]}"
    if round_.request.system is not None:
        found[f"{at}request.system"] = "request system · " + summarize_message(round_.request.system, 60)
    entries = growth(trace, index).entries
    for entry in entries:
        if entry.status != "resent" or entry.index >= len(entries) - RESENT_TARGETS:
            _message_targets(found, at + "request", f"messages[{entry.index}]", entry.message, entry.status)
    field = "functions" if "tools" not in round_.request.raw else "tools"
    for i, tool in enumerate(round_.request.tools):
        found[f"{at}request.{field}[{i}]"] = f"request {field}[{i}] · tool {tool.name}"
    response = round_.response
    if response is not None:
        _message_targets(found, at + "response", response.message_path, response.message, "the model's turn")
        if response.finish_reason_path:
            found[f"{at}response.{response.finish_reason_path}"] = f"response stop signal · {response.finish_reason}"
    if round_.error is not None:
        found[f"{at}error"] = f"error · {round_.error.message[:60]}"
    for i, execution in enumerate(round_.executions):
        found[f"{at}executions[{i}]"] = f"program ran {execution.name} · call {execution.tool_call_id}"
    return found


def _message_targets(found: dict[str, str], side: str, path: str, message, status: str) -> None:
    # Like the cards: a resent message is one row, a new or changed one shows its parts.
    where = side.rsplit("/", 1)[-1]
    found[join_path(side, path)] = f"{where} {path or 'body'} · {message.role} · {status} · {summarize_message(message, 50)}"
    for part in message.parts if status != "resent" else ():
        if part.path:
            found[join_path(side, path, part.path)] = f"    {join_path(path, part.path)} · {_part_words(part)}"


def _part_words(part) -> str:
    match part.kind:
        case "tool-call":
            return f"call {part.name} ({part.id})"
        case "tool-result":
            return f"result for {part.call_id}"
        case "text":
            return "text"
        case _:
            return f"{part.type} part"


def marks_for_round(notes: Iterable[Note], index: int) -> tuple[NoteMark, ...]:
    """The notes on paths of round `index`, placed for the cards."""
    marks = []
    for note in notes:
        try:
            parsed = parse_target(note.target)
        except NoteError:
            continue
        section, _, rest = parsed.path.partition(".")
        if parsed.round != index:
            continue
        if section in ("request", "response") and rest:
            marks.append(NoteMark(note, section, rest))
        elif section.startswith("executions["):
            marks.append(NoteMark(note, "execution", parsed.path))
    return tuple(marks)


def round_of(target: str) -> int | None:
    """The round a target is in, or None for the whole trace or a malformed target."""
    try:
        return parse_target(target).round
    except NoteError:
        return None


# --- what a note may hold --------------------------------------------------------------------


def check_label(name: str) -> str:
    """A label name, trimmed; NoteError when it is empty, too long or holds line breaks."""
    clean = name.strip() if isinstance(name, str) else ""
    if not clean:
        raise NoteError("A label needs at least one character.")
    if len(clean) > LABEL_LIMIT:
        raise NoteError(f"The label {clean[:LABEL_LIMIT]!r}… is longer than {LABEL_LIMIT} characters.")
    if any(not ch.isprintable() for ch in clean):
        raise NoteError(f"The label {clean!r} holds line breaks or control characters.")
    return clean


def check_note(text: str, labels: Iterable[str], known: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """The note's text and labels as stored; NoteError for an overlong or empty note or an unknown label."""
    labels, known = tuple(dict.fromkeys(labels)), set(known)
    if len(text) > NOTE_LIMIT:
        raise NoteError(f"The note has {len(text):,} characters; the limit is {NOTE_LIMIT:,}. Shorten it and save again.")
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise NoteError("Not in the label set: " + ", ".join(map(repr, unknown))
                        + ". Add them under Labels first, or leave them out.")
    if not text.strip() and not labels:
        raise NoteError("Write something or choose at least one label.")
    return text, labels


def check_author(name: str) -> str:
    """An author name, trimmed; NoteError when missing or too long."""
    clean = " ".join(str(name or "").split())
    if not clean:
        raise NoteError("Enter your name first: every note records who wrote it.")
    if len(clean) > AUTHOR_LIMIT:
        raise NoteError(f"The name is longer than {AUTHOR_LIMIT} characters.")
    return clean


def target_words(trace: Trace, target: str, targets: Mapping[str, str] | None = None) -> str:
    """A note's target as a person reads it (`round 2 · request messages[4] · tool result …`), the path itself
    when the trace has nothing there; `targets`, its round's `round_targets` when the caller has them already."""
    if target == TRACE:
        return "the whole trace"
    index = round_of(target)
    if not index or index > len(trace.rounds):
        return target
    words = (round_targets(trace, index) if targets is None else targets).get(target)
    if words is None:
        return target
    return words if words.startswith("Round ") else f"round {index} · {words.strip()}"


def note_heading(trace: Trace, note: Note, rubrics: Iterable[Rubric] = (),
                 targets: Mapping[str, str] | None = None) -> str:
    """A note's line above its text, as the explorer and the exported file both write it: its target in words,
    labels, scores (read on `rubrics`, the rubric set), author and time; `targets` as `target_words` takes them."""
    marks = [score_words(score, rubrics) for score in note.scores]
    claim = [f"claimed author: {note.claimed_author}"] if note.claimed_author else []
    return " · ".join([target_words(trace, note.target, targets), *note.labels, *marks, note.author, *claim,
                       time_words(note.created)])


def score_words(score: Score, rubrics: Iterable[Rubric] = ()) -> str:
    """A score as a person reads it on its rubric: `correct: pass`, `grounded 2 of 0-3`; under a rubric no longer
    set there is no scale to read it on, so its name and mark."""
    rubric = next((r for r in rubrics if r.name == score.rubric), None)
    if rubric is None:
        return f"{score.rubric} {score.value:g}"
    if rubric.pass_fail and score.value in (0, 1):
        return f"{score.rubric}: {'pass' if score.value else 'fail'}"
    return f"{score.rubric} {score.value:g} of {rubric.low:g}-{rubric.high:g}"


def time_words(stamp: str) -> str:
    """A note's time as a person reads it (`30 Nov 2026, 17:49 UTC`); a stamp that is not one, as it is."""
    try:
        found = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    except (TypeError, ValueError):
        return str(stamp)
    return f"{found.day} {found:%b %Y, %H:%M} UTC"


def now() -> str:
    """The current time as a note records it."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- in the native file and in CSV -----------------------------------------------------------


def annotation_line(note: Note) -> dict:
    """The note as an annotation line of the native file."""
    line = {"kind": "annotation", "id": note.id, "target": note.target, "labels": list(note.labels),
            "note": note.text, "author": note.author, "created": note.created}
    if note.claimed_author:
        line["claimed_author"] = note.claimed_author
    if note.scores:
        line["scores"] = {score.rubric: score.value for score in note.scores}
    return line


def line_id(line: dict, trace_id: str) -> str:
    """An annotation line's id; a line written by hand without one gets an id derived from its fields."""
    given = line.get("id")
    if isinstance(given, str) and given.strip():
        return given.strip()
    fields = {k: line.get(k) for k in ("target", "labels", "note", "author", "created")}
    return str(uuid.uuid5(_IDS, trace_id + canonical_json(fields).decode()))


def annotated(trace: Trace, trace_id: str, notes: Iterable[Note]) -> Trace:
    """The trace carrying its stored notes as annotation lines, and any lines of its file not stored."""
    lines = [annotation_line(note) for note in notes]
    stored = {line["id"] for line in lines}
    lines += [line for line in trace.annotations if line_id(line, trace_id) not in stored]
    return replace(trace, annotations=tuple(lines))


def notes_from_lines(trace: Trace, trace_id: str, name: str, known: Iterable[str], *, importer: str) -> Imported:
    """The notes a file's annotation lines carry, signed by their importer, each line's author kept as its claimed
    author; a line that cannot be a note becomes a problem."""
    notes, problems = [], []
    known, signer = tuple(known), importer[:AUTHOR_LIMIT]
    for n, line in enumerate(trace.annotations, start=1):
        try:
            notes.append(_note_from_line(line, trace, trace_id, name, known, signer))
        except NoteError as exc:
            problems.append(f"Annotation {n} ({str(line.get('target'))[:80]}) was not imported: {exc}")
    return Imported(tuple(notes), tuple(problems))


def _note_from_line(line: dict, trace: Trace, trace_id: str, name: str, known: tuple[str, ...], signer: str) -> Note:
    labels, text, author = line.get("labels") or [], line.get("note", ""), line.get("author") or ""
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        raise NoteError("its labels are not a list of strings.")
    if not isinstance(text, str) or not isinstance(author, str):
        raise NoteError("its note and author must be text.")
    note_id = line_id(line, trace_id)
    if len(note_id) > 64:
        raise NoteError("its id is longer than 64 characters.")
    parse_target(line.get("target"))
    text, labels = check_note(text, labels, known)
    claimed = author[:AUTHOR_LIMIT]
    # A file naming its importer claims nothing the signature does not already say.
    return Note(id=note_id, trace=trace_id, target=line["target"], labels=labels, text=text, author=signer,
                claimed_author="" if claimed == signer else claimed, created=str(line.get("created") or "")[:40],
                trace_title=trace.title, trace_name=name, scores=_scores_of(line.get("scores")))


def _scores_of(given: Any) -> tuple[Score, ...]:
    """An annotation line's `scores` object ({rubric: number}); NoteError when it is not one."""
    if given is None:
        return ()
    if not isinstance(given, dict) or not all(isinstance(rubric, str) and 0 < len(rubric) <= LABEL_LIMIT
                                              and type(value) in (int, float) and math.isfinite(value)
                                              for rubric, value in given.items()):
        raise NoteError("its scores are not an object of rubric names and numbers.")
    return tuple(Score(rubric, float(value)) for rubric, value in given.items())


CSV_COLUMNS = ("trace", "target", "detached", "labels", "note", "author", "claimed author", "created", "id",
               "fingerprint")
"""The columns of the notes CSV every export has; a column per rubric scored follows them (`score_column`)."""


def score_column(rubric: str) -> str:
    """The notes CSV's column for the scores under `rubric`."""
    return f"score: {rubric}"


def score_mark(score: Score, rubrics: Iterable[Rubric] = ()) -> float | str:
    """A score's mark alone, as a spreadsheet cell: pass or fail on a pass/fail rubric, else the number."""
    rubric = next((r for r in rubrics if r.name == score.rubric), None)
    if rubric is not None and rubric.pass_fail and score.value in (0, 1):
        return "pass" if score.value else "fail"
    value = float(score.value)
    return int(value) if value.is_integer() else value


def notes_csv(notes: Iterable[Note], detached: set[str], rubrics: Iterable[Rubric] = ()) -> str:
    """The notes as CSV text, with a column per rubric any of them is scored under (in the order of `rubrics`, the
    rubric set, then any no longer set); a cell a spreadsheet would run as a formula gets a leading '."""
    notes, rubrics = list(notes), tuple(rubrics)
    scored = {score.rubric for note in notes for score in note.scores}
    names = [r.name for r in rubrics if r.name in scored]
    names += list(dict.fromkeys(s.rubric for note in notes for s in note.scores if s.rubric not in names))

    def marks(note: Note) -> list[float | str]:
        given = {score.rubric: score_mark(score, rubrics) for score in note.scores}
        return [given.get(name, "") for name in names]

    return csv_text((*CSV_COLUMNS, *map(score_column, names)),
                    ((note.trace_title, note.target, "yes" if note.id in detached else "", "; ".join(note.labels),
                      note.text, note.author, note.claimed_author, note.created, note.id, note.trace, *marks(note))
                     for note in notes))
