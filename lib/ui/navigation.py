"""Moving between pages: the frame guard, widget values kept over a page switch, a round opened in
the explorer, and the stop for a file with no readable rounds. Each is written here once."""

from __future__ import annotations

from typing import Iterable
from urllib.parse import urlsplit

import streamlit as st

from lib.catalog import LoadedTrace
from lib.ui import state

FRAME = "app.framed"
"""Session key: set by app.py before it runs a page."""
WANTED = "app.wanted"
"""Session key: the page a link named (its URL path and query) when it opened without the frame."""
EXPLORER = "pages/explorer.py"
"""The round explorer's page, where a finding or a note opens its round."""
COMPARE = "pages/compare.py"
"""The Compare page, where a fork opens beside its parent."""
FORK = "pages/fork.py"
"""The Fork page, where one round's request is edited and sent again."""
FORK_ROUND = "fork.round"
"""Session key: the round the Fork page forks."""


def frame_guard() -> None:
    """Send a page opened without app.py's frame through the frame."""
    # The project keeps a top-level pages/ folder, and Streamlit's legacy auto-discovery then treats a
    # fresh server as an old-style multipage app: the first visit to a page's URL runs that page alone,
    # without app.py's page config and navigation. Going through app.py puts the frame back. A restarted
    # server meets every open page this way on its reconnect: the deep link (?trace=, ?round=) goes along,
    # or the page would fall back to the first trace at round 1 (switch_page clears the query by default).
    # The link's page is kept too, for app.py to open once its navigation exists (open_wanted).
    if not st.session_state.get(FRAME):
        query = st.query_params.to_dict()
        st.session_state[WANTED] = (urlsplit(st.context.url).path.rstrip("/").rsplit("/", 1)[-1], query)
        st.switch_page("app.py", query_params=query)


def open_wanted(pages: Iterable, current) -> None:
    """Open the page a link named, now that app.py's navigation holds it (see frame_guard), unless `current`, the
    page the navigation chose, is that page already."""
    wanted = st.session_state.pop(WANTED, None)
    page = next((p for p in pages if wanted and p.url_path == wanted[0]), None)
    if page is not None and page.url_path != current.url_path:
        st.switch_page(page, query_params=wanted[1])


def keep_widget_values(keys: tuple[str, ...]) -> None:
    """Keep these widgets' values over a page switch."""
    # Streamlit forgets a widget's value when another page draws it; writing the value back keeps it. The widgets
    # also ask for persist_state="session", which keeps a value even through a switch that interrupts a run before
    # this line; this line still keeps a value set before its widget was first drawn (point_explorer_at).
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def point_explorer_at(loaded: LoadedTrace, index: int) -> None:
    """Make round `index` of this trace the explorer's round, for when it opens next."""
    st.session_state[state.ROUND] = st.session_state[state.ROUND_SHOWN] = index
    # The explorer resets the round when it sees a trace for the first time; this marks it as seen.
    st.session_state[state.SHOWN_DIGEST] = loaded.digest


def open_round(loaded: LoadedTrace, index: int) -> None:
    """Switch to the round explorer on round `index` of this trace."""
    point_explorer_at(loaded, index)
    st.switch_page(EXPLORER)


def require_rounds(loaded: LoadedTrace) -> None:
    """Stop the page here when the trace has no readable rounds, saying where the problems are listed."""
    if not loaded.trace.rounds:
        st.warning("This file holds no readable rounds. The sidebar says what it holds and why none could be read.")
        st.stop()


def fork_from(index: int) -> None:
    """Open the Fork page on round `index` of the trace on screen."""
    st.session_state[FORK_ROUND] = index
    st.switch_page(FORK)
