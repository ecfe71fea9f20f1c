"""The round trip as a sequence diagram: who sends what to whom, round by round.

Five lanes: the user, the tools, the program, the provider's API and the model. Each round adds its arrows in the
order things happen, numbered with the five steps of lib/steps.py: ① the program sends the request
(with the tool list), ② the model asks for a tool, ③ the program runs it (marked not recorded where the trace
does not say; said started, its end not in the log, for a command the log holds still running), ④ the program
appends the result to the messages, ⑤ the model answers. Calls the model asks for in one response run side by side,
and a provider's refusal comes from its API: the model never saw that request.
Labels are our own words around trace strings; whoever draws them must escape those. No Streamlit, no plotly here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from lib.growth import growth, program_sent, round_name
from lib.injected import (context_only, interrupted, is_interrupt, library_reask, person_text, program_parts,
                          reasked_after)
from lib.failures import (answered_without_turn, no_answer, refused_unseen, round_statuses, round_tries, status_words,
                          try_heading)
from lib.model import AWAITING, ProviderError, Round, Trace
from lib.narration import narrates_without_call
from lib.provenance import NOT_CAPTURED
from lib.steps import (TextCommand, UnprovenCommand, carried_commands, command_unproven, cut_off_short, spoken_words,
                       text_commands, turn_ends_words)
from lib.text import plural, shorten

Lane = Literal["user", "program", "api", "model", "tools"]
"""Who sends or receives."""
LANES: tuple[Lane, ...] = ("user", "tools", "program", "api", "model")
"""The lanes, left to right: the program between the tools and the model, so no arrow between those two
passes through the other's lane; the model never talks to the tools. A request passes the API on its way to
the model, and a refusal turns back there."""
LANE_TITLES: dict[Lane, str] = {"user": "User", "program": "Program", "api": "Provider API", "model": "Model",
                                "tools": "Tools"}
"""Each lane's heading."""
SEQUENCE_ROUNDS = 12
"""Rounds drawn at most: a picture of a thousand rounds is not one anyone can read."""
LIBRARY_REASK = "asks the model again: its answer failed validation"
"""The note where a library (Mirascope, pydantic-ai) sends the model its own re-ask in the user's role, after the
answer before failed the library's validation (lib.injected.library_reask); within NOTE_LENGTH."""
SUMMARY_ASK = "asks the model to sum the conversation up"
"""The note where a summary call's prompt (Round.summary_call) is drawn: the program's, in the user's role; within
NOTE_LENGTH."""
SUMMARY_ANSWER = "answers with the summary, for the program"
"""A summary call's text answer: the program's to send in place of the history, not shown to the person."""
NOTE_LENGTH = 54
"""Characters of a note on the program's lane, drawn from that lane to the chart's right edge: as many as a label
across two lanes holds (`asks: ` and the question cut to 48), so a note fits at a projector's type too."""


@dataclass(frozen=True, slots=True)
class Arrow:
    """One message from one lane to another, or a note on one lane when both are the same."""

    round: int
    """The round it belongs to."""
    source: Lane
    """Who sends it."""
    target: Lane
    """Who receives it; the same as `source` for something a lane does by itself."""
    step: int | None
    """The step it shows (1 to 5), or None for what is not one of the five (the question, a tool's return)."""
    label: str
    """What it carries, in our words; may hold trace strings, unescaped."""
    beside: bool = False
    """True when it happens at the same time as the arrow before it (parallel calls): drawn in that arrow's row."""
    recorded: bool = True
    """False for what the trace does not record but the round implies (a call's execution, in a log of API calls
    alone): its label says "not recorded", and it is drawn grey rather than as fact."""
    heading: str = ""
    """The round's name, as the explorer's heading says it (lib.growth.round_name): `Round 2`, or `Round 2, the summary
    call of a compaction`; set by `sequence` on every arrow."""


def _sent_words(round_: Round) -> str:
    # The messages a provider held (previous_response_id or a conversation) are read by the model, not sent.
    held = round_.request.held_by_provider
    sent = plural(program_sent(round_), "message")
    return f"{sent} ({held} held by the provider)" if held else sent


