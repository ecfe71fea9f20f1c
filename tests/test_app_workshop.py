"""Workshop mode through the real app (AppTest): presenter, predict, both dialects, the picture, sharing."""

import json

import pytest

from lib.ui.lesson import LESSON_CSS
from lib.ui.presenter import PRESENTER_CSS
from lib.ui.picker import SIDEBAR_CSS
from tests.conftest import ROOT, load_bundled
from tests.screen import FIXTURES, READ, lines, screen, uploaded


def _markdown(at) -> str:
    return screen(at)


def _headers(at) -> list[str]:
    return [h.value for h in at.header if h.value != "Roundtrip"]


def _query(at, name):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def _open_presenter(app, round_, step):
    app.query_params.update({"trace": "hengxin-expense", "round": str(round_), "step": str(step), "mode": "present"})
    at = app.run()
    assert not at.exception
    return at


def _lead(node) -> str:
    """The slide's one sentence that matters: the markdown of the slide-lead container ("" when there is none)."""
    if getattr(node, "key", None) == "slide-lead":
        return "\n".join(c.value for c in node.children.values() if getattr(c, "type", None) == "markdown")
    return next((found for child in getattr(node, "children", {}).values() if (found := _lead(child))), "")


def test_a_deep_link_opens_presenter_mode_on_round_3_step_4(app):
    at = _open_presenter(app, 3, 4)
    assert _headers(at) == ["④ Result appended"]
    shown = _markdown(at)
    assert "Hengxin expense reimbursement\n**round 3 of 4**" in shown
    assert "④ Step 4 · Result appended**]\nresult for createExpenseSupplement (call_q4, called in round 3)" in shown
    assert _lead(at.main).startswith("Request 4 carries 9 messages")  # the slide's one sentence, not a gray caption
    # Big type and no sidebar come from our own fixed stylesheet; no raw JSON and no view switch.
    assert sorted(h.proto.body for h in at.get("html")) == sorted([PRESENTER_CSS, LESSON_CSS, SIDEBAR_CSS])  # and the sidebar's width
    assert not at.json and not [r for r in at.radio if r.key == "explorer.view"]
    assert (_query(at, "round"), _query(at, "step"), _query(at, "mode")) == ("3", "4", "present")


def test_next_and_previous_reveal_one_step_at_a_time_across_rounds(app):
    at = _open_presenter(app, 3, 3)
    seen = []
    for _ in range(3):
        at.button(key="presenter.next").click().run()
        assert not at.exception
        seen.append((_query(at, "round"), _query(at, "step"), _headers(at)[0]))
    assert seen == [("3", "4", "④ Result appended"), ("4", "1", "① Request sent"),
                    ("4", "5", "⑤ Model answers")]
    assert at.button(key="presenter.next").disabled
    assert "⑤ Step 5 · Model answers**]\nfinal answer" in _markdown(at)
    at.button(key="presenter.previous").click().run()
    assert _headers(at) == ["① Request sent"]
    shown = _markdown(at)
    assert "① Step 1 · Request sent**]\n4 tools resent unchanged" in shown
    assert "④ Step 4 · Result appended**]\nresult for createExpenseSupplement" in shown


def test_an_unknown_step_lands_on_the_nearest_one_the_round_has(app):
    at = _open_presenter(app, 4, 2)
    assert _headers(at) == ["⑤ Model answers"] and _query(at, "step") == "5"


def test_leaving_presenter_mode_brings_the_explorer_back_on_the_same_round(app):
    at = _open_presenter(app, 2, 3)
    at.toggle(key="explorer.presenter").set_value(False).run()
    assert not at.exception
    assert any(s.value.startswith("Round 2: the program sends 5 messages") for s in at.subheader)
    assert PRESENTER_CSS not in [h.proto.body for h in at.get("html")]
    assert _query(at, "mode") is None and _query(at, "step") is None


def _predict(at, index, action, tool=None, arguments="", messages=None):
    at.radio(key=f"predict.{index}.action").set_value(action)
    if tool is not None:  # one box of arguments per tool chosen, keyed by the tool's place in the list
        place = [t.name for t in load_bundled("hengxin-expense").trace.rounds[0].request.tools].index(tool)
        at.multiselect(key=f"predict.{index}.tools").set_value([place]).run()
        at.text_area(key=f"predict.{index}.arguments.{place}").input(arguments)
    if messages is not None:
        at.number_input(key=f"predict.{index}.messages").set_value(messages)
    at.button(key="predict.reveal").click().run()
    assert not at.exception


def _score(at) -> str:
    return next(m.value for m in at.metric if m.label == "Your score on this trace")


