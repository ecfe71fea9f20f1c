"""Tracing spans: OpenTelemetry GenAI (current and legacy keys), OpenInference and the Vercel AI SDK's `ai.*`
spans, converted to Chat Completions.

A line holds one span (attributes as a flat dict, or OTLP's `[{key, value}]` list) or a whole
OTLP/JSON `{"resourceSpans": [...]}` document. Only model-call spans become calls; their trace id
names the conversation and their start time orders it. Tool-execution spans of the same trace
become the executions of the call whose response asked for them, so every span is held until
the end of the file.

Attribute keys are dotted paths (`llm.input_messages.0.message.role`); where a path needs it they
are nested into a tree, so the flattened conventions read like the JSON ones. A GenAI span whose keys
are all leaves, none above or below a path read (what the instrumentations write), skips every such
check: its flat attributes answer the lookups as they are (`_Plain`, the fast path).

It runs past 400 lines because OpenTelemetry GenAI, OpenInference and the AI SDK's spans are one family read
through one attribute tree; each convention's keys sit beside the others they must not be confused with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Iterator

import orjson

from lib.dialects import OPENAI
from lib.dialects.common import arguments_value
from lib.intern import DEEPEST, canonical_json, loads_exact, nests_deeper
from lib.logs import chat_shape as convert
from lib.logs import otlp_typed
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem, file_of
from lib.text import json_said, plural

TRACE_ID_KEYS = ("traceId", "trace_id", "context", "context.trace_id")
"""Keys a span carries its trace id under (OTLP, SDK dumps, console exporter, flattened exports)."""

CHAT_OPERATIONS = ("chat", "text_completion", "generate_content")
"""`gen_ai.operation.name` values of a model call."""

FINISH_REASONS = {
    "tool_call": "tool_calls", "tool_calls": "tool_calls", "tool_use": "tool_calls", "function_call": "tool_calls",
    "stop": "stop", "end_turn": "stop", "stop_sequence": "stop", "STOP": "stop",
    "length": "length", "max_tokens": "length", "MAX_TOKENS": "length",
    "content_filter": "content_filter", "SAFETY": "content_filter",
    "tool-calls": "tool_calls", "content-filter": "content_filter",  # the Vercel AI SDK's words
}
"""Finish reasons as spans write them (the semconv's, or the provider's raw value) in Chat Completions words."""

MESSAGE_KEYS = ("gen_ai.input", "gen_ai.output", "gen_ai.prompt", "gen_ai.completion")
"""Attribute prefixes that hold a model call's messages, current and legacy."""

SPAN_ID_KEYS = ("spanId", "span_id")
"""Keys a span carries its own id under; with a trace id they make a span even when it has no attributes."""

ERROR_STATUS = (2, "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")
"""Span status codes that mean the operation failed."""

CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The variable OpenTelemetry's GenAI instrumentations read to record messages; unset, they record none."""

VERCEL_CALLS = (".doGenerate", ".doStream")
"""How the Vercel AI SDK's `ai.operationId` of a provider call ends (`ai.generateText.doGenerate`,
`ai.streamObject.doStream`); the span around them (`ai.generateText`) sums the steps of a whole run."""

VERCEL_TOOL = "ai.toolCall"
"""The Vercel AI SDK's `ai.operationId` of a tool's execution."""

READ_CONVENTIONS = ("OpenTelemetry GenAI (gen_ai.operation.name chat, text_completion or generate_content), "
                    "OpenInference (openinference.span.kind LLM) and the Vercel AI SDK (ai.operationId ending in "
                    ".doGenerate or .doStream)")
"""The model-call spans read here, as the note on an upload of none of them names them."""

PREFIXES_KEPT = 200
"""Spans whose attribute prefixes are counted for that note, while no model call has been read."""

VERCEL_SETTINGS = ("recordInputs", "recordOutputs")
"""The AI SDK's telemetry settings that, set to false, leave a call's messages or its answer off its span."""

HIDDEN_VALUE = "__REDACTED__"
"""What OpenInference writes in place of an `input.value` or `output.value` it was told to hide."""


@dataclass(frozen=True)
class _Unrecorded:
    """What a model-call span that loaded lacks, and which environment variable left it out."""

    lacks: str
    """What the span does not carry: "messages", "request messages" or "answer"."""
    variables: tuple[str, ...]
    """The variable to set (CAPTURE_VARIABLE) or those to unset (OpenInference's HIDE_ ones) to record it."""

    def reason(self) -> str:
        """Why the span lacks it, and what turns its recording back on."""
        them, were = ("it", "was") if len(self.variables) == 1 else ("them", "were")
        if self.variables[0] in VERCEL_SETTINGS:
            return (f"the Vercel AI SDK was told not to record {self._it()}, as experimental_telemetry's "
                    f"{' and '.join(self.variables)} {were} set to false. Leave {them} unset (true is the default) and "
                    f"the SDK records the {self.lacks} again")
        if self.variables == (CAPTURE_VARIABLE,):
            return ("the instrumentation did not capture content. OpenTelemetry's GenAI instrumentations record "
                    f"messages only when {CAPTURE_VARIABLE} is set before they start (SPAN_ONLY or true, as the "
                    "instrumentation's version asks)")
        return (f"OpenInference hid {self._it()}, as {' and '.join(self.variables)} {were} set where the application "
                f"started its instrumentation. Unset {them} (or set {them} to false) and OpenInference records the "
                f"{self.lacks} again")

    def _it(self) -> str:
        return "it" if self.lacks == "answer" else "them"

    def provenance(self) -> dict:
        """The provenance of a round read from such a span, as the native format writes it."""
        return {"origin": "completed",
                "note": f"This span carries no {self.lacks}: {self.reason()}. The model, token counts and finish "
                        f"reason are as recorded; the {self.lacks} cannot be shown.",
                "omitted": ["messages"] if self.lacks != "answer" else []}

    def note(self, lines: list[int]) -> Problem:
        """Said once per upload, at the first of the spans' lines."""
        first, last, count = lines[0], lines[-1], len(lines)
        # Spans of several files run from this file's line to the last file's: that line is said with its file's name.
        elsewhere = file_of(last) if file_of(last) != file_of(first) else None
        where = f", from this line to line {last:,} of {elsewhere}," if elsewhere \
            else f", from this line to line {last:,}," if last != first else ""
        apart = "" if self.lacks == "answer" else (
            ", and calls in traces of their own cannot be joined into one conversation without their messages")
        return Problem(first, f"{plural(count, 'model-call span')}{where} {'carries' if count == 1 else 'carry'} no "
                              f"{self.lacks}: {self.reason()}. Each call's model, token counts and finish reason are "
                              f"shown as recorded, but not the {self.lacks}{apart}.",
                       last if last != first and not elsewhere else None)


UNCAPTURED = _Unrecorded("messages", (CAPTURE_VARIABLE,))
"""A GenAI span written without content capture."""


@dataclass(slots=True)
class _Span:
    """One span, read into the fields every convention shares."""

    line: int
    """The line it came from."""
    trace: str
    """Its trace id: the conversation."""
    start: int | None
    """Start time in nanoseconds since the epoch, when known."""
    duration_ms: float | None
    """End minus start."""
    attributes: _Attributes
    """The attributes, looked up by dotted path."""
    failure: str | None
    """The status message when the span ended with an error."""


