"""Chat Completions and Messages bodies as loggers write them: pairs, bare responses, requests alone.

One line may hold a request and its response under wrapper keys (`request`/`response`,
`input`/`output`, `req`/`resp`, LiteLLM's `messages` + `response`), a bare response, a request
alone, or an error body. Values that are JSON in a string are opened.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages, openai_chat
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.model import shaping_headers
from lib.text import with_article

WRAPPERS = (("request", "response"), ("input", "output"), ("req", "resp"), ("body", "response"), ("payload", "response"))
"""Key pairs loggers put a request and its response under, most common first."""

CONVERSATION_KEYS = ("conversation_id", "session_id", "thread_id", "trace_id", "conversation")
"""Top-level keys that name the conversation a logged call belongs to."""

LATENCY_KEYS = ("latency_ms", "duration_ms", "elapsed_ms")
"""Top-level keys that hold the call's wall time in milliseconds."""

ERROR_ALONE = frozenset({"error", "Error", "message", "Message", "__type", "code", "type", "status", "status_code",
                         "request_id", "id", "data"})
"""The keys of an error body logged on its own line (with the status and request id a logger keeps beside it): a line
with more is some other record that holds an error (a batch's result, a stream's error event)."""

TIME_KEYS = ("timestamp", "start_time", "created_at", "time")
"""Top-level keys that hold when the call started."""


