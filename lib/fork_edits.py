"""The edits a fork makes to one round's request, as pure functions over the request body.

Every function takes a body in its dialect and returns a new body; the one given is never
changed, since it may share values with a trace every session reads. The Fork page's structured
editor is a widget per function; the raw JSON view edits the same body as text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import orjson

from lib.dialects import ANTHROPIC, DIALECTS, anthropic_messages, openai_chat
from lib.text import json_said

SYSTEM_ROLES = ("system", "developer")
"""Chat Completions roles that carry instructions inside the messages array."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One editable piece of the messages array: a message's text, one tool result, or a whole message as JSON."""

    message: int
    """The message's position in `messages`."""
    block: int | None
    """The content block's position, for an Anthropic tool result; None for a whole message."""
    kind: str
    """`text` (the message's text), `result` (a tool result's text) or `json` (the message as JSON)."""
    role: str
    """The message's role."""
    value: Any
    """The text or the result; for `json`, the message itself."""
    call_id: str = ""
    """The call a tool result answers."""

    @property
    def text(self) -> str:
        """What the editor shows: the text, the result, or the message as indented JSON."""
        # Written only when shown: a long request has thousands of entries and the editor draws a page of them.
        return json.dumps(self.value, ensure_ascii=False, indent=2) if self.kind == "json" else self.value


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool of the request as the editor shows it."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the model reads about it."""
    schema: str
    """Its JSON schema, as indented JSON."""
    strict: bool
    """Whether it asks for strict arguments."""


def copied(body: dict) -> dict:
    """A copy of a request body that shares nothing with it."""
    # A body is JSON: orjson copies a request of a thousand messages ten times faster than deepcopy does.
    try:
        return orjson.loads(orjson.dumps(body))
    except (TypeError, orjson.JSONEncodeError):  # a value orjson does not take (an integer past 64 bits)
        return copy.deepcopy(body)


# --- messages ----------------------------------------------------------------------------------


def entries(body: dict) -> list[Entry]:
    """Every editable piece of the messages array, in order; the OpenAI system message is the system prompt's."""
    found = []
    for n, message in enumerate(_messages(body)):
        role = str(message.get("role", "")) if isinstance(message, dict) else ""
        content = message.get("content") if isinstance(message, dict) else None
        if role in SYSTEM_ROLES and n == 0:
            continue
        if role == "tool" and isinstance(content, str):
            found.append(Entry(n, None, "result", role, content, str(message.get("tool_call_id", ""))))
        elif isinstance(content, str) and set(message) <= {"role", "content", "name"}:
            found.append(Entry(n, None, "text", role, content))
        elif _results_only(content):
            found += [Entry(n, b, "result", role, _block_text(block), str(block.get("tool_use_id", "")))
                      for b, block in enumerate(content)]
        else:
            found.append(Entry(n, None, "json", role, message))
    return found


def _messages(body: dict) -> list:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _results_only(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("content", ""), (str, list))
        for b in content)


def _block_text(block: dict) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def with_entry(body: dict, entry: Entry, text: str) -> tuple[dict, str | None]:
    """The body with this entry's text replaced; for a message edited as JSON, why the text is not one."""
    edited = copied(body)
    message = edited["messages"][entry.message]
    if entry.kind == "json":
        replaced, problem = json_object(text, f"messages[{entry.message}]", "message")
        if problem:
            return body, problem
        edited["messages"][entry.message] = replaced
    elif entry.block is None:
        message["content"] = text
    else:
        message["content"][entry.block]["content"] = text
    return edited, None


def without_entry(body: dict, entry: Entry) -> dict:
    """The body without this message, or without this one tool result of a message that holds several."""
    edited = copied(body)
    message = edited["messages"][entry.message]
    if entry.block is not None and len(message["content"]) > 1:
        del message["content"][entry.block]
    else:
        del edited["messages"][entry.message]
    return edited


def with_results_emptied(body: dict) -> dict:
    """Every tool result of the request sent back as an empty string."""
    edited = body
    for entry in entries(body):
        if entry.kind == "result":
            edited, _ = with_entry(edited, entry, "")
    return edited


def with_message(body: dict, dialect: str, role: str, text: str, call_id: str = "", at: int | None = None) -> dict:
    """The body with a message added at position `at` of the messages array (at the end when None): a user or
    assistant text, or a tool result for `call_id`. The messages from `at` on move one place down."""
    edited = copied(body)
    if role != "tool":
        added = {"role": role, "content": text}
    elif dialect == ANTHROPIC:
        added = {"role": "user", "content": [anthropic_messages.tool_result_block(call_id, text, False)]}
    else:
        added = openai_chat.tool_message(call_id, text)
    messages = edited.setdefault("messages", [])
    messages.insert(len(messages) if at is None else at, added)
    return edited


def insert_positions(body: dict, dialect: str) -> list[int]:
    """Where a message may be added: before any message but an OpenAI system prompt, or at the end."""
    messages = _messages(body)
    first = 1 if dialect != ANTHROPIC and _opens_with_system(messages) else 0
    return list(range(first, len(messages) + 1))


# --- the system prompt -------------------------------------------------------------------------


