"""MLflow traces: what `mlflow.get_trace(id).to_json()` writes (`{"info", "data": {"spans"}}`), a row of
`mlflow.search_traces()` saved as JSON (its `trace_id` beside its `spans`), or a trace's data alone (`{"spans"}`).

MLflow keeps each span's attributes as JSON text: `mlflow.spanType` says what the span is, `mlflow.spanInputs` and
`mlflow.spanOutputs` what went in and came out. A CHAT_MODEL or LLM span is a model call: its inputs are the request
body an autologger recorded (OpenAI's or Anthropic's) or the messages a framework passed (LangChain's, a ChatModel's),
its outputs the answer. One that holds another model-call span is a wrapper around it (a pyfunc ChatModel around the
provider call): the innermost call is the one sent. A TOOL span is the program running a tool, given to the call that
asked for it. One trace is one conversation, its calls in the order of the span tree (a child after its parent,
siblings by start time), so calls nested in an AGENT span keep their place.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.dialects import ANTHROPIC, OPENAI, anthropic_messages
from lib.intern import nests_deeper
from lib.logs import chat_shape as convert
from lib.logs import langfuse, responses, spans
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.text import plural

MODEL_CALLS = ("CHAT_MODEL", "LLM")
"""The `mlflow.spanType`s of a model call."""
TOOL = "TOOL"
"""The `mlflow.spanType` of a tool's execution."""
LANGCHAIN = "langchain"
"""The `mlflow.message.format` of a span MLflow's LangChain autologger wrote."""
ERROR_CODES = ("ERROR", "STATUS_CODE_ERROR")
"""A span's status code when it failed (MLflow 2 writes `status_code`, MLflow 3 `status.code`)."""

UNREAD_NOTE = ("MLflow recorded this call's inputs and outputs ({where}) in a shape Roundtrip does not read. The "
               "model, token counts and latency are as recorded; the messages cannot be shown.")
"""Said where a model-call span's messages are in no shape a converter reads."""

WRAPPED_NOTE = ("The request is the messages this span was given, not a provider request on record.{lacked}")
"""Said of a call whose inputs are a framework's messages rather than the provider's request body: what it was read
from, the origin line says (converted_from); whether a tool list went with them, the one statement where the list
would be (lib.summary.tool_list_missing), which the conversation's calls may settle."""
NO_SYSTEM = " Whether a system prompt went with them is not in the trace: none is shown or counted here."
"""Added to WRAPPED_NOTE where the messages hold no system prompt."""


