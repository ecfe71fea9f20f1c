"""LangSmith run exports (`list_runs` written out as JSON lines, a JSON array of runs, a run tree), read into rounds as
a LangChain or LangGraph user who exported their traces would see them."""

import json
import random
from pathlib import Path

from lib.logs.langsmith import LangSmithRunFormat
from lib.logs.upload import read_upload
from tests.formats_support import assert_detects_only_its_own, assert_only_line_problems

FIXTURE = Path(__file__).parent / "fixtures" / "langsmith-runs.jsonl"
WEATHER = "LangGraph · trace 1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01"
SUPPORT = "support_agent · trace 1f0a9c31-02aa-6c7e-b4d1-55e0c3a9d200"


def _runs() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _read(name: str, data: bytes):
    return read_upload([(name, data)])


def _conversations(upload) -> dict:
    return {c.id: c.trace for c in upload.conversations}


def test_each_llm_run_is_a_round_and_each_trace_a_conversation_the_other_runs_not_model_calls():
    upload = _read(FIXTURE.name, FIXTURE.read_bytes())
    assert upload.summary() == "12 lines: 4 rounds in 2 conversations; 8 lines not model calls; 0 lines skipped"
    assert upload.formats["langsmith"][1] == ("a 'run_type' such as llm, tool or chain beside 'trace_id', "
                                              "'dotted_order' or 'parent_run_id' (a LangSmith run)")
    traces = _conversations(upload)
    assert list(traces) == [WEATHER, SUPPORT]
    assert [len(t.rounds) for t in traces.values()] == [2, 2]


def test_langchains_serialized_messages_are_the_request_and_the_ai_messages_tool_calls_the_answer():
    weather = _conversations(_read(FIXTURE.name, FIXTURE.read_bytes()))[WEATHER]
    first, second = weather.rounds
    assert [m.role for m in first.request.messages] == ["system", "user"]
    assert first.request.messages[0].parts[0].text == "You are a helpful weather assistant. Use the tools."
    assert first.request.model == "gpt-4o-mini"
    call = first.response.message.parts[0]
    assert (call.name, call.id, call.arguments) == ("get_weather", "call_Xq3nUu1Pz8R2", {"city": "Paris"})
    assert first.response.finish_reason == "tool_calls"
    assert [m.role for m in second.request.messages] == ["system", "user", "assistant", "tool"]
    result = second.request.messages[3].parts[0]
    assert (result.call_id, result.content) == ("call_Xq3nUu1Pz8R2", "It's 18°C and sunny in Paris.")
    assert second.response.message.parts[0].text == "It's 18°C and sunny in Paris right now."


def test_the_tool_list_is_the_one_langchain_bound_under_invocation_params():
    weather = _conversations(_read(FIXTURE.name, FIXTURE.read_bytes()))[WEATHER]
    for round_ in weather.rounds:
        assert [t.name for t in round_.request.tools] == ["get_weather"]
        assert round_.extra["provenance"]["omitted"] == []


def test_a_tool_run_is_given_to_its_call_by_the_tool_call_id_of_the_tool_message_it_returned():
    weather = _conversations(_read(FIXTURE.name, FIXTURE.read_bytes()))[WEATHER]
    ran = weather.rounds[0].executions[0]
    assert (ran.tool_call_id, ran.name, ran.output, ran.ok, ran.duration_ms) == (
        "call_Xq3nUu1Pz8R2", "get_weather", "It's 18°C and sunny in Paris.", True, 615.0)
    assert ran.note is None


def test_tool_runs_without_a_call_id_are_paired_by_name_and_order_and_say_so_a_failure_without_its_traceback():
    support = _conversations(_read(FIXTURE.name, FIXTURE.read_bytes()))[SUPPORT]
    first, second = support.rounds[0].executions
    assert (first.tool_call_id, first.arguments, first.ok) == ("toolu_01A9", {"query": "refund policy"}, True)
    assert (second.tool_call_id, second.arguments, second.ok) == ("toolu_01B7", {"query": "returns window"}, False)
    for ran in (first, second):
        assert "paired by its name and order in the trace: the tool run holds no tool_call_id" in ran.note
    assert second.output == "TimeoutError: search backend did not answer"
    assert "Traceback" not in second.note and "tools.py" not in second.note


def test_usage_is_the_ai_messages_usage_metadata():
    upload = _read(FIXTURE.name, FIXTURE.read_bytes())
    usages = [(r.response.usage.input_tokens, r.response.usage.output_tokens)
              for t in _conversations(upload).values() for r in t.rounds]
    assert usages == [(71, 16), (104, 12), (412, 88), (561, 19)]


