"""Azure SDK test-proxy recordings (the `SessionRecords` / `recordings` JSON files of openai-dotnet, of the Azure SDKs
for .NET, Python, JavaScript and Go, and of Azure/azure-sdk-assets): each recorded exchange that was a model call.

A recording is one JSON object, `{"Entries": [...], "Variables": {...}}`; lib/logs/documents.py hands this format one
entry at a time. Each entry is `RequestUri`, `RequestMethod`, `RequestHeaders`, `RequestBody`, `StatusCode`,
`ResponseHeaders` and `ResponseBody`. The proxy keeps a JSON body parsed, a text body as text or as the list of its
lines (each with its line ending: a streamed answer's server-sent events, a multipart form), and any other body as
base64 text; a body-less request as null.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem


def is_entry(obj: Any) -> bool:
    """Whether an object is one test-proxy entry: `RequestUri` and `RequestMethod` beside a `StatusCode` or a
    `ResponseBody` (names in Pascal case, which no other recorder writes)."""
    return isinstance(obj, dict) and isinstance(obj.get("RequestUri"), str) and "RequestMethod" in obj \
        and ("StatusCode" in obj or "ResponseBody" in obj)


class TestProxyFormat(ExchangeFormat):
    """One entry of an Azure SDK test-proxy recording: `RequestUri` and `RequestMethod` beside `StatusCode`."""

    __test__ = False  # pytest would take the class for a test suite by its name
    name = "test-proxy"
    detect_keys = frozenset({"RequestUri"})
    title = "Azure SDK test-proxy recording"
    reads = "an entry with 'RequestUri', 'RequestMethod' and 'StatusCode', in a recording's 'Entries'"

    def detect(self, obj: dict) -> str | None:
        if is_entry(obj):
            return "'RequestUri' and 'RequestMethod' beside 'StatusCode' (an Azure SDK test-proxy recording)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_entry(obj):
            raise LineProblem("is not a test-proxy entry ('RequestUri' and 'RequestMethod' beside 'StatusCode' or "
                              "'ResponseBody')")
        headers = first_values(obj.get("ResponseHeaders"))
        status = obj.get("StatusCode")
        exchange = Exchange(
            method=str(obj.get("RequestMethod") or ""), url=obj["RequestUri"],
            request_body=_body(obj.get("RequestBody")),
            status=status if isinstance(status, int) and not isinstance(status, bool) and status > 0 else None,
            response_body=_body(obj.get("ResponseBody")), response_type=headers.get("content-type", "").lower(),
            response_headers=headers,
        )
        yield from self.reader.record(exchange, line)


def _body(value: Any) -> Any:
    """A recorded body as the exchange reader takes it: a text body the proxy split into lines joined back (each line
    keeps its ending), anything else as recorded. A JSON array body is a list of other values and stays a list."""
    if isinstance(value, list) and value and all(isinstance(piece, str) for piece in value):
        return "".join(value)
    return value


def first_values(raw: Any) -> dict[str, str]:
    """Headers by lowercase name, each its first value: the proxy (and WireMock) writes one value per name, a list where
    there were several."""
    headers: dict[str, str] = {}
    if not isinstance(raw, dict):
        return headers
    for name, value in raw.items():
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            headers.setdefault(str(name).lower(), str(value))
    return headers
