"""Loading traces once per content hash, shared read-only by every session, and session keys.

Parsed traces live in `st.cache_resource`: one object per file content for the whole server, so
thirty browsers on the same trace hold one copy. Nothing here may mutate a cached trace.
"""

from __future__ import annotations

import streamlit as st

from lib import catalog
from lib.encodings import VocabularyUnavailable, encoding_name_for_model, load_encoding
from lib.overview import RoundSummary, summarize

ROUND = "explorer.round"
"""Session key: the 1-based round on screen."""
SHOWN_DIGEST = "explorer.digest"
"""Session key: the digest of the trace the round belongs to."""


@st.cache_resource(show_spinner=False)
def bundled() -> list[catalog.BundledTrace]:
    """The bundled traces, read once per server."""
    return catalog.bundled_traces()


@st.cache_resource(show_spinner="Reading the trace…", max_entries=64)
def _parse(digest: str, _data: bytes, name: str) -> catalog.LoadedTrace:
    return catalog.load_bytes(_data, name)


def load(data: bytes, name: str) -> catalog.LoadedTrace:
    """The parsed trace for these bytes, parsed at most once per server."""
    return _parse(catalog.digest(data), data, name)


def load_bundled(name: str) -> catalog.LoadedTrace:
    """A bundled trace by name."""
    path = next(t.path for t in bundled() if t.name == name)
    return load(path.read_bytes(), name)


@st.cache_resource(show_spinner=False)
def encoding(name: str):
    """The tiktoken encoding, or the reason it cannot be had (shown in the UI, never guessed)."""
    try:
        return load_encoding(name)
    except VocabularyUnavailable as exc:
        return exc


def encoding_for(loaded: catalog.LoadedTrace):
    """The encoding for a trace's model, or VocabularyUnavailable."""
    return encoding(encoding_name_for_model(loaded.trace.model))


@st.cache_resource(show_spinner=False, max_entries=64)
def _summaries(digest: str, _loaded: catalog.LoadedTrace) -> tuple[RoundSummary, ...]:
    found = encoding_for(_loaded)
    return summarize(_loaded.trace, None if isinstance(found, Exception) else found)


def summaries(loaded: catalog.LoadedTrace) -> tuple[RoundSummary, ...]:
    """The per-round overview rows, computed once per trace."""
    return _summaries(loaded.digest, loaded)
