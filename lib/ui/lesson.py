"""The lesson layer on screen: the author's callouts, the snowball counter, and what steps 1 and 2 lead with.

Presenter mode (lib/ui/presenter.py) calls these on every slide; the explorer shows the callouts beside
the round. Lesson text and every other string from a trace go through lib/ui/plain; markdown here
holds only our own words and numbers, and the stylesheet only fixed rules of our own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import streamlit as st

from lib.catalog import LoadedTrace
from lib.growth import HELD_UNDER, MessageEntry, system_words
from lib.lessons import Lesson, lessons_at
from lib.model import Round
from lib.presenter import Position, Reveal, reveal, shown_before
from lib.round_view import RoundView
from lib.slide_words import (content_is_null, first_read_words, input_line, knows_words, size_words, snowball,
                             step_lead, stop_switch, tools_line)
from lib.steps import STEP_COLORS, STEP_MARKS, command_unproven, cut_off_short, text_commands
from lib.text import plural, shorten, summarize_message
from lib.ui import cards, plain, predict, rounds, state

LESSON_CSS = """<style>
/* The lesson layer at projector size: 24 px and up for what is read, 18 px and up for labels. Fixed rules of our own: no trace text. */
[class*="st-key-lesson-title"] [data-testid="stText"] { font-size: 1.9rem !important; font-weight: 700; line-height: 1.2; white-space: pre-wrap; font-family: inherit; }
[class*="st-key-lesson-text"] [data-testid="stText"] { font-size: 1.5rem !important; line-height: 1.22; white-space: pre-wrap; font-family: inherit; }
[class*="st-key-snowball"] [data-testid="stMarkdownContainer"] p { font-size: 1.5rem !important; margin-bottom: 0; }
[class*="st-key-resent-stack"] { background: #eceef2; opacity: 0.75; border-radius: 0.5rem; padding: 0.1rem 0.8rem; gap: 0; }
[class*="st-key-resent-stack"] [data-testid="stText"], [class*="st-key-resent-stack"] [data-testid="stText"] * { font-size: 1.5rem !important; color: #4a4f5a; white-space: nowrap !important; overflow: hidden; text-overflow: ellipsis; line-height: 1.3; }
</style>"""
"""How the lesson layer looks in presenter mode."""

LEAD_KEY = "slide-lead"
"""The container key of a slide's one sentence that matters (presenter mode's stylesheet makes it the largest
text after the heading)."""
STACK_ROWS = 8
"""Resent messages drawn in the grayed stack; older ones are counted in one line."""
LINE_LENGTH = 110
"""Characters of one resent message's line in the stack."""
CALL_NOTES = ("model-filled-value", "write-tool-call")
"""The findings presenter mode pins next to a call: values the model filled, and a write tool's approval."""


def lead(sentence: str) -> None:
    """The one sentence that matters on a slide, in the largest type after the heading: our own words, as markdown."""
    with st.container(key=LEAD_KEY):
        st.markdown(sentence)


def lead_text(sentence: str) -> None:
    """A trace's words in the lead's place and size, as text (tests/test_markup_audit.py tells the two apart by name)."""
    with st.container(key=LEAD_KEY):
        plain.text(sentence)


def callouts(lessons: tuple[Lesson, ...], key: str) -> None:
    """The lessons of one step in one callout, each with its title large, its text, and the fix; all as plain text."""
    with st.container(border=True, key=f"lesson-{key}"):  # one box a step: a box and a badge each costs a line
        st.markdown(":orange-badge[:material/lightbulb: What to notice]")
        for i, lesson in enumerate(lessons):
            with st.container(key=f"lesson-title-{key}-{i}"):
                plain.text(lesson.title)
            with st.container(key=f"lesson-text-{key}-{i}"):
                plain.text(lesson.text)
                if lesson.fix:
                    plain.text(f"The fix: {lesson.fix}")


def beside(loaded: LoadedTrace, index: int, step: int, heading: str, body: Callable[[], None]) -> None:
    """A presenter slide's heading and body with the step's lessons in a column beside the body, the heading on
    top of them, so the slide stays one screen."""
    found = lessons_at(loaded.trace.lessons, index, step)
    if not found:
        st.header(heading, anchor=False)
        body()
        return
    left, right = st.columns([1, 2], gap="medium")
    with left:
        st.header(heading, anchor=False)
        callouts(found, f"{index}-{step}")
    with right:
        body()


def beside_round(loaded: LoadedTrace, index: int) -> None:
    """The explorer's view of a round's lessons: each under the step it belongs to."""
    lessons = [lesson for lesson in loaded.trace.lessons if lesson.round == index]
    if not lessons:
        return
    with st.expander(f"What to notice in round {index}: {plural(len(lessons), 'lesson')}", expanded=True):
        for step in sorted({lesson.step for lesson in lessons}):
            # Named as presenter mode names the step: a narration is no "Model answers".
            title = reveal(loaded.trace, Position(index, step), lambda k: rounds.view(loaded, k).steps).title
            st.markdown(f":{STEP_COLORS[step].name}-background[**{STEP_MARKS[step]} {title}**]")
            callouts(lessons_at(loaded.trace.lessons, index, step), f"{index}-{step}")


def snowball_counter(loaded: LoadedTrace, index: int, upto_current: bool, predicting: bool = False) -> None:
    """The counter on every slide: messages per round with this one highlighted, tools resent, input split; in
    predict mode no request past the first round still to predict (predict.reachable)."""
    reach = None if predict.known_rounds(loaded, predicting) else predict.reachable(loaded, predicting)
    snow = snowball(loaded.trace, state.summaries(loaded), index, upto_current, reach)
    sizes = [f":blue-background[**{size_words(count)}**]" if k == snow.current else size_words(count)
             for k, count in snow.sizes]
    line = ("… → " if snow.more_before else "") + " → ".join(sizes) + (" → …" if snow.more_after else "")
    with st.container(border=True, key="snowball"):
        st.markdown(f"**Messages {'the model reads' if snow.held else 'sent'}, round by round:** {line}")
        st.markdown(f"**Tools:** {tools_line(snow)}")
        st.markdown(f"**Input tokens{' (estimated)' if snow.estimated else ''}:** {input_line(snow)}")


def request_slide(loaded: LoadedTrace, view: RoundView, marks: list, secret: bool = False, fold_seen: bool = True) \
        -> None:
    """Step 1: the tool list first (and the output schema, where the request sent one), then what the model sees, the
    resent history grayed beneath it; `secret` True in predict mode before the learner has predicted; `fold_seen`
    False where the round before was not shown step by step (a gallery slide), so no fold says its steps already showed
    the new messages."""
    round_, placed = view.round, view.placed
    cards.notices(round_, after=False)  # the explorer shows them above the request too
    if not round_.request_recorded:
        cards.request_not_in_log()
        return
    cards.request_headers_block(round_)  # sent beside the body, as the explorer shows them above it
    # The tool list's count, tokens and what it costs again are the counter's "Tools:" line, said once a slide.
    cards.tools_section(round_, marks, tool_list_recorded=view.tool_list_recorded, secret=secret,
                        tool_list_sent=view.tool_list_sent)
    cards.output_schema_section(round_)  # sent beside the tool list, in the request card's words
    st.subheader("What the model sees", anchor=False)
    lead(knows_words(round_))
    _resent_stack(view, loaded.trace.rounds)
    # What the stack cannot show: messages of the earlier request left out, and those resent at other places.
    cards.placement(placed)
    # A message the provider held is grayed in the stack: neither a card nor a fold of what a step showed.
    sent = replace(placed, entries=view.held_and_sent[1])
    seen = shown_before(sent, loaded.trace.rounds[round_.index - 2], loaded.trace) if round_.index > 1 and fold_seen \
        else None
    already = seen.entries if seen else ()
    if already:
        with st.expander(f"{plural(len(seen.entries), 'new message')} that {_steps_words(seen.steps)} of round "
                         f"{round_.index - 1} already showed: {_shown_words(seen.steps)}"):
            for entry in already:
                cards.message_card(entry, marks, new_words=placed.new_words)
    for entry in sent.entries:
        if entry.status != "resent" and entry not in already:
            cards.message_card(entry, marks, new_words=placed.new_words)


def _steps_words(steps: tuple[int, ...]) -> str:
    marks = [STEP_MARKS[step] for step in steps]
    return f"step {marks[0]}" if len(marks) == 1 else "steps " + " and ".join(marks)


def _shown_words(steps: tuple[int, ...]) -> str:
    return " and ".join({2: "the model's turn", 4: "the results"}[step] for step in steps)


def _resent_stack(view: RoundView, rounds_: tuple[Round, ...]) -> None:
    system, standing = view.round.request.system, view.system
    # With previous_response_id or a conversation the provider holds the earlier messages; what else goes out again
    # (the instructions, a top-level system) the program does resend.
    held, sent = view.held_and_sent
    # Counted as the explorer counts them (Growth.resent): a top-level system field is named apart, never a message.
    resent = tuple(e for e in sent if e.status == "resent")
    if standing != "resent" and not resent and not held:
        if view.round.index == 1:
            st.markdown("Nothing is resent: this is the first request.")
        elif view.placed.against is None:
            st.markdown("No earlier request is in the log, so what is resent is not known.")
        else:
            st.markdown("Nothing is resent unchanged.")
        _system_apart(view)
        return
    said = [f"**{plural(len(held), 'earlier message')} held by the provider** ({HELD_UNDER}), not sent again"] \
        if held else []
    if resent:
        said.append(f"**{plural(len(resent), 'message')} resent unchanged**")
    if standing == "resent":
        said.append("the system field, resent unchanged")
    them = "it" if said == ["the system field, resent unchanged"] else "every one of them"
    sentence = " and ".join(said)
    # A message first sent in a request the provider refused the model has not read yet: it reads it now.
    reads = (None if held else first_read_words(rounds_, view.round.index, tuple(e.index for e in resent))) \
        or f"{them} again."
    st.markdown(f"{sentence[0].upper()}{sentence[1:]}, grayed: the model reads {reads}")
    first = [f"system (top-level field) · {summarize_message(system)}"] if standing == "resent" else []
    lines = [_stack_line(entry) for entry in sorted((*held, *resent), key=lambda e: e.index)]
    room = STACK_ROWS - len(first)
    with st.container(key="resent-stack"):
        for line in first:
            plain.text(shorten(line, LINE_LENGTH))
        if len(lines) > room:
            st.markdown(f"… and {plural(len(lines) - room, 'earlier message')}, resent the same way")
        for line in lines[-room:]:
            plain.text(shorten(line, LINE_LENGTH))
    _system_apart(view)


def _system_apart(view: RoundView) -> None:
    """A top-level system field the request before did not send as it is, in one line beside the messages (the
    explorer's card shows it whole): new in the first request, or changed."""
    if view.system not in ("new", "changed"):
        return
    standing = system_words(view.system, view.placed.new_words)
    st.markdown(f"**system** (a top-level field, outside the messages array) · "
                f":{'green' if view.system == 'new' else 'orange'}-badge[{standing}]")
    plain.text(shorten(summarize_message(view.round.request.system), LINE_LENGTH))


def _stack_line(entry: MessageEntry) -> str:
    return f"messages[{entry.index}] · {entry.message.role} · {summarize_message(entry.message)}"


def response_slide(loaded: LoadedTrace, view: RoundView, shown: Reveal) -> None:
    """Steps 2 and 5: what the model asked for, the response with notes beside its calls, the loop's switch."""
    round_ = view.round
    following = round_.index + 1 if round_.index < len(loaded.trace.rounds) else None
    # A command no request carries the result of is written in the text all the same: the switch does not see it.
    written = bool(text_commands(loaded.trace, round_.index)) or command_unproven(loaded.trace, round_.index) is not None
    lead(step_lead(round_, shown.position.step, following, written,
                   cut_off=cut_off_short(round_, loaded.trace.dialect)))
    cards.tries(round_)  # a request sent more than once: its tries, as the explorer shows them with the response
    # On a slide, the short form: the Checks page and the explorer keep the whole message.
    notes = [replace(f, message=f.brief or f.message) for f in view.findings if f.code in CALL_NOTES]
    cards.response_cards(round_, [*shown.labels, *notes], stop_said=round_.response is not None)
    if round_.response is not None:
        stop_callout(loaded, view, ended=shown.position.step == 5, written=written)


def stop_callout(loaded: LoadedTrace, view: RoundView, ended: bool = False, written: bool = False) -> None:
    """The stop signal as the loop's switch, in the trace's own dialect, and what the calling turn's text is. Where the
    turn `ended` with no call (step 5), the slide's lead says what came of it (the loop ended, or the program went
    on): the switch's other value is not said again here. `written`: the text holds a command the program ran
    (lib.steps.text_commands), which the switch does not see."""
    switch, response, round_ = stop_switch(loaded.trace), view.round.response, view.round
    said = plain.ours(response.finish_reason, (switch.calls, switch.ends))
    words = [f"**`{switch.field}` is the loop's switch.** `{switch.calls}`: the program runs the tools and calls "
             "the model again." + ("" if ended else f" `{switch.ends}`: the model is done, and a plain loop stops "
                                                     "there and gives the text to the person.")]
    words.append(f"This response says `{said}`." if said else f"This response's `{switch.field}` is shown below.")
    if written:
        words.append("This agent does not go by the switch: it reads a command out of the text and runs it, and the "
                     "API never sees a call.")
    if round_.tool_calls and content_is_null(round_):
        words.append("`content: null`: no text while it calls; text and calls may also share one turn.")
    elif round_.tool_calls and response.message.text.strip():
        words.append("Text and calls together: this turn carries both. Legal; the program keeps the text and sends "
                     "the whole turn back.")
    st.info("\n\n".join(words), icon=":material/swap_horiz:")
    if said is None and response.finish_reason is not None:
        plain.text(response.finish_reason)
