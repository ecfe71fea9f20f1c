"""Checks: every pitfall found in the current trace, by severity, each with a way to its round."""

import streamlit as st

from lib.checks import unread_requests
from lib.slide_words import predicted_only_words
from lib.ui import findings, navigation, plain, predict
from lib.ui.picker import trace_picker

loaded = trace_picker()
plain.title(predict.title(loaded, predict.predicting()), "Checks")
# While predicting, a finding names what the model did in its round and a gallery trace's explanation tells the whole
# story: the page stops before the first round still to predict, as the Tokens page does.
shown = predict.shown_rounds(loaded, predict.predicting())
whole = shown == len(loaded.trace.rounds)
if whole:
    findings.explanation(loaded)
navigation.require_rounds(loaded)
if not whole:
    st.caption(predicted_only_words(shown, "this page"))
    if not shown:
        st.stop()
found = findings.predicted(loaded, shown)
findings.counts(found, unread_requests(loaded.trace), whole)
findings.listing(loaded, found)
