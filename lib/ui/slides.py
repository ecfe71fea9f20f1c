"""A workshop plan presented: Previous and Next move through its slides, each a view of a bundled trace in a
projector's type.

lib/workshop_plan.py reads and writes plans; this draws them. A step slide is presenter mode's own step
(lib/ui/presenter.py); the other views are the Tokens page's figures, both dialects, the sequence
diagram, a pitfall of the gallery and the trace's closing figures, each drawn with the render helpers
the rest of the app uses, in larger type. The plan lives in the session (`plan.plan`) and in the address
(`?plan=` and `?slide=`, 1-based), so a link hands out the whole workshop at one slide.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from lib import workshop_plan
from lib.catalog import LoadedTrace
from lib.dialects import ANTHROPIC, DIALECT_NAMES, OPENAI
from lib.dialects.convert import convert
from lib.dialects.field_table import NONE_HERE, field_mapping
from lib.presenter import Position, held_words, settle, waits_words
from lib.provenance import origin_line
from lib.sequence import sequence
from lib.slide_words import (every_call_words, gallery_words, kept_by_provider, predict_first_words,
                              predicted_only_words, sent_again_words)
from lib.summary import parts_not_logged, snowball
from lib.text import plural
from lib.ui import accounting, cards, charts, findings, kept, navigation, picker, plain, predict, presenter, state
from lib.ui.lesson import lead, lead_text
from lib.workshop_plan import DIAGRAM_ROUNDS, Plan, ReadPlan, Slide, diagram_first

PLAN = "plan.plan"
"""Session key: the plan being presented (a lib.workshop_plan.Plan)."""
LINK = "plan.link"
"""Session key: the plan as `?plan=` carries it: a bundled plan's name or the packed plan."""
READ_LINK = "plan.read_link"
"""Session key: the last `?plan=` read, so a link is read once, not on every rerun."""
SLIDE = "plan.slide"
"""Session key: the 0-based slide on screen."""
WRITTEN = "plan.written"
"""Session key: the `?slide=` this session last wrote into the address; one that differs came from the browser (Back,
Forward, an address typed), and the plan follows it."""
LEFT = "plan.left"
"""Session key: the id of the slide on screen when the plan was last left (close), where Present this plan returns."""
RESUMED = "plan.resumed"
"""Session key: where Present this plan opened the plan (lib.workshop_plan.resume), said on that slide once."""
PROBLEMS = "plan.problems"
"""Session key: what was wrong with the plan last opened, each naming its line and field."""
UNOPENED = "plan.unopened"
"""Session key: True when the plan last read had no slide to show, so the one open before stays."""
TAB_TRACES = "plan.tab_traces"
"""Session key: the traces this browser tab offers its plans beside the bundled ones, {THIS_TAB name: LoadedTrace}:
live runs that ended here and logs uploaded here. Held in the session only, never written to a file."""
TAB_TRACES_KEPT = 8
"""How many such traces a tab holds at most; the oldest offered goes first (a slide of it then says it is gone)."""


def tab_traces() -> dict[str, LoadedTrace]:
    """The traces this tab's plans may show beside the bundled ones (TAB_TRACES), by name."""
    return st.session_state.get(TAB_TRACES, {})


def offer(loaded: LoadedTrace, source: str) -> str:
    """Offer this trace (a live run that ended, an upload) to this tab's plans; its THIS_TAB name, the same for the
    same content each time it is offered. `source` names it: the run's scenario, the upload's file name."""
    traces = dict(tab_traces())
    name = next((n for n, kept in traces.items() if kept.digest == loaded.digest), None)
    if name is None:
        name = workshop_plan.tab_name(source, {**traces, **{t.name: t for t in state.bundled()}})
        traces[name] = replace(loaded, name=name)
        while len(traces) > TAB_TRACES_KEPT:
            traces.pop(next(iter(traces)))
        st.session_state[TAB_TRACES] = traces
    return name


