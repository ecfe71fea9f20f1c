"""Why our count of a round's input and the reported input differ, decided from what the trace shows.

A gap of more than a fifth is said in words beside the figure: a reader must not take our count for
the provider's, nor the provider's for a mistake. So is any count above the reported input, however
small: the input's parts then are our count's, not shares of the input, and the reader is told why.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.encodings import model_encoding
from lib.model import OtherPart, Round, ToolResultPart, Trace, summary_in_clear
from lib.provenance import LACKED_NAMES
from lib.summary import LACKED_PARTS, RoundSummary, not_logged_on_opt_in
from lib.text import plural

GAP_SHARE = 0.2
"""A gap larger than this share of the reported input gets its reason said."""

ROUNDS_NAMED = 5
"""Up to this many other rounds sharing an explanation are named; beyond it, counted."""


def counts_with_models_tokenizer(counter: str, model: str | None) -> bool:
    """Whether the counter (a tiktoken encoding's name, or `characters`) is the model's own tokenizer."""
    return model_encoding(model) == counter


IMAGE_PARTS = frozenset({"image_url", "image", "input_image"})
"""The part types an image is sent as: Chat Completions, Messages (and Bedrock), the Responses API."""


INLINE_IMAGE = "data:image/"
"""How an image written into a tool's result begins (a `computer_call_output`'s screenshot, as a data URL)."""


def _images(round_: Round) -> int:
    """The images a request carries: parts we count as their JSON text, where the provider bills the picture; and the
    images a tool's result holds as data URLs, which we count as text the same way."""
    request = round_.request
    messages = (*request.messages, request.system) if request.system is not None else request.messages
    return sum(1 if type(part) is OtherPart and part.type in IMAGE_PARTS
               else part.content.count(INLINE_IMAGE) if type(part) is ToolResultPart else 0
               for message in messages for part in message.parts)


AUDIO_PARTS = frozenset({"input_audio"})
"""The part type a recording is sent as (Chat Completions' `input_audio`, its bytes in base64)."""


def _audio(round_: Round) -> int:
    """The recordings a request carries: parts we count as their JSON text, base64 bytes and all, where the provider
    bills the sound."""
    return sum(1 for message in round_.request.messages for part in message.parts
               if type(part) is OtherPart and part.type in AUDIO_PARTS)


FILE_PARTS = frozenset({"file", "input_file"})
"""The part types a document is sent as (Chat Completions' `file`, the Responses API's `input_file`): its bytes in
base64, or only the id of a file uploaded before."""


def _files(round_: Round) -> int:
    """The documents a request carries: parts we count as their JSON text, where the provider reads the document
    (pages as text and images) and bills that."""
    return sum(1 for message in round_.request.messages for part in message.parts
               if type(part) is OtherPart and part.type in FILE_PARTS)


COMPACTED_PARTS = frozenset({"compaction"})
"""The part types of a compacted history the provider returned and the program sends back (the Responses API's
`compaction` item): opaque, encrypted text."""


def _compacted(round_: Round) -> int:
    """The compacted histories a request carries: encrypted text we count by its characters, where the provider reads
    the history it stands for, which the log does not hold."""
    return sum(1 for message in round_.request.messages for part in message.parts
               if type(part) is OtherPart and part.type in COMPACTED_PARTS and summary_in_clear(part) is None)


def _before_summary(round_: Round) -> int:
    """The messages a request carries before its last compaction summary in the clear (lib.model.summary_in_clear):
    Anthropic drops everything before a compaction block and reads the conversation from the summary on, so a program
    that resends the whole history is billed for none of those turns."""
    messages = round_.request.messages
    return next((index for index in range(len(messages) - 1, -1, -1)
                 if any(summary_in_clear(part) is not None for part in messages[index].parts)), 0)


ENCRYPTED_REASONING = "reasoning"
"""The part type of a reasoning item resent in a request (the Responses API's `reasoning`), whose
`encrypted_content` is opaque text."""


