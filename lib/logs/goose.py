"""Goose session files: `~/.local/share/goose/sessions/<id>.jsonl`, and the JSON `goose session export` writes.

Block's Goose agent (block/goose), before its sessions moved into a SQLite database (sessions.db, late 2025), kept
each session as JSON lines: a first line of the session's metadata (`working_dir`, `description`, `message_count`,
the token counts), then one message per line (`role`, `created`, `content`, a list of typed blocks: `text`,
`toolRequest` with its `toolCall`, `toolResponse` with its `toolResult`, `thinking`, `image`...). Newer versions'
`goose session export --format json` writes the same session as one object, its messages under `conversation`.

The requests are not recorded. Each assistant message is read as one model call, a round whose request is the
conversation before it, rebuilt from the file (TRANSCRIPT_REQUEST) and read as an Anthropic Messages request: each
tool request a `tool_use` block, each tool response a `tool_result` block paired by the id Goose gives both. Two
assistant messages in a row are one response (a model is called after a user turn, not after its own). Goose records
neither its system prompt nor its tool list: every round says it lacks them, never that they were empty. Nor does it
record any one call's usage with its messages: the first line holds `accumulated_*` over all its calls and
`input_tokens` and `output_tokens`, the provider's last report (Goose writes each call's usage over the one before,
and the file does not say which response the last call made), said once beside the session, never spread over its
rounds. Result contents meant for the person only (`annotations.audience` without "assistant") were not sent to the
model and are left out; blocks Goose writes for itself (a confirmation request, a notice) are left out too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterator

from lib.dialects import ANTHROPIC
from lib.logs.chat_shape import anthropic_results_after, describe
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST
from lib.text import plural

ROLES = ("user", "assistant")
"""The `role` of each message Goose records."""

CALL_TYPES = ("toolRequest", "frontendToolRequest")
"""Blocks of a model's tool call: the second a call the desktop app ran, as Goose names it."""

GOOSE_ONLY = ("toolConfirmationRequest", "actionRequired", "contextLengthExceeded", "summarizationRequested",
              "systemNotification", "conversationCompacted")
"""Blocks Goose writes for the person or itself: not sent to the model, so left out of the requests."""

PROVENANCE = {
    "origin": "derived",
    "note": "The request is the conversation before this response as the file kept it, not a request on record as "
            "sent. Goose does not record its system prompt: it was sent, but is neither shown nor counted here. Nor "
            "does it record this call's usage (the file holds only token counts on its first line, said beside the "
            "session). The response's text, calls and thinking are as recorded.",
    "omitted": ["system", "tools"],
    "sent": ["tools"],
}
"""Every round's provenance: what the file lacks, said where the round is shown (lib/provenance.py). Goose sends its
extensions' tools with every request and never records them: said once, where the list would be (`sent`); what the
file was converted from, the origin line says (converted_from)."""

TOTALS = ("Goose records no usage with its messages, only token counts on the session's first line: {counts}. Its "
          "rounds show none of them: {why}")
"""The note beside a session whose metadata holds token counts."""

SUMMED = "the counts over all its calls are the session's, not any one round's"
"""Why the rounds show none of the accumulated counts."""

LAST_CALL = ("the last report is one call's, the session's last, and the file does not say which response that call "
             "made")
"""Why the rounds show none of the last report's counts: Goose writes each call's usage over the one before."""

NO_TOTALS = "Goose recorded no token counts for this session: its rounds show no usage"
"""The note beside a session whose metadata holds none."""

COUNTED = ("the first line counts {counted} in the session; the file holds {held}: the rounds are made from the "
           "messages it holds")
"""Said where the metadata's message count and the messages read differ."""

HIDDEN = ("Goose marked {count} as not sent to the model (metadata.agentVisible false, as it does when it compacts a "
          "session): the requests rebuilt here include {them}, so a request after the compaction may hold turns that "
          "were not sent")
"""Said of a session holding messages Goose hid from the model."""

UNREAD_CALL = ("a tool call Goose could not read (its toolCall's error: {error}) is left out of the response; a "
               "result answering it stays unpaired")
