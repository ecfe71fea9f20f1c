"""LangSmith run exports: the runs of LangChain and LangGraph programs as LangSmith keeps them.

A run is one unit of work (`run_type` llm, chat_model, tool, chain, retriever, ...) with its `inputs`, `outputs`,
`error`, times and place in its trace (`trace_id`, `parent_run_id`, `dotted_order`). A file holds them one a line
(`langsmith.Client().list_runs(...)` written out with `run.json()`), as one JSON array of them, as a run tree (a
run with its `child_runs`, as the UI and API return one), or as the API's `{"runs": [...]}` page.

Each llm run is a model call, one round: its `inputs.messages` are the LangChain messages the model class was given
(LangChain's serialized `{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs"}`, `{"type", "data"}`
or plain `{"type"/"role", "content"}` messages; a batch of lists, of which the first is read), written here as Chat
Completions messages (`converted_from: langsmith`); its answer is `outputs.generations[0][0].message` (or the text
of a completion model, or an OpenAI-shaped output from LangSmith's OpenAI wrapper), its usage the message's
`usage_metadata`, else `response_metadata.token_usage`, else the run's own token counts. The tool list is the one in
`extra.invocation_params.tools` (or `inputs.tools`): a run without one says the tool list is not in the log. Each
tool run is the program's execution of a call, given to the call it answers by the `tool_call_id` of the
ToolMessage it returned, else by its name and order in the trace (and that is said); a call with no tool run in the
export gets its execution from the ToolMessage the next llm run was given, and a ToolMessage LangChain marked
`status: "error"` (the tool raised) fails the execution, which Chat Completions' tool message has no field to say.
Each trace is a conversation,
its rounds in `dotted_order`; an agent of it that keeps messages of its own (a LangGraph supervisor's worker) is one
more.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.dialects.common import arguments_value
from lib.intern import content_key
from lib.logs import chat_shape as convert
from lib.logs import spans
from lib.logs.record import CallRecord, LineProblem, LogFormat

RUN_TYPES = frozenset({"llm", "chat_model", "tool", "chain", "retriever", "embedding", "prompt", "parser"})
"""The run types LangSmith records."""

MODEL_RUNS = frozenset({"llm", "chat_model"})
"""The run types that are a model call."""

RUN_KEYS = ("trace_id", "dotted_order", "parent_run_id")
"""Keys of a run's place in its trace: a LangSmith run has at least one of them beside its `run_type`."""

ROLES = {"human": "user", "humanmessage": "user", "user": "user", "ai": "assistant", "aimessage": "assistant",
         "aimessagechunk": "assistant", "assistant": "assistant", "system": "system", "systemmessage": "system",
         "developer": "system", "tool": "tool", "toolmessage": "tool", "function": "tool",
         "functionmessage": "tool", "chat": "user", "chatmessage": "user", "humanmessagechunk": "user"}
"""A LangChain message's type (its `type`, or the class named last in its `id`) as a Chat Completions role."""

FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
          "STOP": "stop", "MAX_TOKENS": "length"}
"""Providers' stop reasons as LangChain's response_metadata keeps them, in Chat Completions words."""

NOTE = ("The request is the messages LangChain handed the model class (the run's inputs), not the provider's request "
        "on the wire; the answer and its usage are as the run recorded them.")
"""Every round's provenance note: the origin line has said that it was converted from a run export (converted_from)."""

NO_TOOLS = (" The run holds no tool list: LangChain keeps the tools it binds under extra.invocation_params.tools, and "
            "this run has none there.")
"""Added to the note of a run whose tool list is not in the export: whether one was sent, the conversation's calls
tell, and that is said where the list would be (lib.summary.tool_list_missing)."""

BY_ORDER = ("paired by its name and order in the trace: the tool run holds no tool_call_id (its output is no "
            "ToolMessage)")
"""Said of a tool run given to its call without a call id."""

FROM_TOOL_MESSAGE = ("read from the ToolMessage the next llm run was given: the export holds no tool run for this "
                     "call")