def _encrypted_reasoning(round_: Round) -> int:
    """The reasoning items a request resends with `encrypted_content`: text we count by its characters, where the
    provider decrypts the model's reasoning it stands for, which the log does not hold."""
    return sum(1 for message in round_.request.messages for part in message.parts
               if type(part) is OtherPart and part.type == ENCRYPTED_REASONING and isinstance(part.raw, dict)
               and isinstance(part.raw.get("encrypted_content"), str) and part.raw["encrypted_content"])


def _reasons(trace: Trace, round_: Round, row: RoundSummary, reported_more: bool) -> list[str]:
    """The one explanation of a gap measured on `round_`: every view that says why takes it from here."""
    reasons = []
    if reported_more and row.tool_list_never_logged:  # an agent's log: a list was sent; a model class's span: maybe
        sent = "the list" if row.tool_list_sent else "any list"  # as tool_list_missing says it, on the same round
        # The same words for the same format as the Tokens page's caption (lib.summary.not_logged_on_opt_in): an
        # OpenTelemetry span keeps the list where the instrumentation opts in, so it is no agent's log that never does.
        kept = ("keeps the tool list only where the instrumentation opts in (an OpenTelemetry GenAI span), and this "
                "log has none" if not_logged_on_opt_in(round_)
                else "does not always keep the tool list (an agent's session log never does)")
        reasons.append(f"the log's format {kept}, so {sent} sent and billed is not in our count")
    elif reported_more and not row.tool_list_recorded:  # the list was billed; our count cannot hold what was not kept
        reasons.append("the log kept no tool list, though the model called tools, so the list that was sent and "
                       "billed is not in our count")
    if reported_more and "instructions" in row.parts_not_logged:  # absent from every round alike, not abridged
        reasons.append(("it does not always keep the instructions (the system prompt) either"
                        if row.tool_list_never_logged
                        else "the log's format does not always keep the instructions (the system prompt)")
                       + ", so any sent and billed are not in our count")
    if round_.request_from_transcript:  # what the program wrapped around the turns, or cut, is in neither direction
        reasons.append("the request is rebuilt from the log's transcript, not recorded as sent, so what the program "
                       "added to the turns or left out of them when it sent them is not in our count")
    if images := _images(round_):
        reasons.append(f"the request carries {plural(images, 'image')}, which we count as the text of "
                       f"{'its part' if images == 1 else 'their parts'}, not as the provider bills an image")
    if audio := _audio(round_):
        reasons.append(f"the request carries {plural(audio, 'audio recording')}, which we count as the text of "
                       f"{'its part' if audio == 1 else 'their parts'} (the sound's bytes written in base64), not as "
                       "the provider bills sound")
    if files := _files(round_):
        reasons.append(f"the request carries {plural(files, 'file')}, which we count as the text of "
                       f"{'its part' if files == 1 else 'their parts'} (the bytes written in base64, or only the "
                       "id of a file uploaded before), not as the provider reads and bills the document")
    if compacted := _compacted(round_):
        carried = "a compacted history" if compacted == 1 else f"{compacted} compacted histories"
        reasons.append(f"the request carries {carried} the provider returned, encrypted, which we count as the "
                       "characters of that text; what the provider reads from it is not in the log")
    if not reported_more and (dropped := _before_summary(round_)):
        reasons.append(f"the request resends {plural(dropped, 'message')} before the compaction summary it carries, "
                       "which the provider drops, reading the conversation from the summary on: "
                       + ("it is" if dropped == 1 else "they are") + " in our count, not in the input")
    if reasoning := _encrypted_reasoning(round_):
        items = "a reasoning item" if reasoning == 1 else f"{reasoning} reasoning items"
        reasons.append(f"the request resends {items} of the model's with encrypted content, which we count as the "
                       "characters of that text; what the provider reads from it is not in the log")
    # What the format never keeps, and a tool list the log lacks, have their reasons above: said again here they would
    # read as a second cause. What else the record lacks, it abridged.
    omitted = [LACKED_NAMES.get(o, o) for o in trace.round_provenance(round_).omitted
               if LACKED_PARTS.get(o) not in row.parts_not_logged and not (o == "tools" and not row.tool_list_recorded)]
    if omitted and reported_more:  # a request the record abridged is counted short, never long
        reasons.append("the trace's instructions are abridged: the recorded request lacks " + ", ".join(omitted))
    counter = row.breakdown.counter
    if counter == "characters":
        reasons.append("we count 4 characters as a token, not with the model's tokenizer")
    elif not counts_with_models_tokenizer(counter, row.model):
        reasons.append(f"we count with {counter}, which is not the tokenizer of {row.model or 'an unnamed model'}")
    reasons.append(_rendering_reason(round_, reported_more))
    return reasons


