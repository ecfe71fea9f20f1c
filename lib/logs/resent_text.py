"""Parsing OTLP/JSON span documents without unescaping the history their message attributes resend.

OpenTelemetry GenAI instrumentations write a model call's whole input as one JSON *string*
attribute, `gen_ai.input.messages`, and an agent's next call resends it with new messages appended,
in the same document or a later line. Parsing the document unescapes every one of those bytes again.
As lib/logs/resent.py does for messages arrays, the resent part is taken as read instead:
1. Each such string is read on its own, in the order the line writes them: when its bytes start
   with the bytes of an earlier string, minus that string's closing `]`, only the bytes after them
   are read (the earlier bytes were whole escapes, so the text is the earlier text, minus its `]`,
   followed by the rest read). A string is one JSON array, so it ends at the first `]"` after its
   start; bytes that orjson does not read as one string are left alone.
2. Each string read is replaced by a marker naming it, and the much shorter copy of the line is
   parsed. A marker coming back as the whole string of a `gen_ai.input.messages` attribute proves the
   bytes it replaced were exactly that string's; every marker must come back so, or the whole line
   is parsed instead (which also names the problem of a line that does not parse).
The value returned is the one parsing the whole line gives.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import orjson

from lib.logs import otlp_typed

ATTRIBUTE = "gen_ai.input.messages"
"""The attribute whose strings are resent."""
_OPENINGS = (b'"gen_ai.input.messages","value":{"stringValue":"',
             b'"gen_ai.input.messages", "value": {"stringValue": "')
"""How the attribute's string opens in OTLP/JSON, compact (orjson, the Collector) or spaced (`json.dumps`)."""
_MARKER_TEXT = "\x00roundtrip-text:" + secrets.token_hex(16) + ":"
"""Stands in for a string read, followed by its number; random per process, so no document can
hold it by chance or design."""
_MARKER = orjson.dumps(_MARKER_TEXT)[1:-1]

OPENING = 64
"""Bytes of a string it is remembered under; shorter strings are not worth remembering."""
KEPT = 64
"""Strings remembered per opening (one per conversation in progress); the oldest is dropped past this."""
KEEP_BYTES = 64 * 1024 * 1024
"""The most bytes of remembered strings held at once; the openings least recently used go first."""
TRIES = 8
"""Strings of a line that may fail to read as one JSON string before the others are left alone:
each failed try reads up to the next `]"`, so a line built to fail does not cost a read per string."""


@dataclass(slots=True, eq=False)
class _Earlier:
    """A string read before."""

    written: bytes | memoryview
    """Its bytes after the opening quote, up to its closing `]` (left out), exactly as the line wrote them:
    a view of the line while it is being read, and after unless that would hold a line twice its size."""
    text: str
    """The string read, closing `]` included: the very object the document holds."""
    kept: bool = True
    """False once a later string extended it or it was dropped."""


