"""Anthropic Messages bodies: content blocks, tool_use and tool_result, a top-level system.

Both directions of the dialect live here: reading a body into lib.model, writing the model back
as a body, the stop table, the tool_choice mapping and the predicates that recognize a body. It
runs past 400 lines because it is the one home of everything Messages-shaped; split it by
direction only if a third concern arrives.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from lib.dialects.common import (
    EMPTY_SCHEMA,
    SHARED_SETTINGS,
    Pools,
    at,
    envelope,
    finish,
    flatten_content,
    intern_messages,
    intern_tools,
    loads_as_written,
    message_key,
    parse_arguments,
    texts_of,
    unmapped,
)
from lib.coerce import count, text_or_none
from lib.intern import content_key
from lib.model import (
    Dialect,
    Message,
    OtherModelCall,
    OtherPart,
    Part,
    Request,
    Response,
    Stop,
    TextPart,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    Usage,
)

DIALECT: Dialect = "anthropic-messages"
"""The name a trace's header and a CallRecord give this dialect."""
TITLE = "Anthropic Messages"
"""The dialect in a user's words."""
FINISH_FIELD = "stop_reason"
"""The response field that says why the model stopped, as this dialect names it."""
REPORTS_CACHE_WRITES = True
"""Whether this dialect's usage says what was written to the prompt cache: `cache_creation_input_tokens`, billed at its own rate."""

STOP_REASONS: dict[str, Stop] = {
    "tool_use": "tool_calls",
    "end_turn": "end",
    "stop_sequence": "end",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "pause_turn": "other",
}
"""A stop_reason read as the normalized stop (any other one is `other`)."""
STOP_REASON_OF: dict[Stop, str] = {
    "tool_calls": "tool_use", "end": "end_turn", "length": "max_tokens",
    "content_filter": "refusal", "refusal": "refusal", "other": "end_turn",
}
"""The normalized stop written as a stop_reason (`other` has no equivalent and is written `end_turn`)."""
SHORT = "Messages"
"""The dialect's name in a note about what a body cannot carry."""
REQUEST_FIELDS = frozenset({"messages", "system", "tools", "tool_choice", "max_tokens", "stop_sequences",
                            "output_config", "output_format", *SHARED_SETTINGS})
"""The request fields the writers carry across; any other one with a value is named when left out (what of
output_config and output_format the schema does not hold, by output_format_leftovers)."""
MAX_TOKENS_FILLED = 1024
"""Messages requires max_tokens; a Chat Completions request often has none."""


def _block(block: Any, path: str) -> Part:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(text=block["text"], path=path)
    if kind == "tool_use":
        text, parsed, error = parse_arguments(block.get("input", {}))
        return ToolCallPart(
            id=str(block.get("id", "")),
            name=str(block.get("name", "")),
            arguments_raw=text,
            arguments=parsed,
            arguments_error=error,
            path=path,
        )
    if kind == "tool_result":
        return ToolResultPart(
            call_id=str(block.get("tool_use_id", "")),
            content=flatten_content(block.get("content")),
            is_error=bool(block.get("is_error", False)),
            path=path,
        )
    return OtherPart(type=str(kind or type(block).__name__), raw=block, path=path)


def _message(raw: Any, key: str) -> Message:
    if not isinstance(raw, dict):
        return Message(role="unknown", parts=(OtherPart(type=type(raw).__name__, raw=raw),), raw=raw, key=key)
    key = message_key(raw, key)  # a moved cache breakpoint leaves the message what it was
    content = raw.get("content")
    if isinstance(content, str):
        parts: tuple[Part, ...] = (TextPart(text=content, path="content"),)
    elif isinstance(content, list):
        parts = tuple(_block(b, f"content[{i}]") for i, b in enumerate(content))
    elif content is None:
        parts = ()
    else:  # neither text nor blocks (a number, an object): kept in sight as it was, never iterated
        parts = (OtherPart(type="content", raw=content, path="content"),)
    return Message(role=str(raw.get("role", "unknown")), parts=parts, raw=raw, key=key)


def _system(raw: Any, key: str) -> Message:
    # `system` is a string or a list of text blocks; shown as a message with role system.
    return _message({"role": "system", "content": raw}, key)


