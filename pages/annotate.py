"""Annotate: notes and labels on a trace, a round, a message, a part or a step, kept in a database."""

import streamlit as st

from lib.ui import annotate, explorer, navigation, plain, predict
from lib.ui.picker import trace_picker

loaded = trace_picker()
annotate.follow_jump()
plain.title(predict.title(loaded, predict.predicting()), "Annotate")
navigation.require_rounds(loaded)
# In predict mode the round is the explorer's in predict mode: a round still to predict keeps its response, and the
# rounds after it, back; so do the notes and files that cover every round.
predicting = predict.predicting()
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
    index = explorer.navigation(loaded, predicting)
    revealed = not predicting or predict.revealed(loaded, index)
    if not predicting:  # the navigator holds every response
        explorer.round_list(loaded, index)
    if editing and revealed:
        annotate.note_form(loaded, index, disabled=unavailable)
    elif editing:
        st.caption(annotate.FORM_WAITS)
    explorer.round_view(loaded, index, revealed=revealed, pointer=annotate.card_pointer(loaded, index, editing))
with this_trace:
    if predicting:
        st.caption(annotate.HELD_WHILE_PREDICTING)
    else:
        annotate.editor(loaded, disabled=unavailable, editing=editing)
        annotate.exports(loaded)
with everything:
    if predicting:
        st.caption(annotate.HELD_WHILE_PREDICTING)
    else:
        annotate.all_notes(loaded)
with labels:
    if editing:
        annotate.label_editor(disabled=unavailable)
        annotate.rubric_editor(disabled=unavailable)
