"""A command the model writes in its text, not as a tool call (AutoGPT's JSON `"command"`), that the program ran: the
next request carries its result ("Command read_file returned: ..." in the system role, lib.injected.command_result).
Every view labels it as the step it is: ② the call intent on the text that holds it, ③ the program running it, ④ its
result; not ⑤, an answer. Only where the next request's result proves it ran."""

from __future__ import annotations

import html
import json
import re

import yaml

from lib.export_html import trace_html
from lib.growth import HUMAN_FEEDBACK_WORDS, ORIGIN_WORDS, PERSONS_ANSWER, growth, origin_words
from lib.logs.upload import read_upload
from lib.predict import Prediction, expected, outcome, score
from lib.presenter import Position, carried, kept_later_words, reveal, steps_in
from lib.sequence import sequence
from lib.slide_words import TEXT_COMMAND, TEXT_COMMAND_RUNS, step_lead
from lib.steps import (TEXT_COMMAND_WORDS, UNPROVEN_SAID, UnprovenCommand, command_answered_words, command_unanswered, command_unanswered_words, command_unproven,
                       command_unrecorded, command_unrecorded_words, written_arguments,
                       command_unseen, command_unseen_words, steps_for_round, text_commands)
from lib.summary import log_ends_words
from lib.text import as_sentence
from lib.ui import state
from tests.screen import FIXTURES, READ, lines, uploaded

AUTOGPT = "containers/autogpt-memory-challenge-b.yaml"
"""AutoGPT 0.3.1's memory challenge: round 1 writes read_file in its text, round 2 list_files, round 3 message_agent
(the log ends before any request carries its result)."""


def _agent():
    return read_upload([(AUTOGPT, (FIXTURES / AUTOGPT).read_bytes())]).conversations[0].trace


def test_a_command_written_in_the_text_is_labelled_a_call_intent_and_the_program_running_it_not_an_answer():
    # Round 1's step labels were one: "⑤ answer in text: the model's turn ended with no call; the program went on",
    # beside round 2's "④ result of the command read_file": a result with no call.
    agent = _agent()
    first = steps_for_round(agent, 1)
    assert [(label.step, label.side, label.path) for label in first] == [
        (2, "response", "choices[0].message.content"), (3, "execution", "")]
    assert first[0].detail == f"read_file: {TEXT_COMMAND_WORDS}"
    assert first[1].detail == ("read_file: the program read the command out of the text and ran it; round 2's request "
                               "carries its result (messages[5])")
    assert [label.step for label in steps_for_round(agent, 2)] == [4, 2, 3]
    assert "list_files" in steps_for_round(agent, 2)[1].detail


def test_a_command_no_later_request_shows_the_result_of_is_not_said_to_have_run():
    # Round 3 writes message_agent; the log ends on its response: nothing proves the program ran it.
    agent = _agent()
    assert text_commands(agent, 3) == ()
    assert not [label for label in steps_for_round(agent, 3) if label.step == 3 and "ran it;" in label.detail]


def test_a_command_the_log_ends_on_is_a_call_intent_whose_running_nothing_shows_not_a_final_answer():
    # Round 3 writes message_agent and the log ends there: it was labelled "⑤ final answer", and the round's end said
    # "the log ends with its answer". What is known: the model wrote a command in its text; no result is in the log.
    agent = _agent()
    assert command_unseen(agent, 3) == "message_agent" and command_unseen(agent, 2) is None
    labels = steps_for_round(agent, 3)
    assert [(label.step, label.side, label.path) for label in labels] == [
        (4, "request", "messages[6].content"), (2, "response", "choices[0].message.content"), (3, "execution", "")]
    assert labels[1].detail == f"message_agent: {TEXT_COMMAND_WORDS}"
    assert labels[2].detail == f"not known: {command_unseen_words('message_agent')}"
    assert not any(label.step == 5 or "final answer" in label.detail for label in labels)
    # Drawn as markdown under the cards: our words, the command's name (the model's text) left to step 3's label.
    assert log_ends_words(agent.rounds[2]) == UNPROVEN_SAID["log ends"]
    assert "nothing shows the program ran it" in command_unseen_words("message_agent")


def test_presenter_mode_walks_a_written_command_through_steps_2_to_4():
    agent = _agent()
    assert [steps_in(r, agent) for r in agent.rounds] == [(1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4)]
    appended = reveal(agent, Position(1, 4))
    assert [(label.path, label.call_round) for label in appended.labels] == [("messages[5].content", 1)]
    assert appended.labels_round == 2


