"""Building Chat Completions bodies out of other formats' pieces, written once for all importers.

The formats that are not one of the two dialects (Responses API, spans, fine-tuning lines, streams)
describe messages as a role plus a list of parts. Their common tongue here is the OpenTelemetry
GenAI part shape:

    {"type": "text", "content": str}
    {"type": "tool_call", "id": str, "name": str, "arguments": str | JSON}
    {"type": "tool_call_response", "id": str, "response": str | JSON}

Any other part (reasoning, images, server tools) is kept raw as a content block, which
lib.dialects.openai_chat reads as an OtherPart.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Iterable

import orjson

from lib.coerce import int_or_none
from lib.dialects.common import arguments_value, flatten_content
from lib.intern import loads_exact
from lib.logs.record import LineProblem, Problem, per_file
from lib.text import plural


def text_part(text: str) -> dict:
    """A text part."""
    return {"type": "text", "content": text}


def tool_call_part(call_id: Any, name: Any, arguments: Any) -> dict:
    """A call-intent part."""
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def custom_call_part(call_id: Any, name: Any, text: Any) -> dict:
    """A custom tool's call-intent part (the Responses API's `custom_tool_call`): its input is free text, not JSON."""
    return {"type": "tool_call", "id": call_id, "name": name, "input": text}


def tool_result_part(call_id: Any, response: Any) -> dict:
    """A tool-result part: what the program sent back for one call."""
    return {"type": "tool_call_response", "id": call_id, "response": response}


def text_or_raw(block: Any, text_types: tuple[str, ...] = ("text",)) -> Any:
    """A content block as a text part when it is text (`{"type": "text", "text": ...}`); anything else as it was."""
    if isinstance(block, dict) and block.get("type") in text_types and isinstance(block.get("text"), str):
        return text_part(block["text"])
    return block


_JSON_TEXT = json.JSONEncoder(ensure_ascii=False)
"""One encoder for every value: `json.dumps` with an option builds a new encoder per call, which cost
more than the encoding of a call's arguments."""
_ENCODE = c_make_encoder(None, _JSON_TEXT.default, encode_basestring, None, ": ", ", ", False, False, True) \
    if c_make_encoder is not None else None
"""The C encoder `_JSON_TEXT.encode` builds on every call, built once (without the cycle check: parsed
JSON has no cycles). Its text is json.dumps's with ensure_ascii=False, at less than half the time."""


