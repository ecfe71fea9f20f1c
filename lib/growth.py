"""How the messages array grows: per round, which messages are new, resent or changed.

Request k should be request k-1's messages, plus response k-1's assistant turn, plus the new
results. Everything older is resent unchanged; a resent message that differs is a rewrite.

When the log lost request k-1 but kept an earlier one, request k is placed against the latest it kept
(`kept_before`): what that one held is still known to be resent, and "new" means new since it, which every
view says. With no earlier request kept, which messages are new is not known.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterator, Literal, Sequence

from lib.injected import (OBSERVATION, command_result, context_only, human_feedback, library_reask, observed,
                          program_parts, reasked_after, written_action)
from lib.model import Message, OtherPart, Round, Trace, summary_in_clear
from lib.text import plural

Status = Literal["new", "resent", "changed"]
"""A message's standing in its request compared with the previous request."""
RESENT_WORDS = "resent unchanged"
"""What a resent message (status "resent") is called on every view: the explorer's table, the Tokens page's chart."""
CHANGED_WORDS = "changed since the previous request"
"""What a changed message (status "changed") is called on every view: its card, the HTML file, the Tokens page's
chart."""

Origin = Literal["input", "program", "history", "response", "tool-result", "command-result", "compaction"]
"""Where a message came from: the person or program, the program alone (in the user's role), an assistant turn the
program put in the history, the previous response, a tool, a command the model wrote in its text (the program appends
its result in the system role: lib.injected.command_result; a ReAct agent's observation in the user's role:
lib.injected.observed), or the compacted history a compaction call returned in
the previous round (Round.compaction)."""
ORIGIN_WORDS: dict[str, str] = {
    "input": "written by the person or the program",
    "program": "written by the program in the user's role, not typed by the person",
    "history": "an assistant turn the program put in the history, not the previous response as it came back",
    "response": "the model's turn from the previous response, appended unchanged",
    "tool-result": "tool results the program appended",
    "command-result": ("the result of a command the model wrote in its text, not as a tool call: the program ran it and "
                       "appended what it returned in the system role, so it is a tool's result, not instructions"),
    "compaction": ("the compacted history the provider returned in the previous round, sent in place of the turns it "
                   "compacts"),
}
"""Each origin in a reader's words."""
SENT_ON_WORDS = ("an assistant turn the program wrote over in another API's format: this call sends the conversation "
                 "on to another provider's API, so the earlier turns are converted from the format they were first "
                 "written in, not sent back as they came")
"""Where an assistant turn of a request that sends the conversation on to another provider's API (Round.sent_on)
came from, when it is not the previous response as it came back."""
SENT_ON_CHANGED = ("Written over in another API's format: this call sends the conversation on to another provider's API, "
                   "so the program converted the earlier turns, and this copy differs from the one sent before.")
"""Said of a resent message that changed in a request that sends the conversation on to another provider's API."""
LIBRARY_REASK_WORDS = ("written by the library in the user's role, not typed by the person: the model's previous "
                       "answer failed the library's validation, and the library asks the model again")
"""Where a library's re-ask came from (lib.injected.library_reask), in a reader's words."""
PERSONS_ANSWER = "a person's answer to the command the model wrote in its text"
"""What a person's reply in place of a command's result is (lib.injected.human_feedback), in a reader's words: the head
of HUMAN_FEEDBACK_WORDS, and what presenter mode counts it as among a request's new messages."""
OBSERVATION_WORDS = ("the result of an action the model wrote in its text, not as a tool call: the program ran it and "
                     "appended what it returned as an Observation in the user's role, so it is a tool's result, not the "
                     "person's words")
"""Where a ReAct agent's observation came from (a "command-result" in the user's role: lib.injected.observed)."""
HUMAN_FEEDBACK_WORDS = (f"{PERSONS_ANSWER}, typed instead of letting the command run: the program appended it in the "
                        "system role")
"""Where a person's reply in place of a command's result came from (lib.injected.human_feedback), in a reader's
words: the person wrote it, though the program put it in the system role."""


@dataclass(frozen=True, slots=True)
class MessageEntry:
    """One message of a request, placed against the previous request."""

    index: int
    """Position in the request's messages array (0-based, as in the JSON path)."""
    message: Message
    """The message."""
    status: Status
    """New this round, resent unchanged, or resent with changes."""
    origin: Origin
    """Where the message came from."""
    previous: Message | None = None
    """The earlier copy, when the message changed."""
    without: tuple[str, ...] = ()
    """For the previous response's turn: the types of its parts that did not come back with it (Gemini CLI's
    thought summaries, a reasoning part the program dropped), so it is not said to be appended unchanged."""
    referred: tuple[tuple[str, str | None], ...] = ()
    """For each reference to an earlier item in the message (an `item_reference` part): the id it names, and what the
    trace holds under that id in our words (referred_item), None where it holds nothing under it."""
    sent_on: bool = False
    """Whether the request sends the conversation on to another provider's API (Round.sent_on): the earlier turns
    were written over in that API's format, so a rewritten one is that conversion, not a program's own edit."""
    was_at: int | None = None
    """For a resent or changed message placed by matching (matched): where its copy was in the earlier request, when
    that is another place (the request left out or put in messages before it); None at the same place."""