def test_the_sequence_diagram_draws_a_written_command_as_steps_2_and_3_and_its_result_as_step_4():
    # It drew round 1 as "answers in text", and round 2 appended no result: command results were not counted.
    arrows = [(a.round, a.source, a.target, a.step, a.label) for a in sequence(_agent())]
    assert (1, "model", "program", 2, "writes read_file in its text, no tool call") in arrows
    assert (1, "program", "tools", 3, "runs read_file") in arrows
    assert (2, "program", "program", 4, "appends 1 result to the messages") in arrows
    assert (2, "model", "program", 2, "writes list_files in its text, no tool call") in arrows
    assert not [a for a in arrows if a[0] in (1, 2) and a[3] == 5]
    # Round 3's command, the log ending on it, was drawn "answers in text" and "shows the answer".
    assert (3, "model", "program", 2, "writes message_agent in its text, no tool call") in arrows
    assert (3, "program", "tools", 3, "runs message_agent? the log ends before its result") in arrows
    assert not [a for a in sequence(_agent()) if a.round == 3 and a.step == 3 and a.recorded]
    assert not [a for a in arrows if a[3] == 5 or a[4] == "shows the answer"]


def test_summarize_gives_a_written_commands_steps():
    from lib.cli import summary_of
    document = summary_of(read_upload([(AUTOGPT, (FIXTURES / AUTOGPT).read_bytes())]))
    assert [r["steps"] for r in document["conversations"][0]["rounds"]] == [[2, 3], [2, 3, 4], [2, 3, 4]]
    json.dumps(document)


def test_the_explorer_labels_the_text_that_holds_the_command_and_the_program_that_ran_it(app):
    at = uploaded(app, AUTOGPT)
    shown = lines(at, READ)
    assert ":violet-background[**② Step 2 · Call intent**]" in shown
    assert f"read_file: {TEXT_COMMAND_WORDS} · choices[0].message.content" in shown
    assert ":orange-background[**③ Step 3 · Program executes**]" in shown
    assert not any("Step 5" in line for line in shown)
    assert not any("The model called no tool here" in line for line in shown)


def test_presenter_mode_says_the_command_was_written_in_the_text_and_shows_its_result_at_step_4(app):
    at = uploaded(app, AUTOGPT)
    at.toggle(key="explorer.presenter").set_value(True).run()
    seen, boxes = {}, {}
    for _ in range(4):
        at.button(key="presenter.next").click().run()
        assert not at.exception
        step = at.query_params.get("step")
        step = step[0] if isinstance(step, list) else step
        seen[step], boxes[step] = lines(at, READ), [i.value for i in at.info]
    assert TEXT_COMMAND in seen["2"]
    assert any("This agent does not go by the switch: it reads a command out of the text" in box for box in boxes["2"])
    assert TEXT_COMMAND_RUNS in seen["3"]
    assert any(line.startswith("Command read_file returned: ") for line in seen["4"])
    # Round 2's request: its model turn and the command's result, already shown by round 1's steps 2 and 4.
    assert any(e.label == "2 new messages that steps ② and ④ of round 1 already showed: the model's turn and the "
               "results" for e in at.expander)


def test_the_explorer_and_presenter_say_the_log_ends_before_the_last_commands_result_not_that_it_answered(app):
    # Round 3 showed "⑤ Step 5 · Model answers" "final answer", and presenter mode ended it on step 5.
    unseen = command_unseen_words("message_agent")
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(3).run()
    shown = lines(at, READ)
    assert f"message_agent: {TEXT_COMMAND_WORDS} · choices[0].message.content" in shown
    assert any(f"not known: {unseen}" in line for line in shown)
    assert not any("Step 5" in line or "final answer" in line for line in shown)
    at.toggle(key="explorer.presenter").set_value(True).run()
    seen = {}
    for _ in range(12):
        round_, step = (at.query_params.get(key) for key in ("round", "step"))
        round_, step = (v[0] if isinstance(v, list) else v for v in (round_, step))
        seen[(round_, step)] = lines(at, READ) + [i.value for i in at.info]
        if not at.button(key="presenter.next").disabled:
            at.button(key="presenter.next").click().run()
        assert not at.exception
    assert ("3", "5") not in seen
    assert TEXT_COMMAND in seen[("3", "2")]
    assert UNPROVEN_SAID["log ends"] in seen[("3", "3")]
    assert UNPROVEN_SAID["log ends"] in seen[("3", "4")]


