"""Predict mode's words around the rounds: no trace title, slide id, note line or figure's label tells what the model
does in a round the learner has not predicted yet (lib.presenter.open_rounds, lib.catalog.neutral_title)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.ui.plan_editor import HELD_NAMES
from lib.workshop_plan import unpack
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.conftest import ROOT, load_bundled
from tests.screen import screen
from tests.test_app_annotate import _seed
from tests.test_app_predict_pages import _on, _predicting

EMPTY_RESULT = "pitfalls/empty-result-invented-answer"
TITLE = "Pitfall: an empty result, then an invented answer"
NEUTRAL = "Pitfall trace 1: has order LK-204117 shipped?"
"""What predict mode calls that trace until every round of it is predicted: its place in the gallery, its question."""
GIVEAWAYS = ("invented", "empty-result", "narration", "parallel", "wrong-tool", "invalid-arguments", "model-filled")
"""Words of the gallery's titles and file names that tell what happens."""


def _rounds(trace: str) -> int:
    return len(load_bundled(trace).trace.rounds)


def test_the_sidebar_names_a_pitfall_trace_by_its_place_and_question_until_every_round_of_it_is_predicted():
    at = _predicting(EMPTY_RESULT)
    labels = at.selectbox(key="sidebar.trace").options
    assert NEUTRAL in labels and "Pitfall trace 6: a late order" in labels
    assert not [label for label in labels if any(word in label.lower() for word in GIVEAWAYS)]
    assert "Where are my two orders?" in labels  # its title said "(parallel tool calls)": round 1's answer
    assert NEUTRAL in screen(at) and "invented" not in screen(at)
    at = _predicting(EMPTY_RESULT, predicted=_rounds(EMPTY_RESULT))
    labels = at.selectbox(key="sidebar.trace").options
    assert TITLE in labels and TITLE in screen(at)
    assert "Pitfall trace 2: booking a meeting room" in labels  # another trace, still to predict


def test_out_of_predict_mode_every_trace_keeps_its_title():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": EMPTY_RESULT})
    at.run()
    assert [label for label in at.selectbox(key="sidebar.trace").options] == [
        t.title for t in catalog.bundled_traces()]
    assert TITLE in screen(at)


def test_compares_choice_of_runs_names_a_pitfall_trace_neutrally_in_predict_mode():
    at = _on(_predicting(), "pages/compare.py")
    labels = at.selectbox(key="compare.right").options
    assert NEUTRAL in labels and not [label for label in labels if any(word in label.lower() for word in GIVEAWAYS)]


@pytest.mark.parametrize("page", ["pages/overview.py", "pages/checks.py"])
def test_the_other_pages_head_a_pitfall_trace_with_its_neutral_name_in_predict_mode(page):
    shown = screen(_on(_predicting(EMPTY_RESULT), page))
    assert NEUTRAL in shown and "invented" not in shown


@pytest.fixture(scope="module")
def workshop():
    return unpack("hengxin-workshop", {t.name: _rounds(t.name) for t in catalog.bundled_traces()}).plan


def test_a_plans_gallery_slide_in_predict_mode_is_headed_with_the_traces_neutral_name(workshop):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    number = [s.id for s in workshop.slides].index("gallery-empty-result-invented-answer") + 1
    at.query_params.update({"plan": "hengxin-workshop", "slide": str(number), "mode": "present,predict"})
    at.run()
    assert not at.exception
    assert NEUTRAL in screen(at) and "invented" not in screen(at)


def test_the_plan_page_in_predict_mode_names_no_slide_of_a_trace_still_to_predict_by_its_id_or_file():
    # A slide's id, unless its file gives one, is made of the trace's file name: "gallery-empty-result-invented-answer".
    at = _on(_predicting(), "pages/plan.py")
    table = next(d.value for d in at.dataframe if "id" in d.value.columns)
    said = " ".join(map(str, [*table["id"], *table["trace"], *at.selectbox(key="plan.selected").options,
                              *at.selectbox(key="plan.add.trace").options])).lower()
    assert not [word for word in GIVEAWAYS if word in said]
    assert NEUTRAL in list(table["trace"]) and "hengxin-r1s1" in list(table["id"])
    assert HELD_NAMES in screen(at)
    at = _on(_predicting(EMPTY_RESULT, predicted=_rounds(EMPTY_RESULT)), "pages/plan.py")
    table = next(d.value for d in at.dataframe if "id" in d.value.columns)
    assert "gallery-empty-result-invented-answer" in list(table["id"]) and EMPTY_RESULT in list(table["trace"])




