"""OpenAI Chat Completions bodies (and the many servers that speak the same dialect).

Both directions of the dialect live here: reading a body into lib.model, writing the model back
as a body, the stop table, the tool_choice mapping and the predicates that recognize a body.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from lib.dialects import anthropic_messages
from lib.dialects.common import (
    EMPTY_SCHEMA,
    SHARED_SETTINGS,
    Pools,
    at,
    envelope,
    finish,
    flatten_content,
    free_form,
    intern_messages,
    intern_tools,
    message_key,
    others,
    parse_arguments,
    texts_of,
    unmapped,
)
from lib.coerce import count, mapping, text_or_none
from lib.intern import content_key
from lib.model import (
    Dialect,
    Message,
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

DIALECT: Dialect = "openai-chat"
"""The name a trace's header and a CallRecord give this dialect."""
TITLE = "OpenAI Chat Completions"
"""The dialect in a user's words."""
FINISH_FIELD = "finish_reason"
"""The response field that says why the model stopped, as this dialect names it."""
REPORTS_CACHE_WRITES = False
"""Whether this dialect's usage says what was written to the prompt cache: OpenAI's usage counts the cached input it read (`cached_tokens`), never what it wrote: the
API caches without a write fee, and Codex and Gemini CLI logs converted to this dialect report none either."""

FINISH_REASONS: dict[str, Stop] = {
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "stop": "end",
    "length": "length",
    "content_filter": "content_filter",
    "eos": "end",  # Together's: the model wrote its end-of-sequence token
}
"""A finish_reason read as the normalized stop (any other one is `other`)."""
FINISH_REASON_OF: dict[Stop, str] = {
    "tool_calls": "tool_calls", "end": "stop", "length": "length",
    "content_filter": "content_filter", "refusal": "content_filter", "other": "stop",
}
"""The normalized stop written as a finish_reason (`other` has no equivalent and is written `stop`)."""
SHORT = "Chat Completions"
"""The dialect's name in a note about what a body cannot carry."""
REQUEST_FIELDS = frozenset({"messages", "tools", "functions", "tool_choice", "parallel_tool_calls", "max_tokens",
                            "max_completion_tokens", "stop", "response_format", *SHARED_SETTINGS})
"""The request fields the writers carry across; any other one with a value is named when left out (what of
response_format the schema does not hold, by output_format_leftovers)."""
SCHEMA_NAME_FILLED = "output"
"""response_format's json_schema requires a name; a Messages request names no schema."""


def _message(raw: Any, key: str) -> Message:
    # Every new message of every log passes here: the usual shapes (a text, a tool result, calls) are
    # taken with as few lookups as the checks allow, parts built by position.
    if not isinstance(raw, dict):
        return Message(role="unknown", parts=(OtherPart(type=type(raw).__name__, raw=raw),), raw=raw, key=key)
    key = message_key(raw, key)  # a moved cache breakpoint (OpenRouter's, in content parts) changes nothing read
    role = str(raw.get("role", "unknown"))
    content = raw.get("content")
    if role in ("tool", "function"):
        # Legacy function messages carry no id; their name is the best pairing we have.
        call_id = (raw.get("tool_call_id") if "tool_call_id" in raw else raw.get("name")) or ""
        parts: list[Part] = [ToolResultPart(str(call_id), flatten_content(content), False, "content")]
    elif isinstance(content, str):
        parts = [TextPart(content, "content")]
    elif isinstance(content, list):
        parts = [_content_part(block, i) for i, block in enumerate(content)]
    elif isinstance(content, dict):
        # Cloudflare Workers AI answers a json_schema response_format with the object itself, not its text: the
        # answer is that JSON, written compactly in the order received (the model's own spacing is not recorded).
        parts = [TextPart(json.dumps(content, ensure_ascii=False, separators=(",", ":")), "content")]
    else:
        parts = []
    calls = raw.get("tool_calls")
    if isinstance(calls, list):
        for i, call in enumerate(calls):
            parts.append(_tool_call(call, _CALL_PATHS[i] if i < len(_CALL_PATHS) else f"tool_calls[{i}]"))
    elif calls:  # not a list of calls: kept in sight as it was, never read as calls (a string's letters, a dict's keys)
        parts.append(OtherPart(type="tool_calls", raw=calls, path="tool_calls"))
    legacy = raw.get("function_call")
    if isinstance(legacy, dict):
        parts.append(_tool_call({"function": legacy}, "function_call"))
    audio = raw.get("audio")
    if isinstance(audio, dict):
        # A spoken answer (its sound, transcript and id), or one sent back by its id: kept in sight, since `content`
        # is null and the message would read as empty.
        parts.append(OtherPart(type="audio", raw=audio, path="audio"))
    return Message(role, tuple(parts), raw, key)