def test_the_diagram_places_a_rewritten_request_as_the_explorer_does_and_names_the_prompts_writer_as_it_does():
    # AutoGPT rewrites each request (a memory message put in, older turns left out): the diagram took every message
    # past the earlier request's length as new, and drew round 2's prompt twice, "asks: Determine which next command
    # to use, and respon…", from the user, where the explorer places one resent and one new, written by the program.
    agent = _agent()
    arrows = sequence(agent)
    assert not [a for a in arrows if a.source == "user"]
    for k in (1, 2, 3):
        prompts = [e for e in growth(agent, k).new if e.message.role == "user"]
        assert [origin_words(e) for e in prompts] == [ORIGIN_WORDS["program"]]
        assert [a.label for a in arrows if a.round == k and a.source == a.target == "program" and a.step is None] \
            == ["adds 1 message of its own context in the user's role"]


def test_predict_mode_scores_a_written_command_as_the_call_intent_its_steps_call_it(app):
    # Predict scored round 1 "it answered in text" (it went by tool calls): a learner who said the model would call
    # read_file with those arguments lost the point its step 2, "Call intent", says they earned.
    agent = _agent()
    assert [(o.action, o.calls, o.written) for o in (outcome(agent, k) for k in (1, 2, 3))] == [
        ("call", (("read_file", {"filename": "instructions_1.txt"}),), True),
        ("call", (("list_files", {"directory": "."}),), True),
        ("call", (("message_agent", {"key": "1111", "message": "Hello, GPT agent. How are you doing today?"}),),
         True)]
    app.query_params["mode"] = "predict"
    at = uploaded(app, AUTOGPT)
    at.radio(key="predict.1.action").set_value("call")
    at.text_area(key="predict.1.arguments").set_value('{"filename": "instructions_1.txt"}')
    at.number_input(key="predict.1.messages").set_value(7)
    at.button(key="predict.reveal").click().run()
    assert not at.exception
    shown = lines(at, READ)
    assert any("Your prediction: 4 of 4 points" in line for line in shown)
    assert "it wrote the command read_file in its text, not as a tool call: a call intent all the same" in shown
    assert not any("answered in text" in line for line in shown)



def _section(page: str, k: int) -> str:
    """Round k's section of the HTML file, as text: its tags left out, its entities read."""
    start = page.index(f'id="round-{k}"')
    end = page.find(f'id="round-{k + 1}"', start)
    return html.unescape(re.sub(r"<[^>]+>", " ", page[start:end if end > 0 else len(page)]))


def test_the_html_file_gives_a_written_command_the_program_lane_a_tool_call_has():
    # The file drew no program lane for round 1 or 2: only its steps list said step 3; round 3 had none either.
    page = trace_html(_agent())
    first = " ".join(_section(page, 1).split())
    assert "The program's lane (the model never sees it)" in first
    assert "command read_file · written in the model's text, not as a tool call: no call id" in first
    assert '"filename": "instructions_1.txt"' in first
    assert "What it returned, as the next request in the log carries it Command read_file returned: " in first
    last = " ".join(_section(page, 3).split())
    assert "The program's lane (the model never sees it)" in last
    assert "command message_agent" in last and '"key": "1111"' in last
    assert f"What it returned {as_sentence(command_unseen_words('message_agent'))}" in last


def _declined() -> bytes:
    """The AutoGPT log with read_file's result taken out of the requests after round 1 (a person declined the command,
    or the agent could not read it): round 2's request carries no result of it."""
    cassette = yaml.safe_load((FIXTURES / AUTOGPT).read_text())
    for interaction in cassette["interactions"]:
        body = json.loads(interaction["request"]["body"])
        body["messages"] = [m for m in body["messages"]
                            if not (m["role"] == "system" and m["content"].startswith("Command read_file returned:"))]
        interaction["request"]["body"] = json.dumps(body)
    return yaml.safe_dump(cassette).encode()


def _uploading(app, recorded: bytes):
    """The app with a changed copy of the AutoGPT log uploaded under its own name."""
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload(AUTOGPT.rsplit("/", 1)[-1], recorded)
    at.run()
    assert not at.exception
    return at