@dataclass(frozen=True, slots=True)
class Growth:
    """The messages of one request, placed against the previous request."""

    entries: tuple[MessageEntry, ...]
    """Every message of the request, in order."""
    dropped: int
    """How many messages of the request it is placed against (against) this one leaves out: does not resend. Said
    on every view by left_out_words, in the one word "left out"."""
    against: int | None = None
    """The round whose request this one is placed against (kept_before); None for the first round, a request the
    log did not keep, or one with no earlier request kept."""
    index: int = 1
    """The round of this request (1-based)."""
    dropped_at: tuple[int, ...] = ()
    """Where in the earlier request the dropped messages were, when this request resends the rest of it unchanged
    and in order (realigned) or at other places (matched); empty where messages are placed position by position."""
    matched: bool = False
    """Whether its messages were placed by matching their bytes to the earlier request's (matched), not place by
    place."""

    @property
    def since(self) -> str:
        """What "new" is counted against, when not the request before, as words to follow "new": " since round
        j's request" when the log lost the ones between, " to the log" when it kept no earlier one; else ""."""
        return since_words(self.index, self.against)

    @property
    def new_words(self) -> str:
        """A new message's badge: "new this round", or new since what, when the log lost the request before."""
        return "new" + self.since if self.since else "new this round"

    @property
    def new(self) -> tuple[MessageEntry, ...]:
        """The messages this request adds."""
        return tuple(e for e in self.entries if e.status == "new")

    @property
    def resent(self) -> tuple[MessageEntry, ...]:
        """The messages resent exactly as before."""
        return tuple(e for e in self.entries if e.status == "resent")

    @property
    def changed(self) -> tuple[MessageEntry, ...]:
        """The messages resent with changes."""
        return tuple(e for e in self.entries if e.status == "changed")

    @property
    def moved(self) -> tuple[MessageEntry, ...]:
        """The messages resent unchanged at another place than in the earlier request (MessageEntry.was_at)."""
        return tuple(e for e in self.entries if e.status == "resent" and e.was_at is not None)

    @property
    def inserted(self) -> tuple[MessageEntry, ...]:
        """The new messages put in before a message resent unchanged: among the history, not after it."""
        last = max((e.index for e in self.entries if e.status == "resent"), default=-1)
        return tuple(e for e in self.entries if e.status == "new" and e.index < last)

    @property
    def inserted_only(self) -> bool:
        """Whether the request, placed by matching, resends every message of the earlier one unchanged and in order
        and puts new ones in among them: messages inserted, none rewritten or left out (AutoGPT's memory message)."""
        return self.matched and bool(self.inserted) and not self.changed and not self.dropped


def _origin(message: Message, previous_round: Round | None, marked: frozenset[str] = frozenset()) -> Origin:
    if message.tool_results:
        return "tool-result"
    if command_result(message) is not None:
        return "command-result"
    # Known only where the trace marks it (a guard's re-ask) or the agent's own tags open every text of it.
    if message.role == "user" and (reasked_after(previous_round) or context_only(message, marked)):
        return "program"
    if message.role == "assistant" and previous_round is not None and previous_round.response is not None:
        answered = previous_round.response.message
        # Clients often drop null fields (refusal, annotations) when they echo the turn back.
        if message == answered or (message.tool_calls, message.text) == (answered.tool_calls, answered.text):
            # A compaction call's answer is no turn of the model's: the program sends it in place of the history.
            return "compaction" if previous_round.compaction else "response"
        # The compacted item the provider returned beside the answer (Round.compacted_in_call), sent back alone in
        # place of the turns it compacts: whole, by its id, or as a reference to it.
        if previous_round.compacted_in_call and _compacted_item_of(message, answered):
            return "compaction"
    return "history" if message.role == "assistant" else "input"


def _observes(messages: Sequence[Message], index: int, previous_round: Round | None) -> bool:
    """Whether messages[index] is a ReAct agent's observation (lib.injected.observed) of the action the previous
    round's response wrote in its text (written_action): a text command's result, in the user's role."""
    if previous_round is None or not messages[index].text.lstrip().startswith(OBSERVATION):
        return False
    action = written_action(previous_round)
    return action is not None and observed(messages, index, action[0])


def _is_answer(message: Message, round_: Round) -> bool:
    """Whether a request's message is `round_`'s answer sent back, as _origin reads it: the same turn, or its text and
    calls, clients dropping null fields when they echo it."""
    if message.role != "assistant" or round_.response is None:
        return False
    answered = round_.response.message
    return message == answered or (message.tool_calls, message.text) == (answered.tool_calls, answered.text)


def _compacted_item_of(message: Message, answered: Message) -> bool:
    """Whether every part of `message` is a compacted item `answered` carries (a `compaction` part), named by its id
    or its encrypted content."""
    def keys(part: OtherPart) -> set:
        raw = part.raw if isinstance(part.raw, dict) else {}
        return {(k, v) for k in ("id", "encrypted_content") if isinstance(v := raw.get(k), str) and v}
    returned = set().union(*(keys(p) for p in answered.parts if isinstance(p, OtherPart) and p.type == "compaction"))
    return bool(message.parts) and bool(returned) and all(
        isinstance(p, OtherPart) and p.type in ("compaction", "item_reference") and keys(p) & returned
        for p in message.parts)


