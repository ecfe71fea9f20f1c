"""OpenCode sessions: what `opencode export <sessionID>` prints, one JSON document per session.

The document is `{"info": session, "messages": [{"info": message, "parts": [...]}], "todos": [...]}` (OpenCode's
`cli/cmd/export.ts`; the shapes are `session/message-v2.ts`'s). A user message's parts are what the person sent
(`text`, `file`...); an assistant message's parts are what the model answered, and one assistant message may hold
several model calls: each call's parts open with a `step-start` part and close with a `step-finish` part carrying
that call's `tokens` (input, output, reasoning, cache read and write) and why it stopped (`reason`). Between them
come `text`, `reasoning` and `tool` parts; a tool part holds the call (`callID`, `tool`, `state.input`) and, once
it ran, its result (`state.output`, or `state.error`), which OpenCode sends back in the next call's request; the
finished tool parts, with their times, are also what the program ran after the call (its round's executions).

Like a Claude Code log this is a transcript: each step is a round whose request is the conversation before it,
rebuilt from the export (TRANSCRIPT_REQUEST) the way OpenCode builds its requests (message-v2.ts toModelMessages):
the person's text parts, the earlier steps' answers, and each tool part's output (or error) as the result of its
call. OpenCode does not export its system prompt or its tool list: every round says it lacks them, never that they
were empty. The rounds are written as Anthropic Messages bodies (reasoning as `thinking` blocks), whichever provider
answered; the export's token counts map onto that usage (`input` without the cache, `cache.read`, `cache.write`,
`output`). An assistant message without step parts (an older OpenCode's) is one round whose usage is the message's.
"""

from __future__ import annotations

from typing import Any, Iterator

from lib.dialects import ANTHROPIC
from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe, require
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.model import TRANSCRIPT_REQUEST
from lib.text import plural

PROVENANCE = {
    "origin": "derived",
    "note": "The request is the conversation before this model call as the export kept it (the person's messages, "
            "the earlier calls' answers, and each tool part's output as the result of its call), not a request on "
            "record as sent. OpenCode does not export its system prompt: it was sent, but is neither shown nor "
            "counted here. The answer, its calls and its usage are as recorded, in a Messages body whichever "
            "provider answered.",
    "omitted": ["system", "tools"],
    "sent": ["tools"],
}
"""Every round's provenance: what the export lacks, said where the round is shown (lib/provenance.py). OpenCode sends
its tool list with every request and never exports it: said once, where the list would be (`sent`); what the export
was converted from, and into, the origin line says (converted_from)."""

FAILED_NOTE = (" The call ended with the error OpenCode recorded on its message ({name}): {kept}.")
"""Added to the note of a round whose message OpenCode recorded an error on."""

NO_USAGE = (" The export kept no step-finish part for this call, so its usage is not in the log.")
"""Added to the note of a step whose call did not finish."""

STOP_REASONS = {"tool-calls": "tool_use", "stop": "end_turn", "length": "max_tokens", "content-filter": "refusal"}
"""A step-finish `reason` (the AI SDK's finish reason) as the Messages stop reason; others are kept as written."""

TOOL_EFFECTS = {"write": "write", "edit": "write", "multiedit": "write", "patch": "write", "apply_patch": "write",
                "todowrite": "narration", "todoread": "read"}
"""What OpenCode's own tools do (CallRecord.tool_effects): write, edit, multiedit, patch and apply_patch edit files
(multiedit and apply_patch though their names start with no such verb); todowrite is the to-do list it shows the
person, todoread reads it back. bash may do anything, and is left to no declaration, as Claude Code's Bash is."""

INTERRUPTED = "[Tool execution was interrupted]"
"""What OpenCode sends back for a call whose tool part is still pending or running (message-v2.ts)."""

DAMAGED = ("messages[{place}]: {problem}: that message is left out of the session read as OpenCode's; its other "
           "messages still load, and the requests rebuilt after it lack it")
"""Said of a message of the export that could not be read."""

EMPTY = ("{count} of this session hold{s} no parts: no response is in the export for {them}, so no round")
"""Said of assistant messages with no parts."""

EMPTY_TOKENS = ("; OpenCode recorded {input:,} input and {output:,} output tokens on {them}, which no figure here "
                "counts")
