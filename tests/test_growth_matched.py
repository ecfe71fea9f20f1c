"""A request that rewrote the history before it, placed by matching its messages' bytes: AutoGPT 0.3's memory challenge
(tests/fixtures/containers/autogpt-memory-challenge-b.yaml), whose each step puts a memory message among its system
ones and leaves older turns out, so what it resends sits one or more places on or back."""

from __future__ import annotations

import json

import pytest

from lib import tokens
from lib.checks import run_checks
from lib.export_html import trace_html
from lib.growth import growth, matched_words
from lib.presenter import carried
from lib.logs.upload import read_upload
from lib.ui import state
from tests.screen import ALERTS, FIXTURES, READ, lines, uploaded

AUTOGPT = "containers/autogpt-memory-challenge-b.yaml"


@pytest.fixture(scope="module")
def agent():
    """The agent's three steps, one conversation (its summary calls apart)."""
    upload = read_upload([(AUTOGPT.split("/")[-1], (FIXTURES / AUTOGPT).read_bytes())])
    return upload.conversations[0].trace


def _placed(placed):
    return {status: [(e.index, e.was_at) for e in placed.entries if e.status == status]
            for status in ("resent", "changed", "new")}


ROUND_3 = ("Placed by matching each message's bytes, in order, with round 2's request: messages[3] to messages[4] are "
           "its messages[5] to messages[6], resent unchanged 2 places back. It leaves out its messages[3] and "
           "messages[4]. A message that stands where that request had a different one of the same role is marked "
           "changed: the log cannot tell that message edited from another put in its place.")


def test_round_3_rewrote_one_message_left_two_out_and_resent_two_two_places_back_not_five_changed(agent):
    # Placed position by position, round 3 said "5 resent messages changed": the memory message (rewritten), the
    # question and the read_file command (left out), and the read_file result and the next question (resent, two places
    # back) were each compared with whatever round 2 had at their place.
    placed = growth(agent, 3)
    assert _placed(placed) == {"resent": [(0, None), (1, None), (3, 5), (4, 6)], "changed": [(2, None)],
                               "new": [(5, None), (6, None), (7, None)]}
    assert placed.changed[0].previous.text.startswith("This reminds you of these events from your past:")
    assert (placed.dropped, placed.dropped_at) == (2, (3, 4))
    assert placed.new[0].origin == "response"  # the list_files command, sent back as the model wrote it
    assert matched_words(placed) == ROUND_3


def test_round_2_put_its_memory_message_in_before_the_question_it_resends_one_place_on(agent):
    # Placed position by position: "messages[2] changed" (the memory message compared with the question).
    placed = growth(agent, 2)
    assert _placed(placed) == {"resent": [(0, None), (1, None), (3, 2)], "changed": [],
                               "new": [(2, None), (4, None), (5, None), (6, None)]}
    assert [e.index for e in placed.inserted] == [2] and placed.dropped == 0
    assert placed.inserted_only
    assert matched_words(placed) == (
        "Placed by matching each message's bytes, in order, with round 1's request: messages[3] is its messages[2], "
        "resent unchanged 1 place on. It puts 1 new message in among the resent ones (messages[2]). It rewrites none "
        "of that request's messages and leaves none out.")


def test_round_2_only_put_a_message_in_among_its_history_and_is_said_so_not_called_rewritten(agent):
    # Round 2 resends every message of round 1's request, unchanged and in order, with the memory message put in among
    # them. The Checks page read "warning history-rewritten: Compared with round 1's request, 1 new message put in
    # among the resent ones": nothing was rewritten.
    said = [(f.code, f.severity, f.path, f.message) for f in run_checks(agent) if f.round == 2]
    assert said == [(
        "history-inserted", "info", "messages[2]",
        "This request resends every message of round 1's request unchanged and in order, and puts 1 new message in "
        "among them (messages[2]): nothing is rewritten or left out. The model now reads its history with a message "
        "in it that was not there when it answered (an agent that adds a memory or context message each step does "
        "this). That is allowed, but the prompt cache starts again from that message.")]


