"""Recorded HTTP exchanges (VCR cassettes, HAR entries) that were model calls, as CallRecords.

Both recorders keep a request and a response with headers and a body; the bodies may be JSON
text, gzip bytes, or a server-sent event stream. A streamed body is assembled by the stream
formats of lib/logs/streams.py, exactly as if its events had been logged one per line.
Exchanges that are not model calls (a token refresh, a page's images) yield nothing; they are counted (not_calls).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Iterator
from urllib.parse import unquote, urlsplit

import orjson

from lib.intern import DEEPEST, loads_exact, nests_deeper
from lib.logs.batches import AnthropicBatchFormat
from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe
from lib.logs.bedrock_converse import (BedrockConverseFormat, invoke_stream_events, invoke_stream_response,
                                      stream_response)
from lib.logs.cohere import CohereFormat, CohereV1Format, joined_events, joined_v1_events
from lib.logs.gemini import GeminiFormat
from lib.logs.interactions import InteractionsFormat, joined_events as interactions_joined
from lib.logs.limits import gunzipped_at_most, limits
from lib.logs.ollama import OllamaFormat, joined_chunks
from lib.logs.provider_pairs import ProviderPairFormat, error_body
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem, per_file
from lib.logs.responses import (FINAL_EVENTS, ITEM_DONE, SPEECH_KEY, ResponsesFormat, add_streamed_item,
                                 is_responses_request, with_streamed_items)
from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat
from lib.logs.streams import AnthropicStreamFormat, OpenAIChatStreamFormat, ends_with_done, is_keepalive
from lib.model import STREAM_ENDED, UNDECODED, UNDECODED_NAMES, shaping_headers
from lib.text import json_said, plural

GEMINI_PATH = re.compile(r"/models/([^/:]+):(?:stream)?generateContent$", re.IGNORECASE)
"""Gemini's and Vertex AI's generateContent and streamGenerateContent paths; the model is in the path."""

BEDROCK_PATH = re.compile(r"/model/([^/]+)/converse(-stream)?$")
"""Bedrock's Converse and ConverseStream paths; the model id (or its ARN, quoted) is in the path."""

INVOKE_PATH = re.compile(r"/model/([^/]+)/invoke(-with-response-stream)?$")
"""Bedrock's InvokeModel and InvokeModelWithResponseStream paths: the model id is in the path, the body is the model's
own API (Messages for Claude, Converse's shape for Amazon Nova), streamed inside AWS's event stream."""

INTERACTIONS_PATH = re.compile(r"^/v1[a-z0-9]*/interactions/?$")
"""Gemini's Interactions API (`POST /v1beta/interactions`): a model call in an API of its own (lib/logs/interactions.py),
its `input` and `steps` neither generateContent's nor the Responses API's, whatever its request looks like."""

NATIVE_PATHS = ((BEDROCK_PATH, "anthropic-messages"), (INVOKE_PATH, "anthropic-messages"), (GEMINI_PATH, "openai-chat"))
"""The paths that name a model call of a provider's own API, each with the dialect its calls are converted to (Bedrock's
to Messages, as lib/logs/bedrock_converse.py does; Gemini's to Chat Completions, as lib/logs/gemini.py does)."""

OLLAMA_PATH = "/api/chat"
"""Ollama's native chat path."""

COHERE_PATH = "/v2/chat"
"""Cohere's v2 chat path: its requests are shaped like Chat Completions, its answers in Cohere's own words."""

COHERE_V1_PATH = "/v1/chat"
"""Cohere's v1 chat path (`message`, `chat_history`, `preamble`): known by the path and a request without `messages`
(Writer's chat API shares the path), its request's keys being too common to tell it by alone."""

INVOKE_MODEL_NOTE = ("Bedrock's InvokeModel names the model in the request's path, not in its body: the request "
                     "shown here holds the path's model as its \"model\" key, which the program did not send in the "
                     "body. The rest is as recorded.")
"""Said of a Messages body sent through InvokeModel, shown with the model its path named."""
GEMINI_BATCH_PATH = re.compile(r"/models/([^/:]+):batchGenerateContent$", re.IGNORECASE)
"""Gemini's Batch API, created with inline requests (`batch.inputConfig.requests.requests`); the model is in the
path."""

GEMINI_BATCH_NAME = re.compile(r"/(batches/[^/:]+)$")
"""A Gemini batch fetched by its name: a poll, or, once it succeeded, its answers inline in request order."""

ASSISTANTS_RUN_PATH = re.compile(r"^(.*/threads)(?:/[^/]+)?/runs(?:/[^/]+/submit_tool_outputs)?/?$")
"""OpenAI's Assistants API: creating a run (on a thread, or with a new one: `/threads/runs`) and handing a run its tool
outputs each make the model go on, with no messages in the request (the thread holds them): model calls in an API of
its own, whose polls (GET) and setup (assistants, threads, messages) are not."""

ASSISTANTS_THREAD_PATH = re.compile(r"/threads(?:/[^/]+(?:/messages(?:/[^/]+)?)?)?/?$")
"""OpenAI's Assistants API setting up a thread: one created (its first `messages` in the body, as the thread's own, not
sent to a model), modified, or a message added to one. No model is called until a run (ASSISTANTS_RUN_PATH)."""

COMPACT_PATH = "/responses/compact"
"""The Responses API's compaction endpoint: the call asks the provider to compact the conversation (ResponsesFormat)."""
TOKEN_COUNT_PATHS = ("/v1/messages/count_tokens", "/v1/responses/input_tokens", ":countTokens")
"""Anthropic's, OpenAI's and Gemini's token counting: a request in the shape of a model call, answered with a count
alone. The model is not called."""
MODERATION_PATH = "/moderations"
"""OpenAI's moderation endpoint: its `model` and `input` (typed parts, where an image is moderated) read like a
Responses request, but it classifies the input and answers with categories. No conversation is held."""
RESPONSE_PATH = re.compile(r"/responses/(resp_[^/]+)(?:/cancel)?/?$")
"""A stored Responses API response read (`GET /v1/responses/<id>`: a background call polled) or cancelled."""
PENDING = ("queued", "in_progress")
"""The statuses of a background response not answered yet."""
CONVERSATIONS_PATH = re.compile(r"/conversations(?:/([^/]+)/items)?/?$")
"""OpenAI's Conversations API (Azure's under `/openai/conversations`): a conversation created, or items added to one,
with no model call. The provider holds its items for the calls that name the conversation."""
STORED_CHAT_PATH = re.compile(r"/chat/completions/[^/]+(?:/messages)?/?$")
"""OpenAI's stored Chat Completions (`store: true`): one read, updated (a POST of `metadata` alone) or deleted by its
id, its messages listed. The answer is the stored completion itself, but the model is not called again."""
GEMINI_CACHE_PATH = re.compile(r"/cachedContents(?:/[^/]+)?/?$")
"""Gemini's context caches (`cachedContents`, created, read, updated and deleted): the creation sends `contents` and
`model` as a generateContent request does and is answered with the cache's name and size. The model is not called."""

