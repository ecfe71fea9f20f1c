"""Issue 16: recordings of real provider traffic (cassettes, spans, trajectories) rebuilt the way they happened.

Each test reads a fixture taken from a public recording (tests/fixtures/README.md says where) and
asserts what a user sees: the conversations, the rounds, the findings.
"""

from pathlib import Path

import orjson
import pytest

from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures"


def _read(*names: str, forced: str | None = None):
    return read_upload([(name, (FIXTURES / name).read_bytes()) for name in names], forced)


def test_a_responses_run_that_resends_its_history_is_one_conversation_with_the_history_marked_resent():
    # pydantic-ai sends no previous_response_id: round 2's input carries round 1's items again.
    upload = _read("openai-responses-resent.jsonl")
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert [m.role for m in second.request.messages] == ["user", "assistant", "tool"]
    assert second.resent_prefix == 1
    assert second.request.messages[2].tool_results[0].content == "Potato City"


def test_a_span_without_attributes_is_no_damage():
    # The protobuf JSON mapping drops empty fields: a parent span often has no 'attributes' at all.
    upload = _read("otlp-span-per-call.jsonl")
    assert upload.problems == ()
    assert upload.summary().endswith("0 lines skipped")


@pytest.mark.parametrize("fixture, first_trace", [
    ("otlp-span-per-call.jsonl", "ceff934c4064b1e67267f62c3ce8b370"),
    ("otlp-span-per-call-openinference.jsonl", "22a238409d331b243e7514285f26de46"),
])
def test_model_calls_each_in_its_own_trace_are_chained_by_content(fixture, first_trace):
    # Written by the real opentelemetry-instrumentation-openai-v2 and openinference-instrumentation-openai
    # (tests/fixtures/tools/record_otlp_spans.py): two chat spans, each the root of a trace of its own, and
    # the tool's own attribute-less span.
    upload = _read(fixture)
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert conversation.id == first_trace
    assert conversation.trace.model == "gpt-4.1-mini"
    assert [r.response.model for r in (first, second)] == ["gpt-4.1-mini-2025-04-14"] * 2
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_IgqlTCby7lsxDXPIUPgkmAiq", "get_temperature", {"city": "Tokyo"})]
    assert [m.role for m in second.request.messages] == ["system", "user", "assistant", "tool"]
    assert second.resent_prefix == 2
    [result] = second.request.messages[3].tool_results
    assert (result.call_id, result.content) == ("call_IgqlTCby7lsxDXPIUPgkmAiq", "20.0")
    assert second.response.message.text == "The temperature in Tokyo is currently 20.0 degrees Celsius."
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in (first, second)] == [
        (50, 14), (75, 14)]


def _kept_without_messages(upload) -> list:
    """The two recorded calls, each its own conversation of one round with no message, their model, tokens and
    finish kept; as (conversation, round) pairs."""
    assert [len(c.trace.rounds) for c in upload.conversations] == [1, 1]
    pairs = [(c, round_) for c in upload.conversations for round_ in c.trace.rounds]
    rounds = [round_ for _, round_ in pairs]
    assert [(r.request.model, r.response.model, r.response.finish_reason) for r in rounds] == [
        ("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", "tool_calls"), ("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", "stop")]
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in rounds] == [(50, 14), (75, 14)]
    assert all(r.request.messages == () and r.response.message.text == "" for r in rounds)
    return pairs


def test_spans_recorded_without_content_capture_say_so_and_keep_model_tokens_and_finish():
    # Written by the real opentelemetry-instrumentation-openai-v2 left at its default
    # (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT unset): each chat span carries the model, the
    # token counts and the finish reason, and no message.
    upload = _read("otlp-span-per-call-no-content.jsonl")
    assert upload.problems == ()
    [note] = upload.notes
    assert str(note).startswith("line 1: 2 model-call spans carry no messages: the instrumentation did not capture "
                                "content")
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in str(note)
    for conversation, round_ in _kept_without_messages(upload):
        provenance = conversation.trace.round_provenance(round_)
        assert "did not capture" in provenance.note and provenance.omitted == ("messages",)


def test_openinference_spans_with_hidden_messages_say_so_and_keep_model_tokens_and_finish():
    # Written by the real openinference-instrumentation-openai with OPENINFERENCE_HIDE_INPUTS and
    # OPENINFERENCE_HIDE_OUTPUTS set: input.value and output.value read "__REDACTED__", and the spans carry no
    # llm.input_messages, llm.output_messages or llm.tools; the model, the token counts and the finish reason stay.
    upload = _read("otlp-span-per-call-openinference-hidden.jsonl")
    assert upload.problems == ()
    [note] = upload.notes
    assert str(note).startswith("line 1: 2 model-call spans carry no messages: OpenInference hid them, as")
    assert "OPENINFERENCE_HIDE_INPUTS" in str(note) and "OPENINFERENCE_HIDE_OUTPUTS" in str(note)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" not in str(note)
    for conversation, round_ in _kept_without_messages(upload):
        assert all("__REDACTED__" not in m.text for m in (*round_.request.messages, round_.response.message))
        provenance = conversation.trace.round_provenance(round_)
        assert "OPENINFERENCE_HIDE_INPUTS" in provenance.note and provenance.omitted == ("messages",)


def test_openinference_spans_that_hid_only_the_answer_keep_the_request_and_name_the_output_variable():
    # The recorded spans with their messages, and each span's answer removed as OPENINFERENCE_HIDE_OUTPUTS
    # removes it: output.value "__REDACTED__", no llm.output_messages.
    document = orjson.loads((FIXTURES / "otlp-span-per-call-openinference.jsonl").read_bytes())
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attributes = [a for a in span.get("attributes", ()) if not a["key"].startswith("llm.output_messages")]
                for attribute in attributes:
                    if attribute["key"] == "output.value":
                        attribute["value"] = {"stringValue": "__REDACTED__"}
                span["attributes"] = attributes
    upload = read_upload([("hidden-answers.jsonl", orjson.dumps(document))])
    [note] = upload.notes
    assert str(note).startswith("line 1: 2 model-call spans carry no answer: OpenInference hid it, as")
    assert "OPENINFERENCE_HIDE_OUTPUTS" in str(note) and "OPENINFERENCE_HIDE_INPUTS" not in str(note)
    rounds = [round_ for c in upload.conversations for round_ in c.trace.rounds]
    assert [len(r.request.messages) for r in rounds] == [2, 4]
    assert [(r.response.finish_reason, r.response.usage.output_tokens) for r in rounds] == [("tool_calls", 14), ("stop", 14)]


def test_a_span_that_kept_its_messages_has_no_note():
    assert _read("otlp-span-per-call.jsonl").notes == ()
    assert _read("otlp-span-per-call-openinference.jsonl").notes == ()


def test_span_per_line_calls_in_their_own_traces_are_chained_by_content_too():
    document = (FIXTURES / "otlp-span-per-call.jsonl").read_bytes()
    spans = [span for resource in orjson.loads(document)["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"]]
    upload = read_upload([("spans.jsonl", b"\n".join(orjson.dumps(s) for s in spans))])
    assert upload.problems == ()
    assert [len(c.trace.rounds) for c in upload.conversations] == [2]


def test_a_streamed_conversation_has_the_model_every_chunk_names():
    for name, model in (("openai-chat-stream.jsonl", "gpt-4o"), ("anthropic-stream.jsonl", "claude")):
        upload = _read(name)
        assert all(c.trace.model and c.trace.model.startswith(model) for c in upload.conversations), name


def test_a_provider_error_keeps_its_status_and_shows_the_rejected_generation():
    # Groq's recorded 400 `tool_use_failed`; the same line without its status, as a log that did not keep it.
    recorded = (FIXTURES / "openai-compatible-tool-use-failed.jsonl").read_bytes()
    rejected = orjson.loads(recorded.splitlines()[0])
    del rejected["status_code"]
    said = []
    for log in (recorded, orjson.dumps(rejected)):
        upload = read_upload([("groq.jsonl", log)])
        said += [f.message for f in _findings(upload, "provider-error")]
    assert len(said) == 2
    assert "with HTTP 400" in said[0]
    assert "status not recorded" in said[1]
    assert all("no connection" not in s for s in said)
    assert all('"foo": "bar"' in s and "get_something_by_name" in s for s in said)


def _findings(upload, code):
    from lib.checks import run_checks
    return [f for c in upload.conversations for f in run_checks(c.trace) if f.code == code]


def test_a_trajectory_cut_on_a_tool_turn_is_detected_as_a_transcript():
    upload = _read("tau-bench-airline-cut.jsonl")
    assert list(upload.formats) == ["openai-finetune"]
    assert "ending on a tool turn" in upload.formats["openai-finetune"][1]
    assert upload.summary() == "1 line: 6 rounds in 1 conversation; 0 lines skipped"


def test_a_call_id_reused_for_another_call_is_flagged():
    # tau-bench's gpt-4o airline trajectory: search_onestop_flight reuses search_direct_flight's call id.
    [finding] = _findings(_read("tau-bench-airline-cut.jsonl"), "reused-call-id")
    assert (finding.severity, finding.round, finding.side) == ("warning", 6, "response")
    assert "call_HGn16KZh9oNCruxsMJ4gYXan" in finding.message and "search_direct_flight" in finding.message
    assert "round 4" in finding.message


def test_an_identity_the_user_typed_is_not_called_invented():
    [finding] = _findings(_read("tau-bench-airline-cut.jsonl"), "model-filled-identity")
    assert finding.severity == "info"
    assert "the user gave it earlier" in finding.message


def test_an_empty_call_id_is_not_shown_as_the_tool_name():
    upload = _read("openai-compatible-empty-call-id.jsonl")
    [conversation] = upload.conversations
    [call] = conversation.trace.rounds[0].tool_calls
    assert (call.id, call.name) == ("", "get_current_time")


def test_a_call_the_provider_gave_an_empty_id_answered_under_the_programs_own_id_is_no_finding():
    # Gemini's OpenAI-compatible endpoint named the call "": there was no id to keep. pydantic-ai gave it its own,
    # pyd_ai_cee885…, before the request that resent it, and paired the result to it: what a client must do. The
    # warning said "the program rewrote the call id … keep the provider's id", advice that cannot be followed.
    upload = _read("openai-compatible-empty-call-id.jsonl")
    resent = upload.conversations[0].trace.rounds[1].request.messages
    assert resent[1].tool_calls[0].id == resent[2].tool_results[0].call_id == "pyd_ai_cee885c699414386a7e14b7ec43cadbc"
    assert _findings(upload, "missing-tool-result") == [] and _findings(upload, "history-rewritten") == []