"""Added where those messages carry token counts: what the session's totals here leave out."""

COMPACTED = ("OpenCode compacted this session here: it sent the calls after the compaction its summary and the turns "
             "after it, not the whole conversation; the requests shown after it are rebuilt from the whole export")
"""Said where a user message holds a compaction part."""

REASONING = (" OpenCode counted {count:,} reasoning tokens for this call apart; a Messages usage has no field for "
             "them, so they are not shown apart here (whether the output count holds them depends on the provider).")
"""Added to the note of a round whose export counts reasoning tokens."""


class OpenCodeSessionFormat(LogFormat):
    """An OpenCode session export, one round per model call (step)."""

    name = "opencode-session"
    detect_keys = frozenset({"info"})
    title = "OpenCode session export"
    reads = "an 'info' beside 'messages', each message an 'info' with its 'parts'"

    def __init__(self) -> None:
        self._notes: list[Problem] = []

    def detect(self, obj: dict) -> str | None:
        info, messages = obj.get("info"), obj.get("messages")
        first = messages[0] if isinstance(messages, list) and messages else None
        if (isinstance(info, dict) and isinstance(first, dict) and isinstance(first.get("info"), dict)
                and "role" in first["info"] and isinstance(first.get("parts"), list)):
            return ("an 'info' beside 'messages', each an 'info' with a 'role' and its 'parts' (an OpenCode session "
                    "export)")
        return None

    def notes(self) -> list[Problem]:
        return self._notes

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        messages = require(obj, "messages", list)
        info = obj.get("info") if isinstance(obj.get("info"), dict) else {}
        session = f"session {info['id']}" if isinstance(info.get("id"), str) else f"session {line}"
        turns: list[dict] = []
        records: list[CallRecord] = []
        empty = 0
        unshown = [0, 0]  # the input and output OpenCode counted on messages that make no round
        for place, message in enumerate(messages):
            try:
                role, parts = _message(message)
            except LineProblem as problem:
                self._notes.append(Problem(line, DAMAGED.format(place=place, problem=problem), conversation=session,
                                           loaded=True))
                continue
            meta = message["info"]
            if role == "user":
                if any(p.get("type") == "compaction" for p in parts):
                    self._notes.append(Problem(line, f"messages[{place}]: {COMPACTED}", conversation=session,
                                               loaded=True))
                content = _user_content(parts)
                if content:
                    add_turn(turns, "user", content)
                continue
            error = meta.get("error") if isinstance(meta.get("error"), dict) else None
            if not parts and error is None:
                empty += 1
                usage = step_usage(meta.get("tokens")) or {}
                unshown[0] += sum(v for k, v in usage.items() if k != "output_tokens")
                unshown[1] += usage.get("output_tokens", 0)
                continue
            # A call that failed before its stream began (an authentication error) left no part: a step of none.
            steps = _steps(parts) or [[]]
            unstepped = not any(p.get("type") in ("step-start", "step-finish") for p in parts)
            for at, step in enumerate(steps):
                last = at == len(steps) - 1
                record = _round(turns, step, meta, line, session, error if last else None, unstepped)
                earlier = records[-1].timestamp if records else None
                if earlier and (record.timestamp is None or record.timestamp < earlier):
                    record.timestamp = earlier  # a step whose parts kept no time began after the step before it
                record.executions = step_executions(step)
                records.append(record)
                blocks = step_blocks(step)
                if not _dropped(error, parts):  # OpenCode leaves a failed message out of later requests
                    if blocks:
                        add_turn(turns, "assistant", blocks)
                    results = step_results(step)
                    if results:
                        add_turn(turns, "user", results)
        if empty:
            them = "it" if empty == 1 else "them"
            said = EMPTY.format(count=plural(empty, "assistant message"), s="s" if empty == 1 else "", them=them)
            if any(unshown):
                said += EMPTY_TOKENS.format(input=unshown[0], output=unshown[1], them=them)
            self._notes.append(Problem(line, said, conversation=session, loaded=True))
        if not records:
            raise LineProblem("'messages' holds no assistant message with parts, so there is no round")
        yield from records


