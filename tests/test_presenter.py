"""Presenter mode's positions: which steps a round has, moving between them, what each reveals."""

from lib.catalog import FIRST_TRACE
from lib.export_html import trace_html
from lib.steps import STEP_TITLES, steps_for_round
from lib.growth import growth
from lib.presenter import FAILED_TITLE, Position, carried, following, preceding, reveal, settle, steps_in
from tests.conftest import load_bundled


def _walk(trace):
    here, seen = Position(1, 1), []
    while here is not None:
        seen.append((here.round, here.step))
        here = following(trace, here)
    return seen


def test_hengxin_unfolds_request_intent_execution_result_then_the_answer(hengxin):
    assert [steps_in(r, hengxin) for r in hengxin.rounds] == [(1, 2, 3, 4)] * 3 + [(1, 5)]
    assert _walk(hengxin) == [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (2, 4),
                              (3, 1), (3, 2), (3, 3), (3, 4), (4, 1), (4, 5)]


def test_previous_walks_the_same_way_back(hengxin):
    here, back = Position(4, 5), []
    while here is not None:
        back.append((here.round, here.step))
        here = preceding(hengxin, here)
    assert back == list(reversed(_walk(hengxin)))


def test_a_deep_link_lands_on_the_nearest_step_the_round_has(hengxin):
    assert settle(hengxin, 3, 4) == Position(3, 4)
    assert settle(hengxin, 4, 2) == Position(4, 5)  # round 4 answers: no call intent to show
    assert settle(hengxin, 4, 9) == Position(4, 5)
    assert settle(hengxin, 99, 1) == Position(4, 1)
    assert settle(hengxin, 0, 0) == Position(1, 1)


def test_each_step_reveals_its_own_labels_on_the_real_payload(hengxin):
    def shown(round_, step):
        found = reveal(hengxin, Position(round_, step))
        return found.title, [(lab.step, lab.path) for lab in found.labels], found.labels_round

    assert shown(1, 1) == ("Request sent", [(1, "tools")], 1)
    assert shown(1, 2) == ("Call intent", [(2, "choices[0].message.tool_calls[0]"),
                                                         (2, "choices[0].message.tool_calls[1]"),
                                                         (2, "choices[0].finish_reason")], 1)
    assert shown(1, 3) == ("Program executes", [(3, "executions[0]"), (3, "executions[1]")], 1)
    # Step 4 points into the next request, where the results really are.
    assert shown(1, 4) == ("Result appended", [(4, "messages[3].content"), (4, "messages[4].content")], 2)
    assert shown(4, 1) == ("Request sent", [(1, "tools"), (4, "messages[8].content")], 4)
    assert shown(4, 5) == ("Model answers", [(5, "choices[0].message.content")], 4)


def test_a_failed_call_shows_the_provider_in_place_of_the_intent():
    trace = load_bundled("pitfalls/unanswered-parallel-call").trace
    assert steps_in(trace.rounds[1], trace) == (1, 2)
    assert reveal(trace, Position(2, 2)).title == FAILED_TITLE
    # Round 1's second call was never answered: step 4 finds only the one result request 2 carries.
    assert [lab.call_id for lab in reveal(trace, Position(1, 4)).labels] == ["call_7Hq2mXv9LpR4sT1nK8wB3dZe"]


def test_step_4_of_the_last_round_says_nothing_came_back():
    trace = load_bundled(FIRST_TRACE).trace
    cut = trace.__class__(title=trace.title, dialect=trace.dialect, rounds=trace.rounds[:1])
    found = reveal(cut, Position(1, 4))
    assert found.labels == () and found.labels_round == 2


def test_the_growth_sentence_counts_what_request_k_is_made_of(hengxin):
    assert carried(hengxin.rounds[1], growth(hengxin, 2)) == ("Request 2 carries 5 messages: 2 messages resent unchanged, the model's "
                                              "previous turn and 2 messages with tool results.")


def test_narration_that_ends_the_loop_is_not_revealed_as_the_model_answering():
    trace = load_bundled("pitfalls/narration-without-call").trace
    shown = reveal(trace, Position(1, 5))
    # Round 2 follows: the program asked again, so the loop did not end here.
    assert shown.title == "Narration without a call"
    assert [lab.detail for lab in shown.labels] == ["the text announces an action, it does not answer"]


