"""Langfuse trace exports: `{"trace": {...}, "observations": [...]}`, one trace with its observations.

Each GENERATION observation is one model call. Langfuse keeps its `input` and `output` as the framework that
sent them wrote them (as JSON, or as JSON text), so each is handed to the converter of its shape: Responses API
items and a response object (the OpenAI Agents SDK), OpenTelemetry GenAI `{role, parts}` messages (pydantic-ai),
Chat Completions messages (LangChain, LiteLLM, CrewAI), google-genai request and response objects (Google ADK).
A generation in a shape none of them reads is not guessed at: it is a round with its model, usage and latency
and no messages, and a note names it. Each agent of a trace (the generations that open with the same first
message) is one conversation, named by the trace's name (or id), a second agent's after its parent observation;
rounds in start-time order; Langfuse's own usage figures (`usageDetails`) are the round's usage.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.intern import content_key, nests_deeper
from lib.logs import chat_shape as convert
from lib.logs import gemini, responses, spans
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.text import plural

CACHE_READ_KEYS = ("input_cache_read", "prompt_details.cache_read", "input_cached_tokens", "cache_read_input_tokens",
                   "input_cached")
"""`usageDetails` keys Langfuse and its integrations write the tokens read from the prompt cache under."""
CACHE_WRITE_KEYS = ("input_cache_creation", "cache_creation_input_tokens", "input_cache_write")
"""`usageDetails` keys of the tokens written to the prompt cache."""
REASONING_KEYS = ("output_reasoning", "completion_details.reasoning", "output_reasoning_tokens")
"""`usageDetails` keys of the reasoning tokens among the output."""

LANGCHAIN_TOOL = "function"
"""The `type` of a tool definition that Langfuse's LangChain handler lists among the messages as a `tool` message."""

class LangfuseTraceFormat(LogFormat):
    """One Langfuse trace and its observations, exported from the Langfuse UI or its public API."""

    name = "langfuse"
    detect_keys = frozenset({"trace"})
    title = "Langfuse trace export"
    reads = "a 'trace' object beside its 'observations' list"

    def __init__(self) -> None:
        self._unread: list[tuple[int, str]] = []
        """(line, the observation in words) per generation whose messages are in a shape not read."""
        self._names: dict[str, str] = {}
        """Trace id by the conversation name given to it, so two traces of one name stay apart."""

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("trace"), dict) and isinstance(obj.get("observations"), list):
            return "'trace' with its 'observations' (a Langfuse trace export)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if "observations" in obj and "trace" not in obj:
            return "has 'observations', but no 'trace' object beside them"
        if isinstance(obj.get("trace"), dict) and "observations" not in obj:
            return "has a 'trace' object, but no 'observations' list beside it"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        trace, observations = convert.require(obj, "trace", dict), convert.require(obj, "observations", list)
        conversation = self._conversation(trace, line)
        generations, tools, problems = [], [], []
        for position, observation in enumerate(observations, start=1):
            if not isinstance(observation, dict):
                problems.append(f"observation {position} is {convert.describe(observation)}, expected an object")
            elif observation.get("type") in ("GENERATION", "TOOL"):
                # By start time; one without a start time after those with one, in the order listed.
                start = _start(observation)
                key = (start is None, start or 0, position)
                (generations if observation["type"] == "GENERATION" else tools).append((key, position, observation))
        calls = []
        agents: dict[object, str] = {}  # conversation by the first message each agent sends
        named = {o.get("id"): o.get("name") for o in observations if isinstance(o, dict)}
        for key, position, observation in sorted(generations, key=lambda g: g[0]):
            where = _named(observation, position)
            try:
                record = self._record(observation, line, where)
            except LineProblem as problem:
                problems.append(f"{where}: {problem}")
                continue
            messages = (record.request or {}).get("messages") or [None]
            parent = named.get(observation.get("parentObservationId"))
            agent = parent if isinstance(parent, str) and parent else len(agents) + 1
            record.conversation = agents.setdefault(content_key(messages[0]) if messages[0] is not None else None,
                                                    f"{conversation} · {agent}" if agents else conversation)
            calls.append((key, record))
        for key, _, observation in sorted(tools, key=lambda t: t[0]):
            spans.attach_execution(_execution(observation), key, calls)
        yield from (record for _, record in calls)
        if problems:
            # The generations read are kept; the export is reported for the ones that could not be.
            raise LineProblem(f"{plural(len(problems), 'observation')} could not be read "
                              f"({'; '.join(problems[:3])}{'; ...' if len(problems) > 3 else ''})")

    def _conversation(self, trace: dict, line: int) -> str:
        """The trace's name, or its id; a second trace of the same name is told apart by its id."""
        trace_id = _text(trace.get("id")) or f"trace at line {line}"
        name = _text(trace.get("name"))
        if name is None:
            return trace_id
        if self._names.setdefault(name, trace_id) != trace_id:
            return f"{name} ({trace_id})"
        return name

    def _record(self, observation: dict, line: int, where: str) -> CallRecord:
        model = observation.get("model")
        model = model if isinstance(model, str) and model else None
        inputs, output = _opened(observation.get("input"), "input"), _opened(observation.get("output"), "output")
        record = _converted(inputs, output, model, line)
        usage = _usage(observation)
        if record is None:
            self._unread.append((line, where))
            record = _unread(model, usage, line, where)
        elif usage is not None and record.response is not None:
            record.response["usage"] = usage
        if record.request is not None and model is not None:
            record.request.setdefault("model", model)
        if record.response is not None and model is not None:
            record.response.setdefault("model", model)
        start, end = _start(observation), convert.iso_microseconds(observation.get("endTime"))
        record.latency_ms = (end - start) / 1000 if start is not None and end is not None and end >= start else None
        if record.request is not None and "tools" not in record.request:
            tools = _metadata_tools(observation)
            if tools:
                record.request["tools"] = tools
        record.timestamp = _text(observation.get("startTime")) or record.timestamp
        record.name = None
        return record

    def notes(self) -> list[Problem]:
        return convert.unread_calls_note(
            self._unread, "messages in a shape Roundtrip does not read (neither Responses API items, GenAI {role, "
            "parts} messages, Chat Completions messages nor google-genai contents)", "Langfuse")


