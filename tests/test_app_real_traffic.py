"""Real recordings of other projects' traffic, opened through the sidebar's uploader: what the explorer says about
them must be true of what the log holds."""

import json

import pytest

from tests.screen import ALERTS, READ, figures, round_shown, screen, uploaded


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
    assert "the log ends here" not in shown
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
    assert where.startswith("Where the input goes (≈ 416 in all): instructions 217 · tool definitions 74 ·")
    assert figures(at)["Input tokens (estimated)"].value == "≈ 416"
    assert "tool list (read from the system prompt)" in screen(at)


def test_a_tool_list_the_log_did_not_keep_is_not_shown_as_zero_tokens(app):
    # tau-bench keeps the messages of each episode, not the tools it sent; the model called tools all the same.
    at = uploaded(app, "containers/tau-bench-airline.json")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert where.endswith("The log kept no tool list, though the model called tools: the list was sent, but it is "
                          "neither shown nor counted here.")
    at.switch_page("pages/overview.py").run()
    assert {m.label: m.value for m in at.metric}["Tool list, every round"] == "not in the log"


def test_a_json_array_is_counted_in_elements_not_lines(app):
    # tau-bench's file is one JSON array of two episodes over a thousand lines: the sidebar counts what it read.
    sidebar = " ".join(t.value for t in uploaded(app, "containers/tau-bench-airline.json").sidebar.text)
    assert "2 elements: 7 rounds in 2 conversations; 0 elements skipped" in sidebar
    assert "2 elements read as agent-episode" in sidebar
    assert "2 lines" not in sidebar


def test_a_rejected_generation_is_counted_as_output_and_the_failed_calls_billing_is_not_claimed(app):
    # Groq's 400 `tool_use_failed` carries what the model wrote (`failed_generation`): that is the round's output,
    # not 0 tokens. Whether the failed call's input was billed, the log does not say; the sums must not claim it.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    metrics = figures(at)
    assert "Output tokens (estimated)" not in metrics
    output = metrics["Output tokens (estimated, rejected by the provider)"]
    assert output.value.startswith("≈ ") and output.value != "≈ 0"
    assert "the log does not say whether the provider billed it" in metrics["Input tokens (estimated)"].help
    at.switch_page("pages/overview.py").run()
    billed = {m.label: m for m in at.metric}["Input billed over all calls"]
    # The two reported calls alone: the estimate of the failed one is not in the sum, so the sum is no estimate.
    # Its input is known; whether it was billed is not, and that is what is said beneath the figure.
    assert billed.value == "637"
    assert "1 failed call left out: whether it was billed is not in the log." in [c.value for c in at.caption]


def test_a_failed_call_whose_error_holds_no_output_says_the_output_is_not_known(app):
    # OpenAI's recorded 400 for a request missing a tool result: the error says nothing of any output.
    at = uploaded(app, "openai-error.jsonl")
    at.number_input(key="explorer.round").set_value(2).run()
    metrics = {f.label: f.value for f in figures(at).values()}
    assert metrics["Output tokens"] == "not known" and "Output tokens (estimated)" not in metrics


def test_the_tokens_page_gives_no_reason_for_a_gap_with_a_request_nobody_counted(app):
    # Anthropic's batch results keep each answer, not the request: the explorer says nothing of the request is
    # counted, so the whole reported input is no gap between two counts, and the provider's chat template is no
    # reason for it.
    at = uploaded(app, "anthropic-batch-results.jsonl")
    assert "The request was not in the log, so nothing of it is counted or estimated." in screen(at)
    at.switch_page("pages/overview.py").run()
    shown = screen(at)
    assert "Input billed over all calls" in {m.label for m in at.metric}
    assert "than our count" not in shown and "chat template" not in shown


