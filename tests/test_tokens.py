"""Token accounting: reported figures stay reported, estimates say so, each message is counted once."""

import pytest

from lib.encodings import load_encoding
from lib.logs.native import read_trace
from lib.summary import snowball, summarize
from tests.synthetic import synthetic_lines
from lib.tokens import CHARACTER_COUNTER, TokenCounter, breakdowns, message_tokens, tiktoken_counter
from tests.conftest import load_bundled


@pytest.fixture(scope="module")
def o200k():
    return tiktoken_counter(load_encoding("o200k_base"))


@pytest.mark.parametrize("encoding, system, answer", [("o200k_base", 48, 98), ("cl100k_base", 49, 98)])
def test_hengxin_system_prompt_and_final_answer_have_pinned_counts(hengxin, encoding, system, answer):
    counter = tiktoken_counter(load_encoding(encoding))
    assert message_tokens(hengxin.rounds[0].request.messages[0], counter) == system
    assert message_tokens(hengxin.rounds[3].response.message, counter) == answer


def test_larkfield_reports_2_calls_4224_in_123_out(o200k):
    rows = summarize(load_bundled("larkfield-get-order").trace, o200k)
    ball = snowball(rows)
    assert (ball.rounds, ball.billed_input, ball.output) == (2, 4224, 123)
    assert {r.usage.source for r in rows} == {"reported"}
    assert ball.single_call_input == 2181


def test_hengxin_round_1_is_reported_and_the_rest_are_anchored_estimates(hengxin, o200k):
    rows = summarize(hengxin, o200k)
    first = rows[0]
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.source) == (1247, 58, "reported")
    assert first.breakdown.counted == 744  # our offline estimate, shown beside the reported 1,247
    later = [r.usage for r in rows[1:]]
    assert [u.source for u in later] == ["estimated"] * 3 and [u.anchor_round for u in later] == [1, 1, 1]
    assert [u.input_tokens for u in later] == [1247 + r.breakdown.counted - 744 for r in rows[1:]]
    assert 1247 < later[0].input_tokens < later[1].input_tokens < later[2].input_tokens


def test_the_hengxin_breakdown_splits_instructions_tools_history_new_and_framing(hengxin, o200k):
    found = breakdowns(hengxin, o200k)
    assert [b.instructions for b in found] == [48] * 4
    assert len({b.tools for b in found}) == 1 and found[0].tools > 500
    assert found[0].history == 0
    for k in range(1, 4):
        assert found[k].history == found[k - 1].history + found[k - 1].new
    assert [b.framing for b in found] == [3 * n + 3 for n in (2, 5, 7, 9)]


def test_anthropic_system_and_tool_preamble_are_counted(order_status, o200k):
    first = breakdowns(order_status, o200k)[0]
    assert first.instructions == message_tokens(order_status.rounds[0].request.system, o200k) + 3
    assert first.tools >= 346


def test_a_rewritten_history_is_recounted_not_reused(o200k):
    lines = [
        '{"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}',
        '{"kind": "round", "index": 1, "request": {"messages": [{"role": "user", "content": "one two three"}]}}',
        '{"kind": "round", "index": 2, "request": {"messages": [{"role": "user", "content": "one"}, {"role": "user", "content": "four"}]}}',
    ]
    trace, _ = read_trace(lines)
    second = breakdowns(trace, o200k)[1]
    assert trace.rounds[1].resent_prefix == 0
    # "one" stands where "one two three" was: changed, as the explorer marks it; "four" is new.
    assert (second.history, second.changed, second.new) == (0, 1, 1)


def test_counting_a_1000_round_snowball_encodes_each_unique_message_once():
    trace, _ = read_trace(synthetic_lines(1000))
    encoded = []
    counter = TokenCounter("spy-1000", True, lambda text: encoded.append(text) or len(text.split()))
    rows = summarize(trace, counter)
    assert len(rows) == 1000
    sent = {m.key for r in trace.rounds for m in r.request.messages}
    assert len(sent) == 2000  # of 1,001,000 messages sent in all
    assert len(encoded) == len(sent) + 1  # each distinct message once, and the one tool definition
    summarize(trace, counter)
    assert len(encoded) == len(sent) + 1  # a second pass counts nothing again


