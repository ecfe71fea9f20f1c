"""Gemini CLI session recordings: `~/.gemini/tmp/<project hash>/chats/session-*.json` (or `.jsonl`).

Gemini CLI (google-gemini/gemini-cli's chat recording service) keeps each session as a list of messages: the person's
(`type: "user"`), the model's (`"gemini"`, with its `toolCalls`, a summary of its `thoughts`, its `tokens` and
`model`), and its own notices to the person (`"info"`, `"error"`, `"warning"`), which were never sent to the model.
An `error` notice that begins `[API Error: ` is the one Gemini CLI shows when the model call failed (its stream's error
event, or the error the call threw, after its retries: packages/cli/src/ui/hooks/useGeminiStream.ts through
packages/core/src/utils/errorParsing.ts): a failed round, its request the conversation before it. Other errors (a
command's, a tool's, a blocked or empty answer's) stay notices.
Versions before 0.39 (April 2026) write one JSON object (`sessionId`, `projectHash`, `startTime`, `messages`); later
ones write JSON lines: a first line of that metadata, then each message as it is written (a message written again,
once its tool calls or its usage are known, replaces the earlier copy), `$set` lines updating the metadata and
`$rewindTo` lines dropping a message and every one after it.

The requests are not recorded. Each `gemini` message is read as one model call, a round whose request is the
conversation before it, rebuilt from the recording (TRANSCRIPT_REQUEST) and read as a Gemini request: the person's
messages as user turns, each earlier answer as a model turn of its text and its calls, and the results Gemini CLI
records on each call (`toolCalls[].result`, the `functionResponse` parts it sent back) as the user turn after it;
those results, with each call's status, are also what the program ran after the answer (its round's executions).
Gemini CLI records neither its system prompt nor its tool list: every round says it lacks them, never that they were
empty. Nor does it record why the model stopped. Its `thoughts` on an answer are the thought summaries Gemini sent
(each split into a bold subject and a description: packages/core/src/utils/thoughtUtils.ts parseThought), shown as
`thought_summary` parts before the answer's text and calls, as other formats show reasoning, never as its text; Gemini
CLI keeps thought parts out of the history it sends (packages/core/src/core/geminiChat.ts), so no rebuilt request
carries them. No recorded call sent on the results of the last answer's calls: the program's lane says so, as
for every format (lib.summary.LOG_ENDS). Its notices are kept on the round after them (CallRecord.notices), those
after the last round on it, and shown as its words: "Request cancelled." says how a session ended.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.logs.chat_shape import describe, require
from lib.logs.gemini import GeminiFormat
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST

MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
"""The `type` of each message Gemini CLI records."""

NOTICE_TYPES = ("info", "error", "warning")
"""Messages Gemini CLI wrote for the person: no model call, and not sent to the model."""

TOKEN_COUNTS = {"input": "promptTokenCount", "output": "candidatesTokenCount", "cached": "cachedContentTokenCount",
                "thoughts": "thoughtsTokenCount", "tool": "toolUsePromptTokenCount", "total": "totalTokenCount"}
"""A message's `tokens` and the `usageMetadata` counts Gemini CLI copied them from."""

PROVENANCE = {
    "origin": "derived",
    "note": "The request is the conversation before this answer as the recording kept it (the person's messages, "
            "the model's earlier answers, and each tool call's result as recorded on the call), not a request on "
            "record as sent; the order of an answer's text and its calls within a turn is ours. Gemini CLI does not "
            "record its system prompt: it was sent, but is neither shown nor counted here. The answer's text, its "
            "calls and its usage are as recorded. The "
            "model's thoughts are shown as Gemini CLI recorded them, in thought_summary parts before the answer's "
            "text and calls: each a summary of the model's reasoning that Gemini sent (a subject and a description, "
            "as Gemini CLI split it), not the reasoning itself, and not text the model wrote to the person.",
    "omitted": ["system", "tools"],
    "sent": ["tools"],
}
"""Every round's provenance: what the recording lacks, said where the round is shown (lib/provenance.py). Gemini CLI
sends its tool list with every request and never records it: that is said once, where the list would be (`sent`); what
the recording was converted from, the origin line says (converted_from)."""

THOUGHT = "thought_summary"
"""The type of the part a recorded thought is shown in: Gemini CLI's own name for it (ThoughtSummary)."""