def _declined_agent():
    return read_upload([(AUTOGPT, _declined())]).conversations[0].trace


def test_a_command_the_next_request_carries_no_result_of_is_a_call_intent_whose_running_nothing_shows():
    # Round 1 wrote read_file and round 2's request carries no result of it: round 1 was labelled "⑤ answer in text:
    # the model's turn ended with no call; the program went on (round 2)", drawn "answers in text", summarized as
    # steps [5] and predicted as an answer. What is known: a command written in the text, and no result of it.
    agent = _declined_agent()
    unanswered = command_unanswered_words("read_file")
    assert command_unanswered(agent, 1) == "read_file" and command_unanswered(agent, 2) is None
    assert command_unanswered(agent, 3) is None and command_unanswered(_agent(), 1) is None
    labels = steps_for_round(agent, 1)
    assert [(label.step, label.side, label.path) for label in labels] == [
        (2, "response", "choices[0].message.content"), (3, "execution", "")]
    assert labels[0].detail == f"read_file: {TEXT_COMMAND_WORDS}"
    assert labels[1].detail == f"not known: {unanswered}"
    assert "the next request carries no result of it" in unanswered and "log ends" not in unanswered
    assert steps_in(agent.rounds[0], agent) == (1, 2, 3, 4)
    assert step_lead(agent.rounds[0], 2, 2, unseen=command_unproven(agent, 1)) == TEXT_COMMAND
    assert step_lead(agent.rounds[0], 3, 2, unseen=command_unproven(agent, 1)) == UNPROVEN_SAID["no result"]
    arrows = [(a.round, a.source, a.target, a.step, a.label, a.recorded) for a in sequence(agent)]
    assert (1, "model", "program", 2, "writes read_file in its text, no tool call", True) in arrows
    assert (1, "program", "tools", 3, "runs read_file? no result in the next request", False) in arrows
    assert not [a for a in arrows if a[0] == 1 and a[3] == 5]
    # The round the log ends on keeps its own words.
    assert steps_for_round(agent, 3)[-1].detail == f"not known: {command_unseen_words('message_agent')}"
    from lib.cli import summary_of
    document = summary_of(read_upload([(AUTOGPT, _declined())]))
    assert [r["steps"] for r in document["conversations"][0]["rounds"]][0] == [2, 3]
    predicted = outcome(agent, 1)
    assert (predicted.action, predicted.calls, predicted.written) == (
        "call", (("read_file", {"filename": "instructions_1.txt"}),), True)
    first = " ".join(_section(trace_html(agent), 1).split())
    assert "command read_file · written in the model's text, not as a tool call: no call id" in first
    assert f"What it returned {as_sentence(unanswered)}" in first
    assert "the log ends" not in first.lower()


def test_the_explorer_and_presenter_say_the_next_request_carries_no_result_of_the_command(app):
    # Round 1 showed "⑤ Step 5 · Model answers" "answer in text: ... the program went on (round 2)".
    unanswered = command_unanswered_words("read_file")
    at = _uploading(app, _declined())
    shown = lines(at, READ)
    assert f"read_file: {TEXT_COMMAND_WORDS} · choices[0].message.content" in shown
    assert f"not known: {unanswered}" in shown
    assert not any("Step 5" in line or "the program went on" in line for line in shown)
    at.toggle(key="explorer.presenter").set_value(True).run()
    seen = {}
    for _ in range(3):
        at.button(key="presenter.next").click().run()
        assert not at.exception
        step = at.query_params.get("step")
        seen[step[0] if isinstance(step, list) else step] = lines(at, READ)
    assert TEXT_COMMAND in seen["2"]
    assert UNPROVEN_SAID["no result"] in seen["3"]