MESSAGE_BATCHES_PATH = re.compile(r"/v1/messages/batches(?:/([^/]+)(?:/(results|cancel))?)?/?$")
"""Anthropic's Message Batches: created by a POST of `requests`, answered by `<id>/results` in JSON lines; a batch's
own id alone is a poll for its status, `cancel` a cancellation."""

OPENAI_FILES_PATH = re.compile(r"/v1/files(?:/([^/]+)/content)?/?$")
"""OpenAI's file upload (a multipart POST; a Batch's input file is its requests in JSON lines) and a file's content
(a finished Batch's output file: its results in JSON lines)."""

OPENAI_BATCHES_PATH = re.compile(r"/v1/batches(?:/([^/]+))?/?$")
"""OpenAI's Batch API: created from an uploaded input file, then polled until it names its output file."""

BATCH_URLS = {"/v1/chat/completions": "chat", "/v1/responses": "responses"}
"""The Batch endpoints whose requests and results are read, by the API their bodies are in."""

MODEL_CALL_KEYS = ("messages", "message", "contents", "prompt", "inputText", "chat_history", SPEECH_KEY)
"""Request keys that make a POST a model call, in an API of its own when no format here reads it (Cohere's v1 chat,
OpenAI's text-to-speech)."""

BEDROCK_TOKEN_HEADERS = {"input_tokens": "x-amzn-bedrock-input-token-count",
                         "output_tokens": "x-amzn-bedrock-output-token-count",
                         "cache_read_input_tokens": "x-amzn-bedrock-cache-read-input-token-count",
                         "cache_creation_input_tokens": "x-amzn-bedrock-cache-write-input-token-count"}
"""Where Bedrock's InvokeModel and Converse report a call's token counts in the response headers, by the Messages
usage field each is; the first two are always sent."""

MAX_BODY_BYTES = 64 * 1024 * 1024
"""A decompressed body longer than this is refused: no real call body comes near it."""


class Inflater:
    """Opens the gzip bodies of one upload, all of them together held to the cap on what one gzip file may
    expand to: a body of a few kilobytes may open to 64 MB, and a file may hold thousands of them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        """The most bytes the upload's bodies may open to, together."""
        self.left = cap
        """What is left of it."""

    def open(self, data: bytes, label: str) -> bytes:
        """The body's bytes, opened; LineProblem when it does not open or would pass either cap."""
        most = min(MAX_BODY_BYTES, self.left)
        try:
            data = gunzipped_at_most(data, most)
        except (OSError, EOFError, zlib.error) as exc:
            raise LineProblem(f"{label} is gzip that does not open ({exc})") from exc
        if len(data) > most:
            if most == MAX_BODY_BYTES:
                raise LineProblem(f"{label} opens to more than {MAX_BODY_BYTES:,} bytes")
            raise LineProblem(f"{label} opens to more than the {self.cap:,} bytes that the gzip bodies of one "
                              f"upload may open to together ({self.cap - self.left:,} are open already)")
        self.left -= len(data)
        return data


