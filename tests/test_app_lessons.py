"""The lesson layer through the real app (AppTest): each of the 13 learning points readable on its slide.

Each lesson in Hengxin and the pitfall gallery names the points it teaches; each point is asserted on
the presenter slide (trace, round, step) where it applies, on the rendered elements. Beside the
lessons, the app's own words for a point are asserted where it draws them: the snowball counter, the
tool list step 1 leads with, what step 2 says is owed, the stop switch, the values the model filled,
the write tool's approval and the money computation.
"""

import json
import re

import pytest

from lib import catalog
from lib.lessons import LEARNING_POINTS
from lib.slide_words import KNOWS
from lib.ui.lesson import LESSON_CSS
from streamlit.testing.v1 import AppTest

from tests.conftest import LESSONED, ROOT, load_bundled
from tests.screen import lines, screen

SLIDES = sorted({(name, lesson.round, lesson.step) for name in LESSONED for lesson in load_bundled(name).trace.lessons})


def _slide(trace, round_, step, mode="present"):
    """The slide opened from its link, in a session of its own ("" for the explorer)."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params.update({"trace": trace, "round": str(round_), "step": str(step), "mode": mode})
    at = app.run()
    assert not at.exception
    return at


def _texts(at) -> list[str]:
    return [t.value for t in at.text]


def _alerts(at) -> str:
    return "\n".join(a.value for kind in ("info", "warning", "error") for a in getattr(at, kind))


def _slides_teaching(point: int) -> list[tuple[str, int, int]]:
    return sorted({(name, lesson.round, lesson.step) for name in LESSONED for lesson in load_bundled(name).trace.lessons
                   if point in lesson.points})


@pytest.mark.parametrize("point", sorted(LEARNING_POINTS))
def test_each_learning_point_has_a_slide_of_the_bundled_workshop(point):
    assert _slides_teaching(point), f"no lesson teaches point {point}: {LEARNING_POINTS[point]}"


@pytest.mark.parametrize("trace, round_, step", SLIDES)
def test_every_lesson_shows_whole_as_text_on_its_presenter_slide(trace, round_, step):
    at = _slide(trace, round_, step)
    shown = _texts(at)
    for lesson in load_bundled(trace).trace.lessons:
        here = (lesson.round, lesson.step) == (round_, step)
        assert (lesson.title in shown) == here, (lesson.title, here)
        if here:
            assert lesson.text in shown and (not lesson.fix or f"The fix: {lesson.fix}" in shown)
    assert ":orange-badge[:material/lightbulb: What to notice]" in screen(at)
    assert LESSON_CSS in [h.proto.body for h in at.get("html")]


def test_point_1_step_1_says_the_request_is_all_the_model_knows_with_the_resent_history_grayed_beneath():
    at = _slide("hengxin-expense", 3, 1)
    shown = screen(at)
    assert "What the model sees" in [s.value for s in at.subheader]
    assert KNOWS in shown
    assert "**5 messages resent unchanged**, grayed: the model reads every one of them again." in shown
    # The stack is drawn, one line a message, not collapsed into an expander.
    stack = [t for t in _texts(at) if t.startswith("messages[")]
    assert [line.split(" · ")[:2] for line in stack] == [
        ["messages[0]", "system"], ["messages[1]", "user"], ["messages[2]", "assistant"], ["messages[3]", "tool"],
        ["messages[4]", "tool"]]
    assert stack[0].startswith("messages[0] · system · You are the internal affairs assistant of Hengxin Bank.")
    assert not [e for e in at.expander if "resent unchanged" in e.label]
    # What step 4 of round 2 already showed (the model's turn and the result) waits in an expander.
    assert [e.label for e in at.expander if "already showed" in e.label] == [
        "2 new messages that steps ② and ④ of round 2 already showed: the model's turn and the results"]


@pytest.mark.parametrize("round_, step, sizes", [
    (1, 1, ":blue-background[**2**] → 5 → 7 → 9"), (2, 3, "2 → :blue-background[**5**] → 7 → 9"),
    (3, 4, "2 → 5 → :blue-background[**7**] → 9"), (4, 5, "2 → 5 → 7 → :blue-background[**9**]"),
])
def test_point_2_every_slide_counts_the_messages_round_by_round_with_this_one_highlighted(round_, step, sizes):
    shown = screen(_slide("hengxin-expense", round_, step))
    assert f"**Messages sent, round by round:** {sizes}" in shown
    assert "**Tools:** 4 tool definitions, " in shown
    split = re.search(r"\*\*Input tokens[^*]*:\*\* ≈? ?([\d,]+) = (.*)", shown)
    assert split and "tool definitions" in split[2] and "instructions" in split[2]
    assert sum(int(n.replace(",", "")) for n in re.findall(r" ([\d,]+)(?: ·|$)", split[2])) == \
        int(split[1].replace(",", ""))


def test_point_4_step_1_counts_the_tool_list_its_tokens_and_that_it_is_paid_again_once():
    at = _slide("hengxin-expense", 2, 1)
    shown = screen(at)
    said = re.findall(r"4 tool definitions, ([\d,]+) tokens: resent unchanged and paid for a second time$", shown,
                      re.MULTILINE)
    assert len(said) == 1 and f"tool definitions {said[0]}" in shown  # the counter's, the same as the input split's
    assert shown.index("**Tools:** 4 tool definitions") < shown.index(KNOWS)


def test_point_6_and_7_step_2_says_what_is_owed_and_contrasts_the_stop_values_with_content_null():
    at = _slide("hengxin-expense", 1, 2)
    assert "The model asks for 2 tools in parallel: 2 results owed" in screen(at)
    switch = _alerts(at)
    assert "**`finish_reason` is the loop's switch.** `tool_calls`: the program runs the tools and calls the model " \
           "again. `stop`: the model is done, and a plain loop stops there and gives the text to the person." in switch
    assert "This response says `tool_calls`." in switch and "`content: null`" in switch
    ended = _alerts(_slide("hengxin-expense", 4, 5))
    assert "This response says `stop`." in ended


def test_point_7_an_anthropic_slide_uses_its_own_field_and_shows_text_beside_a_call():
    switch = _alerts(_slide("pitfalls/narration-without-call", 2, 2))
    assert "**`stop_reason` is the loop's switch.** `tool_use`:" in switch and "`end_turn`:" in switch
    assert "Text and calls together: this turn carries both." in switch


@pytest.mark.parametrize("mode, said", [
    ("present", 'Filled by the model, in no earlier message: city_tier "2"; in the tool definition: job_level "P6"'),
    ("", 'The model filled city_tier "2" in the queryTravelPolicy call itself'),
])
def test_point_8_the_values_the_model_filled_are_marked_next_to_the_call_in_presenter_and_explorer(mode, said):
    at = _slide("hengxin-expense", 1, 2 if mode else 1, mode=mode)
    shown = screen(at)
    first_call = shown.index("Call queryExpense")  # the explorer lists the round's findings above the cards too
    badge = shown.index(":gray-badge[:material/info: model-filled-value]", first_call)
    assert badge < shown.index(said, first_call) < shown.index("Call queryTravelPolicy")


def test_point_10_narration_is_marked_as_no_call_and_no_answer():
    at = _slide("pitfalls/narration-without-call", 1, 5)
    assert "No call made: this is not an answer" in _texts(at)
    assert "Model answers" not in screen(at)


def test_point_11_a_write_tool_call_says_where_a_persons_approval_belongs():
    at = _slide("hengxin-expense", 3, 2)
    said = "A write tool: a person approves it here, before step 3 runs it. The trace records no approval."
    assert said in _texts(at)
    explorer = _slide("hengxin-expense", 3, 1, mode="")
    note = next(t for t in _texts(explorer) if t.startswith("createExpenseSupplement changes something"))
    assert "a person approves it between the call intent (step 2) and the program running it (step 3)" in note


def test_point_12_the_money_call_shows_the_decimal_computation_in_the_programs_lane_in_presenter_and_explorer():
    for at in (_slide("hengxin-expense", 2, 3), _slide("hengxin-expense", 2, 1, mode="")):
        assert ":orange-badge[:material/calculate: Money as the program should compute it]" in screen(at)
        # Highlighted on the slide; plain monospace text in the explorer until colours are asked for.
        blocks = [c.value for c in at.code if c.language == "python"] + [t.value for t in at.text]
        worked = next(b for b in blocks if "quantize(" in b)
        assert worked.splitlines()[-1] == "actual_amount > limit_amount  # 3860.00 > 3800.00: over by 60.00"


def test_the_explorer_shows_a_rounds_lessons_under_their_steps():
    at = _slide("pitfalls/unanswered-parallel-call", 1, 1, mode="")
    box = next(e for e in at.expander if e.label == "What to notice in round 1: 2 lessons")
    inside = [t.value for t in box.text]
    assert "Two call ids, two results owed" in inside and "A result is missing" in inside
    steps = [m.value for m in box.markdown if "-background[" in m.value]
    assert steps == [":violet-background[**② Call intent**]", ":green-background[**④ Result appended**]"]


def test_the_explorer_names_a_narrations_lesson_step_as_presenter_mode_does():
    box = next(e for e in _slide("pitfalls/narration-without-call", 1, 1, mode="").expander
               if e.label.startswith("What to notice in round 1"))
    assert [m.value for m in box.markdown if "-background[" in m.value] == [
        ":red-background[**⑤ Narration without a call**]"]


def test_predict_mode_hides_a_response_lesson_and_the_later_rounds_sizes_until_the_prediction():
    at = _slide("hengxin-expense", 1, 2, mode="present,predict")
    shown = screen(at)
    assert "Both calls in one response: a round fewer" not in _texts(at)
    assert "**Messages sent, round by round:** :blue-background[**2**] → …" in shown and "→ 5" not in shown


def test_lesson_text_from_an_uploaded_file_shows_as_text_and_never_as_markup(app):
    hostile = "![seen](https://tracker.example/pixel.png) <b>bold</b> **strong**"
    lesson = json.dumps({"kind": "lesson", "round": 1, "step": 1, "title": hostile, "text": hostile, "fix": hostile})
    data = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_bytes() + lesson.encode() + b"\n"
    app.query_params["mode"] = "present"
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", data)
    at.run()
    assert not at.exception
    assert _texts(at).count(hostile) == 2 and f"The fix: {hostile}" in _texts(at)
    assert not [line for line in lines(at, ("markdown", "caption", "info", "header", "subheader"))
                if "tracker.example" in line or "<b>" in line]


def test_the_slide_of_a_call_rejected_before_it_ran_does_not_lead_with_the_program_running_it():
    # The bundled workshop's slide 27: book_room's arguments failed the schema, so no handler ran.
    shown = screen(_slide("pitfalls/invalid-arguments-corrected", 1, 3))
    assert ("The program handles the calls, not the model: 1 call was refused before running, and the model reads "
            "only what the program sends back.") in shown
    assert "The program runs the calls" not in shown


def test_messages_first_sent_in_a_refused_request_are_not_said_to_be_read_again():
    # Pitfall 5: round 2's request was refused with HTTP 400 before the model saw it, so in round 3 the model reads
    # messages[2] and messages[3] (its own turn and the first order's result) for the first time. The slide said it
    # "reads every one of them again".
    shown = screen(_slide("pitfalls/unanswered-parallel-call", 3, 1))
    assert ("**4 messages resent unchanged**, grayed: the model reads 2 of them again and messages[2] to messages[3] "
            "for the first time: the request of round 2, which sent them first, was refused by the provider before "
            "the model saw it.") in shown
    assert "every one of them again" not in shown
    # Where every resent message reached the model before, it reads them again, as it did.
    assert "grayed: the model reads every one of them again." in screen(_slide("hengxin-expense", 3, 1))
