"""A trace condensed for the round navigator, which holds every round in the browser: each distinct message once,
rounds referring to them by number, as Inspect's condensed log does, and every value plain JSON text.

What a round carries is what its card reads first: the messages new in its request, the response's text and
tool calls (or the error), and the tool results the program produced after it. Long texts are cut at `CLIP`
characters; the cards below the navigator show them whole."""

from __future__ import annotations

import json

from lib.failures import status_words
from lib.growth import (instructions_added, kept_before, matched, placed_length, realigned, resent_prefix,
                         round_heading, since_words)
from lib.model import Message, Part, Round, Trace
from lib.provenance import ANSWER_NOT_CAPTURED
from lib.text import show_controls

CLIP = 600
"""Characters of one text the navigator holds; the rest is counted, and read in the round's cards."""


def _clipped(text: str) -> str:
    text = show_controls(text)
    if len(text) <= CLIP:
        return text
    return text[:CLIP] + f"\n… {len(text) - CLIP:,} more characters, in the round's cards below"


def _part(part: Part) -> list[str]:
    """[kind, label, text]: kind one of text, call, result, other."""
    match part.kind:
        case "text":
            return ["text", "", _clipped(part.text)]
        case "tool-call":
            return ["call", show_controls(f"tool call {part.name} · id {part.id}"), _clipped(part.arguments_raw)]
        case "tool-result":
            error = " · marked as an error" if part.is_error else ""
            return ["result", show_controls(f"tool result for call {part.call_id}{error}"), _clipped(part.content)]
        case _:
            return ["other", show_controls(f"a {part.type} part, in the round's cards below"), ""]


def _message(message: Message) -> list:
    return [show_controls(str(message.role)), [_part(part) for part in message.parts]]


def _output(output) -> str:
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)


class _Messages:
    """Numbers each distinct message the first time a round refers to it."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.condensed: list[list] = []

    def number(self, message: Message) -> int:
        if message.key not in self.numbers:
            self.numbers[message.key] = len(self.condensed)
            self.condensed.append(_message(message))
        return self.numbers[message.key]


def _round(trace: Trace, round_: Round, messages: _Messages) -> dict:
    """New and changed as the round's cards count them (lib/growth.py): past the messages placed against the latest
    earlier request the log kept (placed_length: all of them, or those kept where the program cut its history), new;
    among them and unlike the copy sent then, changed."""
    sent = round_.request.messages
    kept = kept_before(trace.rounds, round_.index) if round_.request_recorded else None
    before = kept.request.messages if kept else ()
    start = resent_prefix(trace.rounds, round_.index)
    if instructions_added(round_, kept):  # new instructions, then that request resent one place on
        changed, new = [], [sent[0], *sent[1 + len(before):]]
    elif (found := realigned(round_, kept)) is not None:  # some of that request left out, the rest resent unchanged
        changed, new = [], sent[found[0]:]
    elif (aligned := matched(round_, kept)) is not None:  # rewritten, the rest resent unchanged at other places
        changed = [sent[i] for i, _ in aligned.changed]
        placed = {i for i, _ in aligned.resent} | {i for i, _ in aligned.changed}
        new = [message for i, message in enumerate(sent) if i not in placed]
    else:  # a cut history (a compaction) is placed only up to the cut: what follows it is new, not changed
        placed = placed_length(round_, kept)
        changed = [message for message, earlier in zip(sent[start:placed], before[start:placed])
                   if message is not earlier and message != earlier]
        new = sent[placed:]
    since = since_words(round_.index, kept.index if kept else None)
    condensed = {"heading": round_heading(round_, len(new), since),
                 "new": [messages.number(message) for message in new],
                 "changed": [messages.number(message) for message in changed],
                 "results": [[show_controls(execution.name), show_controls(execution.tool_call_id), execution.ok,
                              _clipped(_output(execution.output))] for execution in round_.executions]}
    if round_.response is not None:
        condensed["response"] = messages.number(round_.response.message)
        if not round_.answer_recorded:  # not "(no content)": the model may have written much
            condensed["response_empty"] = ANSWER_NOT_CAPTURED
    elif round_.error is not None:
        error = round_.error  # a stream an error event ended says both statuses (lib.failures.status_words)
        status = status_words(error) if error.ended_stream else error.status or "no status"
        condensed["error"] = _clipped(f"{status}: {error.message}")
    return condensed


def condensed_rounds(trace: Trace) -> dict:
    """{"rounds": [...], "messages": [...]}: each round's heading, its new and changed messages and its response as
    numbers into `messages`, its error and tool results, and for a turn the log did not capture (Round.answer_recorded)
    what its empty response says (`response_empty`); each message as [role, [[kind, label, text], ...]]."""
    messages = _Messages()
    rounds = [_round(trace, round_, messages) for round_ in trace.rounds]
    return {"rounds": rounds, "messages": messages.condensed}