SDK_HELPER_HEADER = "x-stainless-helper"
"""The request header with which the Stainless-generated SDKs (Anthropic's, OpenAI's) name the helper that made a
call: `BetaToolRunner` for the tool runner's own calls, `compaction` for the summary call its compaction control makes."""
SUMMARY_HELPER = "compaction"
"""SDK_HELPER_HEADER's value on the Anthropic SDK tool runner's summary call (`_check_and_compact`): the model is asked to
sum the conversation up, and the summary is then sent in place of the history (CallRecord.summary_call)."""


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
"""Request content types of a form: no model API Roundtrip reads takes one as a call's body."""


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP request and its response."""

    method: str
    """The request method."""
    url: str
    """The request URL, for problems and for telling the API apart."""
    request_body: Any
    """The request body: JSON already parsed, text, bytes, or None."""
    status: int | None
    """The response status code."""
    response_body: Any
    """The response body: JSON already parsed, text, bytes, or None."""
    response_type: str
    """The response content type, lowercase ('' when not recorded)."""
    response_headers: dict[str, str] = field(default_factory=dict)
    """The response headers the recorder kept, by lowercase name, each its first value."""
    request_type: str = ""
    """The request content type, lowercase ('' when not recorded)."""
    request_headers: dict[str, str] = field(default_factory=dict)
    """The request headers the recorder kept, by lowercase name, each its first value (empty when not recorded)."""


class ExchangeReader:
    """Reads the exchanges of one file in order; Responses API calls chain on earlier ones."""

    def __init__(self) -> None:
        self.responses = ResponsesFormat(waits=False)
        self.gemini, self.bedrock, self.ollama = GeminiFormat(), BedrockConverseFormat(), OllamaFormat()
        self.cohere, self.cohere_v1 = CohereFormat(), CohereV1Format()
        self.interactions = InteractionsFormat()
        self.inflater = Inflater(limits().decompressed_bytes)
        self.not_calls = 0
        """Exchanges read that were no model call."""
        self.unread: dict[str, list[int]] = {}
        """Exchanges that were model calls to an API no format here reads, by the API's host and path: their items."""
        self.unanswered: list[tuple[int, int | None]] = []
        """(item, HTTP status) of the model calls recorded with an empty response body."""
        self.background: dict[str, tuple[dict, int]] = {}
        """Responses API calls made with `background: true` and answered `queued` (or `in_progress`), by response id:
        their request and item, until a poll or a cancellation records how they ended."""
        self.undecoded: list[tuple[int, int | None, str]] = []
        """(item, HTTP status, content encoding) of the model calls whose response body came in an encoding not
        decoded here (_undecoded)."""
        self.unsent: list[int] = []
        """Items of the model calls recorded with an empty request body (a recorder that scrubbed it)."""
        self.unread_answers: list[tuple[int, list[str]]] = []
        """(item, the body's keys) of the Chat Completions or Messages calls answered with a JSON object in neither
        API's shape (a gateway's envelope around the answer): the round shows the request alone."""
        self.message_batches = AnthropicBatchFormat()
        """Joins the requests a Message Batch was created with to the results it was answered with."""
        self.batch_inputs: dict[str, tuple[int, dict[str, dict]]] = {}
        """OpenAI Batch input files uploaded, by file id: the item that uploaded each, and its request lines not yet
        answered, by custom_id."""
        self.batch_files: dict[str, str] = {}
        """The input file of each OpenAI Batch created, by batch id, and of each output or error file a poll named, by
        file id."""
        self.gemini_batches: dict[str, tuple[int, str, list]] = {}
        """Gemini batches created and not yet seen answered, by name: the item that created each, its model, and its
        inline requests in order."""

    def record(self, exchange: Exchange, line: int) -> Iterator[CallRecord]:
        """The model call an exchange was, if it was one."""
        encoding = _undecoded(exchange)
        if encoding is not None:
            # Its bytes are not the body's words: read as no body, and said to be undecoded, never empty.
            exchange = replace(exchange, response_body=None)
        records = list(self._calls(exchange, line))
        body = exchange.response_body
        if records and encoding is not None:
            self.undecoded.append((line, exchange.status, encoding))
            for record in records:
                if record.error is not None:
                    record.error = {**record.error, UNDECODED: encoding}
        elif records and (body is None or (isinstance(body, (str, bytes, bytearray)) and not body.strip())):
            self.unanswered.append((line, exchange.status))
        yield from records

    def _calls(self, exchange: Exchange, line: int) -> Iterator[CallRecord]:
        # The upload names the item (`entry 3: ...`); a problem names the exchange by its method and URL.
        where = f"{exchange.method} {exchange.url}"
        path = urlsplit(exchange.url).path
        if path.rstrip("/").endswith((*TOKEN_COUNT_PATHS, MODERATION_PATH)) \
                or GEMINI_CACHE_PATH.search(path) is not None or STORED_CHAT_PATH.search(path) is not None:
            self.not_calls += 1
            return
        if (batch := MESSAGE_BATCHES_PATH.search(path)) is not None:
            yield from self._message_batch(exchange, batch, line)
            return
        if (files := OPENAI_FILES_PATH.search(path)) is not None or OPENAI_BATCHES_PATH.search(path) is not None:
            if (yielded := self._openai_batch(exchange, files, line)) is not None:
                yield from yielded
                return
        if (created := GEMINI_BATCH_PATH.search(path)) is not None or GEMINI_BATCH_NAME.search(path) is not None:
            yield from self._gemini_batch(exchange, created, line)
            return
        if exchange.method.upper() == "POST" and (run := ASSISTANTS_RUN_PATH.search(path)) is not None:
            # Named once for every thread and run: each has its own id in the path.
            tail = "runs/<run>/submit_tool_outputs" if path.rstrip("/").endswith("submit_tool_outputs") else "runs"
            threads = f"{run.group(1)}/<thread>" if not path.rstrip("/").endswith("/threads/runs") else run.group(1)
            api = f"{urlsplit(exchange.url).hostname or ''}{threads}/{tail} (OpenAI's Assistants API)"
            self.unread.setdefault(api, []).append(line)
            return
        if exchange.method.upper() == "POST" and ASSISTANTS_THREAD_PATH.search(path) is not None:
            # Its `messages` read like a chat request's, but they are the thread's to hold for a later run.
            self.not_calls += 1
            return
        if (polled := RESPONSE_PATH.search(path)) is not None and polled.group(1) in self.background:
            yield from self._background_ended(exchange, polled.group(1), where)
            return
        if exchange.method.upper() == "POST" and (items := CONVERSATIONS_PATH.search(path)) is not None:
            self._conversation_items(exchange, items.group(1), where)
            self.not_calls += 1
            return
        try:
            request = _json(exchange.request_body, f"the request body of {where}", self.inflater)
        except LineProblem:
            if exchange.request_type.startswith(FORM_TYPES):
                # A form (an audio file to transcribe) is no JSON model call, whatever its recorder kept of it:
                # envoyproxy/ai-gateway's go-vcr cassettes keep `[multipart form data omitted]`.
                self.not_calls += 1
                return
            if not _json_lines(exchange.request_body, self.inflater):
                raise
            # One JSON value a line (application/x-ndjson: the Hugging Face Hub's commit API): no model API Roundtrip
            # reads takes such a body, so this is no model call, and no damage either.
            self.not_calls += 1
            return
        if not isinstance(request, dict):
            if _empty(exchange.request_body) and (answer := self._answer_alone(exchange, line)) is not None:
                self.unsent.append(line)
                yield answer
            else:
                self.not_calls += 1
            return
        label = f"the response body of {where}"
        if exchange.method.upper() == "POST" and INTERACTIONS_PATH.search(path) is not None:
            # Named by its path: its `input`, `model` and `store` read like a Responses request.
            yield _native_call(self.interactions, {}, request,
                               *_native_response(exchange, self.interactions, label, self.inflater), exchange.status,
                               exchange.response_headers, line)
            return
        if is_responses_request(request) or "/v1/responses" in exchange.url:
            response, _ = _response(exchange, label, None, self.inflater)
            if path.rstrip("/").endswith(COMPACT_PATH):
                # Named by its path, a compaction call is one where it failed too (no `response.compaction` says so).
                if response is not None and not isinstance(response, dict):
                    raise LineProblem(f"{label} is {convert.describe(response)}, expected an object")
                yield self.responses.compaction_call(request, response, line, exchange.status)
                return
            if isinstance(response, dict) and response.get("status") in PENDING and isinstance(response.get("id"), str):
                # A background call: the model answers later, and a poll (or a cancellation) records how it ended.
                self.background[response["id"]] = (request, line)
                return
            yield from self.responses.feed({"request": request, "response": response, "status_code": exchange.status},
                                           line)
            return
        native = self._native(exchange.url, request)
        if native is not None:
            yield _native_call(*native, request, *_native_response(exchange, native[0], label, self.inflater),
                               exchange.status, exchange.response_headers, line)
            return
        by_path = "/v1/messages" in exchange.url or "/chat/completions" in exchange.url
        anthropic = anthropic_messages.is_request(request) or "/v1/messages" in exchange.url
        invoked = INVOKE_PATH.search(path) if "model" not in request else None
        # A Chat Completions body sent to InvokeModel (AI21's Jamba, OpenAI's gpt-oss, DeepSeek on Bedrock) names no
        # model either, so only its `messages` tell it: answered in Chat Completions' words, it is read as one.
        chat_invoked = invoked is not None and not anthropic and isinstance(request.get("messages"), list)
        if not (anthropic or openai_chat.is_request(request) or by_path or chat_invoked):
            self._left_out(exchange, request, line)
            return
        dialect = ANTHROPIC if anthropic else OPENAI
        provenance = None
        if invoked is not None and (anthropic or chat_invoked):
            # Claude through InvokeModel: its Messages body leaves the model to the path (quoted: `%3A` is a
            # versioned id's `:`), as Converse's does; a refusal names it nowhere else. The body shown then holds a
            # key the program did not send in it, and says so. A Chat Completions body sent there does the same.
            request = {"model": unquote(invoked.group(1)), **request}
            provenance = {"origin": "completed", "note": INVOKE_MODEL_NOTE}
        response, stream = _response(exchange, label, dialect, self.inflater)
        # A stream that an error event ended (Anthropic's `error`, a Chat Completions `{"error": ...}` chunk) failed
        # under the HTTP 200 it began with.
        error = _error(response, exchange.status) or (stream.error if stream is not None else None)
        if error is not None and isinstance(error.get(STREAM_ENDED), dict):
            # The status line was the stream's, sent before the event: kept apart from the status the event names.
            error = {**error, STREAM_ENDED: {"http_status": exchange.status}}
        elif error is not None and stream is None and exchange.status is not None and exchange.status < 400 \
                and _is_stream(exchange.response_body, exchange.response_type):
            # A stream whose first event was the error (Anthropic's `overloaded_error`, a gateway's `{"error": ...}`):
            # the success status was the stream's, sent before the event, not the failure's.
            error = {**error, "status": _event_status(error.get("body")),
                     STREAM_ENDED: {"http_status": exchange.status, "before_answer": True}}
        if error is None and not (anthropic_messages.is_response(response) or openai_chat.is_response(response)):
            if isinstance(response, dict) and not by_path:
                # A request shaped like Chat Completions answered in another API's words (a proxy's own).
                self._left_out(exchange, request, line)
                return
            if isinstance(response, dict) and response:
                # Kinetica's SQL assistant wraps the answer: {"status": "OK", "data": {"status": "OK", "data": {...}}}.
                self.unread_answers.append((line, [str(k) for k in response]))
            response = None
        yield CallRecord(line=line, dialect=dialect, request=request, response=None if error else response, error=error,
                         streamed=stream is not None, cut_calls=stream.cut_calls if stream else [],
                         provenance=provenance,
                         summary_call=exchange.request_headers.get(SDK_HELPER_HEADER) == SUMMARY_HELPER,
                         # A recorder that kept any request header kept them all: those that shape the call are shown.
                         request_headers=shaping_headers(exchange.request_headers) if exchange.request_headers else None)

    def _background_ended(self, exchange: Exchange, response_id: str, where: str) -> Iterator[CallRecord]:
        """A poll or cancellation of a background call: the call, answered, where the response has ended; nothing
        where it is still queued or in progress."""
        response = _json(exchange.response_body, f"the response body of {where}", self.inflater)
        if isinstance(response, dict) and response.get("id") == response_id and response.get("status") in PENDING:
            self.not_calls += 1
            return
        request, line = self.background.pop(response_id)
        yield from self.responses.feed({"request": request, "response": response, "status_code": exchange.status},
                                       line)

    def _conversation_items(self, exchange: Exchange, conversation: str | None, where: str) -> None:
        """Keep the items a Conversations API conversation was created with, or had added (`conversation`: the id the
        path names; None for a creation, whose answer names it), for the Responses calls in that conversation."""
        if exchange.status is not None and exchange.status >= 400:
            return  # refused: the provider holds nothing
        request = _json(exchange.request_body, f"the request body of {where}", self.inflater)
        items = request.get("items") if isinstance(request, dict) else None
        if conversation is None:
            answer = _json(exchange.response_body, f"the response body of {where}", self.inflater)
            conversation = answer.get("id") if isinstance(answer, dict) else None
        if isinstance(items, list) and items and isinstance(conversation, str) and conversation:
            self.responses.conversation_items(conversation, items)

    def _message_batch(self, exchange: Exchange, batch: re.Match, line: int) -> Iterator[CallRecord]:
        """The calls of a Message Batch: the requests it was created with, each joined on its custom_id to the
        result line that answers it, as the batch files are (lib/logs/batches.py). A poll or a cancellation is no
        model call."""
        where = f"{exchange.method} {exchange.url}"
        if batch.group(1) is None and exchange.method.upper() == "POST":
            created = _json(exchange.request_body, f"the request body of {where}", self.inflater)
            requests = created.get("requests") if isinstance(created, dict) else None
            if not isinstance(requests, list):
                raise LineProblem(f"the request body of {where} has no 'requests' list, expected the batch's requests")
            for request in requests:
                if not isinstance(request, dict):
                    raise LineProblem(f"a request of {where} is {describe(request)}, expected an object")
                yield from self.message_batches.feed(request, line)
        elif batch.group(2) == "results" and exchange.status is not None and exchange.status < 400:
            label = f"the response body of {where}"
            for piece in _text(exchange.response_body, label, self.inflater).splitlines():
                if piece.strip():
                    result = _json(piece, label, self.inflater)
                    if not isinstance(result, dict):
                        raise LineProblem(f"a line of {label} is {describe(result)}, expected a result object")
                    yield from self.message_batches.feed(result, line)
        else:
            self.not_calls += 1

    def _openai_batch(self, exchange: Exchange, files: re.Match | None, line: int) -> list[CallRecord] | None:
        """The calls of an OpenAI Batch recorded over HTTP: its input file's request lines, uploaded as a multipart
        form, kept by file id; the batch created from that file; the polls, until one names the output file; then
        that file's content, each result joined on its custom_id to the request it answers, as the batch files are
        (lib/logs/batches.py). None for an exchange that is no part of a batch this file holds (a Gemini batch's)."""
        where = f"{exchange.method} {exchange.url}"
        method, failed = exchange.method.upper(), exchange.status is not None and exchange.status >= 400
        if files is not None and files.group(1) is not None:  # a file's content: JSON lines, not one object
            answer = {}
        else:
            answer = {} if failed else _json(exchange.response_body, f"the response body of {where}", self.inflater)
            answer = answer if isinstance(answer, dict) else {}
        if files is not None and files.group(1) is None and method == "POST":
            label = f"the request body of {where}"
            requests = _batch_lines(_text(exchange.request_body, label, self.inflater), label, self.inflater)
            if requests and isinstance(answer.get("id"), str):
                self.batch_inputs[answer["id"]] = (line, requests)
            else:
                self.not_calls += 1  # a file for another purpose (fine-tuning), a batch not read here, or one refused
            return []
        if files is not None and files.group(1) is not None:
            input_file = self.batch_files.get(files.group(1))
            if input_file is None or failed:
                self.not_calls += 1
                return []
            label = f"the response body of {where}"
            return [record for piece in _text(exchange.response_body, label, self.inflater).splitlines()
                    if piece.strip() for record in self._batch_result(_json(piece, label, self.inflater), input_file,
                                                                      line)]
        if files is not None:
            return None
        batch = answer if answer.get("object") == "batch" else {}
        input_file = batch.get("input_file_id")
        if not isinstance(input_file, str) or input_file not in self.batch_inputs:
            if method == "GET" and self.gemini_batches:
                return None  # a Gemini batch's name can read like one of OpenAI's
            self.not_calls += 1
            return []
        if isinstance(batch.get("id"), str):
            self.batch_files[batch["id"]] = input_file
        for key in ("output_file_id", "error_file_id"):
            if isinstance(batch.get(key), str):
                self.batch_files[batch[key]] = input_file
        self.not_calls += 1  # a creation or a poll: the calls come with the results
        return []

    def _batch_result(self, result: Any, input_file: str, line: int) -> Iterator[CallRecord]:
        """One line of a Batch's output (or error) file, joined to the request it answers."""
        if not isinstance(result, dict):
            raise LineProblem(f"a line of the batch's results is {describe(result)}, expected a result object")
        custom_id = result.get("custom_id")
        named = str(custom_id) if isinstance(custom_id, (str, int)) and not isinstance(custom_id, bool) else None
        pending = self.batch_inputs.get(input_file, (line, {}))[1]
        sent = pending.pop(named, None) if named is not None else None
        yield from self._batch_call(sent, result, line, named)

    def _batch_call(self, sent: dict | None, result: dict | None, line: int,
                    name: str | None) -> Iterator[CallRecord]:
        """A Batch request line and the result line that answers it (either may be None), read as the API its url
        names: Chat Completions as a pair, a Responses API request through the Responses reader."""
        answered = convert.object_at(result, "response") if isinstance(result, dict) else {}
        body = answered.get("body") if isinstance(answered.get("body"), dict) else None
        # A result whose request is not here says its API by its body alone.
        kind = _batch_api(sent) if sent is not None else \
            "responses" if isinstance(body, dict) and body.get("object") == "response" else "chat"
        status = convert.as_int(answered.get("status_code"))
        request = convert.object_at(sent, "body") if sent is not None else None
        error = _error(body, status)
        failed = convert.object_at(result, "error") if isinstance(result, dict) else {}
        if error is None and failed:
            error = {"status": status, "body": failed, "message": str(failed.get("message") or "the request failed")}
        if kind == "responses":
            for record in self.responses.feed({"request": request, "response": None if error else body,
                                               "status_code": status}, line):
                record.name, record.error = name, error or record.error
                yield record
            return
        response = body if error is None and openai_chat.is_response(body) else None
        yield CallRecord(line=line, dialect=OPENAI, request=request, response=response, error=error, name=name)

    def _gemini_batch(self, exchange: Exchange, created: re.Match | None, line: int) -> Iterator[CallRecord]:
        """The calls of a Gemini batch of inline requests: the requests it was created with, kept by the batch's name,
        each joined to the answer at its place once a fetch of the batch holds them. A poll is no model call."""
        where = f"{exchange.method} {exchange.url}"
        if created is None and not self.gemini_batches:
            self.not_calls += 1  # no batch of this file's is waiting (OpenAI's `/v1/batches/<id>` is named alike)
            return
        answer = _json(exchange.response_body, f"the response body of {where}", self.inflater)
        answer = answer if isinstance(answer, dict) else {}
        name = answer.get("name")
        if created is not None:
            sent = _json(exchange.request_body, f"the request body of {where}", self.inflater)
            sent = sent if isinstance(sent, dict) else {}
            inline = convert.object_at(convert.object_at(convert.object_at(sent, "batch"), "inputConfig"), "requests")
            requests = inline.get("requests")
            if not isinstance(requests, list) or not isinstance(name, str):
                self.not_calls += 1  # a batch of a file's requests, or one the API refused: none of them is here
                return
            for place, entry in enumerate(requests):  # checked here, so that the batch's item is the one named
                if not isinstance(entry, dict) or not self.gemini.is_request(convert.object_at(entry, "request")):
                    raise LineProblem(f"request {place + 1} of the batch is not a generateContent request "
                                      "(`request.contents`)")
            self.gemini_batches[name] = (line, unquote(created.group(1)), requests)
            return
        output = convert.object_at(convert.object_at(answer, "metadata"), "output") or \
            convert.object_at(answer, "response")
        answers = convert.object_at(output, "inlinedResponses").get("inlinedResponses")
        if not isinstance(answers, list) or name not in self.gemini_batches:
            self.not_calls += 1
            return
        _, model, requests = self.gemini_batches.pop(name)
        for place, request in enumerate(requests):
            yield self._gemini_batch_call(request, answers[place] if place < len(answers) else None, model, place,
                                          line)

    def _gemini_batch_call(self, entry: Any, answered: Any, model: str, place: int, line: int) -> CallRecord:
        """One inline request of a Gemini batch with its answer (None: not answered), named by its metadata's key or
        custom_id where it has one, else by its place."""
        request, metadata = convert.object_at(entry, "request"), convert.object_at(entry, "metadata")
        named = next((str(metadata[k]) for k in ("key", "custom_id") if isinstance(metadata.get(k), (str, int))),
                     f"request {place + 1}")
        response = convert.object_at(answered, "response") if isinstance(answered, dict) else None
        record = self.gemini.record(request, response if self.gemini.is_response(response) else None, line,
                                    {"model": model})
        failed = convert.object_at(answered, "error") if isinstance(answered, dict) else {}
        if failed:
            said = str(failed.get("message") or "the request failed")
            code = failed.get("code")  # a google.rpc.Status: its code is the HTTP status's
            record.error = {"status": code if isinstance(code, int) else None, "body": failed, "message": said}
        record.name = named
        return record

    def finish(self) -> Iterator[CallRecord]:
        """The batch requests still waiting for their results (or results for their requests) at the end."""
        yield from self.message_batches.finish()
        created = set(self.batch_files.values())
        inputs, self.batch_inputs = self.batch_inputs, {}
        for file_id, (line, pending) in inputs.items():
            if file_id in created:  # a file uploaded for a batch never created holds no calls
                for custom_id, sent in pending.items():
                    yield from self._batch_call(sent, None, line, custom_id)
        batches, self.gemini_batches = self.gemini_batches, {}
        for line, model, requests in batches.values():
            for place, request in enumerate(requests):
                yield self._gemini_batch_call(request, None, model, place, line)
        background, self.background = self.background, {}
        for request, line in background.values():  # never seen to end: the answer is not in the log
            yield from self.responses.feed({"request": request, "response": None}, line)

    def _answer_alone(self, exchange: Exchange, line: int) -> CallRecord | None:
        """The call an exchange recorded without its request body was, when its path names Chat Completions or
        Messages and its answer is one of theirs: a round whose request the log did not keep."""
        path = urlsplit(exchange.url).path
        native = next(((found, dialect) for pattern, dialect in NATIVE_PATHS if (found := pattern.search(path))),
                      None)
        if native is not None:
            # Bedrock's and Gemini's paths name a model call whatever the body; with the request left out, only a
            # refusal can be read, the answer's shape being the provider's own.
            response, _ = _response(exchange, f"the response body of {exchange.method} {exchange.url}", None,
                                    self.inflater)
            error = _error(response, exchange.status)
            if error is None:
                return None
            # The path is all that names the model (quoted: `%3A` is a versioned id's `:`); a request of no messages
            # carries it, and is still read as one the log did not keep (lib.model.Round.request_recorded).
            model = unquote(native[0].group(1))
            return CallRecord(line=line, dialect=native[1], request={"model": model, "messages": []} if model else None,
                              error=error)
        if not path.endswith(("/chat/completions", "/v1/messages")):
            return None
        dialect = ANTHROPIC if path.endswith("/v1/messages") else OPENAI
        response, stream = _response(exchange, f"the response body of {exchange.method} {exchange.url}", dialect,
                                     self.inflater)
        error = _error(response, exchange.status)
        if error is None and not (anthropic_messages.is_response(response) or openai_chat.is_response(response)):
            return None
        return CallRecord(line=line, dialect=dialect, request=None, response=None if error else response, error=error,
                          streamed=stream is not None, cut_calls=stream.cut_calls if stream else [])

    def _left_out(self, exchange: Exchange, request: dict, line: int) -> None:
        """Count an exchange no format here reads: a model call to another API, or no model call at all."""
        if exchange.method.upper() == "POST" and any(key in request for key in MODEL_CALL_KEYS):
            parts = urlsplit(exchange.url)
            self.unread.setdefault(f"{parts.hostname or ''}{parts.path}", []).append(line)
        else:
            self.not_calls += 1

    def notes(self) -> list[Problem]:
        """What the exchanges read lack: a note per API whose calls were left out (where the first is, and how many
        there were), and one for the calls whose response body was recorded empty."""
        notes = [Problem(items[0], f"a model call to {api}, an API Roundtrip does not read (it reads Chat Completions, "
                         "Anthropic Messages, the Responses API, Gemini (generateContent and Interactions), Bedrock Converse, Ollama and Cohere's v1 "
                         "and v2 chat): left out"
                         + (f", and so {'is' if len(items) == 2 else 'are'} {plural(len(items) - 1, 'more call')} "
                            "to it" if len(items) > 1 else ""), loaded=True)
                 for api, every in self.unread.items() for items in per_file(every)]
        notes.extend(self.responses.notes())
        for unsent in per_file(self.unsent):
            more = len(unsent) - 1
            notes.append(Problem(unsent[0], "the request body was recorded empty"
                                 + (f", as it was for {plural(more, 'more call')}" if more else "")
                                 + ": the round shows the response alone, its request not known", loaded=True))
        for unread_answers in per_file(self.unread_answers, lambda answer: answer[0]):
            (first, keys), more = unread_answers[0], len(unread_answers) - 1
            shown = ", ".join(repr(k) for k in keys[:6]) + (f" and {len(keys) - 6:,} more" if len(keys) > 6 else "")
            notes.append(Problem(first, f"the response body is a JSON object in neither Chat Completions' nor Anthropic "
                                 f"Messages' shape (its keys: {shown})"
                                 + (f", as it was for {plural(more, 'more call')}" if more else "")
                                 + ": the round shows the request alone, its answer not read", loaded=True))
        for undecoded in per_file(self.undecoded, lambda call: call[0]):
            (first, status, encoding), more = undecoded[0], len(undecoded) - 1
            notes.append(Problem(first, f"the response body{f' (HTTP {status})' if status else ''} came "
                                 f"{UNDECODED_NAMES[encoding]}-compressed (content-encoding: {encoding}) and was not "
                                 f"decoded: {undecoded_why(encoding)}"
                                 + (f"; so was it for {plural(more, 'more call')}" if more else "")
                                 + ": the round shows the request and the status alone, what the body said not known",
                                 loaded=True))
        for unanswered in per_file(self.unanswered, lambda call: call[0]):
            (first, status), more = unanswered[0], len(unanswered) - 1
            notes.append(Problem(first, f"the response body was recorded empty{f' (HTTP {status})' if status else ''}"
                                 + (f", as it was for {plural(more, 'more call')}" if more else "")
                                 + ": the round shows the request alone", loaded=True))
        return notes

    def _native(self, url: str, request: dict) -> tuple[ProviderPairFormat, dict] | None:
        """The provider-native format a call is in, with the model its URL names; None for Chat Completions and
        Messages. The path decides where it can; bodies only where the path is neither of those two."""
        path = urlsplit(url).path
        if (found := BEDROCK_PATH.search(path)) is not None:
            return self.bedrock, {"modelId": unquote(found.group(1))}
        if (found := GEMINI_PATH.search(path)) is not None:
            return self.gemini, {"model": unquote(found.group(1))}
        if path.endswith(OLLAMA_PATH):
            return self.ollama, {}
        if path.rstrip("/").endswith(COHERE_PATH):
            return self.cohere, {}
        if (invoked := INVOKE_PATH.search(path)) is not None and isinstance(request.get("message"), str) \
                and "messages" not in request and "model" not in request:
            # Cohere's Command R through InvokeModel: a v1 chat body (the new turn under `message`) whose model only
            # the path names; its keys beside `message` may be none of those that tell a v1 body elsewhere.
            return self.cohere_v1, {"model": unquote(invoked.group(1))}
        if path.rstrip("/").endswith(COHERE_V1_PATH) and "messages" not in request:
            # Writer's chat shares the path, its request Chat Completions' (`messages`).
            return self.cohere_v1, {}
        if path.endswith(("/chat/completions", "/messages")):
            return None
        found = next(((f, {}) for f in (self.bedrock, self.gemini, self.ollama, self.cohere) if f.is_request(request)),
                     None)
        if found is not None and found[0] is self.bedrock and (invoked := INVOKE_PATH.search(path)) is not None:
            return self.bedrock, {"modelId": unquote(invoked.group(1))}  # Amazon Nova through InvokeModel
        return found


