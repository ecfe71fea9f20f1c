"""OpenAI Codex CLI session logs ("rollouts"): `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

Each line is `{"timestamp", "type", "payload"}`. `session_meta` opens the session (its id, and in newer versions the
base instructions Codex sends as the request's `instructions`); `turn_context` names the model each turn asks for;
`response_item` lines are the conversation, each a Responses API item (messages, reasoning, function calls and their
outputs, custom tool calls, shell calls, web searches); `event_msg` lines are what Codex showed and counted, among them
`token_count`, whose `last_token_usage` is the usage of the model call that just ended. Versions before the envelope
wrote a bare header line (`id`, `timestamp`, `instructions`) and then the bare items, with no token counts.

The log is a transcript, not a record of requests: each model call is a round whose response is the items the model
produced up to the next input item (a tool's output, the person's or Codex's next message), and whose request is every
item before it, cut out of the log rather than recorded as sent (TRANSCRIPT_REQUEST). Codex never logs its tool list,
and logs its base instructions only in versions whose `session_meta` carries them: each round says what it lacks (its
provenance's `omitted`), never that it was empty. A `token_count` is tied to the round it follows; Codex repeats the
last count at times (the same running total): a repeat is no new call. A round with no count after it says its usage
is not in the log. The items are converted into Chat Completions messages as the Responses reader converts them.

A `thread_rolled_back` event is the person undoing their last `num_turns` turns: the log keeps the dropped items, and
the requests after it are the history without them, as Codex rebuilds it (each turn from the person's message on, and
the context Codex wrote just before it); the next round says its request was cut there, not grown (HISTORY_CUT). A
`compacted` line cuts it too, the history starting again from what Codex wrote in its place (round key `compacted`).

A model call that failed is the `error` event Codex writes when a turn ends in an error (codex-rs/protocol's
`ErrorEvent`: `message`, `codex_error_info`): a failed round, its request the items before it, or, when it comes while
the call's items are still being written (no token count yet, no input since), the end of that call. The errors Codex
says leave the turn as it was (`active_turn_not_steerable`, `thread_rollback_failed`) and a sandbox's are no model
call. Codex never writes its `stream_error` events (retries) to the rollout. A `turn_aborted` event is the person (or
a budget) stopping the turn, no failed call: said in a note.

A call's output is an execution of its round where the log records how the run ended (an `exec_command_end`'s exit
code and `duration`, a `patch_apply_end`'s success) by the time the next call's items begin; the outputs after the
log's last call, which no logged request carried, too. A command's end is written before its output when it ended
within the call; Codex's unified exec returns a command's output so far after `yield_time_ms` and leaves it running,
and then writes its end after the output, when it exits: that duration is the command's, not the call's. A
`write_stdin` call (writing to, or polling, such a command) runs that command: its execution ends as the command's
end says, found by the process id it names (`session_id`, the end's `process_id`); where the log holds no end of that
command by the next call, the round says what is not in the log.

Newer versions write no `exec_command_end` to the rollout at all (codex-rs/rollout's policy keeps no such event): a
command's end is then known only from the header Codex wrote above the output it sent the model ("Process exited with
code 0" from unified exec, "Exit code: 0" from the shell tool), and the execution says its outcome was read there. An
output that says the command is still running ("Process running with session ID ...") gives no end: the round says
the command was started and was still running when Codex wrote that output, and, having no execution entry, claims
neither success nor failure for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.dialects import OPENAI
from lib.injected import agent_wrote
from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.logs.responses import item_turn, item_turns
from lib.model import TRANSCRIPT_REQUEST
from lib.text import milliseconds, plural

LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
"""The `type` of a rollout line, each beside a `payload` object."""

LEGACY_HEADER_KEYS = frozenset({"id", "timestamp", "instructions", "git", "cwd", "originator", "cli_version", "model"})
"""The keys of the header line older versions wrote before their bare items (`id` and `timestamp` always)."""

LEGACY_RULE = "an older Codex CLI rollout: a header line ('id', 'timestamp', 'instructions'...) and bare items after it"
"""The rule that recognizes such a file's lines, once its header has been read."""

MODEL_MESSAGE_ROLES = ("assistant",)
"""The roles of message items the model wrote; user, developer and system messages are input."""

INPUT_TYPES = ("message", "compaction", "compaction_summary")
"""Item types that are input whatever their name says (a message by its role; the summary a compaction leaves)."""

BARE_TYPES = ("message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
              "custom_tool_call_output", "local_shell_call", "web_search_call")
