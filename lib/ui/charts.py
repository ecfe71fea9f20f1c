"""Charts built from summary rows; plotly only, no remote assets."""

from __future__ import annotations

import plotly.graph_objects as go

from lib.overview import RoundSummary

_STYLE = {
    "reported": {"pattern": "", "opacity": 1.0},
    "estimated": {"pattern": "/", "opacity": 0.55},
}


def tokens_per_round(rows: tuple[RoundSummary, ...]) -> go.Figure:
    """Input and output tokens per round; estimated bars are hatched and pale, reported ones solid."""
    figure = go.Figure()
    for measure, color in (("input", "#1f77b4"), ("output", "#ff7f0e")):
        for source, style in _STYLE.items():
            picked = [r for r in rows if r.tokens_source == source]
            if not picked:
                continue
            figure.add_bar(
                name=f"{measure} ({source})",
                x=[r.round for r in picked],
                y=[getattr(r, f"{measure}_tokens") for r in picked],
                offsetgroup=measure,
                marker={"color": color, "opacity": style["opacity"], "pattern": {"shape": style["pattern"]}},
                hovertemplate=f"round %{{x}}<br>%{{y:,}} {measure} tokens, {source}<extra></extra>",
            )
    figure.update_layout(
        barmode="group",
        xaxis={"title": "round", "dtick": 1 if len(rows) <= 30 else None},
        yaxis={"title": "tokens"},
        legend={"orientation": "h"},
        margin={"t": 30, "b": 10},
        height=320,
    )
    return figure
