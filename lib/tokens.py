"""Where a round's input tokens go, counted offline, and estimates for rounds without usage.

Every distinct message and tool is counted once and remembered by its content key, and each
round's breakdown is built from the previous round's plus what the request adds. So a 1,000-round
trace costs about as much to count as its unique content, not as its resent copies.

How the parts are estimated (docs/tokens.md has the measured accuracy):
- a message: its text, call names and arguments, tool results, and other parts as JSON;
- framing: a fixed number of tokens per message for the role markers a chat template adds, plus
  the tokens that open the reply (OpenAI documents 3 and 3 for its chat models);
- the tool list: the JSON text of each definition; for Claude, Anthropic also prepends a tool-use system
  prompt whenever tools are sent (346 tokens on current Claude models, 530, 159 and 264 on Claude 3 Opus,
  Sonnet and Haiku, per Anthropic's pricing notes, with the tool choice left to the model), counted with the tools;
- the output schema a structured-output request sends: its JSON text, an estimate of how the provider writes it;
- the response: the assistant message, without framing.

When another round of the same trace has reported usage, an input estimate is anchored on it:
that round's reported input plus the difference between the two rounds' estimates. What we
cannot count (how the provider renders tools, its chat template, its own tokenizer) is nearly the
same in every request of one conversation, so it cancels; what differs is content we can count.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import tiktoken

from lib.dialects import ANTHROPIC, OPENAI
from lib.encodings import VocabularyUnavailable, count_tokens, load_encoding
from lib.growth import changed_at, held_indices, instructions_added, kept_before, matched, realigned, resent_prefix
from lib.injected import command_result
from lib.intern import content_key
from lib.lru import LeastRecentlyUsed
from lib.model import (
    built_fast,
    TOOLS_IN_PROMPT,
    Message,
    OtherPart,
    Round,
    TextPart,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    Trace,
    Usage,
)

INSTRUCTION_ROLES = frozenset({"system", "developer"})
"""Roles whose messages count as instructions rather than conversation, but for a command's result an agent appends
in the system role (lib.injected.command_result: AutoGPT's "Command read_file returned: ..."), which is conversation."""


@dataclass(frozen=True, slots=True)
class Framing:
    """Tokens a provider adds around the content we can count."""

    per_message: int
    """Role markers and separators around each message."""
    reply: int
    """Tokens that open the assistant's reply in every request."""
    tools_preamble: int
    """A fixed system text the provider adds whenever tools are sent."""


FRAMING = {
    OPENAI: Framing(per_message=3, reply=3, tools_preamble=0),
    ANTHROPIC: Framing(per_message=3, reply=0, tools_preamble=346),
}


TOOL_PROMPTS = ((re.compile(r"claude-3-opus"), 530), (re.compile(r"claude-3-sonnet"), 159),
                (re.compile(r"claude-3-(?:5-)?haiku"), 264))
"""Claude models whose tool-use system prompt is not the current models' 346 tokens (Anthropic's pricing notes, tool
choice auto); matched in any spelling of the model's id (`anthropic.claude-3-sonnet-20240229-v1:0` on Bedrock)."""


def framing_of(trace: Trace) -> Framing:
    """The framing of the trace's dialect; the tool-use prompt only for Claude (or an unnamed model on Anthropic's
    API), of the size the model's family has: Bedrock Converse reads as the Anthropic dialect for every model it
    serves, Amazon Nova's included."""
    framing = FRAMING.get(trace.dialect, FRAMING[OPENAI])
    model = (trace.model or "").lower()
    if not framing.tools_preamble or not model:
        return framing
    if "claude" not in model:
        return replace(framing, tools_preamble=0)
    sized = next((tokens for pattern, tokens in TOOL_PROMPTS if pattern.search(model)), None)
    return replace(framing, tools_preamble=sized) if sized is not None else framing


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """A way to count the tokens of a text."""

    name: str
    """The tiktoken encoding's name, or `characters` for the rule of thumb."""
    exact: bool
    """True for a real tokenizer; False for the characters-per-token rule of thumb."""
    count: Callable[[str], int] = field(compare=False, repr=False)
    """Tokens in one text."""


def tiktoken_counter(encoding: tiktoken.Encoding) -> TokenCounter:
    """A counter backed by a real tiktoken vocabulary."""
    return TokenCounter(encoding.name, True, lambda text: count_tokens(text, encoding))


CHARACTERS_PER_TOKEN = 4
"""The usual rule of thumb for English text with OpenAI-style vocabularies."""

CHARACTER_COUNTER = TokenCounter("characters", False, lambda text: -(-len(text) // CHARACTERS_PER_TOKEN))
"""The fallback when no vocabulary can be loaded; its figures are labeled as such."""



@dataclass(frozen=True, slots=True)
class Counting:
    """The token counter in use, and why it is not the one asked for, if it is not."""

    counter: TokenCounter
    """What counts."""
    problem: str | None
    """Why no vocabulary could be loaded, when the counter fell back to characters."""


def counter_for(name: str) -> Counting:
    """The counter named (`characters` or a tiktoken encoding); characters, saying why, when the
    vocabulary cannot be loaded."""
    if name == CHARACTER_COUNTER.name:
        return Counting(CHARACTER_COUNTER, None)
    try:
        return Counting(tiktoken_counter(load_encoding(name)), None)
    except VocabularyUnavailable as exc:
        return Counting(CHARACTER_COUNTER, str(exc))


COUNTS_KEPT = 200_000
"""Distinct (counter, message or tool) counts remembered: tens of MB at most, far more than one
long trace holds, so a trace being read never recounts, while a server left running for weeks of
uploads does not grow without end."""

_counts: LeastRecentlyUsed[int] = LeastRecentlyUsed(COUNTS_KEPT)
"""Counts by (counter, content key), shared by every session. Two sessions counting the same new
message at once merely count it twice."""


def _remember(counter: TokenCounter, key: str, text_of: Callable[[], str]) -> int:
    cache_key = (counter.name, key)
    found = _counts.get(cache_key)
    if found is None:
        found = counter.count(text_of())
        _counts.put(cache_key, found)
    return found


def _message_text(message: Message) -> str:
    return _parts_text(message.parts)


def _parts_text(parts: tuple) -> str:
    if len(parts) == 1 and type(parts[0]) is TextPart:
        return parts[0].text  # most messages: no pattern matching, no join
    pieces = []
    for part in parts:
        # Exact types, not class patterns: this runs once for every distinct message a trace holds.
        kind = type(part)
        if kind is TextPart:
            pieces.append(part.text)
        elif kind is ToolCallPart:
            pieces.append(f"{part.name} {part.arguments_raw}")
        elif kind is ToolResultPart:
            pieces.append(part.content)
        elif kind is OtherPart:
            pieces.append(json.dumps(part.raw, ensure_ascii=False))
    return "\n".join(pieces)


def message_tokens(message: Message, counter: TokenCounter) -> int:
    """Tokens of one message's content, without framing; counted once per distinct message."""
    return _remember(counter, message.key, lambda: _message_text(message))


NOT_OUTPUT = frozenset({"thought_summary"})
"""Kinds of a response's parts the output estimate leaves out: Gemini CLI's thought summaries summarize the model's
thinking, whose own tokens (billed as output) the log does not hold; the summary's text is not what was billed."""


def left_out_of_output(message: Message) -> tuple[str, ...]:
    """The kinds of NOT_OUTPUT parts an answer holds, which its output estimate does not count (one of each)."""
    return tuple(dict.fromkeys(p.type for p in message.parts if type(p) is OtherPart and p.type in NOT_OUTPUT))


def answer_tokens(message: Message, counter: TokenCounter) -> int:
    """Tokens of what the model wrote in a response, for its output estimate: its text and calls, the NOT_OUTPUT
    parts left out (every view's estimated output comes from here, through estimate_usage)."""
    if not left_out_of_output(message):
        return message_tokens(message, counter)
    kept = tuple(p for p in message.parts if not (type(p) is OtherPart and p.type in NOT_OUTPUT))
    return _remember(counter, message.key + " answer", lambda: _parts_text(kept))


def tools_tokens(tools: tuple[ToolDefinition, ...], counter: TokenCounter) -> int:
    """Tokens of a tool list's definitions as JSON text; counted once per distinct tool."""
    return sum(
        _remember(counter, tool.key, lambda tool=tool: json.dumps(tool.raw, ensure_ascii=False)) for tool in tools
    )


@built_fast
@dataclass(frozen=True, slots=True)
class InputBreakdown:
    """Where one request's input tokens go (estimated)."""

    instructions: int
    """System and developer messages, and Anthropic's top-level system prompt; not a command's result an agent appends
    in the system role (INSTRUCTION_ROLES), which is a tool's result, counted as history or new."""
    tools: int
    """The tool definitions, and any fixed preamble the provider adds for them."""
    history: int
    """Conversation messages resent unchanged from the previous request (the provider-held ones are `held`)."""
    new: int
    """Conversation messages this request adds: user turns, the echoed assistant turn, tool results (not the `changed`
    ones)."""
    framing: int
    """Per-message role markers and the reply opener."""
    counter: str
    """What counted: a tiktoken encoding name or `characters`."""
    resent: int = 0
    """Of the counted tokens, those the previous request already sent: instructions, tool definitions,
    earlier messages and their framing."""
    not_counted: int = 0
    """The headline minus what we counted: reported tokens (or an anchor round's) our count does not
    see, such as the chat template and provider tokens; negative when we count more than was reported."""
    held: int = 0
    """Earlier messages the provider held (previous_response_id or a conversation, lib.growth.held_indices): the
    program did not send them, the model reads them and they are billed as input."""
    tools_preamble: int = 0
    """Of `tools`, the tool-use system prompt the provider adds whenever tools are sent (Anthropic's, by its published
    size: framing_of): no log holds it, so the pages say it is in the figure."""
    changed: int = 0
    """Conversation messages resent with changes, or standing where the earlier request had another message (those
    the explorer marks "changed since the previous request": lib.growth.changed_at): sent again, not unchanged, and
    not new."""
    output_schema: int = 0
    """The schema the answer must follow (Request.output_schema), counted as its JSON text: our estimate of how the
    provider renders it for the model, which no log holds."""

    @property
    def counted(self) -> int:
        """The tokens our tokenizer counted in the request."""
        return (self.instructions + self.tools + self.output_schema + self.history + self.held + self.changed + self.new
                + self.framing)

    @property
    def total(self) -> int:
        """The input headline: what we counted plus what we could not."""
        return self.counted + self.not_counted


BEYOND_OUR_COUNT = "beyond our count"
"""What every name of the part of an input our tokenizer does not see holds (is_remainder)."""
NOT_COUNTED_NAME = f"reported {BEYOND_OUR_COUNT}"
"""How the part of a reported input our tokenizer does not see begins its label, whatever the log lacks."""

INPUT_PARTS = (
    ("instructions", "instructions"),
    ("tools", "tool definitions"),
    ("output_schema", "output schema"),
    ("history", "earlier messages (resent)"),
    ("held", "earlier messages held by the provider (billed as input)"),
    ("changed", "changed messages"),
    ("new", "new messages"),
    ("framing", "message framing"),
    ("not_counted", f"{NOT_COUNTED_NAME} (template, provider tokens)"),
)
"""The parts of a round's input, field and label, in the order they are shown and stacked."""


def input_parts(breakdown: InputBreakdown) -> tuple[tuple[str, int], ...]:
    """The named parts of a round's input; they always sum to its headline, `breakdown.total`."""
    return tuple((label, getattr(breakdown, field)) for field, label in INPUT_PARTS)


NOT_COUNTED = dict(INPUT_PARTS)["not_counted"]
"""The label of the part our tokenizer does not see."""
HELD = dict(INPUT_PARTS)["held"]
"""The label of the earlier messages the provider held."""
CHANGED = dict(INPUT_PARTS)["changed"]
"""The label of the messages resent with changes."""
OUTPUT_SCHEMA = dict(INPUT_PARTS)["output_schema"]
"""The label of the schema the answer must follow."""
SHOWN_WHEN_SOME = (HELD, CHANGED, OUTPUT_SCHEMA)
"""Parts named only where a round has some: elsewhere "0" would describe something that did not happen (an API not in
use, a history not rewritten, no structured output asked for)."""

OUTPUT_SCHEMA_SAID = ("Output schema (structured output): the answer must follow it. It is part of the input; we count "
                      "it as its JSON text, an estimate of how the provider writes it for the model.")
"""Above the schema a request sent, on its card in the explorer and in the HTML file."""


def schema_tokens(schema, counter: TokenCounter) -> int:
    """Tokens of a request's output schema as its JSON text (InputBreakdown.output_schema); 0 where it sent none."""
    if schema is None:
        return 0
    return _remember(counter, "schema " + content_key(schema), lambda: json.dumps(schema, ensure_ascii=False))


PART_NOT_LOGGED = "not in the log"
"""What a part reads where the log lacks it (lib.summary.parts_unlogged; counted_parts gives it as None)."""


def not_counted_label(lacked: Iterable[str]) -> str:
    """NOT_COUNTED as said of a round whose log lacks the parts `lacked` (their labels): what the log lacks was sent
    and billed, so it is in the reported input beyond our count, beside the template and the provider's tokens."""
    lacked = tuple(lacked)
    if not lacked:
        return NOT_COUNTED
    return f"{NOT_COUNTED_NAME} (the {' and '.join(lacked)} the log lacks, template, provider tokens)"


def is_remainder(label: str) -> bool:
    """Whether a part's label names the input beyond our count, under any of its names: NOT_COUNTED, with the parts the
    log lacks (not_counted_label), or as an estimate carries a reported round's gap (lib.summary.not_counted_said)."""
    return BEYOND_OUR_COUNT in label


def input_words(parts: Iterable[tuple[str, int | None]]) -> str:
    """A round's input parts (see `input_parts`) in words. Where our count is above the input the remainder is
    negative, and a negative share is untrue: it is left out, and `split_words` says the parts are our count's; so is
    a remainder of 0, which on a trace that reported nothing would name a report there was not. Held messages are
    named only where the provider held some: elsewhere the words would describe an API not in use; changed messages
    only where some were (SHOWN_WHEN_SOME). A part the log
    lacks (None) is said to be not in the log, never 0, and the remainder says it holds it."""
    parts = tuple(parts)
    lacked = [label for label, tokens in parts if tokens is None]
    return " · ".join(f"{label} {PART_NOT_LOGGED}" if tokens is None
                      else f"{not_counted_label(lacked) if label == NOT_COUNTED else label} {tokens:,}"
                      for label, tokens in parts
                      if tokens is None or ((tokens or label not in SHOWN_WHEN_SOME)
                                            and not (is_remainder(label) and tokens <= 0)))


def overcount(parts: Iterable[tuple[str, int | None]]) -> int:
    """How many tokens our count is above the round's input (see `input_parts`); 0 when it is not above it."""
    return max(0, -sum(tokens or 0 for label, tokens in parts if is_remainder(label)))


OVERCOUNT = "our count above the input"
"""What `overcount` is named where a figure shows it (the rounds table's column, the input chart's series): our count
exceeds the round's input, so no part of that input is beyond our count."""


def split_words(parts: Iterable[tuple[str, int | None]], headline: int, reported: bool) -> str:
    """Where a round's input goes, in figures that add up: `(1,378 in all): parts`, the parts summing to the
    headline. Where our count is above the headline, the parts listed are our count's and sum to it, said so, and the
    headline (`reported` by the provider, or estimated) stands beside them with the difference. An estimate of a
    request whose log lacks a part is no whole: it is said to be our count of what the log holds."""
    parts = tuple(parts)
    over, listed = overcount(parts), input_words(parts)
    if not over and not reported and any(tokens is None for _, tokens in parts):
        return f"({headline:,} by our count of what the log holds): {listed}"
    about = "" if reported else "≈ "  # an estimated headline reads as it does beside its figure
    if not over:
        return f"({about}{headline:,} in all): {listed}"
    whose = "the provider reported" if reported else "the estimate is"
    return f"(by our count, {headline + over:,} in all; {whose} {about}{headline:,}, {over:,} fewer): {listed}"


def _split(messages, counter: TokenCounter) -> tuple[int, int]:
    """(instruction tokens, conversation tokens) of some messages."""
    instructions = conversation = 0
    name, known = counter.name, _counts.get
    for message in messages:
        # The remembered count first, inline: this runs for every new message of every round.
        key = (name, message.key)
        tokens = known(key)
        if tokens is None:  # message_tokens, inlined: counted once, with the one lookup above
            tokens = counter.count(_message_text(message))
            _counts.put(key, tokens)
        if message.role in INSTRUCTION_ROLES and command_result(message) is None:
            instructions += tokens
        else:
            conversation += tokens
    return instructions, conversation


_Parts = tuple[int, int, int, int, int, int, int, int, int, int]
"""A round's counted parts, in InputBreakdown's field order: instructions, tools, history, new, framing, resent,
held, tools_preamble, changed, output_schema."""


def _held_parts(round_: Round, prefix: int, counter: TokenCounter) -> tuple[int, int, int, int]:
    """Of a round's messages the provider held: (instruction tokens, conversation tokens within the resent prefix,
    conversation tokens past it, how many are within the prefix). They are read and billed, not sent: neither
    resent nor new."""
    held, messages = held_indices(round_), round_.request.messages
    within = range(held.start, max(held.start, min(held.stop, prefix)))
    kept = _split(messages[within.start:within.stop], counter)
    added = _split(messages[within.stop:held.stop], counter)
    return kept[0] + added[0], kept[1], added[1], len(within)


def _resent_past_prefix(rounds: tuple[Round, ...], index: int, prefix: int) -> list[Message]:
    """Round `index`'s messages past its resent prefix that sit unchanged where the latest earlier request the log
    kept had them, or all it resent unchanged where it left some of that request's out (lib.growth.realigned) or
    matched them at other places (lib.growth.matched): lib.growth.growth calls them resent."""
    kept = kept_before(rounds, index)
    if kept is None:
        return []
    old, messages = kept.request.messages, rounds[index - 1].request.messages
    if instructions_added(rounds[index - 1], kept):  # resent one place on, after the new instructions
        return list(messages[1:1 + len(old)])
    if (found := realigned(rounds[index - 1], kept)) is not None:
        return list(messages[prefix:found[0]])
    if (aligned := matched(rounds[index - 1], kept)) is not None:  # resent unchanged at other places
        return [messages[i] for i, _ in aligned.resent if i >= prefix]
    return [messages[i] for i in range(prefix, min(len(old), len(messages)))
            if messages[i] is old[i] or messages[i] == old[i]]


def _counted_parts(trace: Trace, counter: TokenCounter) -> list[_Parts]:
    """Every round's counted parts, each built from the previous round's plus what is new."""
    framing = framing_of(trace)
    found: list[_Parts] = []
    before: tuple[int, int] = (0, 0)
    previous_length, previous_recorded = 0, True  # round 1 has nothing before it: nothing resent past its prefix
    previous_tools, tools, preamble = None, 0, 0
    # What is resent is what the latest request the log kept held: a request it lost held nothing we know of.
    kept_tools, kept_system, kept_schema = None, None, None
    for round_ in trace.rounds:
        request = round_.request
        messages = request.messages
        prefix = resent_prefix(trace.rounds, round_.index)
        # A pure extension resends the whole previous request: reuse its sums instead of recounting.
        kept = before if prefix == previous_length else _split(messages[:prefix], counter)
        added = _split(messages[prefix:], counter)
        instructions = kept[0] + added[0]
        system = request.system
        resent = kept[0] + kept[1] + framing.per_message * prefix
        history, new, held, changed = kept[1], added[1], 0, 0
        if prefix < len(messages) and not request.held_by_provider \
                and not (previous_recorded and prefix >= previous_length):
            # (The test above skips the walk when the previous request is all resent: every snowball round.)
            # A message resent unchanged after one that changed (a handoff's new instructions) is past the cache's
            # prefix, yet the previous request carried it: resent, as its card says, not new.
            again = _resent_past_prefix(trace.rounds, round_.index, prefix)
            if again:
                again_instructions, again_conversation = _split(again, counter)
                history, new = history + again_conversation, new - again_conversation
                resent += again_instructions + again_conversation + framing.per_message * len(again)
            # A message resent with changes (the explorer's "changed") is neither resent unchanged nor new.
            if at := changed_at(round_, kept_before(trace.rounds, round_.index)):
                changed = _split([messages[i] for i in at], counter)[1]
                new -= changed
        if request.held_by_provider:
            held_instructions, held_history, held_new, held_within = _held_parts(round_, prefix, counter)
            instructions -= held_instructions
            history, new = history - held_history, new - held_new
            held = held_instructions + held_history + held_new
            resent -= held_instructions + held_history + framing.per_message * held_within
        if system is not None:
            system_tokens = message_tokens(system, counter) + framing.per_message
            instructions += system_tokens
            if kept_system == system:
                resent += system_tokens
        recorded = bool(messages) or system is not None or bool(request.tools)  # Round.request_recorded, inlined
        tools_resent = kept_tools is not None and request.tools == kept_tools
        if request.tools is not previous_tools:
            # Interning hands every round that resends the tool list the very same tuple.
            previous_tools = request.tools
            preamble = framing.tools_preamble if previous_tools else 0
            tools = tools_tokens(previous_tools, counter) + preamble
        resent += tools if tools_resent else 0
        schema = schema_tokens(request.output_schema, counter)
        resent += schema if request.output_schema is not None and request.output_schema == kept_schema else 0
        if TOOLS_IN_PROMPT in round_.extra.get("derived", ()):
            # The tools are text of the instructions: counted once, as tools, out of the instructions' share.
            moved = min(tools, instructions)
            instructions -= moved
            resent -= moved if tools_resent and kept[0] >= moved else 0
        if recorded:
            kept_tools, kept_system, kept_schema = request.tools, system, request.output_schema
        found.append((instructions, tools, history, new,
                      framing.per_message * len(messages) + (framing.reply if recorded else 0), resent, held,
                      preamble, changed, schema))
        before = (kept[0] + added[0], kept[1] + added[1])
        previous_length, previous_recorded = len(messages), recorded
    return found


def breakdowns(trace: Trace, counter: TokenCounter) -> tuple[InputBreakdown, ...]:
    """The input breakdown of every round, each built from the previous one plus what is new."""
    return tuple(InputBreakdown(*parts[:5], counter=counter.name, resent=parts[5], held=parts[6],
                                 tools_preamble=parts[7], changed=parts[8], output_schema=parts[9])
                 for parts in _counted_parts(trace, counter))


def reconciled_breakdowns(trace: Trace, counter: TokenCounter) -> tuple[tuple[InputBreakdown, Usage], ...]:
    """Every round's breakdown, the gap to its headline (`usage.input_tokens`) as its own named part, with that
    usage: reported, or else estimated (see `usages`)."""
    # Each breakdown is built once, with its gap, from plain tuples: building it twice (counted, then
    # reconciled) was a seventh of counting a 1,000-round trace.
    found = _counted_parts(trace, counter)
    counted = [sum(parts[:5]) + parts[6] + parts[8] + parts[9] for parts in found]
    return tuple((InputBreakdown(*parts[:5], counter=counter.name, resent=parts[5], held=parts[6],
                                 tools_preamble=parts[7], not_counted=usage.input_tokens - total,
                                 changed=parts[8], output_schema=parts[9]), usage)
                 for parts, total, usage in zip(found, counted, usages(trace, counted, counter)))


def estimate_usage(round_: Round, counted: int, counter: TokenCounter) -> Usage:
    """A round's usage estimated from the input we counted and its response, marked as estimated."""
    if round_.response is not None:
        output = answer_tokens(round_.response.message, counter)
    else:  # a generation the provider rejected was still written by the model: it is this round's output
        rejected = round_.error.rejected_generation if round_.error is not None else None
        output = counter.count(rejected) if rejected else 0
    return Usage(input_tokens=counted, output_tokens=output, source="estimated", method=counter.name)


def _reported(round_: Round) -> Usage | None:
    return round_.response.usage if round_.response is not None else None


def usages(trace: Trace, counted: list[int], counter: TokenCounter) -> tuple[Usage, ...]:
    """Every round's reported usage, or else an estimate anchored on the nearest reported round.

    The nearest earlier reported round is preferred; rounds before the first report use the first.
    """
    # A round whose request the log did not keep cannot anchor anything, nor be anchored: we counted nothing of it.
    reported = [r.index for r in trace.rounds if _reported(r) is not None and r.request_recorded]
    result = []
    anchor = reported[0] if reported else None
    for round_ in trace.rounds:
        usage = _reported(round_)
        if usage is not None:
            anchor = round_.index if round_.request_recorded else anchor
            result.append(usage)
            continue
        estimate = estimate_usage(round_, counted[round_.index - 1], counter)
        if anchor is not None and round_.request_recorded:
            offset = _reported(trace.rounds[anchor - 1]).input_tokens - counted[anchor - 1]
            estimate = replace(estimate, input_tokens=max(0, estimate.input_tokens + offset), anchor_round=anchor)
        result.append(estimate)
    return tuple(result)
