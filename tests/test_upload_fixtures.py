"""Every required log format, read end to end from a fixture (recorded where tests/fixtures/README.md says, else written from its documented shape).

Each row: the fixture file(s), the format(s) detected, the summary a user reads, each rebuilt
conversation's messages per request, and the tool calls found in all.
"""

from pathlib import Path

import pytest

from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED = [
    (('anthropic-pairs.jsonl',), ['anthropic-messages'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'ticket-7': [1, 3]}, 2),
    (('anthropic-stream.sse',), ['anthropic-stream'], '30 lines: 1 round in 1 conversation; 0 lines skipped', {'conversation 1': [0]}, 2),
    (('openai-chat-stream.sse',), ['openai-chat-stream'], '30 lines: 1 round in 1 conversation; 0 lines skipped', {'conversation 1': [0]}, 1),
    (('anthropic-stream.jsonl',), ['anthropic-stream'], '26 lines: 3 rounds in 3 conversations; 0 lines skipped', {'conversation 1': [0], 'conversation 2': [0], 'conversation 3': [0]}, 3),
    (('bedrock-converse.jsonl',), ['bedrock-converse'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [1, 3]}, 2),
    (('bare-responses.jsonl',), ['openai-chat'], '2 lines: 2 rounds in 2 conversations; 0 lines skipped', {'conversation 1': [0], 'conversation 2': [0]}, 2),
    (('gemini.jsonl',), ['gemini'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [2, 6]}, 4),
    (('gemini-stream.jsonl',), ['gemini'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [1, 3]}, 1),
    (('litellm.jsonl',), ['openai-chat'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'sess-42': [2, 5]}, 2),
    (('openai-chat-stream.jsonl',), ['openai-chat-stream'], '17 lines: 3 rounds in 3 conversations; 0 lines skipped', {'conversation 1': [0], 'conversation 2': [0], 'conversation 3': [0]}, 3),
    (('openai-error.jsonl',), ['openai-chat'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [2, 4]}, 2),
    (('openai-chat-stream-with-request.jsonl',), ['recorded-stream'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [1, 3]}, 1),
    (('openai-compatible-tool-use-failed.jsonl',), ['openai-chat'], '3 lines: 3 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [2, 4, 6]}, 1),
    (('openai-finetune.jsonl',), ['openai-finetune'], '3 lines: 6 rounds in 3 conversations; 0 lines skipped', {'line 1': [2, 5], 'line 2': [2], 'line 3': [1, 3, 5]}, 3),
    (('openai-pairs.jsonl',), ['openai-chat'], '4 lines: 4 rounds in 2 conversations; 0 lines skipped', {'conversation 1': [2, 5], 'conversation 2': [2, 4]}, 3),
    (('openai-responses.jsonl',), ['openai-responses'], '6 lines: 5 rounds in 2 conversations; 0 lines skipped', {'resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5': [2, 5, 7, 9], 'resp_68b1c4a5b6c7d8e9f0a1b2c3d4e5f6a7': [0]}, 2),
    (('openai-responses-conversation.jsonl',), ['openai-responses'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conv_010000000000000000000000000000000000000000000000': [2, 4]}, 1),
    (('openai-responses-resent.jsonl',), ['openai-responses'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'resp_67e52d90176c819180bd8b6823aff4c7093f95c20016a37e': [1, 3]}, 1),
    (('openinference.jsonl',), ['spans'], '5 lines: 2 rounds in 1 conversation; 3 lines not model calls; 0 lines skipped', {'7e3a1f0c9b8d2e4f6a5b3c1d0e9f8a7b': [2, 5]}, 2),
    (('otel-genai-legacy.jsonl',), ['spans'], '3 lines: 2 rounds in 1 conversation; 1 line not a model call; 0 lines skipped', {'5b8efff798038103d269b633813fc60c': [2, 5]}, 2),
    (('otel-genai.jsonl',), ['spans'], '6 lines: 3 rounds in 2 conversations; 3 lines not model calls; 0 lines skipped', {'4bf92f3577b34da6a3ce929d0e0e4736': [2, 5], '9a8b7c6d5e4f30211203f4e5d6c7b8a9': [1]}, 2),
    (('otlp-resource-spans.jsonl',), ['spans'], '1 line: 3 rounds in 1 conversation; 2 spans not model calls; 0 lines skipped', {'2f8e4c6a0b1d3e5f7a9c8b6d4e2f0a1c': [1, 3, 5]}, 2),
    (('otlp-span-per-call.jsonl',), ['spans'], '1 line: 2 rounds in 1 conversation; 1 span not a model call; 0 lines skipped', {'ceff934c4064b1e67267f62c3ce8b370': [2, 4]}, 1),
    (('otlp-span-per-call-no-content.jsonl',), ['spans'], '1 line: 2 rounds in 2 conversations; 1 span not a model call; 0 lines skipped', {'03bc5514d8aa6d7d568eaa76afb333b9': [0], '43e09334a2dca25f5654e3198343348f': [0]}, 0),
    (('otlp-span-per-call-openinference.jsonl',), ['spans'], '1 line: 2 rounds in 1 conversation; 1 span not a model call; 0 lines skipped', {'22a238409d331b243e7514285f26de46': [2, 4]}, 1),
    (('otlp-span-per-call-openinference-hidden.jsonl',), ['spans'], '1 line: 2 rounds in 2 conversations; 1 span not a model call; 0 lines skipped', {'852a74636efb8a1f6dffe44639fb7dde': [0], '6eeba3028dde6ca3418546a824766648': [0]}, 0),
    (('otlp-vercel-ai-sdk.jsonl',), ['spans'], '1 line: 2 rounds in 1 conversation; 2 spans not model calls; 0 lines skipped', {'849b2198dcb60ea2cccd2129e578d9ea': [2, 4]}, 1),
    (('otlp-vercel-ai-sdk-v6.jsonl',), ['spans'], '1 line: 4 rounds in 4 conversations; 6 spans not model calls; 0 lines skipped', {'b3e700af9eab81e19f72f964d62a35af': [1], 'edff2fc5854be6170e8cccccec0c82cf': [4], '8f60802815d6e97da2dbc4708a8e5c7b': [1], '478d4dcc697ecfabc5e7a3d6e4216291': [1]}, 0),
    (('requests-only.jsonl',), ['openai-chat'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [2, 5]}, 2),
    (('tau-bench-airline-cut.jsonl',), ['openai-finetune'], '1 line: 6 rounds in 1 conversation; 0 lines skipped', {'line 1': [2, 4, 6, 8, 10, 12]}, 3),
    (('openai-compatible-empty-call-id.jsonl',), ['openai-chat'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [1, 3]}, 1),
    (('ollama-chat.jsonl',), ['ollama'], '2 lines: 2 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [1, 3]}, 1),
    (('ollama-chat-cloud.jsonl',), ['ollama'], '3 lines: 3 rounds in 2 conversations; 0 lines skipped', {'conversation 1': [1, 3], 'conversation 2': [1]}, 1),
    (('sharegpt-glaive.jsonl',), ['sharegpt'], '1 line: 6 rounds in 1 conversation; 0 lines skipped', {'line 1': [1, 3, 5, 7, 9, 11]}, 3),
    (('sharegpt-hermes.jsonl',), ['sharegpt'], '1 line: 2 rounds in 1 conversation; 0 lines skipped', {'line 1': [2, 5]}, 2),
    (('sharegpt-hermes-agent.jsonl',), ['sharegpt'], '2 lines: 7 rounds in 2 conversations; 0 lines skipped', {'line 1': [2, 4, 6], 'line 2': [2, 3, 4, 5]}, 5),
    (('claude-code-session.jsonl',), ['claude-code'], '12 lines: 6 rounds in 1 conversation; 1 line not a model call; 0 lines skipped', {'session test_session': [1, 3, 5, 7, 9, 11]}, 2),
    (('claude-code-edge-cases.jsonl',), ['claude-code'], '19 lines: 5 rounds in 2 conversations; 1 line not a model call; 7 lines skipped', {'session edge_cases': [1, 3, 5, 7], 'session todowrite_session': [0]}, 3),
    (('claude-code-sidechain.jsonl',), ['claude-code'], '6 lines: 3 rounds in 2 conversations; 0 lines skipped', {'session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358': [0, 2], 'session 88a8d761-7b9a-4bf1-a8ca-c1febe6bf358, subagent run 1': [0]}, 2),
    (('claude-code-transcripts-sample.jsonl',), ['claude-code'], '8 lines: 3 rounds in 1 conversation; 1 line not a model call; 0 lines skipped', {'session test-session-id': [1, 3, 5]}, 2),
    (('claude-code-2.1.233.jsonl',), ['claude-code'], '11 lines: 2 rounds in 1 conversation; 4 lines not model calls; 0 lines skipped', {'session 9c42ba52-3bf1-449f-a040-8ee33284a1c8': [1, 3]}, 1),
    (('codex-rollout-0.125.jsonl',), ['codex-rollout'], '19 lines: 3 rounds in 1 conversation; 10 lines not model calls; 0 lines skipped', {'session 019e1625-789d-76c0-80ab-3724b5ddb799': [4, 6, 8]}, 2),
    # Gemini CLI's JSON-lines recording: each answer written twice (before and after its calls ran), $set lines.
    (('gemini-cli-session.jsonl',), ['gemini-cli-session'], '28 lines: 6 rounds in 1 conversation; 14 lines not model calls; 0 lines skipped', {'session 0ab84937-9fe7-4284-986a-33c832af0b6a': [1, 7, 11, 13, 16, 18]}, 12),
    # A Goose session file: a metadata line (the session's token counts), then a message a line; it ends on a result.
    # OpenCode's run --format json output: two steps (a bash call, then the answer), the prompt not printed.
    (('opencode-run-json.jsonl',), ['opencode-run-json'], '5 lines: 2 rounds in 1 conversation; 0 lines skipped', {'session ses_494719016ffe85dkDMj0FPRbHK': [0, 2]}, 1),
    # LangSmith runs as list_runs() writes them out (run.json() a line): a LangGraph agent's trace (LangChain's
    # serialized messages, its tools under invocation_params) and one in plain messages without a tool list.
    (('langsmith-runs.jsonl',), ['langsmith'], '12 lines: 4 rounds in 2 conversations; 8 lines not model calls; 0 lines skipped', {'LangGraph · trace 1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01': [2, 4], 'support_agent · trace 1f0a9c31-02aa-6c7e-b4d1-55e0c3a9d200': [1, 4]}, 3),
    (('goose-session.jsonl',), ['goose-session'], '4 lines: 1 round in 1 conversation; 1 line not a model call; 0 lines skipped', {'session Debug memory leak in worker process': [1]}, 1),
    (('claude-stream-json-read.jsonl',), ['claude-stream-json'], '10 lines: 2 rounds in 1 conversation; 5 lines not model calls; 0 lines skipped', {'session 4cda4f2a-2a49-499b-af37-c6f4739bd0c7': [0, 2]}, 1),
    (('claude-stream-json-sample.jsonl',), ['claude-stream-json'], '10 lines: 2 rounds in 1 conversation; 5 lines not model calls; 0 lines skipped', {'session aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa': [1, 3]}, 2),
    (('containers/roo-code-api_conversation_history.json', 'containers/roo-code-ui_messages.json'), ['cline-task'], '24 elements: 3 rounds in 1 conversation; 18 elements not model calls; 0 elements skipped', {'Cline / Roo Code task: PHASE 1 : Diagnostic Système Interface-First - Stratégie An…': [1, 3, 5]}, 3),
    (('amp-stream-json-success.jsonl',), ['amp-stream-json'], '5 lines: 2 rounds in 1 conversation; 2 lines not model calls; 0 lines skipped', {'session T-2775dc92-90ed-4f85-8b73-8f9766029e83': [0, 2]}, 1),
    (('amp-stream-json-error.jsonl',), ['amp-stream-json'], '2 lines: 0 rounds in 0 conversations; 2 lines not model calls; 0 lines skipped', {}, 0),
    # OpenHands: completion logs (one call a line, chained by content), an evaluation output line's event history, an
    # older resolver output whose events keep no model response (no model call: a note names the setting that writes them).
    (('openhands-completions.jsonl',), ['openhands-completions'], '3 lines: 3 rounds in 1 conversation; 0 lines skipped', {'conversation 1': [2, 4, 6]}, 3),
    (('openhands-output.jsonl',), ['openhands-trajectory'], '1 line: 6 rounds in 1 conversation; 0 lines skipped', {'instance ponylang__ponyc-4595': [2, 4, 6, 8, 10, 12]}, 6),
    (('openhands-resolver-output.jsonl',), ['openhands-trajectory'], '1 line: 0 rounds in 0 conversations; 1 line not a model call; 0 lines skipped', {}, 0),
    (('openhands-trajectory.json',), ['openhands-trajectory'], '15 elements: 6 rounds in 1 conversation; 0 elements skipped', {'OpenHands trajectory': [2, 4, 6, 8, 10, 12]}, 6),
    # MLflow traces: a Databricks agent's trace (get_trace().to_json(): an AGENT span around the OpenAI call), and a
    # pyfunc ChatModel's trace data ({"spans"}, MLflow 2's span shape).
    (('mlflow-databricks-agent-openai.json',), ['mlflow'], '1 document: 1 round in 1 conversation; 0 documents skipped', {'predict (<redacted>)': [2]}, 0),
    (('mlflow-bedrock-chat-model.json',), ['mlflow'], '1 document: 1 round in 1 conversation; 0 documents skipped', {'bedrock-agent (7c1e04a9d2b84f0e9a3b65d1c0f2e871)': [1]}, 0),
    (('openai-batch-input.jsonl', 'openai-batch-output.jsonl'), ['openai-batch'], '8 lines: 5 rounds in 4 conversations; 0 lines skipped', {'trip-17-round-1': [2, 5], 'trip-18-missing-result': [4], 'trip-19-never-ran': [1], 'trip-20-expired': [0]}, 2),
    (('anthropic-batch-requests.jsonl', 'anthropic-batch-results.jsonl'), ['anthropic-batch'], '11 lines: 6 rounds in 5 conversations; 0 lines skipped', {'ticket-8': [3], 'ticket-7-round-1': [1, 3], 'ticket-9': [1], 'ticket-10': [1], 'ticket-11': [0]}, 2),
]


@pytest.mark.parametrize("names, formats, summary, shape, calls", EXPECTED, ids=[row[0][0] for row in EXPECTED])
def test_each_fixture_reads_to_its_expected_summary(names, formats, summary, shape, calls):
    upload = read_upload([(name, (FIXTURES / name).read_bytes()) for name in names])
    assert sorted(upload.formats) == formats
    assert upload.summary() == summary
    assert {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in upload.conversations} == shape
    assert sum(len(r.tool_calls) for c in upload.conversations for r in c.trace.rounds) == calls


def test_every_fixture_is_covered():
    # Rows may read whole-document fixtures together (containers/...): test_formats_containers.py covers those.
    covered = {name for row in EXPECTED for name in row[0] if "/" not in name}
    assert covered == {p.name for pattern in ("*.jsonl", "*.sse", "*.json") for p in FIXTURES.glob(pattern)}


@pytest.mark.parametrize("name, line", [("mlflow-databricks-agent-openai.json", 44),
                                        ("mlflow-bedrock-chat-model.json", 19)])
def test_a_one_document_json_file_cut_in_the_middle_is_said_as_that_document_with_the_line_the_json_stops(name, line):
    # Read whole it is "1 document: ..."; cut short it is still that one document, not "1 line" beside "line 44".
    data = (FIXTURES / name).read_bytes()
    upload = read_upload([(name, data[:len(data) // 2])])
    assert upload.summary() == "1 document: 0 rounds in 0 conversations; 1 document skipped"
    assert [upload.said(p) for p in upload.problems] == [
        f"document 1: is not valid JSON (at the end of the file, line {line}: cut short: the JSON stops before it is complete)"]