class MlflowTraceFormat(LogFormat):
    """One MLflow trace (or a row of mlflow.search_traces()) and its spans."""

    name = "mlflow"
    detect_keys = frozenset({"data", "spans"})
    title = "MLflow trace"
    reads = "'info' beside 'data.spans', or a 'trace_id' beside its 'spans'"

    def __init__(self) -> None:
        self._unread: list[tuple[int, str]] = []
        """(line, the span in words) per model call whose inputs and outputs are in a shape not read."""
        self._not_calls = 0

    def detect(self, obj: dict) -> str | None:
        data = obj.get("data")
        if isinstance(obj.get("info"), dict) and isinstance(data, dict) and isinstance(data.get("spans"), list):
            return "'info' beside 'data.spans' (an MLflow trace)"
        found = obj.get("spans")
        if not isinstance(found, list):
            return None
        ours = bool(found) and _mlflow_span(found[0])
        if any(k in obj for k in ("trace_id", "request_id")) and (ours or isinstance(obj.get("trace"), str)):
            return "'spans' beside 'trace_id' (a row of mlflow.search_traces())"
        if ours:
            return "'spans' whose attributes carry 'mlflow.spanType' (an MLflow trace's data)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if isinstance(obj.get("info"), dict) and "data" in obj:
            return "has 'info' and 'data', but no 'spans' list under 'data'"
        if isinstance(obj.get("spans"), list):
            return "has 'spans', but neither a trace id beside them nor MLflow's span attributes ('mlflow.spanType')"
        return None

    def not_calls(self) -> int:
        return self._not_calls

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        info = obj.get("info") if isinstance(obj.get("info"), dict) else obj
        raw = convert.require(obj["data"] if isinstance(obj.get("data"), dict) else obj, "spans", list)
        problems: list[str] = []
        read = []
        for position, span in enumerate(raw, start=1):
            if isinstance(span, dict):
                read.append(_Span(span, position))
            else:
                problems.append(f"span {position} is {convert.describe(span)}, expected an object")
        conversation = _conversation(info, read, line)
        ordered = _tree_order(read)
        calls: list[tuple[tuple, CallRecord]] = []
        for order, span in enumerate(ordered):
            if span.type in MODEL_CALLS and not span.wraps_call:
                try:
                    record = self._record(span, line)
                except LineProblem as problem:
                    problems.append(f"{span.words()}: {problem}")
                    continue
                record.conversation = conversation
                calls.append(((order,), record))
        for order, span in enumerate(ordered):
            if span.type == TOOL:
                spans.attach_execution(span.execution(), (order,), calls)
        if not calls and not problems:
            self._not_calls += 1
            return
        yield from (record for _, record in calls)
        if problems:
            # The spans read are kept; the trace is reported for the ones that could not be.
            raise LineProblem(f"{plural(len(problems), 'span')} could not be read "
                              f"({'; '.join(problems[:3])}{'; ...' if len(problems) > 3 else ''})")

    def _record(self, span: _Span, line: int) -> CallRecord:
        inputs, outputs = span.attribute("mlflow.spanInputs"), span.attribute("mlflow.spanOutputs")
        model = _model(inputs, outputs, span)
        # A provider's request body (it names its model) is what was sent, and LangChain's messages with the tools
        # MLflow lists beside them are what LangChain sent; what other frameworks passed may not be all they sent.
        whole = (isinstance(inputs, dict) and "model" in inputs) or span.attribute("mlflow.message.format") == LANGCHAIN
        record = _provider_body(inputs, outputs, line)
        if record is None and (record := _from_langchain(inputs, outputs, line)) is not None:
            whole = True
        if record is None:
            record = langfuse._converted(inputs, outputs, model, line) \
                or _from_chat_messages(span.attribute("mlflow.chat.messages"), line)
        if record is None and span.failed and isinstance(inputs, dict) and isinstance(inputs.get("messages"), list):
            # A call that failed has its request and no answer.
            anthropic = span.attribute("mlflow.message.format") == "anthropic" or anthropic_messages.is_request(inputs)
            record = CallRecord(line=line, dialect=ANTHROPIC if anthropic else OPENAI, request=inputs)
        if record is None:
            self._unread.append((line, span.words()))
            record = _unread(model, span.usage(), span, line)
            whole = True
        if record.dialect == OPENAI and record.request is not None:
            tools = span.attribute("mlflow.chat.tools")
            if isinstance(tools, list) and tools and not record.request.get("tools"):
                record.request["tools"] = tools
            if model and not record.request.get("model"):
                record.request["model"] = model
            if record.response is not None and not record.response.get("usage") and span.usage():
                record.response["usage"] = span.usage()
        if not whole:
            _say_lacked(record)
        record.latency_ms = span.latency_ms()
        record.timestamp = convert.iso_time(span.start // 10**9, span.start % 10**9) if span.start else None
        if span.failed:
            record.error = {"status": None, "body": outputs,
                            "message": span.status_message or span.exception or "the span failed"}
            if record.dialect == OPENAI and not (record.response or {}).get("choices"):
                record.response = None
        return record

    def notes(self) -> list[Problem]:
        return convert.unread_calls_note(self._unread, "inputs and outputs in a shape Roundtrip does not read", "MLflow")


# --- spans -----------------------------------------------------------------------------------------


def _mlflow_span(span: Any) -> bool:
    """A span whose attributes are MLflow's: it names its `mlflow.spanType`."""
    return isinstance(span, dict) and isinstance(span.get("attributes"), dict) \
        and "mlflow.spanType" in span["attributes"]


class _Span:
    """One span as MLflow 2 (`context`, `parent_id`, `start_time`) or MLflow 3 (`span_id`, `parent_span_id`,
    `start_time_unix_nano`) writes it, its attributes read from their JSON text."""

    def __init__(self, raw: dict, position: int) -> None:
        context = raw.get("context") if isinstance(raw.get("context"), dict) else {}
        self.position = position
        """Its place in the trace's list, from 1."""
        self.id = _id(raw.get("span_id", context.get("span_id")))
        """Its span id."""
        self.parent = _id(raw.get("parent_span_id", raw.get("parent_id")))
        """Its parent's span id, None for the trace's root."""
        self.name = raw.get("name") if isinstance(raw.get("name"), str) else None
        """Its name (a LangChain tool span's is the tool's)."""
        self.start = convert.as_int(raw.get("start_time_unix_nano", raw.get("start_time")))
        """When it started, in nanoseconds since the epoch."""
        self.end = convert.as_int(raw.get("end_time_unix_nano", raw.get("end_time")))
        """When it ended."""
        status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
        code = status.get("code", raw.get("status_code"))
        self.failed = code in ERROR_CODES
        """Whether MLflow marked it failed."""
        message = status.get("message", raw.get("status_message"))
        self.status_message = message if isinstance(message, str) and message else None
        """Why it failed, where MLflow kept it."""
        self.exception = _exception(raw.get("events"))
        """The exception MLflow recorded as an event of the span (`exception.type: exception.message`), where it
        recorded one: the span raised, whatever its status says."""
        attributes = raw.get("attributes")
        self._attributes = attributes if isinstance(attributes, dict) else {}
        self.type = self.attribute("mlflow.spanType")
        """Its `mlflow.spanType`: CHAT_MODEL, LLM, TOOL, AGENT..."""
        self.wraps_call = False
        """Whether a model-call span is among its descendants (it is a wrapper around that call)."""
        self.placed_children: list[_Span] = []
        """Its children in the order placed, once the tree is walked."""

    def attribute(self, key: str) -> Any:
        """An attribute's value: MLflow writes each as JSON text; text that is not JSON, or nests deeper than the app
        can walk, is the value."""
        value = self._attributes.get(key)
        if not isinstance(value, str) or nests_deeper(value):
            return value
        return convert.json_or_text(value)

    def words(self) -> str:
        """The span in words: its place, and its name."""
        return f"span {self.position} ({self.name})" if self.name else f"span {self.position}"

    def latency_ms(self) -> float | None:
        if self.start is None or self.end is None or self.end < self.start:
            return None
        return (self.end - self.start) / 10**6

    def usage(self) -> dict | None:
        """`mlflow.chat.tokenUsage` as a Chat Completions usage object; None where the span has none."""
        return _usage(self.attribute("mlflow.chat.tokenUsage"))

    def execution(self) -> dict:
        """A TOOL span as a native execution entry: the call it answers by the id its output names (LangChain's
        ToolMessage), else by its name."""
        inputs, outputs = self.attribute("mlflow.spanInputs"), self.attribute("mlflow.spanOutputs")
        call_id, output, marked = "", outputs, False
        if isinstance(outputs, dict) and isinstance(outputs.get("tool_call_id"), str):
            call_id = outputs["tool_call_id"]
            output = outputs.get("content", outputs)
            marked = outputs.get("status") == "error"  # LangChain's ToolMessage of a tool that raised
        name = (outputs.get("name") if isinstance(outputs, dict) and isinstance(outputs.get("name"), str) else None) \
            or self.name or ""
        failed = self.failed or self.exception is not None or marked
        if failed and output is None and self.exception is not None:
            output = self.exception  # what the tool raised stands where it returned nothing
        entry = {"tool_call_id": call_id, "name": name, "arguments": inputs, "output": output, "ok": not failed}
        if (latency := self.latency_ms()) is not None:
            entry["duration_ms"] = latency
        said = [self.status_message or self.exception] if self.failed or self.exception is not None else []
        if marked:
            said.append("LangChain marked the ToolMessage it returned status 'error' (the tool raised)")
        if any(said):
            entry["note"] = "; ".join(filter(None, said))
        return entry


def _exception(events: Any) -> str | None:
    """The last `exception` event of a span as `type: message` (OpenTelemetry's event, which MLflow records when a
    traced function raises); its stack trace is not kept: it is never shown."""
    found = None
    for event in events if isinstance(events, list) else ():
        if not (isinstance(event, dict) and event.get("name") == "exception"):
            continue
        attributes = event.get("attributes") if isinstance(event.get("attributes"), dict) else {}
        said = ": ".join(filter(None, (_event_text(attributes.get(key))
                                       for key in ("exception.type", "exception.message"))))
        found = said or "an exception"
    return found


def _event_text(value: Any) -> str | None:
    """An event attribute's text: as written, or unquoted where MLflow wrote it as JSON text, as it writes a span's."""
    if not isinstance(value, str):
        return None
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            unquoted = json.loads(value)
        except ValueError:
            return value
        return unquoted if isinstance(unquoted, str) else value
    return value


def _id(value: Any) -> str | None:
    """A span id as written (base64 in MLflow 3, hex in MLflow 2); None for anything that is no id."""
    return value if isinstance(value, str) and value else None


def _tree_order(read: list[_Span]) -> list[_Span]:
    """The spans depth first, each after its parent, siblings by start time (then as listed); marks each model
    call that holds another. A span is placed once, where ids repeat (a trace with its ids redacted) or loop."""
    ids = {s.id for s in read if s.id is not None}
    children: dict[Any, list[_Span]] = {}
    for span in read:
        children.setdefault(span.parent if span.parent in ids and span.parent != span.id else None, []).append(span)
    for group in children.values():
        group.sort(key=_started)
    ordered: list[_Span] = []
    placed: set[int] = set()

    def walk(root: _Span) -> None:
        # By hand rather than by recursion: a trace may nest deeper than Python's stack.
        stack: list[tuple[_Span, bool]] = [(root, False)]
        while stack:
            span, closing = stack.pop()
            if closing:
                inner = any(c.wraps_call or c.type in MODEL_CALLS for c in span.placed_children)
                span.wraps_call = inner and span.type in MODEL_CALLS
                continue
            if id(span) in placed:
                continue
            placed.add(id(span))
            ordered.append(span)
            kids = [c for c in children.get(span.id, ()) if id(c) not in placed] if span.id is not None else []
            span.placed_children = kids
            stack.append((span, True))
            stack.extend((child, False) for child in reversed(kids))

    for root in children.get(None, ()):
        walk(root)
    for span in sorted(read, key=_started):  # spans whose parents loop back to them
        walk(span)
    return ordered


def _started(span: _Span) -> tuple:
    return span.start is None, span.start or 0, span.position


# --- a model call ----------------------------------------------------------------------------------


def _provider_body(inputs: Any, outputs: Any, line: int) -> CallRecord | None:
    """The request body and answer as an autologger recorded them (OpenAI's Chat Completions or Responses,
    Anthropic's Messages), kept as they are; a pyfunc ChatModel's messages and the chat.completion it made."""
    if not isinstance(inputs, dict):
        return None
    if responses.is_responses_response(outputs) and "input" in inputs:
        return next(responses.ResponsesFormat(waits=False).feed({"request": inputs, "response": outputs}, line))
    if not isinstance(inputs.get("messages"), list):
        return None
    if isinstance(outputs, dict) and outputs.get("type") == "message" and isinstance(outputs.get("content"), list):
        return CallRecord(line=line, dialect=ANTHROPIC, request=inputs, response=outputs)
    if not (isinstance(outputs, dict) and isinstance(outputs.get("choices"), list) and outputs["choices"]
            and all(isinstance(c, dict) for c in outputs["choices"])):
        return None
    if "model" in inputs:
        return CallRecord(line=line, dialect=OPENAI, request=inputs, response=outputs)
    # A ChatModel's predict, or LangChain's messages as MLflow 3 writes them: messages (and params) in, choices out.
    params = inputs.get("params") if isinstance(inputs.get("params"), dict) else {}
    request = {"messages": inputs["messages"], **{k: v for k, v in params.items() if v is not None}}
    usage = outputs.get("usage")
    if isinstance(usage, dict) and not any(isinstance(v, int) for v in usage.values()):
        # A usage of nulls counts nothing: the tokens are not in the log, not 0.
        outputs = {k: v for k, v in outputs.items() if k != "usage"}
    derived = []
    choice = outputs["choices"][0]
    if isinstance(choice, dict) and choice.get("finish_reason") is None and isinstance(choice.get("message"), dict):
        # LangChain's choices say no finish reason: the calls the answer makes say which it was.
        finish = "tool_calls" if choice["message"].get("tool_calls") else "stop"
        outputs = {**outputs, "choices": [{**choice, "finish_reason": finish}, *outputs["choices"][1:]]}
        derived = ["finish"]
    # The request is written by us from what the span was given, not a body on record.
    return CallRecord(line=line, dialect=OPENAI, request=request, response=outputs, derived=derived,
                      converted_from="mlflow")


def _from_langchain(inputs: Any, outputs: Any, line: int) -> CallRecord | None:
    """LangChain's own messages (`[[{"type": "human", ...}]]`) and its LLMResult (`generations`), as MLflow's
    LangChain autologger wrote them before it wrote Chat Completions messages."""
    if not (isinstance(inputs, list) and len(inputs) == 1 and isinstance(inputs[0], list) and inputs[0]
            and all(isinstance(m, dict) and m.get("type") in LANGCHAIN_ROLES for m in inputs[0])):
        return None
    generations = outputs.get("generations") if isinstance(outputs, dict) else None
    first = generations[0][0] if isinstance(generations, list) and generations and isinstance(generations[0], list) \
        and generations[0] else None
    if not (isinstance(first, dict) and isinstance(first.get("message"), dict)):
        return None
    answer = _langchain_message(first["message"])
    info = first.get("generation_info") if isinstance(first.get("generation_info"), dict) else {}
    finish, derived = info.get("finish_reason"), []
    if not isinstance(finish, str):
        finish, derived = ("tool_calls" if answer.get("tool_calls") else "stop"), ["finish"]
    return CallRecord(line=line, dialect=OPENAI, request={"messages": [_langchain_message(m) for m in inputs[0]]},
                      response=convert.chat_completion(answer, finish), derived=derived, converted_from="mlflow")


LANGCHAIN_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant", "system": "system",
                   "tool": "tool", "function": "function", "chat": "user"}
