"""Roundtrip's native trace file (docs/trace-format.md): a reader and a writer.

Reading never raises on bad input: each bad line becomes a Problem naming the line, and the good
lines still load.
"""

from __future__ import annotations

import json
import operator
from dataclasses import replace
from types import ModuleType
from typing import Any, Iterable, Iterator

from lib.coerce import flag, int_or_none, number_or_none, shown, text, text_or_none
from lib.dialects import DIALECTS, openai_chat
from lib.dialects.common import Pools
from lib.failures import ATTEMPTS, TRIES
from lib.logs.chat_shape import describe
from lib.logs.limits import limits
from lib.logs.record import Problem, ProblemList
from lib.logs.resent import Refused, ResentParser, hold_interned
from lib.intern import collector_paused
from lib.lessons import KIND as LESSON, Lesson, lesson_line, read_lesson
from lib.presenter import steps_in
from lib.text import json_said, plural
from lib.model import AWAITING, CUT_CALLS, STREAMED, Execution, ProviderError, Round, Trace, read_provenance

VERSION = 1

_ROUND_KEYS = ("kind", "index", "request", "response", "error", "executions", "latency_ms")


def read_trace(lines: Iterable[str | bytes], name: str = "trace", keep: int | None = None) -> tuple[Trace, list[Problem]]:
    """Read a native trace file, returning the trace and the problems found, by line: the first
    `keep` (by default the limit in force) in full, then a count of the rest."""
    with collector_paused():
        return _read_trace(lines, name, ProblemList(keep or limits().problems_kept))


def read_objects(objects: Iterable[dict], name: str = "trace") -> tuple[Trace, list[Problem]]:
    """Read a native trace from its lines already parsed (lib/library.py rebuilds them from the store);
    a round whose request starts with the very message objects of the one before is read in time linear
    in what it adds."""
    with collector_paused():
        return _read_objects(enumerate(objects, start=1), name, ProblemList(limits().problems_kept))


def _read_trace(lines: Iterable[str | bytes], name: str, problems: ProblemList) -> tuple[Trace, list[Problem]]:
    return _read_objects(_parsed(lines, problems), name, problems)


def _parsed(lines: Iterable[str | bytes], problems: ProblemList) -> Iterator[tuple[int, Any]]:
    parser = ResentParser()
    cap = limits().line_bytes
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            continue
        # As in any other log (lib/logs/upload.py): a line's objects can take 18 times its bytes. Counted without
        # its line break, as there.
        if len(line) > cap and (size := len(line) - _break(line)) > cap:
            problems.append(Problem(number, f"is too large ({size:,} bytes; the limit is {cap:,})"))
            continue
        try:
            value = parser.parse(line)  # bytes go to orjson as they are: it checks UTF-8 faster than decoding first
        except ValueError as exc:
            problems.append(Problem(number, json_problem(exc)))
            continue
        problems.extend(Problem(number, said, loaded=True) for said in parser.kept_shallow(value))
        yield number, value


def _break(line: str | bytes) -> int:
    """The length of the line break that ends a line read from a file: 2, 1 or 0."""
    end = line[-2:] if isinstance(line, str) else line[-2:].decode("latin-1")
    return 2 if end == "\r\n" else 1 if end[-1:] in ("\n", "\r") else 0


def _read_objects(numbered: Iterable[tuple[int, Any]], name: str, problems: ProblemList) -> tuple[Trace, list[Problem]]:
    header: dict | None = None
    rounds: list[Round] = []
    annotations: list[dict] = []
    lessons: list[tuple[int, Lesson]] = []
    pools = Pools()
    dialect: ModuleType | None = None
    # A lesson names its round by the file's index: where a round line was lost or misnumbered, the rounds read are
    # numbered anew, and each lesson follows its round's line, not the number it now stands at.
    read_as: dict[int, int] = {}
    renumbered = False

    for number, obj in numbered:
        if not isinstance(obj, dict):
            problems.append(Problem(number, f"is {describe(obj)}, expected an object with a 'kind'"))
            continue
        kind = obj.get("kind")
        if kind == "trace":
            if header is not None:
                problems.append(Problem(number, "is a second header line; only the first one counts"))
                continue
            if rounds:
                problems.append(Problem(number, "is a header after round lines; it must be the first line"))
            header, dialect = _read_header(obj, number, problems)
        elif kind == "round":
            if dialect is None:
                if header is None:
                    problems.append(Problem(1, "has no header line; assuming the OpenAI Chat Completions dialect"))
                    header = {"kind": "trace", "version": VERSION, "title": name, "dialect": openai_chat.DIALECT}
                dialect = DIALECTS[header["dialect"]]
            found = _guarded_round(obj, number, rounds[-1] if rounds else None, dialect, pools, problems)
            if found is not None:
                rounds.append(found)
                written = int_or_none(obj.get("index"))
                if written is not None:
                    read_as.setdefault(written, found.index)
                renumbered = renumbered or written != found.index
        elif kind == "annotation":
            annotations.append(obj)
        elif kind == LESSON:
            found_lesson = read_lesson(obj)
            if isinstance(found_lesson, str):
                problems.append(Problem(number, found_lesson + "; skipped"))
            else:
                lessons.append((number, found_lesson))
        else:
            said = f"unknown kind {shown(kind)}" if "kind" in obj else "no 'kind'"
            problems.append(Problem(number, f"has {said}; expected 'trace', 'round', 'annotation' or 'lesson'"))

    if header is None:
        problems.append(Problem(1, "no header line and no rounds: this is not a Roundtrip trace"))
        header = {"kind": "trace", "version": VERSION, "title": name, "dialect": openai_chat.DIALECT}
    trace = Trace(
        title=text(header.get("title")) or name,
        dialect=header["dialect"],
        rounds=tuple(rounds),
        model=text_or_none(header.get("model")),
        description=text(header.get("description")),
        header=header,
        annotations=tuple(annotations),
        unique_messages=len(pools.messages),
    )
    if lessons:  # placed on the trace: a round's steps may hang on the next one (a command written in the text)
        trace = replace(trace, lessons=_placed(lessons, trace, problems, read_as if renumbered else None))
    return trace, problems.listed()