"""The item types older versions wrote bare after their header."""

CALL_TYPES = ("function_call", "custom_tool_call")
"""Item types of a call whose output pairs with it by `call_id` (a shell call is read as a function call)."""

OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
"""Item types of a call's output."""

NOT_SENT_TYPES = ("ghost_snapshot",)
"""Item types Codex keeps for itself (undo snapshots) and never sends to the model: no part of any request."""

TOOL_EFFECTS = {"apply_patch": "write", "write_stdin": "read", "update_plan": "narration"}
"""What Codex's own tools do (CallRecord.tool_effects): apply_patch edits files; write_stdin feeds or polls a command
an exec_command call started, whose effects are that command's; update_plan is the plan Codex shows the person.
Shell commands (exec_command, shell) may do anything, and are left to no declaration, as Claude Code's Bash is."""

NOTE = ("The request is the items before this response as the log kept them, not a request on record as sent.")
"""The start of every round's provenance note: the origin line has said what it was cut out of (converted_from)."""

NO_INSTRUCTIONS = ("This session's log does not hold Codex's base instructions (older versions do not write them): "
                   "they were sent, but are neither shown nor counted here.")
"""Said of a round whose session_meta carries no base instructions."""

WITH_INSTRUCTIONS = "The instructions shown are the base instructions the session_meta line recorded."
"""Said of a round whose session_meta carries them."""

NO_USAGE = "No token count follows this response in the log: its usage is not in the log."
"""Said of a round without a token count of its own."""

NOT_CALL_ERRORS = ("active_turn_not_steerable", "thread_rollback_failed", "sandbox_error")
"""`codex_error_info` kinds of an error that is no model call: a turn that could not be steered, a rollback, a
sandbox's failure (Codex's `affects_turn_status` leaves the turn running for the first two)."""

FAILED = ("Codex wrote this error in the log where the turn failed, in place of a response; it does not say which "
          "request failed: the request shown is the items before the error. The HTTP status is shown where the error "
          "records one.")
"""Said of a round whose call failed."""

CUT_BY_ERROR = ("The call failed while its response was being written (no token count followed its items): the "
                "response shown is the items the log kept before the error, and the error is how the call ended.")
"""Said of a round whose response an error cut short."""

ABORTED = ("Codex stopped the turn here (turn_aborted, reason {reason}): the person interrupted it, or Codex ended it; "
           "no failed model call. Whether a call was under way then is not in the log.")
"""The note at a `turn_aborted` line."""


ENDED = "Codex logged the command's end before this output: exit code {code}."
"""The note of a command that ended within its call (its duration is the execution's)."""

OUTLIVED = ("Codex logged the command's end after this output: it was still running when Codex returned the output, "
            "and ended later with exit code {code}{took}.")
"""The note of a command that went on running after its call's output (Codex's unified exec)."""

PATCH_ENDED = "Codex logged the patch's end {when} this output: {outcome}."
"""The note of an apply_patch call whose end the log records."""

STDIN_ENDED = ("This call wrote to (or polled) the command that call {call} started, process {process}; Codex logged "
               "that command's end before this output: it had exited with code {code}. Its run time is the "
               "command's, not this call's.")
"""The note of a write_stdin call whose command's end the log records before the call's output."""

STDIN_OUTLIVED = ("This call wrote to (or polled) the command that call {call} started, process {process}; Codex "
                  "logged that command's end after this output: it was still running when Codex returned the output, "
                  "and ended later with exit code {code}.")
"""The note of a write_stdin call whose command ended after the call's output."""

READ_FROM_OUTPUT = ("Codex logged no end of this command (newer versions do not write one to the rollout): its outcome "
                    "is read from the output Codex wrote for the model, which says '{said}'. No run time is logged.")
"""The note of a command whose exit code only the output's header gives (codex-rs/core's unified exec
format_response, or the shell tool's freeform output)."""

STDIN_READ_FROM_OUTPUT = ("This call wrote to (or polled) process {process}; Codex logged no end of that command "
                          "(newer versions do not write one to the rollout): its outcome is read from the output "
                          "Codex wrote for the model, which says '{said}'. Its run time is not logged.")
"""The note of a write_stdin call whose command's exit code only the call's output gives."""

OUTPUT_EXIT = re.compile(r"(?:Process exited with code|Exit code:) (-?\d+)")
"""The header line that gives a command's exit code in the output Codex writes for the model: unified exec's
"Process exited with code N" (exec_command, write_stdin), the shell tool's "Exit code: N"."""