class ExchangeFormat(LogFormat):
    """A format whose items are recorded HTTP exchanges (cassettes, HAR files): read by one ExchangeReader, which
    counts and names what was no model call or a call to an API not read here."""

    def __init__(self) -> None:
        self.reader = ExchangeReader()
        """Reads this file's exchanges in order."""

    def not_calls(self) -> int:
        return self.reader.not_calls

    def finish(self) -> Iterator[CallRecord]:
        return self.reader.finish()

    def share_bodies(self, inflater: Inflater) -> None:
        self.reader.inflater = inflater

    def unread_calls(self) -> int:
        return sum(map(len, self.reader.unread.values()))

    def notes(self) -> list[Problem]:
        return self.reader.notes()


def _batch_lines(text: str, label: str, inflater: Inflater) -> dict[str, dict]:
    """The request lines of a Batch input file in a multipart upload's body, by custom_id; empty when the body holds
    none (a file for another purpose)."""
    lines: dict[str, dict] = {}
    for piece in text.splitlines():
        piece = piece.strip()
        if not piece.startswith("{"):
            continue  # the form's boundaries and part headers, and its other fields (`purpose`)
        try:
            request = _json(piece, label, inflater)
        except LineProblem:
            continue  # a line of a file for another purpose (a PDF's bytes) that opens with a brace: no request line
        if isinstance(request, dict) and isinstance(request.get("custom_id"), (str, int)) and _batch_api(request):
            lines.setdefault(str(request["custom_id"]), request)
    return lines


