"""Providers: one model call each, through the official SDKs, that never raises.

A provider takes a request body (plain JSON built by lib/live/wire.py) and returns an
Exchange: the body exactly as the SDK sent it, and the response body exactly as received, or the
error in its place. HTTP errors (after the SDK's own retries), timeouts and connection failures
are errors, not exceptions. The API key lives in the SDK client only; anything that could echo it
back (an error body, a message) passes through `scrub` before it leaves this module.

Each call has a wall-clock deadline and a cap on the response body (`CallLimits`), enforced in the
HTTP transport under the SDK: the SDK's own timeout is per read, so a server that trickles one
byte at a time, or answers with megabytes, would otherwise hold the run as long as it likes.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Callable, Iterator, Protocol
from urllib.parse import urlsplit

import anthropic
import httpcore2
import httpx2
import openai

from lib.access import OFFICIAL_BASE_URLS
from lib.dialects import ANTHROPIC, OPENAI
from lib.failures import REFUSED_HERE, TIMED_OUT, UNREACHABLE, unreachable_said
from lib.model import shaping_headers
from lib.text import plural

HIDDEN = "[key hidden]"
"""What an API key is replaced with wherever a response repeats it."""
MIN_SECRET = 8
"""Shorter keys are placeholders for servers that need none, not secrets to scrub."""


@dataclass(frozen=True)
class CallLimits:
    """How long one model call may take and how much it may send back; the defaults live here."""

    deadline_s: float = 120.0
    """Wall-clock seconds for one model call, from the first byte sent to the last received, retries included."""
    max_response_bytes: int = 2_000_000
    """The most response-body bytes read; a bigger answer is cut off and ends the run."""


class CallLimitExceeded(openai.OpenAIError, anthropic.AnthropicError):
    """A call stopped under the SDK: past its deadline or its size cap, or refused where it was going.

    An error of each SDK's own kind, because both pass those through at once: the SDK's retries
    would only spend the time the deadline is there to bound.
    """

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class DeadlinePassed(CallLimitExceeded):
    """A call still unanswered at its deadline: nothing answered in time."""


class RedirectRefused(CallLimitExceeded):
    """A server's redirect to another address: a call goes only to the server of its base URL."""


class AddressRefused(CallLimitExceeded):
    """A base URL typed on a shared server that names an address of the server's own network."""


@dataclass(frozen=True)
class Exchange:
    """One model call as it happened."""

    request: dict
    """The request body exactly as sent."""
    response: dict | None
    """The response body exactly as received, or None when the call failed."""
    error: dict | None
    """`{"status", "message", "body"}` as the trace's `error` field, or None."""
    latency_ms: float
    """Wall time of the call, the SDK's retries included."""
    status: int | None = None
    """The HTTP status of the answer that came back (200 for a body read as an answer); None when none came."""
    attempts: tuple = ()
    """The HTTP status of each time the SDK sent the request, in order (None where no answer came: a timeout, a
    dropped connection): more than one when its own retries went past a 429 or a 5xx. Empty when none was sent."""


class Provider(Protocol):
    """Something that answers request bodies of one dialect."""

    label: str
    """How the trace names it: `openai`, `anthropic`, `openai-compatible`, `replay`."""
    dialect: str
    """The dialect of the bodies it takes and returns."""

    def send(self, body: dict) -> Exchange:
        """Make one model call; never raises."""
        ...


class OpenAIProvider:
    """OpenAI Chat Completions, or any server that speaks it at `base_url` (Ollama, vLLM, DeepSeek)."""

    dialect = OPENAI

    def __init__(self, api_key: str, base_url: str, timeout_s: float = 60.0, max_retries: int = 2,
                 limits: CallLimits = CallLimits(), public_only: bool = False, headers: dict | None = None):
        self.label = "openai" if base_url.rstrip("/") == OFFICIAL_BASE_URLS["openai"] else "openai-compatible"
        self.where = host_of(base_url)
        self.headers = shaping_headers(headers or {}, (api_key,))
        self._secret = api_key
        self._guard = _LimitedTransport(limits, base_url, public_only)
        self._waits = _waits(min(timeout_s, limits.deadline_s), max_retries)
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries,
                                     timeout=min(timeout_s, limits.deadline_s), default_headers=self.headers,
                                     http_client=openai.DefaultHttpxClient(transport=self._guard))

    def send(self, body: dict) -> Exchange:
        """Make one Chat Completions call."""
        with self._guard.armed():
            exchange = _exchange(self._client.chat.completions.with_raw_response.create, body, OPENAI, self._secret,
                                 openai, self._waits)
            return replace(exchange, attempts=tuple(self._guard.attempts))


