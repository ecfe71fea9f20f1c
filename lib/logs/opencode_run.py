"""OpenCode's run output: what `opencode run --format json` prints, one event a line.

Each line is `{"type", "timestamp", "sessionID", "part"}` (OpenCode's `cli/cmd/run.ts`): `run.ts` prints the parts of
its session as they finish, the same parts an export holds (lib/logs/opencode.py), under an event type: `step_start`
and `step_finish` (a model call's start, and its end with that call's `tokens` and `reason`), `text`, `reasoning`,
and `tool_use` (a tool part once it ran, its call and its output together); an `error` line carries the session's
error instead of a part. Each step is a round, its request rebuilt from the events before it (TRANSCRIPT_REQUEST):
the earlier steps' answers and their tools' outputs (`run.ts` prints a part once it has ended, so a step's blocks are
in the order they ended). The output holds neither the person's prompt (the message given to `opencode run`), nor the
earlier turns of a session it continued (`--session`, `--continue`), nor the model, nor OpenCode's system prompt and
tool list: every round says so, never that they were empty.
"""

from __future__ import annotations

from typing import Iterator

from lib.dialects import ANTHROPIC
from lib.logs import chat_shape as convert
from lib.logs.opencode import (STOP_REASONS, TOOL_EFFECTS, add_turn, step_blocks, step_executions, step_results,
                               step_usage)
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST

EVENT_TYPES = frozenset({"step_start", "step_finish", "text", "reasoning", "tool_use", "error"})
"""The line types `opencode run --format json` prints."""

PROVENANCE = {
    "origin": "derived",
    "note": "The request is the conversation before this model call as the output's events tell it (the earlier "
            "calls' answers, and each tool's output as the result of its call), not a request on record as sent. The "
            "person's prompt (the message given to opencode run) is not in the output, nor are a continued session's "
            "earlier turns: every request shown lacks them. OpenCode does not print its system prompt: it was sent, "
            "but is neither shown nor counted here. The answer, its calls and its usage are as printed; the output "
            "does not name the model.",
    "omitted": ["system", "tools"],
    "sent": ["tools"],
}
"""Every round's provenance: what the run output lacks, said where the round is shown (lib/provenance.py). OpenCode
sends its tool list with every request and never prints it: said once, where the list would be (`sent`); what the
output was converted from, and into, the origin line says (converted_from)."""

NO_USAGE = " The output ends before this call's step_finish event, so its usage is not in the log."
"""Added to the note of a step the output does not finish."""

FAILED = " OpenCode printed an error before this call finished ({name}): {said}."
"""Added to the note of a step an `error` line ended."""

NO_PROMPT = ("the person's prompt (the message given to opencode run) is not in its output: the requests shown "
             "lack it")
"""Said once per session."""

LOOSE_ERROR = "OpenCode printed an error outside any model call ({name}): {said}"
"""Said of an `error` line with no step open."""


