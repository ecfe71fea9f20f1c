"""The tool loop, done right, as a state machine that can wait for a person between two steps.

Each `step()` does one round: it sends the request, branches on the stop signal, appends the
assistant turn unchanged and answers every call, all in one message, each with its id. A call
to a tool that writes stops the step with the exact call pending; `approve(id)` or `decline(id)`
answers it and the loop goes on. A decision belongs to that one call (its round, position and
content), and a call id the model already used in the conversation is answered with an error,
never run: a model that repeats an id must not inherit an earlier approval. `stop()` ends the run
between two steps and marks the trace. Every change is written to the trace file at once, so a
reader sees the trace grow. Nothing here raises on what a model or a provider sends.

One step runs at a time: the Live page steps the runner from its script thread, and a click while a
model call is on its way starts a second script run (Streamlit's fast reruns) while the first still
waits for the answer. A second `step()` waits for the first and then does the next step, never the
same request again; a `stop()` pressed meanwhile ends the run once the step in flight is done, its
answer recorded, since a call already sent cannot be called back.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Literal

from lib.dialects.common import Pools
from lib.failures import is_replay_miss, tries_words, unmade_words
from lib.live.wire import DIALECTS, Answer, RequestOptions, tools_in_prompt
from lib.live.providers import Provider, provider_message
from lib.live.tools import Result, Toolbox, repeated_id
from lib.live.tracefile import TraceFile
from lib.model import AWAITING, REQUEST_HEADERS, ProviderError, ToolCallPart, Trace
from lib.text import plural, shorten

NOT_RUN_STOPPED = "Not executed: the person running the program stopped the run before this call ran."
"""The output recorded for a call left unanswered by a Stop; it never reaches the model."""

NARRATION_REASK = ("(A note from the app, not from the person asking.) You ended your turn without calling a tool, "
                   "and no tool result is in this conversation. Call a tool to answer, or say that you cannot.")
"""The one re-ask the narration guard sends when a model answers with no data behind it."""


@dataclass(frozen=True)
class LoopOptions:
    """How far the loop may go."""

    max_rounds: int = 8
    """The hard cap on model calls."""
    narration_guard: bool = True
    """Re-ask once when the model ends its turn with no call and no tool result behind its words."""
    max_corrections: int = 2
    """Refused calls a tool may be corrected after; one more refusal stops the run."""


@dataclass(frozen=True)
class Teaching:
    """Mistakes made on purpose, to see what they do. Each one is marked in the trace (`teaching`)."""

    drop_result: bool = False
    """Leave the last result of the first tool round out of the next request."""
    empty_result: bool = False
    """Send the first call's result as an empty string."""
    tools_in_system: bool = False
    """Paste the tool list into the system prompt instead of the `tools` field."""


@dataclass(frozen=True)
class Status:
    """Where the run stands."""

    state: Literal["running", "needs-approval", "done"]
    """`running`: call step() again; `needs-approval`: approve or decline `pending`; `done`: finished."""
    message: str
    """What happened last, for a person."""
    pending: ToolCallPart | None = None
    """The exact call waiting for a decision."""
    outcome: Literal["answered", "error", "no-recording", "refused", "capped", "gave-up", "stopped",
                     "cancelled"] | None = None
    """How a finished run ended: `stopped` by the model's stop signal, `cancelled` by a person's Stop (pressed, or
    asked for before the run), `no-recording` when Replay had no recorded answer and `refused` when Roundtrip would
    not send the request (so no call was made either way)."""


@dataclass(frozen=True)
class _Queued:
    """A call of the current round waiting to be answered."""

    key: tuple
    """The call itself: round, position in the response, id, name and arguments as written."""
    call: ToolCallPart
    """The call as the model wrote it."""
    repeated: bool
    """Its id was used before in this conversation, so it is refused without running."""


