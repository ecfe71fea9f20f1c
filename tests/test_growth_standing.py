"""The counts of a request's messages by standing (lib.growth.standing: new, resent unchanged, changed, held), which the
Tokens page's table and chart and `summarize` give, are the explorer's (lib.growth.growth) on every round of every
bundled trace and fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from lib.growth import growth, held_apart, kept_before, standing
from lib.logs.upload import read_upload

ROOT = Path(__file__).parent.parent
FILES = sorted(p for folder in ("traces", "tests/fixtures") for p in (ROOT / folder).rglob("*")
               if p.is_file() and p.suffix not in (".md", ".txt", ".py"))


def _traces():
    for path in FILES:
        try:
            upload = read_upload([(path.name, path.read_bytes())])
        except Exception:  # noqa: BLE001 - a fixture of bad input: nothing to place
            continue
        yield from (c.trace for c in upload.conversations)


def test_every_round_counts_its_messages_as_the_explorer_places_them():
    compared = changed = held = 0
    for trace in _traces():
        for round_ in trace.rounds:
            placed = growth(trace, round_.index)
            held_entries, sent = held_apart(round_, placed.entries)
            expected = {status: sum(e.status == status for e in sent) for status in ("new", "resent", "changed")}
            kept = kept_before(trace.rounds, round_.index) if round_.request_recorded else None
            counted = standing(round_, kept)
            assert {"new": counted.new, "resent": counted.resent, "changed": counted.changed} == expected, \
                (trace.title, round_.index)
            assert counted.held == len(held_entries)
            assert counted.new + counted.resent + counted.changed + counted.held == len(round_.request.messages)
            compared += 1
            changed += bool(counted.changed)
            held += bool(counted.held)
    # The comparison reaches the cases it is about: rewritten requests and provider-held chains.
    assert compared > 500 and changed >= 5 and held >= 5


@pytest.mark.parametrize("fixture", ["containers/crewai-gemini-empty-answer-retry.yaml"])
def test_a_resent_message_that_changed_is_not_counted_resent(fixture):
    trace = read_upload([(fixture, (ROOT / "tests/fixtures" / fixture).read_bytes())]).conversations[0].trace
    counted = standing(trace.rounds[2], trace.rounds[1])
    assert (counted.new, counted.resent, counted.changed) == (1, 4, 1)