class OpenCodeRunFormat(LogFormat):
    """OpenCode's `run --format json` output, one round per model call (step)."""

    one_file = True

    name = "opencode-run-json"
    detect_keys = frozenset({"type"})
    title = "OpenCode run --format json output"
    reads = "a 'type' such as 'step_start' or 'tool_use' beside 'sessionID', 'timestamp' and a 'part'"

    def __init__(self) -> None:
        self._turns: dict[str, list[dict]] = {}
        """Per session, the conversation so far as the events tell it."""
        self._open: dict[str, tuple[int, list[dict]]] = {}
        """Per session, the step under way: the line of its first event and its parts."""
        self._pending: dict[str, CallRecord] = {}
        """Per session, its last finished round, held back until a later event shows whether a request followed."""
        self._notes: list[Problem] = []
        self._not_calls = 0

    def detect(self, obj: dict) -> str | None:
        if (obj.get("type") in EVENT_TYPES and isinstance(obj.get("sessionID"), str) and "timestamp" in obj
                and (isinstance(obj.get("part"), dict) or isinstance(obj.get("error"), dict))):
            return ("a 'type' such as step_start or tool_use beside 'sessionID', 'timestamp' and its 'part' "
                    "(OpenCode's run --format json output)")
        return None

    def notes(self) -> list[Problem]:
        return self._notes

    def not_calls(self) -> int:
        return self._not_calls

    def goes_on(self, obj: dict) -> bool:
        # A run's output begins with its first step's step_start: one that begins inside a step is the rest of a run
        # (a cut between two steps looks like a run of its own, and is read as one).
        return obj.get("type") in EVENT_TYPES and obj.get("type") != "step_start"

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if not isinstance(obj.get("sessionID"), str) or obj.get("type") not in EVENT_TYPES:
            raise LineProblem("is no OpenCode run event: it needs a 'type' such as step_start, text or tool_use beside "
                              "a 'sessionID'")
        if obj["type"] == "error" and not isinstance(obj.get("error"), dict):
            raise LineProblem(f"its 'error' is {convert.describe(obj.get('error'))}, expected an object")
        session = obj["sessionID"]
        if session not in self._turns:
            self._turns[session] = []
            self._notes.append(Problem(line, NO_PROMPT, conversation=f"session {session}", loaded=True))
        kind = obj["type"]
        if session in self._pending:  # a later event: the held round's results went out in a later request
            yield self._pending.pop(session)
        if kind == "error":
            error = obj["error"]
            name = error.get("name") if isinstance(error.get("name"), str) else "an error"
            data = convert.object_at(error, "data")
            said = data.get("message") if isinstance(data.get("message"), str) else name
            if session in self._open:
                yield self._close(session, error=(error, name, said))
                del self._pending[session]
            else:
                self._not_calls += 1
                self._notes.append(Problem(line, LOOSE_ERROR.format(name=name, said=said),
                                           conversation=f"session {session}", loaded=True))
            return
        part = obj.get("part")
        if not isinstance(part, dict):
            raise LineProblem(f"its 'part' is {convert.describe(part)}, expected an object")
        # OpenCode's part types are hyphenated ('step-start'); the line's type says which part it is when the part
        # omits its own.
        part = {"type": {"step_start": "step-start", "step_finish": "step-finish", "tool_use": "tool"}.get(kind, kind),
                **part, "time": part.get("time") or {"start": obj.get("timestamp")}}
        if kind == "step_start" and session in self._open:
            yield self._close(session)  # the step before it printed no step_finish
            yield self._pending.pop(session)
        if session not in self._open:
            self._open[session] = (line, [])
        self._open[session][1].append(part)
        if kind == "step_finish":
            self._close(session)

    def finish(self) -> Iterator[CallRecord]:
        for session in list(self._open):
            self._close(session)
        yield from self._pending.values()
        self._pending.clear()

    def _close(self, session: str, error: tuple[dict, str, str] | None = None) -> CallRecord:
        """The step under way in `session` as a round, its request the conversation before it; held as the session's
        pending round, and returned."""
        line, step = self._open.pop(session)
        turns = self._turns[session]
        finish = next((p for p in step if p.get("type") == "step-finish"), None)
        usage = step_usage(finish.get("tokens")) if finish is not None else None
        reason = finish.get("reason") if finish is not None else None
        note = PROVENANCE["note"] + ("" if usage is not None else NO_USAGE)
        failure = None
        if error is not None:
            body, name, said = error
            status = convert.object_at(body, "data").get("statusCode")
            failure = {"status": status if isinstance(status, int) and not isinstance(status, bool) else None,
                       "body": body, "message": f"{name}: {said}"}
            note += FAILED.format(name=name, said=said)
        blocks = step_blocks(step)
        response: dict | None = {"type": "message", "role": "assistant", "content": blocks,
                                 "stop_reason": STOP_REASONS.get(reason, reason) if isinstance(reason, str) else None}
        message_id = next((p["messageID"] for p in step if isinstance(p.get("messageID"), str)), None)
        if message_id is not None:
            response["id"] = message_id
        if usage is not None:
            response["usage"] = usage
        if failure is not None and not blocks:
            response = None
        start = convert.as_int(convert.object_at(step[0], "time").get("start")) if step else None
        record = CallRecord(line=line, dialect=ANTHROPIC, request={"messages": [dict(t) for t in turns]},
                            response=response, error=failure, conversation=f"session {session}",
                            derived=[TRANSCRIPT_REQUEST], converted_from="opencode-run-json",
                            timestamp=None if start is None else convert.iso_time(start // 1000,
                                                                                  (start % 1000) * 1_000_000),
                            provenance={**PROVENANCE, "note": note}, tool_effects=TOOL_EFFECTS,
                            executions=step_executions(step))
        if blocks and failure is None:
            add_turn(turns, "assistant", blocks)
            if results := step_results(step):
                add_turn(turns, "user", results)
        self._pending[session] = record
        return record
