"""Ollama's native `/api/chat` bodies as Chat Completions, whole or streamed.

Ollama's messages look like Chat Completions messages, with three differences this module
undoes: a call's arguments are an object, not a JSON string; calls in requests carry no id (newer
Ollama gives each call in a response one, which the call keeps when it is sent back), and a `tool`
message says at most which tool (`tool_name`) it answers, so ids are made up and results paired
by order (lib/logs/provider_pairs.CallIds, marked as derived); and the response is
`{"message", "done", "done_reason", "prompt_eval_count", "eval_count", "total_duration"}`.
A streamed response is one such object per line with `"done": false`, then one with `"done": true`.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem
from lib.logs.provider_pairs import CallIds, ProviderPairFormat, text_of

OLLAMA_REQUEST_KEYS = ("options", "keep_alive", "think", "format")
"""Request keys only Ollama's native API has (beside `model`, `messages`, `tools`, `stream`)."""

CHAT_COMPLETIONS_KEYS = ("parallel_tool_calls", "tool_choice", "response_format", "max_tokens", "max_completion_tokens",
                         "temperature", "top_p", "n", "stop", "stream_options", "presence_penalty",
                         "frequency_penalty", "seed", "user", "store", "reasoning_effort", "service_tier", "metadata",
                         "logit_bias", "modalities", "prediction")
"""Top-level keys of a Chat Completions request that /api/chat has no place for: its settings go under `options`,
its output format under `format`. A request that holds one is Chat Completions' (Ollama's `/v1` endpoint's)."""

CARRIED_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "num_predict": "max_tokens", "seed": "seed", "stop": "stop"}
"""`options` that mean the same as a Chat Completions request key."""


def _is_response(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("message"), dict) and isinstance(body.get("done"), bool) \
        and "choices" not in body


def _native_call(call: Any) -> bool:
    """A tool call the Ollama way: arguments as an object."""
    function = call.get("function") if isinstance(call, dict) else None
    return isinstance(function, dict) and isinstance(function.get("arguments"), dict)


