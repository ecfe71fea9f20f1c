"""A request logged with its streamed answer: what a proxy, a cassette or a HAR entry holds.

The line carries the request body under `request` and the answer as it came over the wire under
`response`: the server-sent-events text (`data: {...}` lines), or the events already parsed into a
list. The events are assembled by the stream readers of lib/logs/streams.py, so a streamed run
rebuilds like a non-streamed one: each call with its request, chained into conversations.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.logs.chat_shape import describe
from lib.logs.pairs import call_meta
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.logs.streams import (STREAM_EVENTS, AnthropicStreamFormat, OpenAIChatStreamFormat, ends_with_done, is_keepalive,
                              is_tgi_chunk)
from lib.text import json_said

SSE_FIELDS = ("data:", "event:", "id:", ":")
"""How a server-sent-events body may begin."""


class RecordedStreamFormat(LogFormat):
    """`{"request": {...}, "response": "data: ...\\n\\n..."}` lines (Chat Completions chunks or Messages events)."""

    name = "recorded-stream"
    title = "Request with its streamed answer"
    reads = "a request under 'request' and its answer's server-sent events under 'response'"

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("request"), dict) and _stream_reader(obj.get("response")) is not None:
            return "a request under 'request' and its streamed answer (server-sent events) under 'response'"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        reader = _stream_reader(obj.get("response"))
        if reader is None:
            raise LineProblem(f"'response' is {describe(obj.get('response'))}, expected a streamed answer")
        records = [record for event in _events(obj["response"]) for record in reader.feed(event, line)]
        records += list(reader.finish())
        if not records:
            raise LineProblem("the streamed answer holds no message (no chunk or message_start event)")
        record = records[0]
        record.request, record.line = obj["request"], line
        if isinstance(reader, OpenAIChatStreamFormat) and isinstance(obj["response"], str) \
                and ends_with_done(obj["response"]):
            record.cut_calls = []  # the server closed the stream: nothing was cut by the recording's end
        for key, value in call_meta(obj).items():
            if value is not None:
                setattr(record, key, value)
        yield record


def _stream_reader(response: Any) -> LogFormat | None:
    """A fresh reader for the events' kind, or None when `response` is not a streamed answer."""
    first = next(iter(_events(response)), None) if _looks_streamed(response) else None
    if not isinstance(first, dict):
        return None
    if first.get("object") == "chat.completion.chunk" or is_tgi_chunk(first):
        return OpenAIChatStreamFormat()
    if first.get("type") in STREAM_EVENTS:
        return AnthropicStreamFormat()
    return None


def _looks_streamed(response: Any) -> bool:
    if isinstance(response, str):
        return response.lstrip().startswith(SSE_FIELDS)
    return isinstance(response, list) and bool(response) and isinstance(response[0], dict)


def _events(response: Any) -> Iterator[dict]:
    """The answer's events as objects: each `data:` line of SSE text parsed, `[DONE]` left out."""
    if isinstance(response, list):
        yield from (event for event in response if not is_keepalive(event))
        return
    for number, text in enumerate(response.splitlines(), start=1):
        if not text.startswith("data:"):
            continue  # event names, ids, comments and blank separators carry nothing we need
        payload = text[5:].strip()
        if payload == "[DONE]" or not payload:
            continue
        try:
            event = json.loads(payload)
        except ValueError as exc:
            raise LineProblem(f"line {number} of the streamed answer is not valid JSON ({json_said(exc, 'line')})") from None
        if not isinstance(event, dict):
            raise LineProblem(f"line {number} of the streamed answer is {describe(event)}, expected an event object")
        if not is_keepalive(event):  # a keep-alive carries nothing of the answer
            yield event
