"""What a teacher trial of the bundled workshop found, through the real app (AppTest) on the bundled traces: a turn
the program went on from is not said to end the loop, the program's re-ask is drawn as the program's, the money
arithmetic sits in the program's lane, step 4's cards name the request they are new in, parallel calls save a
resend, and no slide says one thing twice."""

from __future__ import annotations

import dataclasses
import re

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.export_html import handout_html
from lib.lessons import LEARNING_POINTS
from lib.sequence import sequence
from lib.steps import steps_for_round, turn_ends_words
from lib.workshop_plan import unpack
from tests.conftest import ROOT, load_bundled
from tests.screen import ALERTS, READ, lines

NARRATION = "pitfalls/narration-without-call"


@pytest.fixture(scope="module")
def workshop():
    traces = {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}
    return unpack("hengxin-workshop", traces).plan


def _slide(workshop, slide_id: str):
    """The plan's slide opened from its link, as a teacher opens it."""
    number = [s.id for s in workshop.slides].index(slide_id) + 1
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": "present"})
    at = app.run()
    assert not at.exception
    return at


def _explorer(trace: str, round_: int):
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params.update({"trace": trace, "round": str(round_)})
    at = app.run()
    assert not at.exception
    return at


def _read(at) -> list[str]:
    """Every line a learner reads in the main area: our words, the trace's, the alerts and the headings."""
    return lines(at, READ + ALERTS + ("header", "subheader"))


def test_a_narration_the_program_went_on_from_is_not_said_to_end_the_loop_on_its_slide(workshop):
    at = _slide(workshop, "gallery-narration-without-call-r1s5")
    shown = _read(at)
    assert [h.value for h in at.header if h.value != "Roundtrip"] == ["⑤ Narration without a call"]
    assert "The model's turn ended with no call; the program went on (round 2)." in shown
    assert not [line for line in shown if "loop ends" in line.lower() or "loop ended" in line.lower()]


def test_the_diagram_and_the_explorer_say_the_program_went_on_after_the_narration_in_one_wording():
    trace = load_bundled(NARRATION).trace
    assert turn_ends_words(2) == "the model's turn ended with no call; the program went on (round 2)"
    [answer] = [a for a in sequence(trace) if a.round == 1 and a.step == 5]
    assert answer.label == turn_ends_words(2)
    [label] = [s for s in steps_for_round(trace, 1) if s.step == 5]
    assert label.title == "Narration without a call" and "loop" not in label.detail
    explorer = "\n".join(_read(_explorer(NARRATION, 1)))
    assert "Step 5 · Narration without a call" in explorer and "Loop ends" not in explorer


def test_a_narration_in_the_last_round_still_ends_the_loop():
    trace = load_bundled(NARRATION).trace
    alone = dataclasses.replace(trace, rounds=trace.rounds[:1])
    assert [s.title for s in steps_for_round(alone, 1) if s.step == 5] == ["Loop ends without a call"]
    assert [a.label for a in sequence(alone) if a.step == 5] == [
        "ends the loop without a call: announces an action, runs none"]


def test_the_programs_re_ask_is_drawn_from_the_program_lane_as_the_trace_marks_it():
    trace = load_bundled(NARRATION).trace
    assert trace.rounds[0].extra.get("guard") == "narration-reask"  # the trace says the program re-asked
    second = [a for a in sequence(trace) if a.round == 2]
    assert not [a for a in second if a.source == "user"]
    [reask] = [a for a in second if a.target == "program" and a.source == "program"]
    assert reask.label.startswith("re-asks in the user's role: (Note from the app")
    # Without the mark, nothing tells the note from a person's words: it is drawn as the user asking.
    unmarked = dataclasses.replace(trace, rounds=(dataclasses.replace(trace.rounds[0], extra={}), *trace.rounds[1:]))
    assert [a.label[:5] for a in sequence(unmarked) if a.round == 2 and a.source == "user"] == ["asks:"]


