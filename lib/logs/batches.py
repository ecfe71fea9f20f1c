"""Batch files: requests on one side, results on the other, joined on `custom_id`.

The two halves may sit in two files fed one after the other, and results come in any order, so
each half waits for its partner. Every call is yielded at the end, in the order its request was read (a result
without its request after them all, in the order read): the calls, and so the conversations rebuilt from them, are the
same whichever file is given first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from lib.dialects import ANTHROPIC, OPENAI
from lib.logs.chat_shape import as_int, describe, object_at, require
from lib.logs.record import CallRecord, LineProblem, LogFormat

SUPPORTED_URLS = ("/v1/chat/completions", "/chat/completions")
"""OpenAI batch endpoints whose bodies are Chat Completions."""

ANTHROPIC_ERROR_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "billing_error": 402, "permission_error": 403,
    "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
    "overloaded_error": 529,
}
"""The HTTP status Anthropic sends with each error type; a batch result has the type only."""

UNRUN_RESULTS = {
    "canceled": "canceled: the batch was canceled before this request was run",
    "expired": "expired: the batch ran out of time (24 hours) before this request was run",
}
"""Why a request of a Message Batch never got a response."""


@dataclass
class _Half:
    """One side of a call, waiting for its partner."""

    line: int
    """The line it came from."""
    value: Any
    """The request body, or the result as the subclass keeps it."""


class _BatchJoin(LogFormat):
    """What both batch formats share: join request and result lines on custom_id, in any order."""

    dialect: str
    """The dialect the bodies are in."""

    def __init__(self) -> None:
        self._requests: dict[str, _Half] = {}
        self._results: dict[str, _Half] = {}
        self._joined: set[str] = set()
        self._calls: list[tuple[int, CallRecord]] = []
        """The calls joined so far, each with the place its request was read in (_read), yielded at the end in that
        order: yielded as their second half came, the results' order would decide which request a conversation went
        on from, when the result file is given first."""
        self._read: dict[str, int] = {}
        """Per custom_id, the place among the requests that its request was read in."""

    def _arrive(self, custom_id: str, line: int, value: Any, *, is_request: bool) -> Iterator[CallRecord]:
        """Keep one half; yield the call once its partner is here too."""
        mine, others = (self._requests, self._results) if is_request else (self._results, self._requests)
        if custom_id in mine or custom_id in self._joined:
            side = "request" if is_request else "result"
            raise LineProblem(f"custom_id {custom_id!r} is on a second {side} line; only the first one counts")
        if is_request:
            self._read[custom_id] = len(self._read)
        partner = others.pop(custom_id, None)
        if partner is None:
            mine[custom_id] = _Half(line, value)
            return
        self._joined.add(custom_id)
        # Said on the request's line, the result's joined to it: in whichever order the files came.
        (request, asked), (result, answered) = ((value, line), (partner.value, partner.line)) if is_request \
            else ((partner.value, partner.line), (value, line))
        self._calls.append((self._read[custom_id], self._record(asked, custom_id, request, result, answered)))
        yield from ()

    def _record(self, line: int, custom_id: str, request: dict | None, result: Any,
                joined: int | None = None) -> CallRecord:
        """The call; `result` is the (response, error) pair the subclass checked on arrival; `joined` the line of the
        half that arrived second."""
        response, error = result if result is not None else (None, None)
        return CallRecord(line=line, dialect=self.dialect, request=request, response=response, error=error,
                          name=custom_id, joined_line=joined)

    def finish(self) -> Iterator[CallRecord]:
        # A request without its result is request-only, in its request's place; a result without its request is
        # response-only, after every request, in the order the results were read.
        calls = self._calls + [(self._read[cid], self._record(h.line, cid, h.value, None))
                               for cid, h in self._requests.items()]
        calls += [(len(self._read) + place, self._record(h.line, cid, None, h.value))
                  for place, (cid, h) in enumerate(self._results.items())]
        self._requests, self._results, self._calls, self._read = {}, {}, [], {}
        for _, record in sorted(calls, key=lambda call: call[0]):
            yield record


def _custom_id(obj: dict) -> str:
    """The id that joins a request to its result."""
    value = obj.get("custom_id")
    if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
        return str(value)
    raise LineProblem(f"'custom_id' is {describe(value)}, expected the request's id")


# --- OpenAI Batch API ----------------------------------------------------------------------------


class OpenAIBatchFormat(_BatchJoin):
    """OpenAI Batch input lines `{custom_id, method, url, body}` and output lines `{custom_id, response, error}`."""

    name = "openai-batch"
    title = "OpenAI Batch"
    reads = "a 'custom_id' with a '/v1/chat/completions' body, or a batch output line"
    dialect = OPENAI

    def __init__(self) -> None:
        super().__init__()
        self._unsupported: dict[str, str] = {}

    def detect(self, obj: dict) -> str | None:
        if "custom_id" not in obj:
            return None
        if all(k in obj for k in ("method", "url", "body")):
            return "custom_id with method, url and body (a Batch input line)"
        response = obj.get("response")
        if "response" in obj and ("error" in obj or isinstance(response, dict) and "status_code" in response):
            return "custom_id with a response and an error field (a Batch output line)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        custom_id = _custom_id(obj)
        if "url" in obj or "body" in obj:
            body = self._input(custom_id, obj)
            yield from self._arrive(custom_id, line, body, is_request=True)
        else:
            if custom_id in self._unsupported:
                raise LineProblem(f"answers request {custom_id!r} to {self._unsupported[custom_id]}, which is not supported")
            yield from self._arrive(custom_id, line, _output(obj), is_request=False)

    def _input(self, custom_id: str, obj: dict) -> dict:
        """An input line's body, once its url is one we can read."""
        url = require(obj, "url", str)
        if url.split("?")[0].rstrip("/") not in SUPPORTED_URLS:
            self._unsupported[custom_id] = url
            self._results.pop(custom_id, None)
            raise LineProblem(f"url {url!r} is not supported; only /v1/chat/completions requests can be read")
        body = require(obj, "body", dict)
        require(body, "messages", list, "body ")
        return body


