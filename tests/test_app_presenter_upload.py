"""Presenter mode on an uploaded real recording, through the real app (AppTest): what each step says is true of the
recording the teacher opened, not only of the body Roundtrip wrote from it."""

from __future__ import annotations

import json
from pathlib import Path

from lib.presenter import kept_later_words

from tests.screen import screen

GEMINI = Path(__file__).parent / "fixtures" / "containers" / "rig-gemini-interactions-tool-result.yaml"
CONVERTED = ("Converted from a Google Gemini Interactions API body: the content is as recorded, written here as an "
             "OpenAI Chat Completions body, so the paths on the steps name this body, not the log's.")


def _present(app, path: Path, round_: int, step: int):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload(path.name, path.read_bytes()).run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    while f"round {round_} of" not in screen(at) or at.query_params.get("step") not in ([str(step)], str(step)):
        at.button(key="presenter.next").click().run()
    assert not at.exception
    return at


def test_a_step_of_a_converted_recording_says_its_paths_name_roundtrips_body_not_the_recordings(app):
    # Gemini's Interactions API answers with `steps` and `status: requires_action`; the slide showed
    # "finish_reason 'tool_calls': run the tools · choices[0].finish_reason" to the room with nothing to say that no
    # such field is in the recording. The explorer says it above the payload; presenter mode said nothing.
    at = _present(app, GEMINI, 1, 2)
    shown = screen(at)
    assert "choices[0].finish_reason" in shown
    assert CONVERTED in [c.value for c in at.caption]


def test_a_tool_list_the_provider_holds_is_said_held_on_the_slide_not_resent(app):
    at = _present(app, GEMINI, 2, 1)
    shown = screen(at)
    assert "1 tool held by the provider from earlier in the conversation, not sent: add" in shown
    assert "**Tools:** 1 tool definition, 65 tokens: not sent again: the provider holds them" in shown
    assert "resent unchanged" not in shown
    # The request carried one message; the model read three: the request alone is not all it knows.
    assert "This request is everything the model knows." not in shown
    assert "This request and the earlier messages and the tool list the provider kept are everything the model knows." \
        in shown


def test_a_bundled_recorded_trace_says_nothing_of_a_conversion(app):
    at = app.run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not any("Converted from" in c.value for c in at.caption)


def _slides_of_the_upload(app, view: str):
    """The uploaded recording on a slide of the plan page's own plan, presented."""
    at = app.run()
    at.switch_page("pages/plan.py").run()
    at.file_uploader(key="sidebar.upload").upload(GEMINI.name, GEMINI.read_bytes()).run()
    at.selectbox(key="plan.add.trace").set_value(f"this-tab.{GEMINI.name}")
    at.selectbox(key="plan.add.view").set_value(view)
    at.button(key="plan.add.submit").click().run()
    at.button(key="plan.present").click().run()
    at.switch_page("pages/explorer.py").run()
    at.button(key="presenter.next").click().run()  # the slide added after the first
    assert not at.exception and "rig-gemini-interactions-tool-result.yaml" in screen(at)
    return at


def test_the_closing_slide_of_a_chain_the_provider_kept_does_not_say_everything_was_sent_again(app):
    # Request 2 sent only the function result (previous_interaction_id): no tools, no earlier message. The closing
    # slide said "the tool list and the whole conversation were sent again every time".
    shown = screen(_slides_of_the_upload(app, "closing"))
    assert "sent again every time" not in shown
    assert ("One question, 2 model calls and 1 tool call: the provider kept the earlier messages and the tool list "
            "between calls, so the program sent them once, yet every call's input counted them again.") in shown


def test_the_tokens_slide_of_a_chain_the_provider_kept_does_not_say_every_call_resends_everything(app):
    shown = screen(_slides_of_the_upload(app, "tokens"))
    assert "Every call resends everything" not in shown
    assert ("Every call is billed for the whole conversation, though the provider kept the earlier messages and the "
            "tool list and the program sent them once: 2 calls billed 154 input tokens") in shown


def test_the_explorer_says_under_its_general_sentence_that_this_traces_provider_kept_the_conversation(app):
    # Above the rounds the explorer says "Each round the program sends the whole conversation and the tool list": on
    # this recording the program sent the function result alone in round 2, and nothing said so.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload(GEMINI.name, GEMINI.read_bytes()).run()
    captions = [c.value for c in at.caption]
    assert ("In this trace the provider kept the earlier messages and the tool list between calls (a "
            "previous_response_id, previous_interaction_id or conversation chain): the program sent them once, and "
            "the model read them again every round.") in captions
    at.button(key="sidebar.close_upload").click().run()  # Hengxin: its program did send everything every round
    assert not any(c.value.startswith("In this trace the provider kept") for c in at.caption)


def test_a_pitfall_slide_of_a_trace_not_from_the_gallery_says_so_rather_than_show_a_header_alone(app):
    # The Add form offers "Pitfall gallery" for every trace; on this recording the slide drew its heading and nothing.
    at = _slides_of_the_upload(app, "gallery")
    assert ("This trace is not from the pitfall gallery, so there is no story of a pitfall to tell, and the checks "
            "found nothing in round 1.") in screen(at)


