"""The provenance line shown next to a payload: our own words as a caption, the trace's as text."""

from __future__ import annotations

import streamlit as st

from lib.model import Round, Trace
from lib.provenance import origin_line, provenance_detail
from lib.ui import plain


def provenance_line(trace: Trace, round_: Round) -> None:
    """Whether this round's payload was recorded, completed, constructed or derived, and what that means here."""
    st.caption(origin_line(trace, round_))
    detail = provenance_detail(trace.round_provenance(round_))
    if detail:
        plain.text(detail)
