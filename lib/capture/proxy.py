"""The recording proxy: an ASGI app (Starlette) that forwards every request to the provider with
httpx2, the SDKs' own HTTP client, and appends each Chat Completions, Responses or Messages call
to the capture file as a request/response pair line (lib/logs/pairs.py reads it).

The client's headers, credentials included, go to the upstream untouched. Of them only the few on lib.model.KEPT_HEADERS,
which switch provider features on and hold no secret (`anthropic-beta`, `OpenAI-Beta`), are recorded beside the two
bodies, the status, the latency and the time; a value that looks like a credential is dropped even there. Streamed
responses are passed on chunk by chunk as they arrive and recorded once the stream ends. An
upstream failure reaches the client as the client would have seen it without the proxy, and is
recorded as an error round. A body over MAX_BODY is refused while it arrives, never held whole: a request
is answered 413 unforwarded, a response 502, a stream is dropped for the client at the limit.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable
from urllib.parse import urlsplit

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from lib.capture.assemble import assembled, sse_events
from lib.capture.files import CaptureFile
from lib.capture.otlp import MAX_BODY, TooLarge, at_most, receive_traces
from lib.model import shaping_headers

RECORDED = (("/chat/completions", "openai"), ("/responses", "responses"), ("/messages", "anthropic"))
"""Path endings of the calls the proxy records, and the API each one speaks."""

HOP_BY_HOP = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "trailer",
              "upgrade", "proxy-authorization", "proxy-connection", "accept-encoding"}
"""Headers that describe one connection, not the call: never forwarded as they are."""

CREDENTIAL_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key")
"""Request headers whose values are secrets: scrubbed from anything the proxy records."""


@dataclass(frozen=True)
class Upstreams:
    """Where calls go: Anthropic's API for requests that carry `anthropic-version`, the other for the rest."""

    openai: str
    """The root URL of the OpenAI or OpenAI-compatible server, e.g. https://api.openai.com."""
    anthropic: str
    """The root URL of the Anthropic API."""

    def for_request(self, headers) -> str:
        """The upstream root a request goes to."""
        return self.anthropic if "anthropic-version" in headers else self.openai


@dataclass(frozen=True)
class Call:
    """One request on its way through, and what the record of it needs."""

    api: str | None
    """The recorded API it speaks (openai, responses, anthropic), None for a pass-through."""
    body: bytes
    """The request body as the client sent it."""
    secrets: tuple[str, ...]
    """The client's credentials, to be scrubbed from the record."""
    started: float
    """time.perf_counter() when the request arrived."""
    timestamp: str
    """When the request arrived, ISO 8601 UTC."""
    headers: dict = field(default_factory=dict)
    """The request's headers that shape the call, names in lower case (lib.model.shaping_headers): recorded as
    `request_headers`."""


def root_url(url: str) -> str:
    """The server root of a base URL: `https://api.openai.com/v1/` and `https://api.openai.com` both
    give `https://api.openai.com`, since the client's paths already start with /v1."""
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def api_of(method: str, path: str) -> str | None:
    """The API a request speaks when the proxy records it, None when it only passes through."""
    if method != "POST":
        return None
    return next((api for ending, api in RECORDED if path.rstrip("/").endswith(ending)), None)


def _secrets(headers) -> tuple[str, ...]:
    values = [headers.get(name, "") for name in CREDENTIAL_HEADERS]
    found = {v for value in values for v in (value, value.removeprefix("Bearer ").strip()) if len(v) >= 8}
    return tuple(sorted(found, key=len, reverse=True))


def _forwarded(headers) -> dict:
    # identity: the capture needs the body readable, and the client's loopback hop gains nothing from gzip.
    kept = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
    return {**kept, "accept-encoding": "identity"}


def _back(headers) -> dict:
    return {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "content-encoding"}


def _json(data: bytes):
    try:
        return json.loads(data)
    except ValueError:
        return None


TOO_LARGE = f"larger than {MAX_BODY // 2**20} MiB, the most the proxy holds to record"
"""Why a body past MAX_BODY is refused."""


def failure(kind: str, message: str) -> dict:
    """An error body in the OpenAI shape, for a failure no upstream answered (a timeout, a drop)."""
    return {"error": {"type": kind, "message": message}}


