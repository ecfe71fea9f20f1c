"""Presenter mode: big type, no sidebar, one step of one round at a time, for a projector.

lib/presenter.py decides which steps a round has and what each reveals; this lays them out with
the explorer's own cards. The position lives in the session (`explorer.round`, `presenter.step`)
and in the address (`?trace=&round=&step=&mode=present`), so a teacher can hand out a link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import streamlit as st

from lib.catalog import LoadedTrace
from lib.growth import kept_after
from lib.presenter import (Position, Reveal, appended_words, carried, following, kept_later_words, no_result_words,
                           none_kept_words, preceding, reveal, settle, steps_in, waits_words)
from lib.provenance import origin_line
from lib.slide_words import step_lead
from lib.steps import STEP_COLORS, STEP_MARKS, command_unproven, text_commands
from lib.summary import log_ends_words
from lib.ui import address, cards, explorer, lesson, plain, predict, rounds, state

PRESENTER_CSS = """<style>
/* Presenter mode: a projector needs big type and the whole width. Fixed rules of our own: no trace text. */
section[data-testid="stSidebar"], [data-testid="stExpandSidebarButton"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 0.25rem 3rem 0.25rem 3rem; }
/* One screen at 1600x1000: Streamlit's loose gaps between elements and paragraphs add up to a second screen. */
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.2rem; }
[data-testid="stMain"] [data-testid="stHorizontalBlock"] { gap: 1rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p { margin-bottom: 0.15rem; }
/* Streamlit pulls each markdown block up by 1rem to offset a paragraph margin that is 0.15rem here:
   without this, a lead that wraps runs under the next element. */
[data-testid="stMain"] [data-testid="stMarkdownContainer"] { margin-bottom: -0.15rem !important; }
[data-testid="stMain"] [data-testid="stCode"] pre { padding: 0.25rem 0.7rem !important; }
[data-testid="stMain"] [data-testid="stVerticalBlockBorderWrapper"] > div,
[data-testid="stMain"] [data-testid="stAlertContainer"] { padding: 0.5rem 0.8rem; }
/* A projector has no room to lose: the empty band of Streamlit's header goes. */
header[data-testid="stHeader"] { display: none; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li,
[data-testid="stMain"] [data-testid="stText"],
[data-testid="stMain"] [data-testid="stCaptionContainer"] { font-size: 1.5rem !important; line-height: 1.22; }
[data-testid="stMain"] [data-testid="stCode"] code { font-size: 1.3rem !important; line-height: 1.35 !important; }
[data-testid="stMain"] h1 { font-size: 2.4rem !important; }
[data-testid="stMain"] h2 { font-size: 2.5rem !important; padding: 0 !important; }
[data-testid="stMain"] h3 { padding: 0 !important; }
[data-testid="stMain"] .stButton button { min-height: 3.2rem; }
[data-testid="stMain"] .stButton button p { font-size: 1.7rem !important; }
/* Labels and badges: at least 18 px at 1600x1000; body text above stays at 24 px. */
[data-testid="stMain"] [data-testid="stWidgetLabel"] p,
[data-testid="stMain"] [data-testid="stMetricLabel"] p,
[data-testid="stMain"] [data-testid="stMetricDelta"],
[data-testid="stMain"] input, [data-testid="stMain"] textarea,
[data-testid="stMain"] [data-baseweb="select"] div,
[data-testid="stMain"] .stMarkdownBadge { font-size: 1.15rem !important; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 1.9rem !important; }
/* A metric's value is a markdown paragraph, which the body rule above sets to 24 px, as large as the note under it:
   the figure is sized here, more precisely than that rule. */
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {
  font-size: 1.9rem !important; }
/* The one sentence that matters on a slide: the largest text after the heading. */
[data-testid="stMain"] [class*="st-key-slide-lead"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [class*="st-key-slide-lead"] [data-testid="stText"] { font-size: 2.1rem !important;
  font-weight: 600; line-height: 1.35; }
</style>"""
"""The one place presenter mode's look is defined."""

MODES = {state.PRESENTER: "present", state.PREDICT: "predict"}
"""Each mode's session key and its word in `?mode=`."""


@dataclass(frozen=True, slots=True)
class Modes:
    """Which workshop modes are on."""

    presenter: bool
    """Big type, one step at a time."""
    predict: bool
    """Responses stay hidden until the learner predicts them."""
    corner: object = None
    """The room the switches' row leaves (a Streamlit column): presenter mode writes where we are there."""


def modes(on_present: Callable[[], None] | None = None) -> Modes:
    """The two mode switches; `?mode=present`, `?mode=predict` or both (comma-separated) turn them on at first.
    `on_present` runs when Present is switched, before the page is drawn again."""
    asked = set(st.query_params.get("mode", "").split(","))
    brought = address.browsed_change("mode")  # the browser's Back or Forward across a switch: the modes it brought
    for key, word in MODES.items():
        if key not in st.session_state or brought is not None:
            st.session_state[key] = word in asked
    left, right, corner = st.columns([1, 1, 3], vertical_alignment="center")
    # One word each: "Presenter mode" was cut short beside the sidebar at 1280 px, and wider columns squeeze the
    # slide's title in the corner onto more lines. The help says the whole name.
    left.toggle("Present", key=state.PRESENTER, persist_state="session", on_change=on_present,
                help="Presenter mode: big type, no sidebar and no raw JSON; the round unfolds one step at a time. "
                     "A plan's slides move with Previous and Next, and with the browser's Back and Forward.")
    right.toggle("Predict", key=state.PREDICT, persist_state="session",
                 help="Predict mode: each response stays hidden until you say what the model will do; your score is "
                      "kept.")
    on = [word for key, word in MODES.items() if st.session_state[key]]
    if not st.session_state[state.PRESENTER]:
        opening = {"step": None}
    elif MODES[state.PRESENTER] not in asked and st.query_params.get("plan") is None:
        # Present switched on: the step it opens on goes with the mode, one address. Not in a plan, whose slide is
        # the position (lib.ui.slides takes the step away on every run).
        opening = {"step": str(st.session_state.get(state.STEP) or _query_step())}
    else:
        opening = {}
    address.write(mode=",".join(on) or None, **opening)
    return Modes(st.session_state[state.PRESENTER], st.session_state[state.PREDICT], corner)


def _query_step(asked: str | None = None) -> int:
    try:
        return int(asked or st.query_params.get("step", 1))
    except ValueError:
        return 1


def hidden_rounds(loaded: LoadedTrace, predicting: bool):
    """Which rounds' responses are still hidden: in predict mode, those not yet predicted (lib.ui.predict)."""
    return predict.hidden_rounds(loaded, predicting)


def position(loaded: LoadedTrace, predicting: bool = False) -> tuple[Position, bool]:
    """The position on screen: from the deep link at first, then from the buttons; and whether a later round was
    asked for and held back in predict mode (explorer.opened has said why)."""
    fresh = st.session_state.get(state.SHOWN_DIGEST) != loaded.digest
    first_view = state.STEP not in st.session_state
    index, held = explorer.opened(loaded, predicting)
    browsed = address.browsed("step")
    if first_view:
        st.session_state[state.STEP] = _query_step()
    elif browsed is not None:  # the browser's Back or Forward: the step of the address it brought
        st.session_state[state.STEP] = _query_step(browsed)
    elif fresh:
        st.session_state[state.STEP] = 1
    here = settle(loaded.trace, index, st.session_state[state.STEP], hidden_rounds(loaded, predicting))
    st.session_state[state.ROUND], st.session_state[state.STEP] = here.round, here.step
    return here, held


def _move(loaded: LoadedTrace, forward: bool, predicting: bool) -> None:
    here = Position(st.session_state[state.ROUND], st.session_state[state.STEP])
    hidden = hidden_rounds(loaded, predicting)
    there = following(loaded.trace, here, hidden) if forward else preceding(loaded.trace, here, hidden)
    if there is not None:
        st.session_state[state.ROUND], st.session_state[state.STEP] = there.round, there.step


def _steps_of(loaded: LoadedTrace):
    """Round k's step labels, from its cached round view."""
    return lambda k: rounds.view(loaded, k).steps


def frame(title: str, where: str, corner=None) -> None:
    """The top of every presenter screen: our stylesheet, the trace's title (as text) and where we are, in the
    `corner` the mode switches leave when given (a line of the screen kept), else in a row of their own."""
    st.html(PRESENTER_CSS)
    left, right = (corner or st).columns([3, 2], vertical_alignment="center")
    plain.text(title, left)
    right.markdown(f"**{where}**", text_alignment="right")


def buttons(back: tuple | None, forward: tuple | None, between: Callable[[], None] | None = None) -> None:
    """Large Previous and Next buttons; each is (callback, args), or None when there is nowhere to go. `between`
    draws in the same row, between them (a step slide's progress), so the slide keeps a line of the screen."""
    if between:
        left, middle, right = st.columns([1, 3, 1], vertical_alignment="center")
        with middle:
            between()
    else:
        left, right = st.columns(2)
    left.button("◀ Previous", key="presenter.previous", on_click=back[0] if back else None,
                args=back[1] if back else None, disabled=back is None, width="stretch")
    right.button("Next ▶", key="presenter.next", on_click=forward[0] if forward else None,
                 args=forward[1] if forward else None, type="primary", disabled=forward is None, width="stretch")


def show(loaded: LoadedTrace, predicting: bool, corner=None) -> None:
    """One step of one round, with large Previous and Next buttons (where we are in `corner`, see frame)."""
    trace, hidden = loaded.trace, hidden_rounds(loaded, predicting)
    here, held = position(loaded, predicting)
    frame(predict.title(loaded, predicting), predict.round_words(loaded, here.round, predicting), corner)
    buttons((_move, (loaded, False, predicting)) if preceding(trace, here, hidden) else None,
            (_move, (loaded, True, predicting)) if following(trace, here, hidden) else None,
            lambda: progress(loaded, here, hidden(here.round)))
    if waits_words(trace, here, hidden) and not held:  # the warning above says it already, as the explorer's does
        st.caption(waits_words(trace, here, hidden))
    step_slide(loaded, here, predicting)
    address.write(round=str(here.round), step=str(here.step))


def step_slide(loaded: LoadedTrace, here: Position, predicting: bool, fold_seen: bool = True) -> None:
    """The snowball counter, the heading and the body of one step with its lessons beside it; in predict mode,
    the form in place of a hidden response. `fold_seen`: see lesson.request_slide."""
    secret = hidden_rounds(loaded, predicting)(here.round)
    st.html(lesson.LESSON_CSS)
    lesson.snowball_counter(loaded, here.round, upto_current=secret, predicting=predicting)
    if secret and here.step != 1:
        st.header(":material/help: What will the model do?")
        predict.form(loaded, here.round)
        return
    round_ = loaded.trace.rounds[here.round - 1]
    if round_.extra.get("converted_from"):
        # The steps name paths (choices[0].finish_reason) of the body Roundtrip wrote, not of the recording (an
        # Interactions API `status`, a Responses API `output`): the explorer says so above the payload, and a slide
        # that shows those paths to a room says so too.
        st.caption(origin_line(loaded.trace, round_))
    shown = reveal(loaded.trace, here, _steps_of(loaded))
    lesson.beside(loaded, here.round, here.step, f"{STEP_MARKS[here.step]} {shown.title}",
                  lambda: _body(loaded, shown, secret, fold_seen))


def progress(loaded: LoadedTrace, here: Position, secret: bool) -> None:
    """The round's steps as chips, the one on screen highlighted; only where we are while the response is secret."""
    # Before a prediction, the steps a round has would give its answer away: show only where we are.
    steps = (1,) if secret else steps_in(loaded.trace.rounds[here.round - 1], loaded.trace)
    chips = []
    for step in steps:
        # Named as the step's reveal names it: a narration is no "Model answers".
        words = f"{STEP_MARKS[step]} {reveal(loaded.trace, Position(here.round, step), _steps_of(loaded)).title}"
        chips.append(f":{STEP_COLORS[step].name}-background[**{words}**]" if step == here.step else f":gray[{words}]")
    st.markdown("  →  ".join(chips) + ("  →  ?" if secret else ""))


def _body(loaded: LoadedTrace, shown: Reveal, secret: bool = False, fold_seen: bool = True) -> None:
    index, step = shown.position.round, shown.position.step
    view = rounds.view(loaded, index)
    round_, marks = view.round, list(shown.labels)
    if step == 1:
        lesson.request_slide(loaded, view, marks, secret, fold_seen)
    elif step in (2, 5):
        predict.result(loaded, index, folded=True)  # the response it was scored against stays in view
        lesson.response_slide(loaded, view, shown)
    elif step == 3:
        lesson.lead(step_lead(round_, step, written=bool(text_commands(loaded.trace, index)),
                              unseen=command_unproven(loaded.trace, index)))
        cards.execution_lane(round_, view.following, marks, across=2, explain=False,
                             carrier=kept_after(loaded.trace.rounds, index))
    else:
        _appended(loaded, shown)
    steps = steps_in(round_, loaded.trace)
    if 3 not in steps and step == steps[-1]:
        # Step 3's lane shows what the program said after the round; a round without that step ends here.
        cards.notices(round_, after=True)


def _appended(loaded: LoadedTrace, shown: Reveal) -> None:
    trace, index = loaded.trace, shown.position.round
    if index == len(trace.rounds):
        st.info(log_ends_words(trace.rounds[index - 1]))
        return
    carrier = trace.rounds[shown.labels_round - 1]
    if not carrier.request_recorded:  # no later request kept either: nothing to count, nothing said of it
        st.info(none_kept_words(index, len(trace.rounds)))
        return
    placed = rounds.view(loaded, carrier.index).placed
    lesson.lead(carried(carrier, placed))
    later = carrier.index > index + 1
    if later:
        # The log lost the next request: the first later one it kept carries the results, as the explorer's step 4
        # there says. The teacher can open that round.
        (st.caption if shown.labels else st.warning)(kept_later_words(index, carrier.index, bool(shown.labels)))
        st.button(f"Open round {carrier.index}", key="presenter.result_round", on_click=_open_round,
                  args=(carrier.index,), help="Show the request that carries these results, from its first step")
    elif not shown.labels:
        st.warning(no_result_words(trace, index))
    paths = [label.path for label in shown.labels]
    for entry in placed.new:
        # A command's result (AutoGPT's, in the system role) is the result of a command round k wrote in its text.
        # A later request also carries the results of the rounds between: only round k's belong on its slide.
        mine = not later or any(path.startswith(f"messages[{entry.index}]") for path in paths)
        if mine and (entry.message.tool_results or entry.origin == "command-result"):
            cards.message_card(entry, list(shown.labels), new_words=appended_words(placed))


def _open_round(index: int) -> None:
    st.session_state[state.ROUND], st.session_state[state.STEP] = index, 1