HEADER_LINES = 6
"""The most lines Codex writes before its output's "Output:" line (chunk id, wall time, exit or session, token
count...): an exit code is read there only, never out of the command's own output."""

STILL_RUNNING = ("The command {name} started (call {call}) was still running when Codex wrote its output for the "
                 "model, which says '{said}'; Codex logged no end of it with that output, so whether it succeeded "
                 "is not known from this call.")
"""Said of a round whose command's output says it was still running, with no end logged: it was started, and its
end is not in the log there (a later write_stdin to its process may give it)."""

OUTPUT_RUNNING = re.compile(r"Process running with session ID \S+")
"""unified exec's header line of a command still running when its call returned (codex-rs/core's format_response)."""

STDIN_UNENDED = ("The {name} call {call} wrote to (or polled) {target} and returned its output so far; Codex logged "
                 "no end of that command before the next model call (or the log's end): whether it ran on or ended, "
                 "and how, is not in the log.")
"""Said of a round whose write_stdin call's command has no end in the log: the call ran, the command's end is
missing (CallRecord.unended_writes)."""

WRITE_STDIN = "write_stdin"
"""Codex's unified exec tool that writes to (or, with no chars, polls) a command exec_command left running; its
`session_id` argument is the process id Codex's exec_command_end for that command carries as `process_id`."""


ROLLED_BACK = ("Codex rolled back the last {turns} of the conversation here (the person undid {them}): the requests "
               "after this line no longer carry {them}, {items} that the requests before it held")
"""The note at a `thread_rolled_back` line (codex-rs/protocol's ThreadRolledBackEvent: `num_turns`)."""

NOTHING_ROLLED_BACK = ("Codex logged a rollback here ({turns}), but the history before it holds no turn of the "
                       "person's to drop: the requests after it are read as if it had not happened")
"""The note at a rollback that drops nothing (no user turn, or a count that is no positive whole number)."""

CONTEXT_DEVELOPER_OPENINGS = ("<permissions instructions>", "<model_switch>", "<collaboration_mode>",
                              "<realtime_conversation>", "<skills_instructions>", "<personality_spec>",
                              "<token_budget>", "<multi_agent_mode>", "<environments_instructions>",
                              "<plugins_instructions>", "<context_window>", "<rollout_budget>")
"""How a developer message of Codex's turn context opens (codex-rs/core's CONTEXTUAL_DEVELOPER_PREFIXES): a rollback
drops such messages written just before a dropped turn, as it drops the injected user context there."""

COMPACTED = ("Codex compacted the conversation here: the requests after this line start again from the history it "
             "wrote in place of the turns before it")
"""The note at a `compacted` line."""


@dataclass(slots=True)
class _Round:
    """A model call whose items are being read."""

    line: int
    """The line of its first item."""
    request: list[dict]
    """The items before it: its request's input."""
    model: str | None
    """The model the turn asked for (the last turn_context's), when logged."""
    timestamp: str | None
    """Its first item's time."""
    items: list[dict] = field(default_factory=list)
    """The items the model produced."""
    usage: dict | None = None
    """The `last_token_usage` of the token count that followed it."""
    answered: bool = False
    """True once an input item has come after its items: the next model item starts another call."""
    after: list[dict] = field(default_factory=list)
    """The input items since its items (its calls' outputs among them)."""
    history_cut: bool = False
    """Codex rolled the history back, or compacted it, between the call before and this one."""
    compacted: bool = False
    """With `history_cut`: the cut is a compaction (CallRecord.compacted)."""


