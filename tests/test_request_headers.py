"""The request headers that shape a call (`anthropic-beta`, `anthropic-version`, `OpenAI-Beta`, `x-stainless-helper`)
reach the round from every log that keeps them: the recording proxy's capture lines, a HAR, an HTTP cassette. Only those
on the allow-list (lib.model.KEPT_HEADERS), never a key, whatever the file holds; a log that keeps no headers gives
none, so nothing is claimed about them."""

from __future__ import annotations

import json

import openai

from lib.capture.background import BackgroundProxy
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.logs.upload import read_upload
from tests.recorded_server import RecordedServer, Reply
from tests.screen import FIXTURES

KEY = "sk-ant-api03-LEAKED-in-a-hand-written-log"


def _rounds(name: str, data: bytes):
    upload = read_upload([(name, data)])
    assert not upload.problems
    return [r for c in upload.conversations for r in c.trace.rounds]


def test_a_har_and_a_cassette_give_their_rounds_the_headers_that_shaped_the_calls():
    har = _rounds("h.har", (FIXTURES / "containers/mirascope-anthropic-unmarked-as-string.har").read_bytes())
    assert [r.request_headers for r in har] == [{"anthropic-version": "2023-06-01"}] * 3
    cassette = _rounds("c.json", (FIXTURES / "containers/anthropic-py-tool-runner-compaction-summary.json").read_bytes())
    assert cassette[0].request_headers == {"anthropic-version": "2023-06-01",
                                           "anthropic-beta": "structured-outputs-2025-12-15",
                                           "x-stainless-helper": "BetaToolRunner"}
    assert cassette[1].request_headers == {"anthropic-version": "2023-06-01", "x-stainless-helper": "compaction"}


def test_a_pairs_line_gives_only_the_allow_listed_headers_and_never_a_key():
    first = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[0]
    line = {"request": first.request, "response": first.response,
            "request_headers": {"OpenAI-Beta": "assistants=v2", "Authorization": f"Bearer {KEY}", "x-api-key": KEY,
                                "anthropic-beta": KEY, "x-stainless-helper": "a\r\nx-api-key: smuggled"}}
    (round_,) = _rounds("p.jsonl", json.dumps(line).encode())
    assert round_.request_headers == {"openai-beta": "assistants=v2"}
    assert KEY not in json.dumps(round_.extra)


def test_a_log_that_keeps_no_headers_claims_none():
    first = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")[0]
    (round_,) = _rounds("p.jsonl", json.dumps({"request": first.request, "response": first.response}).encode())
    assert round_.request_headers is None


def test_a_responses_call_captured_through_the_proxy_carries_its_beta_header_to_its_round(tmp_path):
    logged = [json.loads(line) for line in (FIXTURES / "openai-responses.jsonl").read_text().splitlines()[:2]]
    capture = tmp_path / "capture.jsonl"
    with RecordedServer({"/v1/responses": [Reply(pair["response"]) for pair in logged]}) as upstream, \
            BackgroundProxy(upstream.url, capture) as proxy:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key=KEY, max_retries=0)
        client.responses.create(**logged[0]["request"], extra_headers={"OpenAI-Beta": "responses=v1"})
        client.responses.create(**logged[1]["request"])
    assert KEY.encode() not in capture.read_bytes()
    assert [r.request_headers for r in _rounds("capture.jsonl", capture.read_bytes())] == [{"openai-beta": "responses=v1"},
                                                                                          {}]
