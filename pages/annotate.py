"""Annotate: notes and labels on a trace, a round, a message, a part or a step, kept in a database."""

import streamlit as st

from lib.ui import annotate, explorer, navigation, plain
from lib.ui.picker import trace_picker

loaded = trace_picker()
annotate.follow_jump()
plain.title(loaded.trace.title, "Annotate")
navigation.require_rounds(loaded)
# What comes and goes above the tabs (a save's message, the database's problem, an import offer) sits in one
# container, and the tabs are keyed: the tab in use stays open when a message appears or goes.
with st.container():
    unavailable = annotate.store_problem()
    annotate.messages()
    editing = annotate.editing()
    if editing:
        annotate.import_offer(loaded)
this_round, this_trace, everything, labels = st.tabs(["This round", "This trace", "All notes", "Labels and rubrics"],
                                                     key="annotate.tab")
with this_round:
    index = explorer.navigation(loaded)
    explorer.round_list(loaded, index)
    if editing:
        annotate.note_form(loaded, index, disabled=unavailable)
    explorer.round_view(loaded, index, pointer=annotate.card_pointer(loaded, index, editing))
with this_trace:
    annotate.editor(loaded, disabled=unavailable, editing=editing)
    annotate.exports(loaded)
with everything:
    annotate.all_notes(loaded)
with labels:
    if editing:
        annotate.label_editor(disabled=unavailable)
        annotate.rubric_editor(disabled=unavailable)