def _next_request_lost(rounds: int = 2) -> bytes:
    """The AutoGPT log's first `rounds` rounds as a trace file (the request and response bodies as recorded) whose
    round 2 request the log did not keep (its model alone, no messages): round 1 wrote read_file, and the log does not
    hold the next request, which would carry its result. With two, round 2 is the one the log ends on; with three,
    round 3's request, kept, still carries read_file's result beside list_files's."""
    lines = [{"kind": "trace", "version": 1, "dialect": "openai-chat", "title": "AutoGPT, round 2's request lost"}]
    for round_ in _agent().rounds[:rounds]:
        request = round_.request.raw if round_.index != 2 else {"model": round_.request.raw["model"]}
        lines.append({"kind": "round", "index": round_.index, "request": request, "response": round_.response.raw})
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_a_command_whose_next_request_the_log_did_not_keep_is_not_an_answer_and_its_running_is_not_known():
    # Round 1 wrote read_file; the log keeps no request for round 2. Round 1 was labelled "⑤ answer in text: the
    # model's turn ended with no call; the program went on (round 2)", drawn "answers in text" and "shows the answer",
    # summarized as steps [5], predicted "it answered in text", and the HTML file drew no program lane.
    upload = read_upload([("autogpt-request-lost.jsonl", _next_request_lost())])
    agent = upload.conversations[0].trace
    assert [r.request_recorded for r in agent.rounds] == [True, False]
    lost = command_unrecorded_words("read_file", 2)
    assert command_unrecorded(agent, 1) == "read_file" and command_unrecorded(agent, 2) is None
    assert command_unproven(agent, 1) == UnprovenCommand("read_file", lost, "request not kept")
    assert command_unseen(agent, 1) is None and command_unanswered(agent, 1) is None
    assert "the log does not hold the next request (round 2's)" in lost and "not known" in lost
    labels = steps_for_round(agent, 1)
    assert [(label.step, label.detail) for label in labels] == [
        (2, f"read_file: {TEXT_COMMAND_WORDS}"), (3, f"not known: {lost}")]
    # The round the log ends on keeps its own words.
    assert steps_for_round(agent, 2)[-1].detail == f"not known: {command_unseen_words('list_files')}"
    assert steps_in(agent.rounds[0], agent) == (1, 2, 3, 4)
    assert step_lead(agent.rounds[0], 3, 2, unseen=command_unproven(agent, 1)) == UNPROVEN_SAID["request not kept"]
    arrows = [(a.round, a.step, a.label, a.recorded) for a in sequence(agent) if a.round == 1]
    assert (1, 2, "writes read_file in its text, no tool call", True) in arrows
    assert (1, 3, "runs read_file? the next request is not in the log", False) in arrows
    assert not [a for a in arrows if a[1] == 5 or a[2] in ("answers in text", "shows the answer")]
    from lib.cli import summary_of
    assert summary_of(upload)["conversations"][0]["rounds"][0]["steps"] == [2, 3]
    predicted = outcome(agent, 1)
    assert (predicted.action, predicted.written) == ("call", True)
    first = " ".join(_section(trace_html(agent), 1).split())
    assert f"What it returned {as_sentence(lost)}" in first
    assert "Model answers" not in first and "the log ends" not in first.lower()


def test_a_command_whose_result_a_later_request_carries_ran_as_that_requests_step_4_says_not_unknown():
    # Round 2's request is not in the log, round 3's carries "Command read_file returned: ..." and its step 4 paired it
    # with round 1, while round 1's step 3 said "not known: ... the log does not hold the next request (round 2's),
    # which would carry its result", the diagram "runs read_file? the next request is not in the log" and the HTML
    # file "What it returned" with those words: two views of one command that disagreed.
    upload = read_upload([("autogpt-middle-request-lost.jsonl", _next_request_lost(3))])
    agent = upload.conversations[0].trace
    assert [r.request_recorded for r in agent.rounds] == [True, False, True]
    appended = [label for label in steps_for_round(agent, 3) if label.step == 4 and label.call_round == 1]
    assert [label.path for label in appended] == ["messages[3].content"]
    assert command_unproven(agent, 1) is None and command_unrecorded(agent, 1) is None
    assert [(c.name, c.result_round, c.result_at) for c in text_commands(agent, 1)] == [("read_file", 3, 3)]
    labels = steps_for_round(agent, 1)
    assert [(label.step, label.detail) for label in labels] == [
        (2, f"read_file: {TEXT_COMMAND_WORDS}"),
        (3, "read_file: the program read the command out of the text and ran it; round 3's request carries its result "
            "(messages[3]); round 2's request, in between, is not in the log")]
    assert steps_in(agent.rounds[0], agent) == (1, 2, 3, 4)
    assert step_lead(agent.rounds[0], 3, 2, written=bool(text_commands(agent, 1))) == TEXT_COMMAND_RUNS
    arrows = [(a.round, a.step, a.label, a.recorded) for a in sequence(agent)]
    assert (1, 3, "runs read_file", True) in arrows
    assert (3, 4, "appends 2 results to the messages", True) in arrows
    assert not [a for a in arrows if a[0] == 1 and "?" in a[2]]
    from lib.cli import summary_of
    assert summary_of(upload)["conversations"][0]["rounds"][0]["steps"] == [2, 3]
    assert outcome(agent, 1).calls == (("read_file", {"filename": "instructions_1.txt"}),)
    first = " ".join(_section(trace_html(agent), 1).split())
    assert "round 3's request carries its result (messages[3]); round 2's request, in between, is not in the log" \
        in first
    assert "What it returned, as the next request in the log carries it Command read_file returned: " in first
    assert "not known" not in first


