"""Choosing "Read the file as" (or the CLI's --format) for a file of another shape: nothing is read as that format
that is not shaped as it, each line says what it lacks, and the summary says which rule failed."""

import json
import subprocess
import sys

import pytest

from lib.logs import FORMATS
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
    for forced in (None, "openai-chat", "cohere"):
        upload = _read("requests-only.jsonl", forced)
        assert upload.summary() == "2 lines: 2 rounds in 1 conversation; 0 lines skipped", forced
    # The first request holds nothing any chat API lacks; the second sends a call's arguments as a JSON string, which
    # Ollama's /api/chat never does: only the first is read as Ollama's.
    upload = _read("requests-only.jsonl", "ollama")
    assert upload.summary() == "2 lines: 1 round in 1 conversation; 1 line skipped"
    assert upload.formats == {
        "ollama": (2, "chosen by you: a request with 'messages' and 'model', shaped as any chat API's; refused as not "
                      "of its shape: 1 line")}
    assert [str(p) for p in upload.problems] == [
        "line 2: not read as Ollama /api/chat: a Chat Completions request: a call's arguments are a JSON string "
        "(/api/chat sends them as an object)"]


def _requests_alone(cassette):
    """The request bodies of a recorded cassette, one JSON line each: what a log that keeps only requests holds."""
    import yaml
    interactions = yaml.safe_load((FIXTURES / cassette).read_text())["interactions"]
    return "".join(json.dumps(json.loads(i["request"]["body"])) + "\n" for i in interactions).encode()


@pytest.mark.parametrize("forced, title, why", [
    ("ollama", "Ollama /api/chat", "'tool_choice' is one of its settings, which /api/chat takes under 'options' or "
                                   "not at all"),
    ("cohere", "Cohere v2 chat", "'n' is one of its settings, which Cohere's v2 chat does not take"),
])
def test_chat_completions_requests_alone_are_not_read_as_ollamas_or_coheres_when_those_are_chosen(forced, title, why):
    # ldp's five calls to gpt-4o with "n": 1, "temperature": 0.1 and "tool_choice": "required", their requests alone:
    # chosen as Ollama's or Cohere's, each was read as that API's request (5 rounds), though /api/chat takes its
    # settings under 'options' and Cohere's chat has neither 'n' nor a lower-case tool_choice.
    data = _requests_alone("containers/ldp-online-trainer-memories-added.yaml")
    assert read_upload([("ldp-requests.jsonl", data)]).rounds == 5
    upload = read_upload([("ldp-requests.jsonl", data)], forced)
    assert upload.rounds == 0
    assert [str(p) for p in upload.problems] == [
        f"line {n}: not read as {title}: a Chat Completions request: {why}" for n in range(1, 6)]


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
    # A rollout line has no response: said so, not "a response under 'response'".
    assert said == {"not read as Google Gemini generateContent: a request under 'payload' and no response, but it is "
                    "not its request (the request has no 'contents')"}


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


# Every bundled fixture forced under every format: a format reads only what its own rules take for its shape, and
# says of every other line which of its rules that line fails, on that line. Never a round rebuilt from another
# format's shape (a fine-tuning transcript read as ShareGPT, a Chat Completions error as an Ollama failure).

BUNDLED = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*")
                 if p.is_file() and p.name != "README.md" and "tools" not in p.relative_to(FIXTURES).parts)
"""Every fixture of every format, the containers' included (the recording tools and READMEs are no logs)."""

