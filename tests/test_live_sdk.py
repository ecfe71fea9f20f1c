"""The real openai and anthropic SDKs against a server of ours on 127.0.0.1 answering recorded responses.

No test here reaches the internet: every client is built with base_url pointing at the loopback
server, which stops itself if a test hangs.
"""

import json
import logging
import socket
import threading
import time

import pytest

from lib.checks import run_checks
from lib.live.launch import RunSetup, start
from lib.live.providers import CallLimits
from lib.live.runner import LoopOptions
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.live.scenarios import HENGXIN, LARKFIELD, LOAN, ORDER_STATUS
from tests.recorded_server import RecordedServer, Reply

# The bundled order-status trace names a model the SDK warns about; the warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")

SENTINEL = "sk-SENTINEL-123-do-not-leak"
CHAT = "/v1/chat/completions"


def recorded(name):
    return read_recordings(RECORDINGS_DIR / f"{name}.jsonl")


def run_to_end(runner):
    status = runner.run()
    while status.state == "needs-approval":
        runner.approve(status.pending.id)
        status = runner.run()
    return status


def openai_setup(scenario, server, **more):
    return RunSetup(scenario, "openai", base_url=server.url + "/v1", **more)


def setup_for(provider, scenario, server, **more):
    """A run against the loopback server in the provider's own dialect (OpenAI's paths start at /v1)."""
    return RunSetup(scenario, provider, base_url=server.url + ("/v1" if provider == "openai" else ""), **more)


def test_the_full_hengxin_run_through_the_openai_sdk(tmp_path):
    with RecordedServer(recordings=recorded("hengxin")) as server:
        runner = start(openai_setup(HENGXIN, server), "sk-test-key-0001", tmp_path)
        status = run_to_end(runner)
    assert status.outcome == "answered", status.message
    assert [r.path for r in server.received] == [CHAT] * 4
    assert server.received[0].headers["authorization"] == "Bearer sk-test-key-0001"
    trace, problems = runner.trace.read()
    assert problems == []
    assert [len(r.request.messages) for r in trace.rounds] == [2, 5, 7, 9]
    assert [c.name for c in trace.rounds[0].tool_calls] == ["queryExpense", "queryTravelPolicy"]
    assert [e.tool_call_id for e in trace.rounds[0].executions] == ["call_q1", "call_q2"]
    assert trace.rounds[3].response.stop == "end"
    assert "BC-20261020-0417" in trace.rounds[3].response.message.text
    # The trace holds each body exactly as the SDK put it on the wire.
    assert [r.request.raw for r in trace.rounds] == [r.body for r in server.received]
    assert trace.header["metadata"]["provider"] == "openai-compatible"


def test_an_anthropic_run_answers_two_tool_use_blocks_in_one_user_message(tmp_path):
    with RecordedServer(recordings=recorded("order-status")) as server:
        runner = start(RunSetup(ORDER_STATUS, "anthropic", base_url=server.url), "sk-ant-test-0001", tmp_path)
        status = run_to_end(runner)
    assert status.outcome == "answered", status.message
    assert [r.path for r in server.received] == ["/v1/messages"] * 2
    trace, _ = runner.trace.read()
    first, second = trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_order_status", {"order_id": "A-48213"}),
                                                                 ("get_order_status", {"order_id": "A-48219"})]
    (results,) = second.request.messages[2:]
    assert [p.call_id for p in results.tool_results] == [c.id for c in first.tool_calls]
    assert "A-48219 is still being processed" in second.response.message.text


