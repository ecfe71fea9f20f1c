"""AutoGen's recorded model calls: the session files of `ChatCompletionClientRecorder` (autogen-ext).

The recorder (`autogen_ext.experimental.task_centric_memory.utils.ChatCompletionClientRecorder`, in
"record" mode) saves every call its wrapped model client made as one JSON array of records
`{"mode": "create" | "create_stream", "messages": [...], "response": {...}, "stream": [...]}`, in
AutoGen's own types as `model_dump()` writes them:

- messages: `SystemMessage` and `UserMessage` (`content` a string or a list of strings and images),
  `AssistantMessage` (`content` a string or a list of `FunctionCall`s `{id, arguments, name}`, the
  text the model wrote beside its calls under `thought`), `FunctionExecutionResultMessage` (`content`
  a list of `{content, call_id, is_error, name}`);
- response: a `CreateResult` (`finish_reason` `stop`, `length`, `function_calls`, `content_filter`
  or `unknown`; `content` a string or a list of `FunctionCall`s; `usage` `{prompt_tokens,
  completion_tokens}`; `thought`).

Each record is one call, converted to a Chat Completions request and response. The recorder keeps
neither the model's name nor the tools offered: both are shown as not recorded. A result marked `cached` is
`ChatCompletionCache`'s copy of an earlier answer (the cache wraps the client the recorder wraps): no call was made for
it (lib.model.FROM_CACHE), and its usage is the earlier call's.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.logs.chat_shape import (chat_completion, chat_message, chat_usage, describe, require, text_part,
                                 tool_call_part, tool_result_part)
from lib.logs.record import CallRecord, LineProblem, LogFormat

MESSAGE_TYPES = ("SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage")
"""AutoGen's LLMMessage types, as `model_dump()` names them under `type`."""

ROLES = {"SystemMessage": "system", "UserMessage": "user", "AssistantMessage": "assistant",
         "FunctionExecutionResultMessage": "tool"}
"""The Chat Completions role of each type."""

FINISH = {"function_calls": "tool_calls", "unknown": None}
"""CreateResult's finish reasons in Chat Completions' words; the others are the same word."""


class AutoGenRecordFormat(LogFormat):
    """One recorded call: `mode`, AutoGen-typed `messages` and the `response` (a CreateResult)."""

    name = "autogen-record"
    detect_keys = frozenset({"mode"})
    title = "AutoGen recorded call"
    reads = "'mode' ('create' or 'create_stream') beside 'messages' of AutoGen's types and a 'response'"

    def detect(self, obj: dict) -> str | None:
        messages, response = obj.get("messages"), obj.get("response")
        if obj.get("mode") in ("create", "create_stream") and isinstance(response, dict) \
                and isinstance(messages, list) and messages and isinstance(messages[0], dict) \
                and messages[0].get("type") in MESSAGE_TYPES:
            return ("'mode' beside 'messages' of AutoGen's types and a 'response' (AutoGen's "
                    "ChatCompletionClientRecorder)")
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        messages = require(obj, "messages", list)
        response = require(obj, "response", dict)
        request = {"messages": [m for position, message in enumerate(messages)
                                for m in _message(message, f"messages[{position}]")]}
        content, thought = response.get("content"), response.get("thought")
        message = chat_message("assistant", _assistant_parts(content, thought, "response"))[-1]
        reason = response.get("finish_reason")
        finish = FINISH.get(reason, reason) if isinstance(reason, str) else None
        usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
        body = chat_completion(message, finish,
                               usage=chat_usage(usage.get("prompt_tokens"), usage.get("completion_tokens")))
        # AutoGen's ChatCompletionCache hands back the stored CreateResult marked `cached`: the recorder wrapping it
        # kept that answer, which no provider gave this call.
        yield CallRecord(line=line, dialect="openai-chat", request=request, response=body,
                         converted_from=self.name, streamed=obj.get("mode") == "create_stream",
                         from_cache="autogen" if response.get("cached") is True else None)


def _message(message: Any, where: str) -> list[dict]:
    """One AutoGen message as Chat Completions messages (a result message: one `tool` message per result)."""
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {describe(message)}, expected a message object")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in ROLES:
        raise LineProblem(f"{where}.type is {describe(kind)}, expected one of {', '.join(MESSAGE_TYPES)}")
    content = message.get("content")
    if kind == "AssistantMessage":
        return chat_message("assistant", _assistant_parts(content, message.get("thought"), where))
    if kind == "FunctionExecutionResultMessage":
        if not isinstance(content, list):
            raise LineProblem(f"{where}.content is {describe(content)}, expected a list of function results")
        return chat_message("tool", [tool_result_part(r.get("call_id"), r.get("content"))
                                     for r in content if isinstance(r, dict)])
    return chat_message(ROLES[kind], _user_parts(content))


def _user_parts(content: Any) -> list:
    """A system or user message's content: a string, or a list of strings and images (kept as they were)."""
    if isinstance(content, str):
        return [text_part(content)]
    if isinstance(content, list):
        return [text_part(piece) if isinstance(piece, str) else piece for piece in content]
    return [] if content is None else [text_part(str(content))]


def _assistant_parts(content: Any, thought: Any, where: str) -> list:
    """An assistant turn's text (under `thought` when it came beside calls) and its FunctionCalls."""
    parts: list = [text_part(thought)] if isinstance(thought, str) and thought else []
    if isinstance(content, str):
        return [*parts, text_part(content)]
    if not isinstance(content, list):
        raise LineProblem(f"{where}.content is {describe(content)}, expected text or a list of function calls")
    for call in content:
        if not isinstance(call, dict):
            raise LineProblem(f"{where}.content holds {describe(call)}, expected a function call object")
        parts.append(tool_call_part(call.get("id"), call.get("name"), call.get("arguments")))
    return parts
