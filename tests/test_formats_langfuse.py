"""Langfuse trace exports (`{"trace", "observations"}`): each GENERATION a round, read by the converter of the shape
its framework wrote, in one conversation per trace. Fixtures: langfuse/langfuse's framework traces
(tests/fixtures/containers/README.md)."""

import json
from pathlib import Path

from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures" / "containers"


def upload(name, data=None):
    return read_upload([(name, (FIXTURES / name).read_bytes() if data is None else data)])


def rounds(name):
    (conversation,) = upload(name).conversations
    return conversation.trace.rounds


def usage(round_):
    u = round_.response.usage
    return u.input_tokens, u.output_tokens, u.cache_read_tokens


def answered(round_, later):
    """Each call of `round_` with the result `later`'s request sent back for it."""
    results = {r.call_id: r.content for m in later.request.messages for r in m.tool_results}
    return [(c.name, c.arguments, results.get(c.id)) for c in round_.tool_calls]


def test_an_openai_agents_trace_reads_its_responses_calls_paired_with_their_results():
    first, second = rounds("langfuse-openai-agents.json")
    assert answered(first, second) == [("get_weather", {"city": "Tokyo"}, "The weather in Tokyo is sunny.")]
    assert first.request.messages[0].text == "You are a helpful agent."  # the instructions the response repeats
    assert [t.name for t in first.request.tools] == ["get_weather"]
    assert second.response.message.text.startswith("The weather in Tokyo is currently sunny.")
    assert [(r.response.model, usage(r), r.latency_ms) for r in (first, second)] == [
        ("gpt-4.1-2025-04-14", (55, 15, 0), 1036.0), ("gpt-4.1-2025-04-14", (85, 29, 0), 1150.0)]
    # The TOOL observation is what the program ran for the call.
    assert [(e.tool_call_id, e.output) for e in first.executions] == [
        ("call_Kud0j0DxWSmLzv9W5m6qVqXn", "The weather in Tokyo is sunny.")]


def test_pydantic_ai_genai_messages_keep_each_tool_result_it_wrote_as_result():
    # pydantic-ai writes a tool_call_response's answer under `result`, not the semconv's `response`: it read as null.
    writer, critic = upload("langfuse-pydantic-ai-tools.json").conversations
    (first, second, third), (evaluator,) = writer.trace.rounds, critic.trace.rounds
    assert answered(first, second) == [
        ("get_pun_suggestion", {"topic": "programming"},
         "Pun idea: Play on words related to 'programming' - think about homophones or double meanings"),
        ("get_dad_joke_suggestion", {"topic": "programming"},
         "Dad joke idea: Use a classic setup-punchline format about 'programming' with a groan-worthy twist"),
        ("get_one_liner_suggestion", {"topic": "programming"},
         "One-liner idea: Make a quick, witty observation about 'programming' in a single sentence")]
    assert {e.tool_call_id for e in first.executions} == {c.id for c in first.tool_calls}
    assert [t.name for t in first.request.tools][:3] == ["get_pun_suggestion", "get_dad_joke_suggestion",
                                                         "get_one_liner_suggestion"]
    assert [(r.response.finish_reason, usage(r)) for r in (first, second, third, evaluator)] == [
        ("tool_calls", (265, 73, 0)), ("stop", (417, 53, 0)), ("stop", (502, 14, 0)), ("tool_calls", (131, 69, 0))]
    assert [c.name for c in evaluator.tool_calls] == ["final_result"]


def test_two_agents_of_one_trace_are_two_conversations_not_one_rewritten_history():
    # The joke critic (its own system prompt, under the trace's `evaluator_agent run` span) was round 4 of the writer's
    # conversation: "history rewritten, 6 messages dropped", its prompt shown as a diff of the writer's.
    writer, critic = upload("langfuse-pydantic-ai-tools.json").conversations
    assert (writer.id, critic.id) == ("joke-generator", "joke-generator · evaluator_agent run")
    assert critic.trace.rounds[0].request.messages[0].text == (
        "You are a joke critic. Evaluate if the joke is funny and well-crafted.")
    from lib.checks import run_checks
    assert not [f for f in run_checks(writer.trace) if f.code == "history-rewritten"]


def test_a_google_adk_trace_reads_the_sdks_snake_case_request_and_response():
    first, second = rounds("langfuse-google-adk.json")
    assert first.request.messages[0].text.startswith("Always greet using the say_hello tool.")
    assert answered(first, second) == [("say_hello", {}, '{"greeting": "Hello Langfuse 👋"}')]
    assert second.response.message.text == "Hello Langfuse 👋!\n"
    assert [(r.response.model, usage(r)) for r in (first, second)] == [
        ("gemini-2.0-flash", (28, 3, 0)), ("gemini-2.0-flash", (39, 6, 0))]