class ResentTexts:
    """Parses the lines (or the one document) of a file, taking resent message strings as read."""

    def __init__(self, loads: Callable[[bytes], Any], typed: Callable[[bytes], Any] | None = None) -> None:
        self._loads = loads
        """The whole-line parser: for a line without such strings, and for one the shortcut does not hold on."""
        self._typed = typed
        """A decoder into typed structs (lib/logs/otlp_typed.py) tried before `loads`; None when it does not
        answer for a line, which `loads` then parses as before."""
        self._by_opening: dict[bytes, list[_Earlier]] = {}
        """Remembered strings by their first OPENING bytes, the least recently used opening first."""
        self._held = 0
        """Bytes of remembered strings."""
        self.saved_bytes = 0
        """Bytes of resent strings taken as read."""

    def parse(self, line: bytes) -> Any:
        """The line's JSON value, as the whole-line parser gives it (and raises)."""
        made: list[_Earlier] = []
        try:
            return self._parse(line, made)
        finally:
            for earlier in made:
                # A view keeps its whole line alive: copied when it is the lesser part of the line (one
                # copy per run, not per string), kept when the string is most of it.
                if earlier.kept and 2 * len(earlier.written) < len(line):
                    earlier.written = bytes(earlier.written)

    def _parse(self, line: bytes, made: list[_Earlier]) -> Any:
        pieces, texts, last, tries = [], [], 0, TRIES
        view = memoryview(line)  # the pieces kept between strings are copied once, by the join, not sliced first
        extended: dict[int, str] = {}
        found = line.find(_OPENINGS[0])  # the compact opening, what the Collector writes: found with its place at once
        if found >= 0:
            opening, start = _OPENINGS[0], found + len(_OPENINGS[0])
        else:
            opening = _opening(line)
            start = line.find(opening, last) + len(opening) if opening else -1
        while start >= len(opening or b"") and tries:
            earlier = self._earlier(line, start)
            # The string ends at the first `]"` past what it resends: a quote inside it is escaped.
            end = line.find(b']"', start + (len(earlier.written) if earlier else 0)) + 1
            if end <= 0:
                break
            text = self._read(line, start, end, earlier, made)
            if text is not None and earlier is not None:
                extended[id(text)] = earlier.text
            if text is None:
                tries, end = tries - 1, start  # the next string may begin before that `]"`
            else:
                pieces += (view[last:start], _MARKER, b"%d" % len(texts))
                texts.append(text)
                last = end
            start = line.find(opening, end) + len(opening)
        if not texts:
            return self._whole(line)
        marked = b"".join((*pieces, view[last:]))
        if self._typed is not None:
            value = self._typed(marked)
            if value is not None and _restored(otlp_typed.input_values(value["resourceSpans"], ATTRIBUTE), texts):
                value["resourceSpans"].extended = extended
                return value
        try:
            value = self._loads(marked)
        except ValueError:
            return self._loads(line)
        return value if _restored(_input_values(value), texts) else self._loads(line)

    def _whole(self, line: bytes) -> Any:
        """A line without strings taken as read: typed when the typed decoder answers for it."""
        value = self._typed(line) if self._typed is not None else None
        return self._loads(line) if value is None else value

    def _earlier(self, line: bytes, start: int) -> _Earlier | None:
        """The most recently read string that the string at `start` starts with, less its `]`. (Any
        one that matches gives the same text; the latest is the likeliest, being the same run's.)"""
        for earlier in reversed(self._by_opening.get(line[start: start + OPENING], ())):
            if line.startswith(earlier.written, start):
                return earlier
        return None

    def _read(self, line: bytes, start: int, end: int, earlier: _Earlier | None, made: list[_Earlier]) -> str | None:
        """The text of the string whose bytes are `line[start:end]`, reading only those after `earlier`'s;
        None when they are not one JSON string's. What it remembers is added to `made`."""
        key = line[start: start + OPENING]
        kept = self._by_opening.pop(key, [])  # put back last: the least recently used openings go first
        try:
            if earlier is None:
                text = orjson.loads(memoryview(line)[start - 1: end + 1])
            else:
                text = earlier.text[:-1]
                # In place: CPython grows a string nothing else holds instead of copying it again.
                text += orjson.loads(b'"' + line[start + len(earlier.written): end] + b'"')
        except orjson.JSONDecodeError:
            text = None
        if type(text) is str:
            if earlier is not None:
                kept.remove(earlier)
                earlier.kept = False
                self._held -= len(earlier.written)
                self.saved_bytes += len(earlier.written)
            if end - start > OPENING:
                made.append(_Earlier(memoryview(line)[start: end - 1], text))
                kept.append(made[-1])
                self._held += end - 1 - start
                self._drop(kept[:-KEPT])
                del kept[:-KEPT]
        if kept:
            self._by_opening[key] = kept
        while self._held > KEEP_BYTES and self._by_opening:
            self._drop(self._by_opening.pop(next(iter(self._by_opening))))
        return text if type(text) is str else None

    def _drop(self, dropped: list[_Earlier]) -> None:
        for earlier in dropped:
            earlier.kept = False
            self._held -= len(earlier.written)


def _restored(holders: Iterator[Any], texts: list[str]) -> bool:
    """Put each text back in place of its marker, in the holders of the document's input strings (dicts, or
    otlp_typed's AnyValue structs); whether every marker came back as a whole string."""
    restored = 0
    for holder in holders:
        typed = type(holder) is otlp_typed.AnyValue
        marker = holder.stringValue if typed else holder["stringValue"]
        if marker.startswith(_MARKER_TEXT):
            number = marker[len(_MARKER_TEXT):]
            if not (number.isdecimal() and int(number) < len(texts)):
                return False
            if typed:
                holder.stringValue = texts[int(number)]
            else:
                holder["stringValue"] = texts[int(number)]
            restored += 1
            if restored == len(texts):
                return True  # each marker was put in once: none is left further on
    return False


def _opening(line: bytes) -> bytes | None:
    """How the line opens `gen_ai.input.messages` strings, or None when it has none."""
    if ATTRIBUTE.encode() not in line:  # one scan of a line that has none, not one per way of writing it
        return None
    return next((opening for opening in _OPENINGS if opening in line), None)


def _input_values(document: Any) -> Iterator[dict]:
    """The `{"stringValue": ...}` of every `gen_ai.input.messages` attribute of an OTLP/JSON document,
    in the order the document writes them."""
    for resource in _listed(document, "resourceSpans"):
        scopes = _listed(resource, "scopeSpans") or _listed(resource, "instrumentationLibrarySpans")
        for scope in scopes:
            for span in _listed(scope, "spans"):
                for attribute in _listed(span, "attributes"):
                    if type(attribute) is dict and attribute.get("key") == ATTRIBUTE:
                        value = attribute.get("value")
                        if type(value) is dict and type(value.get("stringValue")) is str:
                            yield value


def _listed(holder: Any, key: str) -> list:
    value = holder.get(key) if type(holder) is dict else None
    return value if type(value) is list else []
