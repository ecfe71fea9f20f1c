"""Library: the saved traces, filtered in the database, sorted and paged; open one, compare two, export the set."""

import streamlit as st

from lib.ui import library, navigation

navigation.frame_guard()
st.title("Library", anchor=False)
asked = library.query()
page = library.found(asked)
if page is not None:
    library.actions(library.listing(page))
    library.averages(asked)
    library.exports(asked)
