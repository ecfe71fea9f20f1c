"""A sign-in proxy for the browser tests: it adds the operator's identity header to every request a browser sends
through it, the page's HTTP requests and the WebSocket upgrade alike, as a room's reverse proxy does after its
sign-in.

Why not Playwright's `extra_http_headers`: Chromium 150 (Debian bookworm's package) leaves them off the WebSocket
upgrade, and that upgrade is the request whose headers Streamlit gives the app (`st.context.headers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from bench.load_test import free_port

HEAD_END = b"\r\n\r\n"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    with contextlib.suppress(ConnectionError, OSError):
        writer.close()


async def _requests(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, added: bytes) -> None:
    """Each request head on a kept-alive connection gets the header lines; after an upgrade, bytes pass as they are."""
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        while True:
            head = await reader.readuntil(HEAD_END)
            first, *fields = head[:-len(HEAD_END)].split(b"\r\n")
            fields = [f for f in fields if f.split(b":", 1)[0].strip().lower() not in _names(added)]
            writer.write(b"\r\n".join([first, *fields, *added.split(b"\r\n")]) + HEAD_END)
            named = {f.split(b":", 1)[0].strip().lower(): f.split(b":", 1)[1].strip() for f in fields if b":" in f}
            length = int(named.get(b"content-length", b"0"))
            if length:
                writer.write(await reader.readexactly(length))
            await writer.drain()
            if named.get(b"upgrade", b"").lower() == b"websocket":
                await _pipe(reader, writer)
                return
    with contextlib.suppress(ConnectionError, OSError):
        writer.close()


def _names(added: bytes) -> set[bytes]:
    return {line.split(b":", 1)[0].strip().lower() for line in added.split(b"\r\n")}


@contextlib.contextmanager
def signed_in(upstream_port: int, headers: dict[str, str]) -> Iterator[str]:
    """A proxy on a free port of 127.0.0.1 in front of the app's port, adding `headers`; its base URL."""
    added = b"\r\n".join(f"{k}: {v}".encode() for k, v in headers.items())
    port, loop, ready = free_port(), asyncio.new_event_loop(), threading.Event()

    async def connected(reader, writer):
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        await asyncio.gather(_requests(reader, upstream_writer, added), _pipe(upstream_reader, writer))

    def serve():
        asyncio.set_event_loop(loop)
        server = loop.run_until_complete(asyncio.start_server(connected, "127.0.0.1", port, limit=1 << 20))
        ready.set()
        loop.run_forever()
        server.close()
        loop.run_until_complete(server.wait_closed())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
