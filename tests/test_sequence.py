"""The round trip as a picture: arrows per round between user, program, model and tools, steps numbered."""

import json
import re
from pathlib import Path

import pytest

from lib.logs.upload import read_upload
from lib.sequence import sequence, window_start
from lib.steps import steps_for_round
from lib.text import shorten
from lib.ui.charts import sequence_diagram
from tests.conftest import load_bundled
from tests.hostile import COMMAND, IMG, hostile_trace
from lib import catalog

FIXTURES = Path(__file__).parent / "fixtures"


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


def test_a_command_written_in_the_text_is_drawn_as_text_its_bidi_control_written_out():
    # A hostile command name, and round 2's hostile stop signal, reached the diagram with their right-to-left override
    # as it is ("stops: … \u202egnp.exe"): everything after it on the label drawn reversed.
    trace = catalog.load_bytes(hostile_trace(written=True), "hostile.jsonl").trace
    figure = json.loads(sequence_diagram(sequence(trace), 4).to_json())
    texts = [a.get("text", "") for a in figure["layout"]["annotations"]]
    assert "② writes run[U+202E]gnp.exe&lt;script&gt;aler… in its text, no tool call" in texts
    assert "③ runs run[U+202E]gnp.exe&lt;script&gt;alert('owned')&lt;/scri…" in texts
    assert COMMAND.startswith("run\u202egnp.exe<script>")
    assert not [t for t in texts if "\u202e" in t or "<script" in t or "<img" in t]
    assert any(t.startswith("stops: ") and t.endswith(", no answer and no call") for t in texts)


def test_a_long_stop_signal_is_shortened_as_the_diagrams_other_labels_are():
    # Round 2's stop signal, the whole hostile payload (about 300 characters), was drawn in full on one arrow:
    # "stops: <script>alert('owned')</script> <img src=x … gnp.exe, no answer and no call", across the figure.
    trace = catalog.load_bytes(hostile_trace(), "hostile.jsonl").trace
    assert len(trace.rounds[1].response.finish_reason) > 200
    stops = [a.label for a in sequence(trace) if a.round == 2 and a.label.startswith("stops: ")]
    assert stops == [f"stops: {shorten(trace.rounds[1].response.finish_reason, 40)}, no answer and no call"]
    assert stops[0].endswith("…, no answer and no call")


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
    # The refused request reached the API, not the model: its arrow ends on the API's lane.
    request = next(a for a in arrows if a.round == 2 and a.step == 1)
    assert (request.source, request.target) == ("program", "api")
    assert [(a.source, a.target) for a in arrows if a.round == 1 and a.step == 1] == [("program", "model")]


def test_the_window_of_rounds_holds_the_round_being_viewed():
    assert [window_start(k, 30) for k in (1, 12, 13, 24, 25, 30)] == [1, 1, 13, 13, 19, 19]
    assert window_start(3, 4) == 1


def test_a_held_chain_request_arrow_counts_the_messages_sent_and_names_the_held_ones(responses_chain):
    arrows = sequence(responses_chain)
    assert [a.label for a in arrows if a.step == 1] == [
        "request 1: 2 messages + 2 tools", "request 2: 3 messages (2 held by the provider) + 2 tools",
        "request 3: 2 messages (5 held by the provider) + 2 tools", "request 4: 2 messages (7 held by the provider) + 2 tools"]


PLOTLY_ENTITIES = {"mu": "\u03bc", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\xa0", "times": "\xd7", "plusmn": "\xb1",
                   "deg": "\xb0"}
"""The named entities plotly.js turns back into characters in a label (svg_text_utils' entityToUnicode); any other
name, &quot; among them, it shows as written."""


def _shown(text: str) -> str:
    """A label's text as plotly.js writes it on screen, once its tags are read: its entities converted."""
    def character(found: re.Match) -> str:
        name = found.group(1)
        if name.startswith("#"):
            return chr(int(name[2:], 16) if name[1] == "x" else int(name[1:]))
        return PLOTLY_ENTITIES.get(name, found.group(0))
    return re.sub(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);", character, text)


def _labels(trace):
    return [a.get("text", "") for a in json.loads(sequence_diagram(sequence(trace), len(trace.rounds)).to_json())
            ["layout"]["annotations"]]


