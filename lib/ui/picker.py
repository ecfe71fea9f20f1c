"""The shared sidebar trace picker: a bundled trace, or an uploaded native file.

Every page calls `trace_picker()` first. (It lives here rather than in app.py because Streamlit's
AppTest does not deliver uploads to widgets drawn by the navigation frame, and the upload must be
testable through the real widget.)
"""

from __future__ import annotations

import streamlit as st

from lib import catalog
from lib.ui import state
from lib.text import md_escape


def trace_picker() -> catalog.LoadedTrace:
    """Draw the picker in the sidebar and return the trace it selects."""
    traces = state.bundled()
    names = [t.name for t in traces]
    titles = {t.name: t.title for t in traces}
    if "sidebar.trace" not in st.session_state:
        asked = st.query_params.get("trace")
        st.session_state["sidebar.trace"] = asked if asked in names else catalog.FIRST_TRACE
    with st.sidebar:
        st.header("Roundtrip")
        st.caption("See every round of a tool call: what the program sent, what the model answered.")
        name = st.selectbox("Trace", names, format_func=titles.get, key="sidebar.trace")
        upload = st.file_uploader("Or open a trace file (native .jsonl)", type=["jsonl", "json"], key="sidebar.upload")
        if upload is None:
            st.query_params["trace"] = name
            return state.load_bundled(name)
        loaded = state.load(upload.getvalue(), upload.name)
        st.caption(f"Showing the uploaded file {md_escape(upload.name)}. Remove it to go back to the bundled traces.")
        if loaded.problems:
            st.warning(f"{len(loaded.problems)} line(s) could not be read; the rest loaded.")
            st.text("\n".join(str(p) for p in loaded.problems[:50]))
        st.query_params.pop("trace", None)
        return loaded
