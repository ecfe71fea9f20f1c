"""The round explorer: navigation between rounds and the layout of one round."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

import pandas as pd
import streamlit as st

from lib.catalog import LoadedTrace
from lib.deeplink import linked_round
from lib.growth import SUMMARY_CALL_WORDS, kept_after, round_heading
from lib.sequence import SEQUENCE_ROUNDS, sequence, window_start
from lib.slide_words import held_chain_words, kept_by_provider
from lib.model import Round
from lib.presenter import PREDICT_STEP, Position, first_open, held_back_words, waits_words
from lib.steps import STEP_COLORS, STEP_TITLES, StepLabel
from lib.ui import accounting, address, annotate, cards, charts, lesson, plain, predict, rounds, side_by_side, state
from lib.ui.round_navigator import round_navigator
from lib.ui.navigation import fork_from
from lib.ui.cache import per_trace
from lib.text import plural
from lib.ui.provenance import provenance_line
from lib.usage_gap import figure_note

SEQUENCE_FROM = "explorer.sequence_from"
"""Session key: the first round the sequence diagram draws."""
SEQUENCE_ROUND = "explorer.sequence_round"
"""Session key: the round on screen when the diagram's window last followed it; a window chosen by hand stays
until the round moves."""
OVERVIEW_OPEN = "explorer.overview_open"
"""Session key: a long trace's table of every round is open."""
TOKENS_CHART_OPEN = "explorer.tokens_chart_open"
"""Session key: a long trace's tokens chart is open."""
SEQUENCE_OPEN = "explorer.sequence_open"
"""Session key: a long trace's sequence diagram is open."""
DRAWN_UP_TO = charts.BARS_UP_TO
"""Rounds up to which the table and charts below the round are drawn with the page. A longer trace draws each only
once its section is opened: a chart below the fold cost its browser seconds of blocked main thread on every load
(the table: 200 KB and the data grid's code to evaluate), and kept every jump between rounds waiting on the
diagram's window."""
CARDS, RAW, DIALECTS = "Cards", "Raw JSON", "Both dialects"
VIEWS = (CARDS, RAW, DIALECTS)
"""How the payload can be shown: our cards, the raw bodies, or the round in both dialects side by side."""


def _query_round(count: int | None) -> int:
    linked = linked_round(st.query_params.get("round"), count)
    if linked.problem:
        st.warning(linked.problem)
    return linked.round


def opened(loaded: LoadedTrace, predicting: bool = False) -> tuple[int, bool]:
    """current_round, and whether a later round was asked for and held back (said so already, in a warning)."""
    return _opened(loaded, predicting)


def current_round(loaded: LoadedTrace, predicting: bool = False) -> int:
    """The round on screen: from the deep link at first, then from the controls; in predict mode, never past the
    first round still to predict, said so (lib.presenter.first_open)."""
    return _opened(loaded, predicting)[0]


def _opened(loaded: LoadedTrace, predicting: bool) -> tuple[int, bool]:
    """The round on screen (current_round), and whether a later round was asked for and held back, said so."""
    count = len(loaded.trace.rounds)
    seen = st.session_state.get(state.SHOWN_DIGEST) == loaded.digest
    if not seen or state.ROUND not in st.session_state:
        # A deep link's ?round= counts for the first trace a session opens; a trace picked later starts at 1.
        first_view = state.SHOWN_DIGEST not in st.session_state
        st.session_state[state.SHOWN_DIGEST] = loaded.digest
        if first_view:
            st.session_state[state.ROUND] = _query_round(predict.known_rounds(loaded, predicting))
        elif seen:  # a page switch that interrupts a run can drop the widget's value: the trace keeps its round
            st.session_state[state.ROUND] = st.session_state.get(state.ROUND_SHOWN, 1)
        else:
            st.session_state[state.ROUND] = 1
    if (browsed := address.browsed_round(predict.known_rounds(loaded, predicting))) is not None:
        st.session_state[state.ROUND] = browsed
    wanted = max(st.session_state[state.ROUND], 1)
    _return_to_held(loaded, wanted, predicting)
    wanted = max(st.session_state[state.ROUND], 1)
    st.session_state[state.ROUND] = first_open(min(wanted, count), predict.hidden_rounds(loaded, predicting))
    held = wanted > st.session_state[state.ROUND]  # only in predict mode: the box and a link reach no further otherwise
    if held:
        st.warning(held_back_words(st.session_state[state.ROUND]))
        st.session_state[state.HELD_FROM] = (loaded.digest, min(wanted, count), st.session_state[state.ROUND])
    st.session_state[state.ROUND_SHOWN] = st.session_state[state.ROUND]
    return st.session_state[state.ROUND], held


