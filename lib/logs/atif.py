"""Agent trajectories in ATIF (the Agent Trajectory Interchange Format, `schema_version: "ATIF-v1.x"`), as
Harbor / terminal-bench writes them per trial (`agent/trajectory.json`).

One file is one run: `steps` in order, each from the `system`, the `user` or the `agent`. An agent step is one
model call: its `message` the answer's text, its `tool_calls` (`tool_call_id`, `function_name`, `arguments`)
the calls, its `metrics` the call's own token counts, its `observation.results` what the program sent back.
A trajectory keeps steps, not requests, so each round's request is rebuilt from the steps before it. A step marked
`is_copied_context` (a continuation file repeats the context it was handed) or with `llm_call_count: 0` is history,
not a call of this file.

An observation result that names its call (`source_call_id`) is that call's result. One that names none (Harbor's
terminus-2 answers in text and sends the terminal's output back as the next prompt) is the result of the step's
only call where it made exactly one, and otherwise what the program sent back as the next user turn; a note says
how many results were paired so.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.logs.chat_shape import chat_completion, chat_usage, describe, require, tool_call
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST

SCHEMA_PREFIX = "ATIF-"
"""How every ATIF `schema_version` starts (`ATIF-v1.0` to `ATIF-v1.7` so far)."""


class AtifFormat(LogFormat):
    """An ATIF trajectory (Harbor, terminal-bench): the run's steps as one conversation, a round per agent step."""

    name = "atif"
    detect_keys = frozenset({"schema_version"})
    title = "ATIF agent trajectory (Harbor)"
    reads = "a 'schema_version' starting 'ATIF-' beside 'steps'"

    def __init__(self) -> None:
        self._notes: list[Problem] = []

    def detect(self, obj: dict) -> str | None:
        version = obj.get("schema_version")
        if isinstance(version, str) and version.startswith(SCHEMA_PREFIX) and isinstance(obj.get("steps"), list):
            return f"'schema_version' {version!r} beside 'steps' (an ATIF agent trajectory)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        steps = require(obj, "steps", list)
        agent = obj.get("agent") if isinstance(obj.get("agent"), dict) else {}
        run_model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
        session = obj.get("session_id")
        conversation = f"session {session}" if isinstance(session, str) and session else f"trajectory {line}"
        tools = _tools(agent.get("tool_definitions"))
        # An agent that reads its commands out of the model's text (terminus-2's `parser`: json or xml) has its calls
        # written by Harbor, not by the model through the API's tool calling.
        extra = agent.get("extra") if isinstance(agent.get("extra"), dict) else {}
        in_text = isinstance(extra.get("parser"), str)
        messages: list[dict] = []
        records: list[CallRecord] = []
        paired = copied = 0
        handoffs: list[str] = []
        current = conversation
        for i, step in enumerate(steps):
            where = f"steps[{i}]"
            if not isinstance(step, dict):
                raise LineProblem(f"{where} is {describe(step)}, expected a step object")
            source = require(step, "source", str, f"{where} ")
            text = _text(step.get("message"))
            if source == "system" and (handed := _handoff(step)) is not None:
                # Harbor's context summarization: the run went on in a new context (the summary, the questions and
                # answers the sub-trajectories keep), not with the history before it.
                messages = []
                handoffs.append(f"step {step.get('step_id', i + 1)} ({handed})")
                # A conversation of its own: its first request is not the last one's history grown.
                current = f"{conversation}, after handoff {len(handoffs)}"
                continue
            if source in ("system", "user"):
                messages.append({"role": source, "content": text})
                continue
            if source != "agent":
                raise LineProblem(f"{where} has source {source!r}; ATIF steps come from 'system', 'user' or 'agent'")
            message: dict = {"role": "assistant", "content": text or None}
            calls = [_call(call, f"{where}.tool_calls[{j}]") for j, call in enumerate(step.get("tool_calls") or [])]
            if calls:
                message["tool_calls"] = calls
            if step.get("is_copied_context") is True or step.get("llm_call_count") == 0:
                # Copied from the run this one continues (Harbor's continuation files), or a step no model call
                # made: what the next requests carried, not a call of this file.
                messages.append(message)
                messages.extend(_observation(step.get("observation"), calls, f"{where}.observation")[0])
                copied += step.get("is_copied_context") is True
                continue
            model = step.get("model_name") if isinstance(step.get("model_name"), str) else run_model
            metrics = step.get("metrics") if isinstance(step.get("metrics"), dict) else {}
            usage = chat_usage(metrics.get("prompt_tokens"), metrics.get("completion_tokens"),
                               cached=metrics.get("cached_tokens"))
            request: dict = {"messages": list(messages)}
            if model:
                request["model"] = model
            if tools:
                request["tools"] = tools
            derived = [TRANSCRIPT_REQUEST, "finish"] + ([] if usage else ["usage"]) + (["tool calls"] if in_text and calls
                                                                                      else [])
            records.append(CallRecord(
                line=line, dialect=OPENAI, request=request,
                response=chat_completion(_with_reasoning(message, step), "tool_calls" if calls else "stop",
                                         model=model, usage=usage),
                conversation=current, derived=derived,
                timestamp=step.get("timestamp") if isinstance(step.get("timestamp"), str) else None,
            ))
            messages.append(message)
            answered, count = _observation(step.get("observation"), calls, f"{where}.observation")
            messages.extend(answered)
            paired += count
        if not records:
            raise LineProblem("'steps' has no agent step, so there is no model call to show")
        if handoffs:
            self._notes.append(Problem(line, (
                f"the run handed off to a summarized context at {', '.join(handoffs)}: the rounds after it are a "
                "conversation of their own, their requests rebuilt from the steps after it alone; what the model was "
                "given in place of the earlier history (the summary, its questions and their answers) is in the "
                "trajectories named there."),
                conversation=conversation))
        if copied:
            self._notes.append(Problem(line, (
                f"{copied:,} agent step{'s are' if copied != 1 else ' is'} marked 'is_copied_context' (carried over "
                "from the run this trajectory continues): kept as history the requests resent, not shown as rounds."),
                conversation=conversation))
        if paired:
            self._notes.append(Problem(line, (
                f"{paired:,} observation result{'s name' if paired != 1 else ' names'} no call "
                "('source_call_id'); each was taken as the result of its step's only call."), conversation=conversation))
        yield from records

    def notes(self) -> list[Problem]:
        return self._notes


