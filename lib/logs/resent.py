"""Parsing a log's lines without parsing the history they resend.

Every request of a tool-calling conversation carries the whole messages array again, so the lines
of a log grow with the conversation and parsing each line in full costs the square of its length.
When a line's messages array starts with exactly the bytes of an earlier line's whole messages
array, those messages have been parsed already: the parser takes the earlier list and parses only
what follows it.

Nothing is trusted that was not read: equal bytes are equal JSON. The one thing to establish is
that the reused bytes sit at the array's start in this line too, and not, say, inside a string:
1. The reused bytes are replaced by one marker string, and that shorter copy of the line is parsed.
2. If the marker comes back as the first element of a `messages` list, the bytes it replaced were
   whole elements of that list (a JSON value parses the same wherever an element may start), so
   the list is the earlier messages followed by the elements parsed after the marker.
Anything else (no marker there, a copy that does not parse) falls back to parsing the whole line,
which is also what names the problem of a bad line.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Callable

import orjson

from lib.intern import DEEPEST, kept_shallow, loads_exact, nests_deeper
from lib.logs.resent_text import ResentTexts

_MARKER_TEXT = "\x00roundtrip:" + secrets.token_hex(16)
"""Stands in for reused bytes; random per process, so no log can contain it by chance or design."""
_MARKER = orjson.dumps(_MARKER_TEXT)
_KEY = b'"messages"'
_SPANS = b'{"resourceSpans":'
"""How the OpenTelemetry Collector's file exporter starts every line."""
_WHITESPACE = b" \t\r\n"
_TRAILING = "unexpected content after document"
"""orjson's message when a document goes on after its value: how the end of an array is found."""

SMALL_LINE = 4096
"""Lines shorter than this are parsed whole: there is too little to save to pay for looking."""
KEEP_ARRAYS = 64
"""Arrays remembered for reuse: one per conversation in progress is what a log needs."""
KEEP_BYTES = 64 * 1024 * 1024
"""The most bytes of remembered arrays held at once."""
SPARE_BYTES = 1024 * 1024
"""How far the parser may spend ahead of what it saved: remembering an array that no later line
resends costs a second parse of it, so a log that never resends stops paying after this much."""


@dataclass(frozen=True, slots=True, eq=False)
class _Array:
    """A messages array seen in an earlier line."""

    elements: bytes
    """Its elements exactly as the line wrote them: the bytes between `[` and `]`, trailing
    whitespace stripped."""
    messages: list
    """Those elements, parsed."""


class Refused(ValueError):
    """A line that parses, but that JSON readers disagree on: it is reported rather than guessed at."""

    def __init__(self, problem: str, joined: str = "; ") -> None:
        self.problem = problem
        """What readers disagree on, said of the line or document that holds it."""
        self.joined = joined
        """What joins the problem to what is skipped for it."""
        super().__init__(self.skipping("line"))

    def skipping(self, unit: str) -> str:
        """The problem, and that the `unit` holding it (a line, an element, a whole document) is skipped."""
        return f"{self.problem}{self.joined}the {unit} is skipped"


_QUOTE = b'"'


def check_keys(document: bytes | str, value: Any, start: int = 0, end: int | None = None) -> None:
    """Raise Refused when an object in `document[start:end]` (parsed as `value`) repeats a key.

    orjson keeps a repeated key's last value without a word, while other readers keep the first.
    Written back, a value has as many quotes as the document unless a key was dropped: every string
    has its two, and a quote inside a string is `\\"` in both (only a document that writes one as
    `\\u0022` has fewer, which can hide a repeat). Fewer means a repeat, and only then is the line
    parsed again to name the key. Quotes rather than `":`: a single byte is counted twice as fast,
    which matters on lines of long strings, and space before a colon no longer hides a repeat."""
    quote = _QUOTE if isinstance(document, bytes) else '"'
    written = document.count(quote, start, len(document) if end is None else end)
    try:
        again = orjson.dumps(value).count(_QUOTE)
    except orjson.JSONEncodeError:
        return  # deeper than orjson writes, or a lone surrogate: nothing to compare with
    if again < written:
        raise Refused(_repeated_key(document[start:end]), ", so ")


