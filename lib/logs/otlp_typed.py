"""OTLP/JSON span documents decoded straight into typed structs: the shape the GenAI instrumentations
and the Collector write, and nothing else.

Parsing a document into dicts builds every key of every span (and of every `{key, value}` attribute)
as objects that the span reader then looks up one by one. A msgspec decoder that knows the shape
builds the fields as structs, in C, in half the time, and they are freed faster. It takes a document
only when reading it so gives exactly what parsing it whole with orjson gives:
- every field of OTLP's trace schema is declared and no other key is allowed, so no byte of the
  document is skipped unread: msgspec checks the UTF-8, the escapes and the numbers of every value as
  orjson does (a value it skipped it would not check), and nesting is bounded by the schema;
- a field of another type, a null where the general reader would see a key, an AnyValue nested in a
  nested list, times not written as OTLP's digit strings, an empty trace id, an old
  `instrumentationLibrarySpans` resource, a key beside `resourceSpans`: `decode` answers None and the
  document is parsed as before, by the general reader (which also names the problems of a broken one).
Integers beyond 64 bits stay the integers written, as lib.intern.loads_exact keeps them for the
general reader.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET, UnsetType

from lib.logs.chat_shape import as_int


class _Strict(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Every struct here: no key beyond the declared ones, no cycles to collect, and written back with only
    the fields the document wrote (see `decode_unrepeated`)."""


class LeafValue(_Strict):
    """A value inside an array or a key-value list: one that nests no further."""

    stringValue: Union[str, UnsetType] = UNSET
    """A string."""
    intValue: Union[str, UnsetType] = UNSET
    """An int64, written as digits."""
    boolValue: Union[bool, UnsetType] = UNSET
    """A boolean."""
    doubleValue: Union[int, float, UnsetType] = UNSET
    """A number (an integral one stays an int, as orjson reads it)."""
    bytesValue: Union[str, UnsetType] = UNSET
    """Bytes, as base64 text."""


class ArrayValue(_Strict):
    """`{"values": [value]}`."""

    values: Union[list[LeafValue], None] = None
    """The values; absent when none."""


class KeyValue(_Strict):
    """One pair of a key-value list."""

    key: Union[str, UnsetType] = UNSET
    """Its key."""
    value: Union[LeafValue, None] = None
    """Its value."""


class KeyValueList(_Strict):
    """`{"values": [KeyValue]}`."""

    values: Union[list[KeyValue], None] = None
    """The pairs; absent when none."""


class AnyValue(LeafValue):
    """An attribute's value, one field per kind; a null field or a field of another type leaves the
    document to the general reader."""

    arrayValue: Union[ArrayValue, None, UnsetType] = UNSET
    """A list of values."""
    kvlistValue: Union[KeyValueList, None, UnsetType] = UNSET
    """A list of key-value pairs."""


class Attribute(_Strict):
    """One `{key, value}` attribute."""

    key: str
    """The attribute's dotted name."""
    value: AnyValue
    """Its value."""


Attributes = Union[list[Attribute], None]
"""A list of attributes, absent when empty."""
Count = Union[int, None]
"""A count of dropped items, a flag word."""


class Status(_Strict):
    """A span's status, as far as `spans._failure` reads it (a field of another kind, or another field, leaves the
    document to the general reader)."""

    code: Union[int, str, UnsetType] = UNSET
    """OTLP's status code (2, or its name)."""
    status_code: Union[int, str, UnsetType] = UNSET
    """The code as SDK dumps name it."""
    message: Union[str, UnsetType] = UNSET
    """Why it failed."""
    description: Union[str, UnsetType] = UNSET
    """Why it failed, as SDK dumps name it."""


class Event(_Strict):
    """Something that happened during a span (not read: declared so that its bytes are checked)."""

    timeUnixNano: Union[str, None] = None
    """When."""
    name: Union[str, None] = None
    """What."""
    attributes: Attributes = None
    """Its attributes."""
    droppedAttributesCount: Count = None
    """Attributes left out."""


class Link(_Strict):
    """A span this one links to (not read: declared so that its bytes are checked)."""

    traceId: Union[str, None] = None
    """Its trace."""
    spanId: Union[str, None] = None
    """Its span."""
    traceState: Union[str, None] = None
    """W3C trace state."""
    attributes: Attributes = None
    """Its attributes."""
    droppedAttributesCount: Count = None
    """Attributes left out."""
    flags: Count = None
    """Trace flags."""


class Span(_Strict):
    """A span: the fields the reader reads, and the others of OTLP's schema, checked but not read."""

    traceId: str = ""
    """The trace id; an empty one leaves the document to the general reader, which looks for others."""
    startTimeUnixNano: str = ""
    """Start time, nanoseconds as digits."""
    endTimeUnixNano: str = ""
    """End time, nanoseconds as digits."""
    attributes: Attributes = None
    """The attributes; absent when the span has none."""
    status: Union[Status, None] = None
    """Whether it ended with an error, and why."""
    spanId: Union[str, None] = None
    """Its own id."""
    parentSpanId: Union[str, None] = None
    """The span it ran in."""
    traceState: Union[str, None] = None
    """W3C trace state."""
    flags: Count = None
    """Trace flags."""
    name: Union[str, None] = None
    """What the instrumentation called it."""
    kind: Union[int, str, None] = None
    """Client, server, internal..."""
    droppedAttributesCount: Count = None
    """Attributes left out."""
    events: Union[list[Event], None] = None
    """What happened during it."""
    droppedEventsCount: Count = None
    """Events left out."""
    links: Union[list[Link], None] = None
    """Spans it links to."""
    droppedLinksCount: Count = None
    """Links left out."""


