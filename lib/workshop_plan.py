"""A workshop plan: the slides a teacher shows, in order, each a view of a bundled trace.

A slide is (trace, round, step, view). The views are a presenter step (lib/presenter.py), the
trace's tokens and cost, the round in both dialects, the sequence diagram, a pitfall from the
gallery, and the trace's closing figures. A plan is kept as a small JSON file (docs/workshop-plan.md)
and travels in a link as `?plan=`: the name of a bundled plan (plans/), or the plan itself packed
into a few hundred characters. Reading either never raises: what is wrong is said with its line
and field, and the good slides of a broken file still load. No Streamlit here.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

PLANS_DIR = Path(__file__).resolve().parent.parent / "plans"
"""The bundled plans, one `<name>.json` each."""
KIND = "roundtrip-plan"
"""The `kind` of a plan file."""
VIEWS = {
    "step": "A step of a round",
    "tokens": "Tokens and cost",
    "dialects": "Both dialects",
    "diagram": "Sequence diagram",
    "gallery": "Pitfall gallery",
    "closing": "Closing figures",
}
"""Each view a slide can show, in a teacher's words."""
DIAGRAM_ROUNDS = 2
"""Rounds one diagram slide draws, from the slide's round: in a projector's type, more would not fit one screen."""
WHOLE_TRACE = ("tokens", "closing")
"""The views that sum every round of their trace, whatever the slide's round."""
LINK_PREFIX = "p1."
"""What starts a packed plan in `?plan=`, so it is never taken for a bundled plan's name."""
LINK_LIMIT = 8_000
"""Characters of `?plan=` read at most: a plan of a hundred slides packs into far fewer."""
UNPACKED_LIMIT = 200_000
"""Bytes a packed plan may unpack to; a link that would unpack to more is refused, not inflated."""
FILE_LIMIT = 1_000_000
"""Characters of a plan file read at most: any visitor may open one, and a plan of a thousand slides is 90,000."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
THIS_TAB = "this-tab."
"""What starts the name of a trace a plan shows from the browser tab's own memory, not from traces/: a live run that
ended there, or a log uploaded there (lib/ui/slides.offer). No file is written for it, so a link or a plan file opened
in any other tab finds no such trace, and says why (TAB_GONE)."""
TAB_GONE = ("is a live run or an upload that was open in the browser tab that made the plan, and only there: a plan's "
            "link or file names it but cannot carry it. Save the run into traces/ on the Live run page (or the log "
            "into traces/ by hand) and add its slides again to show it anywhere.")
"""Why a slide of a THIS_TAB trace is not shown in another tab, after its quoted name."""


@dataclass(frozen=True, slots=True)
class Slide:
    """One slide: a view of a bundled trace, at a round and a step where the view uses one."""

    id: str
    """Stable within its plan, so a test or a note can point at this slide whatever its place."""
    trace: str
    """The bundled trace's name, as `?trace=` names it (`pitfalls/…` for the gallery)."""
    view: str
    """One of VIEWS."""
    round: int = 1
    """1-based round: the step's round, the round shown in both dialects or the pitfall's round."""
    step: int = 1
    """1 to 5, for a step slide: the presenter's step of the round."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A workshop: a title and the slides in the order they are shown."""

    title: str
    """What the teacher calls it."""
    slides: tuple[Slide, ...]
    """In order."""


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """A plan as read from a file or a link, with what was wrong in it."""

    plan: Plan | None
    """The plan with its good slides; None when nothing could be read at all."""
    problems: tuple[str, ...]
    """Each problem, naming the line (or the slide) and the field."""


def slide_id(trace: str, view: str, round_: int, step: int) -> str:
    """The id a slide gets when its file gives none: the same slide always gets the same id."""
    short = trace.removeprefix("pitfalls/")
    return f"{short}-{view}" + (f"-r{round_}s{step}" if view == "step" else f"-r{round_}" if view == "dialects" else "")


def tab_name(source: str, taken: Mapping[str, Any]) -> str:
    """The THIS_TAB name of a trace known by `source` (a live run's scenario, an upload's file name): its letters,
    digits, dots and dashes, numbered when `taken` holds the name already, so two runs of one scenario stay two."""
    # At most 48 characters: with THIS_TAB and the longest suffix slide_id adds, a slide's id stays within _ID's 80.
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", source.rsplit("/", 1)[-1]).strip("-._")[:48] or "trace"
    name, count = THIS_TAB + stem, 1
    while name in taken:
        count += 1
        name = f"{THIS_TAB}{stem}-{count}"
    return name


def diagram_first(slide: Slide, rounds: int) -> int:
    """The first round a diagram slide draws: its round, moved back so that DIAGRAM_ROUNDS fit in the trace's
    `rounds`."""
    return min(max(slide.round, 1), max(rounds - DIAGRAM_ROUNDS + 1, 1))