class Recorder:
    """Writes one capture line per completed call, and a line on the console without any header."""

    def __init__(self, capture: CaptureFile, say: Callable[[str], None]):
        self.capture = capture
        self.say = say

    def record(self, call: Call, status: int | None, response) -> None:
        """Append the call: its request, its response or error body, status, latency and time."""
        request = _json(call.body)
        if call.api is None or not isinstance(request, dict):
            return
        latency = round((time.perf_counter() - call.started) * 1000, 1)
        if status is not None and status >= 400 and not _is_error_body(response):
            response = failure("upstream_error", f"the upstream answered HTTP {status}: {_excerpt(response)}")
        elif status is not None and not isinstance(response, dict):
            # A proxy's error page, a body cut short: recorded as what it was, not as a line no reader can use.
            response = failure("upstream_not_json", f"the upstream answered HTTP {status} with a body that is not a "
                                                    f"JSON object: {_excerpt(response)}")
        line = {"request": request, "response": response, "status": status, "latency_ms": latency,
                "timestamp": call.timestamp, "api": call.api, "request_headers": call.headers}
        self.capture.append(line, call.secrets)
        outcome = f"HTTP {status}" if status is not None else "no HTTP answer"
        if status is None and _is_error_body(response):  # our own words of what happened, never the upstream's
            outcome += f" ({response['error']['message']})"
        self.say(f"recorded {call.api} call: {outcome}, {latency:.0f} ms")


def _is_error_body(body) -> bool:
    return isinstance(body, dict) and isinstance(body.get("error"), dict)


def _excerpt(body) -> str:
    text = body if isinstance(body, str) else json.dumps(body)
    return text[:300]


def build_app(upstreams: Upstreams, capture: CaptureFile, timeout_s: float = 600.0,
              say: Callable[[str], None] = print) -> Starlette:
    """The proxy and the OTLP receiver as one ASGI app."""
    client = httpx2.AsyncClient(timeout=httpx2.Timeout(timeout_s, connect=min(timeout_s, 30.0)),
                                limits=httpx2.Limits(max_connections=None, max_keepalive_connections=200))
    recorder = Recorder(capture, say)

    async def otlp(request: Request) -> Response:
        return _refused(request, say) or await receive_traces(request, capture, say)

    async def forward(request: Request) -> Response:
        return _refused(request, say) or await _forward(request, client, upstreams, recorder)

    @asynccontextmanager
    async def lifespan(app):
        yield
        await client.aclose()

    routes = [Route("/v1/traces", otlp, methods=["POST"]),
              Route("/{path:path}", forward, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])]
    return Starlette(routes=routes, lifespan=lifespan)


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Hosts of a web page on this machine: a page of the developer's own, which may call the proxy."""


def web_page(headers) -> str | None:
    """The site of the web page that had a browser send this request, when that page is not on this machine; None for
    an SDK, a command-line client or a page served from this machine. Any page the operator opens can make their
    browser POST a form to 127.0.0.1 (no CORS preflight for a form): it would be forwarded and written into the capture
    as a conversation of theirs. A browser names the page in `Origin` (`null` for an opaque one), and says
    `Sec-Fetch-Site: cross-site` on a navigation that carries none."""
    origin = headers.get("origin")
    if origin is None:
        return "a page of another site" if headers.get("sec-fetch-site") == "cross-site" else None
    return None if urlsplit(origin).hostname in LOOPBACK_HOSTS else origin


def _refused(request: Request, say: Callable[[str], None]) -> Response | None:
    """403, neither forwarded nor recorded, for a request a web page of another site sent; None for the rest."""
    page = web_page(request.headers)
    if page is None:
        return None
    say(f"refused a {request.method} {request.url.path} request sent by a web page ({page}): not forwarded, "
        "not recorded")
    return JSONResponse(failure("refused_web_page", "a request sent by a web page of another site is neither "
                                "forwarded nor recorded"), 403)