def test_every_step_has_one_name_in_the_explorer_presenter_and_export(hengxin):
    assert [reveal(hengxin, Position(1, s)).title for s in (1, 2, 3, 4)] == [STEP_TITLES[s] for s in (1, 2, 3, 4)]
    assert reveal(hengxin, Position(4, 5)).title == STEP_TITLES[5] == "Model answers"
    assert steps_for_round(hengxin, 1)[0].title == "Request sent"
    page = trace_html(hengxin)
    assert "Request sent" in page and "Tool list sent" not in page and "sends the request" not in page


def test_on_a_held_chain_the_growth_sentence_counts_what_the_program_sent_and_names_what_the_provider_held(
        responses_chain):
    # Request 2 of the Responses chain: the provider holds the question and the model's turn (previous_response_id);
    # the program sends the instructions again and the two tool results.
    assert carried(responses_chain.rounds[1], growth(responses_chain, 2)) == (
        "Request 2 carries 3 messages: 1 message resent unchanged and 2 messages with tool results. The provider "
        "holds 2 earlier messages (previous_response_id, previous_interaction_id or a conversation), the model's "
        "previous turn among them.")


def _conversation(fixture: str, conversation: str):
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([(fixture, (FIXTURES / fixture).read_bytes())])
    return next(c.trace for c in upload.conversations if c.id == conversation)


def test_a_stop_for_tools_whose_calls_the_span_did_not_keep_is_presented_as_call_intent_not_as_an_answer():
    # A span recorded without content: finish_reason tool_calls, no message. The cards label step 2 on the stop
    # signal and step 3 "not recorded"; presenter mode went from the request to "⑤ Model answers", with nothing on it.
    trace = _conversation("otlp-span-per-call-no-content.jsonl", "03bc5514d8aa6d7d568eaa76afb333b9")
    assert steps_in(trace.rounds[0], trace) == (1, 2, 3, 4)
    intent = reveal(trace, Position(1, 2))
    assert intent.title == "Call intent" and [lab.path for lab in intent.labels] == ["choices[0].finish_reason"]
    assert [lab.detail for lab in reveal(trace, Position(1, 3)).labels] == [
        "not recorded: the trace does not say what the program ran"]
    # Its slide's sentence said "The call failed": the call did not fail, the log kept no content.
    from lib.slide_words import step_lead
    assert step_lead(trace.rounds[0], 2).startswith("The model stops to have tools run, but the log did not keep which")


def test_a_response_cut_off_at_its_length_limit_is_not_presented_as_the_model_answering():
    # The Responses API's third round stopped at max_output_tokens: the slide was titled "Model answers". Its step 5
    # is named for what its label on the stop signal says (lib.steps.CUT_OFF_TITLE).
    trace = _conversation("openai-responses.jsonl", "resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5")
    assert reveal(trace, Position(3, 5)).title == "Cut off at the output limit"
    from lib.slide_words import step_lead
    assert not step_lead(trace.rounds[2], 5).startswith("The loop ends: this text goes to the person")


def test_step_4_of_a_request_sent_again_as_it_was_says_it_asks_anew():
    # CrewAI's LiteAgent sends each request twice, with and then without its response_format: request 4 holds request
    # 3's five messages and nothing else. Step 4 of round 3 said only that request 4 carries no result for round 3's
    # search_web call, as if the program had dropped it.
    from lib.presenter import no_result_words
    trace = _conversation("containers/crewai-lite-agent-asked-again.yaml", "conversation 2")
    assert reveal(trace, Position(3, 4)).labels == ()
    assert no_result_words(trace, 3) == (
        "Request 4 carries no result for the calls of round 3: it is round 3's request sent again as it was, so it "
        "asks anew and does not go on from round 3's answer.")


def test_step_4_of_a_structured_answer_says_no_result_is_owed():
    # ellmer asks Claude for structured data through its output tool: the tool_use is the answer, and request 2 sends
    # it back as JSON text with the next question. Step 4 said request 2 carries no result for it, as for a dropped call.
    from lib.presenter import no_result_words
    trace = _conversation("containers/ellmer-anthropic-structured-data.yml", "conversation 1")
    assert no_result_words(trace, 1) == (
        "Request 2 carries no result for the calls of round 1: the call is the model's answer in structured form (an "
        "output tool), not a request to act, so no result is owed for it.")


