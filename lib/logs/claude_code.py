"""Claude Code session logs: `~/.claude/projects/<project>/<session>.jsonl`, one transcript entry per line.

Each `user` or `assistant` line carries one Anthropic Messages `message` beside Claude Code's bookkeeping
(`uuid`, `parentUuid`, `sessionId`, `isSidechain`, `requestId`, `cwd`, `toolUseResult`...). Claude Code writes one
API response over several `assistant` lines, one per content block, sharing `message.id` and `requestId`, each
repeating the call's usage: they are merged into one response, its usage counted once (the last line's, the latest
the log reports). Tool results come back as `user` lines of `tool_result` blocks; consecutive user lines are one
user turn, as the API reads consecutive messages of one role.

Like a fine-tuning line, the log is a transcript: each response is a round, and its request is the conversation
before it, cut out of the log rather than recorded as sent (TRANSCRIPT_REQUEST). Claude Code logs neither its system
prompt nor its tool list: every round says it lacks them (its provenance's `omitted`), never that they were empty.
A session is a conversation; a subagent's lines (`isSidechain`) are a conversation of their own. Lines of other
types (summary, system, file-history-snapshot...) are no model call: counted, not read. Assistant lines Claude Code
wrote itself (`model` "<synthetic>": an interruption, an API error it reported) are no model call either. After a
compaction (a `compact_boundary` line) the requests start again from the summary that follows it, then the turns the
line's `compactMetadata` says Claude Code kept across it (`preservedMessages.uuids`, else the `preservedSegment` from
`headUuid` to `tailUuid`, as Claude Code 2.1.226 writes them).

A user line Claude Code marks `isMeta: true` is its own words in the user's role (a skill's body, an image reference,
its automatic "continue"), and so is the summary it writes after a compaction (`isCompactSummary: true`): each round
lists where such texts sit in its request (CallRecord.program_wrote), so they are drawn as the program's, not the
person asking (lib/injected.py). The first request after a compaction cut the history (CallRecord.history_cut): its
messages are new, not rewrites of the turns the request before it held in their places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.dialects import ANTHROPIC
from lib.dialects.common import flatten_content
from lib.logs.chat_shape import anthropic_results_after, describe, require
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST
from lib.text import plural

MESSAGE_TYPES = ("user", "assistant")
"""Line types that carry a message of the conversation."""

BOOKKEEPING_TYPES = frozenset({
    "summary", "system", "file-history-snapshot", "queue-operation", "progress", "attachment", "last-prompt",
    "permission-mode", "mode", "ai-title", "custom-title", "agent-name", "pr-link", "worktree-state",
    "attribution-snapshot", "tag",
})
"""Line types Claude Code writes for itself beside the conversation: no model call, no message the model read."""

SESSION_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid", "messageId")
"""Keys only Claude Code's lines carry beside their `type`: one of them makes a line Claude Code's."""

COMPACTED = ("Claude Code compacted the conversation here: the requests after this line start again from its summary, "
             "not from the turns before it")
"""The note at a `compact_boundary` line that keeps no turn."""

KEPT = ("Claude Code compacted the conversation here: the requests after this line start again from its summary and "
        "the {turns} it kept (named in its compactMetadata), not from the other turns before it")
"""The note at a `compact_boundary` line that keeps turns across the compaction."""

KEPT_UNLOGGED = ("; {missing} of the messages it says it kept {are} not in the log, so the requests after it lack "
                 "{them}")
"""Added to the note where the log does not hold messages the compaction kept."""

SYNTHETIC = "<synthetic>"
"""The `model` of an assistant line Claude Code wrote itself, without calling a model."""

PROVENANCE = {
    "origin": "derived",
    "note": "Cut out of a Claude Code session log: the request is the conversation before this response as the log "
            "kept it, not a request on record as sent. Claude Code does not log its system prompt: it was sent, but "
            "is neither shown nor counted here. The response and its usage are as recorded.",
    "omitted": ["system", "tools"],
    "sent": ["tools"],
}
"""Every round's provenance: what the log lacks, said where the round is shown (lib/provenance.py). Claude Code sends
its tool list with every request and never logs it: that is said once, where the list would be (`sent`)."""

UNANSWERED = ("Cut out of a Claude Code session log: the request is the conversation up to the last prompt, as the log "
              "kept it, not a request on record as sent. Claude Code does not log its system prompt: it was sent, but "
              "is neither shown nor counted here. No response follows in the log: the session ended, or the log was "
              "cut, before one was written.")
"""The provenance note of the round of a prompt the log ends on, no response after it (ClaudeCodeFormat._unanswered)."""

RESULT_NOT_KEPT = (" A call of the response before it has no result in the log (a line the log could not read may "
                   "have held it, or the session was cut while it ran): Claude Code sends a result for every call, "
                   "so the request it sent held one that is not shown here.")
"""Added to UNANSWERED where a call of the last response has no result in the lines after it."""

INTERRUPTED = "[Request interrupted by user"
"""How the user line Claude Code writes when the person stops a response opens: no prompt, no request of its own."""

FAILED = ("Cut out of a Claude Code session log: the request is the conversation before this call as the log kept it, "
          "not a request on record as sent. Claude Code does not log its system prompt: it was sent, but is neither "
          "shown nor counted here. The call failed: Claude Code wrote this error in the log in "
          "place of a response, with the HTTP status where its words give one.")
"""The provenance note of a round whose call failed."""

CUT_BY_ERROR = ("The call failed while its response was being written: the response shown is the lines the log "
                "kept before the error, and the error written after them is how the call ended.")
"""Said of a round whose response an API error cut short."""

API_ERROR_KEYS = ("isApiErrorMessage", "is_api_error_message")
"""The flag, in the session log's spelling and stream-json's, of an assistant line standing for a call that failed."""

TOOL_EFFECTS = {"Edit": "write", "MultiEdit": "write", "Write": "write", "NotebookEdit": "write",
                "TodoWrite": "narration"}
"""What Claude Code's own tools do (CallRecord.tool_effects): the four that edit files, MultiEdit and NotebookEdit
among them though their names start with no verb; TodoWrite is the to-do list it shows the person. Bash may do
anything, and is left to no declaration."""

PARTIAL_OUTPUT = ("Claude Code writes each assistant line before the response ends, so the output count on its lines "
                  "may fall short of what the call produced; the log kept no later count for this response.")
"""Said of a round whose usage came from lines written before its response ended."""

NO_STOP = ("For the same reason the log does not record why the model stopped: the stop shown is read from the "
           "response's content, not recorded.")
"""Said of such a round when none of its lines reports a stop reason."""


@dataclass(slots=True)
class _Response:
    """An API response being assembled from its lines."""

    id: str | None
    """`message.id` (or, without one, `requestId`): the lines of one response share it."""
    line: int
    """Its first line."""
    request: list[dict]
    """The conversation before it: its round's request messages."""
    body: dict
    """The last line's message, its usage the one counted."""
    blocks: list = field(default_factory=list)
    """The content blocks of all its lines, in order."""
    stop_reason: Any = None
    """The last stop reason its lines report (the lines written mid-stream report none)."""
    timestamp: str | None = None
    """Its first line's time."""
    lacks_prompt: bool = False
    """True when its request lacks a prompt the person wrote that the log does not hold (ClaudeCodeFormat._opening)."""
    usage: dict | None = None
    """The usage the stream reported when the response ended, when the log kept it: it replaces the lines' counts,
    which Claude Code writes before the response ends."""
    uuids: list[str] = field(default_factory=list)
    """The `uuid` of each of its lines: a compaction names the turns it keeps by them."""
    history_cut: bool = False
    """True for the first response after a compaction: its request starts again from the summary (CallRecord.
    history_cut)."""