"""A LangChain message's `type`, and the Chat Completions role it is."""


def _langchain_message(message: dict) -> dict:
    """A LangChain message as Chat Completions writes it: its role, its text, its tool calls and call id."""
    role = message.get("role") if message.get("type") == "chat" and isinstance(message.get("role"), str) \
        else LANGCHAIN_ROLES.get(message.get("type"), "assistant")
    content = message.get("content")
    if isinstance(content, list):  # Anthropic's blocks: its tool_use blocks are the tool calls below
        content = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_use")] or None
    written: dict = {"role": role, "content": content}
    calls = [c for c in message.get("tool_calls") or () if isinstance(c, dict)]
    if calls:
        written["tool_calls"] = [convert.tool_call(c.get("id"), c.get("name"), c.get("args")) for c in calls]
        written["content"] = content or None
    if role == "tool":
        written["tool_call_id"] = message.get("tool_call_id")
    return written


def _from_chat_messages(messages: Any, line: int) -> CallRecord | None:
    """MLflow 2's `mlflow.chat.messages`: the call's messages in Chat Completions form, its answer last."""
    if not (isinstance(messages, list) and messages and all(isinstance(m, dict) for m in messages)):
        return None
    answer = messages[-1]
    if answer.get("role") != "assistant":
        return None
    finish = "tool_calls" if answer.get("tool_calls") else "stop"
    return CallRecord(line=line, dialect=OPENAI, request={"messages": messages[:-1]},
                      response=convert.chat_completion(answer, finish), derived=["finish"], converted_from="mlflow")