@dataclass
class _Held:
    """Everything read so far, held until the end of the file."""

    calls: list[tuple[tuple, CallRecord]] = field(default_factory=list)
    """(sort key, record) per model-call span."""
    tools: list[tuple[tuple, str, dict]] = field(default_factory=list)
    """(sort key, trace id, execution entry) per tool-execution span."""


class SpanFormat(LogFormat):
    """OpenTelemetry GenAI and OpenInference spans, one per line or as an OTLP/JSON document."""

    name = "spans"
    title = "OpenTelemetry / OpenInference spans"
    reads = ("a span with a trace id and 'gen_ai.*', OpenInference or AI SDK attributes, or an OTLP"
             " document's 'resourceSpans'")

    def __init__(self) -> None:
        self._held = _Held()
        self._resent = _ResentInputs()
        self._unrecorded: dict[_Unrecorded, list[int]] = {}
        """The line of every model-call span that lacks its messages or its answer, by what it lacks and why."""
        self._spans = self._calls = 0
        """Spans read, and model-call spans among them."""
        self._not_calls = self._not_call_spans = 0
        """Lines that were one span and no model call, and spans of OTLP documents that were none (the upload's
        summary counts them, so that it adds up)."""
        self._first_line: int | None = None
        self._prefixes: dict[str, int] = {}
        """Spans per attribute prefix (`ai.`, `traceloop.`), counted over the first PREFIXES_KEPT spans while no
        model call has been read: what the note on an upload without one names."""

    def detect(self, obj: dict) -> str | None:
        if "resourceSpans" in obj:
            return "has 'resourceSpans' (an OTLP/JSON document)"
        if "attributes" in obj and any(k in obj for k in TRACE_ID_KEYS):
            return "'attributes' with a trace id (a span)"
        if any(k in obj for k in SPAN_ID_KEYS) and any(k in obj for k in TRACE_ID_KEYS):
            return "a span id with a trace id (a span without attributes)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if any(k in obj for k in TRACE_ID_KEYS):
            return "has a trace id, but neither 'attributes' nor a span id ('spanId', 'span_id')"
        if "attributes" in obj:
            return "has 'attributes', but no trace id ('traceId', 'trace_id' or 'context.trace_id')"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        # Calls wait for finish(): a trace's tool spans and later calls may still come.
        calls, spans = self._calls, self._spans
        if "resourceSpans" in obj:
            try:
                self._take_document(obj, line)
            finally:  # a document with a bad span still loads its good ones
                self._not_call_spans += (self._spans - spans) - (self._calls - calls)
        else:
            self._resent.parents = {}
            self._take(obj, line)
            self._not_calls += self._calls == calls
        yield from ()

    def not_calls(self) -> int:
        return self._not_calls

    def not_call_spans(self) -> int:
        return self._not_call_spans

    def _take_document(self, document: dict, line: int) -> None:
        """Hold every span of an OTLP/JSON document; one bad span does not lose the others."""
        resources = document.get("resourceSpans")
        typed = type(resources) is otlp_typed.Resources
        spans = [span for resource in resources for scope in resource.scopeSpans or () for span in scope.spans or ()] \
            if typed else list(_otlp_spans(document))  # typed: otlp_typed.spans, without a generator's resumptions
        problems = []
        # Ids name objects only while they live: the document's texts live as long as it is read.
        self._resent.parents = resources.extended if typed else {}
        try:
            for number, span in enumerate(spans, start=1):
                try:
                    self._take(span, line, typed)
                except LineProblem as problem:
                    problems.append(f"span {number}: {problem}")
        finally:
            self._resent.parents = {}
        if problems:
            # The good spans of the document are kept; the line is reported for the bad ones.
            raise LineProblem(f"{len(problems)} of {plural(len(spans), 'span')} could not be read "
                              f"({'; '.join(problems[:3])})")

    def _take(self, raw: Any, line: int, typed: bool = False) -> None:
        """Hold one span (a dict, or otlp_typed's Span when `typed`) as a call or a tool run; other spans
        are not ours to show."""
        if typed:
            span = _read_typed_span(raw, line)
        elif not isinstance(raw, dict):
            raise LineProblem(f"a span is {convert.describe(raw)}, expected an object")
        else:
            span = _read_span(raw, line)
        key = (span.start if span.start is not None else float("inf"), len(self._held.calls) + len(self._held.tools))
        kind = _kind(span.attributes)
        self._spans += 1
        if not self._calls and self._spans <= PREFIXES_KEPT:
            self._count_prefixes(span, line)
        if kind in ("gen_ai", "openinference", "vercel"):
            self._calls += 1
            record, unrecorded = _call_record(span, kind, self._resent)
            if unrecorded is not None:
                self._unrecorded.setdefault(unrecorded, []).append(line)
            self._held.calls.append((key, record))
        elif kind is not None:
            self._held.tools.append((key, span.trace, _execution(span, kind)))

    def _count_prefixes(self, span: _Span, line: int) -> None:
        if self._first_line is None:
            self._first_line = line
        attributes = span.attributes
        keys = map(str, attributes.flat if type(attributes) is _Attributes else attributes)
        for prefix in {k[: k.index(".") + 1] if "." in k else k for k in keys}:
            self._prefixes[prefix] = self._prefixes.get(prefix, 0) + 1

    def finish(self) -> Iterator[CallRecord]:
        held, self._held = self._held, _Held()
        # By start alone: the sort is stable, so equal starts stay in the order read, as the key's second part
        # orders them, and a number compares at a fraction of a tuple's cost.
        calls = sorted(held.calls, key=lambda c: c[0][0])
        by_trace: dict[str | None, list[tuple[tuple, CallRecord]]] = {}
        for key, record in calls:
            by_trace.setdefault(record.conversation, []).append((key, record))
        for key, trace, entry in sorted(held.tools, key=lambda t: t[0][0]):
            attach_execution(entry, key, by_trace.get(trace, []))
        _chain_traces(list(by_trace.values()))
        for _, record in calls:
            yield record

    def notes(self) -> list[Problem]:
        notes = [unrecorded.note(lines) for unrecorded, lines in self._unrecorded.items()]
        if self._spans and not self._calls:
            notes.append(self._no_call_note())
        return notes

    def _no_call_note(self) -> Problem:
        """Why spans that loaded gave no round: none was a model call in a convention read here."""
        common = sorted(self._prefixes, key=lambda p: (-self._prefixes[p], p))
        shown = ", ".join(f"{p}*" if p.endswith(".") else p for p in common[:12])
        more = f" and {len(common) - 12:,} more" if len(common) > 12 else ""
        counted = "" if self._spans <= PREFIXES_KEPT else f" (in the first {PREFIXES_KEPT:,} spans)"
        seen = f"Their attribute names{counted}: {shown}{more}." if common else "None of them carries attributes."
        return Problem(self._first_line or 1,
                       f"{plural(self._spans, 'span')} read, and none is a model call in a convention Roundtrip reads: "
                       f"{READ_CONVENTIONS}. {seen} Spans of another instrumentation, or only tool, embedding or "
                       "wrapper spans, give no rounds.", loaded=True)