ALSO_READ = {
    # A request under 'body' that names its model and holds its turns: chosen, Chat Completions reads an OpenAI Batch
    # input's requests (its responses are inferred); Ollama and Cohere refuse them ('parallel_tool_calls' is neither's).
    ("openai-batch-input.jsonl", "openai-chat"): 4,
    # A request that holds nothing any of these chat APIs lacks is read as the one chosen, its rule saying it is shaped
    # as any chat API's; Ollama refuses the second, whose call's arguments are a JSON string. Cohere's v2 chat takes
    # both as they are.
    ("requests-only.jsonl", "ollama"): 1,
    ("requests-only.jsonl", "cohere"): 2,
    # A fine-tuning line that declares its tools is a Chat Completions request by that format's rule ('messages'
    # beside 'tools'); the line without them is refused.
    ("openai-finetune.jsonl", "openai-chat"): 2,
    # OpenHands' completion log is LiteLLM's 'messages' beside a 'response', a Chat Completions pair.
    ("openhands-completions.jsonl", "openai-chat"): 3,
    # An Inspect sample's 'messages' and a Roo Code history, without a 'model', are transcripts: the fine-tuning
    # reader's shape.
    ("containers/inspect-arithmetic-with-tool.eval", "openai-finetune"): 4,
    ("containers/inspect-images-tc.json", "openai-finetune"): 1,
    ("containers/inspect-popularity-azureai.eval", "openai-finetune"): 4,
    ("containers/inspect-system-prompt.json", "openai-finetune"): 2,
    ("containers/roo-code-api_conversation_history.json", "openai-finetune"): 3,
    # Groq's stream ends with an error event whose data is an OpenAI error body alone: Chat Completions reads that one
    # event as the failed call it reports, and refuses the chunks before it.
    ("containers/pyd-groq-stream-tool-use-failed.sse", "openai-chat"): 1,
    # A nock exchange of Anthropic's API keeps the request under 'body' and the answer under 'response': a Messages
    # pair as it stands.
    ("containers/anthropic-ts-tool-runner-compaction.json", "anthropic-messages"): 4,
    # DSPy's LM request names its model beside its 'messages': chosen, either chat API reads it as a request, its
    # messages' 'parts' (no 'content') left as the raw message shows them.
    ("containers/dspy-rlm-lm-request.json", "openai-chat"): 1,
    ("containers/dspy-rlm-lm-request.json", "anthropic-messages"): 1,
}
"""Fixtures a format other than the one detected reads, because they are its shape too, with the rounds it reads."""

TAKEN_THEN_REFUSED = {
    # Its rules take the line (a Converse request with a system list passes for a Messages one, an Ollama request for
    # a Chat Completions one, a Gemini CLI message for a Converse request), its reader then refuses what follows.
    ("bedrock-converse.jsonl", "anthropic-messages"), ("ollama-chat.jsonl", "openai-chat"),
    ("ollama-chat-cloud.jsonl", "openai-chat"), ("openai-chat-stream-with-request.jsonl", "openai-chat"),
    ("containers/gemini-cli-session.json", "bedrock-converse"),
    ("containers/oi-js-nock-bedrock-stream-tool.json", "bedrock-converse"),
    # The tool runner's summary request (no tools, a string turn) passes for a Chat Completions request; its answer,
    # a Messages body, does not.
    ("containers/anthropic-ts-tool-runner-compaction.json", "openai-chat"),
}
"""Fixtures whose lines a format's rules take but whose reader refuses them: no round, each line's problem named."""


def _detected(name):
    return set(_read(name, None).formats)


@pytest.mark.parametrize("forced", [f.name for f in FORMATS])
def test_every_fixture_forced_under_a_format_reads_as_its_shape_or_is_refused_line_by_line(forced):
    title = next(f.title for f in FORMATS if f.name == forced)
    wrong = {}
    for name in BUNDLED:
        if forced in _detected(name):
            continue
        upload = _read(name, forced)
        if (name, forced) in ALSO_READ:
            if upload.rounds != ALSO_READ[name, forced]:
                wrong[name] = f"read {upload.rounds} rounds, not {ALSO_READ[name, forced]}"
            continue
        if upload.rounds:
            wrong[name] = f"rebuilt {upload.rounds} rounds from another format's shape"
            continue
        if (name, forced) in TAKEN_THEN_REFUSED:
            if not upload.problems:
                wrong[name] = "read nothing and said nothing"
            continue
        refused = [p for p in upload.problems if p.message.startswith(f"not read as {title}: ")]
        tried = upload.formats.get(forced, (0, ""))
        if not refused or tried[1] != f"refused as not of its shape: {upload.counted(tried[0])}":
            wrong[name] = f"{tried}; problems: {[str(p) for p in upload.problems[:2]]}"
        elif any(f"(read as {title})" in p.message for p in refused):
            wrong[name] = "the format is named twice"
    assert wrong == {}


@pytest.mark.parametrize("name", [n for n in BUNDLED if n.rsplit(".", 1)[-1] in ("jsonl", "json", "yaml", "eval")])
def test_forcing_the_format_a_fixture_is_detected_as_reads_what_detection_reads(name):
    auto = _read(name, None)
    # A file whose lines are the format's but hold no model call (a cassette of token counts) counts them as not model
    # calls either way, and refuses none of them.
    if len(auto.formats) != 1 or "native" in auto.formats or not (auto.rounds or auto.not_calls):
        return
    [detected] = auto.formats
    forced = _read(name, detected)
    assert (forced.rounds, len(forced.conversations), forced.skipped_lines, forced.not_calls) == \
           (auto.rounds, len(auto.conversations), auto.skipped_lines, auto.not_calls)


