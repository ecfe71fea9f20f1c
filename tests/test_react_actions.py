"""A ReAct agent's action, written in the model's text ("Action: <tool>", "Action Input: ..."), that the program ran:
the next request sends the text back followed by "Observation: <result>" in the user's role (lib.injected.observed).
It is a text command as AutoGPT's is (lib.steps.text_commands): ② the call intent on the text that holds it, ③ the
program running it, ④ the observation; not ⑤ "answer in text". Real recordings: openllmetry's llama_index ReAct
cassettes, over OpenAI and over Cohere."""

from __future__ import annotations

import yaml

from lib.export_html import trace_html
from lib.growth import OBSERVATION_WORDS, growth, origin_words
from lib.logs.upload import read_upload
from lib.presenter import Position, carried, reveal, steps_in
from lib.sequence import sequence
from lib.predict import Prediction, expected, outcome, score
from lib.slide_words import TEXT_COMMAND, TEXT_COMMAND_RUNS, step_lead
from lib.steps import (TEXT_COMMAND_WORDS, UNPROVEN_SAID, command_unanswered_words, command_unproven,
                       command_unseen_words, steps_for_round, text_commands)
from lib.summary import log_ends_words
from lib.ui import state
from tests.screen import FIXTURES, READ, lines, uploaded

TWICE = "containers/ollm-llamaindex-react-run-twice.yaml"
"""llama_index's ReAct agent run twice on "What is 2 times 3?": each run writes multiply in its text, then answers."""
COHERE = "containers/ollm-llamaindex-cohere-react.yaml"
"""llama_index's ReAct agent over Cohere: conversation 1 writes sql_tool, then calc_tool, then answers."""


def _trace(fixture: str, conversation: int = 0, data: bytes | None = None):
    data = (FIXTURES / fixture).read_bytes() if data is None else data
    return read_upload([(fixture, data)]).conversations[conversation].trace


def test_an_action_written_in_the_text_is_a_call_intent_the_program_ran_not_an_answer_in_text():
    # Round 1 was labelled "⑤ answer in text: the model's turn ended with no call; the program went on (round 2)".
    run = _trace(TWICE, 1)
    first = steps_for_round(run, 1)
    assert [(label.step, label.side, label.path) for label in first] == [
        (2, "response", "choices[0].message.content"), (3, "execution", "")]
    assert first[0].detail == f'Action: multiply, Action Input: {{"a": 2, "b": 3}}: {TEXT_COMMAND_WORDS}'
    assert first[1].detail == ("multiply: the program read the command out of the text and ran it; round 2's request "
                               "carries its result (messages[3])")
    assert not [label for label in first if label.detail.startswith("answer in text")]
    observation = [label for label in steps_for_round(run, 2) if label.step == 4]
    assert [(label.path, label.call_round) for label in observation] == [("messages[3].content", 1)]
    assert run.rounds[1].request.messages[3].text == "Observation: 6"
    assert "appended its result in the user's role, as its Observation" in observation[0].detail
    # The answer stays the answer.
    assert [(label.step, label.detail) for label in steps_for_round(run, 2) if label.step == 5] == [(5, "final answer")]


def test_each_action_of_a_cohere_react_run_is_read_and_its_observation_named_a_tools_result():
    run = _trace(COHERE)
    assert [[c.name for c in text_commands(run, k)] for k in (1, 2, 3)] == [["sql_tool"], ["calc_tool"], []]
    assert text_commands(run, 1)[0].action_input.startswith('```json\n{\n    "input": "SELECT city, population')
    assert [label.step for label in steps_for_round(run, 2)] == [4, 2, 3]
    new = {e.index: origin_words(e) for e in growth(run, 3).new}
    assert new == {4: new[4], 5: OBSERVATION_WORDS}
    assert run.rounds[2].request.messages[5].text == "Observation: 6"


