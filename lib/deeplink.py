"""What a deep link (`?trace=…&round=…`) asks for, and the closest valid position when it asks for one that
does not exist. The trace is a bundled trace's name, its alias (catalog.neutral_alias, what predict mode writes
while its title is held back) or a saved trace's id. No Streamlit here: the pages say it, this decides it."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from lib.text import plural


@dataclass(frozen=True, slots=True)
class LinkedRound:
    """The round a link opens, and why it is not the one the link asked for, when it is not."""

    round: int
    """The 1-based round to show."""
    problem: str | None
    """In our own words, what was wrong with the link's round; None when it was shown as asked."""


def linked_round(asked: str | None, count: int | None) -> LinkedRound:
    """The round a link's `round` opens in a trace of `count` rounds: the closest valid one, said so. With `count`
    None (predict mode holds the length back) a round past 1 is taken as asked, for the caller to bring within the
    trace without saying how long it is."""
    if asked is None:
        return LinkedRound(1, None)
    try:
        number = int(asked)
    except ValueError:
        return LinkedRound(1, "The link's round is not a whole number: showing round 1.")
    if count is not None and number > count:
        return LinkedRound(count, f"The link asks for round {number:,}, but this trace has "
                                  f"{plural(count, 'round')}: showing round {count:,}, the last.")
    if number < 1:
        return LinkedRound(1, f"The link asks for round {number:,}; rounds count from 1: showing round 1.")
    return LinkedRound(number, None)


KEPT_ID = re.compile(r"[0-9a-f]{64}")
"""What a saved trace's id looks like (its fingerprint, a SHA-256 in hex); anything else is no library id."""


def is_kept_id(asked: str) -> bool:
    """Whether a link's `trace` can name a trace kept in the library, so it is worth looking up."""
    return KEPT_ID.fullmatch(asked) is not None


def closest_trace(asked: str, names: list[str]) -> str | None:
    """The bundled trace whose name is nearest the one a link asked for, if any is near."""
    found = difflib.get_close_matches(asked.lower(), names, n=1, cutoff=0.6)
    return found[0] if found else None
