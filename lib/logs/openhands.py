"""OpenHands: the completion logs it writes per model call, and the trajectories of events it saves per run.

- Completion logs (`log_completions=True`): one JSON file per model call under the completions folder, holding the
  `messages` sent, the litellm `response` (a Chat Completions body), the call's other `kwargs` (the tools), `args`,
  `timestamp` (seconds since the epoch) and `cost`. Where OpenHands called the model without native function calling
  it prompted the model with its tools in text, and also keeps its function-calling view of the call
  (`fncall_messages`, `fncall_response`). Each file is one call; several files, or their lines in one file, chain by
  content into conversations as request/response pairs do.
- Trajectories: the run's events (actions and observations), under `history` in an evaluation's `output.jsonl` line,
  under `trajectory` in the server's answer to GET /trajectory, or as the JSON array `save_trajectory_path` writes
  (and the web app downloads). An action a model call produced keeps that call's whole
  response under `tool_call_metadata.model_response`: each response is a round, its request rebuilt from the events
  before it, and the observations of its calls what OpenHands ran after it (its executions).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.dialects.openai_chat import is_response
from lib.logs.chat_shape import chat_results_after, describe
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST
from lib.text import plural

COMPLETION_KEYS = ("kwargs", "cost", "fncall_messages")
"""Keys only an OpenHands completion log keeps beside `messages` and `response` (LiteLLM's own logs have none)."""

NOT_SENT_KWARGS = ("extra_body",)
"""Keyword arguments OpenHands gives litellm that are no part of the request body (its proxy's metadata)."""

TEXT_TOOLS = {
    "origin": "derived",
    "note": "OpenHands called this model without native function calling: it described its tools in the prompt's text "
            "and read the calls out of the text of the answer. Shown is OpenHands' function-calling view of the call "
            "('fncall_messages', 'fncall_response'); the text sent and received is under 'messages' and 'response'. "
            "The tools were sent only as text inside the prompt: the tool list is not shown or counted here.",
    "omitted": ["tools"],
}
"""The provenance of a completion logged with function calling done in text."""

TOOL_EFFECTS = {"finish": "narration", "think": "narration", "task_tracker": "narration", "edit_file": "write"}
"""What OpenHands' own tools do (CallRecord.tool_effects): finish is the model's closing message to the person and its
own verdict on the task (task_completed); think logs a thought and changes nothing; task_tracker is the plan it shows
the person; edit_file edits a file. str_replace_editor views a file or edits it as its `command` says, and the shell
and IPython tools may do anything: none of them is declared."""

EVENT_SOURCES = ("agent", "user", "environment")
"""The `source` of an OpenHands event."""

REBUILT = ("Rebuilt from an OpenHands trajectory: the request is the run's events before this response, as messages "
           "(the system prompt and tool list from the system event, the task, each earlier response and the content "
           "of each observation), not a request on record as sent. What OpenHands adds to what it sends (the "
           "workspace and microagent context it recalls, the text around each observation) is not rebuilt. Where "
           "OpenHands called the model without native function calling (a model it does not call so, or "
           "native_tool_calling set false), the response is OpenHands' function-calling reading of the model's "
           "text, and the tools went to the model as text inside the prompt, not as the tool list shown here, which "
           "is counted in their place. The response and its usage are as recorded.")
"""Every trajectory round's provenance note."""

NO_SYSTEM_EVENT = (" This trajectory has no system event (older OpenHands versions wrote none): its system prompt was "
                   "sent, but is neither shown nor counted here.")
"""Added to the note of a trajectory that lacks the system event. Its tool list, sent with every request, is said once,
where the list would be (Provenance.sent, lib.summary.tool_list_missing)."""


class OpenHandsCompletionFormat(LogFormat):
    """One OpenHands completion log: the messages and kwargs of one model call beside its litellm response."""

    name = "openhands-completions"
    title = "OpenHands completion log"
    reads = "'messages' and 'response' beside 'kwargs' and 'cost' (or 'fncall_messages')"

    def detect(self, obj: dict) -> str | None:
        if (isinstance(obj.get("messages"), list) and isinstance(obj.get("response"), dict)
                and isinstance(obj.get("kwargs"), dict) and any(k in obj for k in ("cost", "fncall_messages"))):
            return "'messages' and 'response' beside 'kwargs' and 'cost' (an OpenHands completion log)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        kwargs = obj.get("kwargs")
        if not isinstance(kwargs, dict):
            raise LineProblem(f"'kwargs' is {describe(kwargs)}, expected the call's keyword arguments (its tools)")
        in_text = "fncall_messages" in obj or "fncall_response" in obj
        messages = obj.get("fncall_messages") if in_text else obj.get("messages")
        response = obj.get("fncall_response") if in_text else obj.get("response")
        if not isinstance(messages, list):
            key = "'fncall_messages'" if in_text else "'messages'"
            raise LineProblem(f"{key} is {describe(messages)}, expected the list of messages")
        if not is_response(response):
            key = "'fncall_response'" if in_text else "'response'"
            raise LineProblem(f"{key} is not a Chat Completions response (no choices[].message)")
        yield CallRecord(
            line=line,
            dialect=OPENAI,
            request={**{k: v for k, v in kwargs.items() if k not in NOT_SENT_KWARGS}, "messages": messages},
            response=response,
            timestamp=_when(obj.get("timestamp")),
            derived=["tool calls"] if in_text else [],
            provenance=TEXT_TOOLS if in_text else None,
            tool_effects=TOOL_EFFECTS,
        )


def _when(seconds: Any) -> str | None:
    """A completion log's `timestamp` (seconds since the epoch) as ISO time, so that calls of several files sort."""
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        try:
            return datetime.fromtimestamp(seconds, timezone.utc).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return None


def is_event(obj: Any) -> bool:
    """Whether `obj` is an OpenHands event: an action or observation with its id and source."""
    return (isinstance(obj, dict) and obj.get("source") in EVENT_SOURCES and "id" in obj
            and ("action" in obj or "observation" in obj))


def _is_history_event(obj: Any) -> bool:
    """Whether `obj` is an event of an output line's `history`: an action or observation (older OpenHands wrote them
    without id and source), not a chat message (SWE-agent's history keeps its 'action' beside a 'role')."""
    return isinstance(obj, dict) and ("action" in obj or "observation" in obj) and "role" not in obj


class OpenHandsTrajectoryFormat(LogFormat):
    """An OpenHands run's events: an evaluation output line's `history`, or a saved trajectory's array, one event
    an element."""

    name = "openhands-trajectory"
    detect_keys = frozenset({"history", "trajectory", "source"})
    title = "OpenHands trajectory"
    reads = "'history' of OpenHands events (actions and observations), or one such event"

    def __init__(self) -> None:
        self._events: list[dict] = []
        self._first_line = 0
        self._notes: list[Problem] = []
        self._not_calls = 0

    def detect(self, obj: dict) -> str | None:
        history = obj.get("history")
        if isinstance(history, list) and history and _is_history_event(history[0]):
            return "'history' of OpenHands events (an evaluation's or resolver's output line)"
        served = obj.get("trajectory")
        if isinstance(served, list) and served and is_event(served[0]) and "history" not in obj:
            return "'trajectory' of OpenHands events (the server's answer to GET /trajectory)"
        if is_event(obj):
            return "an OpenHands event (an action or observation with 'id' and 'source': a saved trajectory)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        key = "trajectory" if isinstance(obj.get("trajectory"), list) and "history" not in obj else "history"
        if isinstance(obj.get(key), list) and not is_event(obj):
            history = obj[key]
            for i, event in enumerate(history):
                problem = _damage(event)
                if problem:
                    raise LineProblem(f"{key}[{i}] {problem}")
            name = f"instance {obj['instance_id']}" if obj.get("instance_id") else f"trajectory {line}"
            records = list(self._rounds(history, line, name, _model_asked(obj), _latencies(obj.get("metrics"))))
            if not records:
                # Read and understood, but no model call is in it: counted as such, and said with where the calls are.
                self._not_calls += 1
                self._notes.append(Problem(line, _no_responses(history), conversation=name, loaded=True))
            yield from records
            return
        if not _is_history_event(obj):  # a line of another format the reader was forced on
            raise LineProblem("is no OpenHands event: it has no 'action' or 'observation', nor a 'history' or "
                              "'trajectory' list of events")
        problem = _damage(obj)
        if problem:
            raise LineProblem(f"this event {problem}")
        if not self._events:
            self._first_line = line
        self._events.append(obj)

    def finish(self) -> Iterator[CallRecord]:
        if not self._events:
            return
        records = list(self._rounds(self._events, self._first_line, "OpenHands trajectory", None))
        if not records:
            self._not_calls += len(self._events)
            self._notes.append(Problem(self._first_line, _no_responses(self._events), loaded=True))
        yield from records

    def notes(self) -> list[Problem]:
        return self._notes

    def not_calls(self) -> int:
        return self._not_calls

    def _rounds(self, events: list[dict], line: int, name: str, model: str | None,
                latencies: dict[str, float] | None = None) -> Iterator[CallRecord]:
        """One round per model response the events hold, its request the messages the events before it make (the
        events are checked by _damage); each timed where the run's metrics (`latencies`, by response id) or the
        metrics an action carries time its response."""
        latencies = dict(latencies or {})
        for event in events:
            latencies.update({k: v for k, v in _latencies(event.get("llm_metrics")).items() if k not in latencies})
        messages: list[dict] = []
        tools: list | None = None
        calls: list[tuple[int, dict]] = []
        seen: set[str] = set()
        untold = 0
        condensed = 0
        failed: set[str] = set()
        for event in events:
            response = _response_of(event)
            condensed += event.get("action") == "condensation"
            meta = event.get("tool_call_metadata")
            if event.get("action") == "system":
                args = event.get("args") if isinstance(event.get("args"), dict) else {}
                messages.append({"role": "system", "content": str(args.get("content") or event.get("message") or "")})
                tools = args.get("tools") if isinstance(args.get("tools"), list) else None
            elif event.get("action") == "message" and response is None:
                args = event.get("args") if isinstance(event.get("args"), dict) else {}
                text = str(args.get("content") or event.get("message") or "")
                if event.get("source") == "user":
                    messages.append({"role": "user", "content": text})
                else:
                    # An answer of text alone keeps no model response: its words are resent, its call is not shown.
                    messages.append({"role": "assistant", "content": text})
                    untold += 1
            elif "action" in event and response is not None:
                if str(response.get("id")) in seen:
                    continue  # the second and later calls of one response: its round is already made
                seen.add(str(response.get("id")))
                calls.append((len(messages), response))
                messages.append(response["choices"][0]["message"])
            elif "observation" in event and isinstance(meta, dict) and meta.get("tool_call_id"):
                if event.get("observation") == "error":  # OpenHands' ErrorObservation: the call could not be run
                    failed.add(str(meta["tool_call_id"]))
                messages.append({"role": "tool", "tool_call_id": str(meta["tool_call_id"]),
                                 "name": str(meta.get("function_name") or ""),
                                 "content": str(event.get("content") or "")})
        note = REBUILT if tools is not None else REBUILT + NO_SYSTEM_EVENT
        provenance = {"origin": "derived", "note": note, "omitted": [] if tools is not None else ["system", "tools"],
                      "sent": [] if tools is not None else ["tools"]}
        for n, (position, response) in enumerate(calls):
            request: dict[str, Any] = {"messages": messages[:position]}
            if tools is not None:
                request["tools"] = tools
            if model:
                request["model"] = model
            last = n == len(calls) - 1
            # The observations of the response's calls record what OpenHands ran, up to the next response; only
            # after the last did no request carry them.
            ran = [{**e, "ok": e["tool_call_id"] not in failed} for e in
                   chat_results_after(messages[position], messages[position + 1:None if last else calls[n + 1][0]])]
            yield CallRecord(
                line=line, dialect=OPENAI, request=request, response=response, conversation=name,
                derived=[TRANSCRIPT_REQUEST], provenance=provenance,
                executions=ran if last else [{k: v for k, v in e.items() if k != "note"} for e in ran],
                tool_effects=TOOL_EFFECTS, latency_ms=latencies.get(str(response.get("id"))),
            )
        if calls and condensed:
            self._notes.append(Problem(line, f"the run's condenser shortened what OpenHands sent "
                                             f"({plural(condensed, 'condensation event')}): the requests rebuilt "
                                             "after it still hold the events it left out, and lack its summary",
                                       conversation=name, loaded=True))
        if calls and untold:
            self._notes.append(Problem(line, f"{plural(untold, 'answer')} of the agent in text alone keep no model "
                                             "response in the trajectory: the words are in the later requests, but "
                                             "the calls are not shown as rounds (OpenHands' completion logs, written "
                                             "with log_completions=True, hold them)", conversation=name, loaded=True))


def _response_of(event: dict) -> dict | None:
    """The model response an action keeps under tool_call_metadata, or None."""
    meta = event.get("tool_call_metadata")
    response = meta.get("model_response") if isinstance(meta, dict) else None
    return response if isinstance(response, dict) else None


def _damage(event: Any) -> str | None:
    """What makes `event` unreadable, in words (said after 'history[i]' or 'this event'), or None."""
    if not isinstance(event, dict):
        return f"is {describe(event)}, expected an OpenHands event"
    response = _response_of(event)
    if "action" not in event or response is None:
        return None
    choices = response.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    if not (isinstance(first, dict) and isinstance(first.get("message"), dict)):
        return "keeps a tool_call_metadata.model_response that is no Chat Completions response (no choices[0].message)"
    if not isinstance(first["message"].get("tool_calls") or [], list):
        return "keeps a tool_call_metadata.model_response whose message's 'tool_calls' is not a list"
    return None


def _no_responses(events: list) -> str:
    """Why a trajectory makes no round: what it is, and the setting that writes its model calls."""
    return (f"an OpenHands trajectory of {plural(len(events), 'event')}, none of which keeps the model response it "
            "came from (no action has tool_call_metadata, as older versions wrote them), so it shows no round: its "
            "model calls are not in it. OpenHands writes each call, request and response, to its completion logs "
            "when run with log_completions=True")


def _latencies(metrics: Any) -> dict[str, float]:
    """The wall time of each model call OpenHands timed (its metrics' `response_latencies`, seconds), in
    milliseconds by response id."""
    timed = metrics.get("response_latencies") if isinstance(metrics, dict) else None
    found = {}
    for entry in timed if isinstance(timed, list) else ():
        latency = entry.get("latency") if isinstance(entry, dict) else None
        if isinstance(latency, (int, float)) and not isinstance(latency, bool) and latency >= 0 and entry.get(
                "response_id"):
            found[str(entry["response_id"])] = latency * 1000
    return found


def _model_asked(obj: dict) -> str | None:
    """The model an evaluation run asked for: its metadata's llm_config."""
    config = (obj.get("metadata") or {}).get("llm_config") if isinstance(obj.get("metadata"), dict) else None
    model = config.get("model") if isinstance(config, dict) else None
    return model if isinstance(model, str) else None
