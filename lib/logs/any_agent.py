"""mozilla-ai/any-agent's traces (`AgentTrace`, written with `model_dump_json`: `{"spans": [...], "final_output"}`):
the spans any-agent's callbacks write around the framework it drives (TinyAgent, OpenAI Agents, LangChain, smolagents,
Agno, Google ADK, LlamaIndex), read through the spans reader (lib/logs/spans.py).

Each span is the OpenTelemetry SDK's span as JSON (`name`, `context` with the trace and span ids as numbers,
`start_time`, `end_time` in nanoseconds, `status`, `attributes`), in any-agent's own words: a model call is
`gen_ai.operation.name` `call_llm` (its model `gen_ai.request.model`, its tokens `gen_ai.usage.input_tokens` and
`output_tokens`), a tool run `execute_tool` (`gen_ai.tool.name`, `gen_ai.tool.args`, its result `gen_ai.output`), and
one `invoke_agent` span holds them. A call's answer is `gen_ai.output`: a JSON list of the tools it asked for
(`tool.name`, `tool.args`; no call ids), or its text. any-agent records the request's messages
(`gen_ai.input.messages`) of the run's first call only, so each later call's request is rebuilt: the request before
it, the answer it got and the results of the tools that answer asked for. A call that follows an answer of text, or
that read fewer input tokens than the call before it (the framework's own call for a structured final output), went
out with a history the trace does not hold: its request is left without messages, and says so.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs import spans
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import MADE_UP_IDS, TRANSCRIPT_REQUEST
from lib.text import json_said

CALL = "call_llm"
"""any-agent's `gen_ai.operation.name` of a model call."""
TOOL = "execute_tool"
"""any-agent's `gen_ai.operation.name` of a tool's run."""

REBUILT_NOTE = ("any-agent records the messages of its run's first model call only: this request is rebuilt from the "
                "one before it, the answer that got and the results of the tools it asked for, which the trace holds. "
                "The framework sent the same history, or more (instructions it adds each turn), and any-agent records "
                "no call ids: they are made up from each call's place, and results paired by it. The tool list is not "
                "recorded.")
"""Said of every call after a run's first: its request is ours, rebuilt, not recorded."""

REBUILT_WITH_IDS_NOTE = REBUILT_NOTE.replace(
    "any-agent records no call ids: they are made up from each call's place, and results paired by it",
    "any-agent records the call ids on the tools' runs only (`gen_ai.tool.call.id`): each call is given the id of "
    "the run of its tool that followed it, paired by the tool's name in order")
"""Said of a call after a run's first where every call of the history has the id of its tool's run."""

UNKNOWN_NOTE = ("any-agent records the messages of its run's first model call only, and this call does not go on from "
                "the history before it (it follows an answer of text, or it read fewer input tokens than the call "
                "before it: the framework's own call for a structured final output, or a new question): what it sent "
                "cannot be rebuilt, so its request shows no messages. Its model, tokens and answer are as recorded.")
"""Said of a call whose request cannot be rebuilt."""

NOTHING_RETURNED = "{}"
"""What any-agent writes as a tool's `gen_ai.output` where the tool returned None (`_set_tool_output`): the same bytes
as a tool that returned an empty object. The framework sent the model its own words for nothing (`None`, `null`, an
empty string), which the trace does not keep."""


def nothing_returned_words(names: list[str]) -> str:
    """Said of a rebuilt request holding results any-agent wrote as NOTHING_RETURNED."""
    tools = " and ".join(dict.fromkeys(names))
    return (f"{tools} returned nothing: any-agent writes {NOTHING_RETURNED} for a tool that returned None (or an empty "
            "object), so that is the result shown; what the framework sent the model in its place is not recorded.")