def test_presenter_mode_step_4_shows_the_result_a_later_kept_request_carries_and_opens_that_round(app):
    # Round 2's request is not in the log; round 3's carries read_file's result, and the explorer's round 3 labels it
    # step 4 of round 1's command. Presenter mode's step 4 of round 1 read "Request 2 carries 0 messages: 0 messages
    # resent unchanged." and "Request 2 carries no result for the calls of round 1.", and showed no result.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("autogpt-middle-request-lost.jsonl", _next_request_lost(3)).run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    for _ in range(3):
        at.button(key="presenter.next").click().run()
    assert not at.exception
    assert at.query_params.get("step") in ("4", ["4"]) and at.query_params.get("round") in ("1", ["1"])
    shown = lines(at, READ)
    assert kept_later_words(1, 3, True) in shown
    assert "Round 3's request, the next the log kept, carries the results of round 1's calls; round 2's request, in " \
           "between, is not in the log." in shown
    label = next(lab for lab in steps_for_round(_agent_with_middle_request_lost(), 3) if lab.call_round == 1)
    assert f"{label.detail} · {label.path}" in shown  # the label the explorer's round 3 shows
    assert any(line.startswith("Command read_file returned: ") for line in shown)
    assert not any("Request 2 carries" in line for line in shown + [w.value for w in at.warning])
    at.button(key="presenter.result_round").click().run()
    assert (at.query_params.get("round"), at.query_params.get("step")) in ((["3"], ["1"]), ("3", "1"))


def _agent_with_middle_request_lost():
    return read_upload([("autogpt-middle-request-lost.jsonl", _next_request_lost(3))]).conversations[0].trace


READ_FILE_ARGS = '{\n            "filename": "instructions_1.txt"\n        }'
"""Round 1's `args` as gpt-3.5-turbo wrote them in the AutoGPT log: twelve spaces in, the brace eight."""


def test_a_written_commands_arguments_are_shown_as_the_model_wrote_them_not_written_out_again():
    # The HTML file's "Arguments written in the text" and predict mode's "The model's arguments" showed
    # json.dumps(args, indent=2) of the parsed value, '{\n  "filename": "instructions_1.txt"\n}': spacing (and key
    # order and escapes, where a model writes them otherwise) not the model's. Scoring still goes by the parsed value.
    agent = _agent()
    assert written_arguments(agent.rounds[0]) == READ_FILE_ARGS
    assert written_arguments(agent.rounds[2]) == ('{\n            "key": "1111",\n            "message": "Hello, GPT '
                                                  'agent. How are you doing today?"\n        }')
    page = trace_html(agent)
    assert f"Arguments written in the text {READ_FILE_ARGS}" in _section(page, 1)
    assert '{\n  "filename"' not in _section(page, 1)
    predicted = outcome(agent, 1)
    assert predicted.arguments_raw == (READ_FILE_ARGS,)
    assert predicted.calls == (("read_file", {"filename": "instructions_1.txt"}),)
    scored = score(Prediction("call", (expected(None, '{"filename": "instructions_1.txt"}'),),
                              predicted.next_messages), predicted)
    assert [side.model for side in scored.sides] == [READ_FILE_ARGS]
    assert scored.earned == scored.possible


FEEDBACK = "Read instructions_2.txt before anything else."
"""What the person typed in place of authorising read_file, in `_answered`."""


def _answered() -> bytes:
    """The AutoGPT log with read_file's result replaced, in every request after round 1, by the system message AutoGPT
    0.3.1 appends where the person types a reply instead of authorising the command (autogpt/agent/agent.py:
    `result = f"Human feedback: {user_input}"`, appended as a system message, the command not run)."""
    cassette = yaml.safe_load((FIXTURES / AUTOGPT).read_text())
    for interaction in cassette["interactions"]:
        body = json.loads(interaction["request"]["body"])
        for message in body["messages"]:
            if message["role"] == "system" and message["content"].startswith("Command read_file returned:"):
                message["content"] = f"Human feedback: {FEEDBACK}"
        interaction["request"]["body"] = json.dumps(body)
    return yaml.safe_dump(cassette).encode()