def test_a_run_without_a_tool_list_says_it_is_not_in_the_log_never_that_no_tools_were_sent():
    support = _conversations(_read(FIXTURE.name, FIXTURE.read_bytes()))[SUPPORT]
    for round_ in support.rounds:
        assert round_.request.tools == ()
        provenance = round_.extra["provenance"]
        # Not a part the format never keeps (Claude Code's tool list, always sent): LangChain keeps the tools it
        # binds, so a run without them may have had none; the calls are what prove a list was sent.
        assert provenance["omitted"] == []
        # Whether one was sent is said where the list would be (lib.summary.tool_list_missing), from the calls.
        assert "whether" not in provenance["note"] and "sent" not in provenance
        assert "this run has none there" in provenance["note"]


def test_a_json_array_of_runs_and_runs_in_any_order_read_as_the_lines_do():
    runs = _runs()
    expected = [(c.id, [len(r.request.messages) for r in c.trace.rounds])
                for c in _read(FIXTURE.name, FIXTURE.read_bytes()).conversations]
    array = _read("runs.json", json.dumps(runs).encode())
    assert array.summary() == "12 elements: 4 rounds in 2 conversations; 8 elements not model calls; 0 elements skipped"
    shuffled = runs[:]
    random.Random(7).shuffle(shuffled)
    lines = _read("runs.jsonl", "\n".join(json.dumps(r) for r in shuffled).encode())
    for upload in (array, lines):
        assert sorted((c.id, [len(r.request.messages) for r in c.trace.rounds]) for c in upload.conversations) \
            == sorted(expected)


def test_a_run_tree_with_its_child_runs_nested_reads_as_its_runs_listed_flat():
    runs = [r for r in _runs() if r["trace_id"] == "1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01"]
    by_id = {r["id"]: {**r, "child_runs": []} for r in runs}
    root = None
    for run in by_id.values():
        if run["parent_run_id"] is None:
            root = run
        else:
            by_id[run["parent_run_id"]]["child_runs"].append(run)
    upload = _read("tree.json", json.dumps(root).encode())
    weather = _conversations(upload)[WEATHER]
    assert [len(r.request.messages) for r in weather.rounds] == [2, 4]
    assert weather.rounds[0].executions[0].tool_call_id == "call_Xq3nUu1Pz8R2"


def test_the_apis_page_of_runs_is_read_as_its_runs():
    upload = _read("page.json", json.dumps({"runs": _runs(), "cursors": {"next": None}}).encode())
    assert [len(t.rounds) for t in _conversations(upload).values()] == [2, 2]


def test_a_failed_llm_run_is_a_round_with_its_error_without_the_traceback():
    run = {**_runs()[2], "outputs": None, "status": "error",
           "error": "Traceback (most recent call last):\n  File \"x.py\"\nopenai.RateLimitError: Error code: 429"}
    round_ = _read("failed.jsonl", json.dumps(run).encode()).conversations[0].trace.rounds[0]
    assert round_.response is None
    assert round_.error.message == "openai.RateLimitError: Error code: 429"


def test_a_line_that_is_no_run_is_skipped_naming_it_and_the_runs_still_load():
    text = FIXTURE.read_text(encoding="utf-8") + '{"note": "exported 2025-06-14"}\n'
    upload = _read("runs.jsonl", text.encode())
    assert upload.summary() == "13 lines: 4 rounds in 2 conversations; 8 lines not model calls; 1 line skipped"
    assert [str(p) for p in upload.problems] == ["line 13: matches no known log format"]


def test_a_run_without_its_place_in_a_trace_is_said_to_be_close_to_a_langsmith_run():
    upload = _read("run.jsonl", b'{"run_type": "llm", "name": "ChatOpenAI", "inputs": {}}')
    assert ("LangSmith run export: has a LangSmith 'run_type', but neither 'trace_id', 'dotted_order' nor "
            "'parent_run_id'") in upload.problems[0].message


def test_langsmith_claims_its_own_runs_and_no_other_formats_lines():
    assert_detects_only_its_own(LangSmithRunFormat)


def test_no_one_place_change_to_a_run_raises_anything_but_a_line_problem():
    assert assert_only_line_problems(LangSmithRunFormat, _runs(), stride=1) > 10_000