def test_a_turn_sent_back_as_two_assistant_messages_is_not_a_rewritten_history():
    # simonw/llm's recording: round 2 sends `{"content": ""}` then the multiply call as a second assistant message.
    upload = _read("containers/llm-openai-split-turn.yaml")
    assert _findings(upload, "history-rewritten") == [] and _findings(upload, "missing-tool-result") == []


def test_a_turn_sent_back_with_a_space_for_the_text_the_model_did_not_write_is_not_a_rewritten_history():
    # simonw/llm-anthropic's recording: claude-haiku-4-5 answered with two calls and no text; llm sends the turn back
    # with a text block of one space, since Anthropic refuses an empty one.
    upload = _read("containers/llm-anthropic-space-text.yaml")
    assert upload.conversations[0].trace.rounds[1].request.messages[1].text == " "
    assert _findings(upload, "history-rewritten") == []


def test_a_call_renamed_in_a_turn_sent_back_as_two_messages_is_named_as_renamed_not_dropped():
    # The answer named its call `llm_version:0`; llm sent it back, after an empty assistant message, as `0`.
    [finding] = _findings(_read("containers/llm-openrouter-renamed-call.yaml"), "missing-tool-result")
    assert (finding.round, finding.side, finding.path) == (2, "request", "messages[2].tool_calls[0]")
    assert "dropped" not in finding.message
    assert "llm_version:0" in finding.message and "under another id, 0," in finding.message
    assert _findings(_read("containers/llm-openrouter-renamed-call.yaml"), "history-rewritten") == []  # said once


def test_a_file_nothing_detects_says_which_formats_came_closest_and_why():
    # A tau-bench episode cut before the agent's first answer: the user's turn only.
    line = b'{"messages": [{"role": "system", "content": "# Airline Agent Policy"}, {"role": "user", "content": "Hi!"}]}\n'
    upload = read_upload([("cut.jsonl", line * 2)])
    said = [p.message for p in upload.problems]
    assert [p.line for p in upload.problems] == [1, 2]  # line 1 once: the reason stands in place of "matches none"
    assert said[0].startswith("no line of the file matches a known log format")
    closest = next(m for m in said if "closest" in m)
    assert "OpenAI fine-tuning chat: has 'messages', but no assistant turn" in closest
    assert "'model', 'tools' or 'functions'" in closest


def test_a_forced_format_that_reads_nothing_says_which_rule_failed():
    line = b'{"traceId": "5b8aa5a2d2c872e8321cf37308d69df2", "name": "chat"}\n'
    upload = read_upload([("spans.jsonl", line)], forced="openai-responses")
    assert [p.message for p in upload.problems] == [
        "not read as OpenAI Responses API: none of its rules matches (it reads 'object': 'response', a request with "
        "'input' and Responses keys, or a 'response.*' stream event)"]
    upload = read_upload([("spans.jsonl", b'{"attributes": {}}\n')], forced="spans")
    assert any("'attributes', but no trace id" in p.message for p in upload.problems)


def _without_instructions_in_round_2(name: str) -> bytes:
    lines = [orjson.loads(line) for line in (FIXTURES / name).read_bytes().splitlines()]
    del lines[1]["request"]["instructions"]
    return b"\n".join(orjson.dumps(line) for line in lines)


def test_a_round_that_sends_one_item_shows_the_rest_as_held_by_the_provider():
    [conversation] = _read("openai-responses-conversation.jsonl").conversations
    second = conversation.trace.rounds[1].request
    # Sent: the instructions and one function_call_output; held: the user turn and the call.
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "tool"]
    assert second.held_by_provider == 2
    assert conversation.trace.rounds[0].request.held_by_provider == 0


def test_instructions_not_sent_again_under_a_held_history_are_the_finding_not_a_rewritten_history():
    from lib.checks import run_checks
    upload = read_upload([("run.jsonl", _without_instructions_in_round_2("openai-responses-conversation.jsonl"))])
    found = {f.code: f for f in run_checks(upload.conversations[0].trace)}
    assert "history-rewritten" not in found
    finding = found["instructions-not-resent"]
    assert (finding.severity, finding.round, finding.side) == ("warning", 2, "request")
    assert "does not carry them over" in finding.message


def test_the_explorer_says_what_was_sent_and_labels_the_held_history_reconstructed(app):
    at = app.run()
    name = "openai-responses-conversation.jsonl"
    at.file_uploader(key="sidebar.upload").upload(name, (FIXTURES / name).read_bytes())
    at.run()
    at.number_input(key="explorer.round").set_value(2)
    at.run()
    assert not at.exception
    [heading] = [s.value for s in at.subheader if s.value.startswith("Round 2:")]
    assert heading == ("Round 2: the program sends 2 messages; 2 earlier messages held by the provider "
                       "(previous_response_id, previous_interaction_id or a conversation) are shown reconstructed, not sent")


def test_a_streamed_run_recorded_with_its_requests_rebuilds_like_a_non_streamed_one():
    upload = _read("openai-chat-stream-with-request.jsonl")
    assert list(upload.formats) == ["recorded-stream"]
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    [call] = first.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", {"country": "UK"})
    assert second.request.messages[2].tool_results[0].content == "London"
    assert second.response.message.text == "The capital of the UK is London."
    assert (second.response.usage.input_tokens, second.response.usage.output_tokens) == (78, 9)


def test_an_anthropic_stream_recorded_with_its_request_is_one_call():
    events = [orjson.loads(line) for line in (FIXTURES / "anthropic-stream.jsonl").read_bytes().splitlines()]
    first = events[: next(i for i, e in enumerate(events) if e.get("type") == "message_stop") + 1]
    body = "".join(f"event: {e['type']}\ndata: {orjson.dumps(e).decode()}\n\n" for e in first)
    request = {"model": "claude-sonnet-4-5", "max_tokens": 1024,
               "messages": [{"role": "user", "content": "Book me the cheapest train from Oslo to Bergen tomorrow."}]}
    upload = read_upload([("proxy.jsonl", orjson.dumps({"request": request, "response": body}))])
    assert upload.problems == ()
    [conversation] = upload.conversations
    [round_] = conversation.trace.rounds
    assert conversation.trace.dialect == "anthropic-messages"
    assert round_.request.messages[0].text.startswith("Book me the cheapest train")
    assert round_.response.model.startswith("claude-sonnet-4-5")


def test_empty_lists_the_protobuf_mapping_drops_are_no_damage_either():
    document = orjson.loads((FIXTURES / "otlp-span-per-call.jsonl").read_bytes())
    document["resourceSpans"].append({"resource": {}})  # a resource that sent no spans has no 'scopeSpans'
    document["resourceSpans"][0]["scopeSpans"].append({"scope": {"name": "idle"}})  # nor an idle scope 'spans'
    upload = read_upload([("otlp.jsonl", orjson.dumps(document))])
    assert upload.problems == ()
    assert upload.rounds == 2


def test_lib_check_reads_an_otlp_document_with_an_attribute_less_span_without_calling_it_damage():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "lib", "check", str(FIXTURES / "otlp-span-per-call.jsonl")],
                          cwd=FIXTURES.parent.parent, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unreadable" not in done.stdout and "could not be read" not in done.stdout


def test_a_line_with_input_but_no_responses_request_keys_is_named_as_a_near_miss_of_the_responses_api():
    upload = read_upload([("input.jsonl", b'{"input": "hello"}\n')])
    closest = next(p.message for p in upload.problems if "closest" in p.message)
    assert "OpenAI Responses API: has 'input', but no 'model'" in closest


def test_an_error_without_a_status_is_never_called_a_connection_failure():
    from lib.failures import failure_heading
    from lib.model import ProviderError
    said = failure_heading(ProviderError(status=None, message="upstream said no", body={"error": {"message": "no"}}))
    assert "connection" not in said and "no HTTP status was recorded" in said


def test_a_hermes_agent_trajectory_names_its_model_and_keeps_each_model_call_a_round():
    # hermes-agent's trajectory_samples.jsonl: the model in a top-level key; in line 2 the run kept no
    # tool results, so three calls each ended a model call of their own and stay unanswered.
    upload = _read("sharegpt-hermes-agent.jsonl")
    assert {c.trace.model for c in upload.conversations} == {"kimi-k2.6"}
    first, second = upload.conversations
    assert [[c.name for c in r.tool_calls] for r in first.trace.rounds] == [["altercraft_look"], ["altercraft_say"], []]
    assert [[c.name for c in r.tool_calls] for r in second.trace.rounds] == [
        ["altercraft_look"], ["altercraft_say"], ["altercraft_stop"], []]
    unanswered = [f for f in _findings(upload, "missing-tool-result")]
    assert [(f.round, f.severity) for f in unanswered] == [(2, "error"), (3, "error"), (4, "error")]
    assert [name in f.message for f, name in zip(unanswered, ("altercraft_look", "altercraft_say", "altercraft_stop"))] == [True] * 3


def test_an_ollama_call_sent_back_without_its_id_is_the_call_the_model_made_not_a_rewritten_one():
    # langchaingo against Ollama Cloud: the response gives the call an id, the client sends the turn
    # back without it (Ollama's request messages carry none) and answers by order.
    upload = _read("ollama-chat-cloud.jsonl")
    conversation = upload.conversations[0]
    first, second = conversation.trace.rounds
    [call] = first.tool_calls
    assert (call.id, call.name) == ("call_mo1wm122", "getWeather")
    assert [c.id for c in second.request.messages[1].tool_calls] == ["call_mo1wm122"]
    assert second.request.messages[2].tool_results[0].call_id == "call_mo1wm122"
    assert _findings(upload, "missing-tool-result") == [] and _findings(upload, "history-rewritten") == []
    assert second.response.message.text.startswith("San Francisco is currently **72")


def test_a_value_the_person_gave_in_part_and_the_model_wrote_in_the_definitions_form_is_not_said_unsaid():
    # The person asked "What's the weather like in San Francisco?"; gpt-oss called getWeather with "San Francisco, CA",
    # the form the location's description shows ("e.g. San Francisco, CA"). The finding said "no earlier message says
    # it: the model may have taken it from there, not from the person" and "what nobody gave, the model should ask the
    # person for": the person gave the city.
    [finding] = _findings(_read("ollama-chat-cloud.jsonl"), "model-filled-value")
    assert finding.where == "round 1 response choices[0].message.tool_calls[0]"
    assert 'an earlier message says "San Francisco", and the tool definition writes it whole' in finding.message
    assert "the rest is its own guess, which the conversation does not confirm" in finding.message
    assert "no earlier message says it" not in finding.message and "nobody gave" not in finding.message


def test_an_ollama_refusal_keeps_its_status_and_words():
    [finding] = _findings(_read("ollama-chat-cloud.jsonl"), "provider-error")
    assert "HTTP 400" in finding.message and "gemma3:1b does not support tools" in finding.message


