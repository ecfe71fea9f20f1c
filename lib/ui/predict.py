"""Predict mode's parts: the prediction form, the scored result, and the score for the whole trace.

lib/predict.py scores; this asks and shows. Scores live in the session, per trace digest, so a
learner's score follows them from round to round and survives a page switch, but not a new tab.
"""

from __future__ import annotations

import streamlit as st

from lib.catalog import LoadedTrace, neutral_title
from lib.growth import SUMMARY_CALL_NAME
from lib.predict import (ACTIONS, Prediction, Score, echo, expected, has_next_request, placeholder, score,
                          total)
from lib.presenter import open_rounds
from lib.slide_words import predicted_only_words
from lib.text import plural, show_controls
from lib.ui import plain, rounds, state

REVEAL = "predict.reveal"
"""Key of the form's submit button (the round is in the form's own key)."""
NO_TOOLS = "No tools in this request: there is no tool to choose, and none is scored."
"""Under the disabled tool choice of a request that carried an empty tool list."""
NO_TOOL_LIST = "The log kept no tool list for this request: there is no tool to choose, and none is scored."
"""Under the disabled tool choice of a request whose tool list the log did not keep (lib.predict.Outcome)."""


TOOLS_HELP = ("Only when you expect a tool call; choose several for calls in parallel. A point for each tool it "
              "calls that you name, one off for each you name that it does not call.")
"""The tooltip of the tool choice: how it is scored (lib.predict)."""
ARGUMENTS_HELP = ("Compared as JSON: names and values. Free text (a sentence, such as a reason) is not scored: "
                  "nobody can predict it word for word.")
"""The tooltip of an arguments box: how they are scored (lib.predict.is_prose)."""


LAST_ROUND = "The trace ends with this round: no request follows it, so the messages asked for are not scored."
"""Under the scored prediction of a trace's last round, once revealed: the form asked for the next request's messages
there too, not to tell which round is the last."""


def _scores(loaded: LoadedTrace) -> dict[int, Score]:
    return st.session_state.setdefault(state.SCORES, {}).setdefault(loaded.digest, {})


def _key(index: int, field: str) -> str:
    return f"predict.{index}.{field}"


def revealed(loaded: LoadedTrace, index: int) -> bool:
    """True when round `index`'s response may be shown: predicted already, or nothing to predict."""
    return index in _scores(loaded) or rounds.view(loaded, index).outcome is None


def last_scored(loaded: LoadedTrace, upto: int) -> int | None:
    """The latest round up to `upto` the learner predicted, for a slide that moves on to the next question and would
    otherwise never show the score; None before the first."""
    return max((k for k in _scores(loaded) if k <= upto), default=None)


def hidden_rounds(loaded: LoadedTrace, predicting: bool):
    """Which rounds' responses are still hidden: in predict mode, those not yet predicted."""
    return lambda k: predicting and not revealed(loaded, k)


def predicting() -> bool:
    """Whether predict mode is on: the explorer's switch, or `?mode=predict` on the first page a session opens (the
    switch then starts on, as presenter.modes starts it)."""
    if state.PREDICT not in st.session_state:
        st.session_state[state.PREDICT] = "predict" in st.query_params.get("mode", "").split(",")
    return st.session_state[state.PREDICT]


def shown_rounds(loaded: LoadedTrace, predicting_: bool) -> int:
    """How many rounds, from the first, a view of more than one round may show (lib.presenter.open_rounds): every
    round, or in predict mode those before the first round still to predict."""
    return open_rounds(len(loaded.trace.rounds), hidden_rounds(loaded, predicting_))


def page_rounds(loaded: LoadedTrace) -> int:
    """How many rounds, from the first, a page of every round (Tokens, Checks) shows (shown_rounds): when fewer than
    all, it says so under the title, and stops the page when none is predicted yet."""
    shown = shown_rounds(loaded, predicting())
    if shown < len(loaded.trace.rounds):
        st.caption(predicted_only_words(shown, "this page"))
        if not shown:
            st.stop()
    return shown


def still_to_predict(loaded: LoadedTrace) -> int | None:
    """In predict mode, the first round of this trace still to predict (shown_rounds); None when the mode is off or
    every round is predicted. What a page that can show every round at once (Compare, a fork) waits for."""
    shown = shown_rounds(loaded, predicting())
    return shown + 1 if shown < len(loaded.trace.rounds) else None