def test_a_question_with_quotes_reads_with_its_quotes_in_the_picture():
    # A real OpenAI-compatible log (Groq): the user asks for a tool by name, in double quotes.
    upload = read_upload([("log.jsonl", (FIXTURES / "openai-compatible-tool-use-failed.jsonl").read_bytes())])
    [asked] = [t for t in _labels(upload.conversations[0].trace) if t.startswith("asks:")]
    assert _shown(asked) == 'asks: Please call the "get_something_by_name" tool wi…'
    assert "&quot;" not in _shown(asked)


def test_markup_in_a_trace_stays_text_in_the_picture_quotes_and_all():
    trace = catalog.load_bytes(hostile_trace('<b>bold</b> "quoted" & <br>'), "hostile.jsonl").trace
    asked = [t for t in _labels(trace) if t.startswith("asks:")]
    assert asked and all("<" not in t and ">" not in t for t in asked)  # no tag for plotly to read
    assert all(_shown(t).startswith('asks: <b>bold</b> "quoted" & <br>') for t in asked)


@pytest.mark.parametrize("name", ["openai-responses-resent.jsonl", "gemini.jsonl", "bedrock-converse.jsonl"])
def test_an_execution_the_trace_did_not_record_is_drawn_as_not_recorded_as_step_3_says(name):
    upload = read_upload([(name, (FIXTURES / name).read_bytes())])
    trace = upload.conversations[0].trace
    arrows = sequence(trace)
    called = [r for r in trace.rounds if r.tool_calls]
    assert called
    for round_ in called:
        said = [s.detail for s in steps_for_round(trace, round_.index) if s.step == 3]
        assert said == ["not recorded: the trace does not say what the program ran"]
        runs = [a for a in arrows if a.round == round_.index and a.source == "program" and a.target == "tools"]
        back = [a for a in arrows if a.round == round_.index and a.source == "tools"]
        assert len(runs) == len(back) == len(round_.tool_calls)
        assert not [a for a in runs + back if a.recorded]
        if len(round_.tool_calls) > 2:  # one label for the row (see the test below)
            assert [a.label for a in runs + back if a.label] == [f"runs {len(runs)}? (not recorded)",
                                                                  f"returns {len(back)}? (not recorded)"]
        else:
            assert [a.label for a in runs] == [f"runs {c.name}? (not recorded)" for c in round_.tool_calls]
            assert [a.label for a in back] == ["returns? (not recorded)"] * len(round_.tool_calls)


def test_an_execution_the_trace_recorded_is_drawn_as_fact(hengxin):
    arrows = sequence(hengxin)
    assert [(a.round, a.label) for a in arrows if a.step == 3 or a.source == "tools"] == [
        (1, "runs queryExpense"), (1, "runs queryTravelPolicy"), (1, "returns"), (1, "returns"),
        (2, "runs calcAmountOver"), (2, "returns"), (3, "runs createExpenseSupplement"), (3, "returns")]
    assert all(a.recorded for a in arrows)


def test_three_parallel_calls_are_labelled_once_per_row_so_no_label_lies_on_another():
    # crewAI's Gemini run asks for 3 calls at once; their three labels, side by side in one lane, overlapped.
    data = (FIXTURES / "containers" / "crewai-gemini-parallel-crew.yaml").read_bytes()
    trace = read_upload([("gemini.yaml", data)]).conversations[0].trace
    first = [a for a in sequence(trace) if a.round == 1]
    assert [(a.label, a.beside) for a in first if a.step == 3] == [
        ("runs 3? (not recorded)", False), ("", True), ("", True)]
    assert [a.label for a in first if a.source == "tools"] == ["returns 3? (not recorded)", "", ""]
    figure = json.loads(sequence_diagram(sequence(trace), 2).to_json())
    assert sum("runs 3? (not recorded)" in a.get("text", "") for a in figure["layout"]["annotations"]) == 1


def test_a_response_with_neither_a_call_nor_text_is_not_drawn_as_an_answer_shown(responses_chain):
    # Round 3 of the Responses chain stopped at its token limit after reasoning only: it wrote no text to show.
    round_3 = [a.label for a in sequence(responses_chain) if a.round == 3]
    assert "answers in text" not in round_3 and "shows the answer" not in round_3
    assert [a.label for a in sequence(responses_chain) if a.round == 3 and a.source == "model"] == [
        "cut off at the output limit: no finished answer, no call"]


