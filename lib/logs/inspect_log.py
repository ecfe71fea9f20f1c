"""Inspect AI eval logs: every sample's model calls, from the provider bodies Inspect recorded.

A log is a `.json` document (`eval`, `samples`, ...) or a zipped `.eval` (`header.json` and one
`samples/<id>_epoch_<n>.json` per sample); lib/logs/documents.py hands this format one sample
at a time. Each `model` event keeps the provider's own request and response under
`call.request` / `call.response`; long strings are stored once per sample under `attachments`
and referenced as `attachment://<hash>`, so they are put back before the bodies are read.
One sample (one epoch of it) is one conversation; a scorer's own model calls (model_graded_qa asking another model
to grade the answer) are a conversation of their own, named after the scorer, not rounds of the sample's history.

A model event without a provider call (Inspect's mock model, or a provider body in neither
dialect) is read from Inspect's own `input` / `tools` / `output` instead, converted into the
Chat Completions shape and marked as converted from `inspect`.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects.common import flatten_content
from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe, require
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.logs.responses import ResponsesFormat, is_responses_request
from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat

ATTACHMENT = "attachment://"
"""The prefix of a string Inspect moved into the sample's attachments."""

STOP_REASONS = {"stop": "stop", "tool_calls": "tool_calls", "max_tokens": "length", "model_length": "length",
                "content_filter": "content_filter"}
"""Inspect's `stop_reason` as a Chat Completions finish_reason."""


class InspectSampleFormat(LogFormat):
    """One Inspect sample: its `model` events with their recorded provider call."""

    name = "inspect"
    title = "Inspect AI eval log"

    def __init__(self) -> None:
        self._responses = ResponsesFormat()

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("events"), list) and "epoch" in obj and "id" in obj:
            return "a sample with 'id', 'epoch' and 'events' (an Inspect AI eval log)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        events = require(obj, "events", list)
        attachments = obj.get("attachments") if isinstance(obj.get("attachments"), dict) else {}
        sample = f"sample {obj.get('id')} epoch {obj.get('epoch')}"
        try:
            models = [_resolved(e, attachments) for e in events if isinstance(e, dict) and e.get("event") == "model"]
        except RecursionError:
            raise LineProblem(f"{sample}: its model events nest too deeply to read") from None
        spans = _spans(events)
        for position, event in enumerate(models, start=1):
            scorer = _scorer(event, spans)
            conversation = f"{sample}, scorer {scorer}" if scorer else sample
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


def _spans(events: list) -> dict[str, tuple[str | None, str | None]]:
    """Every span of the sample by id: its parent's id, and its name when it is a scorer's."""
    return {e["id"]: (e.get("parent_id"), str(e.get("name")) if e.get("type") == "scorer" else None)
            for e in events if isinstance(e, dict) and e.get("event") == "span_begin" and isinstance(e.get("id"), str)}


def _scorer(event: dict, spans: dict[str, tuple[str | None, str | None]]) -> str | None:
    """The scorer a model event ran under, or None for the solver's calls (and logs written before spans)."""
    span, seen = event.get("span_id"), set()
    while isinstance(span, str) and span in spans and span not in seen:  # a log's parent links may loop
        seen.add(span)
        parent, scorer = spans[span]
        if scorer is not None:
            return scorer
        span = parent
    return None


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


def _resolved(value: Any, attachments: dict) -> Any:
    """`value` with every `attachment://<hash>` string replaced by the attachment's content."""
    if isinstance(value, str):
        if value.startswith(ATTACHMENT):
            return attachments.get(value[len(ATTACHMENT):], value)
        return value
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    return value
