"""A new engineer's own recordings, uploaded one at a time through the sidebar: what each page says of them is true of
the file (defects found walking every page in Chromium)."""

from tests.screen import uploaded


def _tokens_page(app, fixture: str):
    at = uploaded(app, fixture)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_the_tokens_page_does_not_call_an_opentelemetry_span_an_agents_session_log(app):
    # otlp-span-per-call.jsonl: two chat spans whose gen_ai attributes carry no tool definitions (opt-in in the GenAI
    # conventions), though the model called get_temperature. The page said "This log's format (an agent's session
    # log) keeps no tool list": the file is an OTLP export, and its format keeps the list where the instrumentation
    # opts in.
    at = _tokens_page(app, "otlp-span-per-call.jsonl")
    captions = " ".join(c.value for c in at.caption)
    assert "agent's session log" not in captions
    assert ("This log's format (an OpenTelemetry GenAI span) keeps the tool list only where the instrumentation opts "
            "in, and this log has none: it was sent and billed, but it has no bar of its own; its tokens are in the "
            "part reported beyond our count.") in captions


def test_a_span_that_kept_neither_instructions_nor_tools_is_not_said_to_have_sent_them():
    # otel-genai.jsonl's timed-out call: its span lacks both opt-in parts and the model called no tool, so whether
    # either was sent is not in the log.
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.ui.accounting import parts_not_logged_words
    from tests.formats_support import FIXTURES

    upload = read_upload([("otel-genai.jsonl", (FIXTURES / "otel-genai.jsonl").read_bytes())])
    rows = summarize(upload.conversations[1].trace, counter_for("o200k_base").counter)
    assert parts_not_logged_words(rows) == (
        "This log's format (an OpenTelemetry GenAI span) keeps the instructions and the tool list only where the "
        "instrumentation opts in, and this log has neither: whether they were sent is not in it; any sent were billed, "
        "but no usage was reported, so no figure here holds them: each round's input is estimated from what the log "
        "holds.")


def test_a_claude_code_prompt_that_no_response_answers_is_shown_as_the_request_the_log_ends_on(app):
    # claude-code-session.jsonl's line 11: after the fifth response the person asks "This is really helpful! Let me try
    # to implement a timing decorator..." and the log holds no answer. Every page left the prompt out, and round 5 said
    # "final answer" and "The program ran nothing after this response: the log ends here."
    from tests.screen import round_shown

    last = round_shown(app, "claude-code-session.jsonl", 5)
    assert "the log ends here" not in last
    assert "round 6 is the program's next request" in last
    shown = round_shown(app, "claude-code-session.jsonl", 6)
    assert "This is really helpful! Let me try to implement a timing decorator" in shown
    assert "no response" in shown.lower()


def test_the_checks_name_an_empty_result_by_its_tool_where_the_call_id_is_the_importers_not_the_logs(app):
    # adk-session-function-call.json: ADK's function_call and function_response carry no id; the importer names the
    # call call_3_0 by its place. The Checks page said "The result for call_3_0 is empty.": no such id is in the file.
    at = uploaded(app, "containers/adk-session-function-call.json")
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    said = "\n".join(str(e.value) for e in (*at.main.text, *at.main.markdown, *at.main.caption))
    assert "The result for call_3_0 is empty" not in said
    assert ("The result for the update_fc call (its id, call_3_0, is the importer's: the log gives the call none) is "
            "empty.") in said


def test_an_estimated_trace_s_input_chart_names_no_reported_part(app):
    # adk-session-function-call.json: an ADK session keeps no usage, so every round's input is our estimate. The input
    # chart's legend listed "reported beyond our count (the tool definitions the log lacks, ...)" with no bar, and its
    # caption said each bar includes "the part reported beyond our count": nothing was reported, and the tool list the
    # log lacks is in no figure.
    import json

    at = _tokens_page(app, "containers/adk-session-function-call.json")
    legend = {t["name"] for c in at.get("plotly_chart") for t in json.loads(c.proto.spec)["data"] if "name" in t}
    assert not [name for name in legend if "beyond our count" in name]
    caption = next(c.value for c in at.caption if c.value.startswith("Counted with o200k_base"))
    assert "reported beyond our count" not in caption
    assert "no usage was reported, so each bar is our count of what the log holds" in caption


def test_an_estimated_trace_s_rounds_table_has_no_reported_column_the_explorer_does_not_show(app):
    # The explorer's split of adk-session-function-call.json's rounds names no part beyond our count (nothing was
    # reported); the rounds table and its CSV had a column "in: reported beyond our count (the tool definitions the
    # log lacks, ...)" of 0s, as if 0 tokens of the lacking tool list had been reported.
    at = _tokens_page(app, "containers/adk-session-function-call.json")
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert not [c for c in rounds.columns if "beyond our count" in c]
    assert rounds["tokens in"].tolist() == [7, 67, 119]


def test_a_claude_code_prompt_after_a_call_whose_result_the_log_lost_is_shown_too(app):
    # claude-code-edge-cases.jsonl ends on "Testing special characters: café, ..." after round 3's MultiEdit call,
    # whose result was on a damaged line: the prompt was on no page and round 3 read as the log's end.
    from tests.screen import round_shown

    shown = round_shown(app, "claude-code-edge-cases.jsonl", 4)
    assert "Testing special characters: café, naïve, résumé" in shown
    assert "A call of the response before it has no result in the log" in shown
