"""Presenter mode: a round revealed one step at a time, in the order the round trip happens.

A position is a round and one of the five step numbers of lib/steps.py:

1. the request: what the program sends (the tool list, and whatever the request adds);
2. the call intent (or, when the call failed, the provider's error in its place);
3. the program runs the tools;
4. the results appended: where they sit in the next request;
5. the model answers.

A round that asks for tools has steps 1 to 4, a round that answers has 1 and 5. Moving from a
position looks at that round and its neighbour only, never at the whole trace, so a long trace
costs a presenter no more per click than a short one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from lib.checks import no_result_why
from lib.growth import (HELD_UNDER, HUMAN_FEEDBACK_WORDS, PERSONS_ANSWER, Growth, MessageEntry, held_apart,
                         kept_after, left_out_words, origin_words)
from lib.injected import library_reask
from lib.model import Round, Trace
from lib.steps import (STEP_TITLES, StepLabel, command_unproven, lost_between_words, steps_for_round,
                       text_commands)
from lib.text import plural

TITLES = STEP_TITLES
"""What each step reveals: the one name of each step (lib.steps)."""
FAILED_TITLE = "The provider refuses the call"
"""Step 2's title when the call failed instead of answering."""
COMPACTION_TITLE = "The provider returns the history compacted"
"""Step 5's title for a compaction call's answer (Round.compaction): the provider's compacted history, no turn of the
model's (lib.steps.compaction_words)."""
STOPPED_TITLE = "The model stops without an answer or a call"
"""Step 5's title for a response that stopped for another reason (a filter, a stop signal not known): the cards label
no step 5 on it, for it answers nothing. One cut off at its output limit is named by its label (lib.steps.CUT_OFF_TITLE)."""


@dataclass(frozen=True, slots=True)
class Position:
    """Where a presenter is: a round and the step of it on screen."""

    round: int
    """1-based round."""
    step: int
    """1 to 5, one of the steps the round has."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """What one position shows: its title and the step labels it pins on the real payload."""

    position: Position
    """The position revealed."""
    title: str
    """The heading, in a presenter's words."""
    labels: tuple[StepLabel, ...]
    """The lib.steps labels this step reveals."""
    labels_round: int
    """The round whose payload the labels point into: for step 4, the next round's request, or the first later one
    the log kept where it lost that one (growth.kept_after)."""


def steps_in(round_: Round, trace: Trace) -> tuple[int, ...]:
    """The steps round_ of `trace` has, in order: a stop for tools whose calls the log did not keep (a span without
    content) is a call intent too, as is a command the model wrote in its text that the program ran (text_commands),
    as their step labels say (lib/steps.py); and one no request carries the result of (command_unproven: the log ends
    on it, or the next request holds none), whose step 3 says nothing shows it ran."""
    if round_.response is not None:
        response = round_.response
        calls = response.message.tool_calls or response.stop == "tool_calls" or text_commands(trace, round_.index) \
            or command_unproven(trace, round_.index)
        return (1, 2, 3, 4) if calls else (1, 5)
    if round_.error is not None:
        return (1, 2)
    return (1,)


PREDICT_STEP = 2
"""Where a round whose response is still hidden (predict mode) asks for the prediction, whatever steps the
round has: which steps a round has would tell a call from an answer."""


def _never(index: int) -> bool:
    return False


def open_rounds(rounds: int, hidden: Callable[[int], bool] = _never) -> int:
    """How many rounds, from the first, a slide of more than one round may show (the tokens, the picture, both
    dialects): those before the first round whose response is still `hidden`. Its answer is the learner's to predict,
    and each later round would give it away: its request carries that answer, and its input grows by it."""
    return next((k - 1 for k in range(1, rounds + 1) if hidden(k)), rounds)


def first_open(asked: int, hidden: Callable[[int], bool] = _never) -> int:
    """The round a learner who asks for round `asked` may open: that round, or the first before it whose response
    is still `hidden`, for every later request carries that answer. The one rule of the presenter's Next, a deep
    link, a plan's step slide and the explorer's controls; moving back to a predicted round stays free."""
    return next((k for k in range(1, asked) if hidden(k)), asked)


def held_words(asked: int, opened: int) -> str | None:
    """Why round `asked` was not opened (first_open): round `opened` is still to predict; None when it was."""
    if opened >= asked:
        return None
    return (f"Predict round {opened} first: request {asked} carries what the model does in round {opened}, "
            f"so round {opened} is shown.")


def held_back_words(opened: int) -> str:
    """Why predict mode opened round `opened` where a later round was asked for, in words that name no later round:
    which one was asked for, and whether the trace has it, would tell how long it is (lib.ui.predict.known_rounds)."""
    return f"Predict round {opened} first: every later request carries what the model does in it, so round {opened} " \
           "is shown."