"""Said of an execution known only by the result the program sent back for its call."""

TOOL_MESSAGE_ERROR = ("LangChain marked the ToolMessage it sent back status 'error' (the tool raised); Chat "
                      "Completions has no field for that, so the request shows it as a plain tool message")
"""Said of an execution whose result went back to the model marked as a failure."""

NO_MESSAGES = "its inputs hold no 'messages' (nor a 'prompts' list): the request is not in the export"
"""Why an llm run's request is empty."""


class LangSmithRunFormat(LogFormat):
    """LangSmith runs (`list_runs` written out as JSON, a run tree, or the API's page of runs), a round per llm run."""

    name = "langsmith"
    detect_keys = frozenset({"run_type", "runs"})
    title = "LangSmith run export"
    reads = "a run: a 'run_type' beside 'trace_id', 'dotted_order' or 'parent_run_id'"

    def __init__(self) -> None:
        self._traces: dict[str, list[tuple[int, dict]]] = {}
        """Per trace id, (line, run) for every run read, kept until the file ends: a trace's runs come in any order."""
        self._not_calls = 0

    def detect(self, obj: dict) -> str | None:
        if _is_run(obj):
            return "a 'run_type' such as llm, tool or chain beside 'trace_id', 'dotted_order' or 'parent_run_id' " \
                   "(a LangSmith run)"
        runs = obj.get("runs")
        if isinstance(runs, list) and runs and all(_is_run(r) for r in runs[:5]):
            return "'runs', each with its 'run_type' and 'trace_id' (a LangSmith page of runs)"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if _run_type(obj) in RUN_TYPES and not any(k in obj for k in RUN_KEYS):
            return "has a LangSmith 'run_type', but neither 'trace_id', 'dotted_order' nor 'parent_run_id'"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if _is_run(obj):
            runs = list(_flattened(obj))
        elif isinstance(obj.get("runs"), list) and obj["runs"]:
            runs = [r for run in obj["runs"] if isinstance(run, dict) for r in _flattened(run)]
            if not any(_is_run(r) for r in runs):
                raise LineProblem("its 'runs' hold no LangSmith run (each needs a 'run_type' beside a 'trace_id')")
        else:
            raise LineProblem("is no LangSmith run: it needs a 'run_type' such as llm, tool or chain beside a "
                              "'trace_id', 'dotted_order' or 'parent_run_id'")
        if not any(_run_type(r) in MODEL_RUNS for r in runs):
            self._not_calls += 1  # a chain, tool or retriever line: no model call, though a tool run is shown
        for run in runs:
            if _is_run(run):
                trace = _text(run.get("trace_id")) or _text(run.get("id")) or f"line {line}"
                self._traces.setdefault(trace, []).append((line, run))
        return iter(())

    def finish(self) -> Iterator[CallRecord]:
        for trace, runs in self._traces.items():
            yield from self._trace(trace, runs)
        self._traces.clear()

    def not_calls(self) -> int:
        return self._not_calls

    def _trace(self, trace: str, runs: list[tuple[int, dict]]) -> Iterator[CallRecord]:
        """The trace's llm runs as rounds in the order it ran, each with the tool runs that answered its calls; each
        agent of the trace (the llm runs that open with the same first message: a supervisor and its workers each
        keep their own) a conversation, a second one named after its llm run's parent run."""
        ordered = sorted(runs, key=lambda lr: _order(lr[1], lr[0]))
        by_id = {_text(r.get("id")): r for _, r in ordered}
        calls: list[tuple[tuple, CallRecord]] = []
        answers: list[list[dict]] = []  # per llm run in `calls`, the results its request carries
        agents: dict[str | None, str] = {}  # conversation by the first message each agent sends
        conversation = _conversation(trace, by_id)
        seen: set[str] = set()
        for position, (line, run) in enumerate(ordered):
            ident = _text(run.get("id"))
            if ident is not None and ident in seen:
                continue  # the same run twice (a tree and its flat listing): read once
            if ident is not None:
                seen.add(ident)
            key = (position,)
            if _run_type(run) in MODEL_RUNS:
                record = _record(run, line)
                messages = record.request["messages"]
                opening = content_key(messages[0]) if messages else None
                if opening not in agents:
                    parent = by_id.get(_text(run.get("parent_run_id")))
                    named = _text(parent.get("name")) if isinstance(parent, dict) else None
                    agents[opening] = f"{conversation} · {named or len(agents) + 1}" if agents else conversation
                record.conversation = agents[opening]
                calls.append((key, record))
                answers.append(_results_sent(run))
            elif _run_type(run) == "tool":
                entry = _execution(run)
                paired_by_id = bool(entry["tool_call_id"])
                spans.attach_execution(entry, key, calls)
                if not paired_by_id and entry["tool_call_id"]:
                    entry["note"] = "; ".join(filter(None, (entry.get("note"), BY_ORDER)))
        _mark_results_sent([record for _, record in calls], answers)
        yield from (record for _, record in calls)


