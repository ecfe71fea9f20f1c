"""Cohere's v2 chat (`POST /v2/chat`) bodies as Chat Completions, whole or streamed.

A v2 request looks like a Chat Completions one (`model`, `messages` with `tool_calls`, `tool` messages
with `tool_call_id`, `tools` of type `function`); what differs is undone here: an assistant turn may
carry `tool_plan` (what the model said it would do before its calls), `content` may be a list of
`text` and `thinking` blocks, a tool result a list of `text` and `document` blocks, and
`stop_sequences` and `p` are `stop` and `top_p`. A response is
`{"id", "message": {"role", "content", "tool_plan", "tool_calls", "citations"}, "finish_reason", "usage"}`,
its finish reason upper case (`COMPLETE`, `TOOL_CALL`, `MAX_TOKENS`) and its usage in two counts:
`tokens` (what the model read and wrote, Cohere's own prompt around the messages and tools included)
and `billed_units` (what was charged, without it). The round's usage is `tokens`, the tokens that
filled the context; `billed_units` only where `tokens` was not sent.

A streamed response is a list of events (`message-start`, `content-start`/`content-delta`/`content-end`,
`tool-plan-delta`, `tool-call-start`/`tool-call-delta`/`tool-call-end`, `citation-start`, `message-end`
with the finish reason and usage), joined here into the whole response they stand for.
"""

from __future__ import annotations

import copy
from typing import Any

from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem
from lib.logs.provider_pairs import CallIds, ProviderPairFormat, text_of

FINISH_REASONS = {"COMPLETE": "stop", "STOP_SEQUENCE": "stop", "TOOL_CALL": "tool_calls", "MAX_TOKENS": "length"}
"""`finish_reason` as a Chat Completions finish_reason; others (ERROR, TIMEOUT) stay as sent, lower-cased."""

SETTINGS = {"temperature": "temperature", "max_tokens": "max_tokens", "p": "top_p", "stop_sequences": "stop",
            "seed": "seed", "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty",
            "response_format": "response_format"}
"""Request keys that mean the same as a Chat Completions request key."""

CHAT_COMPLETIONS_KEYS = ("parallel_tool_calls", "top_p", "n", "stop", "stream_options", "max_completion_tokens",
                         "top_logprobs", "user", "store", "reasoning_effort", "service_tier", "metadata", "logit_bias",
                         "modalities", "prediction")
"""Top-level keys of a Chat Completions request that Cohere's v2 chat does not take (it has `p` and
`stop_sequences`): a request that holds one is Chat Completions'."""

CHAT_COMPLETIONS_TURN_KEYS = ("refusal", "annotations", "function_call", "audio")
"""Keys of a Chat Completions assistant turn that a v2 assistant message has no place for."""

TOOL_CHOICES = {"REQUIRED": "required", "NONE": "none"}
"""`tool_choice` as a Chat Completions tool_choice."""

UNCLOSED = "unclosed_calls"
"""The key under which a joined stream (joined_events) lists the positions of its calls that got no `tool-call-end`:
ours, not Cohere's, as no whole response carries it."""


def is_response(body: Any) -> bool:
    """Whether `body` is a v2 chat response: a `message` beside `finish_reason`, without `choices` or Ollama's
    `done`."""
    return isinstance(body, dict) and isinstance(body.get("message"), dict) and "finish_reason" in body \
        and "choices" not in body and "done" not in body


