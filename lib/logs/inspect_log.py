"""Inspect AI eval logs: every sample's model calls, from the provider bodies Inspect recorded.

A log is a `.json` document (`eval`, `samples`, ...) or a zipped `.eval` (`header.json` and one
`samples/<id>_epoch_<n>.json` per sample); lib/logs/documents.py hands this format one sample
at a time. Each `model` event keeps the provider's own request and response under
`call.request` / `call.response`; long strings are stored once per sample under `attachments`
and referenced as `attachment://<hash>`, so they are put back before the bodies are read.
One sample (one epoch of it) is one conversation; a model call a scorer makes (model-graded scoring asks
a grader a prompt of its own) is a conversation of its own, named after the sample and the scorer.

A model event without a provider call (Inspect's mock model, or a provider body in neither
dialect) is read from Inspect's own `input` / `tools` / `output` instead, converted into the
Chat Completions shape and marked as converted from `inspect`.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects.common import flatten_content
from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe, object_at, require
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.logs.responses import ResponsesFormat, is_responses_request
from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat

ATTACHMENT = "attachment://"
"""The prefix of a string Inspect moved into the sample's attachments."""

TRANSCRIPT_CONTENT = "tc://"
"""The same prefix in logs before 0.3.42, whose samples keep their events and those strings under `transcript`."""

STOP_REASONS = {"stop": "stop", "tool_calls": "tool_calls", "max_tokens": "length", "model_length": "length",
                "content_filter": "content_filter"}
"""Inspect's `stop_reason` as a Chat Completions finish_reason."""


class InspectSampleFormat(LogFormat):
    """One Inspect sample: its `model` events with their recorded provider call."""

    name = "inspect"
    detect_keys = frozenset({"epoch"})
    title = "Inspect AI eval log"
    reads = "a sample with 'id', 'epoch' and 'events', in a .json log or a zipped .eval"

    def __init__(self) -> None:
        self._responses = ResponsesFormat(waits=False)

    def detect(self, obj: dict) -> str | None:
        if "epoch" not in obj or "id" not in obj:
            return None
        if isinstance(obj.get("events"), list):
            return "a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)"
        if isinstance(object_at(obj, "transcript").get("events"), list):
            return "a sample with 'id', 'epoch' and 'transcript.events' (an Inspect AI eval log before 0.3.42)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        transcript = object_at(obj, "transcript")
        if "events" not in obj and isinstance(transcript.get("events"), list):
            # Before 0.3.42: the events, and the strings they name as tc://<hash>, sit under `transcript`.
            events, kept, prefix = transcript["events"], transcript.get("content"), TRANSCRIPT_CONTENT
        else:
            events, kept, prefix = require(obj, "events", list), obj.get("attachments"), ATTACHMENT
        attachments = (prefix, kept if isinstance(kept, dict) else {})
        conversation = sample = f"sample {obj.get('id')} epoch {obj.get('epoch')}"
        try:
            models = [(_resolved(e, attachments), scorer) for e, scorer in _model_events(events)]
        except RecursionError:
            raise LineProblem(f"{conversation}: its model events nest too deeply to read") from None
        for position, (event, scorer) in enumerate(models, start=1):
            conversation = sample if scorer is None else f"{sample}, scorer {scorer}"
            call = event.get("call") if isinstance(event.get("call"), dict) else {}
            request = call.get("request")
            if is_responses_request(request):
                # OpenAI models called through the Responses API: converted as that format converts them.
                for record in self._responses.feed({"request": request, "response": call.get("response")}, line):
                    record.conversation = conversation
                    record.latency_ms, record.timestamp = _latency(call), _timestamp(event)
                    yield record
            elif _dialect(request, call.get("response")):
                yield _record(call, event, line, conversation)
            else:
                yield _from_inspect(event, line, conversation, position)


def _model_events(events: list) -> Iterator[tuple[dict, str | None]]:
    """Each `model` event with the name of the scorer that made the call, or None for the solver's calls.

    Recent Inspect logs nest events in spans (`span_begin` with `type` and `parent_id`, each event naming
    its `span_id`); older ones (0.3.42's) bracket them with `step` events (`action` begin/end, `type`)."""
    spans: dict[str, dict] = {}
    steps: list[dict] = []
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = event.get("event")
        if kind == "span_begin" and isinstance(event.get("id"), str):
            spans[event["id"]] = event
        elif kind == "step" and event.get("action") == "begin":
            steps.append(event)
        elif kind == "step" and event.get("action") == "end" and steps:
            steps.pop()
        elif kind == "model":
            yield event, _scorer(event.get("span_id"), spans) or _scorer_step(steps)


