"""One summary row per round, and the snowball: what the whole conversation cost in input."""

from __future__ import annotations

from dataclasses import dataclass

from lib.dialects import DIALECTS
from lib.failures import NO_CALL_MADE, is_unsent, status_words, unmade_words
from lib.growth import standing
from lib.model import Round, Trace, Usage, built_fast
from lib.prices import COST_NOT_KNOWN, Price, TraceCost, call_cost, calls_left_out_words, trace_cost
from lib.steps import UNPROVEN_SAID, command_written
from lib.text import as_sentence, plural, rounds_named
from lib.tokens import (BEYOND_OUR_COUNT, INPUT_PARTS, NOT_COUNTED, NOT_COUNTED_NAME, InputBreakdown, TokenCounter, input_parts,
                        left_out_of_output, not_counted_label, reconciled_breakdowns)

BILLING_NOT_KNOWN = "the call failed, and the log does not say whether the provider billed it"
"""What is said wherever a failed call's cost would be: an error response carries no usage."""

PART_LABELS = dict(INPUT_PARTS)
"""Each input part's label, by its InputBreakdown field."""

REQUEST_NOT_COUNTED = "The request was not in the log, so nothing of it is counted or estimated."
"""What is said wherever a round's input would be split or estimated, for a request the log did not keep."""


TOOL_LIST_UNRECORDED = ("The log kept no tool list, though the model called tools: the list was sent, but it is "
                        "neither shown nor counted here.")
"""Said wherever the tool list's tokens would be, for a log that kept the messages but not the tools."""
TOOL_LIST_UNRECORDED_UNTIL_PREDICTED = ("The log kept the messages, not the tool list: it is neither shown nor "
                                        "counted here.")
"""TOOL_LIST_UNRECORDED before the learner has predicted: the calls that prove a list was sent are the answer."""

TOOL_LIST_NOT_LOGGED = ("The log kept no tool list: its format does not always keep one (an agent's session log never "
                        "does, an OpenTelemetry span only where the instrumentation opts in), so no list is shown or "
                        "counted here, whether or not one was sent.")
"""Said instead, for a log whose format does not always keep the tool list (tool_list_never_logged) where nothing
shows that one was sent: whether or not the model called a tool, no figure may say the list was empty."""
TOOL_LIST_SENT_NOT_LOGGED = ("The log kept no tool list: its format does not always keep one, but a list was sent; it "
                             "is neither shown nor counted here.")
"""Said instead, for a log whose format does not always keep the tool list where one was sent all the same
(RoundSummary.tool_list_sent: the model called tools, or the agent sends its list with every request). Not "billed": a
failed call's round says the same, and whether a failed call was billed the log does not say (BILLING_NOT_KNOWN)."""


def tool_list_never_logged(round_: Round) -> bool:
    """Whether the round's log format never keeps the tool list it sent: its provenance says the request lacks
    `tools`, as every round of a Claude Code session log does (parts_not_logged)."""
    return "tools" in parts_not_logged(round_)


def tool_list_always_sent(round_: Round) -> bool:
    """Whether the round's log is an agent's that sends its tool list with every request though it never logs it
    (Provenance.sent, a fact of the agent: Codex, Gemini CLI), so that it was sent is known without the calls."""
    provenance = round_.provenance if "provenance" in round_.extra else None
    return provenance is not None and "tools" in provenance.sent and "tools" in provenance.omitted


LACKED_PARTS = {"system": "instructions", "tools": "tools"}
"""What a provenance may say the recorded request lacks (Provenance.omitted), and the InputBreakdown field that would
count it."""


NOT_LOGGED_NAMES = {"instructions": "the instructions", "tools": "the tool list"}
"""Each InputBreakdown field a log's format may never keep (parts_not_logged), as the pages name what was sent."""


def not_logged_words(fields: tuple[str, ...]) -> tuple[str, str]:
    """What a log's format never keeps, in words: `neither the instructions nor the tool list` or `no tool list`,
    and `they` or `it` for it; every page that says so takes its words from here, so a log that keeps its
    instructions (Codex's newer rollouts) is never said to lack them."""
    lacked = [NOT_LOGGED_NAMES[f] for f in NOT_LOGGED_NAMES if f in fields]
    if len(lacked) > 1:
        return "neither " + " nor ".join(lacked), "they"
    return ("no " + lacked[0].removeprefix("the ") if lacked else ""), "it"


OPT_IN_FORMATS = frozenset({"otel-genai"})
"""The `converted_from` of logs whose format keeps the instructions and the tool list only where the instrumentation
opts in (OpenTelemetry GenAI's gen_ai.system_instructions and gen_ai.tool.definitions): a log of theirs that lacks them
is no agent's session log, which never keeps them."""


def not_logged_on_opt_in(round_: Round) -> bool:
    """Whether what the round's log lacks (parts_not_logged) is what its format keeps only on opt-in (OPT_IN_FORMATS),
    not what it never keeps: the pages say which, so an OpenTelemetry span is not called an agent's session log."""
    return round_.extra.get("converted_from") in OPT_IN_FORMATS


def parts_not_logged(round_: Round) -> tuple[str, ...]:
    """The InputBreakdown fields of the round's request that its log's format never keeps (Claude Code's system prompt
    and tool list): sent and billed, so counted as not known, never as 0."""
    if "provenance" not in round_.extra:  # only a stated provenance names what the log omits: most rounds have none
        return ()
    provenance = round_.provenance
    return tuple(LACKED_PARTS[o] for o in provenance.omitted if o in LACKED_PARTS) if provenance else ()


def cache_written(usage: Usage, reported: bool = True) -> str:
    """The tokens written to the prompt cache, and for how long where the log tells: Claude Code writes for an hour
    (cache_creation.ephemeral_1h_input_tokens), billed at its own rate. Anthropic writes for 5 minutes or an hour, so
    what a stated hour leaves is 5 minutes'; a log that states no hour does not say which, and nor does this. Where
    the API reports no writes (`reported` False: RoundSummary.cache_writes_reported), that is what is said."""
    if not reported:
        return "the API does not report what it wrote to the cache"
    written, for_an_hour = usage.cache_write_tokens, usage.cache_write_1h_tokens
    if not for_an_hour:
        return f"{written:,} written to it"
    if for_an_hour == written:
        return f"{written:,} written to it for an hour"
    return f"{written:,} written to it ({for_an_hour:,} for an hour, {written - for_an_hour:,} for 5 minutes)"


def reported_extras_words(row: RoundSummary) -> str:
    """What a reported usage holds inside its input and output, as the explorer and the HTML export say it beneath
    the figures: the prompt cache read and written, the reasoning tokens; empty when it reports none of them. A count
    the log does not hold is said to be not in it, never 0."""
    usage, extras = row.usage, []
    cached = row.cached_if_known  # None where the log holds no count: not said to be 0
    read = f"{cached:,} read from the prompt cache" if cached is not None else f"cache reads: {NOT_IN_THE_LOG}"
    if (cached or usage.cache_write_tokens) and row.cache_writes_reported:
        extras.append(f"{read}, {cache_written(usage)} (included in the input)")
    elif cached:
        extras.append(f"{read} (included in the input); {cache_written(usage, reported=False)}")
    if usage.reasoning_tokens:
        extras.append(f"{usage.reasoning_tokens:,} reasoning tokens (included in the output)")
    if row.sent and usage.other_model_calls:
        extras.append(other_model_calls_words(usage))
    said = "; ".join(extras) + "." if extras else ""
    return said[:1].upper() + said[1:]  # a sentence of its own, beneath the figures or after theirs


def other_model_calls_words(usage: Usage) -> str:
    """The calls to other models inside the round (Usage.other_model_calls: Anthropic's advisor) and their tokens, as
    every view says them beside the round's figures, which leave them out: billed at their own model's rates, they
    are priced apart (lib.prices.call_cost). Our words and counts only, for markdown: the models, the log's words,
    are other_models_named's, shown as text."""
    calls = usage.other_model_calls
    said = ", ".join(f"{c.usage.input_tokens:,} in, {c.usage.output_tokens:,} out" for c in calls)
    opening = "one call to another model" if len(calls) == 1 else f"{len(calls)} calls to other models"
    rates = "billed at its model's rates" if len(calls) == 1 else "each billed at its model's rates"
    return f"{opening} inside this round ({said}), {rates}: not in these token counts"