_CALL_PATHS = tuple(f"tool_calls[{i}]" for i in range(16))
"""The paths of a message's first calls, written once."""


def _content_part(block: Any, i: int) -> Part:
    """One block of a content list: text, or kept raw."""
    if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
        return TextPart(text=block["text"], path=f"content[{i}]")
    kind = block.get("type", "block") if isinstance(block, dict) else type(block).__name__
    return OtherPart(type=str(kind), raw=block, path=f"content[{i}]")


def _tool_call(call: Any, path: str) -> ToolCallPart:
    call = call if isinstance(call, dict) else {}
    custom = call.get("custom") if call.get("type") == "custom" else None
    if isinstance(custom, dict):
        # A custom tool's call (GPT-5): its `input` is free text, written to the tool's grammar or none, never JSON.
        # It stands as its own arguments, so no JSON rule applies to it.
        said = custom.get("input")
        text = said if isinstance(said, str) else json.dumps(said, ensure_ascii=False)
        name = custom.get("name")
        return ToolCallPart(str(call.get("id") or ""), str(name or ""), text, text, None, path)
    function = call.get("function")
    if not isinstance(function, dict):
        function = call
    text, parsed, error = parse_arguments(function.get("arguments", ""))
    name = function.get("name")
    # Only a legacy function_call has no id to pair on; an empty id is the provider's, shown as sent.
    return ToolCallPart(str((call.get("id") if "id" in call else name) or ""), str(name or ""), text, parsed, error, path)


def _tool(raw: Any, key: str) -> ToolDefinition:
    raw_dict = raw if isinstance(raw, dict) else {}
    # {"type": "function", "function": {...}}, {"type": "custom", "custom": {...}} or a legacy function.
    kind = raw_dict.get("type", "function")
    spec = raw_dict.get(kind if isinstance(kind, str) else "function")  # a damaged type (a list, an object) is no key
    spec = spec if isinstance(spec, dict) else raw_dict
    return ToolDefinition(
        name=str(spec.get("name", "")),
        description=str(spec.get("description") or ""),
        parameters=spec.get("parameters", spec.get("format")),
        raw=raw,
        key=key,
    )


def _tool_list(raw: list, key: str) -> tuple[tuple[ToolDefinition, ...], list]:
    return tuple(_tool(t, content_key(t)) for t in raw), raw


def read_request(body: dict, pools: Pools, previous: Request | None = None, checked: bool = False) -> Request:
    """A Chat Completions request body as a Request, its messages and tools interned.

    `previous` is the request before it in the same conversation, when known: what the two share
    is taken over rather than interned again; `checked` says the caller already compared them."""
    messages, interned = intern_messages(body.get("messages"), pools, _message, previous, checked)
    raw = dict(body)
    raw["messages"] = interned
    tools: tuple[ToolDefinition, ...] = ()
    for field_name in ("tools", "functions"):
        if isinstance(body.get(field_name), list):
            tools, raw[field_name] = intern_tools(body[field_name], pools, _tool_list, previous)
            break
    return Request(messages=messages, system=None, tools=tools, model=text_or_none(body.get("model")), raw=raw,
                   output_schema=_output_schema(body.get("response_format")))