def test_a_dialects_slide_of_a_converted_recording_says_neither_column_is_the_recording(app):
    # Both columns showed "finish_reason = tool_calls" and "stop_reason = tool_use" for an answer whose recording says
    # `status: requires_action`, with nothing to say that both are Roundtrip's writing.
    at = _slides_of_the_upload(app, "dialects")
    assert "finish_reason = tool_calls" in screen(at)
    assert CONVERTED in [c.value for c in at.caption]


RETRIED = Path(__file__).parent / "fixtures" / "containers" / "anthropic-py-rate-limited-twice-then-answered.json"


def test_the_response_step_of_a_request_sent_three_times_says_its_tries_as_the_explorer_does(app):
    # The Anthropic Python SDK's retries of one request (429, 429, 200) are one round; the explorer says so under its
    # response and lists each failed try, while presenter mode's step 5 showed the answer as if sent once.
    at = _present(app, RETRIED, 1, 5)
    said = [c.value for c in at.caption]
    assert ("This request was sent 3 times, unchanged: HTTP 429, HTTP 429, then an answer. The round shows the last "
            "try; the failed tries are kept with it.") in said
    assert "Try 1 of 3 failed: HTTP 429." in said and "Try 2 of 3 failed: HTTP 429." in said
    assert any("rate_limit_error" in str(j.value) for j in at.main.json)


def _hengxin_middle_request_lost() -> bytes:
    """The bundled Hengxin trace with round 2's request left out of the log (its model alone, no messages): round 3's
    request, kept, still carries the results of round 1's two calls beside round 2's. Its lessons are left out: they
    speak of the request the log now lacks."""
    lines = []
    for line in (Path(__file__).parent.parent / "traces" / "hengxin-expense.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "lesson":
            continue
        if record.get("kind") == "round" and record["index"] == 2:
            record["request"] = {"model": record["request"]["model"]}
        lines.append(json.dumps(record))
    return "\n".join(lines).encode()


def test_a_calls_results_a_later_kept_request_carries_are_step_4_of_its_round_with_a_way_to_that_round(app):
    # Step 4 of round 1 read "Request 2 carries 0 messages: 0 messages resent unchanged." and "Request 2 carries no
    # result for the calls of round 1."; step 3's lane said under each execution "Round 2's request carries no result
    # for this call.", in the explorer too: round 3's request, whose step 4 pairs both results with round 1, was not
    # named.
    between = "round 2's request, in between, is not in the log"
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hengxin-round-2-lost.jsonl", _hengxin_middle_request_lost()).run()
    assert not at.exception
    explorer = screen(at)
    assert f"Appended to round 3's request as messages[3].content; {between}." in explorer
    assert "Round 2's request carries no result" not in explorer
    at.toggle(key="explorer.presenter").set_value(True).run()
    for step in ("2", "3", "4"):
        at.button(key="presenter.next").click().run()
        assert not at.exception and at.query_params.get("step") in (step, [step])
        shown = screen(at) + "\n".join(w.value for w in at.warning)
        assert "Request 2 carries" not in shown and "Round 2's request carries" not in shown
    assert kept_later_words(1, 3, True) == f"Round 3's request, the next the log kept, carries the results of round " \
                                          f"1's calls; {between}."
    assert kept_later_words(1, 3, True) in screen(at)
    assert screen(at).count("④ Step 4 · Result appended") == 2  # round 1's two results, not round 2's
    assert "called in round 1" in screen(at) and "called in round 2" not in screen(at)
    at.button(key="presenter.result_round").click().run()
    assert at.query_params.get("round") in ("3", ["3"]) and at.query_params.get("step") in ("1", ["1"])


SMOLAGENTS = Path(__file__).parent / "fixtures" / "containers" / "weave-smolagents-calls-as-text.yaml"


def test_step_4_of_calls_sent_back_as_text_says_their_answer_came_as_text_not_that_nothing_came(app):
    # smolagents' ToolCallingAgent sends its get_weather call back written into the assistant turn's text and the
    # weather as "Observation: ..." in a user message. The slide said only "Request 2 carries no result for the calls
    # of round 1", as if nothing answered the call; the check missing-tool-result says what request 2 holds.
    at = _present(app, SMOLAGENTS, 1, 4)
    said = [w.value for w in at.warning]
    assert ("Request 2 carries no result for the calls of round 1: the turn sent back there names the call in its "
            "text, written out as words rather than sent as a call, so whatever answers it reaches the model as "
            "ordinary text, not as the call's result.") in said
    assert "Request 2 carries no result for the calls of round 1." not in said


COMPACT_CHAIN = Path(__file__).parent / "fixtures" / "containers" / "pyd-responses-compact-chain.yaml"


def test_a_compaction_calls_slide_says_the_provider_returned_the_history_compacted_not_that_the_model_answered(app):
    # pydantic-ai's third call goes to the Responses API's compact endpoint: its answer is the encrypted compacted
    # history, which request 4 sends in place of the earlier turns. The explorer says it is no turn of the model's;
    # the slide was headed "⑤ Model answers" and led with "The model's turn ended with no call; the program went on
    # (round 4). This response holds no text."
    at = _present(app, COMPACT_CHAIN, 3, 5)
    shown = screen(at)
    assert "⑤ The provider returns the history compacted" in [h.value for h in at.header]
    assert ("No answer and no call: this call asked the provider to compact the conversation, and it returns the "
            "history compacted, which the program sends in place of the earlier turns from round 4 on.") in shown
    assert "The model's turn ended" not in shown
    assert "Model answers" not in shown
