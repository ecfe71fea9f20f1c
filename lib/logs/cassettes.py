"""VCR cassettes (vcrpy, pytest-recording, pydantic-ai's variant, the Datadog APM test agent's): each interaction
that was a model call.

A cassette is YAML (`interactions:` with a `request` and a `response` each); lib/logs/documents.py
loads it safely and hands this format one interaction at a time. Bodies come in the shapes the
recorders write: vcrpy's request `body` text and response `body: {string: ...}` (bytes, often gzip,
when the body was binary), pydantic-ai's `parsed_body`, and its `body: {type, content}`; vcrpy's httpx stub once wrote
the response as `status_code` and `content` (text). The Datadog APM
test agent's VCR proxy writes one interaction per `.json` file, its request under `url`, both bodies as text. Go's
go-vcr (`version: 1` and `version: 2` cassettes) writes the request under `url`, both bodies as text, and the
response's status twice: `status: "200 OK"` and `code: 200`. The test agent writes a binary body (one not UTF-8
text) as `base64:` and the bytes in base64. The `http_snapshot` pytest plugin (the Anthropic Python SDK's
`__inline_snapshot__` recordings) writes a JSON list of interactions, the request under `url`, the response's
`status_code`, `headers` and `body`, each body the parsed JSON (a stream's as its text).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Iterator

from lib.logs.chat_shape import object_at, require
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


AGENT_BINARY = "base64:"
"""What the Datadog test agent's cassette puts before a body it wrote in base64, the body not being UTF-8 text."""


class CassetteFormat(ExchangeFormat):
    """One cassette interaction: a recorded request with `uri` (the Datadog test agent: `url`) and `method`, and its
    response."""

    name = "vcr-cassette"
    detect_keys = frozenset({"request"})
    title = "VCR cassette"
    reads = "an interaction with 'request.uri' and 'response.status', in a cassette's 'interactions'"

    def detect(self, obj: dict) -> str | None:
        request, response = object_at(obj, "request"), object_at(obj, "response")
        if "method" in request and "uri" in request and "status" not in response and _httpx_status(response):
            return "an interaction with request.uri and response.status_code (vcrpy's older cassette of an httpx call)"
        if "method" in request and "url" in request and "status" not in response and _snapshot_status(response):
            return "an interaction with request.url and response.status_code beside the body (an http_snapshot " \
                   "recording)"
        if "method" not in request or "status" not in response:
            return None
        if "uri" in request:
            return "an interaction with request.uri and response.status (a VCR cassette)"
        if "url" in request and isinstance(response["status"], dict):  # a HAR entry's status is a number
            return "an interaction with request.url and response.status (the Datadog APM test agent's cassette)"
        if "url" in request and _go_vcr_status(response):
            return "an interaction with request.url and response.status and code (a go-vcr cassette)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        request, response = obj.get("request"), obj.get("response")
        if not isinstance(request, dict):
            return None
        if not isinstance(response, dict):
            return "the interaction has a request and no response (a cassette cut short ends so)"
        if "status" not in response and not _httpx_status(response) and not _snapshot_status(response):
            return "the interaction's response has no status"
        return None if "method" in request else "the interaction's request has no method"

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        # Detection asks for these; a format chosen by hand must too, or any object is "not a model call".
        request, response = require(obj, "request", dict), object_at(obj, "response")
        if "uri" not in request and "url" not in request:
            raise LineProblem("'request.uri' is missing (nor the Datadog test agent's 'request.url'), expected the "
                              "address the request went to")
        status = response.get("status", response.get("status_code"))
        code = status.get("code") if isinstance(status, dict) else response["code"] if _go_vcr_status(response) else status
        # The Datadog test agent's cassette names the address `url`, as go-vcr's does, but says its status once.
        agent = "uri" not in request and not _go_vcr_status(response)
        # http_snapshot keeps each body as it was parsed: a Messages answer's own `content` is no wrapper of it.
        snapshot = "uri" not in request and "status" not in response and _snapshot_status(response)
        exchange = Exchange(
            method=str(request.get("method") or ""), url=str(request.get("uri") or request.get("url") or ""),
            request_body=request.get("body") if snapshot else _body(request, agent),
            status=code if isinstance(code, int) else None,
            response_body=response.get("body") if snapshot else _body(response, agent),
            response_type=_header(response, "content-type"),
            response_headers=_headers(response), request_type=_header(request, "content-type"),
            request_headers=_headers(request),
        )
        yield from self.reader.record(exchange, line)


def _httpx_status(response: dict) -> bool:
    """Whether a response is in the shape vcrpy's httpx stub once wrote: `status_code` and `content` (the body as
    text), `http_version`, headers as plain values, where its other stubs write `status: {code, message}` and `body`."""
    code = response.get("status_code")
    return isinstance(code, int) and not isinstance(code, bool) and "content" in response


def _snapshot_status(response: dict) -> bool:
    """Whether a response is in the shape the `http_snapshot` pytest plugin writes (the Anthropic Python SDK's
    `__inline_snapshot__` recordings): `status_code` beside `headers` and `body`, the body the parsed JSON or the text
    of a stream."""
    code = response.get("status_code")
    return isinstance(code, int) and not isinstance(code, bool) and "body" in response and "headers" in response


def _go_vcr_status(response: dict) -> bool:
    """Whether a response keeps its status as go-vcr writes it: the status line's text (`"200 OK"`) beside the number
    under `code`."""
    code = response.get("code")
    return isinstance(response.get("status"), str) and isinstance(code, int) and not isinstance(code, bool)


def _body(side: dict, agent: bool = False) -> Any:
    """A request's or response's body in whichever shape the recorder wrote it (`agent`: the Datadog test agent's,
    which writes a body that is not UTF-8 text, as AWS's binary event stream is, as `base64:` and its bytes in
    base64)."""
    if agent and isinstance(body := side.get("body"), str) and body.startswith(AGENT_BINARY):
        try:
            return base64.b64decode(body[len(AGENT_BINARY):], validate=True)
        except (binascii.Error, ValueError):
            return body  # not base64 after all: the text as written
    if "parsed_body" in side:
        return side["parsed_body"]
    if "body" not in side and _httpx_status(side):
        return side["content"]
    body = side.get("body")
    if isinstance(body, dict):
        if "string" in body:
            return body["string"]
        if "content" in body:
            return body["content"]
    return body


def _headers(side: dict) -> dict[str, str]:
    """Every header's first value, by lowercase name; headers are recorded as lists of values, keys in any case."""
    headers = {}
    for key, value in object_at(side, "headers").items():
        first = value[0] if isinstance(value, list) and value else value
        if isinstance(first, (str, int)):
            headers.setdefault(str(key).lower(), str(first))
    return headers


def _header(side: dict, name: str) -> str:
    """A header's first value, lowercase; headers are recorded as lists of values, keys in any case."""
    for key, value in object_at(side, "headers").items():
        if str(key).lower() == name:
            first = value[0] if isinstance(value, list) and value else value
            return str(first).lower()
    return ""
