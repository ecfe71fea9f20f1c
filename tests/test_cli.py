"""The command line, run as a team would run it in CI: `python -m lib check` and `python -m lib summarize`."""

import json
import subprocess
import sys

from tests.conftest import ROOT

CLEAN = ["hengxin-expense", "larkfield-get-order", "order-status-anthropic", "loan-calculator"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_check_exits_0_on_the_clean_bundled_traces():
    done = run("check", *(f"traces/{name}.jsonl" for name in CLEAN))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "traces/loan-calculator.jsonl: no findings in 2 rounds" in done.stdout.splitlines()
    assert not [line for line in done.stdout.splitlines() if ": error " in line or ": warning " in line]


def test_a_clean_one_round_file_has_no_findings_in_1_round():
    done = run("check", "tests/fixtures/containers/pydantic-ai-anthropic-stream.yaml")
    assert "tests/fixtures/containers/pydantic-ai-anthropic-stream.yaml: no findings in 1 round" in done.stdout.splitlines()


def test_check_exits_1_on_the_unanswered_call_and_prints_one_line_per_finding():
    done = run("check", "traces/pitfalls/unanswered-parallel-call.jsonl")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("traces/pitfalls/unanswered-parallel-call.jsonl: error missing-tool-result "
                               "round 2 request messages[2].tool_calls[1]: ")
    assert lines[1].startswith("traces/pitfalls/unanswered-parallel-call.jsonl: error provider-error "
                               "round 2 request messages[2]: ")


def test_warnings_alone_do_not_fail_the_check():
    done = run("check", "traces/pitfalls/empty-result-invented-answer.jsonl")
    assert done.returncode == 0
    assert ": warning empty-tool-result round 2 request messages[3].content: " in done.stdout


def test_check_exits_2_on_a_missing_file_and_still_checks_the_others():
    done = run("check", "traces/no-such-trace.jsonl", "traces/pitfalls/unanswered-parallel-call.jsonl")
    assert done.returncode == 2
    assert "traces/no-such-trace.jsonl: cannot be read" in done.stderr
    assert "error missing-tool-result" in done.stdout


def test_check_exits_2_on_a_file_with_bad_lines_and_names_them(tmp_path):
    lines = (ROOT / "traces/loan-calculator.jsonl").read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], lines[1], '{"kind": "round", "index": 2, "request": ']) + "\n")
    done = run("check", str(broken))
    assert done.returncode == 2
    assert f"{broken}: line 3: is not valid JSON" in done.stderr


