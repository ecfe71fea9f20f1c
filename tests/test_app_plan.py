"""A workshop plan through the real app (AppTest): a link opens it in presenter mode, Next walks its slides,
each view shows what it is for, and the Workshop plan page builds, saves and shares one."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.workshop_plan import bundled_plans, pack, unpack
from tests.conftest import ROOT, load_bundled
from tests.screen import screen


def _query(at, name):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def _headers(at) -> list[str]:
    return [h.value for h in at.header if h.value != "Roundtrip"]


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _lead(at) -> str:
    """The slide's one sentence that matters."""
    found = [node for node in _walk(at.main) if getattr(node, "key", None) == "slide-lead"]
    assert len(found) == 1
    return "\n".join(n.value for n in _walk(found[0]) if getattr(n, "type", None) in ("markdown", "text"))


def _walk(node):
    yield node
    for key in sorted(getattr(node, "children", {})):
        yield from _walk(node.children[key])


@pytest.fixture(scope="module")
def traces() -> dict[str, int]:
    return {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}


@pytest.fixture(scope="module")
def workshop(traces):
    return unpack("hengxin-workshop", traces).plan


HEADERS = {"tokens": ":material/calculate: Tokens and cost",
           "diagram": ":material/swap_horiz: The round trip as a picture",
           "gallery": ":material/warning: From the pitfall gallery", "closing": ":material/flag: What it took"}


def test_the_bundled_plan_is_walked_slide_by_slide_with_next(app, workshop):
    app.query_params["plan"] = "hengxin-workshop"
    at = app.run()
    assert not at.exception
    assert at.toggle(key="explorer.presenter").value  # a plan's link is for presenting
    seen = []
    for number, slide in enumerate(workshop.slides, start=1):
        assert (_query(at, "plan"), _query(at, "slide")) == ("hengxin-workshop", str(number))
        assert f"slide {number} of {len(workshop.slides)}" in screen(at)
        assert _query(at, "trace") is None and _query(at, "step") is None  # the slide is the position
        seen.append(_headers(at)[0])
        if slide.view in HEADERS:
            assert _headers(at) == [HEADERS[slide.view]]
        if number < len(workshop.slides):
            at.button(key="presenter.next").click().run()
            assert not at.exception
    assert at.button(key="presenter.next").disabled
    steps = [h for h, s in zip(seen, workshop.slides) if s.view == "step" and s.trace == "hengxin-expense"]
    assert steps[:5] == ["① Request sent", "② Call intent", "③ Program executes", "④ Result appended",
                         "① Request sent"]
    assert steps[-1] == "⑤ Model answers"
    dialects = [s.id for s in workshop.slides].index("hengxin-dialects-r2")
    assert seen[dialects] == ":material/translate: Round 2 in both dialects"
    at.button(key="presenter.previous").click().run()
    assert _query(at, "slide") == str(len(workshop.slides) - 1)


def _slide(app, slide_id: str, workshop, mode: str = "present"):
    number = [s.id for s in workshop.slides].index(slide_id) + 1
    app.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": mode})
    at = app.run()
    assert not at.exception
    return at


def test_the_tokens_and_closing_slides_show_the_tokens_pages_own_figures(app, workshop):
    app.query_params["trace"] = "hengxin-expense"
    app.run()
    figures = _metrics(app.switch_page("pages/overview.py").run())
    for slide_id in ("hengxin-tokens", "hengxin-closing"):
        shown = _metrics(_slide(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), slide_id, workshop))
        for label in ("Input billed over all calls", "One call with the final context", "Tool list, every round"):
            assert shown[label] == figures[label], (slide_id, label)
    tokens = _slide(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), "hengxin-tokens", workshop)
    # Rounds 2-4 reported no usage: the total is round 1's report plus three estimates, and says so.
    assert "4 calls billed about 5,580 input tokens, 3.7 times one call with the final context" in _lead(tokens)
    assert figures["Input billed over all calls"] == "≈ 5,580"
    closing = _metrics(_slide(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), "hengxin-closing", workshop))
    # Findings: the overridden user_id, the values the model filled in round 1's two calls, round 3's reason past the
    # length its description allows in words, and round 3's write tool.
    assert (closing["Model calls"], closing["Tool calls"], closing["Findings of the checks"]) == ("4", "4", "5")
    assert "Your score on this trace" not in closing


