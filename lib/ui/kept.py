"""Saved traces in the UI: the "Save to library" button an editor sees, and a saved trace read by its id.

lib/library.py keeps them; this module lays out and caches. A saved trace's id is its fingerprint,
so its rounds never change: they are read and parsed once per server, like a bundled file. Every open still
asks the database, by id, whether the trace is kept (lib/library.OpenedTraces), so that a trace deleted through
another replica stops opening here as soon as its delete returns.
"""

from __future__ import annotations

import streamlit as st

from lib import catalog, library
from lib.store import StoreUnavailable, database_url
from lib.ui import access as ui_access, plain
from lib.ui.database import store

SAVED = "trace.saved"
"""Session key: the id of the saved trace the picker shows, when it shows one."""
SAVED_HERE = "kept.saved_here"
"""Session key: {trace digest: id} of the traces this session saved, so their link stays on screen."""


@st.cache_resource(show_spinner=False)
def _opened(url: str) -> library.OpenedTraces:
    return library.OpenedTraces(store(url))  # a failure to open the store is not cached: the next rerun tries again


def load(trace_id: str) -> catalog.LoadedTrace | None:
    """The saved trace with this id, or None when there is none; StoreUnavailable when the database fails."""
    return _opened(database_url()).open(trace_id, reading=st.spinner("Reading the saved trace…"))


def forget(trace_id: str) -> None:
    """Let go of a deleted trace's parsed model at once (it would stop opening anyway: each open asks the database)."""
    _opened(database_url()).forget(trace_id)


def link(trace_id: str) -> str:
    """The permanent link of a saved trace: the app's address on this server, then `?trace=<id>`."""
    here = st.context.url
    prefix = (st.get_option("server.baseUrlPath") or "").strip("/")
    if not here:
        return library.link(trace_id)
    scheme, _, rest = here.partition("://")
    root = f"{scheme}://{rest.split('/', 1)[0]}/" + (f"{prefix}/" if prefix else "")
    return root + library.link(trace_id)


def save_button(loaded: catalog.LoadedTrace, source: library.Source, key: str, of: int = 1,
                whole: str = "upload") -> None:
    """For an editor: save this trace to the library, then its permanent link. A viewer is told why there is none.
    `of`: how many conversations the `whole` (an upload, a capture) holds, this one among them; a save keeps this one
    only, and says so."""
    who = ui_access.visitor()
    if not who.edits:
        st.caption("On this server only editors save traces to the library.")
        return
    done = st.session_state.setdefault(SAVED_HERE, {})
    # An upload of several conversations is saved one conversation at a time: said before the click and after it,
    # or "Saved to the library" beside a summary of 5 conversations reads as all of them kept.
    one = f"the conversation on screen only, 1 of the {whole}'s {of}" if of > 1 else ""
    if st.button("Save to library", key=key, icon=":material/bookmark_add:", disabled=not loaded.trace.rounds,
                 help="Keeps the trace in the shared database, with a permanent link that opens it on any replica."
                      + (f" It saves {one}: choose another in the Conversation box to save it too." if one else "")):
        try:
            with st.spinner("Saving to the library…"):
                done[loaded.digest] = library.save(store(), loaded.trace, source=source, author=who.identity or "")
        except (StoreUnavailable, library.LibraryError) as exc:
            st.error("The trace was not saved; nothing was changed:")
            plain.text(str(exc))
            return
    if loaded.digest in done:
        if one:
            others = "the other one is" if of == 2 else f"the other {of - 1} are"
            st.caption(f"Saved to the library: {one}; {others} not saved unless chosen in the Conversation box and "
                       "saved too. Its permanent link opens it on every replica of this server:")
        else:
            st.caption("Saved to the library. Its permanent link opens it on every replica of this server:")
        st.code(link(done[loaded.digest]), language=None)
