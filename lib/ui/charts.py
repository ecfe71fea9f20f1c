"""Charts built from summary rows; plotly only, no remote assets."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from lib.growth import CHANGED_WORDS, RESENT_WORDS
from lib.summary import RoundSummary, counted_parts, not_counted_said, not_counted_words
from lib.tokens import NOT_COUNTED, OVERCOUNT, SHOWN_WHEN_SOME, overcount
from lib.sequence import LANE_TITLES, LANES, Arrow
from lib.steps import STEP_COLORS, STEP_MARKS
from lib.text import show_controls

_STYLE = {
    "reported": {"pattern": "", "opacity": 1.0},
    "estimated": {"pattern": "/", "opacity": 0.55},
}
BARS_UP_TO = 60
"""Rounds up to which the tokens chart draws a bar per round; longer traces get one line per series, a
single path for the browser to draw instead of thousands of patterned bars that block it for seconds."""
PART_COLORS = ("#8c564b", "#1f77b4", "#17becf", "#7f7f7f", "#9467bd", "#ff7f0e", "#2ca02c", "#bcbd22", "#d0d0d0")
"""The colors of lib.tokens.INPUT_PARTS, bottom of the stack first."""


def _layout(figure: go.Figure, rows, y_title: str) -> go.Figure:
    figure.update_layout(
        xaxis={"title": "round", "dtick": 1 if len(rows) <= 30 else None},
        yaxis={"title": y_title},
        # Above the plot: a horizontal legend's default place, under it, is where the axis title "round" is.
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        margin={"t": 50, "b": 10},
        height=320,
    )
    return figure


def tokens_per_round(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Input and output tokens per round; estimated values are hatched and pale (dotted on a long trace),
    reported ones solid. A round whose figure the log cannot give (RoundSummary.input_if_known, output_if_known)
    has no bar: a bar of 0 would say the model wrote nothing."""
    figure = go.Figure()
    bars = len(rows) <= BARS_UP_TO
    for measure, color in (("input", "#1f77b4"), ("output", "#ff7f0e")):
        for source, style in _STYLE.items():
            picked = [r for r in rows if r.usage.source == source and getattr(r, f"{measure}_if_known") is not None]
            if not picked:
                continue
            series = {
                "name": f"{measure} ({source})",
                "x": _numbers(r.round for r in picked),
                "y": _numbers(getattr(r.usage, f"{measure}_tokens") for r in picked),
                "hovertemplate": f"round %{{x}}<br>%{{y:,}} {measure} tokens, {source}<extra></extra>",
            }
            if bars:
                figure.add_bar(**series, offsetgroup=measure, marker={
                    "color": color, "opacity": style["opacity"], "pattern": {"shape": style["pattern"]}})
            else:
                figure.add_scatter(**series, mode="lines", opacity=style["opacity"],
                                   line={"color": color, "width": 1.5, "dash": "dot" if style["pattern"] else "solid"})
    figure.update_layout(barmode="group")
    return _layout(figure, rows, "tokens")


def _numbers(values) -> list[int] | np.ndarray:
    # A long series goes as a numpy array, which reaches the browser as one base64 typed array instead of a list
    # spelled out number by number; a short one stays a list, as readable in the chart's spec as in the table.
    values = list(values)
    return values if len(values) <= BARS_UP_TO else np.fromiter(values, dtype=np.int64, count=len(values))


def _per_round(figure: go.Figure, rows, color: str, stack: str | None = None, pattern: str = "", **series) -> None:
    """One series over the rounds: a bar each on a short trace (hatched with `pattern`); one line (an area when
    stacked) on a long one."""
    if len(rows) <= BARS_UP_TO:
        figure.add_bar(**series, marker={"color": color, "pattern": {"shape": pattern}})
    else:
        figure.add_scatter(**series, mode="lines", stackgroup=stack, line={"color": color, "width": 1 if stack else 1.5})