def is_trace(obj: Any) -> bool:
    """Whether an object is an any-agent trace: `spans` whose attributes name any-agent's own operations (a model
    call `call_llm`, a tool's run `execute_tool`, the run `invoke_agent`), each with its `context`."""
    found = obj.get("spans") if isinstance(obj, dict) else None
    if not isinstance(found, list) or not found:
        return False
    for span in found:
        attributes = span.get("attributes") if isinstance(span, dict) else None
        if isinstance(attributes, dict) and isinstance(span.get("context"), dict) \
                and attributes.get("gen_ai.operation.name") == CALL:
            return True
    return False


class AnyAgentTraceFormat(LogFormat):
    """One any-agent trace: `spans` of any-agent's `call_llm` and `execute_tool` operations."""

    name = "any-agent"
    detect_keys = frozenset({"spans"})
    title = "any-agent trace"
    reads = "'spans' whose attributes name any-agent's operations ('gen_ai.operation.name' 'call_llm')"

    def __init__(self) -> None:
        self._reader = spans.SpanFormat()
        self._said: dict[str | None, tuple[tuple[str, ...], str, tuple[str, ...]]] = {}
        """By each call's start (as its record's timestamp writes it): what its record holds that the trace does not
        (CallRecord.derived), what to say of it, and what of its request the trace lacks (Provenance.omitted)."""

    def detect(self, obj: dict) -> str | None:
        if is_trace(obj):
            return "'spans' of any-agent's operations ('gen_ai.operation.name' 'call_llm')"
        return None

    def near_miss(self, obj: dict) -> str | None:
        found = obj.get("spans")
        if isinstance(found, list) and found and all(isinstance(s, dict) and "context" in s for s in found):
            return "has 'spans' with their 'context', but none is a model call in any-agent's words ('call_llm')"
        return None

    def not_calls(self) -> int:
        return self._reader.not_calls()

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_trace(obj):
            raise LineProblem("is not an any-agent trace: expected 'spans' whose attributes name any-agent's "
                              "operations ('gen_ai.operation.name' 'call_llm')")
        ordered = sorted((s for s in obj["spans"] if isinstance(s, dict)),
                         key=lambda s: s.get("start_time") if isinstance(s.get("start_time"), int) else 0)
        history: list | None = None  # the last request's messages, as the conventions' {role, parts}
        answered: dict | None = None  # the last call's answer, waiting for its tools' results
        waiting: list[tuple[str, str]] = []  # (made-up id, tool name) of its calls not yet run
        empty: list[str] = []  # the tools run since the last call whose output any-agent wrote as NOTHING_RETURNED
        number, previous = 0, {}
        problems: list[str] = []
        runs = _runs_after(ordered)
        made_up_before = False  # whether a call of the history so far has an id of ours
        for position, span in enumerate(ordered, start=1):
            try:
                _trace(span)
            except LineProblem as problem:  # the document's other spans still load, as an OTLP document's do
                problems.append(f"span {position}: {problem}")
                continue
            attributes = span.get("attributes") if isinstance(span.get("attributes"), dict) else {}
            operation = attributes.get("gen_ai.operation.name")
            if operation == TOOL:
                name = str(attributes.get("gen_ai.tool.name") or "")
                recorded_id = attributes.get("gen_ai.tool.call.id")
                call_id = next((i for i, n in waiting if i == recorded_id), "") or \
                    next((i for i, n in waiting if n == name), "")
                if call_id:
                    waiting.remove((call_id, name))
                    if attributes.get("gen_ai.output") == NOTHING_RETURNED:
                        empty.append(name)
                    if history is not None:
                        history.append({"role": "tool", "parts": [convert.tool_result_part(
                            call_id, attributes.get("gen_ai.output"))]})
                self._reader._take(_span(span, {
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
                    "gen_ai.tool.call.arguments": attributes.get("gen_ai.tool.args"),
                    "gen_ai.tool.call.result": attributes.get("gen_ai.output")}), line)
                continue
            if operation != CALL:
                continue
            number += 1
            recorded = attributes.get("gen_ai.input.messages")
            key = _started(span)
            answer = _answer(attributes.get("gen_ai.output"), attributes.get("gen_ai.output.type"), number,
                             runs.get(position, []))
            made_up = (MADE_UP_IDS,) if answer["calls"] and answer["made_up"] else ()
            if isinstance(recorded, str):
                history = _chat_turns(recorded)
                made_up_before = False
                self._said[key] = (made_up, "", ())
            elif history is not None and answered is not None and answered["calls"] \
                    and not _fewer(attributes, previous):
                # The ids the request's history holds are ours where any call before, or this answer's, had none.
                ours = made_up_before or bool(made_up)
                rebuilt = REBUILT_NOTE if ours else REBUILT_WITH_IDS_NOTE
                said = f"{rebuilt} {nothing_returned_words(empty)}" if empty else rebuilt
                self._said[key] = ((TRANSCRIPT_REQUEST, MADE_UP_IDS) if ours else (TRANSCRIPT_REQUEST,), said, ())
            else:
                history = None
                self._said[key] = (made_up, UNKNOWN_NOTE, ("messages",))
            converted = {
                "gen_ai.operation.name": "chat", "gen_ai.request.model": attributes.get("gen_ai.request.model"),
                "gen_ai.usage.input_tokens": convert.as_int(attributes.get("gen_ai.usage.input_tokens")),
                "gen_ai.usage.output_tokens": convert.as_int(attributes.get("gen_ai.usage.output_tokens")),
                "gen_ai.input.messages": list(history) if history is not None else [],
                "gen_ai.output.messages": [{"role": "assistant", "parts": answer["parts"],
                                            "finish_reason": "tool_call" if answer["calls"] else "stop"}],
            }
            self._reader._take(_span(span, converted), line)
            if history is not None:
                history.append({"role": "assistant", "parts": answer["parts"]})
            answered, waiting, previous, empty = answer, list(answer["calls"]), attributes, []
            made_up_before = made_up_before or bool(made_up)
        if problems:
            raise LineProblem(f"{len(problems)} of {len(ordered)} spans could not be read ({'; '.join(problems[:3])})")
        yield from ()

    def finish(self) -> Iterator[CallRecord]:
        for record in self._reader.finish():
            record.converted_from = self.name
            derived, note, lacked = self._said.get(record.timestamp, ((), "", ()))
            record.derived = [*record.derived, *derived]
            provenance = dict(record.provenance or {"origin": "recorded"})
            if note:
                provenance["origin"] = "completed"
                provenance["note"] = " ".join(w for w in (note, provenance.get("note")) if w)
            provenance["omitted"] = [*lacked, *(o for o in provenance.get("omitted", []) if o not in lacked)]
            record.provenance = provenance if provenance.get("note") or provenance["omitted"] else record.provenance
            yield record

    def notes(self) -> list[Problem]:
        return self._reader.notes()