def test_the_tokens_page_does_not_count_the_requests_of_a_log_that_kept_only_answers(app):
    # Anthropic's batch results: the answer of each request, none of the requests. How many messages were sent,
    # how large the tool list was and how much input was resent are not in the log, not zero.
    at = uploaded(app, "anthropic-batch-results.jsonl")
    at.switch_page("pages/overview.py").run()
    shown = {m.label: m.value for m in at.metric}
    assert shown["Tool list, every round"] == "not in the log"
    assert shown["Input already sent in the previous request"] == "not in the log"
    assert shown["Input billed over all calls"] == "1,122"  # reported by the API
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert set(rounds["messages sent"]) == set(rounds["new messages"]) == {"not in the log"}
    # Nothing of the request was counted: the reported input is not "template, provider tokens".
    assert rounds["in: reported beyond our count (template, provider tokens)"].isna().all()
    assert rounds["tokens in"].tolist() == [1122]
    # Nor are the messages drawn as a bar of 0, nor as empty axes: the page says why there is no chart.
    assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith(("overview.messages", "overview.breakdown"))]
    assert "No chart: the log kept no request of this trace" in screen(at)


def test_the_input_chart_stacks_nothing_for_a_request_the_log_did_not_keep():
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.ui.charts import input_breakdown
    from tests.screen import FIXTURES
    upload = read_upload([("results.jsonl", (FIXTURES / "anthropic-batch-results.jsonl").read_bytes())])
    rows = summarize(upload.conversations[0].trace, counter_for("o200k_base").counter)
    # Every part's bar is 0 (the remainder, 0 in every round, has no series at all).
    bars = [list(bar.y) for bar in input_breakdown(rows).data]
    assert bars and all(y == [0] for y in bars)


def test_a_span_that_recorded_no_finish_reason_is_not_shown_one_named_none(app):
    # These OpenInference spans carry no llm.finish_reason: the converted body has finish_reason null. The explorer
    # pinned step 2 to it as "finish_reason None: run the tools" and showed "Stop signal ...: None".
    shown = screen(uploaded(app, "openinference.jsonl"))
    assert "None" not in shown
    assert "The log records no stop signal; read as 'tool_calls' from the message." in shown


def test_a_call_that_stopped_for_tools_the_span_did_not_keep_is_not_said_to_have_run_nothing(app):
    # opentelemetry-instrumentation-openai-v2 without content capture: round 1's span says finish_reason
    # 'tool_calls' but holds no calls, and the tool ran in a span without attributes. Nothing says the program ran
    # nothing; the log does not say what it ran.
    shown = screen(uploaded(app, "otlp-span-per-call-no-content.jsonl"))
    assert "finish_reason 'tool_calls': run the tools" in shown
    assert "The program ran nothing after this response" not in shown
    assert "not recorded: the trace does not say what the program ran" in shown


def test_the_last_request_of_a_requests_only_log_is_not_said_to_have_had_a_response(app):
    # A log of requests alone: round 1's response is read off request 2; request 2 has nothing after it. No response
    # came back that the program could have "run nothing after".
    shown = round_shown(app, "requests-only.jsonl", 2)
    assert "The program ran nothing after this response" not in shown
    assert "not recorded: the trace has no response to this request, so nor what the program did next" in shown


def test_the_explorer_shows_the_result_a_cut_transcript_ends_on_in_the_programs_lane(app):
    # tau-bench's trajectory cut on the search_onestop_flight result: round 6's lane shows what the tool returned.
    shown = round_shown(app, "tau-bench-airline-cut.jsonl", 6)
    assert "not recorded: the trace does not say what the program ran" not in shown
    assert "HAT057" in shown


def test_a_round_the_log_kept_half_of_is_not_called_what_the_program_sent_and_received(app):
    # Bare chat.completion bodies keep no request; a requests-only log's last request has no response after it.
    assert "As recorded: the response the program received; the request was not in the log." in screen(
        uploaded(app, "bare-responses.jsonl"))
    last = round_shown(app, "requests-only.jsonl", 2)
    assert "As recorded: the request the program sent; no response to it was in the log." in last
    assert "sent and received" not in last


def test_the_sidebar_numbers_a_documents_notes_and_problems_in_its_own_unit(app):
    # A .traj file is one document, an Inspect log a list of samples: "line 1" named no line of either.
    sidebar = [t.value for t in uploaded(app, "containers/swe-agent-test-repo.traj").sidebar.text]
    assert any(t.startswith("document 1: the run's trajectory has 5 steps") for t in sidebar)
    assert not any(t.startswith("line 1:") for t in sidebar)


