"""Google Gemini / Vertex AI `generateContent` bodies, and `streamGenerateContent` chunks, as Chat Completions.

A request has `contents` (turns of `parts`), `systemInstruction`, `tools[].functionDeclarations`
and `toolConfig`; a response has `candidates[].content.parts`, `finishReason` and
`usageMetadata`. A call is a `functionCall` part, its result a `functionResponse` part of the
next user turn. Gemini mostly sends calls without an `id`, and clients fill in ids of their own
when they send the turn back, so every call is named by its place (`call_<turn>_<n>`,
lib/logs/provider_pairs.CallIds): a recorded id only pairs a result with its call; a result
without one answers the first unanswered call of its name, by order.

A streamed response is a list of chunks (the JSON array `streamGenerateContent` returns) or one
chunk per line; chunks of one `responseId` are joined until the one with a `finishReason`.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem
from lib.logs.provider_pairs import CallIds, ProviderPairFormat, text_of

FINISH_REASONS = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
"""`finishReason` as a Chat Completions finish_reason; others (MALFORMED_FUNCTION_CALL, ...) stay as sent, lower-cased."""

NUMBERED_FINISH = {0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION"}
"""`finishReason` sent as a number: Google's Go and REST clients ask for enums so (`$alt=json;enum-encoding=int`).
These five are numbered alike by the Gemini API and Vertex AI; past them the two number differently, so a higher
number stays as sent."""

NUMBERED_TYPES = {0: "TYPE_UNSPECIFIED", 1: "STRING", 2: "NUMBER", 3: "INTEGER", 4: "BOOLEAN", 5: "ARRAY", 6: "OBJECT",
                  7: "NULL"}
"""A schema's `type` sent as a number (the same clients), by the name Gemini writes it with otherwise."""

NUMBERED_MODES = {0: "MODE_UNSPECIFIED", 1: "AUTO", 2: "ANY", 3: "NONE", 4: "VALIDATED"}
"""`functionCallingConfig.mode` sent as a number (the same clients)."""

TOOL_CHOICES = {"AUTO": "auto", "ANY": "required", "NONE": "none", "VALIDATED": "auto"}
"""`toolConfig.functionCallingConfig.mode` as a Chat Completions tool_choice."""

GENERATION_SETTINGS = {"temperature": "temperature", "topP": "top_p", "maxOutputTokens": "max_completion_tokens",
                       "stopSequences": "stop", "seed": "seed"}
"""`generationConfig` keys that mean the same as a Chat Completions request key."""

SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")
"""A part's opaque signature, beside the content that names the part's kind."""

SCHEMA_KEYS = ("parametersJsonSchema", "parameters_json_schema", "parameters")
"""Where a function declaration keeps its parameter schema, newest spelling first."""


def _is_request(body: Any) -> bool:
    contents = _repeated(body.get("contents")) if isinstance(body, dict) and "contents" in body else None
    return isinstance(contents, list) and all(isinstance(c, dict) and ("parts" in c or "role" in c) for c in contents[:1])