# --- one run ---------------------------------------------------------------------------------------


def _run_type(obj: dict) -> str | None:
    """The run's `run_type`, when it is text."""
    kind = obj.get("run_type")
    return kind if isinstance(kind, str) else None


def _is_run(obj: Any) -> bool:
    return isinstance(obj, dict) and _run_type(obj) in RUN_TYPES and any(k in obj for k in RUN_KEYS)


def _flattened(run: dict) -> Iterator[dict]:
    """The run and the runs nested under its `child_runs`, depth first (a run tree), without recursion: a deep tree
    must not exhaust the stack."""
    stack = [run]
    while stack:
        current = stack.pop()
        yield current
        children = current.get("child_runs")
        if isinstance(children, list):
            stack.extend(reversed([c for c in children if isinstance(c, dict)]))


def _order(run: dict, line: int) -> tuple:
    """Where a run stands in its trace: its `dotted_order` (start time and id of each ancestor, so a parent sorts
    before its children), else its start time, else its line."""
    dotted = _text(run.get("dotted_order"))
    start = _moment(run.get("start_time"))
    return (dotted is None, dotted or "", start is None, start or 0, line)


def _conversation(trace: str, by_id: dict) -> str:
    """The trace as a conversation: `trace <id>`, after its root run's name where the export holds the root."""
    root = by_id.get(trace)
    name = _text(root.get("name")) if isinstance(root, dict) else None
    return f"{name} · trace {trace}" if name else f"trace {trace}"


def _record(run: dict, line: int) -> CallRecord:
    """One llm run as a model call."""
    inputs = run.get("inputs") if isinstance(run.get("inputs"), dict) else {}
    outputs = run.get("outputs") if isinstance(run.get("outputs"), dict) else {}
    params = convert.object_at(convert.object_at(run, "extra"), "invocation_params")
    metadata = convert.object_at(convert.object_at(run, "extra"), "metadata")
    model = next((v for v in (params.get("model"), params.get("model_name"), inputs.get("model"),
                              metadata.get("ls_model_name")) if isinstance(v, str) and v), None)
    messages = _request_messages(inputs)
    request: dict = {"messages": messages} if messages is not None else {"messages": []}
    if model is not None:
        request["model"] = model
    tools = _tools(params.get("tools") if isinstance(params.get("tools"), list) else inputs.get("tools"))
    if tools:
        request["tools"] = tools
    for key in ("temperature", "max_tokens", "top_p", "tool_choice"):
        if params.get(key) is not None:
            request[key] = params[key]
    response = _response(outputs, run, model)
    error = None
    said = _text(run.get("error"))
    if said is not None:
        error = {"status": None, "body": said, "message": _last_line(said)}
    note = NOTE + ("" if tools else NO_TOOLS)
    if messages is None:
        note += f" The run's {NO_MESSAGES}."
    start, end = _moment(run.get("start_time")), _moment(run.get("end_time"))
    return CallRecord(line=line, dialect=OPENAI, request=request, response=response, error=error,
                      latency_ms=(end - start) / 1000 if start is not None and end is not None and end >= start
                      else None,
                      converted_from="langsmith", timestamp=_text(run.get("start_time")),
                      provenance={"origin": "recorded", "note": note, "omitted": []})


