"""The round navigator of a long trace: every round held in the page (lib/condensed.py), its list virtualised, the
chosen round readable at once, without a server round trip; the round's cards below follow by a fragment rerun.

A session's browser gets the condensed rounds once per trace; later reruns send only the round on screen. A page
that lacks them (a reconnect after the server restarted) says so, and the next rerun sends them again.

What the component is given is bytes: one line of JSON, the trace and the round on screen, and on a session's first
run, after it, the condensed rounds as gzip-compressed JSON, made once per trace. Given a dict, Streamlit serializes it
on every call, twice (to send it, and sorted, to name the element): 430 KB of JSON for a 1,000-round trace, on every
visitor's first load, in the server process that also serves the page its code. Compressed, because the browser reads
a websocket message on its main thread between the tasks that draw the round: 400 KB arrived 0.3 to 0.6 s after it
was sent, and the page settled only after it (issue 21); the same rounds gzip to a tenth."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import streamlit as st

from lib.catalog import LoadedTrace
from lib.condensed import condensed_rounds
from lib.ui import state
from lib.ui.cache import per_trace

NAVIGATOR = "explorer.navigator"
"""Session key: the navigator component."""
SENT = "explorer.navigator_sent"
"""Session key: the digest of the trace whose condensed rounds this session's browser holds."""
_HERE = Path(__file__).parent
_COMPONENT = st.components.v2.component(
    "roundtrip.round_navigator", js=(_HERE / "round_navigator.js").read_text(encoding="utf-8"),
    css=(_HERE / "round_navigator.css").read_text(encoding="utf-8"))


@per_trace()
def _condensed(loaded: LoadedTrace) -> bytes:
    # mtime=0: the same trace gives the same bytes, so the element keeps its identity across sessions.
    return gzip.compress(orjson.dumps(condensed_rounds(loaded.trace)), compresslevel=6, mtime=0)


def _chosen() -> None:
    chosen = st.session_state[NAVIGATOR].get("chosen")
    if isinstance(chosen, int):
        st.session_state[state.ROUND] = chosen


def _missing() -> None:
    st.session_state.pop(SENT, None)


def round_navigator(loaded: LoadedTrace, index: int) -> None:
    """The navigator on round `index`; a round chosen in it becomes the round on screen."""
    data = json.dumps({"trace": loaded.digest, "round": index}).encode()
    if st.session_state.get(SENT) != loaded.digest:
        data += b"\n" + _condensed(loaded)  # JSON escapes every newline inside a string: the first one ends the line
        st.session_state[SENT] = loaded.digest
    _COMPONENT(key=NAVIGATOR, data=data, on_chosen_change=_chosen, on_missing_change=_missing)