def test_a_scripted_prediction_session_is_scored_round_by_round_and_for_the_trace(app):
    at = app.run()
    at.toggle(key="explorer.predict").set_value(True).run()
    assert _query(at, "mode") == "predict"
    # Before predicting, nothing gives the response away: no call, no program lane, no overview.
    assert "Call queryExpense" not in _markdown(at)
    assert not [d for d in at.dataframe if "messages sent" in d.value.columns]
    assert "Hidden until you predict" in " ".join(c.value for c in at.caption)
    assert _score(at) == "no round predicted yet"

    _predict(at, 1, "call", "queryExpense", '{"status": "submitted", "user_id": "E10238"}', 5)
    shown = _markdown(at)
    # One of round 1's two calls in parallel, predicted rightly: half of the calls' points.
    assert "Your prediction: 5 of 8 points" in shown
    assert ":orange-badge[partly] which tools (1/2)\nit called queryExpense and queryTravelPolicy in parallel" in shown
    assert "Call queryExpense" in _markdown(at)  # the response is revealed
    assert _score(at) == "5 / 8"

    at.button(key="explorer.next").click().run()
    _predict(at, 2, "answer", messages=7)
    shown = _markdown(at)
    assert "Your prediction: 1 of 5 points" in shown
    assert ":red-badge[wrong] tool or answer (0/1)\nit called a tool" in shown
    assert ":green-badge[right] messages in the next request (1/1)\nrequest 3 carried 7 messages" in shown
    assert _score(at) == "6 / 13"

    assert at.number_input(key="explorer.round").max == 3  # request 4 would carry round 3's calls
    at.number_input(key="explorer.round").set_value(3).run()
    _predict(at, 3, "answer")
    assert _score(at) == "6 / 18"
    at.number_input(key="explorer.round").set_value(4).run()
    _predict(at, 4, "answer")
    assert "Your prediction: 1 of 1 point" in _markdown(at)
    assert _score(at) == "7 / 19"

    at.number_input(key="explorer.round").set_value(1).run()
    assert "Your prediction: 5 of 8 points" in _markdown(at)  # kept in the session
    at.button(key="predict.start_over").click().run()
    assert _score(at) == "no round predicted yet"