def is_request(body: Any) -> bool:
    """Whether `body` is a v2 chat request known from its body alone: an assistant turn with `tool_plan`, or content
    blocks only Cohere has. Most are known only by their path, being shaped like Chat Completions."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or "model" not in body:
        return False
    if any(k in body for k in ("stop_sequences", "safety_mode", "strict_tools", "documents")):
        return True
    return any(isinstance(m, dict) and "tool_plan" in m for m in body["messages"])


def is_error(body: Any) -> bool:
    """A Cohere error body, v1's and v2's alike: `{"id": ..., "message": "invalid request: ..."}`, the words under
    'message', no 'error' key."""
    return isinstance(body, dict) and isinstance(body.get("message"), str) and set(body) <= {"id", "message", "data"}


class CohereFormat(ProviderPairFormat):
    """Cohere v2 /chat requests and responses, streamed or whole."""

    name = "cohere"
    title = "Cohere v2 chat"
    request_key = "messages"
    response_key = "message"

    def own_error(self, body: Any) -> bool:
        return is_error(body)

    def is_request(self, body: Any) -> bool:
        return is_request(body)

    def foreign(self, request: dict) -> str | None:
        # Chosen for a file, Cohere reads a request no rule of its own marks; one that Chat Completions' marks is the
        # other API's, never read as a v2 chat request.
        said = super().foreign(request)
        if said is not None:
            return said
        key = next((k for k in CHAT_COMPLETIONS_KEYS if k in request), None)
        if key is not None:
            return f"a Chat Completions request: '{key}' is one of its settings, which Cohere's v2 chat does not take"
        choice = request.get("tool_choice")
        if choice is not None and choice not in TOOL_CHOICES:
            return ("a Chat Completions request: its 'tool_choice' is not one of Cohere's ('REQUIRED' or 'NONE')")
        for message in request["messages"]:
            if not isinstance(message, dict):
                continue
            if message.get("role") in ("developer", "function"):
                return f"a Chat Completions request: a message's role is '{message['role']}', which Cohere has not"
            if message.get("role") == "assistant" and (key := next(
                    (k for k in CHAT_COMPLETIONS_TURN_KEYS if k in message), None)) is not None:
                return f"a Chat Completions request: an assistant turn carries '{key}', which Cohere's has not"
        return None

    def is_response(self, body: Any) -> bool:
        return is_response(body) or (isinstance(body, list) and bool(body) and all(_is_event(e) for e in body))

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        ids = CallIds()
        chat_request = None if request is None else _chat_request(request, ids)
        if isinstance(response, list):
            response = joined_events(response)
        chat_response = None
        if response is not None:
            turn = len(chat_request["messages"]) if chat_request is not None else 0
            model = chat_request.get("model") if chat_request is not None else obj.get("model")
            chat_response = _chat_response(response, ids, turn, model)
        # A call the stream ended inside is cut short by the recording, not written wrong (lib.model.CUT_CALLS).
        cut = response.get(UNCLOSED) if isinstance(response, dict) else None
        return CallRecord(line=line, dialect="openai-chat", request=chat_request, response=chat_response,
                          derived=ids.derived(), converted_from=self.name, cut_calls=list(cut or []))


def _is_event(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("type"), str) and (
        body["type"].startswith(("message-", "content-", "tool-call-", "tool-plan-", "citation-")))


def _chat_request(request: dict, ids: CallIds) -> dict:
    """The Chat Completions request a v2 chat request amounts to."""
    body: dict = {"model": request.get("model")}
    body["messages"] = [_message(m, position, ids, f"messages[{position}]")
                        for position, m in enumerate(convert.require(request, "messages", list))]
    if isinstance(request.get("tools"), list):
        body["tools"] = request["tools"]
    choice = request.get("tool_choice")
    if isinstance(choice, str):
        body["tool_choice"] = TOOL_CHOICES.get(choice.upper(), choice.lower())
    body.update({ours: request[theirs] for theirs, ours in SETTINGS.items() if theirs in request})
    if "stream" in request:
        body["stream"] = request["stream"]
    return body


def _message(message: Any, position: int, ids: CallIds, where: str) -> dict:
    """One v2 message (the `position`-th of the conversation) as a Chat Completions message."""
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {convert.describe(message)}, expected a message object")
    role = message.get("role")
    if role == "tool":
        return {"role": "tool", "tool_call_id": ids.result(message.get("tool_call_id"), None),
                "content": _result_text(message.get("content"))}
    if role != "assistant":
        return {k: v for k, v in message.items()}
    ids.model_turn()
    converted: dict = {"role": "assistant", "content": _assistant_content(message)}
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise LineProblem(f"{where}.tool_calls is {convert.describe(calls)}, expected a list")
    if calls:
        converted["tool_calls"] = [_call(c, position, index, ids, f"{where}.tool_calls[{index}]")
                                   for index, c in enumerate(calls)]
    return converted


def _assistant_content(message: dict) -> Any:
    """An assistant turn's words: its `tool_plan` and text as one string, or a block list where it holds thinking
    (kept raw, as other formats keep reasoning) or anything else that is not text."""
    plan, content = text_of(message.get("tool_plan")), message.get("content")
    blocks = [{"type": "text", "text": plan}] if plan else []
    if isinstance(content, str):
        blocks.append({"type": "text", "text": content})
    elif isinstance(content, list):
        blocks.extend(content)
    elif content is not None:
        blocks.append(content)
    if all(isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
        said = "".join(b["text"] for b in blocks)
        return said if said or not message.get("tool_calls") else None
    return blocks


def _result_text(content: Any) -> str:
    """A tool result as text: its text blocks joined, a document block as its data's JSON."""
    if not isinstance(content, list):
        return convert.json_text("" if content is None else content)
    pieces = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            pieces.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "document" and isinstance(block.get("document"), dict):
            pieces.append(convert.json_text(block["document"].get("data", block["document"])))
        else:
            pieces.append(convert.json_text(block))
    return "\n".join(pieces)