def test_a_skipped_sample_is_numbered_as_a_sample():
    from lib.logs.upload import read_upload
    from tests.screen import FIXTURES
    data = (FIXTURES / "containers" / "inspect-system-prompt.json").read_bytes()
    upload = read_upload([("log.json", data[:data.index(b'"id": 2,') + 20])])
    [problem] = upload.problems
    assert upload.said(problem).startswith("sample 2: sample 2 is not valid JSON (")


def test_a_transcript_that_kept_no_tool_list_is_not_said_to_offer_the_model_none(app):
    # tau-bench keeps the messages, not the tools the agent offered: round 3 calls get_user_details, so a tool list
    # was sent. "No tools in this request: the model cannot ask for any" sat right above that call.
    shown = round_shown(app, "tau-bench-airline-cut.jsonl", 3)
    assert "get_user_details" in shown
    assert "the model cannot ask for any" not in shown
    assert "The log kept no tool list, though the model called tools" in shown


def test_a_request_the_log_ends_on_is_not_said_to_have_been_in_flight(app):
    # A log of requests alone ends on request 2: whether its call was still running or its answer was dropped, the
    # log cannot tell.
    shown = round_shown(app, "requests-only.jsonl", 2, READ + ALERTS)
    assert "still in flight" not in shown
    assert "No response recorded for this round: the log ends on this request" in shown


def test_a_request_the_log_ends_on_has_no_output_counted_as_zero(app):
    # requests-only.jsonl ends on request 2: nothing the model wrote was recorded, so its output is not known, not 0.
    from lib.ui import state
    at = uploaded(app, "requests-only.jsonl")
    at.number_input(key=state.ROUND).set_value(2).run()
    assert [f.value for f in figures(at).values() if f.label.startswith("Output tokens")] == ["not in the log"]


def test_the_input_chart_names_our_overcount_as_such_not_as_tokens_our_tokenizer_did_not_count():
    # openai-responses.jsonl: our count of rounds 2 to 4 is above the reported input. The part that went below zero
    # was labelled "not counted by our tokenizer", the opposite of what it was.
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import NOT_COUNTED, counter_for
    from lib.ui.charts import OVERCOUNT, input_breakdown
    from tests.screen import FIXTURES
    upload = read_upload([("responses.jsonl", (FIXTURES / "openai-responses.jsonl").read_bytes())])
    trace = upload.conversations[0].trace
    series = {bar.name: list(bar.y) for bar in input_breakdown(summarize(trace, counter_for("o200k_base").counter)).data}
    assert NOT_COUNTED not in series  # every round is overcounted: no part beyond our count
    assert any(tokens < 0 for tokens in series[OVERCOUNT])


def _output_series(at, key: str) -> list[tuple[list, list]]:
    [chart] = [c for c in at.get("plotly_chart") if c.proto.id.endswith(key)]
    return [(s["x"], s["y"]) for s in json.loads(chart.proto.spec)["data"] if s["name"].startswith("output")]


def test_a_request_the_log_ends_on_is_not_plotted_or_tabled_as_zero_output_tokens(app):
    # requests-only.jsonl ends on request 2. The explorer's "All rounds" chart and the Tokens page's drew round 2's
    # output as a bar of 0 tokens, and the table left a blank: it is not in the log, so a gap, and the words.
    at = uploaded(app, "requests-only.jsonl")
    assert _output_series(at, "explorer.tokens_chart") == [([1], [17])]
    at.switch_page("pages/overview.py").run()
    assert _output_series(at, "overview.tokens") == [([1], [17])]
    rounds = next(d.value for d in at.dataframe if "tokens out" in d.value.columns)
    assert rounds["tokens out"].tolist() == ["17", "not in the log"]
    assert rounds["tool calls"].tolist() == ["2", "not in the log"]  # none were recorded, not "none were made"


def test_a_rounds_table_with_figures_not_in_the_log_goes_to_the_browser_as_it_is():
    # A column of numbers and "not in the log" is no Arrow column: Streamlit logged a traceback on every draw and
    # converted it behind our back.
    import pyarrow
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.ui.accounting import rounds_table
    from tests.screen import FIXTURES
    trace = read_upload([("r.jsonl", (FIXTURES / "requests-only.jsonl").read_bytes())]).conversations[0].trace
    table = pyarrow.Table.from_pandas(rounds_table(summarize(trace, counter_for("o200k_base").counter)))
    assert table.column("tokens out").to_pylist() == ["17", "not in the log"]