def sequence(trace: Trace, limit: int = SEQUENCE_ROUNDS, first: int = 1) -> tuple[Arrow, ...]:
    """The arrows of `limit` rounds from round `first` on, in order."""
    arrows: list[Arrow] = []
    rounds = trace.rounds[max(first, 1) - 1: max(first, 1) - 1 + limit]
    for round_ in rounds:
        k = round_.index
        # The messages new in this request as the explorer places them (lib.growth.growth): a request that rewrote the
        # one before (AutoGPT's) resends some of its messages at other places, which are not new.
        new = growth(trace, k).new
        added = [e.message for e in new]
        # Each user text with what the program marked as its own in it (Claude Code's isMeta lines).
        asked = [(e.message, program_parts(round_, e.index)) for e in new
                 if e.message.role == "user" and not e.message.tool_results and e.message.text]
        # A summary call's prompt is the program's, asking for the summary (as the explorer marks it: growth's origin).
        summary_ask = round_.summary_call and bool(asked) and asked[-1][0] is round_.request.messages[-1]
        if summary_ask:
            asked.pop()
        # The one message a program's re-ask after the previous round appended (its `guard`) is the program's words.
        reask = asked.pop()[0] if asked and reasked_after(trace.rounds[k - 2] if k > 1 else None) else None
        # The person stopped the previous response: the words saying so are the program's, the act the person's.
        if any(interrupted(m) for m, _ in asked):
            arrows.append(Arrow(k, "user", "program", None, "interrupts (the program notes it in the user's role)"))
        # An agent writes context of its own (instructions files, its environment) as user messages: no one asked it.
        context = [m for m, marked in asked if context_only(m, marked) and not all(
            is_interrupt(p.text) for p in m.parts if p.kind == "text")]
        # A library's re-ask (Mirascope's, pydantic-ai's) is no context: it asks again after an answer it rejected.
        retries = [m for m in context if library_reask(m)]
        context = [m for m in context if m not in retries]
        arrows.extend(Arrow(k, "program", "program", None, LIBRARY_REASK) for _ in retries)
        if context:
            # Kept within NOTE_LENGTH for one message: the note runs from the program's lane to the chart's edge.
            arrows.append(Arrow(k, "program", "program", None, f"adds {plural(len(context), 'message')} of its own "
                                "context in the user's role"))
        for message, marked in asked:
            if not context_only(message, marked):
                arrows.append(Arrow(k, "user", "program", None, f"asks: {shorten(person_text(message, marked), 48)}"))
        if reask is not None:
            # Said short, the quote cut with it: the note runs from the program's lane to the chart's edge, no further.
            arrows.append(Arrow(k, "program", "program", None,
                                shorten(f"re-asks in the user's role: {reask.text}", NOTE_LENGTH)))
        results = sum(len(m.tool_results) for m in added)
        # With the results of the commands earlier answers wrote in their text (AutoGPT's), as step 4 pairs them.
        results += len(carried_commands(trace, k))
        if results and k > 1:
            arrows.append(Arrow(k, "program", "program", 4, f"appends {plural(results, 'result')} to the messages"))
        if summary_ask:
            arrows.append(Arrow(k, "program", "program", None, SUMMARY_ASK))
        tools = f" + {plural(len(round_.request.tools), 'tool')}" if round_.request.tools else ""
        if tools and round_.tools_held:  # not in the request's bytes (previous_interaction_id): held, as messages are
            tools += " (held by the provider)"
        sent = f"{_sent_words(round_)}{tools}" if round_.request_recorded else "not in the log"
        error = round_.error
        # A provider that refused the request answered from its API: the model never saw it (unless it wrote the
        # output the provider then rejected, or part of a response came back before the call failed).
        # An error event ending a stream came after the answer had begun: no refusal.
        refused = refused_unseen(round_)
        if round_.compaction and error is None and round_.response is not None:
            # A compaction call (Round.compaction): the provider answers with the history compacted, not the model
            # with a turn; what runs behind its API to compact it is not in the log.
            arrows.append(Arrow(k, "program", "api", 1, f"request {k}: compact the history, {sent}"))
            arrows.append(Arrow(k, "api", "program", None, "returns it compacted: no answer, no call"))
            continue
        # A request sent again unchanged after failed tries is one round (lib.failures.round_tries): each try goes out
        # and its failure comes back, as the explorer lists them under the response, before the last try's outcome.
        statuses = round_statuses(round_) if round_tries(round_) is not None else [None]
        for number, status in enumerate(statuses[:-1], start=1):
            arrows.append(Arrow(k, "program", "api", 1, f"request {k}{' again' if number > 1 else ''}: {sent}"))
            arrows.append(Arrow(k, "api" if isinstance(status, int) else "program", "program", None,
                                try_heading(number, len(statuses), status)))
        again = " again" if len(statuses) > 1 else ""
        arrows.append(Arrow(k, "program", "api" if refused else "model", 1, f"request {k}{again}: {sent}"))
        if error is not None:
            if round_.response is not None:
                arrows.append(_cut(k, round_))
            arrows.append(_failure(k, error, cut=round_.response is not None))
            continue
        if round_.response is None:
            continue
        following = k + 1 if k < len(trace.rounds) else None
        # A compaction call between this answer and the next question is the program's: the person answers after it.
        after = next((r for r in trace.rounds[k:] if not r.compaction), None)
        shown = after is None or _person_follows(trace, trace.rounds[after.index - 2] if after.index > k + 1
                                                 else round_, after)
        commands = text_commands(trace, k) if not round_.tool_calls else ()
        unseen = command_unproven(trace, k) if not round_.tool_calls and not commands else None
        answer = _calls(k, round_) if round_.tool_calls else _written(k, commands) if commands \
            else _unseen(k, unseen) if unseen \
            else _no_call(k, round_, following, shown, cut_off_short(round_, trace.dialect))
        if round_.summary_call and answer and answer[0].step == 5 and answer[0].label == "answers in text":
            # The summary goes to the program, which sends it in place of the history: no answer to the person.
            answer = [replace(answer[0], label=SUMMARY_ANSWER)]
        if round_.compacted_in_call:
            # The provider compacted the history during this call (Round.compacted_in_call): its API, not the model,
            # put the compacted item beside the answer.
            answer.insert(1, Arrow(k, "api", "program", None, "also returns the history compacted: encrypted, not "
                                   "the model's words"))
        arrows.extend(answer)
    # One name for a round on every view: the diagram heads each round as the explorer and the navigator do.
    names = {r.index: round_name(r) for r in rounds}
    return tuple(replace(arrow, heading=names[arrow.round]) for arrow in arrows)