def load(name: str) -> LoadedTrace:
    """A plan's trace by its name: one this tab offered (offer), else a bundled one."""
    return tab_traces().get(name) or state.load_bundled(name)


def trace_rounds() -> dict[str, int]:
    """Every bundled trace's name and number of rounds, and those this tab offers (tab_traces): what a plan's slides
    are checked against."""
    rounds = {t.name: len(state.load_bundled(t.name).trace.rounds) for t in state.bundled()}
    return {**rounds, **{name: len(loaded.trace.rounds) for name, loaded in tab_traces().items()}}


def keep_problems(read: ReadPlan) -> bool:
    """Keep what was wrong with a plan just read, to say it; True when the plan has a slide to show, so it opens."""
    opens = read.plan is not None and bool(read.plan.slides)
    st.session_state[PROBLEMS], st.session_state[UNOPENED] = read.problems, not opens
    return opens


def open_plan(read: ReadPlan, link: str | None = None, slide: int = 0) -> None:
    """Make this plan the one presented, at `slide`, keeping what was wrong with it to say."""
    if not keep_problems(read):
        return
    st.session_state[PLAN] = read.plan
    st.session_state[LINK] = link or workshop_plan.pack(read.plan)
    st.session_state[SLIDE] = min(max(slide, 0), len(read.plan.slides) - 1)
    st.session_state.pop(WRITTEN, None)  # the address left from before names no slide of this opening


def left_slide() -> str | None:
    """The id of the slide the teacher left the plan on: the one on screen, or the one on screen when it was closed."""
    plan = st.session_state.get(PLAN)
    if plan is not None and plan.slides:
        return plan.slides[min(max(st.session_state.get(SLIDE, 0), 0), len(plan.slides) - 1)].id
    return st.session_state.get(LEFT)


def close() -> None:
    """Stop presenting the plan: the explorer is itself again. The slide on screen is kept (LEFT) for Present this
    plan on the Workshop plan page to come back to."""
    st.session_state[LEFT] = left_slide()
    st.session_state.pop(RESUMED, None)
    for key in (PLAN, LINK, SLIDE, WRITTEN):
        st.session_state.pop(key, None)
    for name in ("plan", "slide"):
        st.query_params.pop(name, None)
    picker.address_trace()  # the explorer's address names its trace again


def leaving() -> None:
    """Present switched off during a plan (a callback, so before the sidebar is drawn): the explorer opens on the
    trace, round and step of the slide that was on screen. A teacher who turned Present off on slide 10 (Hengxin's
    round 3) to show the round's payload got round 1, or another trace: whatever the sidebar held before the plan."""
    plan, index = st.session_state.get(PLAN), st.session_state.get(SLIDE, 0)
    if st.session_state.get(state.PRESENTER) or plan is None or not plan.slides:
        return
    slide = plan.slides[min(max(index, 0), len(plan.slides) - 1)]
    if st.session_state.get(picker.FILES) or st.session_state.get(kept.SAVED) \
            or slide.trace not in {t.name for t in state.bundled()}:
        return  # the sidebar shows an upload or a saved trace, or the slide's trace is this tab's: it stays as it is
    loaded = state.load_bundled(slide.trace)
    st.session_state[picker.TRACE] = slide.trace
    navigation.point_explorer_at(loaded, min(max(slide.round, 1), len(loaded.trace.rounds)))
    if slide.view == "step":
        st.session_state[state.STEP] = slide.step  # Present switched on again comes back to this very step


