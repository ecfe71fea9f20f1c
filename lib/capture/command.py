"""`python -m lib proxy`: the recording proxy and the OTLP receiver on one port, served by uvicorn.

It binds 127.0.0.1 unless told otherwise: a capture holds whole conversations, and the proxy
forwards whatever key a caller sends, so serving it to a network takes --allow-remote and prints
a warning. uvicorn's access log is off: it would print query strings, where some APIs put keys.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Hosts that serve only this machine."""


def add_proxy(commands) -> None:
    """The `proxy` command's arguments."""
    proxy = commands.add_parser("proxy", help="record the calls an agent makes through it, and OTLP spans sent to it")
    proxy.add_argument("--port", type=int, default=8700, help="default 8700")
    proxy.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1 (this machine only)")
    proxy.add_argument("--allow-remote", action="store_true", help="needed to bind any other interface")
    proxy.add_argument("--upstream", default="https://api.openai.com",
                       help="the OpenAI or OpenAI-compatible server (default https://api.openai.com)")
    proxy.add_argument("--anthropic-upstream", default="https://api.anthropic.com",
                       help="where requests with an anthropic-version header go (default https://api.anthropic.com)")
    proxy.add_argument("-o", "--output", metavar="FILE", help="the capture file (default: a new file in data/captures/)")
    proxy.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the upstream (default 600)")


def refusal(host: str, allow_remote: bool) -> str | None:
    """Why the proxy will not bind this host, or None."""
    if host in LOOPBACK or allow_remote:
        return None
    return (f"refusing to listen on {host}: anyone who can reach it could use the keys passed through it and "
            "read what it records. Add --allow-remote if that is what you want.")


def _without_stream_cuts(record: logging.LogRecord) -> bool:
    """Drop uvicorn's traceback for a stream the proxy cut on purpose: its line was already said."""
    from lib.capture.proxy import STREAM_CUTS

    return not (record.exc_info and isinstance(record.exc_info[1], STREAM_CUTS))


def serve(args) -> int:
    """Start the proxy; returns when it is stopped (Ctrl-C)."""
    import uvicorn

    from lib.capture.files import CAPTURES_DIR, CaptureFile, new_capture_path
    from lib.capture.proxy import Upstreams, build_app

    refused = refusal(args.host, args.allow_remote)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(f"WARNING: listening on {args.host}: other machines can send calls through this proxy.", file=sys.stderr)
    capture = CaptureFile(Path(args.output) if args.output else new_capture_path())
    app = build_app(Upstreams(args.upstream, args.anthropic_upstream), capture, args.timeout)
    base = f"http://{'127.0.0.1' if args.host in LOOPBACK else args.host}:{args.port}"
    print(f"Recording to {capture.path}\n  OpenAI SDK: base_url={base}/v1  (upstream {args.upstream})\n"
          f"  Anthropic SDK: base_url={base}  (upstream {args.anthropic_upstream})\n"
          f"  OTLP exporter: endpoint={base}/v1/traces", flush=True)
    if capture.path.resolve().parent != CAPTURES_DIR.resolve():
        # Else the Watch page says "No capture yet" while this proxy records: it lists that one folder only.
        print(f"  The Watch page lists only {CAPTURES_DIR}: open this file on the Round explorer instead, "
              "or leave out -o.", flush=True)
    try:
        config = uvicorn.Config(app, host=args.host, port=args.port, access_log=False, log_level="warning")
        logging.getLogger("uvicorn.error").addFilter(_without_stream_cuts)  # after Config, which sets logging up
        uvicorn.Server(config).run()
    finally:
        capture.close()
    return 0