def test_presenter_mode_and_the_diagram_walk_an_action_through_steps_2_to_4():
    run = _trace(TWICE, 1)
    assert steps_in(run.rounds[0], run) == (1, 2, 3, 4)
    appended = reveal(run, Position(1, 4))
    assert [(label.path, label.call_round) for label in appended.labels] == [("messages[3].content", 1)]
    assert "1 message with an action's observation, in the user's role" in carried(run.rounds[1], growth(run, 2))
    arrows = [(a.round, a.source, a.target, a.step, a.label) for a in sequence(run)]
    assert (1, "model", "program", 2, "writes multiply in its text, no tool call") in arrows
    assert (1, "program", "tools", 3, "runs multiply") in arrows
    assert not [a for a in arrows if a[0] == 1 and a[3] == 5]


def test_the_html_file_gives_an_action_the_program_lane_with_its_input_as_written():
    page = " ".join(trace_html(_trace(TWICE, 1)).split())
    lane = page[page.index("The program's lane"):]
    assert lane.startswith("The program's lane (the model never sees it)</h3><div class=\"exec\"><div class=\"meta\">"
                           "command <b>multiply</b> · written in the model's text, not as a tool call: no call id")
    assert "What it returned, as the next request in the log carries it" in lane
    assert "{&#34;a&#34;: 2, &#34;b&#34;: 3}" in lane[:lane.index("Observation: 6")]


def _edited(*edits: tuple[str, str]) -> bytes:
    """The llama_index cassette with each `(old, new)` of `edits` replaced in every request body (its answers are
    streamed in pieces, left as recorded)."""
    cassette = yaml.safe_load((FIXTURES / TWICE).read_text())
    for interaction in cassette["interactions"]:
        for old, new in edits:
            interaction["request"]["body"] = interaction["request"]["body"].replace(old, new)
    return yaml.safe_dump(cassette).encode()


def test_an_action_is_read_only_where_the_next_request_observes_it_and_the_tool_is_offered():
    # No "Observation:" after the action: nothing shows the program ran it, and it is no answer either (it was
    # labelled "⑤ answer in text"): a call intent whose running nothing shows, as AutoGPT's command is.
    unobserved = _trace(TWICE, 1, _edited(("Observation: 6", "It is 6")))
    assert text_commands(unobserved, 1) == ()
    assert [(label.step, label.detail) for label in steps_for_round(unobserved, 1)] == [
        (2, f'Action: multiply, Action Input: {{"a": 2, "b": 3}}: {TEXT_COMMAND_WORDS}'),
        (3, f"not known: {command_unanswered_words('multiply')}")]
    assert command_unproven(unobserved, 1).why == "no result"
    # An action on a tool the prompt does not offer (here it offers "times") is no action of this agent's.
    unoffered = _trace(TWICE, 1, _edited(("Tool Name: multiply", "Tool Name: times"),
                                         ("multiply(a: int", "times(a: int"), ("one of multiply", "one of times")))
    assert "Action: multiply" in unoffered.rounds[0].response.message.text
    assert text_commands(unoffered, 1) == ()
    assert [label.step for label in steps_for_round(unoffered, 1)] == [5]


def test_the_explorer_labels_the_action_and_the_program_that_ran_it(app):
    at = uploaded(app, COHERE)
    shown = lines(at, READ)
    assert ":violet-background[**② Step 2 · Call intent**]" in shown
    assert any(line.startswith("Action: sql_tool, Action Input: ```json") and TEXT_COMMAND_WORDS in line
               for line in shown)
    assert any(line.startswith("sql_tool: the program read the command out of the text and ran it") for line in shown)
    assert not any(line.startswith("answer in text") or "Step 5" in line for line in shown)


def test_presenter_mode_says_the_action_was_written_in_the_text_and_shows_its_observation_at_step_4(app):
    at = uploaded(app, COHERE)
    at.number_input(key=state.ROUND).set_value(1).run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    seen = {}
    for _ in range(4):
        at.button(key="presenter.next").click().run()
        assert not at.exception
        step = at.query_params.get("step")
        seen[step[0] if isinstance(step, list) else step] = lines(at, READ)
    assert TEXT_COMMAND in seen["2"]
    assert TEXT_COMMAND_RUNS in seen["3"]
    assert any(line.startswith("Observation: The most populous city is Tokyo") for line in seen["4"])