def _output_schema(response_format: Any) -> Any:
    """The schema `response_format` asks the answer to follow (`json_schema`), or None: JSON mode (`json_object`) and
    plain text send none."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    return spec.get("schema") if isinstance(spec, dict) else None


def read_usage(usage: Any) -> Usage | None:
    """Reported usage; OpenAI's prompt_tokens already include cached tokens."""
    if not isinstance(usage, dict) or "prompt_tokens" not in usage:
        return None
    prompt_details, completion_details = usage.get("prompt_tokens_details"), usage.get("completion_tokens_details")
    # Reported only where the usage has the figure: OpenAI's 0 is a count; a usage without it counts nothing apart.
    reasoning = mapping(completion_details).get("reasoning_tokens") if completion_details is not None else None
    return Usage(
        input_tokens=count(usage.get("prompt_tokens")),
        output_tokens=count(usage.get("completion_tokens")),
        source="reported",
        # Most usages carry no details: a count of nothing is 0, without the lookups.
        cache_read_tokens=count(mapping(prompt_details).get("cached_tokens")) if prompt_details is not None else 0,
        reasoning_tokens=None if reasoning is None else count(reasoning),
    )


def reports_cache_read(usage: Any) -> bool:
    """Whether a usage object holds the count of input tokens read from the prompt cache (a 0 included):
    `prompt_tokens_details.cached_tokens`. Many usages carry no details, and then the figure is not in the log."""
    return isinstance(usage, dict) and "cached_tokens" in mapping(usage.get("prompt_tokens_details"))


def turn_missing(body: Any) -> str | None:
    """Why a body a server answered a call with holds no model turn to read (no `choices[0].message`), or None. A
    live call asks this before read_response, which takes a bare message too, as logs record one."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    choices = body.get("choices")
    if not (isinstance(choices, list) and choices and isinstance(choices[0], dict)
            and isinstance(choices[0].get("message"), dict)):
        return "it has no choices[0].message"
    return None


def read_response(body: dict, pools: Pools) -> Response:
    """A chat.completion (or a bare assistant message) as a Response."""
    choices = body.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        # Held: importers that hand the answer on resend this very dict in the next request.
        message = pools.messages.get(choice.get("message") or {}, _message, hold=True)
        finish_reason = text_or_none(choice.get("finish_reason"))
        # A null finish_reason (a span or a stream that never said) is no stop signal to pin a step to.
        message_path = "choices[0].message"
        finish_path = "choices[0].finish_reason" if finish_reason is not None else None
    else:
        # Some sources record only the assistant message; its stop signal is then unknown.
        message = pools.messages.get(body, _message)
        finish_reason, message_path, finish_path = None, "", None
    if finish_reason is not None:
        stop: Stop | None = FINISH_REASONS.get(str(finish_reason), "other")
    else:
        stop = "tool_calls" if message.tool_calls else "end"
    return Response(
        message=message,
        finish_reason=finish_reason,
        stop=stop,
        usage=read_usage(body.get("usage")),
        model=text_or_none(body.get("model")),
        raw=body,
        message_path=message_path,
        finish_reason_path=finish_path,
    )


# --- writing the model as a Chat Completions body ----------------------------------------------
# `source` is the module of the dialect the round was read from: what only that dialect's body
# holds (its settings, its own tools, its envelope fields) is asked of it.


def _content(texts: list[str], blocks: list) -> Any:
    # A lone text stays a plain string, as clients write it; several keep their boundaries as blocks.
    if blocks or len(texts) > 1:
        return [{"type": "text", "text": t} for t in texts] + blocks
    return texts[0] if texts else None


def write_message(message: Message, where: str, own: bool, notes: list[str]) -> list[dict]:
    """One model message as Chat Completions messages: each tool result becomes a `tool` message.
    `own` says the message was read from this dialect, so parts the model keeps raw go back as they were."""
    out: list[dict] = []
    for result in message.tool_results:
        if result.is_error:
            notes.append(f"{at(where, result.path)}: is_error has no Chat Completions field; the result "
                         "goes as a plain tool message")
        out.append(tool_message(result.call_id, result.content))
    texts, calls = texts_of(message), message.tool_calls
    blocks = others(message, where, own, notes, SHORT)
    role = message.role if message.role != "tool" else "user"
    if message.tool_results and not texts and not calls and not blocks:
        return out
    content = _content(texts, blocks)
    entry: dict = {"role": role, "content": content if content is not None or calls else ""}
    if calls:
        entry["tool_calls"] = [{"id": c.id, "type": "custom", "custom": {"name": c.name, "input": c.arguments_raw}}
                               if free_form(c) else
                               {"id": c.id, "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments_raw}} for c in calls]
    return [*out, entry]


def tool_message(call_id: str, content: str) -> dict:
    """One tool result as a `tool` message (Chat Completions has no field for a failed call)."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _tools_written(request: Request, source: ModuleType, notes: list[str]) -> list[dict]:
    tools = []
    for i, tool in enumerate(request.tools):
        note = source.foreign_tool(tool, SHORT) if source.DIALECT != DIALECT else None
        if note:
            notes.append(f"tools[{i}]: {note}")
            continue
        function: dict = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = tool.parameters if tool.parameters is not None else EMPTY_SCHEMA
        tools.append({"type": "function", "function": function})
    return tools