def other_models_named(usage: Usage) -> str:
    """The models of the calls inside the round (Usage.other_model_calls) as the log names them, for text beside
    other_model_calls_words: untrusted, never markdown."""
    return "Called inside this round: " + ", ".join(c.model or "a model the log does not name"
                                                    for c in usage.other_model_calls)


def tool_list_missing(never_logged: bool, secret: bool = False, sent: bool = False) -> str:
    """The one statement of a round whose log kept no tool list (tool_list_recorded False), wherever the list would
    be: `never_logged` for a format that never keeps one, `sent` where one was sent all the same (RoundSummary.
    tool_list_sent); `secret` in predict mode before the learner has predicted, when the calls that prove a list was
    sent are the answer (a list the agent always sends is no secret: lib.ui.cards passes `sent` for it)."""
    if never_logged:
        return TOOL_LIST_SENT_NOT_LOGGED if sent else TOOL_LIST_NOT_LOGGED
    return TOOL_LIST_UNRECORDED_UNTIL_PREDICTED if secret else TOOL_LIST_UNRECORDED


def tool_list_words(row: RoundSummary | Snowball) -> str:
    """tool_list_missing for a round's row, or a conversation's totals, as they know it (tool_list_never_logged,
    tool_list_sent): the explorer's and the HTML file's input split and the Tokens page's tool list say it so."""
    return tool_list_missing(row.tool_list_never_logged, sent=row.tool_list_sent)


@built_fast
@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The figures of one round at a glance."""

    round: int
    """1-based round number."""
    messages_sent: int
    """Length of the request's messages array: every message the model reads, the held ones included."""
    messages_held: int
    """Of those, the messages the provider held (previous_response_id or a conversation): read, billed, not sent."""
    new_messages: int
    """Messages this request added to the previous one the log kept (new_against) that the program sent (held ones
    are not: lib.growth.standing, as growth counts them)."""
    tool_calls: int
    """Call intents in the response."""
    finish_reason: str
    """The stop signal as the provider wrote it, or what happened instead."""
    usage: Usage
    """Reported usage, or the estimate standing in for it (usage.source says which)."""
    breakdown: InputBreakdown
    """Where the input tokens go; its parts sum to `usage.input_tokens`."""
    latency_ms: float | None
    """Wall time of the model call, when recorded."""
    model: str | None
    """The model that answered, or the one asked for."""
    request_recorded: bool = True
    """False when the log held no request for this round: nothing about the request is known."""
    tool_list_recorded: bool = True
    """False when the model called tools but no request in the log carries a tool list: one was sent, unrecorded;
    and for a log whose format never keeps the list (tool_list_never_logged)."""
    tool_list_never_logged: bool = False
    """True when the log's format never keeps the tool list (Claude Code's): said with tool_list_missing."""
    tool_list_sent: bool = False
    """True when the log kept no tool list but one was sent all the same: the model called tools in the conversation,
    or the log's agent sends its list with every request (tool_list_always_sent)."""
    failed: bool = False
    """True when the call failed (an error, no response): whether the provider billed it, the log does not say."""
    sent: bool = True
    """False when no provider saw the request (lib.failures.is_unsent: a Replay miss, a call Roundtrip refused to
    send; Round.from_cache: the program's cache answered it): no call was made, so it has no tokens and costs
    nothing, and it is not a failed call."""
    rejected_output: bool = False
    """True when the output is a generation the provider rejected (`failed_generation`), counted offline."""
    response_recorded: bool = True
    """False for a request the log ends on: neither a response nor an error was recorded, so no output is known."""
    answer_recorded: bool = True
    """False when the log kept none of the model's turn though it kept the response's figures (Round.answer_recorded:
    a span without content capture): its calls are not known, not none."""
    new_against: int | None = None
    """The round whose request new_messages counts against (lib.growth.kept_before): the one before, or an earlier
    one when the log lost the requests between; None for the first round, or when the log kept no earlier request."""
    parts_not_logged: tuple[str, ...] = ()
    """The InputBreakdown fields its log's format never keeps (parts_not_logged): not known, in the part reported
    beyond our count."""
    not_logged_on_opt_in: bool = False
    """True when its format keeps those parts only where the instrumentation opts in (an OpenTelemetry GenAI span:
    not_logged_on_opt_in), not never (an agent's session log)."""
    output_left_out: tuple[str, ...] = ()
    """Kinds of the response's parts an estimated output does not count (lib.tokens.NOT_OUTPUT: Gemini CLI's thought
    summaries), said beside the figure (output_estimate_words); empty where the output was reported."""
    cache_writes_reported: bool = True
    """False where the trace's dialect reports no prompt-cache writes (lib.dialects' REPORTS_CACHE_WRITES: OpenAI's):
    its usage's 0 written is not a figure the log holds (cache_written)."""
    cache_read_reported: bool = True
    """False where the round's reported usage holds no count of tokens read from the prompt cache (lib.dialects'
    reports_cache_read), or where the usage is our estimate: its 0 cached is not a figure the log holds."""
    cache_write_counted: bool = True
    """False where the round's usage holds no count of tokens written to the prompt cache: its dialect reports none
    (cache_writes_reported), the usage lacks the field (lib.dialects' reports_cache_write), or it is our estimate."""
    resent_messages: int = 0
    """Of the messages the program sent, those resent exactly as in the request new_against names (lib.growth.standing:
    the explorer's "resent unchanged")."""
    changed_messages: int = 0
    """Of the messages the program sent, those resent with changes, or standing where that request had another
    message (lib.growth.standing: the explorer's "changed since the previous request"); new_messages, these,
    resent_messages and messages_held add up to messages_sent."""

    @property
    def program_sent(self) -> int:
        """The messages the program itself put in the request: the held ones left out."""
        return self.messages_sent - self.messages_held

    # What the log did not keep is unknown, not 0: the Tokens page and `summarize --json` read these alike.

    @property
    def sent_if_known(self) -> int | None:
        """The messages the program sent (program_sent), or None when the log kept no request."""
        return self.program_sent if self.request_recorded else None

    @property
    def held_if_known(self) -> int | None:
        """The messages the provider held, or None when the log kept no request."""
        return self.messages_held if self.request_recorded else None

    @property
    def new_if_known(self) -> int | None:
        """The new messages the program sent (new_messages), or None when the log kept no request, or none before a
        later round's, so that what is new in it is not known."""
        known = self.request_recorded and (self.round == 1 or self.new_against is not None)
        return self.new_messages if known else None

    @property
    def resent_if_known(self) -> int | None:
        """The messages resent unchanged (resent_messages), or None where new_if_known is: without the request or one
        before it, what was resent is not known either."""
        return self.resent_messages if self.new_if_known is not None else None

    @property
    def changed_if_known(self) -> int | None:
        """The messages resent with changes (changed_messages), or None where new_if_known is."""
        return self.changed_messages if self.new_if_known is not None else None

    @property
    def calls_if_known(self) -> int | None:
        """The call intents of the response, or None for a request the log ends on (no response, no error) or an answer
        the log did not keep (answer_recorded)."""
        return self.tool_calls if self.response_recorded and self.answer_recorded else None

    @property
    def input_if_known(self) -> int | None:
        """The input tokens: reported, or counted from a request the log kept; else None, and for a call never made
        (sent): it read nothing, and the sums leave it out."""
        if not self.sent:
            return None
        return self.usage.input_tokens if self.request_recorded or self.usage.source == "reported" else None

    @property
    def cached_if_known(self) -> int | None:
        """The input tokens read from the prompt cache, as the usage reports them (0 where it reports 0); None where
        the log holds no such count (cache_read_reported) or no call was made (sent)."""
        return self.usage.cache_read_tokens if self.cache_read_reported and self.sent else None

    @property
    def cache_written_if_known(self) -> int | None:
        """The input tokens written to the prompt cache, as the usage reports them (0 where it reports 0); None where
        the log holds no such count (cache_write_counted) or no call was made (sent)."""
        return self.usage.cache_write_tokens if self.cache_write_counted and self.sent else None

    @property
    def billed_input_if_known(self) -> int | None:
        """The input tokens as a sum of what was billed takes them (input_if_known), or None where whether the
        provider billed the call is not known (billing_known): every "billed" figure leaves it out, as the cost
        does, and says so."""
        return self.input_if_known if billing_known(self) else None

    @property
    def output_if_known(self) -> int | None:
        """The output tokens, reported or counted from a response or error the log kept; None when `missing_output`
        names why there is no figure (a failed call produced none we know of; a request the log ends on did not
        produce 0 tokens: what it produced is not in the log)."""
        return None if missing_output(self) or not self.sent else self.usage.output_tokens


