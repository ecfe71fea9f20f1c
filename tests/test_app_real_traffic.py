"""Real recordings of other projects' traffic, opened through the sidebar's uploader: what the explorer says about
them must be true of what the log holds."""

from tests.screen import screen, uploaded


def test_a_generation_the_provider_rejected_is_not_said_to_be_unseen_by_the_model(app):
    # Groq's recorded 400 `tool_use_failed`: the model answered, and the provider refused what it wrote
    # (`failed_generation`). The request was fine; the model's output was not.
    shown = screen(uploaded(app, "openai-compatible-tool-use-failed.jsonl"))
    assert "with HTTP 400" in shown and '"foo": "bar"' in shown
    assert "The model saw nothing of this round" not in shown
    assert "fix the request" not in shown
    assert "The model did answer: the provider rejected what it wrote" in shown


def test_a_failed_call_that_the_program_retried_is_not_the_end_of_the_round_trip(app):
    # After the 400, pydantic-ai sent round 2: the rejected call with the validation errors as its result.
    shown = screen(uploaded(app, "openai-compatible-tool-use-failed.jsonl"))
    assert "the round trip ends here" not in shown
    assert "The call failed, so the program ran nothing; round 2 is its next request." in shown


def test_a_body_converted_from_another_format_is_not_called_the_payload_as_recorded(app):
    # Bedrock Converse keeps `output.message.content[1].toolUse` and `stopReason`; the explorer shows the round as an
    # Anthropic Messages body, whose step paths (`content[1]`, `stop_reason`) are in no line of the log.
    shown = screen(uploaded(app, "bedrock-converse.jsonl"))
    assert "As recorded: the payload the program sent and received." not in shown
    assert ("Converted from an AWS Bedrock Converse body: the content is as recorded, written here as an Anthropic "
            "Messages body, so the paths on the steps name this body, not the log's.") in shown


def test_a_span_is_not_called_the_payload_the_program_sent(app):
    # An OpenTelemetry span records messages as attributes; no request or response body was logged.
    shown = screen(uploaded(app, "otlp-span-per-call.jsonl"))
    assert "As recorded: the payload the program sent and received." not in shown
    assert "Converted from an OpenTelemetry GenAI span: the content is as recorded, written here as an OpenAI Chat " \
           "Completions body" in shown


def test_a_tool_list_read_out_of_the_system_prompt_is_counted_once(app):
    # hermes-agent wrote its tools into the system prompt's <tools> block, and that text is all the model got. The
    # importer lists those tools as the round's tool definitions too; the estimate must not count them twice.
    at = uploaded(app, "sharegpt-hermes-agent.jsonl")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert where.startswith("Where the input goes (416 in all): instructions 217 · tool definitions 74 ·")
    assert {m.label: m.value for m in at.metric}["Input tokens (estimated)"] == "≈ 416"
    assert "tool list (read from the system prompt)" in screen(at)


def test_a_tool_list_the_log_did_not_keep_is_not_shown_as_zero_tokens(app):
    # tau-bench keeps the messages of each episode, not the tools it sent; the model called tools all the same.
    at = uploaded(app, "containers/tau-bench-airline.json")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert where.endswith("The log kept no tool list, though the model called tools: the list was sent, but it is "
                          "neither shown nor counted here.")
    at.switch_page("pages/tokens.py").run()
    assert {m.label: m.value for m in at.metric}["Tool list, every round"] == "not in the log"
