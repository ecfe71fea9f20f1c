"""The Watch page, driven through the real app with AppTest: a call made through the proxy by the
real openai SDK appears as a round, the sidebar gives the exact base URLs, and no key is shown."""

import json
from pathlib import Path

import anthropic
import openai
import pytest

from lib.capture import files
from lib.library_search import LibraryQuery, search
from lib.store import open_store
from lib.capture.background import BackgroundProxy
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.ui import navigation
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.recorded_server import RecordedServer, Reply
from tests.synthetic import synthetic_lines
from tests.test_live_app import rendered

SENTINEL = "sk-SENTINEL-watch-0815-never-shown"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "capture.md"


@pytest.fixture
def captures(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "CAPTURES_DIR", tmp_path)
    return tmp_path


def open_watch(app):
    at = app.run()
    at.switch_page("pages/watch.py").run()
    assert not at.exception
    return at


def test_without_a_capture_the_page_says_how_to_start(app, captures):
    at = open_watch(app)
    assert any("No capture yet" in i.value for i in at.info)
    codes = [c.value for c in at.sidebar.code]
    # The command as docs/capture.md writes it: copied from the page, `python -m lib proxy` said "No module named
    # 'orjson'" in any shell where the virtual environment was not active.
    assert ".venv/bin/python -m lib proxy --port 8700 --upstream https://api.openai.com" in codes
    assert "```\n.venv/bin/python -m lib proxy --port 8700 --upstream https://api.openai.com" in DOCS.read_text()
    assert 'OpenAI(base_url="http://127.0.0.1:8700/v1")' in codes
    assert 'Anthropic(base_url="http://127.0.0.1:8700")' in codes
    assert "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:8700/v1/traces" in codes


def test_a_call_through_the_proxy_appears_as_a_round(app, captures):
    first, second = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    with RecordedServer(recordings=[first, second]) as upstream, \
            BackgroundProxy(upstream.url, files.new_capture_path(captures)) as proxy:
        at = open_watch(app)
        assert any("No round captured yet" in i.value for i in at.info)
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
        client.chat.completions.create(**first.request)
        at.run()
        assert at.radio(key="watch.round").options == ["Round 1"]
        client.chat.completions.create(**second.request)
        at.run()
    assert not at.exception
    assert at.radio(key="watch.round").value == 2  # the newest round is the one shown
    page = rendered(at)
    assert "queryTravelPolicy" in page
    assert SENTINEL not in page


def test_a_captured_call_that_reads_as_no_round_is_listed_with_why_not_said_as_nothing_captured(app, captures):
    # The page said "1 line: 0 rounds in 0 conversations; 1 line skipped" and then "No round captured yet", with no
    # word of which line or why, while the proxy had printed "recorded openai call: HTTP 200".
    first = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[0]
    odd = {"status": "queued", "detail": "a server that answers something other than a completion"}
    with RecordedServer({"/v1/chat/completions": [Reply(odd)]}) as upstream, \
            BackgroundProxy(upstream.url, files.new_capture_path(captures)) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
        client.chat.completions.create(**first.request)
        at = open_watch(app)
    assert not at.exception
    assert not any("No round captured yet" in i.value for i in at.info)
    (skipped,) = at.expander
    assert skipped.label == "Skipped lines (1)"
    assert "line 1: the response is not an OpenAI Chat Completions response body" in skipped.text[0].value


def test_fork_from_here_forks_the_captured_conversation_not_the_sidebars_trace(app, captures):
    # "Fork from here" on the Watch page opened the Fork page on the sidebar's trace (the bundled Hengxin), not on
    # the capture on screen.
    recordings = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    capture = files.new_capture_path(captures)
    with RecordedServer(recordings=recordings) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
        for recording in recordings:
            client.chat.completions.create(**recording.request)
        at = open_watch(app)
    at.radio(key="watch.round").set_value(1).run()
    at.button(key="explorer.fork").click().run()
    assert not at.exception
    assert at.main.text[0].value == f"{capture.name} · conversation 1"  # the title, as text
    assert at.number_input(key=navigation.FORK_ROUND).value == 1