def billing_known(row: RoundSummary) -> bool:
    """Whether the log says what the provider billed for the round's call: not for a failed call whose usage the
    provider did not report (a refusal, an error: BILLING_NOT_KNOWN), nor for a request the log holds no response or
    error to (UNANSWERED_BILLING_NOT_KNOWN: the log ends mid-call, or the call got no answer). The input it sent is
    known; whether it was billed is not (a provider bills the input of a call it completed), so every "billed" sum
    and the cost (cost_known) leave it out, and say so."""
    if row.usage.source == "reported":
        return True
    return not row.failed and row.response_recorded


UNANSWERED_BILLING_NOT_KNOWN = ("the log holds no response to this call, so it does not say whether the provider "
                                "billed it")
"""BILLING_NOT_KNOWN for a request the log ends on, or that got no answer (unanswered_left_out): no usage, no error."""


def billing_reason(row: RoundSummary) -> str:
    """Why the round's billing is not known (billing_known), in the words every view says it: the call failed, or the
    log holds no response to it."""
    return BILLING_NOT_KNOWN if row.failed else UNANSWERED_BILLING_NOT_KNOWN


def billing_words(row: RoundSummary) -> str | None:
    """What every view says beside the input of a call whose billing is not known (billing_known), as a sentence;
    None where it is known."""
    return None if billing_known(row) else as_sentence(billing_reason(row))


def billing_left_out(row: RoundSummary) -> bool:
    """Whether the round's call failed, its input known but its billing not (billing_known): a call every billed
    figure and the cost leave out, and say so as a failed call (lib.prices.calls_left_out_words)."""
    return row.input_if_known is not None and not billing_known(row) and row.failed


def unanswered_left_out(row: RoundSummary) -> bool:
    """Whether the round is a request the log holds no response or error to, its input known but its billing not
    (billing_known): every billed figure and the cost leave it out, as they leave out a call whose output is not known
    ("not known, left out"), and the page says why (billing_unknown_rounds_words)."""
    return row.input_if_known is not None and not billing_known(row) and not row.failed


def billing_unknown_rounds_words(rows: tuple[RoundSummary, ...]) -> str | None:
    """Under the input billed so far: the rounds whose call failed, or that the log holds no response to, and whose
    billing the log does not say, left out of it as of the totals (billing_known); None when there are none."""
    failed = [r.round for r in rows if billing_left_out(r)]
    unanswered = [r.round for r in rows if unanswered_left_out(r)]
    said = [
        _rounds_said(failed, "failed: whether the provider billed it, the log does not say, so it is left out of the "
                             "input billed.",
                     "failed: whether the provider billed them, the log does not say, so they are left out of the "
                     "input billed."),
        _rounds_said(unanswered, "has no response in the log: whether the provider billed it, the log does not say, "
                                 "so it is left out of the input billed, as of the output and the cost.",
                     "have no response in the log: whether the provider billed them, the log does not say, so they "
                     "are left out of the input billed, as of the output and the cost."),
    ]
    return " ".join(words for words in said if words) or None


def _rounds_said(rounds: list[int], one: str, several: str) -> str | None:
    """'Round 3 <one>' or 'Rounds 3 and 5 <several>'; None for no round."""
    if not rounds:
        return None
    if len(rounds) == 1:
        return f"Round {rounds[0]} {one}"
    named = rounds_named(rounds)
    return f"{named[0].upper()}{named[1:]} {several}"


OUTPUT_MISSING = {"not known": "the call failed and the error holds no output",
                  "not in the log": "no response was recorded"}
"""The words for a round with no output figure, each with why; the explorer's card says the same."""


def missing_output(row: RoundSummary) -> str | None:
    """Why a round has no output figure (a key of OUTPUT_MISSING), or None when it has one, reported or estimated."""
    if row.failed and not row.rejected_output and row.usage.source != "reported":
        return "not known"
    return None if row.response_recorded or row.usage.source == "reported" else "not in the log"


OUTPUT_LEFT_OUT_WORDS = {"thought_summary": "the model's thought summaries"}
"""The kinds of parts an estimated output leaves out (lib.tokens.NOT_OUTPUT), in our words."""


def output_estimate_words(row: RoundSummary) -> str:
    """What a round's estimated output counts, as every view says it beside the figure: the response's text and
    calls, and what it leaves out (output_left_out_words)."""
    return ("The API reported no usage for this round; the output is counted offline from the response's content."
            + (" " + output_left_out_words(row.output_left_out) if row.output_left_out else ""))


def output_left_out_words(kinds: tuple[str, ...]) -> str:
    """The parts an estimated output leaves out (RoundSummary.output_left_out), each kind in our words, never the
    log's, and why."""
    named = [OUTPUT_LEFT_OUT_WORDS[kind] for kind in kinds if kind in OUTPUT_LEFT_OUT_WORDS] or ["some of its parts"]
    return (f"The estimate leaves out {' and '.join(named)}: they summarize the model's thinking, which the provider "
            "bills as output tokens; the log holds neither that thinking nor its count, so it is not in this "
            "estimate.")


NOT_IN_THE_LOG = "not in the log"
"""What a figure reads where the log did not keep what it would be counted from: unknown, never 0 or blank."""
LEFT_OUT = "left out"
"""What a share reads where every call it would be taken over is left out of the sums (a failed call whose billing the
log does not say): known, but in no sum, so in no share either."""


def tokens_words(row: RoundSummary) -> tuple[str, str]:
    """A round's input and output tokens as every page writes them: `1,234` as reported, `≈ 1,234` for our estimate,
    or why the log gives no figure (NOT_IN_THE_LOG, `missing_output`), never a 0 standing for what is not known."""
    if not row.sent:
        return NO_CALL_MADE, NO_CALL_MADE
    estimated = row.usage.source != "reported"
    tokens_in = NOT_IN_THE_LOG if row.input_if_known is None else about(row.input_if_known, estimated)
    return tokens_in, missing_output(row) or about(row.usage.output_tokens, estimated)


UNMADE_SAID = "no provider saw the request, so nothing was billed for it"
"""Why a round that made no call (RoundSummary.sent) has no tokens and costs nothing, wherever its figures would be."""


def table_tokens(row: RoundSummary) -> tuple[int | str, int | str]:
    """The round's input and output tokens as the rounds table holds them: numbers, or why there is none (NO_CALL_MADE,
    NOT_IN_THE_LOG, OUTPUT_MISSING's words), never a 0 standing for either."""
    if not row.sent:
        return NO_CALL_MADE, NO_CALL_MADE
    tokens_in = NOT_IN_THE_LOG if row.input_if_known is None else row.input_if_known
    return tokens_in, missing_output(row) or row.usage.output_tokens


REASONING_NOT_REPORTED = "not reported"
"""The reasoning figure of a round whose usage counts no reasoning apart: Anthropic's output_tokens hold the thinking
with no field of their own, many logs keep no such field, and an estimate counts none. Not 0: that says none was
spent."""


