"""Choosing "Read the file as" (or the CLI's --format) for a file of another shape: nothing is read as that format
that is not shaped as it, each line says what it lacks, and the summary says which rule failed."""

import json
import subprocess
import sys

import pytest

from lib.logs.upload import read_upload
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
HTTPRR = "containers/langchaingo-openai-agent-args-rewritten.httprr"


def _read(name, forced):
    return read_upload([(name.rsplit("/", 1)[-1], (FIXTURES / name).read_bytes())], forced)


def test_an_httprr_trace_forced_as_chat_completions_reads_no_round_and_names_what_each_exchange_lacks():
    upload = _read(HTTPRR, "openai-chat")
    assert upload.rounds == 0
    assert upload.summary() == "2 exchanges: 0 rounds in 0 conversations; 2 exchanges skipped"
    said = [upload.said(p) for p in upload.problems]
    assert said == ["exchange 1: not read as OpenAI Chat Completions: neither its request nor its response "
                    "(no 'messages' or 'choices')",
                    "exchange 2: not read as OpenAI Chat Completions: neither its request nor its response "
                    "(no 'messages' or 'choices')"]
    assert not any("the request was not in the log" in s for s in said)


def test_an_object_without_request_or_response_keys_forced_as_messages_is_a_problem_on_its_line():
    lines = b'{"event": "deploy", "ok": true}\n{"user": "ada", "text": "hello"}\n{"event": "done"}\n'
    upload = read_upload([("events.jsonl", lines)], "anthropic-messages")
    assert upload.rounds == 0
    assert "line 3: not read as Anthropic Messages: neither its request nor its response (no 'messages' or " \
           "'content')" in [str(p) for p in upload.problems]


def test_requests_logged_alone_still_load_when_the_format_is_chosen():
    for forced in (None, "openai-chat", "ollama", "cohere"):
        upload = _read("requests-only.jsonl", forced)
        assert upload.summary() == "2 lines: 2 rounds in 1 conversation; 0 lines skipped", forced
    assert _read("requests-only.jsonl", "ollama").formats == {
        "ollama": (2, "chosen by you: a request with 'messages' and 'model', shaped as any chat API's")}


def test_chat_completions_requests_forced_as_messages_are_refused_for_their_function_tools():
    upload = _read("requests-only.jsonl", "anthropic-messages")
    assert upload.rounds == 0
    assert [str(p) for p in upload.problems] == [
        f"line {n}: not read as Anthropic Messages: a Chat Completions request: its tools are declared as 'function's"
        for n in (1, 2)]


def test_a_codex_rollout_forced_as_gemini_names_the_missing_contents_not_a_round_per_line():
    upload = _read("codex-rollout-0.125.jsonl", "gemini")
    assert upload.rounds == 0
    said = {p.message for p in upload.problems}
    assert said == {"not read as Google Gemini generateContent: a request under 'payload' and a response under "
                    "'response', but neither is its body (the request has no 'contents')"}


def test_whole_chat_completions_responses_forced_as_a_stream_are_not_read_as_chunks():
    upload = _read("bare-responses.jsonl", "openai-chat-stream")
    assert upload.rounds == 0
    assert "line 1: not read as OpenAI Chat Completions stream: a whole Chat Completions response " \
           "(choices[].message, no delta), not a chunk" in [str(p) for p in upload.problems]


WRONG_SHAPES = ["containers/langchaingo-openai-agent-args-rewritten.httprr", "openai-responses.jsonl",
                "otel-genai.jsonl", "claude-code-session.jsonl", "langsmith-runs.jsonl", "codex-rollout-0.125.jsonl",
                "openai-chat-stream.jsonl", "anthropic-batch-requests.jsonl", "containers/adk-session-function-call.json",
                "sharegpt-hermes.jsonl"]
"""Files of shapes none of the body readers below reads: forcing one of those readers must load no round."""


@pytest.mark.parametrize("forced", ["openai-chat", "anthropic-messages", "gemini", "bedrock-converse", "ollama",
                                    "cohere"])
def test_a_body_reader_forced_on_a_file_of_another_shape_loads_no_round(forced):
    loaded = {name: rounds for name in WRONG_SHAPES if (rounds := _read(name, forced).rounds)}
    assert loaded == {}


def test_the_cli_summary_of_a_wrongly_forced_file_says_what_each_exchange_lacks():
    done = subprocess.run([sys.executable, "-m", "lib", "summarize", str(FIXTURES / HTTPRR), "--format", "openai-chat",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    summary = json.loads(done.stdout)
    assert summary["conversations"] == []
    assert summary["summary"] == "2 exchanges: 0 rounds in 0 conversations; 2 exchanges skipped"
    assert {"line": 2, "error": "not read as OpenAI Chat Completions: neither its request nor its response "
                                "(no 'messages' or 'choices')"} in summary["problems"]
    assert summary["formats"] == {"openai-chat": {"lines": 2, "rule": "refused as not of its shape: 2 exchanges"}}


def test_the_sidebar_shows_no_round_for_an_httprr_trace_read_as_chat_completions(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("agent.httprr", (FIXTURES / HTTPRR).read_bytes())
    at.run()
    at.selectbox(key="sidebar.format").set_value("openai-chat").run()
    assert not at.exception
    sidebar = [t.value for t in at.sidebar.text]
    assert sidebar[0] == "2 exchanges: 0 rounds in 0 conversations; 2 exchanges skipped"
    shown = " ".join(sidebar)
    assert "exchange 2: not read as OpenAI Chat Completions: neither its request nor its response (no 'messages' or " \
           "'choices')" in shown
    assert "the request was not in the log" not in shown + " ".join(t.value for t in at.main.text)