TOOL_EFFECTS = {"write_file": "write", "replace": "write", "save_memory": "write", "update_topic": "narration",
                "write_todos": "narration"}
"""What Gemini CLI's own tools do (CallRecord.tool_effects): write_file and replace edit files, save_memory writes
the memory file; update_topic and write_todos are the title, intent and to-do list it shows the person. Shell
commands (run_shell_command) may do anything, and are left to no declaration, as Claude Code's Bash is."""

PROMPTS_ONLY = ("Gemini CLI's logs.json keeps only what the person typed ({count}), each with its session id: no model "
                "call, so no round. The session's recording, chats/session-*.json (or .jsonl) beside it, holds the "
                "model's answers.")
"""The note on a logs.json: its entries are read, and are no model call."""

SAVED_CHAT = ("it looks like a Gemini CLI saved chat or checkpoint (`/chat save`, checkpoint-<tag>.json): a history of "
              "Gemini contents with no usage, beginning with turns the CLI wrote itself, which Roundtrip does not "
              "read as rounds; the session's recording (chats/session-*.json or .jsonl) holds the conversation "
              "with each answer's usage")
"""Why a saved chat is not read, said when nothing read the file."""

DAMAGED = ("messages[{place}]: {problem}: that message is left out of the session read as Gemini CLI's; its other "
           "messages still load, and the requests rebuilt after it lack it")
"""Said of a message of a session document that could not be read."""

API_ERROR = "[API Error: "
"""How the error notice Gemini CLI shows for a model call that failed begins (parseAndFormatApiError)."""

FAILED = {
    **PROVENANCE,
    "note": "The request is the conversation before this error as the recording kept it, not a request on record as "
            "sent. Gemini CLI does not record its system prompt: it was sent, but is neither shown nor counted here. "
            "The call failed: Gemini CLI recorded "
            "this error in place of an answer (after its own retries), without the model asked for; the HTTP status "
            "is shown where the error's words give one.",
}
"""The provenance of a round whose call failed."""



@dataclass(slots=True)
class _Session:
    """One session's messages as the recording leaves them."""

    key: str
    """The conversation it is: `session <sessionId>`, and for a subagent's, `, a subagent's run` after it."""
    messages: dict[str, tuple[dict, int]] = field(default_factory=dict)
    """Each message by its id, in the order first written, with the line its last copy is on."""