def test_a_transcript_that_kept_no_results_is_not_said_to_have_had_a_request_rejected():
    # hermes-agent line 2 and a fine-tuning line: transcripts, not request logs. No request with this
    # history was recorded, so no provider can be said to have rejected one; the history is still invalid.
    finetune = {"messages": [
        {"role": "user", "content": "Where is order 7?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_7", "type": "function", "function": {"name": "get_order", "arguments": '{"id": 7}'}}]},
        {"role": "user", "content": "Still there?"},
        {"role": "assistant", "content": "Order 7 shipped yesterday."}]}
    for upload in (_read("sharegpt-hermes-agent.jsonl"), read_upload([("ft.jsonl", orjson.dumps(finetune))])):
        unanswered = _findings(upload, "missing-tool-result")
        assert unanswered and all(f.severity == "error" for f in unanswered)
        for finding in unanswered:
            assert "rejects the request otherwise" not in finding.message
            assert "This transcript" in finding.message and "records no result" in finding.message
            assert "a provider rejects a request that resends a call without its result" in finding.message


def test_a_request_log_that_resent_a_call_without_its_result_says_the_provider_answered_it_anyway_where_it_did():
    # The same gap in a log of the requests a program sent: that request was really sent, and the log holds the answer
    # it got. The finding said "the provider rejects the request otherwise" of a request the log shows answered.
    request = {"model": "gpt-4o-mini", "messages": [
        {"role": "user", "content": "Where is order 7?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_7", "type": "function", "function": {"name": "get_order", "arguments": '{"id": 7}'}}]},
        {"role": "user", "content": "Still there?"}]}
    first = {"request": {"model": "gpt-4o-mini", "messages": request["messages"][:1]},
             "response": {"choices": [{"index": 0, "message": request["messages"][1], "finish_reason": "tool_calls"}]}}
    second = {"request": request, "response": {"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": "Order 7 shipped yesterday."}}]}}
    upload = read_upload([("pairs.jsonl", orjson.dumps(first) + b"\n" + orjson.dumps(second))])
    [finding] = _findings(upload, "missing-tool-result")
    assert finding.severity == "error" and finding.round == 2
    assert "This request resends the get_order call call_7" in finding.message
    assert "This provider answered it anyway; OpenAI's and Anthropic's APIs today refuse such a request with a 400" \
        in finding.message
    assert "rejects" not in finding.message and "transcript" not in finding.message


def test_a_batch_request_whose_history_holds_a_call_without_its_result_is_an_error_before_any_result_comes_back():
    # The batch input files alone: Anthropic's ticket-8 sends two calls followed by "Never mind.", OpenAI's trip-18
    # answers one call of two. No response in the log made those calls, so nothing was flagged, though the results
    # files show both requests refused with a 400 for exactly this.
    anthropic = _findings(_read("anthropic-batch-requests.jsonl"), "missing-tool-result")
    openai = _findings(_read("openai-batch-input.jsonl"), "missing-tool-result")
    assert [(f.severity, f.round, f.side, f.path) for f in anthropic] == [
        ("error", 1, "request", "messages[1].content[1]"), ("error", 1, "request", "messages[1].content[2]")]
    assert [(f.severity, f.round, f.side, f.path) for f in openai] == [
        ("error", 1, "request", "messages[2].tool_calls[1]")]
    assert openai[0].message == (
        "This request carries the get_local_time call call_Bq2vU6zJ9nPq4R, but no result for it follows. The provider "
        "rejects such a request: every call needs its own result, a failure included, before the model is called "
        "again.")
    assert "get_weather call toolu_01Mb3Xq9Lr2Vn8Ks5Tw7Yz1P" in anthropic[0].message


def test_an_openinference_span_keeps_the_model_asked_for_and_the_finish_reason_it_recorded():
    # openinference-instrumentation-openai 0.1.66 writes the model that answered as llm.model_name, the
    # model asked for inside llm.invocation_parameters, and the finish reason as llm.finish_reason.
    [conversation] = _read("otlp-span-per-call-openinference.jsonl").conversations
    first, second = conversation.trace.rounds
    assert conversation.trace.model == "gpt-4.1-mini"
    assert [r.request.raw["model"] for r in (first, second)] == ["gpt-4.1-mini"] * 2
    assert [r.response.model for r in (first, second)] == ["gpt-4.1-mini-2025-04-14"] * 2
    assert [r.response.finish_reason for r in (first, second)] == ["tool_calls", "stop"]


def test_openinference_settings_that_do_not_parse_leave_the_call_named_by_the_model_that_answered():
    document = orjson.loads((FIXTURES / "otlp-span-per-call-openinference.jsonl").read_bytes())
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    settings = next(a for a in span["attributes"] if a["key"] == "llm.invocation_parameters")
    settings["value"]["stringValue"] = '{"model": "gpt-4.1-mini", '  # cut off mid-object
    upload = read_upload([("otlp.jsonl", orjson.dumps(document))])
    assert upload.problems == ()
    first, second = upload.conversations[0].trace.rounds
    assert (first.request.raw["model"], second.request.raw["model"]) == ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini")


