"""The Checks page's parts: a gallery trace's explanation, and every finding with a jump to its round.

They lay out; lib/checks.py decides. Findings are computed once per trace digest and shared,
read-only, by every session, like the parsed traces in lib/ui/state.py.
"""

from __future__ import annotations

import streamlit as st

from lib.catalog import LoadedTrace
from lib.checks import (EXPLANATION_HEADING, NONE_FOUND, NONE_FOUND_IN_LOG, SEVERITIES, SEVERITY_NAMES, Finding,
                        counts_words, explanation_paragraphs, run_checks)
from lib.ui import navigation, plain
from lib.ui.cache import per_trace

ICONS = {"error": ":material/error:", "warning": ":material/warning:", "info": ":material/info:"}
"""An icon per severity."""
HEADINGS = {severity: f"{ICONS[severity]} {SEVERITY_NAMES[severity]}" for severity in SEVERITIES}
"""A heading per severity: its icon and lib.checks' name for it, which the HTML file writes too."""

PAGE = 10
"""Findings of one severity drawn at once: a long trace has one or more a round, and a card with a button for each
would make every rerun of the page slow; the rest are a page away."""


@per_trace(spinner="Checking the trace…")
def findings(loaded: LoadedTrace) -> tuple[Finding, ...]:
    """Every finding of the trace, computed once per trace."""
    return run_checks(loaded.trace)


def predicted(loaded: LoadedTrace, shown: int) -> tuple[Finding, ...]:
    """The findings of rounds 1 to `shown` (lib.ui.predict.shown_rounds): in predict mode a finding names what the
    model did in its round (its calls, their arguments), and a later request carries that."""
    return tuple(f for f in findings(loaded) if f.round <= shown)


def paragraphs(loaded: LoadedTrace) -> list[str]:
    """A gallery trace's explanation (header field `explanation`) as paragraphs: what happened, what the model
    saw, the fix; none when the trace has no explanation."""
    return explanation_paragraphs(loaded.trace.header)


def explanation(loaded: LoadedTrace) -> None:
    """A gallery trace's explanation, boxed."""
    found = paragraphs(loaded)
    if found:
        with st.container(border=True):
            st.markdown(f":material/lightbulb: **{EXPLANATION_HEADING}**")
            for paragraph in found:
                plain.text(paragraph)


def counts(found: tuple[Finding, ...], unread: str | None = None, whole: bool = True,
           skipped: str | None = None) -> None:
    """One line: how many findings of each severity, or that there are none; then `unread` (lib.checks.unread_requests),
    where the log lacked requests, and `skipped` (lib.checks.skipped_words), where the file had parts that could not be
    read: none found there is not none there. `whole` False: only the rounds predicted so far were listed."""
    if not found:
        if unread is None and skipped is None:
            st.success(NONE_FOUND if whole else "No pitfalls found in the rounds predicted so far.")
        else:
            st.info(NONE_FOUND_IN_LOG)
            if unread:
                st.caption(unread)
            if skipped:
                st.caption(skipped)
        return
    st.caption(counts_words(found, unread))
    if skipped:
        st.caption(skipped)


def listing(loaded: LoadedTrace, found: tuple[Finding, ...]) -> None:
    """Every finding, grouped by severity, the most serious first."""
    for severity in SEVERITIES:
        group = [f for f in found if f.severity == severity]
        if not group:
            continue
        st.subheader(f"{HEADINGS[severity]} ({len(group)})")
        for n in _page(group, severity):
            _card(loaded, group[n], key=f"checks.open.{severity}.{n}")


def _page(group: list[Finding], severity: str) -> range:
    """Which of a severity's findings to draw: all of a few, else the page chosen, the first by default."""
    if len(group) <= PAGE:
        return range(len(group))

    def words(start: int) -> str:
        last = min(start + PAGE, len(group))
        return f"{start + 1:,} to {last:,} (rounds {group[start].round:,} to {group[last - 1].round:,})"

    start = st.selectbox(f"{len(group):,} findings, {PAGE} at a time", range(0, len(group), PAGE),
                         format_func=words, key=f"checks.page.{severity}")
    return range(start, min(start + PAGE, len(group)))


def _card(loaded: LoadedTrace, finding: Finding, key: str) -> None:
    with st.container(border=True):
        words, action = st.columns([3, 1], vertical_alignment="center")  # room for "Open round 1,000" at 1280 px
        words.markdown(f"**{finding.code}**")
        plain.text(finding.where, words)
        plain.text(finding.message, words)
        if action.button(f"Open round {finding.round}", key=key, help="Show this round in the round explorer"):
            navigation.open_round(loaded, finding.round)
