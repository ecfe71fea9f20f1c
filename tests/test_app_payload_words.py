"""A new user's recordings, uploaded through the sidebar: each figure says what it counts, in words that are true of
the file (defects found in a trial on tests/fixtures and tests/fixtures/containers)."""

from tests.screen import screen, uploaded


def test_the_tool_list_figure_says_it_is_our_count_with_anthropics_tool_use_prompt_in_it(app):
    # oi-js-nock-bedrock-stream-tool.json: one Bedrock ConverseStream call to Claude 3.5 Sonnet with a tool, its
    # reported input 414. The Tokens page showed "Tool list, every round: 438 tokens", more than the whole input,
    # and did not say that 346 of them are Anthropic's tool-use system prompt, added by us at its published size.
    at = uploaded(app, "containers/oi-js-nock-bedrock-stream-tool.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert [m.value for m in at.metric if m.label == "Tool list, every round"] == ["438 tokens"]
    assert [m.value for m in at.metric if m.label == "Input billed over all calls"] == ["414"]
    shown = screen(at)
    assert ("Our estimate, counted with o200k_base: the tool definitions as JSON text, plus Anthropic's tool-use "
            "system prompt of 346 tokens, which the provider adds to every request that sends tools (its published "
            "size; no log holds it).") in shown
    assert "It is above round 1's whole reported input" in shown


def test_an_openai_tool_list_is_said_to_be_our_count_of_its_json_alone(app):
    # pydantic-ai-openai-tool-calls.yaml: two Chat Completions calls with a tool list; no provider prompt is added.
    at = uploaded(app, "containers/pydantic-ai-openai-tool-calls.yaml")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    shown = screen(at)
    assert "the tool definitions as JSON text." in shown
    assert "tool-use system prompt" not in shown


def test_the_explorers_gap_reason_does_not_call_an_opentelemetry_span_an_agents_session_log(app):
    # otlp-span-per-call.jsonl: a chat span whose gen_ai attributes carry no tool definitions (opt-in in the GenAI
    # conventions), though the model called get_temperature. The explorer's reason for the gap said "the log's format
    # does not always keep the tool list (an agent's session log never does)": the file is an OTLP export.
    from tests.screen import round_shown

    shown = round_shown(app, "otlp-span-per-call.jsonl", 1)
    assert "agent's session log" not in shown
    assert ("Why: the log's format keeps the tool list only where the instrumentation opts in (an OpenTelemetry GenAI "
            "span), and this log has none, so the list sent and billed is not in our count") in shown


def test_compare_opens_an_upload_of_two_conversations_on_both_of_them(app):
    # otel-genai.jsonl: two conversations. Compare opened with the first on the left and a bundled pitfall trace on
    # the right, a run the user never uploaded; the upload's other conversation is the run to compare with.
    from lib.ui import compare

    at = uploaded(app, "otel-genai.jsonl")
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    left, right = at.selectbox(key=compare.LEFT), at.selectbox(key=compare.RIGHT)
    assert left.value == "upload:0"
    assert right.value == "upload:1"
    assert right.format_func(right.value).startswith("Your upload (otel-genai.jsonl)")


def test_a_one_round_trace_says_its_input_billed_in_words_not_as_a_lone_dot(app):
    # oi-js-nock-bedrock-stream-tool.json holds one call, 414 tokens in. "Input billed so far, against one call with
    # the same context" drew one dot on a 0 to 1 axis: no growth to see, and the axis was no round of the trace.
    at = uploaded(app, "containers/oi-js-nock-bedrock-stream-tool.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith("overview.cumulative")
                or "input billed so far" in c.proto.spec]
    assert ("One round, so nothing to draw: the input billed is that one call's, 414 tokens, which is one call with "
            "the same context.") in screen(at)


def test_a_trace_of_several_rounds_still_draws_its_input_billed_so_far(app):
    at = uploaded(app, "containers/pydantic-ai-openai-tool-calls.yaml")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert [c for c in at.get("plotly_chart") if "input billed so far" in c.proto.spec]
    assert "One round, so nothing to draw" not in screen(at)


def test_compare_says_what_an_opentelemetry_span_keeps_not_what_an_agents_session_log_never_does(app):
    # otel-genai.jsonl's second conversation is a span that kept neither the instructions nor a tool list, and its
    # model called no tool. Compare, opened on the upload's two conversations, said "its format does not always keep
    # them, as an agent's session log never does ... though the right run sent its own": the file is an OTLP export,
    # whose format keeps them where the instrumentation opts in, and whether the call sent any is not in it.
    at = uploaded(app, "otel-genai.jsonl")
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    shown = screen(at)
    assert "agent's session log" not in shown
    assert ("The right run's log keeps no instructions (its format keeps them only where the instrumentation opts in, "
            "as an OpenTelemetry GenAI span does): the left run's are listed as only in the left, though whether the "
            "right run sent any is not in its log.") in shown
    assert ("The right run's log keeps no tool list (its format keeps one only where the instrumentation opts in, as "
            "an OpenTelemetry GenAI span does): its tools are not known.") in shown