def table_reasoning(row: RoundSummary) -> int | str:
    """The round's reasoning tokens as the rounds table holds them: the provider's count (0 where it reported 0), or
    REASONING_NOT_REPORTED where its usage has no such count, NO_CALL_MADE where no provider saw the request."""
    if not row.sent:
        return NO_CALL_MADE
    return REASONING_NOT_REPORTED if row.usage.reasoning_tokens is None else row.usage.reasoning_tokens


def table_cached(row: RoundSummary) -> int | str:
    """The round's input read from the prompt cache as the rounds table holds it (RoundSummary.cached_if_known):
    the count the usage reports, 0 included, or NOT_IN_THE_LOG, NO_CALL_MADE where there is none."""
    if not row.sent:
        return NO_CALL_MADE
    return NOT_IN_THE_LOG if row.cached_if_known is None else row.cached_if_known


def table_cache_written(row: RoundSummary) -> int | str:
    """The round's input written to the prompt cache as the rounds table holds it (RoundSummary.
    cache_written_if_known): the count the usage reports, 0 included, or NOT_IN_THE_LOG, NO_CALL_MADE where there is
    none."""
    if not row.sent:
        return NO_CALL_MADE
    return NOT_IN_THE_LOG if row.cache_written_if_known is None else row.cache_written_if_known


def reasoning_reported(rows: tuple[RoundSummary, ...]) -> bool:
    """Whether any round's usage counts its reasoning tokens apart: without one, a reasoning column says nothing."""
    return any(r.usage.reasoning_tokens is not None for r in rows)


def cost_known(row: RoundSummary) -> bool:
    """Whether the round's cost can be worked out: its input and output are known, as the tokens summed for it are
    (the Library's and the Tokens page's sums leave out the same calls). A failed call whose error holds no output is
    not priced, nor one whose error holds what the model wrote (whether either was billed at all, BILLING_NOT_KNOWN:
    billing_known); a request or an answer the log lacks is not priced as
    0 tokens. A call never made (RoundSummary.sent) costs nothing."""
    if not row.sent:
        return True
    return row.billed_input_if_known is not None and row.output_if_known is not None


def round_cost(row: RoundSummary, prices: tuple[Price, ...]) -> float | None:
    """What one round cost in USD at these prices; None when its model has none, or its cost is not known
    (cost_known)."""
    if not row.sent:
        return 0.0
    spent = call_cost(row.model, row.usage, prices)[0] if cost_known(row) else None
    return spent


def round_cost_left_out_words(rows: tuple[RoundSummary, ...], prices: tuple[Price, ...]) -> str:
    """Under the rounds table: the rounds whose cost cell (round_cost) leaves out calls to other models inside them
    (Usage.other_model_calls: Anthropic's advisor) for want of their model's price, which the total's note alone said;
    empty where no cell does. Our words and counts only: the models are the log's words."""
    left_out = [(r.round, len(call_cost(r.model, r.usage, prices)[1])) for r in rows
                if r.sent and round_cost(r, prices) is not None]
    left_out = [(number, calls) for number, calls in left_out if calls]
    if not left_out:
        return ""
    calls = sum(count for _, count in left_out)
    if len(left_out) == 1:
        (number, _), = left_out
        said = "one call to another model" if calls == 1 else f"{calls:,} calls to other models"
        return f"Round {number}'s cost leaves out {said} inside it, which {'has' if calls == 1 else 'have'} no price."
    return (f"The costs of {rounds_named([number for number, _ in left_out])} leave out calls to other models inside "
            f"them ({calls:,} in all), which have no price.")


def rows_cost(rows: tuple[RoundSummary, ...], prices: tuple[Price, ...]) -> TraceCost:
    """What the rounds cost at these prices, summed over those whose cost is known; the others counted apart."""
    known = [r for r in rows if cost_known(r)]
    made = [r for r in known if r.sent]  # a call never made costs nothing, at any price
    spent = trace_cost(((r.model, r.usage) for r in made), prices)
    total = 0.0 if known and not made else spent.total
    return TraceCost(total, spent.unpriced, len(rows) - len(known), any(r.usage.source != "reported" for r in made),
                     sum(1 for r in rows if billing_left_out(r)), spent.unpriced_inside)


def parts_unlogged(row: RoundSummary) -> tuple[str, ...]:
    """The InputBreakdown fields of the round's request that no figure may give, sent and billed but not in the log:
    those its format never keeps (RoundSummary.parts_not_logged), and the tool list of a log that kept the messages
    but no list though the model called tools (RoundSummary.tool_list_recorded). Every view's figure of them, the
    tool definitions' "not in the log", reads from here."""
    if row.tool_list_recorded or "tools" in row.parts_not_logged:
        return row.parts_not_logged
    return (*row.parts_not_logged, "tools")


def counted_parts(row: RoundSummary) -> tuple[tuple[str, int | None], ...]:
    """The round's input parts (lib.tokens.input_parts), each None when the log kept no request: nothing of it was
    counted, so the reported input has no parts, and its whole is not "tokens our tokenizer does not see"; and each
    None for a call never made (RoundSummary.sent): no model read its request, so none of it is input. A part the
    log lacks (parts_unlogged: one its format never keeps, a tool list the calls prove was sent) is None too, where
    nothing of it was counted: it was sent, so 0 would be untrue."""
    parts = input_parts(row.breakdown)
    if not (row.request_recorded and row.sent):
        return tuple((label, None) for label, _ in parts)
    lacked = {PART_LABELS[field] for field in parts_unlogged(row)}
    return tuple((label, None if label in lacked and not tokens else tokens) for label, tokens in parts)


def said_parts(row: RoundSummary) -> tuple[tuple[str, int | None], ...]:
    """counted_parts as a round's own line says them: on a round whose input is an estimate anchored on a reported
    round, the part beyond our count is that round's reported gap carried over, and is named so, not as reported
    (not_counted_said)."""
    parts = counted_parts(row)
    return tuple((not_counted_said(row, label) if label == NOT_COUNTED else label, tokens) for label, tokens in parts)


def not_counted_said(row: RoundSummary, name: str = NOT_COUNTED) -> str:
    """The part beyond our count as the round's own line names it, given its `name` over the trace
    (not_counted_words): on an estimate anchored on a reported round, that round's gap carried over ("beyond our count
    as round 1 reported it"), never "reported" of a round whose usage was not. Every view that names the part of one
    round (the explorer, the rounds table and its CSV, the input chart, the HTML file, `summarize --json`) reads it
    from here."""
    anchor = row.usage.anchor_round if row.usage.source != "reported" else None
    if anchor is None:
        return name
    return name.replace(NOT_COUNTED_NAME, f"{BEYOND_OUR_COUNT} as round {anchor} reported it", 1)


def not_counted_words(rows: tuple[RoundSummary, ...]) -> str:
    """The name of the part reported beyond our count over these rounds, as the explorer names it (lib.tokens.
    not_counted_label): with the parts the log lacks (parts_unlogged: Claude Code's, a transcript's tool list). A round
    whose estimate carries another round's gap names it its own way (not_counted_said)."""
    lacked = {field for r in rows if r.request_recorded for field in parts_unlogged(r)}
    return not_counted_label(PART_LABELS[field] for field, _ in INPUT_PARTS if field in lacked)


def snowball_words(rows: tuple[RoundSummary, ...]) -> str:
    """What the input chart shows of the snowball, said only as far as the rounds bear it out: that the earlier
    messages grow every round (resent or held, round on round), and that the tool list and the instructions ride
    along unchanged (the same tokens in every round, some). "" where none holds: a rewritten history, instructions that
    change each round (AutoGPT's memory message), no tools."""
    kept = [r.breakdown for r in rows if r.request_recorded and r.sent]
    if len(kept) < 2:
        return ""
    earlier = [b.history + b.held for b in kept]
    said = ["earlier messages grow every round"] if all(a < b for a, b in zip(earlier, earlier[1:])) else []
    same = [name for name, field in (("the tool list", "tools"), ("the instructions", "instructions"))
            if getattr(kept[0], field) and len({getattr(b, field) for b in kept}) == 1]
    if same:
        said.append(f"{' and '.join(same)} {'ride' if len(same) > 1 else 'rides'} along unchanged")
    return as_sentence("; ".join(said))


