"""Loading traces once per content hash, shared read-only by every session, and session keys.

Parsed traces live in `st.cache_resource`: one object per file content for the whole server, so
thirty browsers on the same trace hold one copy. Nothing here may mutate a cached trace.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from lib import catalog
from lib.logs.limits import limits
from lib.lru import LeastRecentlyUsed
from lib.prices import DEFAULT_PRICES, Price
from lib.logs.upload import Upload, read_upload
from lib.encodings import encoding_name_for_model
from lib.summary import RoundSummary, summarize
from lib.tokens import Counting, TokenCounter, counter_for
from lib.ui.cache import per_trace

ROUND = "explorer.round"
"""Session key: the 1-based round on screen."""
VIEW = "explorer.view"
"""Session key: show the payload as cards, as raw JSON or in both dialects."""
ROUND_SHOWN = "explorer.round_shown"
"""Session key: the round last on screen, kept apart from the widget, whose value a page switch can drop."""
VIEW_CHOSEN = "explorer.view_chosen"
"""Session key: the view last chosen, kept apart from the widget, whose value a page switch in a browser drops."""
HIGHLIGHT = "explorer.highlight"
"""Session key: payloads are shown highlighted by st.code (colours, copy buttons) rather than as plain text."""
HELD_FROM = "explorer.held_from"
"""Session key: (trace digest, round asked for, round shown instead) when predict mode held a learner back at the
first round still to predict, so that turning the mode off returns to the round asked for."""
SHOWN_DIGEST = "explorer.digest"
"""Session key: the digest of the trace the round belongs to."""
PRESENTER = "explorer.presenter"
"""Session key: presenter mode is on (`?mode=present`)."""
PREDICT = "explorer.predict"
"""Session key: predict mode is on (`?mode=predict`)."""
STEP = "presenter.step"
"""Session key: the step of the round on screen in presenter mode (`?step=`)."""
SCORES = "predict.scores"
"""Session key: scored predictions, {trace digest: {round: Score}}."""
TOKENIZER = "sidebar.tokenizer"
"""Session key: `auto`, an encoding name, or `characters`."""
TOKENIZERS = ("auto", "o200k_base", "cl100k_base", "characters")
"""The choices for counting tokens."""
PRICES = "session.prices"
"""Session key: the price table as edited on the Tokens page, for every page of this session that prices a trace."""
PRICES_EDITS = "session.prices_edits"
"""Session key: how many times the price table was edited, which names its editor afresh after each edit."""


def prices() -> tuple[Price, ...]:
    """The prices this session's costs are worked out with: the Tokens page's edits, else the default table."""
    return st.session_state.get(PRICES, DEFAULT_PRICES)


@st.cache_resource(show_spinner=False)
def bundled() -> list[catalog.BundledTrace]:
    """The bundled traces, read once per server."""
    return catalog.bundled_traces()


# Keyed by the file's name and version, since this is where the digest is first computed; uploads are
# bounded by bytes instead (_uploads). What is derived from a trace goes through lib/ui/cache.per_trace.
@st.cache_resource(show_spinner="Reading the trace…", max_entries=64)
def _bundled(name: str, modified_ns: int, size: int) -> catalog.LoadedTrace:
    path = next(t.path for t in bundled() if t.name == name)
    return catalog.load_bytes(path.read_bytes(), name)


def load_bundled(name: str) -> catalog.LoadedTrace:
    """A bundled trace by name, read and hashed once per version of the file, not on every rerun."""
    path = next(t.path for t in bundled() if t.name == name)
    found = path.stat()
    _uploads().sweep()  # uploads left idle go even when nobody opens another
    return _bundled(name, found.st_mtime_ns, found.st_size)


@st.cache_resource(show_spinner=False)
def _uploads() -> catalog.SizedCache:
    """Read uploads, one cache for the server, bounded by bytes and idle time (lib/logs/limits.py)."""
    caps = limits()
    return catalog.SizedCache(caps.cache_bytes, caps.cache_idle_seconds)


def files_digest(files: list[tuple[str, bytes]]) -> str:
    """One content hash for a set of uploaded files and their names."""
    return catalog.digest(b"".join(catalog.digest(data).encode() + name.encode() for name, data in files))


def load_upload(files: list[tuple[str, bytes]], digest: str, forced: str | None) -> tuple[Upload, str]:
    """The upload read once per server for these files (whose `files_digest` is given) and format choice,
    and its cache key."""
    key = f"{digest}:{forced or 'auto'}"
    cache = _uploads()
    upload = cache.get(key)
    if upload is None:
        with st.spinner("Reading the upload…"):
            upload = read_upload(files, forced)
        cache.put(key, upload, upload.size)
    return upload, key


@st.cache_resource(show_spinner=False)
def _versions() -> LeastRecentlyUsed:
    """(path, modified time, size) of a growing file → the key its upload is cached under."""
    return LeastRecentlyUsed(64)


def load_growing(path: Path) -> tuple[Upload, str]:
    """A file that grows while it is watched (a capture) as an upload, read and hashed again only once its time or
    size changed: a rerun every second must not read and hash a capture of a thousand rounds (130 MB) each time."""
    found = path.stat()
    version = (str(path), found.st_mtime_ns, found.st_size)
    key = _versions().get(version)
    upload = _uploads().get(key) if key else None
    if upload is None:
        data = path.read_bytes()
        upload, key = load_upload([(path.name, data)], catalog.digest(data), None)
        _versions().put(version, key)
    return upload, key


# Not per trace but per vocabulary, so not through the per-trace cache: one counter per encoding for the
# server, and the spinner while a vocabulary loads.
_counting = st.cache_resource(show_spinner="Loading the tokenizer vocabulary…")(counter_for)


def counting(loaded: catalog.LoadedTrace) -> Counting:
    """The counter chosen in the sidebar; `auto` picks the encoding from the trace's model."""
    choice = st.session_state.get(TOKENIZER, "auto")
    return _counting(encoding_name_for_model(loaded.trace.model) if choice == "auto" else choice)


@per_trace(key=lambda counter: counter.name, spinner="Counting tokens…")
def _summaries(loaded: catalog.LoadedTrace, counter: TokenCounter) -> tuple[RoundSummary, ...]:
    return summarize(loaded.trace, counter)


def summaries(loaded: catalog.LoadedTrace) -> tuple[RoundSummary, ...]:
    """The per-round rows for the current counter, computed once per trace and counter."""
    return _summaries(loaded, counting(loaded).counter)

