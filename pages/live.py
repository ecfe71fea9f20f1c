"""Live run: play a scenario's tool loop against a real or replayed model and watch its trace grow."""

import streamlit as st

from lib.ui import live

live.frame_guard()
live.header()
live.address()
live.setup_form()
runner = live.current()
if runner is None:
    st.info("Choose a scenario and press Run. Replay needs no key: it answers from recorded responses.")
    st.stop()
place = live.status(runner)
live.rounds(runner)
live.exports(runner)
live.advance(runner, place)
