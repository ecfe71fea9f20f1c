"""Charts built from summary rows; plotly only, no remote assets."""

from __future__ import annotations

import plotly.graph_objects as go

from lib.overview import RoundSummary

_STYLE = {
    "reported": {"pattern": "", "opacity": 1.0},
    "estimated": {"pattern": "/", "opacity": 0.55},
}
BREAKDOWN_PARTS = (
    ("instructions", "instructions", "#8c564b"),
    ("tools", "tool definitions", "#1f77b4"),
    ("history", "resent history", "#7f7f7f"),
    ("new", "new messages", "#2ca02c"),
    ("framing", "message framing", "#bcbd22"),
)
"""The breakdown fields, their labels and colors, bottom of the stack first."""


def _layout(figure: go.Figure, rows, y_title: str) -> go.Figure:
    figure.update_layout(
        xaxis={"title": "round", "dtick": 1 if len(rows) <= 30 else None},
        yaxis={"title": y_title},
        legend={"orientation": "h"},
        margin={"t": 30, "b": 10},
        height=320,
    )
    return figure


def tokens_per_round(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Input and output tokens per round; estimated bars are hatched and pale, reported ones solid."""
    figure = go.Figure()
    for measure, color in (("input", "#1f77b4"), ("output", "#ff7f0e")):
        for source, style in _STYLE.items():
            picked = [r for r in rows if r.usage.source == source]
            if not picked:
                continue
            figure.add_bar(
                name=f"{measure} ({source})",
                x=[r.round for r in picked],
                y=[getattr(r.usage, f"{measure}_tokens") for r in picked],
                offsetgroup=measure,
                marker={"color": color, "opacity": style["opacity"], "pattern": {"shape": style["pattern"]}},
                hovertemplate=f"round %{{x}}<br>%{{y:,}} {measure} tokens, {source}<extra></extra>",
            )
    figure.update_layout(barmode="group")
    return _layout(figure, rows, "tokens")


def input_breakdown(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Each round's estimated input, stacked by where it goes."""
    figure = go.Figure()
    for field, label, color in BREAKDOWN_PARTS:
        figure.add_bar(
            name=label,
            x=[r.round for r in rows],
            y=[getattr(r.breakdown, field) for r in rows],
            marker={"color": color},
            hovertemplate=f"round %{{x}}<br>%{{y:,}} tokens of {label}<extra></extra>",
        )
    figure.update_layout(barmode="stack")
    return _layout(figure, rows, "estimated input tokens")


def messages_per_round(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Messages sent per round, split into resent and new."""
    figure = go.Figure()
    figure.add_bar(name="resent", x=[r.round for r in rows], y=[r.messages_sent - r.new_messages for r in rows],
                   marker={"color": "#7f7f7f"})
    figure.add_bar(name="new", x=[r.round for r in rows], y=[r.new_messages for r in rows],
                   marker={"color": "#2ca02c"})
    figure.update_layout(barmode="stack")
    return _layout(figure, rows, "messages sent")


def cumulative_input(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Input billed so far, against what one call with the same context would have cost."""
    running, total = [], 0
    for r in rows:
        total += r.usage.input_tokens
        running.append(total)
    figure = go.Figure()
    figure.add_scatter(name="input billed so far", x=[r.round for r in rows], y=running, mode="lines+markers")
    figure.add_scatter(name="this round's context in one call", x=[r.round for r in rows],
                       y=[r.usage.input_tokens for r in rows], mode="lines+markers", line={"dash": "dot"})
    return _layout(figure, rows, "input tokens")