def test_a_failed_calls_output_is_not_known_in_the_rounds_table_chart_and_cli_as_on_its_card():
    # openai-error.jsonl's round 2 was refused with a 400 and no output: its card and the HTML export say "not
    # known", the rounds table said 0 tokens out and the CLI printed 0.
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.ui.accounting import rounds_table
    from tests.screen import FIXTURES
    trace = read_upload([("e.jsonl", (FIXTURES / "openai-error.jsonl").read_bytes())]).conversations[0].trace
    rows = summarize(trace, counter_for("o200k_base").counter)
    assert rounds_table(rows)["tokens out"].tolist() == ["30", "not known"]
    assert [r.output_if_known for r in rows] == [30, None]
    import pyarrow
    assert pyarrow.Table.from_pandas(rounds_table(rows)).column("tokens out").to_pylist() == ["30", "not known"]


def test_a_text_agents_round_that_the_next_round_goes_on_from_is_not_called_the_end(app):
    # mini-swe-agent runs the bash command it reads in the model's text and sends its output as the next user turn:
    # every round said "final answer" and "the round trip ends here", ten times over.
    at = uploaded(app, "containers/mini-swe-agent-github-issue.traj.json")
    shown = screen(at)
    assert "the log ends here" not in shown
    assert "The model called no tool here, so no tool call ran; round 2 is the program's next request." in shown
    assert "answer in text: the model's turn ended with no call; the program went on (round 2)" in shown
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "22 elements: 10 rounds in 1 conversation; 0 elements skipped" in sidebar
    assert "22 elements read as openai-finetune" in sidebar
    at.number_input(key="explorer.round").set_value(10).run()
    assert "final answer" in screen(at)


def test_a_round_whose_log_names_no_model_is_listed_without_a_price_in_words_not_as_none(app):
    at = uploaded(app, "containers/mini-swe-agent-github-issue.traj.json")
    at.switch_page("pages/overview.py").run()
    shown = [t.value for t in at.main.text]
    assert "(the log names no model)" in shown and "None" not in shown


def test_a_tool_run_under_a_millisecond_is_shown_to_two_digits(app):
    # The Vercel AI SDK's ai.toolCall span lasted 0.392075 ms.
    shown = screen(uploaded(app, "otlp-vercel-ai-sdk.jsonl"))
    assert "0.39 ms" in shown and "0.392075" not in shown


def test_a_file_of_calls_to_an_api_not_read_says_so_where_the_rounds_would_be(app):
    # ruby-openai's two streamed Assistants API runs (the thread holds the messages).
    at = uploaded(app, "containers/ruby-openai-assistants-run-stream.yml")
    assert [w.value for w in at.warning] == [
        "This file holds no readable rounds. The sidebar says what it holds and why none could be read."]
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "2 interactions to an API Roundtrip does not read" in sidebar
    assert "a model call to api.openai.com/v1/threads/<thread>/runs (OpenAI's Assistants API), an API Roundtrip " \
           "does not read" in sidebar


def test_a_trace_that_reported_no_usage_names_no_part_reported_beyond_our_count(app):
    # mini-swe-agent's messages carry no usage: "reported beyond our count 0" named a report there was not.
    at = uploaded(app, "containers/mini-swe-agent-github-issue.traj.json")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert "reported beyond our count" not in where
    assert "new messages" in where


def test_an_assistant_turn_the_program_put_in_the_history_is_not_said_to_be_written_by_the_person(app):
    # pydantic-ai's DeepSeek request opens on an assistant turn it built; no response in the log wrote it.
    shown = screen(uploaded(app, "containers/pyd-deepseek-responses-400.yaml"))
    assert "An assistant turn the program put in the history, not the previous response as it came back." in shown


STREAMED = ("As recorded: the request the program sent; the response came as a stream, shown here assembled into the "
            "body the API returns unstreamed.")


@pytest.mark.parametrize("fixture", ["containers/chromium-openai-stream.har", "openai-chat-stream-with-request.jsonl",
                                     "containers/pydantic-ai-anthropic-stream.yaml"])
