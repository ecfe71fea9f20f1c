"""The one store per database URL for the whole server, shared by the notes and the trace library."""

from __future__ import annotations

import streamlit as st

from lib.store import Store, database_url, open_store


# Per database URL, not per trace, so not through lib/ui/cache.per_trace: one engine and pool per server.
@st.cache_resource(show_spinner=False)
def _store(url: str) -> Store:
    return open_store(url)  # a failure is not cached: the next rerun tries again


def store(url: str | None = None) -> Store:
    """The store on this database (`ROUNDTRIP_DATABASE_URL` when none is named); StoreUnavailable when it fails."""
    return _store(url or database_url())
