"""OpenAI fine-tuning chat lines: one whole conversation per line, split into rounds.

Each assistant message is one round's response; everything before it is that round's request.
The file never says what the calls cost or why they stopped, so usage and finish are derived.
A transcript cut on a tool turn (agent trajectories stop anywhere) has no request to append those
results to: they are the last round's executions, what the program ran and got back.
"""

from __future__ import annotations

from typing import Iterator

from lib.dialects import OPENAI
from lib.dialects.common import arguments_value, flatten_content
from lib.model import TRANSCRIPT_REQUEST
from lib.logs.chat_shape import chat_completion, chat_results_after, describe, require
from lib.logs.record import CallRecord, LineProblem, LogFormat

REQUEST_PARAMETERS = ("tools", "functions", "parallel_tool_calls")
"""Top-level keys that travel with every round's request."""

CUT_ROLES = ("user", "tool", "function")
"""Roles a transcript cut mid-run may end on."""

TRAINING_KEYS = ("weight",)
"""Message keys that steer training and were never part of a call."""


class FineTuningFormat(LogFormat):
    """`{"messages": [...], "tools"?: [...]}` lines without a model, ending in an assistant turn."""

    name = "openai-finetune"
    title = "OpenAI fine-tuning chat"
    reads = "'messages' without a 'model', ending in an assistant turn or holding assistant turns"

    def detect(self, obj: dict) -> str | None:
        messages = obj.get("messages")
        if not isinstance(messages, list) or not messages or any(k in obj for k in ("model", "kind", "request", "response")):
            return None
        last = messages[-1]
        if isinstance(last, dict) and last.get("role") == "assistant":
            return "'messages' ending in an assistant turn, without a 'model' (a fine-tuning line)"
        # Agent benchmark trajectories are cut at any point: after a user or a tool turn too.
        if isinstance(last, dict) and last.get("role") in CUT_ROLES \
                and any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
            return f"'messages' with assistant turns, ending on a {last['role']} turn, without a 'model' (a transcript)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        messages = obj.get("messages")
        if not isinstance(messages, list):
            return None
        if any(k in obj for k in ("model", "kind", "request", "response")):
            return "has 'messages', but also a key a transcript does not have ('model', 'kind', 'request' or 'response')"
        if not any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
            return "has 'messages', but no assistant turn, so there is no round to show"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        messages = [_sent(m, f"messages[{i}]") for i, m in enumerate(require(obj, "messages", list))]
        parameters = {k: obj[k] for k in REQUEST_PARAMETERS if k in obj}
        yield from conversation_rounds(messages, parameters, line, f"line {line}", "'messages'")


def conversation_rounds(messages: list[dict], parameters: dict, line: int, conversation: str,
                        where: str) -> Iterator[CallRecord]:
    """One round per assistant message of a whole recorded conversation: everything before it is
    that round's request, cut out of the transcript rather than recorded as sent. Usage and finish were
    never recorded, so they are derived."""
    turns = [position for position, message in enumerate(messages) if message.get("role") == "assistant"]
    if not turns:
        raise LineProblem(f"{where} has no assistant message, so there is no round to split off")
    for position in turns:
        message = messages[position]
        finish = "tool_calls" if message.get("tool_calls") or message.get("function_call") else "stop"
        yield CallRecord(
            line=line,
            dialect=OPENAI,
            request={"messages": messages[:position], **parameters},
            response=chat_completion(message, finish),
            conversation=conversation,
            derived=[TRANSCRIPT_REQUEST, "usage", "finish"],
            executions=chat_results_after(message, messages[position + 1:]) if position == turns[-1] else [],
        )


def _sent(message: object, where: str) -> dict:
    """The message as the model saw it: training-only keys taken out, so rounds resend it unchanged."""
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {describe(message)}, expected a message object")
    require(message, "role", str, f"{where} ")
    if any(k in message for k in TRAINING_KEYS):
        return {k: v for k, v in message.items() if k not in TRAINING_KEYS}
    return message