def test_a_capture_is_read_again_only_once_it_has_grown(app, captures, monkeypatch):
    # The Watch page reruns every second; it used to read and hash the whole capture each time (130 MB for a
    # thousand rounds of resent history, a quarter of a second a rerun).
    lines = [json.dumps({"request": r.request, "response": r.response})
             for r in read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]]
    capture = captures / "capture-20261201-000000.jsonl"
    capture.write_text(lines[0] + "\n")
    reads = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: reads.append(path.name) or real_read(path))
    at = open_watch(app)
    at.run()
    at.run()
    assert reads.count(capture.name) == 1
    assert at.radio(key="watch.round").options == ["Round 1"]
    with capture.open("a") as growing:
        growing.write(lines[1] + "\n")
    at.run()
    assert reads.count(capture.name) == 2
    assert at.radio(key="watch.round").options == ["Round 1", "Round 2"]


def test_a_long_capture_offers_its_rounds_as_a_number_not_a_thousand_choices(app, captures):
    # A capture of a thousand rounds drew a thousand choices, written and sent again every second.
    rounds = [json.loads(line) for line in list(synthetic_lines(40))[1:]]
    lines = [json.dumps({"request": r["request"], "response": r["response"]}) for r in rounds]
    (captures / "capture-20261201-000000.jsonl").write_text("\n".join(lines) + "\n")
    at = open_watch(app)
    assert "watch.round" not in [r.key for r in at.radio]
    chooser = at.number_input(key="watch.round")
    assert (chooser.label, chooser.value) == ("Round (1 to 40)", 40)  # the newest, as it arrives
    chooser.set_value(7).run()
    assert any(s.value.startswith("Round 7: ") for s in at.subheader)


def test_a_second_agent_run_through_the_proxy_is_followed_not_left_behind_the_first(app, captures):
    # An engineer watched their OpenAI agent's run, then ran their Anthropic agent through the same proxy: the page
    # said "6 lines: 6 rounds in 2 conversations" and went on showing "conversation 1", the finished OpenAI run, while
    # the new run's rounds arrived out of sight.
    (hengxin,) = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:1]
    order_status = read_recordings(RECORDINGS_DIR / "order-status.jsonl")[:2]
    with RecordedServer(recordings=[hengxin, *order_status]) as upstream, \
            BackgroundProxy(upstream.url, files.new_capture_path(captures)) as proxy:
        openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0).chat.completions.create(
            **hengxin.request)
        at = open_watch(app)
        assert at.selectbox(key="watch.conversation").value == 0
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=SENTINEL, max_retries=0)
        claude.messages.create(**order_status[0].request)
        at.run()
        assert at.selectbox(key="watch.conversation").value == 1  # the new run, as it starts
        assert any(s.value.startswith("Round 1: ") for s in at.subheader)
        assert "A-48213" in rendered(at)
        claude.messages.create(**order_status[1].request)
        at.run()
    assert not at.exception
    assert at.selectbox(key="watch.conversation").value == 1
    assert at.radio(key="watch.round").value == 2  # its newest round, as ever
    at.selectbox(key="watch.conversation").set_value(0).run()  # a run picked on purpose stays picked
    at.run()
    assert at.selectbox(key="watch.conversation").value == 0
    assert "queryTravelPolicy" in rendered(at)


def test_open_in_the_explorer_opens_the_conversation_and_round_on_screen(app, captures):
    # Watching the agent's newest run ("conversation 2", round 2), "Open in the explorer" showed "conversation 1" from
    # round 1: another run than the one on screen, with nothing said.
    hengxin = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    order_status = read_recordings(RECORDINGS_DIR / "order-status.jsonl")[:2]
    capture = files.new_capture_path(captures)
    with RecordedServer(recordings=[*hengxin, *order_status]) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        gpt = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
        for recording in hengxin:
            gpt.chat.completions.create(**recording.request)
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=SENTINEL, max_retries=0)
        for recording in order_status:
            claude.messages.create(**recording.request)
    at = open_watch(app)
    assert at.selectbox(key="watch.conversation").value == 1
    at.button(key="watch.open").click().run()
    assert not at.exception
    assert at.main.text[0].value == f"{capture.name} · conversation 2"  # the title, as text
    assert any(s.value.startswith("Round 2: the program sends 3 messages") for s in at.subheader)
    at.switch_page("pages/watch.py").run()
    at.selectbox(key="watch.conversation").set_value(0).run()
    at.radio(key="watch.round").set_value(1).run()
    at.button(key="watch.open").click().run()
    assert at.main.text[0].value == f"{capture.name} · conversation 1"
    assert any(s.value.startswith("Round 1: the program sends 2 messages") for s in at.subheader)


