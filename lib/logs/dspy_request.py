"""DSPy's LM requests (`dspy.core.types.LMRequest`, written with `model_dump_json`: the snapshots of DSPy's own tests):
the request DSPy hands a language model, before any provider's format.

A request is `model`, `messages`, `tools`, `config` and `metadata`. Each message is a `role` and its `parts` (never a
`content`): `text` parts (`text`), `tool_call` parts (`id`, `name`, `args` as an object), `tool_result` parts
(`call_id`, and `content`, itself a list of parts), and parts of sound, image, video, document, thinking and the like,
kept as they are. Read as Chat Completions (lib.logs.chat_shape): a snapshot keeps the request alone, so a round of it
has no response.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.logs.chat_shape import (chat_messages, describe, function_tool, json_text, text_part, tool_call_part,
                                 tool_result_part)
from lib.logs.record import CallRecord, LineProblem, LogFormat

CONFIG_KEYS = ("temperature", "max_tokens", "top_p", "stop", "n", "logprobs")
"""The `config` fields a Chat Completions request names alike, copied when set."""

PROVENANCE = {
    "origin": "completed",
    "note": "DSPy's LM request, before any provider's format: its messages' parts are written here as a Chat "
            "Completions request. DSPy's provider layer writes the request it sends from it, so the bytes sent may "
            "differ (the provider's own fields, its name for the model).",
}
"""Every round's provenance: the request is DSPy's, written in the dialect's shape."""


def is_request(obj: Any) -> bool:
    """Whether an object is a DSPy LM request: `model` and `config` beside `messages` that each hold `parts` and no
    `content` (no chat API's message has `parts` without a `content`, and Gemini's `parts` sit under `contents`)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("model"), str) or not isinstance(obj.get("config"), dict):
        return False
    messages = obj.get("messages")
    return isinstance(messages, list) and bool(messages) and all(
        isinstance(m, dict) and isinstance(m.get("parts"), list) and "content" not in m for m in messages)


class DspyRequestFormat(LogFormat):
    """One DSPy LM request: `model`, `config`, and `messages` of `role` and `parts`."""

    name = "dspy-request"
    title = "DSPy LM request"
    reads = "a 'model' and 'config' beside 'messages' of 'role' and 'parts' (DSPy's LMRequest)"

    def detect(self, obj: dict) -> str | None:
        if is_request(obj):
            return "a 'model' and 'config' beside 'messages' of 'role' and 'parts' (DSPy's LMRequest)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        messages = obj.get("messages")
        if isinstance(messages, list) and messages and all(isinstance(m, dict) and "parts" in m for m in messages) \
                and not isinstance(obj.get("config"), dict):
            return "has 'messages' of 'parts', but no 'config' object beside them (DSPy's LMRequest has one)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not is_request(obj):
            raise LineProblem("is not a DSPy LM request: expected 'model' and 'config' beside 'messages', each a "
                              "'role' and its 'parts'")
        turns = []
        for i, message in enumerate(obj["messages"]):
            role = message.get("role")
            if not isinstance(role, str):
                raise LineProblem(f"messages[{i}].role is {describe(role)}, expected the turn's role")
            turns.append((role, [_part(part) for part in message["parts"]]))
        request: dict = {"model": obj["model"], "messages": chat_messages(turns)}
        tools = [function_tool(t.get("name"), t.get("description"), t.get("parameters"))
                 for t in obj.get("tools") or () if isinstance(t, dict)]
        if tools:
            request["tools"] = tools
        config = obj["config"]
        request.update({key: config[key] for key in CONFIG_KEYS if config.get(key) is not None})
        yield CallRecord(line=line, dialect=OPENAI, request=request, converted_from=self.name,
                         provenance=dict(PROVENANCE))


def _part(part: Any) -> Any:
    """One DSPy part in the role/parts shape chat_shape writes as Chat Completions; a part of another kind as it is."""
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return text_part(part["text"])
    if kind == "tool_call":
        return tool_call_part(part.get("id"), part.get("name"), part.get("args"))
    if kind == "tool_result":
        content = part.get("content")
        said = [p.get("text") if isinstance(p, dict) and p.get("type") == "text" else json_text(p)
                for p in content] if isinstance(content, list) else [json_text(content)]
        return tool_result_part(part.get("call_id"), "\n".join(s for s in said if isinstance(s, str)))
    return part