def test_a_streamed_response_is_said_to_be_assembled_not_received_as_shown(app, fixture):
    # The program received chunks (chat.completion.chunk, message_start...); the body on screen, with its
    # "object": "chat.completion", is Roundtrip's assembly of them.
    shown = round_shown(app, fixture, 1)
    assert STREAMED in shown and "sent and received" not in shown


def test_a_streamed_response_whose_request_was_not_in_the_log_says_both(app):
    shown = screen(uploaded(app, "anthropic-stream.jsonl"))
    assert ("As recorded: the response the program received as a stream, shown here assembled into the body the API "
            "returns unstreamed; the request was not in the log.") in shown


def test_input_the_log_cannot_give_is_not_plotted_as_0_in_the_running_total():
    # A streamed answer logged without its request (openai-chat-stream conversation 3): the rounds table writes its
    # tokens in "not in the log". The Tokens page's "input billed so far" chart plotted it as 0, and added 0 to the
    # running total of the rounds around it.
    from lib.encodings import load_encoding
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import tiktoken_counter
    from lib.ui.charts import cumulative_input
    from tests.conftest import load_bundled
    from tests.screen import FIXTURES
    counter = tiktoken_counter(load_encoding("o200k_base"))
    upload = read_upload([("stream.jsonl", (FIXTURES / "openai-chat-stream.jsonl").read_bytes())])
    lost = summarize(next(c.trace for c in upload.conversations if c.id == "conversation 3"), counter)
    larkfield = summarize(load_bundled("larkfield-get-order").trace, counter)
    from dataclasses import replace
    rows = (*larkfield, replace(lost[0], round=3))
    series = {line.name: (list(line.x), list(line.y)) for line in cumulative_input(rows).data}
    assert series["input billed so far"] == ([1, 2], [2043, 4224])
    assert series["this round's context in one call"] == ([1, 2], [2043, 2181])


def test_a_gap_from_a_tool_list_the_span_did_not_keep_is_put_down_to_that_list_first(app):
    # The openai-v2 span kept the messages, not the tools, though get_temperature was sent with both requests (the
    # cassette of the same calls counts 59 tokens of it). The reported 50 against our 22 is mostly that list.
    shown = screen(uploaded(app, "otlp-span-per-call.jsonl"))
    # Its gen_ai.tool.definitions is opt-in, and the model's call of get_temperature proves a list was sent.
    assert ("The reported input is 28 tokens more than our count, 56% of the input. Why: the log's format keeps the "
            "tool list only where the instrumentation opts in (an OpenTelemetry GenAI span), and this log has none, so "
            "the list sent and billed is not in our count; the provider's chat template adds tokens we cannot see.") \
        in shown


def test_a_model_turn_the_span_did_not_capture_is_not_said_to_hold_no_content(app):
    # opentelemetry-instrumentation-openai-v2 without content capture: the span keeps the model, the token counts and
    # finish_reason 'tool_calls', not what the model wrote. "(no content)" reads as "the model wrote nothing".
    shown = screen(uploaded(app, "otlp-span-per-call-no-content.jsonl"))
    assert "(no content)" not in shown
    assert "The log did not capture this turn's content: what the model wrote is not in the record." in shown


def test_a_trajectorys_tool_list_reads_not_in_the_log_in_the_explorer_and_on_the_presenters_counter(app):
    # tau-bench's episodes keep the messages, not the tool list the agent sent with every request: its tokens were
    # billed, so neither view may give them as 0.
    at = uploaded(app, "tau-bench-airline-cut.jsonl")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert "tool definitions not in the log" in where and "tool definitions 0" not in where
    assert where.endswith("The log kept no tool list, though the model called tools: the list was sent, but it is "
                          "neither shown nor counted here.")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    counter = next(m.value for m in at.markdown if m.value.startswith("**Input tokens"))
    assert "tool definitions not in the log" in counter


def test_the_explorer_card_says_a_librarys_retry_message_is_the_library_asking_again_after_a_failed_validation(app):
    # Mirascope's recorded re-ask in round 2 ("Your response failed schema validation: ... Please correct these issues
    # and respond again."): its card read "Written by the program in the user's role, not typed by the person.", the
    # words for an agent's instructions files and environment.
    from lib.ui import state
    from tests.screen import lines
    at = uploaded(app, "containers/mirascope-openai-validation-retry.yaml")
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = lines(at)
    card = next(i for i, line in enumerate(shown) if line.startswith("**messages[") and "new this round" in line
                and "role **user**" in line)
    assert shown[card + 1] == ("Written by the library in the user's role, not typed by the person: the model's "
                               "previous answer failed the library's validation, and the library asks the model "
                               "again.")
    assert shown[card + 2].startswith("Your response failed schema validation:")


