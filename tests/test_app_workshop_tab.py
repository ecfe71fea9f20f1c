"""A live run, or an uploaded log, on a workshop slide without saving it into traces/: the Workshop plan page lists
what the browser tab holds beside the bundled traces, says how far such a slide reaches, and writes no file."""

from __future__ import annotations

from pathlib import Path

from lib import catalog
from lib.workshop_plan import TAB_GONE, unpack
from lib.ui import live
from tests.conftest import load_bundled
from tests.screen import screen

FIXTURES = Path(__file__).parent / "fixtures"


def _ended_live_run(app):
    """The Hengxin scenario replayed, its write approved: a run that answered."""
    at = app.run()
    at.switch_page("pages/live.py").run()
    at.button(key="live.run").click().run()
    at.button(key="live.approve").click().run()
    assert not at.exception and [b.value for b in at.success] == ["The model answered."]
    return at


def _listed(at) -> str:
    return "\n".join(c.value for c in at.caption)


def test_a_live_run_that_ended_can_be_put_on_a_slide_of_this_tabs_plan_without_writing_a_file(app):
    # The plan page's Trace box listed the bundled traces only, and said nothing: a run just made in the room could
    # not be put on a slide without "Save into traces/", which writes a file every visitor's list then shows.
    before = sorted(catalog.TRACES_DIR.rglob("*"))
    at = _ended_live_run(app)
    assert "The Workshop plan page lists this run for slides in this browser tab only" in _listed(at)
    assert "this-tab.live-hengxin" in [t.value for t in at.text]
    at.switch_page("pages/plan.py").run()
    assert not at.exception
    box = at.selectbox(key="plan.add.trace")
    assert "this-tab.live-hengxin" in box.options and "hengxin-expense" in box.options
    assert "traces open in this browser tab only: live runs that ended here and logs uploaded here" in _listed(at)
    box.set_value("this-tab.live-hengxin")
    at.selectbox(key="plan.add.view").set_value("closing")
    at.button(key="plan.add.submit").click().run()
    assert not at.exception
    table = next(d for d in at.dataframe if "view" in d.value.columns).value
    assert "this-tab.live-hengxin" in list(table["trace"])
    warned = " ".join(w.value for w in at.warning)
    assert "1 slide of this plan shows a trace open only in this browser tab" in warned
    assert "Present shows it here, but the link and the file cannot carry it" in warned
    at.button(key="plan.present").click().run()
    assert not at.exception
    at.switch_page("pages/explorer.py").run()  # where st.switch_page went: AppTest stays on the page it ran
    at.button(key="presenter.next").click().run()  # to the run's closing slide, added after the first
    shown = screen(at)
    assert "Live run: Hengxin expense reimbursement" in shown and "slide 2 of 30" in shown
    assert {m.label: m.value for m in at.metric}["Model calls"] == "4"
    assert sorted(catalog.TRACES_DIR.rglob("*")) == before  # nothing written into traces/


def test_a_plans_link_opened_in_another_tab_says_its_live_run_slides_were_of_the_tab_that_made_it(app):
    at = _ended_live_run(app)
    at.switch_page("pages/plan.py").run()
    at.selectbox(key="plan.add.trace").set_value("this-tab.live-hengxin")
    at.selectbox(key="plan.add.view").set_value("tokens")
    at.button(key="plan.add.submit").click().run()
    link = next(c.value for c in at.code if c.value.startswith("/?plan="))
    rounds = {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}  # another tab's
    problems = unpack(link.removeprefix("/?plan="), rounds).problems
    assert len(problems) == 1 and f'"this-tab.live-hengxin" {TAB_GONE}' in problems[0]


def test_an_uploaded_recording_open_in_the_sidebar_is_listed_for_this_tabs_slides(app):
    at = app.run()
    at.switch_page("pages/plan.py").run()
    data = (FIXTURES / "containers" / "rig-gemini-interactions-tool-result.yaml").read_bytes()
    at.file_uploader(key="sidebar.upload").upload("rig-gemini-interactions-tool-result.yaml", data).run()
    assert not at.exception
    assert "this-tab.rig-gemini-interactions-tool-result.yaml" in at.selectbox(key="plan.add.trace").options
    assert live.RUNNER not in at.session_state