def resume(plan: Plan, left: str | None) -> tuple[int, str | None]:
    """The 0-based slide a plan is presented from after editing: the one the teacher left it on (its id, `left`)
    where the plan still holds it, wherever it moved to, else the first; with what to say about where it opens (None
    when no slide was left). A teacher who left slide 12 to fix slide 15 came back to slide 1."""
    if left is None:
        return 0, None
    index = next((n for n, slide in enumerate(plan.slides) if slide.id == left), None)
    if index is None:
        return 0, (f"The slide the plan was left on is no longer in it: presenting from slide 1 of "
                   f"{len(plan.slides):,}.")
    return index, f"Back on slide {index + 1:,} of {len(plan.slides):,}, the slide the plan was left on."


def rounds_words(slide: Slide, rounds: int, held: bool = False) -> str:
    """Which of its trace's `rounds` a slide covers, as the plan's table says it: `all rounds` for a view that sums
    them, the rounds a diagram draws, else the slide's round. A `held` trace's diagram (predict mode) names its round
    alone: the round drawn beside it, one before where the trace ends there, would tell how long the trace is."""
    if slide.view in WHOLE_TRACE:
        return "all rounds"
    if slide.view == "diagram" and held:
        return f"around {slide.round}"
    if slide.view == "diagram":
        first = diagram_first(slide, rounds)
        last = min(first + DIAGRAM_ROUNDS - 1, rounds)
        return str(first) if last == first else f"{first} and {last}" if last == first + 1 else f"{first} to {last}"
    return str(min(slide.round, rounds))


def read_plan(text: str, traces: Mapping[str, int]) -> ReadPlan:
    """A plan file's text read against the bundled traces (`name` → number of rounds)."""
    if len(text) > FILE_LIMIT:
        return ReadPlan(None, (f"the file is {len(text):,} characters long; a plan file is at most {FILE_LIMIT:,} "
                               "(a plan of a thousand slides takes about 90,000).",))
    try:
        document = json.loads(text)
    except ValueError as exc:
        where = f"line {exc.lineno}, column {exc.colno}: " if isinstance(exc, json.JSONDecodeError) else ""
        return ReadPlan(None, (f"{where}not valid JSON ({getattr(exc, 'msg', exc)}).",))
    except RecursionError:  # a link of 166 characters unpacks to 50,000 brackets
        return ReadPlan(None, ("not valid JSON (it is nested too deeply to read).",))
    if not isinstance(document, dict) or document.get("kind") != KIND:
        return ReadPlan(None, (f'line 1: not a workshop plan: a plan is a JSON object with "kind": "{KIND}".',))
    problems: list[str] = []
    title = document.get("title")
    if not isinstance(title, str) or not title.strip():
        problems.append(f'line {_key_line(text, "title")}: field "title": a plan needs a title (text).')
        title = "Workshop"
    found = document.get("slides")
    if not isinstance(found, list):
        problems.append(f'line {_key_line(text, "slides")}: field "slides": a list of slides is needed.')
        return ReadPlan(Plan(title, ()), tuple(problems))
    lines = _slide_lines(text)
    slides: list[Slide] = []
    ids: set[str] = set()
    for n, raw in enumerate(found):
        where = f"line {lines[n]}, slide {n + 1}" if n < len(lines) else f"slide {n + 1}"
        slide, problem = _slide(raw, traces)
        if problem:
            problems.append(f"{where}: {problem}")
        elif slide.id in ids:
            problems.append(f'{where}: field "id": {slide.id} is the id of an earlier slide; ids must differ.')
        else:
            slides.append(slide)
            ids.add(slide.id)
    if not slides and not problems:
        problems.append(f'line {_key_line(text, "slides")}: field "slides": the plan has no slide.')
    return ReadPlan(Plan(title.strip(), tuple(slides)), tuple(problems))


def _slide(raw: Any, traces: Mapping[str, int]) -> tuple[Slide | None, str | None]:
    """One slide object, or why it is not one (naming the field)."""
    if not isinstance(raw, dict):
        return None, "a slide is a JSON object with trace, view, round and step."
    trace, view = raw.get("trace"), raw.get("view", "step")
    if isinstance(trace, str) and trace.startswith(THIS_TAB) and trace not in traces:
        return None, f'field "trace": {_quoted(trace)} {TAB_GONE}'
    if not isinstance(trace, str) or trace not in traces:
        known = ", ".join(sorted(traces))
        return None, f'field "trace": {_quoted(trace)} is not a bundled trace (one of: {known}).'
    if view not in VIEWS:
        return None, f'field "view": {_quoted(view)} is not a view (one of: {", ".join(VIEWS)}).'
    numbers = {}
    for field, top in (("round", traces[trace]), ("step", 5)):
        value = raw.get(field, 1)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            return None, f'field "{field}": {_quoted(value)} is not a whole number from 1 to {top}.'
        numbers[field] = value
    given = raw.get("id")
    if given is not None and (not isinstance(given, str) or not _ID.match(given)):
        return None, (f'field "id": {_quoted(given)} is not an id (letters, digits, dots, dashes and '
                      'underscores, up to 80).')
    return Slide(given or slide_id(trace, view, numbers["round"], numbers["step"]), trace, view,
                 numbers["round"], numbers["step"]), None


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "…"


