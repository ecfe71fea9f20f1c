"""Recorded HTTP exchanges (VCR cassettes, HAR entries) that were model calls, as CallRecords.

Both recorders keep a request and a response with headers and a body; the bodies may be JSON
text, gzip bytes, or a server-sent event stream. A streamed body is assembled by the stream
formats of lib/logs/streams.py, exactly as if its events had been logged one per line.
Exchanges that are not model calls (a token refresh, a page's images) yield nothing; they are counted (not_calls).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any, Iterator

import orjson

from lib.intern import loads_exact
from lib.logs.limits import gunzipped_at_most, limits
from lib.logs.record import CallRecord, LineProblem
from lib.logs.responses import FINAL_EVENTS, ResponsesFormat, is_responses_request
from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat
from lib.logs.streams import AnthropicStreamFormat, OpenAIChatStreamFormat

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


class ExchangeReader:
    """Reads the exchanges of one file in order; Responses API calls chain on earlier ones."""

    def __init__(self) -> None:
        self.responses = ResponsesFormat()
        self.inflater = Inflater(limits().decompressed_bytes)
        self.not_calls = 0
        """Exchanges read that were no model call."""

    def record(self, exchange: Exchange, line: int, where: str) -> Iterator[CallRecord]:
        """The model call an exchange was, if it was one."""
        where = f"{where} ({exchange.method} {exchange.url})"
        request = _json(exchange.request_body, f"{where}: the request body", self.inflater)
        if not isinstance(request, dict):
            self.not_calls += 1
            return
        label = f"{where}: the response body"
        if is_responses_request(request) or "/v1/responses" in exchange.url:
            response = _response(exchange, label, None, self.inflater)
            yield from self.responses.feed({"request": request, "response": response}, line)
            return
        anthropic = anthropic_messages.is_request(request) or "/v1/messages" in exchange.url
        if not (anthropic or openai_chat.is_request(request) or "/chat/completions" in exchange.url):
            self.not_calls += 1
            return
        dialect = ANTHROPIC if anthropic else OPENAI
        response = _response(exchange, label, dialect, self.inflater)
        error = None
        if exchange.status is not None and exchange.status >= 400:
            inner = response.get("error") if isinstance(response, dict) else None
            message = inner.get("message") if isinstance(inner, dict) else None
            error = {"status": exchange.status, "body": response, "message": str(message or f"HTTP {exchange.status}")}
            response = None
        elif not (anthropic_messages.is_response(response) or openai_chat.is_response(response)):
            response = None
        yield CallRecord(line=line, dialect=dialect, request=request, response=response, error=error)


def _response(exchange: Exchange, label: str, dialect: str | None, inflater: Inflater) -> Any:
    """The response body as the API would have sent it unstreamed (dialect None: the Responses API)."""
    if not _is_stream(exchange.response_body, exchange.response_type):
        return _json(exchange.response_body, label, inflater)
    events = _events(_text(exchange.response_body, label, inflater), label)
    if dialect is None:
        # The Responses API sends the whole response again in its final event.
        finals = [e.get("response") for e in events if e.get("type") in FINAL_EVENTS]
        return finals[-1] if finals else None
    reader = AnthropicStreamFormat() if dialect == ANTHROPIC else OpenAIChatStreamFormat()
    records = [r for number, event in enumerate(events, start=1) for r in reader.feed(event, number)]
    records.extend(reader.finish())
    return records[0].response if records else None


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
    try:
        return loads_exact(text)
    except orjson.JSONDecodeError:
        pass
    try:  # orjson refuses what json takes (NaN, lone surrogates): the slower parser decides
        return json.loads(text)
    except ValueError as exc:
        raise LineProblem(f"{label} is not valid JSON ({exc})") from exc


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
            raise LineProblem(f"{label}, stream line {number}, is not valid JSON ({exc})") from exc
        if isinstance(event, dict):
            events.append(event)
    return events
