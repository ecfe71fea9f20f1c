"""Round explorer: step through a trace, request and response side by side, five steps labeled."""

import streamlit as st

from lib.ui import explorer, predict, presenter, share
from lib.ui.picker import trace_picker

loaded = trace_picker()
modes = presenter.modes()
if modes.presenter and loaded.trace.rounds:
    presenter.show(loaded, predicting=modes.predict)
    st.stop()
explorer.header(loaded)
if not loaded.trace.rounds:
    st.warning("This file holds no readable rounds. The problems found are listed in the sidebar.")
    st.stop()
index = explorer.navigation(loaded)
explorer.round_view(loaded, index, revealed=not modes.predict or predict.revealed(loaded, index))
st.divider()
if modes.predict:
    predict.trace_score(loaded)  # the overview and the picture would give the answers away
else:
    explorer.overview(loaded)
    explorer.sequence_diagram(loaded)
share.downloads(loaded)