def test_the_money_arithmetic_sits_in_the_programs_lane_not_in_the_models_turn(workshop):
    intent = _read(_slide(workshop, "hengxin-r2s2"))
    assert not [line for line in intent if "Decimal" in line and "Money" in line]
    assert not any("quantize(" in line for line in intent)
    runs = _slide(workshop, "hengxin-r2s3")
    shown = _read(runs)
    badge = ":orange-badge[:material/calculate: Money as the program should compute it]"
    assert badge in shown
    # The handler's arguments are written as floats (3860.0); the box says where its digits come from.
    assert any("parsed as Decimal, never as a float" in line and "as the model wrote it" in line for line in shown)
    assert [c.value for c in runs.code if "quantize(" in c.value][0].splitlines()[-1] == \
        "actual_amount > limit_amount  # 3860.00 > 3800.00: over by 60.00"
    explorer = _read(_explorer("hengxin-expense", 2))
    lane = next(i for i, line in enumerate(explorer) if "The program's lane" in line)
    assert explorer.index(badge) > lane


@pytest.mark.parametrize("slide_id, request_", [("hengxin-r1s4", 2), ("hengxin-r2s4", 3)])
def test_step_4_cards_say_which_request_they_are_new_in_under_the_rounds_header(workshop, slide_id, request_):
    shown = _read(_slide(workshop, slide_id))
    cards = [line for line in shown if line.startswith("**messages[")]
    assert cards and all(line.endswith(f":green-badge[new in request {request_}]") for line in cards)
    assert not [line for line in shown if "new this round" in line]


def test_parallel_calls_are_not_said_to_save_no_tokens_on_any_view(workshop):
    trace = load_bundled("hengxin-expense").trace
    words = "not tokens"
    assert words not in LEARNING_POINTS[6]
    assert words not in "\n".join(_read(_slide(workshop, "hengxin-r1s2")))
    assert words not in "\n".join(_read(_explorer("hengxin-expense", 1)))
    assert words not in handout_html(trace)
    [lesson] = [le for le in trace.lessons if (le.round, le.step) == (1, 2) and 6 in le.points]
    assert "one more round" in lesson.text and "resend the whole context" in lesson.text


@pytest.mark.parametrize("slide_id, said", [
    ("hengxin-r1s1", "4 tool definitions, 653 tokens"),
    ("hengxin-r2s1", "4 tool definitions, 653 tokens"),
    ("hengxin-r3s1", "4 tool definitions, 653 tokens"),
    ("hengxin-r4s1", "4 tool definitions, 653 tokens"),
    ("hengxin-r1s2", "results owed"),
    ("gallery-narration-without-call-r2s2", "whole turn back"),
    ("hengxin-r4s5", "to the person"),
])
def test_a_slide_says_each_thing_once(workshop, slide_id, said):
    shown = "\n".join(_read(_slide(workshop, slide_id)))
    assert len(re.findall(re.escape(said), shown, re.IGNORECASE)) == 1, said


def test_the_re_asks_card_says_the_program_wrote_it_not_the_person_or_the_program():
    # The guard's note goes out in the user's role; its card must not leave open that the customer typed it.
    shown = _read(_explorer(NARRATION, 2))
    assert "Written by the program in the user's role, not typed by the person." in shown
    from lib.growth import growth
    from lib.presenter import carried
    trace = load_bundled(NARRATION).trace
    assert "1 message the program wrote in the user's role" in carried(trace.rounds[0], growth(trace, 2))


def test_codexs_own_context_in_the_users_role_is_said_to_be_the_programs_and_the_persons_prompt_is_not():
    from lib.growth import growth, origin_words
    from lib.logs.upload import read_upload
    path = ROOT / "tests" / "fixtures" / "codex-rollout-0.125.jsonl"
    trace = read_upload([(path.name, path.read_bytes())]).conversations[0].trace
    said = {e.message.text[:20]: origin_words(e) for e in growth(trace, 1).entries if e.message.role == "user"}
    assert said["# AGENTS.md instructi"[:20]] == "written by the program in the user's role, not typed by the person"
    assert said["show tools"] == "written by the person or the program"