def no_bar_words(rows: tuple[RoundSummary, ...]) -> str | None:
    """Under the charts of where the input goes and of messages per round: the rounds that have no bar there, the log
    having kept no request of theirs, and those with no input bar, having made no call (RoundSummary.sent); None
    when every round has its bars."""
    missing = [r.round for r in rows if not r.request_recorded]
    unmade = [r.round for r in rows if r.request_recorded and not r.sent]
    said = []
    if missing:
        said.append(_no_bar(missing, "here nor under messages per round",
                            "the request was not in the log, so nothing of it is counted or estimated.",
                            "their requests were not in the log, so nothing of them is counted or estimated."))
    # The program built the request (its messages are charted); no provider saw it, so none of it is input.
    if unmade:
        said.append(_no_bar(unmade, "here", "no call was made, so nothing of its request was read or billed.",
                            "no call was made, so nothing of their requests was read or billed."))
    return " ".join(said) or None


def _no_bar(rounds: list[int], where: str, one: str, many: str) -> str:
    """That `rounds` have no bar `where`, and why: `one` said of a single round, `many` of several."""
    if len(rounds) == 1:
        return f"Round {rounds[0]} has no bar {where}: {one}"
    named = rounds_named(rounds)
    return f"{named[0].upper()}{named[1:]} have no bar {where}: {many}"


def no_chart_words(rows: tuple[RoundSummary, ...]) -> str | None:
    """In place of the charts of where the input goes and of messages per round, when the log kept no request of
    the trace: they would have no bar at all, and empty axes read as "nothing went in". None when one has a bar."""
    if any(r.request_recorded for r in rows):
        return None
    return ("No chart: the log kept no request of this trace, so none of its input or messages is counted or "
            "estimated. The input the provider reported, if any, is in the rounds table.")


def overcounted(rows: tuple[RoundSummary, ...]) -> bool:
    """Whether our count is above the reported input in any round: its "reported beyond our count" part is then
    below zero, so that the parts still add up to the reported figure."""
    return any(r.request_recorded and r.breakdown.not_counted < 0 for r in rows)


def stop_inferred(round_: Round) -> bool:
    """The log recorded no stop signal for the round's response: the importer inferred it from the content (a
    null `stop_reason`, none at all, or a response or finish the importer marks derived)."""
    derived = round_.extra.get("derived") or ()
    return not round_.response or not round_.response.finish_reason or "finish" in derived or "response" in derived


def stop_unrecorded_words(round_: Round) -> str:
    """What every view says under a response whose stop the log did not record (stop_inferred): what it was read as."""
    response = round_.response
    read = (f"{response.finish_reason_path} {response.finish_reason!r}"
            if response.finish_reason_path and response.finish_reason else repr(response.stop))
    return f"The log records no stop signal; read as {read} from the message."


LOG_ENDS = "The log ends before the next request: no request carries these results back to the model."
"""What every view says under the last round's executions: the log holds no request after them."""


def log_ends_words(round_: Round) -> str:
    """What every view says of the last round's results, the log holding no request after it: LOG_ENDS when the
    program ran its calls; else which results there are none of (calls with none logged, calls the log did not keep,
    a command written in the text, or no call at all)."""
    response = round_.response
    if round_.executions:
        return LOG_ENDS
    if response is not None and response.message.tool_calls:
        return ("The log ends after these calls: it holds no result of them, and no request that would carry one "
                "back to the model.")
    if response is not None and response.stop == "tool_calls":
        return ("The log ends here and kept none of the calls this response stopped for: it holds no result of them, "
                "and no request that would carry one back to the model.")
    if response is None:
        return "Nothing was appended: this round's call failed, so no tool ran; the log ends here."
    if command_written(round_) is not None:  # no call, but no answer either (lib.steps.command_unseen)
        return UNPROVEN_SAID["log ends"]
    return ("Nothing was appended: the model called no tool in this round, so no result goes back to it; the log "
            "ends with its answer.")


def finish_words(round_: Round, named: str | None = None) -> str:
    """The round's stop signal as every view writes it: the signal as recorded (or `named`, the same stop in another
    dialect's words), in brackets when the log recorded none (stop_inferred); else what happened instead (an error
    and its status, no call made (unmade_words), no response)."""
    response = round_.response
    if response is not None:
        said = named or str(response.finish_reason or response.stop)
        return f"({said})" if stop_inferred(round_) else said
    if round_.error is not None:
        if round_.error.ended_stream:  # the status line was the answer's; the event named its own
            return unmade_words(round_.error) or f"error ({status_words(round_.error)})"
        return unmade_words(round_.error) or f"error {round_.error.status or ''}".strip()
    return "(no response)"


def tool_list_kept(trace: Trace) -> bool:
    """False when the model called tools but no request in the log carries a tool list: one was sent, unrecorded; and
    for a log whose format never keeps the list (tool_list_never_logged)."""
    # Transcripts, trajectories and content-only spans keep the messages, not the tools: a call proves a list was sent.
    # (A format that never keeps the list keeps none in any request: the first test settles most traces alone.)
    if any(r.request.tools for r in trace.rounds):
        return True
    return not any(tool_list_never_logged(r) for r in trace.rounds) and not any(r.tool_calls for r in trace.rounds)


def _cache_read_reported(response, usage: Usage, reports) -> bool:
    """Whether the round's usage, as the response body wrote it, holds a count of input read from the cache: an
    estimate holds none, and a usage without the dialect's field (`reports`) does not say the count was 0."""
    if usage.source != "reported" or response is None:
        return False
    raw = response.raw
    return reports is None or (isinstance(raw, dict) and reports(raw.get("usage")))


def _cache_write_counted(response, usage: Usage, reported: bool, reports) -> bool:
    """Whether the round's usage, as the response body wrote it, holds a count of input written to the cache: a
    dialect that reports no writes (`reported`) and an estimate hold none, and a usage without the dialect's field
    (`reports`) does not say the count was 0."""
    return reported and _cache_read_reported(response, usage, reports)


def summarize(trace: Trace, counter: TokenCounter) -> tuple[RoundSummary, ...]:
    """A summary row for every round; linear in the rounds plus the unique content."""
    rows = []
    tool_list_recorded = tool_list_kept(trace)
    never_logged = not tool_list_recorded and any(tool_list_never_logged(r) for r in trace.rounds)
    # The calls prove a list was sent somewhere in the conversation, as TOOL_LIST_UNRECORDED says of every round.
    list_sent = not tool_list_recorded and (any(r.tool_calls for r in trace.rounds)
                                            or any(tool_list_always_sent(r) for r in trace.rounds))
    last_kept = None  # lib.growth.kept_before, carried along the rounds rather than walked back from each
    writes_reported = getattr(DIALECTS.get(trace.dialect), "REPORTS_CACHE_WRITES", True)
    reads_reported = getattr(DIALECTS.get(trace.dialect), "reports_cache_read", None)
    writes_counted = getattr(DIALECTS.get(trace.dialect), "reports_cache_write", None)
    for round_, (breakdown, usage) in zip(trace.rounds, reconciled_breakdowns(trace, counter)):
        request, response, error = round_.request, round_.response, round_.error
        recorded = round_.request_recorded
        kept = last_kept if recorded else None
        last_kept = round_ if recorded else last_kept
        model = (response.model if response else None) or request.model or trace.model
        # A program's cache that answered in place of the provider made no call either (Round.from_cache).
        unsent = (error is not None and is_unsent(error)) or round_.from_cache is not None
        placed = standing(round_, kept)
        rows.append(
            RoundSummary(
                round=round_.index,
                messages_sent=len(request.messages),
                messages_held=request.held_by_provider,
                new_messages=placed.new,
                tool_calls=len(response.message.tool_calls) if response else 0,
                finish_reason=finish_words(round_),
                usage=usage,
                breakdown=breakdown,
                latency_ms=round_.latency_ms,
                model=model,
                request_recorded=recorded,
                tool_list_recorded=tool_list_recorded,
                tool_list_never_logged=never_logged,
                tool_list_sent=list_sent,
                failed=response is None and error is not None and not unsent,
                sent=not unsent,
                rejected_output=response is None and error is not None and error.rejected_generation is not None,
                response_recorded=response is not None or error is not None,
                answer_recorded=round_.answer_recorded,
                new_against=kept.index if kept else None,
                parts_not_logged=parts_not_logged(round_),
                not_logged_on_opt_in=not_logged_on_opt_in(round_),
                cache_writes_reported=writes_reported,
                cache_read_reported=_cache_read_reported(response, usage, reads_reported),
                cache_write_counted=_cache_write_counted(response, usage, writes_reported, writes_counted),
                output_left_out=left_out_of_output(response.message) if response and usage.source != "reported"
                else (),
                resent_messages=placed.resent,
                changed_messages=placed.changed,
            )
        )
    return tuple(rows)


