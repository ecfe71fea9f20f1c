"""What each presenter slide says in words of its own: the snowball counter, what a call asks, the stop switch.

Pure: no Streamlit. lib/ui/lesson.py draws these; the figures are the Tokens page's own
(`RoundSummary`, `lib.tokens.input_parts`), so a slide and the Tokens page never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.dialects import DIALECTS, anthropic_messages
from lib.failures import refused_unseen
from lib.model import Round, Trace
from lib.provenance import NOT_CAPTURED
from lib.steps import (UNPROVEN_SAID, UnprovenCommand, compaction_words, spoken_words, summary_words,
                        turn_ends_words)
from lib.summary import (BILLING_NOT_KNOWN, NOT_IN_THE_LOG, REQUEST_NOT_COUNTED, RoundSummary, billing_known,
                         billing_reason, parts_not_logged, said_parts)
from lib.text import as_sentence, ordinal, plural, rounds_named
from lib.tokens import input_words, overcount, split_words

WINDOW = 9
"""Rounds the counter lists around the current one; a long trace's others are left out with an ellipsis."""
KNOWS = "This request is everything the model knows."
"""The one sentence under what the model sees: it has no memory but this request."""
KNOWS_UNLOGGED_INSTRUCTIONS = ("This request is everything the model knows, but the log does not keep its "
                               "instructions (the system prompt): they were sent with these messages, and are not "
                               "shown here.")
"""KNOWS for a request whose log's format never keeps the instructions (Claude Code's): the messages shown are not
all the model read."""


def knows_words(round_: Round) -> str:
    """The sentence under what the model sees: KNOWS, or, where the log never keeps the instructions, that they are
    part of what it knows though not shown; on a chain the provider kept (previous_interaction_id), that what it kept
    is part of it too: the request alone is not everything the model knows there."""
    if "instructions" in parts_not_logged(round_):
        return KNOWS_UNLOGGED_INSTRUCTIONS
    if round_.request.held_by_provider:
        return f"This request and {_kept_words(round_.tools_held)} the provider kept are everything the model knows."
    return KNOWS


@dataclass(frozen=True, slots=True)
class Snowball:
    """The counter on every slide: how the request grows, round by round, and what this one costs."""

    sizes: tuple[tuple[int, int | None], ...]
    """(round, messages sent) for the rounds listed, in order; None for a request the log did not keep."""
    current: int
    """The round on screen, highlighted among them."""
    more_before: bool
    """Rounds before the first listed are left out."""
    more_after: bool
    """Rounds after the last listed are left out, or in predict mode may be (how many there are is held back)."""
    tools: int
    """Tool definitions this request sends."""
    tools_sent: int
    """How many requests so far, this one included, carried this same tool list: each one paid for it again."""
    tools_tokens: int
    """The tool definitions' tokens in this request."""
    tools_unchanged: bool
    """The same tool list as the request before."""
    input_tokens: int | None
    """The round's input tokens, the Tokens page's headline; None when neither reported nor counted (no request
    in the log, no usage)."""
    estimated: bool
    """The input is our estimate, not the API's report."""
    split: tuple[tuple[str, int | None], ...]
    """Where the input goes (lib.summary.said_parts), parts of zero left out: none for a request the log did not
    keep, whose reported input nothing was counted from; None for a part the log lacks (parts_unlogged)."""
    failed: bool = False
    """The call failed, or the log holds no response to it: whether the provider billed this request, the log does
    not say (lib.summary.billing_known)."""
    billing_said: str = BILLING_NOT_KNOWN
    """Why, where `failed` (lib.summary.billing_reason): the call failed, or the log holds no response to it."""
    held: bool = False
    """A listed request's earlier messages are held by the provider (previous_response_id or a conversation): the
    sizes count what the model reads, not what the program sent."""
    tool_list_recorded: bool = True
    """False for a log that kept the messages but not the tool list (RoundSummary.tool_list_recorded)."""
    tool_list_never_logged: bool = False
    """True for a log whose format never keeps the tool list (RoundSummary.tool_list_never_logged)."""
    secret: bool = False
    """True in predict mode before the learner has predicted: no line may say what the model does, in this round or
    a later one."""
    request_recorded: bool = True
    """False when the log kept no request for this round: its input, if reported, has no parts we counted."""
    followed: bool = True
    """False for the trace's last round: no request after it pays for its tool list again."""
    tools_held: bool = False
    """This request's tool list was not in its bytes: the provider holds it from an earlier request of the conversation
    (previous_interaction_id; Round.tools_held), so it was not resent, though the input reported counts it again."""
    tools_billing_unknown: tuple[int, ...] = ()
    """Among the earlier requests that sent this same tool list (tools_sent), the rounds whose call's billing the log does not give (lib.summary.billing_known: a failed
    call, one with no response): sent with the list, not known to have paid for it."""