def _request_messages(inputs: dict) -> list[dict] | None:
    """The messages an llm run was given, as Chat Completions messages; None when its inputs hold none."""
    raw = inputs.get("messages")
    if isinstance(raw, list) and raw and all(isinstance(m, list) for m in raw):
        raw = raw[0]  # LangChain traces a call as a batch of message lists; a model call is one of them
    if isinstance(raw, list):
        return [_message(m) for m in raw]
    prompts = inputs.get("prompts")
    if isinstance(prompts, list) and prompts and isinstance(prompts[0], str):
        return [{"role": "user", "content": prompts[0]}]  # a completion model's prompt text
    return None


def _fields(message: Any) -> tuple[str | None, dict]:
    """A LangChain message's type and its fields, whichever way it was serialized."""
    if not isinstance(message, dict):
        return None, {"content": message if isinstance(message, str) else json.dumps(message)}
    if message.get("lc") == 1 and isinstance(message.get("kwargs"), dict):
        ident = message.get("id")
        kind = ident[-1] if isinstance(ident, list) and ident and isinstance(ident[-1], str) else None
        return _text(message["kwargs"].get("type")) or kind, message["kwargs"]
    if isinstance(message.get("data"), dict) and "content" not in message:
        return _text(message.get("type")), message["data"]
    return _text(message.get("role")) or _text(message.get("type")), message


def _message(raw: Any) -> dict:
    """One LangChain message as a Chat Completions message."""
    kind, fields = _fields(raw)
    role = ROLES.get((kind or "").lower())
    if role is None and isinstance(fields.get("role"), str):
        role = ROLES.get(fields["role"].lower(), fields["role"])
    role = role or "user"
    message: dict = {"role": role, "content": _content(fields.get("content"))}
    if role == "assistant":
        calls = _tool_calls(fields)
        if calls:
            message["tool_calls"] = calls
            if message["content"] == "":
                message["content"] = None
    if role == "tool":
        call_id = fields.get("tool_call_id")
        message["tool_call_id"] = call_id if isinstance(call_id, str) else ""
    name = fields.get("name")
    if isinstance(name, str) and name and role in ("user", "tool"):
        message["name"] = name
    return message


def _content(content: Any) -> Any:
    """A LangChain message's content as Chat Completions content: text, or its text and image parts (a tool_use
    block an Anthropic model returns is the message's tool call, read from its `tool_calls`)."""
    if content is None or isinstance(content, str):
        return content if content is not None else ""
    if not isinstance(content, list):
        return json.dumps(content)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append({"type": "text", "text": block["text"]})
        elif isinstance(block, dict) and block.get("type") == "image_url":
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("tool_use", "function_call", "tool_call"):
            continue
        else:
            parts.append({"type": "text", "text": json.dumps(block)})
    if all(p.get("type") == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _tool_calls(fields: dict) -> list[dict]:
    """An AI message's tool calls as Chat Completions tool calls: LangChain's own `tool_calls` ({name, args, id}),
    else the provider's under `additional_kwargs`."""
    calls = fields.get("tool_calls")
    if isinstance(calls, list) and calls:
        return [{"id": c.get("id") if isinstance(c.get("id"), str) else "", "type": "function",
                 "function": {"name": c.get("name") if isinstance(c.get("name"), str) else "",
                              "arguments": json.dumps(c.get("args") if c.get("args") is not None else {})}}
                for c in calls if isinstance(c, dict)]
    extra = convert.object_at(fields, "additional_kwargs").get("tool_calls")
    if isinstance(extra, list):
        return [c for c in extra if isinstance(c, dict) and isinstance(c.get("function"), dict)]
    return []


def _tools(tools: Any) -> list[dict]:
    """A tool list as Chat Completions tools: OpenAI's shape as it is, Anthropic's (`input_schema`) and bare
    functions converted."""
    if not isinstance(tools, list):
        return []
    found = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):
            found.append(tool)
        elif isinstance(tool.get("name"), str):
            found.append(convert.function_tool(tool["name"], tool.get("description"),
                                               tool.get("input_schema", tool.get("parameters"))))
    return found