def _chain_traces(traces: list[list[tuple[tuple, CallRecord]]]) -> None:
    """Give a trace's calls the conversation of an earlier trace whose last request their first extends.

    Instrumentations write each model call as its own trace when nothing wraps the calls in a parent
    span; the requests still show which calls continue which, as request/response pairs do. Ends
    are kept by their first message, so a trace is compared only with the runs it could continue.
    """
    ends: dict[bytes | None, list[tuple[list, str | None]]] = {}
    openings: dict[int, bytes] = {}  # by the message's id: a run's calls share its first message object
    for calls in traces:
        first = _messages(calls[0][1])
        resends = calls[0][1].resends
        best, longest = None, -1
        for key in (None, _opening(first, openings)):
            for end in ends.get(key, ()):
                if len(end[0]) > longest and _starts_with(first, end[0], resends):
                    best, longest = (key, end), len(end[0])
        if best is not None:
            ends[best[0]].remove(best[1])
            for _, record in calls:
                record.conversation = best[1][1]
        last = _messages(calls[-1][1])
        ends.setdefault(_opening(last, openings), []).append((last, calls[0][1].conversation))


def _starts_with(messages: list, run: list, resends: list | None) -> bool:
    """Whether `messages` is `run` with more messages after it. `resends` is the list the reader built `messages` by
    extending (CallRecord.resends): that one is their start by construction, not compared again; any other is
    compared by its last message first, where another conversation's run differs, before the whole slice is."""
    count = len(run)
    if len(messages) <= count:
        return False
    if run is resends or not count:
        return True
    last, theirs = messages[count - 1], run[-1]
    return (last is theirs or last == theirs) and messages[:count] == run


def _opening(messages: list, openings: dict[int, bytes]) -> bytes | None:
    """What a run of messages is kept under: its first message; None for no messages (a prefix of every run).
    `openings` holds the texts already written, by message id (the messages outlive it)."""
    if not messages:
        return None
    found = openings.get(id(messages[0]))
    if found is None:
        found = openings[id(messages[0])] = canonical_json(messages[0])
    return found


def _messages(record: CallRecord) -> list:
    return (record.request or {}).get("messages") or []


# --- reading a span --------------------------------------------------------------------------------


def _otlp_spans(document: dict) -> Iterator[Any]:
    """Every span of an OTLP/JSON document, however deep."""
    resource_spans = document.get("resourceSpans")
    if not isinstance(resource_spans, list):
        raise LineProblem(f"'resourceSpans' is {convert.describe(resource_spans)}, expected a list")
    for resource in resource_spans:
        scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans")) if isinstance(resource, dict) else None
        if isinstance(resource, dict) and scopes is None:
            continue  # the protobuf JSON mapping drops an empty list: a resource that sent no spans
        if not isinstance(scopes, list):
            raise LineProblem(f"a resourceSpans entry has {convert.describe(scopes)} for 'scopeSpans', expected a list")
        for scope in scopes:
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if isinstance(scope, dict) and spans is None:
                continue
            if not isinstance(spans, list):
                raise LineProblem(f"a scopeSpans entry has {convert.describe(spans)} for 'spans', expected a list")
            yield from spans


def _read_span(raw: dict, line: int) -> _Span:
    """The fields every span shape shares, whichever exporter wrote it."""
    attributes = raw.get("attributes")
    if attributes is None:
        # The protobuf JSON mapping drops empty fields: a span with no attributes has no key for them.
        attributes = {}
    if isinstance(attributes, list):
        attributes = _otlp_attributes(attributes)
    elif not isinstance(attributes, dict):
        raise LineProblem(f"'attributes' is {convert.describe(attributes)}, expected an object or a list of {{key, value}}")
    trace = raw.get("traceId")
    if not (type(trace) is str and trace):  # OTLP's own key is the usual one; the others are looked for after it
        trace = _trace_id(raw)
    start, end = raw.get("startTimeUnixNano"), raw.get("endTimeUnixNano")
    if not (type(start) is str and type(end) is str and start.isdecimal() and end.isdecimal()):  # OTLP's own shape, taken first
        start, end = _nanos(raw, ("startTimeUnixNano", "start_time", "startTime")), _nanos(raw, ("endTimeUnixNano", "end_time", "endTime"))
    else:
        start, end = int(start), int(end)
    return _Span(
        line=line,
        trace=trace.removeprefix("0x"),
        start=start,
        duration_ms=(end - start) / 1e6 if start is not None and end is not None and end >= start else None,
        attributes=_Plain(attributes) if _plain(attributes) else _Attributes(attributes),
        failure=_failure(raw.get("status")),
    )


def _read_typed_span(raw: otlp_typed.Span, line: int) -> _Span:
    """`_read_span` of a span decoded by lib/logs/otlp_typed.py, whose fields have OTLP's own shape."""
    attributes, objects = otlp_typed.flat_attributes(raw, _Plain)
    start, end = int(raw.startTimeUnixNano), int(raw.endTimeUnixNano)
    return _Span(
        line=line,
        trace=raw.traceId.removeprefix("0x"),
        start=start,
        duration_ms=(end - start) / 1e6 if end >= start else None,
        attributes=attributes if _plain(attributes, objects) else _Attributes(dict(attributes)),
        # No status, or `{}` (nearly every span that did not fail): no failure, without building the dict to ask.
        failure=None if raw.status is None or raw.status == otlp_typed.NO_STATUS else _failure(otlp_typed.status(raw)),
    )


def _trace_id(raw: dict) -> str:
    """The trace id under whichever key the exporter used."""
    context = convert.object_at(raw, "context")
    trace = next((v for v in (raw.get("traceId"), raw.get("trace_id"), context.get("trace_id"), context.get("traceId"),
                               raw.get("context.trace_id")) if isinstance(v, str) and v), None)
    if trace is None:
        raise LineProblem("the span has no trace id ('traceId', 'trace_id' or 'context.trace_id')")
    return trace


def _otlp_attributes(items: list) -> dict:
    """OTLP's `[{key, value: AnyValue}]` as a flat dict."""
    flat = {}
    try:
        for item in items:
            key, value = item["key"], item["value"]
            # Most attributes are strings, then counts: taken without the general AnyValue walk.
            if type(value) is dict and len(value) == 1 and "stringValue" in value:
                flat[key] = value["stringValue"]
            elif type(value) is dict and len(value) == 1 and type(number := value.get("intValue")) is str \
                    and number.isdecimal():
                flat[key] = int(number)
            else:
                flat[key] = _any_value(value)
            if type(key) is not str:
                break
        else:
            return flat
    except (TypeError, KeyError):
        pass
    return _checked_attributes(items)


def _checked_attributes(items: list) -> dict:
    """`_otlp_attributes` for a list with an odd item: each item checked, the first bad one named."""
    flat = {}
    for position, item in enumerate(items):
        try:
            key, value = item["key"], item.get("value")
        except (TypeError, KeyError):
            key = None
        if type(key) is not str:
            raise LineProblem(f"attributes[{position}] is {convert.describe(item)}, expected {{key, value}}")
        flat[key] = value["stringValue"] if type(value) is dict and len(value) == 1 and "stringValue" in value \
            else _any_value(value)
    return flat