class GeminiCliSessionFormat(LogFormat):
    """A Gemini CLI session recording, a round per answer of the model's."""

    name = "gemini-cli-session"
    detect_keys = frozenset({"sessionId", "type", "$set", "$rewindTo"})
    title = "Gemini CLI session"
    reads = "'sessionId' and 'projectHash' beside 'messages', or a first line of them and the message lines after it"

    def __init__(self) -> None:
        self._sessions: list[_Session] = []
        self._lines = False
        """True once a session's first line (its metadata, without messages) was read: its lines follow."""
        self._not_calls = 0
        self._damaged: list[Problem] = []
        """What was wrong with each message of a session document that could not be read."""
        self._prompts: list[int] = []
        """The lines of logs.json entries read: the person's prompts, no model call."""

    def detect(self, obj: dict) -> str | None:
        if isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str):
            if isinstance(obj.get("messages"), list):
                return "'sessionId' and 'projectHash' beside 'messages' (a Gemini CLI session)"
            self._lines = True
            return "a line of 'sessionId' and 'projectHash' (a Gemini CLI session's first line)"
        if _prompt_entry(obj):
            return "a prompt entry of Gemini CLI's logs.json ('sessionId', 'messageId' and the 'message' typed)"
        if not self._lines:
            return None
        if obj.get("type") in MESSAGE_TYPES and isinstance(obj.get("id"), str) and "content" in obj:
            return "a message line (an 'id', a 'type' and 'content') after a Gemini CLI session's first line"
        if isinstance(obj.get("$set"), dict) or isinstance(obj.get("$rewindTo"), str):
            return "a '$set' or '$rewindTo' line after a Gemini CLI session's first line"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        # A later line may replace or drop any message: the rounds are made once the whole session is read (finish).
        self._read(obj, line)
        return iter(())

    def near_miss(self, obj: dict) -> str | None:
        history = obj.get("history")
        if (isinstance(history, list) and history and _content(history[0])) or _content(obj):
            return SAVED_CHAT
        return None

    def _read(self, obj: dict, line: int) -> None:
        """One line (or the whole document) into its session."""
        if _prompt_entry(obj):
            self._not_calls += 1
            self._prompts.append(line)
            return
        if isinstance(obj.get("sessionId"), str):
            messages = obj.get("messages")
            # A subagent's run is recorded as a session of its own (under its parent's folder), marked by its kind.
            subagent = ", a subagent's run" if obj.get("kind") == "subagent" else ""
            self._sessions.append(_Session(f"session {obj['sessionId']}{subagent}"))
            if messages is None:
                self._not_calls += 1
                return
            for place, message in enumerate(require(obj, "messages", list)):
                try:
                    self._message(message, line, f"messages[{place}]", f"message {place + 1}")
                except LineProblem as exc:
                    # One message of a whole session: the others still load, and the requests after it lack it.
                    self._damaged.append(Problem(line, DAMAGED.format(place=place, problem=exc), loaded=True))
            return
        if not self._sessions:
            raise LineProblem("comes before any Gemini CLI session's first line (its 'sessionId' and 'projectHash')")
        if "$set" in obj or "$rewindTo" in obj:
            self._not_calls += 1
            self._update(obj)
            return
        if not isinstance(obj.get("id"), str):
            raise LineProblem("is no Gemini CLI session line: it has no message 'id', '$set' or '$rewindTo'")
        if obj.get("type") in NOTICE_TYPES and not _api_error(obj):
            self._not_calls += 1
        self._message(obj, line, "the line", obj["id"])

    def _message(self, message: Any, line: int, where: str, fallback: str) -> None:
        """A message into its session, in place of an earlier copy of it."""
        if not isinstance(message, dict):
            raise LineProblem(f"{where} is {describe(message)}, expected a message object")
        kind = message.get("type")
        if kind not in MESSAGE_TYPES:
            raise LineProblem(f"{where}'s 'type' is {describe(kind)}, expected one of {', '.join(MESSAGE_TYPES)}")
        # Read here once, on its own line, so that a damaged message costs that line, not the rounds made at the end.
        parts = _parts(message.get("content"), "content")
        results = [part for call in _calls(message) for part in _parts(call.get("result"), "toolCalls[].result")]
        turns = [{"role": "user", "parts": parts}] if parts and kind != "gemini" else []
        if kind == "gemini":
            turn = {"role": "model", "parts": _answer(message)}
            _round([], turn, message, line, "")
            turns = [turn] + ([{"role": "user", "parts": results}] if results else [])
        if turns:
            GeminiFormat().record({"contents": turns}, None, line, {})
        key = message["id"] if isinstance(message.get("id"), str) else fallback
        self._sessions[-1].messages[key] = (message, line)

    def _update(self, obj: dict) -> None:
        """A `$rewindTo` line drops its message and every one after it (all of them, when the id is not found, as
        Gemini CLI reads it); a `$set` of `messages` puts them in place of all before."""
        session = self._sessions[-1]
        rewind = obj.get("$rewindTo")
        if isinstance(rewind, str):
            ids = list(session.messages)
            for key in ids[ids.index(rewind) if rewind in ids else 0:]:
                del session.messages[key]
        updates = obj.get("$set")
        if isinstance(updates, dict) and isinstance(updates.get("messages"), list):
            line = next(iter(session.messages.values()), ({}, 0))[1]
            session.messages.clear()
            for place, message in enumerate(updates["messages"]):
                self._message(message, line, f"$set.messages[{place}]", f"message {place + 1}")

    def finish(self) -> Iterator[CallRecord]:
        sessions, self._sessions = self._sessions, []
        for session in sessions:
            yield from _rounds(session)

    def not_calls(self) -> int:
        return self._not_calls

    def notes(self) -> list[Problem]:
        if not self._prompts:
            return self._damaged
        count = f"{len(self._prompts)} prompt{'' if len(self._prompts) == 1 else 's'}"
        return [*self._damaged, Problem(self._prompts[0], PROMPTS_ONLY.format(count=count), loaded=True)]


def _prompt_entry(obj: dict) -> bool:
    """Whether `obj` is an entry of Gemini CLI's logs.json: a prompt the person typed, with its session and place."""
    return (isinstance(obj.get("sessionId"), str) and isinstance(obj.get("messageId"), int)
            and isinstance(obj.get("message"), str) and "projectHash" not in obj)