def test_summarize_prints_the_documented_json_contract():
    done = run("summarize", "traces/hengxin-expense.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["format"] == "native" and summary["problems"] == []
    (conversation,) = summary["conversations"]
    assert conversation["id"] == "Hengxin expense reimbursement"
    rounds = conversation["rounds"]
    assert [r["index"] for r in rounds] == [1, 2, 3, 4]
    assert [r["messages_in_request"] for r in rounds] == [2, 5, 7, 9]
    assert [r["new_messages"] for r in rounds] == [2, 3, 2, 2]
    assert [[c["id"] for c in r["tool_calls"]] for r in rounds] == [["call_q1", "call_q2"], ["call_q3"], ["call_q4"], []]
    assert rounds[0]["tool_calls"][0]["name"] == "queryExpense"
    assert [r["tool_results"] for r in rounds] == [[], ["call_q1", "call_q2"], ["call_q3"], ["call_q4"]]
    assert [r["finish"] for r in rounds] == ["tool_calls", "tool_calls", "tool_calls", "stop"]
    assert [r["steps"] for r in rounds] == [[1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4], [1, 4, 5]]
    assert [r["inferred"] for r in rounds] == [False] * 4
    assert {k: v for k, v in rounds[0]["usage"].items() if k != "input_parts"} == {
        "input": 1247, "billed_input": 1247, "billing": None, "output": 58, "source": "reported", "reasoning": None,
        "cached": None, "cache_written": None, "other_model_calls": []}
    assert [r["usage"]["source"] for r in rounds[1:]] == ["estimated"] * 3
    hengxin = "Hengxin expense reimbursement"
    assert [(c["conversation"], c["round"], c["code"]) for c in summary["checks"]] == [
        (hengxin, 1, "model-filled-identity"), (hengxin, 1, "model-filled-value"), (hengxin, 1, "model-filled-value"),
        (hengxin, 3, "limit-in-description"), (hengxin, 3, "write-tool-call")]


def test_summarize_gives_each_rounds_input_parts_summing_to_its_input():
    rounds = json.loads(run("summarize", "traces/hengxin-expense.jsonl", "--json").stdout)["conversations"][0]["rounds"]
    second = rounds[1]["usage"]
    assert second["input"] == 1378
    # Round 2 reported no usage: the part beyond our count is round 1's carried over, named as the explorer names it.
    assert second["input_parts"]["beyond our count as round 1 reported it (template, provider tokens)"] == 503
    assert "reported beyond our count (template, provider tokens)" not in second["input_parts"]
    assert rounds[0]["usage"]["input_parts"]["reported beyond our count (template, provider tokens)"] == 503
    assert all(sum(r["usage"]["input_parts"].values()) == r["usage"]["input"] for r in rounds)


def test_summarize_says_a_request_not_in_the_log_instead_of_counting_its_messages():
    rounds = json.loads(run("summarize", "tests/fixtures/bare-responses.jsonl", "--json").stdout)["conversations"][0]["rounds"]
    assert (rounds[0]["request_in_log"], rounds[0]["messages_in_request"]) == (False, None)
    hengxin = json.loads(run("summarize", "traces/hengxin-expense.jsonl", "--json").stdout)["conversations"][0]["rounds"]
    assert [r["request_in_log"] for r in hengxin] == [True] * 4


def test_summarize_prints_what_the_log_did_not_keep_as_null_never_as_0():
    # bare-responses.jsonl kept no request: how many messages were new or held, which results it carried and where its
    # input went are unknown, as the Tokens page says, not 0 or [] (its input, reported by the API, is known).
    [first] = json.loads(run("summarize", "tests/fixtures/bare-responses.jsonl", "--json").stdout)["conversations"][0]["rounds"]
    assert (first["new_messages"], first["messages_held"], first["tool_results"]) == (None, None, None)
    assert first["usage"]["input"] == 120 and set(first["usage"]["input_parts"].values()) == {None}
    assert [c["name"] for c in first["tool_calls"]] == ["get_weather", "get_weather"]
    # requests-only.jsonl ends on request 2: no response, so its calls and output are unknown, not none and 0.
    rounds = json.loads(run("summarize", "tests/fixtures/requests-only.jsonl", "--json").stdout)["conversations"][0]["rounds"]
    assert [(r["tool_calls"] is None, r["usage"]["output"]) for r in rounds] == [(False, 17), (True, None)]
    assert [r["new_messages"] for r in rounds] == [2, 3]

def test_summarize_gives_the_calls_of_an_answer_the_log_did_not_keep_as_null_not_as_none_made():
    # A span without content capture kept `finish_reason: tool_calls` and no call: the calls are unknown, not [].
    said = json.loads(run("summarize", "tests/fixtures/otlp-span-per-call-no-content.jsonl", "--json").stdout)
    rounds = [r for conversation in said["conversations"] for r in conversation["rounds"]]
    assert [(r["finish_reason"], r["tool_calls"]) for r in rounds] == [("tool_calls", None), ("stop", None)]


def test_summarize_reports_an_error_round():
    summary = json.loads(run("summarize", "traces/pitfalls/unanswered-parallel-call.jsonl", "--json").stdout)
    second = summary["conversations"][0]["rounds"][1]
    assert second["finish"] == "error" and second["error"]["status"] == 400
    assert {c["code"] for c in summary["checks"]} == {"missing-tool-result", "provider-error"}


def test_summarize_reads_a_log_and_marks_inferred_responses():
    done = run("summarize", "tests/fixtures/requests-only.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["format"] == "openai-chat"
    rounds = summary["conversations"][0]["rounds"]
    assert [r["inferred"] for r in rounds] == [True, False]
    # The first response is inferred from the next request: its stop too, so it is written in parentheses.
    assert [r["finish"] for r in rounds] == ["(tool_calls)", "unknown"]


def test_summarize_exits_2_with_a_clear_message_when_nothing_loads(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n{}\n")
    done = run("summarize", str(junk), "--json")
    assert done.returncode == 2
    assert "no rounds could be read (2 lines: 0 rounds in 0 conversations; 2 lines skipped)" in done.stderr


def test_convert_writes_a_native_trace_that_reads_back(tmp_path):
    out = tmp_path / "out.jsonl"
    done = run("convert", "tests/fixtures/openai-pairs.jsonl", "-o", str(out))
    assert done.returncode == 0, done.stderr
    written = sorted(tmp_path.glob("out-*.jsonl"))
    assert [p.name for p in written] == ["out-1.jsonl", "out-2.jsonl"]
    again = json.loads(run("summarize", str(written[0]), "--json").stdout)
    assert [r["messages_in_request"] for r in again["conversations"][0]["rounds"]] == [2, 5]


HOSTILE_TITLE = "Hengxin \x1b[2J\x1b]0;pwned\x07 \u202egnp.exe \x9b31m\x7f"
"""A title that, printed raw, would clear the screen, retitle the window and reverse the text after it."""
HOSTILE_TOOL = "query\x1b[8mExpense\u2066"


def _hostile_trace(tmp_path):
    text = (ROOT / "traces/hengxin-expense.jsonl").read_text(encoding="utf-8")
    text = text.replace('"Hengxin expense reimbursement"', json.dumps(HOSTILE_TITLE), 1)
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(text.replace('"queryExpense"', json.dumps(HOSTILE_TOOL)), encoding="utf-8")
    return hostile


def _raw_controls(text: str) -> set[str]:
    return {c for c in text if (c < " " and c != "\n") or "\x7f" <= c <= "\x9f" or c in "\u202e\u2066"}


def test_every_command_prints_control_characters_from_a_trace_as_visible_escapes(tmp_path):
    hostile = _hostile_trace(tmp_path)
    said = {"summarize": run("summarize", str(hostile)), "check": run("check", str(hostile)),
            "convert": run("convert", str(hostile), "-o", str(tmp_path / "out.jsonl"))}
    assert {name: done.returncode for name, done in said.items()} == {"summarize": 0, "check": 0, "convert": 0}
    assert {name: _raw_controls(done.stdout + done.stderr) for name, done in said.items()} == dict.fromkeys(said, set())
    shown_title = "Hengxin \\u001b[2J\\u001b]0;pwned\\u0007 \\u202egnp.exe \\u009b31m\\u007f"
    assert f"  {shown_title}: 4 rounds, messages 2 → 5 → 7 → 9" in said["summarize"].stdout.splitlines()
    assert "of query\\u001b[8mExpense\\u2066 itself" in said["check"].stdout
    assert f"{tmp_path / 'out.jsonl'}: {shown_title}, 4 rounds" in said["convert"].stdout.splitlines()


def test_the_json_summary_keeps_control_characters_escaped_and_reads_back_exactly(tmp_path):
    done = run("summarize", str(_hostile_trace(tmp_path)), "--json")
    assert done.returncode == 0, done.stderr
    assert _raw_controls(done.stdout) == set()
    summary = json.loads(done.stdout)
    assert summary["conversations"][0]["title"] == HOSTILE_TITLE
    assert summary["conversations"][0]["rounds"][0]["tool_calls"][0]["name"] == HOSTILE_TOOL


def test_summarize_prints_the_json_with_its_problems_and_exits_2_when_no_line_loads(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n{}\n")
    done = run("summarize", str(junk), "--json")
    assert done.returncode == 2
    summary = json.loads(done.stdout)
    assert summary["conversations"] == [] and summary["summary"] == "2 lines: 0 rounds in 0 conversations; 2 lines skipped"
    assert [problem["line"] for problem in summary["problems"]] == [1, 2]  # each line once
    assert "no line of the file matches a known log format" in summary["problems"][1]["error"]
    assert "is not valid JSON" in summary["problems"][0]["error"]


def test_summarize_piped_into_head_ends_without_a_traceback(tmp_path):
    from tests.synthetic import synthetic_log

    big = tmp_path / "big.jsonl"
    big.write_bytes(synthetic_log(4, 60))
    piped = subprocess.run(f"{sys.executable} -m lib summarize {big} --json | head -c 10", shell=True, cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert piped.stdout == '{\n  "forma'
    assert "Traceback" not in piped.stderr and "BrokenPipeError" not in piped.stderr, piped.stderr


def test_diff_of_a_run_with_itself_exits_0_and_says_every_round_is_the_same():
    done = run("diff", "hengxin-expense", "traces/hengxin-expense.jsonl")
    assert done.returncode == 0, done.stderr
    assert "the runs say the same in every round" in done.stdout
    assert [line.split(maxsplit=4)[-1] for line in done.stdout.splitlines()[3:]] == ["same"] * 4


def test_diff_of_a_log_whose_requests_are_not_kept_names_no_divergence_and_does_not_pass_as_the_same():
    # A span kept without its messages, compared with itself: "first divergence at row 1" was a difference nothing in
    # the log shows; it is not known to be the same either, so a guard in CI still does not pass.
    log = "tests/fixtures/otlp-span-per-call-no-content.jsonl"
    done = run("diff", log, log)
    assert done.returncode == 1, done.stderr
    assert "first divergence" not in done.stdout
    assert "nothing the logs hold differs, but row 1 on could not be compared in full" in done.stdout
    document = json.loads(run("diff", log, log, "--json").stdout)
    assert (document["first_divergence"], document["first_uncompared"]) == (None, 1)


def test_diff_of_two_different_runs_exits_1_and_names_the_first_divergence_and_the_removed_rounds():
    done = run("diff", "hengxin-expense", "traces/pitfalls/empty-result-invented-answer.jsonl", "--json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert document["first_divergence"] == 1
    assert [(r["left"], r["right"]) for r in document["rounds"]] == [(1, 1), (2, None), (3, None), (4, 2)]
    assert document["rounds"][1]["verdict"] == "only in the left run (removed)"
    assert (document["left"]["rounds"], document["right"]["rounds"]) == (4, 2)


def test_diff_of_a_missing_file_exits_2_naming_it():
    done = run("diff", "hengxin-expense", "no-such-run.jsonl")
    assert done.returncode == 2
    assert "no-such-run.jsonl: cannot be read" in done.stderr


def test_summarize_counts_a_held_chain_as_the_tokens_page_does_what_the_program_sent_and_what_was_held():
    # The Responses chain: from round 2 on the provider holds the earlier messages (previous_response_id). The
    # request the program sent carries only the instructions and the new items.
    done = run("summarize", "tests/fixtures/openai-responses.jsonl", "--json")
    assert done.returncode == 0, done.stderr
    rounds = json.loads(done.stdout)["conversations"][0]["rounds"]
    assert [r["messages_in_request"] for r in rounds] == [2, 3, 2, 2]
    assert [r["messages_held"] for r in rounds] == [0, 2, 5, 7]
    assert [r["new_messages"] for r in rounds] == [2, 2, 1, 1]
    lines = run("summarize", "tests/fixtures/openai-responses.jsonl").stdout.splitlines()
    assert "messages 2 → 3 (+2 held) → 2 (+5 held) → 2 (+7 held)" in lines[1]


def test_summarize_places_each_message_as_the_explorer_and_the_tokens_page_do():
    # AutoGPT's round 3: the explorer says 3 new, 4 resent unchanged and 1 changed since the previous request; the
    # JSON gave the 3 new alone. The Responses chain resends its instructions each round beside what the provider held.
    def placed(fixture):
        rounds = json.loads(run("summarize", fixture, "--json").stdout)["conversations"][0]["rounds"]
        return [(r["new_messages"], r["resent_messages"], r["changed_messages"], r["messages_held"]) for r in rounds]
    assert placed("tests/fixtures/containers/autogpt-memory-challenge-b.yaml") == [(3, 0, 0, 0), (4, 3, 0, 0),
                                                                                   (3, 4, 1, 0)]
    assert placed("tests/fixtures/openai-responses.jsonl") == [(2, 0, 0, 0), (2, 1, 0, 2), (1, 1, 0, 5), (1, 1, 0, 7)]
    assert placed("tests/fixtures/bare-responses.jsonl") == [(None, None, None, None)]


def test_summarize_writes_a_stop_the_log_did_not_record_in_parentheses_as_the_tokens_page_does():
    # The todowrite session's response has "stop_reason": null: the importer infers tool_calls from its tool_use
    # block, and the summary must not pass that off as recorded (lib.summary.finish_words, one rule).
    edge, todo = json.loads(run("summarize", "tests/fixtures/claude-code-edge-cases.jsonl", "--json").stdout
                            )["conversations"]
    assert [(r["finish"], r["finish_reason"]) for r in edge["rounds"]] == [
        ("stop", "end_turn"), ("tool_calls", "tool_use"), ("tool_calls", "tool_use"), ("unknown", None)]
    assert [(r["finish"], r["finish_reason"]) for r in todo["rounds"]] == [("(tool_calls)", None)]


def test_summarize_gives_reasoning_the_usage_does_not_count_apart_as_null_and_a_reported_0_as_0():
    # Anthropic's usage counts the thinking inside output_tokens, with no field of its own: not known, not 0.
    done = run("summarize", "tests/fixtures/anthropic-pairs.jsonl", "--json")
    assert [r["usage"]["reasoning"] for r in json.loads(done.stdout)["conversations"][0]["rounds"]] == [None, None]
    done = run("summarize", "tests/fixtures/openai-responses.jsonl", "--json")
    rounds = json.loads(done.stdout)["conversations"][0]["rounds"]
    assert [r["usage"]["reasoning"] for r in rounds] == [12, 0, 64, None]


def test_convert_to_a_place_that_cannot_be_written_says_so_without_a_traceback(tmp_path):
    # An engineer who names a folder for -o (as for an OpenHands run's completions) got Python's IsADirectoryError.
    done = run("convert", "tests/fixtures/containers/opencode-export-steps.json", "-o", str(tmp_path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{tmp_path}: cannot be written:" in done.stderr


def test_summarize_gives_a_tool_list_sent_but_not_kept_as_null_never_as_0():
    # LangSmith's support_agent run kept the messages, not the tool list its calls prove was sent and billed.
    conversations = json.loads(run("summarize", "tests/fixtures/langsmith-runs.jsonl", "--json").stdout)["conversations"]
    support = next(c for c in conversations if "support_agent" in c["id"])
    assert [r["usage"]["input_parts"]["tool definitions"] for r in support["rounds"]] == [None, None]
    bound = next(c for c in conversations if "LangGraph" in c["id"])  # a run that kept its bound tools counts them
    assert [r["usage"]["input_parts"]["tool definitions"] for r in bound["rounds"]] == [57, 57]


def test_summarize_gives_no_billed_input_for_a_call_the_provider_refused():
    # Round 2 of the parallel-call pitfall was refused with HTTP 400: its input is known, whether it was billed is
    # not, as the Tokens page leaves it out of the input billed and of the cost.
    document = json.loads(run("summarize", "traces/pitfalls/unanswered-parallel-call.jsonl", "--json").stdout)
    usage = [r["usage"] for r in document["conversations"][0]["rounds"]]
    assert [u["input"] for u in usage] == [147, 204, 236]
    assert [u["billed_input"] for u in usage] == [147, None, 236]
    assert [u["billing"] for u in usage] == [
        None, "The call failed, and the log does not say whether the provider billed it.", None]


def test_check_and_summarize_say_a_broken_json_line_in_the_words_the_app_says_it(tmp_path):
    # orjson's own words ("invalid literal, expected 'true'") reached the terminal as they reached the sidebar.
    from tests.test_upload import BROKEN_LINES, BROKEN_SAID
    good = (ROOT / "tests/fixtures/openai-pairs.jsonl").read_bytes().splitlines()
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\n".join([good[0], *BROKEN_LINES]))
    for command, status in (("check", 2), ("summarize", 0)):  # summarize: a round loaded
        done = run(command, str(edited))
        assert done.returncode == status
        assert done.stderr.splitlines() == [f"{edited}: {said}" for said in BROKEN_SAID]
    summary = json.loads(run("summarize", str(edited), "--json").stdout)
    assert [f"line {p['line']}: {p['error']}" for p in summary["problems"]] == BROKEN_SAID


def test_summarize_reads_several_files_as_one_upload_as_the_app_does_naming_each_problems_file(tmp_path):
    # `summarize A B` stopped at "unrecognized arguments": only `check` took several files, each on its own, so a
    # batch's requests and results could not be summarized together as the app's uploader reads them.
    fixtures = ROOT / "tests/fixtures"
    good = (fixtures / "openai-pairs.jsonl").read_bytes().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\n".join([good[1], b"{x", b'{"a": tru}']))
    requests, results = fixtures / "openai-batch-input.jsonl", fixtures / "openai-batch-output.jsonl"
    done = run("summarize", str(requests), str(results), str(broken))
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == (f"{requests}, {results}, {broken}: 11 lines: 6 rounds in 5 conversations; "
                                           "2 lines skipped")
    said = "  trip-17-round-1 (openai-batch-input.jsonl + openai-batch-output.jsonl): 2 rounds, messages 2 → 5"
    assert said in done.stdout.splitlines()
    assert [line for line in done.stdout.splitlines() if "(broken.jsonl): 1 round" in line]
    assert done.stderr.splitlines() == [
        "broken.jsonl, line 2: is not valid JSON (at character 2 of the line: a key is not a string in double quotes: "
        "unquoted, in single quotes, or after a comma too many)",
        "broken.jsonl, line 3: is not valid JSON (at character 7 of the line: a bare word that is none of JSON's three: "
        "true, false, null)"]
    summary = json.loads(run("summarize", str(requests), str(broken), "--json").stdout)
    assert [(p["file"], p["line"]) for p in summary["problems"]] == [("broken.jsonl", 2), ("broken.jsonl", 3)]
    assert {c["source"] for c in summary["conversations"]} == {"openai-batch-input.jsonl", "broken.jsonl"}


def test_summarize_names_each_of_two_files_conversations_of_one_name_by_its_file_once(tmp_path):
    # Two logs that each name a run "sess-1" were summarized as one conversation "sess-1 (monday.jsonl +
    # tuesday.jsonl): 4 rounds"; told apart, each line says its file once, not "sess-1 (monday.jsonl) (monday.jsonl)".
    pairs = [json.loads(line) for line in (ROOT / "tests/fixtures/openai-pairs.jsonl").read_bytes().splitlines()]
    monday, tuesday = tmp_path / "monday.jsonl", tmp_path / "tuesday.jsonl"
    for path, lines in ((monday, [pairs[0], pairs[2]]), (tuesday, [pairs[1], pairs[3]])):
        path.write_bytes(b"\n".join(json.dumps({**line, "conversation": "sess-1"}).encode() for line in lines))
    done = run("summarize", str(monday), str(tuesday))
    assert done.stdout.splitlines()[1:] == ["  sess-1 (monday.jsonl): 2 rounds, messages 2 → 5",
                                            "  sess-1 (tuesday.jsonl): 2 rounds, messages 2 → 4"]
    conversations = json.loads(run("summarize", str(monday), str(tuesday), "--json").stdout)["conversations"]
    assert [(c["id"], c["title"], c["source"]) for c in conversations] == [
        ("sess-1 (monday.jsonl)", "monday.jsonl · sess-1", "monday.jsonl"),
        ("sess-1 (tuesday.jsonl)", "tuesday.jsonl · sess-1", "tuesday.jsonl")]