def test_a_compaction_call_is_shown_as_the_providers_compaction_and_the_run_stays_one_conversation(app):
    # pydantic-ai's calls to `/v1/responses/compact` were skipped as damaged ("'response' is neither a response object
    # ... nor an error") and each question after one opened a conversation of its own.
    at = uploaded(app, "containers/pyd-responses-compact-chain.yaml")
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "8 interactions: 8 rounds in 1 conversation; 0 interactions skipped" in sidebar
    assert "8 interactions read as vcr-cassette" in sidebar
    shown = round_shown(app, "containers/pyd-responses-compact-chain.yaml", 3)
    assert "Request 3: program → provider (compaction)" in shown
    assert "Response 3: provider (compaction) → program" in shown
    assert ("This call asked the provider to compact the conversation (the Responses API's compact endpoint), not for "
            "the model's next turn.") in shown
    assert "the provider's compacted history, no turn of the model's" in shown
    assert "**assistant** · the model's turn" not in shown
    assert "cmp_0d4b654a05c1a7a70169deb7a23d008197b9c84fd37d3ebffc" in shown
    # Billed, as the provider reports it.
    assert "Input tokens (reported): **141**" in shown and "Output tokens (reported): **183**" in shown
    # What the provider added is its own compaction instructions, not a chat template around the messages.
    assert ("The reported input is 97 tokens more than our count, 69% of the input. Why: the provider compacts under "
            "instructions of its own, which are not in the log, so not in our count.") in shown
    assert "chat template" not in shown


def test_the_request_after_a_compaction_says_its_encrypted_item_is_counted_as_text_not_as_the_provider_reads_it(app):
    # Round 4 sends the compacted item (about 3,000 characters of encrypted text) and "And 4+4?": OpenAI reported 276
    # input tokens, our count of those characters is 1,920, and the gap was put down to the provider's framing alone.
    shown = round_shown(app, "containers/pyd-responses-compact-chain.yaml", 4)
    assert ("The reported input is 1,644 tokens fewer than our count, a difference 6 times the size of the input. "
            "Why: the request carries a "
            "compacted history the provider returned, encrypted, which we count as the characters of that text; what "
            "the provider reads from it is not in the log;") in shown
    assert "The compacted history the provider returned in the previous round, sent in place of the turns it " \
           "compacts." in shown
    assert "and sent the compacted history the provider returned in round 3 in their place" in shown


def test_a_compaction_during_an_ordinary_call_is_shown_as_the_providers_not_the_models_words(app):
    # pydantic-ai's third request switched compaction on (`context_management`) and its response held a `compaction`
    # item beside the story: shown as "A compaction part" of "the model's turn", nothing saying the provider compacted.
    shown = round_shown(app, "containers/pyd-responses-compact-inline.yaml", 3)
    assert ("**assistant** · the model's turn, and beside it the history the provider compacted during this "
            "call") in shown
    assert ("The compacted history the provider returned: an encrypted item the provider wrote, not words of the "
            "model's; what it holds cannot be read here.") in shown
    assert "A compaction part, shown as the payload holds it" not in shown
    assert "The provider compacted the conversation during this call" in shown
    following = round_shown(app, "containers/pyd-responses-compact-inline.yaml", 4)
    assert ("The model's turn from the previous response, appended unchanged with the compacted history the provider "
            "returned during that call") in following


def test_a_resent_reasoning_items_encrypted_content_is_said_to_be_counted_by_its_characters(app):
    # Round 2 resends the model's reasoning item with its encrypted content (several thousand characters): OpenAI
    # reported 257 input tokens, our count 1,418, and the gap was put down to the tool definitions alone.
    shown = round_shown(app, "containers/pyd-responses-reasoning-resent.yaml", 2)
    assert ("The reported input is 1,161 tokens fewer than our count, a difference 4.5 times the size of the input. "
            "Why: the request resends a "
            "reasoning item of the model's with encrypted content, which we count as the characters of that text; "
            "what the provider reads from it is not in the log;") in shown