def _fewer(attributes: dict, previous: dict) -> bool:
    """Whether a call read fewer input tokens than the call before it: its request did not resend that call's history
    (a history only grows while a run goes on), so it is not rebuilt from it (tinyagent's call for a structured final
    output, after its `final_answer` tool, sends a prompt of its own)."""
    now = convert.as_int(attributes.get("gen_ai.usage.input_tokens"))
    before = convert.as_int(previous.get("gen_ai.usage.input_tokens"))
    return now is not None and before is not None and now < before


def _started(span: dict) -> str | None:
    """When a span started, as the spans reader writes a record's timestamp: what a call's record is found by."""
    start = span.get("start_time")
    return convert.iso_time(*divmod(start, 1_000_000_000)) if isinstance(start, int) else None


def _trace(span: dict) -> str:
    """The span's trace id as OTLP writes it (32 hex digits); any-agent writes the number."""
    context = span.get("context")
    if not isinstance(context, dict):
        raise LineProblem(f"a span's 'context' is {convert.describe(context)}, expected an object with its trace id")
    trace = context.get("trace_id")
    if isinstance(trace, int) and not isinstance(trace, bool):
        return f"{trace:032x}"
    if isinstance(trace, str) and trace:
        return trace.removeprefix("0x")
    raise LineProblem("a span has no trace id ('context.trace_id')")