def _call(call: Any, turn: int, index: int, ids: CallIds, where: str) -> dict:
    if not isinstance(call, dict):
        raise LineProblem(f"{where} is {convert.describe(call)}, expected an object")
    function = convert.object_at(call, "function")
    return convert.tool_call(ids.call(call.get("id"), function.get("name"), turn, index), function.get("name"),
                             function.get("arguments"))


def _chat_response(response: dict, ids: CallIds, turn: int, model: Any) -> dict:
    """The chat.completion body a v2 chat response amounts to (`turn`: the place its message takes after the
    request's)."""
    message = _message({**convert.object_at(response, "message"), "role": "assistant"}, turn, ids, "message")
    if message.get("content") is None and not message.get("tool_calls"):
        message["content"] = ""
    finish = response.get("finish_reason")
    reason = None if not isinstance(finish, str) else FINISH_REASONS.get(finish.upper(), finish.lower())
    usage = convert.object_at(response, "usage")
    counts = convert.object_at(usage, "tokens") or convert.object_at(usage, "billed_units")
    return convert.chat_completion(message, reason, id=response.get("id"), model=model,
                                   usage=convert.chat_usage(counts.get("input_tokens"), counts.get("output_tokens"),
                                                            cached=usage.get("cached_tokens")))


def joined_events(events: list) -> dict:
    """The whole response a stream's events stand for: content blocks, tool plan and calls joined in order, the finish
    reason and usage of `message-end` (None where the stream ended before it), and under UNCLOSED the positions of
    the calls the stream ended inside."""
    response: dict = {"message": {"role": "assistant"}, "finish_reason": None}
    blocks: dict[Any, dict] = {}
    calls: dict[Any, dict] = {}
    ended: set = set()
    plan: list[str] = []
    for event in events:
        if not isinstance(event, dict):
            continue
        kind, delta = event.get("type"), convert.object_at(event, "delta")
        said = convert.object_at(delta, "message")
        index = event.get("index") if isinstance(event.get("index"), (int, str)) else None
        if kind == "message-start":
            response["id"] = event.get("id")
        elif kind == "content-start" and isinstance(said.get("content"), dict):
            blocks[index] = copy.deepcopy(said["content"])
        elif kind == "content-delta" and isinstance(said.get("content"), dict):
            block = blocks.setdefault(index, {"type": "text", "text": ""})
            for key in ("text", "thinking"):
                if isinstance(said["content"].get(key), str):
                    block[key] = (text_of(block.get(key)) or "") + said["content"][key]
        elif kind == "tool-plan-delta":
            plan.append(text_of(said.get("tool_plan")) or "")
        elif kind == "tool-call-start" and isinstance(said.get("tool_calls"), dict):
            calls[index] = copy.deepcopy(said["tool_calls"])
        elif kind == "tool-call-delta" and index in calls:
            piece = text_of(convert.object_at(convert.object_at(said, "tool_calls"), "function").get("arguments"))
            function = calls[index].setdefault("function", {})
            if isinstance(function, dict):
                function["arguments"] = (text_of(function.get("arguments")) or "") + (piece or "")
        elif kind == "tool-call-end":
            ended.add(index)
        elif kind == "message-end":
            response["finish_reason"] = delta.get("finish_reason")
            if isinstance(delta.get("usage"), dict):
                response["usage"] = delta["usage"]
    if plan:
        response["message"]["tool_plan"] = "".join(plan)
    if blocks:
        response["message"]["content"] = list(blocks.values())
    if calls:
        response["message"]["tool_calls"] = list(calls.values())
    unclosed = [position for position, index in enumerate(calls) if index not in ended]
    if unclosed:
        response[UNCLOSED] = unclosed
    return response