@dataclass(slots=True)
class _Conversation:
    """A session or a subagent's run, being rebuilt line by line."""

    messages: list[dict] = field(default_factory=list)
    """The turns so far, each response's once it is complete."""
    user: list = field(default_factory=list)
    """The contents of the user lines since the last response, not yet one turn."""
    response: _Response | None = None
    """The response whose lines are still coming."""
    sent: list | None = None
    """The messages list of the last round's request (see CallRecord.resends)."""
    prompt_due: bool = True
    """True while the person's next prompt is due and no line has carried it (stream-json's reader)."""
    prompts_unlogged: int = 0
    """Prompts the person wrote that its messages lack, the log not holding them (stream-json's reader)."""
    first_line: int = 0
    """The line the conversation's first line is on."""
    user_uuids: list[str] = field(default_factory=list)
    """The `uuid` of each user line since the last response."""
    turn_of: dict[str, int] = field(default_factory=dict)
    """The turn (its place in `messages`) each line went into, by the line's `uuid`: what a compaction keeps."""
    kept: list[tuple[dict, list[str]]] | None = None
    """The turns the last compaction kept, each with its lines' uuids: due after the summary it starts again from."""
    meta: set[str] = field(default_factory=set)
    """The texts of the user lines Claude Code marked as its own (`isMeta`, or `isCompactSummary` on the summary a
    compaction starts again from): found again, by value, in each request that carries them (program_wrote)."""
    cut: bool = False
    """True from a compaction until the next round: that round's request no longer holds the turns before it."""
    user_line: int = 0
    """The line the first of `user` is on: where a prompt the log ends on, no response after it, is read from."""


