"""What one round shows, worked out in one pass: its growth, steps, findings, notes and tokens.

The explorer, presenter mode, predict mode, the HTML export and the handout all render a
`RoundView` instead of asking lib for each piece in turn; lib/ui/rounds.py caches one per trace
and round. Pure: no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from lib.annotations import Note, NoteMark, marks_for_round, round_of
from lib.checks import Finding, awaiting_approval
from lib.growth import Entries, Growth, Status, growth, held_apart, system_standing
from lib.model import Round, Trace
from lib.predict import Outcome, outcome
from lib.steps import StepLabel, steps_for_round
from lib.summary import RoundSummary, finish_words


@dataclass(frozen=True, slots=True)
class RoundView:
    """One round with everything drawn beside it."""

    round: Round
    """The round."""
    previous: Round | None
    """The round before, whose request this one's is compared with."""
    following: Round | None
    """The next round, whose request carries this round's results."""
    placed: Growth
    """Its request's messages placed against the previous request: new, resent, changed, dropped."""
    system: Status | None
    """Its request's top-level system field against the previous request's (system_standing); None where it has
    none. Never one of the messages, so never counted with them."""
    tools_changed: bool
    """The request's tool list differs from the previous request's (or is the first)."""
    steps: tuple[StepLabel, ...]
    """The five steps' labels, pinned to the real payload."""
    findings: tuple[Finding, ...]
    """The checks' findings on this round."""
    notes: tuple[Note, ...]
    """The notes pinned to this round."""
    note_marks: tuple[NoteMark, ...]
    """Those of its notes that point at a card, placed for the cards."""
    row: RoundSummary | None
    """Its token figures and input breakdown, when counted."""
    outcome: Outcome | None
    """What the round did, for predict mode; None when there is nothing to predict."""
    finish: str
    """The stop signal for an overview table, as the Tokens page's table writes it (lib.summary.finish_words)."""

    @property
    def held_and_sent(self) -> tuple[Entries, Entries]:
        """Its request's messages: those the provider held (not sent in this request), then those the program sent."""
        return held_apart(self.round, self.placed.entries)

    @property
    def system_changed(self) -> bool:
        """The request has a top-level system field that the request before did not send as it is."""
        return self.system in ("new", "changed")

    @property
    def tool_list_recorded(self) -> bool:
        """False for a log that kept the messages but not the tool list (RoundSummary.tool_list_recorded)."""
        return self.row is None or self.row.tool_list_recorded

    @property
    def tool_list_sent(self) -> bool:
        """True where the log kept no tool list but one was sent (RoundSummary.tool_list_sent)."""
        return self.row is not None and self.row.tool_list_sent

    @property
    def marks(self) -> tuple[StepLabel | Finding | NoteMark, ...]:
        """Everything pinned to a card: step labels, findings, then notes."""
        return (*self.steps, *self.findings, *self.note_marks)


def round_view(trace: Trace, index: int, findings: Iterable[Finding] = (), notes: Iterable[Note] = (),
               row: RoundSummary | None = None, waiting: str | None = None) -> RoundView:
    """Round `index` (1-based) of the trace, given the trace's findings and notes (this round's are picked);
    `waiting` is the id of a call a live run holds for the user's approval."""
    round_ = trace.rounds[index - 1]
    previous = trace.rounds[index - 2] if index > 1 else None
    placed = growth(trace, index)
    mine = tuple(note for note in notes if round_of(note.target) == index)
    return RoundView(
        round=round_, previous=previous,
        following=trace.rounds[index] if index < len(trace.rounds) else None,
        placed=placed,
        system=system_standing(trace, index),
        tools_changed=previous is None or previous.request.tools != round_.request.tools,
        steps=tuple(steps_for_round(trace, index, placed, waiting)),
        findings=awaiting_approval((f for f in findings if f.round == index), round_, waiting),
        notes=mine, note_marks=marks_for_round(mine, index), row=row,
        outcome=outcome(trace, index), finish=finish_words(round_),
    )