def _left_out(message: Message, answered: Message) -> tuple[str, ...]:
    """The types of the answer's own parts (reasoning, thought summaries) that its copy in the request lacks."""
    kept = {p.type for p in message.parts if isinstance(p, OtherPart)}
    return tuple(dict.fromkeys(p.type for p in answered.parts if isinstance(p, OtherPart) and p.type not in kept))


LEFT_OUT_WORDS = {"thought_summary": "its thought summaries", "thinking": "its thinking",
                  "redacted_thinking": "its redacted thinking", "reasoning": "its reasoning"}
"""The kinds of a response's parts that a program may leave out of the turn it sends back, in our words."""


def origin_words(entry: MessageEntry) -> str:
    """Where a new message came from, in a reader's words (ORIGIN_WORDS): a turn that came back without parts of the
    response it copies names them instead of being called unchanged, and a person's reply in place of a command's
    result (lib.injected.human_feedback) is named as theirs, not the person's or the program's."""
    if entry.origin == "response" and entry.without:
        # Our words for the kinds we know; others counted, not named: a part's type is the trace's text, and this
        # sentence is drawn as markdown.
        known = [LEFT_OUT_WORDS[kind] for kind in entry.without if kind in LEFT_OUT_WORDS]
        others = len(entry.without) - len(known)
        if others:
            known.append("one other kind of its parts" if others == 1 else f"{others} other kinds of its parts")
        return f"the model's turn from the previous response, appended without {' and '.join(known)}"
    if entry.origin == "response" and any(isinstance(p, OtherPart) and p.type == "compaction"
                                          and summary_in_clear(p) is None for p in entry.message.parts):
        # The provider compacted the history during the previous call (Round.compacted_in_call), beside the answer.
        return ("the model's turn from the previous response, appended unchanged with the compacted history the "
                "provider returned during that call (encrypted, not the model's words), which the program sends back "
                "so the provider can go on from it")
    if entry.origin == "program" and library_reask(entry.message):
        return LIBRARY_REASK_WORDS
    if entry.origin == "history" and entry.sent_on:
        return SENT_ON_WORDS
    if entry.origin == "input" and human_feedback(entry.message) is not None:
        return HUMAN_FEEDBACK_WORDS
    if entry.origin == "command-result" and entry.message.role == "user":
        return OBSERVATION_WORDS
    return ORIGIN_WORDS[entry.origin]


def changed_words(entry: MessageEntry) -> str | None:
    """Why a resent message changed, where the request tells (SENT_ON_CHANGED); None where it does not."""
    return SENT_ON_CHANGED if entry.status == "changed" and entry.sent_on else None


REFERENCE_PART = "item_reference"
"""The part type of a Responses API input item that names an earlier item by its id instead of sending it."""
REFERENCE_WORDS = ("A reference to an earlier item by its id: the program sends the id, not the item, and the provider "
                   "puts the item it stored under that id in its place.")
"""What an `item_reference` part is, said above it."""
REFERRED_KINDS = {"compaction": "the compacted history the provider returned", "reasoning": "the model's reasoning item",
                  "thinking": "the model's thinking", "message": "the message"}
"""The kinds of item a reference may name, in our words; any other kind is "an item"."""


def _item_id(part) -> str | None:
    raw = part.raw if isinstance(part, OtherPart) and isinstance(part.raw, dict) else None
    found = raw.get("id") if raw is not None else None
    return found if isinstance(found, str) and found else None


def referred_item(trace: Trace, index: int, item_id: str) -> str | None:
    """What round `index`'s reference to `item_id` names, in our words: the latest item of an earlier round that the
    trace holds under that id (a part that kept its id: a compacted history, a reasoning item), as "the reasoning item
    of round 2's response"; None where the trace holds no item with that id."""
    for round_ in reversed(trace.rounds[:index - 1]):
        halves = ((round_.response.message,) if round_.response is not None else (), "response"), (
            round_.request.messages if round_.request_recorded else (), "request")
        for messages, half in halves:
            for message in messages:
                for part in message.parts:
                    if _item_id(part) == item_id and part.type != REFERENCE_PART:
                        what = REFERRED_KINDS.get(part.type, "an item")
                        return f"{what} in round {round_.index}'s {half}"
    return None


def referred_words(referred: tuple[tuple[str, str | None], ...], item_id) -> str:
    """What a reference to `item_id` stands for, said under it (MessageEntry.referred): the item the trace holds under
    that id, or that the log holds none."""
    if not isinstance(item_id, str) or not item_id:
        return "It names no id, so what it stands for is not known."
    found = dict(referred).get(item_id)
    return f"That is {found}." if found else ("No item with this id is in the log, so what it stands for is not shown "
                                              "here.")


def _referred(trace: Trace, index: int, message: Message) -> tuple[tuple[str, str | None], ...]:
    """MessageEntry.referred: each reference of `message` and what it names."""
    return tuple((item_id, referred_item(trace, index, item_id)) for part in message.parts
                 if isinstance(part, OtherPart) and part.type == REFERENCE_PART and (item_id := _item_id(part)))


Entries = tuple[MessageEntry, ...]
"""Some messages of a request, placed."""