def active() -> Plan | None:
    """The plan to present: the one a `?plan=` link asks for (read once per link), or the one opened in the
    session."""
    link = st.query_params.get("plan")
    plan = st.session_state.get(PLAN)
    written = st.session_state.get(WRITTEN)  # None until the plan just opened has been shown
    if plan is not None and plan.slides and link and link == st.session_state.get(LINK) and written is not None \
            and st.query_params.get("slide", written) != written:
        # The address names another slide of this plan than the one last written to it: the browser's Back or
        # Forward (Streamlit adds an address to the history for each slide and reruns on its own on Back), or one
        # typed. A Next or Previous click leaves the address as it was written, and moves the slide itself.
        st.session_state[SLIDE] = min(max(_query_slide() - 1, 0), len(plan.slides) - 1)
        st.session_state.pop(RESUMED, None)
    if link and link != st.session_state.get(READ_LINK):
        st.session_state[READ_LINK] = link
        open_plan(workshop_plan.unpack(link, trace_rounds()), link, _query_slide() - 1)
        if PLAN in st.session_state:
            st.session_state[state.PRESENTER] = True  # a plan is for presenting
        else:
            problems()
    return st.session_state.get(PLAN)


def problems() -> None:
    """What was wrong with the plan last opened, each line as text (a file's words are not ours)."""
    found = st.session_state.get(PROBLEMS) or ()
    if found:
        st.warning(f"The plan has {plural(len(found), 'problem')}, and none of its slides can be shown: it was not "
                   "opened." if st.session_state.get(UNOPENED) else
                   f"The plan has {plural(len(found), 'problem')}; the slides without one are kept:")
        plain.text("\n".join(found))


def _query_slide() -> int:
    try:
        return int(st.query_params.get("slide", 1))
    except ValueError:
        return 1


def _move(delta: int) -> None:
    st.session_state[SLIDE] += delta
    st.session_state.pop(RESUMED, None)
    st.session_state.pop(PROBLEMS, None)  # said on the slide the plan opened on; the room has seen them


def show(plan: Plan, predicting: bool, corner=None) -> None:
    """The slide on screen, with Previous and Next through the plan (where we are in `corner`, see
    presenter.frame)."""
    index = min(max(st.session_state.get(SLIDE, 0), 0), len(plan.slides) - 1)
    st.session_state[SLIDE] = index
    slide = plan.slides[index]
    if slide.trace not in trace_rounds():  # a trace of this tab's, let go since (TAB_TRACES_KEPT)
        presenter.buttons((_move, (-1,)) if index > 0 else None,
                          (_move, (1,)) if index < len(plan.slides) - 1 else None)
        st.warning(f"Slide {index + 1} of {len(plan.slides)} cannot be shown: its trace")
        plain.text(f"{slide.trace} {workshop_plan.TAB_GONE}")
        return
    loaded = load(slide.trace)
    where, waits, said = f"slide {index + 1} of {len(plan.slides)}", None, False
    if slide.view == "step":  # the round shown: a round still to predict holds a later one back (first_open)
        here = _position(loaded, slide, predicting)[0]
        where += f" · {predict.round_words(loaded, here.round, predicting)}"
        # Next waits on a prediction as the presenter's does: the next slide may be the next request. Said only where
        # the slide does not already say which round to predict first (_step's held_words).
        waits = waits_words(loaded.trace, here, presenter.hidden_rounds(loaded, predicting))
        said = held_words(min(max(slide.round, 1), len(loaded.trace.rounds)), here.round) is not None
    presenter.frame(predict.title(loaded, predicting), where, corner)
    problems()
    if st.session_state.get(RESUMED):
        st.info(st.session_state[RESUMED])  # until the teacher moves: a rerun of the slide keeps it
    between = (lambda: presenter.progress(loaded, *_position(loaded, slide, predicting))) if slide.view == "step" \
        else None
    presenter.buttons((_move, (-1,)) if index > 0 else None,
                      (_move, (1,)) if index < len(plan.slides) - 1 and waits is None else None, between)
    if waits and not said:
        st.caption(waits)
    with st.container(key=f"slide-{slide.view}"):
        DRAW[slide.view](loaded, slide, predicting)
    for name in ("trace", "round", "step"):
        st.query_params.pop(name, None)
    st.query_params["plan"] = st.session_state[LINK]
    st.query_params["slide"] = st.session_state[WRITTEN] = str(index + 1)
    st.session_state[READ_LINK] = st.session_state[LINK]