@dataclass(frozen=True, slots=True)
class Snowball:
    """How resending the whole conversation every round adds up."""

    rounds: int
    """Model calls."""
    billed_input: int
    """Input tokens over the calls whose input and billing are known (RoundSummary.billed_input_if_known): what the
    conversation was billed for, as far as the log says."""
    output: int
    """Output tokens over the calls whose output and billing are known (output_if_known, billing_known): a refused
    call's rejected generation is its round's output, but whether it was billed is not in the log, so it is out of
    this sum as of billed_input and the cost."""
    single_call_input: int
    """Input of the last call alone: one call with the same final context."""
    resent_share: float
    """Share of the counted input that the previous request had already sent (instructions, tool definitions, earlier
    messages), over the rounds whose previous request is known (resent_rounds)."""
    tools_per_round: int
    """Tokens of the tool list in the last request."""
    tools_total: int
    """Tokens spent on tool lists over all calls."""
    tools_fewest: int | None = None
    """Tokens of the smallest tool list among the requests the log kept; None when it kept none."""
    tools_most: int | None = None
    """Tokens of the largest tool list among the requests the log kept; None when it kept none."""
    tools_preamble: int = 0
    """Of tools_per_round, the provider's tool-use system prompt we add by its published size
    (InputBreakdown.tools_preamble): the log does not hold it."""
    tools_counter: str = ""
    """What counted the tool list (InputBreakdown.counter): the figure is our count, not the provider's."""
    tools_over_input: int | None = None
    """The first round with reported usage whose tool list we count above its whole reported input, None when none
    is: our count and the provider's then plainly differ, and the page says so."""
    tool_list_recorded: bool = True
    """False when the log kept no tool list though the model called tools (RoundSummary.tool_list_recorded)."""
    tool_list_never_logged: bool = False
    """True when the log's format never keeps the tool list (RoundSummary.tool_list_never_logged)."""
    tool_list_sent: bool = False
    """True when the log kept no tool list but one was sent (RoundSummary.tool_list_sent)."""
    unmade_calls: int = 0
    """Rounds that made no call (RoundSummary.sent): no provider saw their request, so they are in no sum."""
    estimated_calls: int = 0
    """Calls whose usage was not reported, so their tokens in the totals are our offline estimate."""
    summed_estimated_calls: int = 0
    """Calls in billed_input that reported no usage, so their input in it is our estimate: estimated_calls less those
    left out of the sum (a refused call whose billing the log does not say)."""
    last_estimated: bool = False
    """Whether the last call's input (one call with the final context) is our estimate."""
    requests_recorded: bool = True
    """False when the log kept no round's request (batch results, bare responses): the tool list and what each
    request resent are not known."""
    unknown_input_calls: int = 0
    """Calls whose input the log cannot give (RoundSummary.input_if_known): billed_input is the sum over the others."""
    billing_unknown_calls: int = 0
    """Calls whose input is known but whether the provider billed it is not (billing_known: a refused call): left
    out of billed_input, as the cost leaves them out."""
    unanswered_calls: int = 0
    """Requests the log holds no response or error to, whose input is known but whether the provider billed it is not
    (unanswered_left_out): left out of billed_input as "not known", as the output and the cost leave them out."""
    unknown_output_calls: int = 0
    """Calls with no output figure (missing_output), but for those billing_unknown_calls counts: `output` is the sum
    over the others."""
    last_input_known: bool = True
    """Whether the last call's input is known: single_call_input is 0 in its place when not."""
    output_missing: str = "not known"
    """What the output total reads when no call's output is known: the rounds' own word (OUTPUT_MISSING) when they
    share one."""
    unknown_calls: int = 0
    """Calls whose input or output is not known (input_if_known, missing_output), or whose billing is not
    (billing_unknown_calls, among them): left out of known_tokens, as the cost leaves them out (cost_known)."""
    known_tokens: int = 0
    """Input and output over the calls whose both figures are known and billed (cost_known): billed_input + output
    when no call is left out."""
    resent_rounds: int = 0
    """Rounds whose request the log kept, and the one before it too (or that are the first): resent_share is theirs.
    Where it is 0, what any request sent again is not known."""
    resent_unknown: int = 0
    """Rounds whose request the log kept but not the one before it: what they sent again is not known, left out of
    resent_share."""
    parts_not_logged: tuple[str, ...] = ()
    """The InputBreakdown fields the log's format never keeps over its rounds (RoundSummary.parts_not_logged): resent
    every round, they are not in resent_share."""
    resent_counted: int = 0
    """The input we counted over the rounds of resent_share (resent_rounds): what the share is a share of."""
    resent_billed: int | None = None
    """The input billed over those same rounds, None when some round's is not known: where it is not resent_counted,
    resent_share is a share of our count only, not of what was billed."""
    resent_estimated: bool = False
    """Whether some round of resent_share reported no usage, so that resent_billed holds our estimate: the calls left
    out of the share (estimated_calls may count them) do not make its billed input an estimate."""
    estimate_of_what_the_log_holds: bool = False
    """Whether known_tokens holds our estimate of a call whose request lacks a part its log's format never keeps
    (RoundSummary.parts_not_logged): that estimate counts what the log holds only, not all that was sent and billed."""

    @property
    def tokens(self) -> int | None:
        """Input and output over all calls: the conversation's tokens, an estimate when estimated_calls is not 0;
        None when some call's are not known (unknown_calls), never a sum that counts them as 0."""
        return None if self.unknown_calls else self.known_tokens

    @property
    def known_tokens_estimated(self) -> bool:
        """Whether known_tokens holds our estimate of some call's tokens (the calls left out are all estimated)."""
        return self.estimated_calls > self.unknown_calls

    @property
    def tokens_words(self) -> str:
        """The conversation's tokens in and out as every page writes them (conversation_tokens_words)."""
        return conversation_tokens_words(self.known_tokens, self.rounds, self.unknown_calls,
                                         self.known_tokens_estimated, self.billing_unknown_calls)

    @property
    def tools_vary(self) -> bool:
        """Whether the kept requests sent tool lists of other sizes: an agent handoff, or a program that changes its
        tools between rounds."""
        return self.tools_fewest != self.tools_most

    @property
    def tools_words(self) -> str:
        """The tool list's tokens a round as the page writes it: the range when they vary, else the one figure."""
        if self.tools_vary:
            return f"{self.tools_fewest:,} to {self.tools_most:,} tokens"
        return f"{self.tools_per_round:,} tokens"

    @property
    def tools_basis_words(self) -> str:
        """What the tool list figure counts, said beneath it: our count, with which tokenizer, and the provider's
        tool-use system prompt where it is in it; empty when no tool list was counted."""
        if not self.tools_most:
            return ""
        counter = ("4 characters a token" if self.tools_counter == "characters"
                   else self.tools_counter or "our tokenizer")
        if self.tools_preamble:
            said = (f"Our estimate, counted with {counter}: the tool definitions as JSON text, plus "
                    f"Anthropic's tool-use system prompt of {self.tools_preamble:,} tokens, which the provider adds to "
                    "every request that sends tools (its published size; no log holds it).")
        else:
            said = f"Our estimate, counted with {counter}: the tool definitions as JSON text."
        if self.tools_over_input is not None:
            said += (f" It is above round {self.tools_over_input}'s whole reported input: the provider renders the "
                     "definitions in a shorter form of its own, and counts with its own tokenizer.")
        return said

    @property
    def resent_of_counted_only(self) -> bool:
        """Whether resent_share is a share of our count only: the input billed over its rounds is not what we counted
        (a tool list or system prompt the log does not keep, the provider's template), or is not known."""
        return self.resent_billed != self.resent_counted

    @property
    def resent_words(self) -> str:
        """resent_share as every page writes it: a percentage alone, NOT_IN_THE_LOG when no round's previous request
        is known; what it is a share of is resent_basis_words, said beneath it."""
        if self.resent_rounds:
            return f"{self.resent_share:.0%}"
        # Every kept request is a failed call whose billing the log does not say: no previous request is missing, the
        # share is left out as the input billed leaves those calls out (resent_help says so).
        left_out = self.billing_unknown_calls or self.unanswered_calls
        return LEFT_OUT if left_out and not self.resent_unknown else NOT_IN_THE_LOG

    @property
    def resent_basis_words(self) -> str:
        """What resent_share is a share of, as a sentence beneath it on every trace: the input billed for its requests
        where that is what we counted, else our count and the billed input it is not; empty when there is no share."""
        if not self.resent_rounds:
            return ""
        requests = plural(self.resent_rounds, "request")
        estimated = self.resent_estimated
        if not self.resent_of_counted_only:
            return f"A share of the {about(self.resent_counted, estimated)} input tokens billed for {requests}."
        billed = (f"the {about(self.resent_billed, estimated)} billed" if self.resent_billed is not None
                  else "the input billed, which the log does not give for every one")
        return f"A share of the {self.resent_counted:,} tokens we counted in {requests}, not of {billed}."

    @property
    def resent_help(self) -> str:
        """What resent_share is a share of, and what the log does not let it hold."""
        if not self.resent_rounds and self.resent_words == LEFT_OUT:
            return f"{self._billing_out_said()}: no request is left to take a share of."
        if not self.resent_rounds:
            return ("No request in the log follows one the log also kept: what each request sent again is not "
                    "known.")
        said = ("Instructions, tool definitions and earlier messages that the request before had carried too, as a "
                "share of the input we counted in those requests: what the provider reported beyond our count (its "
                "template, its own tokens) is in neither part.")
        if self.resent_of_counted_only:
            billed = (f"the input billed for them was {about(self.resent_billed, self.resent_estimated)}"
                      if self.resent_billed is not None else "the log does not give the input billed for every one")
            said += (f" We counted {self.resent_counted:,} tokens in those requests and {billed}, so this is a share "
                     "of our count only, not of the bill. What we could not count (a tool list or system prompt the "
                     "log does not keep, the provider's template) the log does not split into new and sent again: "
                     "the share of the billed input sent again is not in the log.")
        if self.billing_unknown_calls or self.unanswered_calls:
            said += f" {self._billing_out_said()}."
        if self.resent_unknown:
            one = self.resent_unknown == 1
            said += (f" {plural(self.resent_unknown, 'round')} whose previous request the log lacks "
                     f"{'is' if one else 'are'} left out: what {'it' if one else 'they'} sent again is not known.")
        if self.parts_not_logged:
            lacked, them = not_logged_words(self.parts_not_logged)
            counted = "messages" if "instructions" in self.parts_not_logged else "instructions and messages"
            said += (f" The log keeps {lacked}, which every request sends again: this is a share of the {counted} "
                     f"we counted, without {'them' if them == 'they' else 'it'}.")
        return said

    def _billing_out_said(self) -> str:
        """The calls whose billing the log does not say, left out of the share as of the input billed: the failed
        ones, and the requests it holds no response to."""
        said = []
        for n, kind in ((self.billing_unknown_calls, "failed call{} whose billing the log does not say"),
                        (self.unanswered_calls, "call{} with no response in the log")):
            if n:
                one = n == 1
                said.append(f"{n:,} {kind.format('' if one else 's')} {'is' if one else 'are'} left out, as "
                            f"{'it is' if one else 'they are'} from the input billed")
        return "; ".join(said)

    @property
    def billed_input_words(self) -> str:
        """billed_input as a page writes it in one cell (total_words): the figure, and in brackets the calls it
        leaves out (billed_input_left_out)."""
        left_out = self.billed_input_left_out
        return self.billed_input_figure + (f" ({left_out})" if left_out else "")

    @property
    def billed_input_figure(self) -> str:
        """billed_input as a figure alone, as a metric shows it: `≈` when it holds an estimate, NOT_IN_THE_LOG when no
        call's input is known (total_words)."""
        return total_words(self.billed_input, self.rounds, self.estimated_calls,
                           self.unknown_input_calls + self.unanswered_calls + self.billing_unknown_calls, left_out="")

    @property
    def billed_input_left_out(self) -> str:
        """The calls billed_input leaves out, said beside it (_left_out_words): a request with no response in the log
        is "not known", as beside the output and the cost, which leave it out too."""
        return self._left_out_words(self.unknown_input_calls + self.unanswered_calls)

    def _left_out_words(self, unknown: int) -> str:
        """The calls a sum leaves out (lib.prices.calls_left_out_words): the `unknown` ones and the failed calls whose
        billing is not known; empty when none, or when every call is unknown and the figure's own words say so. A
        failed call whose billing is not known is named even when it leaves no call in the sum: "not in the log" alone
        would not say why."""
        if self.rounds and unknown >= self.rounds and not self.billing_unknown_calls:
            return ""
        return calls_left_out_words(unknown, self.billing_unknown_calls)

    @property
    def billed_calls(self) -> int:
        """The calls billed_input sums (a call never made among them, billed nothing)."""
        return self.rounds - self.unknown_input_calls - self.unanswered_calls - self.billing_unknown_calls

    @property
    def calls_summed_words(self) -> str:
        """The calls beside the input billed, as the Tokens page leads its help: all of them, and how many are in the
        sum where some are not (a failed call whose billing the log does not say, one whose input it lacks), so that
        "3 calls" never counts a call in no sum. A call never made is said apart (unmade_calls)."""
        summed = self.billed_calls - self.unmade_calls
        if summed == self.rounds - self.unmade_calls:
            return f"{plural(self.rounds, 'call')},"
        if not summed:
            return f"{plural(self.rounds, 'call')}, {'not' if self.rounds == 1 else 'none'} in this sum;"
        return f"{plural(self.rounds, 'call')}, of which {summed:,} {'is' if summed == 1 else 'are'} in this sum;"

    @property
    def unanswered_words(self) -> str:
        """Why billed_input leaves out the requests the log holds no response to (unanswered_calls), as the Tokens
        page's help and the slide say it; empty when none."""
        n = self.unanswered_calls
        if not n:
            return ""
        one = n == 1
        return (f"{plural(n, 'call')} {'has' if one else 'have'} no response in the log: whether "
                f"{'it was' if one else 'they were'} billed is not in the log, so {'it is' if one else 'they are'} "
                "in no sum.")

    @property
    def billing_unknown_words(self) -> str:
        """Why billed_input leaves out the calls whose billing is not known, as the page's help and the slide say it;
        empty when none."""
        n = self.billing_unknown_calls
        if not n:
            return ""
        return as_sentence(calls_left_out_words(0, n))

    @property
    def times_words(self) -> str | None:
        """"3 calls billed 2.5 times this", beside one call with the final context, as every page writes it: the calls
        billed_input sums and their ratio (times_one_call_words); the failed calls it leaves out are said apart
        (billing_unknown_words), in the same words as beside the sum."""
        if not self.times_one_call_words:
            return None
        return f"{plural(self.billed_calls, 'call')} billed {self.times_one_call_words} times this"

    @property
    def output_words(self) -> str:
        """`output` as every page writes it in one cell (total_words): the figure, and in brackets the calls it leaves
        out (output_left_out)."""
        left_out = self.output_left_out
        return self.output_figure + (f" ({left_out})" if left_out else "")

    @property
    def output_figure(self) -> str:
        """`output` as a figure alone (total_words): `≈` when it holds an estimate, output_missing when no call's
        output is known or billed."""
        return total_words(self.output, self.rounds, self.estimated_calls,
                           self.unknown_output_calls + self.billing_unknown_calls, self.output_missing, left_out="")

    @property
    def output_left_out(self) -> str:
        """The calls `output` leaves out, as billed_input_left_out says them (_left_out_words): a failed call whose
        billing is not known is out of it, as of the input billed and the cost."""
        return self._left_out_words(self.unknown_output_calls)

    @property
    def times_one_call_words(self) -> str | None:
        """billed_input over single_call_input, to a tenth (`3.7`), as every page and slide writes it; None when a
        call's input is not known: a ratio over a sum that leaves calls out would be too small; None for a single call
        too, billed once its own input (1.0) whatever the conversation: no growth to tell. A call whose billing is
        not known (billing_unknown_calls) is out of the sum and of the calls the ratio is said of (times_words)."""
        if not self.single_call_input or self.unknown_input_calls or self.billed_calls < 2:
            return None
        return f"{self.billed_input / self.single_call_input:.1f}"

    @property
    def one_round_words(self) -> str:
        """In place of the chart of input billed so far when there is one round: a lone dot on a 0 to 1 axis shows no
        growth, so the figures are said in words, the same as the metrics above (billed_input_figure,
        single_call_words); empty for more rounds, which the chart draws."""
        if self.rounds != 1:
            return ""
        billed, single = self.billed_input_figure, self.single_call_words
        billed_said, single_said = (f"{f} tokens" if f[-1].isdigit() else f for f in (billed, single))
        if billed == single:
            return (f"One round, so nothing to draw: the input billed is that one call's, {billed_said}, which is "
                    "one call with the same context.")
        left_out = f" ({self.billed_input_left_out})" if self.billed_input_left_out else ""
        return (f"One round, so nothing to draw: the call's input is {single_said}; the input billed is "
                f"{billed_said}{left_out}.")

    @property
    def single_call_words(self) -> str:
        """single_call_input as every page writes it: marked `≈` when estimated, NOT_IN_THE_LOG when not known."""
        return about(self.single_call_input, self.last_estimated) if self.last_input_known else NOT_IN_THE_LOG


