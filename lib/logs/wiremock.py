"""WireMock stub mappings (the JSON files under a WireMock `mappings/` folder, written by its recorder or by hand): each
stub whose answer is a model call's.

A mapping file is one stub, `{"request": {...}, "response": {...}}`, or several, `{"mappings": [...]}` (what
`/__admin/mappings` returns); lib/logs/documents.py hands this format one stub at a time. The request is a matcher,
not the request sent: `method`, the address as `url`, `urlPath`, or a pattern (`urlPattern`, `urlPathPattern`, a
regular expression; `urlPathTemplate`), and the body as `bodyPatterns`, of which an `equalToJson` holds the JSON the
request had to equal (the recorder writes the whole body sent there; `ignoreExtraElements` lets a request hold more).
The response is the answer: `status`, `headers`, and the body as `jsonBody` (parsed), `body` (text) or `base64Body`.
A body kept in a file of its own (`bodyFileName`, under `__files/`) is not in the mapping.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterator

from lib.intern import loads_exact
from lib.logs.chat_shape import describe
from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem, Problem
from lib.logs.test_proxy import first_values
from lib.text import plural

ADDRESS_KEYS = ("url", "urlPath", "urlPathTemplate", "urlPattern", "urlPathPattern")
"""Where a stub's request names its address, the exact ones first."""
_ESCAPE = re.compile(r"\\(.)")
"""A regular expression's escaped character (`\\?`, `\\.`): a pattern's address is read with it as the character."""

PARTIAL_NOTE = ("{stubs} {verb} the request body as a pattern with 'ignoreExtraElements': a request sent with more "
                "in it matched too, so what is shown is what the stub required, and may not be all the program sent")
"""Said of the stubs whose request body is no more than what a request had to hold."""


def is_stub(obj: Any) -> bool:
    """Whether an object is one stub mapping: a `request` with a `method` and an address beside a `response`. A stub
    matches a path (`/v1/...`, or a pattern) and a body by `bodyPatterns`: a request with a `body`, or with an address
    that is no path (`https://...`), is another recorder's exchange."""
    request, response = obj.get("request"), obj.get("response")
    if not (isinstance(request, dict) and isinstance(response, dict) and isinstance(request.get("method"), str)) \
            or "body" in request:
        return False
    for key in ADDRESS_KEYS:
        value = request.get(key)
        if isinstance(value, str):
            return value.startswith("/") or key.endswith("Pattern")
    return False


class WireMockFormat(ExchangeFormat):
    """One WireMock stub mapping: a `request` matcher (`method`, `url`...) beside its `response`."""

    name = "wiremock"
    detect_keys = frozenset({"request"})
    title = "WireMock stub mapping"
    reads = "a stub with a 'request' ('method' and 'url', 'urlPath' or a pattern) beside its 'response'"

    def __init__(self) -> None:
        super().__init__()
        self.partial: list[int] = []
        """The stubs whose request body lets a request hold more than it (`ignoreExtraElements`)."""

    def detect(self, obj: dict) -> str | None:
        if is_stub(obj):
            return "a 'request' with 'method' and a URL matcher beside a 'response' (a WireMock stub mapping)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_stub(obj):
            raise LineProblem("is not a WireMock stub (a 'request' with 'method' and 'url' beside a 'response')")
        request, response = obj["request"], obj["response"]
        headers = first_values(response.get("headers"))
        body, partial = _request_body(request.get("bodyPatterns"))
        exchange = Exchange(
            method=str(request.get("method") or ""), url=_address(request), request_body=body,
            status=_status(response.get("status")), response_body=_response_body(response),
            response_type=headers.get("content-type", "").lower(), response_headers=headers,
        )
        records = list(self.reader.record(exchange, line))
        if records and partial:
            self.partial.append(line)
        yield from records

    def notes(self) -> list[Problem]:
        notes = super().notes()
        if self.partial:
            stubs = plural(len(self.partial), "stub")
            verb = "holds" if len(self.partial) == 1 else "hold"
            notes.append(Problem(self.partial[0], PARTIAL_NOTE.format(stubs=stubs, verb=verb), loaded=True))
        return notes


def _address(request: dict) -> str:
    """The request's address as written; a pattern's escaped characters taken as themselves and its anchors left out."""
    for key in ADDRESS_KEYS:
        value = request.get(key)
        if isinstance(value, str):
            return _ESCAPE.sub(r"\1", value.strip("^$")) if key.endswith("Pattern") else value
    return ""


def _request_body(patterns: Any) -> tuple[Any, bool]:
    """The JSON a request had to equal (its first `equalToJson`, an object or its text), or the text of an `equalTo`;
    and whether a request could hold more than it. None when the stub names no body."""
    for pattern in patterns if isinstance(patterns, list) else ():
        if not isinstance(pattern, dict):
            continue
        if "equalToJson" in pattern:
            value = pattern["equalToJson"]
            if isinstance(value, str):
                try:
                    value = loads_exact(value)
                except ValueError as exc:
                    raise LineProblem(f"the request's 'equalToJson' is not valid JSON ({exc})") from exc
            return value, pattern.get("ignoreExtraElements") is True
        if isinstance(pattern.get("equalTo"), str):
            return pattern["equalTo"], False
    return None, False


def _response_body(response: dict) -> Any:
    """The answer's body: `jsonBody` parsed, `body` as text, `base64Body` as its bytes; LineProblem for a body kept in
    a file of its own, which the mapping does not hold."""
    if "jsonBody" in response:
        return response["jsonBody"]
    if isinstance(response.get("body"), str):
        return response["body"]
    if isinstance(response.get("base64Body"), str):
        try:
            return base64.b64decode(response["base64Body"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise LineProblem(f"the response's 'base64Body' is not base64 ({exc})") from exc
    name = response.get("bodyFileName")
    if name is not None:
        said = repr(name) if isinstance(name, str) else describe(name)
        raise LineProblem(f"the answer's body is in a file of its own ('bodyFileName' {said}, under __files/), "
                          "which is not in this mapping")
    return None


def _status(value: Any) -> int | None:
    """The answer's status code; WireMock's default is 200 when a stub names none."""
    if value is None:
        return 200
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return int(value) if isinstance(value, str) and value.isdecimal() else None