def _rendering_reason(round_: Round, reported_more: bool) -> str:
    # What the provider adds explains a report above our count; below it, only a shorter rendering can.
    if reported_more and round_.compaction:
        # A compaction call (Round.compaction): the provider compacts under instructions of its own, which the program
        # never sends, so no log of its traffic holds them.
        return "the provider compacts under instructions of its own, which are not in the log, so not in our count"
    # A structured-output schema is rendered by the provider as the tools are: named wherever the tools would be.
    rendered = " and ".join(name for name, sent in (("the tool definitions", round_.request.tools),
                                                    ("the output schema", round_.request.output_schema is not None))
                            if sent)
    schema = ("; we count the output schema as its JSON text, an estimate of how the provider writes it for the model"
              if round_.request.output_schema is not None else "")
    if reported_more and rendered:
        return f"the provider's chat template and its rendering of {rendered} add tokens we cannot see{schema}"
    if reported_more:
        return "the provider's chat template adds tokens we cannot see"
    if rendered:
        them = "it" if rendered == "the output schema" else "them"
        return (f"we count {rendered} as JSON text, and the provider writes {them} for the model in a shorter form of "
                "its own")
    return "the provider frames the messages in fewer tokens than we allow for"


@dataclass(frozen=True, slots=True)
class GapNote:
    """Why one round's input and our count of it differ."""

    words: str
    """The whole explanation, as said beside the round's figures."""
    kind: tuple
    """What the explanation says apart from its figures: the round it was measured on (None for the round's own
    report), whether the report is above our count, and the reasons. Rounds of one kind share one explanation."""


def _share(gap: int, base: int, of: str) -> str:
    """The gap against the input it is measured on, `of` naming that input ("of the input"): a share up to it; past
    it, how many times its size, since no part of an input is larger than the input ("271% of the input" read so)."""
    share = abs(gap) / base
    if share < 0.005:
        return f"under 1% {of}"
    # 13,871 of 13,906 rounds to 100%, which would say our count found nothing of the input.
    if share < 1:
        return f"{'over 99%' if share >= 0.995 else f'{share:.0%}'} {of}"
    # Only a count above the report gets here: the report can be no more than the input above our count.
    times = f"{share:.1f}".removesuffix(".0")
    size = of.removeprefix("of ")
    if times == "1":
        return f"a difference {'as' if abs(gap) == base else 'about as'} large as {size} itself"
    return f"a difference {times} times the size of {size}"