def _placed(lessons: list[tuple[int, Lesson]], trace: Trace, problems: ProblemList,
            read_as: dict[int, int] | None = None) -> tuple[Lesson, ...]:
    """The lessons whose round the trace has; each other one is a problem naming its line. With `read_as` (the
    round each index the file wrote was read as, when rounds were numbered anew), a lesson goes to the round read
    from the line of its index, and one whose index no round line read holds is skipped."""
    kept, rounds = [], trace.rounds
    for number, lesson in lessons:
        if read_as is not None:
            if lesson.round not in read_as:
                problems.append(Problem(number, f"is a lesson for round {lesson.round}, but no round line read has "
                                                f"index {lesson.round}; skipped"))
                continue
            lesson = replace(lesson, round=read_as[lesson.round])
        if lesson.round > len(rounds):
            problems.append(Problem(number, f"is a lesson for round {lesson.round}, but the trace has "
                                            f"{plural(len(rounds), 'round')}; skipped"))
        elif lesson.step not in (steps := steps_in(rounds[lesson.round - 1], trace)):
            problems.append(Problem(number, f"is a lesson for step {lesson.step} of round {lesson.round}, which has "
                                            f"steps {', '.join(map(str, steps))} only; skipped"))
        else:
            kept.append(lesson)
    return tuple(kept)


def json_problem(error: ValueError, unit: str = "line", line: int | None = None) -> str:
    """A line (or `unit`: an array's element, a one-document file) that does not parse, its problem in a user's
    words; `line` is the file's line the parser stopped on in a one-document file (lib.text.json_place)."""
    if isinstance(error, Refused):
        return error.skipping(unit)
    said = str(error)
    if "not valid UTF-8" in said or isinstance(error, UnicodeDecodeError):
        return "is not UTF-8 text"
    if "depth limit" in said or "recursion" in said:
        return "is nested too deeply (more than 1,024 levels)"
    if isinstance(error, json.JSONDecodeError):  # orjson's error is one
        return f"is not valid JSON ({json_said(error, unit, line)})"
    return f"is not valid JSON: {said}"


def _read_header(obj: dict, number: int, problems: list[Problem]) -> tuple[dict, ModuleType]:
    header = dict(obj)
    if header.get("version", VERSION) != VERSION:
        problems.append(Problem(number, f"has version {shown(header.get('version'))}; this app reads version {VERSION}"))
    if text_or_none(header.get("dialect")) not in DIALECTS:
        problems.append(
            Problem(
                number,
                f"has dialect {shown(header.get('dialect'))}; expected one of {', '.join(DIALECTS)}. "
                f"Reading it as {openai_chat.DIALECT}.",
            )
        )
        header["dialect"] = openai_chat.DIALECT
    return header, DIALECTS[header["dialect"]]


def _guarded_round(
    obj: dict, number: int, previous: Round | None, dialect: ModuleType, pools: Pools, problems: ProblemList
) -> Round | None:
    """The round of a line, or None with a problem naming the line: whatever a hostile structure
    makes the dialect reader raise (nesting too deep for the standard library, a value of a type no
    reader expects) ends here, not on the page."""
    try:
        return _read_round(obj, number, previous, dialect, pools, problems)
    except RecursionError:
        problems.append(Problem(number, "is nested too deeply to read; skipped"))
    except Exception as exc:  # noqa: BLE001 - a bad line must never take the trace down
        problems.append(Problem(number, f"could not be read ({type(exc).__name__}); skipped"))
    return None