"""Said of a tool request whose call Goose recorded as an error."""

DAMAGED = ("conversation[{place}]: {problem}: that message is left out of the session read as Goose's; its other "
           "messages still load, and the requests rebuilt after it lack it")
"""Said of a message of an exported session that could not be read."""


@dataclass(slots=True)
class _Session:
    """One session's messages as the file leaves them."""

    key: str
    """The conversation it is: `session <description>` (or its export's id)."""
    line: int
    """The line of its metadata (or of its first message, when the file has no metadata line)."""
    meta: dict = field(default_factory=dict)
    """The metadata line, or the exported session's own fields."""
    turns: list[tuple[str, list[dict], int, str | None]] = field(default_factory=list)
    """Each message read: its role, its blocks as Anthropic content, its line and when it was written."""
    hidden: int = 0
    """Messages Goose marked as not sent to the model."""


class GooseSessionFormat(LogFormat):
    """A Goose session file or export, a round per response of the model's."""

    name = "goose-session"
    detect_keys = frozenset({"working_dir", "role"})
    title = "Goose session"
    reads = ("a first line of 'working_dir' and 'message_count', the message lines after it, or blocks of"
             " 'toolRequest' / 'toolResponse'")

    def __init__(self) -> None:
        self._sessions: list[_Session] = []
        self._lines = False
        """True once a session's metadata line was read: its messages follow, one a line."""
        self._not_calls = 0
        self._notes: list[Problem] = []

    def detect(self, obj: dict) -> str | None:
        if _metadata(obj):
            if isinstance(obj.get("conversation"), list):
                return "'working_dir' and 'message_count' beside 'conversation' (a Goose session export)"
            self._lines = True
            return "a line of 'working_dir' and 'message_count' (a Goose session file's first line)"
        if obj.get("role") not in ROLES or not isinstance(obj.get("content"), list) or "created" not in obj:
            return None
        if self._lines:
            return "a message line ('role', 'created' and 'content') after a Goose session file's first line"
        if any(isinstance(b, dict) and b.get("type") in ("toolRequest", "toolResponse") for b in obj["content"]):
            return "a message line holding Goose's 'toolRequest' or 'toolResponse' blocks"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        # The rounds are made once the whole session is read (finish): a response may go on over the next line.
        if _metadata(obj):
            self._begin(obj, line)
            if isinstance(obj.get("conversation"), list):
                for place, message in enumerate(obj["conversation"]):
                    try:
                        self._message(message, line, f"conversation[{place}]")
                    except LineProblem as exc:
                        # One message of a whole session: the others still load, and the requests after it lack it.
                        self._notes.append(Problem(line, DAMAGED.format(place=place, problem=exc), loaded=True))
            return iter(())
        if not self._sessions:
            # Goose itself reads a file whose first line is a message (its metadata lost): so does this reader.
            self._sessions.append(_Session(f"session {len(self._sessions) + 1}", line))
        self._message(obj, line, "the line")
        return iter(())

    def _begin(self, obj: dict, line: int) -> None:
        """A new session, from its metadata line or its export."""
        if not isinstance(obj.get("conversation"), list):  # a metadata line, no message of the conversation
            self._not_calls += 1
        name = obj.get("id") if isinstance(obj.get("id"), str) else obj.get("name", obj.get("description"))
        key = f"session {name}" if isinstance(name, str) and name.strip() else f"session {len(self._sessions) + 1}"
        if any(s.key == key for s in self._sessions):
            key = f"{key} (line {line})"
        self._sessions.append(_Session(key, line, obj))

    def _message(self, message: Any, line: int, where: str) -> None:
        """A message into the session being read."""
        if not isinstance(message, dict):
            raise LineProblem(f"{where} is {describe(message)}, expected a message object")
        role = message.get("role")
        if role not in ROLES:
            raise LineProblem(f"{where}'s 'role' is {describe(role)}, expected 'user' or 'assistant'")
        content = message.get("content")
        if not isinstance(content, list):
            raise LineProblem(f"{where}'s 'content' is {describe(content)}, expected a list of blocks")
        blocks = []
        for block in content:
            blocks += self._block(block, line, where)
        session = self._sessions[-1]
        metadata = message.get("metadata")
        if isinstance(metadata, dict) and metadata.get("agentVisible") is False:
            session.hidden += 1
        session.turns.append((role, blocks, line, _when(message.get("created"))))

    def _block(self, block: Any, line: int, where: str) -> list[dict]:
        """One Goose content block as the Anthropic blocks it was sent as (none, for Goose's own)."""
        if not isinstance(block, dict):
            raise LineProblem(f"{where}'s 'content' holds {describe(block)}, expected a block object")
        kind = block.get("type")
        if kind == "text":
            return [{"type": "text", "text": _text(block.get("text"))}]
        if kind in CALL_TYPES:
            call = block.get("toolCall")
            value = call.get("value") if isinstance(call, dict) and call.get("status") == "success" else None
            if not isinstance(value, dict) or not isinstance(value.get("name"), str):
                error = call.get("error") if isinstance(call, dict) else None
                said = error[:200] if isinstance(error, str) else f"none recorded; the call is {describe(call)}"
                self._notes.append(Problem(line, UNREAD_CALL.format(error=said), loaded=True))
                return []
            arguments = value.get("arguments")
            return [{"type": "tool_use", "id": _text(block.get("id")), "name": value["name"],
                     "input": arguments if isinstance(arguments, dict) else {}}]
        if kind == "toolResponse":
            result = block.get("toolResult")
            ok = isinstance(result, dict) and result.get("status") == "success"
            value = result.get("value") if isinstance(result, dict) else None
            if ok and isinstance(value, dict):  # newer versions keep the MCP CallToolResult whole
                ok = value.get("isError") is not True
                value = value.get("content")
            content = _result(value) if ok else [{"type": "text", "text": _text(
                result.get("error") if isinstance(result, dict) else result)}]
            return [{"type": "tool_result", "tool_use_id": _text(block.get("id")), "content": content,
                     **({} if ok else {"is_error": True})}]
        if kind == "thinking":
            return [{"type": "thinking", "thinking": _text(block.get("thinking")),
                     "signature": _text(block.get("signature"))}]
        if kind == "redactedThinking":
            return [{"type": "redacted_thinking", "data": _text(block.get("data"))}]
        if kind == "image":
            return [_image(block)]
        if kind in GOOSE_ONLY:
            return []
        raise LineProblem(f"{where}'s 'content' holds a block of type {describe(kind)}, which Goose's sessions "
                          "do not use")

    def finish(self) -> Iterator[CallRecord]:
        sessions, self._sessions = self._sessions, []
        for session in sessions:
            self._notes += _said(session)
            yield from _rounds(session)

    def not_calls(self) -> int:
        return self._not_calls

    def notes(self) -> list[Problem]:
        return self._notes