def json_text(value: Any) -> str:
    """`value` as the text a Chat Completions field carries: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if _ENCODE is None:
        return _JSON_TEXT.encode(value)
    return "".join(_ENCODE(value, 0))


def tool_call(call_id: Any, name: Any, arguments: Any) -> dict:
    """One Chat Completions `tool_calls[]` entry; arguments become a JSON string as the API sends them."""
    return {
        "id": "" if call_id is None else str(call_id),
        "type": "function",
        "function": {"name": "" if name is None else str(name), "arguments": json_text({} if arguments is None else arguments)},
    }


def function_tool(name: Any, description: Any, parameters: Any) -> dict:
    """One Chat Completions `tools[]` entry for a function tool."""
    function: dict = {"name": name}
    if description is not None:
        function["description"] = description
    if parameters is not None:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


def chat_message(role: str, parts: Iterable[Any]) -> list[dict]:
    """One role/parts message as Chat Completions messages.

    Tool results become `role: tool` messages of their own (placed first: the API wants them right
    after the assistant turn that asked for them); the rest stays one message of `role`.
    """
    texts: list[str] = []
    blocks: list[Any] = []
    calls: list[dict] = []
    results: list[dict] = []
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            content = part.get("content", part.get("text"))
            texts.append(content if isinstance(content, str) else json_text(content))
            blocks.append({"type": "text", "text": texts[-1]})
        elif kind == "tool_call" and "input" in part:
            # Chat Completions' shape of a custom tool's call: the input as it was written, never read as JSON.
            said = part["input"]
            calls.append({"id": "" if part.get("id") is None else str(part["id"]), "type": "custom",
                          "custom": {"name": "" if part.get("name") is None else str(part["name"]),
                                     "input": said if isinstance(said, str) else json_text(said)}})
        elif kind == "tool_call":
            calls.append(tool_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind == "tool_call_response":
            # The semconv names the result `response`; pydantic-ai writes it as `result`.
            said = part.get("response", part.get("result"))
            results.append({"role": "tool", "tool_call_id": str(part.get("id") or ""), "content": json_text(said)})
        else:
            blocks.append(part)
    if role == "tool":
        # A tool turn whose result carries no call id still says something; keep it as a result.
        if texts and not results:
            results.append({"role": "tool", "tool_call_id": "", "content": "\n".join(texts)})
        return results
    if results and not blocks and not calls:
        return results
    message: dict = {"role": role, "content": _content(texts, blocks, calls)}
    if calls:
        message["tool_calls"] = calls
    return [*results, message]


def _content(texts: list[str], blocks: list[Any], calls: list[dict]) -> Any:
    # A plain string whenever the message is only text; a block list keeps non-text parts in order.
    if len(blocks) > len(texts):
        return blocks
    if texts:
        return "\n".join(texts)
    return None if calls else ""


def chat_messages(turns: Iterable[tuple[str, Iterable[Any]]]) -> list[dict]:
    """A conversation of (role, parts) turns as a Chat Completions messages array."""
    messages: list[dict] = []
    for role, parts in turns:
        messages.extend(chat_message(role, parts))
    return messages


def chat_usage(prompt: Any, completion: Any, *, cached: Any = None, reasoning: Any = None) -> dict | None:
    """A Chat Completions usage object, or None when neither count is known."""
    prompt, completion = as_int(prompt), as_int(completion)
    if prompt is None and completion is None:
        return None
    prompt, completion = prompt or 0, completion or 0
    usage: dict = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if cached is not None and (cached := as_int(cached)) is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    if reasoning is not None and (reasoning := as_int(reasoning)) is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return usage


def chat_completion(message: dict, finish_reason: str | None, *, id: Any = None, model: Any = None,
                    created: Any = None, usage: dict | None = None, index: int = 0) -> dict:
    """A `chat.completion` body with one choice; keys the source did not have are left out."""
    body: dict = {}
    if id is not None:
        body["id"] = id
    body["object"] = "chat.completion"
    if created is not None:
        body["created"] = created
    if model is not None:
        body["model"] = model
    body["choices"] = [{"index": index, "message": message, "finish_reason": finish_reason}]
    if usage is not None:
        body["usage"] = usage
    return body


def object_at(obj: dict, key: str) -> dict:
    """The object under `key`, or an empty one when it is missing or not an object."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def as_int(value: Any) -> int | None:
    """A token count or timestamp as an int: OTLP writes int64 as strings; None when it is not a number."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdecimal():
        return int(value)
    return int_or_none(value)


_YEAR_10000 = 253_402_300_800
"""The first second datetime cannot hold (10000-01-01T00:00:00Z): later ones take the datetime path, which refuses them."""
_DATES: dict[int, str] = {}
"""`YYYY-MM-DDT` by day since the epoch: a log's calls fall on a few days."""
_DATES_KEPT = 4096


def unread_calls_note(unread: list[tuple[int, str]], shape: str, recorder: str) -> list[Problem]:
    """The one note for model calls whose messages come in a shape Roundtrip does not read (`unread`: each call's
    line and where it is, the first five named): each is still shown with what `recorder` recorded of it."""
    notes = []
    for calls in per_file(unread, lambda call: call[0]):  # each file's on its own line, in an upload of several
        first, count = calls[0][0], len(calls)
        named = "; ".join(where for _, where in calls[:5]) + ("; ..." if count > 5 else "")
        notes.append(Problem(first, f"{plural(count, 'model call')} ({named}) {'carries' if count == 1 else 'carry'} "
                                    f"{shape}: each is shown with its model, token counts and latency as {recorder} "
                                    "recorded them, but not its messages.", loaded=True))
    return notes