def _tool_list(raw: list, key: str) -> tuple[tuple[ToolDefinition, ...], list]:
    tools = []
    for t in raw:
        spec = t if isinstance(t, dict) else {}
        tools.append(
            ToolDefinition(
                name=str(spec.get("name", "")),
                description=str(spec.get("description") or ""),
                parameters=spec.get("input_schema"),
                raw=t,
                key=content_key(t),
            )
        )
    return tuple(tools), raw


def read_request(body: dict, pools: Pools, previous: Request | None = None, checked: bool = False) -> Request:
    """A Messages request body as a Request, its messages, system and tools interned.

    `previous` and `checked` as in openai_chat.read_request."""
    messages, interned = intern_messages(body.get("messages"), pools, _message, previous, checked)
    raw = dict(body)
    raw["messages"] = interned
    system = None
    if body.get("system"):
        system = pools.messages.get({"system": body["system"]}, lambda r, k: _system(r["system"], k))
        raw["system"] = system.raw["content"]
    tools: tuple[ToolDefinition, ...] = ()
    if isinstance(body.get("tools"), list):
        tools, raw["tools"] = intern_tools(body["tools"], pools, _tool_list, previous)
    return Request(messages=messages, system=system, tools=tools, model=text_or_none(body.get("model")), raw=raw,
                   output_schema=_output_schema(body))


def _output_schema(body: dict) -> Any:
    """The schema the request asks the answer to follow: `output_config.format` (`json_schema`), or the structured
    outputs beta's `output_format` before it; None where it asks for none."""
    config = body.get("output_config")
    found = config.get("format") if isinstance(config, dict) else body.get("output_format")
    if not isinstance(found, dict) or found.get("type") != "json_schema":
        return None
    return found.get("schema")


def output_format_leftovers(raw: dict, target: str) -> list[str]:
    """A note for each setting of output_config (and of the beta's output_format) that `target` has no place for: all
    but the schema the writers carry (Request.output_schema)."""
    read = _output_schema(raw) is not None
    config = raw.get("output_config")
    if isinstance(config, dict):  # the reader takes output_config's format; an output_format beside it is not read
        return (unmapped({"output_format": raw.get("output_format")}, set(), target)
                + unmapped(config, {"format"} if read else set(), target, "output_config."))
    return unmapped({k: raw.get(k) for k in ("output_config", "output_format")}, {"output_format"} if read else set(),
                    target)


def reports_cache_read(usage: Any) -> bool:
    """Whether a usage object holds the count of input tokens read from the prompt cache (a 0 included):
    `cache_read_input_tokens`, which a usage converted from a framework's counts may lack."""
    return isinstance(usage, dict) and "cache_read_input_tokens" in usage


def reports_cache_write(usage: Any) -> bool:
    """Whether a usage object holds the count of input tokens written to the prompt cache (a 0 included):
    `cache_creation_input_tokens`, which a usage converted from a framework's counts may lack."""
    return isinstance(usage, dict) and "cache_creation_input_tokens" in usage


def read_usage(usage: Any) -> Usage | None:
    """Reported usage; Anthropic's input_tokens exclude cache reads and writes, so add them back. The thinking
    tokens, where the usage counts them apart (Claude Code's `output_tokens_details.thinking_tokens`), are part of
    output_tokens, as Anthropic bills them."""
    if not isinstance(usage, dict) or "input_tokens" not in usage:
        return None
    # A call that compacted the history first (context management's compaction) sampled twice: the summary, then the
    # answer from it. The top-level counts are the answer's alone; the summary's, billed at the same model's rates,
    # are the `compaction` entry of `iterations`, added here so the round says what the call cost.
    iterations = usage.get("iterations") if isinstance(usage.get("iterations"), list) else ()
    parts = [usage, *(i for i in iterations if isinstance(i, dict) and i.get("type") == "compaction")]
    cache_read = sum(count(part.get("cache_read_input_tokens")) for part in parts)
    cache_write = sum(count(part.get("cache_creation_input_tokens")) for part in parts)
    for_an_hour = sum(count(part["cache_creation"].get("ephemeral_1h_input_tokens")) for part in parts
                      if isinstance(part.get("cache_creation"), dict))
    details = usage.get("output_tokens_details")
    # Messages usage has no reasoning field: without Claude Code's count, the thinking is in output_tokens, not known.
    thinking = details.get("thinking_tokens") if isinstance(details, dict) else None
    output = sum(count(part.get("output_tokens")) for part in parts)
    # The advisor tool's sub-inference runs on another model (claude-opus-4-7 advising claude-sonnet-4-6), billed at
    # that model's rates: Anthropic leaves it out of the top-level counts, and so do we, keeping it apart to be priced
    # at its own rates and said beside the figures.
    advised = tuple(OtherModelCall(text_or_none(i.get("model")), read_usage({k: v for k, v in i.items()
                                                                             if k != "iterations"}))
                    for i in iterations if isinstance(i, dict) and i.get("type") == "advisor_message"
                    and "input_tokens" in i)
    return Usage(
        input_tokens=sum(count(part.get("input_tokens")) for part in parts) + cache_read + cache_write,
        output_tokens=output,
        source="reported",
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        cache_write_1h_tokens=min(for_an_hour, cache_write),
        reasoning_tokens=None if thinking is None else min(count(thinking), output),
        other_model_calls=advised,
    )