def _person_follows(trace: Trace, round_: Round, following: Round) -> bool:
    """Whether the person answered round_'s text: the next request adds words of theirs, or the log did not keep that
    request. A program that goes on by itself (mini-swe-agent runs the command it reads in the answer and sends its
    output) adds only its own words in the user's role: no answer was shown to anyone the log knows of."""
    if not following.request_recorded:
        return True
    asked = [(e.message, program_parts(following, e.index)) for e in growth(trace, following.index).new
             if e.message.role == "user" and not e.message.tool_results and e.message.text]
    if asked and reasked_after(round_):
        asked.pop()  # the program's re-ask
    # The person stopping it (Claude Code's "[Request interrupted by user]") is the person acting on what was shown.
    return any(not context_only(m, marked) or interrupted(m) for m, marked in asked)


def _no_call(k: int, round_: Round, following: int | None, shown: bool = True,
             cut_off: str | None = None) -> list[Arrow]:
    """A response with no call in it, drawn as its step labels name it (lib/steps.py): a stop for tools whose calls
    the log did not keep is still a call intent, narration announces an action and runs none, and a stop for length
    or a filter is no answer (`cut_off`: one cut off, said as lib.steps.cut_off_short says it). The loop ends only
    where no round follows; where one does (`following`), the model's turn ended and the program went on
    (lib.steps.turn_ends_words). A text answer is drawn shown to the person only where `shown` (_person_follows)."""
    response = round_.response
    if response.stop == "tool_calls":
        return [Arrow(k, "model", "program", 2, "asks for tools (the calls are not recorded)"),
                Arrow(k, "program", "tools", 3, "runs them? (not recorded)", recorded=False)]
    if narrates_without_call(round_):
        if following is None:
            return [Arrow(k, "model", "program", 5, "ends the loop without a call: announces an action, runs none")]
        return [Arrow(k, "model", "program", 5, turn_ends_words(following))]
    if cut_off:  # as the step label on its stop signal says it (lib.steps.cut_off_words), in a few words
        return [Arrow(k, "model", "program", None, cut_off)]
    if response.stopped_short:
        # A stop signal is the provider's string, any length: shortened as every other label the diagram draws.
        return [Arrow(k, "model", "program", None, f"stops: {shorten(response.finish_reason or response.stop, 40)}, "
                      "no answer and no call")]
    if not round_.answer_recorded:  # a span that kept no content: the turn ended, on words not in the log
        return [Arrow(k, "model", "program", 5, f"{turn_ends_words(following)}: {NOT_CAPTURED}")]
    if not response.message.text and spoken_words(round_):
        return [Arrow(k, "model", "program", 5, f"{turn_ends_words(following)}: {spoken_words(round_)}")]
    if not response.message.text:
        return [Arrow(k, "model", "program", 5, f"{turn_ends_words(following)}: the response holds no text in the "
                      "log")]
    answered = [Arrow(k, "model", "program", 5, "answers in text")]
    return answered + [Arrow(k, "program", "user", None, "shows the answer")] if shown else answered