def test_the_closing_slide_in_predict_mode_shows_the_learners_score(app, workshop):
    at = _slide(app, "hengxin-r1s2", workshop, "present,predict")
    assert _headers(at) == [":material/help: What will the model do?"]
    at.radio(key="predict.1.action").set_value("call")
    at.multiselect(key="predict.1.tools").set_value([0]).run()  # queryExpense, one of round 1's two calls
    at.button(key="predict.reveal").click().run()
    assert _headers(at) == ["② Call intent"] and "Your prediction: 2 of 8 points" in screen(at)
    while not at.button(key="presenter.next").disabled:
        at.button(key="presenter.next").click().run()
        assert not at.exception
    # Next waits on round 2 as the presenter's does: round 3's request carries its answer.
    assert "Predict round 2 first: a request after it would carry what the model does in it." in screen(at)
    _on_slide(at, "hengxin-closing", workshop)
    assert _headers(at) == [HEADERS["closing"]]
    assert _metrics(at)["Your score on this trace"] == "2 / 8"


def test_the_closing_slide_before_any_prediction_says_none_was_made_not_a_score(app, workshop):
    at = _slide(app, "hengxin-closing", workshop, "present,predict")
    assert _metrics(at)["Your score on this trace"] == "no round predicted yet"


def test_the_gallery_slide_tells_what_happened_then_what_the_model_saw_then_the_fix_and_shows_the_finding(app,
                                                                                                          workshop):
    # The fix, in the lead's large type, came first: a room read the remedy before the story it remedies.
    at = _slide(app, "gallery-empty-result-invented-answer", workshop)
    assert _lead(at).startswith("The fix: never send back a bare empty value.")
    shown = screen(at)
    happened = shown.index("What happened: the order was in a newer warehouse system")
    assert happened < shown.index("What the model saw: a lookup that worked") < shown.index("The fix: never send back")
    assert "empty-tool-result" in shown


def test_the_dialects_slide_shows_this_rounds_own_fields_in_both(app, workshop):
    at = _slide(app, "hengxin-dialects-r2", workshop)
    shown = screen(at)
    assert "finish_reason = tool_calls" in shown and "stop_reason = tool_use" in shown
    assert "messages[3].tool_call_id = call_q1" in shown and "messages[2].content[0].tool_use_id = call_q1" in shown
    assert not at.json and not at.dataframe  # big type: no raw bodies, no grid


def test_the_diagram_slide_draws_two_rounds_in_a_projectors_type(app, workshop):
    at = _slide(app, "hengxin-diagram-r3", workshop)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    texts = [a.get("text", "") for a in chart["layout"]["annotations"]]
    assert [t for t in texts if t.startswith("<b>Round")] == ["<b>Round 3</b>", "<b>Round 4</b>"]
    assert min(a["font"]["size"] for a in chart["layout"]["annotations"] if "font" in a and "size" in a["font"]) >= 18


def test_a_packed_link_opens_the_same_plan(app, workshop, traces):
    link = pack(workshop)
    app.query_params.update({"plan": link, "slide": "15"})
    at = app.run()
    assert not at.exception
    assert _headers(at) == [HEADERS["tokens"]] and _query(at, "plan") == link


def test_a_link_to_no_plan_says_so_and_shows_the_explorer(app):
    app.query_params["plan"] = "hengxin-workshp"
    at = app.run()
    assert not at.exception
    assert any("The plan has 1 problem" in w.value for w in at.warning)
    assert "The link names no bundled plan (there are: hengxin-workshop)." in [t.value for t in at.text]
    assert any(s.value.startswith("Round 1:") for s in at.subheader)


def test_leaving_presenter_mode_leaves_the_plan(app):
    app.query_params.update({"plan": "hengxin-workshop", "slide": "3"})
    at = app.run()
    at.toggle(key="explorer.presenter").set_value(False).run()
    assert not at.exception
    assert _query(at, "plan") is None and _query(at, "slide") is None
    assert any(s.value.startswith("Round") for s in at.subheader)


def test_leaving_presenter_mode_on_a_slide_opens_the_explorer_on_that_slides_trace_and_round(app):
    # Present switched off on slide 10 (Hengxin's round 3, step 2) to show the round's payload opened the explorer on
    # round 1; on a pitfall's slide it opened Hengxin, the trace the sidebar held before the plan.
    app.query_params.update({"plan": "hengxin-workshop", "slide": "10"})
    at = app.run()
    assert "slide 10 of 29 · round 3 of 4" in screen(at)
    at.toggle(key="explorer.presenter").set_value(False).run()
    assert not at.exception
    assert [s.value for s in at.subheader if s.value.startswith("Round")][0].startswith("Round 3: the program sends")
    assert _query(at, "round") == "3" and _query(at, "trace") == "hengxin-expense"
    at.toggle(key="explorer.presenter").set_value(True).run()  # back in presenter mode: the same round and step
    assert "round 3 of 4" in screen(at) and _query(at, "step") == "2"


