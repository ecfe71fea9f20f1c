"""Forks sent with the real OpenAI and Anthropic SDKs to a loopback server, run on, saved, and compared with their
parent."""

import json

import pytest

from lib import catalog
from lib.checks import run_checks
from lib.compare import Run, compare
from lib.dialects import ANTHROPIC
from lib.fork import ForkSetup, advance, in_dialect, request_body, start
from lib.fork_edits import with_results_emptied
from lib.live.providers import AnthropicProvider, OpenAIProvider
from lib.live.replay import recordings_from_trace
from lib.prices import DEFAULT_PRICES
from lib.summary import summarize
from lib.tokens import counter_for
from tests.conftest import load_bundled
from tests.recorded_server import RecordedServer, Reply

pytestmark = pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")

KEY = "sk-fork-SENTINEL-0001"


def _run(trace, name):
    return Run(name, trace, summarize(trace, counter_for("o200k_base").counter), run_checks(trace))


def _played(setup, provider, tmp_path):
    runner = start(setup, provider, tmp_path)
    status = advance(runner, setup.continuation)
    while status.state == "needs-approval":
        runner.approve(status.pending.id)
        status = advance(runner, setup.continuation)
    fork, problems = runner.trace.read()
    assert problems == []
    return status, fork, runner.trace.text()


def test_round_2_with_its_results_emptied_goes_through_the_openai_sdk_and_diverges_at_round_2(tmp_path):
    parent = load_bundled("hengxin-expense").trace
    body = with_results_emptied(request_body(parent, 2))
    invented = {"id": "x", "object": "chat.completion", "model": "DeepSeek-V4-Flash",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Your claim is within the standard."}}],
                "usage": {"prompt_tokens": 1200, "completion_tokens": 9, "total_tokens": 1209}}
    with RecordedServer(routes={"/v1/chat/completions": [Reply(invented)]}) as server:
        provider = OpenAIProvider(KEY, server.url + "/v1")
        status, fork, text = _played(ForkSetup(parent, "hengxin-expense", 2, body, "tools"), provider, tmp_path)
    assert server.received[0].body["messages"] == body["messages"]
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in text and status.outcome == "answered"
    assert fork.rounds[1].response.message.text == "Your claim is within the standard."
    found = compare(_run(parent, "parent"), _run(fork, "fork"), DEFAULT_PRICES)
    assert found.first_divergence == 2
    assert found.pairs[1].verdict.startswith("different results of queryExpense, queryTravelPolicy sent")
    assert "empty-tool-result" in found.pairs[1].findings_right


def test_the_hengxin_fork_sent_as_messages_runs_the_real_tools_through_the_anthropic_sdk(tmp_path):
    parent = load_bundled("hengxin-expense").trace
    body, _ = in_dialect(request_body(parent, 3), parent.dialect, ANTHROPIC)
    call = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "calcAmountOver",
                         "input": {"actual_amount": 3860.0, "limit_amount": 3800.0}}],
            "usage": {"input_tokens": 1500, "output_tokens": 40}}
    answer = {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
              "stop_reason": "end_turn", "content": [{"type": "text", "text": "60.00 yuan over."}],
              "usage": {"input_tokens": 1600, "output_tokens": 6}}
    with RecordedServer(routes={"/v1/messages": [Reply(call), Reply(answer)]}) as server:
        provider = AnthropicProvider(KEY, server.url)
        status, fork, text = _played(ForkSetup(parent, "hengxin-expense", 3, body, "tools"), provider, tmp_path)
    assert [r.path for r in server.received] == ["/v1/messages", "/v1/messages"]
    sent_results = server.received[1].body["messages"][-1]["content"]
    assert sent_results[0]["tool_use_id"] == "toolu_1"
    assert '"over_amount": 60.00' in sent_results[0]["content"]  # the program's own Decimal arithmetic
    assert KEY not in text and status.outcome == "answered" and fork.dialect == ANTHROPIC
    assert json.loads(text.splitlines()[0])["fork"]["parent"] == "hengxin-expense"
    assert compare(_run(parent, "parent"), _run(fork, "fork"), DEFAULT_PRICES).first_divergence == 3


def test_an_unedited_anthropic_round_replays_through_the_anthropic_sdk_and_says_the_same(tmp_path):
    name = "order-status-anthropic"
    parent = load_bundled(name).trace
    recorded = recordings_from_trace((catalog.TRACES_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines())
    with RecordedServer(recordings=recorded) as server:
        status, fork, text = _played(ForkSetup(parent, name, 2, request_body(parent, 2), "stop"),
                                     AnthropicProvider(KEY, server.url), tmp_path)
    assert [r.path for r in server.received] == ["/v1/messages"]
    assert json.loads(text.splitlines()[0])["fork"]["round"] == 2
    found = compare(_run(parent, "parent"), _run(fork, "fork"), DEFAULT_PRICES)
    assert [p.verdict for p in found.pairs] == ["same", "same"]


def _with_headers(trace, at: int, headers: dict):
    """The trace with round `at` keeping `headers`, as a capture's round does."""
    from dataclasses import replace
    from lib.model import REQUEST_HEADERS
    rounds = list(trace.rounds)
    rounds[at - 1] = replace(rounds[at - 1], extra={**rounds[at - 1].extra, REQUEST_HEADERS: headers})
    return replace(trace, rounds=tuple(rounds))


def test_an_edited_fork_resends_its_rounds_kept_headers_on_every_call_and_its_note_says_which_round_went_where(
        tmp_path):
    from lib.fork import resent_headers
    parent = _with_headers(load_bundled("hengxin-expense").trace, 2, {"openai-beta": "assistants=v2"})
    body = with_results_emptied(request_body(parent, 2))
    answer = {"id": "x", "object": "chat.completion", "model": "DeepSeek-V4-Flash",
              "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}],
              "usage": {"prompt_tokens": 1200, "completion_tokens": 2, "total_tokens": 1202}}
    with RecordedServer(routes={"/v1/chat/completions": [Reply(answer)]}) as server:
        provider = OpenAIProvider(KEY, server.url + "/v1", headers=resent_headers(parent, 2, parent.dialect))
        _, fork, text = _played(ForkSetup(parent, "hengxin-expense", 2, body, "tools"), provider, tmp_path)
    assert server.received[0].headers["openai-beta"] == "assistants=v2"
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"
    host = server.url.split("://")[1].rstrip("/")
    assert fork.provenance.note == (
        f"round 1 copied from hengxin-expense; round 2, edited, sent again to an OpenAI-compatible server at {host} "
        "with the request headers the parent's round 2 kept (openai-beta), and the rounds after it sent there too")
    assert json.loads(text.splitlines()[0])["fork"]["request_headers"] == {"openai-beta": "assistants=v2"}
    # The fork's own round says what it sent beside the body, as the captured one did.
    assert fork.rounds[1].request_headers == {"openai-beta": "assistants=v2"}
    # Sent as Messages, the OpenAI API's header means nothing there: not sent.
    assert resent_headers(parent, 2, ANTHROPIC) == {}
