"""What a live run sends, in each dialect: the request body, tool list and tool results.

A thin adapter over lib/dialects, whose modules read the responses and write the tool_choice
and the tool results; what only a live run needs (the loop's RequestOptions, tools described by
lib/live/tools.py, the 'tools in the system prompt' teaching switch) stays here. No SDK here:
the bodies are plain JSON, handed to providers.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Iterable

from lib.dialects import anthropic_messages, openai_chat
from lib.dialects.common import Pools
from lib.live.tools import Tool
from lib.model import Response

TOOLS_IN_PROMPT = "\n\nYou can use these tools. Each one is described as JSON:\n{tools}"
"""What the 'tools in the system prompt' teaching switch appends to the system prompt."""


@dataclass(frozen=True)
class RequestOptions:
    """The request's own settings, sent only when set."""

    model: str
    """The model asked for."""
    temperature: float | None = None
    """Sampling temperature; None leaves it out (some models refuse it)."""
    tool_choice: str | None = None
    """`auto`, `required`, `none` or a tool name; None leaves it out."""
    parallel_tool_calls: bool | None = None
    """Allow several calls in one response; None leaves it out."""
    max_tokens: int | None = None
    """The output limit; Anthropic requires one (1024 when unset)."""
    extra: dict = field(default_factory=dict)
    """Other body fields sent as they are, e.g. `reasoning_effort`."""


@dataclass(frozen=True)
class Answer:
    """One tool result on its way back to the model."""

    call_id: str
    """The id of the call it answers."""
    content: str
    """The text the model reads."""
    is_error: bool = False
    """The call failed or was refused (Anthropic marks the block `is_error`)."""


class _Wire:
    """What both dialects do alike: read through their module, and write a user message."""

    dialect: ModuleType
    """The lib/dialects module that reads and writes this dialect."""

    @property
    def name(self) -> str:
        """The dialect's name, as providers and traces give it."""
        return self.dialect.DIALECT

    def turn_missing(self, body: Any) -> str | None:
        """Why an answer's body holds no model turn of this dialect, or None: checked before `read`."""
        return self.dialect.turn_missing(body)

    def read(self, body: dict) -> Response:
        """The response as the model reads it."""
        return self.dialect.read_response(body, Pools())

    def user(self, text: str) -> dict:
        """A user message."""
        return {"role": "user", "content": text}


class OpenAIChat(_Wire):
    """Chat Completions: the system prompt is a message; one `tool` message per result."""

    dialect = openai_chat

    def tool_list(self, tools: Iterable[Tool]) -> list[dict]:
        """The `tools` array."""
        listed = []
        for tool in tools:
            function = {"name": tool.name, "description": tool.description}
            if tool.strict:
                function["strict"] = True
            function["parameters"] = tool.parameters
            listed.append({"type": "function", "function": function})
        return listed

    def opening(self, system: str, question: str) -> tuple[str | None, list[dict]]:
        """The top-level system prompt (none here) and the first messages."""
        first = [{"role": "system", "content": system}] if system else []
        return None, [*first, {"role": "user", "content": question}]

    def body(self, options: RequestOptions, system: str | None, messages: list, tools: list | None) -> dict:
        """The request body, fields in the order the API documents them."""
        body: dict[str, Any] = {"model": options.model, "messages": messages}
        if tools:
            body["tools"] = tools
            body.update(openai_chat.tool_choice_fields(options.tool_choice, options.parallel_tool_calls))
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            body["max_completion_tokens"] = options.max_tokens
        return {**body, **options.extra}

    def results(self, answers: list[Answer]) -> list[dict]:
        """One tool message per result, each carrying its call's id."""
        return [openai_chat.tool_message(a.call_id, a.content) for a in answers]


class AnthropicMessages(_Wire):
    """Messages API: the system prompt is top-level; all results go in one user message."""

    dialect = anthropic_messages

    def tool_list(self, tools: Iterable[Tool]) -> list[dict]:
        """The `tools` array."""
        return [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]

    def opening(self, system: str, question: str) -> tuple[str | None, list[dict]]:
        """The top-level system prompt and the first messages."""
        return (system or None), [{"role": "user", "content": question}]

    def body(self, options: RequestOptions, system: str | None, messages: list, tools: list | None) -> dict:
        """The request body, fields in the order the bundled traces use."""
        body: dict[str, Any] = {"model": options.model, "max_tokens": options.max_tokens or 1024}
        if system:
            body["system"] = system
        if tools:
            body["tools"] = tools
            body.update(anthropic_messages.tool_choice_fields(options.tool_choice, options.parallel_tool_calls))
        body["messages"] = messages
        if options.temperature is not None:
            body["temperature"] = options.temperature
        return {**body, **options.extra}

    def results(self, answers: list[Answer]) -> list[dict]:
        """One user message holding a `tool_result` block per call, each with its `tool_use_id`."""
        blocks = [anthropic_messages.tool_result_block(a.call_id, a.content, a.is_error) for a in answers]
        return [{"role": "user", "content": blocks}] if blocks else []


DIALECTS = {d.name: d for d in (OpenAIChat(), AnthropicMessages())}
"""The writing side of each dialect a live run can speak, by name."""


def tools_in_prompt(system: str, tool_list: list[dict]) -> str:
    """The system prompt with the tool list pasted in as text: the teaching switch's mistake."""
    return system + TOOLS_IN_PROMPT.format(tools=json.dumps(tool_list, ensure_ascii=False, indent=2))