def test_a_summary_anthropic_compacted_the_history_into_is_not_called_encrypted(app):
    # vercel/ai's recorded claude-opus-4-6 answer opens with a `compaction` block whose `content` is the summary in
    # plain text ("## Summary of Conversation ..."). It was called the provider's encrypted item that cannot be read
    # here (the Responses API's compaction item is one); and the figures were the answer's alone, 682 tokens in.
    shown = screen(uploaded(app, "containers/vercel-anthropic-compaction-usage.json"))
    assert "encrypted" not in shown
    assert ("The summary of the earlier turns that the provider had the model write when it compacted the history "
            "(Anthropic's compaction), in plain text") in shown
    assert "Summary of Conversation" in shown
    assert "Input tokens (reported): **61,067**" in shown and "Output tokens (reported): **1,912**" in shown


def test_a_go_httprr_trace_opens_in_the_explorer_with_its_rounds(app):
    # langchaingo's recording of its OpenAI functions agent: every line of it was "not valid JSON" and nothing opened.
    shown = round_shown(app, "containers/langchaingo-openai-agent-args-rewritten.httprr", 2)
    assert "Result for call call_sgvhmmuASadOaDtd93TmrUsY" in shown
    assert "15 multiplied by 4 is 60." in shown
    assert "The assistant turn sent back here is not what the model wrote in round 1" in shown


def test_a_turn_written_over_for_another_providers_api_is_said_to_be_converted_not_put_in_by_the_program(app):
    # pydantic-ai sends gpt-5's answer on to claude-sonnet-4-0 in the Messages format, its reasoning summaries as
    # `<thinking>` texts. The card of that turn read "An assistant turn the program put in the history, not the
    # previous response as it came back.", growth's words for a turn a program made up.
    shown = round_shown(app, "containers/pyd-openai-then-anthropic-history.yaml", 2)
    assert "<thinking>" in shown
    assert "An assistant turn the program put in the history" not in shown
    assert ("An assistant turn the program wrote over in another API's format: this call sends the conversation on to "
            "another provider's API, so the earlier turns are converted from the format they were first written in, "
            "not sent back as they came.") in shown


def test_resent_messages_written_over_for_another_providers_api_say_why_they_changed(app):
    # pydantic-ai sends a Gemini run on to gpt-4o-mini: the call resent under an id of its own, its result as "Paris"
    # where Gemini was sent {"return_value": "Paris"}. Each card said only "changed since the previous request".
    shown = round_shown(app, "containers/pyd-gemini-then-openai-lone-tools.yaml", 3)
    said = ("Written over in another API's format: this call sends the conversation on to another provider's API, so "
            "the program converted the earlier turns, and this copy differs from the one sent before.")
    assert shown.count(said) == 2  # the call and its result


def _compacted_then_referenced(*others: str):
    """pyd-responses-compact-inline.yaml with its fourth request's input written as an `item_reference` to the
    compacted item the third call returned, references to `others`, and the question: how a program goes on from a
    compaction by its id (the Responses API allows it)."""
    import yaml
    from tests.screen import FIXTURES
    cassette = yaml.safe_load((FIXTURES / "containers/pyd-responses-compact-inline.yaml").read_bytes())
    (compacted,) = [item for item in cassette["interactions"][2]["response"]["parsed_body"]["output"]
                    if item["type"] == "compaction"]
    body = cassette["interactions"][3]["request"]["parsed_body"]
    body["input"] = [{"type": "item_reference", "id": item_id} for item_id in (compacted["id"], *others)] + [
        body["input"][-1]]
    return yaml.safe_dump(cassette).encode()


def test_a_reference_to_an_earlier_item_is_drawn_as_a_reference_naming_the_item(app):
    # Each card read "A item_reference part, shown as the payload holds it": no word of what the id stands for.
    from lib.ui import state
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("compacted.yaml", _compacted_then_referenced("msg_not_in_this_log"))
    at.run()
    at.number_input(key=state.ROUND).set_value(4).run()
    assert not at.exception
    shown = screen(at)
    assert "A item_reference part" not in shown
    assert shown.count("A reference to an earlier item by its id: the program sends the id, not the item, and the "
                       "provider puts the item it stored under that id in its place.") == 2
    assert "That is the compacted history the provider returned in round 3's response." in shown
    assert "It names the id msg_not_in_this_log.\nNo item with this id is in the log, so what it stands for is not " \
           "shown here." in shown


