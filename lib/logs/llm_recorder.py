"""Mastra's LLM recordings (`@internal/llm-recorder`, MSW-based: the `__recordings__/<name>.json` files of Mastra's
tests): each recorded exchange that was a model call.

A recording file is `{"meta": {...}, "recordings": [...]}`, or, as older files are, the list of recordings alone;
lib/logs/documents.py hands this format one recording at a time. Each is a `request` (`url`, `method`, `body` as the
parsed JSON that was sent) and a `response` (`status`, `headers`, and either `body`, the parsed JSON or text of an
answer, or `chunks`, the pieces of a streamed answer as they arrived, `isStreaming` saying which). The chunks are
joined in order: a piece may end inside one server-sent event and the next piece finish it.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.logs.chat_shape import describe, object_at
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


def is_recording(obj: Any) -> bool:
    """Whether an object is one recording: a request's `url` and `method` beside a response's `status` and
    `isStreaming` (the flag no other recorder writes)."""
    if not isinstance(obj, dict):
        return False
    request, response = object_at(obj, "request"), object_at(obj, "response")
    return "url" in request and "method" in request and "status" in response and "isStreaming" in response


class LlmRecorderFormat(ExchangeFormat):
    """One recording of Mastra's LLM recorder: `request.url` beside `response.status` and `response.isStreaming`."""

    name = "llm-recorder"
    detect_keys = frozenset({"request"})
    title = "Mastra LLM recording"

    def detect(self, obj: dict) -> str | None:
        if is_recording(obj):
            return "a request's 'url' and 'method' beside a response's 'status' and 'isStreaming' (a Mastra LLM " \
                   "recording)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_recording(obj):
            raise LineProblem("is not a recording of Mastra's LLM recorder (a request's 'url' and 'method' beside a "
                              "response's 'status' and 'isStreaming')")
        request, response = obj["request"], obj["response"]
        chunks = response.get("chunks")
        if chunks is not None:
            if not isinstance(chunks, list) or not all(isinstance(chunk, str) for chunk in chunks):
                raise LineProblem(f"'response.chunks' is {describe(chunks)}, expected the streamed answer's pieces "
                                  "as a list of text")
            body: Any = "".join(chunks)
        else:
            body = response.get("body")
        headers = {str(name).lower(): str(value) for name, value in object_at(response, "headers").items()
                   if isinstance(value, (str, int))}
        status = response.get("status")
        exchange = Exchange(
            method=str(request.get("method") or ""), url=str(request.get("url") or ""),
            request_body=request.get("body"),
            status=status if isinstance(status, int) and not isinstance(status, bool) and status > 0 else None,
            response_body=body, response_type=headers.get("content-type", "").lower(), response_headers=headers,
        )
        yield from self.reader.record(exchange, line)