async def _forward(request: Request, client: httpx2.AsyncClient, upstreams: Upstreams, recorder: Recorder) -> Response:
    try:
        body = await at_most(request.stream(), request.headers.get("content-length"))
    except TooLarge:
        recorder.say(f"refused a {request.method} {request.url.path} request: its body is {TOO_LARGE}")
        return JSONResponse(failure("request_too_large", f"the request body is {TOO_LARGE}; it was not forwarded"),
                            413)
    secrets = _secrets(request.headers)
    call = Call(api_of(request.method, request.url.path), body, secrets, time.perf_counter(),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), shaping_headers(request.headers, secrets))
    url = root_url(upstreams.for_request(request.headers)) + request.url.path
    if request.url.query:
        url += "?" + request.url.query
    outgoing = client.build_request(request.method, url, headers=_forwarded(request.headers), content=body)
    sending = asyncio.ensure_future(client.send(outgoing, stream=True))
    gone = asyncio.ensure_future(_disconnected(request))
    done, _ = await asyncio.wait({sending, gone}, return_when=asyncio.FIRST_COMPLETED)
    if sending not in done:
        sending.cancel()
        recorder.record(call, None, failure("client_gone", "the client closed the connection before the upstream "
                                            f"answered, after {time.perf_counter() - call.started:.1f} s (a client timeout?)"))
        return Response(status_code=499)
    gone.cancel()
    try:
        upstream = sending.result()
    except httpx2.TimeoutException:
        return _unanswered(call, recorder, 504, "upstream_timeout", "the upstream did not answer in time")
    except httpx2.HTTPError as exc:
        return _unanswered(call, recorder, 502, "upstream_unreachable", f"the upstream could not be reached ({type(exc).__name__})")
    if upstream.headers.get("content-type", "").startswith("text/event-stream"):
        return StreamingResponse(_relay(upstream, call, recorder), upstream.status_code, headers=_back(upstream.headers))
    return await _whole(upstream, call, recorder)


async def _disconnected(request: Request) -> None:
    """Returns when the client hangs up (the body has been read, so the next message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _unanswered(call: Call, recorder: Recorder, status: int, kind: str, message: str) -> Response:
    body = failure(kind, message)
    recorder.record(call, None, body)
    return JSONResponse(body, status)


async def _whole(upstream: httpx2.Response, call: Call, recorder: Recorder) -> Response:
    try:
        data = await at_most(upstream.aiter_bytes(), upstream.headers.get("content-length"))
    except TooLarge:
        return _unanswered(call, recorder, 502, "upstream_too_large", f"the upstream's response body is {TOO_LARGE}")
    except httpx2.HTTPError as exc:
        return _unanswered(call, recorder, 502, "upstream_dropped",
                           f"the upstream connection dropped before the whole body arrived ({type(exc).__name__})")
    finally:
        await upstream.aclose()
    parsed = _json(data)
    recorder.record(call, upstream.status_code, parsed if parsed is not None else data.decode("utf-8", "replace"))
    return Response(data, upstream.status_code, headers=_back(upstream.headers))


STREAM_CUTS = (TooLarge, httpx2.HTTPError)
"""What `_relay` raises to drop a stream for the client, once the call is recorded and said."""


async def _relay(upstream: httpx2.Response, call: Call, recorder: Recorder) -> AsyncIterator[bytes]:
    """Each chunk to the client as it arrives; the assembled call recorded when the stream ends. A
    stream the upstream drops is dropped for the client too, so its SDK reports what it would have."""
    received = bytearray()
    try:
        async for chunk in upstream.aiter_raw():
            received += chunk
            if len(received) > MAX_BODY:
                recorder.record(call, None, failure("upstream_too_large", f"the upstream's stream grew {TOO_LARGE}; "
                                                    "it was dropped for the client there"))
                raise TooLarge
            yield chunk
    except httpx2.HTTPError as exc:
        recorder.record(call, None, failure("upstream_dropped", "the upstream connection dropped mid-stream after "
                                            f"{len(received):,} bytes ({type(exc).__name__})"))
        raise
    except (GeneratorExit, asyncio.CancelledError):
        recorder.record(call, None, failure("client_gone", "the client closed the connection mid-stream after "
                                            f"{len(received):,} bytes"))
        raise
    finally:
        await upstream.aclose()
    body = assembled(call.api, sse_events(bytes(received))) if call.api else None
    if body is None:
        body = failure("stream_unreadable", "the stream ended without a response it could be assembled into")
    recorder.record(call, upstream.status_code, body)