def write_request(request: Request, source: ModuleType) -> tuple[dict, list[str]]:
    """The request as a Chat Completions body, and what of it the body could not carry."""
    notes: list[str] = []
    raw = request.raw if isinstance(request.raw, dict) else {}
    own = source.DIALECT == DIALECT
    body: dict = {k: raw[k] for k in SHARED_SETTINGS if k in raw}
    messages: list[dict] = []
    if request.system is not None:
        messages.extend(write_message(request.system, "system", own, notes))
    for i, message in enumerate(request.messages):
        messages.extend(write_message(message, f"messages[{i}]", own, notes))
    body["messages"] = messages
    if request.tools:
        body["tools"] = _tools_written(request, source, notes)
    if own:
        body.update({k: raw[k] for k in ("max_tokens", "max_completion_tokens", "stop", "tool_choice",
                                          "parallel_tool_calls", "response_format") if k in raw})
    else:
        limit, stops = source.max_tokens(raw), source.stop_sequences(raw)
        if limit is not None:
            body["max_tokens"] = limit
        if stops is not None:
            body["stop"] = stops
        body.update(tool_choice_fields(*source.read_tool_choice(raw)))
        if request.output_schema is not None:
            body["response_format"] = _response_format(request.output_schema, source.SHORT, notes)
        notes.extend(source.output_format_leftovers(raw, SHORT))
    notes.extend(unmapped(raw, source.REQUEST_FIELDS, SHORT))
    return body, notes


def _response_format(schema: Any, source: str, notes: list[str]) -> dict:
    # Messages holds every answer to its schema, as Chat Completions does only in strict mode.
    notes.append(f"response_format.json_schema.name: Chat Completions requires one and {source} has none; "
                 f"\"{SCHEMA_NAME_FILLED}\" is filled in")
    notes.append(f"response_format.json_schema.strict: true, as {source} holds every answer to its schema; Chat "
                 "Completions' strict mode also requires every property to be listed as required")
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME_FILLED, "schema": schema, "strict": True}}


def output_format_leftovers(raw: dict, target: str) -> list[str]:
    """A note for what response_format says beyond the schema the writers carry (Request.output_schema), which `target`
    has no place for: its name and description, strict mode not asked for, JSON mode without a schema."""
    found = raw.get("response_format")
    if _output_schema(found) is None:
        return unmapped({"response_format": found}, set(), target)
    spec = found["json_schema"]
    notes = unmapped(spec, {"schema", "strict"}, target, "response_format.json_schema.")
    if not spec.get("strict"):
        notes.append(f"response_format.json_schema.strict: not asked for; {target} holds every answer to its schema")
    return notes


