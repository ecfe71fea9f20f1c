"""A trace's identity: a digest of what was sent and received, not of the file that carried it.

Notes are stored under this fingerprint, so the same log uploaded again, under another file name,
with another title or with its annotation lines added, finds its notes again. Only the rounds'
raw request, response and error bodies count: the header (title, description, a converted log's
file name), the program's executions and the annotation lines do not.
"""

from __future__ import annotations

import hashlib

from lib.intern import canonical_json
from lib.model import Trace

SCHEME = b"roundtrip-fingerprint-1\n"
"""Hashed first, so a later change of what counts can never collide with this one."""


def fingerprint(trace: Trace) -> str:
    """A hex digest of the trace's canonical content: equal for equal round bodies, whatever their key order."""
    # Each request resends the history, so this hashes the square of the conversation; orjson does
    # a 1,000-round trace in half a second, once per trace and server (lib/ui/annotate.py caches it).
    digest = hashlib.sha256(SCHEME)
    for round_ in trace.rounds:
        body = {
            "request": round_.request.raw,
            "response": round_.response.raw if round_.response else None,
            "error": round_.error.body if round_.error else None,
        }
        digest.update(canonical_json(body))
        digest.update(b"\n")
    return digest.hexdigest()
