"""The notes kept in the database as every page reads them: one snapshot shared by the sessions, read at most every
ten seconds and after each write, and the notes on one trace. Apart from the Annotate page's forms (lib/ui/annotate.py),
so that a round's view can carry its notes without the page's imports."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from lib.annotations import DEFAULT_LABELS, Note, Rubric
from lib.catalog import LoadedTrace
from lib.fingerprint import fingerprint
from lib.store import StoreUnavailable, database_url, not_created_yet
from lib.ui.cache import per_trace
from lib.ui.database import store as _store


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the database held when last read, shared read-only by every session."""

    notes: tuple[Note, ...]
    """Every note on every trace, oldest first."""
    labels: tuple[str, ...]
    """The label set."""
    rubrics: tuple[Rubric, ...]
    """The rubrics notes can be scored under."""
    problem: str | None
    """Why the database could not be read, or None."""


@st.cache_resource(show_spinner=False, ttl=10)
def _snapshot(url: str) -> Snapshot:
    if not_created_yet(url):
        return Snapshot((), DEFAULT_LABELS, (), None)  # reading alone must not create the file
    try:
        store = _store(url)
        return Snapshot(store.notes(), store.labels(), store.rubrics(), None)
    except StoreUnavailable as exc:
        return Snapshot((), DEFAULT_LABELS, (), str(exc))


def snapshot() -> Snapshot:
    """Every note and the label set, read at most every ten seconds and after each write."""
    return _snapshot(database_url())


@per_trace()
def trace_id(loaded: LoadedTrace) -> str:
    """The trace's fingerprint, computed once per trace."""
    return fingerprint(loaded.trace)


def notes_on(loaded: LoadedTrace) -> tuple[Note, ...]:
    """The notes on this trace, whatever file it came from."""
    everything = snapshot().notes
    if not everything:
        return ()  # no fingerprint needed: it hashes every round
    fp = trace_id(loaded)
    return tuple(note for note in everything if note.trace == fp)


def forget_notes() -> None:
    """Drop the shared snapshot, so that the next read sees a write just made."""
    _snapshot.clear()