def _conversation(fixture: str, conversation: str):
    upload = read_upload([(fixture, (FIXTURES / fixture).read_bytes())])
    return next(c.trace for c in upload.conversations if c.id == conversation)


def test_a_stop_for_tools_whose_calls_the_span_did_not_keep_is_drawn_as_call_intent_not_as_an_answer():
    # A span recorded without content: finish_reason tool_calls, no message. The cards label step 2 on the stop
    # signal and step 3 "not recorded"; the diagram drew "⑤ answers in text" and "shows the answer".
    trace = _conversation("otlp-span-per-call-no-content.jsonl", "03bc5514d8aa6d7d568eaa76afb333b9")
    assert {s.step for s in steps_for_round(trace, 1)} == {2, 3}
    drawn = [(a.step, a.label, a.recorded) for a in sequence(trace) if a.round == 1]
    assert drawn[1:] == [(2, "asks for tools (the calls are not recorded)", True),
                         (3, "runs them? (not recorded)", False)]


def test_a_response_cut_off_at_its_length_limit_is_not_drawn_as_the_model_answering():
    # The Responses API's third round stopped at max_output_tokens: the cards' step 5 names it cut off, not an
    # answer. The diagram said "⑤ answers in text".
    trace = _conversation("openai-responses.jsonl", "resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5")
    assert trace.rounds[2].response.finish_reason == "length"
    assert [s.title for s in steps_for_round(trace, 3) if s.step == 5] == ["Cut off at the output limit"]
    drawn = [(a.step, a.label) for a in sequence(trace) if a.round == 3]
    assert drawn[-1] == (None, "cut off at the output limit: no finished answer, no call")
    assert not any(label == "shows the answer" for _, label in drawn)


def test_narration_that_ends_the_loop_is_drawn_as_the_cards_name_it_not_as_an_answer():
    # Round 1 announces "let me check" and calls nothing: the cards name its step 5 "Narration without a call" (round
    # 2 follows), the diagram drew "⑤ answers in text" and "shows the answer".
    trace = load_bundled("pitfalls/narration-without-call").trace
    assert [s.title for s in steps_for_round(trace, 1) if s.step == 5] == ["Narration without a call"]
    drawn = [(a.step, a.label) for a in sequence(trace) if a.round == 1]
    assert (5, "the model's turn ended with no call; the program went on (round 2)") in drawn
    assert not any(label in ("answers in text", "shows the answer") for _, label in drawn)


def test_three_calls_run_at_once_are_labelled_once_with_no_bare_step_marks_beside_the_label():
    # Gemini's round 1 asks for generate_topic three times at once, and the log does not say what the program ran.
    # The row's first arrow speaks for the three; the other two drew a lone "③" each, on top of that label.
    name = "gemini.jsonl"
    trace = read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace
    figure = json.loads(sequence_diagram(sequence(trace), 2).to_json())
    texts = [a.get("text", "") for a in figure["layout"]["annotations"]]
    assert [t for t in texts if t.strip() == "③"] == []
    assert texts.count("③ runs 3? (not recorded)") == 1


def test_a_claude_code_response_an_error_cut_short_shows_what_came_back_before_the_failure():
    # Claude Code 2.1.233's recorded lines, the response's last line cut off by an API error line (as in
    # tests/test_claude_code.py): the model answered part of the request, so the request reached it.
    from tests.test_claude_code import _cut_by_error
    cut, _ = _cut_by_error()
    assert [(a.source, a.target, a.step, a.label) for a in sequence(_trace_of(cut))][1:] == [
        ("program", "model", 1, "request 1: 1 message"),
        ("model", "program", None, "part of a response, then the call fails: writes: I'll run that bash command for "
                                   "you."),
        ("program", "program", None, "error: HTTP status not recorded"),
    ]
    cut[-1]["message"]["content"][0]["text"] = "API Error: 529 Overloaded"
    drawn = [(a.source, a.target, a.label) for a in sequence(_trace_of(cut))][1:]
    assert drawn[0][:2] == ("program", "model") and drawn[-1] == ("api", "program", "fails: HTTP 529")


def _trace_of(lines):
    from tests.test_claude_code import _upload_lines
    return _upload_lines(*lines).conversations[0].trace