def _written(k: int, commands: tuple[TextCommand, ...]) -> list[Arrow]:
    """Commands the model wrote in its text, not as tool calls, that the program ran (lib.steps.text_commands): drawn
    as their steps 2 and 3 label them, a call intent and the program running it, not an answer shown to anyone."""
    names = ", ".join(c.name for c in commands)
    return [Arrow(k, "model", "program", 2, f"writes {shorten(names, 24)} in its text, no tool call"),
            Arrow(k, "program", "tools", 3, f"runs {shorten(names, 40)}"),
            Arrow(k, "tools", "program", None, "returns")]


def _unseen(k: int, unseen: UnprovenCommand) -> list[Arrow]:
    """A command the model wrote in its text that no request carries the result of (lib.steps.command_unproven): a
    call intent, as step 2 labels it, and the program running it drawn as not recorded, as step 3 says nothing shows
    it: the log ends before its result, does not hold the next request, or the next request holds none."""
    name = shorten(unseen.name, 24)
    why = {"log ends": "the log ends before its result", "request not kept": "the next request is not in the log",
           "no result": "no result in the next request", "person answered": "a person answered instead"}[unseen.why]
    return [Arrow(k, "model", "program", 2, f"writes {name} in its text, no tool call"),
            Arrow(k, "program", "tools", 3, f"runs {name}? {why}", recorded=False)]


def _cut(k: int, round_: Round) -> Arrow:
    """What came back of a response before the call failed (a stream that broke off): the calls it asked for or its
    text, as the log kept them; the failure arrow follows it."""
    message = round_.response.message
    names = ", ".join(c.name for c in message.tool_calls)
    if names:
        what = f"asks for {shorten(names, 40)}"
    elif message.text:
        what = f"writes: {shorten(message.text, 40)}"
    else:
        what = "no text and no call in what the log kept"
    return Arrow(k, "model", "program", None, f"part of a response, then the call fails: {what}")


def _failure(k: int, error: ProviderError, cut: bool = False) -> Arrow:
    """A failed call: an HTTP status is the provider's API answering, the model never reached; a log without
    one does not say who failed, so nothing is claimed. A call `cut` while its response came back fails; it was
    not refused, nor was an answer that an error event ended part way (ProviderError.ended_stream)."""
    status = error.status
    if error.ended_stream:
        return Arrow(k, "api", "program", None, f"ends the stream with an error: {status_words(error)}")
    if not status and no_answer(error):  # Roundtrip recorded that nothing answered: a timeout, no connection
        return Arrow(k, "program", "program", None, "error: no answer came")
    if not status:
        return Arrow(k, "program", "program", None, "error: HTTP status not recorded")
    if answered_without_turn(error):  # a success status over a body with no turn in it: no refusal, no failure code
        return Arrow(k, "api", "program", None, f"answers HTTP {status} with no model turn")
    said = "refuses the request" if isinstance(status, int) and 400 <= status < 500 and not cut else "fails"
    return Arrow(k, "api", "program", None, f"{said}: HTTP {status}")