class Scope(_Strict):
    """A `scopeSpans` entry."""

    spans: Union[list[Span], None] = None
    """Its spans; absent when the scope sent none."""
    scope: Union[Instrumentation, None] = None
    """The instrumentation that wrote them (not read)."""
    schemaUrl: Union[str, None] = None
    """The semantic conventions' schema (not read)."""


class Instrumentation(_Strict):
    """An instrumentation scope (not read)."""

    name: Union[str, None] = None
    """Its name."""
    version: Union[str, None] = None
    """Its version."""
    attributes: Attributes = None
    """Its attributes."""
    droppedAttributesCount: Count = None
    """Attributes left out."""


class Resource(_Strict):
    """A `resourceSpans` entry."""

    scopeSpans: Union[list[Scope], None] = None
    """Its scopes; absent when the resource sent no spans."""
    resource: Union[ResourceAttributes, None] = None
    """What sent them (not read)."""
    schemaUrl: Union[str, None] = None
    """The semantic conventions' schema (not read)."""


class ResourceAttributes(_Strict):
    """A resource (not read)."""

    attributes: Attributes = None
    """Its attributes."""
    droppedAttributesCount: Count = None
    """Attributes left out."""


class Document(_Strict):
    """An OTLP/JSON traces document."""

    resourceSpans: list[Resource]
    """Every resource's spans."""


class Resources(list):
    """The typed `resourceSpans` of a document, so the span reader knows to read its entries as structs."""

    __slots__ = ("extended",)

    def __init__(self, resources: list[Resource]) -> None:
        super().__init__(resources)
        self.extended: dict[int, str] = {}
        """By the id of a `gen_ai.input.messages` text: the earlier text lib/logs/resent_text.py read it as
        extending, the bytes they share compared there (see spans._ResentInputs.parents)."""


NO_STATUS = Status()
"""The status `{}`: what a span that did not fail nearly always writes."""
_DECODER = msgspec.json.Decoder(Document)
_ENCODER = msgspec.json.Encoder()


def decode(data: bytes) -> dict | None:
    """`{"resourceSpans": Resources}` for a document of the shape above; None for anything else."""
    document = _decoded(data)
    return None if document is None else {"resourceSpans": Resources(document.resourceSpans)}


def decode_unrepeated(data: bytes) -> dict | None:
    """`decode` for the lines of a log and for a one-document file, whose readers refuse an object that writes a key
    twice (lib/logs/resent.py's check_keys): None, leaving the document to them, unless the document written back
    has as many quotes as `data` (a key written twice is read once, and written back once). Only the copy with the
    resent message texts taken out is written back (lib/logs/resent_text.py): some 15 MB of a 100 MB document."""
    document = _decoded(data)
    if document is None or _ENCODER.encode(document).count(b'"') != data.count(b'"'):
        return None
    return {"resourceSpans": Resources(document.resourceSpans)}


def _decoded(data: bytes) -> Document | None:
    try:
        document = _DECODER.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    for resource in document.resourceSpans:
        for scope in resource.scopeSpans or ():
            for span in scope.spans or ():
                if not (span.traceId and span.startTimeUnixNano.isdecimal() and span.endTimeUnixNano.isdecimal()):
                    return None
    return document


def input_values(resources: Resources, attribute: str) -> Any:
    """The value of every `attribute` attribute holding a string, in the order the document writes them."""
    for resource in resources:
        for scope in resource.scopeSpans or ():
            for span in scope.spans or ():
                for item in span.attributes or ():
                    if item.key == attribute and type(item.value.stringValue) is str:
                        yield item.value


def spans(resources: Resources) -> Any:
    """Every span of the document."""
    for resource in resources:
        for scope in resource.scopeSpans or ():
            yield from scope.spans or ()


def flat_attributes(span: Span, into: type[dict] = dict) -> tuple[dict, bool]:
    """The span's attributes as the flat dict `spans._otlp_attributes` makes of them (built as `into`, a dict
    or a subclass, so that the reader need not copy it), and whether a value in it is an object (a key-value
    list's)."""
    flat, objects = into(), False
    for item in span.attributes or ():
        value = item.value
        text = value.stringValue
        # A string alone is nearly every attribute; it also wins over a bool, a double or bytes beside it.
        if text is not UNSET and value.intValue is UNSET and value.arrayValue is UNSET and value.kvlistValue is UNSET:
            flat[item.key] = text
        else:
            flat[item.key] = found = plain(value)
            objects = objects or type(found) is dict
    return flat, objects


def plain(value: LeafValue) -> Any:
    """The value as `spans._any_value` reads the same AnyValue parsed by orjson: the first kind present
    in its order (int, array, key-value list, string, bool, double, bytes), None when none is."""
    if value.intValue is not UNSET:
        return as_int(value.intValue)
    if type(value) is LeafValue:
        return _scalar(value)
    if value.arrayValue is not UNSET:
        values = value.arrayValue.values if value.arrayValue is not None else None
        return [plain(v) for v in values] if values is not None else []
    if value.kvlistValue is not UNSET:
        pairs = value.kvlistValue.values if value.kvlistValue is not None else None
        return {str(None if kv.key is UNSET else kv.key): None if kv.value is None else plain(kv.value)
                for kv in pairs} if pairs is not None else {}
    return _scalar(value)


def _scalar(value: LeafValue) -> Any:
    for found in (value.stringValue, value.boolValue, value.doubleValue, value.bytesValue):
        if found is not UNSET:
            return found
    return None


def status(span: Span) -> dict | None:
    """The span's status as the dict orjson parses it into; None when absent."""
    found = span.status
    if found is None or found == NO_STATUS:  # `{}`, what a span that did not fail nearly always writes
        return None if found is None else {}
    return {name: getattr(found, name) for name in found.__struct_fields__ if getattr(found, name) is not UNSET}
