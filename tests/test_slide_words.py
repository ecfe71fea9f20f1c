"""The words of a presenter slide, from lib alone: the snowball counter, what a call asks, the stop switch."""

from dataclasses import replace

from lib.logs.native import read_trace
from lib.slide_words import (KNOWS, WINDOW, StopSwitch, asks, content_is_null, snowball, step_lead, stop_switch,
                              tools_line)
from lib.summary import summarize
from lib.tokens import counter_for
from tests.conftest import load_bundled
from tests.synthetic import synthetic_lines

COUNTER = counter_for("characters").counter


def test_hengxins_counter_grows_2_5_7_9_and_splits_each_rounds_input_as_the_tokens_page_does(hengxin):
    rows = summarize(hengxin, COUNTER)
    third = snowball(hengxin, rows, 3)
    assert third.sizes == ((1, 2), (2, 5), (3, 7), (4, 9)) and third.current == 3
    assert (third.more_before, third.more_after) == (False, False)
    assert sum(tokens for _, tokens in third.split) == third.input_tokens == rows[2].usage.input_tokens
    assert tools_line(third) == (f"4 tool definitions, {rows[2].breakdown.tools:,} tokens: resent unchanged and paid "
                                 "for a third time")
    assert tools_line(snowball(hengxin, rows, 1)).endswith("sent with this request and paid for with it, again with "
                                                           "every request after")


def test_the_tool_list_is_counted_as_paid_for_once_per_request_that_carried_that_same_list(hengxin):
    # Round 1 offered three of the four tools: the full list of rounds 2 to 4 was first paid for in round 2.
    first = hengxin.rounds[0]
    fewer = replace(hengxin, rounds=(replace(first, request=replace(first.request, tools=first.request.tools[:3])),
                                     *hengxin.rounds[1:]))
    rows = summarize(fewer, COUNTER)
    assert tools_line(snowball(fewer, rows, 2)).endswith("sent with this request and paid for with it, again with "
                                                         "every request after")
    assert tools_line(snowball(fewer, rows, 3)).endswith(": resent unchanged and paid for a second time")
    assert tools_line(snowball(fewer, rows, 4)).endswith(": resent unchanged and paid for a third time")


def test_a_one_round_traces_tool_list_is_not_said_to_be_paid_for_again_by_requests_that_never_came(hengxin):
    alone = replace(hengxin, rounds=hengxin.rounds[:1])
    line = tools_line(snowball(alone, summarize(alone, COUNTER), 1))
    assert line.endswith("sent with this request and paid for with it") and "again" not in line


def test_a_long_traces_counter_lists_a_window_around_the_round_and_predict_mode_stops_at_it():
    trace, _ = read_trace(list(synthetic_lines(30)))
    rows = summarize(trace, COUNTER)
    middle = snowball(trace, rows, 15)
    assert [k for k, _ in middle.sizes] == list(range(11, 11 + WINDOW)) and middle.more_before and middle.more_after
    hidden = snowball(trace, rows, 15, upto_current=True)
    assert hidden.sizes[-1][0] == 15 and hidden.more_after


def test_step_2_says_what_is_owed_and_the_switch_is_the_dialects_own(hengxin):
    assert asks(hengxin.rounds[0]) == "asks for 2 tools in parallel: 2 results owed"
    assert asks(hengxin.rounds[1]) == "asks for 1 tool: 1 result owed"
    assert content_is_null(hengxin.rounds[0])
    assert stop_switch(hengxin) == StopSwitch("finish_reason", "tool_calls", "stop")
    narration = load_bundled("pitfalls/narration-without-call").trace
    assert stop_switch(narration) == StopSwitch("stop_reason", "tool_use", "end_turn")
    assert not content_is_null(narration.rounds[1])


def test_each_step_leads_with_one_sentence_of_what_happens_at_it(hengxin):
    first, last = hengxin.rounds[0], hengxin.rounds[-1]
    assert step_lead(first, 1) == KNOWS
    assert step_lead(first, 2) == "The model asks for 2 tools in parallel: 2 results owed"
    assert step_lead(first, 3) == "The program runs the calls, not the model: the model reads only their results."
    assert step_lead(last, 5) == "The loop ends: this text goes to the person, and the model is not called again."
    refused = load_bundled("pitfalls/unanswered-parallel-call").trace.rounds[1]
    assert refused.response is None and step_lead(refused, 2).startswith("The call failed")


def test_step_3_does_not_say_the_program_ran_a_call_it_declined_or_that_failed():
    # Arguments rejected before any handler ran, a call declined for want of consent, a handler that timed out.
    rejected = load_bundled("pitfalls/invalid-arguments-corrected").trace.rounds[0]
    assert step_lead(rejected, 3) == ("The program handles the calls, not the model: 1 call was refused before "
                                      "running, and the model reads only what the program sends back.")
    declined = load_bundled("pitfalls/wrong-tool-declined").trace.rounds[0]
    assert step_lead(declined, 3).startswith("The program handles the calls, not the model: 1 call was declined")
    timed_out = load_bundled("pitfalls/unanswered-parallel-call").trace.rounds[0]
    assert step_lead(timed_out, 3).startswith("The program handles the calls, not the model: 1 call failed, ")
    assert "runs the calls" not in " ".join(step_lead(r, 3) for r in (rejected, declined, timed_out))


