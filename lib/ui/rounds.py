"""The round on screen as one `RoundView` (lib/round_view.py), built once and shared by every session.

A view is kept per trace, round, token counter and the trace's notes as last read, so a new note
or another counter builds a new one, and moving back to a round already seen builds nothing.
"""

from __future__ import annotations

from lib.annotations import Note
from lib.catalog import LoadedTrace
from lib.round_view import RoundView, round_view
from lib.summary import RoundSummary
from lib.ui import findings, state
from lib.ui.notes import notes_on
from lib.ui.cache import per_trace


@per_trace(key=lambda index, counter_name, notes, rows, waiting: (index, counter_name, notes, waiting))
def _view(loaded: LoadedTrace, index: int, counter_name: str, notes: tuple[Note, ...],
          rows: tuple[RoundSummary, ...], waiting: str | None) -> RoundView:
    return round_view(loaded.trace, index, findings.findings(loaded), notes, rows[index - 1], waiting)


def view(loaded: LoadedTrace, index: int, waiting: str | None = None) -> RoundView:
    """Round `index` of the trace, with the counter chosen in the sidebar and the notes stored for the trace;
    `waiting` is the id of a call a live run holds for the user's approval."""
    return _view(loaded, index, state.counting(loaded).counter.name, notes_on(loaded), state.summaries(loaded),
                 waiting)