def _say_lacked(record: CallRecord) -> None:
    """A call read from a framework's messages: what the trace does not hold is said, not counted as none."""
    request = record.request or {}
    lacked = []
    if not any(isinstance(m, dict) and m.get("role") in ("system", "developer") for m in request.get("messages", ())) \
            and "system" not in request and "instructions" not in request:
        lacked.append("system")
    if not request.get("tools"):
        lacked.append("tools")
    if lacked:
        said = NO_SYSTEM if "system" in lacked else ""
        record.provenance = {"origin": "derived", "note": WRAPPED_NOTE.format(lacked=said), "omitted": lacked}


def _unread(model: str | None, usage: dict | None, span: _Span, line: int) -> CallRecord:
    """A model call whose messages no converter reads: its model and usage, and no messages."""
    return CallRecord(
        line=line, dialect=OPENAI, request={"messages": []},
        response=convert.chat_completion({"role": "assistant", "content": None}, None, model=model, usage=usage),
        converted_from="mlflow", latency_ms=span.latency_ms(),
        provenance={"origin": "completed", "note": UNREAD_NOTE.format(where=span.words()), "omitted": ["messages"]})


def _model(inputs: Any, outputs: Any, span: _Span) -> str | None:
    for source in (outputs, inputs):
        if isinstance(source, dict) and isinstance(source.get("model"), str) and source["model"]:
            return source["model"]
    model = span.attribute("mlflow.llm.model")
    return model if isinstance(model, str) and model else None


def _usage(value: Any) -> dict | None:
    """MLflow's token usage (`input_tokens`, `output_tokens`, `cache_read_input_tokens`) as Chat Completions'."""
    if not isinstance(value, dict):
        return None
    prompt, completion = convert.as_int(value.get("input_tokens")), convert.as_int(value.get("output_tokens"))
    if prompt is None and completion is None:
        return None
    return convert.chat_usage(prompt, completion, cached=convert.as_int(value.get("cache_read_input_tokens")))


def _conversation(info: dict, read: list[_Span], line: int) -> str:
    """The trace's name (its `mlflow.traceName` tag, else its root span's name) and id."""
    trace_id = next((info[k] for k in ("trace_id", "request_id") if isinstance(info.get(k), str) and info[k]), None)
    if trace_id is None:
        request_id = next((s.attribute("mlflow.traceRequestId") for s in read), None)
        trace_id = request_id if isinstance(request_id, str) and request_id else f"trace at line {line}"
    tags = info.get("tags") if isinstance(info.get("tags"), dict) else {}
    name = tags.get("mlflow.traceName")
    if not (isinstance(name, str) and name):
        name = next((s.name for s in read if s.parent is None and s.name), None)
    return f"{name} ({trace_id})" if name else trace_id
