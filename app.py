"""Roundtrip: the frame. Page config and navigation; each page draws the shared sidebar picker."""

import base64
from pathlib import Path

import streamlit as st

from lib.ui import address
from lib.ui.navigation import FRAME, open_wanted
from lib.ui.picker import SIDEBAR_WIDTH_PX
from lib.ui.upload_limit import limit_uploads

# The favicon is a file of ours: a Material icon there is fetched from fonts.gstatic.com, an emoji needs an emoji font.
# Its 500 bytes travel inside the page config as a data URL: given as a path, Streamlit served it from /media, one more
# request on every visit, made after the first screen's code had loaded.
FAVICON = ("data:image/png;base64,"
           + base64.b64encode((Path(__file__).parent / "docs" / "favicon.png").read_bytes()).decode())
# The sidebar's width is set here, before any element is laid out (lib.ui.picker.SIDEBAR_CSS says why).
st.set_page_config(page_title="Roundtrip", page_icon=FAVICON, layout="wide", initial_sidebar_state=SIDEBAR_WIDTH_PX)
st.session_state[FRAME] = True
limit_uploads()  # before any page: what this session may keep in Streamlit's upload store
pages = [
    st.Page("pages/explorer.py", title="Round explorer", icon=":material/search:", default=True),
    # Named for the address it always had, /overview: Streamlit's legacy routing, which a fresh server's first visit
    # meets (lib.ui.navigation.frame_guard), knows a page only by its file's name.
    st.Page("pages/overview.py", title="Tokens and cost", icon=":material/calculate:"),
    st.Page("pages/checks.py", title="Checks", icon=":material/stethoscope:"),
    st.Page("pages/plan.py", title="Workshop plan", icon=":material/slideshow:"),
    st.Page("pages/annotate.py", title="Annotate", icon=":material/edit_note:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
    st.Page("pages/fork.py", title="Fork", icon=":material/fork_right:"),
    st.Page("pages/live.py", title="Live run", icon=":material/play_arrow:"),
    st.Page("pages/watch.py", title="Watch", icon=":material/visibility:"),
]
shown = st.navigation(pages)
address.page_opened(shown.url_path)
open_wanted(pages, shown)
try:
    shown.run()
finally:  # a page that stops early (st.stop) or reruns at once still leaves its address
    address.remember()