def _metadata(obj: dict) -> bool:
    """Whether `obj` is a session's metadata line or its export: a `working_dir` and a `message_count`, no `role`."""
    count = obj.get("message_count")
    return (isinstance(obj.get("working_dir"), str) and isinstance(count, int) and not isinstance(count, bool)
            and "role" not in obj)


def _rounds(session: _Session) -> list[CallRecord]:
    """Each response of the session's as a round, its request the conversation before it."""
    # Consecutive messages of one role are one turn, as the API reads them.
    turns: list[tuple[str, list[dict], int, str | None]] = []
    for role, blocks, line, when in session.turns:
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, list(blocks), line, when))
    messages: list[dict] = []
    rounds: list[CallRecord] = []
    for role, blocks, line, when in turns:
        if not blocks:
            continue
        if role == "user":
            messages.append({"role": "user", "content": blocks})
            continue
        calls = any(b["type"] == "tool_use" for b in blocks)
        response = {"type": "message", "role": "assistant", "content": blocks,
                    "stop_reason": "tool_use" if calls else "end_turn"}
        rounds.append(CallRecord(line=line, dialect=ANTHROPIC, request={"messages": list(messages)},
                                 response=response, conversation=session.key, timestamp=when,
                                 derived=[TRANSCRIPT_REQUEST, "finish"], converted_from="goose-session",
                                 provenance=PROVENANCE))
        messages.append({"role": "assistant", "content": blocks})
    if rounds and messages and messages[-1]["role"] == "user":
        rounds[-1].executions = anthropic_results_after(messages[-2] if len(messages) > 1 else {},
                                                         [messages[-1]["content"]])
    return rounds