def test_the_history_rewritten_finding_counts_what_the_matching_found(agent):
    said = {f.round: f.message for f in run_checks(agent) if f.code == "history-rewritten"}
    assert 2 not in said
    assert said[3].startswith("Compared with round 2's request, 1 resent message changed, 2 messages left out and 2 "
                              "messages resent unchanged at another place.")
    assert "5 resent messages changed" not in said[3]


LEFT_OUT = "Left out of this request: 2 messages of round 2's request."
"""The two messages round 3 does not resend (Growth.dropped), said in one sentence on every view."""

RESENT = "4 messages resent unchanged (messages[0] to messages[1] and messages[3] to messages[4])"
"""Not "(messages[0] to messages[4])": messages[2] is the rewritten memory message."""


def test_the_explorer_and_the_html_file_say_how_round_3_was_placed(app, agent):
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(3).run()
    shown = "\n".join(lines(at, READ + ALERTS))
    assert ROUND_3 in shown
    assert RESENT in [e.label for e in at.expander]
    assert LEFT_OUT in shown
    assert shown.count("changed since the previous request") == 1
    page = trace_html(agent).replace("&#39;", "'")
    assert ROUND_3 in page and RESENT in page


def test_presenter_mode_says_what_the_explorer_says_of_round_3s_growth(app, agent):
    # Presenter mode's step 1 grayed "4 messages resent unchanged" and showed the changed memory message and the new
    # ones, but never the 2 messages left out nor where the resent ones were before: 4 + 1 + 3 made 8 after round 2's
    # 7 with nothing to say why.
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(3).run()
    explorer = lines(at, READ + ALERTS)
    at.toggle(key=state.PRESENTER).set_value(True).run()
    assert not at.exception
    shown = lines(at, READ + ALERTS)
    assert "**4 messages resent unchanged**, grayed: the model reads every one of them again." in shown
    # The same counts and words as the explorer's request, said by the same function.
    for said in (LEFT_OUT, ROUND_3):
        assert said in explorer and said in shown
    # The changed message is marked changed, never listed among those resent unchanged.
    stack = [line for line in shown if line.startswith("messages[")]
    assert [line.split(" · ")[0] for line in stack] == ["messages[0]", "messages[1]", "messages[3]", "messages[4]"]
    assert "\n".join(shown).count("changed since the previous request") == 1


def test_the_growth_sentence_counts_round_3_as_the_explorer_does(agent):
    # Step 4's sentence on the request a round's results go into (here round 3's, placed by matching): the resent,
    # new and changed messages of its Growth, and the ones it left out, which made the counts fall short of round 2's 7.
    placed = growth(agent, 3)
    assert (len(placed.resent), len(placed.new), len(placed.changed), placed.dropped) == (4, 3, 1, 2)
    assert carried(agent.rounds[2], placed) == (
        "Request 3 carries 8 messages: 4 messages resent unchanged, the model's previous turn, 1 message with a "
        "command's result, in the system role, 1 message the program wrote in the user's role and 1 changed message. "
        + LEFT_OUT)


def test_the_tokens_page_counts_round_3s_new_messages_as_the_explorer_heads_it(app, agent):
    # The explorer heads round 3 "the program sends 8 messages, 3 of them new" (the list_files command, its result and
    # the next question); the Tokens page's table said 1 new message, 8 less round 2's 7, and its chart drew 7 resent.
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(3).run()
    assert "Round 3: the program sends 8 messages, 3 of them new" in [s.value for s in at.subheader]
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["new messages"].tolist() == [len(growth(agent, k).new) for k in (1, 2, 3)] == [3, 4, 3]


def _messages_chart(at) -> dict[str, list[int]]:
    """The Tokens page's messages chart: each series' name and its bars, by round."""
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if json.loads(c.proto.spec)["layout"]["yaxis"]["title"]["text"] == "messages sent")
    return {t["name"]: t["y"] for t in chart["data"]}


