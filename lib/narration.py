"""A response that announces an action and ends the turn without a call: narration, not an answer.

One predicate, shared by the `narration-without-call` check and the step labels, so the Checks
page, the explorer and the presenter call the same response the same thing.
"""

from __future__ import annotations

import re

from lib.model import Message, Round, Trace

_ANNOUNCES = re.compile(
    r"\b(let me|i['’]ll|i will|i['’]m going to|i am going to)\s+(now\s+)?"
    r"(check|look|find|search|query|fetch|pull|get|verify|see|call|run|try)\b"
    r"|\b(one|just a) (moment|second|sec)\b",
    re.IGNORECASE,
)
"""Words that announce an action the model is about to take."""


def _result_since_question(messages: tuple[Message, ...]) -> bool:
    """Whether a tool result arrived after the last message of the person (or program) asking."""
    for message in reversed(messages):
        if message.tool_results:
            return True
        if message.role == "user":
            return False
    return False


def tools_in_play(trace: Trace) -> bool:
    """Whether the conversation has tools: some request offers them, or some response calls one (a log may keep the
    calls and not the tool list). Without tools a model can call nothing, so announcing a look is its answer."""
    return any(r.request.tools or r.tool_calls for r in trace.rounds)


def narrates_without_call(round_: Round, tooled: bool = True) -> bool:
    """The response announces an action, calls no tool, and no result has come since the question; `tooled` is
    `tools_in_play` of the round's conversation."""
    response = round_.response
    if response is None or response.message.tool_calls or not tooled:
        return False
    return bool(_ANNOUNCES.search(response.message.text)) and not _result_since_question(round_.request.messages)