@dataclass
class _Round:
    """The round being built; written out as its trace line after every change."""

    index: int
    request: dict
    started_at: str
    teaching: list[str]
    response: dict | None = None
    error: dict | None = None
    latency_ms: float | None = None
    executions: list[dict] = field(default_factory=list)
    guard: str | None = None
    stopped: dict | None = None
    attempts: tuple = ()
    awaiting: str | None = None
    headers: dict = field(default_factory=dict)
    """The request headers that shape the call the provider sent beside the body (a fork's, taken from its parent's
    log: lib.fork.resent_headers); written as REQUEST_HEADERS only when there are some."""

    def line(self) -> dict:
        line = {"kind": "round", "index": self.index, "request": self.request}
        if self.response is not None:
            line["response"] = self.response
        if self.error is not None:
            line["error"] = self.error
        line["executions"] = self.executions
        if self.latency_ms is not None:
            line["latency_ms"] = self.latency_ms
        line["started_at"] = self.started_at
        if self.teaching:
            line["teaching"] = self.teaching
        if self.guard:
            line["guard"] = self.guard
        if self.stopped:
            line["stopped"] = self.stopped
        if self.awaiting is not None:
            line[AWAITING] = self.awaiting
        if len(self.attempts) > 1:  # the SDK's retries: the request went out more than once
            line["attempts"] = list(self.attempts)
        if self.headers:
            line[REQUEST_HEADERS] = dict(self.headers)
        return line


