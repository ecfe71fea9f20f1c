"""Llama Stack's inference recordings: one `.json` file per call its test recorder replayed.

Llama Stack's recorder (`llama_stack/testing/inference_recorder.py`, run by its integration tests with
LLAMA_STACK_TEST_INFERENCE_MODE=record) saves each call the OpenAI or Ollama client made as
`{"request": {method, url, headers, body, endpoint, model}, "response": {body, is_streaming}}`. The
response body is the client's object as the recorder serialized it, `{"__type__": "<class path>",
"__data__": {...}}`, and a streamed answer is the list of its chunks in that wrapping. No HTTP status is
kept (a call that failed raised before it could be recorded), nor any header.

Each file becomes one recorded exchange, its wrapped objects opened back into the bodies the API sent: a
Chat Completions stream as server-sent events, an Ollama stream as its JSON lines, so the exchange reader
(lib/logs/exchanges.py) reads them as it reads a cassette's.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.logs.chat_shape import describe, object_at, require
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem

WRAPPED = ("__type__", "__data__")
"""The keys of a client object as the recorder serialized it."""


class LlamaStackRecordingFormat(ExchangeFormat):
    """One Llama Stack inference recording: a request with its `endpoint`, and the client's answer wrapped under
    `response.body` beside `is_streaming`."""

    name = "llama-stack-recording"
    detect_keys = frozenset({"request"})
    title = "Llama Stack inference recording"
    reads = "a 'request' with 'endpoint' and 'url' beside a 'response' with 'body' and 'is_streaming'"

    def detect(self, obj: dict) -> str | None:
        request, response = object_at(obj, "request"), object_at(obj, "response")
        if "endpoint" in request and "url" in request and "is_streaming" in response and "body" in response:
            return "a request with 'endpoint' and 'url' and its answer under response.body beside 'is_streaming' " \
                   "(a Llama Stack inference recording)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        request, response = require(obj, "request", dict), require(obj, "response", dict)
        if not isinstance(request.get("url"), str):
            found = describe(request["url"]) if "url" in request else "missing"
            raise LineProblem(f"'request.url' is {found}, expected the address the call went to")
        chunks = response.get("body")
        streamed = response.get("is_streaming") is True and isinstance(chunks, list)
        events = streamed and _sse(chunks)
        body = _stream_text([_opened(c) for c in chunks], events) if streamed else _opened(chunks)
        exchange = Exchange(
            method=str(request.get("method") or "POST"), url=request["url"], request_body=request.get("body"),
            # Not recorded: the recorder keeps only answers the client returned, never a status line.
            status=None, response_body=body,
            response_type="text/event-stream" if events else "",
        )
        yield from self.reader.record(exchange, line)


def _opened(value: Any) -> Any:
    """A client object as the API sent it: the recorder's `{"__type__", "__data__"}` wrapping taken off."""
    if isinstance(value, dict) and set(value) == set(WRAPPED):
        return value["__data__"]
    return value


def _sse(chunks: list) -> bool:
    """Whether a streamed answer's chunks are Chat Completions' (or Completions'), which the API sent as server-sent
    events; Ollama's own API streams JSON lines."""
    first = chunks[0] if chunks else None
    kind = first.get("__type__") if isinstance(first, dict) else None
    return isinstance(kind, str) and kind.startswith("openai.")


def _stream_text(chunks: list, events: bool) -> str:
    """A streamed answer's chunks written back as the wire carried them: `data:` events (`events`) for OpenAI's,
    JSON lines for Ollama's. No closing `[DONE]` is added: the recorder kept none."""
    if events:
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return "".join(json.dumps(c) + "\n" for c in chunks)