def test_without_a_vocabulary_the_character_rule_is_used_and_named(hengxin):
    rows = summarize(hengxin, CHARACTER_COUNTER)
    assert rows[1].usage.method == "characters" and rows[1].usage.source == "estimated"
    assert rows[0].breakdown.instructions == -(-len(hengxin.rounds[0].request.messages[0].text) // 4)


HELD = "earlier messages held by the provider (billed as input)"


def test_a_previous_response_id_chain_splits_the_held_messages_as_held_by_the_provider_never_as_resent(
        responses_chain, o200k):
    # From round 2 on the program sends previous_response_id, the instructions and the new items: the provider holds
    # the question and the model's turns. The model reads them (they are billed), the program did not resend them.
    from lib.growth import held_indices
    from lib.tokens import input_parts, input_words
    found = breakdowns(responses_chain, o200k)
    for round_, breakdown in list(zip(responses_chain.rounds, found))[1:]:
        held = [round_.request.messages[i] for i in held_indices(round_)]
        assert breakdown.held == sum(message_tokens(m, o200k) for m in held) > 0
        assert breakdown.history == 0
        assert dict(input_parts(breakdown))[HELD] == breakdown.held
        assert f"{HELD} {breakdown.held:,}" in input_words(input_parts(breakdown))
        # Resent is what the previous request carried and this one sends again: instructions and tools here.
        assert breakdown.resent == breakdown.instructions + breakdown.tools + 3
        assert breakdown.total == sum(tokens for _, tokens in input_parts(breakdown))


def test_a_trace_the_provider_held_nothing_of_says_nothing_of_held_messages(hengxin, o200k):
    from lib.tokens import input_parts, input_words
    assert all(HELD not in input_words(input_parts(b)) for b in breakdowns(hengxin, o200k))


def _conversation(fixture: str, conversation: str):
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([(fixture, (FIXTURES / fixture).read_bytes())])
    return next(c.trace for c in upload.conversations if c.id == conversation)


def test_totals_over_calls_whose_request_the_log_did_not_keep_say_not_in_the_log_never_0(o200k):
    # A streamed answer cut short, logged without its request: the rounds table writes its tokens in "not in the
    # log". The totals summed its unknown input as 0 and wrote "≈ 0" billed, "their tokens are our offline estimate".
    ball = snowball(summarize(_conversation("openai-chat-stream.jsonl", "conversation 3"), o200k))
    assert ball.billed_input_words == "not in the log"
    assert ball.single_call_words == "not in the log"
    assert ball.output_words == "≈ 12"  # the answer is in the log: counted offline
    # Anthropic's batch results: ticket-8 failed with a 400, no request and no output kept.
    failed = snowball(summarize(_conversation("anthropic-batch-results.jsonl", "ticket-8"), o200k))
    assert (failed.billed_input_words, failed.output_words) == ("not in the log", "not known")
    # Reported usage on a request the log did not keep is known: it is summed, and as reported, unmarked.
    answered = snowball(summarize(_conversation("anthropic-batch-results.jsonl", "ticket-7-round-2"), o200k))
    assert (answered.billed_input_words, answered.output_words, answered.single_call_words) == ("1,122", "24", "1,122")


def test_a_total_that_leaves_out_calls_it_cannot_know_says_how_many(o200k):
    rows = summarize(load_bundled("larkfield-get-order").trace, o200k)
    assert snowball(rows).billed_input_words == "4,224"
    lost = summarize(_conversation("openai-chat-stream.jsonl", "conversation 3"), o200k)
    ball = snowball(rows + lost)
    assert ball.billed_input_words == "4,224 (1 call not known, left out)"
    assert ball.output_words == "≈ 135"