# --- one generation --------------------------------------------------------------------------------


def _converted(inputs: Any, output: Any, model: str | None, line: int) -> CallRecord | None:
    """The call a generation's input and output amount to, by the first converter that reads their shape; None
    when none does."""
    if responses.is_responses_response(output) and isinstance(inputs, (list, str)):
        return _from_responses(inputs, output, model, line)
    if _genai_messages(inputs) and (output is None or _genai_messages(output)):
        return _from_genai(inputs, output or [], line)
    chat = _chat_messages(inputs)
    if chat is not None and _chat_answer(output) is not None:
        return _from_chat(inputs, chat, output, line)
    if _genai_request(inputs) and (output is None or _genai_response(output)):
        return _from_gemini(inputs, output, model, line)
    return None


def _from_responses(inputs: list | str, output: dict, model: str | None, line: int) -> CallRecord:
    """Responses API input items and the response object, read by the Responses converter; the response repeats
    the instructions and tools the request sent."""
    request: dict = {"model": output.get("model") or model, "input": inputs}
    for key in ("instructions", "tools", "tool_choice"):
        if output.get(key) is not None:
            request[key] = output[key]
    return next(responses.ResponsesFormat(waits=False).feed({"request": request, "response": output}, line))


def _genai_messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(m, dict) and isinstance(m.get("parts"), list) and "content" not in m for m in value)


def _from_genai(inputs: list, output: list, line: int) -> CallRecord:
    """OpenTelemetry GenAI `{role, parts}` messages, read as the spans reader reads them."""
    messages = spans.genai_messages(inputs, "input")
    answer = next((m for m in spans.genai_messages(output[:1], "output") if m.get("role") == "assistant"), None)
    response = None
    if answer is not None:
        finish = output[0].get("finish_reason")
        response = convert.chat_completion(answer, spans.finish_reason(finish))
    return CallRecord(line=line, dialect=OPENAI, request={"messages": messages}, response=response,
                      converted_from="otel-genai")


def _chat_messages(value: Any) -> list[dict] | None:
    """Chat Completions messages, bare or under a request's `messages`; None when `value` is not such a list."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if not (isinstance(value, list) and value and all(isinstance(m, dict) for m in value)):
        return None
    for message in value:
        content = message.get("content")
        if not isinstance(message.get("role"), str) or "parts" in message or not (
                content is None or isinstance(content, (str, list)) or _langchain_tool(message)):
            return None
    return value


def _langchain_tool(message: dict) -> bool:
    """A tool definition Langfuse's LangChain handler listed among the messages, as a `tool` message."""
    content = message.get("content")
    return message.get("role") == "tool" and isinstance(content, dict) and content.get("type") == LANGCHAIN_TOOL \
        and isinstance(content.get(LANGCHAIN_TOOL), dict)