def _content(obj: Any) -> bool:
    """Whether `obj` is a Gemini Content and nothing else: a `role` of the chat's and its `parts`."""
    return (isinstance(obj, dict) and set(obj) == {"role", "parts"} and obj["role"] in ("user", "model")
            and isinstance(obj["parts"], list))


def _rounds(session: _Session) -> list[CallRecord]:
    """Each answer of the session's as a round, its request the conversation before it."""
    contents: list[dict] = []
    rounds: list[CallRecord] = []
    sent: set[str] = set()
    """The ids of the results already in the conversation, from the calls they answer."""
    shown: list[dict] = []
    """Gemini CLI's own messages to the person since the last round, shown with the round after them."""
    for message, line in session.messages.values():
        kind = message.get("type")
        if kind in NOTICE_TYPES and not _api_error(message):
            said = message.get("content")
            shown.append({"by": "Gemini CLI", "kind": kind, "text": said if isinstance(said, str) else json.dumps(said),
                          "after": False})
        elif kind == "user":
            # Later versions also record the results they send back as a user message: the calls' results already
            # stand for them.
            parts = [p for p in _parts(message.get("content"), "content") if _answers(p) not in sent]
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif kind == "gemini":
            turn = {"role": "model", "parts": _answer(message)}
            rounds.append(_round(contents, turn, message, line, session.key))
            # Before the round is handed on: the upload turns each into the model's objects as it comes.
            _ran_after(rounds[-1], turn["parts"], message)
            contents.append(turn)
            results = [part for call in _calls(message) for part in _parts(call.get("result"), "toolCalls[].result")]
            sent |= {_answers(part) for part in results} - {None}
            if results:
                contents.append({"role": "user", "parts": results})
            rounds[-1].notices, shown = shown, []
        elif kind == "error" and _api_error(message):
            rounds.append(_failed(contents, message, line, session.key))
            rounds[-1].notices, shown = shown, []
    if rounds and shown:  # how the session ended ("Request cancelled."): after its last round
        rounds[-1].notices = [*rounds[-1].notices, *({**said, "after": True} for said in shown)]
    return rounds


def _round(before: list[dict], turn: dict, message: dict, line: int, session: str) -> CallRecord:
    """One answer as a round: its request the conversation before it."""
    tokens = message.get("tokens")
    response: dict = {"candidates": [{"content": turn, "finishReason": "STOP"}]}
    counts = {theirs: tokens[ours] for ours, theirs in TOKEN_COUNTS.items() if isinstance(tokens, dict)
              and isinstance(tokens.get(ours), int) and not isinstance(tokens[ours], bool)}
    if counts:
        response["usageMetadata"] = counts
    model = message.get("model")
    # Gemini CLI rebuilds each request from the recording, calls and results with the ids it recorded on them.
    record = GeminiFormat().record({"contents": list(before)}, response, line,
                                   {"model": model if isinstance(model, str) else None}, ids_recorded=True)
    record.derived = [TRANSCRIPT_REQUEST, *record.derived, "finish", *([] if counts else ["usage"])]
    _thoughts_shown(record.response, message.get("thoughts"))
    return _placed(record, message, session, PROVENANCE)


def _thoughts_shown(response: dict, thoughts: Any) -> None:
    """The thoughts Gemini CLI recorded on an answer, each a part of its own before the answer's text and calls:
    shown as reasoning is, never read as text the model wrote (its usage already counts their tokens)."""
    if thoughts is None or thoughts == []:
        return
    # Each as recorded, under a type of its own; one that is not an object is kept whole, not dropped.
    recorded = thoughts if isinstance(thoughts, list) else [thoughts]
    parts = [{"type": THOUGHT, **thought} if isinstance(thought, dict) and "type" not in thought
             else {"type": THOUGHT, "recorded": thought} for thought in recorded]
    message = response["choices"][0]["message"]
    content = message.get("content")
    said = content if isinstance(content, list) else [{"type": "text", "text": content}] if content else []
    message["content"] = [*parts, *said]


def _failed(before: list[dict], message: dict, line: int, session: str) -> CallRecord:
    """A model call that failed as a round: its request the conversation before the error, no response."""
    said = message["content"]
    record = GeminiFormat().record({"contents": list(before)}, None, line, {}, ids_recorded=True)
    found = re.search(r'(?:got status:?|"code":)\s*([1-5]\d\d)\b', said)
    record.error = {"status": int(found.group(1)) if found else None, "body": {"type": "error", "content": said},
                    "message": said}
    record.derived = [TRANSCRIPT_REQUEST, *record.derived]
    return _placed(record, message, session, FAILED)