class AnthropicProvider:
    """Anthropic Messages."""

    dialect = ANTHROPIC

    def __init__(self, api_key: str, base_url: str, timeout_s: float = 60.0, max_retries: int = 2,
                 limits: CallLimits = CallLimits(), public_only: bool = False, headers: dict | None = None):
        self.label = "anthropic"
        self.where = host_of(base_url)
        self.headers = shaping_headers(headers or {}, (api_key,))
        self._secret = api_key
        self._guard = _LimitedTransport(limits, base_url, public_only)
        self._waits = _waits(min(timeout_s, limits.deadline_s), max_retries)
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=max_retries,
                                           timeout=min(timeout_s, limits.deadline_s), default_headers=self.headers,
                                           http_client=anthropic.DefaultHttpxClient(transport=self._guard))

    def send(self, body: dict) -> Exchange:
        """Make one Messages call."""
        with self._guard.armed():
            exchange = _exchange(self._client.messages.with_raw_response.create, body, ANTHROPIC, self._secret,
                                 anthropic, self._waits)
            return replace(exchange, attempts=tuple(self._guard.attempts))


def host_of(base_url: str) -> str:
    """Where a base URL sends calls, as a person reads it: its host, and a port other than the scheme's; never its user
    part, path or query (`api.openai.com`, `127.0.0.1:8700`)."""
    where = urlsplit(base_url)
    try:
        port = where.port
    except ValueError:
        port = None
    return f"{where.hostname}:{port}" if port else where.hostname or "the server"


def _waits(timeout_s: float, retries: int) -> str:
    """How long the SDK waited, in words: `3 s per read, over 2 attempts (the first and 1 retry)`."""
    attempts = ("1 attempt (no retry)" if retries == 0
                else f"{retries + 1} attempts (the first and {plural(retries, 'retry', 'retries')})")
    return f"{timeout_s:g} s per read, over {attempts}"


def _exchange(create: Callable, body: dict, dialect: str, secret: str, sdk: ModuleType,
              waits: str = "the client's timeout, the SDK's retries included") -> Exchange:
    started = time.perf_counter()
    try:
        raw = create(**_arguments(body, dialect))
        sent, received = raw.http_response.request, _json(raw.http_response.text)
        return Exchange(scrub(_sent(sent, body), secret), scrub(received, secret), None, _since(started),
                        raw.http_response.status_code)
    except AddressRefused as exc:  # refused here, before anything was sent
        said = {"error": {"type": REFUSED_HERE, "message": exc.message}}
        return Exchange(body, None, {"status": None, "message": exc.message, "body": said}, _since(started))
    except CallLimitExceeded as exc:
        # Past the deadline nothing answered in time: said so by type, as a timeout is (lib.failures.no_answer).
        said = {"error": {"type": TIMED_OUT, "message": exc.message}} if isinstance(exc, DeadlinePassed) else None
        return Exchange(body, None, {"status": None, "message": exc.message, "body": said}, _since(started))
    except sdk.APIStatusError as exc:
        received = _json(exc.response.text)
        said = provider_message(received, type(exc).__name__)
        error = {"status": exc.status_code, "message": said, "body": received}
        return Exchange(scrub(_sent(exc.request, body), secret), None, scrub(error, secret), _since(started))
    except sdk.APITimeoutError as exc:
        said = f"The request timed out: no answer within {waits}."
        error = {"status": None, "message": said, "body": {"error": {"type": TIMED_OUT, "message": said}}}
        return Exchange(scrub(_sent(exc.request, body), secret), None, error, _since(started))
    except sdk.APIConnectionError as exc:
        said = unreachable_said(_server(exc.request))
        # The transport's exception class stays in the recorded body, for whoever reads the raw error.
        cause = type(exc.__cause__).__name__ if exc.__cause__ else None
        error = {"status": None, "message": said,
                 "body": {"error": {"type": UNREACHABLE, "message": said, "cause": cause}}}
        return Exchange(scrub(_sent(exc.request, body), secret), None, error, _since(started))
    except Exception as exc:  # noqa: BLE001 - a live run shows every failure as a round, never a crash
        error = {"status": None, "message": f"The call could not be made ({type(exc).__name__}): "
                                            f"{scrub(str(exc), secret)}", "body": None}
        return Exchange(body, None, error, _since(started))