def test_a_400_becomes_an_error_round_with_the_status_and_the_providers_words(tmp_path):
    words = "Function tools with reasoning_effort are not supported for chat-strong in /v1/chat/completions."
    refusal = Reply({"error": {"message": words, "type": "invalid_request_error", "param": "reasoning_effort"}}, 400)
    with RecordedServer({CHAT: [refusal]}) as server:
        runner = start(openai_setup(LARKFIELD, server), "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.outcome == "error" and words in status.message
    (round_,) = runner.trace.read()[0].rounds
    assert round_.error.status == 400 and round_.response is None
    assert round_.error.body["body"]["error"]["param"] == "reasoning_effort"
    assert round_.request.raw["reasoning_effort"] == "none"
    assert len(server.received) == 1  # a 400 is not retried


def test_a_429_that_succeeds_on_the_sdks_retry_is_one_answered_round(tmp_path):
    slow_down = Reply({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}, 429,
                      headers={"retry-after-ms": "20"})  # the SDK's own back-off, kept short
    with RecordedServer({CHAT: [slow_down]}, recordings=recorded("loan")) as server:
        runner = start(openai_setup(LOAN, server, max_retries=2), "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.outcome == "answered", status.message
    assert [r.headers["x-stainless-retry-count"] for r in server.received] == ["0", "1", "0"]
    trace, _ = runner.trace.read()
    assert [r.error for r in trace.rounds] == [None, None]
    assert trace.rounds[0].latency_ms >= 20


def test_a_429_that_outlasts_the_retries_is_an_error_round(tmp_path):
    slow_down = Reply({"error": {"message": "Rate limit reached"}}, 429, headers={"retry-after-ms": "10"})
    with RecordedServer({CHAT: [slow_down, slow_down]}) as server:
        runner = start(openai_setup(LOAN, server, max_retries=1), "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.outcome == "error"
    assert status.message == ("Round 1 failed: HTTP 429: Rate limit reached (the SDK sent the request 2 times: "
                              "HTTP 429, then HTTP 429)")
    assert len(server.received) == 2


def test_a_second_step_while_a_call_is_on_its_way_waits_for_it_and_sends_no_request_twice(tmp_path):
    # The Live page steps the run from its script thread; a click while the model answered started a second script
    # run whose step sent the same request again: the trace read rounds 1, 2, 3, 4, 3 and the last "sent 7 messages,
    # 0 of them new", each request billed twice.
    with RecordedServer(recordings=recorded("hengxin"), recorded_delay_s=0.5) as server:
        runner = start(openai_setup(HENGXIN, server), "sk-test-key-0001", tmp_path)
        first = threading.Thread(target=runner.step)
        first.start()
        time.sleep(0.2)  # round 1's request is on its way
        runner.step()  # the second script run's step
        first.join()
        status = run_to_end(runner)
    assert status.outcome == "answered", status.message
    assert len(server.received) == 4
    trace, problems = runner.trace.read()
    assert problems == []
    assert [(r.index, len(r.request.messages)) for r in trace.rounds] == [(1, 2), (2, 5), (3, 7), (4, 9)]


def test_stop_pressed_while_a_call_is_on_its_way_keeps_its_answer_and_sends_nothing_more(tmp_path):
    # Stop marked the round stopped at once, "no response to it was in the log", while the call went on: its answer
    # then overwrote the stop and the run went on to send round 3.
    with RecordedServer(recordings=recorded("hengxin"), recorded_delay_s=0.5) as server:
        runner = start(openai_setup(HENGXIN, server), "sk-test-key-0001", tmp_path)
        runner.step()  # round 1 and its two lookups
        second = threading.Thread(target=runner.step)
        second.start()
        time.sleep(0.2)  # round 2's request is on its way
        runner.stop()
        second.join()
        status = runner.step()  # the page steps again: nothing more goes out
    assert (status.outcome, status.message) == ("cancelled", "Stopped by you after round 2.")
    assert len(server.received) == 2
    trace, problems = runner.trace.read()
    assert problems == [] and len(trace.rounds) == 2
    assert [c.name for c in trace.rounds[1].tool_calls] == ["calcAmountOver"]  # the answer that came is kept
    assert trace.rounds[1].extra["stopped"]["by"] == "person"


def test_a_call_to_a_tool_the_run_does_not_offer_is_refused_and_not_called_a_write_tool(tmp_path):
    # A model called deleteEverything, which Hengxin does not offer; the program refused it, yet the round's checks
    # said "deleteEverything changes something: it is a write tool ... a person approves it", guessed from its name,
    # beside "Never run it".
    call = {"id": "call_x", "type": "function", "function": {"name": "deleteEverything", "arguments": '{"all": true}'}}
    invented = {"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [
        {"index": 0, "finish_reason": "tool_calls",
         "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}
    answer = {"id": "c2", "object": "chat.completion", "created": 2, "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "I cannot do that."}}]}
    with RecordedServer({CHAT: [Reply(invented), Reply(answer)]}) as server:
        runner = start(openai_setup(HENGXIN, server), "sk-test-key-0001", tmp_path)
        assert run_to_end(runner).outcome == "answered"
    trace, _ = runner.trace.read()
    (execution,) = trace.rounds[0].executions
    assert execution.ok is False and "No tool named 'deleteEverything' is available" in execution.output
    about = [(f.code, f.round) for f in run_checks(trace) if "deleteEverything" in f.message]
    assert about == [("unknown-tool", 1)]


def test_a_timeout_is_an_error_round_and_does_not_wait_for_the_slow_server(tmp_path):
    with RecordedServer({CHAT: [Reply({}, delay_s=5)]}) as server:
        runner = start(openai_setup(LOAN, server, timeout_s=0.3, max_retries=0), "sk-test-key-0001", tmp_path)
        started = time.perf_counter()
        status = runner.run()
        waited = time.perf_counter() - started
    # It said "no answer within the client's timeout, the SDK's retries included", naming neither.
    assert (status.outcome, status.message) == (
        "error", "Round 1 failed: The request timed out: no answer within 0.3 s per read, over 1 attempt (no retry).")
    assert waited < 3
    (round_,) = runner.trace.read()[0].rounds
    assert round_.error.status is None and round_.request.raw["model"] == "gpt-4o-mini"


def test_a_timeout_after_the_sdks_retries_says_how_long_each_attempt_waited_and_how_many_there_were(tmp_path):
    with RecordedServer({CHAT: [Reply({}, delay_s=5)] * 2}) as server:
        runner = start(openai_setup(LOAN, server, timeout_s=0.3, max_retries=1), "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.message.endswith("no answer within 0.3 s per read, over 2 attempts (the first and 1 retry).")
    assert len(server.received) == 2


def test_a_server_that_is_not_there_is_a_connection_error_round(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again before the call: nothing listens there
    setup = RunSetup(LOAN, "compatible", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0, timeout_s=2)
    status = start(setup, None, tmp_path).run()
    assert status.outcome == "error" and "Connection failed" in status.message


@pytest.mark.parametrize("provider, scenario, path",
                         [("openai", LOAN, CHAT), ("anthropic", ORDER_STATUS, "/v1/messages")])
def test_the_api_key_appears_nowhere_even_when_the_server_echoes_it(tmp_path, caplog, provider, scenario, path):
    caplog.set_level(logging.DEBUG)
    with RecordedServer({path: [Reply({}, 401, echo_credentials=True)]}) as server:
        runner = start(setup_for(provider, scenario, server, max_retries=0), SENTINEL, tmp_path)
        status = runner.run()
    assert SENTINEL in json.dumps(server.received[0].headers)  # the key was really sent...
    assert status.outcome == "error" and "HTTP 401" in status.message
    assert "[key hidden]" in status.message  # ...and the echo of it was caught
    written = runner.trace.path.read_text(encoding="utf-8")
    for where in (status.message, written, runner.trace.text(), caplog.text):
        assert SENTINEL not in where


def chat_answer(text):
    """A chat.completion that answers with the given text."""
    return {"object": "chat.completion", "model": "gpt-4o-mini", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


@pytest.mark.parametrize("provider, scenario, path",
                         [("openai", LOAN, CHAT), ("anthropic", ORDER_STATUS, "/v1/messages")])
def test_a_slow_loris_server_is_cut_off_at_the_calls_deadline(tmp_path, provider, scenario, path):
    # One byte every 50 ms: every read is well inside the 3 s timeout, so only a wall-clock deadline ends it.
    trickle = Reply(chat_answer("The monthly payment is 1,896.20."), trickle_s=0.05)
    with RecordedServer({path: [trickle]}) as server:
        setup = setup_for(provider, scenario, server, timeout_s=3, limits=CallLimits(deadline_s=1))
        runner = start(setup, "sk-test-key-0001", tmp_path)
        started = time.perf_counter()
        status = runner.run()
        waited = time.perf_counter() - started
    assert waited < 2
    assert status.outcome == "error"
    assert "passed its deadline of 1 s" in status.message
    (round_,) = runner.trace.read()[0].rounds
    assert round_.response is None and "deadline of 1 s" in round_.error.message
    assert len(server.received) == 1  # the SDK's retries would only spend the time the deadline bounds


def test_a_server_that_holds_back_its_answer_is_cut_off_at_the_deadline_not_after_each_retry(tmp_path):
    stall = Reply(chat_answer("late"), delay_s=5)
    with RecordedServer({CHAT: [stall]}) as server:
        setup = openai_setup(LOAN, server, timeout_s=30, max_retries=2, limits=CallLimits(deadline_s=1))
        runner = start(setup, "sk-test-key-0001", tmp_path)
        started = time.perf_counter()
        status = runner.run()
        waited = time.perf_counter() - started
    assert waited < 2
    assert "passed its deadline of 1 s" in status.message


@pytest.mark.parametrize("provider, scenario, path, declared",
                         [("openai", LOAN, CHAT, True), ("openai", LOAN, CHAT, False),
                          ("anthropic", ORDER_STATUS, "/v1/messages", False)])
def test_a_ten_megabyte_answer_is_refused_at_the_size_cap_and_the_trace_stays_small(tmp_path, provider, scenario,
                                                                                     path, declared):
    huge = Reply(chat_answer("A" * 10_000_000), declare_length=declared)
    with RecordedServer({path: [huge]}) as server:
        runner = start(setup_for(provider, scenario, server, max_retries=2), "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.outcome == "error"
    assert "passed the size cap of 2,000,000 bytes" in status.message
    assert runner.trace.path.stat().st_size < 20_000
    assert len(server.received) == 1


@pytest.mark.parametrize("cap, outcome", [(10_000, "answered"), (1_000, "error")])
def test_the_size_cap_is_set_per_run_and_an_answer_under_it_is_read_whole(tmp_path, cap, outcome):
    with RecordedServer({CHAT: [Reply(chat_answer("B" * 5_000))]}) as server:
        setup = openai_setup(LOAN, server, limits=CallLimits(max_response_bytes=cap),
                             loop=LoopOptions(narration_guard=False))
        runner = start(setup, "sk-test-key-0001", tmp_path)
        status = runner.run()
    assert status.outcome == outcome, status.message
    (round_,) = runner.trace.read()[0].rounds
    if outcome == "answered":
        assert round_.response.message.text == "B" * 5_000
    else:
        assert round_.error.message.startswith("The response passed the size cap of 1,000 bytes")


@pytest.mark.parametrize("provider, scenario, path",
                         [("openai", LOAN, CHAT), ("anthropic", ORDER_STATUS, "/v1/messages")])
@pytest.mark.parametrize("status", [307, 308])
def test_a_redirect_to_another_server_is_not_followed_with_the_key_or_the_conversation(
        tmp_path, provider, scenario, path, status):
    # The SDKs' HTTP client follows redirects and resends a 307/308's body: the whole conversation (system
    # prompt, tools, messages) would reach the address named, and its answer be taken for the model's.
    with RecordedServer() as elsewhere:
        moved = Reply({}, status, headers={"location": elsewhere.url + path})
        with RecordedServer({path: [moved]}) as server:
            status_ = start(setup_for(provider, scenario, server, max_retries=0), SENTINEL, tmp_path).run()
    assert elsewhere.received == []
    assert status_.outcome == "error"
    assert "redirect" in status_.message and elsewhere.url in status_.message


@pytest.mark.parametrize("provider, path", [("openai", CHAT), ("anthropic", "/v1/messages")])
def test_a_request_body_fields_named_like_sdk_options_go_in_the_body_never_into_headers_or_the_address(provider, path):
    """A forked or replayed body comes from a trace: `extra_headers` there must not set headers on a call made with
    the server's key (an organization to bill, a beta to turn on), nor `extra_query` its address."""
    from lib.live.providers import AnthropicProvider, OpenAIProvider
    answer = chat_answer("Noted.") if provider == "openai" else {
        "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "Noted."}], "usage": {"input_tokens": 5, "output_tokens": 2}}
    written = {"extra_headers": {"OpenAI-Organization": "org-someone-else", "anthropic-beta": "a-costly-beta"},
               "extra_query": {"api-version": "from-the-trace"}}
    body = {"model": "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-5", "max_tokens": 64,
            "messages": [{"role": "user", "content": "Hello?"}], **written}
    with RecordedServer({path: [Reply(answer)]}) as server:
        made = OpenAIProvider if provider == "openai" else AnthropicProvider
        exchange = made(SENTINEL, server.url + ("/v1" if provider == "openai" else ""), max_retries=0).send(body)
    received = server.received[0]
    assert exchange.error is None
    assert received.path == path
    assert not {"openai-organization", "anthropic-beta"} & set(received.headers)
    assert {k: received.body[k] for k in written} == written
    assert exchange.request == received.body


@pytest.mark.parametrize("provider, path", [("openai", CHAT), ("anthropic", "/v1/messages")])
def test_every_field_the_sdk_could_read_as_more_than_a_body_field_is_sent_as_written_and_sets_nothing_else(
        provider, path):
    """Whatever create() names beyond the fields it requires (anthropic's `workspace_id` and `user_profile_id`
    become headers, `stream` changes how the answer is read, `timeout` the wait), a body from a trace carries each
    as a body field, exactly as written, and nothing of it reaches the headers or the address."""
    import inspect

    import anthropic
    import openai

    from lib.live.providers import AnthropicProvider, OpenAIProvider
    client = openai.OpenAI(api_key="unused").chat.completions if provider == "openai" else \
        anthropic.Anthropic(api_key="unused").messages
    required = {"model", "messages"} | ({"max_tokens"} if provider == "anthropic" else set())
    named = set(inspect.signature(client.create).parameters) - required
    assert {"workspace_id", "user_profile_id"} <= named or provider == "openai"
    written = {name: f"from-the-trace-{name}" for name in sorted(named)}
    body = {"model": "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-5", "max_tokens": 64,
            "messages": [{"role": "user", "content": "Hello?"}], **written}
    answer = chat_answer("Noted.") if provider == "openai" else {
        "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "Noted."}], "usage": {"input_tokens": 5, "output_tokens": 2}}
    with RecordedServer({path: [Reply(answer)]}) as server:
        made = OpenAIProvider if provider == "openai" else AnthropicProvider
        exchange = made(SENTINEL, server.url + ("/v1" if provider == "openai" else ""), max_retries=0).send(body)
    (received,) = server.received
    assert received.path == path
    assert [h for h, value in received.headers.items() if "from-the-trace" in h + value] == []
    assert received.body == body
    assert exchange.error is None, exchange.error
    assert exchange.request == received.body


PUBLIC = "93.184.215.14"
"""A public address a rebinding name answers when it is checked."""


@pytest.mark.parametrize("provider, scenario, path",
                         [("openai", LOAN, CHAT), ("anthropic", ORDER_STATUS, "/v1/messages")])
def test_a_typed_name_that_rebinds_to_this_machine_after_the_check_never_reaches_it(
        tmp_path, monkeypatch, provider, scenario, path):
    """A typed base URL is checked on a shared server, and the call connects to the very address that passed: a DNS
    answer changed between the check and the connection (rebinding) does not send it to this machine."""
    real_lookup, asked, dialed = socket.getaddrinfo, [], []

    def rebinding_dns(host, port, *args, **kwargs):
        if host != "rebind.example":
            return real_lookup(host, port, *args, **kwargs)
        asked.append(host)
        address = PUBLIC if len(asked) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    real_connect = socket.socket.connect

    def no_internet(sock, address):
        dialed.append(address[0])
        if address[0] != "127.0.0.1":
            raise ConnectionRefusedError("no internet in tests")
        return real_connect(sock, address)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding_dns)
    monkeypatch.setattr(socket.socket, "connect", no_internet)
    with RecordedServer({path: [Reply({"error": {"message": "internal admin"}}, 418)]}) as inside:
        typed = inside.url.replace("127.0.0.1", "rebind.example") + ("/v1" if provider == "openai" else "")
        setup = RunSetup(scenario, provider, base_url=typed, max_retries=0, timeout_s=2, public_only=True)
        status = start(setup, "typed-key-0001", tmp_path).run()
        assert inside.received == []
    assert status.outcome == "error" and "Connection failed" in status.message
    assert "internal admin" not in status.message
    assert PUBLIC in dialed and "127.0.0.1" not in dialed