def _read_round(
    obj: dict, number: int, previous: Round | None, dialect: ModuleType, pools: Pools, problems: list[Problem]
) -> Round | None:
    expected_index = previous.index + 1 if previous else 1
    request = obj.get("request")
    if not isinstance(request, dict):
        problems.append(Problem(number, "is a round without a 'request' object; skipped"))
        return None
    index = int_or_none(obj.get("index"))
    if index != expected_index:
        problems.append(Problem(number, f"has index {shown(obj.get('index'))} where {expected_index} was expected; numbered {expected_index}"))
    response = None
    if isinstance(obj.get("response"), dict):
        response = dialect.read_response(obj["response"], pools)
    elif obj.get("response") is not None:
        problems.append(Problem(number, "has a 'response' that is not a JSON object; shown as no response"))
    error = _read_error(obj.get("error"))
    executions = []
    for i, entry in enumerate(obj.get("executions") or ()):
        if isinstance(entry, dict) and "tool_call_id" in entry:
            executions.append(read_execution(entry))
        else:
            problems.append(Problem(number, f"has executions[{i}] without a 'tool_call_id'; skipped"))
    extra = _typed_extra({k: v for k, v in obj.items() if k not in _ROUND_KEYS}, number, problems)
    read = dialect.read_request(request, pools, previous.request if previous else None)
    hold_interned(request, read.raw["messages"])
    return Round(
        index=expected_index,
        request=read,
        response=response,
        error=error,
        executions=tuple(executions),
        latency_ms=number_or_none(obj.get("latency_ms")),
        resent_prefix=shared_prefix(previous.request.messages if previous else (), read.messages),
        extra=extra,
    )


_EXTRA_TYPES = {
    "derived": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "converted_from": lambda v: isinstance(v, str),
    "source_line": lambda v: int_or_none(v) is not None,
    "provenance": lambda v: read_provenance(v) is not None,
    CUT_CALLS: lambda v: isinstance(v, list) and all(type(x) is int for x in v),
    STREAMED: lambda v: v is True,
    ATTEMPTS: lambda v: isinstance(v, list) and all(x is None or type(x) is int for x in v),
    TRIES: lambda v: isinstance(v, list) and all(isinstance(x, dict) and type(x.get("status")) is int for x in v),
    AWAITING: lambda v: isinstance(v, str),
}
"""The optional round fields docs/trace-format.md gives a type, with the test each value must pass."""


def _typed_extra(extra: dict, number: int, problems: ProblemList) -> dict:
    """The round's other fields, without a documented one whose value has the wrong type."""
    for key, fits in _EXTRA_TYPES.items():
        if key in extra and not fits(extra[key]):
            problems.append(Problem(number, f"has {key!r} of the wrong type ({shown(extra.pop(key))}); ignored"))
    return extra


def shared_prefix(before: tuple, now: tuple) -> int:
    """How many leading messages two requests share, unchanged."""
    # Interning makes an unchanged message the very same object, so identity is the whole test, but for a message
    # resent with its cache breakpoint moved: another object, of the same key (lib.dialects.common.read_form).
    if len(now) >= len(before) and all(map(operator.is_, before, now)):
        return len(before)
    count = 0
    for old, new in zip(before, now):
        if old is not new and old != new:
            break
        count += 1
    return count


def _read_error(raw: Any) -> ProviderError | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        return ProviderError(status=None, message=text(raw, "the call failed"), body=raw)
    body = raw.get("body")
    message = text_or_none(raw.get("message"))
    if not message and isinstance(body, dict):
        inner = body.get("error")
        message = text_or_none(inner.get("message") if isinstance(inner, dict) else body.get("message"))
    return ProviderError(status=int_or_none(raw.get("status")), message=message or "the call failed", body=raw)


def read_execution(entry: dict) -> Execution:
    """An execution entry of a round line as an Execution."""
    get = entry.get
    approval, overrides, call_id, name = get("approval"), get("overrides"), entry["tool_call_id"], get("name")
    # Every tool run of every log passes here: the usual string fields taken as they are, the rest coerced.
    return Execution(
        call_id if type(call_id) is str else text(call_id),
        name if type(name) is str else text(name),
        get("arguments"),
        get("output"),
        flag(get("ok"), True),
        number_or_none(get("duration_ms")),
        approval if approval in ("approved", "declined") else None,
        text_or_none(get("note")),
        overrides if isinstance(overrides, dict) else None,
        entry,
    )


def round_line(round_: Round) -> dict:
    """The JSON object a round is written as."""
    line: dict[str, Any] = {"kind": "round", "index": round_.index, "request": round_.request.raw}
    if round_.response is not None:
        line["response"] = round_.response.raw
    if round_.error is not None:
        line["error"] = round_.error.body
    line["executions"] = [e.raw for e in round_.executions]
    if round_.latency_ms is not None:
        line["latency_ms"] = round_.latency_ms
    line.update(round_.extra)
    return line


def write_trace(trace: Trace) -> Iterator[str]:
    """The trace as native JSONL lines (without newlines): header, rounds, lessons, annotations."""
    header = {"kind": "trace", "version": VERSION, "title": trace.title, "dialect": trace.dialect}
    header.update({k: v for k, v in trace.header.items() if k not in header})
    yield json.dumps(header, ensure_ascii=False)
    for round_ in trace.rounds:
        yield json.dumps(round_line(round_), ensure_ascii=False)
    for lesson in trace.lessons:
        yield json.dumps(lesson_line(lesson), ensure_ascii=False)
    for annotation in trace.annotations:
        yield json.dumps(annotation, ensure_ascii=False)
