"""httpmock recordings (Rust's HTTP mocking crate, `MockServer::record` and `Recording::save_to`; rig's
`tests/cassettes`): each recorded exchange that was a model call.

A recording is a YAML stream of one document per exchange, separated by `---`; lib/logs/documents.py loads it safely
and hands this format one document at a time. Each document is the mock httpmock would serve it as: `when` the request
(`method`, `path`, `query_param` and `header` as lists of `{name, value}`, `body` as text) and `then` the answer
(`status`, `header`, `body` as text: JSON, or a stream's server-sent events; rig's recorder marks a body that is no
UTF-8 text, such as AWS's binary event stream, `body_encoding: base64`, and httpmock's own mocks may hold one as
`body_base64` or `json_body`). The path is recorded, not the host, so the API is told by its path and its body.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Iterator
from urllib.parse import urlencode

from lib.logs.chat_shape import describe
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


def is_exchange(document: Any) -> bool:
    """Whether a YAML document is an httpmock exchange: a `when` with a `path` beside a `then`."""
    return isinstance(document, dict) and isinstance(document.get("when"), dict) \
        and isinstance(document.get("then"), dict) and "path" in document["when"]


class HttpmockFormat(ExchangeFormat):
    """One httpmock exchange: a `when` (the request) beside a `then` (the answer)."""

    name = "httpmock"
    detect_keys = frozenset({"when"})
    title = "httpmock recording (Rust)"

    def detect(self, obj: dict) -> str | None:
        if is_exchange(obj):
            return "a 'when' with a 'path' beside a 'then' (an httpmock recording)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if isinstance(obj.get("when"), dict) and not isinstance(obj.get("then"), dict):
            return "the exchange has a 'when' (the request) and no 'then' (the answer)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_exchange(obj):
            raise LineProblem("is not an httpmock exchange (a 'when' with a 'path' beside a 'then')")
        when, then = obj["when"], obj["then"]
        path = when.get("path")
        if not isinstance(path, str):
            raise LineProblem(f"'when.path' is {describe(path)}, expected the path the request went to")
        query = _pairs(when.get("query_param"), "when.query_param")
        headers = dict(reversed([(name.lower(), value) for name, value in _pairs(then.get("header"), "then.header")]))
        status = then.get("status")
        exchange = Exchange(
            method=str(when.get("method") or ""), url=path + (f"?{urlencode(query)}" if query else ""),
            request_body=_body(when, "when"), status=status if isinstance(status, int) and
            not isinstance(status, bool) else None,
            response_body=_body(then, "then"), response_type=headers.get("content-type", "").lower(),
            response_headers=headers,
        )
        yield from self.reader.record(exchange, line)


def _pairs(value: Any, where: str) -> list[tuple[str, str]]:
    """A list of `{name, value}` (query parameters, headers) as pairs of text; none when the mock has none."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise LineProblem(f"'{where}' is {describe(value)}, expected a list of {{name, value}}")
    pairs = []
    for entry in value:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            pairs.append((entry["name"], "" if entry.get("value") is None else str(entry["value"])))
    return pairs


def _body(side: dict, where: str) -> Any:
    """A request's or answer's body as the exchange reader takes it: text, parsed JSON, bytes, or None."""
    if side.get("body_encoding") == "base64" and isinstance(side.get("body"), str):
        return _decoded(side["body"], f"{where}.body")  # rig's mark on a body that is not UTF-8 (AWS's event streams)
    if side.get("body") is not None:
        return side["body"]
    if side.get("json_body") is not None:
        body = side["json_body"]
        return body if isinstance(body, (dict, list)) else json.dumps(body)
    if isinstance(side.get("body_base64"), str):
        return _decoded(side["body_base64"], f"{where}.body_base64")
    return None


def _decoded(text: str, where: str) -> bytes:
    """A body written in base64, as its bytes."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise LineProblem(f"'{where}' is marked base64 but is not base64 ({exc})") from exc
