"""OpenHands' logs (its completion logs, its trajectories of events), as an engineer who runs OpenHands reads them."""

import copy
import json

from lib.logs.openhands import OpenHandsCompletionFormat, OpenHandsTrajectoryFormat
from lib.logs.upload import read_upload
from lib.summary import parts_not_logged, tool_list_never_logged
from tests.formats_support import FIXTURES, assert_detects_only_its_own, assert_only_line_problems, lines

TOOLS = ["execute_bash", "think", "finish", "str_replace_editor"]
"""The tools the CodeActAgent run of the fixtures was given (its system event's, its completion logs' kwargs)."""


def _read(*files: tuple[str, bytes]):
    return read_upload(list(files))


def _fixture(name: str) -> tuple[str, bytes]:
    return name, (FIXTURES / name).read_bytes()


def _rounds(upload):
    return [r for c in upload.conversations for r in c.trace.rounds]


def test_a_completion_log_is_one_call_with_the_tool_list_its_kwargs_hold():
    # Read as a LiteLLM pair before, the call's 'kwargs' (its tools) were left beside the messages: "no tools".
    upload = _read(_fixture("openhands-completions.jsonl"))
    assert upload.formats["openhands-completions"][1] == (
        "'messages' and 'response' beside 'kwargs' and 'cost' (an OpenHands completion log)")
    first = _rounds(upload)[0]
    assert [t.name for t in first.request.tools] == TOOLS
    assert not {"args", "kwargs", "cost", "timestamp"} & set(first.request.raw)
    assert [(c.name, c.id) for c in first.tool_calls] == [("execute_bash", "toolu_01")]
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (5920, 128)
    assert first.response.raw["model"] == "meta-llama/llama-4-maverick"
    assert not tool_list_never_logged(first)


def test_completion_files_uploaded_together_chain_into_one_conversation_in_time_order():
    # OpenHands writes one file per call, '<model>-<time>.json': uploaded in any order, they are one run.
    calls = lines("openhands-completions.jsonl")
    files = [(f"openai__openrouter-llama-4-maverick-{c['timestamp']}.json", json.dumps(c, indent=2).encode())
             for c in reversed(calls)]
    upload = _read(*files)
    assert upload.summary() == "3 documents: 3 rounds in 1 conversation; 0 documents skipped"
    rounds = _rounds(upload)
    assert [len(r.request.messages) for r in rounds] == [2, 4, 6]
    # Round 1's call is answered by the tool result round 2 sent.
    result = rounds[1].request.raw["messages"][-1]
    assert (result["role"], result["tool_call_id"]) == ("tool", "toolu_01")
    assert result["content"][0]["text"].startswith("total 300")


def _in_text(call: dict) -> dict:
    """`call` as OpenHands logs a call made without native function calling: the text sent and received as
    'messages' and 'response', its function-calling view as 'fncall_messages' and 'fncall_response', the tools
    popped from kwargs (openhands/llm/llm.py)."""
    text = copy.deepcopy(call["response"])
    message = text["choices"][0]["message"]
    command = json.loads(message.pop("tool_calls")[0]["function"]["arguments"])["command"]
    message["content"] += f"\n\n<function=execute_bash>\n<parameter=command>{command}</parameter>\n</function>"
    sent = copy.deepcopy(call["messages"])
    sent[0]["content"][0]["text"] += "\n\nYou have access to the following functions: ..."
    return {"messages": sent, "response": text, "args": [], "kwargs": {"stop": ["</function"]},
            "timestamp": call["timestamp"], "cost": 0.0,
            "fncall_messages": call["messages"], "fncall_response": call["response"]}


def test_a_call_made_with_function_calling_in_text_shows_openhands_calls_and_says_the_tools_went_as_text():
    line = _in_text(lines("openhands-completions.jsonl")[0])
    (round_,) = _rounds(_read(("completion.jsonl", json.dumps(line).encode())))
    assert [c.name for c in round_.tool_calls] == ["execute_bash"]
    assert "tool calls" in round_.extra["derived"]
    assert "OpenHands called this model without native function calling" in round_.provenance.note
    assert tool_list_never_logged(round_)
    assert parts_not_logged(round_) == ("tools",)