def _batch_api(line: dict) -> str | None:
    """The API a Batch request line's body is in, by its url; None for a line to an endpoint no format here reads
    (embeddings, moderations), or no request line at all."""
    url = line.get("url")
    return BATCH_URLS.get(url.split("?")[0].rstrip("/")) if isinstance(url, str) and "body" in line else None


NOT_DECODED = tuple(UNDECODED_NAMES)
"""Content encodings of a response body that no format here decodes: brotli, where neither the `brotli` nor the
`brotlicffi` module is installed (neither is in requirements.txt). gzip is opened by its bytes (Inflater)."""


def _undecoded(exchange: Exchange) -> str | None:
    """The content encoding a response body was recorded in and is not decoded here (NOT_DECODED), or None: a recorder
    that kept the compressed bytes (the Datadog test agent writes them as `base64:`). A body that reads as JSON or as
    a stream's events was decoded by its recorder, whatever header it kept."""
    encoding = exchange.response_headers.get("content-encoding", "").strip().lower()
    body = exchange.response_body
    if encoding not in NOT_DECODED or not isinstance(body, (str, bytes, bytearray)) or not body.strip():
        return None
    head = (body if isinstance(body, str) else bytes(body[:64]).decode("utf-8", errors="replace")).lstrip()[:6]
    return None if head[:1] in ("{", "[") or head.startswith(("data:", "event:")) else encoding


