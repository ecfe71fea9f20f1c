"""The recording proxy between the real openai and anthropic SDKs and a loopback upstream that
answers recorded bodies: what the client sees is what it would have seen without the proxy, and
the capture file reads back as the conversations that went through it."""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import anthropic
import httpx2
import openai
import pytest

from bench.load_test import free_port
from lib import cli
from lib.checks import run_checks
from lib.capture.background import BackgroundProxy
from lib.live.launch import RunSetup, start
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.live.scenarios import HENGXIN, ORDER_STATUS
from lib.logs.upload import read_upload
from tests.capture_support import anthropic_stream, chat_stream
from tests.recorded_server import RecordedServer, Reply
from tests.test_live_sdk import run_to_end

pytestmark = pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")

SENTINEL = "sk-SENTINEL-proxy-4711-never-written"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHAT = "/v1/chat/completions"


def recorded(name):
    """A recorded run's calls; for hengxin, its four rounds (the later recordings serve teaching switches)."""
    return read_recordings(RECORDINGS_DIR / f"{name}.jsonl")[:4]


def captured(path):
    upload = read_upload([(path.name, path.read_bytes())])
    assert not upload.problems
    return upload


def openai_client(proxy, **more):
    return openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=0, **more)


def test_an_openai_tool_loop_through_the_proxy_is_captured_as_one_conversation(tmp_path):
    capture = tmp_path / "capture.jsonl"
    with RecordedServer(recordings=recorded("hengxin")) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        runner = start(RunSetup(HENGXIN, "openai", base_url=proxy.url + "/v1"), SENTINEL, tmp_path)
        assert run_to_end(runner).outcome == "answered"
        # Readable while the proxy still runs, by the command a user would type.
        summary = subprocess.run([sys.executable, "-m", "lib", "summarize", str(capture), "--json"],
                                 capture_output=True, text=True, timeout=60)
    assert upstream.received[0].headers["authorization"] == f"Bearer {SENTINEL}"
    (conversation,) = captured(capture).conversations
    assert [len(r.request.messages) for r in conversation.trace.rounds] == [2, 5, 7, 9]
    assert [c.name for c in conversation.trace.rounds[0].tool_calls] == ["queryExpense", "queryTravelPolicy"]
    assert "BC-20261020-0417" in conversation.trace.rounds[3].response.message.text
    document = json.loads(summary.stdout)
    assert [len(c["rounds"]) for c in document["conversations"]] == [4]


def test_an_anthropic_tool_loop_through_the_proxy_is_captured_as_one_conversation(tmp_path):
    capture = tmp_path / "capture.jsonl"
    with RecordedServer(recordings=recorded("order-status")) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        runner = start(RunSetup(ORDER_STATUS, "anthropic", base_url=proxy.url), SENTINEL, tmp_path)
        assert run_to_end(runner).outcome == "answered"
    assert SENTINEL in upstream.received[0].headers["authorization"]
    (conversation,) = captured(capture).conversations
    first, second = conversation.trace.rounds
    assert [c.arguments for c in first.tool_calls] == [{"order_id": "A-48213"}, {"order_id": "A-48219"}]
    assert "A-48219 is still being processed" in second.response.message.text


def test_the_client_gets_the_upstream_bytes_unchanged(tmp_path):
    recordings = recorded("hengxin")
    with RecordedServer(recordings=recordings) as upstream, BackgroundProxy(upstream.url, tmp_path / "c.jsonl") as proxy:
        client = openai_client(proxy)
        for recording in recordings:
            raw = client.chat.completions.with_raw_response.create(**recording.request)
            assert raw.http_response.content == json.dumps(recording.response).encode()


