"""Whole-document logs read end to end from real recordings: Inspect AI eval logs (.json and the
zipped .eval), SWE-agent .traj files, tau-bench episodes, VCR cassettes and HAR files.
Where each fixture comes from: tests/fixtures/containers/README.md."""

import json
from pathlib import Path

import re

import orjson

import pytest

from lib.checks import run_checks
from lib.growth import growth, sends
from lib.logs.upload import read_upload
from lib.model import STREAMED
from lib.provenance import origin_line, provenance_detail
from lib.steps import steps_for_round

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "containers"

HTTPMOCK = "a 'when' with a 'path' beside a 'then' (an httpmock recording)"
GO_VCR = "an interaction with request.url and response.status and code (a go-vcr cassette)"
TEST_PROXY = "'RequestUri' and 'RequestMethod' beside 'StatusCode' (an Azure SDK test-proxy recording)"
WIREMOCK = "a 'request' with 'method' and a URL matcher beside a 'response' (a WireMock stub mapping)"

EXPECTED = [
    ("inspect-system-prompt.json", {"inspect": "a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)"},
     "2 samples: 4 rounds in 4 conversations; 0 samples skipped",
     {"sample 1 epoch 1": [1], "sample 1 epoch 1, scorer model_graded_qa": [1], "sample 2 epoch 1": [1],
      "sample 2 epoch 1, scorer model_graded_qa": [1]}, 0),
    ("inspect-arithmetic-with-tool.eval", {"inspect": "a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)"},
     "2 samples: 4 rounds in 2 conversations; 0 samples skipped", {"sample 1 epoch 1": [1, 3], "sample 2 epoch 1": [1, 3]}, 2),
    # Inspect AI's own test log, written by Inspect as it ran (Azure AI, Llama 3.1 405B, 2 samples x 2 epochs).
    ("inspect-popularity-azureai.eval", {"inspect": "a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)"},
     "4 samples: 4 rounds in 4 conversations; 0 samples skipped",
     {"sample 2 epoch 2": [2], "sample 2 epoch 1": [2], "sample 1 epoch 1": [2], "sample 1 epoch 2": [2]}, 0),
    # Written by Inspect 0.3.41: the events under `transcript`, long strings as `tc://` (it was read as a fine-tuning
    # line, its usage our count of a base64 image).
    ("inspect-images-tc.json", {"inspect": "a sample with 'id', 'epoch' and 'transcript.events' (an Inspect AI eval log "
                                           "before 0.3.42)"},
     "1 sample: 1 round in 1 conversation; 0 samples skipped", {"sample 1 epoch 1": [2]}, 0),
    # mini-swe-agent's test data: `json.dump(messages)`, one array of 22 chat messages (each was an error of its own).
    ("mini-swe-agent-github-issue.traj.json",
     {"openai-finetune": "'messages' with assistant turns, ending on a user turn, without a 'model' (a transcript)"},
     "22 elements: 10 rounds in 1 conversation; 0 elements skipped", {"line 1": [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]}, 0),
    ("swe-agent-test-repo.traj", {"swe-agent": "'history' beside 'trajectory' or 'info' (a SWE-agent trajectory)"},
     "1 document: 4 rounds in 1 conversation; 0 documents skipped", {"trajectory 1": [2, 4, 6, 8]}, 4),
    # A Google ADK session's events (issue 16): matched no format.
    ("adk-session-function-call.json",
     {"adk-session": "'events' each with an 'author' and an invocation id (a Google ADK session)"},
     "1 document: 3 rounds in 1 conversation; 0 documents skipped",
     {"ead43200-b575-4241-9248-233b4be4f29a": [1, 3, 5]}, 1),
    # A Gemini CLI session recording, one JSON object (versions before the JSON-lines one): matched no format.
    ("gemini-cli-session.json",
     {"gemini-cli-session": "'sessionId' and 'projectHash' beside 'messages' (a Gemini CLI session)"},
     "1 document: 3 rounds in 1 conversation; 0 documents skipped",
     {"session 8a20078e-2d5e-4f81-a640-9b879bbb7e6d": [1, 5, 10]}, 7),
    # OpenCode session exports (`opencode export <sessionID>`): matched no format. Each model call (step) a round.
    ("opencode-export-ccusage-sample.json",
     {"opencode-session": "an 'info' beside 'messages', each an 'info' with a 'role' and its 'parts' (an OpenCode "
                          "session export)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"session ses_test123abc": [1]}, 0),
    ("opencode-export-steps.json",
     {"opencode-session": "an 'info' beside 'messages', each an 'info' with a 'role' and its 'parts' (an OpenCode "
                          "session export)"},
     "1 document: 4 rounds in 1 conversation; 0 documents skipped",
     {"session ses_4f1c2a7e9ffeQk2xV8bN3mR5tD": [1, 3, 5, 7]}, 2),
    # A Roo Code task's two files (Cline's shape): each read alone; tests/test_cline_task.py reads them together.
    ("roo-code-api_conversation_history.json",
     {"cline-task": "one JSON array of user and assistant turns carrying 'ts' (a Cline or Roo Code "
                    "api_conversation_history.json)"},
     "6 elements: 3 rounds in 1 conversation; 0 elements skipped", {"Cline / Roo Code task: PHASE 1 : Diagnostic Système Interface-First - Stratégie An…": [1, 3, 5]}, 3),
    ("roo-code-ui_messages.json", {"cline-task": "a UI event with 'ts' and 'say' or 'ask' (a Cline or Roo Code "
                                                 "ui_messages.json)"},
     "18 elements: 0 rounds in 0 conversations; 18 elements not model calls; 0 elements skipped", {}, 0),
    ("tau-bench-airline.json", {"agent-episode": "messages under 'traj' (a tau-bench style episode)"},
     "2 elements: 7 rounds in 2 conversations; 0 elements skipped",
     {"episode 1 (task 10, trial 1)": [2, 4, 6, 8], "episode 2 (task 35, trial 3)": [2, 4, 6]}, 3),
    ("pydantic-ai-openai-tool-calls.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    ("pydantic-ai-anthropic-stream.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # The second request resends its whole history (no previous_response_id): one conversation of two
    # rounds, the first response's id naming it (issue 16 item 1).
    ("pydantic-ai-openai-responses.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_67e52d90176c819180bd8b6823aff4c7093f95c20016a37e": [1, 3]}, 1),
    # Provider-native APIs recorded in cassettes by other projects' tests: Gemini (whole and streamed), Bedrock
    # Converse (whole, streamed as AWS's binary event stream, refused), Ollama, Cohere's v2 chat and its v1 chat.
    ("crewai-gemini-parallel-crew.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 7]}, 3),
    # llm-gemini sends its calls back in the proto's snake_case (`function_call`, `function_response`): they were lost.
    ("llm-gemini-snake-case-call.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    # simonw/llm-anthropic sends a turn of calls back with a text block of one space.
    ("llm-anthropic-space-text.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                        "cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 2),
    # simonw/llm sends a turn back as two assistant messages, an empty text and then the calls.
    ("llm-openai-split-turn.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 4]}, 1),
    ("llm-openrouter-renamed-call.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                          "cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 4]}, 1),
    # The same run recorded again: no chunk names a finish_reason, then `data: [DONE]` (the call was said cut short).
    ("llm-openrouter-no-finish-reason.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                              "(a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 4]}, 1),
    # Mirascope sends a streamed Gemini answer back one part per chunk ("{\n  \"value\": 57", "3\n}"): the same text,
    # which was said not to be what the model wrote.
    # Anthropic's web search, a tool Anthropic runs inside the turn: three `server_tool_use` blocks, results beside.
    ("mirascope-anthropic-web-search.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                             "VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Mirascope resumes a Gemini call with gpt-4o: Gemini's call, sent without an id, sent back under Mirascope's.
    ("mirascope-gemini-then-openai-resume.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                  "(a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    # Groq's streamed answer reports its usage under `x_groq.usage` in the last chunk (it was estimated).
    ("ollm-groq-stream-usage.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                     "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Bedrock's InvokeModelWithResponseStream around a Messages body: Anthropic's stream events, base64 in AWS's frames.
    ("ollm-bedrock-invoke-stream-claude.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                "(a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Amazon Nova through InvokeModel: a Converse-shaped body, the model named only by the path (unstreamed, streamed).
    ("ollm-bedrock-invoke-nova.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                       "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("ollm-bedrock-invoke-stream-nova.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                              "VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Ollama's answer without prompt_eval_count (its prompt was cached): 0 tokens in was shown as reported.
    ("ollm-ollama-cached-prompt.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                        "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Ollama's `/api/chat` streamed: one chunk per line (application/x-ndjson), joined until the one that is done.
    ("ollm-ollama-stream-chat.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                      "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Together's answer ends with finish_reason "eos": a stop of unknown kind, so the answer was never shown as step 5.
    ("ollm-together-eos.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Nova under a guardrail that masked its answer: the body's usage has inputTokens alone (0 out was shown reported).
    ("ollm-bedrock-nova-guardrail-usage.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                "(a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("mirascope-gemini-split-echo.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                           "cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 0),
    ("crewai-gemini-stream-multi.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 2),
    ("oi-genai-auto-tool.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    ("crewai-bedrock-parallel-kickoff.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 3),
    ("ollm-bedrock-converse-stream-tool.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    # LangChain's cassettes (langchain-tests' serializer, every partner package): vcrpy's `requests` and `responses`
    # lists side by side, gzipped, every header value '**REDACTED**' (the file was refused: no 'interactions').
    ("langchain-aws-agent-loop-stream.yaml.gz",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    ("langchain-aws-citations.yaml.gz",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    ("langchain-azure-add-numbers.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    ("pyd-bedrock-error.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("oi-ollama-tool-call.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    # An OpenAI Batch recorded over HTTP (issue 16): the input file uploaded as a multipart form, the batch created and
    # polled, the output file's content; every interaction was "not a model call".
    ("ruby-llm-openai-batch-responses.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "5 interactions: 2 rounds in 2 conversations; 3 interactions not model calls; 0 interactions skipped",
     {"0": [1], "1": [1]}, 0),
    # Cohere's v2 chat: its requests shaped like Chat Completions, its answers in Cohere's own words (`tool_plan`,
    # `finish_reason` "TOOL_CALL", `usage.tokens`). They were left out as calls to an API not read (issue 16).
    ("ollm-cohere-v2-tool-history.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 4]}, 2),
    ("langchain-cohere-reasoning-tool-call.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    # Cohere's v1 chat (`message`, `chat_history`): was named "an API Roundtrip does not read" and left out.
    ("ollm-cohere-v1-chat.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # The same call streamed: one JSON object per line (application/stream+json), the whole answer in `stream-end`.
    ("ollm-cohere-v1-chat-stream.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # The Hugging Face Hub's API, no model call: its commit request, JSON lines, was "not valid JSON", a skipped
    # interaction.
    ("hf-hub-space-commit-ndjson.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "6 interactions: 0 rounds in 0 conversations; 6 interactions not model calls; 0 interactions skipped", {}, 0),
    # A v1 call to a model Cohere removed, refused with 404 and Cohere's {"id", "message"}.
    ("ollm-cohere-v1-removed-model-404.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [2]}, 0),
    # The OpenAI Agents SDK's voice pipeline: a transcription, the agent's streamed Responses call, then text-to-speech
    # (`/v1/audio/speech`: `input`, `model`, `voice`, `instructions`), which was read as a second conversation.
    ("logfire-agents-voice-speech.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 1 round in 1 conversation; 1 interaction not a model call; 1 interaction to an API Roundtrip "
     "does not read; 0 interactions skipped", {"resp_0f4c5a783ebc79bc00699336f0df488194bddca1fa9a623a2e": [1]}, 0),
    # Cohere's v2 chat streamed (message-start, tool-plan-delta, tool-call-delta, message-end): its events were read as
    # Chat Completions chunks ("'choices' is missing"), then left out as another API's.
    ("langchain-cohere-stream-tool-call.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    # Writer's API took a call without an id and a result naming no call; the findings named the call "the
    # get_current_weather call get_current_weather" with "no result", and the result as answering "" ("answers , but").
    ("ollm-writer-idless-call.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [3]}, 0),
    ("logfire-openrouter-stream-reasoning.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("pyd-deepseek-responses-400.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [4]}, 0),
    # crewAI runs the first of the calls a turn makes and drops the rest: each request keeps one call of the turn.
    ("crewai-openai-max-usage.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 5, 8]}, 8),
    # Mirascope re-asks in the user's role when a response fails validation or its parser (the request after it).
    ("mirascope-openai-validation-retry.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 0),
    ("mirascope-anthropic-parse-error-retry.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3, 5]}, 0),
    # pydantic-ai re-asks in the user's role when a response is no valid output (a RetryPromptPart without a tool).
    ("pydantic-ai-cerebras-validation-feedback.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    ("pydantic-ai-bedrock-validation-errors.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3, 5]}, 2),
    ("openinference-beeai-agent.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [2]}, 1),
    ("openllmetry-agents-handoff.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped",
     {"resp_689f74e29ec88192a33523ce531650ec0d633b0c8e3fd59d": [2]}, 1),
    # The OpenAI Agents SDK hands off to another agent: the History Tutor's request sends the triage agent's input,
    # call and result on under its own instructions. It was a conversation of its own, the handoff never answered.
    ("weave-agents-handoff.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                   "cassette)"},
     "3 interactions: 3 rounds in 2 conversations; 0 interactions skipped",
     {"resp_67d8f074efa88192af27cf8d6acc8ff00ee5dd4cb8e6239b": [2, 4],
      "resp_67d8f074ef008192bfa4871d5b210d410e6dd4b8acbdb1ee": [2]}, 1),
    # smolagents' ToolCallingAgent sends its call back as text ("Calling tools: [...]"), the result as "Observation:".
    ("weave-smolagents-calls-as-text.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                             "VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 2),
    # weave recorded LangChain's OpenAI functions agent with the request body scrubbed to '' (it was "not a model
    # call"), its answer a legacy `function_call` streamed in pieces (the call was lost).
    ("weave-langchain-legacy-function-call.yaml", {"vcr-cassette": "an interaction with request.uri and "
                                                                   "response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [0]}, 1),
    ("openai-tool-calls.har", {"har": "an entry with request.url and response.content (a HAR file)"},
     "3 entries: 2 rounds in 1 conversation; 1 entry not a model call; 0 entries skipped",
     {"conversation 1": [2, 4]}, 1),
    # Recorded by Chromium (tests/fixtures/tools/record_har.py): the page that ran the loop, then its two calls.
    ("chromium-openai-tool-calls.har", {"har": "an entry with request.url and response.content (a HAR file)"},
     "3 entries: 2 rounds in 1 conversation; 1 entry not a model call; 0 entries skipped",
     {"conversation 1": [2, 4]}, 1),
    ("chromium-openai-stream.har", {"har": "an entry with request.url and response.content (a HAR file)"},
     "3 entries: 2 rounds in 1 conversation; 1 entry not a model call; 0 entries skipped",
     {"conversation 1": [1, 3]}, 1),
    # Recorded by Polly.JS (Mirascope's TypeScript tests): a 3-round Messages loop whose cache breakpoint moves to the
    # newest message each round; round 3 was a conversation of its own.
    ("mirascope-anthropic-moved-cache-breakpoint.har", {"har": "an entry with request.url and response.content (a HAR "
                                                              "file)"},
     "3 entries: 3 rounds in 1 conversation; 0 entries skipped", {"conversation 1": [1, 3, 5]}, 2),
    # The same, the message it unmarks written back as a string ([{"type": "text", "text": X}] in round 2, X in 3).
    ("mirascope-anthropic-unmarked-as-string.har", {"har": "an entry with request.url and response.content (a HAR "
                                                          "file)"},
     "3 entries: 3 rounds in 1 conversation; 0 entries skipped", {"conversation 1": [1, 3, 5]}, 0),
    # Recorded by Polly.JS (openllmetry-js): the gzip answer kept as a JSON list of base64 chunks (it was skipped,
    # "gzip that does not open").
    ("ollm-js-polly-gzip-chunks.har", {"har": "an entry with request.url and response.content (a HAR file)"},
     "1 entry: 1 round in 1 conversation; 0 entries skipped", {"conversation 1": [1]}, 0),
    # Google ADK's runner asked the same question twice; the second run's request resends its call and result twice
    # (it was placed after the first run's answer, the second run's first round a conversation of its own).
    ("langsmith-adk-second-run-call-twice.yaml", {"vcr-cassette": "an interaction with request.uri and "
                                                                   "response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 2 conversations; 0 interactions skipped",
     {"conversation 1": [2, 4], "conversation 2": [2, 6]}, 2),
    # Recorded through aiohttp: vcrpy kept the header names as multidict's istr, a Python tag (the file was refused).
    ("ddtrace-openai-aiohttp-headers.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [2]}, 1),
    # Two answers asked for at once (n = 2): one round, the first answer's call, and a note.
    # The Datadog APM test agent's VCR proxy: one interaction per .json file, the request under `url`, both bodies as
    # text (it matched no known format). Round 2 of Mistral's tool loop: the call and its result sent back.
    # Mirascope resuming a structured answer: the output tool's call is sent back as the text it carried.
    ("mirascope-anthropic-structured-resume.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 2),
    ("ddtrace-mistral-tool-result.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [3]}, 0),
    ("ddtrace-litellm-two-choices.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    # vercel/ai's recorded Anthropic stream of programmatic tool calling: 13 answers whose message_start already holds
    # the call the code execution made, then the final answer (the calls were lost: empty answers).
    ("vercel-anthropic-prepopulated-calls.chunks.txt", {"anthropic-stream": "type names a Messages stream event"},
     "111 lines: 14 rounds in 14 conversations; 0 lines skipped", {f"conversation {n}": [0] for n in range(1, 15)}, 13),
    # Perplexity's stream ends on a `chat.completion.done` chunk holding the finish reason (it was skipped: no format).
    # Azure OpenAI's stream opens on a chunk of prompt filter results with no choices: no "matches no known format".
    ("vercel-azure-prompt-filter.chunks.txt", {"openai-chat-stream": (
        "object is 'chat.completion.chunk' (7 lines); 'prompt_filter_results' with no choices (Azure OpenAI's first "
        "chunk) (1 line)")},
     "8 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # Azure OpenAI's asynchronous filter annotates the text after the answer's finish_reason, in chunks with no id,
    # model or delta: each was skipped as "matches no known log format".
    ("semantic-kernel-azure-async-filter.sse", {"openai-chat-stream": (
        "object is 'chat.completion.chunk' (3 lines); choices holding only 'content_filter_results' (Azure OpenAI's "
        "asynchronous filter's chunk) (2 lines); 'prompt_filter_results' with no choices (Azure OpenAI's first chunk) "
        "(1 line)")},
     "13 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    ("vercel-perplexity-done-chunk.chunks.txt", {"openai-chat-stream": "object is 'chat.completion.chunk' (7 lines); "
                                                "object is 'chat.completion.done' (Perplexity's last chunk) (1 line)"},
     "8 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # vercel/ai's recorded Responses stream that failed: its `error` event before `response.failed` was skipped as
    # "matches no known log format".
    ("vercel-responses-error-event.chunks.txt", {"openai-responses": (
        "type names a Responses stream event (3 lines); type is 'error' with a sequence_number (a Responses stream's "
        "error event) (1 line)")},
     "4 lines: 1 round in 1 conversation; 0 lines skipped",
     {"resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424": [0]}, 0),
    # xAI's x_search: the searches it ran are custom tool calls in the output, then its answer (they were read as calls
    # for the program to run, the round stopping on them).
    ("vercel-xai-x-search-server-calls.chunks.txt", {"openai-responses": "type names a Responses stream event"},
     "36 lines: 1 round in 1 conversation; 0 lines skipped", {"b7b464ea-cc85-d44a-0f2f-1f7320e703c3": [0]}, 0),
    # OpenAI's built-in `shell` tool: the model asks for a command (a `shell_call`), the program runs it (the call was
    # kept raw, the round read as an answer).
    ("vercel-responses-shell-call.chunks.txt", {"openai-responses": "type names a Responses stream event"},
     "182 lines: 2 rounds in 2 conversations; 0 lines skipped",
     {"resp_0434d6d64b12b08900692f639c40408195a50fd07b77ce08a7": [0],
      "resp_0434d6d64b12b08900692f639d784481959af65f985b9c13e2": [0]}, 1),
    # Claude compacted the history before answering: the summary's tokens are in `usage.iterations` only (the round read
    # the answer's 682 input tokens, not the 61,067 billed).
    ("vercel-anthropic-compaction-usage.json", {"anthropic-messages": "a bare response body"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [0]}, 0),
    # Claude consulted the advisor tool: the advisor's sub-inference on claude-opus-4-7 is in `usage.iterations` only.
    ("vercel-anthropic-advisor-usage.json", {"anthropic-messages": "a bare response body"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [0]}, 0),
    # LiteLLM's Responses request that leaves out the first question and sends back the answer by its items' ids
    # (read as 2 conversations).
    ("oi-litellm-responses-question-dropped.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_08094a8a3f5c077d006a5536c80420819e9df4d976e0148f7c": [1, 2]}, 0),
    # A Bedrock InvokeModel call sent with no body, refused 400 ("The provided model identifier is invalid."): it was
    # "not a model call".
    ("otel-bedrock-invoke-unknown-model.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                "(a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [0]}, 0),
    # Anthropic compacted a 55,000-token request into a summary in the clear; pydantic-ai sends the whole history back.
    ("pyd-anthropic-compaction-resent.yaml.gz", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                 "(a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    # Gemini's Interactions API (`POST /v1beta/interactions`), whose `input` and `model` read like a Responses request:
    # it was taken for one and skipped ("'response' is neither a response object ..."), then named an API not read.
    ("oi-gemini-interactions-image.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                           "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped",
     {"v1_ChdtdUFFYXQyYUM4UHdqckVQeHVMLTRBRRIXbXVBRWF0MmFDOFB3anJFUHh1TC00QUU": [1]}, 0),
    # ADK's system instruction gains the artifact list in round 2 and keeps it in round 3 (round 3 was a conversation of
    # its own: "3 rounds in 2 conversations").
    ("oi-adk-instructions-grow-then-stay.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                 "(a VCR cassette)"},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4, 7]}, 2),
    # Gemini's built-in code execution, offered as `{"codeExecution": {}}` and run inside the turn (no call).
    ("oi-adk-gemini-code-execution.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                           "(a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [2]}, 0),
    # nock's recording (Node.js) of a ConverseStream call, its event stream kept as hexadecimal (it was read as a pair
    # of bodies and skipped: "the response is not an AWS Bedrock Converse response body").
    ("oi-js-nock-bedrock-stream-tool.json", {"nock": "'scope', 'method' and 'path' beside the response (a nock "
                                                     "recording)"},
     "1 element: 1 round in 1 conversation; 0 elements skipped", {"conversation 1": [1]}, 1),
    # Go's httprr traces (langchaingo's testdata): each was 100+ lines "not valid JSON" and no round.
    ("langchaingo-openai-agent-args-rewritten.httprr",
     {"httprr": "a file that opens with 'httprr trace v1' (Go's record and replay)"},
     "2 exchanges: 2 rounds in 1 conversation; 0 exchanges skipped", {"conversation 1": [2, 4]}, 1),
    ("langchaingo-ollama-chunked-stream.httprr",
     {"httprr": "a file that opens with 'httprr trace v1' (Go's record and replay)"},
     "1 exchange: 1 round in 1 conversation; 0 exchanges skipped", {"conversation 1": [1]}, 0),
    ("langchaingo-gemini-int-enums.httprr",
     {"httprr": "a file that opens with 'httprr trace v1' (Go's record and replay)"},
     "2 exchanges: 2 rounds in 1 conversation; 0 exchanges skipped", {"conversation 1": [1, 3]}, 1),
    # ruby-openai's Assistants API runs: each run makes the model go on, its messages held in the thread (both were
    # counted "not model calls").
    ("ruby-openai-assistants-run-stream.yml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                               "VCR cassette)"},
     "2 interactions: 0 rounds in 0 conversations; 2 interactions to an API Roundtrip does not read; 0 interactions "
     "skipped", {}, 0),
    # A streamed call answered 500 with no body: its finding quoted "HTTP 500" as the provider's words.
    ("ruby-openai-stream-500-empty-body.yml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                               "VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # vcrpy's httpx stub wrote the response as `status_code` and `content` (the file was refused: "the interaction's
    # response has no status").
    ("oi-portkey-httpx-status-code.yaml", {"vcr-cassette": "an interaction with request.uri and response.status_code "
                                                           "(vcrpy's older cassette of an httpx call)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Ruby's VCR (ruby_llm): `http_interactions`, every body not UTF-8 text written `!binary` (the file was refused:
    # "not valid YAML").
    ("ruby-llm-deepseek-parallel-calls.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 4]}, 2),
    # Amazon Nova's web grounding, a system tool Bedrock runs inside the turn (unstreamed, streamed): it was a call the
    # request "does not offer", never to be run.
    ("ruby-llm-bedrock-nova-grounding.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("ruby-llm-bedrock-nova-grounding-stream.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # R's vcr (ellmer): two identical dice calls, sent back under the Responses items' ids (fc_...) in place of call_id.
    ("ellmer-openai-responses-two-dice.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_0e90a1b8c334f9dd016a6fcc74c8e081938316c8164331153e": [2, 5]}, 2),
    # ellmer's structured answer through its `_structured_tool_call` tool, sent back as the JSON it carried.
    ("ellmer-anthropic-structured-data.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 2),
    # ruby_llm forces Gemini's weather tool with `mode: "any"`, in lowercase (it was read as no tool_choice at all).
    ("ruby-llm-gemini-forced-tool-lowercase.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    # A Message Batch over HTTP: created with two requests, polled, its results fetched as JSON lines (the creation
    # was a round of its own with no request in the log and no answer; the two calls were lost).
    ("ruby-llm-anthropic-message-batch.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 2 rounds in 2 conversations; 1 interaction not a model call; 0 interactions skipped",
     {"0": [1], "1": [1]}, 0),
    # chatlas sends a structured answer back parsed and written out again: the same JSON, other spacing.
    ("chatlas-anthropic-json-respaced.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    # Cloudflare Workers AI answers a json_schema request with the object itself as the message's content (the answer
    # was empty, and the turn sent back "text the model did not write").
    ("chatlas-cloudflare-json-object-answer.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    # Token counts asked of OpenAI, Anthropic and Gemini: no model call among them (Anthropic's was a round with no
    # answer, OpenAI's a damaged interaction).
    ("chatlas-token-counts.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 0 rounds in 0 conversations; 3 interactions not model calls; 0 interactions skipped", {}, 0),
    # A tool named file_fetch ("Fetches the requested file") was called a write tool, `file` read as the verb.
    ("ruby-llm-anthropic-file-fetch.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    # A Responses call offering two MCP servers, answered with questions back to the person ("Share those and I'll
    # fetch the info."): it was called narration without a call.
    ("activeagent-responses-mcp-asks-back.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped",
     {"resp_06a0f877661f6c2a00691e3005458c819aa2ea27e6a884bc7f": [1]}, 0),
    # raix sends one turn of two calls back as two assistant messages, each call under raix's own id, its result after
    # it: the second call was said sent back "neither as a call nor with a result".
    ("raix-one-turn-sent-back-as-two.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 5]}, 2),
    # A Gemini batch of inline requests: created, polled, its answers in the batch when it succeeded (the three were
    # "not model calls", the two questions and their answers lost).
    ("ruby-llm-gemini-inline-batch.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 2 rounds in 2 conversations; 1 interaction not a model call; 0 interactions skipped",
     {"0": [1], "1": [1]}, 0),
    # sublayer sends Gemini `contents` as one Content object and its `parts` as one Part, which the API takes (the
    # interaction was skipped: "'contents' is an object, expected a list").
    ("sublayer-gemini-lone-content.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # ruby_llm replaces the system message and goes on with the same conversation (it was two conversations, where the
    # same run against Anthropic, whose system is no message, was one).
    ("ruby-llm-deepseek-replaced-instructions.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 0),
    # Three dice rolls asked for, one call a round, each answered with another roll (the third was called a loop).
    ("ruby-llm-ollama-cloud-three-rolls.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4, 6, 8]}, 3),
    # pydantic-ai sends Gemini `tools` as one Tool object, answered 200 (both Gemini interactions were skipped: "'tools'
    # is an object, expected a list"); the run then goes on with gpt-4o-mini from that history, its call resent under
    # pydantic-ai's own id (Gemini gave none) and its tool result as "Paris" where Gemini was sent
    # {"return_value": "Paris"}: the same conversation (it was two).
    ("pyd-gemini-then-openai-lone-tools.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped",
     {"conversation 1": [1, 3, 5, 7]}, 2),
    # pydantic-ai's run begun with gpt-5 (Responses API) and sent on to claude-sonnet-4-0 (Messages), the reasoning
    # summaries resent as `<thinking>` texts; and one begun with Claude and sent on to gpt-5. Each was two
    # conversations.
    ("pyd-openai-then-anthropic-history.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_68c1fda6f11081a1b9fa80ae9122743506da9901a3d98ab7": [2, 4]}, 0),
    ("pyd-anthropic-then-openai-history.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    # Bedrock Mantle's Responses API names every call `call_0`; pydantic-ai resends each under its response id
    # (`resp_...:call_0`), then asks again from the ended run's history without instructions (round 4 was a
    # conversation of its own, named after round 3's response id).
    ("pyd-mantle-reused-call-ids.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped",
     {"resp_2vmnquymsguw3uup3fg2bsvkq3joan3ebjhg2hhvviozugqqmufa": [2, 4, 6, 7]}, 2),
    # pydantic-ai has OpenAI compact the conversation (`/v1/responses/compact`, answered with a `response.compaction`)
    # and goes on from the compacted item: each compaction was skipped as "'response' is neither a response object
    # ... nor an error", and each request after it was a conversation of its own ("8 interactions: 5 rounds in 4
    # conversations; 3 interactions skipped").
    ("pyd-responses-compact-chain.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "8 interactions: 8 rounds in 1 conversation; 0 interactions skipped",
     {"resp_0d4b654a05c1a7a70069deb79f81b88197a19f61e394151ecc": [1, 3, 4, 2, 3, 2, 3, 2]}, 0),
    ("pyd-responses-compact-stateless.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped",
     {"resp_0da8c7d4a85372d10069cdf57de22081949b8f78a343dd9bb4": [2, 4, 5, 3]}, 0),
    # pydantic-ai switches compaction on in each request (`context_management`): the provider compacts during the
    # third call, its `compaction` item beside the model's story, which the fourth request resends with the history.
    # pydantic-ai resends the model's reasoning item, its `encrypted_content` included, with the call and its result.
    ("pyd-responses-reasoning-resent.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_01d311e2633707df0068fbabfb646481a2ac6e226bbbb42ca6": [1, 3]}, 1),
    ("pyd-responses-compact-inline.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped",
     {"resp_0c1d85ffb99ec1d00069e0254c7cac81909bc7eacb2c4c565f": [1, 3, 5, 7]}, 0),
    # CrewAI drops Gemini's empty answer and asks again, its system prompt written twice, then three times (rounds 3
    # and 4 were conversations of their own).
    # Gemini 2.5 Pro given maxOutputTokens 5 stops at MAX_TOKENS after 2 thinking tokens, with no part written.
    ("pydantic-ai-gemini-max-tokens-thinking-empty.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [2]}, 0),
    ("crewai-gemini-empty-answer-retry.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 5, 6, 7]}, 1),
    # Groq streams the model's reasoning, then ends the stream (HTTP 200) with `data: {"error": {...}}`: a call that
    # failed validation (`tool_use_failed`), then one written as text where a call was required (each interaction
    # was skipped as damaged: "'choices' is missing, expected a list").
    ("pyd-groq-stream-tool-use-failed.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4, 6]}, 1),
    ("pyd-groq-stream-text-not-a-call.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    # CrewAI asks the same two messages twice (with a response format, then without); each answer is an add_numbers
    # call, and the third request goes on from the second's (it was taken for the first's, under a call id "rewritten").
    ("crewai-openai-asked-twice.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "3 interactions: 3 rounds in 2 conversations; 0 interactions skipped",
     {"conversation 1": [2], "conversation 2": [2, 4]}, 2),
    # CrewAI's LiteAgent sends each request twice (with a response format, then without). The second of two identical
    # five-message requests resends the history of calls 2 and 3, yet went on to conversation 1 (call 1's lone
    # request), read as "resends the search_web call call_vAso... under another id": conversations were [2, 5],
    # [2, 4, 5] and [2].
    ("crewai-lite-agent-asked-again.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "6 interactions: 6 rounds in 3 conversations; 0 interactions skipped",
     {"conversation 1": [2], "conversation 2": [2, 4, 5, 5], "conversation 3": [2]}, 3),
    # Langfuse trace exports (langfuse/langfuse's framework traces): one conversation per trace, named by the trace,
    # each GENERATION read by the converter of the shape its framework wrote (Responses API, GenAI parts, google-genai,
    # LangChain's Chat Completions messages).
    ("langfuse-openai-agents.json", {"langfuse": "'trace' with its 'observations' (a Langfuse trace export)"},
     "1 document: 2 rounds in 1 conversation; 0 documents skipped", {"Agent workflow": [2, 4]}, 1),
    ("langfuse-pydantic-ai-tools.json", {"langfuse": "'trace' with its 'observations' (a Langfuse trace export)"},
     "1 document: 4 rounds in 2 conversations; 0 documents skipped",
     {"joke-generator": [2, 6, 8], "joke-generator · evaluator_agent run": [2]}, 4),
    ("langfuse-google-adk.json", {"langfuse": "'trace' with its 'observations' (a Langfuse trace export)"},
     "1 document: 2 rounds in 1 conversation; 0 documents skipped", {"invocation [hello_app]": [2, 4]}, 1),
    ("langfuse-langgraph.json", {"langfuse": "'trace' with its 'observations' (a Langfuse trace export)"},
     "1 document: 2 rounds in 1 conversation; 0 documents skipped", {"LangGraph": [2, 4]}, 1),
    # Llama Stack's inference recorder, one call per file, the client's objects wrapped (`__type__`, `__data__`):
    # "matches no known log format; closest: VCR cassette: the interaction's response has no status".
    ("llama-stack-chat-tool-call.json", {"llama-stack-recording": "a request with 'endpoint' and 'url' and its answer under response.body beside "
                               "'is_streaming' (a Llama Stack inference recording)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 1),
    ("llama-stack-chat-stream-tool-call.json", {"llama-stack-recording": "a request with 'endpoint' and 'url' and its answer under response.body beside "
                               "'is_streaming' (a Llama Stack inference recording)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 1),
    # AutoGen's ChatCompletionClientRecorder, its records in AutoGen's message types: "matches no known log format;
    # closest: OpenAI fine-tuning chat". Calls 9 to 11 are one conversation (each resends the turns before it).
    ("autogen-recorder-teachability.json",
     {"autogen-record": "'mode' beside 'messages' of AutoGen's types and a 'response' (AutoGen's "
                        "ChatCompletionClientRecorder)"},
     "16 elements: 16 rounds in 14 conversations; 0 elements skipped",
     {**{f"conversation {n}": [2] for n in range(1, 15)}, "conversation 9": [2, 4, 6]}, 0),
    # The same session with its eighth call answered by AutoGen's ChatCompletionCache (its result marked `cached`).
    ("autogen-recorder-teachability-cache-hit.json",
     {"autogen-record": "'mode' beside 'messages' of AutoGen's types and a 'response' (AutoGen's "
                        "ChatCompletionClientRecorder)"},
     "16 elements: 16 rounds in 14 conversations; 0 elements skipped",
     {**{f"conversation {n}": [2] for n in range(1, 15)}, "conversation 9": [2, 4, 6]}, 0),
    # GPT-5's custom tools (free-text input to a grammar), in Chat Completions and in the Responses API.
    ("ddtrace-openai-custom-tool-chat.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a "
                                                              "VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 1),
    ("ddtrace-openai-custom-tool-responses.yaml", {"vcr-cassette": "an interaction with request.uri and response.status "
                                                                   "(a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped",
     {"resp_68a72e32db2c8196ba2a8493582cabde075c9fca6967ac8b": [1]}, 1),
    # An OpenAI Agents SDK handoff from an agent without instructions to one with them (round 2 puts a system message
    # in front of the history it resends whole): it was said to rewrite the history.
    ("logfire-agents-handoff-adds-instructions.yaml", {"vcr-cassette": "an interaction with request.uri and "
                                                                       "response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped",
     {"resp_67ced68228748191b31ea5d9172a7b4b": [1, 5]}, 2),
    # Saved streams holding a keep-alive event (`{"type": "keepalive"}`): the line matched no format.
    ("openai-php-responses-keepalive.sse", {"openai-responses": "type names a Responses stream event"},
     "12 lines: 1 round in 1 conversation; 0 lines skipped",
     {"resp_67ccf18ef5fc8190b16dbee19bc54e5f087bb177ab789d5c": [0]}, 0),
    ("openai-php-chat-keepalive.sse", {"openai-chat-stream": "object is 'chat.completion.chunk'"},
     "4 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # A streamed Messages answer whose text block opens with `"citations": null`: lost to an AttributeError.
    ("rig-anthropic-null-citations.sse", {"anthropic-stream": "type names a Messages stream event"},
     "24 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # rig's cassettes, httpmock recordings (Rust): a YAML document per exchange. Each was "not a VCR cassette".
    ("rig-anthropic-multi-step-tools.yaml", {"httpmock": HTTPMOCK},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3, 5]}, 2),
    ("rig-bedrock-stream-tools.yaml", {"httpmock": HTTPMOCK},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 1),
    ("rig-gemini-stream-tools.yaml", {"httpmock": HTTPMOCK},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    # ChatGPT's Codex backend ends each stream with `output: []`: every round read as a call-less 'stop'.
    ("rig-codex-backend-sequential-tools.yaml", {"httpmock": HTTPMOCK},
     "3 interactions: 3 rounds in 1 conversation; 0 interactions skipped", {"resp_REDACTED_1": [2, 4, 6]}, 2),
    ("rig-codex-backend-add-call.sse", {"openai-responses": "type names a Responses stream event"},
     "45 lines: 1 round in 1 conversation; 0 lines skipped", {"resp_REDACTED_1": [0]}, 1),
    # Gemini's Interactions API (`/v1beta/interactions`): "a model call to /v1beta/interactions, an API Roundtrip does
    # not read". A tool loop chained by `previous_interaction_id`, a stream of two calls, a follow-up question, and a
    # Deep Research agent started in the background.
    ("rig-gemini-interactions-tool-result.yaml", {"httpmock": HTTPMOCK},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"v1_REDACTED_1": [1, 3]}, 1),
    ("rig-gemini-interactions-stream-two-calls.yaml", {"httpmock": HTTPMOCK},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"v1_REDACTED_1": [2]}, 2),
    ("rig-gemini-interactions-followup.yaml", {"httpmock": HTTPMOCK},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"v1_REDACTED_1": [1, 3]}, 0),
    ("openinference-gemini-interactions-background.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # Gemini's context cache created, used, extended and deleted: the creation was a round of its own.
    ("ruby-llm-gemini-context-cache.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "4 interactions: 1 round in 1 conversation; 3 interactions not model calls; 0 interactions skipped",
     {"conversation 1": [1]}, 0),
    # Text Generation Inference 1.4's chat stream, each chunk named 'text_completion': every line matched no format.
    ("semantic-kernel-tgi-chat-stream.sse",
     {"openai-chat-stream": "object is 'text_completion' with choices[].delta (a chat chunk as Text Generation "
                            "Inference 1.x named it)"},
     "200 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # Groq's stream ended by an error event, saved alone: the error line matched no format, the failure was lost.
    ("pyd-groq-stream-tool-use-failed.sse",
     {"openai-chat-stream": "object is 'chat.completion.chunk' (94 lines); an 'error' object after chunks of an "
                            "unfinished answer (a stream ended by a failure) (1 line)"},
     "191 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # A refusal sent back as the turn's text: said to be text the model did not write.
    ("rig-openai-refusal-sent-back.yaml", {"httpmock": HTTPMOCK},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [1, 3]}, 0),
    # Mastra's LLM recorder (its tests' __recordings__): matched no known format.
    ("mastra-llm-recorder-openai.json",
     {"llm-recorder": "a request's 'url' and 'method' beside a response's 'status' and 'isStreaming' (a Mastra LLM "
                      "recording)"},
     "2 elements: 2 rounds in 2 conversations; 0 elements skipped",
     {"resp_042c0169d6bd521c00698bc65eba34819395eb8987fb58585f": [2],
      "resp_0cb300e16aa6184400698bc65f73dc81909781c5996c30917d": [2]}, 0),
    # An image moderated: its typed `input` read as a Responses request, the answer as a problem.
    ("ruby-llm-openai-moderation-image.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 0 rounds in 0 conversations; 1 interaction not a model call; 0 interactions skipped", {}, 0),
    # A PDF uploaded to the Files API before the call that reads it: its bytes were parsed as a Batch input file.
    ("ruby-llm-openai-file-then-chat.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 1 round in 1 conversation; 1 interaction not a model call; 0 interactions skipped",
     {"resp_09d8b18e59e7f299016a85bee917e887d2bee9426ad11ed885": [1]}, 0),
    # Cohere's chat told to replace its instructions: the old system message left out, the new one after the answer.
    ("ruby-llm-cohere-instructions-replaced.yml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 0),
    # ldp's online trainer asks the same question five times, the last two with memories of earlier attempts added as
    # a second user message and no answer sent back: five calls, which were merged into three conversations.
    ("ldp-online-trainer-memories-added.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "5 interactions: 5 rounds in 5 conversations; 0 interactions skipped",
     {"conversation 1": [1], "conversation 2": [1], "conversation 3": [1], "conversation 4": [2],
      "conversation 5": [2]}, 5),
    # Mirascope's re-ask with the answer it names taken out: the conversation goes on without it (the check says so).
    ("mirascope-openai-validation-retry-answer-left-out.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 3]}, 0),
    # Harbor's ATIF trajectory (terminus-2): "no line of the file matches a known log format; none comes close".
    ("harbor-terminus2-invalid-json.trajectory.json",
     {"atif": "'schema_version' 'ATIF-v1.5' beside 'steps' (an ATIF agent trajectory)"},
     "1 document: 4 rounds in 1 conversation; 0 documents skipped",
     {"session NORMALIZED_SESSION_ID": [1, 3, 5, 7]}, 3),
    # Harbor's terminus-2 summarizing its context mid-run: the rounds after the handoff showed the whole history before
    # it resent, with Harbor's "Performed context summarization" note as a system message the model never saw.
    ("harbor-terminus2-context-summarization.trajectory.json",
     {"atif": "'schema_version' 'ATIF-v1.5' beside 'steps' (an ATIF agent trajectory)"},
     "1 document: 7 rounds in 2 conversations; 0 documents skipped",
     {"session NORMALIZED_SESSION_ID": [1, 3, 5], "session NORMALIZED_SESSION_ID, after handoff 1": [1, 3, 5, 7]}, 7),
    # A WireMock stub mapping (SAP's ai-sdk-java): "no line of the file matches a known log format; none comes close
    # (the first object's keys: 'request', 'response')".
    ("sap-ai-sdk-wiremock-chat-completion.json", {"wiremock": WIREMOCK},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 0),
    # openai-dotnet's test-proxy recording (`SessionRecords`, the Azure SDKs' format): "no line of the file matches a
    # known log format; none comes close (the first object's keys: 'Entries', 'Variables')".
    ("openai-dotnet-consecutive-tool-calls.json", {"test-proxy": TEST_PROXY},
     "3 entries: 3 rounds in 1 conversation; 0 entries skipped", {"conversation 1": [1, 3, 5]}, 2),
    # A spoken answer streamed (`gpt-audio-1.5`): its chunks between the audio deltas carry no 'choices' at all, and
    # the stream was refused ("'choices' is missing, expected a list").
    ("openai-dotnet-audio-stream-chunks-without-choices.json", {"test-proxy": TEST_PROXY},
     "1 entry: 1 round in 1 conversation; 0 entries skipped", {"conversation 1": [1]}, 0),
    # A stored completion (`store: true`) updated by its id (`POST /v1/chat/completions/<id>` with `metadata` alone),
    # deleted, then looked up: the update was read as a second call, "conversation 2: 1 round, messages not in the log".
    ("openai-dotnet-stored-chat-updated.json", {"test-proxy": TEST_PROXY},
     "4 entries: 1 round in 1 conversation; 3 entries not model calls; 0 entries skipped", {"conversation 1": [1]}, 0),
    # The Responses API's built-in tools the program runs: an `apply_patch_call` (a file edit under `operation`) and a
    # `computer_call` (an action) were read as empty answers, and their outputs as assistant turns.
    ("openai-dotnet-apply-patch-call.json", {"test-proxy": TEST_PROXY},
     "2 entries: 2 rounds in 1 conversation; 0 entries skipped",
     {"resp_0e6d9ab2ae9cbf5c0069cf1a4c46088197846df22acaf7a6ec": [2, 4]}, 1),
    ("openai-dotnet-computer-call-screenshot.json", {"test-proxy": TEST_PROXY},
     "2 entries: 2 rounds in 1 conversation; 0 entries skipped",
     {"resp_0941082ef2da2799006984574500f48197838011971ee1ecbd": [2, 4]}, 2),
    # The Assistants API creating a thread with its `messages` (none here) and metadata: it was "a model call to
    # api.openai.com/v1/threads, an API Roundtrip does not read", though no model is called until a run.
    ("openai-dotnet-assistants-thread-created.json", {"test-proxy": TEST_PROXY},
     "5 entries: 0 rounds in 0 conversations; 5 entries not model calls; 0 entries skipped", {}, 0),
    # A conversation created with a system message (`POST /v1/conversations` with `items`), then a Responses call in
    # it: the system message the provider held was left out of the request shown.
    ("openai-dotnet-conversation-created-with-instructions.json", {"test-proxy": TEST_PROXY},
     "4 entries: 1 round in 1 conversation; 3 entries not model calls; 0 entries skipped",
     {"conv_6a3f193a23f08197a8aaeee38622750f0903dc172c433d83": [2]}, 0),
    # The same question four times under each tool_choice; under "none" the model answers "I will find the number
    # ..." in text, which was warned of as a call it failed to make (narration-without-call).
    ("openai-dotnet-tool-choice-none-narrates.json", {"test-proxy": TEST_PROXY},
     "4 entries: 4 rounds in 4 conversations; 0 entries skipped",
     {"conversation 1": [1], "conversation 2": [1], "conversation 3": [1], "conversation 4": [1]}, 3),
    # A spoken question (`input_audio`, base64) answered in sound, then asked again with the answer's audio id.
    ("openai-dotnet-audio-input.json", {"test-proxy": TEST_PROXY},
     "2 entries: 2 rounds in 1 conversation; 0 entries skipped", {"conversation 1": [1, 3]}, 0),
    # A PDF sent inline (Chat Completions' `file` part, base64), and one sent by the id of an upload (the Responses
    # API's `input_file`).
    ("openai-dotnet-chat-file-base64.json", {"test-proxy": TEST_PROXY},
     "1 entry: 1 round in 1 conversation; 0 entries skipped", {"conversation 1": [1]}, 0),
    ("openai-dotnet-responses-file-id.json", {"test-proxy": TEST_PROXY},
     "2 entries: 1 round in 1 conversation; 1 entry not a model call; 0 entries skipped",
     {"resp_08a8c45c633a2f980068c9f40f94a48197b7fcd710160c2c23": [1]}, 0),
    # A background call (`background: true`) answered `queued`, then cancelled: it was shown as an empty answer that
    # stopped on its own ("(stop)"), the cancellation as no model call.
    ("openai-dotnet-background-cancelled.json", {"test-proxy": TEST_PROXY},
     "2 entries: 1 round in 1 conversation; 0 entries skipped",
     {"resp_0a3365ff556124e80068c9ef39d03881939a80f61fb572fe25": [1]}, 0),
    # The same spoken answer's events alone: its last chunk (the audio's `expires_at`) follows the usage chunk that ends
    # the answer, and was read as a second answer in a conversation of its own.
    ("openai-dotnet-audio-stream.sse", {"openai-chat-stream": "object is 'chat.completion.chunk'"},
     "56 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # A Chat Completions body sent to Bedrock's InvokeModel (AI21's Jamba) names no model: both were left out as an API
    # not read, and the stream's last chunk (Bedrock's own invocation metrics) was read as a chunk without choices.
    ("ddtrace-js-bedrock-invoke-jamba.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 0),
    ("ddtrace-js-bedrock-invoke-stream-jamba.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 0),
    # Cohere's Command R through InvokeModel: a v1 chat body whose model only the path names, left out before.
    ("ddtrace-js-bedrock-invoke-cohere.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    ("ddtrace-js-bedrock-invoke-stream-cohere.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [1]}, 0),
    # The Datadog test agent writes a binary body as `base64:` and its bytes: this ConverseStream answer was lost.
    ("ddtrace-js-bedrock-converse-stream-base64.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 1),
    # any-agent's trace ({"spans": [...]} in its own words: call_llm, execute_tool): no format read it.
    ("any-agent-tinyagent-trace.json",
     {"any-agent": "'spans' of any-agent's operations ('gen_ai.operation.name' 'call_llm')"},
     "1 document: 4 rounds in 1 conversation; 0 documents skipped",
     {"9707d5fd6d4a546d47757044c6127e04": [2, 4, 6, 0]}, 3),
    # any-agent driving Agno: its tool runs carry their call ids, which were made up ("call_1_1").
    ("any-agent-agno-tool-call-ids.json",
     {"any-agent": "'spans' of any-agent's operations ('gen_ai.operation.name' 'call_llm')"},
     "1 document: 3 rounds in 1 conversation; 0 documents skipped",
     {"1de0532b350588ff152b1edf6bf358b3": [2, 4, 6]}, 2),
    # any-agent driving the OpenAI Agents SDK: write_file returned None, which any-agent writes as `{}`.
    ("any-agent-openai-write-returned-nothing.json",
     {"any-agent": "'spans' of any-agent's operations ('gen_ai.operation.name' 'call_llm')"},
     "1 document: 3 rounds in 1 conversation; 0 documents skipped",
     {"4bedea77bb33b9c5f280371eae21ea97": [2, 4, 6]}, 2),
    # A 401 whose body the test agent kept brotli-compressed: checks said the provider "sent no words: the response
    # body was empty".
    ("ddtrace-js-claude-agent-sdk-401-brotli.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 0),
    # The http_snapshot plugin's recording (the Anthropic Python SDK's tests): matched no format ("closest: VCR
    # cassette: the interaction's response has no status"); a Messages answer's own `content` then read as its body.
    ("anthropic-py-tool-runner-http-snapshot.json",
     {"vcr-cassette": "an interaction with request.url and response.status_code beside the body (an http_snapshot "
                      "recording)"},
     "2 elements: 2 rounds in 1 conversation; 0 elements skipped", {"conversation 1": [1, 3]}, 1),
    # The Python SDK's tool runner stopped on its compaction (the summary call last, no request after it): the summary
    # call was a conversation of its own.
    ("anthropic-py-tool-runner-compaction-summary.json",
     {"vcr-cassette": "an interaction with request.url and response.status_code beside the body (an http_snapshot "
                      "recording)"},
     "2 elements: 2 rounds in 1 conversation; 0 elements skipped", {"conversation 1": [1, 2]}, 1),
    # The Python SDK's retries: two 429s, then a 200, for one request: one round with its three tries (each attempt
    # was a conversation of its own, then a round of its own).
    ("anthropic-py-rate-limited-twice-then-answered.json",
     {"vcr-cassette": "an interaction with request.url and response.status_code beside the body (an http_snapshot "
                      "recording)"},
     "3 elements: 1 round in 1 conversation; 1 round sent more than once (conversation 1, round 1: HTTP 429, HTTP "
     "429, then an answer); 0 elements skipped", {"conversation 1": [1]}, 0),
    # The Anthropic SDK's tool runner compacting its history (a summary asked for, then sent as the only turn): the
    # summary call and the request after it were each a conversation of their own.
    ("anthropic-ts-tool-runner-compaction.json", {"nock": "'scope', 'method' and 'path' beside the response (a nock "
                                                          "recording)"},
     "4 elements: 4 rounds in 1 conversation; 0 elements skipped", {"conversation 1": [1, 2, 3, 4]}, 1),
    # DSPy's LM request: its messages' text under 'parts' was lost (read as a Chat Completions request of 2 messages
    # with no content).
    ("dspy-rlm-lm-request.json",
     {"dspy-request": "a 'model' and 'config' beside 'messages' of 'role' and 'parts' (DSPy's LMRequest)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [2]}, 0),
    # gpt-audio answering in sound (`content: null`, the words in `message.audio.transcript`).
    ("ddtrace-js-gpt-audio-spoken-answer.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [1]}, 0),
    # A Responses call that names a stored prompt sends no `input`: it was refused as "'input' is missing".
    ("ddtrace-js-responses-stored-prompt.json",
     {"vcr-cassette": "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"},
     "1 document: 1 round in 1 conversation; 0 documents skipped",
     {"resp_0ad4b7b2f5fecc8901692080d2711081a3a7194436f369c9e8": [2]}, 0),
    # AutoGPT 0.3 rewrites its history before each step (a memory message among the system ones, older turns left
    # out) and asks for a summary between steps: its three steps were three conversations of one round each.
    ("autogpt-memory-challenge-b.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                          "cassette)"},
     "5 interactions: 5 rounds in 3 conversations; 0 interactions skipped",
     {"conversation 1": [3, 7, 8], "conversation 2": [1], "conversation 3": [1]}, 0),
    # Harbor's continuation after a context summary: its copied agent step (a call of the run before) was a round.
    ("harbor-terminus2-linear-history.trajectory.cont-1.json",
     {"atif": "'schema_version' 'ATIF-v1.5' beside 'steps' (an ATIF agent trajectory)"},
     "1 document: 4 rounds in 1 conversation; 0 documents skipped",
     {"session NORMALIZED_SESSION_ID": [4, 6, 8, 10]}, 0),
    # Go's go-vcr cassette (charmbracelet/fantasy's provider tests): the request under `url`, the status as "200 OK"
    # beside `code: 200`. It matched no format ("none comes close"), as all 350 of fantasy's cassettes did.
    ("fantasy-go-vcr-openai-multi-tool.yaml", {"vcr-cassette": GO_VCR},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 5]}, 2),
    # Avian's streamed answers (Kimi K2.5 through OpenRouter): Avian writes the first chunk under its own id
    # (`chatcmpl-...`), OpenRouter's chunks follow under theirs (`gen-...`). Only the first chunk was read, as a
    # whole answer: no call, no finish reason, no usage, 0 tokens out.
    ("fantasy-avian-proxy-chunk-ids.yaml", {"vcr-cassette": GO_VCR},
     "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped", {"conversation 1": [2, 4]}, 1),
    # An audio transcription whose multipart form the recorder replaced by `[multipart form data omitted]`: the
    # interaction was skipped as damage ("the request body ... is not valid JSON") where it is no model call.
    ("envoy-go-vcr-transcription-form-omitted.yaml", {"vcr-cassette": GO_VCR},
     "1 interaction: 0 rounds in 0 conversations; 1 interaction not a model call; 0 interactions skipped", {}, 0),
    # Kinetica's SQL assistant answers /chat/completions inside its own envelope: the round showed no answer and said
    # nothing of why (now a note names the body's keys).
    ("langchain-kinetica-wrapped-answer.yaml", {"vcr-cassette": "an interaction with request.uri and response.status (a VCR "
                                                                "cassette)"},
     "1 interaction: 1 round in 1 conversation; 0 interactions skipped", {"conversation 1": [4]}, 0),
    # Gemini's stream as the API sent it in 2024: every chunk names finishReason STOP, none a responseId. Each chunk
    # was an answer of its own: 7 conversations of one round, the text cut in pieces.
    ("gemini-js-stop-on-every-chunk.sse", {"gemini": "a bare Google Gemini generateContent response"},
     "14 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 0),
    # A prompt Gemini blocked, answered with its feedback alone (no usage, no model version): "no line of the file
    # matches a known log format; none comes close".
    ("gemini-js-prompt-blocked.json", {"gemini": "a bare Google Gemini generateContent response"},
     "1 document: 1 round in 1 conversation; 0 documents skipped", {"conversation 1": [0]}, 0),
    # The Avian answer of `fantasy-avian-proxy-chunk-ids.yaml`, its body alone: two answers, the first Avian's one
    # chunk with no finish reason, no call and 0 tokens out.
    ("fantasy-avian-proxy-answer.sse", {"openai-chat-stream": "object is 'chat.completion.chunk'"},
     "102 lines: 1 round in 1 conversation; 0 lines skipped", {"conversation 1": [0]}, 1),
    # llama_index's ReAct agent run twice on "What is 2 times 3?" (openllmetry's cassette): each run is a conversation
    # of its own, the second run's observation request placed after the second run's first call.
    ("ollm-llamaindex-react-run-twice.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "5 interactions: 5 rounds in 2 conversations; 0 interactions skipped",
     {"conversation 1": [2, 2, 4], "conversation 2": [2, 4]}, 0),
    # llama_index's ReAct agent over Cohere's v1 chat, run twice (openllmetry's cassette): each run writes two actions
    # in its text and answers; the SQL tool's own calls to the model are conversations of their own.
    ("ollm-llamaindex-cohere-react.yaml",
     {"vcr-cassette": "an interaction with request.uri and response.status (a VCR cassette)"},
     "12 interactions: 12 rounds in 6 conversations; 0 interactions skipped",
     {"conversation 1": [2, 4, 6], "conversation 2": [1], "conversation 3": [1], "conversation 4": [2, 2, 2, 4, 6],
      "conversation 5": [1], "conversation 6": [1]}, 0),
]


def upload(name, data=None):
    """The upload of one fixture, or of `data` under `name`."""
    return read_upload([(name, (FIXTURES / name).read_bytes() if data is None else data)])


def texts(trace):
    return [r.response.message.text for r in trace.rounds if r.response is not None]


@pytest.mark.parametrize("name, rules, summary, shape, calls", EXPECTED, ids=[row[0] for row in EXPECTED])
def test_each_recording_reads_to_its_expected_summary_naming_the_rule(name, rules, summary, shape, calls):
    result = upload(name)
    assert {format: rule for format, (_, rule) in result.formats.items()} == rules
    assert result.summary() == summary
    assert result.problems == ()
    assert {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in result.conversations} == shape
    assert sum(len(r.tool_calls) for c in result.conversations for r in c.trace.rounds) == calls


def test_every_container_fixture_is_covered():
    assert {row[0] for row in EXPECTED} == {p.name for p in FIXTURES.iterdir() if p.suffix != ".md"}


# --- Inspect AI --------------------------------------------------------------------------------------


def _solver_and_scorer(result):
    """Sample 1's model call and its grader's, each the first round of its own conversation."""
    by_id = {c.id: c.trace for c in result.conversations}
    return by_id["sample 1 epoch 1"].rounds[0], by_id["sample 1 epoch 1, scorer model_graded_qa"].rounds[0]


def test_a_graders_model_call_is_a_conversation_of_its_own_not_a_round_of_the_sample():
    # model_graded_qa asks another model to grade the answer: a new conversation, not the sample's history
    # rewritten, and with no tool offered, its "I'll look at what was submitted" is no narration without a call.
    result = upload("inspect-system-prompt.json")
    solver, scorer = _solver_and_scorer(result)
    assert texts_of(solver) == "4" and texts_of(scorer).endswith("GRADE: C")
    assert [f.code for c in result.conversations for f in run_checks(c.trace)] == []


def test_inspect_attachments_are_put_back_into_the_recorded_bodies():
    _, scorer = _solver_and_scorer(upload("inspect-system-prompt.json"))
    asked = scorer.request.messages[0].text
    assert asked.startswith("\nYou are assessing a submitted answer") and "attachment://" not in asked
    assert texts_of(scorer).endswith("GRADE: C")


def texts_of(round_):
    return round_.response.message.text


def test_inspect_eval_rounds_carry_the_providers_own_bodies_and_latency():
    first, second = upload("inspect-arithmetic-with-tool.eval").conversations[0].trace.rounds
    assert first.request.raw["model"] == "claude-3-5-sonnet-latest"
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("take_sum", {"x": 71, "y": 31})]
    assert texts_of(second) == "71 + 31 = 102"
    assert first.latency_ms == pytest.approx(2129.7, abs=0.1)
    assert first.response.usage.input_tokens == 416


def _cassette_bodies(name):
    import yaml
    interactions = yaml.safe_load((FIXTURES / name).read_bytes())["interactions"]
    return [(i["request"]["parsed_body"], i["response"]["parsed_body"]) for i in interactions]


def _inspect_log_calling(bodies):
    """The real Inspect log, its first sample's model calls replaced by other recorded provider bodies, all made by
    the solver (the log's second call was the scorer's)."""
    import json
    log = json.loads((FIXTURES / "inspect-system-prompt.json").read_bytes())
    models = [e for e in log["samples"][0]["events"] if e["event"] == "model"]
    for event, (request, response) in zip(models, bodies):
        event["call"] = {"request": request, "response": response, "time": 0.5}
        event["span_id"] = models[0]["span_id"]  # one solver's tool loop: every call in its generate span
    return json.dumps(log).encode()


@pytest.mark.parametrize("cassette, converted", [("pydantic-ai-openai-tool-calls.yaml", None),
                                                 ("pydantic-ai-openai-responses.yaml", "openai-responses")])
def test_inspect_calls_to_openai_are_read_in_their_own_api(cassette, converted):
    result = upload("log.json", _inspect_log_calling(_cassette_bodies(cassette)))
    assert result.problems == ()
    first, second = result.conversations[0].trace.rounds
    assert result.conversations[0].id == "sample 1 epoch 1"
    assert [c.name for c in first.tool_calls] in (["get_temperature"], ["get_capital"])
    assert texts_of(second) in ("The temperature in Tokyo is currently 20.0 degrees Celsius.",
                                "The capital of PotatoLand is Potato City.")
    assert first.extra.get("converted_from") == converted and first.latency_ms == 500


def test_model_events_without_a_provider_call_are_read_from_inspects_own_messages():
    import json
    log = json.loads((FIXTURES / "inspect-system-prompt.json").read_bytes())
    for event in log["samples"][0]["events"]:
        event.pop("call", None)
    result = upload("log.json", json.dumps(log).encode())
    assert result.problems == ()
    solver, scorer = _solver_and_scorer(result)
    assert [m.role for m in solver.request.messages] == ["system", "user"]
    assert solver.request.messages[0].text == "Be terse." and texts_of(solver) == "4"
    assert scorer.request.messages[0].text.startswith("\nYou are assessing a submitted answer")
    assert texts_of(scorer).endswith("GRADE: C")
    assert solver.extra["converted_from"] == "inspect" and solver.response.usage.input_tokens == 18


def test_a_model_event_with_nothing_to_read_is_named_and_the_other_samples_still_load():
    import json
    log = json.loads((FIXTURES / "inspect-system-prompt.json").read_bytes())
    for event in log["samples"][0]["events"]:
        event.pop("call", None)
        event.pop("input", None)
    result = upload("log.json", json.dumps(log).encode())
    assert [str(p) for p in result.problems] == [
        "line 1: sample 1 epoch 1, model call 1: neither a provider call nor Inspect's 'input' messages "
        "were recorded (read as Inspect AI eval log)"]
    assert [c.id for c in result.conversations] == ["sample 2 epoch 1", "sample 2 epoch 1, scorer model_graded_qa"]


def test_a_scorers_call_in_a_log_written_before_spans_is_a_conversation_of_its_own_too():
    # Older Inspect logs bracket a scorer's events with `step` events instead of spans (0.3.42 wrote
    # inspect-popularity-azureai.eval so).
    import json
    log = json.loads((FIXTURES / "inspect-system-prompt.json").read_bytes())
    for sample in log["samples"]:
        for event in sample["events"]:
            if event["event"] in ("span_begin", "span_end"):
                action = "begin" if event["event"] == "span_begin" else "end"
                event.update(event="step", action=action, type=event.get("type"), name=event.get("name"))
            event.pop("span_id", None)
    result = upload("log.json", json.dumps(log).encode())
    assert {c.id: len(c.trace.rounds) for c in result.conversations} == {
        "sample 1 epoch 1": 1, "sample 1 epoch 1, scorer model_graded_qa": 1,
        "sample 2 epoch 1": 1, "sample 2 epoch 1, scorer model_graded_qa": 1}


def test_a_sample_nested_past_pythons_recursion_limit_is_named_not_raised():
    request = b"[" * 1000 + b"]" * 1000
    log = b'{"eval": {}, "samples": [{"id": 7, "epoch": 1, "events": [{"event": "model", "call": {"request": %s}}]}]}' % request
    assert [str(p) for p in upload("deep.json", log).problems] == [
        "line 1: sample 7 epoch 1: its model events nest too deeply to read (read as Inspect AI eval log)"]


DEEP_YAML = {
    "flow": b"interactions: " + b"[" * 100_000 + b"]" * 100_000,
    "block": b"interactions:\n" + b"- " * 100_000 + b"x\n",
    "indented": b"interactions:\n" + b"".join(b" " * i + b"- \n" for i in range(0, 600, 2)),
    "complex keys": b"interactions:\n" + b"? - " * 50_000 + b"x\n",
    # Brackets inside quoted strings are text, not nesting; a guard that counted the bytes' brackets was fooled by
    # closing ones inside a string ahead of real opening ones, and 200 KB crashed the server.
    "closers quoted first": b"interactions: ['" + b"]" * 100_000 + b"', " + b"[" * 100_000 + b"]" * 100_000 + b"]\n",
    "closers quoted between": b"interactions: " + b"[ ']]]]', " * 50_000 + b"x\n",
}
"""YAML nested 100,000 levels in each way it can be written: enough to crash PyYAML's C composer."""


@pytest.mark.parametrize("shape, line", [("flow", 1), ("block", 2), ("indented", 257), ("complex keys", 2),
                                         ("closers quoted first", 1), ("closers quoted between", 1)])
def test_yaml_nested_past_any_cassette_is_refused_and_the_server_stays_up(shape, line):
    # In a process of its own: a crash there fails this test instead of ending the test run (and, in the app, the
    # server of every visitor).
    import subprocess
    import sys
    read = ("import sys; from lib.logs.upload import read_upload; "
            "print([str(p) for p in read_upload([('deep.yaml', sys.stdin.buffer.read())]).problems])")
    done = subprocess.run([sys.executable, "-c", read], input=DEEP_YAML[shape], capture_output=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()[-500:]
    assert done.stdout.decode().strip() == str(
        [f"line 1: nests deeper than 256 levels at line {line}, which no cassette does; refused"])


def test_a_cassette_recorded_through_aiohttp_reads_its_header_names_as_text():
    # vcrpy's aiohttp stub keeps each header name as multidict's case-insensitive istr, which PyYAML writes as
    # `!!python/object/apply:multidict._multidict.istr [Accept]`: the name is text, never a Python object to build.
    from lib.logs.documents import load_yaml
    result = upload("ddtrace-openai-aiohttp-headers.yaml")
    assert result.problems == ()
    (round_,) = result.conversations[0].trace.rounds
    assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [
        ("call_AMIJLbrlmV1VEtIa4G0nE0Io", "add", {"a": 2, "b": 2})]
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (81, 17)
    assert round_.response.finish_reason == "tool_calls" and round_.response.model == "gpt-4o-mini-2024-07-18"
    cassette = load_yaml((FIXTURES / "ddtrace-openai-aiohttp-headers.yaml").read_bytes())
    headers = cassette["interactions"][0]["request"]["headers"]
    assert headers["User-Agent"] == ["OpenAI/Python 1.98.0"] and headers["Content-Length"] == ["495"]


@pytest.mark.parametrize("key", [b"!!python/object/apply:os.system\n      - ls",
                                 b"!!python/object/apply:multidict._multidict.istr\n      - A\n      - B"])
def test_any_other_python_tag_still_refuses_the_cassette(key):
    body = b"interactions:\n- request:\n    headers:\n      ? " + key + b"\n      : - x\n"
    (problem,) = upload("tagged.yaml", body).problems
    assert "could not determine a constructor for the tag" in str(problem)


def test_yaml_nested_256_levels_in_all_still_reads():
    # Every kind of nesting counts towards the one limit: 120 indented lists, then lists in flow style.
    deep = b"interactions:\n" + b"".join(b" " * (2 * i) + b"-\n" for i in range(120)) \
        + b" " * 240 + b"- " * 60 + b"[" * 75 + b"]" * 75 + b"\n"
    assert [str(p) for p in upload("deep.yaml", deep).problems] == ["line 1: interaction 1 is not an object"]
    deeper = upload("deeper.yaml", deep.replace(b"[]", b"[[]]"))
    assert [deeper.said(p) for p in deeper.problems] == [
        "document 1: nests deeper than 256 levels at line 122, which no cassette does; refused"]


def test_a_broken_eval_zip_is_reported_not_raised():
    data = (FIXTURES / "inspect-arithmetic-with-tool.eval").read_bytes()
    result = upload("cut.eval", data[: len(data) // 2])
    assert result.conversations == ()
    assert "is not a readable .eval (zip) file" in str(result.problems[0])


def test_a_line_log_starting_with_a_zips_signature_is_still_read_line_by_line():
    lines = (FIXTURES.parent / "openai-pairs.jsonl").read_bytes()
    result = upload("calls.jsonl", b"PK\x03\x04" + lines[4:])
    assert result.summary() == "4 lines: 3 rounds in 2 conversations; 1 line skipped"
    assert [p.line for p in result.problems] == [1]


def test_a_zip_bomb_member_is_refused_before_it_is_inflated():
    import io
    import zipfile
    from lib.logs.limits import limits
    line_bytes = limits().line_bytes
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1_epoch_1.json", b" " * (line_bytes + 1))
        real = zipfile.ZipFile(FIXTURES / "inspect-arithmetic-with-tool.eval")
        archive.writestr("samples/2_epoch_1.json", real.read("samples/2_epoch_1.json"))
    assert len(buffer.getvalue()) < 1024 * 1024
    result = upload("bomb.eval", buffer.getvalue())
    assert len(result.problems) == 1 and "samples/1_epoch_1.json (sample 1) inflates to 67,108,865 bytes" in str(result.problems[0])
    assert [c.id for c in result.conversations] == ["sample 2 epoch 1"]



def eval_of_empty_members(count):
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(1, count + 1):
            archive.writestr(f"samples/{number}_epoch_1.json", b"")
    return buffer.getvalue()


def test_an_eval_whose_zip_lists_too_many_members_is_refused_before_any_is_read():
    """Every member a zip lists costs memory and time before any is read, so an .eval listing too many is refused whole."""
    result = upload("members.eval", eval_of_empty_members(50_001))
    assert [str(p) for p in result.problems] == [
        "line 1: the .eval (zip) file lists 50,001 members; the limit is 50,000"]
    assert result.conversations == ()


# --- trajectories ---------------------------------------------------------------------------------------


def test_swe_agent_observations_answer_their_calls_by_id():
    rounds = upload("swe-agent-test-repo.traj").conversations[0].trace.rounds
    assert [c.name for r in rounds for c in r.tool_calls] == ["find_file", "open", "edit", "bash"]
    answered = rounds[1].request.raw["messages"][3]
    assert answered["role"] == "tool" and answered["tool_call_id"] == rounds[0].tool_calls[0].id
    assert not {"agent", "message_type", "thought", "action"} & set(rounds[1].request.raw["messages"][2])
    assert rounds[0].extra["derived"] == ["request", "usage", "finish"]


def test_a_swe_agent_run_says_what_its_own_model_stats_counted_beside_our_figures_never_in_them():
    # info.model_stats: 7,141 tokens sent, 243 received over 5 API calls, as SWE-agent counted them itself.
    result = upload("swe-agent-test-repo.traj")
    said = [n.message for n in result.notes if "model_stats" in n.message and "tokens sent" in n.message]
    assert said == ["the run's own info.model_stats: 7,141 tokens sent, 243 received over 5 API calls. SWE-agent "
                    "counted these itself: the rounds' token figures here are our own, and neither is added to the "
                    "other."]
    usages = [r.response.usage for r in result.conversations[0].trace.rounds]
    assert all(u is None or u.input_tokens != 7141 for u in usages)


def test_a_swe_agent_run_without_model_stats_says_nothing_of_them():
    import json
    run = json.loads((FIXTURES / "swe-agent-test-repo.traj").read_bytes())
    del run["info"]["model_stats"]
    run["info"]["extra"] = {"model_stats": "not stats"}
    assert not [n for n in upload("run.traj", json.dumps(run).encode()).notes if "tokens sent" in n.message]


def test_a_broken_episode_is_named_and_the_next_one_still_loads():
    import json
    episodes = json.loads((FIXTURES / "tau-bench-airline.json").read_bytes())
    episodes[0]["traj"][3] = "not a message"
    result = upload("results.json", json.dumps(episodes).encode())
    assert [str(p) for p in result.problems] == [
        "line 1: traj[3] is a string, expected a message object (read as Agent episode (tau-bench style))"]
    assert [c.id for c in result.conversations] == ["episode 2 (task 35, trial 3)"]


# --- cassettes and HAR --------------------------------------------------------------------------------------


def test_a_streamed_cassette_body_is_assembled_into_one_message():
    round_ = upload("pydantic-ai-anthropic-stream.yaml").conversations[0].trace.rounds[0]
    assert texts_of(round_).startswith("I notice that you've sent what appears to be some kind of test string")
    assert round_.response.raw["stop_reason"] == "end_turn"
    assert round_.response.usage.output_tokens == 189


def _vcrpy_cassette(status, body, content_type="application/json"):
    import yaml
    request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Weather in Oslo?"}]}
    import json
    return yaml.safe_dump({"version": 1, "interactions": [
        {"request": {"method": "GET", "uri": "https://example.test/token", "body": None, "headers": {}},
         "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "ok"}}},
        {"request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions",
                     "body": json.dumps(request), "headers": {"Content-Type": ["application/json"]}},
         "response": {"status": {"code": status, "message": ""},
                      "headers": {"Content-Encoding": ["gzip"], "Content-Type": [content_type]},
                      "body": {"string": body}}},
    ]}).encode()


def test_a_vcrpy_gzip_body_recorded_as_binary_is_opened():
    import gzip
    import json
    answer = {"id": "chatcmpl-9", "object": "chat.completion", "model": "gpt-4o-mini", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Sunny, 18 °C."}, "finish_reason": "stop"}]}
    data = _vcrpy_cassette(200, gzip.compress(json.dumps(answer).encode()))
    assert b"!!binary" in data
    result = upload("test_weather.yaml", data)
    assert result.problems == ()
    assert [texts(c.trace) for c in result.conversations] == [["Sunny, 18 °C."]]


def test_a_refused_call_in_a_cassette_is_an_error_round_with_the_providers_words():
    import json
    body = json.dumps({"error": {"message": "Invalid 'messages[1].tool_call_id'", "type": "invalid_request_error"}})
    round_ = upload("test_refused.yaml", _vcrpy_cassette(400, body)).conversations[0].trace.rounds[0]
    assert round_.response is None
    assert (round_.error.status, round_.error.message) == (400, "Invalid 'messages[1].tool_call_id'")


def test_a_call_whose_answer_was_recorded_empty_says_so_beside_its_round():
    # openinference's BeeAI cassette: its second call's 200 answer has an empty body (line 182).
    result = upload("test_empty.yaml", _vcrpy_cassette(200, ""))
    assert result.rounds == 1 and result.conversations[0].trace.rounds[0].response is None
    assert [result.said(n) for n in result.notes] == [
        "interaction 2: the response body was recorded empty (HTTP 200): the round shows the request alone"]


def test_a_streamed_chat_completion_in_a_cassette_is_assembled_with_its_tool_call():
    import json
    head = {"id": "chatcmpl-7", "object": "chat.completion.chunk", "created": 1767607200, "model": "gpt-4o-mini"}
    deltas = [{"role": "assistant", "content": None, "tool_calls": [
                  {"index": 0, "id": "call_w1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
              {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]},
              {"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}]
    chunks = [{**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    round_ = upload("test_stream.yaml", _vcrpy_cassette(200, body, "text/event-stream")).conversations[0].trace.rounds[0]
    assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [("call_w1", "get_weather", {"city": "Oslo"})]
    assert round_.response.finish_reason == "tool_calls"


def test_a_go_vcr_cassette_rebuilds_its_tool_loop_with_the_calls_and_the_answer():
    conversation, = upload("fantasy-go-vcr-openai-multi-tool.yaml").conversations
    first, second = conversation.trace.rounds
    assert conversation.trace.model == "gpt-4o"
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("add", {"a": 2, "b": 3}), ("multiply", {"a": 2, "b": 3})]
    assert [p.call_id for m in second.request.messages for p in m.tool_results] == [c.id for c in first.tool_calls]
    assert texts(conversation.trace)[-1] == "The result of adding 2 and 3 is 5, and the result of multiplying 2 and 3 is 6."
    assert (first.response.usage.input_tokens, second.response.usage.output_tokens) == (110, 28)


def test_a_go_vcr_status_code_is_the_rounds_http_status():
    cassette = (FIXTURES / "fantasy-go-vcr-openai-multi-tool.yaml").read_text()
    refused = cassette.replace("status: 200 OK\n    code: 200", "status: 429 Too Many Requests\n    code: 429", 1)
    assert refused != cassette
    first = upload("refused.yaml", refused.encode()).conversations[0].trace.rounds[0]
    assert first.error is not None and first.error.status == 429


def test_a_streamed_body_whose_chunks_change_id_midway_is_still_one_answer():
    first, second = upload("fantasy-avian-proxy-chunk-ids.yaml").conversations[0].trace.rounds
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("functions.weather:0", "weather", {"location": "Florence,Italy"})]
    assert first.response.finish_reason == "tool_calls"
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (76, 96)
    assert first.response.usage.reasoning_tokens == 85
    assert second.response.finish_reason == "stop"
    assert texts(upload("fantasy-avian-proxy-chunk-ids.yaml").conversations[0].trace)[-1].startswith(
        " The weather in Florence, Italy is **40°C (104°F)**.")


def test_an_answer_in_neither_apis_shape_is_named_in_a_note_not_dropped_in_silence():
    result = upload("langchain-kinetica-wrapped-answer.yaml")
    round_, = result.conversations[0].trace.rounds
    assert round_.response is None and round_.error is None
    assert [result.said(n) for n in result.notes] == [
        "interaction 1: the response body is a JSON object in neither Chat Completions' nor Anthropic Messages' shape "
        "(its keys: 'status', 'data'): the round shows the request alone, its answer not read"]


def test_a_gemini_stream_that_says_stop_on_every_chunk_is_one_answer_in_a_file_of_server_sent_events():
    round_, = upload("gemini-js-stop-on-every-chunk.sse").conversations[0].trace.rounds
    assert round_.response.message.text.startswith(
        "The current stock price for Alphabet Inc. (Google) Class C (GOOG) is \\$166.79 USD. This price reflects")
    assert round_.response.message.text.endswith("financial websites like Google Finance or TradingView.\n")
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (8, 106)


def test_gemini_chunks_each_finished_on_lines_of_their_own_are_still_answers_of_their_own():
    # Outside a body of server-sent events, a line that names its finishReason is a whole answer (a log of them).
    sse = (FIXTURES / "gemini-js-stop-on-every-chunk.sse").read_text()
    lines = "\n".join(line.removeprefix("data: ") for line in sse.splitlines() if line.startswith("data: "))
    assert upload("answers.jsonl", lines.encode()).summary() == "7 lines: 7 rounds in 7 conversations; 0 lines skipped"


def test_a_yaml_alias_bomb_is_refused():
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n".encode()
        for i in range(9)) + b"interactions: [*j]\n"
    result = upload("bomb.yaml", bomb)
    assert [str(p) for p in result.problems] == [
        "line 1: uses YAML anchors and aliases (&name / *name), which cassettes never do; refused"]


@pytest.mark.parametrize("anchored", ["'{\"model\": \"gpt-4o\", \"messages\": []}'", "!!binary eyJtb2RlbCI6IDF9"])
def test_an_alias_of_one_string_is_refused_too(anchored):
    # A megabyte body anchored once and named by every interaction: the file stays one body long, the work grows
    # with the interactions that name it.
    line = "- request: {{method: POST, uri: 'https://api.openai.com/v1/chat/completions', body: {}}}\n" \
           "  response: {{status: {{code: 200}}, body: {{string: '{{}}'}}}}\n"
    bomb = ("interactions:\n" + line.format("&b " + anchored) + line.format("*b") * 3).encode()
    result = upload("bomb.yaml", bomb)
    assert [str(p) for p in result.problems] == [
        "line 1: uses YAML anchors and aliases (&name / *name), which cassettes never do; refused"]


def test_a_body_nested_past_what_python_can_walk_is_named_and_the_next_entry_still_loads():
    import json
    har = json.loads((FIXTURES / "openai-tool-calls.har").read_bytes())
    body = har["log"]["entries"][1]["request"]["postData"]["text"].rstrip()
    har["log"]["entries"][1]["request"]["postData"]["text"] = body[:-1] + ', "metadata": ' + "[" * 1000 + "]" * 1000 + "}"
    result = upload("deep.har", json.dumps(har).encode())
    (problem,) = result.problems
    assert result.said(problem) == ("entry 2: the request body of POST https://api.openai.com/v1/chat/completions nests "
                                    "more than 200 levels deep; no model call does (read as HAR (browser network log))")
    assert result.rounds == 1


def test_a_cassette_of_more_yaml_nodes_than_any_cassette_holds_is_refused_before_they_are_built():
    # Each node is a Python object of about 300 bytes once composed: 4-byte `- a` lines held 76 times their size,
    # and a 64 KB .yaml.gz of 64 MB of them held 5 GB and 2 minutes of the server.
    # The events are counted as the values are built from them: refused at the limit (2.5 million short strings, some
    # 200 MB for a moment), named by the line it was reached at.
    import gzip
    packed = gzip.compress(b"interactions:\n" + b"- a\n" * 2_600_000)
    assert len(packed) < 32 * 1024
    result = upload("many.yaml.gz", packed)
    assert [str(p) for p in result.problems] == [
        "line 1: holds more than 2,500,000 YAML nodes by line 2,499,997, which no cassette does; refused"]


def test_yaml_that_does_not_parse_is_named_by_its_line():
    result = upload("broken.yaml", b"interactions:\n- request: {method: POST\n  response: [\n")
    assert len(result.problems) == 1 and "is not valid YAML at line" in result.problems[0].message


def test_a_yaml_tag_that_would_run_code_is_refused_by_the_safe_loader():
    result = upload("evil.yaml", b"interactions: !!python/object/apply:os.system ['true']\n")
    assert result.conversations == () and "is not valid YAML" in result.problems[0].message
    assert result.summary() == "1 document: 0 rounds in 0 conversations; 1 document skipped"  # no interaction was read


@pytest.mark.parametrize("value, said", [
    ("9" * 5000, f"the int '{'9' * 40}' cannot be read (Exceeds the limit (4300 digits)"),
    ("2026-13-45T10:00:00Z", "the timestamp '2026-13-45T10:00:00Z' cannot be read (month must be in 1..12)"),
    ("!!timestamp 'not a time'", "the timestamp 'not a time' cannot be read)"),
    ("!!float 'x'", "the float 'x' cannot be read (could not convert string to float: 'x'))"),
    ("!!bool 'maybe'", "the bool 'maybe' cannot be read)"),
])
def test_a_cassette_value_the_safe_loader_cannot_build_is_named_with_its_line_not_raised(value, said):
    data = (b"interactions:\n- request: {uri: 'https://api.openai.com/v1/chat/completions', method: POST}\n"
            b"  response:\n    status: " + value.encode() + b"\n")
    result = upload("bad-value.yaml", data)
    (problem,) = result.problems
    assert result.said(problem).startswith(f"document 1: is not valid YAML at line 4 ({said}")


@pytest.mark.parametrize("name, wrap, unit", [("cassette.yaml.gz", "gzip", "0 interactions"),
                                              ("export.har", "bom", "1 entry not a model call; 0 entries")])
def test_a_gzipped_or_bom_prefixed_document_is_still_one_document(name, wrap, unit):
    import gzip
    source = "pydantic-ai-openai-tool-calls.yaml" if wrap == "gzip" else "openai-tool-calls.har"
    data = (FIXTURES / source).read_bytes()
    data = gzip.compress(data) if wrap == "gzip" else b"\xef\xbb\xbf" + data
    result = upload(name, data)
    assert result.problems == () and result.summary().endswith(f"2 rounds in 1 conversation; {unit} skipped")


def test_har_other_traffic_is_passed_over_and_base64_bodies_are_opened():
    rounds = upload("openai-tool-calls.har").conversations[0].trace.rounds
    assert texts_of(rounds[1]) == "The temperature in Tokyo is currently 20.0 degrees Celsius."
    assert [c.name for c in rounds[0].tool_calls] == ["get_temperature"]


@pytest.mark.parametrize("recorded, same_calls_in", [
    ("chromium-openai-tool-calls.har", FIXTURES / "openai-tool-calls.har"),
    ("chromium-openai-stream.har", FIXTURES.parent / "openai-chat-stream-with-request.jsonl"),
])
def test_a_har_chromium_recorded_rebuilds_the_calls_it_carried(recorded, same_calls_in):
    # The same recorded exchanges, fetched by a page in Chromium: as the built HAR and the
    # request-plus-stream lines read them, message for message, with model, usage and stop reason.
    expected = read_upload([(same_calls_in.name, same_calls_in.read_bytes())])
    result = upload(recorded)
    assert result.problems == ()
    assert described(result) == described(expected)
    assert texts(result.conversations[0].trace)[-1] in {
        "The temperature in Tokyo is currently 20.0 degrees Celsius.", "The capital of the UK is London."}


def test_a_message_resent_without_its_cache_breakpoint_is_the_message_resent_unchanged():
    # Anthropic's prompt caching marks the newest message with `cache_control` and clients move the mark on every round:
    # round 3 resends round 2's tool result without it. That request was read as another conversation, and joined, its
    # resent message would have been called changed ("the prompt cache is lost"), which moving the mark does not do.
    from lib.checks import run_checks
    from lib.growth import growth
    result = upload("mirascope-anthropic-moved-cache-breakpoint.har")
    (conversation,) = result.conversations
    trace = conversation.trace
    second, third = trace.rounds[1], trace.rounds[2]
    assert second.request.messages[2].raw["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in third.request.messages[2].raw["content"][0]
    assert [e.status for e in growth(trace, 3).entries] == ["resent", "resent", "resent", "new", "new"]
    assert [(r.call_id, r.content) for m in third.request.messages for r in m.tool_results] == [
        ("toolu_01P7k7mwcV6S2ZEBxchQWxFh", "Incorrect passphrase: The correct passphrase is 'cake'. Try again."),
        ("toolu_0112i43b446dJy7sND9EPsQT", "The cake is a lie.")]
    assert [f.code for f in run_checks(trace)] == ["text-with-tool-calls"]


def test_a_message_unmarked_and_written_as_the_string_its_one_text_block_held_is_resent_unchanged():
    # Mirascope moves the breakpoint on and writes the message it unmarks as a string: the one text block it was, which
    # both APIs read as that string. Round 3 was another conversation.
    from lib.checks import run_checks
    from lib.growth import growth
    (conversation,) = upload("mirascope-anthropic-unmarked-as-string.har").conversations
    trace = conversation.trace
    marked, unmarked = trace.rounds[1].request.messages[2], trace.rounds[2].request.messages[2]
    assert marked.raw["content"] == [{"type": "text", "text": unmarked.raw["content"],
                                      "cache_control": {"type": "ephemeral"}}]
    assert unmarked.raw["content"].startswith("Your response could not be parsed: Incorrect passphrase.")
    assert [e.status for e in growth(trace, 3).entries] == ["resent", "resent", "resent", "new", "new"]
    # Nothing rewritten; each answer stops at the request's max_tokens 100, which is all the checks find.
    assert [f.code for f in run_checks(trace)] == ["answer-cut-off"] * 3


def test_a_polly_har_answer_kept_as_base64_chunks_of_gzip_is_the_answer():
    # Polly.JS writes a body that came compressed as the JSON text of a list of base64 strings, one a chunk received,
    # under `encoding: "base64"`; decoded as one base64 string it was no gzip, and the entry was skipped.
    result = upload("ollm-js-polly-gzip-chunks.har")
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert [m.text for m in round_.request.messages] == ["Tell me a joke about OpenTelemetry"]
    assert round_.response.message.text == ("Why did the OpenTelemetry developer go broke? \n\nBecause they kept "
                                            "trying to trace their expenses!")
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (15, 20)
    assert round_.response.finish_reason == "stop"

def test_a_responses_request_that_leaves_out_the_question_and_resends_the_answer_goes_on_from_it():
    # openinference's LiteLLM cassette: the second Responses request leaves out "What is 2 + 2?" and sends back the
    # first answer's reasoning item and message by their ids, then asks on. It was read as 2 conversations; joined by
    # the resent ids alone, the answer read as the question "changed" ('history-rewritten': "1 resent message
    # changed").
    from lib.growth import growth
    result = upload("oi-litellm-responses-question-dropped.yaml")
    assert result.summary() == "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped"
    (conversation,) = result.conversations
    trace = conversation.trace
    assert texts(trace) == ["4", "40"]
    placed = growth(trace, 2)
    assert [(e.status, e.origin, e.message.text) for e in placed.entries] == [
        ("new", "response", "4"), ("new", "input", "Now multiply that by 10.")]
    assert (placed.dropped, placed.dropped_at) == (1, (0,))
    (finding,) = run_checks(trace)
    assert (finding.code, finding.round) == ("history-rewritten", 2)
    assert finding.message.startswith("This request leaves out 1 message of round 1's request (messages[0] there); it "
                                      "resends none of that request and goes on from the answer to it.")
    assert "changed" not in finding.message

def test_a_second_run_of_the_same_question_goes_on_from_its_own_answer():
    # ADK's runner ran "What is the weather in New York?" twice (langsmith-sdk's cassette). The second run's last
    # request resends the first question, then its own call and result twice over. That request also extends the first
    # run's last request (the calls are named by place, alike), and was placed there as the longest: the first run read
    # 3 rounds, its answer "replaced" ('history-rewritten'), the second run's first round a conversation alone.
    from lib.growth import growth
    result = upload("langsmith-adk-second-run-call-twice.yaml")
    first, second = (c.trace for c in result.conversations)
    assert [texts(first), texts(second)] == [["", "The weather in New York is Sunny, 25C."]] * 2
    assert [r.response.usage.input_tokens for r in second.rounds] == [91, 181]
    sent = second.rounds[1].request.messages
    assert [(m.role, [c.name for c in m.tool_calls], [r.content for r in m.tool_results]) for m in sent[2:]] == [
        ("assistant", ["get_weather"], []), ("tool", [], ['{"status": "success", "report": "Sunny, 25C in New York."}']),
    ] * 2
    assert [e.status for e in growth(second, 2).entries] == ["resent", "resent", "new", "new", "new", "new"]
    # The call and its result sent twice over are pointed out, once, where they are sent again; nothing else is.
    assert [(f.code, f.round, f.path) for t in (first, second) for f in run_checks(t)] == [
        ("call-sent-twice", 2, "messages[4].tool_calls[0]")]

def test_a_responses_stream_error_event_is_part_of_the_failed_stream():
    # OpenAI numbers a stream's `error` event like its other events and ends the stream with `response.failed`: the
    # round is that failure, and no line of the stream is reported unread.
    result = upload("vercel-responses-error-event.chunks.txt")
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert round_.error.message.startswith("You exceeded your current quota, please check your plan and billing")
    assert [f.code for f in run_checks(conversation.trace)] == ["provider-error"]

def test_the_calls_xai_ran_for_its_built_in_search_are_not_calls_for_the_program():
    # Offered only its built-in `x_search`, grok-4 searched X itself (`x_keyword_search`, `view_x_video`, written as
    # custom tool calls) and answered in the same response. They read as two calls for the program to run: finish
    # 'tool_calls', steps 2 and 3 labelled on a response that holds the answer.
    from lib.steps import steps_for_round
    (conversation,) = upload("vercel-xai-x-search-server-calls.chunks.txt").conversations
    trace = conversation.trace
    (round_,) = trace.rounds
    assert round_.tool_calls == ()
    assert round_.response.finish_reason == "stop"
    assert round_.response.message.text.startswith("### Latest Videos and Images from xAI on X")
    ran = [p.raw for p in round_.response.message.parts if p.kind == "other" and p.raw.get("type") == "custom_tool_call"]
    assert [(item["name"], item["call_id"]) for item in ran] == [("x_keyword_search", "xs_call_24148162"),
                                                                 ("view_x_video", "xs_call_14963218")]
    assert {label.step for label in steps_for_round(trace, 1)} == {5}
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (27236, 3077)
    assert [f.code for f in run_checks(trace)] == []

def test_a_shell_call_of_the_built_in_shell_tool_is_a_call_the_program_runs():
    # gpt-5.1 offered the built-in `shell` tool answers with a `shell_call` (commands in `action`, a call_id the output
    # goes back under): it read as an answer with no call, finish 'stop', step 5 only.
    from lib.steps import steps_for_round
    asked, answered = (c.trace for c in upload("vercel-responses-shell-call.chunks.txt").conversations)
    (round_,) = asked.rounds
    assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [
        ("call_pbxjNs1tMJUahLZKAS9qLtvw", "shell",
         {"commands": ["ls -a ~/Desktop"], "max_output_length": 8912, "timeout_ms": None})]
    assert round_.response.finish_reason == "tool_calls"
    assert {label.step for label in steps_for_round(asked, 1)} == {2, 3}
    assert answered.rounds[0].response.message.text.startswith("Here are the files and folders in your `~/Desktop`")

def test_a_call_that_compacted_first_counts_the_summary_it_was_billed_for():
    # Anthropic's compaction samples twice in one call: the summary of 60,385 input tokens (592 out), then the answer
    # from it (682 in, 1,320 out). The top-level usage holds the answer's counts alone; the summary's are the
    # `compaction` entry of `usage.iterations`. The round said 682 tokens in, 1,320 out.
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    (conversation,) = upload("vercel-anthropic-compaction-usage.json").conversations
    trace = conversation.trace
    (round_,) = trace.rounds
    assert [p.raw.get("type") for p in round_.response.message.parts if p.kind == "other"] == ["compaction"]
    (row,) = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    assert (row.input_if_known, row.output_if_known, row.billed_input_if_known) == (60385 + 682, 592 + 1320, 61067)

def test_a_bedrock_call_refused_with_no_request_body_is_the_refused_round():
    # The path names the call (/model/does-not-exist/invoke) and Bedrock answered 400 with its words; with no request
    # body it was counted as no model call, and the upload showed nothing of it.
    result = upload("otel-bedrock-invoke-unknown-model.yaml")
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert not round_.request_recorded
    assert (round_.error.status, round_.error.message) == (400, "The provided model identifier is invalid.")
    assert [f.code for f in run_checks(conversation.trace)] == ["provider-error"]
    assert [n.message for n in result.notes] == [
        "the request body was recorded empty: the round shows the response alone, its request not known"]


def test_a_refused_call_recorded_without_its_request_names_the_model_its_path_names():
    # AWS refused `/model/does-not-exist/invoke`, sent with no body: the path is all that names the model, and the
    # conversation said it had none (model null, the explorer and Tokens page "no model").
    (conversation,) = upload("otel-bedrock-invoke-unknown-model.yaml").conversations
    assert conversation.trace.model == "does-not-exist"
    (round_,) = conversation.trace.rounds
    assert round_.request.model == "does-not-exist" and not round_.request_recorded


def test_a_refused_invoke_model_call_whose_messages_body_names_no_model_takes_it_from_the_path():
    # InvokeModel's body for Claude is Anthropic's Messages without a `model` (the path names it): refused, with no
    # answer to name it either, the conversation had no model.
    recorded = (FIXTURES / "otel-bedrock-invoke-unknown-model.yaml").read_text()
    body = ('{"messages": [{"role": "user", "content": "Hello"}], "max_tokens": 200, '
            '"anthropic_version": "bedrock-2023-05-31"}')
    data = (recorded.replace("body: null", "body: '" + body + "'")
            .replace("/model/does-not-exist/invoke", "/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke"))
    (conversation,) = upload("otel-bedrock-invoke-unknown-model.yaml", data.encode()).conversations
    (round_,) = conversation.trace.rounds
    assert round_.request_recorded and round_.request.messages[0].text == "Hello"
    assert round_.request.model == conversation.trace.model == "us.anthropic.claude-3-5-sonnet-20241022-v2:0"
    # The body shown holds a key the program sent in the path, not the body: the round says so, not "as recorded".
    provenance = conversation.trace.round_provenance(round_)
    assert provenance.origin == "completed" and "names the model in the request's path" in provenance.note


@pytest.mark.parametrize("path, model", [
    ("/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/converse", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
    ("/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/converse-stream",
     "us.anthropic.claude-3-5-sonnet-20241022-v2:0"),
    ("/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream",
     "anthropic.claude-3-haiku-20240307-v1:0"),
    ("/v1beta/models/gemini-2.0-flash:generateContent", "gemini-2.0-flash"),
])
def test_a_refused_native_call_without_its_request_body_takes_its_model_from_the_path_decoded(path, model):
    # The same cassette's refusal, sent to each path that names a model: the id is shown as the provider reads it
    # (`%3A` is the `:` of a versioned Bedrock id).
    recorded = (FIXTURES / "otel-bedrock-invoke-unknown-model.yaml").read_text()
    assert recorded.count("/model/does-not-exist/invoke") == 1
    data = recorded.replace("/model/does-not-exist/invoke", path).encode()
    (conversation,) = upload("otel-bedrock-invoke-unknown-model.yaml", data).conversations
    assert conversation.trace.model == model

def test_a_request_that_resends_turns_before_an_anthropic_compaction_summary_says_the_provider_dropped_them():
    # pydantic-ai's Anthropic compaction end to end: round 1 sends ~55,000 tokens and Claude compacts them (the summary
    # sampled first, 55,196 tokens in, then the answer, 220); round 2 resends that long message, the summary (plain
    # text, not encrypted) and a question, and is billed 239 tokens: Anthropic drops all before the summary. Round 1
    # read 220 tokens in; round 2's gap was put down to an encrypted compacted history (then to framing alone).
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.usage_gap import figure_note
    (conversation,) = upload("pyd-anthropic-compaction-resent.yaml.gz").conversations
    trace = conversation.trace
    first, second = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    assert (first.input_if_known, first.output_if_known) == (55196 + 220, 125 + 8)
    assert figure_note(trace, first) is None
    assert second.input_if_known == 239
    note = figure_note(trace, second)
    assert "the request resends 1 message before the compaction summary it carries, which the provider drops, " \
           "reading the conversation from the summary on: it is in our count, not in the input" in note
    assert "encrypted" not in note

def test_a_call_to_gemini_s_interactions_api_is_read_as_one_not_as_a_responses_call():
    # openinference's recording of google-genai's `client.interactions.create`: its request has `input` (a text and an
    # image) and `model`, and was read as a Responses request whose answer (`steps`, status 'incomplete') was no
    # response object; with a text input it was "not a model call"; then it was named an API not read.
    result = upload("oi-gemini-interactions-image.yaml")
    assert result.problems == () and result.notes == ()
    round_ = result.conversations[0].trace.rounds[0]
    assert [p.kind for p in round_.request.messages[0].parts] == ["text", "other"]  # the image, kept as it was sent
    # Cut short at `max_output_tokens: 64` (status 'incomplete'), after 3 words and 57 thought tokens.
    assert (round_.response.message.text, round_.response.finish_reason) == ("The image displays", "length")

def test_a_request_under_the_instructions_the_conversation_went_on_under_stays_in_it():
    # Google ADK adds "You have a list of artifacts: ["sample.png"] ..." to the system instruction once the first tool
    # saved the image: round 2 goes on under the longer instructions (found under other instructions), and round 3,
    # under the same longer ones, resends round 2's request and its load_artifacts call. It opened a conversation of
    # its own: the conversation was indexed under its first instructions only.
    from lib.growth import growth
    result = upload("oi-adk-instructions-grow-then-stay.yaml")
    (conversation,) = result.conversations
    trace = conversation.trace
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["load_remote_image"], ["load_artifacts"], []]
    assert [e.status for e in growth(trace, 3).entries] == ["resent", "resent", "resent", "resent", "new", "new", "new"]
    assert [(f.code, f.round) for f in run_checks(trace)] == [("history-rewritten", 2)]

def test_geminis_built_in_code_execution_is_a_tool_named_for_it_and_its_fed_back_output_is_input():
    # Google ADK offers Gemini's code execution as `{"codeExecution": {}}`: step 1 said "1 tool sent: " with no name.
    # Gemini ran the code inside the turn and fed its output back to the model; `usageMetadata` counts that as
    # `toolUsePromptTokenCount` (573) outside `promptTokenCount` (75), and the round showed 75 tokens in where the
    # recorded total (1179) is 648 in and 531 out.
    from lib.steps import steps_for_round
    (conversation,) = upload("oi-adk-gemini-code-execution.yaml").conversations
    trace = conversation.trace
    (round_,) = trace.rounds
    assert [t.shown_name for t in round_.request.tools] == ["codeExecution"]
    assert [s.detail for s in steps_for_round(trace, 1) if s.step == 1] == ["1 tool sent: codeExecution"]
    assert round_.tool_calls == ()
    assert round_.response.message.text.startswith("The sum of the first 50 prime numbers is 5117.")
    usage = round_.response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (75 + 573, 414 + 117, 117)
    assert [f.code for f in run_checks(trace)] == []


def test_a_nock_recording_of_a_bedrock_stream_is_the_streamed_call():
    # openinference's JS tests record with nock: the address as `scope` and `path`, the request under `body`, and AWS's
    # binary event stream as hexadecimal under `response` (`responseIsBinary`). Read as a request and a response body,
    # the stream was no Converse response and the call was skipped.
    result = upload("oi-js-nock-bedrock-stream-tool.json")
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert [m.text for m in round_.request.messages] == [
        "What's the weather in San Francisco and what time is it there?"]
    assert round_.response.message.text.startswith("I can certainly help you with the weather in San Francisco")
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [
        ("get_weather", {"location": "San Francisco, CA", "unit": "fahrenheit"})]
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (414, 114)
    assert round_.extra["streamed"] is True

def test_a_go_httprr_trace_is_read_as_its_exchanges_and_the_rewritten_arguments_are_flagged():
    # langchaingo's OpenAI functions agent, recorded by httprr: `httprr trace v1`, then per exchange its byte counts and
    # the request and response as written on the wire. Every line was "not valid JSON" and nothing was read.
    result = upload("langchaingo-openai-agent-args-rewritten.httprr")
    assert result.problems == ()
    (conversation,) = result.conversations
    first, second = conversation.trace.rounds
    assert [m.text for m in first.request.messages] == [
        "You are a helpful assistant that can perform calculations.", "What is 15 multiplied by 4?"]
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_sgvhmmuASadOaDtd93TmrUsY", "calculator", {"__arg1": "15 * 4"})]
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (94, 19)
    assert [(r.call_id, r.content) for m in second.request.messages for r in m.tool_results] == [
        ("call_sgvhmmuASadOaDtd93TmrUsY", "60")]
    assert second.response.message.text == "15 multiplied by 4 is 60."
    # langchaingo sent the call back with its arguments as `15 * 4`, not the JSON the model wrote: truly rewritten.
    assert [(f.code, f.round) for f in run_checks(conversation.trace)] == [("history-rewritten", 2)]


def test_a_chunked_body_in_an_httprr_trace_is_joined_before_it_is_read():
    # Ollama answers with `Transfer-Encoding: chunked`, and Go's Response.Write keeps the chunks: a hexadecimal size,
    # the bytes, a line end, until a chunk of size 0.
    result = upload("langchaingo-ollama-chunked-stream.httprr")
    assert result.problems == ()
    (round_,) = result.conversations[0].trace.rounds
    assert round_.response.message.text == "Okay, here we go!\n\n1, 2, 3, 4, 5\n"
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (16, 22)
    assert round_.response.model == "gemma3:1b"


def test_a_gzipped_httprr_trace_reads_as_the_trace_does():
    # httprr replays `.httprr.gz` too (langchaingo keeps its vector-store traces so).
    import gzip
    data = (FIXTURES / "langchaingo-openai-agent-args-rewritten.httprr").read_bytes()
    zipped = read_upload([("TestAgent.httprr.gz", gzip.compress(data))])
    assert zipped.summary() == "2 exchanges: 2 rounds in 1 conversation; 0 exchanges skipped"
    assert zipped.problems == ()
    # A line end added after the last exchange (an editor, an end-of-file hook) is no damaged exchange.
    assert read_upload([("TestAgent.httprr", data + b"\n")]).problems == ()


def test_a_damaged_httprr_trace_names_the_exchange_and_keeps_those_before_it():
    data = (FIXTURES / "langchaingo-openai-agent-args-rewritten.httprr").read_bytes()
    second = data.index(b"\n992 1598\n") + 1
    cut = read_upload([("cut.httprr", data[:second + 200])])
    assert len(cut.conversations[0].trace.rounds) == 1
    assert [(p.line, p.message) for p in cut.problems] == [
        (2, "says its request and response take 2,590 bytes, but the file ends 191 bytes after it: the trace was cut "
            "short")]
    # Line ends turned from CRLF to LF (an editor, git's autocrlf): every count is off; it was read as a response whose
    # first line is '.0 200 OK'.
    normalized = read_upload([("lf.httprr", data.replace(b"\r\n", b"\n"))])
    assert [(p.line, p.message) for p in normalized.problems] == [
        (1, "has byte counts that do not fall on its request and its response: the file was changed after it was "
            "recorded (its line ends turned from CRLF to LF or back, as an editor or git's autocrlf does, or an edit "
            "by hand), and httprr counts every byte, so neither this exchange nor those after it can be cut out")]
    broken = read_upload([("broken.httprr", data[:second] + b"992\n" + data[second + 9:])])
    assert [p.line for p in broken.problems] == [2]
    assert "is not an exchange's line of two byte counts" in broken.problems[0].message


def test_gemini_enums_sent_as_numbers_read_as_their_names():
    # Google's Go client asks for enums as numbers (`$alt=json;enum-encoding=int`): `finishReason: 1` was shown as the
    # finish reason "1" of a round that called a tool, and the tool's schema as `type: 6`.
    result = upload("langchaingo-gemini-int-enums.httprr")
    (conversation,) = result.conversations
    first, second = conversation.trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("calculate", {"expression": "15 * 7"})]
    assert (first.response.finish_reason, second.response.finish_reason) == ("tool_calls", "stop")
    assert [r.content for m in second.request.messages for r in m.tool_results] == ['{"response": "105"}']
    assert second.response.message.text == "15 * 7 is 105.\n"
    (tool,) = first.request.tools
    assert tool.parameters == {"type": "OBJECT", "properties": {"expression": {
        "type": "STRING", "description": "Mathematical expression to evaluate"}}, "required": ["expression"]}


def test_an_assistants_api_run_is_named_a_model_call_to_an_api_not_read_not_counted_as_no_model_call():
    # ruby-openai's cassette of two streamed runs (`POST /v1/threads/<thread>/runs`, `{"assistant_id", "stream": true}`):
    # the request holds no messages (the thread does), and both were "not model calls".
    result = upload("ruby-openai-assistants-run-stream.yml")
    assert (result.not_calls, result.unread_calls) == (0, 2)
    assert [(note.line, note.message) for note in result.notes] == [
        (1, "a model call to api.openai.com/v1/threads/<thread>/runs (OpenAI's Assistants API), an API Roundtrip does "
            "not read (it reads Chat Completions, Anthropic Messages, the Responses API, Gemini (generateContent and "
            "Interactions), Bedrock Converse, Ollama and Cohere's v1 and v2 chat): left out, and so is 1 more call to it")]


def test_a_failed_call_with_an_empty_body_is_not_quoted_as_saying_its_status():
    # ruby-openai's streamed call answered HTTP 500 with no body at all. The finding said `Its words: "HTTP 500"`: words
    # the provider never sent (Roundtrip wrote them).
    result = upload("ruby-openai-stream-500-empty-body.yml")
    (conversation,) = result.conversations
    (finding,) = run_checks(conversation.trace)
    assert finding.code == "provider-error"
    assert finding.message == ("This call failed with HTTP 500. It sent no words: the response body was empty. No "
                               "response came back, and the status is the provider's trouble, not the request's: send "
                               "it again after a pause.")


def test_a_cassette_whose_httpx_responses_have_a_status_code_and_content_is_read():
    # openinference's Portkey cassette, recorded through httpx by an older vcrpy: each response `status_code: 200` and
    # `content` (the body as text), no `status` nor `body`. The file was refused as matching no format.
    result = upload("oi-portkey-httpx-status-code.yaml")
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert [m.text for m in round_.request.messages] == ["What's the weather like?"]
    assert round_.response.message.text.startswith("I don't have real-time data access")
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (12, 51)

def described(result):
    """Each round as a user reads it: what was sent, what came back."""
    return [([(m.role, m.text, [(c.id, c.name, c.arguments) for c in m.tool_calls],
               [(r.call_id, r.content) for r in m.tool_results]) for m in round_.request.messages],
             round_.response.model, round_.response.message.text, round_.response.usage, round_.response.finish_reason,
             [(c.id, c.name, c.arguments) for c in round_.tool_calls])
            for conversation in result.conversations for round_ in conversation.trace.rounds]


YAML_KINDS = b"""\
interactions:
- request: {body: '{"a": 1}', method: POST, uri: 'https://api.openai.com/v1/chat/completions'}
  response:
    body: {string: !!binary "H4sIAAAAAAAA"}
    status: {code: 200, message: OK}
    headers: {x-count: [3], ratio: [0.5], flag: [true, no], none: [~, null], when: [2025-01-30 12:00:00], '': ''}
    plain: 0x1f
    'quoted: true': '3'
    ? [composite]
    : not a composite key, since the list above is one
"""


@pytest.mark.parametrize("text", [
    YAML_KINDS.replace(b"    ? [composite]\n    : not a composite key, since the list above is one\n", b""),
    b"base: {a: 1}\nmerged:\n  <<: {a: 1}\n  b: 2\n",  # a merge key: left to the safe constructor
    b"tags: !!set {a, b}\n",
    b"empty:\n",
    b"",
])
def test_cassette_yaml_loads_exactly_as_the_safe_loader_does(text):
    import yaml
    from lib.logs.documents import load_yaml
    assert load_yaml(text) == yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506 - the safe loader


def test_a_composite_mapping_key_is_refused_as_the_safe_loader_refuses_it():
    result = upload("composite.yaml", YAML_KINDS)
    assert len(result.problems) == 1 and "found unhashable key" in result.problems[0].message


@pytest.mark.parametrize("text", [b"a: &x [1]\nb: *x\n", b"a: &x {k: 1}\nb: {<<: *x}\nc: *x\n"])
def test_an_alias_is_refused_by_the_plain_construction_and_by_the_safe_constructor_after_it(text):
    from lib.logs.documents import SharedNode, load_yaml
    with pytest.raises(SharedNode):
        load_yaml(text)


def test_a_real_eval_log_shows_each_epochs_answer_with_its_attachments_resolved():
    conversations = {c.id: c.trace for c in upload("inspect-popularity-azureai.eval").conversations}
    assert {id_: texts(trace) for id_, trace in conversations.items()} == {
        "sample 1 epoch 1": ["No"], "sample 1 epoch 2": ["Yes."], "sample 2 epoch 1": ["No."], "sample 2 epoch 2": ["No"]}
    first = conversations["sample 1 epoch 1"].rounds[0]
    assert first.request.messages[1].text.startswith('Is the following statement something you would say?\n"Positive posts')
    assert not any("attachment://" in m.text for m in first.request.messages)
    assert (conversations["sample 1 epoch 1"].model, first.response.usage.input_tokens) == ("Meta-Llama-3-405B-Instruct", 66)


def test_eval_samples_are_listed_by_sample_id_then_epoch_as_inspects_viewer_lists_them():
    # The zip holds them as they were written: sample 2 epoch 2 first.
    ids = [c.id for c in upload("inspect-popularity-azureai.eval").conversations]
    assert ids == ["sample 1 epoch 1", "sample 1 epoch 2", "sample 2 epoch 1", "sample 2 epoch 2"]


def test_numbered_sample_ids_are_listed_by_number_not_by_their_digits():
    import io
    import json
    import zipfile
    original = zipfile.ZipFile(FIXTURES / "inspect-arithmetic-with-tool.eval")
    samples = [json.loads(original.read(f"samples/{k}_epoch_1.json")) for k in (1, 2)]
    written = io.BytesIO()
    with zipfile.ZipFile(written, "w") as archive:
        for member in original.namelist():
            if not member.startswith("samples/"):
                archive.writestr(member, original.read(member))
        for id_, sample in zip((10, 9), samples):
            archive.writestr(f"samples/{id_}_epoch_1.json", json.dumps({**sample, "id": id_}))
    ids = [c.id for c in upload("numbered.eval", written.getvalue()).conversations]
    assert ids == ["sample 9 epoch 1", "sample 10 epoch 1"]


def test_a_cassette_counts_an_interaction_that_was_no_model_call_as_a_har_file_counts_its_page():
    # A token refresh recorded between the two calls: read, and said to be no model call, not dropped unsaid.
    import yaml
    cassette = yaml.safe_load((FIXTURES / "pydantic-ai-openai-tool-calls.yaml").read_bytes())
    refresh = {"request": {"method": "POST", "uri": "https://auth.example/token", "body": "grant_type=refresh",
                           "headers": {}},
               "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}}
    cassette["interactions"].insert(1, refresh)
    result = upload("refresh.yaml", yaml.safe_dump(cassette).encode())
    assert result.summary() == "3 interactions: 2 rounds in 1 conversation; 1 interaction not a model call; " \
                               "0 interactions skipped"
    assert result.problems == ()


# --- provider-native APIs in cassettes ---------------------------------------------------------------


def _rounds(name):
    result = upload(name)
    assert result.problems == ()
    (conversation,) = result.conversations
    return conversation.trace


def _figures(round_):
    response = round_.response
    return response.model, response.finish_reason, response.usage.input_tokens, response.usage.output_tokens


def test_a_gemini_cassette_reads_its_parallel_calls_their_results_and_the_model_named_in_its_url():
    # crewAI's recording: three functionCall parts (lines 51-58), their functionResponses sent back (line 104).
    trace = _rounds("crewai-gemini-parallel-crew.yaml")
    first, second = trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("parallel_local_search_one", {"query": "latest OpenAI model release notes"}),
        ("parallel_local_search_two", {"query": "latest Anthropic model release notes"}),
        ("parallel_local_search_three", {"query": "latest Gemini model release notes"})]
    assert [p.call_id for m in second.request.messages for p in m.tool_results] == [c.id for c in first.tool_calls]
    assert _figures(first) == ("gemini-2.5-flash", "tool_calls", 327, 209)
    assert _figures(second) == ("gemini-2.5-flash", "stop", 504, 469)


def test_a_streamed_gemini_cassette_body_is_joined_from_its_server_sent_chunks():
    (round_,) = _rounds("crewai-gemini-stream-multi.yaml").rounds
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [
        ("get_current_temperature", {"city": "Paris"}), ("get_current_temperature", {"city": "London"})]
    assert _figures(round_) == ("gemini-2.0-flash", "tool_calls", 37, 14)


def test_a_gemini_request_in_snake_case_sends_back_the_call_and_its_result():
    # llm-gemini's round 2 (line 66): `function_call` with its `thoughtSignature`, then `function_response`.
    first, second = _rounds("llm-gemini-snake-case-call.yaml").rounds
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("call_1_0", "multiply", {"y": 3, "x": 5})]
    sent_back = second.request.messages[1]
    assert [(c.id, c.name, c.arguments) for c in sent_back.tool_calls] == [("call_1_0", "multiply", {"y": 3, "x": 5})]
    assert [(p.call_id, p.content) for m in second.request.messages for p in m.tool_results] == [
        ("call_1_0", '{"output": "15"}')]
    assert texts(_rounds("llm-gemini-snake-case-call.yaml")) == ["", "5 times 3 is 15."]
    assert _figures(second) == ("gemini-3-flash-preview", "stop", 121, 9)


def test_a_streamed_gemini_answer_sent_back_one_part_per_chunk_is_the_answer_as_written():
    # Mirascope's validation retry: the answer streamed as two chunks ('{\n  "value": 57', '3\n}'), sent back in round 2
    # as two text parts. Read with a line break between them, the turn said 57, then 3, and "not what the model wrote".
    from lib.checks import run_checks
    trace = _rounds("mirascope-gemini-split-echo.yaml")
    first, second = trace.rounds
    sent_back = second.request.messages[2]
    assert (sent_back.role, sent_back.text) == ("assistant", '{\n  "value": 573\n}')
    assert first.response.message.text == '{\n  "value": 573\n}'
    assert [f.code for f in run_checks(trace)] == []


def test_a_turn_that_ran_anthropics_web_search_is_no_narration_without_a_call():
    # "Let me search more specifically" is followed by the search itself, a server_tool_use Anthropic ran in the same
    # turn: it was called narration with no call, "reads as a hang", on a turn that searched three times.
    from lib.checks import run_checks
    from lib.narration import narrates_without_call
    (round_,) = _rounds("mirascope-anthropic-web-search.yaml").rounds
    blocks = round_.response.message.raw["content"]
    assert blocks[2]["text"] == "Let me search more specifically for Bitcoin's price on January 1, 2026:"
    assert [b["input"]["query"] for b in blocks if b["type"] == "server_tool_use"] == [
        "bitcoin price January 1 2026", '"January 1 2026" bitcoin price historical data',
        "bitcoin New Year 2026 price January 1"]
    assert round_.tool_calls == () and not narrates_without_call(round_)
    assert [f.code for f in run_checks(_rounds("mirascope-anthropic-web-search.yaml"))] == []


def test_a_call_gemini_sent_without_an_id_sent_back_under_the_programs_own_id_is_no_rewritten_id():
    # Gemini sent compute_fib without an id (the importer names it call_1_0, by place); Mirascope resumes with gpt-4o,
    # sending it back as google_unknown_tool_id with its result. "The program rewrote the call id; keep the provider's
    # id" was said of an id the provider never gave.
    from lib.checks import run_checks
    trace = _rounds("mirascope-gemini-then-openai-resume.yaml")
    first, second = trace.rounds
    assert first.call_ids_made_up and [(c.id, c.name) for c in first.tool_calls] == [("call_1_0", "compute_fib")]
    sent_back = second.request.messages[1]
    assert [(c.id, c.name) for c in sent_back.tool_calls] == [("google_unknown_tool_id", "compute_fib")]
    assert [(r.call_id, r.content) for r in second.request.messages[2].tool_results] == [
        ("google_unknown_tool_id", "218922995834555169026")]
    assert [f.code for f in run_checks(trace)] == ["tools-changed"]


def test_a_groq_stream_keeps_the_usage_groq_reports_under_x_groq():
    # Groq's last chunk carries no `usage`, but `x_groq.usage` (18 in, 73 out): the round showed our own count (15, 69).
    (round_,) = _rounds("ollm-groq-stream-usage.yaml").rounds
    usage = round_.response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.source) == (18, 73, "reported")
    assert _figures(round_) == ("llama3-8b-8192", "stop", 18, 73)


def test_a_bedrock_converse_cassette_is_read_as_converse_not_as_anthropic_messages():
    # It was read as Messages: no calls, no usage, no model. The model is in the URL (line 45).
    first, second = _rounds("crewai-bedrock-parallel-kickoff.yaml").rounds
    assert [c.name for c in first.tool_calls] == [
        "parallel_local_search_one", "parallel_local_search_two", "parallel_local_search_three"]
    assert _figures(first) == ("us.anthropic.claude-sonnet-4-6", "tool_use", 914, 169)
    assert _figures(second) == ("us.anthropic.claude-sonnet-4-6", "end_turn", 1197, 173)
    assert [p.call_id for m in second.request.messages for p in m.tool_results] == [c.id for c in first.tool_calls]


def test_a_bedrock_converse_stream_is_decoded_from_awss_binary_event_stream():
    (round_,) = _rounds("ollm-bedrock-converse-stream-tool.yaml").rounds
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [("get_weather", {"location": "Barcelona"})]
    assert _figures(round_) == ("anthropic.claude-3-sonnet-20240229-v1:0", "tool_use", 236, 58)
    assert round_.response.message.text.startswith("Okay")


def test_an_invoke_model_stream_is_decoded_into_the_stream_of_its_bodys_api():
    # Each `chunk` of the event stream holds one Anthropic stream event as base64 `bytes`: the body was not read, and
    # the round showed no answer, no stop reason and our own count of the request.
    (round_,) = _rounds("ollm-bedrock-invoke-stream-claude.yaml").rounds
    assert texts_of(round_) == "Why did the distributed tracing span cross the road? To get to the other service!"
    assert _figures(round_) == ("claude-3-sonnet-20240229", "end_turn", 16, 21)
    assert round_.response.usage.source == "reported"


def test_amazon_nova_through_invoke_model_names_the_model_its_path_names():
    (round_,) = _rounds("ollm-bedrock-invoke-nova.yaml").rounds
    assert (round_.request.model, round_.response.model) == ("us.amazon.nova-lite-v1:0", "us.amazon.nova-lite-v1:0")
    assert texts_of(round_).startswith("Sure, here's a joke for you:")


def test_amazon_novas_invoke_model_stream_is_joined_into_one_answer_with_its_usage():
    # Each chunk is one Converse stream event under its name; under a guardrail Nova streams every word as a block of
    # its own. The answer was empty, with no usage; the words are one text, as Nova's unstreamed answer has them.
    (round_,) = _rounds("ollm-bedrock-invoke-stream-nova.yaml").rounds
    assert texts_of(round_).startswith("On their first night in the wilderness, the friends gathered around the")
    assert len(round_.response.message.parts) == 1
    assert _figures(round_) == ("amazon.nova-lite-v1:0", "end_turn", 30, 55)


TOKEN_HEADERS = re.compile(rb"      X-Amzn-Bedrock-(?:Cache-Read-|Cache-Write-)?(?:Input|Output)-Token-Count:\n"
                           rb"      - '\d+'\n")
"""The token counts Bedrock's InvokeModel answers with in its response headers, as the cassettes hold them."""


def test_a_converse_usage_without_output_tokens_is_counted_not_reported_as_nothing_written():
    # The guardrail anonymized Nova's answer, and the body's usage kept only inputTokens: the round said 0 tokens out,
    # as reported, beside an answer of two sentences. Here the recording keeps no headers, so nothing reports them.
    from lib.summary import summarize
    from lib.tokens import counter_for
    data = (FIXTURES / "ollm-bedrock-nova-guardrail-usage.yaml").read_bytes()
    assert len(TOKEN_HEADERS.findall(data)) == 4
    trace = upload("ollm-bedrock-nova-guardrail-usage.yaml", TOKEN_HEADERS.sub(b"", data)).conversations[0].trace
    assert trace.rounds[0].response.usage is None
    (row,) = summarize(trace, counter_for("o200k_base").counter)
    assert row.usage.source == "estimated" and row.output_if_known > 0


def test_the_token_counts_bedrock_sends_in_its_response_headers_are_the_reported_usage_where_the_body_has_none():
    # Bedrock's InvokeModel reports the call's counts in X-Amzn-Bedrock-Input-Token-Count and -Output-Token-Count
    # (30 and 51 here); the guardrail left the body's usage with inputTokens alone, so the usage was unknown.
    from lib.summary import summarize
    from lib.tokens import counter_for
    trace = _rounds("ollm-bedrock-nova-guardrail-usage.yaml")
    assert _figures(trace.rounds[0]) == ("amazon.nova-lite-v1:0", "end_turn", 30, 51)
    (row,) = summarize(trace, counter_for("o200k_base").counter)
    assert (row.usage.source, row.usage.input_tokens, row.usage.output_tokens) == ("reported", 30, 51)
    # Where the body has its own counts, they stand (the headers say the same: 7 in, 53 out).
    assert _figures(_rounds("ollm-bedrock-invoke-nova.yaml").rounds[0])[2:] == (7, 53)


def _frame(headers: dict, payload: bytes) -> bytes:
    """One AWS event stream message (checksums left zero: the reader does not check them)."""
    import struct
    written = b"".join(bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
                       for k, v in headers.items())
    prelude = struct.pack(">II", 16 + len(written) + len(payload), len(written)) + b"\0" * 4
    return prelude + written + payload + b"\0" * 4


def test_an_invoke_model_stream_chunk_that_is_not_base64_json_is_named_and_an_exception_kept_as_an_error_event():
    from lib.logs.bedrock_converse import invoke_stream_events
    from lib.logs.record import LineProblem
    chunk = {":event-type": "chunk", ":message-type": "event"}
    with pytest.raises(LineProblem, match="not base64 JSON"):
        invoke_stream_events(_frame(chunk, b'{"bytes": "not base64!"}'))
    refused = {":exception-type": "throttlingException", ":message-type": "exception"}
    assert invoke_stream_events(_frame(refused, b'{"message": "Too many requests"}')) == [
        {"type": "error", "error": {"type": "throttlingException", "message": "Too many requests"}}]


def test_a_converse_stream_whose_content_type_was_redacted_is_decoded_by_its_path():
    # LangChain's cassette keeps no header value, so no `application/vnd.amazon.eventstream`: the answer was left
    # unread, round 1 inferred from round 2's request (usage estimated, the model's text beside its call lost).
    from lib.checks import run_checks
    first, second = _rounds("langchain-aws-agent-loop-stream.yaml.gz").rounds
    assert _figures(first) == ("us.anthropic.claude-sonnet-5", "tool_use", 446, 76)
    assert first.response.message.text == "I'll check the current weather in San Francisco, CA for you."
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_weather", {"location": "San Francisco, CA"})]
    # LangChain sent the call back without the text the model wrote beside it: said, now that the answer is read.
    trace = upload("langchain-aws-agent-loop-stream.yaml.gz").conversations[0].trace
    assert [(f.code, f.round) for f in run_checks(trace) if f.severity != "info"] == [("history-rewritten", 2)]


def test_a_converse_turn_with_citations_is_read_as_its_cited_text():
    # The model's streamed answer cites the document; round 2 sends it back as `citationsContent` blocks, which were
    # kept raw: the text read back lacked the cited sentences, and "not what the model wrote" was said of it.
    from lib.checks import run_checks
    trace = upload("langchain-aws-citations.yaml.gz").conversations[0].trace
    first, second = trace.rounds
    written = "\n".join(["According to the company policy manual, ", "employees get 20 days annual leave.",
                         " If you need more specific details, ", "consult with your manager for details."])
    assert first.response.message.text == written
    sent_back = second.request.messages[1]
    assert (sent_back.role, sent_back.text) == ("assistant", written)
    assert sent_back.raw["content"][1]["citations"][0]["title"] == "company_policy"
    assert [f.code for f in run_checks(trace)] == []


def test_a_broken_event_stream_is_named_not_raised():
    from lib.logs.bedrock_converse import stream_response
    from lib.logs.record import LineProblem
    with pytest.raises(LineProblem, match="does not fit the stream"):
        stream_response(b"\x00\x00\x10\x00" + b"\x00" * 20)


def test_a_refused_bedrock_call_keeps_its_status_and_awss_words():
    (round_,) = _rounds("pyd-bedrock-error.yaml").rounds
    assert (round_.error.status, round_.error.message) == (400, "The provided model identifier is invalid.")


def test_an_ollama_cassette_is_read_as_ollama_with_its_answer_and_counts():
    # It was read as Chat Completions: the response dropped, a blank-id result reported as an orphan.
    (round_,) = _rounds("oi-ollama-tool-call.yaml").rounds
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [("get_current_weather", {"city": "Paris"})]
    assert _figures(round_) == ("qwen3.6:latest", "tool_calls", 292, 143)


def test_an_ollama_answer_without_prompt_eval_count_has_its_usage_counted_not_reported_as_nothing_read():
    # Ollama left prompt_eval_count out when the prompt was in its cache (ollama/ollama#2068): the round said 0 tokens
    # in, as reported, for a 17-token prompt (the same prompt is reported as 17 in the other recordings).
    from lib.summary import summarize
    from lib.tokens import counter_for
    trace = _rounds("ollm-ollama-cached-prompt.yaml")
    assert trace.rounds[0].response.usage is None
    (row,) = summarize(trace, counter_for("o200k_base").counter)
    assert row.usage.source == "estimated" and row.input_if_known > 0


def test_togethers_eos_finish_reason_is_the_model_ending_its_answer():
    from lib.steps import steps_for_round
    trace = _rounds("ollm-together-eos.yaml")
    (round_,) = trace.rounds
    assert (round_.response.finish_reason, round_.response.stop) == ("eos", "end")
    assert 5 in {label.step for label in steps_for_round(trace, 1)}


def test_a_cohere_v1_chat_call_is_read_as_one_round_with_its_model_answer_and_counts():
    # Was "a model call to api.cohere.com/v1/chat, an API Roundtrip does not read": left out, 0 rounds.
    result = upload("ollm-cohere-v1-chat.yaml")
    (round_,) = result.conversations[0].trace.rounds
    assert round_.request.raw["messages"] == [{"role": "user", "content": "Tell me a joke, pirate style"}]
    assert result.conversations[0].trace.model == "command"
    assert round_.response.message.text.startswith("Arrrr, matey! Shiver me timbers")
    assert round_.response.finish_reason == "stop"
    # meta.tokens (what the model read and wrote), not meta.billed_units (58 in).
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (69, 119)
    assert result.notes == ()


def test_a_cohere_v1_chat_stream_is_joined_into_the_answer_its_stream_end_holds():
    result = upload("ollm-cohere-v1-chat-stream.yaml")
    (round_,) = result.conversations[0].trace.rounds
    assert round_.extra.get("streamed")
    assert round_.response.message.text.startswith("Arrrr, matey! Shiver me timbers, here's a pirate-themed joke")
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (69, 116)


def test_a_request_body_of_json_lines_is_no_model_call_and_no_damage():
    # huggingface_hub's commit (POST .../commit/main, application/x-ndjson): "interaction 4: the request body of POST
    # https://huggingface.co/api/spaces/user/tmp_test_space/commit/main is not valid JSON (Extra data ...)".
    result = upload("hf-hub-space-commit-ndjson.yaml")
    assert result.problems == () and result.not_calls == 6
    # A body that is neither one JSON document nor JSON lines is still named.
    broken = (FIXTURES / "hf-hub-space-commit-ndjson.yaml").read_text().replace(
        '{"key": "header"', '{"key": "header",,', 1)
    assert [p.message for p in upload("broken.yaml", broken.encode()).problems if "not valid JSON" in p.message]


def test_a_cohere_refusal_says_cohere_s_words_not_the_status_alone():
    # LlamaIndex's ReAct agent on `command-r` after Cohere removed it: the check said 'Its words: "HTTP 404"'.
    result = upload("ollm-cohere-v1-removed-model-404.yaml")
    (round_,) = result.conversations[0].trace.rounds
    assert round_.error.status == 404
    assert round_.error.message.startswith("model 'command-r' was removed on September 15, 2025.")
    findings = [f for f in run_checks(result.conversations[0].trace) if f.code == "provider-error"]
    assert [f for f in findings if "model 'command-r' was removed" in f.message and '"HTTP 404"' not in f.message]


def test_cohere_v1_history_calls_and_results_are_paired_by_name_and_order():
    from lib.logs.cohere import CohereV1Format
    request = {"model": "command-r", "preamble": "Be brief.", "message": "",
               "chat_history": [{"role": "USER", "message": "Weather in Paris and Rome?"},
                                {"role": "CHATBOT", "message": "", "tool_calls": [
                                    {"name": "weather", "parameters": {"city": "Paris"}},
                                    {"name": "weather", "parameters": {"city": "Rome"}}]}],
               "tool_results": [{"call": {"name": "weather", "parameters": {"city": "Paris"}}, "outputs": [{"t": 20}]},
                                {"call": {"name": "weather", "parameters": {"city": "Rome"}}, "outputs": [{"t": 25}]}],
               "tools": [{"name": "weather", "description": "Weather now",
                          "parameter_definitions": {"city": {"type": "str", "description": "City", "required": True}}}]}
    answer = {"text": "20 and 25.", "generation_id": "g1", "finish_reason": "COMPLETE",
              "meta": {"billed_units": {"input_tokens": 30, "output_tokens": 4}}}
    record = CohereV1Format().record(request, answer, 1, {})
    sent = record.request["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == [m["tool_call_id"] for m in sent[3:]]
    assert record.request["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert record.response["usage"]["prompt_tokens"] == 30 and record.derived == ["call ids"]


def test_a_text_to_speech_call_is_named_as_a_call_to_an_api_not_read_not_read_as_a_responses_round():
    # Its `instructions` beside `input` made it look like a Responses request: a second conversation whose one round
    # "asked" gpt-4o-mini-tts to say the agent's answer, with no response, its PCM audio left unread.
    result = upload("logfire-agents-voice-speech.yaml")
    assert [c.trace.model for c in result.conversations] == ["gpt-4o"]
    assert [result.said(n) for n in result.notes] == [
        "interaction 3: a model call to api.openai.com/v1/audio/speech, an API Roundtrip does not read (it reads Chat "
        "Completions, Anthropic Messages, the Responses API, Gemini (generateContent and Interactions), Bedrock Converse, Ollama and Cohere's v1 and v2 "
        "chat): left out"]


def test_a_speech_request_logged_as_a_line_is_not_a_responses_request():
    from lib.logs.responses import is_responses_request
    speech = {"input": "Bonjour", "model": "gpt-4o-mini-tts", "voice": "ash", "response_format": "pcm",
              "instructions": "Read out the text."}
    assert not is_responses_request(speech)
    assert is_responses_request({"input": "Bonjour", "model": "gpt-4.1", "instructions": "Be nice"})


def test_a_stream_that_holds_only_an_error_event_is_a_round_with_that_error():
    # OpenRouter answers a failed upstream call with HTTP 200 and one `data: {"error": ...}` event: it was skipped
    # as a broken chunk ("'choices' is missing").
    cassette = (b"interactions:\n- request:\n    body: '{\"model\": \"x/y\", \"messages\": [{\"role\": \"user\", "
                b"\"content\": \"hi\"}], \"stream\": true}'\n    method: POST\n"
                b"    uri: https://openrouter.ai/api/v1/chat/completions\n  response:\n    body:\n      string: "
                b"\"data: {\\\"error\\\": {\\\"message\\\": \\\"Provider returned error\\\"}}\\n\\ndata: [DONE]\\n\"\n"
                b"    headers:\n      content-type:\n      - text/event-stream\n    status:\n      code: 200\n"
                b"version: 1\n")
    result = upload("openrouter-error.yaml", cassette)
    assert result.problems == ()
    (round_,) = result.conversations[0].trace.rounds
    # The 200 was the stream's status line, sent before its one event: kept apart, as the status the answer began
    # under, not taken for the failure's.
    assert (round_.error.status, round_.error.stream_status, round_.error.message) == \
        (None, 200, "Provider returned error")


def test_a_stream_keeps_the_reasoning_openrouter_sends_under_reasoning():
    # logfire's recording of google/gemini-2.5-flash through OpenRouter: most of the 1,003 output tokens are the
    # reasoning its chunks stream as `delta.reasoning` (DeepSeek's `reasoning_content` was kept; this was dropped).
    (round_,) = _rounds("logfire-openrouter-stream-reasoning.yaml").rounds
    answer = round_.response.message.raw
    assert answer["reasoning"].startswith("**Interpreting User Intent**\n\nI'm zeroing in on the core of the query.")
    assert "reasoning_content" not in answer
    assert answer["content"].startswith("That's a clever way to put it!")


def test_a_responses_turn_whose_text_follows_its_call_says_the_order_is_not_shown():
    # pydantic-ai's DeepSeek cassette: text, call-a, text, call-b in one turn (the provider refused that order). As one
    # Chat Completions message the request looks valid; a note says what the conversion could not hold.
    result = upload("pyd-deepseek-responses-400.yaml")
    assert [result.said(n) for n in result.notes] == [
        "interaction 1: the request's input has the model's text after one of its calls in the same turn (text, call, "
        "text, call), an order no Chat Completions message can hold: the turn is shown as one assistant message, its "
        "texts before its calls"]
    assert upload("pydantic-ai-openai-responses.yaml").notes == ()


def test_a_refused_responses_call_keeps_the_http_status_its_cassette_recorded():
    # The body's `code` is 400 (line 65); the check said "HTTP status not recorded".
    (round_,) = _rounds("pyd-deepseek-responses-400.yaml").rounds
    assert (round_.error.status, round_.error.message) == (400, "No tool output found for tool call call-a.")


def test_an_inspect_log_before_0_3_42_puts_its_transcript_strings_back_and_keeps_the_reported_usage():
    (conversation,) = upload("inspect-images-tc.json").conversations
    (round_,) = conversation.trace.rounds
    assert round_.request.messages[0].text.startswith("\nFor the following exercise, it is important that you answer")
    assert "tc://" not in round_.request.messages[0].text
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (323, 5)


def test_a_json_array_of_chat_messages_is_one_conversation_and_says_so():
    result = upload("mini-swe-agent-github-issue.traj.json")
    assert [result.said(n) for n in result.notes] == [
        "element 1: the file is one JSON array of 22 chat messages: read as one conversation"]
    (conversation,) = result.conversations
    assert conversation.trace.rounds[0].request.messages[0].role == "system"


def test_an_array_whose_elements_are_not_all_chat_messages_is_read_element_by_element():
    import json
    messages = json.loads((FIXTURES / "mini-swe-agent-github-issue.traj.json").read_bytes())
    messages[5] = {"note": "not a message"}
    result = upload("mixed.json", json.dumps(messages).encode())
    assert result.notes == () and result.conversations == ()
    assert result.summary() == "22 elements: 0 rounds in 0 conversations; 22 elements skipped"


def test_a_call_that_asked_for_two_answers_at_once_says_the_round_shows_the_first():
    # The usage (38 output tokens) counts both answers; shown without a word, it read as the one answer's.
    result = upload("ddtrace-litellm-two-choices.yaml")
    assert [result.said(note) for note in result.notes] == [
        "interaction 1: the call asked for 2 answers at once (n = 2): the round shows the first, and any usage the "
        "provider reported counts both"]
    (round_,) = result.conversations[0].trace.rounds
    assert [c.name for c in round_.tool_calls] == ["get_current_weather"]
    assert round_.response.usage.output_tokens == 38


# --- Streams recorded by vercel/ai ------------------------------------------------------------------------------


def test_calls_an_anthropic_message_start_already_holds_are_the_answers_calls():
    result = upload("vercel-anthropic-prepopulated-calls.chunks.txt")
    first = result.conversations[0].trace.rounds[0]
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("toolu_015dGLMbwBKv1ZRQr6KdJzeH", "rollDie", {"player": "player2"})]
    assert first.response.finish_reason == "tool_use"
    last = result.conversations[-1].trace.rounds[0]
    assert "Player 2 wins the game 3-2!" in last.response.message.text and last.tool_calls == ()


def test_perplexitys_closing_done_chunk_is_read_with_its_finish_reason():
    result = upload("vercel-perplexity-done-chunk.chunks.txt")
    response = result.conversations[0].trace.rounds[0].response
    assert result.problems == ()
    assert response.finish_reason == "stop"
    assert response.message.text.startswith("**EcoVista Day**")
    assert (response.usage.input_tokens, response.usage.output_tokens) == (11, 434)


def test_a_structured_answer_sent_back_as_text_is_said_rewritten_and_not_left_unanswered_nor_made_up():
    # Mirascope asks for a structured answer through __mirascope_formatted_output_tool__ and resumes by sending the
    # call back as the JSON it carried, {"output": 7}. The call was the model's answer, not a request for the program
    # to act: missing-tool-result said "the model never learns what became of its request", and model-filled-value
    # said of the lucky number 7 "one nobody gave, the model should ask the person for".
    findings = run_checks(upload("mirascope-anthropic-structured-resume.yaml").conversations[0].trace)
    assert [(f.code, f.round) for f in findings] == [("history-rewritten", 2)]
    assert ("not what the model wrote in round 1: its __mirascope_formatted_output_tool__ call is sent back as text"
            in findings[0].message)


def test_a_handoff_goes_on_in_the_conversation_that_made_it_under_the_next_agents_instructions():
    # weave's OpenAI Agents SDK cassette: the triage agent calls transfer_to_history_tutor; the History Tutor's request
    # (no previous_response_id) resends that input, the call and its result with other instructions and no tools.
    triage, guardrail = upload("weave-agents-handoff.yaml").conversations
    first, second = triage.trace.rounds
    assert [c.name for c in first.tool_calls] == ["transfer_to_history_tutor"]
    assert [m.text for m in (first.request.messages[0], second.request.messages[0])] == [
        "You determine which agent to use based on the user's homework question",
        "You provide assistance with historical queries. Explain important events and context clearly."]
    assert [p.content for m in second.request.messages for p in m.tool_results] == ["{'assistant': 'History Tutor'}"]
    assert second.response.message.text.startswith("The first President of the United States was George Washington.")
    # The guardrail's parallel call (its own instructions, the same question, no model turn) stays apart.
    assert guardrail.trace.rounds[0].request.messages[0].text == "Check if the user is asking about homework."
    findings = {(f.code, f.severity, f.round): f.message for f in run_checks(triage.trace)}
    assert set(findings) == {("history-rewritten", "info", 2), ("tools-changed", "info", 2)}
    assert findings[("history-rewritten", "info", 2)] == (
        "The instructions differ from round 1's: the model answers this round under other instructions (a handoff to "
        "another agent does this). That is allowed, but it invalidates the prompt cache.")


def test_a_call_sent_back_written_out_in_the_turns_text_is_not_said_never_answered():
    # smolagents (weave's cassette) writes the get_weather call into the assistant turn's text and its result into a
    # user message, "Observation: ...": the model does read the answer, as words. It was told it "never learns what
    # became of its request".
    trace = upload("weave-smolagents-calls-as-text.yaml").conversations[0].trace
    first, second = trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("get_weather", {"location": "Tokyo", "celsius": True})]
    assert [c.name for c in second.tool_calls] == ["final_answer"]
    assert second.request.messages[3].text == (
        "Observation:\nThe weather in Tokyo is sunny with temperatures around 7°C.")
    findings = run_checks(trace)
    assert [f.message for f in findings if f.code == "missing-tool-result"] == [
        "Round 2's request carries neither call call_nxuBkOloEPe9Dq2lgskN8jEL (get_weather) nor a result for it: the "
        "turn sent back there names the call in its text, written out as words rather than sent as a call, so "
        "whatever answers it reaches the model as ordinary text, not as the call's result. Send the assistant turn "
        "back as received, with a result for every call."]
    assert [(f.code, f.round) for f in findings if f.code == "history-rewritten"] == [("history-rewritten", 2)]


def test_a_call_recorded_without_its_request_body_is_a_round_whose_request_is_not_known():
    # weave's LangChain cassette keeps `body: ''` for the request to /v1/chat/completions; the answer streams a legacy
    # `function_call` (`delta.function_call`, name then argument pieces), finish_reason `function_call`.
    result = upload("weave-langchain-legacy-function-call.yaml")
    [round_] = result.conversations[0].trace.rounds
    assert not round_.request_recorded
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [("Calculator", {"a": 3, "b": 4})]
    assert (round_.response.model, round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (
        "gpt-3.5-turbo-0125", 82, 19)
    assert [p.message for p in result.notes] == [
        "the request body was recorded empty: the round shows the response alone, its request not known"]


def test_mini_swe_agents_command_output_is_the_programs_turn_not_the_person_asking():
    # mini-swe-agent sends each command's output as the next user turn, opening "<returncode>" (its
    # action_observation_template). The picture drew nine of them as the person: "asks: <returncode>0</returncode> …".
    from lib.growth import growth
    from lib.sequence import sequence
    (conversation,) = upload("mini-swe-agent-github-issue.traj.json").conversations
    asked = [a.label for a in sequence(conversation.trace, limit=100) if a.source == "user"]
    assert asked == ["asks: Please solve this issue: GitHub Issue: SyntaxEr…"]
    [output] = growth(conversation.trace, 2).new[1:]
    assert output.message.text.startswith("<returncode>1</returncode>") and output.origin == "program"


def test_crewais_prompt_after_tool_results_is_the_programs_turn_not_the_person_asking():
    # CrewAI on OpenAI with native tool calling appends "Analyze the tool result. If requirements are met, provide the
    # Final Answer. …" as a user turn after the results (its post_tool_reasoning text): the picture said the person
    # asked it. The task CrewAI writes from the crew's description stays the one asking.
    from lib.sequence import sequence
    (conversation,) = upload("crewai-openai-max-usage.yaml").conversations
    asked = [a.label for a in sequence(conversation.trace, limit=100) if a.source == "user"]
    assert asked == ["asks: Current Task: Call the counting_tool 4 times wi…"]


# --- Mirascope's re-ask --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, asked, reasks", [
    ("mirascope-openai-validation-retry.yaml", "asks: Pick a random number between 1 and 1000", [2]),
    ("mirascope-anthropic-parse-error-retry.yaml", "asks: Find out the secret and report back.", [2, 3]),
    ("pydantic-ai-cerebras-validation-feedback.yaml", "asks: What is the capital of France?", [2]),
    ("pydantic-ai-bedrock-validation-errors.yaml", "asks: What was the temperature in London 1st January …", [3]),
])
def test_a_librarys_retry_message_is_its_own_words_never_the_person_asking(name, asked, reasks):
    # Drawn before as the person speaking: "asks: Your response failed schema validation: 1 valid…", "asks: Your
    # response could not be parsed: Incorrect pa…" (Mirascope), "asks: Validation feedback: Plain text respons…",
    # "asks: 1 validation error: ```json [ { "type"…" (pydantic-ai), and the answer before each "shows the answer" to
    # the person.
    from lib.growth import growth, origin_words
    from lib.presenter import carried
    from lib.sequence import sequence
    [conversation] = upload(name).conversations
    trace = conversation.trace
    arrows = sequence(trace)
    assert [a.label for a in arrows if a.source == "user"] == [asked]
    # Said for what it is: drawn as "adds 1 message of its own context in the user's role", the words for an
    # agent's instructions files and environment, and carded "written by the program in the user's role".
    assert [a.round for a in arrows if a.label == "asks the model again: its answer failed validation"] == reasks
    assert not [a for a in arrows if a.label.endswith("of its own context in the user's role")]
    # The answers the library re-asked after went back to the model, not to the person.
    assert not [a.round for a in arrows if a.label == "shows the answer" and a.round + 1 in reasks]
    for k in reasks:
        [reask] = [e for e in growth(trace, k).entries if e.status == "new" and e.message.role == "user"]
        assert reask.origin == "program"
        assert origin_words(reask) == ("written by the library in the user's role, not typed by the person: the "
                                       "model's previous answer failed the library's validation, and the library "
                                       "asks the model again")
        # Step 4's sentence of what the request carries: "1 message the program wrote in the user's role" before.
        said = carried(trace.rounds[k - 1], growth(trace, k))
        assert said.endswith("the library's re-ask (the model's answer failed its validation).")
        assert "the program wrote in the user's role" not in said


@pytest.mark.parametrize("text", [
    "Your response failed schema validation: it is too long, can you shorten it?",  # the opening alone: a person's
    "Please ensure your response matches the expected format.",  # the closing alone
    "Validation feedback:\nlooks good to me",
    "Fix the errors and try again.",
    "2 validation errors: the date and the name. Fix the errors and try again.",
])
def test_a_person_writing_like_a_librarys_retry_message_is_still_the_person(text):
    from lib.injected import agent_wrote
    assert not agent_wrote(text)


def test_a_gemini_request_whose_tools_are_one_tool_object_is_read_with_its_tool_and_call():
    # pydantic-ai writes `tools` as one Tool (`{"function_declarations": [...]}`) and Gemini answers 200: the user saw
    # both Gemini rounds skipped, "interaction 1: 'tools' is an object, expected a list".
    gemini = upload("pyd-gemini-then-openai-lone-tools.yaml").conversations[0].trace
    first, second = gemini.rounds[:2]
    assert [t.name for t in first.request.tools] == ["get_capital"]
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_capital", {"country": "France"})]
    assert (first.response.model, first.response.usage.input_tokens, first.response.usage.output_tokens) == (
        "gemini-2.0-flash-exp", 23, 5)
    assert second.response.message.text.strip() == "The capital of France is Paris."


def test_a_responses_run_asked_again_from_its_history_without_instructions_stays_one_conversation():
    # Bedrock Mantle names every call `call_0`; pydantic-ai resends each as `resp_<response id>:call_0`, and then
    # asks "Reply with exactly OK." from the ended run's messages, without instructions. That round was shown as a
    # conversation of one round named after round 3's response id, its seven messages all "new this round".
    trace = _rounds("pyd-mantle-reused-call-ids.yaml")
    assert [len(r.request.messages) for r in trace.rounds] == [2, 4, 6, 7]
    last = trace.rounds[-1]
    assert [m.text for m in growth_new(trace, last.index)][-1] == "Reply with exactly OK."
    assert (last.response.model, last.response.message.text, last.response.usage.input_tokens) == (
        "openai.gpt-5.5", "OK", 93)
    codes = {(f.code, f.round) for f in run_checks(trace)}
    assert ("reused-call-id", 2) in codes  # call_0 again for second_tool: what the recording was made to show


def test_a_request_that_leaves_out_the_instructions_and_resends_the_rest_unchanged_is_read_as_that():
    # Round 4 resends round 3's messages without the instructions they began with. Placed message by message, every
    # one after the gap read as shifted: "Compared with round 3's request, 6 resent messages changed", and the Tokens
    # page's "Where the input goes" showed nothing resent.
    from lib.condensed import condensed_rounds
    from lib.growth import growth
    from lib.tokens import CHARACTER_COUNTER, breakdowns, message_tokens
    trace = _rounds("pyd-mantle-reused-call-ids.yaml")
    placed = growth(trace, 4)
    earlier = trace.rounds[2].request.messages
    assert [e.message for e in placed.resent] == list(earlier[1:])
    assert placed.changed == () and (placed.dropped, placed.dropped_at) == (1, (0,)) and earlier[0].role == "system"
    assert [(e.origin, e.message.text) for e in placed.new] == [
        ("response", trace.rounds[2].response.message.text), ("input", "Reply with exactly OK.")]
    said = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert said[("history-rewritten", 4)].startswith(
        "This request resends round 3's messages without the instructions they began with (the system message); the 5 "
        "other messages are resent unchanged.")
    fourth = breakdowns(trace, CHARACTER_COUNTER)[3]
    assert fourth.history == sum(message_tokens(m, CHARACTER_COUNTER) for m in earlier[1:]) > 0
    assert fourth.resent >= fourth.history
    condensed = condensed_rounds(trace)["rounds"][3]
    assert (condensed["heading"], condensed["changed"], len(condensed["new"])) == (
        "Round 4: the program sends 7 messages, 2 of them new", [], 2)


def test_a_call_and_its_result_left_out_of_the_middle_are_dropped_and_a_rewrite_stays_a_rewrite():
    # The same run, its last request sent without round 1's call and result (messages[2] and [3] of round 3's request)
    # and, once more, with that call's result rewritten instead.
    from dataclasses import replace
    from lib.growth import growth
    trace = _rounds("pyd-mantle-reused-call-ids.yaml")
    earlier, last = trace.rounds[2].request.messages, trace.rounds[3]
    answered = trace.rounds[2].response.message

    def asked(*messages):
        request = replace(last.request, messages=(*messages, answered, last.request.messages[-1]))
        return replace(trace, rounds=(*trace.rounds[:3], replace(last, request=request, resent_prefix=2)))

    trimmed = asked(earlier[0], earlier[1], earlier[4], earlier[5])
    placed = growth(trimmed, 4)
    assert [e.message for e in placed.resent] == [earlier[0], earlier[1], earlier[4], earlier[5]]
    assert (placed.dropped_at, len(placed.new), placed.changed) == ((2, 3), 2, ())
    said = {(f.code, f.round): f.message for f in run_checks(trimmed)}
    assert said[("history-rewritten", 4)].startswith("This request leaves out 2 messages of round 3's request "
                                                     "(messages[2], messages[3] there); the 4 other messages are resent")
    rewritten = growth(asked(*earlier[:3], earlier[1], *earlier[4:]), 4)  # the result replaced by other words
    assert ([e.index for e in rewritten.changed], rewritten.dropped_at, len(rewritten.resent)) == ([3], (), 5)


def test_the_checks_read_a_request_that_left_messages_out_as_growth_does():
    # Round 4 leaves out the instructions and resends the rest. The checks took the request before as a prefix by
    # position, so they read every message of round 4 as new again: with round 2's second_tool call sent without its
    # result in round 3 and resent so in round 4, the user saw that finding twice, the second time as if new, "This
    # request carries the second_tool call ... but no result for it follows" on round 4, where nothing new was wrong.
    from dataclasses import replace
    from lib.checks import _appended, _fresh
    trace = _rounds("pyd-mantle-reused-call-ids.yaml")
    third, last = trace.rounds[2], trace.rounds[3]
    call = third.request.messages[4].tool_calls[0]
    unanswered = replace(trace, rounds=(
        *trace.rounds[:2],
        replace(third, request=replace(third.request, messages=third.request.messages[:5])),
        replace(last, request=replace(last.request, messages=last.request.messages[:4] + last.request.messages[5:]))))
    said = {(f.code, f.round): f.message for f in run_checks(unanswered)}
    assert said[("missing-tool-result", 3)].startswith("This request resends the second_tool call call_0 under "
                                                       f"another id, {call.id}")
    assert ("missing-tool-result", 4) not in said
    # No result for the renamed call follows in round 3, under either id: the user read "... with its result paired
    # to that id", which no message of that request bears out.
    renamed = said[("missing-tool-result", 3)]
    assert "with its result paired to that id" not in renamed
    assert f"under another id, {call.id}, and no result for it follows, under either id" in renamed
    assert [f.severity for f in run_checks(unanswered) if (f.code, f.round) == ("missing-tool-result", 3)] == ["error"]
    # Where the result does follow (the real run), the finding says so.
    real = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert f"under another id, {call.id}, with its result paired to that id" in real[("missing-tool-result", 3)]

    # Round 3 asked, as round 4 does, without the instructions: the turn that answers round 2 sits one place earlier
    # than round 2's request was long. The user read "Round 3's request carries neither call call_0 (second_tool) nor
    # a result for it: the turn was dropped", beside the history-rewritten finding saying the rest was resent.
    bare = replace(trace, rounds=(*trace.rounds[:2], replace(third, request=replace(
        third.request, messages=third.request.messages[1:]), resent_prefix=0), replace(last, resent_prefix=5)))
    said = {(f.code, f.round, f.path): f.message for f in run_checks(bare)}
    assert said[("history-rewritten", 3, "messages")].startswith(
        "This request resends round 2's messages without the instructions they began with (the system message)")
    assert ("missing-tool-result", 2, "choices[0].message.tool_calls[0]") not in said
    assert [code for code, index, _ in said if index == 2] == ["missing-tool-result", "reused-call-id"]
    assert said[("missing-tool-result", 2, "messages[2].tool_calls[0]")].startswith(
        "This request resends the first_tool call call_0 under another id")

    # Each check's reading of what a request sends anew is growth's, on the real run and with round 1's call and its
    # result left out of the middle of the last request.
    earlier, answered = third.request.messages, third.response.message
    request = replace(last.request, messages=(earlier[0], earlier[1], earlier[4], earlier[5], answered,
                                              last.request.messages[-1]))
    trimmed = replace(trace, rounds=(*trace.rounds[:3], replace(last, request=request, resent_prefix=2)))
    for case in (trace, trimmed, unanswered, bare):
        fresh = [(round_.index, i) for round_, i, _, _ in _fresh(case)]
        assert fresh == [(r.index, e.index) for r in case.rounds for e in growth(case, r.index).new]
        for earlier, following in zip(case.rounds, case.rounds[1:]):
            assert [i for i, _, _ in _appended(following, earlier)] == [
                e.index for e in growth(case, following.index).new if e.message.tool_results]


def growth_new(trace, index):
    """The messages round `index` sends for the first time."""
    from lib.growth import growth
    return [p.message for p in growth(trace, index).new]


def test_a_retry_after_an_empty_answer_under_a_grown_system_prompt_stays_in_its_conversation():
    # CrewAI leaves Gemini's empty answer out and asks the task again, its system prompt now written twice (then three
    # times): the user saw "4 rounds in 3 conversations", the retries as new conversations whose every message was new.
    trace = _rounds("crewai-gemini-empty-answer-retry.yaml")
    assert [r.response.message.text.strip() for r in trace.rounds] == [
        "", "", "", '{"sum_numbers_response": {"result": 30000}}']
    for index in (3, 4):
        [asked] = growth_new(trace, index)
        assert asked.role == "user" and asked.text.startswith("\nCurrent Task: What is 10000 + 20000?")
    said = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert said[("history-rewritten", 3)].startswith("The instructions differ from round 2's")


@pytest.mark.parametrize("name, words, rejected", [
    ("pyd-groq-stream-tool-use-failed.yaml", "Tool call validation failed: tool call validation failed: parameters for "
     "tool get_something_by_name did not match schema", '{"name": "get_something_by_name", "arguments": {\n  '
     '"invalid_param": "value"\n}}'),
    # The event's failed_generation is empty: what had streamed ("maybe") is what the model wrote and Groq refused.
    ("pyd-groq-stream-text-not-a-call.yaml", "Tool choice is required, but model did not call a tool", "maybe"),
])
def test_a_stream_ended_by_an_error_event_is_the_providers_refusal_with_what_the_model_wrote(name, words, rejected):
    # The round was skipped as a damaged interaction ("'choices' is missing, expected a list"), so the retry looked
    # like the conversation's first call and the refusal was nowhere.
    trace = _rounds(name)
    first = trace.rounds[0]
    assert first.response is None and first.error.status == 400 and first.error.message.startswith(words)
    assert first.error.rejected_generation == rejected
    said = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert "The model did answer: the provider rejected what it wrote" in said[("provider-error", 1)]
    assert trace.rounds[1].response.model == "openai/gpt-oss-120b"


def test_a_stream_an_error_event_ended_under_http_200_is_said_to_have_begun_and_then_failed():
    # Groq's status line was 200 and the stream ended with `data: {"error": {..., "status_code": 400}}`; the user read
    # "The provider refused this request with HTTP 400", of an answer that had begun.
    from lib.condensed import condensed_rounds
    from lib.failures import failure_heading
    from lib.summary import finish_words
    trace = _rounds("pyd-groq-stream-tool-use-failed.yaml")
    first = trace.rounds[0]
    error = first.error
    happened = ("the answer began streaming under HTTP 200, then the stream ended with an error event the provider "
                "marked 400")
    assert failure_heading(error) == f"The call failed part way: {happened}. The provider said:"
    assert (error.status, error.ended_stream, error.stream_status) == (400, True, 200)
    said = {(f.code, f.round): f.message for f in run_checks(trace)}
    assert said[("provider-error", 1)].startswith(f"The provider stopped this answer part way: {happened}.")
    assert "HTTP 400" not in said[("provider-error", 1)]
    assert finish_words(first) == "error (HTTP 200, then an error event marked 400)"
    assert condensed_rounds(trace)["rounds"][0]["error"].startswith("HTTP 200, then an error event marked 400: ")
    from lib.cli import _error  # the summary document (roundtrip summarize --json) keeps both statuses
    assert _error(error)["stream_ended"] == {"http_status": 200, "event_status": 400}
    from lib.sequence import sequence
    assert "ends the stream with an error: HTTP 200, then an error event marked 400" in [
        a.label for a in sequence(trace) if a.round == 1]


def test_a_request_that_extends_two_alike_requests_goes_on_from_the_answer_it_resends():
    # Both threads' last requests are the same two messages; the third request resends the second answer's call
    # (call_7rWB...), not the first's (call_Tbs8...). It was placed after the first, and the user read "This request
    # resends the add_numbers call call_Tbs8Do1pty9ixq7sj37jRJMI under another id, call_7rWBTlRtbzEqJdSrQHOYnP3Q ...:
    # the program rewrote the call id", of a program that resent the call as the model made it.
    result = upload("crewai-openai-asked-twice.yaml")
    first, second = (c.trace for c in result.conversations)
    assert [c.id for r in first.rounds for c in r.tool_calls] == ["call_Tbs8Do1pty9ixq7sj37jRJMI"]
    made, answered = second.rounds
    assert [c.id for c in made.tool_calls] == ["call_7rWBTlRtbzEqJdSrQHOYnP3Q"]
    assert answered.response.message.text.startswith('{"operation":"Addition","result":42')
    assert [f.code for t in (first, second) for f in run_checks(t)] == []


def test_a_request_sent_again_as_it_was_stays_with_the_history_it_resends():
    # Calls 4 and 5 send the same five messages: the history of calls 2 and 3 (call_ll45..., its result, the
    # structured answer). Call 5 was placed after call 1, whose request it extends, and the user read "This request
    # resends the search_web call call_vAsoTR10d8R8cccsyozh2JD0 under another id, call_ll45v9MQlx6m3SqeGajJGtzq, with
    # its result paired to that id: the program rewrote the call id", of calls the program never rewrote.
    result = upload("crewai-lite-agent-asked-again.yaml")
    alone, agent, converter = (c.trace for c in result.conversations)
    assert [c.id for r in alone.rounds for c in r.tool_calls] == ["call_vAsoTR10d8R8cccsyozh2JD0"]
    assert [r.extra["source_line"] for r in agent.rounds] == [2, 3, 4, 5]
    asked, again = agent.rounds[2:]
    assert again.request.messages == asked.request.messages and again.resent_prefix == 5
    assert [c.id for c in asked.tool_calls] == ["call_3KDESz9MoOK0jF68xohYX7U3"]
    assert again.response.message.text.startswith('{"summary":"Tokyo\'s population in 2023')
    assert converter.rounds[0].request.messages[0].text.startswith("Format your final answer")
    # Asked again, the program owes no result for the call it set aside: the request does not go on from that answer.
    assert [f.code for t in (alone, agent, converter) for f in run_checks(t)] == []


def test_a_conversation_sent_on_to_another_providers_api_is_one_conversation_written_in_its_first_format():
    # pydantic-ai asks gpt-5 through the Responses API, then sends that history on to claude-sonnet-4-0 (the answer's
    # reasoning summaries written as `<thinking>` texts before it). The user read "2 interactions: 2 rounds in 2
    # conversations", Claude's round a conversation of its own whose first three messages were all "new".
    result = upload("pyd-openai-then-anthropic-history.yaml")
    (conversation,) = result.conversations
    trace = conversation.trace
    first, second = trace.rounds
    assert trace.dialect == "openai-chat" and second.request.model == "claude-sonnet-4-0"
    assert second.resent_prefix == 2 and second.request.messages[0].text == "You are a helpful assistant."
    assert second.request.messages[2].text.endswith("is it an unsignalized street?")
    assert second.response.usage.input_tokens == 1343
    assert origin_line(trace, second).startswith(
        "Converted from an Anthropic Messages body, written here as an OpenAI Chat Completions body")
    detail = provenance_detail(trace.round_provenance(second))
    assert detail.startswith("This call went to another API than the one this conversation is written in, OpenAI Chat "
                             "Completions")
    assert "a thinking part has no Chat Completions form; left out" in detail
    # The other way round: begun with Claude, sent on to gpt-5 (`<think>` and the answer in one assistant text).
    (back,) = upload("pyd-anthropic-then-openai-history.yaml").conversations
    assert back.trace.dialect == "anthropic-messages" and back.trace.rounds[1].request.model == "gpt-5"
    assert origin_line(back.trace, back.trace.rounds[1]).startswith("Converted from an OpenAI Responses API object")


@pytest.mark.parametrize("name, round_, model_before, model_now, said", [
    ("pyd-openai-then-anthropic-history.yaml", 2, "gpt-5", "claude-sonnet-4-0",
     "The assistant turn sent back here is not what the model wrote in round 1: its text is not the text the model "
     "wrote."),
    ("pyd-anthropic-then-openai-history.yaml", 2, "claude-sonnet-4-6", "gpt-5",
     "The assistant turn sent back here is not what the model wrote in round 1: its text is not the text the model "
     "wrote."),
    # Gemini's call resent under an id pydantic-ai made up, its result as "Paris" where Gemini was sent
    # {"return_value": "Paris"}: "... The model now reads a history it did not write, and the prompt cache is lost. If
    # this is deliberate trimming, keep each call together with its result."
    ("pyd-gemini-then-openai-lone-tools.yaml", 3, "gemini-2.0-flash-exp", "gpt-4o-mini",
     "Compared with round 2's request, 2 resent messages changed."),
])
def test_a_history_sent_on_to_another_providers_api_is_said_to_be_what_that_does_not_a_turn_to_send_back(
        name, round_, model_before, model_now, said):
    # pydantic-ai writes the first model's thinking into the history as tagged text for the second provider's API.
    # The user read a warning: "The assistant turn sent back here is not what the model wrote in round 1: its text is
    # not the text the model wrote. Send the turn back as received, text beside the calls included." True, yet the
    # program cannot send it back as received: the other API has no place for it.
    (conversation,) = upload(name).conversations
    (finding,) = [f for f in run_checks(conversation.trace) if f.code == "history-rewritten"]
    assert (finding.severity, finding.round) == ("info", round_)
    assert finding.message.startswith(said)
    assert f"sends the conversation on to another provider's API ({model_now}; round {round_ - 1} asked " \
           f"{model_before})" in finding.message
    assert "That is what passing a history to another provider's API does" in finding.message
    assert "Send the turn back as received" not in finding.message and "deliberate trimming" not in finding.message


def test_a_round_sent_on_in_another_format_does_not_call_its_content_as_recorded_where_the_writing_left_parts_out():
    # The user read "Converted from an Anthropic Messages body: the content is as recorded, written here as an OpenAI
    # Chat Completions body", above a note listing the thinking that writing left out.
    for name in ("pyd-openai-then-anthropic-history.yaml", "pyd-anthropic-then-openai-history.yaml"):
        (conversation,) = upload(name).conversations
        trace = conversation.trace
        second = trace.rounds[1]
        line = origin_line(trace, second)
        assert ": the content is as recorded" not in line
        assert "not all of the content is as recorded, as writing it so left out or filled in what the note lists" \
            in line
        assert "leaves out or fills in" in provenance_detail(trace.round_provenance(second))
        # The round that went to the conversation's own API is still as recorded.
        assert "not all of the content" not in origin_line(trace, trace.rounds[0])


def test_requests_that_share_instructions_but_not_the_answer_stay_apart_across_formats():
    data = (FIXTURES / "pyd-openai-then-anthropic-history.yaml").read_bytes()
    # Claude asked another question under the same system prompt: nothing of the first conversation sent on.
    other_question = data.replace(b"- text: How do I cross the street?", b"- text: How do I boil an egg?")
    assert other_question != data
    assert upload("other.yaml", other_question).summary() == \
        "2 interactions: 2 rounds in 2 conversations; 0 interactions skipped"
    # The same question and answer, but a text before the answer that is none of the model's thinking.
    other_text = data.replace(b"<thinking>\\n**Crafting safe crossing instructions**",
                              b"<thinking>\\n**Something the model never thought**")
    assert other_text != data
    assert upload("other.yaml", other_text).summary() == \
        "2 interactions: 2 rounds in 2 conversations; 0 interactions skipped"


def test_a_compaction_call_is_a_round_the_provider_answers_with_the_compacted_item_and_its_usage():
    # pydantic-ai asks `/v1/responses/compact` (previous_response_id, no input) between its questions. The provider
    # answers with the compacted history: no turn of the model's, no call, billed all the same.
    trace = _rounds("pyd-responses-compact-chain.yaml")
    compaction = trace.rounds[2]
    assert compaction.compaction and not trace.rounds[1].compaction
    assert (compaction.response.usage.input_tokens, compaction.response.usage.output_tokens) == (141, 183)
    assert compaction.response.usage.source == "reported"
    assert compaction.tool_calls == () and compaction.response.finish_reason is None
    (item,) = compaction.response.message.parts
    assert (item.type, item.raw["id"]) == ("compaction", "cmp_0d4b654a05c1a7a70169deb7a23d008197b9c84fd37d3ebffc")
    # The provider held the history it compacts (previous_response_id): nothing of it was sent.
    assert compaction.request.held_by_provider == 4 and [m.text for m in compaction.request.messages] == [
        "What is 2+2?", "2 + 2 = **4**", "And 3+3?", "3 + 3 = **6**"]
    note = trace.round_provenance(compaction).note
    assert note.startswith("This call asked the provider to compact the conversation")
    assert "lists 2 user messages of the conversation kept as they were sent" in note


def test_the_request_after_a_compaction_goes_on_from_the_compacted_item_it_resends():
    trace = _rounds("pyd-responses-compact-chain.yaml")
    after = trace.rounds[3]
    assert after.compacted and not after.compaction
    placed = growth(trace, 4)
    assert [(e.status, e.origin) for e in placed.entries] == [("new", "compaction"), ("new", "input")]
    assert placed.entries[1].message.text == "And 4+4?" and placed.dropped == 4
    hits = [f.message for f in run_checks(trace) if f.code == "history-rewritten" and f.round == 4]
    assert hits == [
        "The program compacted the conversation before this request: it left out the 4 messages of round 3's request "
        "and sent the compacted history the provider returned in round 3 in their place, so the model works from that "
        "summary from here on. Agents do this to keep a long session within the context window. What the summary "
        "leaves out, the model no longer sees, and the prompt cache starts again."]


@pytest.mark.parametrize("name, index, heading", [
    ("pyd-responses-compact-chain.yaml", 4, "Round 4: the program sends 2 messages, 2 of them new"),
    ("pyd-responses-compact-chain.yaml", 8, "Round 8: the program sends 2 messages, 2 of them new"),
    ("pyd-responses-compact-stateless.yaml", 4, "Round 4: the program sends 3 messages, 2 of them new"),
])
def test_the_round_navigator_counts_a_request_after_a_compaction_as_the_explorer_heads_it(name, index, heading):
    # The request after a compaction goes on from the compacted item: the history before it was cut. The round
    # navigator counted its messages against the whole earlier request: "Round 4: the program sends 2 messages, 0 of
    # them new", the compacted item and the question listed as changed, where the explorer heads the round "the
    # program sends 2 messages, 2 of them new".
    from lib.condensed import condensed_rounds
    from lib.growth import sends
    trace = _rounds(name)
    assert trace.rounds[index - 1].history_cut is not None
    condensed = condensed_rounds(trace)["rounds"]
    placed = growth(trace, index)
    assert condensed[index - 1]["heading"] == heading == (
        f"Round {index}: {sends(trace.rounds[index - 1], len(placed.new), placed.since)}")
    assert condensed[index - 1]["changed"] == [] and len(condensed[index - 1]["new"]) == len(placed.new)
    for round_ in trace.rounds:  # every round, cut or not, as the explorer heads it
        placed = growth(trace, round_.index)
        assert condensed[round_.index - 1]["heading"] == (
            f"Round {round_.index}: {sends(round_, len(placed.new), placed.since)}")


def test_the_sequence_draws_a_compaction_as_the_providers_answer_not_the_models_turn():
    from lib.sequence import sequence
    trace = _rounds("pyd-responses-compact-chain.yaml")
    drawn = [(a.source, a.target, a.label) for a in sequence(trace) if a.round in (2, 3, 4)]
    assert drawn == [
        ("user", "program", "asks: And 3+3?"),
        ("program", "model", "request 2: 1 message (2 held by the provider)"),
        ("model", "program", "answers in text"),
        ("program", "user", "shows the answer"),
        ("program", "api", "request 3: compact the history, 0 messages (4 held by the provider)"),
        ("api", "program", "returns it compacted: no answer, no call"),
        ("user", "program", "asks: And 4+4?"),
        ("program", "model", "request 4: 2 messages"),
        ("model", "program", "answers in text"),
        ("program", "user", "shows the answer"),
    ]


def test_a_compaction_of_a_resent_history_stays_in_its_conversation_and_the_instructions_are_resent():
    # Without previous_response_id pydantic-ai sends the whole history to compact, then the compacted item and the
    # next question under the same instructions.
    trace = _rounds("pyd-responses-compact-stateless.yaml")
    assert [r.compaction for r in trace.rounds] == [False, False, True, False]
    placed = growth(trace, 4)
    assert [(e.status, e.origin) for e in placed.entries] == [
        ("resent", "input"), ("new", "compaction"), ("new", "input")]
    assert placed.entries[2].message.text == "And 5+5?" and placed.dropped == 4
    assert (trace.rounds[2].response.usage.input_tokens, trace.rounds[2].response.usage.output_tokens) == (156, 190)


def test_a_refused_compaction_call_is_still_named_a_compaction_by_its_path():
    # The same run with the compaction refused (the recording's 200 answer replaced by an error body): no
    # `response.compaction` says what the call was; its path does.
    import yaml
    data = yaml.safe_load((FIXTURES / "pyd-responses-compact-stateless.yaml").read_text())
    refused = data["interactions"][2]["response"]
    refused["status"] = {"code": 400, "message": "Bad Request"}
    refused["parsed_body"] = {"error": {"message": "Compaction is not available for this model.",
                                        "type": "invalid_request_error"}}
    data["interactions"] = data["interactions"][:3]
    trace = _rounds_of(upload("compact-refused.yaml", yaml.safe_dump(data).encode()))
    third = trace.rounds[2]
    assert third.compaction and third.response is None
    assert (third.error.status, third.error.message) == (400, "Compaction is not available for this model.")
    assert trace.round_provenance(third).note == (
        "This call asked the provider to compact the conversation (the Responses API's compact endpoint), not for "
        "the model's next turn; no compacted history it returned is in the log.")


def _rounds_of(result):
    assert result.problems == ()
    (conversation,) = result.conversations
    return conversation.trace


def test_a_compaction_during_an_ordinary_call_is_the_providers_item_beside_the_models_turn():
    # pydantic-ai switches compaction on in each request (`context_management` with `compact_threshold: 1000`); the
    # third response holds, beside the model's story, a `compaction` item the provider wrote. It read as one more part
    # of the model's turn, with no word on the round that the provider had compacted anything.
    trace = _rounds("pyd-responses-compact-inline.yaml")
    assert [r.compacted_in_call for r in trace.rounds] == [False, False, True, False]
    assert not any(r.compaction or r.compacted for r in trace.rounds)
    compacted = trace.rounds[2]
    assert [getattr(p, "type", p.kind) for p in compacted.response.message.parts] == ["text", "compaction"]
    note = trace.round_provenance(compacted).note
    assert note.startswith("The provider compacted the conversation during this call")
    assert "an encrypted item the provider wrote, not words of the model's" in note
    from lib.sequence import sequence
    drawn = [(a.source, a.target, a.label) for a in sequence(trace) if a.round == 3]
    assert drawn[-3:] == [
        ("model", "program", "answers in text"),
        ("api", "program", "also returns the history compacted: encrypted, not the model's words"),
        ("program", "user", "shows the answer"),
    ]


def _inline_asked_with(input_items):
    """pyd-responses-compact-inline.yaml with its fourth request's input written as `input_items(compacted item,
    question)`: how a program sends the history on after the provider compacted it during the third call."""
    import yaml
    cassette = yaml.safe_load((FIXTURES / "pyd-responses-compact-inline.yaml").read_bytes())
    (compacted,) = [item for item in cassette["interactions"][2]["response"]["parsed_body"]["output"]
                    if item["type"] == "compaction"]
    body = cassette["interactions"][3]["request"]["parsed_body"]
    # A copy: the same object written twice would be a YAML alias, which the cassette reader refuses.
    body["input"] = input_items(dict(compacted), body["input"][-1], body["input"][:-2])
    return upload("compacted.yaml", yaml.safe_dump(cassette).encode())


@pytest.mark.parametrize("sent", [
    lambda item: item,  # whole, as returned
    lambda item: {"type": "compaction", "id": item["id"]},  # by its id: the provider stored it
    lambda item: {"type": "item_reference", "id": item["id"]},
], ids=["whole", "by id", "item_reference"])
def test_a_request_that_sends_only_the_item_compacted_during_a_call_goes_on_from_that_call_its_history_cut(sent):
    # The provider compacted the conversation during the third call (`context_management`); the program drops the
    # turns before the compacted item and sends it, by itself or by its id, with the next question, as the Responses
    # API allows. The user read "4 interactions: 4 rounds in 2 conversations": the fourth round a conversation of its
    # own, its compacted item "an assistant turn the program put in the history".
    trace = _rounds_of(_inline_asked_with(lambda item, question, before: [sent(item), question]))
    fourth = trace.rounds[3]
    assert (fourth.history_cut, fourth.compacted) == (0, True)
    placed = growth(trace, 4)
    assert [(e.status, e.origin) for e in placed.entries] == [("new", "compaction"), ("new", "input")]
    assert placed.entries[1].message.text == "What is 2+2?" and placed.dropped == 5
    from lib.condensed import condensed_rounds
    from lib.growth import sends
    assert condensed_rounds(trace)["rounds"][3]["heading"] == "Round 4: the program sends 2 messages, 2 of them new" \
        == f"Round 4: {sends(fourth, len(placed.new), placed.since)}"
    assert [f.message for f in run_checks(trace) if f.code == "history-rewritten"] == [
        "The program compacted the conversation before this request: it left out the 5 messages of round 3's request "
        "and sent the compacted history the provider returned in round 3 in their place, so the model works from that "
        "summary from here on. Agents do this to keep a long session within the context window. What the summary "
        "leaves out, the model no longer sees, and the prompt cache starts again."]


def test_a_request_that_resends_the_whole_history_with_the_item_compacted_during_a_call_by_its_id_cuts_nothing():
    trace = _rounds_of(_inline_asked_with(lambda item, question, before: [
        *before, {"type": "compaction", "id": item["id"]}, question]))
    assert [(r.history_cut, r.compacted) for r in trace.rounds] == [(None, False)] * 4
    assert [e.status for e in growth(trace, 4).entries] == ["resent"] * 5 + ["new"] * 2


def test_the_request_that_resends_a_compaction_made_during_a_call_says_it_carries_the_compacted_history():
    from lib.growth import origin_words
    trace = _rounds("pyd-responses-compact-inline.yaml")
    placed = growth(trace, 4)
    assert [(e.status, e.origin) for e in placed.entries][-2:] == [("new", "response"), ("new", "input")]
    carried, asked = placed.new
    assert origin_words(carried) == (
        "the model's turn from the previous response, appended unchanged with the compacted history the provider "
        "returned during that call (encrypted, not the model's words), which the program sends back so the provider "
        "can go on from it")
    assert asked.message.text == "What is 2+2?"


def test_a_llama_stack_recording_reads_as_the_call_it_recorded_streamed_or_not():
    # Llama Stack's recorder keeps the OpenAI client's objects as `{"__type__", "__data__"}`, a stream as the list of
    # its chunks, and no status line: both files matched no known log format.
    for name, streamed, tokens in (("llama-stack-chat-tool-call.json", False, (177, 18, "reported")),
                                   ("llama-stack-chat-stream-tool-call.json", True, None)):
        [conversation] = upload(name).conversations
        [round_] = conversation.trace.rounds
        assert conversation.trace.model == "llama3.2:3b-instruct-fp16"
        assert round_.request.messages[0].text == ("What's the weather in Tokyo? Use the get_weather function to get "
                                                   "the weather.")
        assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [
            ("call_ybj7t2qt" if not streamed else "call_rolv1ozt", "get_weather", {"city": "Tokyo"})]
        assert round_.error is None and round_.cut_calls == ()
        if tokens is not None:
            usage = round_.response.usage
            assert (usage.input_tokens, usage.output_tokens, usage.source) == tokens
        else:  # the stream's chunks carried no usage: nothing reported
            assert round_.response.usage is None or round_.response.usage.source != "reported"
    assert list(run_checks(conversation.trace)) == []


def test_autogen_recorded_calls_read_as_calls_with_their_reported_tokens_and_no_model_named():
    # autogen-ext's ChatCompletionClientRecorder keeps AutoGen's own types (SystemMessage, UserMessage whose content
    # is a list of strings, AssistantMessage) and each CreateResult's usage, never the model's name.
    result = upload("autogen-recorder-teachability.json")
    [conversation] = [c for c in result.conversations if len(c.trace.rounds) == 3]
    assert conversation.trace.model is None
    last = conversation.trace.rounds[2]
    assert [m.role for m in last.request.messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last.request.messages[1].text.startswith("We have been given a task description.")
    assert texts(conversation.trace)[2].startswith("1. Contribute to autogen.")
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens, r.response.usage.source)
            for r in conversation.trace.rounds] == [(115, 107, "reported"), (259, 196, "reported"),
                                                    (539, 27, "reported")]
    assert [r.response.finish_reason for r in conversation.trace.rounds] == ["stop"] * 3


def test_an_answer_autogens_cache_gave_is_marked_the_caches_and_counts_no_call():
    # The eighth call asks exactly what the first did; with AutoGen's ChatCompletionCache in front of the client, the
    # recorder keeps the stored CreateResult marked "cached": true, usage and all. It was read as a fresh call of 108
    # input and 2 output tokens, billed twice in every total.
    from lib.summary import summarize
    from lib.tokens import CHARACTER_COUNTER
    result = upload("autogen-recorder-teachability-cache-hit.json")
    cached = [(c.id, r.index) for c in result.conversations for r in c.trace.rounds if r.from_cache]
    assert cached == [("conversation 8", 1)]
    conversation = next(c for c in result.conversations if c.id == "conversation 8")
    (row,) = summarize(conversation.trace, CHARACTER_COUNTER)
    assert (row.sent, row.input_if_known, row.output_if_known) == (False, None, None)
    assert "Answered from AutoGen's ChatCompletionCache, as the recording marks it" in origin_line(
        conversation.trace, conversation.trace.rounds[0])
    # The recording as AutoGen made it, every result "cached": false: every call a call.
    fresh = upload("autogen-recorder-teachability.json")
    assert [r.from_cache for c in fresh.conversations for r in c.trace.rounds] == [None] * 16
    first = next(c for c in fresh.conversations if c.id == "conversation 8")
    assert summarize(first.trace, CHARACTER_COUNTER)[0].input_if_known == 108


@pytest.mark.parametrize("name", ["ddtrace-openai-custom-tool-chat.yaml", "ddtrace-openai-custom-tool-responses.yaml"])
def test_a_custom_tools_free_text_input_is_its_call_not_broken_json(name):
    # GPT-5 called the custom tool math_exp with the input "4 + 4", written to the tool's Lark grammar. Chat Completions
    # sends it as {"type": "custom", "custom": {"name", "input"}}: the call was named "" and said not offered ("The
    # model called , which this request does not offer"). The Responses API's custom_tool_call was read as JSON
    # arguments: "The arguments of math_exp break its schema (not valid JSON ...)". Both errors; lib check exited 1.
    [conversation] = upload(name).conversations
    [call] = conversation.trace.rounds[0].tool_calls
    assert (call.name, call.arguments_raw, call.arguments, call.arguments_error) == ("math_exp", "4 + 4", "4 + 4", None)
    assert [t.name for t in conversation.trace.rounds[0].request.tools] == ["math_exp"]
    assert list(run_checks(conversation.trace)) == []


def test_a_handoff_that_puts_instructions_before_a_history_resent_whole_rewrites_nothing():
    # logfire's recording of an OpenAI Agents SDK run: agent1 (no instructions) calls random_number and hands off to
    # agent2, whose request puts "Return double the number" in front of the history, resent unchanged. It was "warning
    # history-rewritten: Compared with round 1's request, 1 resent message changed. The model now reads a history it
    # did not write", the question shown as changed into the instructions and then as new.
    [conversation] = upload("logfire-agents-handoff-adds-instructions.yaml").conversations
    placed = growth(conversation.trace, 2)
    assert [(e.message.role, e.status) for e in placed.entries] == [
        ("system", "new"), ("user", "resent"), ("assistant", "new"), ("tool", "new"), ("tool", "new")]
    assert placed.dropped == 0
    said = {f.code: f for f in run_checks(conversation.trace)}
    assert said["history-rewritten"].severity == "info"
    assert said["history-rewritten"].message.startswith(
        "This request puts instructions before the messages of round 1's request, which had none")
    # The question the request resends is counted as resent in the input's parts, as the round's card shows it.
    import json
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "lib", "summarize", "--json",
                           str(FIXTURES / "logfire-agents-handoff-adds-instructions.yaml")],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    parts = json.loads(done.stdout)["conversations"][0]["rounds"][1]["usage"]["input_parts"]
    assert (parts["instructions"], parts["earlier messages (resent)"]) == (4, 12)
# --- httpmock recordings (Rust) ----------------------------------------------------------------------


def test_an_httpmock_recording_reads_each_exchange_as_the_call_its_path_and_body_name():
    # rig's agent loop against Claude: three Messages calls, one YAML document each, the host not recorded.
    trace = _rounds("rig-anthropic-multi-step-tools.yaml")
    assert trace.model == "claude-sonnet-4-6"
    assert [[(c.name, c.arguments) for c in r.tool_calls] for r in trace.rounds] == [
        [("add", {"x": 3, "y": 5})], [("divide", {"x": 8, "y": 4})], []]
    assert [r.response.usage.input_tokens for r in trace.rounds] == [673, 792, 895]
    assert trace.rounds[2].response.message.text.startswith("### Result: **2**")


def test_an_httpmock_recordings_base64_body_is_decoded_as_the_event_stream_it_is():
    # rig marks AWS's binary event stream `body_encoding: base64`: ConverseStream's answer, read as Bedrock's.
    trace = _rounds("rig-bedrock-stream-tools.yaml")
    assert trace.model == "amazon.nova-lite-v1:0"
    first, second = trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("subtract", {"x": 2, "y": 5})]
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (447, 59)
    assert "-3" in second.response.message.text


def test_an_httpmock_recordings_query_parameters_stay_on_the_address():
    # `?alt=sse` of streamGenerateContent is recorded apart from the path, under `query_param`.
    trace = _rounds("rig-gemini-stream-tools.yaml")
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["subtract"], []]
    assert trace.rounds[1].response.message.text == "The result of 2 - 5 is -3."
    assert trace.rounds[1].response.usage.input_tokens == 224


def test_a_yaml_file_that_is_neither_a_cassette_nor_an_httpmock_recording_says_both():
    result = upload("notes.yaml", b"title: my notes\nitems:\n- a\n")
    assert [p.message for p in result.problems] == [
        "has no 'interactions' (nor 'http_interactions') list, nor 'requests' beside 'responses' (not a VCR "
        "cassette), nor a 'when' beside a 'then' (not an httpmock recording)"]


def test_a_codex_backend_stream_ending_with_an_empty_output_keeps_the_items_its_events_carried():
    # ChatGPT's Codex backend (what Codex CLI calls signed in with ChatGPT) sends each item in a
    # `response.output_item.done` event and ends with `response.completed` holding `output: []`. Every round read as
    # a 'stop' with no call, and the next request's resent calls as a rewritten history.
    name = "rig-codex-backend-sequential-tools.yaml"
    trace = _rounds(name)
    assert [[(c.name, c.arguments) for c in r.tool_calls] for r in trace.rounds] == [
        [("add", {"x": 3, "y": 4})], [("subtract", {"x": 7, "y": 5})], []]
    assert [r.response.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert [f.code for f in run_checks(trace)] == []
    # The first answer saved alone as server-sent events reads the same.
    (alone,) = upload("rig-codex-backend-add-call.sse").conversations
    assert [(c.id, c.name) for c in alone.trace.rounds[0].tool_calls] == [("call_REDACTED_1", "add")]


def test_creating_a_gemini_context_cache_is_no_model_call_though_it_sends_contents():
    # ruby_llm's cassette: `POST /v1beta/cachedContents` sends `model` and `contents` as generateContent does and is
    # answered with the cache's name and size. It was a round of its own, a conversation with no answer (finish
    # "unknown", its 9,617 input tokens our estimate) beside the call that used the cache.
    (conversation,) = upload("ruby-llm-gemini-context-cache.yml").conversations
    (round_,) = conversation.trace.rounds
    assert conversation.trace.model == "gemini-2.5-flash"
    assert round_.request.messages[0].text == "In one short sentence, what does the cached handbook describe?"
    assert round_.response.message.text.startswith("The RubyLLM release engineering handbook describes")


def test_a_text_generation_inference_chat_stream_reads_as_the_chat_chunks_it_is():
    # Hugging Face's TGI 1.4 streamed its OpenAI-compatible chat answers as chunks named `object: "text_completion"`
    # (with `choices[].delta`, where a legacy completion has `text`): 100 lines that matched no known format.
    (conversation,) = upload("semantic-kernel-tgi-chat-stream.sse").conversations
    assert conversation.trace.model == "teknium/OpenHermes-2.5-Mistral-7B"
    (round_,) = conversation.trace.rounds
    assert round_.response.message.text.startswith("Deep learning is a subset of machine learning that involves")
    assert round_.response.finish_reason == "length"


def test_a_legacy_completion_chunk_is_still_no_chat_chunk():
    # The same name on a legacy completion's chunk (choices[].text): not a chat chunk, and said to be none.
    chunk = b'data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"gpt-3.5-turbo-instruct",' \
            b'"choices":[{"text":"Hi","index":0,"logprobs":null,"finish_reason":null}]}\n\n'
    result = upload("completion.sse", chunk)
    assert result.conversations == ()
    assert result.problems[0].message.startswith("no line of the file matches a known log format")


def test_a_saved_stream_that_an_error_event_ended_is_a_failed_round_not_a_finished_one():
    # Groq's answer as pydantic-ai's cassette recorded it, its body saved alone: reasoning chunks, then under HTTP 200
    # `data: {"error": {... "code": "tool_use_failed", "status_code": 400}}`. The error line "matches no known log
    # format" and the round read as an answer that simply stopped, with no finding.
    trace = _rounds("pyd-groq-stream-tool-use-failed.sse")
    (round_,) = trace.rounds
    assert round_.error.status == 400
    assert round_.error.message.startswith("Tool call validation failed")
    assert [f.code for f in run_checks(trace) if f.severity == "error"] == ["provider-error"]


def test_an_anthropic_stream_that_an_error_event_ended_is_a_failed_round():
    # The error event Anthropic sends into a stream it cannot finish (`event: error`, type overloaded_error), after
    # the real stream's first events: the line matched no format and the failure was lost.
    lines = (ROOT / "tests" / "fixtures" / "anthropic-stream.sse").read_text().split("\n")[:20]
    failed = "\n".join(lines) + '\nevent: error\ndata: {"type": "error", "error": {"type": "overloaded_error", ' \
        '"message": "Overloaded"}}\n\n'
    result = upload("overloaded.sse", failed.encode())
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert round_.error.message == "Overloaded"


def test_an_error_object_with_no_stream_open_is_still_no_chunk():
    # Alone (no chunk before it), `{"error": ...}` could be any API's: said to match nothing, as before.
    result = upload("error.sse", b'data: {"error": {"message": "The server had an error", "type": "server_error"}}\n\n')
    assert result.conversations == ()
    assert result.problems[0].message.startswith("no line of the file matches a known log format")


def test_a_refusal_sent_back_as_text_is_named_the_models_refusal_not_text_it_did_not_write():
    # rig sends gpt-4o's refusal ("I'm very sorry, but I can't assist with that.", in the answer's `refusal` field)
    # back as the assistant turn's content. The warning said the turn "carries text the model did not write".
    trace = _rounds("rig-openai-refusal-sent-back.yaml")
    assert trace.rounds[0].response.message.raw["refusal"] == "I'm very sorry, but I can't assist with that."
    (finding,) = [f for f in run_checks(trace) if f.code == "history-rewritten"]
    assert finding.message == (
        "The assistant turn sent back here is not what the model wrote in round 1: it carries the model's refusal as "
        "the turn's text, where the model returned it in the refusal field and wrote no text. Send the turn back as "
        "received, text beside the calls included.")


def test_a_mastra_llm_recording_reads_each_call_its_streamed_answer_joined_from_its_chunks():
    # Mastra's recorder keeps a Responses API answer as parsed JSON, and a streamed one as the text pieces it
    # received (`chunks`); the file matched no known format.
    answered, streamed = (c.trace.rounds[0] for c in upload("mastra-llm-recorder-openai.json").conversations)
    assert answered.response.message.text == "Hello, World!"
    assert streamed.request.messages[-1].text == "Count from 1 to 3, one number per line."
    assert streamed.response.message.text == "1  \n2  \n3  "
    assert (streamed.response.usage.input_tokens, streamed.response.usage.output_tokens) == (30, 7)


def test_a_mastra_recording_file_in_its_newer_layout_reads_the_same():
    # The recorder now writes `{"meta": {...}, "recordings": [...]}` and reads the older plain list as that.
    recordings = json.loads((FIXTURES / "mastra-llm-recorder-openai.json").read_text())
    wrapped = json.dumps({"meta": {"name": "llm-recorder-tests", "createdAt": "2026-02-10T23:59:27.000Z"},
                          "recordings": recordings}).encode()
    result = upload("llm-recorder-tests.json", wrapped)
    assert result.problems == ()
    assert result.summary() == "2 recordings: 2 rounds in 2 conversations; 0 recordings skipped"
    assert [c.trace.rounds[0].response.message.text for c in result.conversations] == ["Hello, World!", "1  \n2  \n3  "]


def test_an_image_moderation_is_no_model_call_though_its_input_reads_like_a_responses_request():
    # ruby_llm's cassette of `POST /v1/moderations` with `model` and `input: [{"type": "image_url", ...}]`: taken for
    # a Responses API call, its categories for a broken response ("'response' is neither a response object ...").
    result = upload("ruby-llm-openai-moderation-image.yml")
    assert result.problems == ()
    assert result.conversations == ()
    assert result.not_calls == 1


def test_a_pdf_uploaded_to_the_files_api_is_no_model_call_and_no_problem():
    # ruby_llm's cassette: a multipart upload of a PDF to `/v1/files`, then a Responses call that reads it by file id.
    # The upload's lines were tried as a Batch input file's JSON lines, and a line of the PDF that opens with a brace
    # was "the request body of post https://api.openai.com/v1/files is not valid JSON" (lib check exited 2).
    result = upload("ruby-llm-openai-file-then-chat.yml")
    assert result.problems == ()
    assert result.not_calls == 1
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert round_.response.message.text.startswith("A simple sample PDF")


def test_a_request_that_leaves_out_the_instructions_it_opened_with_goes_on_in_the_same_conversation():
    # ruby_llm's with_instructions(replace: true) against Cohere: round 2 resends round 1's question and answer
    # without the system message they opened with, and writes the new one after them. It opened a second
    # conversation of one round, so round 2 showed a history out of nowhere and no check compared the two.
    (conversation,) = upload("ruby-llm-cohere-instructions-replaced.yml").conversations
    first, second = conversation.trace.rounds
    assert [m.role for m in second.request.messages] == ["user", "assistant", "system", "user"]
    assert second.request.messages[0] == first.request.messages[1]
    (finding,) = run_checks(conversation.trace)
    assert finding.message.startswith(
        "This request resends round 1's messages without the instructions they began with (the system message); the 1 "
        "other message is resent unchanged.")


def test_a_call_an_error_event_cut_short_is_said_to_be_cut_by_the_failure_not_by_the_recording():
    # The real Messages stream of anthropic-stream.sse, ended mid-call by Anthropic's overloaded error event: the
    # truncated-arguments warning said "The recording ends while the model was writing this call", beside the
    # provider-error that says the provider's event ended it.
    lines = (ROOT / "tests" / "fixtures" / "anthropic-stream.sse").read_text().split("\n")[:20]
    failed = "\n".join(lines) + '\nevent: error\ndata: {"type": "error", "error": {"type": "overloaded_error", ' \
        '"message": "Overloaded"}}\n\n'
    (conversation,) = upload("overloaded.sse", failed.encode()).conversations
    (cut,) = [f for f in run_checks(conversation.trace) if f.code == "truncated-arguments"]
    assert cut.severity == "warning"
    assert cut.message == (
        "The provider's error event ended the stream while the model was writing this pelican_name_generator call, "
        "before its arguments closed: the arguments shown are cut short by that failure, not written wrong by the "
        "model. A call cut short like this should not be run: send the request again.")


def test_a_responses_usage_of_zeros_beside_the_models_calls_is_no_count_and_the_round_is_estimated():
    # logfire's recording of the OpenAI Agents SDK: the API answered the first call (two function calls) with a usage
    # of 0 input and 0 output tokens. Taken as reported, round 1 cost nothing, 0 tokens in and out, its input parts
    # (121 tokens of tool definitions, 12 of the question) summing to 0 with "reported beyond our count" at -139.
    from lib.summary import summarize
    from lib.tokens import CHARACTER_COUNTER
    result = upload("logfire-agents-handoff-adds-instructions.yaml")
    (conversation,) = result.conversations
    first, second = summarize(conversation.trace, CHARACTER_COUNTER)
    assert first.tool_calls == 2
    assert first.usage.source == "estimated" and first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    assert (second.usage.source, second.usage.input_tokens, second.usage.output_tokens) == ("reported", 89, 18)
    assert [result.said(n) for n in result.notes] == [
        "interaction 1: the response reports a usage of 0 input and 0 output tokens beside the output the model wrote: "
        "no call reads and writes nothing, so those zeros are no count of what it used, and the round's tokens are "
        "estimated"]


def test_a_call_without_an_id_and_a_result_naming_none_are_said_so_not_named_by_the_tool_or_a_blank():
    # openllmetry's recording of Writer's chat API: the request's get_current_weather call has no `id`, the tool
    # message after it no `tool_call_id`, and Writer answered. The findings said "This request carries the
    # get_current_weather call get_current_weather, but no result for it follows" (a result follows) and "This result
    # answers , but no earlier message of the request makes a call with that id".
    result = upload("ollm-writer-idless-call.yaml")
    (conversation,) = result.conversations
    said = {f.code: f.message for f in run_checks(conversation.trace)}
    assert said["missing-tool-result"] == (
        "This request carries the get_current_weather call with no result that names it: the result in messages[2] "
        "names no call (its call id is missing or empty), so only its place after the call pairs the two. This "
        "provider answered it anyway; OpenAI's API today refuses a call without an id and a result without one with a "
        "400, so give each call its id and copy it into its result.")
    assert said["orphan-tool-result"] == (
        "This result names no call (its call id is missing or empty), so nothing pairs it with a call of the request. "
        "This provider answered it anyway; OpenAI's and Anthropic's APIs today refuse such a request with a 400, so "
        "give the call it answers an id, and copy that id into the result.")


def test_instructions_put_before_a_history_that_had_none_are_new_and_the_history_is_resent():
    # logfire's recording of the OpenAI Agents SDK: agent1 (no instructions) hands off to agent2, whose request puts
    # "Return double the number" before round 1's question and the calls. Placed message by message, the question
    # read as rewritten into the instructions and then sent again as new ("Compared with round 1's request, 1 resent
    # message changed. The model now reads a history it did not write"), and the sequence had the person ask it twice.
    from lib.condensed import condensed_rounds
    from lib.sequence import sequence
    from lib.summary import summarize
    from lib.tokens import CHARACTER_COUNTER
    (conversation,) = upload("logfire-agents-handoff-adds-instructions.yaml").conversations
    trace = conversation.trace
    placed = growth(trace, 2)
    assert [(e.message.role, e.status) for e in placed.entries] == [
        ("system", "new"), ("user", "resent"), ("assistant", "new"), ("tool", "new"), ("tool", "new")]
    assert placed.changed == () and placed.dropped == 0
    # Once, as information: the instructions put first also read as "1 new message put in among the resent ones", a
    # second finding, a warning, beside this one.
    assert [(f.code, f.severity) for f in run_checks(trace) if f.round == 2] == [
        ("history-rewritten", "info"), ("tools-changed", "info")]
    said = {f.code: (f.severity, f.message) for f in run_checks(trace) if f.round == 2}
    assert said["history-rewritten"] == (
        "info", "This request puts instructions before the messages of round 1's request, which had none, and resends "
        "those unchanged after them: the model answers this round under instructions it did not have before (a "
        "handoff to an agent that has them does this). That is allowed, but it invalidates the prompt cache.")
    row = summarize(trace, CHARACTER_COUNTER)[1]
    assert row.new_messages == len(placed.new) == 4
    assert row.breakdown.history > 0  # the question, resent, is history, not new
    assert condensed_rounds(trace)["rounds"][1]["changed"] == []
    assert [a.label for a in sequence(trace) if a.source == "user"] == [
        "asks: Generate a random number then, hand off to agen…"]


# --- A prompt's messages reused by a new call ----------------------------------------------------------------------


def test_a_new_call_that_reuses_an_earlier_prompt_and_adds_a_user_turn_is_a_conversation_of_its_own():
    # ldp's online trainer asks "Write a 5 word story via print_story" three times, then twice more with memories of the
    # earlier attempts added as a second user message. No request sends an answer back or a result for a call: each
    # is a call of its own. They were merged into three conversations, two with "the turn was dropped" warnings.
    result = upload("ldp-online-trainer-memories-added.yaml")
    assert result.summary() == "5 interactions: 5 rounds in 5 conversations; 0 interactions skipped"
    traces = [c.trace for c in result.conversations]
    assert [[r.request.messages[-1].text[:19] for r in t.rounds] for t in traces] == [
        ["Write a 5 word stor"], ["Write a 5 word stor"], ["Write a 5 word stor"], ["<episode-memories>\n"],
        ["<episode-memories>\n"]]
    assert [texts_of_calls(t) for t in traces] == [
        ["Lost key unlocks ancient door."], ["Lost keys, found new adventures."],
        ["Shadows danced under moonlight's gaze."], ["Dreams whispered secrets to stars."],
        ["Dreams whispered secrets to stars."]]
    assert [f for t in traces for f in run_checks(t) if f.severity != "info"] == []


def test_a_request_that_leaves_a_text_answer_out_before_a_new_user_turn_goes_on_and_says_so():
    # Mirascope's validation retry with the model's answer ("{ "value": 467 }") taken out of the second request: the
    # re-ask that names the answer follows the question where the answer belongs. Read as ldp's asking anew, it was a
    # conversation of its own, and no page said the model never saw the answer its re-ask is about.
    result = upload("mirascope-openai-validation-retry-answer-left-out.yaml")
    assert result.summary() == "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped"
    (conversation,) = result.conversations
    assert [len(r.request.messages) for r in conversation.trace.rounds] == [2, 3]
    said = [(f.code, f.severity, f.where) for f in run_checks(conversation.trace)]
    assert said == [("history-rewritten", "warning", "round 2 request messages[2]")]
    (finding,) = run_checks(conversation.trace)
    assert "without the answer round 1 got" in finding.message
    assert "Either the program left that answer out of the history, or it asked anew on the same prompt; the log " \
           "cannot tell which." in finding.message
    # The recording as Mirascope made it, the answer sent back before the re-ask, says nothing of the kind.
    (kept,) = upload("mirascope-openai-validation-retry.yaml").conversations
    assert [f.code for f in run_checks(kept.trace)] == []


def texts_of_calls(trace):
    return [c.arguments["story"] for r in trace.rounds for c in r.tool_calls]


def _ldp_with_result_sent_back(tool_message):
    """The ldp recording, its fourth request sending the third call's result (`tool_message`) before the memories."""
    import yaml
    document = yaml.safe_load((FIXTURES / "ldp-online-trainer-memories-added.yaml").read_bytes())
    fourth = document["interactions"][3]["request"]
    body = json.loads(fourth["body"])
    body["messages"].insert(1, tool_message)
    fourth["body"] = json.dumps(body)
    return yaml.safe_dump(document).encode()


def test_a_request_that_sends_the_earlier_calls_result_without_its_answer_goes_on_from_it():
    # The same bytes, but the fourth request carries a result for the third call after the question: the program
    # dropped the model's turn and went on, which must stay the third call's conversation and be said.
    result = upload("ldp.yaml", _ldp_with_result_sent_back(
        {"role": "tool", "tool_call_id": "call_k565kDGiYkM4qVcv4ZM4DbZP", "content": "printed"}))
    assert result.summary() == "5 interactions: 5 rounds in 4 conversations; 0 interactions skipped"
    shape = {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in result.conversations}
    assert shape == {"conversation 1": [1], "conversation 2": [1], "conversation 3": [1, 3], "conversation 4": [2]}
    said = {c.id: [f.code for f in run_checks(c.trace)] for c in result.conversations}
    assert said == {"conversation 1": [], "conversation 2": [], "conversation 3": ["orphan-tool-result"],
                    "conversation 4": []}
# --- ATIF trajectories (Harbor) -------------------------------------------------------------------------


def test_an_atif_trajectory_is_one_run_a_round_per_agent_step_with_its_own_counts():
    # Harbor's terminus-2 run: a prompt, an answer that broke the JSON format, the parser's complaint sent back,
    # then three answers whose commands Harbor kept as tool calls.
    result = upload("harbor-terminus2-invalid-json.trajectory.json")
    (conversation,) = result.conversations
    rounds = conversation.trace.rounds
    assert [r.response.model for r in rounds] == ["openai/gpt-4o"] * 4
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in rounds] == [
        (682, 100), (785, 50), (850, 30), (100, 20)]
    assert [c.name for r in rounds for c in r.tool_calls] == ["bash_command", "mark_task_complete",
                                                              "mark_task_complete"]
    assert not rounds[0].tool_calls and "This should work!" in rounds[0].response.message.text
    # terminus-2 reads its commands out of the model's JSON text (agent.extra.parser): the calls are Harbor's.
    assert [r.extra["derived"] for r in rounds] == [["request", "finish"]] + [["request", "finish", "tool calls"]] * 3
    # The step's reasoning kept on the answer, as an OpenAI-compatible server returns it, and not resent.
    assert rounds[0].response.raw["choices"][0]["message"]["reasoning_content"].startswith("The task is straightforward")
    assert "reasoning_content" not in rounds[1].request.raw["messages"][1]
    # The parser's complaint went back as the next prompt; the terminal's output as the call's result.
    sent = rounds[1].request.raw["messages"]
    assert sent[-1] == {"role": "user", "content": sent[-1]["content"]}
    assert sent[-1]["content"].startswith("Previous response had parsing errors:")
    answer = rounds[2].request.raw["messages"][-1]
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_1_1"
    assert "printf 'Hello, world!" in answer["content"]
    assert [n.message for n in result.notes if "source_call_id" in n.message] == [
        "3 observation results name no call ('source_call_id'); each was taken as the result of its step's only call."]


def test_an_atif_result_naming_its_call_answers_that_call_and_a_broken_step_is_named():
    run = {"schema_version": "ATIF-v1.6", "session_id": "s1", "agent": {"name": "a", "model_name": "m"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "",
                      "tool_calls": [{"tool_call_id": "c1", "function_name": "ls", "arguments": {"p": "."}},
                                     {"tool_call_id": "c2", "function_name": "pwd", "arguments": {}}],
                      "observation": {"results": [{"source_call_id": "c2", "content": "/app"},
                                                  {"source_call_id": "c1", "content": "a b"}]}},
                     {"step_id": 3, "source": "agent", "message": "done"}]}
    rounds = upload("trajectory.json", json.dumps(run).encode()).conversations[0].trace.rounds
    assert [m.get("tool_call_id") for m in rounds[1].request.raw["messages"][2:]] == ["c2", "c1"]
    assert rounds[0].response.usage is None or "usage" in rounds[0].extra["derived"]
    run["steps"][1]["tool_calls"][0] = "ls"
    result = upload("trajectory.json", json.dumps(run).encode())
    assert result.conversations == ()
    assert any("steps[1].tool_calls[0] is" in p.message for p in result.problems)


def test_an_atif_continuation_shows_only_its_own_calls_the_copied_context_as_history():
    # Harbor's terminus-2 after a context summary: the prompt, the handoff, the questions the model asked (a call
    # of the run before, marked is_copied_context) and their answers, then this file's four calls.
    result = upload("harbor-terminus2-linear-history.trajectory.cont-1.json")
    rounds = result.conversations[0].trace.rounds
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in rounds] == [
        (1700, 420), (850, 40), (850, 40), (850, 30)]
    first = rounds[0].request.raw["messages"]
    assert [m["role"] for m in first] == ["user", "user", "assistant", "user"]
    assert first[2]["content"].startswith("I have the following questions")
    assert [n.message for n in result.notes if "is_copied_context" in n.message] == [
        "1 agent step is marked 'is_copied_context' (carried over from the run this trajectory continues): kept as "
        "history the requests resent, not shown as rounds."]


def test_an_atif_step_no_model_call_made_is_history_not_a_round():
    run = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "model_name": "m"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "scripted", "llm_call_count": 0},
                     {"step_id": 3, "source": "agent", "message": "done", "llm_call_count": 1}]}
    rounds = upload("trajectory.json", json.dumps(run).encode()).conversations[0].trace.rounds
    assert [r.response.message.text for r in rounds] == ["done"]
    assert rounds[0].request.raw["messages"][-1] == {"role": "assistant", "content": "scripted"}


def test_an_atif_handoff_to_a_summarized_context_starts_a_conversation_of_its_own():
    result = upload("harbor-terminus2-context-summarization.trajectory.json")
    before, after = result.conversations
    first = after.trace.rounds[0].request.raw["messages"]
    assert [m["role"] for m in first] == ["user"] and first[0]["content"].startswith("Here are the answers")
    sent = [m.get("content") for c in result.conversations for r in c.trace.rounds for m in r.request.raw["messages"]]
    assert not [t for t in sent if t and "Performed context summarization" in t]
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in after.trace.rounds] == [
        (1700, 420), (850, 40), (850, 40), (850, 30)]
    assert [n.message for n in result.notes if "handed off" in n.message] == [
        "the run handed off to a summarized context at step 5 (trajectory.summarization-1-summary.json, "
        "trajectory.summarization-1-questions.json, trajectory.summarization-1-answers.json): the rounds after it are "
        "a conversation of their own, their requests rebuilt from the steps after it alone; what the model was given "
        "in place of the earlier history (the summary, its questions and their answers) is in the trajectories named "
        "there."]


def test_a_test_proxy_recording_rebuilds_its_tool_calls_round_by_round():
    # openai-dotnet's ConsecutiveToolCalls: the weather in Osaka, then a mood for that weather, then the answer.
    result = upload("openai-dotnet-consecutive-tool-calls.json")
    (conversation,) = result.conversations
    trace = conversation.trace
    assert trace.model == "gpt-4o-mini"
    assert [[c.name for c in r.response.message.tool_calls] for r in trace.rounds] == \
        [["get_weather_for_city"], ["get_mood_for_weather"], []]
    assert texts(trace)[-1] == "Given that the weather in Osaka is rainy, your mood might be described as bored."
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in trace.rounds] == \
        [(124, 18), (154, 18), (185, 18)]
    assert run_checks(trace) == ()


def test_a_streamed_spoken_answer_reads_whole_though_most_chunks_carry_no_choices():
    result = upload("openai-dotnet-audio-stream-chunks-without-choices.json")
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert conversation.trace.model == "gpt-audio-1.5"
    assert round_.request.messages[0].text == "Say the exact word 'hello' and nothing else."
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (18, 24)


@pytest.mark.parametrize("name, tool, asked, answered", [
    ("openai-dotnet-apply-patch-call.json", "apply_patch",
     {"type": "create_file", "diff": "+review tests\n+update docs\n", "path": "NOTES.md"}, "completed"),
    ("openai-dotnet-computer-call-screenshot.json", "computer_use_preview", {"type": "screenshot"}, None),
])
def test_a_built_in_tool_the_program_runs_is_a_call_and_its_output_the_result(name, tool, asked, answered):
    (conversation,) = upload(name).conversations
    first, second = conversation.trace.rounds
    (call,) = first.response.message.tool_calls
    assert (call.name, call.arguments) == (tool, asked)
    result = second.request.messages[-1]
    (answer,) = [p for p in result.parts if p.kind == "tool-result"]
    assert result.role == "tool" and answer.call_id == call.id
    if answered is not None:
        assert answer.content == answered
    # The tool is offered by its type alone ({"type": "apply_patch"}): no "called a tool this request does not offer".
    assert [f.code for f in run_checks(conversation.trace) if f.severity != "info"] == []


def test_the_items_a_conversation_was_created_with_are_held_by_the_provider_not_sent():
    from lib.growth import held_indices, program_sent, sends
    (conversation,) = upload("openai-dotnet-conversation-created-with-instructions.json").conversations
    (round_,) = conversation.trace.rounds
    messages = round_.request.messages
    assert [(m.role, m.text) for m in messages] == [("system", "You are a helpful assistant."),
                                                    ("user", "Tell me a joke.")]
    # The system message is the held one, the question the one the program sent.
    assert [messages[i].text for i in held_indices(round_)] == ["You are a helpful assistant."]
    assert program_sent(round_) == 1
    assert sends(round_, 1).startswith("the program sends 1 message; 1 earlier message held by the provider")


def test_a_system_message_the_first_round_sent_is_held_with_the_rest_after_previous_response_id():
    # The Responses API's instructions sent as a system message in the first input (not `instructions`), then a
    # second call under previous_response_id sending one question: it was counted the question held and the system
    # message sent.
    from lib.growth import held_indices, program_sent
    def call(number, text, request):
        return json.dumps({"request": {"model": "gpt-4o-mini", **request}, "response": {
            "id": f"resp_{number}", "object": "response", "status": "completed", "model": "gpt-4o-mini",
            "output": [{"type": "message", "id": f"msg_{number}", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}],
            "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}}})
    log = "\n".join([
        call(1, "Arr, hello", {"input": [{"type": "message", "role": "system", "content": "Always begin with Arr"},
                                         {"type": "message", "role": "user", "content": "Hello"}]}),
        call(2, "Arr, again", {"previous_response_id": "resp_1",
                               "input": [{"type": "message", "role": "user", "content": "And again"},
                                         {"type": "message", "role": "user", "content": "Louder"}]}),
    ]).encode()
    (conversation,) = read_upload([("chain.jsonl", log)]).conversations
    second = conversation.trace.rounds[1]
    assert [second.request.messages[i].text for i in held_indices(second)] == \
        ["Always begin with Arr", "Hello", "Arr, hello"]
    assert program_sent(second) == 2


@pytest.mark.parametrize("url, request_body, events", [
    ("https://api.anthropic.com/v1/messages",
     {"model": "claude-sonnet-4-5", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}]},
     ["event: error\n", 'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n']),
    ("https://api.openai.com/v1/chat/completions",
     {"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
     ['data: {"error":{"message":"Overloaded","type":"server_error","code":null}}\n\n']),
])
def test_a_stream_whose_only_event_is_an_error_is_no_failure_with_http_200(url, request_body, events):
    # The status line of a stream is sent before its events: an Anthropic `overloaded_error`, or a gateway's error
    # chunk, as the first event came under HTTP 200, and the round said "This call failed with HTTP 200" and that the
    # status was "the provider's trouble".
    from lib.failures import failure_heading
    entry = {"RequestUri": url, "RequestMethod": "POST", "RequestHeaders": {}, "RequestBody": request_body,
             "StatusCode": 200, "ResponseHeaders": {"Content-Type": "text/event-stream"}, "ResponseBody": events}
    result = upload("recording.json", json.dumps({"Entries": [entry], "Variables": {}}).encode())
    assert result.problems == ()
    (round_,) = result.conversations[0].trace.rounds
    assert round_.response is None and round_.error.message == "Overloaded"
    assert (round_.error.status, round_.error.stream_status) == (None, 200)
    heading = failure_heading(round_.error)
    assert "its first event was an error event that names no status: no part of an answer came" in heading
    assert "HTTP 200." not in heading
    checked = [f.message for f in run_checks(result.conversations[0].trace) if f.code == "provider-error"]
    assert checked and not any("failed with HTTP 200" in m for m in checked)


def test_words_that_promise_an_action_under_tool_choice_none_are_no_missed_call():
    # openai-dotnet's ConstraintsWork: with `tool_choice: "none"` the model could call nothing, and said "I will find
    # the number assigned to the word ...". The warning told the reader to ask the model once more to make the call,
    # which that request forbids; the other three rounds called the tool.
    result = upload("openai-dotnet-tool-choice-none-narrates.json")
    forbidden = [c for c in result.conversations if c.trace.rounds[0].request.raw.get("tool_choice") == "none"]
    assert [texts(c.trace) for c in forbidden] == [['I will find the number assigned to the word "banana" for you.']]
    assert [f.code for c in result.conversations for f in run_checks(c.trace)] == []


def test_a_gap_made_by_audio_counted_as_base64_text_says_so():
    # openai-dotnet's ChatWithAudio: a recording sent as `input_audio` (its bytes in base64, which we count as text)
    # reported as 28 input tokens. The reason given for our count being 47 times the input was only "the provider
    # frames the messages in fewer tokens than we allow for".
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.usage_gap import gap_reason
    (conversation,) = upload("openai-dotnet-audio-input.json").conversations
    trace = conversation.trace
    rows = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    reasons = [gap_reason(trace, row) for row in rows]
    assert "the request carries 1 audio recording, which we count as the text of its part" in reasons[0]
    assert "the request carries 2 audio recordings, which we count as the text of their parts" in reasons[1]


@pytest.mark.parametrize("name", ["openai-dotnet-chat-file-base64.json", "openai-dotnet-responses-file-id.json"])
def test_a_gap_made_by_a_document_counted_as_its_part_says_so(name):
    # A PDF inline (our count 100 times the 244 tokens reported) or by its upload's id: the reason given was only that
    # "the provider frames the messages in fewer tokens than we allow for".
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.usage_gap import gap_reason
    (conversation,) = upload(name).conversations
    trace = conversation.trace
    (row,) = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    assert "the request carries 1 file, which we count as the text of its part" in gap_reason(trace, row)


def test_a_screenshot_sent_back_as_a_tools_result_is_named_in_the_gap_as_an_image():
    # The computer_call_output's screenshot, a data URL in the result we count as text: untrimmed, our count was 744
    # times the reported input, and the reasons named no image.
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.usage_gap import gap_reason
    (conversation,) = upload("openai-dotnet-computer-call-screenshot.json").conversations
    trace = conversation.trace
    first, second = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    assert "image" not in gap_reason(trace, first)
    assert "the request carries 1 image, which we count as the text of its part" in gap_reason(trace, second)


def test_a_background_call_ends_where_its_cancellation_or_its_last_poll_says():
    from lib.summary import finish_words
    (conversation,) = upload("openai-dotnet-background-cancelled.json").conversations
    (round_,) = conversation.trace.rounds
    assert finish_words(round_) == "cancelled"
    # The same call polled instead (`GET /v1/responses/<id>`): still queued, then completed with its answer.
    document = json.loads((FIXTURES / "openai-dotnet-background-cancelled.json").read_text(encoding="utf-8-sig"))
    created, cancelled = document["Entries"]
    queued = {**cancelled["ResponseBody"], "status": "in_progress"}
    answered = {**cancelled["ResponseBody"], "status": "completed", "usage": {
        "input_tokens": 10, "output_tokens": 9, "total_tokens": 19}, "output": [
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "Hello! How can I help?", "annotations": []}]}]}
    polls = [{**cancelled, "RequestMethod": "GET", "RequestUri": cancelled["RequestUri"].removesuffix("/cancel"),
              "ResponseBody": body} for body in (queued, answered)]
    result = upload("polled.json", json.dumps({"Entries": [created, *polls]}).encode())
    assert result.summary() == "3 entries: 1 round in 1 conversation; 1 entry not a model call; 0 entries skipped"
    (round_,) = result.conversations[0].trace.rounds
    assert (texts(result.conversations[0].trace), finish_words(round_)) == (["Hello! How can I help?"], "stop")
    # Never seen to end: the answer is not in the log, not an empty one.
    (round_,) = upload("queued.json", json.dumps({"Entries": [created]}).encode()).conversations[0].trace.rounds
    assert round_.response is None and round_.error is None


def test_the_test_proxy_format_claims_no_other_formats_lines():
    from lib.logs.test_proxy import TestProxyFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(TestProxyFormat)


def test_wiremock_stubs_exported_together_are_read_one_by_one_and_a_body_kept_apart_is_named():
    # `/__admin/mappings` returns `{"mappings": [...]}`: SAP's stub as the recorder writes a request body (the whole
    # body sent, with 'ignoreExtraElements'), beside the same stub answered from a file under __files/.
    stub = json.loads((FIXTURES / "sap-ai-sdk-wiremock-chat-completion.json").read_bytes())
    pattern = {**stub["request"]["bodyPatterns"][0], "ignoreArrayOrder": True, "ignoreExtraElements": True}
    recorded = {**stub, "request": {**stub["request"], "bodyPatterns": [pattern]}}
    kept_apart = {**stub, "response": {"status": 200, "bodyFileName": "chat_completions-f181d24e.json"}}
    result = upload("mappings.json", json.dumps({"mappings": [recorded, kept_apart]}).encode())
    assert result.summary() == "2 mappings: 1 round in 1 conversation; 1 mapping skipped"
    assert [result.said(p) for p in result.problems] == [
        "mapping 2: the answer's body is in a file of its own ('bodyFileName' 'chat_completions-f181d24e.json', under "
        "__files/), which is not in this mapping (read as WireMock stub mapping)"]
    assert [result.said(n) for n in result.notes] == [
        "mapping 1: 1 stub holds the request body as a pattern with 'ignoreExtraElements': a request sent with more in "
        "it matched too, so what is shown is what the stub required, and may not be all the program sent"]
    (round_,) = result.conversations[0].trace.rounds
    assert round_.request.raw["model"] == "gpt-5" and round_.response.message.text == "This is a test."


def test_the_wiremock_format_claims_no_other_formats_lines():
    from lib.logs.wiremock import WireMockFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(WireMockFormat)


def test_a_spoken_answer_shows_what_it_said_not_an_empty_message():
    # gpt-audio-1.5 answers in sound: `content` is null and the words are the audio's transcript, whole in an answer,
    # in pieces in a stream. Both read as empty answers.
    def spoken(name):
        (conversation,) = upload(name).conversations
        return [[p.raw.get("transcript") for p in r.response.message.parts if p.kind == "other" and p.type == "audio"]
                for r in conversation.trace.rounds]
    assert spoken("openai-dotnet-audio-input.json") == [
        ["Hi there! I'm hearing you loud and clear. How can I help you with your test today?"],
        ["Sure, let me check the current weather for San Francisco, California. Please hold on a moment while I find "
         "that information."]]
    assert spoken("openai-dotnet-audio-stream-chunks-without-choices.json") == [["Hello"]]
# --- AutoGPT's rewritten history ---------------------------------------------------------------------------------


def test_an_agent_that_rewrites_its_history_each_step_is_one_conversation_its_summaries_apart():
    # AutoGPT 0.3's memory challenge: each step's request puts "This reminds you of these events from your past" among
    # its system messages and keeps only the latest turns, so none resends the request before it whole; each sends back
    # the command the model chose last, after the question it answered. Read before as five one-round conversations:
    # the agent's read_file, list_files and message_agent steps never shown as one run.
    result = upload("autogpt-memory-challenge-b.yaml")
    agent, first_summary, second_summary = result.conversations
    commands = [json.loads(r.response.message.text)["command"]["name"] for r in agent.trace.rounds]
    assert commands == ["read_file", "list_files", "message_agent"]
    assert [r.response.usage.input_tokens for r in agent.trace.rounds] == [734, 2392, 2448]
    # Each step's request sends the previous command back as the model wrote it.
    for previous, round_ in zip(agent.trace.rounds, agent.trace.rounds[1:]):
        assert previous.response.message in round_.request.messages
    assert [r.response.message.text for c in (first_summary, second_summary) for r in c.trace.rounds] == [
        "I was created and nothing new has happened.",
        'I was reminded of events from my past where I was created and nothing new has happened. I received a '
        'command to read a file called "instructions_1.txt".']
    # Round 2 only puts its memory message in among a history resent whole; round 3 rewrites it and leaves turns out.
    rewritten = [(f.code, f.round, f.severity) for f in run_checks(agent.trace) if f.code.startswith("history-")]
    assert rewritten == [("history-inserted", 2, "info"), ("history-rewritten", 3, "warning")]


# --- The Responses API's stored prompts ----------------------------------------------------------------------------


def test_a_call_that_names_a_stored_prompt_shows_the_prompt_the_provider_filled_in_and_says_so():
    # dd-trace-js's recording of `responses.create({prompt: {id, version, variables: {word: "test"}}})`: no `input`, no
    # `model`. Refused before as "document 1: 'input' is missing, expected text or a list of items", `lib check`
    # exiting 2, on a call the provider answered.
    result = upload("ddtrace-js-responses-stored-prompt.json")
    assert result.problems == ()
    [round_] = result.conversations[0].trace.rounds
    assert [(m.role, m.text) for m in round_.request.messages] == [
        ("developer", 'Reply with "OK".'), ("user", "This is a test for testing the tester")]
    assert round_.response.message.text == "OK"
    assert round_.response.model == "o4-mini-2025-04-16"
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (23, 71)
    assert round_.provenance.origin == "completed"
    assert "prompt stored with the provider" in round_.provenance.note
    assert "not text the program sent" in round_.provenance.note


def test_a_stored_prompt_call_without_its_answer_says_the_model_read_more_than_is_shown():
    recorded = json.loads((FIXTURES / "ddtrace-js-responses-stored-prompt.json").read_text())
    recorded["response"] = {"status": {"code": 500, "message": "Internal Server Error"}, "headers": {},
                            "body": json.dumps({"error": {"message": "The server had an error", "type": "server_error"}})}
    result = upload("stored-prompt-failed.json", json.dumps(recorded).encode())
    [round_] = result.conversations[0].trace.rounds
    assert round_.request.messages == ()
    assert round_.error is not None and round_.error.status == 500
    assert "the model read more than is shown here" in round_.provenance.note
    assert round_.provenance.omitted == ("messages",)


# --- The Datadog test agent's binary bodies ------------------------------------------------------------------------


def test_a_binary_body_the_test_agent_wrote_in_base64_is_read_as_the_stream_it_holds():
    # dd-trace-js's recording of a ConverseStream call: the test agent wrote AWS's binary event stream as
    # "base64:AAAApwAAAFIiQKw3..." and Roundtrip read no answer at all ("The log holds no response to this call"),
    # the model's fetch_concept call and the 364 + 41 tokens Bedrock reported lost.
    [round_] = upload("ddtrace-js-bedrock-converse-stream-base64.json").conversations[0].trace.rounds
    assert round_.response is not None and round_.error is None
    assert [(c.name, c.arguments) for c in round_.response.message.tool_calls] == [
        ("fetch_concept", {"concept": "distributed tracing"})]
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (364, 41)
    assert round_.response.model == "anthropic.claude-3-haiku-20240307-v1:0"


def test_a_test_agent_body_that_only_starts_like_base64_stays_the_text_it_is():
    recorded = json.loads((FIXTURES / "ddtrace-js-bedrock-converse-stream-base64.json").read_text())
    recorded["response"]["body"] = "base64: not base64 at all"
    recorded["response"]["headers"]["Content-Type"] = "text/plain"
    result = upload("not-base64.json", json.dumps(recorded).encode())
    assert [r.response for c in result.conversations for r in c.trace.rounds] == [None]


# --- Chat Completions through Bedrock's InvokeModel ----------------------------------------------------------------


@pytest.mark.parametrize("name, streamed", [("ddtrace-js-bedrock-invoke-jamba.json", False),
                                            ("ddtrace-js-bedrock-invoke-stream-jamba.json", True)])
def test_a_chat_completions_body_sent_to_invoke_model_is_read_with_the_model_its_path_names(name, streamed):
    # AI21's Jamba on Bedrock takes and answers Chat Completions bodies; InvokeModel names the model in the path only.
    # Both calls were "a model call to bedrock-runtime.us-east-1.amazonaws.com/model/ai21.jamba-1-5-mini-v1:0/invoke,
    # an API Roundtrip does not read": left out, `lib check` exiting 2.
    result = upload(name)
    assert result.problems == ()
    [round_] = result.conversations[0].trace.rounds
    assert round_.request.model == "ai21.jamba-1-5-mini-v1:0"
    assert [m.text for m in round_.request.messages] == ["What is the capital of France?"]
    assert round_.response.message.text == " The capital of France is Paris."
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (17, 8)
    assert round_.response.finish_reason == "stop"
    assert round_.provenance.origin == "completed" and "InvokeModel names the model" in round_.provenance.note


@pytest.mark.parametrize("name, answer, tokens", [
    ("ddtrace-js-bedrock-invoke-cohere.yaml", "The current capital of France is Paris.", (None, None)),
    ("ddtrace-js-bedrock-invoke-stream-cohere.yaml", "The capital of France is Paris.", (73, 8)),
])
def test_a_cohere_v1_body_sent_to_invoke_model_is_read_with_the_model_its_path_names(name, answer, tokens):
    # Command R on Bedrock takes Cohere's v1 chat body ({"message": ..., "temperature", "max_tokens"}) and answers in
    # v1's words, the stream one v1 event a chunk. Both were "a model call to ...cohere.command-r-v1:0/invoke, an API
    # Roundtrip does not read": left out, `lib check` exiting 2.
    result = upload(name)
    assert result.problems == ()
    [round_] = result.conversations[0].trace.rounds
    assert round_.request.model == "cohere.command-r-v1:0"
    assert [m.text for m in round_.request.messages] == ["What is the capital of France?"]
    assert round_.response.message.text.startswith(answer)
    assert round_.response.finish_reason == "stop"
    usage = round_.response.usage  # the unstreamed answer reports no counts (Bedrock's headers alone hold them)
    assert ((usage.input_tokens, usage.output_tokens) if usage is not None else (None, None)) == tokens
    assert "InvokeModel names the model" in round_.provenance.note


GEMINI_IMAGE_REJECTED = (
    b'{"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT", '
    b'"details": [{"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": "[ORIGINAL ERROR] '
    b'generic::invalid_argument: invalid status photos.thumbnailer.Status.Code::5: Source image 0 too short"}]}}')
"""Gemini's answer to a call with an image it could not read, as google-gemini/generative-ai-js keeps it (Apache-2.0;
`test-utils/mock-responses/unary-failure-image-rejected.json`, commit 8543716), its indentation taken out. Kept here,
not under fixtures/containers/, whose every file is a recording with calls to read."""


def test_an_error_body_alone_is_named_as_one_not_left_as_no_format_coming_close():
    # Saved alone, it read "no line of the file matches a known log format; none comes close (the first object's keys:
    # 'error')", words that did not say what the file is.
    alone = upload("image-rejected.json", GEMINI_IMAGE_REJECTED)
    assert alone.rounds == 0
    assert [alone.said(p) for p in alone.problems] == [
        "document 1: no line of the file matches a known log format; it is a provider's error body alone: the answer "
        "to a call that failed, without the request it answers, so there is no round to show; a log that keeps each "
        "request beside its answer (request and response pairs, a cassette, a HAR file) shows the failed call with "
        "what it sent"]
    # Saved on a line of its own beside calls a format read, it is named the same way, and the calls still load.
    pair = (FIXTURES.parent / "openai-pairs.jsonl").read_bytes().splitlines()[0]
    mixed = upload("calls.jsonl", pair + b"\n" + GEMINI_IMAGE_REJECTED + b"\n")
    assert mixed.rounds == 1
    assert [mixed.said(p) for p in mixed.problems][0].startswith(
        "line 2: matches no known log format; it is a provider's error body alone: the answer to a call that failed")


def test_a_spoken_answer_is_said_to_be_audio_with_its_transcript_not_no_text():
    # gpt-audio-mini answered "Say hello in one short sentence." in sound: `content` null, the words in the audio's
    # transcript. The explorer said "No tool call and no text: this response holds no answer", the sequence diagram
    # "the loop ends: the response holds no text in the log", and step 5 "the response holds no text".
    from lib.sequence import sequence
    from lib.slide_words import step_lead
    from lib.steps import steps_for_round
    (conversation,) = upload("ddtrace-js-gpt-audio-spoken-answer.json").conversations
    trace = conversation.trace
    [round_] = trace.rounds
    assert step_lead(round_, 5) == "No tool call: the answer is audio, its transcript kept, and the model is not " \
                                   "called again."
    assert [a.label for a in sequence(trace) if a.step == 5] == ["the loop ends: the answer is audio, its transcript "
                                                                 "kept"]
    [label] = [s for s in steps_for_round(trace, 1) if s.step == 5]
    assert (label.path, label.detail) == ("choices[0].message.audio", "final answer, in audio: its transcript kept")
    from lib.model import spoken
    assert spoken(round_.response.message)[1] == "Hello! How can I help you today?"


def test_a_spoken_answer_the_program_went_on_from_says_so_with_its_transcript():
    # openai-dotnet's audio test speaks, then sends the answer back by its id and asks on: round 1's answer is audio.
    from lib.slide_words import step_lead
    (conversation,) = upload("openai-dotnet-audio-input.json").conversations
    first = conversation.trace.rounds[0]
    assert step_lead(first, 5, 2) == ("The model's turn ended with no call; the program went on (round 2). The answer "
                                      "is audio, its transcript kept.")


def test_the_request_after_a_tool_runners_compaction_goes_on_from_the_conversation_it_compacted():
    # anthropic-sdk-typescript's ToolRunner with compactionControl: past 500 tokens it asks the model for a summary (the
    # first request plus its summary prompt), then sends the summary as the only turn before the call and its result.
    # The summary call and the request after it read as conversations 2 and 3 of their own, and round 1 was warned
    # that its call was dropped though the request after the compaction sends it back with its result.
    from lib.checks import run_checks
    result = upload("anthropic-ts-tool-runner-compaction.json")
    (conversation,) = result.conversations
    trace = conversation.trace
    first, summary_call, after, again = trace.rounds
    assert summary_call.request.messages[:1] == first.request.messages
    assert summary_call.request.messages[1].text.startswith("You have been working on the task described above")
    assert after.request.messages[0].text == summary_call.response.message.text
    assert after.compacted and after.history_cut == 0
    assert [p.call_id for m in after.request.messages for p in m.tool_results] == [c.id for c in first.tool_calls]
    assert not again.compacted and again.resent_prefix == 3
    findings = [(f.code, f.round) for f in run_checks(trace)]
    assert ("missing-tool-result", 1) not in findings


def test_a_tool_runners_summary_call_with_no_request_after_it_ends_the_conversation_it_sums_up():
    # anthropic-sdk-python's test_compaction_control: past 500 tokens the runner asks for a continuation summary (the
    # first request plus its summary prompt, the answer left out) and the test stops there. The summary call read as
    # a second conversation of one round; the SDK names it in its `x-stainless-helper: compaction` header.
    result = upload("anthropic-py-tool-runner-compaction-summary.json")
    (conversation,) = result.conversations
    first, summary_call = conversation.trace.rounds
    assert [c.name for c in first.tool_calls] == ["submit_analysis"]
    assert summary_call.request.messages[:1] == first.request.messages
    assert summary_call.request.messages[1].text.startswith("You have been working on the task described above")
    assert summary_call.response.message.text.startswith("<summary>\n## Task Overview")


def test_a_call_left_out_of_a_summary_call_the_log_ends_on_is_not_said_to_be_dropped():
    # The runner leaves the model's last turn out of the request for a summary and sends it, with its result, after
    # the summary; this log ends on the summary call, so whether it did is not in the log. The check said "the turn
    # was dropped, so the model never learns what became of its request".
    (conversation,) = upload("anthropic-py-tool-runner-compaction-summary.json").conversations
    (finding,) = [f for f in run_checks(conversation.trace) if f.code == "missing-tool-result"]
    assert finding.severity == "info"
    assert "dropped" not in finding.message and "never learns" not in finding.message
    assert "the log ends before the request that would send the summary and the results after it" in finding.message


@pytest.mark.parametrize("compacted", ["anthropic-ts-tool-runner-compaction.json",
                                       "anthropic-py-tool-runner-compaction-summary.json"])
def test_conversations_are_numbered_without_a_gap_after_a_summary_call_is_put_back(compacted):
    # Two recordings uploaded together, the first a tool runner's compaction: its summary call had opened conversation
    # 2 before it was put back in conversation 1, and the next file's run read as "conversation 3" after "conversation
    # 1" ("2 conversations" listed as 1 and 3).
    other = "anthropic-py-tool-runner-http-snapshot.json"
    result = read_upload([(name, (FIXTURES / name).read_bytes()) for name in (compacted, other)])
    assert [c.id for c in result.conversations] == ["conversation 1", "conversation 2"]
    assert result.conversations[1].trace.rounds[0].tool_calls[0].name == "get_weather"
    assert result.conversations[1].trace.title.endswith("· conversation 2")


def test_a_summary_prompt_the_program_did_not_name_so_stays_a_call_of_its_own():
    # Without the SDK's header the bytes cannot tell a summary call from a program asking the question anew with a
    # second user turn (ldp's online trainer): nothing is joined.
    data = json.loads((FIXTURES / "anthropic-py-tool-runner-compaction-summary.json").read_bytes())
    for interaction in data:
        interaction["request"]["headers"].pop("x-stainless-helper")
    result = upload("unmarked.json", json.dumps(data).encode())
    assert [len(c.trace.rounds) for c in result.conversations] == [1, 1]


def test_a_request_sent_again_unchanged_after_failed_tries_is_one_round_with_its_tries():
    # anthropic-sdk-python's messages.parse test met its organization's rate limit: the SDK sent the request three
    # times (x-stainless-retry-count 0, 1, 2), answered 429, 429, then 200. It read as three rounds (a failed round 1,
    # rounds 2 and 3 "the same request sent again"), where a live run of the same traffic reads as one round with
    # its tries.
    from lib.failures import TRIES, round_tries
    from lib.model import Round
    (conversation,) = upload("anthropic-py-rate-limited-twice-then-answered.json").conversations
    (round_,) = conversation.trace.rounds
    assert isinstance(round_, Round) and round_.error is None
    assert round_.response.message.text.startswith('{"items":[{"product_name":"Green Tea"')
    assert round_tries(round_) == ("This request was sent 3 times, unchanged: HTTP 429, HTTP 429, then an answer. "
                                   "The round shows the last try; the failed tries are kept with it.")
    # The failed tries stay: each one's status, and the provider's words.
    first, second = round_.extra[TRIES]
    assert (first["status"], second["status"]) == (429, 429)
    assert first["body"]["error"]["type"] == "rate_limit_error"
    assert first["message"].startswith("This request would exceed your organization's rate limit")
    assert conversation.trace.rounds[0].index == 1


def test_a_request_sent_again_with_a_change_after_a_failed_call_stays_a_round_of_its_own():
    # Only the same body sent again is a try of the same round: a request changed after the failure (here its
    # max_tokens) is another request, kept as its round, and said to send the same messages again.
    from lib.failures import sent_again_words
    data = json.loads((FIXTURES / "anthropic-py-rate-limited-twice-then-answered.json").read_bytes())
    data[2]["request"]["body"]["max_tokens"] = 512
    (conversation,) = upload("changed.json", json.dumps(data).encode()).conversations
    first, second = conversation.trace.rounds
    assert (first.error.status, second.error) == (429, None)
    assert sent_again_words(first, second).startswith("The same request as round 1, sent again after that call "
                                                      "failed (HTTP 429)")


def test_the_same_opening_after_an_answered_call_is_still_a_conversation_of_its_own():
    # Only a failed call is retried: the same question asked again after an answer (a batch of one task) stays apart.
    data = json.loads((FIXTURES / "anthropic-py-rate-limited-twice-then-answered.json").read_bytes())
    result = upload("answered-twice.json", json.dumps([data[2], data[2]]).encode())
    assert [len(c.trace.rounds) for c in result.conversations] == [1, 1]


def test_a_dspy_lm_request_is_read_with_the_text_of_its_messages():
    # DSPy's RLM module's request as its test snapshots it: each message's words sit in `parts`, never `content`. It
    # was read as a Chat Completions request of two messages that said nothing.
    from lib.provenance import origin_line
    (conversation,) = upload("dspy-rlm-lm-request.json").conversations
    [round_] = conversation.trace.rounds
    system, user = round_.request.messages
    assert (system.role, user.role) == ("system", "user")
    assert system.text.startswith("Your input fields are:\n1. `variables_info` (str)")
    assert user.text.startswith("[[ ## variables_info ## ]]\n\u00abquery: str\u00bb")
    assert user.text.endswith("and then ending with the marker for `[[ ## completed ## ]]`.")
    assert round_.request.model == "snapshot-model"
    assert (round_.request.raw["temperature"], round_.request.raw["max_tokens"]) == (0.0, 1000)
    assert round_.response is None
    assert "Converted from a DSPy LM request" in origin_line(conversation.trace, round_)


def test_the_dspy_request_format_claims_no_other_formats_lines():
    from lib.logs.dspy_request import DspyRequestFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(DspyRequestFormat)


def test_creating_an_assistants_thread_is_no_model_call():
    # POST /v1/threads holds the thread's first `messages` for a later run: no model reads them then. It was named "a
    # model call to api.openai.com/v1/threads, an API Roundtrip does not read (...): left out".
    result = upload("openai-dotnet-assistants-thread-created.json")
    assert (result.not_calls, result.unread_calls) == (5, 0)
    assert not [p for p in (*result.problems, *result.notes) if "model call" in p.message]


@pytest.mark.parametrize("name", ["openai-dotnet-apply-patch-call.json", "openai-dotnet-computer-call-screenshot.json"])
def test_a_built_in_tools_action_type_is_the_apis_schema_not_a_value_the_model_filled(name):
    # apply_patch's `create_file` and computer use's `screenshot` name the kind of action the API's schema defines:
    # model-filled-value said 'The model filled type "create_file" in the apply_patch call itself: it appears in no
    # earlier message as written'. What the model did fill (a click's x and y) is still said.
    (conversation,) = upload(name).conversations
    said = [f.message for f in run_checks(conversation.trace) if f.code == "model-filled-value"]
    assert not [m for m in said if 'type "' in m]
    if "computer" in name:
        assert [m for m in said if 'x 438 and y 431' in m]


@pytest.mark.parametrize("name, tools", [
    ("openai-dotnet-apply-patch-call.json", "1 tool sent: apply_patch"),
    ("openai-dotnet-computer-call-screenshot.json", "1 tool sent: computer_use_preview"),
    ("activeagent-responses-mcp-asks-back.yml", "2 tools sent: mcp, mcp"),
])
def test_a_built_in_tool_offered_by_its_type_alone_is_named_by_its_type_in_step_1(name, tools):
    # The Responses API offers a built-in tool as `{"type": "apply_patch"}`, no name: step 1 listed it as an empty
    # name ("1 tool sent: ").
    from lib.steps import steps_for_round
    trace = upload(name).conversations[0].trace
    assert [s.detail for s in steps_for_round(trace, 1) if s.step == 1] == [tools]


def test_an_any_agent_trace_is_read_through_the_spans_reader_its_later_requests_rebuilt():
    # mozilla-ai/any-agent writes its own span words ('call_llm', 'execute_tool', the answer's calls as
    # [{"tool.name", "tool.args"}]) and the input messages of the first call only: "document 1: no line of the file
    # matches a known log format; closest: MLflow trace: has 'spans', but neither a trace id beside them ...".
    from lib.provenance import origin_line
    result = upload("any-agent-tinyagent-trace.json")
    (conversation,) = result.conversations
    trace = conversation.trace
    first, second, third, fourth = trace.rounds
    assert trace.model == "mistral/mistral-small-latest"
    assert [(m.role, m.text) for m in first.request.messages] == [
        ("system", "Use the available tools to answer."),
        ("user", "Find what year it is in the America/New_York timezone and write the value (single number) to a "
                 "file. Finally, return a list of the steps you have taken.")]
    assert [(c.name, c.arguments) for r in (first, second, third) for c in r.tool_calls] == [
        ("get_current_time", {"timezone": "America/New_York"}), ("write_file", {"text": "2025"}),
        ("final_answer", {"answer": "1. Get current time in the America/New_York timezone. 2. Write the year to a "
                                    "file. 3. Return the list of steps taken."})]
    # Each tool's run is its call's execution, paired by the call's place (any-agent records no ids).
    assert [e.name for r in trace.rounds for e in r.executions] == ["get_current_time", "write_file", "final_answer"]
    assert all(r.call_ids_made_up for r in (first, second, third))
    # Round 2's request is round 1's, its answer and the tool's result: rebuilt, and said to be.
    assert second.request.messages[:2] == first.request.messages
    assert [p.call_id for p in second.request.messages[3].tool_results] == [first.tool_calls[0].id]
    assert "Completed from a partial record" in origin_line(trace, second)
    assert "rebuilt" in trace.round_provenance(second).note
    # The structured-output call after final_answer read 178 tokens where round 3 read 449: no history is made up.
    assert fourth.request.messages == () and (fourth.response.usage.input_tokens, third.response.usage.input_tokens) \
        == (178, 449)
    assert "cannot be rebuilt" in trace.round_provenance(fourth).note
    assert fourth.response.message.text.startswith('{\n  "steps": [')


def test_a_tool_any_agent_recorded_as_returning_nothing_is_said_to_have_returned_nothing():
    # any-agent writes `{}` as the output of a tool that returned None (its _set_tool_output); the span holds no other
    # output. The rebuilt round 3 sent write_file's result as `{}` and warned that it is empty, saying nothing of what
    # `{}` stands for: the warning holds (the tool told the model nothing of what it wrote), and the round says why.
    (conversation,) = upload("any-agent-openai-write-returned-nothing.json").conversations
    trace = conversation.trace
    third = trace.rounds[2]
    (result,) = [p for m in third.request.messages for p in m.tool_results if p.call_id == trace.rounds[1].tool_calls[0].id]
    assert result.content in ("{}", {})
    assert "write_file returned nothing: any-agent writes {} for a tool that returned None (or an empty object), so " \
           "that is the result shown; what the framework sent the model in its place is not recorded." \
           in provenance_detail(trace.round_provenance(third))
    assert "returned nothing" not in provenance_detail(trace.round_provenance(trace.rounds[1]))
    assert [(f.code, f.round) for f in run_checks(trace) if f.code == "empty-tool-result"] == [("empty-tool-result", 3)]


def test_an_error_body_recorded_brotli_compressed_is_said_to_be_undecoded_never_empty():
    # dd-trace-js's Claude Agent SDK cassette: Anthropic's 401 came with `Content-Encoding: br`, and the test agent
    # kept its bytes (`base64:...`). No brotli module is installed, so the body cannot be read; checks said "It sent
    # no words: the response body was empty", and nothing said the body was there, undecoded.
    result = upload("ddtrace-js-claude-agent-sdk-401-brotli.json")
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert round_.error.status == 401 and round_.error.undecoded == "br"
    assert [n.message for n in result.notes] == [
        "the response body (HTTP 401) came brotli-compressed (content-encoding: br) and was not decoded: neither the "
        "brotli nor the brotlicffi module is installed here: the round shows the request and the status alone, what "
        "the body said not known"]
    (said,) = [f.message for f in run_checks(conversation.trace) if f.code == "provider-error"]
    assert "Its response body came brotli-compressed (content-encoding: br) and was not decoded" in said
    assert "empty" not in said.replace("The body was not empty.", "")


def test_a_body_its_recorder_decoded_is_read_whatever_encoding_header_it_kept():
    # A recorder that decoded the body and kept the `Content-Encoding: br` header: the JSON is read as it is.
    data = json.loads((FIXTURES / "ddtrace-js-claude-agent-sdk-401-brotli.json").read_bytes())
    data["response"]["body"] = json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                                      "message": "invalid x-api-key"}})
    result = upload("decoded.json", json.dumps(data).encode())
    (round_,) = result.conversations[0].trace.rounds
    assert round_.error.undecoded is None and "invalid x-api-key" in round_.error.message
    assert not result.notes


@pytest.mark.parametrize("form", ["server-sent events", "chunk lines"])
def test_azure_asynchronous_filter_chunks_add_nothing_to_the_answer_and_are_no_answer_of_their_own(form):
    # Semantic Kernel's Azure OpenAI test stream: the prompt filter's chunk, the answer "Kindness" and its stop, then
    # two chunks of the asynchronous filter's results (choices[0] with content_filter_offsets and
    # content_filter_results, no delta, no id). Both were skipped ("line 9: matches no known log format"); read as
    # chunks, each must neither join the answer nor, under its empty id, make an answer of its own.
    data = (FIXTURES / "semantic-kernel-azure-async-filter.sse").read_bytes()
    if form == "chunk lines":
        data = b"\n".join(line[len(b"data: "):] for line in data.splitlines() if line.startswith(b"data: {"))
    result = upload("azure.sse" if form == "server-sent events" else "azure.jsonl", data)
    assert result.problems == ()
    (conversation,) = result.conversations
    (round_,) = conversation.trace.rounds
    assert (round_.response.message.text, round_.response.finish_reason) == ("Kindness", "stop")
    assert conversation.trace.model == "gpt-4o-2024-05-13"


def test_an_any_agent_trace_whose_tool_runs_name_their_calls_keeps_those_ids():
    # any-agent's Agno spans record each tool run's call id (gen_ai.tool.call.id) though the model call's output lists
    # the calls without them. The calls were given ids of ours ("call_2_1") and the checks said "its id, call_2_1, is
    # the importer's: the log gives the call none".
    (conversation,) = upload("any-agent-agno-tool-call-ids.json").conversations
    trace = conversation.trace
    first, second, third = trace.rounds
    assert [c.id for r in (first, second) for c in r.tool_calls] == ["LlAGPjfO0", "wzCUjvRq4"]
    assert not any(r.call_ids_made_up for r in trace.rounds)
    assert [p.call_id for m in third.request.messages for p in m.tool_results] == ["LlAGPjfO0", "wzCUjvRq4"]
    assert [(e.name, e.tool_call_id) for r in trace.rounds for e in r.executions] == [
        ("get_current_time", "LlAGPjfO0"), ("write_file", "wzCUjvRq4")]
    note = trace.round_provenance(second).note
    assert "records the call ids on the tools' runs only" in note and "made up" not in note
    assert not [f.message for f in run_checks(trace) if "is the importer's" in f.message]


def test_the_any_agent_format_claims_no_other_formats_lines():
    from lib.logs.any_agent import AnyAgentTraceFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(AnyAgentTraceFormat)


def test_an_http_snapshot_recording_reads_each_body_as_it_was_parsed():
    # anthropic-sdk-python's tool runner tests keep their traffic as http_snapshot recordings: the response's
    # `status_code` beside a parsed body. None was read; and the cassette reader's unwrapping of a vcrpy body
    # ({"content": ...}) would take a Messages answer's own `content` list for the body.
    (conversation,) = upload("anthropic-py-tool-runner-http-snapshot.json").conversations
    first, second = conversation.trace.rounds
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("get_weather", {"location": "San Francisco, CA", "units": "f"})]
    assert (first.response.model, first.response.usage.input_tokens) == ("claude-haiku-4-5-20251001", 656)
    assert second.response.message.text.startswith("The weather in San Francisco, CA is currently **Sunny**")


# --- Gemini's Interactions API ----------------------------------------------------------------------------------------


def test_an_interaction_that_names_the_one_before_shows_the_history_the_provider_held():
    # Round 2 sent only the add tool's result and `previous_interaction_id`: the model read the question, its own call
    # and the result, and the provider counted them (89 input tokens = 65 + 17 + the result).
    trace = upload("rig-gemini-interactions-tool-result.yaml").conversations[0].trace
    first, second = trace.rounds
    assert [c.name for c in first.tool_calls] == ["add"] and first.tool_calls[0].arguments == {"x": 7, "y": 11}
    assert first.response.finish_reason == "tool_calls"
    assert [m.role for m in second.request.messages] == ["user", "assistant", "tool"]
    assert second.request.held_by_provider == 2
    assert second.request.messages[2].parts[0].content == '{"sum": 18.0}'
    assert texts(trace) == ["", "The sum of 7 and 11 is 18."]
    assert (second.response.usage.input_tokens, second.response.usage.reasoning_tokens) == (89, 0)
    # It sent no tools; the model had the conversation's, which is said, not passed off as sent.
    assert [t.name for t in second.request.tools] == ["add"]
    assert "sends no tools of its own" in second.provenance.note
    assert [s.detail for s in steps_for_round(trace, 2) if s.step == 1] == [
        "1 tool held by the provider from earlier in the conversation, not sent: add"]
    assert "previous_interaction_id" in sends(second, 1)
    assert [f.code for f in run_checks(trace)] == []


def test_a_streamed_interaction_is_joined_into_its_two_calls_and_its_status():
    round_ = upload("rig-gemini-interactions-stream-two-calls.yaml").conversations[0].trace.rounds[0]
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [("add", {"x": 2, "y": 3}), ("add", {"x": 10, "y": 20})]
    assert round_.response.finish_reason == "tool_calls" and round_.extra.get(STREAMED) is True
    assert round_.request.messages[0].role == "system"
    assert (round_.response.usage.output_tokens, round_.response.usage.reasoning_tokens) == (152, 118)


def test_an_agent_started_in_the_background_is_said_to_be_still_running_not_to_have_answered_nothing():
    round_ = upload("openinference-gemini-interactions-background.yaml").conversations[0].trace.rounds[0]
    assert round_.response is None
    assert "background" in round_.provenance.note and "still running" in round_.provenance.note


def test_interactions_logged_as_request_and_response_lines_are_read_and_chained():
    # The same bodies a program would log itself, one call a line: detected as the Interactions API, not Responses.
    import yaml
    calls = [document for document in yaml.safe_load_all((FIXTURES / "rig-gemini-interactions-tool-result.yaml")
                                                          .read_text()) if document]
    lines = b"\n".join(orjson.dumps({"request": orjson.loads(c["when"]["body"]),
                                     "response": orjson.loads(c["then"]["body"])}) for c in calls)
    result = upload("interactions.jsonl", lines)
    assert list(result.formats) == ["gemini-interactions"]
    assert result.summary() == "2 lines: 2 rounds in 1 conversation; 0 lines skipped"
    assert [len(r.request.messages) for r in result.conversations[0].trace.rounds] == [1, 3]



def test_a_failed_call_with_an_empty_body_shows_no_words_as_the_providers_in_the_html_file():
    # The file put "HTTP 500", which Roundtrip wrote, under "The provider said:".
    from lib.export_html import trace_html
    from lib.failures import EMPTY_BODY

    page = trace_html(upload("ruby-openai-stream-500-empty-body.yml").conversations[0].trace)
    said = page[page.index("The provider said:"):]
    assert EMPTY_BODY in said[:600] and "HTTP 500</pre>" not in said[:600]


def test_an_any_agent_trace_whose_messages_do_not_parse_says_so_in_our_words():
    # Its reader quoted the parser ("Expecting property name enclosed in double quotes: line 1 column 3 (char 2)")
    # where every other reader says where the JSON goes wrong and what is wrong, in words a user reads.
    trace = json.loads((FIXTURES / "any-agent-openai-write-returned-nothing.json").read_text())
    trace["spans"][0]["attributes"]["gen_ai.input.messages"] = "[{oops"
    said = " ".join(p.message for p in upload("broken.json", json.dumps(trace).encode()).problems)
    assert "'gen_ai.input.messages' is not valid JSON (at character 3 of the attribute" in said
    assert "Expecting" not in said and "char 2" not in said


def test_a_task_run_again_whose_answer_the_program_rewrites_goes_on_from_the_second_run():
    # llama_index's ReAct agent run twice on one question (openllmetry's cassette): the two runs ask alike and get the
    # same answer, and the agent sends that answer back written anew (its action input as a Python dict), so the
    # second run's observation request is byte for byte the first run's. It was read as the first run asking again
    # (a third round that resends all and adds nothing), the second run left a lone call with no observation.
    result = upload("ollm-llamaindex-react-run-twice.yaml")
    assert result.summary() == "5 interactions: 5 rounds in 2 conversations; 0 interactions skipped"
    first, second = (c.trace for c in result.conversations)
    assert [r.request.messages[-1].text for r in second.rounds] == ["What is 2 times 3?", "Observation: 6"]
    assert [r.response.message.text.splitlines()[-1] for r in second.rounds] == [
        'Action Input: {"a": 2, "b": 3}', "Answer: 2 times 3 is 6."]
    assert [(r.error.status if r.error else None, r.request.messages[-1].text) for r in first.rounds] == [
        (404, "What is 2 times 3?"), (None, "What is 2 times 3?"), (None, "Observation: 6")]
    assert [len(growth(second, k).new) for k in (1, 2)] == [2, 2]