class CodexRolloutFormat(LogFormat):
    """Codex CLI's rollout file, one round per model call."""

    one_file = True

    name = "codex-rollout"
    title = "OpenAI Codex CLI session log"
    reads = ("a line of type 'session_meta', 'response_item', 'event_msg', 'turn_context' or 'compacted'"
             " with a 'payload' beside a 'timestamp'")

    def __init__(self) -> None:
        self._session: str | None = None
        self._instructions: str | None = None
        self._model: str | None = None
        self._history: list[dict] = []
        self._round: _Round | None = None
        self._last_total: Any = None
        """The running total of the last token count: a count repeating it is no new call."""
        self._legacy = False
        """True once a bare header line has been read: bare items follow it."""
        self._asked = 0
        """The lines this reader has been asked to recognize."""
        self._not_calls = 0
        self._notes: list[Problem] = []
        self._ended: dict[str, _End] = {}
        """How each run the session logged the end of ended, by call id (exec_command_end, patch_apply_end)."""
        self._output_ids: set[str] = set()
        """The call ids whose output has been read: an end after it is of a command that outlived its call."""
        self._output_lines: dict[str, int] = {}
        """The line of each call's output, by call id: a command's end before or after a write_stdin's output."""
        self._processes: dict[str, str] = {}
        """The call id of the exec_command that started each process whose end is logged, by process id."""
        self._cut: str | None = None
        """"rollback" or "compaction" from one that dropped items until the next call: that call's request is cut, not
        grown; None otherwise."""

    def detect(self, obj: dict) -> str | None:
        # A payload that is no object is still a rollout line: feed says what is wrong with it.
        if obj.get("type") in LINE_TYPES and "payload" in obj and "timestamp" in obj:
            return "a line of type session_meta, response_item, event_msg or turn_context with a 'payload' (a Codex " \
                   "CLI rollout)"
        self._asked += 1
        if _legacy_header(obj) and (self._legacy or self._asked == 1):
            # Only a file's first line opens an older rollout: a line shaped so elsewhere starts nothing.
            self._legacy = True
            return LEGACY_RULE
        if self._legacy and ("record_type" in obj or _bare_item(obj)):
            return LEGACY_RULE
        return None

    def goes_on(self, obj: dict) -> bool:
        # Codex begins every rollout file with its session_meta line: a file that begins otherwise is the rest of one.
        return obj.get("type") in LINE_TYPES and obj.get("type") != "session_meta"

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        kind = obj.get("type")
        payload = obj.get("payload")
        timestamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if kind in LINE_TYPES and "payload" in obj:
            if not isinstance(payload, dict):
                raise LineProblem(f"the {kind} line's 'payload' is {convert.describe(payload)}, expected an object")
            if kind == "response_item":
                yield from self._item(payload, line, timestamp)
                return
            if kind == "event_msg" and payload.get("type") == "error" and _failed_call(payload):
                yield from self._failed(payload, line, timestamp)
                return
            self._not_calls += 1
            if kind == "session_meta":
                yield from self._meta(payload, line)
            elif kind == "turn_context":
                self._model = payload.get("model") if isinstance(payload.get("model"), str) else self._model
            elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
                yield from self._rolled_back(payload, line)
            elif kind == "event_msg":
                self._event(payload, line)
            elif kind == "compacted":
                yield from self._compacted(payload, line)

            return
        if _legacy_header(obj):
            self._not_calls += 1
            yield from self._meta(obj, line)
            return
        if "record_type" in obj:
            self._not_calls += 1  # the older versions' state lines: no item
            return
        if _bare_item(obj):
            yield from self._item(obj, line, timestamp)
            return
        raise LineProblem("is no Codex CLI rollout line: its 'type' is none of session_meta, response_item, event_msg, "
                          "turn_context or compacted with a 'payload', and it is no bare item")

    def finish(self) -> Iterator[CallRecord]:
        yield from self._close()

    def not_calls(self) -> int:
        return self._not_calls

    def notes(self) -> list[Problem]:
        return self._notes

    def _meta(self, meta: dict, line: int) -> Iterator[CallRecord]:
        """A session's opening line: another session's id starts another conversation."""
        session = meta.get("id") if isinstance(meta.get("id"), str) and meta.get("id") else None
        if self._history and session != self._session:
            yield from self._close()
            self._history, self._last_total, self._model, self._ended = [], None, None, {}
            self._output_ids, self._output_lines, self._processes, self._cut = set(), {}, {}, None
        self._session = session or self._session
        # `instructions`, beside it in some versions, is the user's (AGENTS.md), which Codex sends as a message item.
        base = meta.get("base_instructions")
        text = base.get("text") if isinstance(base, dict) else None
        self._instructions = text if isinstance(text, str) and text else None

    def _item(self, item: dict, line: int, timestamp: str | None) -> Iterator[CallRecord]:
        """One item of the conversation: the model's, part of the call being read (or the first of the next one), or
        an input, which ends the model's items of that call."""
        kind = item.get("type", "message" if "role" in item else None)
        if not isinstance(kind, str):
            found = convert.describe(kind) if "type" in item else "missing, and so is its 'role'"
            raise LineProblem(f"the item's 'type' is {found}, expected the name of a Responses item")
        if kind in NOT_SENT_TYPES:
            self._not_calls += 1
            return
        item = _as_call(item, kind)
        item_turn(item, "the item")  # raises, naming what is wrong, before the item joins any request
        if _from_model(item, kind):
            if self._round is not None and self._round.answered:
                yield from self._close()
            if self._round is None:
                self._round = _Round(line, list(self._history), self._model, timestamp,
                                     history_cut=self._cut is not None, compacted=self._cut == "compaction")
                self._cut = None
            self._round.items.append(item)
        elif self._round is not None:
            self._round.answered = True
            self._round.after.append(item)
        if kind in OUTPUT_TYPES and isinstance(item.get("call_id"), str):
            self._output_ids.add(item["call_id"])
            self._output_lines.setdefault(item["call_id"], line)
        self._history.append(item)

    def _event(self, payload: dict, line: int) -> None:
        """An event Codex showed or counted: a token count, a turn stopped, the end of a run."""
        kind = payload.get("type")
        if kind == "token_count":
            self._count(payload, line)
        elif kind == "turn_aborted":
            reason = payload.get("reason")
            self._notes.append(Problem(line, ABORTED.format(reason=reason if isinstance(reason, str) else "not given"),
                                       conversation=self._key(), loaded=True))
        elif isinstance(payload.get("call_id"), str):
            call_id = payload["call_id"]
            code, success, after = payload.get("exit_code"), payload.get("success"), call_id in self._output_ids
            if kind == "exec_command_end" and isinstance(code, int) and not isinstance(code, bool):
                self._ended[call_id] = _End(code == 0, after, code, _duration_ms(payload.get("duration")), line)
                process = payload.get("process_id")
                if isinstance(process, (str, int)) and not isinstance(process, bool):
                    self._processes[str(process)] = call_id
            elif kind == "patch_apply_end" and isinstance(success, bool):
                self._ended[call_id] = _End(success, after, line=line)

    def _failed(self, payload: dict, line: int, timestamp: str | None) -> Iterator[CallRecord]:
        """A model call that failed: the end of the call whose items are still being written, else a call of its
        own whose request is every item before it. The error is no item: the requests after it do not carry it."""
        said = payload.get("message") if isinstance(payload.get("message"), str) else ""
        error = {"status": _status(payload, said), "body": payload, "message": said or "the call failed"}
        round_ = self._round
        if round_ is not None and not round_.answered and round_.usage is None:
            yield from self._close(error=error)
            return
        yield from self._close()
        cut, self._cut = self._cut, None
        yield CallRecord(
            line=line, dialect=OPENAI, request=self._request(self._history, self._model), conversation=self._key(),
            error=error, derived=[TRANSCRIPT_REQUEST], converted_from="codex-rollout", timestamp=timestamp,
            provenance=self._provenance([FAILED]), history_cut=cut is not None, compacted=cut == "compaction",
        )

    def _count(self, payload: dict, line: int) -> None:
        """A token count: the usage of the call that just ended, unless it repeats the last one's running total."""
        info = payload.get("info")
        if not isinstance(info, dict) or not isinstance(info.get("last_token_usage"), dict):
            return  # Codex's first count of a session carries only rate limits
        total = info.get("total_token_usage")
        if total is not None and total == self._last_total:
            return
        self._last_total = total
        if self._round is not None and self._round.usage is None:
            self._round.usage = info["last_token_usage"]
        else:
            self._notes.append(Problem(line, "a token count of a model call whose items the log does not hold (no "
                                             "response since the last count): counted for no round", loaded=True))

    def _compacted(self, payload: dict, line: int) -> Iterator[CallRecord]:
        """A compaction: the call before it is complete, and the history is what Codex wrote in its place."""
        yield from self._close()
        kept = payload.get("replacement_history")
        if isinstance(kept, list):
            self._history = [i for i in map(_sendable, kept) if i is not None]
            if len(self._history) < len(kept):
                left = len(kept) - len(self._history)
                self._notes.append(Problem(line, f"{left} of the {len(kept)} items of its replacement_history are no "
                                                 "item Codex sends (a snapshot, or not a Responses item): left out of "
                                                 "the requests after it", loaded=True))
        else:
            summary = payload.get("message")
            self._history = [{"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": summary if isinstance(summary, str) else ""}]}]
        self._notes.append(Problem(line, COMPACTED, conversation=self._key(), loaded=True))
        # The next request starts again from the history Codex wrote: its messages are new, not rewrites of those the
        # request before held in their places.
        self._cut = "compaction"

    def _rolled_back(self, payload: dict, line: int) -> Iterator[CallRecord]:
        """A rollback: the call before it is complete, and the history loses the person's last `num_turns` turns,
        each from their message on, and the context Codex wrote just before them, as Codex's
        ContextManager.drop_last_n_user_turns rebuilds it (the log keeps the dropped items)."""
        yield from self._close()
        turns = payload.get("num_turns")
        count = turns if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0 else 0
        starts = [i for i, item in enumerate(self._history) if _person_turn(item)]
        said = plural(count, "turn") if count else f"num_turns {json.dumps(turns)}"
        if not count or not starts:
            self._notes.append(Problem(line, NOTHING_ROLLED_BACK.format(turns=said), conversation=self._key(),
                                       loaded=True))
            return
        cut = starts[-count] if count < len(starts) else starts[0]
        while cut > starts[0] and _turn_context(self._history[cut - 1]):
            cut -= 1
        dropped, dropped_turns = len(self._history) - cut, min(count, len(starts))
        self._history, self._cut = self._history[:cut], "rollback"
        self._notes.append(Problem(line, ROLLED_BACK.format(
            turns="turn" if dropped_turns == 1 else f"{dropped_turns:,} turns",
            them="them" if dropped_turns > 1 else "it",
            items=plural(dropped, "item")), conversation=self._key(), loaded=True))

    def _key(self) -> str:
        """The conversation's name: the session's id."""
        return f"session {self._session}" if self._session else "session"

    def _close(self, error: dict | None = None) -> Iterator[CallRecord]:
        """The round of the call whose items are complete (or that `error` ended)."""
        round_ = self._round
        if round_ is None:
            return
        self._round = None
        output = convert.chat_messages(item_turns(round_.items, "output"))
        answer = next((m for m in output if m.get("role") == "assistant"), {"role": "assistant", "content": ""})
        usage = round_.usage or {}
        response = convert.chat_completion(
            answer, "tool_calls" if answer.get("tool_calls") else "stop",
            usage=convert.chat_usage(usage.get("input_tokens"), usage.get("output_tokens"),
                                     cached=usage.get("cached_input_tokens"),
                                     reasoning=usage.get("reasoning_output_tokens")) if usage else None)
        # That the rollout keeps no stop is said under each response (lib.summary.stop_unrecorded_words), not here.
        executions, unended, running, writing = self._ran(round_)
        said = ([NO_USAGE] if round_.usage is None else []) + ([CUT_BY_ERROR] if error else []) + unended
        yield CallRecord(
            line=round_.line, dialect=OPENAI, request=self._request(round_.request, round_.model), response=response,
            conversation=self._key(), error=error, derived=[TRANSCRIPT_REQUEST, "finish"],
            converted_from="codex-rollout", timestamp=round_.timestamp, provenance=self._provenance(said),
            executions=executions, tool_effects=TOOL_EFFECTS, history_cut=round_.history_cut,
            compacted=round_.compacted, unended=running,
            unended_writes=writing,
        )

    def _request(self, items: list[dict], model: str | None) -> dict:
        """The Chat Completions request the items before a call amount to, the base instructions first when logged."""
        system = [{"role": "system", "content": self._instructions}] if self._instructions else []
        request: dict = {"model": model} if model else {}
        request["messages"] = system + convert.chat_messages(item_turns(items, "input"))
        return request

    def _provenance(self, said: list[str]) -> dict:
        """A round's provenance: what every round of the log lacks, then what is said of this one. Codex sends its
        tool list with every request and never logs it: that is said once, where the list would be (`sent`)."""
        note = [NOTE, WITH_INSTRUCTIONS if self._instructions else NO_INSTRUCTIONS, *said]
        return {"origin": "derived", "note": " ".join(note),
                "omitted": ["tools"] if self._instructions else ["system", "tools"], "sent": ["tools"]}

    def _ran(self, round_: _Round) -> tuple[list[dict], list[str], list[str], list[str]]:
        """The outputs of the round's calls as execution entries, where the log records how the run ended: an
        execution says whether it succeeded, and a bare output does not. A write_stdin call's run is its command's,
        found by the process id it wrote to; what is said of a write_stdin whose command's end the log lacks, and of a
        command still running when its output was written; the ids of those commands' calls (CallRecord.unended); the
        ids of those write_stdin calls (CallRecord.unended_writes)."""
        calls = {item["call_id"]: item for item in round_.items
                 if item.get("type") in CALL_TYPES and isinstance(item.get("call_id"), str)}
        ran, unended, running_calls, writing_calls = [], [], [], []
        for item in round_.after:
            call = calls.get(item.get("call_id")) if item.get("type") in OUTPUT_TYPES else None
            if call is None:
                continue
            if call.get("name") == WRITE_STDIN:
                entry, missing = self._wrote(call, item)
                ran.extend([entry] if entry else [])
                unended.extend([missing] if missing else [])
                # It ran (its output so far came back); only the end of the command it wrote to is missing.
                writing_calls.extend([item["call_id"]] if missing else [])
                continue
            end = self._ended.get(item["call_id"])
            if end is None:
                entry = self._entry(call, item, True)
                exited = _output_exit(entry["output"])
                if exited is not None:
                    # Newer versions write no exec_command_end: the output's own header is the only word of the end.
                    entry["ok"], entry["note"] = exited[0] == 0, READ_FROM_OUTPUT.format(said=exited[1])
                    ran.append(entry)
                running = _output_header(entry["output"], OUTPUT_RUNNING)
                if exited is None and running is not None:
                    # No Execution: its `ok` would claim an outcome the log does not hold; the round says what it does.
                    unended.append(STILL_RUNNING.format(name=call.get("name"), call=item["call_id"], said=running))
                    running_calls.append(item["call_id"])
                continue
            entry = self._entry(call, item, end.ok)
            if end.duration_ms is not None and not end.after_output:
                entry["duration_ms"] = end.duration_ms
            entry["note"] = end.note()
            ran.append(entry)
        return ran, unended, running_calls, writing_calls

    def _wrote(self, call: dict, output: dict) -> tuple[dict | None, str | None]:
        """A write_stdin call's execution: its output, and how the command it wrote to ended where Codex logged that
        command's end (by its process id) before the next call; else what is not in the log."""
        arguments = _arguments(call)
        process = arguments.get("session_id") if isinstance(arguments, dict) else None
        process = str(process) if isinstance(process, (str, int)) and not isinstance(process, bool) else None
        started = self._processes.get(process) if process is not None else None
        end = self._ended.get(started) if started is not None else None
        if end is None or end.exit_code is None:
            entry = self._entry(call, output, True)
            exited = _output_exit(entry["output"])
            if exited is not None:
                entry["ok"] = exited[0] == 0
                entry["note"] = STDIN_READ_FROM_OUTPUT.format(process=process or "not named in its arguments",
                                                              said=exited[1])
                return entry, None
            target = f"the command running as process {process}" if process else \
                "a running command its arguments do not name"
            return None, STDIN_UNENDED.format(name=WRITE_STDIN, call=output["call_id"], target=target)
        before = end.line < self._output_lines.get(output["call_id"], end.line)
        words = STDIN_ENDED if before else STDIN_OUTLIVED
        entry = self._entry(call, output, end.ok)
        entry["note"] = words.format(call=started, process=process, code=end.exit_code)
        return entry, None

    @staticmethod
    def _entry(call: dict, output: dict, ok: bool) -> dict:
        """The execution entry of a call and its output."""
        [tool] = convert.chat_messages(item_turns([output], "input")) or [{}]
        return {"tool_call_id": output["call_id"], "name": str(call.get("name") or ""), "arguments": _arguments(call),
                "output": tool.get("content"), "ok": ok}