def _message(message: Any) -> tuple[str, list[dict]]:
    """A message's role and its parts (only the parts that are objects with a type); a LineProblem when it is none."""
    if not isinstance(message, dict):
        raise LineProblem(f"it is {describe(message)}, expected a message object")
    meta = message.get("info")
    if not isinstance(meta, dict):
        raise LineProblem(f"its 'info' is {describe(meta) if 'info' in message else 'missing'}, expected an object")
    role = meta.get("role")
    if role not in ("user", "assistant"):
        raise LineProblem(f"its info.role is {describe(role)}, expected 'user' or 'assistant'")
    parts = message.get("parts")
    if not isinstance(parts, list):
        raise LineProblem(f"its 'parts' is {describe(parts) if 'parts' in message else 'missing'}, expected a list")
    return role, [p for p in parts if isinstance(p, dict) and isinstance(p.get("type"), str)]


def _user_content(parts: list[dict]) -> list[dict]:
    """A user message as the blocks OpenCode sends: its text parts (not those marked `ignored`), and its files other
    than text and directories (whose content OpenCode already put in text parts)."""
    blocks: list[dict] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str) and part.get("ignored") is not True:
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "file" and part.get("mime") not in ("text/plain", "application/x-directory"):
            blocks.append(part)
    return blocks


def _steps(parts: list[dict]) -> list[list[dict]]:
    """An assistant message's parts cut into its model calls: each from a `step-start` to the `step-finish` after it.
    Parts outside any step (an older export without step parts) make one step of their own."""
    steps: list[list[dict]] = []
    current: list[dict] | None = None
    for part in parts:
        kind = part.get("type")
        if kind == "step-start":
            if current:
                steps.append(current)
            current = [part]
            continue
        if current is None:
            current = []
        current.append(part)
        if kind == "step-finish":
            steps.append(current)
            current = None
    if current:
        steps.append(current)
    return steps


def step_blocks(step: list[dict]) -> list[dict]:
    """The step's answer as Messages content blocks: text, reasoning as thinking, tool parts as the calls."""
    blocks: list[dict] = []
    for part in step:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            blocks.append({"type": "thinking", "thinking": part["text"]})
        elif kind == "tool":
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            arguments = state.get("input")
            blocks.append({"type": "tool_use", "id": str(part.get("callID") or ""), "name": str(part.get("tool") or ""),
                           "input": arguments if isinstance(arguments, dict) else {}})
    return blocks


def _result(part: dict) -> tuple[str, bool]:
    """What OpenCode sends back for a tool part: its output, its error, or that it was interrupted; and whether it
    failed."""
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    status = state.get("status")
    if status == "completed":
        output = state.get("output")
        return (output if isinstance(output, str) else convert.json_text(output)), False
    if status == "error":
        error = state.get("error")
        return (error if isinstance(error, str) else convert.json_text(error)), True
    return INTERRUPTED, True


def step_results(step: list[dict]) -> list[dict]:
    """The step's tool parts' results as `tool_result` blocks: the next call's request carries them."""
    results = []
    for part in step:
        if part.get("type") == "tool":
            said, failed = _result(part)
            block: dict = {"type": "tool_result", "tool_use_id": str(part.get("callID") or ""), "content": said}
            if failed:
                block["is_error"] = True
            results.append(block)
    return results


def step_executions(step: list[dict]) -> list[dict]:
    """What the program ran for the step's calls, as execution entries: each tool part that finished (completed or
    failed), with its output or error and how long it ran; a part still pending or running ran to no end."""
    ran = []
    for part in step:
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        if part.get("type") == "tool" and state.get("status") in ("completed", "error"):
            said, failed = _result(part)
            entry = {"tool_call_id": str(part.get("callID") or ""), "name": str(part.get("tool") or ""),
                     "arguments": state.get("input"), "output": said, "ok": not failed}
            time = convert.object_at(state, "time")
            start, end = convert.as_int(time.get("start")), convert.as_int(time.get("end"))
            if start is not None and end is not None and end >= start:
                entry["duration_ms"] = end - start
            ran.append(entry)
    return ran


def add_turn(turns: list[dict], role: str, blocks: list[dict]) -> None:
    """A turn added to the conversation, joined to the one before it when both are the same role (the API reads
    consecutive messages of one role as one)."""
    if turns and turns[-1]["role"] == role:
        turns[-1] = {"role": role, "content": [*turns[-1]["content"], *blocks]}
    else:
        turns.append({"role": role, "content": blocks})