def test_an_evaluation_output_line_is_a_round_per_model_response_with_the_runs_tools_and_results():
    upload = _read(_fixture("openhands-output.jsonl"))
    (conversation,) = upload.conversations
    assert conversation.id == "instance ponylang__ponyc-4595"
    rounds = conversation.trace.rounds
    assert [[c.name for c in r.tool_calls] for r in rounds] == [["execute_bash"]] * 4 + [["think"], ["finish"]]
    first, second = rounds[0], rounds[1]
    assert [t.name for t in first.request.tools] == TOOLS
    assert first.request.model == "openai/openrouter-llama-4-maverick"
    assert (first.response.usage.input_tokens, first.response.usage.output_tokens) == (5920, 128)
    result = second.request.raw["messages"][-1]
    assert (result["role"], result["tool_call_id"], result["name"]) == ("tool", "toolu_01", "execute_bash")
    assert result["content"].startswith("total 300")
    assert "Rebuilt from an OpenHands trajectory" in first.provenance.note
    assert parts_not_logged(first) == ()


def test_a_saved_trajectory_reads_as_the_same_rounds_as_the_output_line_it_came_from():
    upload = _read(_fixture("openhands-trajectory.json"))
    assert [c.id for c in upload.conversations] == ["OpenHands trajectory"]
    saved = _rounds(upload)
    output = _rounds(_read(_fixture("openhands-output.jsonl")))
    assert len(saved) == 6
    assert [r.response.raw["id"] for r in saved] == [r.response.raw["id"] for r in output]
    assert [r.request.raw["messages"] for r in saved] == [r.request.raw["messages"] for r in output]


def test_the_servers_trajectory_answer_reads_as_the_saved_trajectory_does():
    events = json.loads((FIXTURES / "openhands-trajectory.json").read_text())
    served = _rounds(_read(("trajectory.json", json.dumps({"trajectory": events}).encode())))
    saved = _rounds(_read(_fixture("openhands-trajectory.json")))
    assert len(served) == 6
    assert [r.request.raw for r in served] == [r.request.raw for r in saved]


def test_a_condensed_run_says_its_rebuilt_requests_still_hold_what_the_condenser_left_out():
    output = lines("openhands-output.jsonl")[0]
    output["history"].insert(8, {"id": 900, "timestamp": "2025-04-30T16:33:00", "source": "agent", "message": "",
                                 "action": "condensation", "args": {"forgotten_event_ids": [5, 6], "summary": None}})
    upload = _read(("output.jsonl", json.dumps(output).encode()))
    assert len(_rounds(upload)) == 6
    (note,) = upload.notes
    assert note.message.startswith("the run's condenser shortened what OpenHands sent (1 condensation event)")


def test_one_response_with_two_calls_is_one_round():
    # OpenHands writes an action per call, each with the whole response: the second is no second model call.
    output = lines("openhands-output.jsonl")[0]
    history = output["history"]
    action = next(e for e in history if e.get("action") == "run")
    response = action["tool_call_metadata"]["model_response"]
    second = {**response["choices"][0]["message"]["tool_calls"][0], "id": "toolu_01b"}
    response["choices"][0]["message"]["tool_calls"].append(second)
    history.insert(history.index(action) + 1, copy.deepcopy({**action, "id": 1000}))
    rounds = _rounds(_read(("output.jsonl", json.dumps(output).encode())))
    assert len(rounds) == 6
    assert [c.id for c in rounds[0].tool_calls] == ["toolu_01", "toolu_01b"]


def test_a_trajectory_without_model_responses_says_what_it_is_and_which_setting_writes_the_calls():
    upload = _read(_fixture("openhands-resolver-output.jsonl"))
    assert upload.summary() == "1 line: 0 rounds in 0 conversations; 1 line not a model call; 0 lines skipped"
    (note,) = upload.notes
    assert "an OpenHands trajectory of 8 events, none of which keeps the model response" in note.message
    assert "its completion logs when run with log_completions=True" in note.message


def test_each_reader_claims_its_own_lines_and_no_others():
    assert_detects_only_its_own(OpenHandsCompletionFormat)
    assert_detects_only_its_own(OpenHandsTrajectoryFormat)


def test_a_damaged_completion_log_is_a_problem_of_its_line():
    assert assert_only_line_problems(OpenHandsCompletionFormat, lines("openhands-completions.jsonl")[:1], stride=1)
    line = _in_text(lines("openhands-completions.jsonl")[0])
    assert assert_only_line_problems(OpenHandsCompletionFormat, [line])