def _scorer(span_id: object, spans: dict[str, dict]) -> str | None:
    """The name of the scorer span `span_id` sits in, if any (followed up its parents)."""
    seen: set = set()
    while isinstance(span_id, str) and span_id in spans and span_id not in seen:
        seen.add(span_id)
        span = spans[span_id]
        if span.get("type") == "scorer":
            return str(span.get("name") or "")
        span_id = span.get("parent_id")
    return None


def _scorer_step(steps: list[dict]) -> str | None:
    """The name of the innermost open scorer step, if any."""
    return next((str(s.get("name") or "") for s in reversed(steps) if s.get("type") == "scorer"), None)


def _latency(call: dict) -> float | None:
    return call["time"] * 1000 if isinstance(call.get("time"), (int, float)) else None


def _timestamp(event: dict) -> str | None:
    return str(event["timestamp"]) if event.get("timestamp") else None


def _dialect(request: Any, response: Any) -> str | None:
    """The dialect a recorded provider body is written in, if it is one of the two."""
    if not isinstance(request, dict):
        return None
    if anthropic_messages.is_request(request) or anthropic_messages.is_response(response):
        return ANTHROPIC
    if openai_chat.is_request(request) or openai_chat.is_response(response) or isinstance(request.get("messages"), list):
        return OPENAI
    return None


def _record(call: dict, event: dict, line: int, conversation: str) -> CallRecord:
    """One model event as the provider call it recorded."""
    request, response = call["request"], call.get("response")
    error = _error(event)
    return CallRecord(
        line=line, dialect=_dialect(request, response), request=request,
        response=response if isinstance(response, dict) and error is None else None,
        error=error, conversation=conversation, latency_ms=_latency(call), timestamp=_timestamp(event),
    )


def _from_inspect(event: dict, line: int, conversation: str, position: int) -> CallRecord:
    """One model event read from Inspect's own messages, when no provider body is there to read."""
    where = f"{conversation}, model call {position}"
    messages = event.get("input")
    if not isinstance(messages, list):
        raise LineProblem(f"{where}: neither a provider call nor Inspect's 'input' messages were recorded")
    request: dict = {"messages": convert.chat_messages(_turn(m, f"{where}, input[{i}]") for i, m in enumerate(messages))}
    if isinstance(event.get("model"), str):
        request["model"] = event["model"]
    tools = [convert.function_tool(t.get("name"), t.get("description"), t.get("parameters"))
             for t in event.get("tools") or () if isinstance(t, dict)]
    if tools:
        request["tools"] = tools
    return CallRecord(line=line, dialect=OPENAI, request=request, response=_output(event.get("output")),
                      error=_error(event), conversation=conversation, converted_from="inspect",
                      timestamp=_timestamp(event))


def _turn(message: Any, where: str) -> tuple[str, list]:
    """An Inspect ChatMessage as a role and its parts."""
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {describe(message)}, expected a message object")
    role = require(message, "role", str, f"{where} ")
    content = message.get("content")
    parts = [convert.text_part(content)] if isinstance(content, str) else [
        convert.text_or_raw(block) for block in content or () if block is not None]
    if role == "tool":
        text = content if isinstance(content, str) else flatten_content(content)
        return role, [convert.tool_result_part(message.get("tool_call_id"), text)]
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            parts.append(convert.tool_call_part(call.get("id"), call.get("function"), call.get("arguments")))
    return role, parts


def _output(output: Any) -> dict | None:
    """Inspect's ModelOutput as a chat.completion body."""
    if not isinstance(output, dict) or not isinstance(output.get("choices"), list) or not output["choices"]:
        return None
    choice = output["choices"][0] if isinstance(output["choices"][0], dict) else {}
    messages = convert.chat_message("assistant", _turn(choice.get("message") or {"role": "assistant"}, "output")[1])
    usage = output.get("usage") if isinstance(output.get("usage"), dict) else {}
    return convert.chat_completion(
        messages[-1], STOP_REASONS.get(choice.get("stop_reason")), model=output.get("model"),
        usage=convert.chat_usage(usage.get("input_tokens"), usage.get("output_tokens"),
                                 cached=usage.get("input_tokens_cache_read")))


def _error(event: dict) -> dict | None:
    """The failure a model event recorded, as a CallRecord error."""
    message = event.get("error")
    if not message:
        return None
    return {"status": None, "body": event.get("call", {}).get("response"), "message": str(message)}


def _resolved(value: Any, attachments: tuple[str, dict]) -> Any:
    """`value` with every `attachment://<hash>` (or `tc://<hash>`: `attachments`' prefix) string replaced by the
    attachment's content."""
    if isinstance(value, str):
        prefix, kept = attachments
        if value.startswith(prefix):
            return kept.get(value[len(prefix):], value)
        return value
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    return value
