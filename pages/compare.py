"""Compare: two runs aligned round by round, a verdict per round, one pair side by side."""

import streamlit as st

from lib.ui import compare

st.title("Compare two runs", anchor=False)
left, right = compare.pickers()
if compare.held_while_predicting(left, right):
    st.stop()
found = compare.comparison(left, right)
compare.summary(found)
compare.forked(left, right)
compare.rounds_table(left, right)
if found.pairs:
    compare.detail(left, right, found, compare.chosen_row(found))
