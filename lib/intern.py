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


DEEPEST = 200
"""How many levels a value of a trace may nest; what lies deeper is kept as its JSON text. orjson reads 1,024
levels, but the standard library's json, copying and Streamlit's own rendering recurse a few frames a level and
run out of Python's recursion limit (1,000 frames) far sooner; no real trace comes near 200."""
_OPENED = b"[" * (1024 - DEEPEST)
"""What nests a line's value so that orjson's limit of 1,024 levels falls just past DEEPEST levels of it."""
_CLOSED = _OPENED[1:].replace(b"[", b"]")
"""All but one of those arrays closed: left wholly open, orjson says it failed to allocate memory instead."""


def nests_deeper(raw: bytes | str) -> bool:
    """Whether a line's JSON value nests more than DEEPEST levels. Only a line holding that many `[` and `{`
    can; for those, orjson (whose own limit is 1,024 levels) is handed the line inside enough arrays that it
    refuses exactly when the line nests deeper: the depth counted in C, strings and escapes understood. One array
    is left open, so the parse fails either way before a single Python object is built: a fraction of a read."""
    if isinstance(raw, str):  # counted before it is encoded: most text is ruled out without a copy
        if raw.count("[") + raw.count("{") <= DEEPEST:
            return False
        data = raw.encode("utf-8", "surrogatepass")
    else:
        data = bytes(raw)
        if data.count(b"[") + data.count(b"{") <= DEEPEST:
            return False
    try:
        orjson.loads(b"".join((_OPENED, data, _CLOSED)))
    except orjson.JSONDecodeError as exc:  # always: one array is left open
        return "depth limit" in exc.msg
    return False


def kept_shallow(value: Any) -> list[str]:
    """Replaces, in place, every container nested DEEPEST levels down with its JSON text; the path of each
    field that held one (`request.metadata.tree`). Iterative: the value is what recursion cannot walk."""
    fields: list[str] = []
    pending: list[tuple[Any, tuple, int]] = [(value, (), 1)]
    while pending:
        container, path, depth = pending.pop()
        for key, inner in container.items() if isinstance(container, dict) else enumerate(container):
            if not isinstance(inner, (dict, list)):
                continue
            if depth < DEEPEST:
                pending.append((inner, (*path, key), depth + 1))
                continue
            container[key] = json_text(inner)
            fields.append(_field_name((*path, key)))
    return fields


def _field_name(path: tuple) -> str:
    """`executions[0].overrides.q` for the path down to the last key of an object, at most six steps of it: the
    field a user wrote, not the thousand list positions inside it."""
    keys = [i for i, step in enumerate(path) if isinstance(step, str)]
    end = keys[-1] + 1 if keys else 1
    name = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path[: min(end, 6)]).lstrip(".")
    return name + "…" if end > 6 else name


def json_text(value: Any) -> str:
    """A value's compact JSON text, written without recursion (orjson stops at 255 levels, json at the stack)."""
    parts: list[str] = []
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, _Literal):
            parts.append(item)
        elif isinstance(item, dict):
            pending.append(_Literal("}"))
            for i, (key, inner) in reversed(list(enumerate(item.items()))):
                pending.extend((inner, _Literal(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":")))
            pending.append(_Literal("{"))
        elif isinstance(item, list):
            pending.append(_Literal("]"))
            for i, inner in reversed(list(enumerate(item))):
                pending.extend((inner, _Literal("," if i else "")))
            pending.append(_Literal("["))
        else:
            parts.append(json.dumps(item, ensure_ascii=False))
    return "".join(parts)


class _Literal(str):
    """Text json_text writes as it is (brackets, commas, keys), told apart from the string values it quotes."""