def _position(loaded: LoadedTrace, slide: Slide, predicting: bool) -> tuple[Position, bool]:
    """Where a step slide stands, and whether its round's response is still hidden."""
    hidden = presenter.hidden_rounds(loaded, predicting)
    here = settle(loaded.trace, slide.round, slide.step, hidden)
    return here, hidden(here.round)


def _step(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    here = _position(loaded, slide, predicting)[0]
    asked = min(max(slide.round, 1), len(loaded.trace.rounds))
    if held_words(asked, here.round):
        st.caption(held_words(asked, here.round))
    presenter.step_slide(loaded, here, predicting)


def _tokens(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    shown = predict.shown_rounds(loaded, predicting)
    st.header(":material/calculate: Tokens and cost")
    if not shown:
        lead(predict_first_words(shown))
        return
    rows = state.summaries(loaded)[:shown]
    ball = snowball(rows)
    partial = shown if shown < len(loaded.trace.rounds) else None  # the last round counted, when it is not the last
    context = f"round {partial}'s context" if partial else "the final context"
    # No ratio (one call, or an input not known): the sentence ends at the sum, not at "one call" with no "times".
    times = f", {ball.times_one_call_words} times one call with {context}" if ball.times_one_call_words else ""
    about = "about " if ball.billed_input_words.startswith("≈") else ""  # the Tokens page's "≈", in words
    # On a chain the provider kept (previous_interaction_id), "resends everything" is not what the program did.
    every = every_call_words(kept_by_provider(loaded.trace, shown))
    if ball.unknown_input_calls:  # a sum with calls left out is no bill: the metrics below say what it holds
        lead(f"{every}: {plural(ball.rounds, 'call')}, of which the log kept no request for "
             f"{ball.unknown_input_calls:,}, so what the conversation was billed for its input is not known.")
    else:
        # A failed call whose billing the log does not say is in neither figure: the count says the calls summed.
        # A request the log holds no response to is in neither either: whether it was billed is not in the log.
        left_out = f" {ball.billing_unknown_words}" if ball.billing_unknown_words else ""
        left_out += f" {ball.unanswered_words}" if ball.unanswered_words else ""
        lead(f"{every}: {plural(ball.billed_calls, 'call')} billed {about}{ball.billed_input:,} "
             f"input tokens{times}.{left_out}")
    if partial:
        st.caption(predicted_only_words(shown))
    accounting.snowball_metrics(ball, partial)
    st.plotly_chart(charts.for_projector(charts.input_breakdown(rows), height=360), key="slide.tokens",
                    config={"displayModeBar": False})


def _dialects(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    trace = loaded.trace
    round_ = trace.rounds[min(slide.round, len(trace.rounds)) - 1]
    st.header(f":material/translate: Round {round_.index} in both dialects")
    shown = predict.shown_rounds(loaded, predicting)
    if round_.index > shown + 1:  # its request carries the answer of an earlier round still to predict
        lead(predict_first_words(shown))
        return
    revealed = not predicting or predict.revealed(loaded, round_.index)
    response = round_.response if revealed else None  # before a prediction the response must not leak
    both = {d: convert(round_.request, response, trace.dialect, d) for d in (OPENAI, ANTHROPIC)}
    lead("The same round in two dialects: the model reads the same conversation; only the packaging differs.")
    if round_.extra.get("converted_from"):  # neither column is the recording (a Gemini Interactions `status`): said
        st.caption(origin_line(trace, round_))
    rows = [r for r in field_mapping(both[OPENAI], both[ANTHROPIC], parts_not_logged(round_))
            if (r.openai_here, r.anthropic_here) != (NONE_HERE, NONE_HERE)]
    head = st.columns([1, 2, 2])
    for column, words in zip(head, ("", DIALECT_NAMES[OPENAI], DIALECT_NAMES[ANTHROPIC])):
        column.markdown(f"**{words}**" if words else "")
    for row in rows:
        what, openai, anthropic = st.columns([1, 2, 2])
        what.markdown(f"**{row.what}**")
        plain.text(row.openai_here, openai)
        plain.text(row.anthropic_here, anthropic)


def _diagram(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    trace = loaded.trace
    st.header(":material/swap_horiz: The round trip as a picture")
    lead("The model never talks to a tool: the program sits between them and runs every call.")
    first = diagram_first(slide, len(trace.rounds))
    shown = predict.shown_rounds(loaded, predicting)
    if first > shown:
        st.caption(predict_first_words(shown))
        return
    if first + DIAGRAM_ROUNDS - 1 > shown < len(trace.rounds):
        st.caption(predicted_only_words(shown))
    figure = charts.sequence_diagram(sequence(trace, min(DIAGRAM_ROUNDS, shown - first + 1), first), len(trace.rounds))
    st.plotly_chart(charts.for_projector(figure, height=560), key="slide.diagram", config={"displayModeBar": False})


def _gallery(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    st.header(":material/warning: From the pitfall gallery")
    shown = predict.shown_rounds(loaded, predicting)
    if predicting and (scored := predict.last_scored(loaded, shown)) is not None:  # the round just revealed, scored
        predict.result(loaded, scored, folded=True)
    if shown < len(loaded.trace.rounds):  # what happened, and the finding, tell what the model does in every round
        # The round to predict is asked here, its request above the question: most pitfalls have no step slide in a
        # plan, and a learner told to predict with nothing to predict on could not go on from this slide.
        st.caption(predict_first_words(shown))
        # The round before was not shown here step by step: its call and results are shown, not folded as seen.
        presenter.step_slide(loaded, Position(shown + 1, 1), predicting, fold_seen=False)
        st.header(":material/help: What will the model do?")
        predict.form(loaded, shown + 1)
        return
    # Told as a story: what happened and what the model saw, then the fix, in the lead's type as what to take away.
    paragraphs = findings.paragraphs(loaded)
    fix = next((p for p in paragraphs if p.lower().startswith("the fix")), None)
    for paragraph in paragraphs:
        if paragraph is fix:  # one lead a slide: its container has one key
            lead_text(paragraph)
        else:
            plain.text(paragraph)
    found = [f for f in findings.findings(loaded) if f.round == slide.round]
    if not paragraphs:
        # Not a gallery trace (a bundled trace, a live run, an upload): no story to tell, and a slide with its header
        # alone read as a slide that failed to draw. Said, with what the checks found in its round.
        lead(gallery_words(slide.round, len(found)))
    for finding in found[:2]:
        cards.finding_badge(finding)


def _closing(loaded: LoadedTrace, slide: Slide, predicting: bool) -> None:
    shown = predict.shown_rounds(loaded, predicting)
    st.header(":material/flag: What it took")
    if not shown:
        lead(predict_first_words(shown))
        st.metric("Your score on this trace", predict.score_words(loaded))
        return
    rows = state.summaries(loaded)[:shown]
    ball = snowball(rows)
    calls = sum(r.tool_calls for r in rows)
    found = findings.predicted(loaded, shown)
    partial = shown if shown < len(loaded.trace.rounds) else None
    lead(f"{'In the rounds predicted so far: one' if partial else 'One'} question, {plural(ball.rounds, 'model call')} "
         f"and {plural(calls, 'tool call')}: {sent_again_words(kept_by_provider(loaded.trace, shown))}.")
    if partial:
        st.caption(predicted_only_words(shown))
    accounting.snowball_metrics(ball, partial)
    columns = st.columns(4)
    columns[0].metric("Model calls", f"{ball.rounds:,}")
    columns[1].metric("Tool calls", f"{calls:,}")
    columns[2].metric("Findings of the checks", f"{len(found):,}")
    if predicting:
        columns[3].metric("Your score on this trace", predict.score_words(loaded))


DRAW = {"step": _step, "tokens": _tokens, "dialects": _dialects, "diagram": _diagram, "gallery": _gallery,
         "closing": _closing}
"""How each view of lib.workshop_plan.VIEWS is drawn."""