def held_indices(round_: Round) -> range:
    """Where in the request's messages the provider-held ones are (previous_response_id or a conversation: shown
    reconstructed, not sent); empty when the program sent them all."""
    if not round_.request.held_by_provider:
        return range(0)
    request = round_.request
    messages = request.messages
    # Held ones follow the system message the request sent, if any; one the provider held is the first of them.
    first = 1 if messages and messages[0].role == "system" and not request.held_system else 0
    return range(first, first + request.held_by_provider)


def held_apart(round_: Round, entries: Entries) -> tuple[Entries, Entries]:
    """`entries` split into the messages the provider held and those the program really sent, in that order."""
    held = held_indices(round_)
    if not held:
        return (), entries
    return tuple(e for e in entries if e.index in held), tuple(e for e in entries if e.index not in held)


def program_sent(round_: Round) -> int:
    """How many of the request's messages the program itself sent: the held ones left out."""
    return len(round_.request.messages) - len(held_indices(round_))


def new_sent(round_: Round, previous_length: int) -> int:
    """How many of the request's messages past the previous request's `previous_length` the program itself sent:
    the held ones are new to the reconstructed history, not to the request."""
    if not round_.request.held_by_provider:
        return max(0, len(round_.request.messages) - previous_length)
    new = range(previous_length, len(round_.request.messages))
    held = held_indices(round_)
    return len(new) - len(range(max(new.start, held.start), min(new.stop, held.stop)))


HELD_UNDER = "previous_response_id, previous_interaction_id or a conversation"
"""What a provider keeps a conversation's earlier messages under, for the program not to send them again (the Responses
API's and Gemini's Interactions API's id of the answer before, a Conversations API id): said wherever held messages are
shown."""

NOT_IN_THE_LOG = "the request was not in the log"
"""What is said of a round whose log recorded only what came back."""


def sends(round_: Round, new: int, since: str = "") -> str:
    """What the program sent in a round, in words: its messages and how many are new, or that the log lacks it.

    With `previous_response_id`, `previous_interaction_id` or a conversation id the program sends only the new items; the history
    the provider held is shown reconstructed from earlier rounds, and is labelled so, never counted as sent.
    `since` is Growth.since: what "new" is counted against when the log lost the request before."""
    if not round_.request_recorded:
        return NOT_IN_THE_LOG
    request = round_.request
    held = request.held_by_provider
    if not held:
        return f"the program sends {plural(len(request.messages), 'message')}, {new} of them new{since}"
    return (f"the program sends {plural(program_sent(round_), 'message')}; {plural(held, 'earlier message')} "
            f"held by the provider ({HELD_UNDER}) are shown reconstructed, not sent")


SUMMARY_CALL_NAME = "the summary call of a compaction"
"""What a round that asked the model to sum the conversation up (Round.summary_call) is named beside its number, wherever
rounds are headed: no turn of the conversation."""
SUMMARY_CALL_WORDS = ("A summary call, no turn of the conversation: the program asks the model to sum the conversation "
                      "up, and from then on sends the summary in place of the turns it sums up (a compaction, as the "
                      "Anthropic SDK's tool runner makes past a token threshold).")
"""Said under the heading of a summary call (Round.summary_call): what it is, in the explorer and the HTML file."""


def round_name(round_: Round) -> str:
    """A round as headings name it: `Round 2`, or, for a summary call (Round.summary_call), `Round 2, the summary call
    of a compaction`; the explorer's heading, the round navigator's and the HTML files' say it alike."""
    return f"Round {round_.index}, {SUMMARY_CALL_NAME}" if round_.summary_call else f"Round {round_.index}"


def round_heading(round_: Round, new: int, since: str = "") -> str:
    """A round's heading: its name (round_name) and what the program sent in it (sends)."""
    return f"{round_name(round_)}: {sends(round_, new, since)}"


def kept_before(rounds: Sequence[Round], index: int) -> Round | None:
    """The latest round before round `index` (1-based) whose request the log kept: the one before, unless the log
    lost its request; None when it kept none. Walks back over the lost ones only, so a pass over a trace that asks
    this of each kept round stays linear."""
    for position in range(index - 2, -1, -1):
        if rounds[position].request_recorded:
            return rounds[position]
    return None


def kept_after(rounds: Sequence[Round], index: int) -> Round | None:
    """The first round after round `index` (1-based) whose request the log kept: the next, unless the log lost its
    request; None when it kept none. The request that carries round `index`'s results, if any does."""
    return next((r for r in rounds[index:] if r.request_recorded), None)


def resent_prefix(rounds: Sequence[Round], index: int) -> int:
    """How many leading messages round `index`'s request shares, unchanged, with the latest earlier request the log
    kept: Round.resent_prefix, which the importers measure against the request before, empty when the log lost it."""
    round_ = rounds[index - 1]
    if index == 1 or rounds[index - 2].request_recorded or not round_.request_recorded:
        return round_.resent_prefix
    kept = kept_before(rounds, index)
    pairs = zip(kept.request.messages, round_.request.messages) if kept else ()
    return next((i for i, (old, new) in enumerate(pairs) if old is not new),
                min(len(kept.request.messages), len(round_.request.messages)) if kept else 0)


