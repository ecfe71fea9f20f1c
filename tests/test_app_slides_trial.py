"""What a Chromium trial of presenter mode and the sequence diagram found, through the real app (AppTest) on the
bundled pitfall trace whose system prompt is Anthropic's top-level `system` field: the slides count the resent
messages as the explorer does, the field named apart, and the program's re-ask fits the diagram's lane."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.growth import system_standing
from lib.sequence import NOTE_LENGTH, sequence
from lib.ui.charts import sequence_diagram
from tests.conftest import ROOT, load_bundled
from tests.screen import screen

NARRATION = "pitfalls/narration-without-call"
SYSTEM = "You are the support assistant of an online shop."


def _open(round_: int, step: int | None = None):
    """The trace opened from its link at a round: a presenter slide with `step`, else the explorer."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params.update({"trace": NARRATION, "round": str(round_),
                             **({"step": str(step), "mode": "present"} if step else {})})
    at = app.run()
    assert not at.exception
    return at


def _resent_on_slide(shown: str) -> int | None:
    found = re.search(r"\*\*(\d+) messages? resent unchanged\*\*", shown)
    return int(found[1]) if found else None


def test_the_first_slide_resends_nothing_and_shows_the_system_field_as_new():
    # Slide 1 said "1 message resent unchanged" above the system field, in the first request of all.
    shown = screen(_open(1, 1))
    assert "Nothing is resent: this is the first request." in shown
    assert "resent unchanged" not in shown.replace("1 tool resent unchanged", "")
    assert "**system** (a top-level field, outside the messages array) · :green-badge[new this round]" in shown
    assert any(line.startswith(SYSTEM) for line in shown.splitlines())


def test_slide_3_counts_the_one_message_resent_and_names_the_system_field_apart():
    # Slide 3 said "2 messages resent unchanged" beside 2 new ones, where the counter says request 2 carries 3.
    shown = screen(_open(2, 1))
    assert "1 → :blue-background[**3**] → 5" in shown
    assert ("**1 message resent unchanged** and the system field, resent unchanged, grayed: the model reads every one "
            "of them again.") in shown
    assert "2 messages resent unchanged" not in shown
    stack = [line for line in shown.splitlines() if line.startswith(("system (top-level field)", "messages[0] ·"))]
    assert [line.split(" · ")[0] for line in stack] == ["system (top-level field)", "messages[0]"]


def test_slide_7_says_what_slide_6_said_of_request_3():
    # Slide 6: "Request 3 carries 5 messages: 3 messages resent unchanged"; slide 7 then said 4.
    assert "Request 3 carries 5 messages: 3 messages resent unchanged" in screen(_open(2, 4))
    assert _resent_on_slide(screen(_open(3, 1))) == 3


@pytest.mark.parametrize("round_", [2, 3])
def test_each_request_slide_counts_the_resent_messages_the_explorer_counts(round_):
    labels = [e.label for e in _open(round_).expander if "resent unchanged (messages[" in e.label]
    [explorer] = [int(label.split(" ")[0]) for label in labels]
    assert _resent_on_slide(screen(_open(round_, 1))) == explorer


def test_the_programs_re_ask_fits_its_lane_in_the_sequence_diagram():
    # Round 2's note ran off the chart's right edge, cut at "(Note from the app, not".
    trace = load_bundled(NARRATION).trace
    [reask] = [a for a in sequence(trace) if a.round == 2 and a.source == a.target == "program"]
    assert reask.label.startswith("re-asks in the user's role: (Note from the app")
    assert len(reask.label) <= NOTE_LENGTH and reask.label.endswith("…")
    drawn = [a["text"] for a in json.loads(sequence_diagram(sequence(trace), 3).to_json())["layout"]["annotations"]]
    assert reask.label in drawn


def test_no_note_on_the_programs_lane_of_a_bundled_trace_is_longer_than_the_lane_holds():
    for bundled in catalog.bundled_traces():
        for arrow in sequence(load_bundled(bundled.name).trace):
            if arrow.source == arrow.target == "program":
                assert len(arrow.label) <= NOTE_LENGTH, (bundled.name, arrow.label)


def test_the_system_field_is_placed_against_the_request_before_as_the_messages_are():
    trace = load_bundled(NARRATION).trace
    assert [system_standing(trace, k) for k in (1, 2, 3)] == ["new", "resent", "resent"]
    second = trace.rounds[1]
    other = dataclasses.replace(second.request, system=second.request.messages[0])
    changed = dataclasses.replace(trace, rounds=(trace.rounds[0], dataclasses.replace(second, request=other),
                                                 *trace.rounds[2:]))
    assert [system_standing(changed, k) for k in (1, 2, 3)] == ["new", "changed", "changed"]


def test_the_note_of_an_agents_own_context_fits_the_program_lane_as_the_re_ask_does():
    from lib.logs.upload import read_upload
    path = ROOT / "tests" / "fixtures" / "codex-rollout-0.125.jsonl"
    trace = read_upload([(path.name, path.read_bytes())]).conversations[0].trace
    notes = [a.label for a in sequence(trace) if a.source == a.target == "program" and "context" in a.label]
    assert notes and all(len(label) <= NOTE_LENGTH for label in notes)
