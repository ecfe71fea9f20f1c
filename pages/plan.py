"""Workshop plan: the slides a workshop shows, in order; open, reorder, save, share as a link, present."""

import streamlit as st

from lib.ui import plan_editor
from lib.ui.picker import trace_picker

plan_editor.offer_open(trace_picker())
st.title("Workshop plan", anchor=False)
st.caption("A plan is the order of a workshop's slides: each a step of a round, a trace's tokens and cost, a round "
           "in both dialects, the sequence diagram, a pitfall of the gallery or a trace's closing figures. "
           "Presenter mode moves through it with Previous and Next.")
plan_editor.opener()
plan = plan_editor.draft()
st.subheader("Slides")
plan_editor.slide_table(plan)
plan_editor.editor(plan)
st.subheader("Save, share, present")
plan_editor.sharing(plan)