def undecoded_why(encoding: str) -> str:
    """Why a body in `encoding` (one of NOT_DECODED) was not decoded, in our words."""
    return "neither the brotli nor the brotlicffi module is installed here"


def _error(response: Any, status: int | None) -> dict | None:
    """The error an exchange's answer was: its error body's words, or the HTTP status alone."""
    error = error_body(response, status)
    if error is None and status is not None and status >= 400:
        error = {"status": status, "body": response, "message": f"HTTP {status}"}
    return error


def _native_call(provider: ProviderPairFormat, named: dict, request: dict, response: Any, streamed: bool,
                 status: int | None, headers: dict[str, str], line: int) -> CallRecord:
    """A provider-native call converted by its format, as a pair line of that format would be (`streamed`: the
    response was assembled from a stream; `headers`: the response headers recorded)."""
    if isinstance(provider, CohereV1Format) and "model" in named and "model" not in request:
        # Through InvokeModel the body names no model, the path does: shown with it, and said so, as Claude's is.
        request = {"model": named["model"], **request}
    error = _error(response, status)
    if error is not None and error["message"] == f"HTTP {status}" and provider.own_error(response) \
            and isinstance(response.get("message"), str) and response["message"]:
        # An error body only its provider writes (Cohere's {"id", "message"}): its words, not the status alone.
        error = {**error, "message": response["message"]}
    if error is not None or not provider.is_response(response):
        response = None
    record = provider.call(request, response, line, named, streamed)
    record.error = error
    if isinstance(provider, CohereV1Format) and "model" in named:
        record.provenance = {"origin": "completed", "note": INVOKE_MODEL_NOTE}
    if isinstance(provider, BedrockConverseFormat) and isinstance(record.response, dict) \
            and "usage" not in record.response and (usage := _header_usage(headers)) is not None:
        # A body without its counts (Nova's under a guardrail that masked the answer): the headers report them.
        record.response["usage"] = usage
    return record