def _slide_lines(text: str) -> list[int]:
    """The line each object of the top-level `slides` array starts on, by one pass over the characters."""
    lines, depth, line = [], 0, 1
    in_string = escaped = False
    last_string, key_at_depth_one, in_slides = "", None, False
    start = 0
    for i, char in enumerate(text):
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                last_string = text[start:i]
            continue
        if char == '"':
            in_string, start = True, i + 1
        elif char == ":" and depth == 1:
            key_at_depth_one = last_string
        elif char in "[{":
            depth += 1
            if depth == 2:
                in_slides = char == "[" and key_at_depth_one == "slides"
            elif depth == 3 and in_slides and char == "{":
                lines.append(line)
        elif char in "]}":
            depth -= 1
    return lines


def _key_line(text: str, key: str) -> int:
    found = re.search(rf'"{re.escape(key)}"\s*:', text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def dump_plan(plan: Plan) -> str:
    """The plan as a file: one slide a line, so a problem's line names its slide."""
    slides = ",\n".join("    " + json.dumps({"id": s.id, "trace": s.trace, "view": s.view, "round": s.round,
                                              "step": s.step}, ensure_ascii=False) for s in plan.slides)
    head = json.dumps({"kind": KIND, "version": 1, "title": plan.title}, ensure_ascii=False)[:-1]
    return f'{head},\n  "slides": [\n{slides}\n  ]\n}}\n'


def pack(plan: Plan) -> str:
    """The plan for `?plan=`: its file, compressed and base64url-encoded, after LINK_PREFIX."""
    packed = zlib.compress(dump_plan(plan).encode(), 9)
    return LINK_PREFIX + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def unpack(link: str, traces: Mapping[str, int]) -> ReadPlan:
    """What `?plan=` asks for: a bundled plan by name, or a packed one."""
    if not link.startswith(LINK_PREFIX):
        path = bundled_plans().get(link)
        if path is None:
            return ReadPlan(None, (f"The link names no bundled plan (there are: {', '.join(bundled_plans())}).",))
        return read_plan(path.read_text(encoding="utf-8"), traces)
    if len(link) > LINK_LIMIT:
        return ReadPlan(None, (f"The link's plan is longer than {LINK_LIMIT:,} characters.",))
    body = link[len(LINK_PREFIX):]
    try:
        packed = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
        inflate = zlib.decompressobj()
        data = inflate.decompress(packed, UNPACKED_LIMIT)
        if inflate.unconsumed_tail:
            return ReadPlan(None, (f"The link's plan unpacks to more than {UNPACKED_LIMIT:,} bytes.",))
        if not inflate.eof:
            raise ValueError("cut short")
        text = data.decode("utf-8")
    except (binascii.Error, ValueError, zlib.error):
        return ReadPlan(None, ("The link's plan is damaged (cut short when copied?): it does not unpack.",))
    return read_plan(text, traces)


def bundled_plans() -> dict[str, Path]:
    """The bundled plans by name (the file name without `.json`)."""
    return {path.stem: path for path in sorted(PLANS_DIR.glob("*.json"))}


def moved(plan: Plan, index: int, delta: int) -> Plan:
    """The plan with slide `index` (0-based) moved `delta` places, stopping at either end."""
    slides = list(plan.slides)
    target = min(max(index + delta, 0), len(slides) - 1)
    slides.insert(target, slides.pop(index))
    return Plan(plan.title, tuple(slides))


def removed(plan: Plan, index: int) -> Plan:
    """The plan without slide `index` (0-based)."""
    return Plan(plan.title, plan.slides[:index] + plan.slides[index + 1:])


def inserted(plan: Plan, index: int, trace: str, view: str, round_: int = 1, step: int = 1) -> Plan:
    """The plan with a new slide at `index` (0-based), its id derived and made unique within the plan."""
    taken = {s.id for s in plan.slides}
    base = slide_id(trace, view, round_, step)
    found = next(f"{base}-{n}" if n > 1 else base for n in range(1, len(taken) + 2)
                 if (f"{base}-{n}" if n > 1 else base) not in taken)
    slide = Slide(found, trace, view, round_, step)
    return Plan(plan.title, plan.slides[:index] + (slide,) + plan.slides[index:])