def _calls(k: int, round_: Round) -> list[Arrow]:
    """One response asking for every call at once; the calls run side by side, and their results come back."""
    calls = round_.tool_calls
    names = ", ".join(c.name for c in calls)
    asked = f"asks for {shorten(names, 48)}" if len(calls) == 1 else \
        f"asks for {len(calls)} calls at once: {shorten(names, 48)}"
    arrows = [Arrow(k, "model", "program", 2, asked)]
    returns = []
    for n, call in enumerate(calls):
        execution = round_.execution_of(call.id)
        if execution is None and (call.id in round_.unended_calls or call.id in round_.unended_writes):
            # The log says the command started and returned its output so far, and holds no end of it; a call that
            # wrote to a command left running ran, and that command's end is what the log lacks (Step 3 says the
            # same): drawn as fact, no outcome claimed.
            said = ("runs {}: the command's end is not in the log" if call.id in round_.unended_writes
                    else "starts {}: its end is not in the log")
            arrows.append(Arrow(k, "program", "tools", 3, said.format(shorten(call.name, 24)), beside=n > 0))
            returns.append(Arrow(k, "tools", "program", None, "returns its output so far", beside=bool(returns)))
            continue
        if execution is None and round_.extra.get(AWAITING) == call.id:
            # A live run's copy taken while the call waited for a person: it had not run, and the trace says why.
            arrows.append(Arrow(k, "program", "program", None, f"waits for approval: {shorten(call.name, 40)}",
                                beside=n > 0))
            continue
        if execution is None:
            # What Step 3 says too (lib/steps.py): the trace does not say the program ran it, nor what came back.
            arrows.append(Arrow(k, "program", "tools", 3, f"runs {shorten(call.name, 40)}? (not recorded)",
                                beside=n > 0, recorded=False))
            returns.append(Arrow(k, "tools", "program", None, "returns? (not recorded)", beside=bool(returns),
                                 recorded=False))
            continue
        declined = execution.approval == "declined"
        verb = "declines" if declined else "refuses" if execution.refused else "runs"
        arrows.append(Arrow(k, "program", "tools", 3, f"{verb} {shorten(call.name, 40)}", beside=n > 0))
        if verb == "runs":
            returns.append(Arrow(k, "tools", "program", None, "returns" if execution.ok else "fails",
                                 beside=bool(returns)))
    if len(calls) > 2:
        # Three labels side by side in one lane's width overlap: the row's first arrow speaks for all of them.
        return [arrows[0], *_said_once(arrows[1:]), *_said_once(returns)]
    return arrows + returns


def _said_once(row: list[Arrow]) -> list[Arrow]:
    """Arrows that happen at once, the first labelled with what they do and how many do each (`runs 3? (not
    recorded)`, `returns 2, fails 1`), the others unlabelled."""
    done: dict[tuple[str, bool], int] = {}
    for arrow in row:
        verb = arrow.label.split(" ", 1)[0].rstrip("?")
        done[(verb, arrow.recorded)] = done.get((verb, arrow.recorded), 0) + 1
    label = ", ".join(f"{verb} {count}" + ("" if recorded else "? (not recorded)")
                      for (verb, recorded), count in done.items())
    return [replace(arrow, label=label if n == 0 else "") for n, arrow in enumerate(row)]


def window_start(round_: int, rounds: int, limit: int = SEQUENCE_ROUNDS) -> int:
    """The first round of the window of `limit` rounds that holds round `round_`: windows start at 1,
    1 + limit, …, and the last one ends at the last round."""
    return max(1, min((round_ - 1) // limit * limit + 1, rounds - limit + 1))
