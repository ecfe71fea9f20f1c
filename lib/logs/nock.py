"""nock recordings (Node.js's HTTP recorder: `nock.recorder.rec({output_objects: true})`, nock back's fixture files):
each recorded call that was a model call.

A recording is one JSON array (lib/logs/documents.py hands this format one element at a time), each element one
exchange: `scope` (scheme, host and port) and `path` make the address, `method`, `body` the request (parsed JSON or
text), `status`, `response` the answer (parsed JSON or text; for a body nock took for binary, `responseIsBinary`, its
bytes written as hexadecimal: AWS's event streams), `rawHeaders` the response headers (a flat name, value list).
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


class NockFormat(ExchangeFormat):
    """One nock-recorded exchange: `scope`, `method` and `path` beside its `status` or `response`."""

    name = "nock"
    detect_keys = frozenset({"scope"})
    title = "nock recording (Node.js HTTP)"
    reads = "a recorded exchange: 'scope', 'method' and 'path' beside its 'status' and 'response'"

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("scope"), str) and isinstance(obj.get("path"), str) and "method" in obj \
                and ("response" in obj or "status" in obj):
            return "'scope', 'method' and 'path' beside the response (a nock recording)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        scope, path = obj.get("scope"), obj.get("path")
        if not isinstance(scope, str) or not isinstance(path, str):
            raise LineProblem("'scope' and 'path' must be text, the address the request went to")
        response = obj.get("response")
        if obj.get("responseIsBinary") is True and isinstance(response, str):
            try:
                response = bytes.fromhex(response)
            except ValueError as exc:
                raise LineProblem(f"element {line}: 'response' is marked binary but is not hexadecimal ({exc})") \
                    from exc
        headers = _headers(obj.get("rawHeaders"))
        exchange = Exchange(
            method=str(obj.get("method") or ""), url=scope.rstrip("/") + path,
            request_body=obj.get("body"), status=_status(obj.get("status")),
            response_body=response, response_type=headers.get("content-type", "").lower(),
            response_headers=headers,
        )
        yield from self.reader.record(exchange, line)


def _status(value: Any) -> int | None:
    """The recorded status code: nock writes a number; a digit string is taken too."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    return int(value) if isinstance(value, str) and value.isdigit() else None


def _headers(raw: Any) -> dict[str, str]:
    """The response headers by lowercase name, each its first value: nock keeps them as a flat list of names and
    values (`rawHeaders`), older recordings as an object."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(raw, list):
        pairs = list(zip(raw[::2], raw[1::2]))
    elif isinstance(raw, dict):
        pairs = list(raw.items())
    headers: dict[str, str] = {}
    for name, value in pairs:
        if isinstance(name, str) and isinstance(value, (str, int)) and name.lower() not in headers:
            headers[name.lower()] = str(value)
    return headers

