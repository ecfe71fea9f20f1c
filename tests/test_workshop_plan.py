"""The workshop plan: its file, its link, and what a broken one says."""

from __future__ import annotations

import pytest

from lib import catalog
from lib.presenter import steps_in
from lib.workshop_plan import (LINK_PREFIX, Plan, Slide, bundled_plans, dump_plan, inserted, moved, pack, read_plan,
                               removed, rounds_words, slide_id, unpack)
from tests.conftest import load_bundled


@pytest.fixture(scope="module")
def traces() -> dict[str, int]:
    return {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}


@pytest.fixture(scope="module")
def workshop(traces) -> Plan:
    read = unpack("hengxin-workshop", traces)
    assert read.problems == ()
    return read.plan


def test_the_bundled_workshop_walks_every_step_of_hengxin_then_the_figures_the_gallery_and_the_close(workshop):
    hengxin = load_bundled("hengxin-expense").trace
    every_step = [(r.index, s) for r in hengxin.rounds for s in steps_in(r, hengxin)]
    steps = [(s.round, s.step) for s in workshop.slides if s.view == "step" and s.trace == "hengxin-expense"]
    assert steps == every_step
    # The pitfalls' own step slides follow their gallery slide: where a lesson of points 7, 9, 10 and 13 applies.
    pitfall_steps = [(s.trace, s.round, s.step) for s in workshop.slides
                     if s.view == "step" and s.trace != "hengxin-expense"]
    assert pitfall_steps == [("pitfalls/empty-result-invented-answer", 2, 5), ("pitfalls/narration-without-call", 1, 5),
                             ("pitfalls/narration-without-call", 2, 2), ("pitfalls/invalid-arguments-corrected", 1, 3)]
    views = [s.view for s in workshop.slides if s.view != "step"]
    assert views == ["tokens", "diagram", "diagram", "dialects"] + ["gallery"] * 6 + ["closing"]
    gallery = {s.trace for s in workshop.slides if s.view == "gallery"}
    assert gallery == {t.name for t in catalog.bundled_traces() if t.name.startswith("pitfalls/")}
    assert "45 minutes" in workshop.title
    assert len({s.id for s in workshop.slides}) == len(workshop.slides)
    assert workshop.slides[0].id == "hengxin-r1s1" and workshop.slides[-1].id == "hengxin-closing"


def test_a_plan_written_and_read_again_is_the_same_plan(workshop, traces):
    assert read_plan(dump_plan(workshop), traces).plan == workshop
    assert unpack(pack(workshop), traces).plan == workshop


def test_a_packed_plan_is_short_enough_for_a_link(workshop):
    link = pack(workshop)
    assert link.startswith(LINK_PREFIX) and len(link) < 1_000
    assert all(c.isalnum() or c in "-_." for c in link)  # nothing a URL must escape


def test_a_slide_without_an_id_gets_the_same_id_every_time(traces):
    text = '{"kind": "roundtrip-plan", "version": 1, "title": "T", "slides": [\n' \
           '{"trace": "hengxin-expense", "view": "step", "round": 3, "step": 4},\n' \
           '{"trace": "pitfalls/narration-without-call", "view": "gallery"}]}'
    ids = [s.id for s in read_plan(text, traces).plan.slides]
    assert ids == ["hengxin-expense-step-r3s4", "narration-without-call-gallery"]
    assert slide_id("hengxin-expense", "dialects", 2, 1) == "hengxin-expense-dialects-r2"


BROKEN = """{"kind": "roundtrip-plan", "version": 1, "title": "Broken on purpose",
  "slides": [
    {"id": "a", "trace": "hengxin-expense", "view": "step", "round": 1, "step": 2},
    {"id": "b", "trace": "hengxin-expens", "view": "step", "round": 1, "step": 1},
    {"id": "c", "trace": "hengxin-expense", "view": "slideshow"},
    {"id": "d", "trace": "hengxin-expense", "view": "step", "round": 9},
    {"id": "a", "trace": "hengxin-expense", "view": "tokens"},
    {"id": "e", "trace": "hengxin-expense", "view": "closing", "step": "2"},
    "a slide",
    {"id": "f", "trace": "hengxin-expense", "view": "diagram"}
  ]
}
"""


