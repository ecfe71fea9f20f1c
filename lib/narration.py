"""A response that announces an action and ends the turn without a call: narration, not an answer.

One predicate, shared by the `narration-without-call` check and the step labels, so the Checks
page, the explorer and the presenter call the same response the same thing.
"""

from __future__ import annotations

import re

from lib.model import Message, Round

_ANNOUNCES = re.compile(
    r"\b(let me|i['’]ll|i will|i['’]m going to|i am going to)\s+(now\s+)?"
    r"(check|look|find|search|query|fetch|pull|get|verify|see|call|run|try)\b"
    r"|\b(one|just a) (moment|second|sec)\b",
    re.IGNORECASE,
)
"""Words that announce an action the model is about to take."""

_ASKS = re.compile(r"\?(?:\s|$)")
"""A question in the text: a question mark that ends a sentence (not one inside an address's query string)."""

PROVIDER_RAN = frozenset({"server_tool_use", "mcp_tool_use", "web_search_call", "file_search_call",
                          "code_interpreter_call", "mcp_call", "image_generation_call"})
"""Parts that record a tool the provider ran inside the turn (Anthropic's server tools, the Responses API's built-in
ones): the model acted, though it made no call for the program to run."""


def _result_since_question(messages: tuple[Message, ...]) -> bool:
    """Whether a tool result arrived after the last message of the person (or program) asking."""
    for message in reversed(messages):
        if message.tool_results:
            return True
        if message.role == "user":
            return False
    return False


def _no_tool_to_call(round_: Round) -> bool:
    """A recorded request that offers no tool and whose history holds no call: the model could call nothing (a
    grader's call, a plain chat). A transcript that kept the calls but not the tool list still had tools. Nor could
    it where the request lists tools but forbids calling them (`tool_choice` "none", Messages' `{"type": "none"}`):
    the words that promise an action are the program's choice to answer in text, no missed call."""
    request = round_.request
    choice = request.raw.get("tool_choice") if isinstance(request.raw, dict) else None
    if round_.request_recorded and (choice == "none" or (isinstance(choice, dict) and choice.get("type") == "none")):
        return True
    return round_.request_recorded and not request.tools and not any(
        m.tool_calls or m.tool_results for m in request.messages)


def narrates_without_call(round_: Round) -> bool:
    """The response announces an action, calls no tool it was offered, asks the person nothing, and no result has
    come since the question."""
    response = round_.response
    if response is None or response.message.tool_calls or _no_tool_to_call(round_):
        return False
    if any(p.kind == "other" and p.type in PROVIDER_RAN for p in response.message.parts):
        return False
    text = response.message.text
    # A turn that asks the person something ("Which repository? Share it and I'll fetch the info.") waits for their
    # answer, as it should: the action it names depends on it.
    return bool(_ANNOUNCES.search(text)) and not _ASKS.search(text) \
        and not _result_since_question(round_.request.messages)