def _is_chunk(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if isinstance(body.get("candidates"), list):
        return True
    # A response every candidate of which was blocked carries only the prompt's feedback; before 2025 the API sent no
    # usage or model version beside it, and the feedback's blockReason is what says it is Gemini's.
    feedback = body.get("promptFeedback")
    return isinstance(feedback, dict) and ("usageMetadata" in body or "modelVersion" in body or "blockReason" in feedback)


def _is_response(body: Any) -> bool:
    if isinstance(body, list):
        return bool(body) and all(_is_chunk(c) for c in body)
    return _is_chunk(body)


_SNAKE = re.compile(r"_([a-z])")

USER_DATA = ("args", "response")
"""google-genai fields whose keys are the program's own (a call's arguments, a function's answer): kept as written."""


def camel_case(value: Any) -> Any:
    """google-genai's snake_case field names (`function_call`, `usage_metadata`) as the REST API's camelCase."""
    if isinstance(value, list):
        return [camel_case(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {_SNAKE.sub(lambda m: m[1].upper(), k) if isinstance(k, str) else k: v if k in USER_DATA else camel_case(v)
            for k, v in value.items()}

class GeminiFormat(ProviderPairFormat):
    """Gemini / Vertex AI generateContent requests and responses, streamed or whole."""

    name = "gemini"
    title = "Google Gemini generateContent"
    request_key = "contents"
    response_key = "candidates"
    generic_requests = False

    def own_error(self, body: Any) -> bool:
        # Google's {"error": {"code": 400, "message", "status": "INVALID_ARGUMENT"}}: a numbered code or a status.
        inner = body.get("error") if isinstance(body, dict) else None
        return isinstance(inner, dict) and (isinstance(inner.get("status"), str) or type(inner.get("code")) is int)

    def __init__(self) -> None:
        self._streams: dict[str, tuple[int, list[dict]]] = {}
        self._body: str | None = None
        """The key of the stream every bare chunk joins while a file of server-sent events is read (one HTTP body, one
        answer): Gemini's streams of 2024 name a finishReason on every chunk, and no responseId."""
        self._bodies = 0

    def one_body(self, begins: bool) -> None:
        self._bodies += begins
        self._body = f"server-sent events {self._bodies}" if begins else None

    def is_request(self, body: Any) -> bool:
        return _is_request(body)

    def is_response(self, body: Any) -> bool:
        return _is_response(body)

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not _is_chunk(obj):
            yield from super().feed(obj, line)
            return
        # A bare chunk: held until its stream's last chunk (the one with a finishReason) arrives.
        key = self._body or str(obj.get("responseId") or "")
        first, chunks = self._streams.setdefault(key, (line, []))
        chunks.append(obj)
        if self._body is not None:
            return  # the body's end ends the answer: finish() joins its chunks
        if any(isinstance(c, dict) and c.get("finishReason") for c in obj.get("candidates") or ()) or \
                (not obj.get("candidates") and "promptFeedback" in obj):
            del self._streams[key]
            # A chunk that finishes alone is a whole response on its line, not a stream.
            yield self.call(None, chunks if len(chunks) > 1 else obj, first, obj)

    def finish(self) -> Iterator[CallRecord]:
        streams, self._streams = self._streams, {}
        for first, chunks in sorted(streams.values(), key=lambda s: s[0]):
            yield self.call(None, chunks, first, chunks[-1])  # a stream that never finished

    def record(self, request: dict | None, response: Any, line: int, obj: dict,
               ids_recorded: bool = False) -> CallRecord:
        """One call's record; `ids_recorded`: every call id is the log's own, the same in the response and in the
        history after it (as a Gemini CLI recording's are), so the calls keep them."""
        # The API sends calls without ids and clients fill in their own when they send a turn back:
        # only ids by place are the same in a response and in the next request's history.
        ids = CallIds(by_place=not ids_recorded)
        chat_request = _chat_request(request, ids, text_of(obj.get("model"))) if request is not None else None
        turn = len(request["contents"]) if request is not None and isinstance(request.get("contents"), list) else 0
        chat_response, created = (None, None) if response is None else _chat_response(_joined(response), ids, turn)
        return CallRecord(line=line, dialect="openai-chat", request=chat_request, response=chat_response,
                          derived=ids.derived(), converted_from=self.name, timestamp=created)


RESPONSE_SCHEMA_KEYS = ("responseJsonSchema", "response_json_schema", "responseSchema", "response_schema")
"""Where `generationConfig` keeps the schema the answer must follow: a JSON Schema, or Gemini's OpenAPI subset."""

# --- requests --------------------------------------------------------------------------------


def _chat_request(request: dict, ids: CallIds, model: str | None) -> dict:
    """The Chat Completions request a generateContent request amounts to."""
    body: dict = {}
    if model or isinstance(request.get("model"), str):
        body["model"] = model or request["model"]
    system = _system(request.get("systemInstruction", request.get("system_instruction")))
    contents = _repeated(request.get("contents"))
    if not isinstance(contents, list):
        raise LineProblem(f"'contents' is {convert.describe(contents)}, expected a list")
    turns = [_turn(content, position, ids) for position, content in enumerate(contents)]
    body["messages"] = system + convert.chat_messages(turns)
    tools = request.get("tools")
    if tools is not None:
        tools = _repeated(tools)  # pydantic-ai sent one Tool object, not a list of one, and was answered 200
        if not isinstance(tools, list):
            raise LineProblem(f"'tools' is {convert.describe(tools)}, expected a list")
        body["tools"] = [t for tool in tools for t in _tools(tool)]
    choice = _tool_choice(convert.object_at(convert.object_at(request, "toolConfig"), "functionCallingConfig"))
    if choice is not None:
        body["tool_choice"] = choice
    settings = convert.object_at(request, "generationConfig")
    body.update({ours: settings[theirs] for theirs, ours in GENERATION_SETTINGS.items() if theirs in settings})
    schema = next((settings[key] for key in RESPONSE_SCHEMA_KEYS if isinstance(settings.get(key), dict)), None)
    if schema is not None:  # as Chat Completions asks for a schema, as sent (Gemini's own type names and all)
        body["response_format"] = {"type": "json_schema", "json_schema": {"schema": schema}}
    return body


def _repeated(value: Any) -> Any:
    """A repeated field's value as a list: Gemini's JSON parsing takes a lone object where a list belongs as a list of
    one (sublayer sends `contents` and `parts` so, pydantic-ai `tools`, and both are answered); absent, an empty list."""
    if value is None:
        return []
    return [value] if isinstance(value, dict) else value


def _system(instruction: Any) -> list[dict]:
    """`systemInstruction` (a Content, or plain text) as a leading system message."""
    if isinstance(instruction, str):
        return [{"role": "system", "content": instruction}] if instruction else []
    if not isinstance(instruction, dict):
        return []
    parts = _repeated(instruction.get("parts"))
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)] if isinstance(parts, list) else []
    return [{"role": "system", "content": "\n".join(texts)}] if texts else []


def _turn(content: Any, position: int, ids: CallIds) -> tuple[str, list]:
    """One Content as a (role, parts) turn; a user turn of function responses is a tool turn."""
    where = f"contents[{position}]"
    if not isinstance(content, dict):
        raise LineProblem(f"{where} is {convert.describe(content)}, expected a Content object")
    role = content.get("role") or "user"
    if role == "model":
        ids.model_turn()
    parts = _parts(content.get("parts"), position, ids, where)
    if role == "model":
        return "assistant", parts
    if role in ("function", "tool") or (parts and all(p.get("type") == "tool_call_response" for p in parts if isinstance(p, dict))):
        return "tool", parts
    return str(role), parts


def _parts(parts: Any, turn: int, ids: CallIds, where: str) -> list:
    """A Content's parts in the common part shape (lib.logs.chat_shape); other parts stay raw."""
    parts = [parts] if isinstance(parts, dict) else parts  # a lone Part (see _repeated); absent is no list
    if not isinstance(parts, list):
        raise LineProblem(f"{where}.parts is {convert.describe(parts)}, expected a list of parts")
    converted: list = []
    text_before = False
    for position, part in enumerate(parts):
        if not isinstance(part, dict):
            raise LineProblem(f"{where}.parts[{position}] is {convert.describe(part)}, expected a Part object")
        # The API also takes the proto's own snake_case names, as llm-gemini and google-genai dumps send them.
        call = part.get("functionCall", part.get("function_call"))
        result = part.get("functionResponse", part.get("function_response"))
        is_text = isinstance(part.get("text"), str) and not part.get("thought")
        if is_text and text_before:
            # Adjacent text parts are one text, run together as google-genai's `.text` reads them: clients send a
            # streamed answer back one part per chunk, and a line break between them would be text nobody sent.
            converted[-1] = convert.text_part(converted[-1]["content"] + part["text"])
        elif is_text:
            converted.append(convert.text_part(part["text"]))
        elif isinstance(call, dict):
            calls = sum(1 for p in converted if p.get("type") == "tool_call")
            converted.append(convert.tool_call_part(ids.call(call.get("id"), call.get("name"), turn, calls),
                                                    call.get("name"), call.get("args") or {}))
        elif isinstance(result, dict):
            converted.append(convert.tool_result_part(ids.result(result.get("id"), result.get("name")),
                                                      result.get("response")))
        else:
            # Thoughts, inline data, code execution: shown raw, under the part's own key.
            kind = "thought" if part.get("thought") else next((k for k in part if k not in SIGNATURE_KEYS), "part")
            converted.append({"type": kind, **part})
        text_before = is_text
    return converted


def _prompt_tokens(usage: dict) -> int | None:
    """The input a call was billed for: `promptTokenCount` leaves out the code execution or search results Gemini fed
    back to the model inside the turn (`toolUsePromptTokenCount`), which `totalTokenCount` counts."""
    prompt, tool_use = convert.as_int(usage.get("promptTokenCount")), convert.as_int(usage.get("toolUsePromptTokenCount"))
    return prompt if tool_use is None else (prompt or 0) + tool_use


def _tools(tool: Any) -> list:
    """One Tool as Chat Completions tools: one per function declaration; built-in tools stay as sent."""
    if not isinstance(tool, dict):
        raise LineProblem(f"a tool is {convert.describe(tool)}, expected an object")
    declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
    # A built-in tool (`codeExecution`, `googleSearch`, ...) is a key of its own, named by it, and may share the Tool
    # with declarations; one set to null is not offered.
    built_in = [{"type": key, key: value} for key, value in tool.items()
                if key not in ("functionDeclarations", "function_declarations") and value is not None]
    if not isinstance(declarations, list):
        return built_in or [tool]
    return [*(convert.function_tool(d.get("name"), d.get("description"),
                                    _named_types(next((d[k] for k in SCHEMA_KEYS if k in d), None)))
              for d in declarations if isinstance(d, dict)), *built_in]


def _named_types(schema: Any) -> Any:
    """A parameter schema whose `type`s were sent as numbers, each written as its name (`6` as `OBJECT`), as Gemini's
    JSON has it otherwise; any other schema as it is. Walked with a stack of its own: a schema may nest deep."""
    if not (isinstance(schema, dict) and _numbered_type(schema.get("type"))):
        return schema
    root = dict(schema)
    stack: list[dict | list] = [root]
    while stack:
        node = stack.pop()
        for key, value in (node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(value, (dict, list)):
                node[key] = copy = dict(value) if isinstance(value, dict) else list(value)
                stack.append(copy)
            elif key == "type" and isinstance(node, dict) and _numbered_type(value):
                node[key] = NUMBERED_TYPES[value]
    return root


def _numbered_type(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in NUMBERED_TYPES


def _tool_choice(config: dict) -> Any:
    mode = config.get("mode")
    if isinstance(mode, int) and not isinstance(mode, bool):
        mode = NUMBERED_MODES.get(mode)
    if not isinstance(mode, str):
        return None
    mode = mode.upper()  # Gemini takes the enum in any case (ruby_llm writes "any", "none")
    allowed = config.get("allowedFunctionNames")
    if mode == "ANY" and isinstance(allowed, list) and len(allowed) == 1:
        return {"type": "function", "function": {"name": allowed[0]}}
    return TOOL_CHOICES.get(mode, mode.lower())


# --- responses -------------------------------------------------------------------------------


def _joined(response: Any) -> dict:
    """One response from a stream's chunks: the first candidate's parts in order, text pieces joined,
    the last finishReason and usage."""
    if isinstance(response, dict):
        return response
    parts: list[dict] = []
    finish, usage, head = None, None, response[0]
    for chunk in response:
        candidate = next(iter(chunk.get("candidates") or ()), None)
        if isinstance(candidate, dict):
            pieces = convert.object_at(candidate, "content").get("parts") or []
            if not isinstance(pieces, list):
                raise LineProblem(f"a chunk's candidates[0].content.parts is {convert.describe(pieces)}, expected a list of parts")
            for part in pieces:
                if isinstance(part, dict) and _joins(parts, part):
                    parts[-1] = {**parts[-1], "text": parts[-1]["text"] + part["text"]}
                elif not (isinstance(part, dict) and part.get("text") == ""):
                    parts.append(part)
            finish = candidate.get("finishReason") or finish
        usage = chunk.get("usageMetadata") or usage
    joined = {k: head[k] for k in ("responseId", "modelVersion", "createTime", "promptFeedback") if k in head}
    candidates = [{"content": {"role": "model", "parts": parts}, "finishReason": finish}] if parts or finish else []
    return {**joined, "candidates": candidates, "usageMetadata": usage or {}}


def _joins(parts: list[dict], part: dict) -> bool:
    """Whether a streamed text piece continues the text part before it."""
    return (bool(parts) and isinstance(parts[-1], dict) and isinstance(part.get("text"), str) and isinstance(parts[-1].get("text"), str)
            and bool(part.get("thought")) == bool(parts[-1].get("thought")) and set(part) <= {"text", "thought"})


def _chat_response(response: dict, ids: CallIds, turn: int) -> tuple[dict, str | None]:
    """(the chat.completion body, when it was created) for a generateContent response."""
    candidates = response.get("candidates") or []
    candidate = candidates[0] if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) else {}
    ids.model_turn()
    content = convert.object_at(candidate, "content")
    parts = _parts(content.get("parts", []), turn, ids, "candidates[0].content")
    messages = convert.chat_message("assistant", parts)
    message = messages[-1] if messages else {"role": "assistant", "content": ""}
    finish = candidate.get("finishReason")
    if isinstance(finish, int) and not isinstance(finish, bool):
        finish = NUMBERED_FINISH.get(finish, finish)
    if candidate == {} and convert.object_at(response, "promptFeedback").get("blockReason"):
        finish_reason = "content_filter"
    elif finish in (None, "STOP", "FINISH_REASON_UNSPECIFIED"):
        finish_reason = "tool_calls" if message.get("tool_calls") else ("stop" if finish else None)
    else:
        finish_reason = FINISH_REASONS.get(str(finish), str(finish).lower())
    usage = convert.object_at(response, "usageMetadata")
    thoughts = convert.as_int(usage.get("thoughtsTokenCount"))
    completion = convert.as_int(usage.get("candidatesTokenCount"))
    body = convert.chat_completion(
        message, finish_reason, id=response.get("responseId"), model=response.get("modelVersion"),
        usage=convert.chat_usage(_prompt_tokens(usage),
                                 None if completion is None and thoughts is None else (completion or 0) + (thoughts or 0),
                                 cached=usage.get("cachedContentTokenCount"), reasoning=thoughts),
    )
    return body, text_of(response.get("createTime"))