def placed_length(round_: Round, kept: Round | None) -> int:
    """How many leading messages of the round's request are placed against `kept`'s (kept_before): all of that
    request's, or, where the program cut its history right after it (Round.history_cut), the ones it kept, or, where
    it left some of them out and resent the rest unchanged (realigned), the ones it resent; every message past them is
    new, and the rest of that request dropped."""
    length = _placed_in_place(round_, kept)
    found = realigned(round_, kept) if kept is not None and length == len(kept.request.messages) else None
    return found[0] if found is not None else length


def _placed_in_place(round_: Round, kept: Round | None) -> int:
    """placed_length, placing message by message: a request that left some out is not looked for."""
    if kept is None:
        return 0
    cut = round_.history_cut
    length = len(kept.request.messages)
    return min(length, cut) if cut is not None and kept.index == round_.index - 1 else length


def instructions_added(round_: Round, kept: Round | None) -> bool:
    """Whether the round's request puts instructions (a system message) before all of `kept`'s messages (kept_before),
    which had none, and resends those after them unchanged and in order: a handoff from an agent without instructions
    to one with them (the OpenAI Agents SDK's). Placed message by message, each resent message would read as the one
    before it rewritten; they are resent one place on, and the instructions are new."""
    if kept is None or not round_.request_recorded or round_.request.held_by_provider:
        return False
    before, messages = kept.request.messages, round_.request.messages
    if not before or len(messages) <= len(before) or messages[0].role != "system" or before[0].role == "system":
        return False
    return all(new is old or new == old for old, new in zip(before, messages[1:]))


def realigned(round_: Round, kept: Round | None) -> tuple[int, tuple[int, ...]] | None:
    """Where the round's request resends `kept`'s messages (kept_before) in order but leaves some of them out
    (pydantic-ai asking again from a run's messages without its instructions): (how many leading messages of the request
    are that request's, resent unchanged; where in that request the left-out ones were). None where the request extends
    it whole, or where placing message by message finds as many resent: a rewrite stays a rewrite."""
    if kept is None or not round_.request_recorded or round_.request.held_by_provider:
        return None
    before, messages = kept.request.messages, round_.request.messages
    whole = kept.index == round_.index - 1
    if whole and round_.history_cut is not None:
        return None  # the program said where it cut: placed_length keeps its word
    if whole and round_.resent_prefix >= len(before):
        return None  # the common case, every snowball round: the earlier request resent whole
    start = round_.resent_prefix if whole else 0
    # Position by position, as growth places them: the count to beat.
    in_place = start + sum(1 for old, new in zip(before[start:], messages[start:]) if new is old or new == old)
    # Each message matched to the first unmatched one like it: the longest run of leading messages that resend
    # `before` in order with some left out, in one pass over each list.
    matched, at = [], start
    for message in messages[start:]:
        found = next((i for i in range(at, len(before)) if message is before[i] or message == before[i]), None)
        if found is None:
            break
        matched.append(found)
        at = found + 1
    resent = start + len(matched)
    kept_at = set(matched)
    # A request that left out the first message(s) and goes on with the answer right after the rest resends as few of
    # them as in place, none where it left out all (LiteLLM's Responses request that drops the question and sends the
    # reasoning item and the answer back): placed in place, the answer would read as the question "changed". The
    # answer next is what tells it from a rewrite.
    if resent <= in_place and not (len(kept_at) < len(before) - start and whole and resent < len(messages)
                                   and _is_answer(messages[resent], kept)):
        return None
    return resent, tuple(i for i in range(start, len(before)) if i not in kept_at)


@dataclass(frozen=True, slots=True)
class Matched:
    """A request that rewrote the one it is placed against, its messages matched to that one's by their bytes: which
    it resends unchanged (at the same place or another), which take the place of another, and which it left out."""

    resent: tuple[tuple[int, int], ...]
    """(place in this request, place in the earlier one) of each message resent unchanged, in order."""
    changed: tuple[tuple[int, int], ...]
    """(place here, place there) of each message that stands where the earlier request had another of the same role,
    between two resent ones: the bytes cannot tell that message edited from another put in its place."""
    dropped_at: tuple[int, ...]
    """Where in the earlier request the messages it left out were."""


def _keys(messages: Sequence[Message]) -> list:
    """The messages as keys to match on: equal messages, equal keys (a message whose raw part holds a dict cannot be
    hashed: its text form stands in, which may miss an equal one written in another key order, never join two)."""
    try:
        for message in messages:
            hash(message)
        return list(messages)
    except TypeError:
        return [repr(m) for m in messages]