def _with_reasoning(message: dict, step: dict) -> dict:
    """The answer as the model gave it: its `reasoning_content` beside the text, as OpenAI-compatible servers
    (DeepSeek, vLLM) return it; the history the next requests resend keeps the message without it."""
    reasoning = step.get("reasoning_content")
    return {**message, "reasoning_content": reasoning} if isinstance(reasoning, str) and reasoning else message


def _handoff(step: dict) -> str | None:
    """The trajectories a system step hands the run off to (Harbor's context summarization: an observation result's
    `subagent_trajectory_ref`, or ATIF v1.7's `extra.context_management.boundary` of `replace`), in words; None for
    any other system step."""
    results = step.get("observation", {}).get("results") if isinstance(step.get("observation"), dict) else None
    refs = [ref for result in results or [] if isinstance(result, dict)
            for ref in (result.get("subagent_trajectory_ref") or []) if isinstance(ref, dict)]
    if refs:
        return ", ".join(str(ref.get("trajectory_path") or ref.get("session_id") or ref.get("trajectory_id") or "?")
                         for ref in refs)
    extra = step.get("extra") if isinstance(step.get("extra"), dict) else {}
    managed = extra.get("context_management") if isinstance(extra.get("context_management"), dict) else {}
    return "its context replaced" if managed.get("boundary") == "replace" else None


def _text(message: Any) -> str:
    """A step's `message`: a string, or (ATIF v1.6 and later) a list of content parts, whose text is kept."""
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        return "".join(p.get("text", "") for p in message if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _call(raw: Any, where: str) -> dict:
    """An ATIF tool call as a Chat Completions one: the arguments, an object in ATIF, as the JSON text the API sends."""
    if not isinstance(raw, dict):
        raise LineProblem(f"{where} is {describe(raw)}, expected a tool call object")
    name = require(raw, "function_name", str, f"{where} ")
    return tool_call(str(raw.get("tool_call_id") or ""), name, raw.get("arguments"))


def _observation(raw: Any, calls: list[dict], where: str) -> tuple[list[dict], int]:
    """The messages an agent step's observation stands for, and how many results were paired with the step's only
    call for want of a `source_call_id`."""
    results = raw.get("results") if isinstance(raw, dict) else None
    if not isinstance(results, list):
        return [], 0
    ids = {c["id"] for c in calls if c["id"]}
    messages: list[dict] = []
    paired = 0
    for j, result in enumerate(results):
        if not isinstance(result, dict):
            raise LineProblem(f"{where}.results[{j}] is {describe(result)}, expected a result object")
        content = _text(result.get("content"))
        source = result.get("source_call_id")
        if isinstance(source, str) and source in ids:
            messages.append({"role": "tool", "tool_call_id": source, "content": content})
        elif source is None and len(calls) == 1 and calls[0]["id"] and not any(
                m.get("tool_call_id") == calls[0]["id"] for m in messages):
            messages.append({"role": "tool", "tool_call_id": calls[0]["id"], "content": content})
            paired += 1
        else:
            messages.append({"role": "user", "content": content})
    return messages, paired


def _tools(definitions: Any) -> list[dict]:
    """The agent's `tool_definitions` (Chat Completions tool objects in ATIF), those that are objects."""
    if not isinstance(definitions, list):
        return []
    return [d for d in definitions if isinstance(d, dict) and isinstance(d.get("function"), dict)]