class ClaudeCodeFormat(LogFormat):
    """Claude Code's session transcript, one round per API response."""

    one_file = True

    name = "claude-code"
    title = "Claude Code session log"
    reads = ("a 'user' or 'assistant' line with a 'message' beside 'sessionId' or 'uuid', and Claude Code's"
             " bookkeeping lines")
    request_id_key = "requestId"
    """The key of the line's API request id: a response's lines share it when they lack `message.id`."""
    program_keys: tuple[str, ...] = ("isMeta", "isCompactSummary")
    """The keys a user line carries as `true` when Claude Code wrote it itself, not the person (program_wrote):
    `isCompactSummary` on the summary of the conversation it writes as a user line after a compaction."""

    def chosen(self, obj: dict) -> str:
        # Stream-json output (lib.logs.claude_stream_json) holds the same messages, and its lines' 'uuid' meets this
        # format's rule: what tells them apart is how they name the session (the stream-json readers, subclasses of
        # this one, read those lines).
        if type(self) is ClaudeCodeFormat and "session_id" in obj and "sessionId" not in obj:
            raise LineProblem(f"not read as {self.title}: its 'session_id' (snake case) is stream-json output's "
                              f"(Claude Code's -p mode, the Agent SDK, Amp); a session log names the session "
                              f"'sessionId'")
        return super().chosen(obj)

    def __init__(self) -> None:
        self._conversations: dict[str, _Conversation] = {}
        self._where: dict[str, str] = {}
        """The conversation of each line read, by its uuid: a subagent's line follows its parent."""
        self._agents: dict[str, str] = {}
        """The run each `agentId` was found in by a call its tool result answers, when its lines did not name it."""
        self._calls: dict[str, str] = {}
        """The conversation of each tool call read, by its id: a subagent's result whose parent line the log lacks
        follows the call it answers."""
        self._subagents = 0
        self._session: str | None = None
        self._not_calls = 0
        self._notes: list[Problem] = []
        self._begun: list[str] = []
        """The conversations in the order their first line came."""
        self._out: set[str] = set()
        """The conversations a round of which has been handed on."""
        self._held: list[CallRecord] = []
        """Rounds held back until the conversations that began before theirs have handed one on (_due)."""

    def detect(self, obj: dict) -> str | None:
        kind = obj.get("type")
        if kind in MESSAGE_TYPES and "message" in obj and any(k in obj for k in SESSION_KEYS):
            return "a user or assistant line with a 'message' beside 'sessionId' or 'uuid' (a Claude Code session log)"
        if kind in BOOKKEEPING_TYPES and any(k in obj for k in SESSION_KEYS):
            return "a Claude Code bookkeeping line (summary, system, file-history-snapshot...)"
        return None

    def goes_on(self, obj: dict) -> bool:
        # A session's file opens before the model's first turn (bookkeeping lines, the person's prompt): a file that
        # opens on the model's turn or on a tool's result is the rest of one. A file cut before a prompt cannot tell.
        message = obj.get("message")
        if obj.get("type") == "assistant":
            return isinstance(message, dict)
        content = message.get("content") if obj.get("type") == "user" and isinstance(message, dict) else None
        return isinstance(content, list) and any(isinstance(block, dict) and block.get("type") == "tool_result"
                                                 for block in content)

    def continues(self, obj: dict, earlier_first: dict, earlier: bytes) -> bool:
        # A file cut before a prompt opens as a session does. Its prompt still names the entry it follows (parentUuid):
        # where that entry is written in the other file, of the same session (sessionId), the file is that run's rest.
        # The session is compared with the other file's first line, where it names one, before its bytes are
        # searched: a folder of many sessions' files would otherwise search each file once for every other.
        parent, session = obj.get("parentUuid"), obj.get("sessionId")
        return obj.get("type") == "user" and isinstance(parent, str) and isinstance(session, str) and \
            bool(parent) and bool(session) and earlier_first.get("sessionId") in (session, None) \
            and f'"{parent}"'.encode() in earlier

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        kind = obj.get("type")
        if kind not in MESSAGE_TYPES:
            if not self.detect(obj):  # a line forced on this reader that is none of Claude Code's
                raise LineProblem("is no Claude Code line: its 'type' is neither 'user' nor 'assistant', and it is "
                                  "none of Claude Code's bookkeeping lines")
            self._not_calls += 1
            if kind == "system" and obj.get("subtype") == "compact_boundary":
                yield from self._compacted(obj, line)
            return
        message = require(obj, "message", dict)
        content = _content(message, kind)
        if kind == "assistant" and message.get("model") == SYNTHETIC and not _api_error(obj):
            self._not_calls += 1  # Claude Code's own words (an interruption, no response requested): no model call
            return
        key = self._conversation_of(obj)
        if key not in self._conversations:
            self._begun.append(key)
        conversation = self._conversations.setdefault(key, _Conversation(first_line=line))
        if kind == "assistant" and message.get("model") == SYNTHETIC:
            yield from self._failed(key, conversation, obj, content, line)
            return
        if kind == "user":
            if any(obj.get(k) is True for k in self.program_keys):
                conversation.meta.update(_texts(content))
            if not conversation.user:
                conversation.user_line = line
            conversation.user.append(content)
            if isinstance(obj.get("uuid"), str):
                conversation.user_uuids.append(obj["uuid"])
            if conversation.kept is not None:  # the summary, written right after the compaction: the kept turns follow
                _add_user_turn(conversation)
                _restore(conversation)
            return
        if not isinstance(content, list):
            content = [{"type": "text", "text": content}]
        self._calls.update((b["id"], key) for b in content
                           if b.get("type") == "tool_use" and isinstance(b.get("id"), str))
        same = message.get("id") if isinstance(message.get("id"), str) else obj.get(self.request_id_key)
        open_ = conversation.response
        if open_ is not None and same is not None and same == open_.id:
            # One more block of the response being written (tool results may have come between: they follow it).
            open_.blocks.extend(content)
            open_.uuids += [obj["uuid"]] if isinstance(obj.get("uuid"), str) else []
            open_.body = message
            open_.stop_reason = message.get("stop_reason") or open_.stop_reason
            return
        yield from self._close(key, conversation)
        _add_user_turn(conversation)
        _restore(conversation)
        timestamp = obj.get("timestamp")
        conversation.response = _Response(same if isinstance(same, str) else None, line, list(conversation.messages),
                                           message, list(content), message.get("stop_reason"),
                                           timestamp if isinstance(timestamp, str) else None,
                                           self._opening(key, conversation, line),
                                           uuids=[obj["uuid"]] if isinstance(obj.get("uuid"), str) else [],
                                           history_cut=conversation.cut)
        conversation.cut = False

    def _failed(self, key: str, conversation: _Conversation, obj: dict, content: str | list,
                line: int) -> Iterator[CallRecord]:
        """A call that failed: Claude Code wrote the error in place of the response, or after the lines of a response
        still being written, which it ended. Its request is the conversation before it; the error line is no turn the
        model reads, so the person's words stay due for the next call."""
        said = flatten_content(content) if isinstance(content, list) else content
        status = _status(obj, said)
        body = {k: obj[k] for k in ("error", "apiErrorStatus", "errorDetails", "error_details") if k in obj}
        error = {"status": status, "body": {**body, "text": said}, "message": said or "the call failed"}
        if _writing(conversation):
            yield from self._close(key, conversation, error=error)
            return
        yield from self._close(key, conversation)
        request = list(conversation.messages) + ([_user_turn(conversation.user)] if conversation.user else [])
        timestamp = obj.get("timestamp")
        lacks_prompt = self._opening(key, conversation, line)
        cut, conversation.cut = conversation.cut, False
        yield from self._release(CallRecord(
            line=line, dialect=ANTHROPIC, request={"messages": request}, conversation=key, error=error,
            derived=[TRANSCRIPT_REQUEST], timestamp=timestamp if isinstance(timestamp, str) else None,
            resends=conversation.sent, provenance=self._failed_provenance(lacks_prompt),
            program_wrote=_program_wrote(request, conversation.meta), history_cut=cut, compacted=cut,
        ))

    def _failed_provenance(self, lacks_prompt: bool) -> dict:
        """The provenance of a failed call's round (`lacks_prompt`: its request lacks a prompt, see _opening)."""
        return {**PROVENANCE, "note": FAILED}

    def _opening(self, key: str, conversation: _Conversation, line: int) -> bool:
        """Whether the response starting at `line` follows a prompt the log lacks. A session log keeps every prompt."""
        return False

    def _provenance(self, response: _Response) -> dict:
        """The provenance of the response's round."""
        said = unended(response)
        return {**PROVENANCE, "note": f"{PROVENANCE['note']} {said}"} if said else PROVENANCE

    def finish(self) -> Iterator[CallRecord]:
        for key, conversation in self._conversations.items():
            yield from self._close(key, conversation, last=True)
            yield from self._unanswered(key, conversation)
        yield from self._due(everything=True)
        # A conversation of lines but no response (a subagent's result whose earlier lines the log does not hold)
        # makes no round and is not listed: the lines are said, not lost without a word.
        self._notes += [Problem(c.first_line, _roundless(key, c.user), loaded=True)
                        for key, c in self._conversations.items() if key not in self._out and c.user]

    def _unanswered(self, key: str, conversation: _Conversation) -> Iterator[CallRecord]:
        """The round of a prompt the log ends on: the person wrote after the last response and no response follows.
        Claude Code sends a prompt as it logs it, so it is a request the log ends on, shown with no response, not
        left out while the round before says the log ends there. Tool results alone are the last round's
        executions (_close), and an interruption's line asks for nothing. Where a call of the last response has no
        result in the lines after it (a damaged line may have held it), the prompt is still the person's last words:
        its round is made of what the log kept, and its note says the result is not among them."""
        if conversation.sent is None or not _prompted(conversation.user):
            return
        note = UNANSWERED if _calls_answered(conversation) else UNANSWERED + RESULT_NOT_KEPT
        _add_user_turn(conversation)  # the log's end: joined as the next response's request would have joined it
        request = list(conversation.messages)
        yield from self._release(CallRecord(
            line=conversation.user_line, dialect=ANTHROPIC, request={"messages": request}, conversation=key,
            derived=[TRANSCRIPT_REQUEST], resends=conversation.sent, provenance={**PROVENANCE, "note": note},
            program_wrote=_program_wrote(request, conversation.meta), history_cut=conversation.cut,
            compacted=conversation.cut,
        ))

    def not_calls(self) -> int:
        return self._not_calls

    def notes(self) -> list[Problem]:
        return self._notes

    def _compacted(self, obj: dict, line: int) -> Iterator[CallRecord]:
        """A compaction: the response before it is complete, and the conversation after it starts again from the
        summary Claude Code writes next, then the turns the line says it kept (_kept)."""
        key = self._conversation_of(obj)
        conversation = self._conversations.get(key)
        if conversation is None:
            return
        yield from self._close(key, conversation)
        named = _kept(obj)
        if conversation.user:  # lines after the last response: a turn that may be kept
            conversation.turn_of.update(dict.fromkeys(conversation.user_uuids, len(conversation.messages)))
            conversation.messages.append(_user_turn(conversation.user))
        places = sorted({conversation.turn_of[u] for u in named if u in conversation.turn_of})
        if not _listed(obj) and places:  # a segment: the turns from its head to its tail
            places = list(range(places[0], places[-1] + 1))
        lines: dict[int, list[str]] = {i: [] for i in places}  # each kept turn's lines, for a later compaction
        for uuid, at in conversation.turn_of.items():
            if at in lines:
                lines[at].append(uuid)
        kept = [(conversation.messages[i], lines[i]) for i in places]
        missing = sum(1 for u in named if u not in conversation.turn_of)
        conversation.messages, conversation.user, conversation.user_uuids, conversation.sent = [], [], [], None
        conversation.turn_of, conversation.kept = {}, kept or None
        # The next request drops the turns before the compaction: its messages are new, not rewrites of theirs.
        conversation.cut = True
        said = KEPT.format(turns=plural(len(kept), "turn")) if kept else COMPACTED
        if missing:
            said += KEPT_UNLOGGED.format(missing=missing, are="is" if missing == 1 else "are",
                                         them="it" if missing == 1 else "them")
        self._notes.append(Problem(line, said, conversation=key, loaded=True))

    def _close(self, key: str, conversation: _Conversation, last: bool = False,
               error: dict | None = None) -> Iterator[CallRecord]:
        """The round of the response whose lines are complete (or that `error` ended), its turn added to the
        conversation."""
        response = conversation.response
        if response is None:
            return
        conversation.response = None
        turn = {"role": "assistant", "content": response.blocks}
        conversation.turn_of.update(dict.fromkeys(response.uuids, len(conversation.messages)))
        body = {**response.body, "role": "assistant", "content": response.blocks, "stop_reason": response.stop_reason}
        body.setdefault("type", "message")
        if response.usage is not None:
            usage = body.get("usage")
            body["usage"] = {**(usage if isinstance(usage, dict) else {}), **response.usage}
        conversation.messages.append(turn)
        request = {"messages": response.request}
        provenance = self._provenance(response)
        if error is not None:
            provenance = {**provenance, "note": f"{provenance['note']} {CUT_BY_ERROR}"}
        record = CallRecord(
            line=response.line, dialect=ANTHROPIC, request=request, response=body, conversation=key, error=error,
            derived=[TRANSCRIPT_REQUEST], timestamp=response.timestamp, resends=conversation.sent,
            provenance=provenance, executions=anthropic_results_after(turn, conversation.user) if last else [],
            tool_effects=TOOL_EFFECTS, program_wrote=_program_wrote(response.request, conversation.meta),
            history_cut=response.history_cut, compacted=response.history_cut,
        )
        self._closed(record)
        yield from self._release(record)
        # The upload has read the record by now (unless it is held) and put the interned messages into its request's
        # list: the conversation holds those, so the parsed copies are freed and the next request resends the very
        # same objects.
        conversation.messages[:len(response.request)] = response.request
        conversation.sent = response.request

    def _closed(self, record: CallRecord) -> None:
        """A round just completed, before it is handed on (stream-json sums its run's usage)."""

    def _release(self, record: CallRecord) -> Iterator[CallRecord]:
        """The rounds due once `record` is complete, in the order of their conversations' first lines."""
        self._held.append(record)
        yield from self._due()

    def _due(self, everything: bool = False) -> Iterator[CallRecord]:
        """The held rounds that may go (all of them at the end). A subagent's rounds close while the response that
        started it is still being written: held until the session hands on a round, the subagent is listed after
        it, as its first line comes after the session's."""
        while self._held:
            at = next((i for i, r in enumerate(self._held) if everything or not self._waits(r.conversation)), None)
            if at is None:
                return
            record = self._held.pop(at)
            self._out.add(record.conversation)
            yield record

    def _waits(self, key: str) -> bool:
        """Whether a conversation that began before `key` has handed on no round yet but has one coming (a response
        still being written, or a round held)."""
        for earlier in self._begun:
            if earlier == key:
                return False
            if earlier in self._out:
                continue
            conversation = self._conversations.get(earlier)
            if (conversation is not None and conversation.response is not None) or any(
                    r.conversation == earlier for r in self._held):
                return True
        return False

    def _answered(self, obj: dict) -> str | None:
        """The subagent run holding a call the line's tool results answer, if the log holds one."""
        return next((self._calls[i] for i in _answered_ids(obj) if ", subagent" in self._calls.get(i, "")), None)

    def _conversation_of(self, obj: dict) -> str:
        """`session <id>` for the session's own lines; a subagent's lines (`isSidechain`) are a conversation of their
        own: the run their parent line is in, else (the parent line not in the log) the run of the call their tool
        result answers, else the one their `agentId` names, else a new one."""
        session = obj.get("sessionId") if isinstance(obj.get("sessionId"), str) else self._session
        self._session = session
        named = f"session {session}" if session else "session"
        if obj.get("isSidechain") is True:
            agent, parent = obj.get("agentId"), obj.get("parentUuid")
            if isinstance(parent, str) and parent in self._where:
                key = self._where[parent]
            elif (answered := self._answered(obj)) is not None:
                key = answered
                if isinstance(agent, str) and agent:  # the agent's later lines whose parents the log lacks follow
                    self._agents.setdefault(agent, key)
            elif isinstance(agent, str) and agent:
                key = self._agents.get(agent, f"{named}, subagent {agent}")
            else:
                self._subagents += 1
                key = f"{named}, subagent run {self._subagents}"
        else:
            key = named
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            self._where[uuid] = key
        return key