def _chat_answer(output: Any) -> dict | None:
    """The assistant message a Chat Completions output is: a message, a `chat.completion` body, or plain text."""
    if isinstance(output, str):
        return {"role": "assistant", "content": output}
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        choice = output["choices"][0]
        output = choice.get("message") if isinstance(choice, dict) else None
    if isinstance(output, dict) and output.get("role") == "assistant" and "parts" not in output:
        content = output.get("content")
        if content is None or isinstance(content, (str, list)):
            return _lifted(output)
    return None


def _lifted(message: dict) -> dict:
    """A LangChain message as Chat Completions writes it: the tool calls LangChain keeps under
    `additional_kwargs` at the top, its own keys left out."""
    lifted = {k: v for k, v in message.items() if k != "additional_kwargs"}
    extra = message.get("additional_kwargs")
    if isinstance(extra, dict) and "tool_calls" not in lifted and isinstance(extra.get("tool_calls"), list):
        lifted["tool_calls"] = extra["tool_calls"]
    if lifted.get("tool_calls") and lifted.get("content") == "":
        lifted["content"] = None
    return lifted


def _from_chat(inputs: Any, chat: list[dict], output: Any, line: int) -> CallRecord:
    """Chat Completions messages and the answer, as sent; tool definitions listed as messages become the tools."""
    request = {k: v for k, v in inputs.items() if k != "messages"} if isinstance(inputs, dict) else {}
    tools = [m["content"] for m in chat if _langchain_tool(m)]
    request["messages"] = [_lifted(m) for m in chat if not _langchain_tool(m)]
    if tools and "tools" not in request:
        request["tools"] = tools
    answer = _chat_answer(output)
    finish = None
    if isinstance(output, dict) and isinstance(output.get("choices"), list):
        finish = output["choices"][0].get("finish_reason")
    elif isinstance(output, dict):
        finish = convert.object_at(output, "response_metadata").get("finish_reason")
    derived = []
    if finish is None:
        # A message or plain text says no finish reason: the calls it makes say which it was.
        finish, derived = ("tool_calls" if answer.get("tool_calls") else "stop"), ["finish"]
    return CallRecord(line=line, dialect=OPENAI, request=request, response=convert.chat_completion(answer, finish),
                      derived=derived)


def _genai_request(value: Any) -> bool:
    """A google-genai request as Google ADK logs it (`contents`, the settings under `config`), camelCase or not."""
    return isinstance(value, dict) and isinstance(value.get("contents"), list) and "messages" not in value


def _genai_response(value: Any) -> bool:
    """A google-genai response: ADK's LlmResponse (`content`, `finish_reason`) or a GenerateContentResponse."""
    return isinstance(value, dict) and (
        isinstance(value.get("candidates"), list) or isinstance(value.get("content"), dict)
        or "usage_metadata" in value or "usageMetadata" in value)


def _from_gemini(inputs: dict, output: dict | None, model: str | None, line: int) -> CallRecord:
    """A google-genai request and response, their Python field names written as the REST API's, read by the
    Gemini converter."""
    config = convert.object_at(inputs, "config")
    request: dict = {"contents": gemini.camel_case(inputs["contents"])}
    system = config.get("system_instruction", config.get("systemInstruction", inputs.get("system_instruction")))
    if system is not None:
        request["systemInstruction"] = gemini.camel_case(system)
    tools = config.get("tools", inputs.get("tools"))
    if tools is not None:
        request["tools"] = tools
    response = None
    if output is not None:
        response = gemini.camel_case({k: v for k, v in output.items() if k not in ("content", "finish_reason", "finishReason")})
        if "candidates" not in output:
            finish = output.get("finish_reason", output.get("finishReason"))
            response["candidates"] = [gemini.camel_case({"content": output.get("content") or {}, "finish_reason": finish})]
    format_ = gemini.GeminiFormat()
    return format_.record(request, response, line, {"model": inputs.get("model") or model})


def _unread(model: str | None, usage: dict | None, line: int, where: str) -> CallRecord:
    """A generation whose messages no converter reads: its model and usage, and no messages."""
    note = (f"Langfuse recorded this call's messages ({where}) in a shape Roundtrip does not read. The model, token "
            "counts and latency are as recorded; the messages cannot be shown.")
    return CallRecord(
        line=line, dialect=OPENAI, request={"messages": []},
        response=convert.chat_completion({"role": "assistant", "content": None}, None, model=model, usage=usage),
        converted_from="langfuse", provenance={"origin": "completed", "note": note, "omitted": ["messages"]})


# --- fields ----------------------------------------------------------------------------------------