@dataclass(frozen=True, slots=True)
class _End:
    """How a run ended, as Codex's exec_command_end or patch_apply_end recorded it."""

    ok: bool
    """The command's exit code was 0, or the patch applied."""
    after_output: bool
    """The end was logged after the call's output: the command outlived its call."""
    exit_code: int | None = None
    """The command's exit code; None for a patch."""
    duration_ms: float | None = None
    """How long the command ran, when recorded."""
    line: int = 0
    """The line Codex logged the end at."""

    def note(self) -> str:
        """What the execution says of how the run ended."""
        if self.exit_code is None:
            return PATCH_ENDED.format(when="after" if self.after_output else "before",
                                      outcome="applied" if self.ok else "not applied")
        if not self.after_output:
            return ENDED.format(code=self.exit_code)
        took = (f" after {milliseconds(self.duration_ms)} ms: the command's time, not this call's"
                if self.duration_ms is not None else "")
        return OUTLIVED.format(code=self.exit_code, took=took)


def _duration_ms(duration: Any) -> float | None:
    """A Rust Duration as Codex writes it ({"secs", "nanos"}) in milliseconds; None for anything else."""
    if not isinstance(duration, dict):
        return None
    secs, nanos = duration.get("secs"), duration.get("nanos", 0)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (secs, nanos)):
        return None
    return secs * 1000 + nanos / 1_000_000