KEYWORD_FIELDS = {OPENAI: ("model", "messages"), ANTHROPIC: ("model", "messages", "max_tokens")}
"""The body fields given to each SDK's create() as keyword arguments: those it requires, each a plain field of the
API's body. Every other keyword of create() may do more than fill in the body: the SDKs' call options
(`extra_headers`, `extra_query`, `timeout`) and, in anthropic 2.x, `workspace_id` and `user_profile_id` become
headers, and `stream` changes how the answer is read. From a body (a trace's, forked or replayed) any of them would
change a call that carries the server's key, and the next SDK release may add more."""


def _arguments(body: dict, dialect: str) -> dict:
    """The body as SDK keyword arguments: the fields the SDK requires as keywords, and every other field in
    `extra_body`, which the SDK sends as the body fields they were written as and reads nothing into."""
    keywords = KEYWORD_FIELDS[dialect]
    arguments = {k: v for k, v in body.items() if k in keywords}
    extra = {k: v for k, v in body.items() if k not in keywords}
    if extra:
        arguments["extra_body"] = extra
    return arguments


def _server(request: Any) -> str | None:
    """The host (and a port other than the scheme's) a request was sent to; never its user part, path or query."""
    try:
        url = request.url
        return f"{url.host}:{url.port}" if url.port else url.host or None
    except Exception:  # noqa: BLE001 - a request we cannot read back is said as "the server"
        return None


def _sent(request: Any, fallback: dict) -> dict:
    """The body the SDK actually put on the wire (it may reorder keys); our own body if unreadable."""
    try:
        return json.loads(request.content)
    except Exception:  # noqa: BLE001 - a request we cannot read back is still recorded as built
        return fallback


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def provider_message(body: Any, fallback: str) -> str:
    """The provider's own words from an error body (`error.message` in both dialects)."""
    inner = body.get("error") if isinstance(body, dict) else None
    if isinstance(inner, dict) and inner.get("message"):
        return str(inner["message"])
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return str(body) if isinstance(body, str) and body else fallback


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def scrub(value: Any, secret: str | None) -> Any:
    """The value with every occurrence of the secret replaced, at any depth."""
    # A placeholder such as "ollama" is no secret, and replacing it would rewrite the model's own words.
    if not secret or len(secret) < MIN_SECRET:
        return value
    if isinstance(value, str):
        return value.replace(secret, HIDDEN)
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secret) for v in value]
    return value


class _LimitedTransport(httpx2.BaseTransport):
    """The HTTP transport under the SDK, holding every attempt of one call to its deadline and size cap."""

    def __init__(self, limits: CallLimits, base_url: str, public_only: bool = False):
        self.limits = limits
        self._public_only = public_only
        # A transport of our own makes the client skip the environment's proxy, so it is looked up here.
        where = urlsplit(base_url)
        self._origin = _origin(base_url)
        proxy = urllib.request.getproxies().get(where.scheme)
        bypass = proxy and urllib.request.proxy_bypass(where.hostname or "")
        self._inner = httpx2.HTTPTransport(proxy=None if bypass else proxy)
        self._pinned = _PinnedBackend()
        if public_only and (bypass or not proxy):
            # The client would look the name up again when it connects, and a second answer (DNS rebinding) could
            # lead inside: it connects to the address that was checked (TLS still checks the name).
            self._inner._pool._network_backend = self._pinned
        self._deadline = float("inf")
        self.attempts: list[int | None] = []
        """The status of each request of the armed call sent to the server (None where no answer came)."""

    @contextmanager
    def armed(self) -> Iterator[None]:
        """The deadline runs from here until the block ends; the attempts are counted afresh."""
        self.attempts = []
        self._deadline = time.monotonic() + self.limits.deadline_s
        try:
            yield
        finally:
            self._deadline = float("inf")

    def remaining(self) -> float:
        """Seconds left before the deadline."""
        return self._deadline - time.monotonic()

    def late(self) -> CallLimitExceeded:
        """The error for a call past its deadline."""
        return DeadlinePassed(f"The call passed its deadline of {self.limits.deadline_s:g} s (wall clock, the "
                                 "SDK's retries included); the rest of the answer was not waited for.")

    def too_big(self) -> CallLimitExceeded:
        """The error for a response over the size cap."""
        return CallLimitExceeded(f"The response passed the size cap of {self.limits.max_response_bytes:,} bytes; "
                                 "the rest of it was not read.")

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        # The SDKs' client follows redirects with the body and the headers it does not know to drop
        # (a 307 resends the whole conversation): a call never leaves the base URL's server.
        if _origin(str(request.url)) != self._origin:
            raise RedirectRefused(f"The server redirected the call to {_origin(str(request.url))}; it was not "
                                  "followed: a call goes only to the server of its base URL.")
        if self._public_only:
            # Resolved at each call, not once when typed: a name can be pointed elsewhere in between.
            checked = _check_public(request.url.host,
                                    request.url.port or {"http": 80, "https": 443}[request.url.scheme])
            self._pinned.addresses[request.url.raw_host.decode("ascii")] = checked
        left = self.remaining()
        if left <= 0:
            raise self.late()
        # No single wait (connect, send, the first byte) may outlast what is left of the deadline.
        request.extensions["timeout"] = {phase: min(value or left, left)
                                         for phase, value in request.extensions.get("timeout", {}).items()}
        self.attempts.append(None)  # sent; its status once an answer comes
        try:
            response = self._inner.handle_request(request)
        except httpx2.TimeoutException:
            if self.remaining() <= 0:
                raise self.late() from None
            raise
        self.attempts[-1] = response.status_code
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limits.max_response_bytes:
            response.close()
            raise self.too_big()
        stream = _LimitedStream(response.stream, self, response.extensions.get("network_stream"))
        return httpx2.Response(response.status_code, headers=response.headers, stream=stream,
                               extensions=response.extensions)

    def close(self) -> None:
        self._inner.close()