class Runner:
    """One live run: a conversation, a provider, the tools, and the trace file it writes."""

    def __init__(self, provider: Provider, toolbox: Toolbox, options: RequestOptions, system: str, question: str,
                 trace: TraceFile, loop: LoopOptions = LoopOptions(), teaching: Teaching = Teaching()):
        self._begin(provider, toolbox, trace, loop)
        self.options, self.teaching = options, teaching
        self._tools: list | None = self.dialect.tool_list(toolbox.tools.values())
        if teaching.tools_in_system:
            system, self._tools = tools_in_prompt(system, self._tools), None
        self._system, self.messages = self.dialect.opening(system, question)

    @classmethod
    def resumed(cls, provider: Provider, toolbox: Toolbox, body: dict, index: int, trace: TraceFile,
                loop: LoopOptions = LoopOptions()) -> Runner:
        """A run that starts by sending `body` as round `index` (a fork): its messages, tools and settings go as
        they are, and each later request is the same body with the conversation grown. `loop.max_rounds` counts
        the rounds of this run only. Call ids already in the conversation count as used."""
        runner = cls.__new__(cls)
        runner._begin(provider, toolbox, trace, loop)
        runner.options, runner.teaching, runner._template = None, Teaching(), body
        runner.messages = list(body.get("messages") or [])
        runner._first = index
        runner.status = Status("running", f"Ready to send request {index}.")
        history = runner.dialect.dialect.read_request(body, Pools()).messages
        runner._used_ids = {part.id for message in history for part in message.tool_calls}
        runner._results_sent = any(message.tool_results for message in history)
        return runner

    def _begin(self, provider: Provider, toolbox: Toolbox, trace: TraceFile, loop: LoopOptions) -> None:
        self.provider, self.toolbox, self.trace, self.loop = provider, toolbox, trace, loop
        self.dialect = DIALECTS[provider.dialect]
        self._template: dict | None = None
        self._first = 1
        self.status = Status("running", "Ready to send request 1.")
        self._round: _Round | None = None
        self._queue: list[_Queued] = []
        self._answers: list[Answer] = []
        self._decisions: dict[tuple, tuple[str, str]] = {}
        self._used_ids: set[str] = set()
        self._refusals: Counter[str] = Counter()
        self._next_marks: list[str] = []
        self._nudged = self._results_sent = self._emptied = self._dropped = False
        self._one_step = threading.RLock()
        self._stepping = self._stop_pressed = False

    @property
    def in_flight(self) -> bool:
        """A step is under way (in another thread, a model call may be waiting for its answer)."""
        return self._stepping

    @property
    def sends_next(self) -> bool:
        """The step in flight waits for a model's answer, or, with none in flight, the next step sends a request (no
        call of the round is left to answer): what a page says while it waits."""
        if self._stepping:
            return self._round is not None and self._round.response is None and self._round.error is None
        return self.status.state == "running" and not self._queue

    @property
    def stopping(self) -> bool:
        """Stop was pressed while a step was in flight: the run ends as soon as that step is done."""
        return self._stop_pressed and self.status.state != "done"

    @property
    def rounds(self) -> int:
        """How many rounds have been started."""
        return self._round.index if self._round else self._first - 1

    def step(self) -> Status:
        """Do the next round (or finish the current one's calls); stop at a decision or the end."""
        with self._one_step:
            if self._stop_pressed:  # pressed while the step before was in flight
                return self._stop_now()
            if self.status.state != "running":
                return self.status
            self._stepping = True
            try:
                status = self._answer_calls() if self._queue else self._call_model()
            finally:
                self._stepping = False
            return self._stop_now() if self._stop_pressed else status

    def run(self, limit: int = 100) -> Status:
        """Step until the run needs a person or is done."""
        for _ in range(limit):
            if self.step().state != "running":
                break
        return self.status

    def stop(self, asked: bool = False) -> Status:
        """End the run between two steps: calls still waiting are recorded as not run; nothing more is sent.
        `asked`: the stop was chosen before the run (stop after this round), not pressed during it. Pressed while a
        step is in flight in another thread, the run ends when that step is done (`stopping` says so meanwhile)."""
        if not self._one_step.acquire(blocking=False):
            self._stop_pressed = True
            return self.status
        try:
            return self._stop_now(asked)
        finally:
            self._one_step.release()

    def _stop_now(self, asked: bool = False) -> Status:
        self._stop_pressed = False
        if self.status.state == "done":
            return self.status
        waiting = [queued.call for queued in self._queue]
        self._queue = []
        if self._round is not None:
            self._round.awaiting = None  # stopped: recorded as not run below, no longer waiting
        if self._round is None:
            return self._finish("cancelled", "Stopped before the first request was sent.")
        for call in waiting:
            self._round.executions.append({"tool_call_id": call.id, "name": call.name, "arguments": call.arguments,
                                           "output": NOT_RUN_STOPPED, "ok": False,
                                           "note": "the run was stopped here; no result was sent to the model"})
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._round.stopped = {"at": now, "by": "person", "unanswered_calls": len(waiting)}
        self.trace.put(self._round.line())
        unanswered = f"; {len(waiting)} call(s) were left unanswered and not run" if waiting else ""
        stopped = (f"Stopped after round {self._round.index} as asked" if asked
                   else f"Stopped by you after round {self._round.index}")
        return self._finish("cancelled", f"{stopped}{unanswered}.")

    def approve(self, call_id: str) -> Status:
        """Run the pending call and go on answering the round's calls."""
        return self._decide(call_id, "approved", "")

    def answer(self, call_id: str, text: str) -> Status:
        """Answer the pending call with a result a person typed (a fork of an imported trace) and go on."""
        return self._decide(call_id, "typed", text)

    def decline(self, call_id: str, note: str = "") -> Status:
        """Answer the pending call with "not executed" (and the person's note) and go on."""
        return self._decide(call_id, "declined", note)

    # --- one round ---------------------------------------------------------------------------------

    def _call_model(self) -> Status:
        if self.rounds - self._first + 1 >= self.loop.max_rounds:
            return self._finish("capped", f"Stopped at the cap of {plural(self.loop.max_rounds, 'round')}.")
        marks = (["tools-in-system-prompt"] if self.teaching.tools_in_system else []) + self._next_marks
        self._next_marks = []
        body = ({**self._template, "messages": list(self.messages)} if self._template is not None
                else self.dialect.body(self.options, self._system, list(self.messages), self._tools))
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        round_ = self._round = _Round(self.rounds + 1, body, now, marks,
                                      headers=dict(getattr(self.provider, "headers", None) or {}))
        self.trace.put(round_.line())
        exchange = self.provider.send(body)
        round_.request, round_.latency_ms, round_.attempts = exchange.request, exchange.latency_ms, exchange.attempts
        missing = self.dialect.turn_missing(exchange.response) if exchange.error is None else None
        if missing is not None:
            # A server that answers 200 with no model turn in the body (a gateway's error object, an empty choices
            # list, JSON cut off) has not answered: read as a turn, its body would go back to the model as the
            # model's own message. The status it came with is kept: a server did answer.
            exchange = replace(exchange, response=None, error={
                "status": exchange.status, "message": _sent_instead(exchange.response), "body": exchange.response})
        if exchange.error is not None:
            round_.error = exchange.error
            self.trace.put(round_.line())
            # The trace keeps the provider's words as it said them; the status is the response's, said here once.
            status = exchange.error["status"]
            said = f"HTTP {status}: {exchange.error['message']}" if status else exchange.error["message"]
            if missing is not None:
                said = (f"HTTP {status}, with" if status else "An answer with") + (
                    f" no model turn in the body ({missing}): {exchange.error['message']}")
            if len(exchange.attempts) > 1 and any(exchange.attempts):  # a timeout's own words count its tries
                said += f" (the SDK sent the request {len(exchange.attempts)} times: {tries_words(exchange.attempts)})"
            error = ProviderError(status, exchange.error["message"], exchange.error)
            if (unmade := unmade_words(error)) is not None:
                # No provider saw the request, so nothing failed; a refusal still says why, a replay miss says it all.
                if is_replay_miss(error):
                    return self._finish("no-recording", f"Round {round_.index}: {unmade}.")
                return self._finish("refused", f"Round {round_.index}: {unmade}. {said}")
            return self._finish("error", f"Round {round_.index} failed: {said}")
        round_.response = exchange.response
        self.trace.put(round_.line())
        response = self.dialect.read(exchange.response)
        # The assistant turn goes back exactly as it came, text beside the calls included.
        self.messages.append(response.message.raw)
        calls = response.message.tool_calls
        if response.stop == "tool_calls" and calls:
            self._queue, self._answers = self._enqueue(round_.index, calls), []
            return self._answer_calls()
        if calls:
            return self._finish("stopped", f"Round {round_.index} ended with {response.finish_reason!r} and "
                                           f"{len(calls)} call(s) beside it; the loop follows the stop signal, so "
                                           "none was run.")
        if response.stop == "end" and self.loop.narration_guard and not self._nudged and not self._results_sent:
            # Words with no call and no tool result behind them: ask once, never in a loop.
            self._nudged, round_.guard = True, "narration-reask"
            self.messages.append(self.dialect.user(NARRATION_REASK))
            self.trace.put(round_.line())
            return self._running(f"Round {round_.index} answered with no call and no data: re-asking once.")
        if response.stop == "end":
            return self._finish("answered", f"The model answered in round {round_.index}.")
        return self._finish("stopped", f"Round {round_.index} stopped with {response.finish_reason!r}"
                                       + (": the output limit cut it off." if response.stop == "length" else "."))

    def _enqueue(self, index: int, calls: tuple[ToolCallPart, ...]) -> list[_Queued]:
        queued = []
        for position, call in enumerate(calls):
            queued.append(_Queued((index, position, call.id, call.name, call.arguments_raw), call,
                                  call.id in self._used_ids))
            self._used_ids.add(call.id)
        return queued

    def _answer_calls(self) -> Status:
        while self._queue:
            queued = self._queue[0]
            call = queued.call
            refused = repeated_id(call) if queued.repeated else self.toolbox.check(call)
            question = self.toolbox.ask(call) if refused is None and queued.key not in self._decisions else None
            if question:
                self._round.awaiting = call.id  # in the trace too: a copy taken while it waits says so
                self.trace.put(self._round.line())
                return self._set(Status("needs-approval", question, pending=call))
            decision, note = self._decisions.get(queued.key, (None, ""))
            self._record(call, refused or self.toolbox.run(call, decision, note))
            self._queue.pop(0)
        return self._send_results()

    def _record(self, call: ToolCallPart, result: Result) -> None:
        entry, content = dict(result.execution), result.content
        if result.rejected:
            self._refusals[call.name] += 1
        if self.teaching.empty_result and not self._emptied:
            self._emptied, content = True, ""
            entry["note"] = _join(entry.get("note"), "teaching switch: the model was sent an empty result instead")
            self._next_marks.append("empty-tool-result")
        self._round.executions.append(entry)
        self._answers.append(Answer(call.id, content, is_error=entry.get("ok") is False))
        self.trace.put(self._round.line())

    def _send_results(self) -> Status:
        answers = self._answers
        if self.teaching.drop_result and not self._dropped:
            self._dropped, answers = True, answers[:-1]
            dropped = self._round.executions[-1]
            dropped["note"] = _join(dropped.get("note"), "teaching switch: this result was not sent to the model")
            self._next_marks.append("dropped-tool-result")
        self.messages.extend(self.dialect.results(answers))
        self._results_sent = True
        self.trace.put(self._round.line())
        over = [name for name, count in self._refusals.items() if count > self.loop.max_corrections]
        if over:
            return self._finish("gave-up", f"Stopped: {over[0]} was refused {self._refusals[over[0]]} times, and a "
                                           f"tool gets at most {self.loop.max_corrections} corrections.")
        return self._running(f"Round {self.rounds}: {len(self._answers)} call(s) answered; request "
                             f"{self.rounds + 1} goes next.")

    def _decide(self, call_id: str, decision: str, note: str) -> Status:
        with self._one_step:
            pending = self.status.pending
            if self.status.state != "needs-approval" or pending is None or pending.id != call_id:
                raise ValueError(f"call {call_id} is not waiting for a decision")
            self._decisions[self._queue[0].key] = (decision, note)
            self._round.awaiting = None
            self.status = Status("running", f"Call {call_id} {decision}.")
            return self._answer_calls()

    def _running(self, message: str) -> Status:
        return self._set(Status("running", message))

    def _finish(self, outcome: str, message: str) -> Status:
        return self._set(Status("done", message, outcome=outcome))

    def _set(self, status: Status) -> Status:
        self.status = status
        return status


SENT_INSTEAD_CHARS = 1000
"""How much of a body that held no model turn the error message repeats; the trace's error body keeps it whole."""


def _sent_instead(body: object) -> str:
    """What a server sent in place of a model turn, as its error message: its own words if it wrote an error, else
    the body itself, cut short."""
    text = provider_message(body, "") if isinstance(body, dict) else ""
    if not text:
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return shorten(text, SENT_INSTEAD_CHARS) if text.strip() else "(an empty body)"


def _join(note: str | None, more: str) -> str:
    return f"{note}; {more}" if note else more


def nothing_to_keep(trace: Trace, running: bool) -> str | None:
    """Why a run's trace is not yet worth downloading or saving, or None when it is: it holds no round whose call came
    back (an answer or a failure). While request 1 is on its way the file holds the scenario and a request with no
    answer; a download then kept no round of the run, and a saved copy listed beside the bundled traces showed none."""
    if any(r.response is not None or r.error is not None for r in trace.rounds):
        return None
    if running:
        return ("Nothing to keep yet: no call of this run has come back. Download, Save into traces/ and Open in the "
                "explorer come once request 1's answer is in.")
    return "Nothing to keep: the run ended before any call came back, so its trace holds no round."