def test_step_4_where_the_request_shows_no_reason_says_only_that_no_result_came():
    # A Hermes transcript whose calls got no result in it: nothing in the next request says why, so nothing is guessed.
    trace = _conversation("sharegpt-hermes-agent.jsonl", "line 2")
    from lib.presenter import no_result_words
    assert no_result_words(trace, 1) == "Request 2 carries no result for the calls of round 1."


def test_step_4_of_the_call_before_a_compaction_names_the_request_after_the_summary_as_carrying_its_result():
    # The Anthropic TypeScript SDK's tool runner compacts past its token threshold: request 2 asks only for a summary,
    # and request 3 sends the summary, then round 1's submit_analysis call with its result (the explorer's step 4 in
    # round 3 labels it "called in round 1"). Step 4 of round 1 said only that request 2 carries no result for it.
    from lib.presenter import no_result_words
    trace = _conversation("containers/anthropic-ts-tool-runner-compaction.json", "conversation 1")
    assert [lab.detail for lab in steps_for_round(trace, 3) if lab.step == 4] == [
        "result for submit_analysis (toolu_01XcUoZcU2fsiw59H5aEAyY6, called in round 1)"]
    assert no_result_words(trace, 1) == (
        "Request 2 carries no result for the calls of round 1: it asks only for a summary of the conversation (the "
        "summary call of a compaction), and round 3's request, which sends the summary, carries the results after it.")


def test_a_call_and_result_sent_twice_are_not_said_to_be_the_one_call_renamed():
    # Google ADK's runner, run a second time (langsmith-sdk's cassette), sends its one get_weather call back with its
    # result, then the same call and result again. Step 4 labelled the copy "called in round 1 as call_1_0, which the
    # program sent back under this one", though call_1_0 is sent back under its own id just before; and round 1's step
    # 4 showed two results for its one call.
    trace = _conversation("containers/langsmith-adk-second-run-call-twice.yaml", "conversation 2")
    assert [c.id for c in trace.rounds[0].tool_calls] == ["call_1_0"]
    assert [lab.detail for lab in steps_for_round(trace, 2) if lab.step == 4] == [
        "result for get_weather (call_1_0, called in round 1)",
        "result for call_3_0, called in messages[4] of this request (by no response in the log)"]
    assert [lab.call_id for lab in reveal(trace, Position(1, 4)).labels] == ["call_1_0"]


def test_the_growth_sentence_counts_an_assistant_turn_the_program_wrote_into_the_history():
    # LangChain sends the model's add call back rewritten (not byte for byte the response), with its result: four
    # messages, of which the sentence named three, "2 messages resent unchanged and 1 message with tool results".
    trace = _conversation("containers/langchain-azure-add-numbers.yaml", "conversation 1")
    assert [e.origin for e in growth(trace, 2).new] == ["history", "tool-result"]
    assert carried(trace.rounds[1], growth(trace, 2)) == (
        "Request 2 carries 4 messages: 2 messages resent unchanged, 1 assistant message the program wrote into the "
        "history (not the previous response as it came back) and 1 message with tool results.")


def test_the_growth_sentence_counts_the_compacted_history_sent_in_place_of_the_turns():
    # pydantic-ai's compaction chain: request 4 sends the compacted item the Responses API returned, then the next
    # question. The sentence said "Request 4 carries 2 messages: 0 messages resent unchanged and 1 other new message".
    trace = _conversation("containers/pyd-responses-compact-chain.yaml",
                          "resp_0d4b654a05c1a7a70069deb79f81b88197a19f61e394151ecc")
    assert carried(trace.rounds[3], growth(trace, 4)).startswith(
        "Request 4 carries 2 messages: 0 messages resent unchanged, 1 message with the compacted history the provider "
        "returned and 1 other new message.")


def test_step_4_of_the_call_before_a_summary_call_the_log_ends_on_says_the_log_ends_before_its_results():
    # The Anthropic Python SDK's tool runner: request 2 asks only for a summary of the conversation, and the recording
    # ends on its answer, before the request that would send the submit_analysis call back with its result.
    from lib.presenter import no_result_words
    trace = _conversation("containers/anthropic-py-tool-runner-compaction-summary.json", "conversation 1")
    assert [r.summary_call for r in trace.rounds] == [False, True]
    assert no_result_words(trace, 1) == (
        "Request 2 carries no result for the calls of round 1: it asks only for a summary of the conversation (the "
        "summary call of a compaction), and the log ends before the request that would send the summary and the "
        "results after it.")