def input_breakdown(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Each round's input, stacked by where it goes: the bars (areas on a long trace) reach the input in the rounds table."""
    figure = go.Figure()
    parts = [counted_parts(r) for r in rows]
    rounds = _numbers(r.round for r in rows)
    for i, color in enumerate(PART_COLORS):
        label = parts[0][i][0] if parts else ""
        if label in SHOWN_WHEN_SOME and not any(p[i][1] for p in parts):
            continue  # held or changed messages in no round (most traces): no empty legend entry
        kept = [p[i][1] for p, r in zip(parts, rows) if r.request_recorded]
        if kept and all(tokens is None for tokens in kept):
            continue  # a part the log lacks (parts_unlogged): no bar of 0, the caption says
        # A round whose request the log did not keep has no parts: no bar, its reported input is in the table.
        values = [p[i][1] or 0 for p in parts]
        over = ()
        if label == NOT_COUNTED and not any(values):
            # No round has a remainder: a trace whose input is all our estimate (no usage reported) has none, and a
            # legend entry named "reported", with the parts the log lacks in it, would say what no figure holds.
            continue
        if label == NOT_COUNTED and any(tokens < 0 for tokens in values):
            # Below zero the remainder is our count above the round's input: named as that, not as a share of it.
            # Why is said beside the rounds table (lib.usage_gap), per round: a legend cannot say one for every round.
            over = [overcount(p) for p in parts]
            _per_round(figure, rows, "#e377c2", "input", name=OVERCOUNT, x=rounds,
                       y=_numbers(-tokens for tokens in over), customdata=_numbers(over),
                       hovertemplate="round %{x}<br>our count %{customdata:,} tokens above the input<extra></extra>")
            values = [max(tokens, 0) for tokens in values]
        if label != NOT_COUNTED:
            _per_round(figure, rows, color, "input", name=label, x=rounds, y=_numbers(values),
                       hovertemplate=f"round %{{x}}<br>%{{y:,}} tokens of {label}<extra></extra>")
            continue
        # The remainder named as each round's own line names it (lib.summary.not_counted_said): an estimate that
        # carries round 1's gap is a series of its own, not "reported".
        named = not_counted_words(rows)
        said = [not_counted_said(r, named) for r in rows]
        for name in dict.fromkeys(said):
            shown = [tokens if own == name else 0 for tokens, own in zip(values, said)]
            if over and not any(shown):  # every round it names is overcounted: no part beyond our count to draw
                continue
            _per_round(figure, rows, color, "input", pattern="" if name == named else _STYLE["estimated"]["pattern"],
                       name=name, x=rounds, y=_numbers(shown),
                       hovertemplate=f"round %{{x}}<br>%{{y:,}} tokens of {name}<extra></extra>")
    figure.update_layout(barmode="relative")
    return _layout(figure, rows, "input tokens")


MESSAGE_SERIES = (("held", "messages_held", "#c7c7c7"), ("resent", "resent_messages", "#7f7f7f"),
                  ("changed", "changed_messages", "#ff7f0e"), ("new", "new_messages", "#2ca02c"))
"""The messages chart's series, bottom of the stack first: each standing lib.growth.standing counts (the
RoundSummary field that holds it) and its color (the explorer's badges: orange changed, green new)."""


def message_series_name(standing: str) -> str:
    """A series of the messages chart named as the explorer names its messages (lib.growth's RESENT_WORDS,
    CHANGED_WORDS; HELD_UNDER's held ones)."""
    return {"held": "held by the provider, not sent", "resent": RESENT_WORDS, "changed": CHANGED_WORDS,
            "new": "new"}[standing]


def messages_per_round(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Messages per round, as the explorer places them (lib.growth.standing): resent unchanged, changed, new, and
    with a provider-held chain the held ones (read by the model, not sent). A series no round has is not drawn (no
    empty legend entry). A request the log did not keep has no bar, not one of 0."""
    figure = go.Figure()
    kept = [r for r in rows if r.request_recorded]
    rounds = _numbers(r.round for r in kept)
    held = any(r.messages_held for r in kept)
    for standing, field, color in MESSAGE_SERIES:
        counts = [getattr(r, field) for r in kept]
        if standing in ("held", "changed") and not any(counts):
            continue
        name = message_series_name(standing)
        _per_round(figure, rows, color, "messages", name=name, x=rounds, y=_numbers(counts),
                   hovertemplate=f"round %{{x}}<br>messages {name}: %{{y:,}}<extra></extra>")
    figure.update_layout(barmode="stack")
    return _layout(figure, rows, "messages the model reads" if held else "messages sent")


def cumulative_input(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Input billed so far, against what one call with the same context would have cost. A round whose input the log
    cannot give (RoundSummary.input_if_known) has no point and adds nothing, as the totals leave it out: a 0 would say
    its call read nothing; nor does a call whose billing the log does not say (billed_input_if_known: a failed one,
    a request it holds no response to) add to the input billed, as the totals leave it out, though its context is
    drawn."""
    known = [r for r in rows if r.input_if_known is not None]
    billed = [r for r in known if r.billed_input_if_known is not None]
    running, total = [], 0
    for r in billed:
        total += r.billed_input_if_known
        running.append(total)
    mode = "lines+markers" if len(rows) <= BARS_UP_TO else "lines"  # a marker per round is a shape per round
    figure = go.Figure()
    figure.add_scatter(name="input billed so far", x=_numbers(r.round for r in billed), y=_numbers(running), mode=mode)
    figure.add_scatter(name="this round's context in one call", x=_numbers(r.round for r in known),
                       y=_numbers(r.input_if_known for r in known), mode=mode, line={"dash": "dot"})
    # From 0: a running sum's growth is read against the whole of it. Plotly's own range about a lone point or two
    # close ones (743 to 745) would draw a difference of a token as the height of the chart. The legend always: with
    # one series drawn (the only call failed, so nothing is billed so far) plotly hides it, and the dot is unnamed.
    return _layout(figure, rows, "input tokens").update_yaxes(rangemode="tozero").update_layout(showlegend=True)


UNRECORDED = "#a0a0a0"
"""The grey of an arrow the trace does not record (Arrow.recorded): drawn apart from the facts."""
ROW_PX = 30
"""Height of one arrow's row in the sequence diagram."""


def sequence_diagram(arrows: tuple[Arrow, ...], rounds_total: int) -> go.Figure:
    """Lanes for user, program, model and tools; one row per arrow, the five steps numbered and colored.

    Labels hold trace strings: plotly reads a little HTML in annotation text (links, line breaks), so
    every label is escaped first (_plotly_text) and shows as the text it is.
    """
    lane_x = {lane: i for i, lane in enumerate(LANES)}
    right = len(LANES) - 1
    figure = go.Figure()
    annotations: list[dict] = []
    shapes: list[dict] = []
    row, current = 0.0, None
    for n, arrow in enumerate(arrows):
        if arrow.beside:
            continue  # drawn with the first of its row
        if arrow.round != current:
            current = arrow.round
            row -= 1.2 if current != arrows[0].round else 0.6
            shapes.append({"type": "line", "x0": -0.7, "x1": right + 0.4, "y0": row + 0.45, "y1": row + 0.45,
                           "line": {"color": "#d0d0d0", "width": 1}})
            heading = arrow.heading or f"Round {current}"
            annotations.append({"x": -0.7, "y": row, "text": f"<b>{_plotly_text(heading)}</b>", "showarrow": False,
                                "xanchor": "left", "font": {"size": 13}, "bgcolor": "#ffffff"})
            if heading != f"Round {current}":
                # A name longer than `Round 2` (a summary call's) reaches across the lanes: a row of its own, so no
                # arrow or label of the round lies under it.
                row -= 1
        together = [arrow]
        while n + len(together) < len(arrows) and arrows[n + len(together)].beside:
            together.append(arrows[n + len(together)])
        # An arrow another of its row speaks for (lib.sequence._said_once) has no label, not even its step's mark.
        spoken = sum(1 for one in together if one.label)
        said = 0
        for place, one in enumerate(together):
            annotations.extend(_arrow(one, lane_x, row, place, (said, spoken)))
            said += bool(one.label)
        row -= 1
    top, bottom = 0.9, row + 0.4
    if any(a.beside for a in arrows):
        annotations.append({"x": right + 0.4, "y": bottom - 0.1, "text": "arrows in one row happen at the same time",
                            "showarrow": False, "xanchor": "right", "font": {"size": 11, "color": "#555555"}})
    for lane, x in lane_x.items():
        shapes.append({"type": "line", "x0": x, "x1": x, "y0": top - 0.4, "y1": bottom,
                       "line": {"color": "#9e9e9e", "width": 1, "dash": "dot"}, "layer": "below"})
        annotations.append({"x": x, "y": top, "text": f"<b>{LANE_TITLES[lane]}</b>", "showarrow": False,
                            "font": {"size": 15}, "bgcolor": "#f0f2f6", "borderpad": 5})
    title = None
    shown = sorted({a.round for a in arrows})
    if shown and len(shown) < rounds_total:
        title = f"Rounds {shown[0]:,} to {shown[-1]:,} of {rounds_total:,}"
    figure.update_layout(
        annotations=annotations, shapes=shapes, showlegend=False, title=title,
        xaxis={"visible": False, "range": [-0.75, right + 0.5], "fixedrange": True},
        yaxis={"visible": False, "range": [bottom - 0.3, top + 0.6], "fixedrange": True},
        height=int(ROW_PX * (top - bottom + 1) + 60), margin={"t": 30 if title else 10, "b": 10, "l": 10, "r": 10},
        plot_bgcolor="#ffffff",
    )
    return figure


def _arrow(arrow: Arrow, lane_x: dict, row: float, place: int, label: tuple[int, int]) -> list[dict]:
    """One arrow's annotations; arrows that happen at once share a row, each a little lower than the one before,
    their labels side by side: `label` is this one's place among the row's labelled arrows and how many there are."""
    color = UNRECORDED if not arrow.recorded else STEP_COLORS[arrow.step].hex if arrow.step in STEP_COLORS \
        else "#555555"
    mark = f"{STEP_MARKS[arrow.step]} " if arrow.step else ""
    text = mark + _plotly_text(arrow.label)
    x0, x1 = lane_x[arrow.source], lane_x[arrow.target]
    if x0 == x1:
        return [{"x": x0 + 0.06, "y": row, "text": text, "showarrow": False, "xanchor": "left",
                 "font": {"size": 12, "color": color}, "bordercolor": color, "borderpad": 3, "bgcolor": "#ffffff"}]
    y = row - 0.14 * place
    line = {"x": x1, "y": y, "ax": x0, "ay": y, "xref": "x", "yref": "y", "axref": "x", "ayref": "y", "text": "",
            "showarrow": True, "arrowhead": 2, "arrowsize": 1.2, "arrowwidth": 1.6, "arrowcolor": color}
    if not arrow.label:
        return [line]
    spot, of = label
    return [line, {**_label_place(x0, x1, spot, of), "y": row + 0.32, "text": text, "showarrow": False,
                   "font": {"size": 12 if of == 1 else 11, "color": color}}]


def _plotly_text(text: str) -> str:
    """Trace text as plotly.js shows it verbatim: `&`, `<` and `>` escaped, so no tag can form, and bidi controls
    written out (lib.text.show_controls), so none reverses the rest of a label. Quotes stay as they are: plotly turns
    only a few named entities back into characters, and `&quot;` is not among them; outside a tag a quote is only a
    quote."""
    return html.escape(show_controls(text), quote=False)


def _label_place(x0: float, x1: float, place: int, of: int) -> dict:
    """Where an arrow's label sits: two arrows of one row have theirs back to back at the middle, each reaching
    away from the other, so they never overlap however large the type; more share the span evenly."""
    if of == 2:
        middle = (x0 + x1) / 2
        return {"x": middle - 0.02, "xanchor": "right"} if place == 0 else {"x": middle + 0.02, "xanchor": "left"}
    return {"x": x0 + (x1 - x0) * (place + 1) / (of + 1)}


PRESENTER_FONT = 20
"""Pixels of a chart's type on a projector: axes, legend and labels."""


def for_projector(figure: go.Figure, height: int | None = None) -> go.Figure:
    """A copy of a chart in a projector's type: every font at least PRESENTER_FONT pixels, labels scaled alike.
    Only the look changes; the figures stay the ones the chart was built with."""
    big = go.Figure(figure)
    # Two legend entries a row whatever the width: left to wrap, a 1280-pixel projector got one a row, and plotly
    # scrolled the last ones out of sight (the hatched estimate of the tokens slide) and squeezed the bars.
    big.update_layout(font={"size": PRESENTER_FONT},
                      legend={"font": {"size": PRESENTER_FONT}, "entrywidth": 0.5, "entrywidthmode": "fraction"},
                      title_font={"size": PRESENTER_FONT},
                      **({"height": height} if height else {}))
    big.update_xaxes(title_font={"size": PRESENTER_FONT}, tickfont={"size": PRESENTER_FONT - 2})
    big.update_yaxes(title_font={"size": PRESENTER_FONT}, tickfont={"size": PRESENTER_FONT - 2})
    for note in big.layout.annotations:
        note.font.size = max(PRESENTER_FONT - 2, round((note.font.size or 12) * 1.5))
    return big