def test_both_dialects_side_by_side_with_the_field_mapping(app):
    app.query_params.update({"trace": "order-status-anthropic", "round": "2"})
    at = app.run()
    at.radio(key="explorer.view").set_value("Both dialects").run()
    assert not at.exception
    anthropic_request, anthropic_response = [json.loads(j.value) for j in at.json]  # as recorded
    openai_request, openai_response = [json.loads(c.value) for c in at.code if c.language == "json"]  # converted
    assert [m["role"] for m in openai_request["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert openai_response["choices"][0]["finish_reason"] == "stop"
    assert "system" in anthropic_request and anthropic_response["stop_reason"] == "end_turn"  # as recorded
    mapping = next(d.value for d in at.dataframe if "what" in d.value.columns)
    row = mapping[mapping["what"] == "Which call a result answers"].iloc[0]
    assert row["OpenAI Chat Completions"] == "messages[3].tool_call_id = toolu_01A9kXq3vTn8RcW2mLp5dYh7"
    assert row["Anthropic Messages"] == "messages[2].content[0].tool_use_id = toolu_01A9kXq3vTn8RcW2mLp5dYh7"
    rules = _markdown(at)
    assert "| **Which call a result answers** | tool_call_id on the tool message | tool_use_id in the tool_result block |" in rules
    captions = " ".join(c.value for c in at.caption)
    assert "Completed from a partial record: parts of this payload were added, not recorded." in captions
    assert "Converted by Roundtrip, field by field." in captions


def test_the_other_dialect_keeps_the_arguments_digits_as_the_model_wrote_them(app):
    app.query_params["round"] = "2"
    at = app.run()
    at.radio(key="explorer.view").set_value("Both dialects").run()
    converted = " ".join(c.value for c in at.code if c.language == "json")
    assert '"actual_amount": 3860.00' in converted and '"limit_amount": 3800.00' in converted
    mapping = next(d.value for d in at.dataframe if "what" in d.value.columns)
    row = mapping[mapping["what"] == "Call arguments"].iloc[0]
    assert "3860.00" in row["Anthropic Messages"] and "3860.0," not in row["Anthropic Messages"]


def test_a_converted_round_lists_what_it_could_not_carry(app):
    app.query_params.update({"trace": "larkfield-get-order", "round": "1"})
    at = app.run()
    at.radio(key="explorer.view").set_value("Both dialects").run()
    notes = next(e for e in at.expander if e.label.startswith("What this conversion could not carry"))
    assert "reasoning_effort: has no Messages form; left out" in " ".join(t.value for t in notes.text)


def test_the_explorer_draws_the_sequence_diagram_and_offers_both_downloads(app):
    at = app.run()
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "annotations" in c.proto.spec
                 and "Program" in c.proto.spec)
    texts = [a.get("text", "") for a in chart["layout"]["annotations"]]
    assert [t for t in texts if t.startswith("<b>Round")] == [f"<b>Round {k}</b>" for k in range(1, 5)]
    assert any(t.startswith("⑤") for t in texts)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download the trace as one HTML file", "Download a printable handout"]


@pytest.mark.parametrize("mode", ["present", "predict", "present,predict"])
def test_modes_come_from_the_address(app, mode):
    app.query_params["mode"] = mode
    at = app.run()
    assert not at.exception
    assert at.toggle(key="explorer.presenter").value == ("present" in mode)
    assert at.toggle(key="explorer.predict").value == ("predict" in mode)


def test_the_presenter_names_a_narration_as_the_checks_page_does(app):
    app.query_params.update({"trace": "pitfalls/narration-without-call", "round": "1", "step": "5", "mode": "present"})
    at = app.run()
    assert not at.exception
    assert _headers(at) == ["⑤ Narration without a call"]  # round 2 follows: the program went on
    assert "Model answers" not in _markdown(at)


def _presenting_round_2(app, fixture: str, steps: int):
    """The uploaded recording in presenter mode, `steps` slides on: the first step of round 2."""
    at = uploaded(app, fixture)
    at.toggle(key="explorer.presenter").set_value(True).run()
    for _ in range(steps):
        at.button(key="presenter.next").click().run()
    assert not at.exception
    assert (_query(at, "round"), _query(at, "step")) == ("2", "1")
    return at


def test_the_request_step_shows_the_request_headers_that_shaped_the_call_as_the_explorer_does(app):
    # The Anthropic SDK's tool runner sent anthropic-beta and x-stainless-helper: the explorer shows them above the
    # request; presenter mode's request step, the same request, showed nothing of them.
    at = uploaded(app, "containers/anthropic-py-tool-runner-compaction-summary.json")
    heading = [m.value for m in at.markdown if m.value.startswith("**request headers**")]
    headers = [line for line in lines(at, ("text", "code")) if line.startswith("anthropic-version")]
    assert headers == ["anthropic-version: 2023-06-01\nanthropic-beta: structured-outputs-2025-12-15\n"
                       "x-stainless-helper: BetaToolRunner"]
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    assert (_query(at, "round"), _query(at, "step")) == ("1", "1")
    assert [m.value for m in at.markdown if m.value.startswith("**request headers**")] == heading
    assert [line for line in lines(at, ("text", "code")) if line.startswith("anthropic-version")] == headers


def test_after_a_failed_call_the_next_request_shows_the_result_no_step_showed(app):
    # Groq refused round 1 (HTTP 400, tool_use_failed); the client appended the rejected call and a validation
    # error as its result. Round 1 had no step ④, so round 2's request is the first place that result is seen.
    at = _presenting_round_2(app, "openai-compatible-tool-use-failed.jsonl", steps=2)
    folded = [e.label for e in at.expander if "already showed" in e.label]
    assert folded == []  # round 1 showed neither a model's turn nor a result
    assert any("Fix the errors and try again." in line for line in lines(at, READ + ("code",)))


def test_the_counter_of_a_failed_call_does_not_say_its_tool_list_was_paid_for(app):
    # Round 1 of the Groq recording failed with HTTP 400: whether the provider billed it, the log does not say.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    tools = next(line for line in _markdown(at).splitlines() if line.startswith("**Tools:**"))
    assert "paid" not in tools
    assert "the call failed, and the log does not say whether the provider billed it" in tools


def test_a_request_that_extends_a_response_held_by_the_provider_is_not_said_to_resend_it(app):
    # The Responses API chain: round 2 sends previous_response_id and 3 new items; the provider holds the 2 earlier
    # messages. The model reads them again (and they are billed), but the program does not send them.
    at = _presenting_round_2(app, "openai-responses.jsonl", steps=4)
    shown = _markdown(at)
    assert "2 messages resent unchanged" not in shown and "3 messages resent unchanged" not in shown
    assert ("**2 earlier messages held by the provider** (previous_response_id, previous_interaction_id or a "
            "conversation), not sent again") in shown
    counter = next(line for line in shown.splitlines() if "round by round:" in line)
    assert counter.startswith("**Messages the model reads, round by round:**")


def test_a_held_chain_slide_counts_the_instructions_as_resent_and_the_model_turn_as_held_as_the_card_does(app):
    # Round 2 of the Responses chain: the provider holds the question and the model's turn (messages[1] and [2]);
    # the program resends the instructions (messages[0]). The slide says so, as the explorer card does, and the
    # held model's turn is grayed with the held question, not shown as a message the program appended.
    at = _presenting_round_2(app, "openai-responses.jsonl", steps=4)
    shown = _markdown(at)
    assert ("**2 earlier messages held by the provider** (previous_response_id, previous_interaction_id or a "
            "conversation), not sent again "
            "and **1 message resent unchanged**, grayed: the model reads every one of them again.") in shown
    stack = [line for line in shown.splitlines() if line.startswith("messages[")]
    assert [line.split(" · ")[0] for line in stack] == ["messages[0]", "messages[1]", "messages[2]"]
    assert "**messages[2]** · role **assistant** · :green-badge[new this round]" not in shown
    assert "**messages[3]** · role **tool** · :green-badge[new this round]" in shown


def test_the_counter_of_a_request_not_in_the_log_neither_counts_its_messages_nor_splits_its_input(app):
    # A Messages stream recorded only what came back: the program sent messages, how many is not known, and the
    # reported 1,436 input tokens are not "beyond our count" (nothing was counted), as the explorer says.
    at = uploaded(app, "anthropic-stream.jsonl")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    shown = _markdown(at).splitlines()
    messages = next(line for line in shown if "round by round:" in line)
    assert messages == "**Messages sent, round by round:** :blue-background[**not in the log**]"
    tokens = next(line for line in shown if line.startswith("**Input tokens"))
    assert tokens == ("**Input tokens:** 1,436 reported; the request was not in the log, so nothing of it is "
                      "counted or estimated")


def test_a_text_answer_that_a_later_round_goes_on_from_is_not_said_to_end_the_loop(app):
    # The Responses chain: round 2 answers in text, then the person asks again (round 3), which is cut at its token
    # limit with no text at all, and round 4 follows. Neither slide may say the model is not called again.
    at = _presenting_round_2(app, "openai-responses.jsonl", steps=4)
    at.button(key="presenter.next").click().run()
    assert (_query(at, "round"), _query(at, "step")) == ("2", "5")
    assert _lead(at.main) == "The model's turn ended with no call; the program went on (round 3)."
    at.button(key="presenter.next").click().run()
    at.button(key="presenter.next").click().run()
    assert (_query(at, "round"), _query(at, "step")) == ("3", "5")
    # Cut off at its output limit: said so (lib.steps.cut_off_short), not only that it stopped.
    assert _lead(at.main) == "The model was cut off at the output limit: no finished answer, no call. Round 4 goes on from it."


def test_the_last_rounds_text_answer_ends_the_loop(app):
    at = _open_presenter(app, 4, 5)
    assert _lead(at.main) == "The loop ends: this text goes to the person, and the model is not called again."


def test_presenter_mode_shows_the_message_gemini_cli_showed_before_the_first_request_as_the_explorer_does(app):
    # Line 2 of the recording: an info message Gemini CLI showed before round 1's request, never sent to the model.
    at = uploaded(app, "gemini-cli-session.jsonl")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    assert (_query(at, "round"), _query(at, "step")) == ("1", "1")
    shown = lines(at, ("text",))
    assert "Gemini CLI's message before this request (info):" in shown
    assert shown.count("Empty GEMINI.md created. Now analyzing the project to populate it.") == 1
    assert "Empty GEMINI.md created." not in "\n".join(lines(at, ("markdown", "caption")))


def test_presenter_mode_shows_the_message_gemini_cli_showed_after_a_session_that_ends_on_an_answer(app):
    # The recording cut after round 5's answer (line 21), then the info message Gemini CLI showed as it ended.
    from lib.ui import state
    recorded = (FIXTURES / "gemini-cli-session.jsonl").read_text(encoding="utf-8").splitlines()[:21]
    ended = {"id": "info-end", "timestamp": "2026-04-23T12:54:00.000Z", "type": "info", "content": "Request cancelled."}
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("session.jsonl", "\n".join([*recorded, json.dumps(ended)]).encode())
    at.run()
    at.number_input(key=state.ROUND).set_value(5).run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    at.button(key="presenter.next").click().run()
    assert not at.exception
    assert (_query(at, "round"), _query(at, "step")) == ("5", "5")
    shown = lines(at, ("text",))
    assert "Gemini CLI's message after this round (info):" in shown
    assert shown.count("Request cancelled.") == 1


def _presenting_last_step_4(at, last: int):
    """The presenter on step 4 of round `last`, the trace's last, as Next reaches it."""
    from lib.ui import state

    at.toggle(key="explorer.presenter").set_value(True).run()
    at.session_state[state.ROUND] = at.session_state[state.ROUND_SHOWN] = last
    at.session_state[state.STEP] = 4
    at.run()
    assert not at.exception
    assert [h.value for h in at.header if h.value != "Roundtrip"] == ["④ Result appended"]
    return at


def test_the_presenters_last_step_4_says_where_the_log_ends_in_the_explorers_words(app):
    # Hengxin's log cut after round 3: its call ran, and no request carries the result back.
    from lib.summary import LOG_ENDS
    from lib.ui import state

    at = app.run()
    cut = "".join((ROOT / "traces" / "hengxin-expense.jsonl").read_text().splitlines(keepends=True)[:4])
    at.file_uploader(key="sidebar.upload").upload("hengxin-expense-cut.jsonl", cut.encode())
    at.run()
    at.number_input(key=state.ROUND).set_value(3).run()
    assert LOG_ENDS in lines(at)  # the explorer's card, under round 3's execution
    at = _presenting_last_step_4(at, 3)
    assert [i.value for i in at.info] == [LOG_ENDS]


@pytest.mark.parametrize("fixture, said", [
    # One request and its answer, a tool call: the log holds no execution, no result, no next request.
    ("openai-chat-stream.sse", "The log ends after these calls: it holds no result of them, and no request that would "
                               "carry one back to the model."),
    # A span that stopped for tools but kept no message: which calls, the log does not say.
    ("otlp-span-per-call-no-content.jsonl", "The log ends here and kept none of the calls this response stopped for: "
                                            "it holds no result of them, and no request that would carry one back to "
                                            "the model."),
])
def test_the_presenters_last_step_4_claims_no_result_the_log_does_not_hold(app, fixture, said):
    at = _presenting_last_step_4(uploaded(app, fixture), 1)
    assert [i.value for i in at.info] == [said]
    assert "these results" not in screen(at)


def test_a_final_answer_has_no_step_4_and_its_words_say_no_tool_was_called(app):
    from lib.summary import log_ends_words
    from tests.conftest import load_bundled

    at = _open_presenter(app, 4, 4)  # Hengxin's round 4 answers: the link lands on that answer
    assert _headers(at) == ["⑤ Model answers"] and "results" not in " ".join(i.value for i in at.info)
    final = load_bundled("hengxin-expense").trace.rounds[-1]
    assert log_ends_words(final) == ("Nothing was appended: the model called no tool in this round, so no result "
                                     "goes back to it; the log ends with its answer.")


def test_a_call_the_program_declined_is_shown_as_declined_not_as_a_failed_handler(app):
    # The wrong-tool pitfall's step 3: the program refused cancel_order without running it. The card said "failed"
    # and the step "cancel_order (...): failed" under a lead that says the call was declined.
    app.query_params.update({"trace": "pitfalls/wrong-tool-declined", "round": "1", "step": "3", "mode": "present"})
    at = app.run()
    assert not at.exception
    shown = screen(at)
    assert "cancel_order (toolu_01Vb8Kq3WnX6mPz2RtLc9HsY): declined, not run · executions[0]" in shown
    assert ":orange-badge[declined: not run]" in shown
    assert "failed" not in shown


def test_the_html_export_shows_a_declined_call_as_declined():
    from lib.export_html import trace_html
    html = trace_html(load_bundled("pitfalls/wrong-tool-declined").trace)
    assert "declined, not run" in html and ">failed<" not in html
    assert "tool <b>cancel_order</b>" in html and "The call's arguments (no handler ran)" in html


def test_a_custom_tools_call_side_by_side_shows_its_free_text_input_not_an_error(app):
    # GPT-5's custom tool (dd-trace-py's recording): the call carries `custom.input`, no `function`. The "Both dialects"
    # view raised KeyError: 'function' and the page showed Streamlit's error box.
    at = uploaded(app, "containers/ddtrace-openai-custom-tool-chat.yaml")
    at.radio(key="explorer.view").set_value("Both dialects").run()
    assert not at.exception
    mapping = next(d.value for d in at.dataframe if "what" in d.value.columns)
    row = mapping[mapping["what"] == "Call arguments"].iloc[0]
    assert row["OpenAI Chat Completions"] == 'choices[0].message.tool_calls[0].custom.input = "4 + 4"'