def test_a_transcript_that_kept_no_tool_list_has_a_counter_that_says_so_not_that_no_tools_were_sent():
    # tau-bench keeps the messages, not the tools: round 3 calls get_user_details, so a tool list went with it.
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    trace = read_upload([("t.jsonl", (FIXTURES / "tau-bench-airline-cut.jsonl").read_bytes())]).conversations[0].trace
    third = snowball(trace, summarize(trace, COUNTER), 3)
    assert tools_line(third) == "not in the log (the model called tools, so a list was sent; it is not counted here)"


def test_a_held_chain_counter_splits_the_input_into_held_messages_never_resent_ones(responses_chain):
    # The presenter counter's split is the Tokens page's (lib.tokens.input_parts): held messages are named held.
    rows = summarize(responses_chain, counter_for("o200k_base").counter)
    for index in (2, 3, 4):
        split = dict(snowball(responses_chain, rows, index).split)
        assert "earlier messages (resent)" not in split
        assert split["earlier messages held by the provider (billed as input)"] > 0


def _batch_results(conversation: str):
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([("results.jsonl", (FIXTURES / "anthropic-batch-results.jsonl").read_bytes())])
    return next(c.trace for c in upload.conversations if c.id == conversation)


def test_the_counter_of_a_request_the_log_did_not_keep_neither_estimates_nor_splits_its_input():
    # Anthropic's batch results keep the answers, not the requests. ticket-8's call failed: nothing of its input is
    # known, and the slide said "Input tokens (estimated): ≈ 0". ticket-7's usage was reported, 1,122 tokens in, and
    # the slide split them all as "reported beyond our count": the Tokens page splits a request it never saw nowhere.
    failed = _batch_results("ticket-8")
    counter = snowball(failed, summarize(failed, COUNTER), 1)
    assert counter.input_tokens is None and counter.split == ()
    answered = _batch_results("ticket-7-round-2")
    counter = snowball(answered, summarize(answered, COUNTER), 1)
    assert counter.input_tokens == 1122 and not counter.estimated and counter.split == ()


def test_step_5_of_a_turn_the_span_did_not_capture_says_so_not_that_the_response_holds_no_answer():
    # opentelemetry-instrumentation-openai-v2 without content capture: finish_reason 'stop', no message kept.
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([("spans.jsonl", (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes())])
    trace = next(c.trace for c in upload.conversations if c.id == "43e09334a2dca25f5654e3198343348f")
    assert step_lead(trace.rounds[0], 5) == ("No tool call: the log did not capture what the model wrote, and the "
                                             "model is not called again.")


def test_a_tool_list_sent_with_a_failed_call_is_not_said_to_have_been_paid_for_with_it():
    # Pitfall 5: round 2's request was refused with HTTP 400, and whether it was billed the log does not say (the
    # Tokens page leaves it out of the input billed). Round 3's counter said the tools were "paid for a third time".
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    rows = summarize(trace, COUNTER)
    assert tools_line(snowball(trace, rows, 3)).endswith(
        " tokens: resent unchanged and sent a third time, paid for at least twice: the log does not say whether the "
        "call of round 2 was billed")
    hengxin = load_bundled("hengxin-expense").trace
    assert tools_line(snowball(hengxin, summarize(hengxin, COUNTER), 3)).endswith("paid for a third time")


def test_a_tool_list_the_provider_holds_is_not_said_to_be_resent():
    # Rig's recording of Gemini's Interactions API: request 2 names the interaction before it and sends no tools. The
    # presenter's counter read "Tools: 1 tool definition, 65 tokens: resent unchanged and paid for a second time"
    # right above the request's card saying "1 tool held by the provider from earlier in the conversation, not sent".
    from pathlib import Path

    from lib.logs.upload import read_upload

    name = "rig-gemini-interactions-tool-result.yaml"
    data = (Path(__file__).parent / "fixtures" / "containers" / name).read_bytes()
    trace = read_upload([(name, data)], None).conversations[0].trace
    assert trace.rounds[1].tools_held  # read so from the recording: no `tools` in its second request
    rows = summarize(trace, COUNTER)
    said = tools_line(snowball(trace, rows, 2))
    assert "resent" not in said
    assert said.endswith(": not sent again: the provider holds them from an earlier request of the conversation, and "
                         "counts them in this call's input, a second time")
    assert tools_line(snowball(trace, rows, 1)).endswith("sent with this request and paid for with it, again with "
                                                         "every request after")
