"""Log formats: the files a user uploads, each read into CallRecords and then into traces.

One module per log family (pairs, batches, streams, spans, finetune, responses), each with one
LogFormat class per shape it reads; `record` holds what they all yield, `chat_shape` builds
Chat Completions bodies for the families that are neither dialect, `native` reads Roundtrip's
own trace file, and `upload` runs FORMATS over a file and rebuilds its conversations.
Adding a format is one new module and one line in FORMATS.
"""

from __future__ import annotations

from lib.logs import (adk, any_agent, atif, autogen, batches, bedrock_converse, cassettes, claude_code, claude_stream_json, cline_task,
                      codex, cohere, dspy_request, finetune, gemini, gemini_cli, goose, har, httpmock, httprr,
                      inspect_log, interactions, langfuse, langsmith, llama_stack, llm_recorder, mlflow_traces, nock, ollama, opencode,
                      opencode_run, openhands, pairs, recorded_streams, responses, sharegpt, spans, streams,
                      test_proxy, trajectories, wiremock)
from lib.logs.record import LogFormat

FORMATS: tuple[type[LogFormat], ...] = (
    # Whole-document formats (lib/logs/documents.py cuts them into elements): samples, interactions, entries, runs.
    inspect_log.InspectSampleFormat,
    langfuse.LangfuseTraceFormat,
    # A 'run_type' beside a run's place in its trace ('trace_id', 'dotted_order', 'parent_run_id'): LangSmith's runs,
    # no other format's lines have them.
    langsmith.LangSmithRunFormat,
    cassettes.CassetteFormat,
    # Before the pair readers, which would take its 'request' and refuse the answer the recorder wrapped
    # ('__type__', '__data__').
    llama_stack.LlamaStackRecordingFormat,
    har.HarEntryFormat,
    # An exchange cut out of a Go httprr trace: its request's and response's bytes, under keys no other format reads.
    httprr.HttprrFormat,
    # An httpmock recording's exchange (Rust): a 'when' beside a 'then', keys no other format reads.
    httpmock.HttpmockFormat,
    # nock's recordings (Node.js): an exchange's 'scope' and 'path', before the pair readers, which would take its
    # request under 'body' and its answer under 'response' and fail on a stream's bytes.
    nock.NockFormat,
    # Mastra's LLM recordings: a request's 'url' beside a response's 'status' and 'isStreaming', before the pair
    # readers, which would take the HTTP envelope under 'request' and 'response' for bodies.
    llm_recorder.LlmRecorderFormat,
    # Azure SDK test-proxy entries: 'RequestUri' and 'StatusCode' in Pascal case, keys no other format reads.
    test_proxy.TestProxyFormat,
    # WireMock stub mappings: a 'request' matcher ('method' and 'url', 'urlPath' or a pattern) beside its 'response',
    # before the pair readers, which would take the matcher for the request and the HTTP envelope for the answer.
    wiremock.WireMockFormat,
    # Before SWE-agent's: both keep a run under 'history', OpenHands' of events (an 'action' or 'observation').
    openhands.OpenHandsTrajectoryFormat,
    trajectories.SweAgentFormat,
    # An ATIF 'schema_version' beside 'steps': Harbor's trajectories, a shape no other format reads.
    atif.AtifFormat,
    adk.AdkSessionFormat,
    # A session's first line (its 'sessionId' and 'projectHash') makes the message, '$set' and '$rewindTo' lines after
    # it Gemini CLI's: no other format's line has those keys.
    gemini_cli.GeminiCliSessionFormat,
    # A first line of 'working_dir' and 'message_count' makes the message lines after it Goose's; a message line
    # holding 'toolRequest' or 'toolResponse' blocks is Goose's wherever it is: no other format's has them.
    goose.GooseSessionFormat,
    # An 'info' beside 'messages', each message an 'info' and its 'parts': OpenCode's export, no other format's shape.
    opencode.OpenCodeSessionFormat,
    # A 'type' such as step_start or tool_use beside 'sessionID' (camel case) and a 'part': OpenCode's run output.
    opencode_run.OpenCodeRunFormat,
    # A 'mode' of 'create' beside 'messages' typed as AutoGen's (SystemMessage, UserMessage...): before the fine-tuning
    # reader, which would take the messages for a transcript and refuse the record's other keys.
    autogen.AutoGenRecordFormat,
    trajectories.EpisodeFormat,
    # An MLflow trace's 'info' beside 'data.spans', a search_traces() row's 'spans' beside its 'trace_id': before the
    # spans reader, which reads OTLP documents ('resourceSpans') and span lines, never these.
    # Before MLflow's, which reads a trace's data alone ({"spans"}) too: any-agent's spans name its own operations.
    any_agent.AnyAgentTraceFormat,
    mlflow_traces.MlflowTraceFormat,
    spans.SpanFormat,
    batches.AnthropicBatchFormat,
    batches.OpenAIBatchFormat,
    streams.OpenAIChatStreamFormat,
    streams.AnthropicStreamFormat,
    # Before the pair readers, which would take the request and fail on the answer's event text.
    recorded_streams.RecordedStreamFormat,
    # Before the Responses reader, which would take its request ('input', 'model', 'store') for one of its own.
    interactions.InteractionsFormat,
    responses.ResponsesFormat,
    gemini.GeminiFormat,
    # Before the pair readers: a Converse request with a system list would pass for Anthropic's,
    # an Ollama request for a Chat Completions one.
    bedrock_converse.BedrockConverseFormat,
    ollama.OllamaFormat,
    # Before the Chat Completions reader, which would take a v2 chat request (shaped like its own) and refuse the
    # answer: a `message` beside `finish_reason`, no `choices`.
    cohere.CohereFormat,
    # A v1 answer's 'text' beside 'generation_id', or a request's 'message' string beside 'chat_history' or 'preamble':
    # after the v2 reader, whose answers have a 'message' object.
    cohere.CohereV1Format,
    # A rollout line's 'type' (session_meta, response_item, event_msg...) beside a 'payload': no other format's.
    codex.CodexRolloutFormat,
    # Before the session-log reader, whose 'uuid' rule would take its lines: their snake_case 'session_id' and
    # 'parent_tool_use_id' are none of a session log's.
    claude_stream_json.ClaudeStreamJsonFormat,
    # Amp's output in the same shapes, known by its thread ids ('T-...') or its lines' shape
    # (claude_stream_json.amp_rule), which Claude Code's reader leaves to it.
    claude_stream_json.AmpStreamJsonFormat,
    # A transcript entry per line, its 'message' beside Claude Code's own keys: no other format's line has them.
    claude_code.ClaudeCodeFormat,
    # Before the transcript readers, which would take a Cline history (an array of turns, each with its 'ts') for a
    # fine-tuning line of Chat Completions messages.
    cline_task.ClineTaskFormat,
    # Before the LiteLLM rule of the Chat Completions reader, which would take the call's 'kwargs' (its tools) for junk.
    openhands.OpenHandsCompletionFormat,
    # Before the Chat Completions reader, which would take its 'model' and 'messages' for a request and lose the text
    # of every message (under 'parts', where a chat message has 'content').
    dspy_request.DspyRequestFormat,
    # Before the fine-tuning reader, which would take a Hermes 'messages' line as plain text.
    sharegpt.ShareGPTFormat,
    # Before the Chat Completions reader, which would take a whole conversation for one request.
    finetune.FineTuningFormat,
    pairs.AnthropicMessagesFormat,
    pairs.OpenAIChatFormat,
)
"""The importers in detection order: specific shapes first, generic bodies last."""


def format_names() -> list[str]:
    """The names a user can force a file to be read as, `native` included."""
    return ["native"] + [f.name for f in FORMATS]