def matched(round_: Round, kept: Round | None) -> Matched | None:
    """Where the round's request rewrote `kept`'s (kept_before) and neither extends it (instructions_added) nor resends
    it in order with some left out (realigned): its messages matched to that request's, in order, by their bytes, when
    that finds more of them resent unchanged than placing message by message does (AutoGPT puts a memory message among
    its system ones each step and leaves older turns out: the rest sit one or more places on or back). None where it
    does not, or the program said where it cut its history."""
    if kept is None or not round_.request_recorded or round_.request.held_by_provider:
        return None
    before, messages = kept.request.messages, round_.request.messages
    whole = kept.index == round_.index - 1
    if whole and round_.resent_prefix >= min(len(before), len(messages)):
        return None  # the common case, every snowball round: nothing rewritten, and nothing to compare
    if (whole and round_.history_cut is not None) or instructions_added(round_, kept) \
            or realigned(round_, kept) is not None:
        return None
    in_place = sum(1 for old, new in zip(before, messages) if new is old or new == old)
    if in_place == min(len(before), len(messages)):
        return None  # nothing rewritten: an extension, or a request cut short
    blocks = SequenceMatcher(None, _keys(before), _keys(messages), autojunk=False).get_matching_blocks()
    resent = [(b + k, a + k) for a, b, size in blocks for k in range(size)]
    if len(resent) <= in_place:
        return None
    changed, dropped, at_old, at_new = [], [], 0, 0
    for new_at, old_at in [*resent, (len(messages), len(before))]:
        gap_old, gap_new = list(range(at_old, old_at)), list(range(at_new, new_at))
        if new_at < len(messages):  # between two resent messages: one of the same role in another's place changed
            for i, j in zip(gap_new, gap_old):
                if messages[i].role != before[j].role:
                    break
                changed.append((i, j))
        paired = {j for _, j in changed}
        dropped.extend(j for j in gap_old if j not in paired)
        at_old, at_new = old_at + 1, new_at + 1
    return Matched(tuple(resent), tuple(changed), tuple(dropped))


def _runs(entries: Sequence[MessageEntry]) -> list[list[MessageEntry]]:
    """Moved messages in runs: next to each other here, and moved by the same distance."""
    runs: list[list[MessageEntry]] = []
    for entry in entries:
        last = runs[-1][-1] if runs else None
        if last is not None and entry.index == last.index + 1 \
                and entry.was_at - entry.index == last.was_at - last.index:
            runs[-1].append(entry)
        else:
            runs.append([entry])
    return runs


def _span(first: int, last: int) -> str:
    return f"messages[{first}]" if first == last else f"messages[{first}] to messages[{last}]"


def places_words(places: Sequence[int]) -> str:
    """Where some messages of a request are, as the cards and the HTML file name them: `messages[0] to messages[4]`, or,
    where they are not next to each other (a request placed by matching), each run: `messages[0] to messages[1] and
    messages[3] to messages[4]`; past four runs, an ellipsis."""
    runs: list[list[int]] = []
    for place in places:
        if runs and place == runs[-1][-1] + 1:
            runs[-1].append(place)
        else:
            runs.append([place])
    named = [_span(run[0], run[-1]) for run in runs[:4]]
    if len(runs) > 4:
        return ", ".join(named) + ", …"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _listed(places: Sequence[int]) -> str:
    """`messages[3]`, `messages[3] and messages[4]`, `messages[1], messages[3] and messages[4]`; past five, an
    ellipsis."""
    named = [f"messages[{i}]" for i in places[:5]]
    if len(places) > 5:
        return ", ".join(named) + ", …"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def left_out_count(count: int) -> str:
    """How many messages of an earlier request a request does not resend (Growth.dropped), as every view counts them:
    `2 messages left out`. "Left out" is the one word for them: not "dropped", not "missing"."""
    return f"{plural(count, 'message')} left out"


def left_out_words(placed: Growth) -> str | None:
    """The messages of the request this one is placed against (Growth.against) that it does not resend, in one sentence
    for every view that shows the request (the explorer's and presenter mode's cards, presenter's step 4, the HTML
    file): `Left out of this request: 2 messages of round 2's request.`; None where it leaves none out."""
    if not placed.dropped:
        return None
    return f"Left out of this request: {plural(placed.dropped, 'message')} of round {placed.against}'s request."


def matched_words(placed: Growth) -> str | None:
    """What a request placed by matching (Growth.matched) did with the earlier request's messages, where the cards and
    the HTML file show it: which it resends at other places, and how far; which it leaves out; which new ones it puts
    in among them; and that a message in another's place is marked changed though the bytes cannot tell an edit from
    another message. None where it was not so placed."""
    if not placed.matched or placed.against is None:
        return None
    moved = [f"{_span(run[0].index, run[-1].index)} {'is' if len(run) == 1 else 'are'} its "
             f"{_span(run[0].was_at, run[-1].was_at)}, resent unchanged "
             f"{plural(abs(shift), 'place')} {'back' if shift > 0 else 'on'}"
             for run in _runs(placed.moved) if (shift := run[0].was_at - run[0].index)]
    said = [f"Placed by matching each message's bytes, in order, with round {placed.against}'s request"
            + (": " + "; ".join(moved) if moved else "") + "."]
    if placed.dropped_at:
        said.append(f"It leaves out its {_listed(placed.dropped_at)}.")
    if placed.inserted:
        said.append(f"It puts {plural(len(placed.inserted), 'new message')} in among the resent ones "
                    f"({_listed([e.index for e in placed.inserted])}).")
    if placed.inserted_only:
        said.append("It rewrites none of that request's messages and leaves none out.")
    if placed.changed:
        said.append("A message that stands where that request had a different one of the same role is marked "
                    "changed: the log cannot tell that message edited from another put in its place.")
    return " ".join(said)


