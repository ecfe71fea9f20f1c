"""The Live run page in a real browser, against the real openai SDK and our loopback server: what a person does
while a run is under way (look at an earlier round, press Stop) changes what is shown, never what is sent."""

from __future__ import annotations

import re

from lib.live.replay import RECORDINGS_DIR, read_recordings
from tests.recorded_server import RecordedServer

from tests.browser.browser_api import expect

CHAT = "/v1/chat/completions"


def _start_a_run(page, server) -> None:
    """The Hengxin scenario against the loopback server, as an OpenAI-compatible server with a key typed in."""
    page.goto("/live")
    page.get_by_test_id("stRadioGroup").get_by_text("OpenAI-compatible server").click()
    for label, value in (("Base URL", server.url + "/v1"), ("API key", "sk-browser-live-0001")):
        box = page.get_by_role("textbox", name=label)
        box.fill(value)
        box.press("Enter")
        expect(box).to_have_value(value)
    page.wait_for_timeout(1_000)  # the last value reaches the server before the click
    page.get_by_role("button", name="Run").click()


def test_looking_at_an_earlier_round_while_the_model_answers_sends_no_request_twice(page):
    # A click during a model call started a second script run, which stepped the run again: the same request went
    # out twice and the page showed "Round 5: the program sends 7 messages, 0 of them new".
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")
    with RecordedServer(recordings=recordings, recorded_delay_s=1.5, limit_s=90) as server:
        _start_a_run(page, server)
        expect(page.get_by_text("Round 2", exact=True)).to_be_visible()
        page.get_by_text("Round 1", exact=True).click()  # round 3's request is on its way
        expect(page.get_by_role("button", name="Approve")).to_be_visible()
        expect(page.get_by_text("Round 3: the program sends 7 messages, 2 of them new")).to_be_visible()
        assert page.get_by_text("Round 4", exact=True).count() == 0
        assert [r.path for r in server.received] == [CHAT] * 3


def test_stop_during_a_call_says_the_call_was_sent_and_keeps_its_answer(page):
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")
    with RecordedServer(recordings=recordings, recorded_delay_s=2.0, limit_s=90) as server:
        _start_a_run(page, server)
        expect(page.get_by_text("Round 1", exact=True)).to_be_visible()
        page.wait_for_timeout(300)
        page.get_by_role("button", name="Stop").click()  # round 2's request is on its way
        expect(page.get_by_text("a request already sent cannot be called back")).to_be_visible()
        expect(page.get_by_text("Stopped by you after round 2.")).to_be_visible()
        expect(page.get_by_text("Round 2: the program sends 5 messages, 3 of them new")).to_be_visible()
        expect(page.get_by_text("Call calcAmountOver · id call_q3").first).to_be_visible()  # the answer is kept
        assert len(server.received) == 2


def test_while_a_request_is_on_its_way_the_page_says_it_was_sent_not_that_it_is_ready_to_go(page):
    # Eight seconds into a slow answer the page still read "Ready to send request 1." above "No round yet.", with a
    # spinner at the bottom saying nothing of how long the wait had lasted: the teacher could not tell a request on its
    # way from one never sent.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")
    with RecordedServer(recordings=recordings, recorded_delay_s=6.0, limit_s=90) as server:
        _start_a_run(page, server)
        expect(page.get_by_text("Request 1 is on its way: sent to the model.")).to_be_visible()
        page.wait_for_timeout(3_000)
        assert len(server.received) == 1 and page.get_by_text("Round 1", exact=True).count() == 0  # still waiting
        assert page.get_by_text("Ready to send request 1.").count() == 0
        expect(page.get_by_test_id("stSpinner")).to_contain_text(re.compile(r"Waiting for its answer.*\d"))
        expect(page.get_by_text("Request 2 is on its way: sent to the model.")).to_be_visible()
        assert page.get_by_text("Round 1: 2 call(s) answered; request 2 goes next.").count() == 0


def test_while_request_1_is_on_its_way_the_page_says_so_in_one_place(page):
    # With request 1 sent, the page said it three times over in three places: "Request 1 is on its way" at the top,
    # "No round yet." in a blue box under Stop, and "Round 1: waiting for the model… (2.4 seconds)" at the bottom,
    # under the export buttons. Now the status line and its seconds stand together above Stop, and nothing else speaks.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")
    with RecordedServer(recordings=recordings, recorded_delay_s=6.0, limit_s=90) as server:
        _start_a_run(page, server)
        said = page.get_by_text("Request 1 is on its way: sent to the model.")
        spinner = page.get_by_test_id("stSpinner")
        expect(spinner).to_contain_text(re.compile(r"Waiting for its answer.*\d"))
        assert len(server.received) == 1
        assert page.get_by_text("No round yet.").count() == 0
        assert page.get_by_text(re.compile("waiting for the model", re.IGNORECASE)).count() == 0
        top, seconds, stop = (box.bounding_box()["y"] for box in (said, spinner, page.get_by_role("button", name="Stop")))
        # Nothing is offered to keep while no call has come back (a download then held no round), and the page says so
        # under Stop.
        assert page.get_by_role("button", name="Download the trace").count() == 0
        assert page.get_by_role("button", name="Save into traces/").count() == 0
        nothing = page.get_by_text("Nothing to keep yet: no call of this run has come back.").bounding_box()["y"]
        assert top < seconds < stop < nothing  # the wait's seconds beside what is awaited, not under the exports
        # Once request 1's answer is in, the trace holds a round and the exports come.
        expect(page.get_by_role("button", name="Download the trace")).to_be_visible(timeout=30_000)
        expect(page.get_by_text("Nothing to keep yet")).to_have_count(0)


def test_a_reloaded_live_page_says_the_run_it_showed_closed_with_its_session(page):
    # A reload mid-workshop brought back the empty set-up form, saying nothing of the run that had been on screen: the
    # run lives only in the session that started it, and nothing told the teacher it was gone or how to keep one.
    with RecordedServer(recordings=read_recordings(RECORDINGS_DIR / "hengxin.jsonl"), limit_s=90) as server:
        _start_a_run(page, server)
        expect(page.get_by_role("button", name="Approve")).to_be_visible()
        assert "run=hengxin" in page.url
        page.reload()
        expect(page.get_by_text("The live run this address showed closed with its session")).to_be_visible()
        expect(page.get_by_role("button", name="Run")).to_be_visible()  # a new run can start at once
        assert len(server.received) == 3  # nothing was sent again
