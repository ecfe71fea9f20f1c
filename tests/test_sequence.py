"""The round trip as a picture: arrows per round between user, program, model and tools, steps numbered."""

import json

from lib.sequence import sequence, window_start
from lib.ui.charts import sequence_diagram
from tests.conftest import load_bundled
from tests.hostile import IMG, hostile_trace
from lib import catalog


def _round(arrows, k):
    return [(a.source, a.target, a.step) for a in arrows if a.round == k]


def test_hengxin_round_1_asks_requests_calls_twice_and_runs_both_side_by_side(hengxin):
    arrows = sequence(hengxin)
    assert _round(arrows, 1) == [
        ("user", "program", None), ("program", "model", 1), ("model", "program", 2),
        ("program", "tools", 3), ("program", "tools", 3), ("tools", "program", None), ("tools", "program", None),
    ]
    assert [a.beside for a in arrows if a.round == 1][3:] == [False, True, False, True]


def test_later_rounds_append_results_first_and_the_last_one_answers(hengxin):
    arrows = sequence(hengxin)
    assert _round(arrows, 2)[:2] == [("program", "program", 4), ("program", "model", 1)]
    assert _round(arrows, 4) == [("program", "program", 4), ("program", "model", 1), ("model", "program", 5),
                                 ("program", "user", None)]
    assert {a.step for a in arrows} == {None, 1, 2, 3, 4, 5}
    assert [a.label for a in arrows if a.step == 1] == [f"request {k}: {n} messages + 4 tools"
                                                        for k, n in ((1, 2), (2, 5), (3, 7), (4, 9))]


def test_an_error_and_a_declined_call_are_drawn_as_what_they_were():
    failed = sequence(load_bundled("pitfalls/unanswered-parallel-call").trace)
    drawn = [(a.round, a.source, a.target, a.step, a.label) for a in failed]
    assert (2, "api", "program", None, "refuses the request: HTTP 400") in drawn
    assert not [d for d in drawn if d[0] == 2 and d[1] == "model"]  # the model never saw request 2
    declined = sequence(load_bundled("pitfalls/wrong-tool-declined").trace)
    assert [a.label for a in declined if a.round == 1 and a.step == 3] == ["declines cancel_order"]


def test_a_long_trace_is_drawn_a_window_of_rounds_at_a_time(hengxin):
    assert {a.round for a in sequence(hengxin, limit=2)} == {1, 2}
    window = sequence(hengxin, limit=2, first=3)
    assert {a.round for a in window} == {3, 4}
    figure = json.loads(sequence_diagram(window, 4).to_json())
    assert figure["layout"]["title"]["text"] == "Rounds 3 to 4 of 4"


def test_the_figure_has_four_lanes_and_escapes_trace_text():
    trace = catalog.load_bytes(hostile_trace(), "hostile.jsonl").trace
    figure = json.loads(sequence_diagram(sequence(trace), 2).to_json())
    texts = [a.get("text", "") for a in figure["layout"]["annotations"]]
    assert {"<b>User</b>", "<b>Program</b>", "<b>Model</b>", "<b>Tools</b>"} <= set(texts)
    assert not any(IMG in t or "<img" in t for t in texts)
    assert any("lookup&lt;img" in t for t in texts)
    assert [t for t in texts if t.startswith("<b>Round")] == ["<b>Round 1</b>", "<b>Round 2</b>", "<b>Round 3</b>"]


def test_two_parallel_calls_of_one_tool_are_one_request_and_two_executions_in_one_row():
    arrows = sequence(load_bundled("pitfalls/unanswered-parallel-call").trace)
    first = [a for a in arrows if a.round == 1]
    assert [a.label for a in first if a.step == 2] == ["asks for 2 calls at once: get_order, get_order"]
    assert [(a.label, a.beside) for a in first if a.step == 3] == [("runs get_order", False), ("runs get_order", True)]
    figure = json.loads(sequence_diagram(arrows, 3).to_json())
    runs = [a for a in figure["layout"]["annotations"] if a.get("text", "").endswith("runs get_order")]
    assert len(runs) == 2 and runs[0]["y"] == runs[1]["y"] and runs[0]["x"] != runs[1]["x"]
    lines = [a for a in figure["layout"]["annotations"] if a.get("showarrow") and a["ax"] == 2 and a["x"] == 1]
    assert len(lines) == 2 and abs(lines[0]["y"] - lines[1]["y"]) < 0.5  # the two executions share a row


def test_a_providers_400_is_drawn_from_the_api_lane():
    arrows = sequence(load_bundled("pitfalls/unanswered-parallel-call").trace)
    figure = json.loads(sequence_diagram(arrows, 3).to_json())
    titles = {a["text"]: a["x"] for a in figure["layout"]["annotations"] if a.get("text", "").startswith("<b>")}
    refusal = next(a for a in figure["layout"]["annotations"] if a.get("showarrow") and a["ax"] == titles["<b>Provider API</b>"])
    assert refusal["x"] == titles["<b>Program</b>"]


def test_the_window_of_rounds_holds_the_round_being_viewed():
    assert [window_start(k, 30) for k in (1, 12, 13, 24, 25, 30)] == [1, 1, 13, 13, 19, 19]
    assert window_start(3, 4) == 1


def test_a_held_chain_request_arrow_counts_the_messages_sent_and_names_the_held_ones(responses_chain):
    arrows = sequence(responses_chain)
    assert [a.label for a in arrows if a.step == 1] == [
        "request 1: 2 messages + 2 tools", "request 2: 3 messages (2 held by the provider) + 2 tools",
        "request 3: 2 messages (5 held by the provider) + 2 tools", "request 4: 2 messages (7 held by the provider) + 2 tools"]
