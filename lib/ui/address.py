"""The page's address (`?trace=&round=&step=`, Compare's `?compare=&round=`) and the browser's Back and Forward.

Streamlit adds an address to the browser's history each time a run changes the query string (one entry per change
sent, so parameters changed together are written in one call), and reruns the page on Back and Forward with the
address they bring. The explorer and presenter mode wrote their position from the one the session held, so a Back came
and went unseen: the round stayed, and the address it had brought was written over. So every writer of these
parameters writes through `write`, which remembers what it left, and a run whose address differs from that was
brought by the browser: the picker, the explorer, presenter mode, Compare and Fork follow it. A plan's slides answer
Back the same way with `?slide=` (lib/ui/slides.py)."""

from __future__ import annotations

import streamlit as st

from lib.deeplink import linked_round

KEYS = ("trace", "round", "step", "compare", "mode")
"""The parameters that say what is on screen, and that Back and Forward move through (`compare`: Compare's two
runs, its `round` the row; `mode`: the workshop modes on)."""
WRITTEN = "address.written"
"""Session key: the KEYS' values as this session last wrote them."""
BROWSED = "address.browsed"
"""Session key: the KEYS' values the browser brought to this run, unlike those written, until followed; None in a
run that the page's own controls started."""

QUERY = "address.query"
"""Session key: the whole query string's parameters as the last run left them (remember), in their order."""
OWN = frozenset({"compare", "plan", "slide", "run"})
"""Parameters (and the Compare page's url_path) whose address is its page's own: Compare's pair and its `round`, a
row, not a round; a plan's slide; a live run's scenario. An address holding one is not put back on the next page."""
PAGE = "address.page"
"""Session key: the page the last run drew (its url_path)."""
CHANGED = "address.changed"
"""Session key: the KEYS whose values the browser brought to this run differ from those written before it, until
followed (browsed_change)."""


def _address() -> dict[str, str | None]:
    return {key: st.query_params.get(key) for key in KEYS}


def page_opened(path: str) -> None:
    """At the start of every run (app.py), the page's url_path: a page opened from the sidebar arrives with the
    address Streamlit emptied, and the first parameter a page writes then made an entry in the browser's history at
    the page before, then Streamlit another at this page. The address as the last run left it is put back first, the
    same string the browser shows, so the page's own writes change it only where the page differs: one entry."""
    moved = st.session_state.get(PAGE, path) != path
    st.session_state[PAGE] = path
    left = st.session_state.get(QUERY)
    if moved and left and not any(key in st.query_params for key in KEYS) and not OWN.intersection(left) \
            and path not in OWN:
        st.query_params.from_dict({**left, **st.query_params.to_dict()})


def remember() -> None:
    """At the end of every run (app.py) and of every write: the query string as it stands (page_opened)."""
    st.session_state[QUERY] = st.query_params.to_dict()


def arrived() -> None:
    """At the start of every run (the trace picker's first step): note an address the browser brought. Not in a
    plan (`?plan=`), whose slides follow the browser themselves, nor on a session's first run, a link's own."""
    written, address = st.session_state.get(WRITTEN), _address()
    brought = written is not None and address != written and st.query_params.get("plan") is None
    st.session_state[BROWSED] = address if brought else None
    st.session_state[CHANGED] = {key for key in KEYS if address[key] != written.get(key)} if brought else set()


def written() -> bool:
    """Whether this session has written its address yet: False on its first run, until the first `write`."""
    return st.session_state.get(WRITTEN) is not None


def brought() -> bool:
    """Whether the browser's Back or Forward brought this run's address (arrived), not yet forgotten."""
    return st.session_state.get(BROWSED) is not None


def forget() -> None:
    """Follow nothing of the address the browser brought: what it names cannot be shown (a closed upload's round)."""
    st.session_state[BROWSED] = None


def write(**values: str | None) -> None:
    """Set these parameters (None: take it away) in one change of the address, one entry in the browser's history,
    and remember the address as written."""
    wanted = st.query_params.to_dict()
    for key, value in values.items():
        if value is None:
            wanted.pop(key, None)
        else:
            wanted[key] = value
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)
    st.session_state[WRITTEN] = _address()
    remember()


def browsed_trace(key: str = "trace") -> str | None:
    """The `?trace=` (or Compare's `?compare=`) the browser brought to this run, when it names another trace than the
    one last written."""
    browsed, written = st.session_state.get(BROWSED), st.session_state.get(WRITTEN)
    if browsed is None or written is None or browsed.get(key) == written.get(key):
        return None
    return browsed.get(key)


def browsed(key: str) -> str | None:
    """The `?round=` or `?step=` the browser brought to this run, once (then it is followed): for the trace (or the
    two runs) it named, where that is what is on screen (the picker followed it, or it did not change)."""
    brought = st.session_state.get(BROWSED)
    if brought is None or brought["trace"] != st.query_params.get("trace") \
            or brought.get("compare") != st.query_params.get("compare"):
        return None
    return brought.pop(key, None)


def browsed_round(count: int | None) -> int | None:
    """The round (Compare: the row) of the address the browser brought to this run (`browsed`), in a trace of `count`
    rounds; None where it brought none, or one that is no round of it (the round on screen stays)."""
    brought = browsed("round")
    if brought is None or (linked := linked_round(brought, count)).problem:
        return None
    return linked.round


def browsed_change(key: str) -> str | None:
    """The `key` of the address the browser brought to this run where it differs from the one written, once ("" where
    the address brought has none); None where it brought no change of it."""
    brought, changed = st.session_state.get(BROWSED), st.session_state.get(CHANGED, set())
    if brought is None or key not in changed:
        return None
    changed.discard(key)
    return brought.get(key) or ""