def turn_missing(body: Any) -> str | None:
    """Why a body a server answered a call with holds no model turn to read (no `content` array), or None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if not isinstance(body.get("content"), list):
        return "it has no content array"
    return None


def read_response(body: dict, pools: Pools) -> Response:
    """A Messages response (`type: message`) as a Response."""
    message = pools.messages.get({"role": "assistant", "content": body.get("content") or []}, _message)
    stop_reason = text_or_none(body.get("stop_reason"))
    if stop_reason is not None:
        stop: Stop | None = STOP_REASONS.get(str(stop_reason), "other")
    else:
        stop = "tool_calls" if message.tool_calls else "end"
    return Response(
        message=message,
        finish_reason=stop_reason,
        stop=stop,
        usage=read_usage(body.get("usage")),
        model=text_or_none(body.get("model")),
        raw=body,
        message_path="",
        finish_reason_path="stop_reason" if stop_reason is not None else None,
    )


# --- writing the model as a Messages body ------------------------------------------------------
# `source` is the module of the dialect the round was read from, as in openai_chat's writers.


def _input(call, where: str, notes: list[str]) -> Any:
    if isinstance(call.arguments, dict):
        try:
            # Parsed again from the text the model wrote, so 60.00 stays 60.00 when the body is written out.
            return loads_as_written(call.arguments_raw)
        except (ValueError, RecursionError):
            return call.arguments
    if call.arguments is None:
        notes.append(f"{at(where, call.path)}: the arguments are not valid JSON, so they cannot become an "
                     "input object; sent as {}")
        return {}
    notes.append(f"{at(where, call.path)}: the arguments are a JSON {type(call.arguments).__name__}, not an "
                 "object; Anthropic expects an object")
    return call.arguments


def write_blocks(message: Message, where: str, own: bool, notes: list[str]) -> list[dict]:
    """A model message's parts as Messages content blocks, in the model's order. `own` says the
    message was read from this dialect, so parts the model keeps raw go back as they were."""
    blocks = []
    for part in message.parts:
        match part.kind:
            case "text":
                blocks.append({"type": "text", "text": part.text})
            case "tool-call":
                blocks.append({"type": "tool_use", "id": part.id, "name": part.name,
                               "input": _input(part, where, notes)})
            case "tool-result":
                blocks.append(tool_result_block(part.call_id, part.content, part.is_error))
            case _:
                if own:
                    blocks.append(part.raw)
                else:
                    notes.append(f"{at(where, part.path)}: a {part.type} part has no Messages form; left out")
    return blocks


def tool_result_block(call_id: str, content: str, is_error: bool) -> dict:
    """One tool result as a `tool_result` block; `is_error` only when set."""
    block: dict = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def _content(blocks: list) -> Any:
    # A block kept raw may be anything its log held (a number, a list): only a text block is unwrapped.
    if len(blocks) == 1 and isinstance(blocks[0], dict) and blocks[0].get("type") == "text":
        return blocks[0]["text"]
    return blocks


def _system_written(request: Request, notes: list[str]) -> Any:
    texts: list[str] = []
    if request.system is not None:
        texts.extend(texts_of(request.system))
    leading = True  # system messages before the first turn sit where Messages' system means them
    for i, message in enumerate(request.messages):
        if message.role not in ("system", "developer"):
            leading = False
            continue
        if not leading:
            notes.append(f"messages[{i}]: a {message.role} message after the conversation began moves to the "
                         "top-level system; Messages has no system role inside messages")
        elif message.role == "developer":
            notes.append(f"messages[{i}]: the developer role becomes part of the top-level system")
        texts.extend(texts_of(message))
    if not texts:
        return None
    return texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]


def _messages_written(request: Request, own: bool, notes: list[str]) -> list[dict]:
    messages: list[dict] = []
    results_open = False  # the last message holds tool results: a following result or text joins it
    for i, message in enumerate(request.messages):
        if message.role in ("system", "developer"):
            continue
        where = f"messages[{i}]"
        blocks = write_blocks(message, where, own, notes)
        role = "user" if message.role == "tool" else message.role
        # Chat Completions sends one `tool` message per result; Messages wants them together in one user turn.
        if results_open and role == "user":
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
        results_open = role == "user" and bool(message.tool_results)
    for entry in messages:
        entry["content"] = _content(entry["content"])
    return messages


def _server_tool(tool: ToolDefinition) -> bool:
    """A tool that runs on Anthropic's side (web search, code execution): it has a type of its own."""
    return isinstance(tool.raw, dict) and tool.raw.get("type") not in (None, "custom")