def test_the_tokens_pages_messages_chart_stacks_round_3_as_the_explorer_places_it(app, agent):
    # Round 3 resends 4 messages unchanged, changes the memory message and adds 3. The chart drew 8 less 3 new, 5, as
    # grey "resent": the rewritten memory message among them, which the explorer marks "changed since the previous
    # request", not resent unchanged.
    at = uploaded(app, AUTOGPT)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    bars = _messages_chart(at)
    placed = [growth(agent, k) for k in (1, 2, 3)]
    assert bars == {"resent unchanged": [len(g.resent) for g in placed],
                    "changed since the previous request": [len(g.changed) for g in placed],
                    "new": [len(g.new) for g in placed]}
    assert bars == {"resent unchanged": [0, 3, 4], "changed since the previous request": [0, 0, 1], "new": [3, 4, 3]}


def test_a_commands_result_in_the_system_role_counts_as_a_tools_result_not_as_instructions(agent):
    # AutoGPT runs the command the model names in its text and appends "Command read_file returned: ..." as a system
    # message. The Tokens page counted it among the instructions: round 2's went from 700 to 2,161 tokens, the file's
    # text taken for the system prompt. The instructions are the system messages AutoGPT writes as such (its prompt, the
    # time, the memory message); the result is among the new messages, and resent in round 3 as history.
    counter = tokens.counter_for("cl100k_base").counter
    split = tokens.breakdowns(agent, counter)
    request = agent.rounds[1].request.messages
    result = request[5]
    assert result.role == "system" and result.text.startswith("Command read_file returned: ")
    assert split[1].instructions == sum(tokens.message_tokens(m, counter) for m in request[:3])
    assert split[1].new == sum(tokens.message_tokens(m, counter) for m in request[4:])
    assert tokens.message_tokens(result, counter) > 500
    assert split[2].history == sum(tokens.message_tokens(m, counter) for m in agent.rounds[2].request.messages[3:5])


def test_the_explorer_says_what_a_commands_result_is_and_labels_it_step_4(app, agent):
    # The card said "Written by the person or the program." of the read_file result, and no step marked it: the
    # command came from the model's text, not a tool call, so no call id pairs it.
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(2).run()
    shown = lines(at, READ + ALERTS)
    card = shown.index("**messages[5]** · role **system** · :green-badge[new this round]")
    assert shown[card + 1] == ("The result of a command the model wrote in its text, not as a tool call: the program ran "
                               "it and appended what it returned in the system role, so it is a tool's result, not "
                               "instructions.")
    assert ("result of the command read_file, written in the text of round 1's answer: no tool call, so no call id; the "
            "program read the command from the text, ran it and appended its result in the system role · "
            "messages[5].content") in shown
    assert ":green-background[**④ Step 4 · Result appended**]" in shown
    page = trace_html(agent).replace("&#39;", "'")
    assert "result of the command read_file, written in the text of round 1's answer" in page
    assert "The result of a command the model wrote in its text" in page or \
        "the result of a command the model wrote in its text" in page


def test_the_messages_a_request_does_not_resend_are_left_out_in_one_word_on_every_view(app, agent):
    # One count, three words: the explorer and the HTML file said "2 messages of the previous request missing from this
    # one", presenter mode "are missing from it", the Checks page "2 messages dropped" and its matching sentence "It
    # leaves out its messages[3] and messages[4]".
    at = uploaded(app, AUTOGPT)
    at.number_input(key=state.ROUND).set_value(3).run()
    explorer = "\n".join(lines(at, READ + ALERTS))
    page = trace_html(agent).replace("&#39;", "'")
    [finding] = [f.message for f in run_checks(agent) if f.code == "history-rewritten" and f.round == 3]
    said = {"explorer": explorer, "file": page, "presenter": carried(agent.rounds[2], growth(agent, 3)),
            "checks": finding}
    for where, text in said.items():
        assert "dropped" not in text and "missing" not in text, where
    assert LEFT_OUT in explorer and LEFT_OUT in page and said["presenter"].endswith(LEFT_OUT)
    assert "2 messages left out" in finding