def _any_value(value: Any) -> Any:
    """An OTLP AnyValue as plain JSON; int64 arrives as a string."""
    if not isinstance(value, dict):
        return value
    if "intValue" in value:
        return convert.as_int(value["intValue"])
    if "arrayValue" in value:
        values = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [_any_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in value:
        values = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        return {str(kv.get("key")): _any_value(kv.get("value")) for kv in values if isinstance(kv, dict)} \
            if isinstance(values, list) else {}
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    return None


class _Attributes(dict):
    """A span's attributes, looked up by dotted path as `attributes[path]` (None when absent); nested
    into a tree only when a path needs one.

    Spans that write each attribute under its own full key (the GenAI message attributes) are
    answered from the flat dict: nesting every span's keys cost more than the rest of reading it.
    When no key prefixes another and no value is an object, the attributes are the dict itself, so
    a key present is found by a plain dict lookup; any other path is answered by `at`.
    """

    __slots__ = ("flat", "_plan", "_tree")

    DIRECT = True
    """Whether keys present are looked up as a plain dict's; False sends every lookup through `at`
    (the tests compare the two)."""

    def __init__(self, flat: dict) -> None:
        plan = _key_plan(tuple(flat))
        direct = self.DIRECT and plan is not None and dict not in set(map(type, flat.values()))
        super().__init__(flat if direct else ())
        self.flat = flat
        self._plan = plan
        self._tree: dict | None = None

    def __missing__(self, path: str) -> Any:
        return self.at(path)

    def at(self, path: str) -> Any:
        """The value at a dotted path, as `_walk` finds it in the nested tree, or None."""
        flat, plan = self.flat, self._plan
        if plan is not None:
            value = flat.get(path, _ABSENT)
            if value is _ABSENT:
                if path not in plan and flat.keys().isdisjoint(_path_prefixes(path)):
                    return None
            elif type(value) is not dict:  # a dict's digit keys would become a list in the tree
                return value
        if self._tree is None:
            self._tree = _nest(flat)
        return _walk(self._tree, path)


_ABSENT = object()


@lru_cache(maxsize=256)
def _key_plan(keys: tuple) -> frozenset | None:
    """The dotted prefixes of `keys` when each key is a leaf of the tree they make; None when not.

    A key that prefixes another, or a numbered step (a flattened list), needs the tree.
    """
    prefixes = set()
    for key in keys:
        if type(key) is not str:
            return None
        steps = key.split(".")
        if any(step.isdecimal() for step in steps):
            return None
        prefixes.update(".".join(steps[:n]) for n in range(1, len(steps)))
    return None if prefixes.intersection(keys) else frozenset(prefixes)


@lru_cache(maxsize=256)
def _path_prefixes(path: str) -> tuple[str, ...]:
    """`a` and `a.b` for `a.b.c`: keys whose value a path would walk into."""
    steps = path.split(".")
    return tuple(".".join(steps[:n]) for n in range(1, len(steps)))


class _Plain(dict):
    """A GenAI span's attributes when every path the readers ask of such a span is a key or absent
    (see `_plain`): looked up as the flat dict itself, None when absent, without `_Attributes`'s
    checks. The fast path: tests compare it with `_Attributes` on every span fixture."""

    __slots__ = ()

    def __missing__(self, path: str) -> None:
        if path not in PLAIN_PATHS:
            # A reader that asks for a path the fast path was not checked for would read None silently.
            raise KeyError(f"{path!r} is not among spans.PLAIN_PATHS")
        return None


PLAIN_PATHS = frozenset({
    "openinference.span.kind", "gen_ai.operation.name", "gen_ai.input.messages", "gen_ai.output.messages",
    "gen_ai.prompt", "gen_ai.completion", "gen_ai.system_instructions", "gen_ai.tool.definitions",
    "llm.request.functions", "gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
    "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "gen_ai.response.finish_reasons",
    "http.response.status_code", "gen_ai.response.id", "gen_ai.response.model", "llm.model_name",
    "gen_ai.tool.call.id", "gen_ai.tool.name", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
})
"""Every path read of a GenAI model-call or tool span (the OpenInference names among them are asked as fallbacks)."""
_PLAIN_OPERATIONS = frozenset((*CHAT_OPERATIONS, "execute_tool"))
_PLAIN_PREFIXES = frozenset(prefix for path in PLAIN_PATHS for prefix in _path_prefixes(path))


def _plain(flat: dict, objects: bool | None = None) -> bool:
    """Whether `_Attributes` would answer each of PLAIN_PATHS with the flat dict's value, or None when
    absent: a GenAI chat or tool span whose keys are leaves, none of them above or below a path read, and
    no value an object (`objects` says whether one is, when the caller knows)."""
    operation = flat.get("gen_ai.operation.name")
    return _Attributes.DIRECT and type(operation) is str and operation in _PLAIN_OPERATIONS \
        and _plain_keys(tuple(flat)) \
        and (not objects if objects is not None else dict not in set(map(type, flat.values())))


@lru_cache(maxsize=256)
def _plain_keys(keys: tuple) -> bool:
    """Whether no key prefixes another or a path read, none extends a path read, and none is OpenInference's kind."""
    plan = _key_plan(keys)
    return plan is not None and "openinference.span.kind" not in keys and plan.isdisjoint(PLAIN_PATHS) \
        and _PLAIN_PREFIXES.isdisjoint(keys)


def _nest(flat: dict) -> dict:
    """Dotted keys as a tree; numbered steps (`input_messages.0`) become lists."""
    tree: dict = {}
    for key, value in flat.items():
        node = tree
        *path, leaf = str(key).split(".")
        for step in path:
            child = node.get(step)
            if not isinstance(child, dict):
                # A key that is both a value and a prefix keeps its value under "".
                child = node[step] = {} if child is None else {"": child}
            node = child
        if isinstance(node.get(leaf), dict) and not isinstance(value, dict):
            node[leaf][""] = value
        else:
            node[leaf] = value
    return _listed(tree)


def _listed(node: Any) -> Any:
    """Nested dicts whose keys are all numbers, as lists in number order."""
    if not isinstance(node, dict):
        return node
    node = {k: _listed(v) for k, v in node.items()}
    if node and all(k.isdecimal() for k in node):
        return [node[k] for k in sorted(node, key=int)]
    return node


def _walk(tree: Any, path: str) -> Any:
    """The value at a dotted path of the attribute tree, or None."""
    for step in path.split("."):
        if isinstance(tree, list) and step.isdecimal() and int(step) < len(tree):
            tree = tree[int(step)]
        elif isinstance(tree, dict):
            tree = tree.get(step)
        else:
            return None
    return tree


def _json_at(tree: _Attributes, path: str) -> Any:
    """An attribute that may hold JSON written as a string (the GenAI message attributes often do)."""
    return _opened(tree[path], path)


def _opened(value: Any, path: str) -> Any:
    """`value`, parsed when it is JSON written as a string."""
    if not isinstance(value, str):
        return value
    if nests_deeper(value):  # a value past what recursion can walk breaks the views that show or copy it
        raise LineProblem(f"attribute '{path}' nests more than {DEEPEST} levels deep; no model call does")
    try:
        return loads_exact(value)
    except orjson.JSONDecodeError:
        pass
    try:  # orjson refuses what json takes (NaN, lone surrogates): the slower parser decides
        return json.loads(value)
    except ValueError as exc:
        raise LineProblem(f"attribute '{path}' is not valid JSON ({json_said(exc, 'attribute')})") from None


def _nanos(raw: dict, keys: tuple[str, ...]) -> int | None:
    """A span time in nanoseconds: OTLP writes nanoseconds (as a string), SDK dumps ISO 8601."""
    value = next((raw[k] for k in keys if raw.get(k) is not None), None)
    if type(value) is str and value.isdecimal():  # OTLP's own shape, taken first
        return int(value)
    number = convert.as_int(value)
    if number is not None:
        return number
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        return int(moment.timestamp()) * 10**9 + moment.microsecond * 1000
    return None


def _failure(status: Any) -> str | None:
    """Why the span failed, when its status says it did."""
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    if code not in ERROR_STATUS:
        return None
    return str(status.get("message") or status.get("description") or "the span ended with an error")


def _kind(tree: _Attributes) -> str | None:
    """`gen_ai`, `openinference` or `vercel` for a model call, `gen_ai-tool`, `openinference-tool` or `vercel-tool`
    for a tool run."""
    kind = tree["openinference.span.kind"]
    if kind is not None:
        return {"LLM": "openinference", "TOOL": "openinference-tool"}.get(str(kind).upper())
    operation = tree["gen_ai.operation.name"]
    if operation == "execute_tool":
        return "gen_ai-tool"
    if operation in CHAT_OPERATIONS:
        return "gen_ai"
    # Older instrumentations set no operation name; their message keys still say it is a model call.
    if operation is None and any(tree[p] is not None for p in MESSAGE_KEYS):
        return "gen_ai"
    if operation is None:
        # The Vercel AI SDK writes `ai.*` keys and no operation name (a few gen_ai.* beside them on calls).
        sdk = tree["ai.operationId"]
        if type(sdk) is str and sdk.endswith(VERCEL_CALLS):
            return "vercel"
        if sdk == VERCEL_TOOL:
            return "vercel-tool"
    return None


# --- model calls -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Call:
    """What a model-call span says, in whichever convention it was written."""

    inputs: list
    """The request's (role, parts) turns; a list in their place holds messages already converted (see _ResentInputs)."""
    output: list
    """The response's turn, or nothing when the span recorded none."""
    tools: list
    """Tool definitions, as Chat Completions tools."""
    model: Any
    """The model asked for."""
    usage: dict | None
    """Usage as a Chat Completions usage object."""
    finish: str | None
    """The finish reason in Chat Completions words, or None when not recorded."""
    lacked: tuple[str, ...] = ()
    """What the span does not log of the request, as Provenance.omitted names it (`system`, `tools`): not known,
    where a convention records an empty list for none sent."""


def _call_record(span: _Span, kind: str, resent: _ResentInputs) -> tuple[CallRecord, _Unrecorded | None]:
    """The Chat Completions call a model-call span amounts to, and what the span lacks, if anything."""
    tree = span.attributes
    call = _openinference_call(tree) if kind == "openinference" else _vercel_call(tree, resent) if kind == "vercel" \
        else _genai_call(tree, resent)
    request: dict = {"model": call.model} if call.model is not None else {}
    if len(call.inputs) == 1 and isinstance(call.inputs[0], list):
        # The very list read from the text: the next call's list starts with its objects (CallRecord.resends).
        request["messages"], resends = call.inputs[0], resent.extended
    else:
        request["messages"], resends = [m for turn in call.inputs for m in
                                        (turn if isinstance(turn, list) else convert.chat_message(*turn))], None
    if call.tools:
        request["tools"] = call.tools
    response, error = None, None
    if kind == "openinference":
        unrecorded = _hidden(tree, call, span.failure is not None)
    elif kind == "vercel":
        unrecorded = _unrecorded_by_sdk(call, span.failure is not None)
    else:
        unrecorded = UNCAPTURED if not call.inputs and not call.output else None
    answer = convert.chat_messages(call.output)
    assistant = None
    for message in answer:
        if message.get("role") == "assistant":
            assistant = message
            break
    resent.answered(assistant, call.output[0] if len(answer) == 1 and assistant is not None else None)
    if unrecorded is not None and not call.output:
        # The answer's text and calls went unrecorded, not unsaid; its model, usage and finish are on the span.
        assistant = {"role": "assistant", "content": None}
    if span.failure is not None:
        error = {"status": convert.as_int(tree["http.response.status_code"]), "body": {"message": span.failure},
                 "message": span.failure}
    elif assistant is not None and kind == "vercel":
        # Versions before the AI SDK wrote gen_ai.* beside its own keys name the response only under ai.response.*.
        response = convert.chat_completion(
            assistant, call.finish, id=_first(tree, "gen_ai.response.id", "ai.response.id"),
            model=_first(tree, "gen_ai.response.model", "ai.response.model"), usage=call.usage)
    elif assistant is not None:
        response = convert.chat_completion(assistant, call.finish, id=tree["gen_ai.response.id"],
                                           model=_first(tree, "gen_ai.response.model", "llm.model_name"), usage=call.usage)
    return CallRecord(
        line=span.line, dialect=OPENAI, request=request, response=response, error=error,
        conversation=span.trace, latency_ms=span.duration_ms,
        converted_from=CONVERTED_FROM[kind],
        timestamp=convert.iso_time(*divmod(span.start, 1_000_000_000)) if span.start is not None else None,
        resends=resends,
        provenance=_provenance(unrecorded, call.lacked),
    ), unrecorded


UNLOGGED_NOTE = ("The OpenTelemetry GenAI conventions record {lacked} only where the instrumentation opts in, and "
                 "this span carries {none}, so {none} is shown or counted here. The rest is as recorded.")
"""Said of a call whose span leaves out the opt-in instructions or tool definitions (_Call.lacked); whether they were
sent is said once, where each would be (lib.summary), and the source by the round's origin line."""

UNLOGGED_NOTES = {lacked: UNLOGGED_NOTE.format(lacked=what, none=none) for lacked, (what, none) in (
    (("system",), ("the system instructions", "none")),
    (("tools",), ("the tool definitions", "none")),
    (("system", "tools"), ("the system instructions and the tool definitions", "neither")))}
"""UNLOGGED_NOTE for each thing a span may lack, written once: many spans of an agent's run lack the same."""


def _provenance(unrecorded: _Unrecorded | None, lacked: tuple[str, ...]) -> dict | None:
    """A round's provenance: what the span lacks (its messages or answer, its opt-in instructions and tool list)."""
    if not lacked:
        return unrecorded.provenance() if unrecorded is not None else None
    if unrecorded is None:
        return {"origin": "recorded", "note": UNLOGGED_NOTES[lacked], "omitted": list(lacked)}
    provenance = unrecorded.provenance()
    return {**provenance, "omitted": [*provenance["omitted"], *lacked]}


CONVERTED_FROM = {"gen_ai": "otel-genai", "openinference": "openinference", "vercel": "vercel-ai-sdk"}
"""The `converted_from` of a round read from each kind of model-call span (lib/provenance.py names them)."""


def _hidden(tree: _Attributes, call: _Call, failed: bool) -> _Unrecorded | None:
    """What an OpenInference LLM span was told to leave out. OPENINFERENCE_HIDE_INPUTS also writes
    `input.value` as HIDDEN_VALUE, the narrower OPENINFERENCE_HIDE_INPUT_MESSAGES leaves it; outputs alike."""
    hid = []
    if not call.inputs:
        hid.append("OPENINFERENCE_HIDE_INPUTS" if tree["input.value"] == HIDDEN_VALUE
                   else "OPENINFERENCE_HIDE_INPUT_MESSAGES")
    if not call.output and not failed:  # a failed call has no answer to hide
        hid.append("OPENINFERENCE_HIDE_OUTPUTS" if tree["output.value"] == HIDDEN_VALUE
                   else "OPENINFERENCE_HIDE_OUTPUT_MESSAGES")
    if not hid:
        return None
    lacks = "messages" if len(hid) == 2 else "request messages" if not call.inputs else "answer"
    return _Unrecorded(lacks, tuple(hid))


def _unrecorded_by_sdk(call: _Call, failed: bool) -> _Unrecorded | None:
    """What an AI SDK call span was told to leave out (recordInputs, recordOutputs)."""
    off = (*(() if call.inputs else VERCEL_SETTINGS[:1]), *(() if call.output or failed else VERCEL_SETTINGS[1:]))
    if not off:
        return None
    return _Unrecorded("messages" if len(off) == 2 else "request messages" if not call.inputs else "answer", off)


def _openinference_call(tree: _Attributes) -> _Call:
    """An OpenInference LLM span: chat-style messages under llm.*; versions before `llm.finish_reason`
    record no finish reason."""
    return _Call(
        inputs=[_flat_turn(_inner(m, "message")) for m in _list_at(tree, "llm.input_messages")],
        output=[_flat_turn(_inner(m, "message")) for m in _list_at(tree, "llm.output_messages")[:1]],
        tools=[_chat_tool(_opened(_inner(t, "tool").get("json_schema"), "llm.tools")) for t in _list_at(tree, "llm.tools")],
        model=_openinference_model(tree),
        usage=convert.chat_usage(tree["llm.token_count.prompt"], tree["llm.token_count.completion"],
                                 cached=tree["llm.token_count.prompt_details.cache_read"],
                                 reasoning=tree["llm.token_count.completion_details.reasoning"]),
        finish=finish_reason(tree["llm.finish_reason"]),
    )


def _openinference_model(tree: _Attributes) -> Any:
    """The model asked for: OpenInference keeps it among the invocation parameters and names the model
    that answered in `llm.model_name`, the only name a span without those parameters gives."""
    try:
        parameters = _json_at(tree, "llm.invocation_parameters")
    except LineProblem:
        parameters = None  # Settings that do not parse are no reason to lose the call.
    asked = parameters.get("model") if isinstance(parameters, dict) else None
    return asked if isinstance(asked, str) and asked else tree["llm.model_name"]


def _vercel_call(tree: _Attributes, resent: _ResentInputs) -> _Call:
    """A Vercel AI SDK provider call (`ai.generateText.doGenerate`, `ai.streamText.doStream`, ...): the messages it
    sent as AI SDK messages in `ai.prompt.messages`, its answer as `ai.response.text` (or `.object`) and
    `ai.response.toolCalls`. Token counts are `promptTokens`/`completionTokens` before version 5,
    `inputTokens`/`outputTokens` since."""
    resent.latest = resent.extended = None
    sent = _checked_list(_json_at(tree, "ai.prompt.messages"), "ai.prompt.messages")
    inputs = [_vercel_turn(m, "ai.prompt.messages") for m in sent]
    parts: list = []
    text = _first(tree, "ai.response.text", "ai.response.object")
    if isinstance(text, str) and text:
        parts.append(convert.text_part(text))
    for call in _list_json_at(tree, "ai.response.toolCalls"):
        if not isinstance(call, dict):
            raise LineProblem(f"attribute 'ai.response.toolCalls' holds {convert.describe(call)}, expected objects")
        # Version 5 writes the arguments as JSON text under `input`, version 4 as an object under `args`.
        parts.append(convert.tool_call_part(call.get("toolCallId"), call.get("toolName"),
                                            call["input"] if "input" in call else call.get("args")))
    # No text and no calls at all: the SDK was told not to record outputs (recordOutputs: false).
    output = [("assistant", parts)] if parts or text == "" else []
    return _Call(
        inputs=inputs, output=output, tools=[_vercel_tool(t) for t in _list_json_at(tree, "ai.prompt.tools")],
        model=_first(tree, "gen_ai.request.model", "ai.model.id"),
        usage=convert.chat_usage(
            _first(tree, "ai.usage.inputTokens", "ai.usage.promptTokens", "gen_ai.usage.input_tokens"),
            _first(tree, "ai.usage.outputTokens", "ai.usage.completionTokens", "gen_ai.usage.output_tokens"),
            cached=_first(tree, "ai.usage.cachedInputTokens", "ai.usage.inputTokenDetails.cacheReadTokens"),
            reasoning=_first(tree, "ai.usage.reasoningTokens", "ai.usage.outputTokenDetails.reasoningTokens")),
        finish=finish_reason(_first(tree, "ai.response.finishReason") or _first_reason(tree)),
    )


def _vercel_turn(message: Any, attribute: str) -> tuple[str, list]:
    """An AI SDK message, `{role, content}` with content text or a list of typed parts, as a turn."""
    if not isinstance(message, dict):
        raise LineProblem(f"attribute '{attribute}' has {convert.describe(message)} for a message, expected an object")
    content = message.get("content")
    if isinstance(content, str):
        return _role(message), [convert.text_part(content)] if content else []
    if not isinstance(content, list):
        raise LineProblem(f"attribute '{attribute}' has a message whose content is {convert.describe(content)}, "
                          "expected text or a list of parts")
    parts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "tool-call":
            parts.append(convert.tool_call_part(part.get("toolCallId"), part.get("toolName"),
                                                part["input"] if "input" in part else part.get("args")))
        elif kind == "tool-result":
            parts.append(convert.tool_result_part(part.get("toolCallId"), _vercel_result(part)))
        else:
            parts.append(convert.text_or_raw(part))
    return _role(message), parts


def _vercel_result(part: dict) -> Any:
    """What a tool-result part says the tool returned: version 5's typed `output` (`{type: "text" | "json" |
    "error-text" | ..., value}`), or version 4's `result`."""
    output = part.get("output")
    if isinstance(output, dict) and "value" in output:
        return output["value"]
    return output if "output" in part else part.get("result")


def _vercel_tool(tool: Any) -> Any:
    """One `ai.prompt.tools` entry (JSON text of `{type, name, description, inputSchema}`; `parameters` before
    version 5) as a Chat Completions tool."""
    tool = _opened(tool, "ai.prompt.tools")
    if not isinstance(tool, dict):
        return tool
    schema = tool.get("inputSchema", tool.get("parameters"))
    return convert.function_tool(tool.get("name"), tool.get("description"), schema)


def _genai_call(tree: _Attributes, resent: _ResentInputs) -> _Call:
    """An OTel GenAI span: the current message attributes, else the legacy flattened prompt/completion keys."""
    resent.latest = resent.extended = None
    if tree["gen_ai.input.messages"] is None and tree["gen_ai.output.messages"] is None:
        inputs = [_flat_turn(m) for m in _checked_list(_json_at(tree, "gen_ai.prompt"), "gen_ai.prompt")]
        outputs = _checked_list(_json_at(tree, "gen_ai.completion"), "gen_ai.completion")[:1]
        output = [_flat_turn(m) for m in outputs]
        # OpenLLMetry writes its functions (llm.request.functions) and the system message with the prompt: what a
        # span that has its prompt lacks was not sent.
        lacked: tuple[str, ...] = ()
    else:
        system = _json_at(tree, "gen_ai.system_instructions")
        inputs = [("system", _checked_list(system, "gen_ai.system_instructions"))] if system else []
        sent = tree["gen_ai.input.messages"]
        if isinstance(sent, str):
            inputs += [resent.messages(sent)]  # already Chat Completions messages
        else:
            inputs += [_parts_turn(m, "gen_ai.input.messages") for m in _checked_list(sent, "gen_ai.input.messages")]
        outputs = _list_json_at(tree, "gen_ai.output.messages")[:1]
        output = [_parts_turn(m, "gen_ai.output.messages") for m in outputs]
        lacked = _genai_lacked(tree, system, inputs)
    # The message-level finish_reason uses the semconv's words; the span attribute keeps the provider's.
    finish = outputs[0].get("finish_reason") if outputs and isinstance(outputs[0], dict) else None
    return _Call(
        inputs=inputs, output=output, tools=resent.tools(tree), lacked=lacked,
        model=tree["gen_ai.request.model"],
        usage=convert.chat_usage(_first(tree, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
                                 _first(tree, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")),
        finish=finish_reason(finish if finish is not None else _first_reason(tree)),
    )


def _genai_lacked(tree: _Attributes, system: Any, inputs: list) -> tuple[str, ...]:
    """What a current-convention GenAI span does not log of its request: `gen_ai.system_instructions` and
    `gen_ai.tool.definitions` are opt-in, so an absent one is not known, where an empty list is none sent. The
    instructions are known too where the input messages open with them (the conventions allow either)."""
    lacked = []
    if system is None and not _opens_with_system(inputs):
        lacked.append("system")
    if tree["gen_ai.tool.definitions"] is None:
        lacked.append("tools")
    return tuple(lacked)


def _opens_with_system(inputs: list) -> bool:
    """Whether the request's first message is a system (or developer) message: a turn, or messages already converted."""
    if not inputs:
        return False
    first = inputs[0]
    role = (first[0].get("role") if first and isinstance(first[0], dict) else None) if isinstance(first, list) \
        else first[0]
    return role in ("system", "developer")


class _ResentInputs:
    """`gen_ai.input.messages` texts already read, by their opening, with the messages they hold
    (and the last `gen_ai.tool.definitions` text, with its tools).

    Each call of an agent resends the whole history, so its text is the previous call's with new
    messages appended: only the appended part is parsed and converted (as lib/logs/resent.py does
    for whole lines). Only the latest text of each conversation is kept, without its closing `]`,
    with its messages and the answer its call got: that answer, resent next, is handed on as the very
    object, so the rebuilding's check that a request extends the one before compares pointers.
    """

    OPENING = 256
    """Characters of a text it is indexed under."""
    KEPT = 64
    """Conversations kept per opening; the oldest is dropped past this."""

    def __init__(self) -> None:
        self._by_opening: dict[str, list[list]] = {}
        """[text (None when it does not end in `]`), messages, the answer or None, the output turn it was converted
        from or None] per conversation, by opening."""
        self._tools: tuple[str, list] | None = None
        self.latest: list | None = None
        """The entry the last call of `messages` made, until its answer is known."""
        self.extended: list | None = None
        """The earlier messages list the last call of `messages` extended, or None."""
        self.parents: dict[int, str] = {}
        """For the texts of the document being read, by id: the earlier text that lib/logs/resent_text.py read
        each as extending (its bytes compared there, so not compared again here)."""

    def tools(self, tree: _Attributes) -> list:
        """A call's tool definitions as Chat Completions tools; an agent sends the same text with every
        call, so the last text read is kept with its tools."""
        text = tree["gen_ai.tool.definitions"]
        if not isinstance(text, str):
            return [_chat_tool(t) for t in _genai_tools(tree)]
        if self._tools is None or self._tools[0] != text:
            self._tools = (text, [_chat_tool(t) for t in _genai_tools(tree)])
        return self._tools[1]

    def messages(self, text: str) -> list[dict]:
        """The Chat Completions messages `text` holds, reusing those of the earlier text it extends."""
        kept = self._by_opening.setdefault(text[: self.OPENING], [])
        parent = self.parents.get(id(text))
        for earlier in reversed(kept):
            if earlier[0] is not None and _extends(text, earlier[0], parent):
                break
        else:
            earlier = None
        if earlier is None:
            messages = convert.chat_messages(self._turns(text))
        else:
            kept.remove(earlier)
            turns = self._turns("[" + text[len(earlier[0]):])
            if turns and earlier[3] is not None and turns[0] == earlier[3]:
                # The answer resent as the call's output wrote it: the message converted then, not again.
                # (As in intern_messages, `==` takes 1, 1.0 and true as equal: a price worth paying.)
                added = [earlier[2], *convert.chat_messages(turns[1:])]
            else:
                added = convert.chat_messages(turns)
                if added and earlier[2] is not None and added[0] == earlier[2]:
                    added[0] = earlier[2]
            messages = earlier[1] + added
            self.extended = earlier[1]
        self.latest = [text if text.endswith("]") else None, messages, None, None]
        kept.append(self.latest)
        del kept[: -self.KEPT]
        return messages

    def answered(self, reply: dict | None, turn: tuple | None) -> None:
        """The answer to the call whose messages were read last, and the output turn it was converted
        from when that turn converts to the answer alone."""
        if self.latest is not None:
            self.latest[2], self.latest[3], self.latest = reply, turn, None

    @staticmethod
    def _turns(text: str) -> list[tuple[str, list]]:
        return [_parts_turn(m, "gen_ai.input.messages")
                for m in _checked_list(_opened(text, "gen_ai.input.messages"), "gen_ai.input.messages")]


def _extends(text: str, earlier: str, parent: str | None) -> bool:
    """Whether JSON array text `text` is an earlier one, `earlier` (which ends in `]`), with more elements appended.
    `parent` is the text `text` was read as starting with, less its `]` (see _ResentInputs.parents), if any."""
    end = len(earlier) - 1
    return len(text) > end + 1 and text[end] == "," and (parent is earlier or text.startswith(earlier[:end]))


ROLES = {"model": "assistant"}
"""Roles instrumentations copy from a provider's own words (Gemini's `model`), as Chat Completions names them."""


def _role(message: dict) -> str:
    role = str(message.get("role") or "user")
    return ROLES.get(role, role)


def genai_messages(messages: list, attribute: str) -> list[dict]:
    """Current-convention `{role, parts}` messages (gen_ai.input.messages / gen_ai.output.messages) as Chat
    Completions messages: what other formats that carry such messages outside a span hand over."""
    return convert.chat_messages(_parts_turn(m, attribute) for m in messages)


def _parts_turn(message: Any, attribute: str) -> tuple[str, list]:
    """A current-convention message `{role, parts}` as a turn."""
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        raise LineProblem(f"attribute '{attribute}' has a message without a 'parts' list ({convert.describe(message)})")
    return _role(message), message["parts"]


def _flat_turn(message: Any) -> tuple[str, list]:
    """A message written as role/content/tool_calls fields (legacy GenAI keys, OpenInference) as a turn."""
    if not isinstance(message, dict):
        raise LineProblem(f"a span message is {convert.describe(message)}, expected an object")
    role = _role(message)
    content = message.get("content")
    if role == "tool":
        return role, [convert.tool_result_part(message.get("tool_call_id"), content if content is not None else "")]
    parts: list = [convert.text_part(content)] if isinstance(content, str) and content else []
    for block in content if isinstance(content, list) else ():
        parts.append(convert.text_or_raw(block))
    for entry in message.get("contents") or ():
        # OpenInference lists typed contents: {"message_content": {"type": "text", "text": ...}}.
        parts.append(convert.text_or_raw(_inner(entry, "message_content")))
    for call in message.get("tool_calls") or ():
        call = _inner(call, "tool_call")
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        parts.append(convert.tool_call_part(call.get("id"), function.get("name"), function.get("arguments")))
    return role, parts


def _inner(value: Any, key: str) -> dict:
    """OpenInference wraps each list entry in one more key (`message`, `tool_call`, `tool`)."""
    if not isinstance(value, dict):
        raise LineProblem(f"a span list entry is {convert.describe(value)}, expected an object")
    inner = value.get(key, value)
    return inner if isinstance(inner, dict) else {}


def _list_at(tree: _Attributes, path: str) -> list:
    """The list at a path of the attribute tree; [] when absent."""
    return _checked_list(tree[path], path)


def _list_json_at(tree: _Attributes, path: str) -> list:
    """The list at a path, opened first when it is JSON text."""
    return _checked_list(_json_at(tree, path), path)


def _checked_list(value: Any, path: str) -> list:
    """`value` when it is a list, [] when absent; anything else is a problem with the attribute."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise LineProblem(f"attribute '{path}' is {convert.describe(value)}, expected a list")
    return value


def _first(tree: _Attributes, *paths: str) -> Any:
    """The value at the first of `paths` that has one (conventions renamed their keys)."""
    for path in paths:
        value = tree[path]
        if value is not None:
            return value
    return None


def _genai_tools(tree: _Attributes) -> list:
    """Tool definitions from gen_ai.tool.definitions, else from the legacy llm.request.functions keys."""
    definitions = _json_at(tree, "gen_ai.tool.definitions")
    if definitions is not None:
        return _checked_list(definitions, "gen_ai.tool.definitions")
    # OpenLLMetry's legacy spans list functions as llm.request.functions.N.{name, description, parameters}.
    return [{**f, "parameters": _opened(f.get("parameters"), "llm.request.functions")} if isinstance(f, dict) else f
            for f in _list_at(tree, "llm.request.functions")]


def _chat_tool(tool: Any) -> Any:
    """A tool definition in any of the shapes spans carry, as a Chat Completions tool."""
    if not isinstance(tool, dict) or isinstance(tool.get("function"), dict):
        return tool
    parameters = tool.get("parameters", tool.get("input_schema"))
    return convert.function_tool(tool.get("name"), tool.get("description"), parameters)


def _first_reason(tree: _Attributes) -> Any:
    """The first of the span's `gen_ai.response.finish_reasons`, as the provider wrote it."""
    reasons = tree["gen_ai.response.finish_reasons"]
    if isinstance(reasons, str):
        reasons = [reasons]
    return reasons[0] if isinstance(reasons, list) and reasons else None


def finish_reason(reason: Any) -> str | None:
    """A finish reason in Chat Completions words; one we do not know is kept as written."""
    if reason is None:
        return None
    return FINISH_REASONS.get(str(reason), str(reason))


# --- tool executions -------------------------------------------------------------------------------


def _execution(span: _Span, kind: str) -> dict:
    """A native execution entry for a tool span; its call id may still be empty (see _attach)."""
    tree = span.attributes
    if kind == "gen_ai-tool":
        call_id, name = tree["gen_ai.tool.call.id"], tree["gen_ai.tool.name"]
        arguments, output = tree["gen_ai.tool.call.arguments"], tree["gen_ai.tool.call.result"]
    elif kind == "vercel-tool":
        call_id, name = tree["ai.toolCall.id"], tree["ai.toolCall.name"]
        # The SDK writes what the tool returned as JSON text (a string result in quotes): read back as the value.
        arguments, output = tree["ai.toolCall.args"], _parsed(tree["ai.toolCall.result"])
    else:
        call_id, name = tree["tool_call.id"], tree["tool.name"]
        arguments, output = tree["input.value"], tree["output.value"]
    entry = {"tool_call_id": "" if call_id is None else str(call_id), "name": "" if name is None else str(name),
             "arguments": _parsed(arguments), "output": output, "ok": span.failure is None}
    if span.duration_ms is not None:
        entry["duration_ms"] = span.duration_ms
    if span.failure is not None:
        entry["note"] = span.failure
    return entry


def _parsed(arguments: Any) -> Any:
    """Arguments as JSON when they parse, as written when not, None when the span did not record them."""
    return None if arguments is None else arguments_value(arguments)


def attach_execution(entry: dict, key: tuple, calls: list[tuple[tuple, CallRecord]]) -> None:
    """Give a tool run to the call of its trace that asked for it: by call id, else by name.

    Without an id, the run goes to the latest call started before it that has an unexecuted call
    of that name, so two parallel calls of one tool get one run each.
    """
    for _, record in calls:
        if entry["tool_call_id"] and entry["tool_call_id"] in _call_names(record):
            record.executions.append(entry)
            return
    if entry["tool_call_id"]:
        return
    for call_key, record in reversed(calls):
        done = {e["tool_call_id"] for e in record.executions}
        waiting = [i for i, n in _call_names(record).items() if n == entry["name"] and i not in done]
        if call_key <= key and waiting:
            entry["tool_call_id"] = waiting[0]
            record.executions.append(entry)
            return


def _call_names(record: CallRecord) -> dict[str, str]:
    """Call id -> tool name for the calls a record's response made."""
    message = (record.response or {}).get("choices", [{}])[0].get("message") or {}
    # A custom tool's call keeps its name under `custom` (chat_shape.chat_message writes it so).
    return {c["id"]: (c.get("function") or c.get("custom") or {}).get("name") for c in message.get("tool_calls") or ()}
