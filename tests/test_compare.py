"""Comparing two runs round by round: the alignment, each pair's verdict, and what differs in detail."""

import json
import time
from dataclasses import replace

from lib.checks import run_checks
from lib import catalog
from lib.compare import (MessageChange, Run, call_changes, compare, item_text, message_changes, round_contents,
                         tool_changes, uninstructed_words)
from lib.dialects import ANTHROPIC, OPENAI
from lib.dialects.convert import convert, reread
from lib.encodings import encoding_name_for_model
from lib.logs.native import read_trace
from lib.prices import DEFAULT_PRICES
from lib.summary import summarize
from lib.tokens import counter_for
from tests.conftest import load_bundled
from tests.synthetic import synthetic_lines


def run_of(trace, name="run"):
    """A side of a comparison, its figures derived as the app derives them."""
    rows = summarize(trace, counter_for(encoding_name_for_model(trace.model)).counter)
    return Run(name, trace, rows, run_checks(trace))


def read(lines):
    trace, problems = read_trace(lines)
    assert problems == []
    return trace


def hengxin_lines():
    return (load_bundled("hengxin-expense").trace, open("traces/hengxin-expense.jsonl", encoding="utf-8").read())


def lookups(numbers: list[int]):
    """A trace whose rounds call lookup(n) for each n in turn, then answer."""
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    lines = [json.dumps({"kind": "trace", "version": 1, "title": "lookups", "dialect": "openai-chat", "model": "gpt-4o"})]
    messages = [{"role": "user", "content": "Look the records up."}]
    for k, n in enumerate([*numbers, None], start=1):
        if n is None:
            assistant, finish = {"role": "assistant", "content": "Done."}, "stop"
        else:
            call = {"id": f"call_{k}", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"n": n})}}
            assistant, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        response = {"choices": [{"index": 0, "message": assistant, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 50 * k, "completion_tokens": 10}}
        lines.append(json.dumps({"kind": "round", "index": k, "request": {"model": "gpt-4o", "messages": messages,
                                                                          "tools": tools}, "response": response}))
        if n is not None:
            messages = [*messages, assistant, {"role": "tool", "tool_call_id": f"call_{k}", "content": f"record {n}"}]
    return read(lines)


def test_identical_runs_align_round_for_round_and_do_not_diverge():
    hengxin = load_bundled("hengxin-expense").trace
    found = compare(run_of(hengxin, "a"), run_of(hengxin, "b"), DEFAULT_PRICES)
    assert [(p.left, p.right, p.verdict) for p in found.pairs] == [(k, k, "same") for k in (1, 2, 3, 4)]
    assert found.first_divergence is None
    assert found.left.rounds == found.right.rounds == 4 and found.left.calls == 4
    assert found.left.input_tokens == sum(r.usage.input_tokens for r in run_of(hengxin).rows)


def test_a_repeated_call_shows_as_one_inserted_round_and_the_rest_still_pair():
    found = compare(run_of(lookups([1, 2, 3])), run_of(lookups([1, 2, 2, 3])), DEFAULT_PRICES)
    assert [(p.left, p.right) for p in found.pairs] == [(1, 1), (2, 2), (None, 3), (3, 4), (4, 5)]
    assert found.pairs[2].verdict == "only in the right run (inserted)"
    assert found.first_divergence == 3
    assert [p.same for p in found.pairs if p.left and p.right] == [True] * 4
    # After the inserted round, the right run's requests resend it: the rounds add the same, to other histories.
    assert [p.verdict for p in found.pairs if p.left and p.right] == ["same"] * 2 + ["same new messages and answer; the earlier messages it resends differ"] * 2


def test_a_changed_argument_is_named_with_both_values():
    trace, text = hengxin_lines()
    changed = read(text.replace('\\"city_tier\\": \\"2\\"', '\\"city_tier\\": \\"3\\"').splitlines())
    found = compare(run_of(trace), run_of(changed), DEFAULT_PRICES)
    assert found.first_divergence == 1
    assert found.pairs[0].verdict == 'same call, different arguments: city_tier: "2" → "3"'
    assert [(p.left, p.right) for p in found.pairs] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    calls = call_changes(round_contents(trace)[0], round_contents(changed)[0])
    assert [c.arguments for c in calls] == [(), ('city_tier: "2" → "3"',)]
    later = message_changes(trace.rounds[1], trace, changed.rounds[1], changed)
    changed_entries = [c for c in later if c.status == "changed"]
    assert [c.left.split(" ")[0] for c in changed_entries] == ["call", "result"]  # the policy echoes the tier
    assert changed_entries[0].diff.splitlines()[-2:] == [
        '-call queryTravelPolicy {"job_level": "P6", "city_tier": "2"}',
        '+call queryTravelPolicy {"job_level": "P6", "city_tier": "3"}']


def test_a_call_is_shown_with_its_arguments_as_the_model_wrote_them_and_compared_as_json():
    trace, text = hengxin_lines()
    # Round 2's call, as the model wrote it: keys in its order, 3860.00 with its cents (not sorted, not 3860.0).
    assert [item_text(c) for c in round_contents(trace)[1].calls] == [
        'call calcAmountOver {"actual_amount": 3860.00, "limit_amount": 3800.00}']
    # The same arguments written another way are the same call: spacing and key order are not what differs.
    respaced = read(text.replace('{\\"actual_amount\\": 3860.00, \\"limit_amount\\": 3800.00}',
                                 '{\\"limit_amount\\":3800.00,\\"actual_amount\\":3860.00}').splitlines())
    assert [item_text(c) for c in round_contents(respaced)[1].calls] == [
        'call calcAmountOver {"limit_amount":3800.00,"actual_amount":3860.00}']
    assert compare(run_of(trace), run_of(respaced), DEFAULT_PRICES).first_divergence is None


def test_two_calls_whose_arguments_do_not_parse_differ_when_their_texts_do():
    trace, text = hengxin_lines()
    broken = [read(text.replace('\\"limit_amount\\": 3800.00}', f'\\"limit_amount\\": {n}').splitlines())
              for n in ("3800.0", "38")]
    assert [item_text(round_contents(b)[1].calls[0]) for b in broken] == [
        'call calcAmountOver {"actual_amount": 3860.00, "limit_amount": 3800.0',
        'call calcAmountOver {"actual_amount": 3860.00, "limit_amount": 38']
    assert compare(run_of(broken[0]), run_of(broken[1]), DEFAULT_PRICES).first_divergence == 2


def test_the_same_run_in_the_other_dialect_says_the_same_in_every_round():
    trace = load_bundled("hengxin-expense").trace
    rounds = tuple(replace(r, **dict(zip(("request", "response"), reread(convert(r.request, r.response, OPENAI, ANTHROPIC)))))
                   for r in trace.rounds)
    anthropic = replace(trace, dialect=ANTHROPIC, rounds=rounds)
    assert anthropic.rounds[0].request.system is not None  # the system prompt moved out of the messages
    found = compare(run_of(trace), run_of(anthropic), DEFAULT_PRICES)
    assert [p.verdict for p in found.pairs] == ["same"] * 4
    assert found.first_divergence is None
    assert {c.status for c in message_changes(trace.rounds[3], trace, anthropic.rounds[3], anthropic)} == {"same"}


def test_a_removed_tool_and_an_emptied_result_are_said_in_the_verdict():
    trace, text = hengxin_lines()
    lines = text.splitlines()
    round2 = json.loads(lines[2])
    round2["request"]["tools"] = [t for t in round2["request"]["tools"]
                                  if t["function"]["name"] != "createExpenseSupplement"]
    for message in round2["request"]["messages"]:
        if message["role"] == "tool":
            message["content"] = ""
    forked = read([*lines[:2], json.dumps(round2), *lines[3:]])
    found = compare(run_of(trace), run_of(forked), DEFAULT_PRICES)
    assert found.first_divergence == 2
    assert found.pairs[1].verdict.startswith("different results of queryExpense, queryTravelPolicy sent; "
                                             "tool list changed: createExpenseSupplement removed")
    removed = tool_changes(round_contents(trace)[1], round_contents(forked)[1])
    assert [(t.name, t.status) for t in removed] == [("createExpenseSupplement", "removed")]
    assert "empty-tool-result" in found.pairs[1].findings_right


def test_two_runs_in_different_scenarios_pair_by_shape_and_keep_the_extra_rounds():
    hengxin = load_bundled("hengxin-expense").trace
    other = load_bundled("pitfalls/empty-result-invented-answer").trace
    found = compare(run_of(hengxin), run_of(other), DEFAULT_PRICES)
    assert [(p.left, p.right) for p in found.pairs] == [(1, 1), (2, None), (3, None), (4, 2)]
    assert "different calls: queryExpense, queryTravelPolicy → find_orders" in found.pairs[0].verdict
    estimated = run_of(other).rows[1].usage
    assert found.pairs[3].tokens_right == (estimated.input_tokens, estimated.output_tokens)
    assert found.right.cost.total is not None and found.pairs[3].cost_right is not None


def test_two_runs_of_1000_rounds_are_aligned_in_under_a_second():
    left = read(synthetic_lines(1000))
    right_lines = list(synthetic_lines(1000))
    right_lines[500] = right_lines[500].replace('\\"n\\": 500}', '\\"n\\": 5000}')
    right = read(right_lines)
    runs = run_of(left, "left"), run_of(right, "right")
    # CPU time, not wall time: other work on a shared CI machine must not fail a fast alignment.
    start = time.process_time()
    found = compare(*runs, DEFAULT_PRICES)
    took = time.process_time() - start
    assert len(found.pairs) == 1000 and found.first_divergence == 500
    assert found.pairs[499].verdict == "same call, different arguments: n: 500 → 5000"
    assert took < 1.0, f"{took:.2f} s"


def test_the_verdict_names_every_result_that_differs_and_each_finish_as_its_payload_writes_it():
    # The teaching fork of round 2: both lookups come back empty and the model answers instead of calling. The
    # parent's round 2 wrote no text at all, so the fork's answer is not "different": it is in one run only.
    trace, text = hengxin_lines()
    lines = text.splitlines()
    round2 = json.loads(lines[2])
    for message in round2["request"]["messages"]:
        if message["role"] == "tool":
            message["content"] = ""
    choice = round2["response"]["choices"][0]
    choice["message"] = {"role": "assistant", "content": "Your claim of 3,860 is within the limit."}
    choice["finish_reason"] = "stop"
    forked = read([*lines[:2], json.dumps(round2)])
    found = compare(run_of(trace), run_of(forked), DEFAULT_PRICES)
    assert found.pairs[1].verdict == ("different results of queryExpense, queryTravelPolicy sent; "
                                      "different calls: calcAmountOver → no call; answer text in the right run only; "
                                      "finish_reason: tool_calls → finish_reason: stop")
    assert "answer text in the left run only" in compare(run_of(forked), run_of(trace), DEFAULT_PRICES).pairs[1].verdict


def test_a_long_requests_shared_history_is_listed_by_its_ends_and_counted_not_written_out():
    # Round 999 of a 1,000-round trace resends about 2,000 messages; Compare listed every one of them.
    trace = catalog.load_bytes(("\n".join(synthetic_lines(40)) + "\n").encode(), "synthetic-40").trace
    late = trace.rounds[29]
    every = message_changes(late, trace, late, trace)
    listed = message_changes(late, trace, late, trace, kept=3)
    assert len(late.request.messages) == 60  # one entry each: the first and the last three are listed
    hidden = "(54 more messages, the same in both)"
    assert listed == (*every[:3], MessageChange("same", hidden, hidden), *every[-3:])
    assert {change.status for change in every} == {"same"}



def test_a_call_and_a_result_at_the_same_place_are_each_in_one_run_only_not_one_entry_changed():
    # Hengxin's round 4 beside the pitfall's round 2: where Hengxin's request has its queryTravelPolicy call, the
    # pitfall's has the result of find_orders. A call did not become a result: each is in its own run only.
    left, right = load_bundled("hengxin-expense").trace, load_bundled("pitfalls/empty-result-invented-answer").trace
    changes = message_changes(left.rounds[3], left, right.rounds[1], right)
    assert [(c.left, c.right) for c in changes if c.status == "changed" and
            (c.left or "").split(" ")[0] != (c.right or "").split(" ")[0]] == []
    assert MessageChange("only right", None, "result of find_orders: []") in changes
    assert ("changed", "call queryExpense") == (changes[2].status, changes[2].left.split(" {")[0])  # calls pair


def _batch_results(conversation: str) -> Run:
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    upload = read_upload([("results.jsonl", (FIXTURES / "anthropic-batch-results.jsonl").read_bytes())])
    return run_of(next(c.trace for c in upload.conversations if c.id == conversation), conversation)


def test_a_round_whose_request_and_output_the_log_lacks_is_not_compared_as_zero_tokens():
    # Anthropic's batch results keep no request, and ticket-8's call failed with a 400 that holds no output. The
    # Tokens page writes its tokens in "not in the log" and its tokens out "not known"; Compare wrote "≈ 0" for both.
    failed = _batch_results("ticket-8")
    pair = compare(failed, failed, DEFAULT_PRICES).pairs[0]
    assert pair.tokens_left == pair.tokens_right == (None, None)
    assert pair.words_left == pair.words_right == ("not in the log", "not known")
    answered = _batch_results("ticket-7-round-2")  # its usage was reported: the input is known, unsplit
    pair = compare(answered, answered, DEFAULT_PRICES).pairs[0]
    assert pair.tokens_left == (1122, 24) and pair.words_left == ("1,122", "24")


def test_the_totals_of_a_run_whose_requests_the_log_lacks_say_so_as_the_tokens_page_does():
    failed = _batch_results("ticket-8")
    totals = compare(failed, failed, DEFAULT_PRICES).left
    assert (totals.input_words, totals.output_words) == ("not in the log", "not known")


def test_a_call_whose_answer_the_log_lacks_is_not_priced_on_compare_as_on_the_tokens_page():
    # Anthropic's batch requests without their results: ticket-8's output is not in the log, so neither is its cost;
    # Compare priced its input alone ("≈ US$0.00157"), as if the model had written nothing.
    from lib.logs.upload import read_upload
    from lib.prices import cost_words
    from tests.screen import FIXTURES
    upload = read_upload([("requests.jsonl", (FIXTURES / "anthropic-batch-requests.jsonl").read_bytes())])
    run = run_of(next(c.trace for c in upload.conversations if c.id == "ticket-8"))
    found = compare(run, run, DEFAULT_PRICES)
    pair = found.pairs[0]
    assert (pair.cost_left, pair.cost_known_left) == (None, False)
    assert cost_words(found.left.cost) == "not known"


def test_a_stop_the_importer_worked_out_is_not_written_as_the_payload_s():
    # A fine-tuning transcript records no finish_reason: the importer reads one off the turn. Compare's stop row wrote
    # "finish_reason: tool_calls" as if a response had carried it.
    from pathlib import Path
    from lib.compare import finish_written
    from lib.logs.upload import read_upload
    fixture = Path(__file__).parent / "fixtures" / "openai-finetune.jsonl"
    round_ = read_upload([(fixture.name, fixture.read_bytes())]).conversations[0].trace.rounds[0]
    assert finish_written(round_) == "finish_reason: tool_calls (worked out by Roundtrip: the log recorded none)"
    recorded = read_upload([("pairs.jsonl", (fixture.parent / "openai-pairs.jsonl").read_bytes())])
    assert finish_written(recorded.conversations[0].trace.rounds[0]) == "finish_reason: tool_calls"


def _agent_run(fixture: str) -> Run:
    from pathlib import Path
    from lib.logs.upload import read_upload
    data = (Path(__file__).parent / "fixtures" / fixture).read_bytes()
    return run_of(read_upload([(fixture, data)]).conversations[0].trace, fixture)


def test_a_log_that_keeps_no_instructions_is_not_said_to_have_sent_different_ones():
    # Codex 0.125 logs its base instructions; Gemini CLI never logs its system prompt: what it sent is not known.
    found = compare(_agent_run("codex-rollout-0.125.jsonl"), _agent_run("gemini-cli-session.jsonl"), DEFAULT_PRICES)
    first = found.pairs[0].verdict
    assert "different system message sent" not in first
    assert first.startswith("the right run's log keeps no instructions, so they are not compared; ")
    assert "different calls: exec_command → update_topic" in first
    codex, gemini = (round_contents(_agent_run(f).trace)[0] for f in ("codex-rollout-0.125.jsonl",
                                                                      "gemini-cli-session.jsonl"))
    assert uninstructed_words(codex, gemini) == (
        "The right run's log keeps no instructions (its format does not always keep them, as an agent's session log "
        "never does): the left run's are listed as only in the left, though the right run sent its own, which are "
        "not known.")


def test_the_round_after_a_changed_result_is_not_said_to_be_the_same_request():
    # Two runs of an agent whose get_weather said 4.0 °C in one and -3.0 °C in the other: Compare's row 3 said "same"
    # above its own messages array, which showed the changed result resent in that very request.
    trace, text = hengxin_lines()
    changed = read(text.replace('\\"submit_date\\": \\"2026-10-15\\"', '\\"submit_date\\": \\"2026-10-16\\"').splitlines())
    found = compare(run_of(trace), run_of(changed), DEFAULT_PRICES)
    assert found.first_divergence == 2
    assert found.pairs[1].verdict == "different result of queryExpense sent"
    assert [p.verdict for p in found.pairs[2:]] == ["same new messages and answer; the earlier messages it resends differ"] * 2
    assert [p.same for p in found.pairs[2:]] == [True] * 2 and not any(p.differs for p in found.pairs[2:])
    assert [c.status for c in message_changes(trace.rounds[2], trace, changed.rounds[2], changed)].count("changed") == 1
    assert compare(run_of(trace), run_of(trace), DEFAULT_PRICES).pairs[2].verdict == "same"