def _origin(url: str) -> str:
    """Scheme, host and port: what a redirect may not change."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return f"{parts.scheme}://{parts.hostname}:{port}"


PUBLIC_ONLY = ("a base URL typed on this server must name a public address, not this machine, its network or "
               "a cloud metadata service (the operator names a server inside it in ROUNDTRIP_COMPATIBLE_BASE_URL)")
"""Why a typed base URL that leads inside the server's network is refused."""


def _check_public(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order; AddressRefused unless every one is public."""
    try:
        found = list(dict.fromkeys(info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)))
    except (OSError, UnicodeError):  # refused, not left to the client: its own lookup could answer otherwise
        raise AddressRefused(f"The host {host} of the base URL could not be resolved; {PUBLIC_ONLY}.") from None
    inside = sorted(a for a in found if not ipaddress.ip_address(a.split("%")[0]).is_global)
    if inside:
        where = host if host == inside[0] else f"{host} ({inside[0]})"
        raise AddressRefused(f"The base URL's host {where} is inside this server's network: {PUBLIC_ONLY}.")
    return found


class _PinnedBackend(httpcore2.SyncBackend):
    """Connects a host to the addresses `_check_public` passed for it, never to a fresh lookup's answer."""

    def __init__(self):
        self.addresses: dict[str, list[str]] = {}
        """The checked addresses of each host, by the host as the URL spells it on the wire."""

    def connect_tcp(self, host: str, port: int, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        if host not in self.addresses:  # only a checked host gets this far; anything else is refused
            raise AddressRefused(f"The host {host} was not checked before the connection; {PUBLIC_ONLY}.")
        failed: Exception | None = None
        for address in self.addresses[host]:
            try:
                return super().connect_tcp(address, port, *args, **kwargs)
            except httpcore2.ConnectError as exc:  # the next address, as a resolver's client would try it
                failed = exc
        raise failed or AddressRefused(f"The host {host} has no address; {PUBLIC_ONLY}.")


class _LimitedStream(httpx2.SyncByteStream):
    """A response body read under the deadline and the size cap."""

    def __init__(self, inner: httpx2.SyncByteStream, transport: _LimitedTransport, network: Any):
        self._inner, self._transport, self._network = inner, transport, network

    def __iter__(self):
        # Reads are timed one at a time, so a trickle never times out: at the deadline the socket is shut.
        alarm = threading.Timer(max(self._transport.remaining(), 0), self._shut)
        alarm.daemon = True
        alarm.start()
        read = 0
        try:
            for chunk in self._inner:
                read += len(chunk)
                if self._transport.remaining() <= 0:
                    raise self._transport.late()
                if read > self._transport.limits.max_response_bytes:
                    raise self._transport.too_big()
                yield chunk
        except (httpx2.TransportError, OSError):
            if self._transport.remaining() <= 0:
                raise self._transport.late() from None
            raise
        finally:
            alarm.cancel()

    def _shut(self) -> None:
        sock = self._network.get_extra_info("socket") if self._network is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed: nothing left to interrupt

    def close(self) -> None:
        self._inner.close()