def json_or_text(value: str) -> Any:
    """JSON text a log kept inside a field, parsed (integers kept exact, as lib.intern.loads_exact does); text that
    is not JSON stays the text. The caller has checked its nesting (lib.intern.nests_deeper)."""
    try:
        return loads_exact(value)
    except orjson.JSONDecodeError:
        pass
    try:  # orjson refuses what json takes (NaN, lone surrogates)
        return json.loads(value)
    except ValueError:
        return value


def iso_microseconds(value: Any) -> int | None:
    """An ISO 8601 time as microseconds since the epoch (whole numbers, so a latency is exact; a time without a zone
    is UTC); None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - EPOCH) // timedelta(microseconds=1)


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iso_time(seconds: Any, nanos: int = 0) -> str | None:
    """UTC ISO 8601 text with nanoseconds, fixed width so that texts sort as times do."""
    whole = as_int(seconds)
    if whole is None:
        return None
    if 0 <= whole < _YEAR_10000:
        # The day's date written once per day, the time of day by arithmetic: a third of gmtime and
        # formatting, themselves a third of a datetime's isoformat, the same text.
        day, second = divmod(whole, 86_400)
        date = _DATES.get(day)
        if date is None:
            if len(_DATES) >= _DATES_KEPT:
                _DATES.clear()
            date = _DATES[day] = "%04d-%02d-%02dT" % time.gmtime(whole)[:3]
        hour, second = divmod(second, 3600)
        return "%s%02d:%02d:%02d.%09dZ" % (date, hour, second // 60, second % 60, nanos)
    try:
        moment = datetime.fromtimestamp(whole, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    # isoformat rather than strftime: faster, and zero-padded before the year 1000 where glibc's %Y is not.
    return f"{moment.replace(tzinfo=None).isoformat(timespec='seconds')}.{nanos:09d}Z"


def describe(value: Any) -> str:
    """A JSON value's kind in a user's words, for problems."""
    if value is None:
        return "null"
    for kind, words in ((bool, "true or false"), (str, "a string"), (int, "a number"), (float, "a number"),
                        (list, "a list"), (dict, "an object")):
        if isinstance(value, kind):
            return words
    return type(value).__name__


def require(obj: dict, key: str, kind: type, where: str = "") -> Any:
    """`obj[key]` when it is of `kind`; otherwise a LineProblem naming the field and what is wrong."""
    value = obj.get(key)
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    found = "missing" if key not in obj else describe(value)
    raise LineProblem(f"{where}'{key}' is {found}, expected {describe(kind())}")


def chat_results_after(turn: dict, rest: list[dict]) -> list[dict]:
    """The tool turns after a transcript's last model turn (Chat Completions shape), as execution entries of the calls
    they answer."""
    calls = {c.get("id"): c.get("function") for c in turn.get("tool_calls") or () if isinstance(c, dict)}
    ran = []
    for message in rest:
        function = calls.get(message.get("tool_call_id")) if message.get("role") == "tool" else None
        if isinstance(function, dict):
            content = message.get("content")
            ran.append({"tool_call_id": str(message["tool_call_id"]), "name": str(function.get("name") or ""),
                        "arguments": arguments_value(function.get("arguments")),
                        "output": content if isinstance(content, str) else flatten_content(content)})
    return ran


def anthropic_results_after(turn: dict, contents: list) -> list[dict]:
    """The `tool_result` blocks in the contents after a log's last response (Anthropic Messages shape), as execution
    entries of the calls they answer."""
    # Only text ids pair a result with its call: a damaged id (a list, an object) pairs nothing and costs that result.
    calls = {b["id"]: b for b in turn.get("content") or ()
             if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)}
    ran = []
    for content in contents:
        for block in content if isinstance(content, list) else ():
            answered = block.get("tool_use_id") if isinstance(block, dict) and block.get("type") == "tool_result" \
                else None
            call = calls.get(answered) if isinstance(answered, str) else None
            if call is not None:
                ran.append({"tool_call_id": str(block["tool_use_id"]), "name": str(call.get("name") or ""),
                            "arguments": call.get("input"), "output": flatten_content(block.get("content")),
                            "ok": block.get("is_error") is not True})
    return ran