def _is_request(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not isinstance(body.get("model"), str):
        return False
    if any(k in body for k in OLLAMA_REQUEST_KEYS):
        return True
    # A request without Ollama's own keys still shows itself in its history, near the end.
    for message in body["messages"][-6:]:
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls")
        if "tool_name" in message or (isinstance(calls, list) and any(_native_call(c) for c in calls)):
            return True
    return False


class OllamaFormat(ProviderPairFormat):
    """Ollama /api/chat requests and responses, streamed or whole."""

    name = "ollama"
    title = "Ollama /api/chat"
    request_key = "messages"
    response_key = "message"

    def own_error(self, body: Any) -> bool:
        # {"error": "model 'x' not found"}: the words alone, never an object.
        return isinstance(body, dict) and isinstance(body.get("error"), str)

    def __init__(self) -> None:
        self._stream: tuple[int, list[dict]] | None = None
        self._given: dict[str, str] = {}
        """The id each call a response recorded one for was given, by its tool and arguments."""

    def is_request(self, body: Any) -> bool:
        return _is_request(body)

    def foreign(self, request: dict) -> str | None:
        # Chosen for a file, Ollama reads a request no rule of its own marks; one that Chat Completions' marks is the
        # other API's (what Ollama's OpenAI-compatible /v1 endpoint takes), never read as /api/chat.
        said = super().foreign(request)
        if said is not None:
            return said
        key = next((k for k in CHAT_COMPLETIONS_KEYS if k in request), None)
        if key is not None:
            return (f"a Chat Completions request: '{key}' is one of its settings, which /api/chat takes under "
                    "'options' or not at all")
        for message in request["messages"]:
            if not isinstance(message, dict):
                continue
            if isinstance(message.get("content"), list):
                return "a Chat Completions request: a message's content is a list of parts (/api/chat's is a string)"
            calls = message.get("tool_calls")
            if isinstance(calls, list) and any(isinstance(c, dict) and isinstance(c.get("function"), dict)
                                               and isinstance(c["function"].get("arguments"), str) for c in calls):
                return ("a Chat Completions request: a call's arguments are a JSON string (/api/chat sends them as an "
                        "object)")
        return None

    def is_response(self, body: Any) -> bool:
        return _is_response(body)

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not _is_response(obj):
            yield from super().feed(obj, line)
            return
        # A bare response line: a stream's chunk, or a whole response when it is done.
        first, chunks = self._stream or (line, [])
        chunks.append(obj)
        self._stream = (first, chunks)
        if obj["done"]:
            self._stream = None
            # A done response alone on its line is a whole answer, not a stream.
            yield self.call(None, joined_chunks(chunks), first, obj, streamed=len(chunks) > 1)

    def finish(self) -> Iterator[CallRecord]:
        stream, self._stream = self._stream, None
        if stream is not None:  # a stream that never finished
            yield self.call(None, joined_chunks(stream[1]), stream[0], stream[1][-1], streamed=True)

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        ids = CallIds()
        chat_request = None if request is None else _chat_request(request, ids, self._given)
        turn = len(chat_request["messages"]) if chat_request is not None else 0
        chat_response = None if response is None else _chat_response(response, ids, turn, self._given)
        duration = convert.as_int((response or {}).get("total_duration"))
        return CallRecord(line=line, dialect="openai-chat", request=chat_request, response=chat_response,
                          derived=ids.derived(), converted_from=self.name,
                          latency_ms=None if duration is None else duration / 1e6,
                          timestamp=text_of((response or {}).get("created_at")))


def _chat_request(request: dict, ids: CallIds, given: dict[str, str]) -> dict:
    """The Chat Completions request an /api/chat request amounts to."""
    body: dict = {"model": request.get("model")}
    body["messages"] = [_message(m, position, ids, f"messages[{position}]", given)
                        for position, m in enumerate(convert.require(request, "messages", list))]
    if isinstance(request.get("tools"), list):
        body["tools"] = request["tools"]
    options = convert.object_at(request, "options")
    body.update({ours: options[theirs] for theirs, ours in CARRIED_OPTIONS.items() if theirs in options})
    return body


def _message(message: Any, position: int, ids: CallIds, where: str, given: dict[str, str]) -> dict:
    """One Ollama message (the `position`-th of the conversation) as a Chat Completions message, its
    calls and result given ids (`given`: the ids responses gave calls, by `_signature`)."""
    if not isinstance(message, dict):
        raise LineProblem(f"{where} is {convert.describe(message)}, expected a message object")
    role = message.get("role")
    if role == "tool":
        answered = ids.result(message.get("tool_call_id"), message.get("tool_name", message.get("name")))
        return {"role": "tool", "tool_call_id": answered, "content": convert.json_text(message.get("content") or "")}
    converted = {k: v for k, v in message.items() if k not in ("tool_calls", "tool_name")}
    if role == "assistant":
        ids.model_turn()
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise LineProblem(f"{where}.tool_calls is {convert.describe(calls)}, expected a list")
        if calls:
            converted["tool_calls"] = [_call(c, position, index, ids, f"{where}.tool_calls[{index}]", given)
                                       for index, c in enumerate(calls)]
    return converted


def _call(call: Any, turn: int, index: int, ids: CallIds, where: str, given: dict[str, str]) -> dict:
    if not isinstance(call, dict):
        raise LineProblem(f"{where} is {convert.describe(call)}, expected an object")
    function = convert.object_at(call, "function")
    name, arguments, recorded = function.get("name"), function.get("arguments"), call.get("id")
    signature = _signature(name, arguments)
    if isinstance(recorded, str) and recorded:
        if signature is not None:
            given[signature] = recorded
    elif signature in given:
        # Newer Ollama names the calls it answers with, but requests carry no ids: a call sent back
        # is the one the model made, and a made-up id would read as one the program rewrote.
        return convert.tool_call(ids.call(given[signature], name, turn, index, taken=True), name, arguments)
    return convert.tool_call(ids.call(recorded, name, turn, index), name, arguments)


def _signature(name: Any, arguments: Any) -> str | None:
    """A call's tool and arguments as one key, or None when they are not JSON."""
    try:
        return json.dumps([name, arguments], sort_keys=True)
    except (TypeError, ValueError):
        return None


def joined_chunks(chunks: list[dict]) -> dict:
    """One response from a stream's chunks: text and thinking joined, calls gathered, the last chunk's figures."""
    last = chunks[-1]
    if len(chunks) == 1:
        return last
    message: dict = {"role": "assistant", "content": "".join(text_of(c["message"].get("content")) or "" for c in chunks)}
    thinking = "".join(text_of(c["message"].get("thinking")) or "" for c in chunks)
    if thinking:
        message["thinking"] = thinking
    calls = [call for c in chunks for call in c["message"].get("tool_calls") or () if isinstance(c["message"].get("tool_calls"), list)]
    if calls:
        message["tool_calls"] = calls
    return {**last, "created_at": chunks[0].get("created_at", last.get("created_at")), "message": message}


def _chat_response(response: dict, ids: CallIds, turn: int, given: dict[str, str]) -> dict:
    """The chat.completion body an /api/chat response amounts to."""
    message = _message({**response["message"], "role": "assistant"}, turn, ids, "message", given)
    if message.get("content") is None:
        message["content"] = ""
    reason = text_of(response.get("done_reason"))
    if not response.get("done"):
        finish = None  # the stream was cut off before its last chunk
    elif reason in (None, "stop"):
        finish = "tool_calls" if message.get("tool_calls") else "stop"
    else:
        finish = reason
    # Ollama left prompt_eval_count out when the prompt was in its cache (ollama/ollama#2068, #3427; fixed mid-2024):
    # that says nothing of how long the prompt was, so the usage is not taken as reported (0 tokens in), but counted.
    usage = convert.chat_usage(response["prompt_eval_count"], response.get("eval_count")) \
        if "prompt_eval_count" in response else None
    return convert.chat_completion(message, finish, model=response.get("model"), usage=usage)