def test_a_streamed_openai_run_is_relayed_chunk_by_chunk_and_recorded_assembled(tmp_path):
    recordings = recorded("hengxin")
    replies = [Reply(None, events=tuple(chat_stream(r.response))) for r in recordings]
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: replies}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        client = openai_client(proxy)
        texts = []
        for recording in recordings:
            with client.chat.completions.create(**recording.request, stream=True) as stream:
                texts.append("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
    assert texts[-1] == recordings[-1].response["choices"][0]["message"]["content"]
    (conversation,) = captured(capture).conversations
    rounds = conversation.trace.rounds
    assert len(rounds) == 4
    assert [c.name for c in rounds[0].tool_calls] == ["queryExpense", "queryTravelPolicy"]
    assert rounds[3].response.message.text == texts[-1]


def test_a_streamed_anthropic_call_is_recorded_assembled(tmp_path):
    (first, _) = recorded("order-status")
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({"/v1/messages": [Reply(None, events=tuple(anthropic_stream(first.response)))]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        client = anthropic.Anthropic(base_url=proxy.url, api_key=SENTINEL, max_retries=0)
        with client.messages.stream(**first.request) as stream:
            message = stream.get_final_message()
    assert [b.input for b in message.content] == [{"order_id": "A-48213"}, {"order_id": "A-48219"}]
    (conversation,) = captured(capture).conversations
    (round_,) = conversation.trace.rounds
    assert [c.arguments for c in round_.tool_calls] == [{"order_id": "A-48213"}, {"order_id": "A-48219"}]


def test_a_models_listing_passes_through_unrecorded(tmp_path):
    listing = {"object": "list", "data": [{"id": "gpt-test", "object": "model", "created": 0, "owned_by": "us"}]}
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({"/v1/models": [Reply(listing)]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        models = openai_client(proxy).models.list()
    assert [m.id for m in models.data] == ["gpt-test"]
    assert capture.read_text() == ""


# --- upstream failures: the client sees what it would have seen, the capture an error round ------


def _first_request():
    return recorded("hengxin")[0].request


def _error_of_direct_and_proxied(reply, tmp_path, **client_options):
    """The exception the SDK raises calling the upstream directly, and through the proxy."""
    seen = []
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [reply, reply]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        for base in (upstream.url, proxy.url):
            client = openai.OpenAI(base_url=base + "/v1", api_key=SENTINEL, max_retries=0, **client_options)
            with pytest.raises(openai.OpenAIError) as raised:
                client.chat.completions.create(**_first_request())
            seen.append(raised.value)
    return seen, capture


@pytest.mark.parametrize("status, kind", [(429, openai.RateLimitError), (500, openai.InternalServerError)])
def test_an_upstream_error_status_reaches_the_client_unchanged_and_is_an_error_round(tmp_path, status, kind):
    body = {"error": {"type": "rate_limit" if status == 429 else "server_error", "message": f"upstream says {status}"}}
    (direct, proxied), capture = _error_of_direct_and_proxied(Reply(body, status), tmp_path)
    assert type(direct) is type(proxied) is kind
    assert proxied.status_code == status and proxied.body == direct.body
    (conversation,) = captured(capture).conversations
    (round_,) = conversation.trace.rounds
    assert round_.error.status == status
    assert f"upstream says {status}" in round_.error.message


def test_an_upstream_that_answers_200_with_a_page_not_json_is_an_error_round_in_words(tmp_path):
    # The line was written with the page as its response and the reader skipped it: the Watch page said "1 line: 0
    # rounds in 0 conversations; 1 line skipped" and "No round captured yet".
    page = "<html><body>502 Bad Gateway</body></html>"
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [Reply(page, 200, content_type="text/html")] * 2}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        seen = [openai.OpenAI(base_url=base + "/v1", api_key=SENTINEL, max_retries=0)
                .chat.completions.with_raw_response.create(**_first_request()).http_response
                for base in (upstream.url, proxy.url)]
    assert [(r.status_code, r.text) for r in seen] == [(200, page)] * 2  # the client sees what it would have
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert round_.response is None and round_.error.status == 200
    assert round_.error.message == f"the upstream answered HTTP 200 with a body that is not a JSON object: {page}"


def test_a_slow_upstream_times_the_client_out_and_is_an_error_round(tmp_path):
    (direct, proxied), capture = _error_of_direct_and_proxied(Reply({}, delay_s=1.5), tmp_path, timeout=0.4)
    assert type(direct) is type(proxied) is openai.APITimeoutError
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert "closed the connection before the upstream answered" in round_.error.message


def test_a_stream_the_upstream_drops_is_dropped_for_the_client_and_is_an_error_round(tmp_path):
    events = tuple(chat_stream(recorded("hengxin")[-1].response))
    reply = Reply(None, events=events, drop_after=3)
    seen = []
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [reply, reply]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        for base in (upstream.url, proxy.url):
            client = openai.OpenAI(base_url=base + "/v1", api_key=SENTINEL, max_retries=0)
            with pytest.raises(openai.APIConnectionError) as raised:
                for _ in client.chat.completions.create(**_first_request(), stream=True):
                    pass
            seen.append(type(raised.value))
    assert seen[0] is seen[1]
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert "dropped mid-stream" in round_.error.message


def test_the_key_is_never_written_even_when_the_upstream_echoes_it(tmp_path):
    capture = tmp_path / "capture.jsonl"
    echo = Reply({}, 401, echo_credentials=True)
    with RecordedServer({CHAT: [echo]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        with pytest.raises(openai.AuthenticationError) as raised:
            openai_client(proxy).chat.completions.create(**_first_request())
    assert SENTINEL in str(raised.value)  # the client still sees exactly what the upstream said
    written = capture.read_text() + "\n".join(proxy.said)
    assert SENTINEL not in written and "[redacted]" in written
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert round_.error.status == 401


def test_a_responses_api_chain_through_the_proxy_is_captured_as_one_conversation(tmp_path):
    logged = [json.loads(line) for line in (FIXTURES / "openai-responses.jsonl").read_text().splitlines()[:3]]
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({"/v1/responses": [Reply(pair["response"]) for pair in logged]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        client = openai_client(proxy)
        answers = [client.responses.create(**pair["request"]) for pair in logged]
    assert [a.id for a in answers] == [pair["response"]["id"] for pair in logged]
    (conversation,) = captured(capture).conversations
    assert len(conversation.trace.rounds) == 3
    assert [c.name for c in conversation.trace.rounds[0].tool_calls] == ["get_weather", "get_local_time"]


def test_the_command_writes_no_key_to_its_capture_or_its_output(tmp_path):
    capture = tmp_path / "capture.jsonl"
    port = free_port()
    with RecordedServer({CHAT: [Reply({}, 401, echo_credentials=True)]}, recordings=recorded("hengxin")) as upstream:
        command = [sys.executable, "-m", "lib", "proxy", "--port", str(port), "--upstream", upstream.url,
                   "-o", str(capture)]
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proxy:
            try:
                _wait_for(port)
                # Some APIs take the key in the query string too: it must not reach any log either.
                client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=SENTINEL, max_retries=0,
                                       default_query={"key": SENTINEL})
                with pytest.raises(openai.AuthenticationError):
                    client.chat.completions.create(**_first_request())
                client.chat.completions.create(**_first_request())
            finally:
                proxy.terminate()
            said = proxy.stdout.read()
    assert "recorded openai call: HTTP 401" in said and "recorded openai call: HTTP 200" in said
    assert SENTINEL not in said
    assert SENTINEL not in capture.read_text()
    assert len(captured(capture).conversations[0].trace.rounds) >= 1


def test_the_command_given_a_file_elsewhere_says_the_watch_page_will_not_list_it(tmp_path):
    # docs/capture.md's example gave -o capture.jsonl: the proxy recorded there while the Watch page, which lists
    # data/captures/ only, said "No capture yet. Start the proxy".
    port = free_port()
    command = [sys.executable, "-m", "lib", "proxy", "--port", str(port), "--upstream", "http://127.0.0.1:9",
               "-o", str(tmp_path / "capture.jsonl")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proxy:
        try:
            _wait_for(port)
        finally:
            proxy.terminate()
        said = proxy.stdout.read()
    assert "The Watch page lists only" in said and "open this file on the Round explorer instead" in said


def _wait_for(port):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the proxy did not start")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20"])
def test_the_command_refuses_another_interface_without_allow_remote(host, capsys):
    assert cli.main(["proxy", "--host", host, "--port", "1"]) == 2
    assert "Add --allow-remote" in capsys.readouterr().err


def test_a_client_that_hangs_up_mid_stream_leaves_an_error_round(tmp_path):
    events = tuple(chat_stream(recorded("hengxin")[-1].response))
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [Reply(None, events=events, trickle_s=0.3)]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        stream = openai_client(proxy).chat.completions.create(**_first_request(), stream=True)
        next(iter(stream))
        stream.close()
        deadline = time.monotonic() + 10
        while not capture.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert "closed the connection mid-stream" in round_.error.message


def test_an_unreachable_upstream_is_a_502_in_words_and_an_error_round(tmp_path):
    capture = tmp_path / "capture.jsonl"
    with BackgroundProxy(f"http://127.0.0.1:{free_port()}", capture) as proxy:
        with pytest.raises(openai.InternalServerError) as raised:
            openai_client(proxy).chat.completions.create(**_first_request())
    assert raised.value.status_code == 502
    assert "could not be reached" in raised.value.body["message"]
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert "could not be reached" in round_.error.message


# --- bodies too large to hold: refused while they arrive ------------------------------------------

MIB = 1024 * 1024


def test_a_request_body_over_64_mib_is_refused_as_it_arrives_and_never_forwarded(tmp_path):
    import tracemalloc

    import httpx2

    def a_quarter_gib():  # sent chunk by chunk, without a length: only reading it tells its size
        for _ in range(256):
            yield b" " * MIB

    with RecordedServer({CHAT: [Reply({})]}) as upstream, BackgroundProxy(upstream.url, tmp_path / "c.jsonl") as proxy:
        tracemalloc.start()
        refused = httpx2.post(proxy.url + CHAT, content=a_quarter_gib(), timeout=30,
                              headers={"content-type": "application/json"})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert refused.status_code == 413
    assert refused.json()["error"]["message"] == ("the request body is larger than 64 MiB, the most the proxy holds "
                                                  "to record; it was not forwarded")
    assert upstream.received == []
    assert peak < 150 * MIB
    assert any("refused a POST /v1/chat/completions request" in line for line in proxy.said)


def test_a_response_body_over_64_mib_is_a_502_in_words_and_an_error_round(tmp_path):
    huge = Reply("x" * (65 * MIB), content_type="text/plain", declare_length=False)
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [huge]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        with pytest.raises(openai.InternalServerError) as raised:
            openai_client(proxy).chat.completions.create(**_first_request())
    assert raised.value.status_code == 502
    assert raised.value.body["message"] == "the upstream's response body is larger than 64 MiB, the most the proxy " \
                                           "holds to record"
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert "larger than 64 MiB" in round_.error.message


def test_a_stream_over_64_mib_is_dropped_for_the_client_at_the_limit_and_is_an_error_round(tmp_path):
    start_chunk = chat_stream(recorded("hengxin")[-1].response)[0]
    padding = "data: " + json.dumps({"padding": "x" * MIB}) + "\n\n"  # events a client skips, a megabyte each
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [Reply(None, events=(start_chunk,) + (padding,) * 70)]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        with pytest.raises(openai.APIConnectionError):
            for _ in openai_client(proxy).chat.completions.create(**_first_request(), stream=True):
                pass
    (round_,) = captured(capture).conversations[0].trace.rounds
    assert round_.error.message == ("the upstream's stream grew larger than 64 MiB, the most the proxy holds to "
                                    "record; it was dropped for the client there")


def test_the_command_says_a_dropped_stream_in_one_line_without_a_traceback(tmp_path):
    events = tuple(chat_stream(recorded("hengxin")[-1].response))
    capture = tmp_path / "capture.jsonl"
    port = free_port()
    with RecordedServer({CHAT: [Reply(None, events=events, drop_after=3)]}) as upstream:
        command = [sys.executable, "-m", "lib", "proxy", "--port", str(port), "--upstream", upstream.url,
                   "-o", str(capture)]
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proxy:
            try:
                _wait_for(port)
                with pytest.raises(openai.APIConnectionError):
                    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=SENTINEL, max_retries=0)
                    for _ in client.chat.completions.create(**_first_request(), stream=True):
                        pass
                time.sleep(0.5)  # what the server prints after the client saw the drop
            finally:
                proxy.terminate()
            said = proxy.stdout.read()
    assert "recorded openai call: no HTTP answer (the upstream connection dropped mid-stream after" in said
    assert "Traceback" not in said and "Exception in ASGI application" not in said, said


CROSS_SITE_FORM = {"content-type": "text/plain", "origin": "https://evil.example", "sec-fetch-site": "cross-site",
                   "sec-fetch-mode": "navigate"}
"""The headers Chromium sends when a page on the internet submits a form to the proxy on 127.0.0.1."""


@pytest.mark.parametrize("headers", [CROSS_SITE_FORM, {**CROSS_SITE_FORM, "origin": "null"},
                                     {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}],
                         ids=["named page", "opaque page", "navigation without an origin"])
def test_a_web_page_of_another_site_cannot_send_a_call_through_the_proxy_or_write_the_capture(tmp_path, headers):
    # Any page the operator opened could POST a form to 127.0.0.1:8700 (a form needs no CORS preflight): the proxy
    # forwarded it upstream and wrote it into the capture as one of the operator's own conversations.
    capture = tmp_path / "capture.jsonl"
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "injected by a web page"}]})
    with RecordedServer() as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        for path in (CHAT, "/v1/traces"):
            answer = httpx2.post(proxy.url + path, content=body, headers=headers)
            assert answer.status_code == 403
            assert answer.json()["error"]["type"] == "refused_web_page"
        said = list(proxy.said)
    assert upstream.received == []
    assert not capture.exists() or capture.read_text() == ""
    assert len(said) == 2 and all("sent by a web page" in line for line in said)


def test_a_page_served_from_this_machine_still_calls_through_the_proxy(tmp_path):
    capture = tmp_path / "capture.jsonl"
    reply = {"id": "c1", "object": "chat.completion", "model": "gpt-4o",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
    with RecordedServer(routes={CHAT: [Reply(reply)]}) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        answer = httpx2.post(proxy.url + CHAT, json={"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
                             headers={"origin": "http://localhost:3000", "sec-fetch-site": "cross-site"})
    assert answer.status_code == 200
    assert [r.path for r in upstream.received] == [CHAT]


def test_a_429_the_sdk_retried_through_the_proxy_is_one_round_with_its_tries_as_a_live_run_reads_it(tmp_path):
    # The openai SDK met a 429 in round 2 and sent the request again after its pause. The capture read as a failed
    # round 2 and its retry, round 3 (three rounds), where a live run of the same traffic reads two rounds, the second
    # with its tries.
    from lib.failures import TRIES, round_tries
    first, second = recorded("hengxin")[:2]
    busy = Reply({"error": {"type": "rate_limit", "message": "slow down"}}, 429, headers={"retry-after-ms": "10"})
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [Reply(first.response), busy, Reply(second.response)]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=2)
        for recording in (first, second):
            client.chat.completions.create(**recording.request)
    assert [r.headers["x-stainless-retry-count"] for r in upstream.received] == ["0", "0", "1"]
    (conversation,) = captured(capture).conversations
    one, two = conversation.trace.rounds
    assert (one.error, two.error, two.response.raw) == (None, None, second.response)
    assert round_tries(two) == ("This request was sent 2 times, unchanged: HTTP 429, then an answer. The round "
                                "shows the last try; the failed tries are kept with it.")
    (failed,) = two.extra[TRIES]
    assert (failed["status"], failed["message"], failed["timestamp"] is not None) == (429, "slow down", True)
    assert round_tries(one) is None
    # The try that failed is no provider error left standing: no finding tells the engineer to send it again.
    assert not [f for f in run_checks(conversation.trace) if f.code == "provider-error"]


def test_a_capture_whose_later_round_comes_first_does_not_say_its_retry_was_placed_by_the_order_of_the_lines(tmp_path):
    # Hengxin's four rounds through the proxy, round 2 refused with a 429 and sent again by the openai SDK: five lines.
    # With round 4's line first and the rest in order, the summary said a round "could go on from more than one
    # request ... and the lines are out of order: placed as the lines come": round 1, the refused try and its retry
    # were counted because round 4 was out of order, though those three lines were read in order, as a log in order
    # reads them (round 4 is placed by what it sends).
    first, *later = recorded("hengxin")
    busy = Reply({"error": {"type": "rate_limit", "message": "slow down"}}, 429, headers={"retry-after-ms": "10"})
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({CHAT: [Reply(first.response), busy, *(Reply(r.response) for r in later)]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=SENTINEL, max_retries=2)
        for recording in (first, *later):
            client.chat.completions.create(**recording.request)
    lines = capture.read_bytes().splitlines()
    in_order = ("5 lines: 4 rounds in 1 conversation; 1 round sent more than once (conversation 1, round 2: HTTP 429, "
                "then an answer); 0 lines skipped")
    assert read_upload([("capture.jsonl", b"\n".join(lines) + b"\n")]).summary() == in_order
    last_first = read_upload([("capture.jsonl", b"\n".join([lines[4], *lines[:4]]) + b"\n")])
    assert last_first.summary() == in_order
    # The retry and its refused try read before round 1: which came after which, only the order of the lines said.
    retry_first = read_upload([("capture.jsonl", b"\n".join([lines[1], lines[2], lines[0], *lines[3:]]) + b"\n")])
    assert retry_first.summary() == (
        "5 lines: 4 rounds in 1 conversation (1 round could go on from more than one request (a fork, or one request "
        "sent twice) and the lines are out of order: placed as the lines come); 1 round sent more than once "
        "(conversation 1, round 2: HTTP 429, then an answer); 0 lines skipped")


def test_the_headers_that_shape_a_call_are_kept_and_no_key_is(tmp_path):
    (first, _) = recorded("order-status")
    chat = recorded("hengxin")[0]
    capture = tmp_path / "capture.jsonl"
    replies = {"/v1/messages": [Reply(first.response)], CHAT: [Reply(chat.response)]}
    with RecordedServer(replies) as upstream, BackgroundProxy(upstream.url, capture) as proxy:
        claude = anthropic.Anthropic(base_url=proxy.url, api_key=SENTINEL, max_retries=0)
        claude.beta.messages.create(**first.request, betas=["token-efficient-tools-2025-02-19"],
                                    extra_headers={"x-stainless-helper": "compaction",
                                                   "x-gateway-api-key": SENTINEL, "cookie": f"s={SENTINEL}"})
        openai_client(proxy).chat.completions.create(
            **chat.request, extra_headers={"OpenAI-Beta": "assistants=v2", "x-stainless-helper-method": SENTINEL})
    written = capture.read_bytes()
    assert SENTINEL.encode() not in written
    assert b"cookie" not in written and b"x-gateway-api-key" not in written and b"authorization" not in written
    claude_line, chat_line = (json.loads(line) for line in written.splitlines())
    version = upstream.received[0].headers["anthropic-version"]  # the SDK's own
    assert claude_line["request_headers"] == {"anthropic-version": version,
                                              "anthropic-beta": "token-efficient-tools-2025-02-19",
                                              "x-stainless-helper": "compaction"}
    # The SDK's helper header held the key here: dropped, the rest kept.
    assert chat_line["request_headers"] == {"openai-beta": "assistants=v2"}
    # Every header still reached the upstream as the client sent it.
    assert upstream.received[0].headers["anthropic-beta"] == "token-efficient-tools-2025-02-19"
    assert upstream.received[0].headers["x-gateway-api-key"] == SENTINEL