def _output_exit(output: Any) -> tuple[int, str] | None:
    """The exit code the header of a command's output gives, and that header line; None where the output has no
    such header (a command still running, another tool's output)."""
    line = _output_header(output, OUTPUT_EXIT)
    return (int(OUTPUT_EXIT.fullmatch(line).group(1)), line) if line is not None else None


def _output_header(output: Any, pattern: re.Pattern) -> str | None:
    """The header line of a command's output (before its "Output:" line) that `pattern` matches whole; None where
    the output has no such header line. Never a line of the command's own output."""
    if not isinstance(output, str):
        return None
    header = output.split("\n", HEADER_LINES + 1)[:HEADER_LINES + 1]
    if "Output:" not in header:
        return None
    return next((line.strip() for line in header[:header.index("Output:")] if pattern.fullmatch(line.strip())), None)


def _failed_call(payload: dict) -> bool:
    """Whether an `error` event is a model call that failed: every error but those that are no call's."""
    info = payload.get("codex_error_info")
    kind = next(iter(info), None) if isinstance(info, dict) else info
    return kind not in NOT_CALL_ERRORS


def _status(payload: dict, said: str) -> int | None:
    """The HTTP status the error records: its `codex_error_info`'s `http_status_code`, else the one its words give
    ("unexpected status 503 ...", "exceeded retry limit, last status: 500 ..."); None where neither gives one."""
    info = payload.get("codex_error_info")
    for detail in info.values() if isinstance(info, dict) else ():
        code = detail.get("http_status_code") if isinstance(detail, dict) else None
        if isinstance(code, int) and not isinstance(code, bool) and 100 <= code <= 599:
            return code
    found = re.search(r"\bstatus:? ([1-5]\d\d)\b", said)
    return int(found.group(1)) if found else None