def test_a_broken_plan_names_each_bad_line_and_field_and_keeps_the_good_slides(traces):
    read = read_plan(BROKEN, traces)
    assert [s.id for s in read.plan.slides] == ["a", "f"]
    problems = "\n".join(read.problems)
    assert 'line 4, slide 2: field "trace": "hengxin-expens" is not a bundled trace' in problems
    assert 'line 5, slide 3: field "view": "slideshow" is not a view (one of: step, tokens,' in problems
    assert 'line 6, slide 4: field "round": 9 is not a whole number from 1 to 4.' in problems
    assert 'line 7, slide 5: field "id": a is the id of an earlier slide' in problems
    assert 'line 8, slide 6: field "step": "2" is not a whole number from 1 to 5.' in problems
    assert "slide 7: a slide is a JSON object" in problems
    assert len(read.problems) == 6


@pytest.mark.parametrize("text, says", [
    ('{"kind": "roundtrip-plan",\n "slides": [}', "line 2, column 13: not valid JSON"),
    ('{"kind": "trace", "version": 1}', 'not a workshop plan: a plan is a JSON object with "kind": "roundtrip-plan"'),
    ('[1, 2]', "not a workshop plan"),
])
def test_a_file_that_is_no_plan_says_what_it_is_instead(traces, text, says):
    read = read_plan(text, traces)
    assert read.plan is None and says in read.problems[0]


def test_a_plan_without_title_or_slides_says_which_field(traces):
    read = read_plan('{"kind": "roundtrip-plan",\n"title": "",\n"slides": {}}', traces)
    assert read.problems == ('line 2: field "title": a plan needs a title (text).',
                             'line 3: field "slides": a list of slides is needed.')


@pytest.mark.parametrize("link, says", [
    ("hengxin-workshp", "The link names no bundled plan (there are: hengxin-workshop)."),
    (LINK_PREFIX + "eJzLSM3JyQcABiwCFQ"[:-3], "The link's plan is damaged"),
    (LINK_PREFIX + "!!!!", "The link's plan is damaged"),
    (LINK_PREFIX + "A" * 9_000, "longer than 8,000 characters"),
])
def test_a_bad_link_says_what_is_wrong_with_it(traces, link, says):
    read = unpack(link, traces)
    assert read.plan is None and says in read.problems[0]


def test_a_link_that_would_unpack_to_a_huge_file_is_refused_not_inflated(traces):
    import base64
    import zlib
    bomb = base64.urlsafe_b64encode(zlib.compress(b" " * 5_000_000, 9)).decode().rstrip("=")
    assert len(bomb) < 8_000
    read = unpack(LINK_PREFIX + bomb, traces)
    assert read.plan is None and "unpacks to more than 200,000 bytes" in read.problems[0]


def _plan_file(slides: int) -> str:
    import json
    return json.dumps({"kind": "roundtrip-plan", "title": "Long", "slides": [
        {"trace": "hengxin-expense", "round": 1, "step": 1, "id": f"s{n}"} for n in range(slides)]})


def test_a_plan_file_of_thousands_of_slides_reads_in_time_linear_in_its_slides(traces):
    # Each slide's id was checked against a set rebuilt from every slide before it: 10,000 slides took 6 s of the
    # server (a plan file may come from any visitor), 20,000 took 13.
    # Ten times the slides must cost about ten times the time, not a hundred: a ratio taken in one run, so a busy
    # machine slows both sides alike (quadratic reading gave about 100).
    import time

    def seconds(slides: int) -> float:
        text = _plan_file(slides)
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            read = read_plan(text, traces)
            best = min(best, time.perf_counter() - started)
        assert read.problems == () and len(read.plan.slides) == slides
        return best

    assert len(_plan_file(11_000)) < 1_000_000
    small, large = seconds(1_100), seconds(11_000)
    assert large / small < 35


def test_a_plan_file_past_the_size_of_any_plan_is_refused_unread(traces):
    text = _plan_file(20_000)
    read = read_plan(text, traces)
    assert read.plan is None
    assert read.problems == (f"the file is {len(text):,} characters long; a plan file is at most 1,000,000 (a plan "
                             "of a thousand slides takes about 90,000).",)


