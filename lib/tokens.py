"""Token estimates for rounds whose API reported no usage, counted offline with tiktoken.

Every distinct message is counted once and remembered by its content key, so a 1,000-round trace
costs about as much to count as its unique content, not as its resent copies.

The estimate is deliberately simple and documented (docs/architecture.md):
- each message: its text, call names and arguments, and tool results, plus a fixed framing
  overhead per message (the role markers a chat template wraps around it);
- the tool list: the JSON text of the definitions;
- the response: the assistant message counted the same way, without the framing.

When another round of the same trace has reported usage, an input estimate is anchored on it:
reported input of that round plus the difference between the two rounds' estimates. What we
cannot count (how the provider renders tools, its chat template, its own tokenizer) is nearly the
same in every request of one conversation, so it cancels; what differs is content we can count.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import tiktoken

from lib.encodings import count_tokens
from lib.model import Message, OtherPart, Round, TextPart, ToolCallPart, ToolDefinition, ToolResultPart, Trace, Usage

MESSAGE_FRAMING = 3
"""Tokens a chat template adds around each message (role and separators), as OpenAI documents for its chat models."""

REPLY_PRIMING = 3
"""Tokens that open the assistant's reply in every request."""

_counts: dict[tuple[str, str], int] = {}
_lock = threading.Lock()


def _remember(encoding: tiktoken.Encoding, key: str, text_of) -> int:
    cache_key = (encoding.name, key)
    found = _counts.get(cache_key)
    if found is None:
        found = count_tokens(text_of(), encoding)
        with _lock:
            _counts[cache_key] = found
    return found


def _message_text(message: Message) -> str:
    pieces = []
    for part in message.parts:
        match part:
            case TextPart(text=text):
                pieces.append(text)
            case ToolCallPart(name=name, arguments_raw=arguments):
                pieces.append(f"{name} {arguments}")
            case ToolResultPart(content=content):
                pieces.append(content)
            case OtherPart(raw=raw):
                pieces.append(json.dumps(raw, ensure_ascii=False))
    return "\n".join(pieces)


def message_tokens(message: Message, encoding: tiktoken.Encoding) -> int:
    """Tokens of one message's content, without framing."""
    return _remember(encoding, message.key, lambda: _message_text(message))


def tools_tokens(tools: tuple[ToolDefinition, ...], encoding: tiktoken.Encoding) -> int:
    """Tokens of a tool list's definitions as JSON text."""
    return sum(
        _remember(encoding, tool.key, lambda tool=tool: json.dumps(tool.raw, ensure_ascii=False)) for tool in tools
    )


def estimate_input(round_: Round, encoding: tiktoken.Encoding) -> int:
    """Estimated input tokens of a round's request."""
    messages = round_.request.messages
    total = sum(message_tokens(m, encoding) + MESSAGE_FRAMING for m in messages) + REPLY_PRIMING
    if round_.request.system is not None:
        total += message_tokens(round_.request.system, encoding) + MESSAGE_FRAMING
    return total + tools_tokens(round_.request.tools, encoding)


def estimate_usage(round_: Round, encoding: tiktoken.Encoding) -> Usage:
    """An estimate of the round's usage, marked as estimated."""
    output = message_tokens(round_.response.message, encoding) if round_.response else 0
    return Usage(input_tokens=estimate_input(round_, encoding), output_tokens=output, source="estimated")


def _reported(round_: Round) -> Usage | None:
    return round_.response.usage if round_.response is not None else None


def _anchor(trace: Trace, index: int) -> Round | None:
    """The nearest round with reported usage, earlier ones first."""
    earlier = [r for r in trace.rounds[: index - 1] if _reported(r)]
    if earlier:
        return earlier[-1]
    return next((r for r in trace.rounds[index:] if _reported(r)), None)


def round_usage(trace: Trace, index: int, encoding: tiktoken.Encoding | None) -> Usage | None:
    """Round `index`'s reported usage, else an estimate (anchored where it can be), else None."""
    round_ = trace.rounds[index - 1]
    if _reported(round_) is not None:
        return _reported(round_)
    if encoding is None:
        return None
    estimate = estimate_usage(round_, encoding)
    anchor = _anchor(trace, index)
    if anchor is None:
        return estimate
    offset = _reported(anchor).input_tokens - estimate_input(anchor, encoding)
    return replace(estimate, input_tokens=max(0, estimate.input_tokens + offset), anchor_round=anchor.index)