def _arguments(call: dict) -> Any:
    """A call's arguments as the handler received them: a function call's JSON text read, a custom tool's input."""
    arguments = call.get("arguments", call.get("input"))
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _legacy_header(obj: dict) -> bool:
    """Whether the line is the header older versions wrote: the session's id and time, its instructions or git."""
    return (isinstance(obj.get("id"), str) and isinstance(obj.get("timestamp"), str)
            and all(k in LEGACY_HEADER_KEYS for k in obj))


def _bare_item(obj: dict) -> bool:
    """Whether the line is a Responses item written bare, as older versions did after their header."""
    kind = obj.get("type")
    return kind in BARE_TYPES and "payload" not in obj and (kind != "message" or isinstance(obj.get("role"), str))


def _from_model(item: dict, kind: Any) -> bool:
    """Whether the model produced the item: an assistant message, reasoning, a call; not an input or an output."""
    if kind == "message":
        return item.get("role") in MODEL_MESSAGE_ROLES
    return isinstance(kind, str) and kind not in INPUT_TYPES and not kind.endswith("_output")


def _texts(item: dict) -> list[str]:
    """The texts of a message item's content."""
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    parts = content if isinstance(content, list) else []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _person_turn(item: dict) -> bool:
    """Whether the item starts a turn of the person's: a user message none of whose texts Codex wrote as context
    (codex-rs/core's is_user_turn_boundary)."""
    return (item.get("type", "message") == "message" and item.get("role") == "user"
            and not any(agent_wrote(text) for text in _texts(item)))


