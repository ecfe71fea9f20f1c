"""The shared sidebar trace picker: a bundled trace, or an uploaded native file.

Every page calls `trace_picker()` first. (It lives here rather than in app.py because Streamlit's
AppTest does not deliver uploads to widgets drawn by the navigation frame, and the upload must be
testable through the real widget.)
"""

from __future__ import annotations

import streamlit as st

from lib import catalog
from lib.ui import state
from lib.text import md_escape, plural

TRACE = "sidebar.trace"
"""Session key of the bundled-trace selectbox."""
UPLOAD = "sidebar.upload"
"""Session key of the file uploader widget."""
FRAME = "app.framed"
"""Session key: set by app.py before it runs a page."""
UPLOADED = "trace.uploaded"
"""Session key: the LoadedTrace of the last upload. Kept apart from the widget, whose value a page switch drops."""


def _uploaded_changed() -> None:
    file = st.session_state.get(UPLOAD)
    if file is None:
        st.session_state.pop(UPLOADED, None)
    else:
        st.session_state[UPLOADED] = state.load(file.getvalue(), file.name)


def _close_upload() -> None:
    st.session_state.pop(UPLOADED, None)


def trace_picker() -> catalog.LoadedTrace:
    """Draw the picker in the sidebar and return the trace it selects."""
    if not st.session_state.get(FRAME):
        # A folder named pages/ makes Streamlit's first run of a fresh server treat it as an old-style
        # multipage app, running a page opened by its URL without app.py. Go through the frame instead.
        st.switch_page("app.py")
    # Streamlit forgets a widget's value when another page draws it; writing the value back keeps it.
    for key in (TRACE, state.TOKENIZER):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    traces = state.bundled()
    names = [t.name for t in traces]
    titles = {t.name: t.title for t in traces}
    if TRACE not in st.session_state:
        asked = st.query_params.get("trace")
        st.session_state[TRACE] = asked if asked in names else catalog.FIRST_TRACE
    with st.sidebar:
        st.header("Roundtrip")
        st.caption("See every round of a tool call: what the program sent, what the model answered.")
        name = st.selectbox("Trace", names, format_func=titles.get, key=TRACE, on_change=_close_upload)
        st.file_uploader("Or open a trace file (native .jsonl)", type=["jsonl", "json"], key=UPLOAD,
                         on_change=_uploaded_changed)
        st.selectbox("Count tokens with", state.TOKENIZERS, key=state.TOKENIZER,
                     help="auto picks the tiktoken vocabulary for the trace's model; characters is a rough rule of "
                          "thumb (4 characters a token) for when no vocabulary is available.")
        loaded = st.session_state.get(UPLOADED)
        if loaded is None:
            st.query_params["trace"] = name
            return state.load_bundled(name)
        st.caption(f"Showing the uploaded file {md_escape(loaded.name)}.")
        st.button("Back to the bundled traces", on_click=_close_upload, key="sidebar.close_upload")
        if loaded.problems:
            st.warning(f"{plural(len(loaded.problems), 'line')} could not be read; the rest loaded.")
            st.text("\n".join(str(p) for p in loaded.problems[:50]))
        st.query_params.pop("trace", None)
        return loaded