def settle(trace: Trace, round_index: int, step: int, hidden: Callable[[int], bool] = _never) -> Position:
    """The position nearest to the one asked for: the round clamped, and held at the first round still to predict
    (first_open), then its first step at or after `step`. A `hidden` round has only its request and the prediction
    slot (PREDICT_STEP)."""
    index = first_open(min(max(round_index, 1), len(trace.rounds)), hidden)
    steps = _steps(trace, index, hidden)
    return Position(index, next((s for s in steps if s >= step), steps[-1]))


def _steps(trace: Trace, index: int, hidden: Callable[[int], bool]) -> tuple[int, ...]:
    return (1, PREDICT_STEP) if hidden(index) else steps_in(trace.rounds[index - 1], trace)


def following(trace: Trace, position: Position, hidden: Callable[[int], bool] = _never) -> Position | None:
    """The next position: the round's next step, or the next round's request; None at the end, and at a `hidden`
    round's prediction slot: the next request carries its answer (waits_words)."""
    steps = _steps(trace, position.round, hidden)
    later = [s for s in steps if s > position.step]
    if later:
        return Position(position.round, later[0])
    if position.round < len(trace.rounds) and not hidden(position.round):
        return Position(position.round + 1, 1)
    return None


def waits_words(trace: Trace, position: Position, hidden: Callable[[int], bool] = _never) -> str | None:
    """Why there is no next position at the round on screen: it is still to predict. Said on every such round, the
    trace's last too, in words as true there: a caption missing on one round only would tell that it is the last, the
    one whose model answers."""
    if hidden(position.round) and following(trace, position, hidden) is None:
        return f"Predict round {position.round} first: a request after it would carry what the model does in it."
    return None


def preceding(trace: Trace, position: Position, hidden: Callable[[int], bool] = _never) -> Position | None:
    """The position before: the round's previous step, or the previous round's last step; None at the start."""
    steps = _steps(trace, position.round, hidden)
    earlier = [s for s in steps if s < position.step]
    if earlier:
        return Position(position.round, earlier[-1])
    if position.round > 1:
        return Position(position.round - 1, _steps(trace, position.round - 1, hidden)[-1])
    return None


def reveal(trace: Trace, position: Position,
           steps_of: Callable[[int], Iterable[StepLabel]] | None = None) -> Reveal:
    """The title and the step labels of one position. `steps_of(k)` gives round k's step labels; the
    app passes its cached round views' labels, so a step never labels the payload a second way."""
    steps_of = steps_of or (lambda k: steps_for_round(trace, k))
    index, step = position.round, position.step
    round_ = trace.rounds[index - 1]
    title = FAILED_TITLE if step == 2 and round_.response is None else TITLES[step]
    if step == 5 and round_.response is not None and round_.response.stopped_short:
        title = STOPPED_TITLE
    if step == 5 and round_.response is not None and round_.compaction:
        title = COMPACTION_TITLE
    if step == 4:
        if index == len(trace.rounds):
            return Reveal(position, title, (), index + 1)
        # The results of round k's calls are new in request k+1, or in the first later request the log kept where it
        # lost that one; only those made by round k belong here.
        kept = kept_after(trace.rounds, index)
        carrier = kept.index if kept is not None else index + 1
        labels = tuple(lab for lab in steps_of(carrier) if lab.step == 4 and lab.call_round == index)
        return Reveal(position, title, labels, carrier)
    found = tuple(steps_of(index))
    if step == 1:
        labels = tuple(lab for lab in found if lab.side == "request")
    else:
        labels = tuple(lab for lab in found if lab.step == step)
        # A narration, or an answer cut off at the output limit, is named as what it is, as the explorer names it.
        title = next((lab.title for lab in labels if lab.narration or lab.cut_off), title)
    return Reveal(position, title, labels, index)


@dataclass(frozen=True, slots=True)
class Shown:
    """The new messages of a request that the previous round's own steps already put on screen."""

    entries: tuple[MessageEntry, ...]
    """Those messages, in the request's order."""
    steps: tuple[int, ...]
    """The previous round's steps that showed them: 2 (its model turn), 4 (the results of its calls)."""


def shown_before(placed: Growth, previous: Round, trace: Trace) -> Shown:
    """Which of a request's new messages the previous round of `trace` showed: its model turn at step 2 and the
    results of its calls (or of the commands it wrote in its text) at step 4. A round that failed, or answered, has no
    step 4: results appended after it are new here."""
    shows = {"response": 2, "tool-result": 4, "command-result": 4}
    steps = steps_in(previous, trace)
    entries = tuple(e for e in placed.new if shows.get(e.origin) in steps)
    return Shown(entries, tuple(sorted({shows[e.origin] for e in entries})))