def test_a_count_above_the_reported_input_by_more_than_the_input_is_not_called_a_share_of_it(app):
    # Round 4 sends a compacted item of about 3,000 encrypted characters: OpenAI reported 276 input tokens, we count
    # 1,920. The figure read "1,644 tokens fewer than our count, 596% of the input", a share no part of an input has.
    shown = round_shown(app, "containers/pyd-responses-compact-chain.yaml", 4)
    assert "596%" not in shown and "% of the input" not in shown
    assert "The reported input is 1,644 tokens fewer than our count, a difference 6 times the size of the input." \
        in shown


def test_five_calls_that_reuse_one_prompt_are_five_conversations_none_said_to_have_dropped_a_turn(app):
    # ldp's online trainer asks one question five times, the last two with memories of earlier attempts added as a
    # second user message; no request sends an answer back. The sidebar read "5 rounds in 3 conversations", and rounds
    # 1 of two of them warned that round 2 "carries neither call ... nor a result for it: the turn was dropped".
    at = uploaded(app, "containers/ldp-online-trainer-memories-added.yaml")
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "5 interactions: 5 rounds in 5 conversations; 0 interactions skipped" in sidebar
    picker = at.selectbox(key="sidebar.conversation")
    assert picker.options == [f"conversation {n} · 1 round" for n in range(1, 6)]
    for choice in range(5):
        picker.set_value(choice).run()
        assert not at.exception
        shown = screen(at)
        assert "the turn was dropped" not in shown and "missing-tool-result" not in shown
    # The fourth call's request: the question, then the memories, both the program's user turns, new this round.
    picker.set_value(3).run()
    assert "Round 1: the program sends 2 messages, 2 of them new" in [s.value for s in at.subheader]


def test_a_text_answer_left_out_before_the_next_user_turn_is_said_where_the_request_is_shown(app):
    # Mirascope's retry without the answer it is about: the sidebar read "2 rounds in 2 conversations" and neither
    # round said the model never saw its answer.
    fixture = "containers/mirascope-openai-validation-retry-answer-left-out.yaml"
    at = uploaded(app, fixture)
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "2 interactions: 2 rounds in 1 conversation; 0 interactions skipped" in sidebar
    from lib.ui import state
    from tests.screen import lines
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    assert "Round 2: the program sends 3 messages, 1 of them new" in [s.value for s in at.subheader]
    shown = "\n".join(lines(at, READ + ALERTS))
    assert ("Round 1's answer is not in this request: a new user turn follows round 1's messages where the model's "
            "turn belongs, so the model does not see what it said. The program left the answer out, or asked anew on "
            "the same prompt: the log cannot tell which.") in shown
    assert "the log cannot tell which. To go on from the answer, send the assistant turn back" in shown


def test_an_answer_autogens_cache_gave_says_so_and_shows_no_tokens_spent(app):
    # AutoGen's recorder marked the eighth result "cached": true (ChatCompletionCache's copy of the first call's
    # answer); the explorer showed 108 input and 2 output tokens, reported, as if the provider had been called again.
    at = uploaded(app, "containers/autogen-recorder-teachability-cache-hit.json")
    at.selectbox(key="sidebar.conversation").set_value(7).run()
    assert not at.exception
    shown = screen(at)
    assert "Answered from AutoGen's ChatCompletionCache, as the recording marks it" in shown
    assert "Input tokens: **no call made**" in shown and "Output tokens: **no call made**" in shown


def test_a_harbor_atif_trajectory_uploads_as_a_run_with_its_handoff_said(app):
    # Harbor's trajectory.json "matched no known log format"; its context summarization split the run's history.
    at = uploaded(app, "containers/harbor-terminus2-context-summarization.trajectory.json")
    assert not at.exception
    sidebar = " ".join(t.value for t in at.sidebar.text)
    assert "ATIF agent trajectory" in sidebar
    assert "handed off to a summarized context at step 5" in sidebar
