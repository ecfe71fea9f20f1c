"""Google ADK session JSON: a run's `events` as a transcript, each model answer a round.

A session (`Session.model_dump()`, or the `adk web` API's session, its keys in camelCase) keeps its
`events` in order: the person's messages (`author: "user"`), each model answer (`content.role:
"model"`, authored by the agent), and the tool results ADK sent back (`function_response` parts
under `role: "user"`), each with its `invocation_id`, and in later versions the answer's
`usage_metadata` and `finish_reason`. The requests themselves are not kept: each model answer is a
round whose request is the contents before it, cut out of the transcript (`derived: request`), read
as a Gemini request. An agent's instruction and tools are not in the session, and where several
agents took turns each saw its own view of the history, which the transcript does not keep.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe, require
from lib.logs.gemini import GeminiFormat, camel_case
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.model import TRANSCRIPT_REQUEST

INVOCATION_KEYS = ("invocation_id", "invocationId")
"""The key of an event's invocation id, as the session was dumped (Python names, or the web API's)."""


def _field(event: dict, snake: str) -> Any:
    """An event's field under its Python name or the web API's camelCase one."""
    head, *rest = snake.split("_")
    return event.get(snake, event.get(head + "".join(word.title() for word in rest)))


class AdkSessionFormat(LogFormat):
    """A Google ADK session: its `events` as one conversation, a round per model answer."""

    name = "adk-session"
    detect_keys = frozenset({"events"})
    title = "Google ADK session"
    reads = "'events' whose first event has an 'author' and an invocation id"

    def detect(self, obj: dict) -> str | None:
        events = obj.get("events")
        first = events[0] if isinstance(events, list) and events else None
        if isinstance(first, dict) and "author" in first and any(k in first for k in INVOCATION_KEYS):
            return "'events' each with an 'author' and an invocation id (a Google ADK session)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        events = require(obj, "events", list)
        session = str(obj["id"]) if isinstance(obj.get("id"), (str, int)) else f"session {line}"
        contents: list[dict] = []
        answered = 0
        for place, event in enumerate(events):
            if not isinstance(event, dict):
                raise LineProblem(f"events[{place}] is {describe(event)}, expected an event object")
            content = event.get("content")
            if not isinstance(content, dict) or _partial(event):
                continue  # a state change or a transfer alone, or a streamed piece the whole answer repeats
            content = camel_case(content)
            if content.get("role") == "model" and event.get("author") != "user":
                answered += 1
                yield _round(contents, content, event, line, session)
            contents.append(content)
        if not answered:
            raise LineProblem("'events' holds no model answer (content with role 'model'), so there is no round")


def _partial(event: dict) -> bool:
    """Whether an event is a streamed piece of an answer (`partial`; prerelease sessions kept it under `options`)."""
    return event.get("partial") is True or convert.object_at(event, "options").get("partial") is True


def _round(before: list[dict], content: dict, event: dict, line: int, session: str) -> CallRecord:
    """One model answer as a round: its request the session's contents before it."""
    usage, finish = _field(event, "usage_metadata"), _field(event, "finish_reason")
    candidate = {"content": content, "finishReason": finish if isinstance(finish, str) else "STOP"}
    response: dict = {"candidates": [candidate]}
    if isinstance(usage, dict):
        response["usageMetadata"] = camel_case(usage)
    model = _field(event, "model_version")
    record = GeminiFormat().record({"contents": list(before)}, response, line,
                                   {"model": model if isinstance(model, str) else None})
    record.derived = [TRANSCRIPT_REQUEST, *record.derived, *(["usage"] if not isinstance(usage, dict) else []),
                      *(["finish"] if not isinstance(finish, str) else [])]
    record.conversation = session
    record.converted_from = "adk-session"
    record.timestamp = _when(event.get("timestamp"))
    return record


def _when(seconds: Any) -> str | None:
    """An event's time (seconds since the epoch, a float) as the ISO text records carry."""
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds != seconds:
        return None
    whole = int(seconds // 1) if abs(seconds) < 1e15 else None
    return None if whole is None else convert.iso_time(whole, int((seconds - whole) * 1e9))