@dataclass(frozen=True, slots=True)
class Standing:
    """How many of a request's messages stand where, as growth places them against the earlier request the log kept
    (kept_before): the counts of the explorer's heading and tables, which the Tokens page's chart, its rounds table
    and `summarize` give. They add up to the request's messages."""

    new: int = 0
    """New since that request and sent by the program (Growth.new, the held ones left out)."""
    resent: int = 0
    """Resent exactly as before (Growth.resent, the held ones left out)."""
    changed: int = 0
    """Resent with changes, or standing where that request had another message (Growth.changed)."""
    held: int = 0
    """Held by the provider and shown reconstructed, not sent (held_indices)."""


def standing(round_: Round, kept: Round | None) -> Standing:
    """The round's request placed against `kept`'s (kept_before) as growth places it, counted without building its
    entries: a long trace's summary asks this of every round."""
    if not round_.request_recorded:
        return Standing()
    messages, held = round_.request.messages, held_indices(round_)
    if kept is None:
        return Standing(new=len(messages) - len(held), held=len(held))
    before = kept.request.messages
    if instructions_added(round_, kept):
        return Standing(new=len(messages) - len(before), resent=len(before))
    placed, changed = _changed_in_place(round_, kept)
    if changed and (found := realigned(round_, kept)) is not None:
        return Standing(new=len(messages) - found[0], resent=found[0])
    if changed and (aligned := matched(round_, kept)) is not None:
        return Standing(new=len(messages) - len(aligned.resent) - len(aligned.changed), resent=len(aligned.resent),
                        changed=len(aligned.changed))
    changed_sent = sum(1 for i in changed if i not in held)
    held_placed = len(range(held.start, min(held.stop, placed)))
    return Standing(new=new_sent(round_, placed), resent=placed - held_placed - changed_sent, changed=changed_sent,
                    held=len(held))


def changed_at(round_: Round, kept: Round | None) -> tuple[int, ...]:
    """Where in the round's request growth marks messages changed against `kept`'s (kept_before), the held ones left
    out: the messages Standing.changed counts, whose tokens the Tokens page's split counts as changed (lib.tokens)."""
    if not round_.request_recorded or kept is None or instructions_added(round_, kept):
        return ()
    changed = _changed_in_place(round_, kept)[1]
    if not changed or realigned(round_, kept) is not None:
        return ()
    if (aligned := matched(round_, kept)) is not None:
        return tuple(i for i, _ in aligned.changed)
    held = held_indices(round_)
    return tuple(i for i in changed if i not in held)


def _changed_in_place(round_: Round, kept: Round) -> tuple[int, list[int]]:
    """How many of the round's messages stand where `kept`'s request had one (placed in place), and which of those
    differ from it: what standing counts and changed_at lists before either looks further."""
    messages, before = round_.request.messages, kept.request.messages
    placed = min(_placed_in_place(round_, kept), len(messages))
    # The leading messages the importer found resent (Round.resent_prefix) need no second look.
    start = min(placed, round_.resent_prefix) if kept.index == round_.index - 1 else 0
    return placed, [i for i in range(start, placed) if not (messages[i] is before[i] or messages[i] == before[i])]


def new_count(round_: Round, kept: Round | None) -> int:
    """How many messages of the round's request are new against `kept`'s (kept_before) and sent by the program, as
    growth counts them (Growth.new, the held ones left out): Standing.new. The Tokens page and `summarize` count the
    same as the explorer's heading."""
    return standing(round_, kept).new


def resent_length(round_: Round, previous: Round | None) -> int:
    """How many leading messages of the round's request resend `previous`'s (the request before it) unchanged:
    Round.resent_prefix, or, where the request left some of them out and resent the rest in order (realigned), the
    ones it resent. The checks take what follows as new, as growth does."""
    found = realigned(round_, previous) if previous is not None else None
    return found[0] if found is not None else round_.resent_prefix


def answer_left_out(previous: Round | None, round_: Round) -> bool:
    """Whether `round_`'s request goes on from `previous`'s without the answer of text alone that round got: it resends
    `previous`'s messages unchanged, then a new turn of the person's or the program's where the model's answer
    belongs, and the answer nowhere after them. The bytes cannot tell a program that left the answer out (a retry
    message naming an answer the model no longer sees) from one that asked anew on the same prompt: the words that
    use this say both. An answer with calls is not read here: missing-tool-result says what became of its calls."""
    if previous is None or previous.index != round_.index - 1 or not previous.request_recorded \
            or not round_.request_recorded or round_.request.held_by_provider or round_.request_from_transcript:
        return False
    answer = previous.response
    if answer is None or previous.error is not None or answer.message.tool_calls or not answer.message.text.strip():
        return False
    before, sent = previous.request.messages, round_.request.messages
    if len(sent) <= len(before) or round_.resent_prefix < len(before):
        return False
    following = sent[len(before)]
    return following.role == "user" and not following.tool_results \
        and not any(_is_answer(m, previous) for m in sent[len(before):])


def kept_pairs(trace: Trace) -> Iterator[tuple[Round, Round]]:
    """Every kept request beside the one it is placed against (kept_before): a lost request is compared with
    nothing and nothing is compared with it."""
    for round_ in trace.rounds:
        if round_.request_recorded and (before := kept_before(trace.rounds, round_.index)) is not None:
            yield before, round_


def since_words(index: int, against: int | None) -> str:
    """Growth.since for round `index` placed against round `against`'s request."""
    if against is None and index > 1:
        return " to the log"
    return f" since round {against}'s request" if against not in (None, index - 1) else ""