def test_a_damaged_event_is_a_problem_of_the_trajectory_never_a_crash():
    events = json.loads((FIXTURES / "openhands-trajectory.json").read_text())
    assert assert_only_line_problems(OpenHandsTrajectoryFormat, events[4:8])
    output = lines("openhands-output.jsonl")[0]
    assert assert_only_line_problems(OpenHandsTrajectoryFormat, [{**output, "history": output["history"][3:7]}])


def test_the_finish_call_is_the_agents_account_to_the_person_not_a_value_the_model_filled():
    # finish's task_completed ("partial") is the model's own verdict on its work: nobody was meant to give it.
    from lib.checks import is_write_tool, run_checks
    for name in ("openhands-output.jsonl", "openhands-trajectory.json", "openhands-completions.jsonl"):
        (conversation,) = _read(_fixture(name)).conversations
        trace = conversation.trace
        assert not [f for f in run_checks(trace) if f.code == "model-filled-value"], name
        assert not any(is_write_tool(trace, tool) for tool in ("finish", "think", "task_tracker")), name
        assert is_write_tool(trace, "edit_file"), name


def test_each_rounds_observations_are_what_openhands_ran_after_it():
    # The trajectory records every call's observation: the explorer said 'not recorded' of every round but the last.
    for name in ("openhands-output.jsonl", "openhands-trajectory.json"):
        rounds = _read(_fixture(name)).conversations[0].trace.rounds
        [ran] = rounds[0].executions
        assert (ran.tool_call_id, ran.name, ran.note) == ("toolu_01", "execute_bash", None), name
        assert ran.arguments == {"command": "ls -l /workspace/ponylang__ponyc__0.1"}
        assert ran.output.startswith("total 300")
        assert [[e.name for e in r.executions] for r in rounds] == [["execute_bash"]] * 4 + [["think"], []], name


def test_a_call_answered_by_an_error_observation_is_a_failed_execution():
    line = json.loads((FIXTURES / "openhands-output.jsonl").read_text(encoding="utf-8"))
    observation = next(e for e in line["history"] if e.get("observation") == "run")
    observation.update(observation="error", content="ERROR: Invalid `command` parameter")
    rounds = _read(("output.jsonl", json.dumps(line).encode())).conversations[0].trace.rounds
    assert [(e.name, e.ok) for e in rounds[0].executions] == [("execute_bash", False)]
    assert [(e.name, e.ok) for e in rounds[1].executions] == [("execute_bash", True)]


def test_each_round_is_timed_as_the_runs_metrics_timed_its_response():
    # The output line's metrics keep each call's latency by response id: the rounds table had no latency column.
    rounds = _read(_fixture("openhands-output.jsonl")).conversations[0].trace.rounds
    assert [round(r.latency_ms) for r in rounds] == [3057, 2198, 2045, 2978, 2770, 4374]


def test_a_rebuilt_round_says_the_tool_list_may_have_gone_as_text_which_the_trajectory_cannot_show():
    # The fixture's run called Llama 4 with function calling in text: its tools went inside the prompt, yet the
    # round showed them as the request's tool list with no word that it may not have been sent so.
    first = _rounds(_read(_fixture("openhands-output.jsonl")))[0]
    assert ("the tools went to the model as text inside the prompt, not as the tool list shown here, which is counted "
            "in their place") in first.provenance.note


def test_the_models_own_flags_on_openhands_tools_are_not_values_it_filled():
    # execute_bash's is_input (whether the command goes to the running process) and the security_risk OpenHands asks
    # the model to rate its own call with are the model's to choose: model-filled-value marked the first of each.
    from lib.checks import run_checks
    line = json.loads((FIXTURES / "openhands-output.jsonl").read_text(encoding="utf-8"))
    for event in line["history"]:
        response = (event.get("tool_call_metadata") or {}).get("model_response")
        for call in response["choices"][0]["message"]["tool_calls"] if event.get("action") == "run" else ():
            arguments = json.loads(call["function"]["arguments"])
            call["function"]["arguments"] = json.dumps({**arguments, "is_input": "false", "security_risk": "LOW"})
    trace = _read(("output.jsonl", json.dumps(line).encode())).conversations[0].trace
    assert not [f.message for f in run_checks(trace) if f.code == "model-filled-value"]
