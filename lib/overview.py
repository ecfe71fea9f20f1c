"""One summary row per round: the numbers the overview table and the growth chart show."""

from __future__ import annotations

from dataclasses import dataclass

import tiktoken

from lib.growth import growth
from lib.model import Trace
from lib.tokens import round_usage


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The figures of one round at a glance."""

    round: int
    """1-based round number."""
    messages_sent: int
    """Length of the request's messages array."""
    new_messages: int
    """Messages this request added to the previous one."""
    tool_calls: int
    """Call intents in the response."""
    finish_reason: str
    """The stop signal as the provider wrote it, or what happened instead."""
    input_tokens: int | None
    """Input tokens, reported or estimated; None when neither is available."""
    output_tokens: int | None
    """Output tokens, reported or estimated."""
    tokens_source: str
    """`reported`, `estimated`, or `unavailable`."""


def summarize(trace: Trace, encoding: tiktoken.Encoding | None) -> tuple[RoundSummary, ...]:
    """A summary row for every round of the trace."""
    rows = []
    for round_ in trace.rounds:
        usage = round_usage(trace, round_.index, encoding)
        if round_.response is not None:
            finish = str(round_.response.finish_reason) if round_.response.finish_reason else f"({round_.response.stop})"
        elif round_.error is not None:
            finish = f"error {round_.error.status or ''}".strip()
        else:
            finish = "(no response)"
        rows.append(
            RoundSummary(
                round=round_.index,
                messages_sent=len(round_.request.messages),
                new_messages=len(growth(trace, round_.index).new),
                tool_calls=len(round_.tool_calls),
                finish_reason=finish,
                input_tokens=usage.input_tokens if usage else None,
                output_tokens=usage.output_tokens if usage else None,
                tokens_source=usage.source if usage else "unavailable",
            )
        )
    return tuple(rows)
