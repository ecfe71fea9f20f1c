"""Interning: every distinct message or tool list is stored once, however often it is resent.

A trace file repeats the whole history in every request, so it grows with the square of the
conversation's length. Memory must grow only with the unique content: the reader builds each
message once and hands every later round a reference to that same object.
"""

from __future__ import annotations

import gc
import hashlib
import json
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

import orjson

T = TypeVar("T")


def canonical_json(value: Any) -> bytes:
    """The same bytes for the same JSON value, whatever its key order."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        # orjson refuses integers beyond 64 bits; the standard library does not.
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def content_key(value: Any) -> str:
    """A short stable digest of a JSON value's canonical form."""
    return hashlib.blake2b(canonical_json(value), digest_size=16).hexdigest()


class Interner:
    """A pool of built objects keyed by the digest of their raw JSON."""

    def __init__(self) -> None:
        self._pool: dict[str, Any] = {}
        self.lookups = 0
        """How many times an object was asked for; `lookups - len(self)` were served from the pool."""

    def __len__(self) -> int:
        return len(self._pool)

    def get(self, raw: Any, build: Callable[[Any, str], T]) -> T:
        """The pooled object for `raw`, building it with `build(raw, key)` the first time."""
        self.lookups += 1
        key = content_key(raw)
        found = self._pool.get(key)
        if found is None:
            found = self._pool[key] = build(raw, key)
        return found


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a trace is read.

    Reading keeps hundreds of thousands of new objects; the collector would walk them again on
    every generation pass and nearly double the time. Parsed JSON holds no reference cycles, so
    nothing is lost by collecting once afterwards instead."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