def test_langchains_tool_calls_and_tool_definitions_are_read_where_langfuses_handler_put_them():
    first, second = rounds("langfuse-langgraph.json")
    assert [t.name for t in first.request.tools] == ["Web-Search"]
    assert [m.role for m in first.request.messages] == ["user", "user"]  # the tool definition is no message
    assert answered(first, second) == [
        ("Web-Search", {"query": "example"},
         '[{"url": "https://example.com", "title": "Example Result", "q": "example"}]')]
    assert (first.response.model, usage(first), usage(second)) == ("gpt-4o-2024-08-06", (60, 15, 0), (108, 51, 0))


def _export(**generation):
    observation = {"id": "obs-1", "type": "GENERATION", "name": "ai.generateText.doGenerate", "model": "gpt-5",
                   "startTime": "2025-11-17T14:55:18.787Z", "endTime": "2025-11-17T14:55:21.830Z",
                   "usageDetails": {"input": 62, "output": 85, "total": 147}, **generation}
    return {"trace": {"id": "df41e597", "name": "ai.generateText"}, "observations": [observation]}


def test_a_generation_in_a_shape_no_converter_reads_is_a_round_without_messages_and_a_note_names_it():
    # The Vercel AI SDK's prompt and tool-call list, as langfuse's vercel-aisdk trace holds them.
    export = _export(input='[{"role":"user","content":[{"type":"text","text":"What is the weather?"}]}]',
                     output='[{"toolCallId":"call_1","toolName":"getWeather","input":"{}"}]')
    result = upload("vercel.json", json.dumps(export).encode())
    assert result.problems == ()
    (round_,) = result.conversations[0].trace.rounds
    assert (round_.request.messages, round_.response.model, usage(round_), round_.latency_ms) == (
        (), "gpt-5", (62, 85, 0), 3043.0)
    (note,) = result.notes
    assert "obs-1 (ai.generateText.doGenerate)" in note.message and "a shape Roundtrip does not read" in note.message


def test_cached_tokens_langfuse_counts_apart_are_part_of_the_input():
    export = _export(input=[{"role": "user", "content": "hi"}], output={"role": "assistant", "content": "hello"},
                     usageDetails={"input": 100, "input_cache_read": 400, "output": 5, "total": 505})
    (round_,) = upload("cached.json", json.dumps(export).encode()).conversations[0].trace.rounds
    assert usage(round_) == (500, 5, 400)


def test_an_array_and_a_jsonl_file_of_exports_are_each_a_conversation_per_trace():
    one = json.loads((FIXTURES / "langfuse-openai-agents.json").read_bytes())
    other = json.loads((FIXTURES / "langfuse-google-adk.json").read_bytes())
    jsonl = f"{json.dumps(one)}\n{json.dumps(other)}\n"
    for name, data in (("traces.json", json.dumps([one, other])), ("traces.jsonl", jsonl)):
        result = upload(name, data.encode())
        assert result.problems == ()
        assert {c.id: len(c.trace.rounds) for c in result.conversations} == {"Agent workflow": 2,
                                                                             "invocation [hello_app]": 2}


def test_a_broken_generation_is_named_and_the_others_still_load():
    export = json.loads((FIXTURES / "langfuse-openai-agents.json").read_bytes())
    broken = next(o for o in export["observations"] if o["id"] == "90d94774e8e3724d")
    broken["input"] = [{"type": "function_call", "name": "get_weather", "arguments": "{}"}]  # no call_id
    result = upload("broken.json", json.dumps(export).encode())
    assert len(result.conversations[0].trace.rounds) == 1
    (problem,) = result.problems
    assert "90d94774e8e3724d (response)" in problem.message and "call_id" in problem.message


def test_the_answer_pydantic_ai_gives_through_its_output_tool_is_not_called_a_value_the_model_made_up():
    # The critic rates the joke through `final_result`: "quality good" is its answer, not a fact it should have asked
    # the person for.
    from lib.checks import run_checks
    _, critic = upload("langfuse-pydantic-ai-tools.json").conversations
    assert [c.name for c in critic.trace.rounds[0].tool_calls] == ["final_result"]
    assert not [f for f in run_checks(critic.trace) if f.code == "model-filled-value"]


def test_a_generation_whose_json_text_nests_past_what_the_app_can_walk_is_kept_as_text_not_read():
    # A recorded exchange's body nested 1,000 deep broke four views; a Langfuse input given as JSON text is held the
    # same way: it stays text, so the generation is named as unread rather than carrying the nesting into the trace.
    export = json.loads((FIXTURES / "langfuse-langgraph.json").read_bytes())
    generation = next(o for o in export["observations"] if o.get("type") == "GENERATION")
    generation["input"] = '[{"role": "user", "content": ' + "[" * 1000 + "]" * 1000 + "}]"
    result = upload("deep.json", json.dumps(export).encode())
    assert any("in a shape Roundtrip does not read" in n.message for n in result.notes)
    for conversation in result.conversations:
        for round_ in conversation.trace.rounds:
            json.dumps(round_.request.raw)  # nothing in the trace is nested past what Python can walk