def _span(span: dict, attributes: dict) -> dict:
    """An any-agent span in the shape the spans reader takes: its ids and times as OTLP writes them, its status an
    error where any-agent's says so, and `attributes` in the OpenTelemetry GenAI conventions' words."""
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    failed = str(status.get("status_code") or "").lower() == "error"
    shaped = {"traceId": _trace(span), "attributes": attributes,
              "status": {"code": 2, "message": status.get("description")} if failed else {}}
    for ours, theirs in (("startTimeUnixNano", "start_time"), ("endTimeUnixNano", "end_time")):
        if isinstance(span.get(theirs), int):
            shaped[ours] = str(span[theirs])
    return shaped


def _chat_turns(text: str) -> list[dict]:
    """`gen_ai.input.messages` as any-agent writes it (Chat Completions messages, as JSON text) in the conventions'
    {role, parts} shape."""
    try:
        messages = json.loads(text)
    except ValueError as error:
        raise LineProblem(f"'gen_ai.input.messages' is not valid JSON ({json_said(error, 'attribute')})") from None
    if not isinstance(messages, list):
        raise LineProblem(f"'gen_ai.input.messages' holds {convert.describe(messages)}, expected a list of messages")
    turns = []
    for message in messages:
        if not isinstance(message, dict):
            raise LineProblem(f"'gen_ai.input.messages' holds {convert.describe(message)}, expected a message")
        content = message.get("content")
        parts = [convert.text_part(content)] if isinstance(content, str) else \
            [convert.text_or_raw(b) for b in content] if isinstance(content, list) else []
        turns.append({"role": str(message.get("role") or "user"), "parts": parts})
    return turns


def _runs_after(ordered: list) -> dict[int, list[tuple[str, str]]]:
    """By each model call's place among the spans (1-based): (tool name, `gen_ai.tool.call.id`) of the tool runs after
    it and before the next call, in order, those that record an id (any-agent's Agno and Google ADK spans do; its
    other frameworks' do not)."""
    runs: dict[int, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for position, span in enumerate(ordered, start=1):
        attributes = span.get("attributes") if isinstance(span.get("attributes"), dict) else {}
        operation = attributes.get("gen_ai.operation.name")
        if operation == CALL:
            current = runs.setdefault(position, [])
        elif operation == TOOL and current is not None and isinstance(attributes.get("gen_ai.tool.call.id"), str) \
                and attributes["gen_ai.tool.call.id"]:
            current.append((str(attributes.get("gen_ai.tool.name") or ""), attributes["gen_ai.tool.call.id"]))
    return runs


def _answer(output: Any, kind: Any, number: int, runs: list[tuple[str, str]]) -> dict:
    """A call's answer: the tools it asked for (any-agent's `[{tool.name, tool.args}]`) or its text. Each call's id is
    the id of the run of its tool that followed (`runs`, paired by name in order) where every call has one; else all
    are made up from the call's place (`made_up`)."""
    if kind == "json" and isinstance(output, str):
        try:
            asked = json.loads(output)
        except ValueError:
            asked = None
        if isinstance(asked, list) and asked and all(isinstance(a, dict) and "tool.name" in a for a in asked):
            names = [str(a.get("tool.name") or "") for a in asked]
            left, ids = list(runs), []
            for name in names:
                found = next((run for run in left if run[0] == name), None)
                if found is None:
                    break
                left.remove(found)
                ids.append(found[1])
            made_up = len(ids) < len(names) or len(set(ids)) < len(ids)
            if made_up:
                ids = [f"call_{number}_{i}" for i in range(1, len(names) + 1)]
            calls = list(zip(ids, names))
            parts = [convert.tool_call_part(call_id, name, a.get("tool.args"))
                     for (call_id, name), a in zip(calls, asked)]
            return {"parts": parts, "calls": calls, "made_up": made_up}
    text = output if isinstance(output, str) else "" if output is None else json.dumps(output, ensure_ascii=False)
    return {"parts": [convert.text_part(text)] if text else [], "calls": [], "made_up": False}
