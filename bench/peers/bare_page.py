"""Streamlit's floor for bench.peers.floor: a page with nothing but one st.text, the words the bench waits for.
Run with the argument `code`, it adds one small st.code block: the price of the syntax highlighter alone."""

import sys

import streamlit as st

st.text("Round 1: the program sends the conversation")
if "code" in sys.argv[1:]:
    st.code('{"n": 1}', language="json")