def test_leaving_presenter_mode_on_a_pitfall_slide_opens_that_pitfall_not_the_trace_the_sidebar_held(app, workshop):
    number = next(n for n, s in enumerate(workshop.slides, start=1) if s.view == "gallery")
    slide = workshop.slides[number - 1]
    app.query_params.update({"plan": "hengxin-workshop", "slide": str(number)})
    at = app.run()
    at.toggle(key="explorer.presenter").set_value(False).run()
    assert not at.exception
    assert _query(at, "trace") == slide.trace and _query(at, "round") == str(slide.round)


def test_the_plan_file_uploader_says_the_size_the_page_keeps_to_not_streamlits_200mb(app):
    # It read "200MB per file" beside a page that reads a plan file up to 1,000,000 characters and a session that
    # keeps 4,000,000 bytes of uploads for a viewer.
    at = _plan_page(app)
    assert at.file_uploader(key="plan.upload").proto.max_upload_size_mb == 4
    from lib.workshop_plan import FILE_LIMIT
    assert FILE_LIMIT <= 4 * 2**20


def _plan_page(app):
    app.run()
    at = app.switch_page("pages/plan.py").run()
    assert not at.exception
    return at


def _slide_ids(at) -> list[str]:
    return list(next(d.value for d in at.dataframe if "view" in d.value.columns)["id"])


def test_the_slides_table_shows_a_dash_not_none_where_a_slide_has_no_step(app, workshop):
    at = _plan_page(app)
    table = next(d for d in at.dataframe if "view" in d.value.columns)
    steps = dict(zip(table.value["id"], table.value["step"]))
    assert pd.isna(steps["hengxin-dialects-r2"]) and steps["hengxin-r1s1"] == 1
    assert table.proto.placeholder == "–"


def test_the_slides_table_says_which_rounds_each_slide_covers(app, workshop):
    # The tokens and closing slides sum every round, and a diagram draws two: "round 1" said otherwise.
    at = _plan_page(app)
    table = next(d for d in at.dataframe if "view" in d.value.columns)
    rounds = dict(zip(table.value["id"], table.value["round"]))
    assert (rounds["hengxin-tokens"], rounds["hengxin-closing"]) == ("all rounds", "all rounds")
    assert (rounds["hengxin-diagram-r1"], rounds["hengxin-diagram-r3"]) == ("1 and 2", "3 and 4")
    assert (rounds["hengxin-r1s1"], rounds["hengxin-dialects-r2"], rounds["gallery-unanswered-parallel-call"]) == (
        "1", "2", "2")


def test_the_plan_page_reorders_removes_and_adds_slides_and_shares_the_result(app, workshop, traces):
    at = _plan_page(app)
    assert _slide_ids(at) == [s.id for s in workshop.slides]
    assert "/?plan=hengxin-workshop" in [c.value for c in at.code]
    at.button(key="plan.down").click().run()
    assert _slide_ids(at)[:2] == ["hengxin-r1s2", "hengxin-r1s1"]
    at.button(key="plan.remove").click().run()
    assert _slide_ids(at)[:2] == ["hengxin-r1s2", "hengxin-r1s3"]
    at.selectbox(key="plan.add.trace").set_value("order-status-anthropic")
    at.selectbox(key="plan.add.view").set_value("closing")
    at.button(key="plan.add.submit").click().run()
    ids = _slide_ids(at)
    assert ids[2] == "order-status-anthropic-closing" and len(ids) == len(workshop.slides)
    link = next(c.value for c in at.code if c.value.startswith("/?plan="))
    shared = unpack(link.removeprefix("/?plan="), traces).plan
    assert [s.id for s in shared.slides] == ids
    saved = at.get("download_button")[0]
    assert saved.proto.label == "Download the plan as a file"


def test_the_plan_page_opens_a_broken_file_naming_each_bad_line_and_keeps_its_good_slides(app):
    at = _plan_page(app)
    text = bundled_plans()["hengxin-workshop"].read_text(encoding="utf-8").replace(
        '"view": "tokens"', '"view": "token"').replace('"title": "Hengxin', '"title": "Broken Hengxin')
    at.file_uploader(key="plan.upload").upload("workshop-plan.json", text.encode()).run()
    assert not at.exception
    assert any("The plan has 1 problem" in w.value for w in at.warning)
    problems = "\n".join(t.value for t in at.text)
    assert 'line 17, slide 15: field "view": "token" is not a view (one of: step, tokens,' in problems
    ids = _slide_ids(at)
    assert "hengxin-tokens" not in ids and len(ids) == 28 and ids[0] == "hengxin-r1s1"
    assert at.text_input(key="plan.title").value.startswith("Broken Hengxin")