def _usage(observation: dict) -> dict | None:
    """Langfuse's usage figures as a Chat Completions usage object: `usageDetails`, else the older `usage`.

    Langfuse keeps cache reads and writes under keys of their own and adds every key into `total`; where `total`
    is the input and output alone, the provider's input already held the cached tokens."""
    details = observation.get("usageDetails")
    if not (isinstance(details, dict) and details):
        details = observation.get("usage")
    if not isinstance(details, dict):
        return None
    figures = {k: convert.as_int(v) for k, v in details.items()}
    prompt, completion, total = figures.get("input"), figures.get("output"), figures.get("total")
    if prompt is None and completion is None:
        return None
    read = next((figures[k] for k in CACHE_READ_KEYS if figures.get(k) is not None), None)
    written = next((figures[k] for k in CACHE_WRITE_KEYS if figures.get(k) is not None), None)
    apart = (read or 0) + (written or 0)
    if apart and total != (prompt or 0) + (completion or 0):
        prompt = (prompt or 0) + apart
    return convert.chat_usage(prompt, completion, cached=read,
                              reasoning=next((figures[k] for k in REASONING_KEYS if figures.get(k) is not None), None))


def _opened(value: Any, key: str) -> Any:
    """An input or output Langfuse kept as JSON text, parsed; text that is not JSON, or nests deeper than the app can
    walk (as a recorded exchange's body is held, lib/logs/exchanges.py), stays text."""
    if not isinstance(value, str) or value.lstrip()[:1] not in ("{", "[", '"') or nests_deeper(value):
        return value
    return convert.json_or_text(value)


def _named(observation: dict, position: int) -> str:
    """An observation in words: its place, id and name."""
    ident, name = _text(observation.get("id")), _text(observation.get("name"))
    said = f"observation {position}"
    if ident:
        said += f" {ident}"
    return f"{said} ({name})" if name else said


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _start(observation: dict) -> int | None:
    return convert.iso_microseconds(observation.get("startTime"))


def _metadata(observation: dict) -> dict:
    """The observation's `metadata` (an object, or one as JSON text)."""
    metadata = _opened(observation.get("metadata"), "metadata")
    return metadata if isinstance(metadata, dict) else {}


def _attributes(observation: dict) -> dict:
    """The OpenTelemetry span attributes Langfuse kept under `metadata.attributes`, when it was sent as a span."""
    return convert.object_at(_metadata(observation), "attributes")


def _metadata_tools(observation: dict) -> list[dict]:
    """The tools a generation offered, where its span attributes list them: `gen_ai.tool.definitions`, or
    pydantic-ai's `model_request_parameters` (function tools and output tools)."""
    attributes = _attributes(observation)
    definitions = _opened(attributes.get("gen_ai.tool.definitions"), "tools")
    if not isinstance(definitions, list):
        parameters = _opened(attributes.get("model_request_parameters"), "tools")
        parameters = parameters if isinstance(parameters, dict) else {}
        definitions = [t for key in ("function_tools", "output_tools") if isinstance(parameters.get(key), list)
                       for t in parameters[key]]
    return [convert.function_tool(t.get("name"), t.get("description"),
                                  next((t[k] for k in SCHEMA_KEYS if k in t), None))
            for t in definitions if isinstance(t, dict) and isinstance(t.get("name"), str)]


SCHEMA_KEYS = ("parameters", "parameters_json_schema", "input_schema")
"""Where a tool definition in span attributes keeps its parameter schema (GenAI, pydantic-ai, Anthropic's shape)."""


def _execution(observation: dict) -> dict:
    """A TOOL observation as a native execution entry: the call it answers by the id its span recorded, else (left
    empty) by its name, as spans are paired."""
    attributes = _attributes(observation)
    call_id = next((attributes[k] for k in ("gen_ai.tool.call.id", "tool_call.id", "ai.toolCall.id")
                    if isinstance(attributes.get(k), str)), "")
    name = next((attributes[k] for k in ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
                 if isinstance(attributes.get(k), str)), None) or _text(observation.get("name")) or ""
    failed = observation.get("level") == "ERROR"
    entry = {"tool_call_id": call_id, "name": name, "arguments": _opened(observation.get("input"), "input"),
             "output": observation.get("output"), "ok": not failed}
    start, end = _start(observation), convert.iso_microseconds(observation.get("endTime"))
    if start is not None and end is not None and end >= start:
        entry["duration_ms"] = (end - start) / 1000
    if failed and _text(observation.get("statusMessage")):
        entry["note"] = observation["statusMessage"]
    return entry
