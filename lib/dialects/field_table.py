"""The field mapping panel: where Chat Completions and Messages differ, each row with this round's
own instance of the difference, read off the two converted bodies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lib.dialects.common import dumps_as_written
from lib.dialects.convert import ConvertedRound
from lib.text import plural


@dataclass(frozen=True, slots=True)
class FieldRow:
    """One place where the two dialects differ, with this round's own instance of it."""

    what: str
    """The concept, e.g. the call's arguments."""
    openai: str
    """Where and how Chat Completions writes it."""
    anthropic: str
    """Where and how Messages writes it."""
    openai_here: str
    """This round's instance in the Chat Completions body, or a dash."""
    anthropic_here: str
    """This round's instance in the Messages body, or a dash."""


NONE_HERE = "–"
"""A mapping row this round has no instance of."""
NOT_IN_LOG = "not in the log"
"""A mapping row whose part the request was sent with, but the log's format never keeps (Claude Code's system prompt
and tool list): not a dash, which would say the request had none."""


def _compact(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else dumps_as_written(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_call(oa: ConvertedRound) -> tuple[str, dict] | None:
    """The first call of the round in the Chat Completions body, the response first: (its path, the call)."""
    places = [(m, f"messages[{i}]") for i, m in enumerate(oa.request.body["messages"])]
    if oa.response:
        places.insert(0, (oa.response.body["choices"][0]["message"], "choices[0].message"))
    for message, path in places:
        for i, call in enumerate(message.get("tool_calls") or ()):
            return f"{path}.tool_calls[{i}]", call
    return None


def _arguments_at(path: str, call: dict) -> str:
    """A Chat Completions call's arguments where the body holds them: a function call's JSON string, or a custom
    tool's free-text input (GPT-5's custom tools), which has no arguments."""
    if isinstance(call.get("function"), dict):
        return f"{path}.function.arguments = {_compact(json.dumps(call['function'].get('arguments'), ensure_ascii=False))}"
    if isinstance(call.get("custom"), dict):
        return f"{path}.custom.input = {_compact(json.dumps(call['custom'].get('input'), ensure_ascii=False))}"
    return NONE_HERE


def _find_block(an: ConvertedRound, kind: str, key: str, value: str, show: str) -> str:
    """Where the Messages body has the block of this kind whose `key` is `value`, and its `show` field."""
    places = [(m.get("content"), f"messages[{i}].content") for i, m in enumerate(an.request.body["messages"])]
    if an.response:
        places.insert(0, (an.response.body["content"], "content"))
    for content, path in places:
        for i, block in enumerate(content if isinstance(content, list) else ()):
            if isinstance(block, dict) and block.get("type") == kind and block.get(key) == value:
                return f"{path}[{i}].{show} = {_compact(block.get(show))}"
    return NONE_HERE


def _results_in(messages: list[dict], holders: list[int]) -> int:
    return sum(1 for i in holders for b in messages[i]["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


def field_mapping(oa: ConvertedRound, an: ConvertedRound, not_logged: tuple[str, ...] = ()) -> tuple[FieldRow, ...]:
    """Where the two dialects differ, each with this round's own instance: the same round in both. `not_logged`:
    the parts the log never keeps (summary.parts_not_logged: `instructions`, `tools`), said so, never a dash."""
    absent_system = NOT_IN_LOG if "instructions" in not_logged else NONE_HERE
    absent_tools = NOT_IN_LOG if "tools" in not_logged else NONE_HERE
    o_messages, a_messages = oa.request.body["messages"], an.request.body["messages"]
    rows = []

    system_at = next((i for i, m in enumerate(o_messages) if m.get("role") in ("system", "developer")), None)
    rows.append(FieldRow(
        "System prompt", "a message with role system, inside messages", "the top-level system field, outside messages",
        f"messages[{system_at}].content = {_compact(o_messages[system_at]['content'])}" if system_at is not None else absent_system,
        f"system = {_compact(an.request.body['system'])}" if "system" in an.request.body else absent_system))

    call = _first_call(oa)
    rows.append(FieldRow(
        "Call arguments", "tool_calls[].function.arguments: a JSON string", "a tool_use block's input: a JSON object",
        _arguments_at(*call) if call else NONE_HERE,
        _find_block(an, "tool_use", "id", call[1]["id"], "input") if call else NONE_HERE))

    results = [i for i, m in enumerate(o_messages) if m.get("role") == "tool"]
    first = o_messages[results[0]] if results else None
    rows.append(FieldRow(
        "Which call a result answers", "tool_call_id on the tool message", "tool_use_id in the tool_result block",
        f"messages[{results[0]}].tool_call_id = {_compact(first['tool_call_id'])}" if first else NONE_HERE,
        _find_block(an, "tool_result", "tool_use_id", first["tool_call_id"], "tool_use_id") if first else NONE_HERE))

    a_holders = [i for i, m in enumerate(a_messages) if isinstance(m.get("content"), list)
                 and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])]
    rows.append(FieldRow(
        "Tool results", "one message with role tool per result",
        "tool_result blocks inside one message with role user",
        ", ".join(f"messages[{i}]" for i in results) + f" ({plural(len(results), 'tool message')})"
        if results else NONE_HERE,
        ", ".join(f"messages[{i}]" for i in a_holders) + f" (role user, {plural(_results_in(a_messages, a_holders), 'tool_result block')})"
        if a_holders else NONE_HERE))

    rows.append(FieldRow(
        "Stop signal", "choices[0].finish_reason: stop, tool_calls, length, content_filter",
        "stop_reason: end_turn, tool_use, max_tokens, refusal",
        f"finish_reason = {_compact(oa.response.body['choices'][0]['finish_reason'])}" if oa.response else NONE_HERE,
        f"stop_reason = {_compact(an.response.body['stop_reason'])}" if an.response else NONE_HERE))

    rows.append(FieldRow(
        "Tool definitions", "tools[].function with parameters", "tools[] with input_schema",
        plural(len(oa.request.body["tools"]), "tool") if oa.request.body.get("tools") else absent_tools,
        plural(len(an.request.body["tools"]), "tool") if an.request.body.get("tools") else absent_tools))

    rows.append(FieldRow(
        "Messages array", "everything, the system prompt and each tool result included",
        "user and assistant turns only", plural(len(o_messages), "message"),
        plural(len(a_messages), "message") + (" plus system" if "system" in an.request.body else "")))

    o_usage = oa.response.body.get("usage") if oa.response else None
    a_usage = an.response.body.get("usage") if an.response else None
    rows.append(FieldRow(
        "Input tokens", "usage.prompt_tokens, cached tokens included",
        "usage.input_tokens, cache reads and writes excluded (counted apart)",
        f"prompt_tokens = {o_usage['prompt_tokens']}" if o_usage else NONE_HERE,
        f"input_tokens = {a_usage['input_tokens']}" if a_usage else NONE_HERE))
    return tuple(rows)