def test_present_this_plan_opens_presenter_mode_on_its_first_slide(app):
    at = _plan_page(app)
    at.button(key="plan.down").click().run()
    at.button(key="plan.present").click().run()
    assert not at.exception
    assert _headers(at) == ["② Call intent"] and "slide 1 of 29" in screen(at)
    assert _query(at, "plan").startswith("p1.")  # no longer the bundled plan: it travels packed


def _left_on_slide_10_to_edit(app):
    """The teacher presents Hengxin's workshop, turns Present off on slide 10 (hengxin-r3s2) and opens the plan page."""
    app.query_params.update({"plan": "hengxin-workshop", "slide": "10"})
    at = app.run()
    at.toggle(key="explorer.presenter").set_value(False).run()
    at = at.switch_page("pages/plan.py").run()
    assert not at.exception
    return at


def test_present_this_plan_after_editing_returns_to_the_slide_the_teacher_left_wherever_it_moved(app):
    # It always opened on slide 1: a teacher who left slide 10 to drop an earlier slide had to click Next nine times.
    at = _left_on_slide_10_to_edit(app)
    at.button(key="plan.remove").click().run()  # slide 1 goes: the slide left is now the 9th
    at.button(key="plan.present").click().run()
    assert not at.exception
    shown = screen(at)
    assert "slide 9 of 28 · round 3 of 4" in shown
    assert "Back on slide 9 of 28, the slide the plan was left on." in [i.value for i in at.info]
    assert _query(at, "slide") == "9"
    at.button(key="presenter.next").click().run()
    assert not any("the slide the plan was left on" in i.value for i in at.info)  # said once, where it opened


def test_present_this_plan_opens_on_slide_1_and_says_why_when_the_slide_left_was_removed(app, workshop):
    at = _left_on_slide_10_to_edit(app)
    at.selectbox(key="plan.selected").set_value(_slide_ids(at).index("hengxin-r3s2")).run()
    at.button(key="plan.remove").click().run()
    assert "hengxin-r3s2" not in _slide_ids(at)
    at.button(key="plan.present").click().run()
    assert "slide 1 of 28" in screen(at)
    assert "The slide the plan was left on is no longer in it: presenting from slide 1 of 28." in [
        i.value for i in at.info]


def test_an_address_the_browser_brings_back_moves_the_plan_to_its_slide_and_next_goes_on_from_there(app):
    # The browser's Back brings the last slide's address and reruns the page: the plan kept the session's slide and
    # wrote it over the address, so Back did nothing.
    app.query_params.update({"plan": "hengxin-workshop", "slide": "3"})
    at = app.run()
    at.button(key="presenter.next").click().run()
    assert "slide 4 of 29" in screen(at) and _query(at, "slide") == "4"
    at.query_params["slide"] = "3"  # Back
    at.run()
    assert "slide 3 of 29" in screen(at) and _query(at, "slide") == "3"
    at.button(key="presenter.next").click().run()  # a click moves from the slide on screen, whatever the address said
    assert "slide 4 of 29" in screen(at) and _query(at, "trace") is None


def test_a_plan_file_with_no_good_slide_says_it_was_not_opened_and_the_plan_open_before_stays(app):
    # The warning said "the slides without one are kept" while none was, above the Hengxin plan still on screen: a
    # reader took it for the file's plan.
    at = _plan_page(app)
    text = json.dumps({"kind": "roundtrip-plan", "version": 1, "title": "Mine",
                       "slides": [{"trace": "hengxin-expense", "view": "step", "round": 9, "step": 2}]})
    at.file_uploader(key="plan.upload").upload("mine.json", text.encode()).run()
    assert not at.exception
    said = [w.value for w in at.warning]
    assert said == ["The plan has 1 problem, and none of its slides can be shown: it was not opened."]
    assert at.text_input(key="plan.title").value.startswith("Hengxin")


def test_a_slide_asked_for_past_a_traces_last_round_says_which_round_it_shows(app):
    # The form took round 9 of a 4-round trace and silently made it round 4, the form still reading 9.
    at = _plan_page(app)
    at.selectbox(key="plan.add.trace").set_value("hengxin-expense")
    at.selectbox(key="plan.add.view").set_value("step")
    at.number_input(key="plan.add.round").set_value(9)
    at.button(key="plan.add.submit").click().run()
    assert "That trace has 4 rounds, not 9: the slide shows round 4, its last." in [i.value for i in at.info]


