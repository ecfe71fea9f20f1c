"""Lessons in the native trace file: read, written back, and a malformed one named by its line."""

import json

import pytest

from lib import catalog
from lib.lessons import LEARNING_POINTS, Lesson, lessons_at, points_taught
from lib.logs.native import read_trace, write_trace
from tests.conftest import LESSONED, load_bundled

HENGXIN = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_text().splitlines()


def _rounds_only(lines: list[str]) -> list[str]:
    return [line for line in lines if json.loads(line)["kind"] in ("trace", "round")]


def _lesson(**fields) -> str:
    return json.dumps({"kind": "lesson", "round": 1, "step": 2, "title": "Two calls at once",
                       "text": "Two results are owed.", **fields})


def test_a_lesson_line_is_read_onto_its_round_and_step_and_written_back_the_same():
    lines = _rounds_only(HENGXIN) + [_lesson(fix="Answer every call id.", points=[6, 7]), _lesson(step=4, text="x")]
    trace, problems = read_trace(lines)
    assert problems == []
    assert lessons_at(trace.lessons, 1, 2) == (Lesson(1, 2, "Two calls at once", "Two results are owed.",
                                                      "Answer every call id.", (6, 7)),)
    assert [lesson.text for lesson in lessons_at(trace.lessons, 1, 4)] == ["x"]
    written = list(write_trace(trace))
    assert [json.loads(line) for line in written] == [json.loads(line) for line in lines]
    assert read_trace(written)[0] == trace


@pytest.mark.parametrize("line, said", [
    (_lesson(step=7), "is a lesson with step 7; expected a step from 1 to 5"),
    (_lesson(round="one"), "is a lesson with round 'one'; expected a round number from 1"),
    (_lesson(title=""), "is a lesson without a title"),
    (_lesson(text=["not", "text"]), "is a lesson without a text"),
    (_lesson(fix=3), "is a lesson whose fix is not a string"),
    (_lesson(points=[6, 14]),
     "is a lesson with points [6, 14]; expected a list of learning point numbers from 1 to 13"),
    (_lesson(text="x" * 1001), "is a lesson whose text runs to 1,001 characters; at most 1,000"),
    (_lesson(round=9), "is a lesson for round 9, but the trace has 4 rounds"),
    (_lesson(round=4, step=2), "is a lesson for step 2 of round 4, which has steps 1, 5 only"),
])
def test_a_malformed_lesson_is_named_by_its_line_and_the_rest_still_loads(line, said):
    lines = _rounds_only(HENGXIN) + [_lesson(step=3, title="Kept"), line]
    trace, problems = read_trace(lines)
    assert [(p.line, p.message) for p in problems] == [(len(lines), said + "; skipped")]
    assert len(trace.rounds) == 4
    assert [lesson.title for lesson in trace.lessons] == ["Kept"]


@pytest.mark.parametrize("name", LESSONED)
def test_hengxin_and_every_gallery_trace_carry_lessons_that_load_without_a_problem(name):
    loaded = load_bundled(name)
    assert loaded.problems == ()
    assert loaded.trace.lessons, f"{name} has no lesson"
    assert all(lesson.title and lesson.text for lesson in loaded.trace.lessons)


def test_the_lessons_of_hengxin_and_the_gallery_teach_all_13_learning_points():
    taught = set().union(*(points_taught(load_bundled(name).trace.lessons) for name in LESSONED))
    assert taught == set(LEARNING_POINTS) == set(range(1, 14))
