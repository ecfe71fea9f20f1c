"""Round explorer: step through a trace, request and response side by side, five steps labeled."""

import streamlit as st

from lib.ui import explorer
from lib.ui.picker import trace_picker

loaded = trace_picker()
explorer.header(loaded)
if not loaded.trace.rounds:
    st.warning("This file holds no readable rounds. The problems found are listed in the sidebar.")
    st.stop()
index = explorer.navigation(loaded)
explorer.round_view(loaded, index)
st.divider()
explorer.overview(loaded)