def _turn_context(item: dict) -> bool:
    """Whether the item is context Codex wrote before a turn: a user message holding its context, or a developer
    message opening with one of its turn-context tags."""
    if item.get("type", "message") != "message":
        return False
    texts = _texts(item)
    if item.get("role") == "user":
        return any(agent_wrote(text) for text in texts)
    return item.get("role") == "developer" and any(
        text.lstrip().casefold().startswith(o) for text in texts for o in CONTEXT_DEVELOPER_OPENINGS)


def _sendable(item: Any) -> dict | None:
    """An item of a compaction's replacement history as the requests after it carry it; None for one Codex does not
    send (a snapshot) or that is no Responses item."""
    if not isinstance(item, dict) or item.get("type") in NOT_SENT_TYPES:
        return None
    item = _as_call(item, item.get("type"))
    try:
        item_turn(item, "the item")
    except LineProblem:
        return None
    return item


def _as_call(item: dict, kind: Any) -> dict:
    """A shell call of the Responses API's built-in `local_shell` tool as the function call it stands for, so that the
    function_call_output Codex sends back for it pairs with it by call_id; every other item as it is."""
    if kind != "local_shell_call":
        return item
    return {"type": "function_call", "name": "local_shell", "arguments": item.get("action"),
            "call_id": item.get("call_id", item.get("id"))}
