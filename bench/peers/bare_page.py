"""Streamlit's floor for bench.peers.floor: a page with nothing but one st.text, the words the bench waits for."""

import streamlit as st

st.text("Round 1: the program sends the conversation")