def about(tokens: int, estimated: bool) -> str:
    """A token sum as every page writes it: marked `≈` when it holds an estimate, since then it is one."""
    return f"≈ {tokens:,}" if estimated else f"{tokens:,}"


def total_words(tokens: int, calls: int, estimated: int, unknown: int, missing: str = NOT_IN_THE_LOG,
                left_out: str | None = None) -> str:
    """A sum over `calls` rounds' tokens as every page writes it, given how many of them are `estimated` (usage not
    reported) and how many have no figure (`unknown`, always among the estimated): `missing` when no call's figure is
    known; else the sum of the known ones, marked `≈` when one of them is an estimate, and how many calls it leaves
    out (`left_out`, "" for the figure alone, where the words are said beside it). A figure that is not known is
    never added in as 0."""
    if calls and unknown >= calls:
        return missing
    words = about(tokens, estimated > unknown)
    if left_out is None:
        left_out = calls_left_out_words(unknown, 0)
    return f"{words} ({left_out})" if left_out else words


def conversation_tokens_words(known: int, calls: int, unknown: int, estimated: bool, billing_unknown: int = 0) -> str:
    """A conversation's tokens in and out as every page writes them (total_words), given the sum over its calls whose
    both figures are `known`, how many of its `calls` are left out of it as `unknown`, of them how many are failed
    calls whose billing is not known (`billing_unknown`, said as the input billed and the cost say them), and whether
    the sum holds our `estimated` figure for some call; COST_NOT_KNOWN when no call's are known, whichever part of
    them is missing."""
    # total_words counts the unknown calls among the estimated ones: one more marks the known sum itself.
    return total_words(known, calls, unknown + int(estimated), unknown, COST_NOT_KNOWN,
                       calls_left_out_words(unknown - billing_unknown, billing_unknown))


