"""The counts of a request's messages by standing (lib.growth.standing: new, resent unchanged, changed, held), which the
Tokens page's table and chart and `summarize` give, are the explorer's (lib.growth.growth) on every round of every
bundled trace and fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from lib.growth import changed_at, growth, held_apart, kept_before, standing
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
            # Where the Tokens page's split finds the changed messages whose tokens it counts apart (lib.tokens).
            assert changed_at(round_, kept) == tuple(e.index for e in sent if e.status == "changed")
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


def test_the_tokens_of_messages_resent_with_changes_are_counted_as_changed_not_as_new(app):
    # pydantic-ai sends a Gemini run on to gpt-4o-mini: round 3 resends the call and its result written over in
    # OpenAI's format, each card marked "changed since the previous request". The input split counted their tokens
    # among the "new messages", beside a chart that now stacks them as changed.
    from lib import tokens
    from lib.ui import state
    from tests.screen import READ, uploaded
    fixture = "containers/pyd-gemini-then-openai-lone-tools.yaml"
    trace = read_upload([(fixture, (ROOT / "tests/fixtures" / fixture).read_bytes())]).conversations[0].trace
    counter = tokens.counter_for("cl100k_base").counter
    split = tokens.breakdowns(trace, counter)[2]
    changed = [e.message for e in growth(trace, 3).changed]
    assert [m.role for m in changed] == ["assistant", "tool"]
    assert split.changed == sum(tokens.message_tokens(m, counter) for m in changed) > 0
    assert split.new == sum(tokens.message_tokens(e.message, counter) for e in growth(trace, 3).new)
    at = uploaded(app, fixture)
    at.number_input(key=state.ROUND).set_value(3).run()
    line = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    assert f"changed messages {split.changed:,} · new messages {split.new:,}" in line
    at.number_input(key=state.ROUND).set_value(2).run()
    assert "changed messages" not in next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
