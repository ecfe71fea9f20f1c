"""Go's httprr traces (`httprr trace v1`, rsc.io/httprr and its copies: langchaingo's `testdata/*.httprr`): each
recorded exchange that was a model call.

A trace is text: the line `httprr trace v1`, then for each exchange a line of two byte counts, `n1 n2`, and that many
bytes of the request and of the response as they went on the wire (Go's `Request.Write` and `Response.Write`: a
request line or status line, headers, a blank line, the body). Recorders scrub headers line by line, so a line may end
in `\\n` where its neighbours end in `\\r\\n`. A body sent with `Transfer-Encoding: chunked` (Ollama's answers) is
written in its chunks. lib/logs/documents.py cuts the trace by its counts (`exchanges`) and hands this format one
exchange at a time.
"""

from __future__ import annotations

import re
from typing import Iterator

from lib.logs.exchanges import Exchange, ExchangeFormat
from lib.logs.record import CallRecord, LineProblem

HEADER = b"httprr trace v1"
"""The first line of every httprr trace."""

REQUEST_KEY, RESPONSE_KEY = "httprr_request", "httprr_response"
"""Where an exchange cut out of a trace holds the request's and the response's bytes as recorded."""

COUNTS = re.compile(rb"(\d+) (\d+)\r?\n")
"""The line before each exchange: the request's and the response's length in bytes."""

REQUEST_LINE = re.compile(rb"[A-Z]+ \S+ HTTP/")
"""How a recorded request begins: its method, its address and its version."""

STATUS_LINE = re.compile(r"HTTP/\d(?:\.\d)? (\d{3})\b")
"""A response's first line: `HTTP/2.0 200 OK`."""

UNIT = "exchange"
"""What one element of a trace is called in the upload's summary."""


def is_trace(data: bytes) -> bool:
    """Whether a file is an httprr trace: its first line says so."""
    return data.startswith(HEADER) and data[len(HEADER):len(HEADER) + 2].lstrip(b"\r")[:1] == b"\n"


def exchanges(data: bytes, limit: int) -> Iterator[tuple[int, dict | str]]:
    """The trace's exchanges, numbered from 1, each its request's and response's bytes; where the counts are
    damaged, one problem, and nothing after it (the counts are the only way to the next exchange)."""
    at = data.index(b"\n") + 1
    number = 0
    while at < len(data):
        if not data[at:].strip():  # a line end an editor or a hook added after the last exchange
            return
        number += 1
        counts = COUNTS.match(data, at)
        if counts is None:
            line = data[at:at + 40].split(b"\n", 1)[0].decode("utf-8", "replace")
            yield number, (f"is not an exchange's line of two byte counts ({line!r}), so the trace is damaged here "
                           f"and nothing after it can be read")
            return
        sent, answered = int(counts.group(1)), int(counts.group(2))
        start = counts.end()
        if start + sent + answered > len(data):
            yield number, (f"says its request and response take {sent + answered:,} bytes, but the file ends "
                           f"{len(data) - start:,} bytes after it: the trace was cut short")
            return
        at = start + sent + answered
        if not (REQUEST_LINE.match(data, start) and data.startswith(b"HTTP/", start + sent)):
            yield number, ("has byte counts that do not fall on its request and its response: the file was changed "
                           "after it was recorded (its line ends turned from CRLF to LF or back, as an editor or "
                           "git's autocrlf does, or an edit by hand), and httprr counts every byte, so neither this "
                           "exchange nor those after it can be cut out")
            return
        if sent + answered > limit:
            yield number, f"is too large ({sent + answered:,} bytes; the limit is {limit:,})"
            continue
        yield number, {REQUEST_KEY: data[start:start + sent], RESPONSE_KEY: data[start + sent:at]}


class HttprrFormat(ExchangeFormat):
    """One exchange of a Go httprr trace: a request and a response as written on the wire."""

    name = "httprr"
    detect_keys = frozenset({REQUEST_KEY})
    title = "httprr trace (Go)"
    reads = "a file whose first line is 'httprr trace v1', then each exchange's bytes"

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get(REQUEST_KEY), bytes) and isinstance(obj.get(RESPONSE_KEY), bytes):
            return "a file that opens with 'httprr trace v1' (Go's record and replay)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        request, response = obj.get(REQUEST_KEY), obj.get(RESPONSE_KEY)
        if not isinstance(request, bytes) or not isinstance(response, bytes):
            raise LineProblem("is not an exchange of an httprr trace (a file that opens with 'httprr trace v1')")
        first, request_headers, request_body = _message(request, "request")
        parts = first.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise LineProblem(f"the request's first line is {first!r}, expected a method, an address and a version")
        status_line, headers, body = _message(response, "response")
        status = STATUS_LINE.match(status_line)
        if status is None:
            raise LineProblem(f"the response's first line is {status_line!r}, expected a status line "
                              "such as 'HTTP/1.1 200 OK'")
        exchange = Exchange(
            method=parts[0], url=parts[1], request_body=request_body, status=int(status.group(1)),
            response_body=body, response_type=headers.get("content-type", "").lower(), response_headers=headers,
        )
        yield from self.reader.record(exchange, line)


def _message(wire: bytes, side: str) -> tuple[str, dict[str, str], bytes]:
    """A request's or response's first line, its headers (each its first value, by lowercase name) and its body,
    unchunked where it was sent in chunks."""
    at = wire.find(b"\n") + 1 or len(wire)
    first = wire[:at].rstrip(b"\r\n").decode("utf-8", "replace")
    headers: dict[str, str] = {}
    while at < len(wire):
        end = wire.find(b"\n", at)
        end = len(wire) if end < 0 else end
        text = wire[at:end].rstrip(b"\r").decode("utf-8", "replace")
        at = end + 1
        if not text:  # the blank line before the body
            break
        name, colon, value = text.partition(":")
        if not colon:
            raise LineProblem(f"the {side}'s header line {text[:60]!r} has no ':'")
        headers.setdefault(name.strip().lower(), value.strip())
    body = wire[at:]
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunked(body, side)
    return first, headers, body


def _unchunked(body: bytes, side: str) -> bytes:
    """A chunked body's bytes joined: each chunk is its size in hexadecimal on a line, the bytes, and a line end; a
    chunk of size 0 ends it."""
    pieces, at = [], 0
    while at < len(body):
        end = body.find(b"\n", at)
        if end < 0:
            break
        size_text = body[at:end].rstrip(b"\r").split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise LineProblem(f"the {side}'s body is sent in chunks, but {size_text[:20]!r} is no chunk size") \
                from None
        if size == 0:
            break
        pieces.append(body[end + 1:end + 1 + size])
        at = end + 1 + size
        at += 2 if body[at:at + 2] == b"\r\n" else 1 if body[at:at + 1] == b"\n" else 0
    return b"".join(pieces)
