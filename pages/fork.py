"""Fork: one round's request edited and sent again, then compared with the trace it came from."""

import streamlit as st

from lib.ui import fork, navigation, plain, predict
from lib.ui.picker import trace_picker

loaded = trace_picker(opens_round=True)
fork.compare_when_asked()
plain.title(predict.title(loaded, predict.predicting()), "Fork a round")
navigation.require_rounds(loaded)
if fork.held_while_predicting(loaded):
    st.stop()
fork.lessons(loaded)
at = fork.chosen_round(loaded)
edit = fork.editor(loaded, at)
fork.sender(loaded, at, edit)
fork.progress(loaded)