def _tools_written(request: Request, source: ModuleType, notes: list[str]) -> list[dict]:
    tools = []
    own = source.DIALECT == DIALECT
    for i, tool in enumerate(request.tools):
        if own and _server_tool(tool):
            tools.append(tool.raw)  # a server tool travels as it was
            continue
        note = None if own else source.foreign_tool(tool, SHORT)
        if note:
            notes.append(f"tools[{i}]: {note}")
            continue
        entry: dict = {"name": tool.name}
        if tool.description:
            entry["description"] = tool.description
        entry["input_schema"] = tool.parameters if tool.parameters is not None else EMPTY_SCHEMA
        tools.append(entry)
    return tools


def write_request(request: Request, source: ModuleType) -> tuple[dict, list[str]]:
    """The request as a Messages body, and what of it the body could not carry or had to fill in."""
    notes: list[str] = []
    raw = request.raw if isinstance(request.raw, dict) else {}
    own = source.DIALECT == DIALECT
    body: dict = {k: raw[k] for k in ("model",) if k in raw}
    if not own:
        limit = source.max_tokens(raw)
        if limit is None:
            limit = MAX_TOKENS_FILLED
            notes.append(f"max_tokens: Messages requires it and the source has none; {MAX_TOKENS_FILLED} is filled in")
        body["max_tokens"] = limit
    elif "max_tokens" in raw:
        body["max_tokens"] = raw["max_tokens"]
    system = _system_written(request, notes)
    if system is not None:
        body["system"] = system
    if request.tools:
        body["tools"] = _tools_written(request, source, notes)
    body["messages"] = _messages_written(request, own, notes)
    body.update({k: raw[k] for k in ("temperature", "top_p", "stream") if k in raw})
    if own:
        body.update({k: raw[k] for k in ("stop_sequences", "output_config", "output_format") if k in raw})
        if raw.get("tool_choice") is not None:
            body["tool_choice"] = raw["tool_choice"]
    else:
        stops = source.stop_sequences(raw)
        if stops is not None:
            body["stop_sequences"] = stops
        body.update(tool_choice_fields(*source.read_tool_choice(raw)))
        if request.output_schema is not None:
            body["output_config"] = {"format": {"type": "json_schema", "schema": request.output_schema}}
        notes.extend(source.output_format_leftovers(raw, SHORT))
    notes.extend(unmapped(raw, source.REQUEST_FIELDS, SHORT))
    return body, notes