def test_sharegpt_forced_on_fine_tuning_transcripts_says_per_line_why_they_are_not_sharegpt():
    upload = _read("openai-finetune.jsonl", "sharegpt")
    assert upload.summary() == "3 lines: 0 rounds in 0 conversations; 3 lines skipped"
    assert [str(p) for p in upload.problems] == [
        f"line {n}: not read as ShareGPT / Hermes transcript: none of its rules matches (it reads 'conversations' of "
        "'from'/'value' turns, or 'messages' whose assistant text holds '<tool_call>' (or an 'ipython' turn))"
        for n in (1, 2, 3)]
    assert upload.formats == {"sharegpt": (3, "refused as not of its shape: 3 lines")}


def test_a_json_array_of_chat_messages_refused_by_the_chosen_format_skips_all_its_elements_and_claims_no_reading():
    # mini-swe-agent writes its run as one JSON array of 22 messages: read as one transcript. Forced as ShareGPT, it
    # said "1 element skipped" of its 22, beside a note that it was "read as one conversation".
    name = "containers/mini-swe-agent-github-issue.traj.json"
    upload = _read(name, "sharegpt")
    assert upload.summary() == "22 elements: 0 rounds in 0 conversations; 22 elements skipped"
    assert not [n for n in upload.notes if "read as one conversation" in n.message]
    detected = _read(name, None)
    assert detected.summary() == "22 elements: 10 rounds in 1 conversation; 0 elements skipped"
    assert [n.message for n in detected.notes if "read as one conversation" in n.message] == [
        "the file is one JSON array of 22 chat messages: read as one conversation"]


def test_a_transcript_forced_as_a_provider_body_is_refused_as_a_transcript_not_a_request():
    for forced, title in (("ollama", "Ollama /api/chat"), ("cohere", "Cohere v2 chat"),
                          ("anthropic-messages", "Anthropic Messages")):
        upload = _read("tau-bench-airline-cut.jsonl", forced)
        assert upload.rounds == 0, forced
        assert [str(p) for p in upload.problems] == [
            f"line 1: not read as {title}: 'messages' without a 'model': a transcript, not a request"]


def test_a_chat_completions_error_loads_as_a_failed_round_only_as_chat_completions():
    assert _read("openai-error.jsonl", "openai-chat").rounds == 2
    for forced in ("ollama", "cohere", "anthropic-messages", "gemini", "bedrock-converse"):
        upload = _read("openai-error.jsonl", forced)
        assert upload.rounds == 0, forced
        assert all(p.message.startswith("not read as ") for p in upload.problems), forced
    said = {p.message for p in _read("openai-error.jsonl", "ollama").problems}
    assert said == {"not read as Ollama /api/chat: a request under 'request' and a response under 'response', but the "
                    "response is neither its response nor its error body"}


def test_an_error_body_alone_loads_only_under_the_provider_whose_error_it_is():
    ollama = b'{"error": "model \'llama9\' not found"}\n'
    openai = b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}\n'
    anthropic = b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n'
    for body, owner in ((ollama, "ollama"), (openai, "openai-chat"), (anthropic, "anthropic-messages")):
        for forced in ("ollama", "openai-chat", "anthropic-messages", "cohere"):
            upload = read_upload([("error.jsonl", body)], forced)
            assert upload.rounds == (forced == owner), (owner, forced)
    [problem] = read_upload([("error.jsonl", openai)], "ollama").problems
    assert str(problem) == "line 1: not read as Ollama /api/chat: neither its request nor its response (no " \
                           "'messages' or 'message')"


def test_a_claude_code_session_log_forced_as_stream_json_reads_none_of_its_lines_and_says_why():
    for forced, title in (("claude-stream-json", "Claude Code stream-json output"),
                          ("amp-stream-json", "Amp stream-json output")):
        upload = _read("claude-code-session.jsonl", forced)
        assert upload.summary() == "12 lines: 0 rounds in 0 conversations; 12 lines skipped", forced
        said = {p.message for p in upload.problems if "sessionId" in p.message}
        assert said == {f"not read as {title}: its 'sessionId' (camel case) is a Claude Code session log's; "
                        "stream-json output names the session 'session_id'"}
    upload = _read("claude-stream-json-read.jsonl", "claude-code")
    assert upload.rounds == 0
    assert "line 2: not read as Claude Code session log: its 'session_id' (snake case) is stream-json output's " \
           "(Claude Code's -p mode, the Agent SDK, Amp); a session log names the session 'sessionId'" \
           in [str(p) for p in upload.problems]