def _repeated_key(document: bytes | str) -> str:
    found: list[str] = []

    def pairs(items: list) -> dict:
        keys = [k for k, _ in items]
        if not found and len(set(keys)) < len(keys):
            found.extend(k for k in keys if keys.count(k) > 1)
        return dict(items)

    try:
        json.loads(document, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        pass
    return repeated_words(found[0] if found else None)


def repeated_words(key: str | None) -> str:
    """What is wrong with an object that writes `key` twice (None: a key check_keys could not name)."""
    return f"has {repr(key) if key is not None else 'a key'} twice in one object; readers disagree on which value counts"


class Repeats(dict):
    """An object that writes a key twice, as repeats_marked reads it: the first key repeated in `repeated`."""

    repeated: str


def repeats_marked(document: bytes) -> Any:
    """`document` read again by the standard library, each object that writes a key twice a `Repeats`; None when it
    does not read. Asked only once check_keys has refused the document, to say which of its elements holds the repeat."""
    def pairs(items: list) -> dict:
        keys = [k for k, _ in items]
        if len(set(keys)) == len(keys):
            return dict(items)
        marked = Repeats(items)
        marked.repeated = next(k for k in keys if keys.count(k) > 1)
        return marked

    try:
        return json.loads(document, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None


def first_repeat(value: Any, besides: Any = None) -> str | None:
    """The key repeated by the first object in `value` that repeats one (repeats_marked), leaving out `besides`; None
    when none does."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is besides:
            continue
        if type(item) is Repeats:
            return item.repeated
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _refuse_constant(name: str) -> Any:
    raise Refused(f"has {name}, which JSON does not allow")


def _may_hold_constant(line: bytes | str) -> bool:
    """Whether a line that did not parse could hold NaN or Infinity: a scan in C, so a file of a
    million broken lines is not parsed a second time line by line."""
    if isinstance(line, str):
        return "NaN" in line or "Infinity" in line
    return b"NaN" in line or b"Infinity" in line


def strict_loads(line: bytes | str) -> Any:
    """orjson.loads, except that a repeated key or a NaN or Infinity is named (Refused), not taken in
    silence or reported as a stray character."""
    try:
        value = loads_exact(line)
    except orjson.JSONDecodeError as exc:
        if _may_hold_constant(line) and "depth limit" not in exc.msg:
            try:  # the standard library reads NaN and Infinity: it finds them for us
                json.loads(line, parse_constant=_refuse_constant)
            except Refused:
                raise
            except (ValueError, RecursionError):
                pass
        raise
    check_keys(line, value)
    return value


def spans_checked_loads(document: bytes) -> Any:
    """loads_exact of a one-document file, refusing an OTLP/JSON traces document (`resourceSpans`) that repeats a
    key as strict_loads refuses the same document written as a collector's line. Only those: writing any other
    large document back to count its quotes would cost a good part of its parse, for files that have no line form."""
    value = loads_exact(document)
    if type(value) is dict and "resourceSpans" in value:
        check_keys(document, value)
    return value


class ResentParser:
    """Parses the lines of one file, reusing the messages of earlier lines a line resends."""

    def __init__(self, loads: Callable[[bytes], Any] = strict_loads, typed: Callable[[bytes], Any] | None = None) -> None:
        self._loads = loads
        """The whole-line parser, used for every line this one cannot take a shortcut on."""
        self.texts = ResentTexts(loads, typed)
        """The parser of lines that resend their history inside strings (OTLP spans) instead."""
        self._arrays: list[_Array] = []
        """Remembered arrays, the most recently used first."""
        self._held = 0
        """Bytes of the remembered arrays' elements."""
        self.saved_bytes = 0
        """Bytes of resent history taken as read instead of parsed again."""
        self.spent_bytes = 0
        """Bytes parsed a second time to remember their arrays."""
        self.reused_lines = 0
        """Lines read by reusing an earlier line's messages."""
        self.read_from: bytes | str = b""
        """What the last line was read from: the line, less the history taken as read from an earlier line's
        (checked there), so a check of what is new in a line need not read the whole line again."""

    def parse(self, line: bytes | str) -> Any:
        """The line's JSON value; raises exactly what the whole-line parser raises on a bad line."""
        self.read_from = line
        worth_it = isinstance(line, bytes) and len(line) >= SMALL_LINE
        if worth_it and line.startswith(_SPANS):
            # Not checked for depth: checking every collector line whole costs a third of its import, and what a
            # span carries lies in strings that lib/logs/spans.py parses on its own.
            self.read_from = b""
            return self.texts.parse(line)  # a collector's line: no messages array to look for in it
        opening = _array_opening(line) if worth_it else None
        if opening is None:
            return self.texts.parse(line) if worth_it else self._loads(line)
        for earlier in self._arrays:
            if line.startswith(earlier.elements, opening + 1):
                value = self._parse_after(line, opening, earlier)
                if value is not None:
                    return value
                break
        if self.spent_bytes > self.saved_bytes + SPARE_BYTES:
            return self._loads(line)
        value = self._parse_remembering(line, opening)
        return self._loads(line) if value is None else value

    def kept_shallow(self, value: Any) -> list[str]:
        """Each field of the last line's `value` nested more than DEEPEST levels deep, said as a problem, and kept
        below that depth as its JSON text: Python's recursive code (json, copying, rendering) cannot walk it."""
        if not self.read_from or not nests_deeper(self.read_from):  # nothing read from (a collector's line): none
            return []
        return [f"has {field} nested more than {DEEPEST} levels deep; shown as text" for field in kept_shallow(value)]

    def _parse_after(self, line: bytes, opening: int, earlier: _Array) -> Any:
        """The line parsed with `earlier`'s elements taken as read, or None when that does not hold."""
        reused = len(earlier.elements)
        marked = b"".join((line[: opening + 1], _MARKER, line[opening + 1 + reused:]))
        closing = _array_closing(marked, opening)
        if closing is None:
            return None
        value = _parse_or_none(marked)
        holder = _marker_holder(value)
        if holder is None:
            return None
        check_keys(marked, value)
        messages = earlier.messages + holder["messages"][1:]
        holder["messages"] = messages
        closing += reused - len(_MARKER)  # from the marked copy back to the line
        self._forget(earlier)
        self._remember(_Array(line[opening + 1: closing].rstrip(_WHITESPACE), messages))
        self.saved_bytes += reused
        self.reused_lines += 1
        self.read_from = marked
        return value

    def _parse_remembering(self, line: bytes, opening: int) -> Any:
        """The line parsed with its messages array remembered for later lines, or None."""
        closing = _array_closing(line, opening)
        if closing is None:
            return None
        messages = _parse_or_none(memoryview(line)[opening: closing + 1])
        marked = b"".join((line[: opening + 1], _MARKER, line[closing:]))
        value = _parse_or_none(marked)
        holder = _marker_holder(value)
        if holder is None or len(holder["messages"]) != 1 or not isinstance(messages, list):
            return None
        check_keys(line, messages, opening, closing + 1)
        check_keys(marked, value)
        holder["messages"] = messages
        self.spent_bytes += closing - opening
        if messages:
            self._remember(_Array(line[opening + 1: closing].rstrip(_WHITESPACE), messages))
        return value

    def _remember(self, array: _Array) -> None:
        self._arrays.insert(0, array)
        self._held += len(array.elements)
        while len(self._arrays) > KEEP_ARRAYS or (len(self._arrays) > 1 and self._held > KEEP_BYTES):
            self._held -= len(self._arrays.pop().elements)

    def _forget(self, array: _Array) -> None:
        # A conversation's next line extends its newest array; the older one would only cost memory.
        self._arrays.remove(array)
        self._held -= len(array.elements)


def _array_opening(line: bytes) -> int | None:
    """Where the line's first `"messages": [` opens its array, or None."""
    key = line.find(_KEY)
    if key < 0:
        return None
    position = skip_whitespace(line, key + len(_KEY))
    if line[position: position + 1] != b":":
        return None
    position = skip_whitespace(line, position + 1)
    return position if line[position: position + 1] == b"[" else None


def skip_whitespace(data: bytes, position: int) -> int:
    """The first position at or after `position` that is not JSON whitespace (or the end)."""
    while position < len(data) and data[position] in _WHITESPACE:
        position += 1
    return position


def _array_closing(document: bytes, opening: int) -> int | None:
    """Where the `]` closing the array that opens at `opening` is, or None when it does not parse."""
    end = value_end(document, opening, len(document))
    return end - 1 if end is not None and document[end - 1] == ord("]") else None


def value_end(document: bytes, start: int, window: int) -> int | None:
    """Where the JSON value that starts at `start` ends (just past it), or None when none does.

    orjson reads its whole input before parsing, so a value inside a long document is parsed from
    a window after `start` that doubles until the value ends inside it (trailing content follows
    the value) or the window reaches the document's end."""
    while True:
        stop = min(len(document), start + window)
        view = memoryview(document)[start:stop]
        try:
            orjson.loads(view)
        except orjson.JSONDecodeError as exc:
            if exc.msg.startswith(_TRAILING):
                # orjson counts characters; the bytes before the trailing content give the byte offset.
                chars = exc.pos
                # ("ignore" only drops a character the window may have cut in two, after the value.)
                used = chars if bytes(view[:chars]).isascii() else len(bytes(view).decode(errors="ignore")[:chars].encode())
                end = start + used
                break
            if stop == len(document):
                return None
        else:
            if stop == len(document):
                end = stop
                break
            # A number cut short by the window parses too; only trailing content proves the end.
        window *= 2
    while end > start and document[end - 1] in _WHITESPACE:
        end -= 1
    return end


def _parse_or_none(document: bytes | memoryview) -> Any:
    try:
        return loads_exact(document)
    except orjson.JSONDecodeError:
        return None


def _marker_holder(value: Any, depth: int = 3) -> dict | None:
    """The object whose `messages` list starts with the marker, searched a few objects deep."""
    if not isinstance(value, dict):
        return None
    messages = value.get("messages")
    if isinstance(messages, list) and messages and messages[0] == _MARKER_TEXT:
        return value
    if depth:
        for inner in value.values():
            found = _marker_holder(inner, depth - 1)
            if found is not None:
                return found
    return None


def hold_interned(body: dict, messages: list) -> None:
    """Put a request's interned messages into the parsed list they were read from.

    The parser hands that very list to the next line that resends it; holding the interned
    messages, the next request's check against this one walks identical pointers instead of
    comparing equal dicts, and the parsed duplicates are freed at once."""
    sent = body.get("messages")
    if type(sent) is list and len(sent) == len(messages):
        sent[:] = messages