def _resent_known(row: RoundSummary) -> bool:
    """Whether what the round's request sent again is known: the log kept it and the request before it (lib.growth's
    kept_before), or it is the first."""
    return row.request_recorded and (row.round == 1 or row.new_against is not None)


def snowball(every: tuple[RoundSummary, ...]) -> Snowball:
    """The totals of a conversation's rounds; a round that made no call (RoundSummary.sent) is in none of them."""
    rows = tuple(r for r in every if r.sent)
    # A failed call whose billing is not known is out of the share as of the input billed beside it: one basis.
    resent_known = [r for r in rows if _resent_known(r) and billing_known(r)]
    counted = sum(r.breakdown.counted for r in resent_known)
    kept_tools = [r.breakdown.tools for r in rows if r.request_recorded]
    # A failed call whose billing is not known is out of every sum, output and in + out too: the same calls as the
    # cost leaves out (cost_known), so that the sums add up and say the same words.
    summed = [r for r in rows if _both_known(r) and billing_known(r)]
    return Snowball(
        rounds=len(every),
        unmade_calls=len(every) - len(rows),
        billed_input=sum(r.billed_input_if_known or 0 for r in rows),
        output=sum(r.usage.output_tokens for r in rows if r.output_if_known is not None and billing_known(r)),
        single_call_input=(rows[-1].input_if_known or 0) if rows else 0,
        resent_share=sum(r.breakdown.resent for r in resent_known) / counted if counted else 0.0,
        resent_counted=counted,
        resent_billed=(None if any(r.input_if_known is None for r in resent_known)
                       else sum(r.input_if_known or 0 for r in resent_known)),
        tools_per_round=rows[-1].breakdown.tools if rows else 0,
        tools_total=sum(r.breakdown.tools for r in rows),
        tools_fewest=min(kept_tools, default=None),
        tools_most=max(kept_tools, default=None),
        tools_preamble=rows[-1].breakdown.tools_preamble if rows else 0,
        tools_counter=rows[-1].breakdown.counter if rows else "",
        tools_over_input=next((r.round for r in rows if r.request_recorded and r.usage.source == "reported"
                               and r.breakdown.tools > r.usage.input_tokens), None),
        tool_list_recorded=all(r.tool_list_recorded for r in rows),
        tool_list_never_logged=any(r.tool_list_never_logged for r in rows),
        tool_list_sent=any(r.tool_list_sent for r in rows),
        estimated_calls=sum(1 for r in rows if r.usage.source != "reported"),
        summed_estimated_calls=sum(1 for r in rows
                                   if r.billed_input_if_known is not None and r.usage.source != "reported"),
        last_estimated=bool(rows) and rows[-1].usage.source != "reported",
        requests_recorded=any(r.request_recorded for r in rows),
        unknown_input_calls=sum(1 for r in rows if r.input_if_known is None),
        billing_unknown_calls=sum(1 for r in rows if billing_left_out(r)),
        unanswered_calls=sum(1 for r in rows if unanswered_left_out(r)),
        unknown_output_calls=sum(1 for r in rows if missing_output(r) and not billing_left_out(r)),
        last_input_known=not rows or rows[-1].input_if_known is not None,
        output_missing=_shared_missing(rows),
        unknown_calls=len(rows) - len(summed),
        known_tokens=sum(r.usage.input_tokens + r.usage.output_tokens for r in summed),
        resent_rounds=len(resent_known),
        resent_estimated=any(r.usage.source != "reported" for r in resent_known),
        resent_unknown=sum(1 for r in rows if r.request_recorded and not _resent_known(r)),
        parts_not_logged=tuple(dict.fromkeys(f for r in rows for f in r.parts_not_logged)),
        estimate_of_what_the_log_holds=any(r.usage.source != "reported" and r.parts_not_logged for r in summed),
    )


def _both_known(row: RoundSummary) -> bool:
    return row.input_if_known is not None and row.output_if_known is not None


def _shared_missing(rows: tuple[RoundSummary, ...]) -> str:
    said = {missing_output(r) for r in rows} - {None}
    return said.pop() if len(said) == 1 else "not known"
