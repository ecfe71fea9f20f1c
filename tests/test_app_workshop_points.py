"""Issue 17's acceptance, through the real app (AppTest): each of the 13 learning points has a slide of the
bundled workshop plan, opened as a teacher's link opens it (`?plan=hengxin-workshop&slide=N`), and the point's
words are on that slide's rendered elements: the lesson callout's and the app's own (the snowball counter,
step 1's tool list, step 2's stop switch, the filled values, the write tool, the money)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.lessons import LEARNING_POINTS
from lib.slide_words import KNOWS
from lib.workshop_plan import unpack
from tests.conftest import ROOT, load_bundled
from tests.screen import ALERTS, READ, lines

SHOWN_ON = {
    1: ("hengxin-r1s1", ["The model starts from nothing: this request is all it has", KNOWS,
                         "It keeps no memory between calls."]),
    2: ("hengxin-r4s1", ["**Messages sent, round by round:** 2 → 5 → 7 → :blue-background[**9**]",
                         "The array grew 2 → 5 → 7 → 9."]),
    3: ("hengxin-r1s4", ["The program keeps the history", "Response 1 was only the increment: one assistant turn."]),
    4: ("hengxin-r1s1", ["Those definitions are all it knows of the tools",
                         "sent with this request and paid for with it, again with every request after"]),
    5: ("hengxin-r2s1", ["One tool use costs at least two model calls", "Each round is one model call"]),
    6: ("hengxin-r1s2", ["The model asks for 2 tools in parallel: 2 results owed",
                         "the two lookups would take one more round, and that round would resend the whole context"]),
    7: ("hengxin-r1s2", ["**`finish_reason` is the loop's switch.** `tool_calls`: the program runs the tools",
                         "`stop`: the model is done", "`content: null`"]),
    8: ("hengxin-r1s2", ['Filled by the model, in no earlier message: city_tier "2"; in the tool definition: '
                         'job_level "P6"', "P6 and tier 2: nobody in the conversation said them"]),
    9: ("gallery-empty-result-invented-answer-r2s5", ["An invented date",
                                                      "neither date appears in any message or tool result"]),
    10: ("gallery-narration-without-call-r1s5", ["No call made: this is not an answer",
                                                 "The model only said it would check; nothing was checked."]),
    11: ("hengxin-r3s2", ["A write tool: a person approves it here, before step 3 runs it.",
                          "A write tool: a person approves before it runs"]),
    12: ("hengxin-r2s2", ["The model does no arithmetic"]),
    13: ("gallery-invalid-arguments-corrected-r1s3", ["Strict guarantees the format, not the truth"]),
}
"""Each learning point: the slide of the bundled plan that shows it, and words a learner reads there."""
ALSO_SHOWN_ON = {
    7: ("gallery-narration-without-call-r2s2", ["Text and calls together: this turn carries both."]),
    12: ("hengxin-r2s3", ["Money as the program should compute it", "each number parsed as Decimal, never as a float",
                          "actual_amount > limit_amount  # 3860.00 > 3800.00: over by 60.00"]),
    13: ("hengxin-r1s1", ["a tool that is only described in the system prompt's prose cannot be called"]),
}
"""The half of a point that another slide shows: text beside a call (7), the program's Decimal arithmetic in its lane
(12), tools in the prose (13)."""


@pytest.fixture(scope="module")
def workshop():
    traces = {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}
    return unpack("hengxin-workshop", traces).plan


def _on_slide(slide_id: str, workshop) -> str:
    """Everything a learner reads on the plan's slide, opened from its link."""
    number = [s.id for s in workshop.slides].index(slide_id) + 1
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": "present"})
    at = app.run()
    assert not at.exception
    assert f"slide {number} of {len(workshop.slides)}" in "\n".join(lines(at))
    return "\n".join(lines(at, READ + ALERTS + ("code",)))


def test_the_table_names_every_learning_point_and_only_slides_of_the_bundled_plan(workshop):
    assert sorted(SHOWN_ON) == sorted(LEARNING_POINTS)
    ids = {s.id for s in workshop.slides}
    assert {slide for slide, _ in [*SHOWN_ON.values(), *ALSO_SHOWN_ON.values()]} <= ids


@pytest.mark.parametrize("point, slide_id, words", [
    (point, slide, words) for table in (SHOWN_ON, ALSO_SHOWN_ON) for point, (slide, words) in table.items()])
def test_each_learning_point_is_read_on_its_slide_of_the_bundled_workshop(point, slide_id, words, workshop):
    shown = _on_slide(slide_id, workshop)
    missing = [w for w in words if w not in shown]
    assert missing == [], f"point {point} ({LEARNING_POINTS[point]}) is not on {slide_id}: {missing}"