def _response(outputs: dict, run: dict, model: str | None) -> dict | None:
    """The answer an llm run recorded, as a `chat.completion`; None when it recorded none."""
    if isinstance(outputs.get("choices"), list) and outputs["choices"]:
        body = dict(outputs)  # LangSmith's OpenAI wrapper keeps the completion itself
        usage = body.pop("usage_metadata", None)
        if "usage" not in body and isinstance(usage, dict):
            body["usage"] = _usage(usage) or _run_usage(run)
        return body
    generation = None
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        generation = first[0] if isinstance(first, list) and first else first
    if not isinstance(generation, dict):
        message = outputs.get("messages") or outputs.get("output")
        if isinstance(message, list) and message:
            message = message[-1]
        if not isinstance(message, dict):
            return None
        generation = {"message": message}
    fields = _fields(generation["message"])[1] if "message" in generation else {"content": generation.get("text")}
    answer = _message({"type": "ai", **{k: v for k, v in fields.items() if k != "type"}})
    metadata = convert.object_at(fields, "response_metadata")
    info = convert.object_at(generation, "generation_info")
    reason = metadata.get("finish_reason") or metadata.get("stop_reason") or info.get("finish_reason")
    finish = FINISH.get(reason, reason) if isinstance(reason, str) else (
        "tool_calls" if answer.get("tool_calls") else "stop")
    usage = (_usage(fields.get("usage_metadata")) or _openai_usage(metadata.get("token_usage"))
             or _openai_usage(convert.object_at(outputs, "llm_output").get("token_usage")) or _run_usage(run))
    answered = metadata.get("model_name") or metadata.get("model") or model
    return convert.chat_completion(answer, finish, id=metadata.get("id") or fields.get("id"),
                                   model=answered if isinstance(answered, str) else None, usage=usage)


def _usage(usage: Any) -> dict | None:
    """LangChain's `usage_metadata` (input_tokens, output_tokens and their details) as a Chat Completions usage."""
    if not isinstance(usage, dict):
        return None
    read = convert.object_at(usage, "input_token_details").get("cache_read")
    reasoning = convert.object_at(usage, "output_token_details").get("reasoning")
    # A cache_read of 0 is a count the log holds; a usage without one holds none (RoundSummary.cached_if_known).
    return convert.chat_usage(usage.get("input_tokens"), usage.get("output_tokens"), cached=read,
                              reasoning=reasoning)


def _openai_usage(usage: Any) -> dict | None:
    """A provider's token usage under `response_metadata.token_usage` (OpenAI's shape)."""
    if not isinstance(usage, dict):
        return None
    cached = convert.object_at(usage, "prompt_tokens_details").get("cached_tokens")
    return convert.chat_usage(usage.get("prompt_tokens"), usage.get("completion_tokens"), cached=cached)


def _run_usage(run: dict) -> dict | None:
    """The run's own token counts (`prompt_tokens`, `completion_tokens`), which LangSmith works out for llm runs."""
    if not (convert.as_int(run.get("prompt_tokens")) or convert.as_int(run.get("completion_tokens"))):
        return None
    return convert.chat_usage(run.get("prompt_tokens"), run.get("completion_tokens"))