def test_saving_from_a_capture_of_several_runs_says_it_keeps_the_one_on_screen_and_finds_it_again(
        app, captures, app_database):
    # A capture of two agent runs: "Save to library" kept the run on screen and said only "Saved to the library"
    # beside "3 lines: 3 rounds in 2 conversations", as if both were kept.
    url = app_database
    (hengxin,) = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:1]
    order_status = read_recordings(RECORDINGS_DIR / "order-status.jsonl")[:2]
    with RecordedServer(recordings=[hengxin, *order_status]) as upstream, \
            BackgroundProxy(upstream.url, files.new_capture_path(captures)) as proxy:
        openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0).chat.completions.create(
            **hengxin.request)
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=SENTINEL, max_retries=0)
        for recording in order_status:
            claude.messages.create(**recording.request)
    at = open_watch(app)
    assert "1 of the capture's 2" in at.button(key="watch.save").help
    at.button(key="watch.save").click().run()
    assert not at.exception
    said = " ".join(c.value for c in at.main.caption)
    assert "Saved to the library: the conversation on screen only, 1 of the capture's 2; the other one is not saved" \
        in said
    found = search(open_store(url), LibraryQuery(text="A-48219"))
    assert [(row.rounds, row.source) for row in found.rows] == [(2, "capture")]
    assert search(open_store(url), LibraryQuery(text="queryTravelPolicy")).total == 0
    assert SENTINEL not in rendered(at)


def test_a_proxy_started_again_into_a_new_capture_is_followed(app, captures):
    # The engineer stopped the proxy and started it again (a new capture file), then ran the agent: the page went on
    # showing the last capture, finished, and its list did not name the new one.
    first, second = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    earlier = captures / "capture-20261201-000000.jsonl"
    with RecordedServer(recordings=[first, second]) as upstream:
        with BackgroundProxy(upstream.url, earlier) as proxy:
            client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
            for recording in (first, second):
                client.chat.completions.create(**recording.request)
        at = open_watch(app)
        assert at.selectbox(key="watch.capture").value == earlier.name
        later = files.new_capture_path(captures)
        with BackgroundProxy(upstream.url, later) as proxy:
            openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0).chat.completions.create(
                **first.request)
            at.run()
    assert not at.exception
    assert at.selectbox(key="watch.capture").value == later.name
    assert any(s.value.startswith("Round 1: the program sends 2 messages") for s in at.subheader)
    at.selectbox(key="watch.capture").set_value(earlier.name).run()  # an older capture picked on purpose stays
    at.run()
    assert at.selectbox(key="watch.capture").value == earlier.name


def test_the_request_headers_a_capture_kept_show_as_request_headers_and_a_call_without_says_so(app, captures):
    first, second = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[:2]
    with RecordedServer(recordings=[first, second]) as upstream, \
            BackgroundProxy(upstream.url, files.new_capture_path(captures)) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0)
        client.chat.completions.create(**first.request, extra_headers={"OpenAI-Beta": "assistants=v2"})
        client.chat.completions.create(**second.request)
        at = open_watch(app)
        at.radio(key="watch.round").set_value(1).run()
        assert not at.exception
        assert "openai-beta: assistants=v2" in [t.value for t in at.text]
        assert any(m.value.startswith("**request headers**") for m in at.markdown)
        assert not any("No request headers kept" in c.value for c in at.caption)
        at.radio(key="watch.round").set_value(2).run()
    assert not any("openai-beta" in t.value for t in at.text)
    assert any("No request headers kept for this call: it sent none of those a capture keeps" in c.value
               for c in at.caption)
    assert SENTINEL not in rendered(at)


def test_the_page_says_once_which_request_headers_a_capture_keeps(app, captures):
    at = open_watch(app)
    said = [c.value for c in at.sidebar.caption if "request headers" in c.value]
    assert said == ["A capture keeps each call's request and response bodies, its status, latency and time, and of its "
                    "request headers only those that switch provider features on: `anthropic-version`, "
                    "`anthropic-beta`, `openai-beta`, `x-stainless-helper`, `x-stainless-helper-method`, "
                    "`x-stainless-stream-helper`. Never `Authorization`, `x-api-key`, a cookie or any other header: "
                    "no key is written."]
    assert not [c.value for c in at.main.caption if "request headers" in c.value]
