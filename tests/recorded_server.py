"""A loopback HTTP server that answers the real SDKs with recorded responses.

The SDKs speak httpx2, which respx cannot intercept, so the tests point the real clients at this
server on 127.0.0.1 instead. Each route answers from a queue of replies (a 429, then a 200), or
looks the request up by its recording key, as the replay provider does. It never reaches the
internet, serves a bounded number of requests, and stops itself after `limit_s` seconds.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lib.live.replay import Recording, request_key


@dataclass(frozen=True)
class Reply:
    """One recorded answer."""

    body: Any
    """The JSON body to send."""
    status: int = 200
    """The HTTP status."""
    delay_s: float = 0.0
    """How long to wait before answering (a slow model, a timeout)."""
    headers: dict = field(default_factory=dict)
    """Extra response headers, e.g. `retry-after-ms` so the SDK's own back-off stays short."""
    echo_credentials: bool = False
    """Copy the request's credential headers into the error message, as a careless proxy might."""
    trickle_s: float = 0.0
    """Send the body one byte at a time, this long apart (a slow-loris server)."""
    declare_length: bool = True
    """Send a content-length header; without one the body simply runs until the connection closes."""
    events: tuple = ()
    """Server-sent events to stream instead of the body, each one a ready `data: ...` block."""
    drop_after: int | None = None
    """Stream only this many events, then reset the connection (a dropped stream)."""
    content_type: str = "application/json"
    """The body's media type; with any other, `body` is a string sent as it is (a page a browser loads)."""


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    """The request path, e.g. `/v1/chat/completions`."""
    headers: dict
    """The request headers, lower-cased names."""
    body: Any
    """The JSON body."""


NO_REPLY = Reply({"error": {"type": "test_server", "message": "the test server has no reply for this request"}}, 599)


class RecordedServer:
    """Serve replies per route on 127.0.0.1; use as a context manager.

    `routes` maps a path to replies served in order; once a route's queue is empty, a request is
    answered from `recordings` by its key (each after `recorded_delay_s`), or with a 599.
    """

    def __init__(self, routes: dict[str, list[Reply]] | None = None, recordings: list[Recording] = (),
                 recorded_delay_s: float = 0.0, limit_s: float = 20.0, max_requests: int = 50):
        self._queues = {path: list(replies) for path, replies in (routes or {}).items()}
        self._by_key = {r.key: Reply(r.response, r.status, recorded_delay_s) for r in recordings}
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._limit_s = limit_s
        self._max_requests = max_requests
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True

    @property
    def url(self) -> str:
        """The server's root URL, e.g. `http://127.0.0.1:40123`."""
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def __enter__(self) -> "RecordedServer":
        threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        # A test that hangs must not keep the server alive: it stops itself after limit_s.
        self._deadline = threading.Timer(self._limit_s, self.stop)
        self._deadline.daemon = True
        self._deadline.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving; a reply that is still waiting out its delay gives up at once."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._deadline.cancel()
        self._http.shutdown()
        self._http.server_close()

    def _reply_for(self, path: str, body: Any) -> Reply:
        with self._lock:
            if len(self.received) >= self._max_requests:
                return NO_REPLY
            queue = self._queues.get(path)
            if queue:
                return queue.pop(0)
            if isinstance(body, dict) and request_key(body) in self._by_key:
                return self._by_key[request_key(body)]
            return NO_REPLY


def _handler(server: RecordedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server._reply_for(self.path.split("?")[0], body)  # routes are paths; a query names no route
            with server._lock:
                server.received.append(Received(self.path, headers, body))
            if reply.delay_s and server._stopping.wait(reply.delay_s):
                return
            payload = reply.body
            if reply.echo_credentials:
                echoed = f"{headers.get('authorization', '')} {headers.get('x-api-key', '')}".strip()
                said = f"Incorrect API key provided: {echoed}"
                payload = {"error": {"type": "authentication_error", "message": said}}
            if reply.events:
                return self._stream(reply)
            data = json.dumps(payload).encode() if reply.content_type == "application/json" else payload.encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                if reply.declare_length:
                    self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if not reply.trickle_s:
                    self.wfile.write(data)
                for byte in range(len(data) if reply.trickle_s else 0):
                    self.wfile.write(data[byte:byte + 1])
                    self.wfile.flush()
                    if server._stopping.wait(reply.trickle_s):
                        return
            except (BrokenPipeError, ConnectionResetError):
                pass  # The client gave up (a timeout test): nothing left to answer.

        def do_GET(self) -> None:  # noqa: N802
            self.do_POST()

        def _stream(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            for number, event in enumerate(reply.events):
                if number == reply.drop_after:
                    # SO_LINGER 0: close with a reset, as a crashed upstream does.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    return
                self.wfile.write(event.encode())
                self.wfile.flush()
                if reply.trickle_s and server._stopping.wait(reply.trickle_s):
                    return
            self.close_connection = True

        def log_message(self, *args) -> None:
            pass  # Keep test output clean.

    return Handler