def _usage_written(usage: Usage, notes: list[str]) -> dict:
    # Anthropic counts cache reads and writes apart from input_tokens; the model counts them in.
    body: dict = {"input_tokens": usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens}
    if usage.cache_write_tokens:
        body["cache_creation_input_tokens"] = usage.cache_write_tokens
    if usage.cache_read_tokens:
        body["cache_read_input_tokens"] = usage.cache_read_tokens
    body["output_tokens"] = usage.output_tokens
    if usage.reasoning_tokens:
        notes.append(f"usage: {usage.reasoning_tokens:,} reasoning tokens have no Messages field; they stay "
                     "counted in output_tokens")
    return body


def write_response(response: Response, source: ModuleType) -> tuple[dict, list[str]]:
    """The response as a Messages `message` body, and what of it the body could not carry."""
    notes: list[str] = []
    raw, body = envelope(response)
    own = source.DIALECT == DIALECT
    body.update({"type": "message", "role": "assistant"})
    if response.model is not None:
        body["model"] = response.model
    body["content"] = write_blocks(response.message, response.message_path or "content", own, notes)
    body["stop_reason"] = finish(response, STOP_REASON_OF, notes)
    body["stop_sequence"] = None
    if response.usage is not None:
        body["usage"] = _usage_written(response.usage, notes)
    if not own:
        notes.extend(source.response_leftovers(raw, SHORT))
    return body, notes


# --- what only this dialect's bodies hold, asked when a round crosses to another one -----------


def max_tokens(raw: dict) -> Any:
    """The request's output limit, or None."""
    return raw.get("max_tokens")


def output_limit(raw: dict) -> tuple[str, Any] | None:
    """The field that sets the request's output limit and its value, or None where the request sets none."""
    return ("max_tokens", raw["max_tokens"]) if "max_tokens" in raw else None


def fills_context(finish_reason: str | None) -> bool:
    """Whether the stop signal says the conversation filled the model's context window (not the output limit)."""
    return finish_reason == "model_context_window_exceeded"


def stop_sequences(raw: dict) -> list | None:
    """The request's stop sequences, or None."""
    return raw.get("stop_sequences")


def foreign_tool(tool: ToolDefinition, target: str) -> str | None:
    """Why this tool cannot be written in `target` (a server tool runs at the provider: Anthropic's, or a system tool
    Bedrock runs), or None."""
    if _server_tool(tool):
        return f"the server tool {tool.raw.get('type')} runs at the provider; {target} has no such tool; left out"
    return None


def response_leftovers(raw: dict, target: str) -> list[str]:
    """A note for each field of a Messages response that `target` has no place for."""
    notes = unmapped(raw, {"id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"}, target)
    if raw.get("stop_sequence") is not None:
        notes.append(f"stop_sequence: which stop sequence ended the text ({raw['stop_sequence']!r}) has no "
                     f"{target} field; left out")
    return notes


# --- tool_choice: the neutral pair of openai_chat.read_tool_choice -----------------------------


def read_tool_choice(raw: dict) -> tuple[str | None, bool | None]:
    """The request's tool_choice as the neutral pair (parallel calls False when it turns them off)."""
    choice = raw.get("tool_choice")
    if not isinstance(choice, dict):
        return None, None
    kind = choice.get("type")
    named = choice.get("name") if kind == "tool" else {"auto": "auto", "any": "required", "none": "none"}.get(kind)
    return named, False if choice.get("disable_parallel_tool_use") else None


def tool_choice_fields(choice: str | None, parallel: bool | None) -> dict:
    """The body's tool_choice for the neutral pair, or nothing when neither is set. Only auto, any
    and tool take disable_parallel_tool_use."""
    if choice is None and parallel is not False:
        return {}
    kind = choice or "auto"
    written: dict = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}.get(
        kind, {"type": "tool", "name": kind})
    if parallel is False and written["type"] != "none":
        written["disable_parallel_tool_use"] = True
    return {"tool_choice": written}


# --- recognizing a body ------------------------------------------------------------------------


def is_response(body: Any) -> bool:
    """A Messages API response body."""
    return isinstance(body, dict) and body.get("type") == "message" and isinstance(body.get("content"), list)


def is_request(body: Any) -> bool:
    """A Messages request body: messages plus a sign only Anthropic's API has."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return False
    if "system" in body or "anthropic_version" in body:
        return True
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    # Tool blocks sit near the end of a request; looking further back would cost a scan per line.
    for message in body["messages"][-4:]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result") for block in content
        ):
            return True
    return False