def gap_note(trace: Trace, row: RoundSummary) -> GapNote | None:
    """The reported input against our count, and why they differ, when they differ by more than a fifth or our count
    is above the input; None when the log kept no request, since then nothing was counted to differ. An estimate
    carrying another round's gap says that round's gap, as a share of that round's reported input."""
    usage, gap = row.usage, row.breakdown.not_counted
    if not row.request_recorded or not gap:
        return None
    if usage.source == "reported":
        measured_on, base = trace.rounds[row.round - 1], usage.input_tokens
        whose = "The reported input is"
        of = "of the input"
    elif usage.anchor_round is not None:
        measured_on = trace.rounds[usage.anchor_round - 1]
        base = measured_on.response.usage.input_tokens
        whose = (f"This estimate carries round {usage.anchor_round}'s gap: round {usage.anchor_round}'s reported "
                 "input was")
        of = f"of round {usage.anchor_round}'s input"
    else:
        return None
    if not base or (gap > 0 and gap <= GAP_SHARE * base):
        return None
    reasons = _reasons(trace, measured_on, row, gap > 0)
    words = (f"{whose} {plural(abs(gap), 'token')} {'more' if gap > 0 else 'fewer'} than our count, "
             f"{_share(gap, base, of)}. Why: " + "; ".join(reasons) + ".")
    return GapNote(words, (usage.anchor_round, gap > 0, tuple(reasons)))


def gap_reason(trace: Trace, row: RoundSummary) -> str | None:
    """The words of `gap_note`, or None where no gap is explained."""
    note = gap_note(trace, row)
    return note.words if note else None


def _foreign_count(row: RoundSummary) -> str | None:
    """`counter, which is not the tokenizer of model` for an estimate no reported round anchors, counted with a
    vocabulary not the model's; None otherwise (an anchored estimate's gap note says it, a character count's notice)."""
    counter = row.breakdown.counter
    if (row.usage.source == "reported" or not row.request_recorded or row.usage.anchor_round is not None
            or counter == "characters" or counts_with_models_tokenizer(counter, row.model)):
        return None
    return f"{counter}, which is not the tokenizer of {row.model or 'an unnamed model'}"


def _caveat(counted: str, whose: str) -> str:
    return f"Estimated with {counted}: the provider's own count of {whose} would differ."


def figure_note(trace: Trace, row: RoundSummary) -> str | None:
    """What is said beside a round's figures: why our count and the report differ (`gap_reason`), or, for an estimate
    nothing reported anchors, that it was counted with a tokenizer not the model's."""
    counted = _foreign_count(row)
    return gap_reason(trace, row) or (_caveat(counted, "this round") if counted else None)


def _rounds_words(rounds: list[int]) -> str:
    if len(rounds) > ROUNDS_NAMED:
        return plural(len(rounds), "other round")
    named = [str(k) for k in rounds]
    return ("round " if len(named) == 1 else "rounds ") + (
        named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1])


def gap_notes_words(trace: Trace, rows: tuple[RoundSummary, ...]) -> list[str]:
    """The explanations of a trace's gaps, said once for each kind (`GapNote.kind`) at the first round it applies to,
    with the other rounds it applies to: the same words where theirs are the same, else the same reasons. Then the
    rounds whose estimate no reported round anchors and a tokenizer not the model's counted (`figure_note`)."""
    kinds: dict[tuple, list[tuple[int, GapNote]]] = {}
    for row in rows:
        if note := gap_note(trace, row):
            kinds.setdefault(note.kind, []).append((row.round, note))
    said = []
    for (_, reported_more, _), notes in kinds.items():
        (first, note), others = notes[0], [k for k, _ in notes[1:]]
        line = f"Round {first}: {note.words}"
        if others and all(other.words == note.words for _, other in notes):
            line += f" The same holds for {_rounds_words(others)}."
        elif others:
            line += (f" For the same reasons, the reported input of {_rounds_words(others)} is also "
                     + ("above our count by more than a fifth." if reported_more else "below our count."))
        said.append(line)
    foreign: dict[str, list[int]] = {}
    for row in rows:
        if counted := _foreign_count(row):
            foreign.setdefault(counted, []).append(row.round)
    for counted, rounds in foreign.items():
        words = _rounds_words(rounds)
        said.append(f"{words[0].upper()}{words[1:]}: {_caveat(counted, 'it' if len(rounds) == 1 else 'them')}")
    return said