def test_a_run_of_langsmiths_openai_wrapper_reads_its_completion_and_usage_metadata():
    # LangSmith's wrap_openai records the Chat Completions request as the inputs and the completion as the outputs,
    # its times in epoch milliseconds (langchain-ai/langsmith-sdk js/src/tests/test_data/
    # langsmith_js_wrap_openai_default.json, its post and patch of one run taken together).
    run = {"id": "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e", "name": "ChatOpenAI", "run_type": "llm",
           "start_time": 1728803137170, "end_time": 1728803138285,
           "trace_id": "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e",
           "dotted_order": "20241013T070537170001Zdc34609e-3eeb-459d-bc2a-6fedb01d2e6e",
           "inputs": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "howdy"}]},
           "outputs": {"id": "chatcmpl-AHmxWgRAkoZJCaH30D7gz5t1OCc30", "object": "chat.completion",
                       "created": 1728803138, "model": "gpt-4o-mini-2024-07-18",
                       "choices": [{"index": 0, "message": {"role": "assistant",
                                                            "content": "Howdy! How can I assist you today?",
                                                            "refusal": None},
                                    "logprobs": None, "finish_reason": "stop"}],
                       "usage_metadata": {"input_tokens": 9, "output_tokens": 9, "total_tokens": 18}}}
    round_ = _read("wrapped.jsonl", json.dumps(run).encode()).conversations[0].trace.rounds[0]
    assert round_.request.messages[0].parts[0].text == "howdy"
    assert round_.response.message.parts[0].text == "Howdy! How can I assist you today?"
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (9, 9)
    assert round_.latency_ms == 1115.0


def test_two_agents_of_one_trace_each_keeping_their_own_messages_are_two_conversations():
    # A LangGraph supervisor and its worker run in one trace, each model call sent its own agent's history.
    runs = _runs()
    for run in runs:
        if run["trace_id"].endswith("d200"):
            if run["parent_run_id"] is None:
                run["parent_run_id"] = "1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01"
            run["trace_id"] = "1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01"
            run["dotted_order"] = "20250614T091500120000Z1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01." + run["dotted_order"]
    upload = _read("agents.jsonl", "\n".join(json.dumps(r) for r in runs).encode())
    assert {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in upload.conversations} == {
        WEATHER: [2, 4], f"{WEATHER} · support_agent": [1, 4]}
    assert [len(r.executions) for c in upload.conversations for r in c.trace.rounds] == [1, 0, 2, 0]


def _support_runs() -> list[dict]:
    """The support_agent trace's runs (lines 8 to 12): an llm run whose two search_docs calls ran, the second one
    raising TimeoutError, and the llm run given both results, the second a ToolMessage with status 'error'."""
    return [run for run in _runs() if run["trace_id"] == "1f0a9c31-02aa-6c7e-b4d1-55e0c3a9d200"]


def _step_3(trace, k: int) -> list[str]:
    from lib.steps import steps_for_round
    return [label.detail for label in steps_for_round(trace, k) if label.step == 3]


def test_a_tool_message_langchain_marked_status_error_fails_the_execution_when_only_the_llm_runs_were_exported():
    # list_runs(run_type="llm") keeps the model calls alone: the ToolMessages of the second request are all the
    # export says of what the program ran, and LangChain marked the second one status 'error'.
    only_llm = [run for run in _support_runs() if run["run_type"] == "llm"]
    [support] = _conversations(_read("runs.jsonl", "\n".join(json.dumps(r) for r in only_llm).encode())).values()
    first, second = support.rounds[0].executions
    assert (first.tool_call_id, first.name, first.arguments, first.ok) == (
        "toolu_01A9", "search_docs", {"query": "refund policy"}, True)
    assert first.output == "Refunds are issued within 14 days of receiving the item."
    assert (second.tool_call_id, second.ok, second.output) == (
        "toolu_01B7", False, "Error: TimeoutError('search backend did not answer')")
    assert "read from the ToolMessage the next llm run was given" in second.note
    assert "LangChain marked the ToolMessage it sent back status 'error' (the tool raised)" in second.note
    assert _step_3(support, 1) == ["search_docs (toolu_01A9): ok", "search_docs (toolu_01B7): failed"]


def test_a_tool_run_without_an_error_whose_tool_message_says_status_error_is_a_failed_execution():
    # The tool caught its own failure and returned it as text; the ToolMessage the program sent back says 'error'.
    runs = _support_runs()
    failed = next(r for r in runs if r["run_type"] == "tool" and r["error"])
    said = "Error: TimeoutError('search backend did not answer')"
    failed.update(error=None, status="success", outputs={"output": said})
    [support] = _conversations(_read("runs.jsonl", "\n".join(json.dumps(r) for r in runs).encode())).values()
    first, second = support.rounds[0].executions
    assert (first.ok, second.ok) == (True, False)
    assert "status 'error'" in second.note and "status 'error'" not in (first.note or "")
    assert _step_3(support, 1) == ["search_docs (toolu_01A9): ok", "search_docs (toolu_01B7): failed"]