def _said(session: _Session) -> list[Problem]:
    """What is said beside the session: its token totals, and where its metadata and its messages disagree."""
    meta, notes = session.meta, []
    if not meta:
        return notes
    counts = {k: meta.get(k) for k in ("accumulated_input_tokens", "accumulated_output_tokens", "input_tokens",
                                        "output_tokens", "accumulated_total_tokens", "total_tokens")}
    counts = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    kinds = [(f"{words} {where}", why) for words, where, why in (
        (_tokens(counts, "accumulated_"), "over all its calls (accumulated_*)", SUMMED),
        (_tokens(counts, ""), "in the provider's last report (input_tokens, output_tokens)", LAST_CALL)) if words]
    if kinds:
        notes.append(Problem(session.line, TOTALS.format(counts=", and ".join(said for said, _ in kinds),
                                                         why="; ".join(why for _, why in kinds)),
                             conversation=session.key, loaded=True))
    else:
        notes.append(Problem(session.line, NO_TOTALS, conversation=session.key, loaded=True))
    counted, held = meta.get("message_count"), len(session.turns)
    if counted != held:
        notes.append(Problem(session.line, COUNTED.format(counted=plural(counted, "message"),
                                                          held=plural(held, "message")),
                             conversation=session.key, loaded=True))
    if session.hidden:
        notes.append(Problem(session.line, HIDDEN.format(count=plural(session.hidden, "message"),
                                                         them="it" if session.hidden == 1 else "them"),
                             conversation=session.key, loaded=True))
    return notes


def _tokens(counts: dict[str, int], prefix: str) -> str:
    """The input and output tokens (or the total) of one kind of count, in words; empty when none was recorded."""
    taken, given = counts.get(f"{prefix}input_tokens"), counts.get(f"{prefix}output_tokens")
    if taken is not None and given is not None:
        return f"{taken:,} input and {given:,} output tokens"
    total = counts.get(f"{prefix}total_tokens")
    return f"{total:,} tokens in all" if total is not None else ""


def _result(value: Any) -> list[dict]:
    """A tool result's contents as the model was sent them: those meant for the person only are left out."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [{"type": "text", "text": _text(value)}]
    sent = []
    for item in value:
        if not isinstance(item, dict):
            sent.append({"type": "text", "text": _text(item)})
            continue
        annotations = item.get("annotations")
        audience = annotations.get("audience") if isinstance(annotations, dict) else None
        if isinstance(audience, list) and "assistant" not in audience:
            continue
        kind = item.get("type")
        if kind == "text":
            sent.append({"type": "text", "text": _text(item.get("text"))})
        elif kind == "image":
            sent.append(_image(item))
        elif kind == "resource" and isinstance(item.get("resource"), dict):
            resource = item["resource"]
            text = resource.get("text")
            sent.append({"type": "text", "text": text if isinstance(text, str) else _text(resource.get("uri"))})
        else:
            sent.append({"type": "text", "text": json.dumps(item, ensure_ascii=False)})
    return sent


def _image(block: dict) -> dict:
    """An image block (Goose's or MCP's `data` and `mimeType`) as an Anthropic one."""
    return {"type": "image", "source": {"type": "base64", "media_type": _text(block.get("mimeType")),
                                        "data": _text(block.get("data"))}}


def _text(value: Any) -> str:
    """Recorded text as text: anything else as its JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _when(created: Any) -> str | None:
    """A message's `created` (seconds since 1970) as an ISO time, for ordering; None when it is no number."""
    if isinstance(created, bool) or not isinstance(created, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(created, tz=timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None
