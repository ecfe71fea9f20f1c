"""HAR files (a browser's network tab, saved "as HAR"): each entry that was a model call.

A HAR file is one JSON document, `{"log": {"entries": [...]}}`; lib/logs/documents.py hands
this format one entry at a time. The request body is `request.postData.text`; the response body
is `response.content.text`, base64 when `content.encoding` says so. Polly.JS (its node-http adapter) writes a body
that was compressed on the wire as the JSON text of a list of base64 strings, one for each chunk it received, under
the same `encoding: "base64"`: the chunks are decoded and joined, in order.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Iterator

from lib.logs.chat_shape import object_at, require
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


class HarEntryFormat(ExchangeFormat):
    """One HAR entry: request.method and request.url, response.status and response.content."""

    name = "har"
    detect_keys = frozenset({"request"})
    title = "HAR (browser network log)"
    reads = "an entry with 'request.url' and 'response.content', in a HAR file's 'log.entries'"

    def detect(self, obj: dict) -> str | None:
        request, response = object_at(obj, "request"), object_at(obj, "response")
        if "url" in request and "method" in request and "status" in response and "content" in response:
            return "an entry with request.url and response.content (a HAR file)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        # Detection asks for these; a format chosen by hand must too, or any object is "not a model call".
        request, response = require(obj, "request", dict), object_at(obj, "response")
        if "url" not in request:
            raise LineProblem("'request.url' is missing, expected the address the request went to")
        content = object_at(response, "content")
        body = content.get("text")
        if content.get("encoding") == "base64" and isinstance(body, str):
            try:
                body = b"".join(base64.b64decode(chunk, validate=False) for chunk in _base64_chunks(body))
            except (binascii.Error, ValueError) as exc:
                raise LineProblem(f"entry {line}: response.content.text is not valid base64 ({exc})") from exc
        status = response.get("status")
        exchange = Exchange(
            method=str(request.get("method") or ""), url=str(request.get("url") or ""),
            request_body=object_at(request, "postData").get("text"),
            request_type=str(object_at(request, "postData").get("mimeType") or "").lower(),
            status=status if isinstance(status, int) and status > 0 else None,
            response_body=body, response_type=str(content.get("mimeType") or "").lower(),
            response_headers=_headers(response), request_headers=_headers(request),
        )
        yield from self.reader.record(exchange, line)


def _headers(side: dict) -> dict[str, str]:
    """A request's or response's headers by lowercase name, each its first value (HAR lists them as name/value pairs)."""
    listed = side.get("headers")
    return {str(h["name"]).lower(): str(h["value"]) for h in reversed(listed if isinstance(listed, list) else [])
            if isinstance(h, dict) and isinstance(h.get("value"), (str, int)) and "name" in h}


def _base64_chunks(text: str) -> list[str]:
    """The base64 pieces of a body: Polly.JS's list of chunks (a JSON array of strings), or the text itself."""
    if text.lstrip().startswith("["):
        try:
            chunks = json.loads(text)
        except ValueError:
            return [text]
        if isinstance(chunks, list) and chunks and all(isinstance(chunk, str) for chunk in chunks):
            return chunks
    return [text]
