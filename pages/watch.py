"""Watch: the calls an agent makes through the recording proxy, rounds appearing as they complete."""

import streamlit as st

from lib.ui import watch

watch.frame_guard()
watch.fork_if_asked()
st.title("Watch your agent")
if not watch.for_editors():
    st.stop()
watch.how_to_connect()
capture = watch.chosen_capture()
if capture is None:
    st.stop()
watch.open_in_explorer(capture)
watch.rounds(capture)