def test_a_command_a_person_answered_instead_of_letting_it_run_names_the_persons_answer():
    # Round 2's request carries "Human feedback: ..." where read_file's result would be: round 1's step 3 said only
    # "not known: ... the next request carries no result of it, so nothing shows the program ran it", and the HTML
    # file "What it returned" with those words: the person's answer, which the request does carry, went unnamed.
    upload = read_upload([(AUTOGPT, _answered())])
    agent = upload.conversations[0].trace
    answered = command_answered_words("read_file", 2, 5)
    assert command_unproven(agent, 1) == UnprovenCommand("read_file", answered, "person answered", FEEDBACK)
    assert "a person's answer to it (messages[5])" in answered
    labels = steps_for_round(agent, 1)
    assert [(label.step, label.detail) for label in labels] == [
        (2, f"read_file: {TEXT_COMMAND_WORDS}"), (3, f"answered by a person: {answered}. Their answer: {FEEDBACK}")]
    assert step_lead(agent.rounds[0], 3, 2, unseen=command_unproven(agent, 1)) == UNPROVEN_SAID["person answered"]
    arrows = [(a.round, a.step, a.label) for a in sequence(agent) if a.round == 1]
    assert (1, 3, "runs read_file? a person answered instead") in arrows
    first = " ".join(_section(trace_html(agent), 1).split())
    assert f"What the person answered instead {as_sentence(answered)} {FEEDBACK}" in first
    assert "no result of it" not in first
    # A request that carries neither keeps its own words (the declined log).
    assert command_unproven(_declined_agent(), 1).why == "no result"


def test_the_explorer_shows_the_persons_answer_to_a_command_as_text(app):
    at = _uploading(app, _answered())
    shown = lines(at, READ)
    assert f"answered by a person: {command_answered_words('read_file', 2, 5)}. Their answer: {FEEDBACK}" in shown
    assert not any("Step 5" in line or "no result of it" in line for line in shown)
    at.number_input(key=state.ROUND).set_value(2).run()
    caption = HUMAN_FEEDBACK_WORDS[:1].upper() + HUMAN_FEEDBACK_WORDS[1:] + "."
    assert caption in [c.value for c in at.caption]


def test_the_persons_answer_to_a_command_is_named_theirs_where_its_origin_is_said():
    # Round 2's request card and the HTML file said of "Human feedback: ..." "Written by the person or the program.",
    # while round 1's step 3 said a person answered the command with it.
    agent = read_upload([(AUTOGPT, _answered())]).conversations[0].trace
    [answer] = [e for e in growth(agent, 2).new if e.message.text == f"Human feedback: {FEEDBACK}"]
    assert answer.index == 5 and origin_words(answer) == HUMAN_FEEDBACK_WORDS
    assert "a person's answer to the command the model wrote in its text" in HUMAN_FEEDBACK_WORDS
    page = " ".join(_section(trace_html(agent), 2).split())
    assert f"messages[5] · role system · new this round · {HUMAN_FEEDBACK_WORDS}" in page
    # The other new system messages (the memory AutoGPT recalls) keep their words: nothing shows who wrote them.
    others = [origin_words(e) for e in growth(agent, 2).new if e.message.role == "system" and e.index != 5]
    assert others and set(others) == {ORIGIN_WORDS["input"]}


def test_presenter_mode_counts_the_persons_answer_to_a_command_as_theirs_among_the_new_messages():
    # Round 1's step 4 said request 2 carried "2 other new messages": "Human feedback: ..." among them, which the
    # request card names a person's answer to the command, beside the memory AutoGPT recalls.
    agent = read_upload([(AUTOGPT, _answered())]).conversations[0].trace
    said = carried(agent.rounds[1], growth(agent, 2))
    assert f"1 message with {PERSONS_ANSWER}, in the system role and 1 other new message." in said
    assert HUMAN_FEEDBACK_WORDS.startswith(PERSONS_ANSWER)
    # The log as recorded, read_file's result where the answer is: no person's answer is counted.
    assert PERSONS_ANSWER not in carried(_agent().rounds[1], growth(_agent(), 2))