def test_a_plan_nested_past_pythons_recursion_limit_is_a_problem_in_a_link_and_in_a_file(traces):
    import base64
    import zlib
    deep = b"[" * 50_000 + b"]" * 50_000
    link = LINK_PREFIX + base64.urlsafe_b64encode(zlib.compress(deep, 9)).decode().rstrip("=")
    assert len(link) < 200  # a link anyone can be sent
    for read in (unpack(link, traces), read_plan(deep.decode(), traces)):
        assert read.plan is None and read.problems == ("not valid JSON (it is nested too deeply to read).",)


def test_every_bundled_plan_reads_without_a_problem(traces):
    assert bundled_plans()
    for name in bundled_plans():
        assert unpack(name, traces).problems == (), name


def test_a_slide_is_a_plain_value():
    assert Slide("x", "hengxin-expense", "tokens") == Slide("x", "hengxin-expense", "tokens", 1, 1)


def test_a_plan_is_reordered_trimmed_and_extended_with_ids_kept_unique(workshop):
    first, second = workshop.slides[:2]
    swapped = moved(workshop, 0, 1)
    assert swapped.slides[:2] == (second, first) and len(swapped.slides) == len(workshop.slides)
    assert moved(workshop, 0, -1) == workshop  # the first slide stays first
    assert removed(workshop, 0).slides[0] == second
    once = inserted(workshop, 1, "pitfalls/narration-without-call", "gallery")
    twice = inserted(once, 2, "pitfalls/narration-without-call", "gallery")
    assert [s.id for s in twice.slides[1:3]] == ["narration-without-call-gallery", "narration-without-call-gallery-2"]
    assert twice.slides[0] == first and twice.slides[3] == second


def test_the_docs_give_the_bundled_plans_link_length_as_it_is(workshop):
    import re
    from tests.conftest import ROOT

    packed = len(pack(workshop))
    said = [(int(slides), int(chars.replace(",", ""))) for slides, chars in re.findall(
        r"The (\d+)-slide Hengxin plan packs into about ([\d,]+) characters", (ROOT / "docs/workshop-plan.md").read_text())]
    said += [(int(slides), int(chars.replace(",", ""))) for chars, slides in re.findall(
        r"about\s+([\d,]+)\s+characters\s+for\s+the\s+(\d+)-slide\s+Hengxin\s+plan", (ROOT / "README.md").read_text())]
    assert len(said) == 2
    for slides, chars in said:
        assert slides == len(workshop.slides)
        assert abs(packed - chars) <= 0.05 * packed


def test_a_diagram_slide_of_a_traces_last_round_covers_the_two_rounds_it_draws_unless_the_trace_is_held():
    # Drawn from the round before, so that two rounds fit: "3 and 4" for a slide of round 4 of 4. In predict mode the
    # round drawn beside it would tell where the trace ends, so a held trace's slide says only which round it is near.
    last = Slide("d", "hengxin-expense", "diagram", round=4)
    assert rounds_words(last, 4) == "3 and 4" and rounds_words(last, 4, held=True) == "around 4"
    assert rounds_words(Slide("t", "hengxin-expense", "tokens", round=2), 4, held=True) == "all rounds"



def test_a_this_tab_trace_is_named_from_its_file_reads_back_in_its_tab_and_is_said_gone_elsewhere():
    from lib.workshop_plan import TAB_GONE, THIS_TAB, tab_name

    name = tab_name("uploads/rig-gemini-interactions-tool-result.yaml · v1 ‮redacted", {})
    assert name.startswith(THIS_TAB) and len(name) <= len(THIS_TAB) + 48
    assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    assert tab_name("live-hengxin", {"this-tab.live-hengxin": 1}) == "this-tab.live-hengxin-2"
    plan = inserted(Plan("A run", ()), 0, name, "dialects", 123, 1)
    here = read_plan(dump_plan(plan), {name: 200})
    assert here.problems == () and here.plan == plan  # its id within 80 characters, read back in its tab
    elsewhere = read_plan(dump_plan(plan), {"hengxin-expense": 4})
    assert elsewhere.plan.slides == () and TAB_GONE in elsewhere.problems[0]