def _placed(record: CallRecord, message: dict, session: str, provenance: dict) -> CallRecord:
    """The record placed in its session, said to be cut out of a Gemini CLI recording, at the message's time."""
    record.conversation = session
    record.converted_from = "gemini-cli-session"
    record.provenance = provenance
    record.tool_effects = TOOL_EFFECTS
    timestamp = message.get("timestamp")
    record.timestamp = timestamp if isinstance(timestamp, str) else None
    return record


def _api_error(message: dict) -> bool:
    """Whether the message is the error notice Gemini CLI shows for a model call that failed."""
    content = message.get("content")
    return message.get("type") == "error" and isinstance(content, str) and content.startswith(API_ERROR)


def _answer(message: dict) -> list[dict]:
    """The model's turn: its recorded content (text, or parts), then each call it made that the content lacks."""
    parts = _parts(message.get("content"), "content")
    made = {_id(p["functionCall"].get("id")) for p in parts if isinstance(p.get("functionCall"), dict)} - {None}
    for call in _calls(message):
        if _id(call.get("id")) not in made:
            args = call.get("args")
            parts.append({"functionCall": {"id": _id(call.get("id")), "name": call.get("name"),
                                           "args": args if isinstance(args, dict) else {}}})
    return parts


def _calls(message: dict) -> list[dict]:
    """The message's tool calls as recorded."""
    calls = message.get("toolCalls")
    if calls is None:
        return []
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise LineProblem(f"a gemini message's 'toolCalls' is {describe(calls)}, expected a list of call objects")
    return calls


def _parts(content: Any, where: str) -> list[dict]:
    """A recorded content (text, a part, or a list of parts and texts, as the Gemini SDK takes it) as parts."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        raise LineProblem(f"a message's {where} is {describe(content)}, expected text or a list of parts")
    parts = []
    for item in content:
        if isinstance(item, str):
            parts.append({"text": item})
        elif isinstance(item, dict):
            parts.append(item)
        else:
            raise LineProblem(f"a message's {where} holds {describe(item)}, expected a part or text")
    return parts


def _id(value: Any) -> str | None:
    """A recorded call id, when it is text: only text ids pair a result with its call (a damaged one pairs none)."""
    return value if isinstance(value, str) else None


def _answers(part: dict) -> str | None:
    """The id of the call a part answers (a `functionResponse`'s), if it is one and names it."""
    response = part.get("functionResponse")
    return response.get("id") if isinstance(response, dict) and isinstance(response.get("id"), str) else None


def _ran_after(record: CallRecord, parts: list[dict], message: dict) -> None:
    """The results Gemini CLI recorded on an answer's calls, with each call's status, as what the program ran after
    it: the next request sends them on, and after the last answer none does."""
    message_ = (record.response or {}).get("choices", [{}])[0].get("message", {})
    ours = [c.get("id") for c in message_.get("tool_calls") or ()]
    recorded = [_id(p["functionCall"].get("id")) for p in parts if isinstance(p.get("functionCall"), dict)]
    named = {recorded_id: our_id for recorded_id, our_id in zip(recorded, ours) if recorded_id is not None}
    for call in _calls(message):
        result = _parts(call.get("result"), "toolCalls[].result")
        if _id(call.get("id")) not in named or not result:
            continue
        record.executions.append({"tool_call_id": str(named[call["id"]]), "name": str(call.get("name") or ""),
                                  "arguments": call.get("args"), "output": _output(result),
                                  "ok": call.get("status") == "success"})


def _output(parts: list[dict]) -> str:
    """A call's recorded result as text: its function response's `output` (or the response as JSON), and any text
    parts after it."""
    pieces = []
    for part in parts:
        response = part.get("functionResponse")
        if isinstance(response, dict):
            answer = response.get("response")
            output = answer.get("output") if isinstance(answer, dict) else None
            pieces.append(output if isinstance(output, str) else json.dumps(answer, ensure_ascii=False))
        elif isinstance(part.get("text"), str):
            pieces.append(part["text"])
    return "\n".join(pieces)