def test_a_text_answer_the_program_went_on_from_by_itself_is_not_drawn_shown_to_the_person():
    # mini-swe-agent reads the bash command in the model's text, runs it and sends its output as the next user turn:
    # no one was shown an answer, yet every round drew "shows the answer" to the person. Its last round, which no
    # round follows, and a chat whose person writes back still show theirs.
    upload = read_upload([(name := "mini-swe-agent-github-issue.traj.json",
                           (FIXTURES / "containers" / name).read_bytes())])
    trace = upload.conversations[0].trace
    shown = [a.round for a in sequence(trace, limit=100) if a.label == "shows the answer"]
    assert shown == [10]
    assert sum(a.label == "answers in text" for a in sequence(trace, limit=100)) == 10
    chat = _conversation("openai-responses.jsonl", "resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5")
    assert any(a.label == "shows the answer" for a in sequence(chat) if a.round == 2)


def test_a_tool_list_the_provider_holds_is_drawn_held_not_sent():
    # Gemini's Interactions API: request 2 names the interaction before it and sends no tools; the picture said
    # "request 2: 1 message (2 held by the provider) + 1 tool", as if the tool list had gone with it.
    name = "rig-gemini-interactions-tool-result.yaml"
    data = (Path(__file__).parent / "fixtures" / "containers" / name).read_bytes()
    trace = read_upload([(name, data)], None).conversations[0].trace
    labels = [a.label for a in sequence(trace)]
    assert "request 1: 1 message + 1 tool" in labels
    assert "request 2: 1 message (2 held by the provider) + 1 tool (held by the provider)" in labels


def test_a_compactions_summary_call_is_headed_in_the_picture_as_the_explorer_heads_it():
    # The Anthropic SDK tool runner's summary call: the explorer, the navigator, the HTML file and the presenter said
    # "Round 2, the summary call of a compaction", and the picture plain "Round 2", one more turn of the conversation.
    name = "anthropic-ts-tool-runner-compaction.json"
    data = (FIXTURES / "containers" / name).read_bytes()
    trace = read_upload([(name, data)], None).conversations[0].trace
    figure = json.loads(sequence_diagram(sequence(trace), len(trace.rounds)).to_json())
    headings = [a["text"] for a in figure["layout"]["annotations"] if a.get("text", "").startswith("<b>Round")]
    assert headings == ["<b>Round 1</b>", "<b>Round 2, the summary call of a compaction</b>", "<b>Round 3</b>",
                        "<b>Round 4</b>"]


def test_a_summary_calls_prompt_is_drawn_as_the_programs_and_its_summary_as_no_answer_shown_to_the_person():
    # The picture drew the summary prompt as the user asking ("asks: You have been working on the task…") and the
    # summary as an answer shown to the person, where the explorer says the program wrote the prompt in the user's
    # role and the summary is "not an answer to the person".
    name = "anthropic-ts-tool-runner-compaction.json"
    data = (FIXTURES / "containers" / name).read_bytes()
    trace = read_upload([(name, data)], None).conversations[0].trace
    assert [(a.source, a.target, a.step, a.label) for a in sequence(trace) if a.round == 2] == [
        ("program", "program", None, "asks the model to sum the conversation up"),
        ("program", "model", 1, "request 2: 2 messages"),
        ("model", "program", 5, "answers with the summary, for the program"),
    ]


def test_a_request_sent_three_times_draws_each_try_and_its_failure_before_the_answer():
    # The Anthropic Python SDK's retries of one request (429, 429, 200) are one round with its tries; the diagram drew
    # one request and its answer, as if it had been sent once.
    name = "anthropic-py-rate-limited-twice-then-answered.json"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    arrows = [(a.source, a.target, a.label) for a in sequence(upload.conversations[0].trace) if a.source != "user"]
    assert arrows == [("program", "api", "request 1: 1 message"),
                      ("api", "program", "Try 1 of 3 failed: HTTP 429."),
                      ("program", "api", "request 1 again: 1 message"),
                      ("api", "program", "Try 2 of 3 failed: HTTP 429."),
                      ("program", "model", "request 1 again: 1 message"),
                      ("model", "program", "answers in text"),
                      ("program", "user", "shows the answer")]
    figure = json.loads(sequence_diagram(sequence(upload.conversations[0].trace), 1).to_json())
    drawn = [a.get("text", "") for a in figure["layout"]["annotations"]]
    assert [t for t in drawn if t.startswith("Try ")] == ["Try 1 of 3 failed: HTTP 429.", "Try 2 of 3 failed: HTTP 429."]