def system_prompt(body: dict, dialect: str) -> str:
    """The request's instructions: Anthropic's top-level `system`, or the first message when it is a system one."""
    if dialect == ANTHROPIC:
        system = body.get("system")
        return system if isinstance(system, str) else _block_text({"content": system or []})
    messages = _messages(body)
    return str(messages[0].get("content") or "") if _opens_with_system(messages) else ""


def _opens_with_system(messages: list) -> bool:
    return bool(messages) and isinstance(messages[0], dict) and messages[0].get("role") in SYSTEM_ROLES


def with_system(body: dict, dialect: str, text: str) -> dict:
    """The body with these instructions; an empty text removes them."""
    edited = copied(body)
    if dialect == ANTHROPIC:
        edited.pop("system", None)
        return {**edited, "system": text} if text else edited
    messages = edited.setdefault("messages", [])
    has = _opens_with_system(messages)
    if has and text:
        messages[0]["content"] = text
    elif has:
        del messages[0]
    elif text:
        messages.insert(0, {"role": "system", "content": text})
    return edited


# --- tools -------------------------------------------------------------------------------------


def tools(body: dict, dialect: str) -> list[ToolEntry]:
    """The request's tools as the editor shows them."""
    found = []
    for tool in body.get("tools") or []:
        inner = _inner(tool, dialect)
        schema = inner.get("input_schema" if dialect == ANTHROPIC else "parameters", {})
        found.append(ToolEntry(str(inner.get("name", "")), str(inner.get("description", "")),
                               json.dumps(schema, ensure_ascii=False, indent=2), inner.get("strict") is True))
    return found


def _inner(tool: Any, dialect: str) -> dict:
    """Where a tool's name, description and schema sit: the `function` object in Chat Completions."""
    if not isinstance(tool, dict):
        return {}
    return tool if dialect == ANTHROPIC else tool.get("function", {}) if isinstance(tool.get("function"), dict) else {}


def with_tool(body: dict, dialect: str, position: int, description: str | None = None, schema: str | None = None,
              strict: bool | None = None) -> tuple[dict, str | None]:
    """The body with tool `position` changed; when the schema is not a JSON object, the body unchanged and why."""
    edited = copied(body)
    inner = _inner(edited["tools"][position], dialect)
    if schema is not None:
        parsed, problem = json_object(schema, f"The schema of tools[{position}]", "schema")
        if problem:
            return body, problem
        inner["input_schema" if dialect == ANTHROPIC else "parameters"] = parsed
    if description is not None:
        inner["description"] = description
    if strict is not None:
        inner.pop("strict", None)
        if strict:
            inner["strict"] = True
    return edited, None


def json_object(text: str, what: str, unit: str) -> tuple[dict | None, str | None]:
    """The text read as a JSON object, or why it is not one, naming `what`, and where in the `unit` (`request`,
    `message`, `schema`) and what is wrong in the words every reader of a log says it in (lib.text.json_said)."""
    if not text.strip():
        return None, f"{what} is empty: it must be a JSON object."
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{what} is not valid JSON ({json_said(exc, unit)})."
    except ValueError:  # a number past the 4,300 digits Python turns into an int
        return None, f"{what} could not be read: it holds a number of more than 4,300 digits, past what Python reads."
    except RecursionError:
        return None, f"{what} is not valid JSON: it is nested too deeply to read."
    if not isinstance(parsed, dict):
        return None, f"{what} must be a JSON object."
    return parsed, None


def without_tool(body: dict, position: int) -> dict:
    """The body without tool `position`; with no tool left, the tool list and its settings go too."""
    edited = copied(body)
    del edited["tools"][position]
    if not edited["tools"]:
        for name in ("tools", "tool_choice", "parallel_tool_calls"):
            edited.pop(name, None)
    return edited


def with_added_tool(body: dict, dialect: str, name: str, description: str, schema: str) -> tuple[dict, str | None]:
    """The body with a new tool at the end of its list, or unchanged and why when the schema is not JSON."""
    what = f"The schema of the new tool {name!r}" if name else "The schema of the new tool"
    parsed, problem = json_object(schema, what, "schema")
    if problem or not name:
        return body, problem or "A new tool needs a name."
    edited = copied(body)
    added = {"name": name, "description": description}
    added = ({**added, "input_schema": parsed} if dialect == ANTHROPIC
             else {"type": "function", "function": {**added, "parameters": parsed}})
    edited.setdefault("tools", []).append(added)
    return edited, None


# --- settings ----------------------------------------------------------------------------------


def settings(body: dict, dialect: str) -> tuple[str | None, bool | None]:
    """`tool_choice` (auto, required, none, a tool's name, or None when not sent) and `parallel_tool_calls`."""
    return DIALECTS[dialect].read_tool_choice(body)


def with_settings(body: dict, dialect: str, choice: str | None, parallel: bool | None) -> dict:
    """The body with this tool_choice and parallel-calls setting, written as the dialect writes them."""
    edited = copied(body)
    for name in ("tool_choice", "parallel_tool_calls"):
        edited.pop(name, None)
    return {**edited, **DIALECTS[dialect].tool_choice_fields(choice, parallel)}


def with_model(body: dict, model: str) -> dict:
    """The body asking for another model."""
    return {**copied(body), "model": model}