def kept_later_words(index: int, carrier: int, found: bool) -> str:
    """Step 4 of round `index` where the log lost the next request and round `carrier`'s is the first later one it
    kept: whether that request carries the results of round `index`'s calls, and which requests are lost between
    (steps.lost_between_words, as a written command's step 3 label says it)."""
    carries = f"the results of round {index}'s calls" if found else f"no result for the calls of round {index}"
    return f"Round {carrier}'s request, the next the log kept, carries {carries}; " \
           f"{lost_between_words(index, carrier)}."


def none_kept_words(index: int, rounds: int) -> str:
    """Step 4 of round `index` where the log kept no request after it, though later rounds follow: whether the program
    appended any result is not known."""
    lost = f"round {index + 1}'s request" if rounds == index + 1 else f"the requests of rounds {index + 1} to {rounds}"
    return (f"The log does not hold {lost}, which would carry the results of round {index}'s calls: whether the "
            "program appended any is not known.")


def appended_words(placed: Growth) -> str:
    """The badge of a message new in request k + 1 on a slide of round k (step 4, whose header and counter are round
    k's): new in which request, not "this round"; new since which request where the log lost the one before."""
    return placed.new_words if placed.since else f"new in request {placed.index}"


def carried(round_: Round, placed: Growth) -> str:
    """What the round's request is made of, against the request before it: the growth step 4 causes. Messages the
    provider held are named apart: the program did not send them."""
    held, sent = held_apart(round_, placed.entries)
    sentence = _made_of(replace(placed, entries=sent), round_.index)
    if not held:
        return sentence
    turn = ", the model's previous turn among them" if any(e.origin == "response" for e in held) else ""
    return f"{sentence} The provider holds {plural(len(held), 'earlier message')} ({HELD_UNDER}){turn}."


def _made_of(placed: Growth, index: int) -> str:
    origins = [e.origin for e in placed.new]
    pieces = [f"{plural(len(placed.resent), 'message')} resent unchanged"]
    if origins.count("response"):
        pieces.append("the model's previous turn")
    if origins.count("history"):
        # An assistant turn that is not the response as it came back (rewritten, or sent on in another API's format).
        pieces.append(plural(origins.count("history"), "assistant message") + " the program wrote into the history "
                      "(not the previous response as it came back)")
    if origins.count("compaction"):
        pieces.append(plural(origins.count("compaction"), "message") + " with the compacted history the provider returned")
    if origins.count("tool-result"):
        pieces.append(plural(origins.count("tool-result"), "message") + " with tool results")
    # A text command's result, answering no call id: AutoGPT's in the system role, a ReAct agent's observation in the
    # user's role.
    observations = sum(1 for e in placed.new if e.origin == "command-result" and e.message.role == "user")
    if origins.count("command-result") - observations:
        pieces.append(plural(origins.count("command-result") - observations, "message")
                      + " with a command's result, in the system role")
    if observations:
        pieces.append(plural(observations, "message") + " with an action's observation, in the user's role")
    # A library's re-ask (Mirascope, pydantic-ai) is named for what it is, apart from the program's other context.
    reasks = sum(1 for e in placed.new if e.origin == "program" and library_reask(e.message))
    if origins.count("program") - reasks:
        pieces.append(plural(origins.count("program") - reasks, "message") + " the program wrote in the user's role")
    if reasks:
        pieces.append("the library's re-ask (the model's answer failed its validation)" if reasks == 1 else
                      f"{reasks} re-asks of the library's (the model's answers failed its validation)")
    # A person's reply in place of a command's result (AutoGPT's "Human feedback: ...") is named as the request card
    # names it (origin_words), not counted among messages nothing shows the writer of.
    answers = sum(1 for e in placed.new if origin_words(e) == HUMAN_FEEDBACK_WORDS)
    if answers:
        pieces.append(plural(answers, "message") + f" with {PERSONS_ANSWER}, in the system role")
    if origins.count("input") - answers:
        pieces.append(plural(origins.count("input") - answers, "other new message"))
    if placed.changed:
        pieces.append(plural(len(placed.changed), "changed message"))
    parts = ", ".join(pieces[:-1]) + " and " + pieces[-1] if len(pieces) > 1 else pieces[0]
    # Counted as the explorer's request counts them (Growth.dropped): what it left out is no part of it, but without
    # it the counts do not add up to the request before.
    left_out = f" {left_out_words(placed)}" if placed.dropped else ""
    return f"Request {index} carries {plural(len(placed.entries), 'message')}: {parts}.{left_out}"


def no_result_words(trace: Trace, index: int) -> str:
    """Step 4 of round `index` where the next request carries no result for its calls: that, and why where the request
    shows it (lib.checks.no_result_why, the reasons the check missing-tool-result goes by)."""
    said = f"Request {index + 1} carries no result for the calls of round {index}"
    why = no_result_why(trace, trace.rounds[index - 1])
    return f"{said}: {why}." if why else f"{said}."