def _dropped(error: dict | None, parts: list[dict]) -> bool:
    """Whether OpenCode leaves the message out of later requests: it failed, unless the person stopped it after it
    had answered more than reasoning (message-v2.ts toModelMessages)."""
    if error is None:
        return False
    return not (error.get("name") == "MessageAbortedError"
                and any(p.get("type") not in ("step-start", "reasoning") for p in parts))


def step_usage(tokens: Any) -> dict | None:
    """An export's `tokens` as Messages usage: `input` is OpenCode's count without the cache, as Messages counts it."""
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    usage = {"input_tokens": convert.as_int(tokens.get("input")), "output_tokens": convert.as_int(tokens.get("output"))}
    if usage["input_tokens"] is None and usage["output_tokens"] is None:
        return None
    usage = {k: v or 0 for k, v in usage.items()}
    for key, count in (("cache_read_input_tokens", cache.get("read")), ("cache_creation_input_tokens",
                                                                        cache.get("write"))):
        if (count := convert.as_int(count)) is not None:
            usage[key] = count
    return usage


def _round(turns: list[dict], step: list[dict], meta: dict, line: int, session: str, error: dict | None,
           whole: bool) -> CallRecord:
    """One step as a round: its request the conversation before it; `whole` when its message has no step parts (an
    older OpenCode's), so the message is one call and its own tokens and finish are that call's."""
    finish = next((p for p in step if p.get("type") == "step-finish"), None)
    model = meta.get("modelID") if isinstance(meta.get("modelID"), str) else None
    note = PROVENANCE["note"]
    # A message's own tokens stand for its one call only where it has no step parts and did not fail: a failed
    # message's are what its finished steps summed, none of them this call's.
    whole = whole and (error is None or finish is not None)
    usage = step_usage(finish.get("tokens")) if finish is not None else (step_usage(meta.get("tokens")) if whole else None)
    reason = finish.get("reason") if finish is not None else (meta.get("finish") if whole else None)
    if usage is None:
        note += NO_USAGE
    counted = finish.get("tokens") if finish is not None else (meta.get("tokens") if whole else None)
    reasoning = convert.as_int(counted.get("reasoning")) if isinstance(counted, dict) else None
    if reasoning:
        note += REASONING.format(count=reasoning)
    blocks = step_blocks(step)
    response: dict | None = {"type": "message", "role": "assistant", "content": blocks,
                             "stop_reason": STOP_REASONS.get(reason, reason) if isinstance(reason, str) else None}
    if model is not None:
        response = {**response, "model": model}
    if isinstance(meta.get("id"), str):
        response["id"] = meta["id"]
    if usage is not None:
        response["usage"] = usage
    failure = None
    if error is not None and finish is None:
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        name = error.get("name") if isinstance(error.get("name"), str) else "an error"
        said = data.get("message") if isinstance(data.get("message"), str) else name
        status = data.get("statusCode")
        failure = {"status": status if isinstance(status, int) and not isinstance(status, bool) else None,
                   "body": error, "message": f"{name}: {said}"}
        note += FAILED_NOTE.format(name=name, kept="the response shown is the parts the export kept before it"
                                   if blocks else "no response is in the export")
        if not blocks:
            response = None
    request: dict = {"messages": [dict(t) for t in turns]}
    if model is not None:
        request["model"] = model
    return CallRecord(line=line, dialect=ANTHROPIC, request=request, response=response, error=failure,
                      conversation=session, derived=[TRANSCRIPT_REQUEST], converted_from="opencode-session",
                      timestamp=_when(step, meta), provenance={**PROVENANCE, "note": note},
                      tool_effects=TOOL_EFFECTS)


def _when(step: list[dict], meta: dict) -> str | None:
    """When the step began: its first part's start time, else its message's creation (milliseconds since the
    epoch)."""
    for part in step:
        time = part.get("time") if isinstance(part.get("time"), dict) else {}
        if (start := convert.as_int(time.get("start"))) is not None:
            return convert.iso_time(start // 1000, (start % 1000) * 1_000_000)
    created = convert.as_int(convert.object_at(meta, "time").get("created"))
    return None if created is None else convert.iso_time(created // 1000, (created % 1000) * 1_000_000)