def _return_to_held(loaded: LoadedTrace, on: int, predicting: bool) -> None:
    """Where predict mode held the learner back from a round (state.HELD_FROM) and they are still on the round it showed
    instead: with the mode off, back to the round they were on; once they move, or pick another trace, that is
    forgotten, for the round they are on is then their own choice."""
    held = st.session_state.get(state.HELD_FROM)
    if held is None:
        return
    digest, asked, shown = held
    if digest != loaded.digest or on != shown:
        del st.session_state[state.HELD_FROM]
    elif not predicting:
        del st.session_state[state.HELD_FROM]
        st.session_state[state.ROUND] = asked


def _step(delta: int, count: int) -> None:
    st.session_state[state.ROUND] = min(max(st.session_state[state.ROUND] + delta, 1), count)


def navigation(loaded: LoadedTrace, predicting: bool = False) -> int:
    """Previous / next buttons and a round selector; keeps `?round=` in step. In predict mode Next waits on a round
    still to predict, as the presenter's does (lib.presenter.waits_words)."""
    count = len(loaded.trace.rounds)
    index, held = _opened(loaded, predicting)
    waits = waits_words(loaded.trace, Position(index, PREDICT_STEP), predict.hidden_rounds(loaded, predicting))
    back, pick, forward = st.columns([1, 3, 1], vertical_alignment="bottom")
    back.button("◀ Previous round", on_click=_step, args=(-1, count), disabled=index <= 1,
                key="explorer.previous", width="stretch")
    # In predict mode the box goes no further than the first round still to predict, and says no total: its last
    # round would be the one whose model answers (predict.known_rounds).
    reach = predict.reachable(loaded, predicting)
    words = f"Round (1 to {count})" if predict.known_rounds(loaded, predicting) else f"Round (1 to {reach} so far)"
    # A number field costs the same for 4 rounds or 1,000; a selectbox would ship every option each rerun.
    pick.number_input(words, min_value=1, max_value=reach, step=1, key=state.ROUND, persist_state="session")
    forward.button("Next round ▶", on_click=_step, args=(1, count), disabled=index >= count or waits is not None,
                   key="explorer.next", width="stretch")
    if waits and not held:  # the warning above says it already: every later request carries this round's answer
        st.caption(waits)
    address.write(round=str(st.session_state[state.ROUND]))
    _follow(st.session_state[state.ROUND], count)
    return st.session_state[state.ROUND]


def round_list(loaded: LoadedTrace, index: int) -> None:
    """On a long trace, the round navigator: every round readable in the page, round `index` chosen."""
    if len(loaded.trace.rounds) > DRAWN_UP_TO:
        round_navigator(loaded, index)


def _follow(index: int, count: int) -> None:
    """Move the diagram's window to the round on screen when the round leaves it. The diagram is outside the
    round's fragment, so that move is a whole rerun, once per window crossed, not per step."""
    first = st.session_state.get(SEQUENCE_FROM, 1)
    moved = st.session_state.get(SEQUENCE_ROUND) != index
    st.session_state[SEQUENCE_ROUND] = index
    if count <= SEQUENCE_ROUNDS or not moved or first <= index < first + SEQUENCE_ROUNDS:
        return
    st.session_state[SEQUENCE_FROM] = window_start(index, count)
    if count <= DRAWN_UP_TO or st.session_state.get(SEQUENCE_OPEN):
        st.rerun(scope="app")  # the next run finds the round inside the window: no second rerun