def against_words(index: int, against: int | None) -> str | None:
    """Said where round `index`'s new messages are shown, when they are not counted against the round before:
    which request they are counted against, or that no earlier request is in the log; None otherwise."""
    if index == 1 or against == index - 1:
        return None
    if against is None:
        return f"No request before round {index}'s is in the log, so which of its messages are new is not known."
    lost = f"round {index - 1}'s is" if against == index - 2 else f"those of rounds {against + 1} to {index - 1} are"
    return f"Round {index}'s new messages are counted against round {against}'s request: {lost} not in the log."


def system_standing(trace: Trace, index: int) -> Status | None:
    """Round `index`'s top-level system field (Anthropic's `system`: a field of the request, not one of its messages)
    against the latest earlier request the log kept (kept_before): None where the request has none or the log lost
    it; "new" in the first request, or where the one before it had none; "resent" when the same; else "changed"."""
    current = trace.rounds[index - 1]
    system = current.request.system if current.request_recorded else None
    if system is None:
        return None
    kept = kept_before(trace.rounds, index)
    if kept is None or kept.request.system is None:
        return "new"
    return "resent" if system is kept.request.system or system == kept.request.system else "changed"


def system_words(status: Status, new_words: str = "new this round") -> str:
    """What a top-level system field is marked with, as a message is (`new_words`, Growth.new_words): new, resent
    unchanged, or changed; one wording for the explorer's card, presenter mode and the HTML file."""
    return {"new": new_words, "resent": RESENT_WORDS, "changed": CHANGED_WORDS}[status]


def growth(trace: Trace, index: int) -> Growth:
    """Round `index`'s request (1-based) placed against the latest earlier request the log kept (kept_before); a
    request the log did not keep is placed against nothing."""
    current = trace.rounds[index - 1]
    if not current.request_recorded:
        return Growth(entries=(), dropped=0, index=index)
    kept = kept_before(trace.rounds, index)
    previous_round = trace.rounds[index - 2] if index > 1 else None
    before = kept.request.messages if kept else ()
    placed = _placed_in_place(current, kept)
    sent_on = current.sent_on is not None

    def new(i: int, message: Message) -> MessageEntry:
        """A message new in this request, with where it came from."""
        origin = _origin(message, previous_round, program_parts(current, i))
        if origin == "input" and _observes(current.request.messages, i, previous_round):
            origin = "command-result"
        if current.summary_call and i == len(current.request.messages) - 1 and message.role == "user":
            origin = "program"  # the summary prompt: the program asks for the summary, no person does
        left_out = _left_out(message, previous_round.response.message) if origin == "response" else ()
        return MessageEntry(i, message, "new", origin, without=left_out, sent_on=sent_on,
                            referred=_referred(trace, index, message))

    if instructions_added(current, kept):
        # The instructions are new; the earlier request follows them, resent one place on; what follows that is new.
        entries = [MessageEntry(0, current.request.messages[0], "new", "input")]
        for i, message in enumerate(current.request.messages[1:], start=1):
            if i <= len(before):
                entries.append(MessageEntry(i, message, "resent", "input"))
                continue
            entries.append(new(i, message))
        return Growth(entries=tuple(entries), dropped=0, against=kept.index, index=index)
    entries, shifted = [], False
    for i, message in enumerate(current.request.messages):
        if i >= placed:
            entries.append(new(i, message))
        elif message is before[i] or message == before[i]:
            entries.append(MessageEntry(i, message, "resent", "input"))
        else:
            entries.append(MessageEntry(i, message, "changed", "input", previous=before[i], sent_on=sent_on,
                                        referred=_referred(trace, index, message)))
            shifted = True
    dropped = len(before) - placed + max(0, placed - len(current.request.messages))
    # Only where placing message by message found a change (never in a request that extends the one before it):
    # one that left some messages out and resent the rest unchanged is read as that, not as shifted and changed.
    if shifted and (found := realigned(current, kept)) is not None:
        resent, dropped_at = found
        entries[:resent] = [MessageEntry(i, message, "resent", "input")
                            for i, message in enumerate(current.request.messages[:resent])]
        for i in range(resent, min(placed, len(current.request.messages))):
            entries[i] = new(i, current.request.messages[i])
        dropped = len(dropped_at)
        return Growth(entries=tuple(entries), dropped=dropped, against=kept.index, index=index, dropped_at=dropped_at)
    if shifted and (found := matched(current, kept)) is not None:
        messages = current.request.messages
        entries = [new(i, message) for i, message in enumerate(messages)]
        for i, j in found.resent:
            entries[i] = MessageEntry(i, messages[i], "resent", "input", was_at=j if j != i else None)
        for i, j in found.changed:
            entries[i] = MessageEntry(i, messages[i], "changed", "input", previous=before[j], sent_on=sent_on,
                                      referred=_referred(trace, index, messages[i]), was_at=j if j != i else None)
        return Growth(entries=tuple(entries), dropped=len(found.dropped_at), against=kept.index, index=index,
                      dropped_at=found.dropped_at, matched=True)
    return Growth(entries=tuple(entries), dropped=dropped,
                  against=kept.index if kept else None, index=index)