def known_rounds(loaded: LoadedTrace, predicting_: bool) -> int | None:
    """How many rounds a page may say the trace has: all of them, or None in predict mode while a round is still to
    predict (shown_rounds), since a trace of 4 rounds is one whose model answers in round 4."""
    count = len(loaded.trace.rounds)
    return None if predicting_ and shown_rounds(loaded, True) < count else count


def reachable(loaded: LoadedTrace, predicting_: bool) -> int:
    """The last round a learner can go to: the last, or in predict mode the first round still to predict."""
    return min(shown_rounds(loaded, predicting_) + 1, len(loaded.trace.rounds))


def round_words(loaded: LoadedTrace, index: int, predicting_: bool) -> str:
    """Where a presenter screen stands: 'round 2 of 4', or in predict mode, with a round still to predict, 'round 2'
    (known_rounds); a summary call named as the explorer heads it (lib.growth.SUMMARY_CALL_NAME): its request says
    what it is, so naming it gives no answer away."""
    count = known_rounds(loaded, predicting_)
    where = f"round {index}" if count is None else f"round {index} of {count}"
    return f"{where}, {SUMMARY_CALL_NAME}" if loaded.trace.rounds[index - 1].summary_call else where


def title(loaded: LoadedTrace, predicting_: bool) -> str:
    """The trace's title as pages and slides head it: in predict mode, until every round is predicted, its neutral
    name where its title would tell what the model does (lib.catalog.neutral_title)."""
    bundled = next((t for t in state.bundled() if t.name == loaded.name), None)
    neutral = bundled.neutral if bundled else neutral_title(loaded.trace.header)
    if neutral and predicting_ and shown_rounds(loaded, True) < len(loaded.trace.rounds):
        return neutral
    return loaded.trace.title


def link_name(name: str, predicting_: bool) -> str:
    """What `?trace=` names a bundled trace by: its alias while its neutral name heads it (title), else its name."""
    bundled = next((t for t in state.bundled() if t.name == name), None)
    if bundled is None or bundled.alias is None or not predicting_:
        return name
    return bundled.alias if title(state.load_bundled(name), True) == bundled.neutral else name


def titles(predicting_: bool) -> dict[str, str]:
    """Every bundled trace's name and its title as a list of traces shows it (title): a trace whose title would tell
    what happens is read only in predict mode, to know whether each of its rounds is predicted."""
    return {t.name: title(state.load_bundled(t.name), predicting_) if t.neutral and predicting_ else t.title
            for t in state.bundled()}


def form(loaded: LoadedTrace, index: int) -> None:
    """Ask what the model will do; the response stays hidden until the learner presses Reveal. No st.form: the
    arguments asked follow the tools chosen, one box per tool, each hinted by that tool's own parameters."""
    view = rounds.view(loaded, index)
    definitions = view.round.request.tools
    tools = [tool.name for tool in definitions]
    with st.container(border=True, key=f"predict-form-{index}"):
        st.markdown(f"**What will the model do with request {index}?**")
        st.caption("The response stays hidden until you say. Each right answer is a point.")
        # Nothing chosen at first: a learner who presses Reveal without a word has predicted nothing.
        st.radio("The model will", list(ACTIONS), format_func=ACTIONS.get, key=_key(index, "action"), horizontal=True,
                 index=None)
        # By place in the tool list, not by name: a name is the trace's text, and two tools may share one.
        chosen = st.multiselect("Which tools", range(len(tools)), format_func=plain.options(tools.__getitem__),
                                key=_key(index, "tools"), disabled=not tools, help=TOOLS_HELP,
                                placeholder="Choose the tools it will call")
        if not tools:
            st.caption(NO_TOOLS if view.round.request_recorded and view.tool_list_recorded else NO_TOOL_LIST)
            st.text_area("With which arguments (JSON)", key=_key(index, "arguments"), placeholder=placeholder(None),
                         help=ARGUMENTS_HELP)
        for place in chosen:
            plain.text(tools[place])
            st.text_area("With which arguments (JSON)", key=_key(index, f"arguments.{place}"),
                         placeholder=placeholder(definitions[place]), help=ARGUMENTS_HELP)
        # Asked on the last round too, and scored there on nothing (result says so once revealed): a form without it
        # would tell the learner that this round is the last, the one whose model answers.
        st.number_input("How many messages will the next request carry?", min_value=0, step=1, value=None,
                        key=_key(index, "messages"), help="Not scored where no request follows this round.")
        st.button("Reveal the response", key=REVEAL, type="primary", on_click=_score, args=(loaded, index))