def header(loaded: LoadedTrace, predicting: bool = False) -> None:
    """The trace's title, description and the legend of the five steps. In predict mode, no description: a
    trace's description tells what its rounds do; nor a title that would (predict.title)."""
    trace = loaded.trace
    plain.title(predict.title(loaded, predicting))
    if trace.description and not predicting:
        plain.text(trace.description)
    st.caption(
        "A model never runs a tool. Each round the program sends the whole conversation and the tool list; "
        "the model answers with text or with a request to run a tool; the program runs it, appends the "
        "result and calls the model again."
    )
    # In predict mode only the requests already on show (the rounds predicted, and the next one's request) tell.
    seen = min(predict.shown_rounds(loaded, True) + 1, len(trace.rounds)) if predicting else len(trace.rounds)
    kept = kept_by_provider(trace, seen)
    if kept is not None:  # the sentence above is not what this trace's program did: said where it is read
        st.caption(held_chain_words(kept))
    st.markdown(" ".join(f":{STEP_COLORS[n].name}-background[{cards.STEP_MARKS[n]} {t}]" for n, t in STEP_TITLES.items()))


def round_view(loaded: LoadedTrace, index: int, revealed: bool = True, pointer: cards.Pointer | None = None,
               waiting: str | None = None, fork: Callable[[int], None] | None = None) -> None:
    """Everything about one round: request and response side by side, the program's lane, tokens.

    With `revealed` False (predict mode, before the learner has predicted), the response side holds
    the prediction form instead, and nothing that would give the response away is drawn. `pointer`
    puts a "note on this" button on every card (the Annotate page); `waiting` is the id of the call a live run
    holds for the user's approval (the Live page). `fork`, given the round, does what Fork from here does instead of
    opening the Fork page on the sidebar's trace: the Live and Watch pages show another trace."""
    shown = rounds.view(loaded, index, waiting)
    round_, placed, labels, found, marks = shown.round, shown.placed, list(shown.steps), shown.findings, list(shown.marks)

    st.subheader(round_heading(round_, len(placed.new), placed.since))
    if round_.summary_call:
        st.caption(SUMMARY_CALL_WORDS)
    # The Fork page waits, in predict mode, until every round is predicted (it replays the recorded answers).
    forks = revealed and pointer is None and predict.still_to_predict(loaded) is None
    if forks and st.button("Fork from here", key="explorer.fork", icon=":material/fork_right:",
                           help="Edit this round's request and send it again; Compare then shows the fork beside "
                                "this trace."):
        (fork or fork_from)(index)
    accounting.counting_notice(state.counting(loaded))
    accounting.round_figures(shown.row, figure_note(loaded.trace, shown.row) if revealed else None, not revealed)
    annotate.round_notes(loaded, index, revealed, predict.shown_rounds(loaded, predict.predicting()) + 1)
    if found and revealed:
        with st.expander(f"Checks on this round: {plural(len(found), 'finding')}", expanded=True):
            for finding in found:
                cards.finding_badge(finding)
                plain.text(finding.where)
    if revealed:
        lesson.beside_round(loaded, index)

    if state.VIEW_CHOSEN in st.session_state:
        st.session_state[state.VIEW] = st.session_state[state.VIEW_CHOSEN]
    shown_as, look = st.columns([3, 1], vertical_alignment="bottom")
    view = shown_as.radio("Show the payload as", VIEWS, horizontal=True, key=state.VIEW, on_change=_keep_view,
                          persist_state="session")
    if view == CARDS:
        with look:
            cards.payload_look()
    if view != DIALECTS:
        provenance_line(loaded.trace, round_)
    cards.notices(round_, after=False)
    if view == DIALECTS:
        if not revealed:
            predict.form(loaded, index)
        side_by_side.side_by_side(loaded, index, revealed)
    else:
        left, right = st.columns(2, gap="medium")
        with left:
            # A compaction call (Round.compaction) goes to the provider's compaction, not to the model for a turn.
            st.markdown(f"#### :material/arrow_forward: Request {index}: program → "
                        f"{'provider (compaction)' if round_.compaction else 'model'}")
            if view == CARDS:
                cards.request_cards(round_, placed, marks, shown.system, pointer, shown.tool_list_recorded,
                                    secret=not revealed, tool_list_sent=shown.tool_list_sent, previous=shown.previous)
            elif not round_.request_recorded:
                cards.request_not_in_log()
            else:
                _raw(round_.request.raw, [lab for lab in labels if lab.side == "request"])
        with right:
            st.markdown(f"#### :material/arrow_back: Response {index}: "
                        f"{'provider (compaction)' if round_.compaction else 'model'} → program")
            if not revealed:
                predict.form(loaded, index)
            else:
                predict.result(loaded, index)
                cards.tries(round_)
                _response(round_, view, labels, marks, pointer)
    st.markdown(f"#### :material/settings: The program's lane, after response {index}")
    if revealed:
        cards.execution_lane(round_, shown.following, marks, pointer, carrier=kept_after(loaded.trace.rounds, index))
    else:
        st.caption("Hidden until you predict the response: what the program runs depends on it.")