def _kept(obj: dict) -> list[str]:
    """The uuids of the lines a `compact_boundary` line says Claude Code kept across the compaction, in order:
    `compactMetadata.preservedMessages.uuids` (the messages; its `allUuids` also names lines that are none), else its
    `preservedSegment`'s `headUuid` and `tailUuid` (the turns between them are kept with them)."""
    metadata = obj.get("compactMetadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    messages, segment = metadata.get("preservedMessages"), metadata.get("preservedSegment")
    if _listed(obj):
        return list(dict.fromkeys(u for u in messages["uuids"] if isinstance(u, str)))
    if isinstance(segment, dict) and isinstance(segment.get("headUuid"), str):
        ends = (segment["headUuid"], segment.get("tailUuid"))
        return list(dict.fromkeys(u for u in ends if isinstance(u, str)))
    return []


def _listed(obj: dict) -> bool:
    """Whether the `compact_boundary` line lists each message it kept (`preservedMessages.uuids`)."""
    metadata = obj.get("compactMetadata")
    messages = metadata.get("preservedMessages") if isinstance(metadata, dict) else None
    return isinstance(messages, dict) and isinstance(messages.get("uuids"), list) and bool(messages["uuids"])


def _add_user_turn(conversation: _Conversation) -> None:
    """The user lines since the last response made one turn of the conversation (joined to a user turn before it,
    as the API reads consecutive messages of one role: only a turn kept across a compaction comes before one)."""
    if not conversation.user:
        return
    turn = _user_turn(conversation.user)
    if conversation.messages and conversation.messages[-1].get("role") == "user":
        turn = _user_turn([conversation.messages.pop()["content"], turn["content"]])
    conversation.turn_of.update(dict.fromkeys(conversation.user_uuids, len(conversation.messages)))
    conversation.messages.append(turn)
    conversation.user, conversation.user_uuids = [], []


def _restore(conversation: _Conversation) -> None:
    """The turns a compaction kept, put after the summary it started again from: Claude Code sends them there."""
    if conversation.kept is None:
        return
    for turn, uuids in conversation.kept:
        if turn.get("role") == "user":
            conversation.user, conversation.user_uuids = [turn["content"]], uuids
            _add_user_turn(conversation)
        else:
            conversation.turn_of.update(dict.fromkeys(uuids, len(conversation.messages)))
            conversation.messages.append(turn)
    conversation.kept = None


def _answered_ids(obj: dict) -> list[str]:
    """The ids of the calls a user line's tool results answer."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if obj.get("type") != "user" or not isinstance(content, list):
        return []
    return [b["tool_use_id"] for b in content
            if isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)]


def _writing(conversation: _Conversation) -> bool:
    """Whether the conversation's response is still being written: none of its lines reports the stop reason or the
    final count, and no user line (a tool result, the person's words) has come since it began."""
    response = conversation.response
    return response is not None and not response.stop_reason and response.usage is None and not conversation.user


def _roundless(key: str, user: list) -> str:
    """What a conversation without a response holds (its lines make no round, so it is not listed)."""
    results = sum(1 for content in user if isinstance(content, list)
                  for block in content if isinstance(block, dict) and block.get("type") == "tool_result")
    one = len(user) == 1
    lines = f"{'a' if one else len(user)} {'subagent' if ', subagent' in key else 'session'} line{'' if one else 's'}"
    held = (f"{'a tool result' if results == 1 else plural(results, 'tool result')} answering a call the log does not "
            "hold") if results else "a prompt"
    return (f"{lines}{' holds' if one else ' from here hold'} {held}, and no response of the model's: no round, so no "
            f"conversation is listed for {'it' if one else 'them'}")


def _prompted(user: list) -> bool:
    """Whether the user lines since the last response hold words that ask for a response: text that is no
    interruption's line, not tool results alone."""
    for content in user:
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks if isinstance(blocks, list) else ():
            if isinstance(block, dict) and block.get("type") != "tool_result":
                text = block.get("text")
                if not (isinstance(text, str) and text.startswith(INTERRUPTED)):
                    return True
    return False


def _calls_answered(conversation: _Conversation) -> bool:
    """Whether every call of the conversation's last turn has its result among the user lines after it."""
    turn = conversation.messages[-1] if conversation.messages else {}
    content = turn.get("content") if turn.get("role") == "assistant" else None
    calls = {b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"} \
        if isinstance(content, list) else set()
    results = {b.get("tool_use_id") for c in conversation.user if isinstance(c, list)
               for b in c if isinstance(b, dict) and b.get("type") == "tool_result"}
    return calls <= results


def _api_error(obj: dict) -> bool:
    """Whether the line is Claude Code's report of a model call that failed (an API error, a rate limit)."""
    return any(obj.get(k) is True for k in API_ERROR_KEYS)


def _status(obj: dict, said: str) -> int | None:
    """The HTTP status the error line records (`apiErrorStatus`), else the one its words give ("API Error: 500 ...",
    `errorDetails` "429 {...}"); None where neither gives one."""
    for key in ("apiErrorStatus", "api_error_status"):
        if isinstance(obj.get(key), int) and not isinstance(obj.get(key), bool) and 100 <= obj[key] <= 599:
            return obj[key]
    found = re.search(r"API Error: ([1-5]\d\d)\b", said)
    details = obj.get("errorDetails")
    found = found or (re.match(r"([1-5]\d\d)\b", details) if isinstance(details, str) else None)
    return int(found.group(1)) if found else None


def unended(response: _Response) -> str:
    """What the round must say when its usage is a count written before the response ended (both readers' rule):
    the count stands only where the log kept one written at the end, a line that reports the stop reason or the
    stream's message_delta; else the output may fall short, and without any stop reason the stop is not on record."""
    if response.usage is not None or response.body.get("stop_reason"):
        return ""
    return PARTIAL_OUTPUT if response.stop_reason else f"{PARTIAL_OUTPUT} {NO_STOP}"


def _content(message: dict, kind: str) -> str | list:
    """The message's content, a string or a list of blocks; a LineProblem naming what is wrong otherwise."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        found = "missing" if "content" not in message else describe(content)
        raise LineProblem(f"the {kind} line's message.content is {found}, expected a string or a list of blocks")
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise LineProblem(f"the {kind} line's message.content[{i}] is {describe(block)}, expected a content block "
                              "with a 'type'")
    return content


def _texts(content: str | list) -> list[str]:
    """The texts of a line's content: the string, or its text blocks'."""
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text" and isinstance(b.get("text"), str)]


def _program_wrote(messages: list, meta: set[str]) -> list[str]:
    """The paths of the user-role texts in `messages` that Claude Code wrote on an `isMeta` line (lib.model.
    PROGRAM_WROTE): `messages[3].content[1]`, or `messages[3].content` for a turn that is that one line's string."""
    if not meta:
        return []
    paths = []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "user" else None
        if isinstance(content, str):
            paths += [f"messages[{i}].content"] if content in meta else []
        elif isinstance(content, list):
            paths += [f"messages[{i}].content[{j}]" for j, block in enumerate(content)
                      if isinstance(block, dict) and block.get("type") == "text" and block.get("text") in meta]
    return paths


def _user_turn(contents: list) -> dict:
    """The user lines since the last response as one turn: one line's content as it was, several lines' blocks
    joined."""
    if len(contents) == 1:
        return {"role": "user", "content": contents[0]}
    return {"role": "user", "content": [block for content in contents
                                        for block in ([{"type": "text", "text": content}]
                                                      if isinstance(content, str) else content)]}
