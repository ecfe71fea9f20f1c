"""Lessons: a trace author's "what to notice" callout, pinned to one step of one round.

A lesson is written in the trace file itself, as a `kind: "lesson"` line (docs/trace-format.md), so
anyone can teach with their own traces. Presenter mode shows it large at the step it applies to,
the explorer beside the round. Each lesson may name the learning points it teaches (`points`, the
numbers of LEARNING_POINTS), so a workshop can be checked to cover all of them.

Lesson text comes from a file, so it is untrusted: the app shows it only as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib.coerce import int_or_none, shown

LEARNING_POINTS = {
    1: "the model is stateless: it sees only this request; everything is resent every round",
    2: "the messages array grows every round (2 → 5 → 7 → 9 in Hengxin)",
    3: "the response is only the increment; the program keeps the history",
    4: "the tool definitions are all the model knows of the tools, and they are paid for again every round",
    5: "one tool use means at least two model calls; a round is a model call",
    6: "parallel calls save rounds, and with each round saved a resend of the whole context; every call id is owed a "
       "result",
    7: "the stop signal (tool_calls against stop) is the loop's switch; content is null while calling, "
       "but text and calls can coexist",
    8: "the model fills the arguments and may invent them; identity comes from the program",
    9: "an empty result becomes an invented answer",
    10: "narration is not a call",
    11: "write tools wait for a human",
    12: "the model does no arithmetic; money is Decimal, quantized before comparing",
    13: "tools described in the system prompt instead of `tools` do not work; strict guarantees the format, "
        "not the truth",
}
"""What a learner must be able to read off the screen by the end of a workshop (issue 17), by number."""

TITLE_LIMIT = 120
"""Characters of a lesson's title: one line on a projector."""
TEXT_LIMIT = 1_000
"""Characters of a lesson's text or fix: a callout, not an essay."""
KIND = "lesson"
"""The `kind` of a lesson line."""


@dataclass(frozen=True, slots=True)
class Lesson:
    """What to notice at one step of one round, in the trace author's words."""

    round: int
    """The 1-based round it belongs to."""
    step: int
    """The step of that round (1 to 5, lib/steps.py) at which it applies."""
    title: str
    """One line: what happened."""
    text: str
    """What the model saw, or why it matters."""
    fix: str = ""
    """What to do about it, when there is something to fix."""
    points: tuple[int, ...] = ()
    """The learning points (LEARNING_POINTS) it teaches."""


def read_lesson(obj: dict) -> Lesson | str:
    """A lesson line as a Lesson, or what is wrong with it in a user's words."""
    round_, step = int_or_none(obj.get("round")), int_or_none(obj.get("step"))
    if round_ is None or round_ < 1:
        return f"is a lesson with round {shown(obj.get('round'))}; expected a round number from 1"
    if step not in range(1, 6):
        return f"is a lesson with step {shown(obj.get('step'))}; expected a step from 1 to 5"
    fields = {}
    for key, limit, required in (("title", TITLE_LIMIT, True), ("text", TEXT_LIMIT, True), ("fix", TEXT_LIMIT, False)):
        value = obj.get(key, None if required else "")
        if not isinstance(value, str) or (required and not value.strip()):
            return f"is a lesson without a {key}" if required else f"is a lesson whose {key} is not a string"
        if len(value) > limit:
            return f"is a lesson whose {key} runs to {len(value):,} characters; at most {limit:,}"
        fields[key] = value
    points = _points(obj.get("points", []))
    if isinstance(points, str):
        return points
    return Lesson(round_, step, fields["title"], fields["text"], fields["fix"], points)


def _points(value: Any) -> tuple[int, ...] | str:
    numbers = [int_or_none(v) for v in value] if isinstance(value, list) else None
    if numbers is None or any(n not in LEARNING_POINTS for n in numbers):
        return (f"is a lesson with points {shown(value)}; expected a list of learning point numbers "
                f"from 1 to {len(LEARNING_POINTS)}")
    return tuple(numbers)


def lesson_line(lesson: Lesson) -> dict:
    """The JSON object a lesson is written as; an empty fix or list of points is left out."""
    line: dict[str, Any] = {"kind": KIND, "round": lesson.round, "step": lesson.step, "title": lesson.title,
                            "text": lesson.text}
    if lesson.fix:
        line["fix"] = lesson.fix
    if lesson.points:
        line["points"] = list(lesson.points)
    return line


def lessons_at(lessons: tuple[Lesson, ...], round_: int, step: int) -> tuple[Lesson, ...]:
    """The lessons of one step of one round, in the order the file gives them."""
    return tuple(lesson for lesson in lessons if lesson.round == round_ and lesson.step == step)


def points_taught(lessons: tuple[Lesson, ...]) -> set[int]:
    """Every learning point some lesson teaches."""
    return {point for lesson in lessons for point in lesson.points}