# --- v1 chat (`POST /v1/chat`) ---------------------------------------------------------------------------------------
#
# The v1 request keeps the conversation in three places: `preamble` (the system prompt), `chat_history` (turns of
# role USER, CHATBOT, SYSTEM or TOOL, each's words under `message`, a CHATBOT turn's calls as `{name, parameters}`, a
# TOOL turn's `tool_results` as `{call, outputs}`), and the new turn: `message`, and `tool_results` when the program
# answers the calls of the last CHATBOT turn. Tools are `{name, description, parameter_definitions}`. The answer is
# `{"text", "generation_id", "tool_calls", "finish_reason", "meta": {"tokens", "billed_units"}}`; a stream is one JSON
# object per line (`stream-start`, `text-generation`, `tool-calls-generation`, then `stream-end` holding the whole
# answer). v1 calls have no ids: each is named by its place, its result paired by name and order (`derived`).

V1_ROLES = {"USER": "user", "SYSTEM": "system"}
"""v1 roles whose turns are plain messages, as Chat Completions roles."""


def is_v1_request(body: Any) -> bool:
    """Whether `body` is a v1 chat request: the new turn under `message` (a string) beside `model`, `chat_history` or
    `preamble`, and no `messages` (v2's, or Chat Completions') or `role` (a message of its own)."""
    return isinstance(body, dict) and isinstance(body.get("message"), str) and "messages" not in body \
        and "role" not in body and any(k in body for k in ("model", "chat_history", "preamble"))


def is_v1_response(body: Any) -> bool:
    """Whether `body` is a v1 chat answer (`text` beside `generation_id` or `response_id`) or the events of one."""
    if isinstance(body, list):
        return bool(body) and all(isinstance(e, dict) and isinstance(e.get("event_type"), str) for e in body)
    return isinstance(body, dict) and isinstance(body.get("text"), str) and "choices" not in body \
        and ("generation_id" in body or "response_id" in body)


class CohereV1Format(ProviderPairFormat):
    """Cohere v1 /chat requests and responses, streamed or whole."""

    name = "cohere-v1"
    title = "Cohere v1 chat"
    request_key = "message"
    response_key = "text"

    def own_error(self, body: Any) -> bool:
        return is_error(body)

    def is_request(self, body: Any) -> bool:
        return is_v1_request(body)

    def is_response(self, body: Any) -> bool:
        return is_v1_response(body)

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        ids = CallIds()
        chat_request = None if request is None else _v1_request(request, ids)
        if isinstance(response, list):
            response = joined_v1_events(response)
        chat_response = None
        if response is not None:
            turn = len(chat_request["messages"]) if chat_request is not None else 0
            model = chat_request.get("model") if chat_request is not None else obj.get("model")
            chat_response = _v1_response(response, ids, turn, model)
        return CallRecord(line=line, dialect="openai-chat", request=chat_request, response=chat_response,
                          derived=ids.derived(), converted_from=self.name)


def _v1_request(request: dict, ids: CallIds) -> dict:
    """The Chat Completions request a v1 chat request amounts to."""
    messages: list[dict] = []
    preamble = request.get("preamble")
    if isinstance(preamble, str) and preamble:
        messages.append({"role": "system", "content": preamble})
    history = request.get("chat_history")
    if history is not None and not isinstance(history, list):
        raise LineProblem(f"'chat_history' is {convert.describe(history)}, expected a list")
    for position, turn in enumerate(history or []):
        where = f"chat_history[{position}]"
        if not isinstance(turn, dict):
            raise LineProblem(f"{where} is {convert.describe(turn)}, expected a turn object")
        role = str(turn.get("role") or "").upper()
        if role in V1_ROLES:
            messages.append({"role": V1_ROLES[role], "content": text_of(turn.get("message")) or ""})
        elif role == "CHATBOT":
            messages.append(_v1_turn(turn, len(messages), ids, where))
        elif role == "TOOL":
            messages.extend(_v1_results(turn.get("tool_results"), ids, f"{where}.tool_results"))
        else:
            raise LineProblem(f"{where} has role {turn.get('role')!r}; v1 turns are USER, CHATBOT, SYSTEM or TOOL")
    messages.extend(_v1_results(request.get("tool_results"), ids, "tool_results"))
    if request["message"]:
        messages.append({"role": "user", "content": request["message"]})
    body: dict = {"model": request.get("model"), "messages": messages}
    tools = request.get("tools")
    if isinstance(tools, list):
        body["tools"] = [_v1_tool(t) for t in tools if isinstance(t, dict)]
    body.update({ours: request[theirs] for theirs, ours in SETTINGS.items() if theirs in request})
    if "stream" in request:
        body["stream"] = request["stream"]
    return body