def _cut(fixture: str, keep: int) -> bytes:
    """The cassette's first `keep` interactions, as recorded: the log ends there."""
    cassette = yaml.safe_load((FIXTURES / fixture).read_text())
    cassette["interactions"] = cassette["interactions"][:keep]
    return yaml.safe_dump(cassette).encode()


def test_an_action_the_log_ends_on_is_a_call_intent_whose_running_nothing_shows_not_a_final_answer():
    # The second run cut before the request that carries "Observation: 6": round 1 was labelled "⑤ final answer",
    # its end said "the log ends with its answer", the diagram drew an answer and predict mode scored an answer.
    run = _trace(TWICE, 1, _cut(TWICE, 4))
    assert len(run.rounds) == 1 and "Action: multiply" in run.rounds[0].response.message.text
    ends = command_unseen_words("multiply")
    assert [(label.step, label.detail) for label in steps_for_round(run, 1)] == [
        (2, f'Action: multiply, Action Input: {{"a": 2, "b": 3}}: {TEXT_COMMAND_WORDS}'), (3, f"not known: {ends}")]
    assert command_unproven(run, 1).why == "log ends"
    assert log_ends_words(run.rounds[0]) == UNPROVEN_SAID["log ends"]
    assert step_lead(run.rounds[0], 3, 2, unseen=command_unproven(run, 1)) == UNPROVEN_SAID["log ends"]
    arrows = [(a.round, a.step, a.label, a.recorded) for a in sequence(run)]
    assert (1, 2, "writes multiply in its text, no tool call", True) in arrows
    assert (1, 3, "runs multiply? the log ends before its result", False) in arrows
    assert not [a for a in arrows if a[1] == 5]
    page = " ".join(trace_html(run).split())
    lane = page[page.index("The program's lane"):]
    assert "command <b>multiply</b> · written in the model's text, not as a tool call: no call id" in lane
    assert "{&#34;a&#34;: 2, &#34;b&#34;: 3}" in lane
    assert "final answer" not in page.lower()
    predicted = outcome(run, 1)
    assert (predicted.action, predicted.calls, predicted.written) == ("call", (("multiply", {"a": 2, "b": 3}),), True)


def test_predict_mode_scores_an_action_as_the_call_its_steps_call_it():
    # Predict scored each action "it answered in text" (it knew only AutoGPT's JSON command): a learner who said the
    # model would call multiply with a 2 and b 3 lost the points its step 2, "Call intent", says they earned.
    run = _trace(TWICE, 1)
    assert [(o.action, o.calls, o.arguments_raw, o.written) for o in (outcome(run, 1), outcome(run, 2))] == [
        ("call", (("multiply", {"a": 2, "b": 3}),), ('{"a": 2, "b": 3}',), True), ("answer", (), (), False)]
    found = score(Prediction("call", (expected(None, '{"a": 2, "b": 3}'),), 4), outcome(run, 1))
    assert (found.earned, found.possible) == (4, 4)
    assert found.points[0].says == "it wrote the command multiply in its text, not as a tool call: a call intent all the same"
    # Over Cohere the input is fenced as the model wrote it; what is scored is the object inside the fence.
    cohere = _trace(COHERE)
    first = outcome(cohere, 1)
    assert first.calls == (("sql_tool", {"input": "SELECT city, population FROM table ORDER BY population DESC LIMIT 1"}),)
    assert first.arguments_raw[0].startswith('```json\n{\n    "input": "SELECT city, population')
    assert [outcome(cohere, k).action for k in (1, 2, 3)] == ["call", "call", "answer"]


def test_predict_mode_reveals_an_action_as_a_call_intent(app):
    app.query_params["mode"] = "predict"
    at = uploaded(app, COHERE)
    at.radio(key="predict.1.action").set_value("call")
    at.text_area(key="predict.1.arguments").set_value(
        '{"input": "SELECT city, population FROM table ORDER BY population DESC LIMIT 1"}')
    at.number_input(key="predict.1.messages").set_value(4)
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    shown = lines(at, READ)
    assert any("Your prediction: 3 of 3 points" in line for line in shown)
    assert "it wrote the command sql_tool in its text, not as a tool call: a call intent all the same" in shown
    assert not any("answered in text" in line for line in shown)