def test_the_explorers_notes_line_names_no_round_after_the_first_still_to_predict(app_database):
    # Which later rounds carry notes tells how far the trace goes, and a note there is on what the model did.
    _seed(app_database, "hengxin-expense", "round:2/response.choices[0].message.tool_calls[0]", "Strings.", "Ada")
    _seed(app_database, "hengxin-expense", "round:3/response.choices[0].message.tool_calls[0]", "Writes.", "Bo")
    captions = [c.value for c in _predicting().caption if "Notes on" in c.value]
    assert captions == []
    captions = [c.value for c in _predicting(predicted=1).caption if "Notes on" in c.value]
    assert captions == [":material/edit_note: Notes on round 2"]
    captions = [c.value for c in _predicting(predicted=2).caption if "Notes on" in c.value]
    assert captions == [":material/edit_note: Notes on round 2, round 3"]


def test_the_tokens_page_labels_its_sums_as_the_rounds_predicted_so_far():
    at = _on(_predicting(predicted=1), "pages/overview.py")
    labels = [m.label for m in at.metric]
    assert "Input billed over the rounds predicted so far" in labels and "Input billed over all calls" not in labels
    assert "One call with round 1's context" in labels and "One call with the final context" not in labels
    at = _on(_predicting(predicted=4), "pages/overview.py")
    labels = [m.label for m in at.metric]
    assert "Input billed over all calls" in labels and "One call with the final context" in labels


def test_the_tokens_page_says_no_ratio_of_one_call_to_itself_after_one_predicted_round():
    # "1 call billed 1.0 times this" was true of any one call and told nothing; four calls' ratio does.
    at = _on(_predicting(predicted=1), "pages/overview.py")
    one_call = next(m for m in at.metric if m.label == "One call with round 1's context")
    assert not one_call.proto.delta and "times this" not in str(one_call.proto)
    at = _on(_predicting(predicted=4), "pages/overview.py")
    one_call = next(m for m in at.metric if m.label == "One call with the final context")
    assert one_call.delta == "4 calls billed 3.7 times this"


def test_the_address_bar_names_a_pitfall_trace_still_to_predict_by_a_neutral_alias():
    # The address is on screen and shared: `?trace=pitfalls/empty-result-invented-answer` tells the punchline.
    at = _predicting(EMPTY_RESULT)
    asked = str(at.query_params["trace"]).lower()
    assert not [word for word in GIVEAWAYS if word in asked]
    assert "pitfall-1" in asked
    at = _predicting(EMPTY_RESULT, predicted=_rounds(EMPTY_RESULT))
    assert EMPTY_RESULT in str(at.query_params["trace"])  # every round predicted: its own name again


@pytest.mark.parametrize("mode", ["predict", None])
def test_a_link_with_a_neutral_alias_opens_the_same_trace_as_its_name(mode):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": "pitfall-1", "round": "1", **({"mode": mode} if mode else {})})
    at.run()
    assert not at.exception
    assert at.selectbox(key="sidebar.trace").value == EMPTY_RESULT
    assert (NEUTRAL if mode else TITLE) in screen(at)
    assert "was not found" not in screen(at)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"trace": EMPTY_RESULT, "round": "1", **({"mode": mode} if mode else {})})
    at.run()
    assert at.selectbox(key="sidebar.trace").value == EMPTY_RESULT  # the old link still opens it


def test_compares_address_names_a_run_still_to_predict_by_its_alias_and_a_link_with_it_opens_that_run():
    at = _on(_predicting(), "pages/compare.py")
    assert at.selectbox(key="compare.right").value == EMPTY_RESULT
    asked = str(at.query_params["compare"]).lower()
    assert asked == "hengxin-expense,pitfall-1" and not [word for word in GIVEAWAYS if word in asked]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["compare"] = "pitfall-2,pitfall-1"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception and "was not found" not in screen(at)
    assert at.selectbox(key="compare.left").value == "pitfalls/invalid-arguments-corrected"
    assert at.selectbox(key="compare.right").value == EMPTY_RESULT