def _usage_written(usage: Usage, notes: list[str]) -> dict:
    body: dict = {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                  "total_tokens": usage.input_tokens + usage.output_tokens}
    if usage.cache_read_tokens:
        body["prompt_tokens_details"] = {"cached_tokens": usage.cache_read_tokens}
    if usage.reasoning_tokens is not None:  # a reported 0 stays reported
        body["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    if usage.cache_write_tokens:
        notes.append(f"usage: {usage.cache_write_tokens:,} tokens written to the prompt cache have no Chat "
                     "Completions field; they stay counted in prompt_tokens")
    return body


def write_response(response: Response, source: ModuleType) -> tuple[dict, list[str]]:
    """The response as a `chat.completion` body, and what of it the body could not carry."""
    notes: list[str] = []
    raw, body = envelope(response)
    own = source.DIALECT == DIALECT
    message = write_message(response.message, response.message_path or "message", own, notes)[-1]
    body["object"] = "chat.completion"
    if response.model is not None:
        body["model"] = response.model
    body["choices"] = [{"index": 0, "message": message, "finish_reason": finish(response, FINISH_REASON_OF, notes)}]
    if response.usage is not None:
        body["usage"] = _usage_written(response.usage, notes)
    if not own:
        notes.extend(source.response_leftovers(raw, SHORT))
    return body, notes


# --- what only this dialect's bodies hold, asked when a round crosses to another one -----------


def max_tokens(raw: dict) -> Any:
    """The request's output limit, or None."""
    found = output_limit(raw)
    return found[1] if found is not None else None


def output_limit(raw: dict) -> tuple[str, Any] | None:
    """The field that sets the request's output limit and its value, or None where the request sets none: the newer
    `max_completion_tokens` wins over `max_tokens`, as the API reads them."""
    field = next((f for f in ("max_completion_tokens", "max_tokens") if f in raw), None)
    return (field, raw[field]) if field is not None else None


def fills_context(finish_reason: str | None) -> bool:
    """Whether the stop signal says the conversation filled the model's context window: Chat Completions' `length`
    does not tell that from the output limit."""
    return False


def stop_sequences(raw: dict) -> list | None:
    """The request's stop sequences as a list, or None."""
    stop = raw.get("stop")
    return [stop] if isinstance(stop, str) else stop


def foreign_tool(tool: ToolDefinition, target: str) -> str | None:
    """Why this tool cannot be written in `target` (a custom tool has no function form), or None."""
    if isinstance(tool.raw, dict) and tool.raw.get("type", "function") != "function":
        return f"a {tool.raw.get('type')} tool has no {target} form; left out"
    return None


def response_leftovers(raw: dict, target: str) -> list[str]:
    """A note for each field of a chat.completion that `target` has no place for."""
    notes = unmapped(raw, {"id", "object", "created", "model", "choices", "usage"}, target)
    choices = raw.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    notes.extend(unmapped(choice, {"index", "message", "finish_reason"}, target, "choices[0]."))
    message = choice.get("message")
    notes.extend(unmapped(message if isinstance(message, dict) else {}, {"role", "content", "tool_calls"},
                          target, "choices[0].message."))
    return notes


# --- tool_choice -------------------------------------------------------------------------------
# Both dialects map their tool_choice to and from one neutral pair: (`auto`, `required`, `none`
# or a tool's name, or None; parallel calls allowed, or None when not said).


def read_tool_choice(raw: dict) -> tuple[str | None, bool | None]:
    """The request's tool_choice and parallel_tool_calls as the neutral pair."""
    choice = raw.get("tool_choice")
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        choice = choice["function"].get("name")
    elif choice not in ("auto", "required", "none"):
        choice = None
    parallel = raw.get("parallel_tool_calls")
    return choice, parallel if isinstance(parallel, bool) else None


def tool_choice_fields(choice: str | None, parallel: bool | None) -> dict:
    """The body fields that say the neutral pair: tool_choice and parallel_tool_calls, each only when set."""
    fields: dict = {}
    if choice is not None:
        fields["tool_choice"] = (choice if choice in ("auto", "required", "none")
                                 else {"type": "function", "function": {"name": choice}})
    if parallel is not None:
        fields["parallel_tool_calls"] = parallel
    return fields


# --- recognizing a body ------------------------------------------------------------------------


def is_response(body: Any) -> bool:
    """A chat.completion body (or one without `object` but with choices[].message)."""
    if not isinstance(body, dict):
        return False
    if body.get("object") == "chat.completion":
        return True
    choices = body.get("choices")
    return isinstance(choices, list) and bool(choices) and isinstance(choices[0], dict) and "message" in choices[0]


def is_request(body: Any) -> bool:
    """A Chat Completions request body (one that shows a sign only Messages has is left to that dialect)."""
    return (
        isinstance(body, dict)
        and isinstance(body.get("messages"), list)
        and ("model" in body or "tools" in body or "functions" in body)
        and not anthropic_messages.is_request(body)
    )