def _execution(run: dict) -> dict:
    """A tool run as a native execution entry: its call id from the ToolMessage it returned, where it returned one."""
    inputs = run.get("inputs") if isinstance(run.get("inputs"), dict) else {}
    outputs = run.get("outputs") if isinstance(run.get("outputs"), dict) else {}
    arguments: Any = inputs.get("input") if set(inputs) == {"input"} else inputs
    output = outputs.get("output", outputs if outputs else None)
    call_id, status = "", None
    kind, fields = _fields(output) if isinstance(output, dict) else (None, {})
    if isinstance(output, dict) and ROLES.get((kind or "").lower()) == "tool":
        call_id = fields.get("tool_call_id") if isinstance(fields.get("tool_call_id"), str) else ""
        output, status = fields.get("content"), fields.get("status")
    if call_id == "" and isinstance(inputs.get("tool_call_id"), str):
        call_id = inputs["tool_call_id"]
    said = _text(run.get("error"))
    failed = said is not None or status == "error"
    entry = {"tool_call_id": call_id, "name": _text(run.get("name")) or "",
             "arguments": arguments, "output": _last_line(said) if said is not None and output is None else output,
             "ok": not failed}
    start, end = _moment(run.get("start_time")), _moment(run.get("end_time"))
    if start is not None and end is not None and end >= start:
        entry["duration_ms"] = (end - start) / 1000
    if said is not None:
        entry["note"] = f"the tool run failed: {_last_line(said)}"
    return entry


def _results_sent(run: dict) -> list[dict]:
    """The ToolMessages an llm run was given, each as `{"id", "content", "failed"}`: `failed` where LangChain marked
    it `status: "error"` (its ToolNode does so when the tool raised), a field Chat Completions has no place for."""
    inputs = run.get("inputs") if isinstance(run.get("inputs"), dict) else {}
    raw = inputs.get("messages")
    if isinstance(raw, list) and raw and all(isinstance(m, list) for m in raw):
        raw = raw[0]
    found = []
    for message in raw if isinstance(raw, list) else ():
        kind, fields = _fields(message)
        call_id = fields.get("tool_call_id")
        if ROLES.get((kind or "").lower()) == "tool" and isinstance(call_id, str) and call_id:
            found.append({"id": call_id, "content": _message(message)["content"],
                          "failed": fields.get("status") == "error"})
    return found


def _mark_results_sent(records: list[CallRecord], answers: list[list[dict]]) -> None:
    """What the requests after a call sent back for it, carried to the call's execution: a result LangChain marked
    as an error fails the execution; a call the export holds no tool run for gets its execution from that result,
    so a failure is not lost where only the llm runs were exported. Only the first request to carry a result counts:
    later ones resend it."""
    handled: set[str] = set()
    for position, sent in enumerate(answers):
        for result in sent:
            if result["id"] in handled:
                continue
            asked = next((r for r in reversed(records[:position]) if result["id"] in _calls_of(r)), None)
            if asked is None:
                continue
            handled.add(result["id"])
            ran = next((e for e in asked.executions if e["tool_call_id"] == result["id"]), None)
            if ran is None:
                call = _calls_of(asked)[result["id"]]
                asked.executions.append({"tool_call_id": result["id"], "name": call.get("name") or "",
                                         "arguments": arguments_value(call.get("arguments")),
                                         "output": result["content"],
                                         "ok": not result["failed"], "note": FROM_TOOL_MESSAGE})
                ran = asked.executions[-1]
            if result["failed"]:
                ran["ok"] = False
                ran["note"] = "; ".join(filter(None, (ran.get("note"), TOOL_MESSAGE_ERROR)))


def _calls_of(record: CallRecord) -> dict[str, dict]:
    """Call id -> the call's function (`name`, `arguments`) for the calls a record's response made."""
    choices = (record.response or {}).get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) \
        else None
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return {c["id"]: c["function"] for c in calls or () if isinstance(c, dict) and isinstance(c.get("id"), str)
            and isinstance(c.get("function"), dict)}


# --- fields ----------------------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _last_line(text: str) -> str:
    """An error's last line (its exception and message): LangSmith keeps the whole Python traceback, which is not
    shown."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else text


def _moment(value: Any) -> int | None:
    """A LangSmith time (ISO 8601, naive meaning UTC; or epoch milliseconds, as the JS SDK writes) as microseconds
    since the epoch; None when it is neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value * 1000)
    return convert.iso_microseconds(value)