def _v1_turn(turn: dict, position: int, ids: CallIds, where: str) -> dict:
    """A CHATBOT turn (or a whole answer) at `position` of the conversation, as an assistant message."""
    ids.model_turn()
    calls = turn.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise LineProblem(f"{where}.tool_calls is {convert.describe(calls)}, expected a list")
    said = text_of(turn.get("message", turn.get("text")))
    message: dict = {"role": "assistant", "content": said if said or not calls else None}
    if calls:
        message["tool_calls"] = []
        for index, call in enumerate(calls):
            if not isinstance(call, dict):
                raise LineProblem(f"{where}.tool_calls[{index}] is {convert.describe(call)}, expected an object")
            message["tool_calls"].append(convert.tool_call(ids.call(None, call.get("name"), position, index),
                                                           call.get("name"), call.get("parameters")))
    return message


def _v1_results(results: Any, ids: CallIds, where: str) -> list[dict]:
    """v1 tool results (`{call: {name, parameters}, outputs: [...]}`) as tool messages, each paired with the first
    unanswered call of its name."""
    if results is None:
        return []
    if not isinstance(results, list):
        raise LineProblem(f"'{where}' is {convert.describe(results)}, expected a list")
    messages = []
    for index, result in enumerate(results):
        if not isinstance(result, dict):
            raise LineProblem(f"{where}[{index}] is {convert.describe(result)}, expected an object")
        name = convert.object_at(result, "call").get("name")
        messages.append({"role": "tool", "tool_call_id": ids.result(None, name),
                         "content": convert.json_text(result.get("outputs", []))})
    return messages


def _v1_tool(tool: dict) -> dict:
    """A v1 tool (`parameter_definitions`: each parameter's `type`, `description`, `required`) as a function tool
    with the JSON Schema those stand for."""
    definitions = convert.object_at(tool, "parameter_definitions")
    properties = {name: {k: v for k, v in spec.items() if k in ("type", "description")}
                  for name, spec in definitions.items() if isinstance(spec, dict)}
    required = [name for name, spec in definitions.items() if isinstance(spec, dict) and spec.get("required")]
    schema: dict = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return convert.function_tool(tool.get("name"), tool.get("description"), schema)


def _v1_response(response: dict, ids: CallIds, turn: int, model: Any) -> dict:
    """The chat.completion body a v1 chat answer amounts to."""
    message = _v1_turn(response, turn, ids, "response")
    if message.get("content") is None and not message.get("tool_calls"):
        message["content"] = ""
    finish = response.get("finish_reason")
    reason = None if not isinstance(finish, str) else FINISH_REASONS.get(finish.upper(), finish.lower())
    meta = convert.object_at(response, "meta")
    counts = convert.object_at(meta, "tokens") or convert.object_at(meta, "billed_units")
    return convert.chat_completion(message, reason, id=response.get("generation_id") or response.get("response_id"),
                                   model=model,
                                   usage=convert.chat_usage(counts.get("input_tokens"), counts.get("output_tokens")))


def joined_v1_events(events: list) -> dict:
    """The whole answer a v1 stream stands for: the one its `stream-end` event holds, or else (a stream cut before
    its end) the text and calls generated so far, with no finish reason."""
    for event in reversed(events):
        if isinstance(event, dict) and event.get("event_type") == "stream-end" and isinstance(event.get("response"), dict):
            return {**event["response"], "finish_reason": event["response"].get("finish_reason",
                                                                                 event.get("finish_reason"))}
    text, calls, first = [], [], {}
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = event.get("event_type")
        if kind == "stream-start":
            first = event
        elif kind == "text-generation" and isinstance(event.get("text"), str):
            text.append(event["text"])
        elif kind == "tool-calls-generation" and isinstance(event.get("tool_calls"), list):
            calls = event["tool_calls"]
    answer: dict = {"text": "".join(text), "generation_id": first.get("generation_id"), "finish_reason": None}
    if calls:
        answer["tool_calls"] = calls
    return answer
