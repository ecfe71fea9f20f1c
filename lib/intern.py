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


_NUMBER_SHAPES = bytes.maketrans(b"123456789-,[ \t\r\n", b"000000000:::::::")
_WIDE = b":" + b"0" * 19
"""How an integer past 64 bits may be written once every digit reads 0 and what may come before a value (a minus
included) reads `:`: u64 ends at 20 digits, i64 at a minus and 19. A value must start the run, so digits inside a
string (a trace id of zeros) set off no second parse; 19 bare digits fit and do, rarely. A translate and one find
cost a fiftieth of a regex search."""


def loads_exact(data: bytes | memoryview | str) -> Any:
    """orjson.loads (raising what it raises), except that an integer past 64 bits stays the integer written:
    orjson reads 123456789012345678901234567890 as 1.2345678901234568e+29 without a word."""
    value = orjson.loads(data)
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    shapes = raw.translate(_NUMBER_SHAPES)
    if _WIDE in shapes or shapes.startswith(_WIDE[1:]):
        try:  # the standard library keeps every integer exact; it reads what orjson read
            return json.loads(data if isinstance(data, str) else raw)
        except RecursionError:  # nested deeper than its recursion limit, not orjson's: keep orjson's value
            return value
    return value


def content_key(value: Any) -> str:
    """A short stable digest of a JSON value's canonical form."""
    return hashlib.blake2b(canonical_json(value), digest_size=16).hexdigest()


class Interner:
    """A pool of built objects keyed by the digest of their raw JSON."""

    HELD = 256
    """Raw objects remembered by identity (see `get`'s `hold`); the oldest is forgotten past this."""

    def __init__(self) -> None:
        self._pool: dict[str, Any] = {}
        self._held: dict[int, tuple[Any, Any]] = {}
        """(raw, built) by id(raw), for raws handed on as the very object; holding the raw keeps its id unique."""
        self.lookups = 0
        """How many times an object was asked for; `lookups - len(self)` were served from the pool."""

    def __len__(self) -> int:
        return len(self._pool)

    def get(self, raw: Any, build: Callable[[Any, str], T], hold: bool = False) -> T:
        """The pooled object for `raw`, building it with `build(raw, key)` the first time.

        `hold` remembers the answer for this very object: a response's message that the importer hands
        on as the object the next request resends is then found without digesting it again. Only
        objects that nothing changes afterwards may be held (the importers' dicts, once read)."""
        self.lookups += 1
        known = self._held.get(id(raw))
        if known is not None and known[0] is raw:
            return known[1]
        key = content_key(raw)
        found = self._pool.get(key)
        if found is None:
            found = self._pool[key] = build(raw, key)
        if hold:
            held = self._held
            held[id(raw)] = (raw, found)
            if len(held) > self.HELD:
                del held[next(iter(held))]
        return found


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a trace is read.

    Reading keeps hundreds of thousands of new objects; the collector would walk them again on
    every generation pass and nearly double the time. Parsed JSON holds no reference cycles, so
    nothing is lost by not collecting while reading. What was kept is then moved to the oldest
    generation as it stands: re-enabled as it was, the collector's first young pass would walk every
    object the read kept (a tenth of an OTLP import's time), and again when they moved up, only to
    find them all alive. A full collection still walks them, as it walks every long-lived object."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote_young()
            gc.enable()


def _promote_young() -> None:
    """Every tracked object into the oldest generation, without a pass: `freeze` splices each generation
    onto the permanent one, `unfreeze` splices that onto the oldest. Left alone when something froze
    objects on purpose (a server that forks), which unfreezing would undo."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