def _output(obj: dict) -> tuple[dict | None, dict | None]:
    """(response body, None) for a success, (None, error) for a failure, checked at once."""
    response, error = obj.get("response"), obj.get("error")
    if response is not None and not isinstance(response, dict):
        raise LineProblem(f"'response' is {describe(response)}, expected an object or null")
    if error is not None and not isinstance(error, dict):
        raise LineProblem(f"'error' is {describe(error)}, expected an object or null")
    status = as_int((response or {}).get("status_code"))
    body = (response or {}).get("body")
    if error is None and response is None:
        raise LineProblem("'response' and 'error' are both null")
    if error is not None or status is None or status >= 400:
        inner = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else error or {}
        message = str(inner.get("message") or (f"HTTP {status}" if status else "the request failed"))
        return None, {"status": status, "body": body if body is not None else error, "message": message}
    if not isinstance(body, dict):
        raise LineProblem(f"response 'body' is {describe(body)}, expected the chat.completion object")
    if body.get("object", "chat.completion") != "chat.completion":
        raise LineProblem(f"response body is a {body.get('object')!r}; only chat.completion bodies can be read")
    return body, None


# --- Anthropic Message Batches -------------------------------------------------------------------


class AnthropicBatchFormat(_BatchJoin):
    """Message Batches request lines `{custom_id, params}` and result lines `{custom_id, result}`."""

    name = "anthropic-batch"
    title = "Anthropic Message Batches"
    reads = "a 'custom_id' with 'params', or a 'result' line"
    dialect = ANTHROPIC

    def detect(self, obj: dict) -> str | None:
        if "custom_id" not in obj:
            return None
        if isinstance(obj.get("result"), dict) and "type" in obj["result"]:
            return "custom_id with a result (a Message Batches result line)"
        if isinstance(obj.get("params"), dict):
            return "custom_id with params (a Message Batches request)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        custom_id = _custom_id(obj)
        if "params" in obj:
            params = require(obj, "params", dict)
            require(params, "messages", list, "params ")
            yield from self._arrive(custom_id, line, params, is_request=True)
        else:
            yield from self._arrive(custom_id, line, _result(require(obj, "result", dict)), is_request=False)


def _result(result: dict) -> tuple[dict | None, dict | None]:
    """(message, None) for a succeeded request, (None, error) for the other three outcomes."""
    kind = result.get("type")
    if kind == "succeeded":
        return require(result, "message", dict, "result "), None
    if isinstance(kind, str) and kind in UNRUN_RESULTS:
        return None, {"status": None, "body": result, "message": UNRUN_RESULTS[kind]}
    if kind == "errored":
        # result.error is an error response: {"type": "error", "error": {"type", "message"}}.
        outer = object_at(result, "error")
        inner = outer.get("error") if isinstance(outer.get("error"), dict) else outer
        message = f"errored: {inner.get('message') or inner.get('type') or 'no reason given'}"
        return None, {"status": ANTHROPIC_ERROR_STATUS.get(str(inner.get("type"))), "body": result, "message": message}
    raise LineProblem(f"result 'type' is {kind!r}; expected succeeded, errored, canceled or expired")
