"""The Watch page in a real browser: a round appears within seconds of a call going through the
proxy, with no reload, since a fragment redraws the capture every second."""

from __future__ import annotations


import anthropic
import openai
import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

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


class LateRedraw:
    """The app's websocket, routed so that a redraw the Watch page's timer asks for after Fork from here was pressed
    reaches the server only once the next page's run has begun: what a busy server does with one in flight."""

    def __init__(self) -> None:
        self.pressed = False
        self.news: list | None = None
        """The server's messages kept from the browser, from the whole page's run after the press until the browser
        asks for a redraw (it keeps its timer until it hears of a whole run)."""
        self.redraw: tuple[str, bytes] | None = None
        """The page the held redraw was asked on, and the redraw."""
        self.sent_late = False

    def route(self, ws) -> None:
        server = ws.connect_to_server()

        def from_page(message) -> None:
            asked = _rerun_asked(message)
            if asked and not asked[0] and asked[2]:
                self.pressed = True  # a widget in a fragment: Fork from here
            elif asked and asked[0] and self.pressed and self.redraw is None:
                self.redraw = (asked[1], message)
                held, self.news = self.news or [], None
                for news in held:
                    ws.send(news)
                    self._maybe_send(server, news)
                return
            server.send(message)

        def from_server(message) -> None:
            began = _run_began(message)
            if self.pressed and self.redraw is None and self.news is None and began and not began[1]:
                self.news = []
            if self.news is not None:
                self.news.append(message)
                return
            ws.send(message)
            self._maybe_send(server, message)

        ws.on_message(from_page)
        server.on_message(from_server)

    def _maybe_send(self, server, news) -> None:
        """Send the held redraw once a whole run of another page has begun."""
        began = _run_began(news)
        if began and not began[1] and self.redraw and not self.sent_late and began[0] != self.redraw[0]:
            server.send(self.redraw[1])
            self.sent_late = True


def _rerun_asked(message) -> tuple[bool, str, str] | None:
    """(a timer's redraw, its page, its fragment) of a rerun the browser asks for."""
    if not isinstance(message, bytes):
        return None
    sent = BackMsg()
    sent.ParseFromString(message)
    if sent.WhichOneof("type") != "rerun_script":
        return None
    return sent.rerun_script.is_auto_rerun, sent.rerun_script.page_script_hash, sent.rerun_script.fragment_id


def _run_began(message) -> tuple[str, list[str]] | None:
    """(its page, the fragments it reruns, none for a whole run) of a run the server starts."""
    if not isinstance(message, bytes):
        return None
    received = ForwardMsg()
    received.ParseFromString(message)
    if received.WhichOneof("type") != "new_session":
        return None
    return received.new_session.page_script_hash, list(received.metadata.run.fragment_ids)


def test_a_redraw_of_the_watch_page_reaching_the_server_after_the_fork_page_began_leaves_that_page_drawn(page, capture):
    # On a busy server the redraw the Watch page's timer asked for just before the switch arrived during the Fork page's
    # run; Streamlit ran it afterwards as a redraw of the Watch page's rounds, and the browser cleared the Fork page it
    # had drawn and drew nothing: the heading 'Fork a round' gone, for good.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:4]
    with RecordedServer(recordings=recordings) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
        for recording in recordings:
            client.chat.completions.create(**recording.request)
    late = LateRedraw()
    page.route_web_socket("**/_stcore/stream", late.route)
    page.goto("/watch")
    page.get_by_role("button", name="Fork from here").click()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(f"{capture.name} · conversation 1")).to_be_visible()
    for _ in range(6):  # past the Fork page's run and the redraw's, looked at without waiting for the page
        page.wait_for_timeout(500)
        assert main.get_by_role("heading", name="Fork a round").count() == 1
        assert main.get_by_text(f"{capture.name} · conversation 1").count() == 1
    assert late.sent_late, "no redraw was asked for between the press and the Fork page's run: the race was not run"


def test_a_proxy_started_again_while_the_page_is_open_is_followed_without_a_reload(page, capture):
    # Started again, the proxy records into a new file: the page went on showing the last capture's round 2, finished,
    # and did not list the new file until a reload.
    first, second = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    later = None
    try:
        with RecordedServer(recordings=[first, second]) as upstream:
            with BackgroundProxy(upstream.url, capture) as proxy:
                client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
                for recording in (first, second):
                    client.chat.completions.create(**recording.request)
            page.goto("/watch")
            expect(page.get_by_text("Round 2: the program sends 5 messages, 3 of them new")).to_be_visible(timeout=30_000)
            navigations = []
            page.on("framenavigated", lambda frame: navigations.append(frame.url))
            later = files.new_capture_path()
            with BackgroundProxy(upstream.url, later) as proxy:
                openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0) \
                    .chat.completions.create(**first.request)
                expect(page.get_by_text("Round 1: the program sends 2 messages, 2 of them new")).to_be_visible(
                    timeout=10_000)
                expect(page.locator('[data-testid="stSelectbox"] input').first).to_have_value(later.name)
        assert navigations == []
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        if later is not None:
            later.unlink(missing_ok=True)


def test_another_capture_chosen_names_its_own_conversation_in_the_box(page, capture):
    # Chosen from the list, an earlier capture showed its rounds under a Conversation box that still named the last
    # capture's conversation, one this capture does not have.
    hengxin = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    (order_status,) = read_recordings(RECORDINGS_DIR / "order-status.jsonl")[:1]
    earlier = capture.with_name(f"{capture.stem}-earlier.jsonl")  # new_capture_path() would name `capture` again
    try:
        with RecordedServer(recordings=[*hengxin, order_status]) as upstream:
            with BackgroundProxy(upstream.url, earlier) as proxy:
                client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0)
                for recording in hengxin:
                    client.chat.completions.create(**recording.request)
            with BackgroundProxy(upstream.url, capture) as proxy:  # the newest: two runs, the page opens on it
                openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-browser-test", max_retries=0) \
                    .chat.completions.create(**hengxin[0].request)
                anthropic.Anthropic(base_url=proxy.url, api_key="sk-browser-test", max_retries=0) \
                    .messages.create(**order_status.request)
        page.goto("/watch")
        boxes = page.locator('[data-testid="stSelectbox"] input')
        expect(page.get_by_text("2 lines: 2 rounds in 2 conversations")).to_be_visible(timeout=30_000)
        expect(boxes.nth(1)).to_have_value("conversation 2")
        page.locator('[data-testid="stSelectbox"]').first.click()
        page.get_by_role("option", name=earlier.name).click()
        expect(page.get_by_text("2 lines: 2 rounds in 1 conversation")).to_be_visible(timeout=10_000)
        page.wait_for_timeout(2_000)  # a redraw or two of the rounds
        expect(boxes.nth(1)).to_have_value("conversation 1")
    finally:
        earlier.unlink(missing_ok=True)