def _header_usage(headers: dict[str, str]) -> dict | None:
    """The Messages usage Bedrock's token-count headers report; None without both the input and the output count
    (LangChain's cassettes write every header's value as '**REDACTED**')."""
    counts = {field_: int(headers[name]) for field_, name in BEDROCK_TOKEN_HEADERS.items()
              if headers.get(name, "").strip().isdigit()}
    if "input_tokens" not in counts or "output_tokens" not in counts:
        return None
    return {"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, **counts}


def _streaming_path(path: re.Pattern, url: str) -> bool:
    """Whether the URL is the streaming one of the two Bedrock paths `path` matches (BEDROCK_PATH: ConverseStream,
    INVOKE_PATH: InvokeModelWithResponseStream), which its second group marks."""
    found = path.search(urlsplit(url).path)
    return found is not None and found.group(2) is not None


def _native_response(exchange: Exchange, provider: ProviderPairFormat, label: str,
                     inflater: Inflater) -> tuple[Any, bool]:
    """A native call's response body: a stream as the list of its chunks (Gemini), or joined (Ollama, Bedrock,
    Cohere), and whether it is a stream joined here."""
    body = exchange.response_body
    if isinstance(provider, BedrockConverseFormat) and isinstance(body, (bytes, bytearray)):
        if _streaming_path(INVOKE_PATH, exchange.url):
            return invoke_stream_response(bytes(body)), True  # Amazon Nova's, through InvokeModel
        # ConverseStream's path says its body is AWS's event stream where the content type was not kept (LangChain's
        # cassettes write every header's value as '**REDACTED**').
        if "eventstream" in exchange.response_type or _streaming_path(BEDROCK_PATH, exchange.url):
            return stream_response(bytes(body)), True
    if isinstance(provider, GeminiFormat) and _is_stream(body, exchange.response_type):
        return _events(_text(body, label, inflater), label), False
    if isinstance(provider, InteractionsFormat) and _is_stream(body, exchange.response_type):
        return interactions_joined(_events(_text(body, label, inflater), label)), True
    if isinstance(provider, CohereFormat) and _is_stream(body, exchange.response_type):
        return joined_events(_events(_text(body, label, inflater), label)), True
    if isinstance(provider, CohereV1Format) and isinstance(body, (bytes, bytearray)) \
            and _streaming_path(INVOKE_PATH, exchange.url):
        # InvokeModelWithResponseStream: each chunk one v1 stream event.
        events = invoke_stream_events(bytes(body))
        if events and all(isinstance(e, dict) and "event_type" in e for e in events):
            return joined_v1_events(events), True
    if isinstance(provider, CohereV1Format) and not isinstance(body, (dict, list)):
        text = _text(body, label, inflater).strip()
        if text and "\n" in text:  # one JSON object per line (application/stream+json): a v1 stream's events
            events = [_json(piece, label, inflater) for piece in text.splitlines() if piece.strip()]
            if all(isinstance(e, dict) and "event_type" in e for e in events):
                return joined_v1_events(events), True
    if isinstance(provider, OllamaFormat):
        text = _text(body, label, inflater).strip() if not isinstance(body, (dict, list)) else None
        if text and "\n" in text:  # one JSON object per line: a stream's chunks
            chunks = [_json(piece, label, inflater) for piece in text.splitlines() if piece.strip()]
            if all(isinstance(c, dict) and "message" in c for c in chunks):
                return joined_chunks(chunks), True
            return chunks, False
    # A list of chunks (streamGenerateContent without `alt=sse` answers with a JSON array) is the format's to join.
    return _json(body, label, inflater), False


def _response(exchange: Exchange, label: str, dialect: str | None,
              inflater: Inflater) -> tuple[Any, CallRecord | None]:
    """The response body as the API would have sent it unstreamed (dialect None: the Responses API), and the call
    our assembly of a stream's events made (its calls cut short by the stream's end among them), or None when the
    body was not assembled here."""
    body = exchange.response_body
    if dialect is not None and isinstance(body, (bytes, bytearray)) and (
            "eventstream" in exchange.response_type or _streaming_path(INVOKE_PATH, exchange.url)):
        events, text = invoke_stream_events(bytes(body)), ""  # Bedrock's InvokeModelWithResponseStream
    elif not _is_stream(body, exchange.response_type):
        return _json(body, label, inflater), None
    else:
        text = _text(body, label, inflater)
        events = _events(text, label)
    if dialect is None:
        # The Responses API sends the whole response again in its final event: received in that shape, not assembled
        # (but for the items a final event of ChatGPT's Codex backend leaves out: responses.with_streamed_items).
        final, items = None, {}
        for event in events:
            kind = event.get("type")
            if kind == ITEM_DONE:
                add_streamed_item(items, event)
            elif kind in FINAL_EVENTS:
                final = event.get("response")
        return with_streamed_items(final, items), None
    # One body is one answer: its chunks make one completion even where their ids differ.
    reader = AnthropicStreamFormat() if dialect == ANTHROPIC else OpenAIChatStreamFormat(one_completion=True)
    if events and not any(reader.detect(e) or "choices" in e for e in events):
        # Another API's stream under a request shaped like Chat Completions: its first event
        # stands for the answer, which `_calls` names as another API's words, as it does an unstreamed one.
        return events[0], None
    records = [r for number, event in enumerate(events, start=1) for r in reader.feed(event, number)]
    records.extend(reader.finish())
    if records and dialect == OPENAI and ends_with_done(text):
        # OpenRouter's providers (Novita, Fireworks) end a stream with no finish_reason, then `[DONE]`: the server
        # said the answer was whole, so no call was cut short by the recording's end.
        records[0].cut_calls = []
    return (records[0].response, records[0]) if records else (None, None)


def _text(body: Any, label: str, inflater: Inflater) -> str:
    """A body as text: gzip bytes are opened by the inflater, other bytes read as UTF-8."""
    if isinstance(body, (bytes, bytearray)):
        data = bytes(body)
        if data[:2] == b"\x1f\x8b":
            data = inflater.open(data, label)
        return data.decode("utf-8", errors="replace")
    return body if isinstance(body, str) else ""


def _json(body: Any, label: str, inflater: Inflater) -> Any:
    """A body as parsed JSON; None for an empty body or one that is not JSON text."""
    if body is None or isinstance(body, (dict, list)):
        return body
    text = _text(body, label, inflater).strip()
    if not text or text[:1] not in "{[":
        return None
    raw = text.encode("utf-8", "surrogatepass")  # once, for the depth check and the parse both
    if nests_deeper(raw):  # Python's recursive code (json, copying, rendering) could not walk it
        raise LineProblem(f"{label} nests more than {DEEPEST} levels deep; no model call does")
    try:
        return loads_exact(raw)
    except orjson.JSONDecodeError:
        pass
    try:  # orjson refuses what json takes (NaN, lone surrogates): the slower parser decides
        return json.loads(text)
    except ValueError as exc:
        raise LineProblem(f"{label} is not valid JSON ({json_said(exc, 'body')})") from exc


def _empty(body: Any) -> bool:
    """Whether a recorded body is empty: absent, or nothing but whitespace."""
    return body is None or (isinstance(body, (str, bytes, bytearray)) and not body.strip())


def _json_lines(body: Any, inflater: Inflater) -> bool:
    """Whether a body is several JSON values, one a line (JSON lines), rather than one JSON document."""
    try:
        text = _text(body, "a body", inflater)
    except LineProblem:
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        for line in lines:
            orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _event_status(event: Any) -> int | None:
    """The status an error event names (`error.status_code`, as Groq writes it), if any."""
    inner = event.get("error") if isinstance(event, dict) else None
    status = inner.get("status_code") if isinstance(inner, dict) else None
    return status if isinstance(status, int) and not isinstance(status, bool) else None


def _is_stream(body: Any, content_type: str) -> bool:
    if "text/event-stream" in content_type:
        return True
    head = body[:16] if isinstance(body, (str, bytes)) else ""
    head = head.decode("utf-8", errors="replace") if isinstance(head, bytes) else head
    return head.lstrip().startswith(("data:", "event:"))


def _events(text: str, label: str) -> list[dict]:
    """The JSON objects of a server-sent event body's `data:` lines."""
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        data = line[len("data:"):].strip() if line.startswith("data:") else None
        if not data or data == "[DONE]":
            continue
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise LineProblem(f"{label}, stream line {number}, is not valid JSON ({json_said(exc, 'line')})") from exc
        if isinstance(event, dict) and not is_keepalive(event):  # a keep-alive carries nothing of the answer
            events.append(event)
    return events