def _score(loaded: LoadedTrace, index: int) -> None:
    get = st.session_state.get
    tools = [tool.name for tool in rounds.view(loaded, index).round.request.tools]
    if tools:
        chosen = get(_key(index, "tools")) or ()
        calls = tuple(expected(tools[k], get(_key(index, f"arguments.{k}")) or "") for k in chosen)
    else:
        calls = (expected(None, get(_key(index, "arguments")) or ""),)
    # Kept on the last round too, echoed there as not scored (score scores it only where a request follows).
    counted = get(_key(index, "messages"))
    prediction = Prediction(action=get(_key(index, "action")), calls=calls,
                            next_messages=int(counted) if counted is not None else None)
    found = rounds.view(loaded, index).outcome
    if found is not None:
        _scores(loaded)[index] = score(prediction, found)


def result(loaded: LoadedTrace, index: int, folded: bool = False) -> None:
    """This round's prediction, echoed and scored point by point, the learner's arguments beside the model's, when
    there is one. `folded` (a slide): the score alone in view, the rest in an expander, so the response it was scored
    against stays on the screen; a slide that showed it all pushed the model's calls a screen's height down."""
    found = _scores(loaded).get(index)
    if found is None:
        return
    with st.container(border=True):
        st.markdown(f"**Your prediction: {found.earned} of {plural(found.possible, 'point')}**")
        with st.expander("What you said, point by point") if folded else st.container():
            _points(loaded, index, found)


def _points(loaded: LoadedTrace, index: int, found: Score) -> None:
    """The prediction echoed, each point with its verdict, and the arguments side by side."""
    if found.prediction is not None:
        st.caption("You said")
        plain.text(echo(found.prediction, counted=has_next_request(loaded.trace, index)))
    for point in found.points:
        verdict = ":green-badge[right]" if point.earned == point.possible else ":red-badge[wrong]"
        if 0 < point.earned < point.possible:
            verdict = ":orange-badge[partly]"
        st.markdown(f"{verdict} {point.what} ({point.earned}/{point.possible})")
        plain.text(point.says)
    for side in found.sides:
        if side.tool is not None:
            plain.text(side.tool)
        yours, model = st.columns(2)
        yours.caption("Your arguments")
        if side.yours is None:
            yours.caption("none given")
        else:
            yours.code(show_controls(side.yours), language=None, wrap_lines=True)
        model.caption("The model's arguments" if side.model is not None else "The model did not call this tool")
        if side.model is not None:  # a command written in the text keeps its characters as written: controls too
            model.code(show_controls(side.model), language=None, wrap_lines=True)
    if not has_next_request(loaded.trace, index):
        st.caption(LAST_ROUND)


def earned(loaded: LoadedTrace) -> tuple[int, int]:
    """Points earned and possible over every round of this trace predicted so far."""
    return total(_scores(loaded).values())


def score_words(loaded: LoadedTrace) -> str:
    """The trace's score as the explorer and the closing slide write it; before any prediction, that there is none."""
    earned_, possible = earned(loaded)
    return f"{earned_} / {possible}" if _scores(loaded) else "no round predicted yet"


def trace_score(loaded: LoadedTrace) -> None:
    """The score over every round predicted so far, and a way to start again."""
    found = _scores(loaded)
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    count = known_rounds(loaded, True)
    left.metric("Your score on this trace", score_words(loaded),
                help=f"{plural(len(found), 'round')} predicted {'so far' if count is None else f'of {count}'}.")
    right.button("Start over", key="predict.start_over", on_click=_start_over, args=(loaded,), disabled=not found)


def _start_over(loaded: LoadedTrace) -> None:
    _scores(loaded).clear()
    # Back to round 1 as asked, not held there with a warning that a later round was asked for (explorer.navigation).
    st.session_state[state.ROUND] = 1