def snowball(trace: Trace, rows: tuple[RoundSummary, ...], index: int, upto_current: bool = False,
             reach: int | None = None) -> Snowball:
    """Round `index`'s counter. With `upto_current` no later round is listed: predict mode keeps the next
    request's size for the learner to guess, and what the model does (Snowball.secret). With `reach` (predict mode,
    a round still to predict) none after round `reach`, the first still to predict; either way a `→ …` follows the
    last listed, whether or not a round does, or its absence would tell that round is the trace's last."""
    held = upto_current or reach is not None
    last = index if upto_current else min(reach or len(rows), len(rows))
    first = max(1, min(index - WINDOW // 2, last - WINDOW + 1))
    shown = range(first, min(last, first + WINDOW - 1) + 1)
    row, round_ = rows[index - 1], trace.rounds[index - 1]
    return Snowball(
        sizes=tuple((k, rows[k - 1].messages_sent if rows[k - 1].request_recorded else None) for k in shown),
        current=index, more_before=first > 1, more_after=held or shown[-1] < len(rows),
        tools=len(round_.request.tools),
        # This list's count, not any list's: after a change of tools, the new list has been paid for fewer times.
        tools_sent=sum(1 for r in trace.rounds[:index] if r.request.tools and r.request.tools == round_.request.tools),
        tools_billing_unknown=tuple(r.index for r, rr in zip(trace.rounds[:index - 1], rows) if r.request.tools
                                    and r.request.tools == round_.request.tools and not billing_known(rr)),
        tools_tokens=row.breakdown.tools,
        tools_unchanged=index > 1 and trace.rounds[index - 2].request.tools == round_.request.tools,
        input_tokens=row.input_if_known, estimated=row.usage.source != "reported" and row.request_recorded,
        split=tuple((label, tokens) for label, tokens in said_parts(row)
                    if tokens or (tokens is None and row.request_recorded)),
        failed=not billing_known(row), billing_said=billing_reason(row),
        held=any(trace.rounds[k - 1].request.held_by_provider for k in shown),
        tool_list_recorded=row.tool_list_recorded, tool_list_never_logged=row.tool_list_never_logged,
        request_recorded=row.request_recorded, secret=upto_current, followed=index < len(rows),
        tools_held=round_.tools_held,
    )


def predicted_only_words(shown: int, where: str = "this slide") -> str:
    """Said on a slide (or `where`: the Tokens page) that shows only the rounds predicted so far
    (lib.presenter.open_rounds): what it leaves out and why; with none shown, which round to predict first."""
    if shown == 0:
        return predict_first_words(0, where)
    only = "Round 1 only, the one" if shown == 1 else f"Rounds 1 to {shown} only, the ones"
    return (f"{only} predicted so far: round {shown + 1} and after would give away what the model does in round "
            f"{shown + 1}.")


def predict_first_words(shown: int, where: str = "this slide") -> str:
    """Said in place of a slide (or `where`) whose rounds begin after the first one still to predict (round
    `shown` + 1)."""
    return f"Predict round {shown + 1} first: {where} would give away what the model does in it."


def size_words(size: int | None) -> str:
    """One request's size in the counter: its messages, or that the log did not keep the request."""
    return NOT_IN_THE_LOG if size is None else f"{size:,}"


def input_line(snow: Snowball) -> str:
    """The counter's input figure and where it goes, in figures that add up; for a request the log did not keep,
    the reported figure alone, and why it has no parts (nothing of the request was counted)."""
    if not snow.request_recorded:
        figure = NOT_IN_THE_LOG if snow.input_tokens is None else f"{snow.input_tokens:,} reported"
        return f"{figure}; {REQUEST_NOT_COUNTED[0].lower()}{REQUEST_NOT_COUNTED[1:].rstrip('.')}"
    figure = f"{'≈ ' if snow.estimated else ''}{snow.input_tokens:,}"
    if not snow.split:
        return figure
    # Where our count is above the input, its parts are our count's: said so, not set equal to the input.
    if overcount(snow.split):
        return f"{figure} · where it goes {split_words(snow.split, snow.input_tokens, not snow.estimated)}"
    return f"{figure} = {input_words(snow.split)}"


def asks(round_: Round) -> str:
    """What the response asks for, with the results it makes the program owe."""
    count = len(round_.tool_calls)
    if count == 1:
        return "asks for 1 tool: 1 result owed"
    return f"asks for {count} tools in parallel: {count} results owed"


RUNS = "The program runs the calls, not the model: the model reads only their results."
"""Step 3's one sentence, where every call the program handled went through."""
ANSWERS = "The loop ends: this text goes to the person, and the model is not called again."
"""Step 5's one sentence."""
FAILED = "The call failed: there is no model turn for the program to act on."
"""A failed call's one sentence (step 2 without a response)."""
CALLS_NOT_KEPT = "The model stops to have tools run, but the log did not keep which: its calls are not recorded."
"""Step 2's one sentence for a stop for tools whose calls the log did not keep (a span without content)."""
TEXT_COMMAND = ("The model writes a command in its text, not as a tool call: to the API this is an answer in text, and "
                "the program reads the command out of it.")
"""Step 2's one sentence for a command the model wrote in its text and the program ran (lib.steps.text_commands)."""
TEXT_COMMAND_RUNS = ("The program runs the command it read in the text, not the model: the model reads only what it "
                     "returned.")
"""Step 3's one sentence for such a command."""
STOPS = "The model stopped before an answer or a call (its stop signal says why): nothing to run, nothing to answer."
"""Step 5's one sentence for a response that stopped for another reason: a filter, a stop signal not known (one cut off
is said so, lib.steps.cut_off_short)."""


def step_lead(round_: Round, step: int, next_round: int | None = None, written: bool = False,
              unseen: UnprovenCommand | None = None, cut_off: str | None = None) -> str:
    """The one sentence that matters on a step slide (step 4's is lib.presenter.carried, which needs the growth).
    Step 5 ends the loop only where no round follows (`next_round`): a person's next question, a program's re-ask, or
    a program that reads commands in the text goes on from it, in the words of the step's label
    (lib.steps.turn_ends_words). `written`: the response wrote a command in its text that the program ran
    (lib.steps.text_commands), its steps 2 and 3; `unseen`: the command it wrote that no request carries the result
    of (lib.steps.command_unproven), whose running nothing shows; `cut_off`: what cut the response off, in
    lib.steps.cut_off_short's words."""
    if step == 1:
        return knows_words(round_)
    if step == 2:
        if round_.tool_calls:
            return f"The model {asks(round_)}"
        if written or unseen:
            return TEXT_COMMAND
        return FAILED if round_.response is None else CALLS_NOT_KEPT
    if step == 3 and unseen:
        return UNPROVEN_SAID[unseen.why]  # drawn as markdown: our words, the command's name left to step 3's label
    if step == 3:
        return TEXT_COMMAND_RUNS if written and not round_.executions else runs_words(round_)
    if round_.compaction and round_.response is not None:  # the provider's compacted history, no turn of the model's
        return as_sentence(compaction_words(next_round))
    if round_.response is not None and round_.response.stopped_short:
        stopped = f"The model was {cut_off}." if cut_off else STOPS
        return stopped + (f" Round {next_round} goes on from it." if next_round else "")
    textless = round_.response is not None and not round_.response.message.text
    if round_.summary_call and not textless:  # no answer to the person, as its step label says
        return as_sentence(summary_words(next_round))
    if textless and spoken_words(round_):  # a spoken answer holds no text, yet answers
        if next_round:
            return f"{as_sentence(turn_ends_words(next_round))} {as_sentence(spoken_words(round_))}"
        return f"No tool call: {spoken_words(round_)}, and the model is not called again."
    if next_round:  # the loop did not end here: the program called the model again
        went_on = as_sentence(turn_ends_words(next_round))
        if textless and not round_.answer_recorded:  # the model may have answered at length: the log kept none of it
            return f"{went_on} {as_sentence(NOT_CAPTURED)}"
        return f"{went_on} This response holds no text." if textless else went_on
    if textless:
        if not round_.answer_recorded:
            return f"No tool call: {NOT_CAPTURED}, and the model is not called again."
        return "No tool call and no text: this response holds no answer, and the model is not called again."
    return ANSWERS


def runs_words(round_: Round) -> str:
    """Step 3's one sentence: RUNS, or, where a call was declined, refused before any handler ran (Execution.refused)
    or failed (a handler that raised or timed out), how many, since "runs the calls" would not be true of them.
    Counted, not named: the lead is drawn as markdown, and a call's name is the trace's text."""
    declined = sum(1 for e in round_.executions if not e.ok and e.approval == "declined")
    refused = sum(1 for e in round_.executions if e.refused)
    failed = sum(1 for e in round_.executions if not e.ok) - declined - refused
    if not (declined or failed or refused):
        return RUNS
    said = [f"{plural(failed, 'call')} failed" if failed else "",
            f"{plural(refused, 'call')} {'was' if refused == 1 else 'were'} refused before running" if refused else "",
            f"{plural(declined, 'call')} {'was' if declined == 1 else 'were'} declined" if declined else ""]
    which = ", ".join(part for part in said if part)
    which = " and ".join(which.rsplit(", ", 1))
    return (f"The program handles the calls, not the model: {which}, and the model reads only what the program sends "
            "back.")


@dataclass(frozen=True, slots=True)
class StopSwitch:
    """The field a dialect stops with, and its two values that drive the loop."""

    field: str
    """`finish_reason` or `stop_reason`."""
    calls: str
    """The value that means: run the tools and call again (`tool_calls`, `tool_use`)."""
    ends: str
    """The value that means: the loop ends (`stop`, `end_turn`)."""


def stop_switch(trace: Trace) -> StopSwitch:
    """The loop's switch in the trace's own dialect."""
    dialect = DIALECTS[trace.dialect]
    written = anthropic_messages.STOP_REASON_OF if dialect is anthropic_messages else dialect.FINISH_REASON_OF
    return StopSwitch(dialect.FINISH_FIELD, written["tool_calls"], written["end"])


def content_is_null(round_: Round) -> bool:
    """The calling turn carries no text at all: `content: null` in Chat Completions, no text block in Messages."""
    raw = round_.response.message.raw if round_.response else None
    return isinstance(raw, dict) and raw.get("content") is None


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count:,} times")


def tools_line(snow: Snowball) -> str:
    """The tool list in one line: how many, and that each request pays for it again."""
    if not snow.request_recorded:
        # Nothing of the request is known: neither "none", nor a list proved by this round's calls (predict mode
        # hides those until the learner has said what the model will do).
        return f"{NOT_IN_THE_LOG}: the request was not kept, nor its tool list"
    if not snow.tools and not snow.tool_list_recorded and snow.secret:  # the calls that prove a list are the answer
        return f"{NOT_IN_THE_LOG}: this log kept the messages, not the tool list"
    if not snow.tools:
        if snow.tool_list_recorded:
            return "none in this request"
        if snow.tool_list_never_logged:
            return "not in the log (its format does not always keep the tool list; it is not counted here)"
        return "not in the log (the model called tools, so a list was sent; it is not counted here)"
    listed = f"{plural(snow.tools, 'tool definition')}, {plural(snow.tools_tokens, 'token')}"
    if snow.tools_held:
        # Not in this request's bytes (the request card says "held by the provider ..., not sent"): "resent unchanged"
        # here would contradict it. Billed again all the same: the provider's reported input counts them.
        held = "not sent again: the provider holds them from an earlier request of the conversation"
        if snow.failed:
            return f"{listed}: {held}; {snow.billing_said}"
        return f"{listed}: {held}, and counts them in this call's input, a {ordinal(snow.tools_sent)} time"
    if snow.failed:
        sent = "resent unchanged" if snow.tools_unchanged else "sent with this request"
        return f"{listed}: {sent}; {snow.billing_said}"
    if snow.tools_unchanged and snow.tools_billing_unknown:
        # A request whose call failed sent the list, but whether it was billed the log does not say (the Tokens page
        # leaves it out of the input billed): sent so many times, paid for at least the others.
        unknown = snow.tools_billing_unknown
        paid = snow.tools_sent - len(unknown)
        return (f"{listed}: resent unchanged and sent a {ordinal(snow.tools_sent)} time, paid for at least "
                f"{_times(paid)}: the log does not say whether the call of {rounds_named(list(unknown))} was billed")
    if snow.tools_unchanged:
        return f"{listed}: resent unchanged and paid for a {ordinal(snow.tools_sent)} time"
    if snow.secret or not snow.followed:  # a secret: whether any request follows is what the learner predicts
        return f"{listed}: sent with this request and paid for with it"
    return f"{listed}: sent with this request and paid for with it, again with every request after"


def first_read_words(rounds: tuple[Round, ...], index: int, resent: tuple[int, ...]) -> str | None:
    """How the model reads round `index`'s resent messages (`resent`, their indexes) where some went out first in a
    request the provider refused before the model saw it (lib.failures.refused_unseen): it reads those for the first
    time, not again. None where every resent message reached the model before."""
    earlier = [r for r in rounds[:index - 1] if r.request_recorded]
    seen = max((len(r.request.messages) for r in earlier if not refused_unseen(r)), default=0)
    unseen = [k for k in resent if k >= seen]
    refused = [r.index for r in earlier if refused_unseen(r) and len(r.request.messages) > seen]
    if not unseen or not refused:
        return None
    where = f"messages[{unseen[0]}]" + (f" to messages[{unseen[-1]}]" if len(unseen) > 1 else "")
    again = len(resent) - len(unseen)
    them = "it" if len(unseen) == 1 else "them"
    requests = f"the request of {rounds_named(refused)}" if len(refused) == 1 else f"the requests of {rounds_named(refused)}"
    return (f"{f'{again} of them again and ' if again else ''}{where} for the first time: {requests}, which sent "
            f"{them} first, {'was' if len(refused) == 1 else 'were'} refused by the provider before the model saw "
            f"{'it' if len(refused) == 1 else 'them'}.")


def kept_by_provider(trace: Trace, shown: int) -> str | None:
    """What the provider kept between calls over the first `shown` rounds (a previous_response_id,
    previous_interaction_id or conversation chain), in words; None where the program sent everything itself."""
    rounds = trace.rounds[:shown]
    if not any(r.request.held_by_provider for r in rounds):
        return None
    return _kept_words(any(r.tools_held for r in rounds))


def _kept_words(tools_held: bool) -> str:
    """What a provider kept between calls: the earlier messages, and the tool list where it held that too."""
    return "the earlier messages and the tool list" if tools_held else "the earlier messages"


def every_call_words(kept: str | None) -> str:
    """How the tokens slide's lead opens: every call resends everything, or, on a chain the provider kept
    (kept_by_provider), that every call is billed for it all though the program did not send it again."""
    if kept is None:
        return "Every call resends everything"
    return (f"Every call is billed for the whole conversation, though the provider kept {kept} and the program sent "
            "them once")


def sent_again_words(kept: str | None) -> str:
    """What the closing slide's lead says each call sent: everything again, or, on a chain the provider kept
    (kept_by_provider), only what was new, billed for it all."""
    if kept is None:
        return "the tool list and the whole conversation were sent again every time"
    return (f"the provider kept {kept} between calls, so the program sent them once, yet every call's input counted "
            "them again")


def held_chain_words(kept: str) -> str:
    """Under the explorer's general sentence ("Each round the program sends the whole conversation and the tool
    list"), for a trace whose provider kept part of it between calls (kept_by_provider): what its program did."""
    return (f"In this trace the provider kept {kept} between calls (a previous_response_id, previous_interaction_id or "
            "conversation chain): the program sent them once, and the model read them again every round.")


def gallery_words(round_: int, found: int) -> str:
    """A pitfall slide's lead for a trace that is not from the gallery (no explanation in its header): that it has no
    story to tell, and how many findings the checks have in the slide's round, shown under it (two at most)."""
    if not found:
        return (f"This trace is not from the pitfall gallery, so there is no story of a pitfall to tell, and the checks "
                f"found nothing in round {round_}.")
    shown = "the first two follow" if found > 2 else "below"
    return (f"This trace is not from the pitfall gallery, so there is no story of a pitfall to tell; the checks found "
            f"{plural(found, 'finding')} in round {round_}, {shown}.")