ORPHANED = [
    {"role": "user", "content": "Where is order 7?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "get_order", "arguments": '{"id": 7}'}}]},
    {"role": "tool", "tool_call_id": "call_7", "content": '{"status": "shipped"}'},
    {"role": "tool", "tool_call_id": "call_ghost", "content": '{"status": "lost"}'},
]
"""A history with a result that answers no call of it: call_ghost was never made."""


def test_a_transcript_with_a_result_for_no_call_is_not_said_to_have_had_a_request_rejected():
    # A fine-tuning line is a transcript: no request with this history is on record as sent, so no
    # provider can be said to have rejected one; sent as it stands, the history would still be refused.
    finetune = {"messages": [*ORPHANED, {"role": "assistant", "content": "Order 7 shipped yesterday."}]}
    [finding] = _findings(read_upload([("ft.jsonl", orjson.dumps(finetune))]), "orphan-tool-result")
    assert finding.severity == "error" and finding.round == 2
    assert "The provider rejects it" not in finding.message
    assert "This transcript" in finding.message and "call_ghost" in finding.message
    assert "a provider rejects a request that carries a result for a call it does not make" in finding.message


def test_call_ids_swapped_between_two_calls_are_still_a_rewritten_history():
    # Renamed to new ids, calls are named by missing-tool-result alone; swapped, each result answers the other call,
    # which nothing else says.
    calls = [{"id": f"call_{k}", "type": "function", "function": {"name": "lookup", "arguments": f'{{"k": {k}}}'}}
             for k in (1, 2)]
    answer = {"role": "assistant", "content": None, "tool_calls": calls}
    swapped = {**answer, "tool_calls": [{**calls[0], "id": "call_2"}, {**calls[1], "id": "call_1"}]}
    asked = [{"role": "user", "content": "Look up 1 and 2."}]
    first = {"request": {"model": "m", "messages": asked},
             "response": {"choices": [{"index": 0, "message": answer, "finish_reason": "tool_calls"}]}}
    results = [{"role": "tool", "tool_call_id": f"call_{k}", "content": f"record {k}"} for k in (1, 2)]
    second = {"request": {"model": "m", "messages": [*asked, swapped, *results]}, "response": {"choices": [{
        "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}]}}
    upload = read_upload([("pairs.jsonl", orjson.dumps(first) + b"\n" + orjson.dumps(second))])
    assert [(f.round, f.path) for f in _findings(upload, "history-rewritten")] == [(2, "messages[1]")]


def test_a_request_log_with_a_result_for_no_call_says_todays_apis_refuse_it_though_this_one_was_answered():
    # The same result in a log of the requests a program sent: that request was really sent, and answered (dd-trace-py
    # recorded claude-3-opus answering one in 2024). "The provider rejects it" contradicted the answer on screen.
    first = {"request": {"model": "gpt-4o-mini", "messages": ORPHANED[:1]},
             "response": {"choices": [{"index": 0, "message": ORPHANED[1], "finish_reason": "tool_calls"}]}}
    second = {"request": {"model": "gpt-4o-mini", "messages": ORPHANED}, "response": {"choices": [{
        "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Order 7 shipped yesterday."}}]}}
    upload = read_upload([("pairs.jsonl", orjson.dumps(first) + b"\n" + orjson.dumps(second))])
    [finding] = _findings(upload, "orphan-tool-result")
    assert finding.severity == "error" and finding.round == 2
    assert "This result answers call_ghost" in finding.message and "The provider rejects it" not in finding.message
    assert "This provider answered it anyway; OpenAI's and Anthropic's APIs today refuse such a request with a 400" \
        in finding.message
    assert "transcript" not in finding.message
    refused = {"request": second["request"], "error": {"status": 400, "body": {"error": {"message": "Invalid"}}}}
    upload = read_upload([("pairs.jsonl", orjson.dumps(first) + b"\n" + orjson.dumps(refused))])
    [finding] = _findings(upload, "orphan-tool-result")
    assert "The provider rejects it" in finding.message


def test_an_inspect_scorers_grading_call_is_a_conversation_of_its_own_not_a_round_of_the_sample():
    # vitals' Inspect log: each sample's solver asks "What's 2+2?" ("Be terse."), then the model_graded_qa scorer asks
    # the grader a prompt of its own, inside a span of type 'scorer'. That call does not continue the solver's
    # conversation: read as its round 2, it "rewrote" the history and "narrated without a call".
    upload = _read("containers/inspect-system-prompt.json")
    assert {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in upload.conversations} == {
        "sample 1 epoch 1": [1], "sample 1 epoch 1, scorer model_graded_qa": [1],
        "sample 2 epoch 1": [1], "sample 2 epoch 1, scorer model_graded_qa": [1]}
    grader = next(c.trace for c in upload.conversations if c.id == "sample 1 epoch 1, scorer model_graded_qa")
    assert grader.rounds[0].request.messages[0].text.startswith("\nYou are assessing a submitted answer")
    assert _findings(upload, "history-rewritten") == []


def test_a_model_offered_no_tools_that_says_what_it_will_look_at_is_answering_not_narrating():
    # The grader of vitals' Inspect log is offered no tools; it reasons aloud ("I'll look at what was submitted")
    # and ends on "GRADE: C". It could call nothing: that is its answer, not an announced call that never came.
    from lib.steps import steps_for_round
    upload = _read("containers/inspect-system-prompt.json")
    assert _findings(upload, "narration-without-call") == []
    grader = next(c.trace for c in upload.conversations if c.id == "sample 1 epoch 1, scorer model_graded_qa")
    assert [s.detail for s in steps_for_round(grader, 1) if s.step == 5] == ["final answer"]


def test_a_transcript_cut_on_a_tool_turn_keeps_that_result_as_what_the_program_ran():
    # tau-bench's gpt-4o trajectory cut after message 13, the search_onestop_flight result: no request follows to
    # append it to, and the program lane said "not recorded" although the transcript records what the tool returned.
    [conversation] = _read("tau-bench-airline-cut.jsonl").conversations
    last = conversation.trace.rounds[-1]
    [ran] = last.executions
    assert (ran.tool_call_id, ran.name) == ("call_HGn16KZh9oNCruxsMJ4gYXan", "search_onestop_flight")
    assert ran.arguments == {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}
    assert '"flight_number": "HAT057"' in ran.output
    assert [r.executions for r in conversation.trace.rounds[:-1]] == [()] * 5


def test_a_swe_agent_run_names_the_model_its_replay_config_ran():
    # SWE-agent's own test trajectory: `replay_config` (a JSON string) holds agent.model.name "gpt-4o"; the run's
    # rounds read as made by no model, so neither the model nor a price was shown.
    [conversation] = read_upload([("run.traj", (FIXTURES / "containers" / "swe-agent-test-repo.traj").read_bytes())]).conversations
    assert conversation.trace.model == "gpt-4o"
    assert {r.request.raw.get("model") for r in conversation.trace.rounds} == {"gpt-4o"}


def test_a_call_that_timed_out_is_not_said_to_be_refused_nor_the_request_to_need_fixing():
    # An OTel GenAI span of a call that ended in a timeout (`error.type` "timeout", no HTTP status): no provider
    # refused anything, and nothing says the request was at fault.
    [finding] = _findings(_read("otel-genai.jsonl"), "provider-error")
    assert "Request timed out." in finding.message and "HTTP status not recorded" in finding.message
    assert "refused" not in finding.message and "fix the request" not in finding.message


def test_a_batch_request_that_expired_or_was_canceled_is_not_said_to_need_fixing():
    # Anthropic's batch results: `expired` and `canceled` requests were never run; `errored` ones got a 400.
    said = {f.message.split("Its words: ")[1][:9]: f.message for f in _findings(_read("anthropic-batch-results.jsonl"),
                                                                              "provider-error")}
    assert "refused this request with HTTP 400" in said['"errored:'] and "fix the request" in said['"errored:']
    for unrun in ('"expired:', '"canceled'):
        assert "refused" not in said[unrun] and "fix the request" not in said[unrun]


def test_a_swe_agent_run_whose_history_stops_before_its_last_step_says_so():
    # SWE-agent's own test trajectory: `trajectory` has 5 steps (the fifth is `submit`) and info.model_stats counts
    # 5 API calls, but `history` holds only the first 4 model turns. The 4 rounds shown are not the whole run.
    upload = read_upload([("run.traj", (FIXTURES / "containers" / "swe-agent-test-repo.traj").read_bytes())])
    assert upload.rounds == 4
    [note] = [n for n in upload.notes if "model turns" in n.message]
    assert note.line == 1
    assert "5 steps" in note.message and "4 model turns" in note.message and "submit" in note.message
    assert "5 API calls" in note.message


def test_the_summary_names_every_rule_that_read_a_format_with_how_many_lines_each():
    # openai-responses.jsonl holds request/response pairs, stream events and a request alone: "6 lines read as
    # openai-responses: a Responses request under 'request' and its response under 'response'" said that of all six.
    upload = _read("openai-responses.jsonl")
    assert upload.formats["openai-responses"] == (6, (
        "a Responses request under 'request' and its response under 'response' (3 lines); "
        "type names a Responses stream event (2 lines); 'input' with Responses request keys (1 line)"))
    # A file read by one rule names it alone, its events all the same kind of line.
    assert _read("anthropic-stream.jsonl").formats["anthropic-stream"] == (26, "type names a Messages stream event")


@pytest.mark.parametrize("fixture", ["bare-responses.jsonl", "openai-chat-stream.jsonl", "anthropic-stream.jsonl",
                                     "anthropic-batch-results.jsonl"])
def test_a_value_is_not_said_to_be_in_no_earlier_message_when_the_log_kept_no_message(fixture):
    # Responses and streamed chunks without their requests: "Oslo" may well be the person's word, in a request the
    # log did not keep. Nothing can be said of what came before.
    assert _findings(_read(fixture), "model-filled-value") == []


def test_a_call_made_again_because_the_program_dropped_it_is_not_called_a_loop():
    # crewAI's native tool calling, recorded: asked to count 'one' to 'four', the model calls all four at once; crewAI
    # runs the first and drops the rest, so the model asks for 'three' again in round 2 (dropped again) and round 3.
    # No result for 'three' ever came back before round 3: nothing can have failed to tell the model what it needs.
    upload = _read("containers/crewai-openai-max-usage.yaml")
    assert _findings(upload, "repeated-call") == []
    dropped = [(f.round, f.path) for f in _findings(upload, "missing-tool-result")]
    assert (1, "choices[0].message.tool_calls[2]") in dropped and (2, "choices[0].message.tool_calls[1]") in dropped
    [conversation] = upload.conversations
    threes = [[c.id for c in r.tool_calls if c.arguments == {"value": "three"}] for r in conversation.trace.rounds]
    assert [len(ids) for ids in threes] == [1, 1, 1]


def test_a_value_the_schema_gives_as_its_default_is_said_to_be_the_default():
    # BeeAI's agent, recorded by openinference: asked for the weather in Las Vegas, the model called OpenMeteoTool with
    # temperature_unit "celsius", the `default` its schema gives, and country "USA", which nobody said.
    upload = _read("containers/openinference-beeai-agent.yaml")
    [finding] = _findings(upload, "model-filled-value")
    assert finding.severity == "info"
    assert 'country "USA"' in finding.message
    assert 'temperature_unit "celsius" is the default the tool\'s schema gives' in finding.message
    assert finding.message.startswith(
        'The model filled country "USA" in the OpenMeteoTool call itself: it appears in no earlier message')
    assert "nothing in the conversation says which" not in finding.message
    assert finding.brief == ('Filled by the model, in no earlier message: country "USA"; '
                             'the schema\'s default: temperature_unit "celsius"')


def test_an_agents_sdk_handoff_is_not_called_a_write_tool():
    # The OpenAI Agents SDK, recorded by openllmetry: the conductor agent hands the request to the Symphony Composer
    # through transfer_to_symphony_composer, whose description the SDK writes as "Handoff to the Symphony Composer
    # agent to handle the request." Handing over to another agent of the same program changes nothing a person
    # would approve.
    upload = _read("containers/openllmetry-agents-handoff.yaml")
    [conversation] = upload.conversations
    [handoff] = conversation.trace.rounds[0].tool_calls
    assert handoff.name == "transfer_to_symphony_composer"
    assert _findings(upload, "write-tool-call") == []


def test_a_tool_named_add_that_adds_two_numbers_is_not_called_a_write_tool():
    # dd-trace-py's recorded OpenAI call: `add` (a + b), the first tool of many tutorials, was said to change
    # something and to need a person's approval. With an object after it the verb still reads as a write.
    from lib.checks import is_write_tool
    upload = _read("containers/ddtrace-openai-aiohttp-headers.yaml")
    [conversation] = upload.conversations
    assert [c.name for c in conversation.trace.rounds[0].tool_calls] == ["add"]
    assert _findings(upload, "write-tool-call") == []
    trace = conversation.trace
    assert [is_write_tool(trace, name) for name in ("add_to_cart", "addItem", "delete", "cancel", "order", "file")] \
        == [True, True, True, True, False, False]


def test_a_tool_named_add_numbers_is_not_called_a_write_tool():
    # langchain-azure's recorded LangGraph agent: `add_numbers` ("Add two numbers together") was said to change
    # something and to need a person's approval, because a word followed `add`. Numbers are what it adds.
    from lib.checks import is_write_tool
    upload = _read("containers/langchain-azure-add-numbers.yaml")
    [conversation] = upload.conversations
    assert [c.name for c in conversation.trace.rounds[0].tool_calls] == ["add_numbers"]
    assert _findings(upload, "write-tool-call") == []
    trace = conversation.trace
    assert [is_write_tool(trace, name) for name in ("add_two_numbers", "addIntegers", "add_number_to_list",
                                                    "add_user")] == [False, False, True, True]


def test_a_result_whose_call_is_in_the_same_request_is_not_said_to_answer_no_call():
    # pydantic-ai's DeepSeek cassette sends a history it built itself: call-a sits in messages[0] of the very request
    # whose messages[1] answers it. "which no earlier call made" contradicted the card just above it.
    from lib.steps import steps_for_round
    data = (FIXTURES / "containers" / "pyd-deepseek-responses-400.yaml").read_bytes()
    trace = read_upload([("deepseek.yaml", data)]).conversations[0].trace
    assert [s.detail for s in steps_for_round(trace, 1) if s.step == 4] == [
        "result for call-a, called in messages[0] of this request (by no response in the log)",
        "result for call-b, called in messages[0] of this request (by no response in the log)"]


def _data_lines(sse: bytes) -> bytes:
    """The JSON of each `data:` line, one per line: the same stream written as chunk or event lines."""
    payloads = [line[5:].strip() for line in sse.splitlines() if line.startswith(b"data:")]
    return b"\n".join(payload for payload in payloads if payload != b"[DONE]") + b"\n"


@pytest.mark.parametrize("name, calls", [("openai-chat-stream.sse", ["multiply"]),
                                         ("anthropic-stream.sse", ["pelican_name_generator"] * 2)])
def test_a_streamed_answer_saved_as_server_sent_events_reads_as_its_event_lines_do(name, calls):
    # What `curl -N` prints of a streamed call: `event:` and `data:` lines, blank lines between events.
    sse = (FIXTURES / name).read_bytes()
    upload = read_upload([(name, sse)])
    as_lines = read_upload([("events.jsonl", _data_lines(sse))])
    assert upload.problems == ()
    assert upload.lines == sse.count(b"\n")
    assert [note.message for note in upload.notes] == [
        "read as server-sent events, as a stream arrives over HTTP: the JSON of each `data:` line; event names, ids, "
        "comments, keep-alive events and the closing [DONE] carry nothing more"]
    (conversation,) = upload.conversations
    (round_,) = conversation.trace.rounds
    assert [call.name for call in round_.response.message.tool_calls] == calls
    assert round_.response == as_lines.conversations[0].trace.rounds[0].response


def test_a_broken_event_in_server_sent_events_is_named_by_its_line_and_the_answer_still_loads():
    lines = (FIXTURES / "anthropic-stream.sse").read_bytes().split(b"\n")
    assert lines[7] == b'data: {"type": "ping"}'
    lines[7] = b'data: {"type": "ping"'
    upload = read_upload([("answer.sse", b"\n".join(lines))])
    assert [(problem.line, problem.message) for problem in upload.problems] == [
        (8, "is not valid JSON (at the end of the event's data: cut short: the JSON stops before it is complete)")]
    (conversation,) = upload.conversations
    assert len(conversation.trace.rounds[0].response.message.tool_calls) == 2


@pytest.mark.parametrize("name, model, text", [
    # openai-php's recording of a streamed Responses call (a web search), ended by the keep-alive event OpenAI sends
    # into long streams: the line was a problem "matches no known log format", and `lib check` exited 2.
    ("openai-php-responses-keepalive.sse", "gpt-4o-2024-08-06", "As of today, March 9, 2025, one notable positive"),
    # A Chat Completions stream from an OpenAI-compatible endpoint with `{"type": "keepalive"}` between its chunks.
    ("openai-php-chat-keepalive.sse", "claude-3-7-sonnet-20250219", "Hello!"),
])
def test_a_keepalive_event_in_a_saved_stream_is_passed_over_as_a_comment_is(name, model, text):
    data = (FIXTURES / "containers" / name).read_bytes()
    assert b'"type":"keepalive"' in data.replace(b" ", b"")
    upload = read_upload([(name, data)])
    assert upload.problems == ()
    (conversation,) = upload.conversations
    assert conversation.trace.model == model
    (round_,) = conversation.trace.rounds
    assert round_.response.message.text.startswith(text)


def test_a_keepalive_event_inside_a_cassettes_streamed_answer_does_not_lose_the_round():
    # simonw/llm's cassette of two streamed calls, a keep-alive put between round 1's chunks as an OpenAI-compatible
    # server sends one: round 1 was lost ("'choices' is missing, expected a list"), and with it the multiply call.
    cassette = (FIXTURES / "containers" / "llm-openai-split-turn.yaml").read_text()
    first_chunk = cassette.index("        data: {", cassette.index("string: 'data: {"))
    cassette = cassette[:first_chunk] + '        data: {"type":"keepalive"}\n\n' + cassette[first_chunk:]
    upload = read_upload([("keepalive.yaml", cassette.encode())])
    assert upload.problems == ()
    (conversation,) = upload.conversations
    assert [[call.name for call in r.tool_calls] for r in conversation.trace.rounds] == [["multiply"], []]
    assert conversation.trace.rounds[0].response.usage.input_tokens == 54


def test_a_streamed_text_block_that_opens_with_null_citations_keeps_the_citations_that_follow():
    # rig's recording of a streamed Messages answer about a cited document: the text block opens with
    # `"citations": null`, then a citations_delta comes. The answer was lost to "could not be read as Anthropic
    # Messages stream: AttributeError: 'NoneType' object has no attribute 'append'".
    name = "rig-anthropic-null-citations.sse"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    (conversation,) = upload.conversations
    (round_,) = conversation.trace.rounds
    assert round_.response.message.text == "Rust focuses on three goals: **safety**, **speed**, and **concurrency**."
    (block,) = round_.response.message.raw["content"]
    assert [citation["document_title"] for citation in block["citations"]] == ["Rust Goals"]
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (683, 38)


def test_a_stray_line_in_server_sent_events_is_named_and_the_answer_still_loads():
    # A JSON line pasted into the saved stream: it was dropped unsaid, as if it were an event's comment.
    lines = (FIXTURES / "anthropic-stream.sse").read_bytes().split(b"\n")
    lines.insert(8, b'{"type": "ping"}')
    upload = read_upload([("answer.sse", b"\n".join(lines))])
    assert [(problem.line, problem.message) for problem in upload.problems] == [
        (9, "is not a line of server-sent events (data:, event:, id:, retry:, or a comment opening with ':'), so "
            "nothing of it was read")]
    (conversation,) = upload.conversations
    assert len(conversation.trace.rounds[0].response.message.tool_calls) == 2


def test_a_log_whose_first_line_was_damaged_to_open_with_a_colon_is_not_taken_for_server_sent_events():
    # Found by the fuzz test: ':' opens an event stream's comment, so the whole JSON-lines log read as a stream with
    # no data line, its three good lines lost unsaid.
    lines = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    lines[0] = b":" + lines[0][1:]
    upload = read_upload([("pairs.jsonl", b"\n".join(lines))])
    assert upload.summary() == "4 lines: 3 rounds in 2 conversations; 1 line skipped"
    assert [problem.line for problem in upload.problems] == [1]


def test_a_turn_sent_back_without_the_text_beside_its_calls_says_the_text_was_left_out():
    # CrewAI on Bedrock: the model wrote "I'll execute all 3 parallel searches simultaneously right now!" beside its
    # three calls; round 2 sends the three calls back alone. The warning said "its text or its calls differ".
    [finding] = _findings(_read("containers/crewai-bedrock-parallel-kickoff.yaml"), "history-rewritten")
    assert (finding.round, finding.path) == (2, "messages[1]")
    assert "the text the model wrote beside its calls is left out" in finding.message
    assert "its text or its calls differ" not in finding.message and "calls differ" not in finding.message


def test_a_turn_sent_back_with_some_of_its_calls_says_how_many_it_kept():
    # CrewAI on OpenAI: the model asked for four counting_tool calls at once; CrewAI ran the first and sent back a turn
    # holding only that one (round 2), then did the same with the three the model asked again (round 3).
    found = _findings(_read("containers/crewai-openai-max-usage.yaml"), "history-rewritten")
    assert [(f.round, f.path) for f in found] == [(2, "messages[2]"), (3, "messages[5]")]
    assert "it carries 1 of the 4 calls the model made" in found[0].message
    assert "it carries 1 of the 3 calls the model made" in found[1].message
    assert all("text" not in f.message.split("round")[1].split(".")[0] for f in found)  # the text was not touched


def test_a_turn_sent_back_with_the_models_reasoning_as_its_text_says_whose_words_they_are():
    # Groq's gpt-oss-120b answered round 2 with a call and its reasoning in `reasoning`, no content; pydantic-ai sent
    # the turn back with that reasoning as `<think>` text in content. The warning said the turn "carries text the model
    # did not write in its answer", as if someone else had written it: the words are the model's own reasoning.
    [finding] = _findings(_read("openai-compatible-tool-use-failed.jsonl"), "history-rewritten")
    assert (finding.round, finding.path) == (3, "messages[4]")
    assert ("it carries the reasoning the model returned beside its answer as the turn's text, in <think> tags, where "
            "the model wrote no text" in finding.message)
    assert "did not write" not in finding.message


def test_a_batch_request_the_batch_never_ran_is_said_never_run_not_failed():
    # Anthropic's `expired` and `canceled` results, and OpenAI's `batch_expired` error: the batch ended before the
    # request's turn. The finding said "This call failed (HTTP status not recorded) … the log does not say whether the
    # request was at fault", though the log says the request was never run, so nothing in it was at fault.
    said = [f.message for f in _findings(_read("anthropic-batch-results.jsonl"), "provider-error")
            + _findings(_read("openai-batch-output.jsonl"), "provider-error")]
    unrun = [s for s in said if "never ran this request" in s]
    assert len(unrun) == 3
    assert sum("the batch expired before" in s for s in unrun) == 2
    assert sum("the batch was canceled before" in s for s in unrun) == 1
    for message in unrun:
        assert "failed" not in message and "HTTP" not in message and "does not say whether" not in message
        assert "nothing in it was at fault" in message
    assert sum("refused this request with HTTP 400" in s for s in said) == 2  # ticket-8 and trip-18 stay refusals


def test_a_tool_list_edited_when_the_conversation_moves_to_another_model_names_the_tool_and_the_move():
    # Mirascope resumes a Gemini conversation with gpt-4o and writes compute_fib's schema each provider's way (INTEGER,
    # then integer with additionalProperties and strict). The finding said "definitions edited … it invalidates the
    # prompt cache, and a model may still call a tool it saw earlier": no cache carries from Gemini to OpenAI, and no
    # tool was taken away.
    [finding] = _findings(_read("containers/mirascope-gemini-then-openai-resume.yaml"), "tools-changed")
    assert (finding.round, finding.path) == (2, "tools")
    assert "(compute_fib's definition edited)" in finding.message
    assert "another model (gpt-4o; round 1 asked gemini-2.5-flash)" in finding.message
    assert "invalidates the prompt cache" not in finding.message and "saw earlier" not in finding.message


def test_a_batch_request_the_batch_never_ran_is_headed_as_never_run_on_its_card():
    # The card and the export head a failed call with failure_heading: "The call failed, and no HTTP status was
    # recorded (the log does not say whether a server answered)" was said of requests the batch never sent.
    from lib.failures import failure_heading
    rounds = [c.trace.rounds[0] for name in ("anthropic-batch-results.jsonl", "openai-batch-output.jsonl")
              for c in _read(name).conversations if c.trace.rounds[0].error is not None]
    headings = [failure_heading(r.error) for r in rounds]
    assert sum(h.startswith("The batch never ran this call: the batch expired before its turn came")
               for h in headings) == 2
    assert sum(h.startswith("The batch never ran this call: the batch was canceled before") for h in headings) == 1
    assert sum("no provider saw it" in h for h in headings) == 3
    assert sum(h == "The call failed: HTTP 400. The provider said:" for h in headings) == 2  # ticket-8, trip-18


def _ollama_stream_lines() -> bytes:
    """The real Ollama stream of containers/ollm-ollama-stream-chat.yaml as a proxy saves it: one chunk per line."""
    import yaml
    cassette = yaml.safe_load((FIXTURES / "containers/ollm-ollama-stream-chat.yaml").read_text())
    return cassette["interactions"][0]["response"]["body"]["string"].encode()


STREAM_WORDS = ("The response came as a stream: the body shown is assembled here from its chunks, not received in that "
                "shape.")


@pytest.mark.parametrize("fixture, streamed", [
    ("gemini-stream.jsonl", [True, True]),  # Gemini's chunks under 'response'
    ("containers/crewai-gemini-stream-multi.yaml", [True]),  # streamGenerateContent?alt=sse
    ("containers/llm-gemini-snake-case-call.yaml", [True, True]),  # streamGenerateContent's JSON array of chunks
    ("containers/ollm-ollama-stream-chat.yaml", [True]),  # Ollama /api/chat, one chunk per line
    ("containers/ollm-bedrock-converse-stream-tool.yaml", [True]),  # ConverseStream
    ("containers/langchain-aws-agent-loop-stream.yaml.gz", [True, False]),  # ConverseStream, then Converse
    ("containers/ollm-bedrock-invoke-stream-nova.yaml", [True]),  # InvokeModelWithResponseStream, Converse events
    ("containers/langchain-cohere-stream-tool-call.yaml", [True]),  # Cohere's v2 chat, its own events
    ("containers/ollm-cohere-v2-tool-history.yaml", [False, False]),  # Cohere's v2 chat, whole
    ("containers/ollm-cohere-v1-chat-stream.yaml", [True]),  # Cohere's v1 chat, one JSON event per line
    ("containers/ollm-cohere-v1-chat.yaml", [False]),  # Cohere's v1 chat, whole
])
def test_a_streamed_answer_converted_from_another_api_is_said_to_be_assembled_from_its_stream(fixture, streamed):
    # OpenAI's and Anthropic's streams said so; Gemini's, Ollama's and Bedrock's, converted to another body on top,
    # were said to be "as recorded" alone, though no chunk of the log has the shape shown.
    from lib.provenance import origin_line
    [conversation] = _read(fixture).conversations
    said = [origin_line(conversation.trace, r) for r in conversation.trace.rounds]
    assert all(line.startswith(("Converted from", "Derived by the importer")) for line in said)
    assert [line.endswith(STREAM_WORDS) for line in said] == streamed


def test_a_bedrock_invoke_stream_of_messages_events_is_said_to_be_assembled():
    # InvokeModelWithResponseStream around a Messages body: Anthropic's events, base64 inside AWS's binary frames. Its
    # content type was not taken for a stream, so the assembled message was called "sent and received".
    from lib.provenance import origin_line
    [conversation] = _read("containers/ollm-bedrock-invoke-stream-claude.yaml").conversations
    # Its request body names no model (InvokeModel's path does): shown with the path's, the request is completed.
    assert origin_line(conversation.trace, conversation.trace.rounds[0]) == (
        "Completed from a partial record: parts of this payload were added, not recorded. The response came as a "
        "stream: the body shown is assembled here from its chunks, not received in that shape.")


def test_an_ollama_stream_saved_chunk_per_line_is_said_to_be_assembled_and_a_whole_answer_is_not():
    from lib.provenance import origin_line
    [streamed] = read_upload([("ollama.jsonl", _ollama_stream_lines())]).conversations
    assert origin_line(streamed.trace, streamed.trace.rounds[0]).endswith(STREAM_WORDS)
    assert streamed.trace.rounds[0].response.message.text.startswith("Why did the OpenTelemetry agent go to therapy?")
    last = _ollama_stream_lines().strip().splitlines()[-1]  # the chunk with "done": true, alone: a whole answer
    [whole] = read_upload([("ollama.jsonl", last)]).conversations
    assert "stream" not in origin_line(whole.trace, whole.trace.rounds[0])


@pytest.mark.parametrize("fixture", ["gemini.jsonl", "containers/crewai-gemini-parallel-crew.yaml",
                                     "containers/oi-ollama-tool-call.yaml", "ollama-chat-cloud.jsonl",
                                     "containers/ollm-bedrock-invoke-nova.yaml", "bedrock-converse.jsonl"])
def test_an_answer_received_whole_says_nothing_of_a_stream(fixture):
    from lib.provenance import origin_line
    upload = _read(fixture)
    assert not any("stream" in origin_line(c.trace, r) for c in upload.conversations for r in c.trace.rounds)


def test_a_streamed_call_cut_short_inside_a_cassette_is_said_cut_by_the_recording_not_written_wrong():
    # simonw/llm's recorded stream of a multiply call, its body ending five events in, inside the arguments: what a
    # proxy or a test recorder saves when the connection breaks. Read as a chunk file it was "cut short"; read inside
    # a cassette the mark was lost, and the same call was "invalid arguments", the model's fault.
    import yaml
    from lib.checks import run_checks
    cassette = yaml.safe_load((FIXTURES / "containers" / "llm-openai-split-turn.yaml").read_text())
    first = cassette["interactions"][0]
    events = first["response"]["body"]["string"].split("\n\n")
    first["response"]["body"]["string"] = "\n\n".join(events[:5]) + "\n\n"
    cut = yaml.safe_dump({"interactions": [first], "version": 1}).encode()
    [conversation] = read_upload([("cut.yaml", cut)]).conversations
    [round_] = conversation.trace.rounds
    assert [(c.name, c.arguments_raw) for c in round_.cut_calls] == [("multiply", '{"a":123')]
    codes = {f.code: f for f in run_checks(conversation.trace)}
    assert "invalid-arguments" not in codes
    assert codes["truncated-arguments"].message.startswith(
        "The recording ends while the model was writing this multiply call, before its arguments closed")


def test_a_ruby_vcr_cassette_reads_with_its_binary_bodies():
    # ruby_llm's cassette of DeepSeek: Ruby's VCR keeps its interactions under `http_interactions` and writes a body
    # that is not UTF-8 text as `!binary` base64 (Psych's tag). The whole file was refused as "not valid YAML".
    upload = read_upload([(name := "ruby-llm-deepseek-parallel-calls.yml",
                           (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert [(c.id, c.name) for c in first.tool_calls] == [
        ("call_00_PY4jZerU5C9MoO3wQIwi1346", "weather"), ("call_01_TyBfcy9ufcThybwyvzrZ6553", "best_language_to_learn")]
    assert [(p.call_id, p.content) for m in second.request.messages for p in m.tool_results] == [
        ("call_00_PY4jZerU5C9MoO3wQIwi1346", "Current weather at 52.5200, 13.4050: 15°C, Wind: 10 km/h"),
        ("call_01_TyBfcy9ufcThybwyvzrZ6553", "Ruby")]
    # Round 2's answer is the `!binary` body, read as the JSON it encodes.
    assert second.response.message.text.startswith(
        "Here are the results:\n\n🌤️ **Weather in Berlin:** Currently **15°C**")
    assert (second.response.usage.input_tokens, second.response.usage.output_tokens) == (547, 69)
    assert second.response.model == "deepseek-v4-flash"


@pytest.mark.parametrize("name", ["ruby-llm-bedrock-nova-grounding.yml", "ruby-llm-bedrock-nova-grounding-stream.yml"])
def test_novas_web_grounding_is_a_tool_bedrock_ran_in_the_turn_not_a_call_to_a_tool_never_offered(name):
    # The request offers Nova's grounding as a system tool (`{"systemTool": {"name": "nova_grounding"}}`); Bedrock
    # runs it inside the turn, its `toolUse` typed `server_tool_use`, its `toolResult` beside it. It was read as a
    # call of the program's to a tool the request "does not offer. Never run it", an error.
    from lib.checks import run_checks
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    (round_,) = conversation.trace.rounds
    assert [tool.name for tool in round_.request.tools] == ["nova_grounding"]
    assert round_.tool_calls == () and round_.response.stop == "end"
    [search] = [b for b in round_.response.message.raw["content"] if b["type"] == "server_tool_use"]
    assert (search["name"], search["input"]) == ("nova_grounding", {"query": "latest stable Ruby version"})
    assert "The latest stable Ruby version is 4.0.6" in round_.response.message.text
    assert [f.code for f in run_checks(conversation.trace)] == []


def test_two_identical_calls_resent_under_other_ids_are_each_named_by_the_id_it_was_given():
    # ellmer sends each Responses function_call back under its item's id (fc_...) instead of its call_id: two dice
    # rolls, the same tool with the same arguments. The second finding named the first call's new id and place.
    from lib.checks import run_checks
    name = "ellmer-openai-responses-two-dice.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    findings = run_checks(conversation.trace)
    assert [(f.code, f.severity, f.round, f.path) for f in findings] == [
        ("missing-tool-result", "warning", 2, "messages[2].tool_calls[0]"),
        ("missing-tool-result", "warning", 2, "messages[2].tool_calls[1]")]
    first, second = (f.message for f in findings)
    assert first.startswith("This request resends the dice call call_xseDNO4uZC4ayRmQEcIj7tX9 under another id, "
                            "fc_0e90a1b8c334f9dd016a6fcc757b3081939c1312fb6592a1df,")
    assert second.startswith("This request resends the dice call call_2rGZg0Ye80XFPI8l6Law8ouK under another id, "
                             "fc_0e90a1b8c334f9dd016a6fcc757b408193baaa9c61298c7ab9,")


def test_ellmers_structured_answer_sent_back_as_text_is_said_rewritten_not_left_unanswered():
    # ellmer's chat_structured() forces its `_structured_tool_call` tool and sends the call back as the JSON it carried
    # ({"title": ..., "author": ...}): the model's answer, not a request to act. It was said that "the model never
    # learns what became of its request", as Mirascope's output tool was before.
    from lib.checks import run_checks
    name = "ellmer-anthropic-structured-data.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    first, second = conversation.trace.rounds
    assert second.request.messages[1].text == '{"title":"Apples are tasty","author":"Hadley Wickham"}'
    findings = run_checks(conversation.trace)
    assert [(f.code, f.round) for f in findings] == [("history-rewritten", 2)]
    assert "its _structured_tool_call call is sent back as text" in findings[0].message


def test_a_gemini_function_calling_mode_written_in_lowercase_still_forces_the_tool():
    # ruby_llm sends `functionCallingConfig: {"mode": "any", "allowedFunctionNames": ["weather"]}`; Gemini takes the
    # mode in any case and the model called weather for "What's the fall of Rome?". Only "ANY" was known: the request
    # read as tool_choice "any", which no Chat Completions request says, and the fork editor as no tool_choice sent.
    from lib.dialects.openai_chat import read_tool_choice
    name = "ruby-llm-gemini-forced-tool-lowercase.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    first, _ = conversation.trace.rounds
    assert first.request.raw["tool_choice"] == {"type": "function", "function": {"name": "weather"}}
    assert read_tool_choice(first.request.raw) == ("weather", None)
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("weather", {"latitude": "123", "longitude": "123"})]


def test_a_message_batch_recorded_over_http_is_its_requests_joined_to_their_results():
    # ruby_llm's batch: POST /v1/messages/batches sends two requests (custom_id "0", "1"), a poll says the batch
    # ended, GET .../results answers both in JSON lines. The batch's creation was read as a Messages round whose
    # request "is not in the log" and that had no answer; the two questions and their answers were lost.
    from lib.checks import run_checks
    name = "ruby-llm-anthropic-message-batch.yml"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    assert upload.summary() == "3 interactions: 2 rounds in 2 conversations; 1 interaction not a model call; " \
                               "0 interactions skipped"
    rounds = {c.id: c.trace.rounds for c in upload.conversations}
    assert sorted(rounds) == ["0", "1"]
    (four,), (jupiter,) = rounds["0"], rounds["1"]
    assert [m.text for m in four.request.messages] == ["What is 2 + 2?"]
    assert four.request.system.text == "Be terse."
    assert (four.response.message.text, jupiter.response.message.text) == ("4", "Jupiter")
    assert (four.response.usage.input_tokens, four.response.usage.output_tokens) == (20, 5)
    assert [f.code for c in upload.conversations for f in run_checks(c.trace)] == []


def test_an_answer_sent_back_as_the_same_json_with_other_spacing_is_said_to_be_so():
    # chatlas parses the model's structured answer and sends it back written out again: '{"title": "Apples are
    # tasty", ...}' comes back as '{"title":"Apples are tasty",...}'. It was said to be "not the text the model wrote",
    # which sends a reader looking for a change of content that is not there.
    from lib.checks import run_checks
    name = "chatlas-anthropic-json-respaced.yaml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    first, second = conversation.trace.rounds
    assert first.response.message.text == '{"title": "Apples are tasty", "author": "Hadley Wickham"}'
    assert second.request.messages[1].text == '{"title":"Apples are tasty","author":"Hadley Wickham"}'
    [finding] = run_checks(conversation.trace)
    assert (finding.code, finding.round, finding.path) == ("history-rewritten", 2, "messages[1]")
    assert ("not what the model wrote in round 1: its text is the JSON the model wrote, written out again with the "
            "same values (other spacing or key order)." in finding.message)


def test_an_answer_whose_content_is_a_json_object_is_that_json_not_an_empty_answer():
    # Cloudflare Workers AI's Chat Completions answers a json_schema response_format with `message.content` the object
    # itself ({"title": ..., "author": ...}), not its text. The answer read as empty, and the turn chatlas sent back
    # was said to carry "text the model did not write in its answer".
    from lib.checks import run_checks
    name = "chatlas-cloudflare-json-object-answer.yaml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    first, second = conversation.trace.rounds
    assert first.response.message.text == '{"title":"Apples are tasty","author":"Hadley Wickham"}'
    assert first.response.message.raw["content"] == {"title": "Apples are tasty", "author": "Hadley Wickham"}
    assert second.request.messages[1].text == '{"title":"Apples are tasty","author":"Hadley Wickham"}'
    assert [f.code for f in run_checks(conversation.trace)] == []


def test_a_token_count_asked_of_the_provider_is_no_model_call():
    # chatlas counts the tokens of one question with OpenAI (/v1/responses/input_tokens), Anthropic
    # (/v1/messages/count_tokens) and Gemini (:countTokens). Anthropic's and Gemini's counts were rounds the model never
    # answered, OpenAI's a damaged interaction ("'response' is neither a response object ... nor an error").
    name = "chatlas-token-counts.yaml"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    assert upload.conversations == ()
    assert upload.summary() == "3 interactions: 0 rounds in 0 conversations; 3 interactions not model calls; " \
                               "0 interactions skipped"


def test_a_tool_named_for_a_thing_and_then_a_reading_verb_is_not_a_write_tool():
    # ruby_llm's file_fetch ("Fetches the requested file") was said to change something, "a write tool" a person should
    # approve: `file` was read as the verb (to file a claim), though `fetch` after it says what the tool does.
    from lib.checks import is_write_tool, run_checks
    name = "ruby-llm-anthropic-file-fetch.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    assert [f.code for f in run_checks(conversation.trace)] == ["text-with-tool-calls"]
    assert not is_write_tool(conversation.trace, "file_fetch")
    assert is_write_tool(conversation.trace, "file_claim") and is_write_tool(conversation.trace, "order_pizza")
    assert is_write_tool(conversation.trace, "add_list") and is_write_tool(conversation.trace, "set_view")


def test_an_answer_that_asks_the_person_a_question_is_not_narration_without_a_call():
    # activeagent's gpt-5 call, offered two MCP servers, asks which location and which repository, then says "Share
    # those and I'll fetch the info." It waits for the person, as it should: it was said to announce an action and
    # stop, "shown to a person this reads as a hang".
    from lib.checks import run_checks
    from lib.narration import narrates_without_call
    name = "activeagent-responses-mcp-asks-back.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    (round_,) = conversation.trace.rounds
    assert round_.response.message.text.startswith("I’m happy to do that—just need a couple details:")
    assert round_.response.message.text.endswith("Share those and I’ll fetch the info.")
    assert not narrates_without_call(round_)
    assert [f.code for f in run_checks(conversation.trace)] == []


def test_a_turn_of_two_calls_sent_back_as_two_turns_names_each_call_where_it_went():
    # gpt-4o calls call_this_function_twice twice in one turn; raix sends the turn back as two assistant messages, each
    # one call under an id of raix's own with its (empty) result after it. The second call was said to be sent back
    # "neither as a call nor with a result ... the model never learns what became of its request".
    from lib.checks import run_checks
    name = "raix-one-turn-sent-back-as-two.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    findings = [(f.code, f.round, f.path, f.message) for f in run_checks(conversation.trace)]
    renamed = [(path, message.split(": the program")[0]) for code, _, path, message in findings
               if code == "missing-tool-result"]
    assert renamed == [
        ("messages[1].tool_calls[0]", "This request resends the call_this_function_twice call "
         "call_lQWevJ9PRcJlvRTO6cDYoGEw under another id, a3a52466-cec3-493a-8e22, with its result paired to that id"),
        ("messages[3].tool_calls[0]", "This request resends the call_this_function_twice call "
         "call_ZVZudyGKawkuy4x1uj5zi1SL under another id, 4ad9c733-dde1-45d7-b2c4, with its result paired to that id")]
    [rewritten] = [message for code, _, _, message in findings if code == "history-rewritten"]
    assert ("not what the model wrote in round 1: its 2 calls are sent back in 2 assistant messages, each after the "
            "result of the one before, where the model made them in one turn." in rewritten)
    assert [code for code, *_ in findings].count("empty-tool-result") == 2


def test_a_gemini_batch_recorded_over_http_is_its_requests_joined_to_the_answers_it_succeeded_with():
    # ruby_llm's Gemini batch: POST models/gemini-2.5-flash:batchGenerateContent with two inline requests (custom_id
    # "0" and "1" in their metadata), a poll while pending, then GET batches/<id> once it succeeded, the answers inline
    # in the same order. All three were "not model calls": the batch's two questions and answers were lost.
    from lib.checks import run_checks
    name = "ruby-llm-gemini-inline-batch.yml"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    assert upload.summary() == "3 interactions: 2 rounds in 2 conversations; 1 interaction not a model call; " \
                               "0 interactions skipped"
    rounds = {c.id: c.trace.rounds[0] for c in upload.conversations}
    assert [m.text for m in rounds["0"].request.messages] == ["What is 2 + 2? Just the number."]
    assert (rounds["0"].response.message.text, rounds["1"].response.message.text) == ("4", "Jupiter")
    assert rounds["0"].request.model == "gemini-2.5-flash"
    assert (rounds["1"].response.usage.input_tokens, rounds["1"].response.usage.output_tokens) == (13, 54)
    assert [f.code for c in upload.conversations for f in run_checks(c.trace)] == []


def test_a_gemini_request_whose_contents_is_one_content_object_reads_as_that_one_turn():
    # sublayer sends `contents: {"role": "user", "parts": {"text": ...}}`: a lone object where the API documents a
    # list, which Gemini's JSON parsing takes as a list of one (it answered 200). The interaction was skipped as
    # damaged, "'contents' is an object, expected a list".
    name = "sublayer-gemini-lone-content.yml"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    assert upload.problems == ()
    [conversation] = upload.conversations
    (round_,) = conversation.trace.rounds
    assert [(m.role, m.text) for m in round_.request.messages] == [
        ("user", "What is the meaning of life, the universe, and everything?")]
    assert round_.response.message.text == '{"the_answer": "42"}\n'
    assert (round_.response.usage.input_tokens, round_.response.usage.output_tokens) == (14, 9)


def test_a_request_that_goes_on_under_a_new_system_message_continues_its_conversation():
    # ruby_llm's with_instructions replaces the system message ("XKCD7392" -> "PURPLE-ELEPHANT-42") and sends the
    # conversation on: the first question, the model's answer, a new question. It read as two conversations (the same
    # run against Anthropic, whose system prompt is no message, read as one), the answer never seen sent back.
    from lib.checks import run_checks
    name = "ruby-llm-deepseek-replaced-instructions.yml"
    upload = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())])
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert second.request.messages[2].text == first.response.message.text
    assert [(f.code, f.severity, f.round) for f in run_checks(conversation.trace)] == [
        ("history-rewritten", "info", 2)]


def test_a_call_made_again_whose_earlier_copies_each_got_another_result_is_not_a_loop():
    # "Roll the dice 3 times": gpt-oss on Ollama Cloud calls dice_roll (no arguments) once a round, and each roll comes
    # back different ({"roll":1}, then 2, then 3). The third call was said to be "probably looping because the result
    # does not tell it what it needs", though each result told it something new.
    from lib.checks import run_checks
    name = "ruby-llm-ollama-cloud-three-rolls.yml"
    [conversation] = read_upload([(name, (FIXTURES / "containers" / name).read_bytes())]).conversations
    last = conversation.trace.rounds[-1]
    assert [p.content for m in last.request.messages for p in m.tool_results] == [
        '{"roll":1}', '{"roll":2}', '{"roll":3}']
    assert [f.code for f in run_checks(conversation.trace)] == []


def test_a_cohere_v2_chat_run_is_its_rounds_with_calls_results_and_counts_as_cohere_sent_them():
    # openllmetry's recording of Cohere's v2 chat: two calls, then their results sent back. Both calls were left out
    # as "a model call to an API Roundtrip does not read".
    upload = _read("containers/ollm-cohere-v2-tool-history.yaml")
    assert upload.notes == ()
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert conversation.trace.model == "command-r"
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("get_time_dp3men9jrvhf", "get_time", {"location": "Tokyo"}),
        ("get_weather_d7arjgsc96yf", "get_weather", {"location": "Tokyo"})]
    # `tool_plan`: what the model said it would do before its calls.
    assert first.response.message.text == "I will search for the current time and weather in Tokyo."
    assert [(r.response.finish_reason, r.response.stop) for r in (first, second)] == [
        ("tool_calls", "tool_calls"), ("stop", "end")]
    assert [(r.call_id, r.content) for m in second.request.messages for r in m.tool_results] == [
        ("get_time_dp3men9jrvhf", "4:20 PM"), ("get_weather_d7arjgsc96yf", "Sunny 20 degrees Celsius")]
    assert second.response.message.text.startswith("The current time in Tokyo is 4:20 PM")
    # `usage.tokens`, what the model read (Cohere's own prompt included), not `billed_units` (62 in, 28 out).
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in (first, second)] == [
        (968, 83), (1094, 102)]
    assert _findings(upload, "missing-tool-result") == []
    # The client sent the turn back without its tool_plan: true, and said.
    [rewritten] = _findings(upload, "history-rewritten")
    assert "the text the model wrote beside its calls is left out" in rewritten.message


def test_a_json_lines_log_of_cohere_v2_request_and_response_pairs_reads_as_the_cassette_does():
    # The bodies of openllmetry's Cohere recording, logged one call a line under `request` and `response`, as the
    # other providers' pair logs are: each line was refused as "not an OpenAI Chat Completions response body".
    import yaml
    cassette = yaml.safe_load((FIXTURES / "containers" / "ollm-cohere-v2-tool-history.yaml").read_text())
    lines = [orjson.dumps({"request": orjson.loads(i["request"]["body"]),
                           "response": orjson.loads(i["response"]["body"]["string"])})
             for i in cassette["interactions"]]
    upload = read_upload([("cohere.jsonl", b"\n".join(lines))])
    assert upload.problems == ()
    assert list(upload.formats) == ["cohere"]
    [conversation] = upload.conversations
    first, second = conversation.trace.rounds
    assert [(c.id, c.name) for c in first.tool_calls] == [
        ("get_time_dp3men9jrvhf", "get_time"), ("get_weather_d7arjgsc96yf", "get_weather")]
    assert first.response.message.text == "I will search for the current time and weather in Tokyo."
    assert [(r.call_id, r.content) for m in second.request.messages for r in m.tool_results] == [
        ("get_time_dp3men9jrvhf", "4:20 PM"), ("get_weather_d7arjgsc96yf", "Sunny 20 degrees Celsius")]
    assert [(r.response.usage.input_tokens, r.response.usage.output_tokens) for r in (first, second)] == [
        (968, 83), (1094, 102)]
    # Read before the Chat Completions reader, it claims no line of any other format's fixtures.
    from lib.logs.cohere import CohereFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(CohereFormat)


def test_a_cohere_v2_stream_is_joined_into_the_call_and_plan_it_streamed():
    # langchain-cohere's recording: the plan in 24 tool-plan-delta events, the arguments in 17 tool-call-delta events.
    from lib.provenance import origin_line
    upload = _read("containers/langchain-cohere-stream-tool-call.yaml")
    assert (upload.problems, upload.notes) == ((), ())
    [conversation] = upload.conversations
    [round_] = conversation.trace.rounds
    assert [(c.id, c.name, c.arguments) for c in round_.tool_calls] == [
        ("Person_2fnrphbsnr66", "Person", {"name": "Erick", "age": 27})]
    assert round_.response.message.text.startswith("I will use the Person tool to create a person with the name Erick")
    assert (round_.response.finish_reason, round_.response.usage.input_tokens) == ("tool_calls", 906)
    assert origin_line(conversation.trace, round_).startswith("Converted from a Cohere v2 chat body")


def test_a_cohere_v2_stream_cut_inside_a_call_is_said_cut_by_the_recording_not_written_wrong():
    # langchain-cohere's recorded stream, its body ending inside the Person call's arguments (after the 37th event,
    # before tool-call-end and message-end): the call is cut short by the stream, as an OpenAI or Anthropic one is.
    import yaml
    from lib.checks import run_checks
    cassette = yaml.safe_load((FIXTURES / "containers" / "langchain-cohere-stream-tool-call.yaml").read_text())
    first = cassette["interactions"][0]
    events = first["response"]["body"]["string"].split("\n\n")
    first["response"]["body"]["string"] = "\n\n".join(events[:37]) + "\n\n"
    cut = yaml.safe_dump({"interactions": [first], "version": 1}).encode()
    [conversation] = read_upload([("cut.yaml", cut)]).conversations
    [round_] = conversation.trace.rounds
    assert [(c.name, c.arguments_raw) for c in round_.cut_calls] == [("Person", '{\n    "name": "Erick",')]
    codes = {f.code: f for f in run_checks(conversation.trace)}
    assert "invalid-arguments" not in codes
    assert codes["truncated-arguments"].message.startswith(
        "The recording ends while the model was writing this Person call, before its arguments closed")
    # The whole recording's call closed: nothing is cut.
    [whole] = _read("containers/langchain-cohere-stream-tool-call.yaml").conversations
    assert whole.trace.rounds[0].cut_calls == ()


def test_a_cohere_reasoning_answer_keeps_its_thinking_and_cached_count():
    # command-a-reasoning's gzip answer: a `thinking` block, then the call; `usage.cached_tokens` beside the counts.
    [conversation] = _read("containers/langchain-cohere-reasoning-tool-call.yaml").conversations
    [round_] = conversation.trace.rounds
    thinking = [p for p in round_.response.message.parts if getattr(p, "type", None) == "thinking"]
    assert len(thinking) == 1 and thinking[0].raw["thinking"].startswith("Okay, the user is asking for the weather")
    assert [(c.name, c.arguments) for c in round_.tool_calls] == [("get_the_weather", {"location": "Osaka"})]
    usage = round_.response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1494, 330, 1008)


def test_a_google_adk_session_is_one_conversation_a_round_per_model_answer_cut_from_its_events():
    # google/adk-python's test session: a greeting, then a function_call to update_fc, its function_response and the
    # answer. It matched no format.
    upload = _read("containers/adk-session-function-call.json")
    assert list(upload.formats) == ["adk-session"]
    [conversation] = upload.conversations
    greeting, call, answer = conversation.trace.rounds
    assert conversation.id == "ead43200-b575-4241-9248-233b4be4f29a"
    assert greeting.response.message.text.startswith("Hello! 👋  How can I help you today?")
    [made] = call.tool_calls
    assert (made.name, made.arguments["data_one"], made.arguments["data_three"]) == (
        "update_fc", "RRRR", ["apple", "banana"])
    assert [m.role for m in answer.request.messages] == ["user", "assistant", "user", "assistant", "tool"]
    assert answer.request.messages[4].tool_results[0].call_id == made.id
    assert answer.response.message.text.startswith("OK. I've updated the data.")
    # The session keeps no request: each is the events before the answer, and said to be.
    assert all(r.request_from_transcript for r in conversation.trace.rounds)
    assert _findings(upload, "missing-tool-result") == []


def test_an_adk_session_as_the_web_api_writes_it_keeps_its_counts_and_call_ids():
    # The same shape in the web API's camelCase, with the fields later ADK adds: usageMetadata, finishReason, ids.
    event = {"invocationId": "e-1", "author": "agent", "id": "b", "timestamp": 1750052502.5,
             "content": {"role": "model", "parts": [{"functionCall": {"id": "adk-1", "name": "roll_die",
                                                                      "args": {"sides": 50}}}]},
             "usageMetadata": {"promptTokenCount": 555, "candidatesTokenCount": 5}, "finishReason": "STOP"}
    session = {"id": "s", "appName": "dice", "userId": "u", "events": [
        {"invocationId": "e-1", "author": "user", "id": "a", "timestamp": 1750052501.0,
         "content": {"role": "user", "parts": [{"text": "Roll a 50 sided die"}]}},
        {**event, "partial": True, "id": "p"}, event,
        {"invocationId": "e-1", "author": "agent", "id": "c", "timestamp": 1750052503.0,
         "content": {"role": "user", "parts": [{"functionResponse": {"id": "adk-1", "name": "roll_die",
                                                                     "response": {"result": 13}}}]}},
        {"invocationId": "e-1", "author": "agent", "id": "d", "timestamp": 1750052504.0,
         "content": {"role": "model", "parts": [{"text": "I rolled a 13."}]}}]}
    upload = read_upload([("session.json", orjson.dumps(session))])
    [conversation] = upload.conversations
    rolled, said = conversation.trace.rounds
    assert [(c.name, c.arguments) for c in rolled.tool_calls] == [("roll_die", {"sides": 50})]
    assert (rolled.response.usage.input_tokens, rolled.response.usage.output_tokens) == (555, 5)
    assert said.request.messages[2].tool_results[0].content == '{"result": 13}'
    assert said.response.message.text == "I rolled a 13."


def test_adk_session_detection_claims_no_other_format_s_lines():
    from lib.logs.adk import AdkSessionFormat
    from tests.formats_support import assert_detects_only_its_own
    assert_detects_only_its_own(AdkSessionFormat)


def test_an_openai_batch_recorded_over_http_is_its_uploaded_requests_joined_to_the_output_file_by_custom_id():
    # ruby_llm's recording: the JSONL of two /v1/responses requests uploaded to /v1/files as a multipart form, the
    # batch created and polled until it named its output file, then that file's content. All five interactions were
    # "not a model call".
    upload = _read("containers/ruby-llm-openai-batch-responses.yml")
    assert (upload.problems, upload.notes) == ((), ())
    assert {c.id: [r.response.message.text for r in c.trace.rounds] for c in upload.conversations} == {
        "0": ["4"], "1": ["Jupiter"]}
    asked = {c.id: c.trace.rounds[0].request.messages[0].text for c in upload.conversations}
    assert asked == {"0": "What is 2 + 2? Just the number.", "1": "Name the largest planet in our solar system. One word."}
    assert [c.trace.rounds[0].response.usage.output_tokens for c in upload.conversations] == [109, 115]


def test_an_openai_batch_whose_output_was_not_recorded_is_its_requests_alone():
    import yaml
    cassette = yaml.safe_load((FIXTURES / "containers/ruby-llm-openai-batch-responses.yml").read_text())
    cassette["http_interactions"] = cassette["http_interactions"][:-1]  # the output file's content
    upload = read_upload([("batch.yml", yaml.safe_dump(cassette).encode())])
    assert upload.problems == ()
    assert [(c.id, c.trace.rounds[0].response) for c in upload.conversations] == [("0", None), ("1", None)]


def test_a_stream_the_server_closed_with_done_but_no_finish_reason_cut_no_call():
    # simonw/llm's cassette of OpenRouter (Novita serving moonshotai/kimi-k2): the llm_version call streams whole,
    # then a usage chunk and `data: [DONE]`, and no chunk names a finish_reason. The call was said cut by the
    # recording, an error ("the program ran arguments the model never finished"), and `lib check` exited 1.
    from lib.checks import run_checks
    [conversation] = _read("containers/llm-openrouter-no-finish-reason.yaml").conversations
    first, second = conversation.trace.rounds
    assert [(c.name, c.arguments_raw) for c in first.tool_calls] == [("llm_version", "{}")]
    assert first.cut_calls == ()
    assert [f.code for f in run_checks(conversation.trace)] == []
    assert second.response.finish_reason == "stop"