def _chart(at) -> str:
    """The slide's one chart, as the browser gets it (its data and its labels)."""
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return charts[0].proto.spec


def _on_slide(at, slide_id: str, workshop):
    at.session_state["plan.slide"] = [s.id for s in workshop.slides].index(slide_id)
    at.run()
    assert not at.exception
    return at


def test_in_predict_mode_the_slides_after_the_steps_give_away_no_round_the_learner_has_not_predicted(app, workshop):
    # Hengxin's round 1 is still to predict: the tokens chart's later bars, the picture's arrows and round 2's request
    # (which carries round 1's calls) would each say what the model does in round 1.
    at = _slide(app, "hengxin-tokens", workshop, "present,predict")
    first = "Predict round 1 first: this slide would give away what the model does in it."
    assert first in screen(at) and not at.get("plotly_chart") and "Input billed over all calls" not in _metrics(at)
    for slide_id in ("hengxin-diagram-r1", "hengxin-dialects-r2"):
        _on_slide(at, slide_id, workshop)
        assert first in screen(at) and not at.get("plotly_chart"), slide_id
        assert "**Messages array**" not in screen(at), slide_id  # round 2's request: round 1's calls in it
    # Round 1 predicted: the slides show it, and nothing of round 2 on.
    _on_slide(at, "hengxin-r1s2", workshop)
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    _on_slide(at, "hengxin-tokens", workshop)
    only = "Round 1 only, the one predicted so far: round 2 and after would give away what the model does in round 2."
    assert only in screen(at) and [series["x"] for series in json.loads(_chart(at))["data"]][0] == [1]
    # One call is billed once the input of one call: "1.0 times one call" says nothing, so it is not said.
    assert _lead(at) == "Every call resends everything: 1 call billed 1,247 input tokens."
    assert not [m for m in at.metric if m.label == "One call with round 1's context"][0].proto.delta
    assert {"Input billed over the rounds predicted so far", "One call with round 1's context"} <= set(_metrics(at))
    _on_slide(at, "hengxin-diagram-r1", workshop)
    assert only in screen(at) and "request 1" in _chart(at) and "request 2" not in _chart(at)
    _on_slide(at, "hengxin-diagram-r3", workshop)
    assert "Predict round 2 first: this slide would give away what the model does in it." in screen(at)
    _on_slide(at, "hengxin-dialects-r2", workshop)
    assert "**Messages array**" in screen(at) and "Predict round" not in screen(at)


def test_in_predict_mode_the_closing_slide_totals_only_the_rounds_predicted_so_far(app, workshop):
    # The whole trace's 4 model calls and 4 tool calls would say what the model does in the rounds still to predict.
    at = _slide(app, "hengxin-closing", workshop, "present,predict")
    assert "Predict round 1 first: this slide would give away what the model does in it." in screen(at)
    assert set(_metrics(at)) == {"Your score on this trace"}
    _on_slide(at, "hengxin-r1s2", workshop)
    at.radio(key="predict.1.action").set_value("call")
    at.button(key="predict.reveal").click().run()
    _on_slide(at, "hengxin-closing", workshop)
    shown = _metrics(at)
    # Round 1 alone: one model call, its two calls in parallel, and round 1's three findings (the overridden
    # user_id, the values the model filled in its two calls), not round 3's write tool.
    assert (shown["Model calls"], shown["Tool calls"], shown["Findings of the checks"]) == ("1", "2", "3")
    assert "Round 1 only, the one predicted so far: round 2 and after would give away what the model does in " \
           "round 2." in screen(at)
    assert "In the rounds predicted so far: one question, 1 model call and 2 tool calls" in _lead(at)
    assert "Input billed over the rounds predicted so far" in shown and "Input billed over all calls" not in shown


def test_a_step_slide_of_a_later_round_in_predict_mode_stops_at_the_first_round_still_to_predict(app, workshop):
    # Request 3 carries what the model did in rounds 1 and 2: the slide holds round 1 until it is predicted.
    at = _slide(app, "hengxin-r3s1", workshop, "present,predict")
    assert "slide 9 of 29 · round 1" in screen(at) and "round 3" not in screen(at) and "of 4" not in screen(at)
    assert "Predict round 1 first: request 3 carries what the model does in round 1, so round 1 is shown." in [
        c.value for c in at.caption]