def _opened(value: Any) -> Any:
    # Some loggers store bodies as JSON text inside the JSON line.
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def error_of(body: Any, status: Any = None) -> dict | None:
    """An error record from an OpenAI `{"error": {...}}` or Anthropic `{"type": "error"}` body."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    if isinstance(inner, dict) and ("message" in inner or "type" in inner):
        return {"status": status, "body": body, "message": str(inner.get("message") or inner.get("type"))}
    return None


def split_pair(obj: dict) -> tuple[Any, Any, str] | None:
    """(request, response, rule) found in one line, or None."""
    for request_key, response_key in WRAPPERS:
        # The request key must be there: `response` alone is shared by several wrappers and by LiteLLM.
        request = _opened(obj.get(request_key))
        if isinstance(request, dict):
            response = _opened(obj.get(response_key))
            said = f"and a response under '{response_key}'" if response is not None else "and no response"
            return request, response, f"a request under '{request_key}' {said}"
    if isinstance(obj.get("messages"), list) and isinstance(_opened(obj.get("response")), dict):
        return obj, _opened(obj["response"]), "LiteLLM-style 'messages' with a 'response'"
    return None


def request_headers_of(obj: dict) -> dict | None:
    """The request headers a line kept under `request_headers` (the recording proxy writes them: docs/capture.md), names
    in lower case, only those the proxy would have kept (lib.model.shaping_headers), so a hand-written log cannot make a
    fork send a header the proxy never keeps; None where the line keeps no headers."""
    kept = obj.get("request_headers")
    if not isinstance(kept, dict):
        return None
    return shaping_headers(kept)


def call_meta(obj: dict) -> dict:
    """The conversation id, latency, start time and request headers a logged call's line carries, as CallRecord
    fields."""
    conversation = next((str(obj[k]) for k in CONVERSATION_KEYS if isinstance(obj.get(k), (str, int))), None)
    latency = next((obj[k] for k in LATENCY_KEYS if isinstance(obj.get(k), (int, float))), None)
    timestamp = next((str(obj[k]) for k in TIME_KEYS if obj.get(k) is not None), None)
    return {"conversation": conversation, "latency_ms": latency, "timestamp": timestamp,
            "request_headers": request_headers_of(obj)}


class KeyedPairs(LogFormat):
    """A format of request and response bodies, each known by a key it cannot lack: what a forced format says of a
    line that is neither."""

    request_key: str = "messages"
    """The key a request body cannot lack (its turns), whatever else it holds."""
    response_key: str
    """The key a response body cannot lack."""
    generic_requests: bool = True
    """Whether a request shaped as any chat API's (its 'model' and its turns) may be this format's when the user chose
    it: not for a format whose requests have a shape of their own, which its rules know (Gemini's, Bedrock's)."""

    @property
    def reads(self) -> str:  # type: ignore[override]
        return (f"a request with '{self.request_key}', a response with '{self.response_key}', or the two under keys "
                f"such as 'request' and 'response'")

    def neither(self) -> LineProblem:
        """A line fed to this format (forced) that is neither its request nor its response."""
        return LineProblem(f"not {with_article(self.title)} request or response: "
                           f"no '{self.request_key}' or '{self.response_key}'")

    def own_error(self, body: Any) -> bool:
        """Whether `body` is an error body shaped as this provider's API writes them (not another's)."""
        return False

    def foreign(self, request: dict) -> str | None:
        """What marks a request shaped as any chat API's as another API's, in words; None when nothing does."""
        if anthropic_messages.is_request(request):
            return "an Anthropic Messages request ('system', 'anthropic_version', or its tool blocks)"
        return None

    def chosen(self, obj: dict) -> str:
        # Chosen by the user, a body format reads beside its own shapes a request its rules leave to another (most
        # chat requests are shaped alike: an Ollama or Cohere request is known apart only by its path), but only
        # a request that names its model and holds its turns, answered by this format's response or error body:
        # never a transcript ('messages' alone: a fine-tuning line, an episode) or another provider's error.
        rule = self.detect(obj)
        if rule:
            return rule
        split = split_pair(obj)
        request, response = (split[0], split[1]) if split else (obj, None)
        if split is None and set(obj) <= ERROR_ALONE and self.own_error(obj):
            return f"an error body alone, shaped as {self.title}'s"
        if not (isinstance(request, dict) and isinstance(request.get(self.request_key), list)):
            if split is not None:
                which = "neither is its body" if split[1] is not None else "it is not its request"
                why = f"{split[2]}, but {which} (the request has no '{self.request_key}')"
            else:
                why = f"neither its request nor its response (no '{self.request_key}' or '{self.response_key}')"
        elif not isinstance(request.get("model"), str):
            why = f"'{self.request_key}' without a 'model': a transcript, not a request"
        elif response is not None and not self.own_error(response):
            why = f"{split[2]}, but the response is neither its response nor its error body"
        elif (foreign := self.foreign(request)) is not None:
            why = foreign
        elif not self.generic_requests:
            why = "none of its rules matches (it reads " + self.reads + ")"
        else:
            found = "" if split is None else f", found as {split[2]}"
            return f"a request with '{self.request_key}' and 'model', shaped as any chat API's{found}"
        raise LineProblem(f"not read as {self.title}: {why}")


class _PairFormat(KeyedPairs):
    """What both dialects share: find the request and response on a line, then check their shapes."""

    dialect: str
    """The dialect this format reads."""

    def _is_request(self, body: Any) -> bool:
        raise NotImplementedError

    def _is_response(self, body: Any) -> bool:
        raise NotImplementedError

    def detect(self, obj: dict) -> str | None:
        split = split_pair(obj)
        if split is not None:
            request, response, rule = split
            if self._is_request(request) or self._is_response(response):
                return rule
            return None
        if self._is_response(obj):
            return "a bare response body"
        if self._is_request(obj):
            return "a request body on its own"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        split = split_pair(obj)
        if split is None:
            # An error body alone is the answer to a request the log did not keep.
            request, response = (None, obj) if self._is_response(obj) or error_of(obj) else (obj, None)
            if request is obj and not isinstance(obj.get("messages"), list):
                # Only a forced format is fed a line its rules did not match: a request alone must at least hold
                # the turns it sends, or any object (an exchange's bytes, a span) would be read as a request.
                raise self.neither()
        else:
            request, response = split[0], split[1]
        if request is not None and not isinstance(request, dict):
            raise LineProblem("the request is not a JSON object")
        if isinstance(request, dict) and request is not obj and not isinstance(request.get("messages"), list):
            raise LineProblem("the request has no 'messages' list")
        error = error_of(response, obj.get("status") or obj.get("status_code"))
        if error is None and response is not None and not self._is_response(response):
            raise LineProblem(f"the response is not {with_article(self.title)} response body")
        if request is obj and split is not None:
            # LiteLLM puts the request's fields at the top level beside the response; keep only the request.
            request = {k: v for k, v in obj.items() if k not in ("response", *CONVERSATION_KEYS, *LATENCY_KEYS)}
            tools = (obj.get("model_parameters") or {}).get("tools") if isinstance(obj.get("model_parameters"), dict) else None
            if tools and "tools" not in request:
                request["tools"] = tools
        yield CallRecord(
            line=line,
            dialect=self.dialect,
            request=request,
            response=None if error else response,
            error=error,
            **call_meta(obj),
        )


class OpenAIChatFormat(_PairFormat):
    """OpenAI Chat Completions requests and responses, paired or alone."""

    name = OPENAI
    title = openai_chat.TITLE
    dialect = OPENAI
    response_key = "choices"

    def _is_request(self, body: Any) -> bool:
        return openai_chat.is_request(body)

    def near_miss(self, obj: dict) -> str | None:
        if isinstance(obj.get("messages"), list) and not any(k in obj for k in ("model", "tools", "functions")):
            return "has 'messages', but none of 'model', 'tools' or 'functions' that a request body has beside them"
        choices = obj.get("choices")
        if isinstance(choices, list) and not (choices and isinstance(choices[0], dict) and "message" in choices[0]):
            return "has 'choices', but choices[0] holds no 'message' (a response body's)"
        return None

    def _is_response(self, body: Any) -> bool:
        return openai_chat.is_response(body)

    def own_error(self, body: Any) -> bool:
        # {"error": {"message", "type", ...}}: Anthropic's has a top-level 'type': 'error' beside it.
        return error_of(body) is not None and body.get("type") != "error"


class AnthropicMessagesFormat(_PairFormat):
    """Anthropic Messages requests and responses, paired or alone."""

    name = ANTHROPIC
    title = anthropic_messages.TITLE
    dialect = ANTHROPIC
    response_key = "content"

    def _is_request(self, body: Any) -> bool:
        return anthropic_messages.is_request(body)

    def _is_response(self, body: Any) -> bool:
        return anthropic_messages.is_response(body)

    def foreign(self, request: dict) -> str | None:
        tools = request.get("tools")
        if isinstance(tools, list) and any(isinstance(t, dict) and "function" in t for t in tools):
            return "a Chat Completions request: its tools are declared as 'function's"
        if any(isinstance(m, dict) and ("tool_calls" in m or m.get("role") == "tool") for m in request["messages"]):
            return "a Chat Completions request: its turns hold 'tool_calls' or 'tool' results"
        return None

    def own_error(self, body: Any) -> bool:
        # {"type": "error", "error": {"type", "message"}}
        return error_of(body) is not None and body.get("type") == "error"
