"""The Watch page in a real browser: a round appears within seconds of a call going through the
proxy, with no reload, since a fragment redraws the capture every second."""

from __future__ import annotations


import openai
import pytest

from lib.capture import files
from lib.capture.background import BackgroundProxy
from lib.live.replay import RECORDINGS_DIR, read_recordings
from tests.recorded_server import RecordedServer

from tests.browser.browser_api import expect


@pytest.fixture
def capture():
    """A capture file where the app lists them (the server reads the real folder), removed afterwards."""
    path = files.new_capture_path()
    yield path
    path.unlink(missing_ok=True)


def test_a_call_through_the_proxy_appears_on_the_watch_page_without_a_reload(page, capture):
    first, second = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    with RecordedServer(recordings=[first, second]) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        page.goto("/watch")
        expect(page.get_by_text("No round captured yet")).to_be_visible(timeout=30_000)
        navigations = []
        page.on("framenavigated", lambda frame: navigations.append(frame.url))
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
        client.chat.completions.create(**first.request)
        expect(page.get_by_text("Round 1", exact=True)).to_be_visible(timeout=10_000)
        client.chat.completions.create(**second.request)
        expect(page.get_by_text("Round 2", exact=True)).to_be_visible(timeout=10_000)
    assert navigations == []


def test_the_watch_page_keeps_following_a_conversation_as_each_new_round_arrives(page, capture):
    # The conversation's choice was labelled with its round count: when a third round arrived, the browser sent back
    # the label it held ("· 2 rounds"), which no option had any more, and the page showed Streamlit's error box.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:3]
    with RecordedServer(recordings=recordings) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        page.goto("/watch")
        expect(page.get_by_text("No round captured yet")).to_be_visible(timeout=30_000)
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
        for k, recording in enumerate(recordings, start=1):
            client.chat.completions.create(**recording.request)
            expect(page.get_by_text(f"Round {k}", exact=True)).to_be_visible(timeout=10_000)
            page.wait_for_timeout(1_500)  # a rerun or two of the fragment with this round on screen
        expect(page.get_by_text(f"Round {len(recordings)}: the program sends 7 messages, 2 of them new")).to_be_visible()
        assert page.locator('[data-testid="stException"]').count() == 0


def test_the_sidebars_command_and_base_urls_are_read_whole_without_scrolling_sideways(page):
    # At 1280 px the sidebar showed "python -m lib proxy --port" and hid the rest of each line behind a scrollbar.
    page.goto("/watch")
    blocks = page.locator('[data-testid="stSidebar"] pre')
    expect(blocks.last).to_contain_text("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", timeout=30_000)
    widths = blocks.evaluate_all("found => found.map(pre => [pre.innerText, pre.scrollWidth, pre.clientWidth])")
    assert len(widths) == 4
    assert [text for text, scrolled, shown in widths if scrolled > shown] == []


def test_fork_from_here_opens_the_fork_page_on_the_capture_and_it_stays(page, capture):
    # Pressed in the rounds the page redraws every second (st.switch_page inside the fragment), it opened a Fork page
    # that went blank a moment later, or never drew, in a tall window on a capture ending with the model's answer.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:4]
    with RecordedServer(recordings=recordings) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
        for recording in recordings:
            client.chat.completions.create(**recording.request)
    page.set_viewport_size({"width": 1280, "height": 1400})  # a tall window: the Fork page's first screen went blank
    page.goto("/")  # from the explorer, where the sidebar's trace is the bundled Hengxin
    expect(page.get_by_text("Round 1: the program sends 2 messages, 2 of them new")).to_be_visible()
    page.goto("/watch")
    page.get_by_role("button", name="Fork from here").click()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(f"{capture.name} · conversation 1")).to_be_visible()
    for _ in range(6):  # three of the fragment's seconds, looked at without waiting for the page to come back
        page.wait_for_timeout(500)
        assert main.get_by_role("heading", name="Fork a round").count() == 1
        assert main.get_by_text(f"{capture.name} · conversation 1").count() == 1
    assert "/fork" in page.url