def _keep_view() -> None:
    st.session_state[state.VIEW_CHOSEN] = st.session_state[state.VIEW]


def _response(round_: Round, view: str, labels: list[StepLabel], marks: list, pointer: cards.Pointer | None) -> None:
    if view == CARDS:
        cards.response_cards(round_, marks, pointer)
    elif round_.response is not None:
        _raw(round_.response.raw, [lab for lab in labels if lab.side == "response"])
    else:
        _raw(round_.error.body if round_.error else {}, [])


def _raw(body, labels) -> None:
    if labels:
        st.dataframe(
            plain.cells(pd.DataFrame([{"step": f"{cards.STEP_MARKS[lab.step]} {lab.title}", "JSON path": lab.path,
                                       "what": lab.detail} for lab in labels])),
            hide_index=True, width="stretch",
        )
    plain.payload(body)


def overview(loaded: LoadedTrace) -> None:
    """All rounds at a glance: a table and the tokens chart."""
    table, figure = accounting.overview_parts(loaded)
    st.subheader("All rounds")
    with _drawn_when_open(loaded, f"Every round in a table ({len(table):,} rows)", OVERVIEW_OPEN) as drawn:
        if drawn:
            st.dataframe(plain.cells(table), hide_index=True, width="stretch", key="explorer.overview", placeholder="–",
                         column_config=accounting.rounds_columns(table))
            accounting.overcount_note(state.summaries(loaded))
    with _drawn_when_open(loaded, "Tokens per round, as a chart", TOKENS_CHART_OPEN) as drawn:
        if drawn:
            st.plotly_chart(figure, key="explorer.tokens_chart")
            st.caption("Solid bars were reported by the API; hatched, paler bars are offline estimates.")


@contextmanager
def _drawn_when_open(loaded: LoadedTrace, title: str, key: str) -> Iterator[bool]:
    """Whether to draw a chart below the round, and where: on the page itself on a short trace; on a long one, in a
    section whose body runs only while it is open."""
    if len(loaded.trace.rounds) <= DRAWN_UP_TO:
        yield True
        return
    section = st.expander(title, key=key, on_change="rerun")
    if not section.open:
        yield False
        return
    with section:
        yield True


@per_trace()
def _sequence_figure(loaded: LoadedTrace, first: int):
    return charts.sequence_diagram(sequence(loaded.trace, SEQUENCE_ROUNDS, first), len(loaded.trace.rounds))


def sequence_diagram(loaded: LoadedTrace) -> None:
    """The trace as a sequence diagram, a window of rounds at a time, each window built once and shared."""
    st.subheader("The round trip as a picture")
    with _drawn_when_open(loaded, f"The sequence diagram, {SEQUENCE_ROUNDS} rounds at a time", SEQUENCE_OPEN) as drawn:
        if drawn:
            _sequence_window(loaded)


def _sequence_window(loaded: LoadedTrace) -> None:
    rounds = len(loaded.trace.rounds)
    first = 1
    if rounds > SEQUENCE_ROUNDS:
        last_first = rounds - SEQUENCE_ROUNDS + 1
        if SEQUENCE_FROM not in st.session_state:  # dropped while the diagram was not drawn: the round's window
            st.session_state[SEQUENCE_FROM] = window_start(st.session_state.get(SEQUENCE_ROUND, 1), rounds)
        if st.session_state[SEQUENCE_FROM] > last_first:
            st.session_state[SEQUENCE_FROM] = last_first  # kept from a longer trace
        narrow, _ = st.columns([1, 3])
        first = int(narrow.number_input(
            f"Draw {SEQUENCE_ROUNDS} rounds from round", min_value=1, max_value=last_first,
            step=SEQUENCE_ROUNDS, key=SEQUENCE_FROM, help="Follows the round on screen when it leaves the window."))
    st.plotly_chart(_sequence_figure(loaded, first), key="explorer.sequence",
                    config={"displayModeBar": False})
    st.caption("The model never talks to the tools. " + ", ".join(f"{cards.STEP_MARKS[n]} {title}"
                                                                  for n, title in STEP_TITLES.items()) + ".")
