"""Token figures: reported ones stay reported, missing ones are estimated and say so."""

from lib.encodings import load_encoding
from lib.overview import summarize
from lib.tokens import estimate_usage, message_tokens, round_usage


def test_hengxin_round_1_shows_the_reported_1247_in_58_out_and_the_rest_are_estimates(hengxin):
    rows = summarize(hengxin, load_encoding("o200k_base"))
    assert (rows[0].input_tokens, rows[0].output_tokens, rows[0].tokens_source) == (1247, 58, "reported")
    assert [r.tokens_source for r in rows[1:]] == ["estimated"] * 3
    estimated_inputs = [r.input_tokens for r in rows[1:]]
    assert estimated_inputs == sorted(estimated_inputs) and estimated_inputs[0] > 0


def test_an_estimate_grows_with_the_messages_resent(hengxin):
    encoding = load_encoding("o200k_base")
    first, last = estimate_usage(hengxin.rounds[0], encoding), estimate_usage(hengxin.rounds[3], encoding)
    added = sum(message_tokens(m, encoding) for m in hengxin.rounds[3].request.messages[2:])
    assert last.input_tokens - first.input_tokens == added + 3 * 7
    assert first.source == last.source == "estimated"


def test_without_a_vocabulary_there_is_no_guess(hengxin):
    assert round_usage(hengxin, 2, None) is None
    assert round_usage(hengxin, 1, None).input_tokens == 1247


def test_larkfield_two_calls_total_4224_in_123_out():
    from tests.conftest import load_bundled

    rows = summarize(load_bundled("larkfield-get-order").trace, None)
    assert sum(r.input_tokens for r in rows) == 4224
    assert sum(r.output_tokens for r in rows) == 123
    assert {r.tokens_source for r in rows} == {"reported"}


def test_hengxin_estimates_are_anchored_on_round_1s_reported_count(hengxin):
    encoding = load_encoding("o200k_base")
    raw = [estimate_usage(r, encoding).input_tokens for r in hengxin.rounds]
    anchored = [round_usage(hengxin, k, encoding) for k in (2, 3, 4)]
    assert [u.anchor_round for u in anchored] == [1, 1, 1]
    assert [u.input_tokens for u in anchored] == [1247 + raw[k] - raw[0] for k in (1, 2, 3)]
    assert 1247 < anchored[0].input_tokens < anchored[1].input_tokens < anchored[2].input_tokens
