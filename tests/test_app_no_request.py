"""Logs that recorded no request (bare responses, chunk-only streams, batch output alone): the app says the
request was not in the log and shows nothing derived from it."""

import json
from pathlib import Path

import pytest

from lib.encodings import load_encoding
from lib.export_html import trace_html
from lib.logs.upload import read_upload
from lib.summary import summarize
from lib.sequence import sequence
from lib.tokens import tiktoken_counter
from tests.screen import figures, screen, uploaded

FIXTURES = Path(__file__).parent / "fixtures"
RESPONSE_ONLY = ["bare-responses.jsonl", "openai-chat-stream.jsonl", "openai-batch-output.jsonl",
                 "anthropic-batch-results.jsonl"]


def _first_trace(name):
    return read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace


@pytest.mark.parametrize("name", RESPONSE_ONLY)
def test_a_log_without_requests_says_so_and_shows_no_messages_tools_or_estimate(app, name):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload(name, (FIXTURES / name).read_bytes())
    at.run()
    assert not at.exception
    assert [s.value for s in at.subheader if s.value.startswith("Round 1")] == ["Round 1: the request was not in the log"]
    said = " ".join([i.value for i in at.info] + [c.value for c in at.caption])
    assert "The request was not in the log" in said
    assert "No tools in this request" not in said and "sends 0 messages" not in said
    assert "Our estimate of the input" not in figures(at)
    assert not any(c.value.startswith("Where the input goes") for c in at.caption)


def test_both_dialects_say_the_request_was_not_in_the_log_instead_of_an_empty_body(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("bare-responses.jsonl", (FIXTURES / "bare-responses.jsonl").read_bytes())
    at.run()
    at.radio(key="explorer.view").set_value("Both dialects").run()
    assert not at.exception
    assert sum("The request was not in the log" in i.value for i in at.info) == 2
    assert not [j.value for j in at.json if '"messages"' in j.value]


def test_a_bare_response_round_is_neither_estimated_nor_an_anchor():
    trace = _first_trace("bare-responses.jsonl")
    assert not trace.rounds[0].request_recorded
    rows = summarize(trace, tiktoken_counter(load_encoding("o200k_base")))
    assert rows[0].usage.source == "reported" and rows[0].breakdown.counted == 0  # no framing for a request never seen
    assert not rows[0].request_recorded


def test_the_diagram_and_the_export_say_the_request_was_not_in_the_log():
    trace = _first_trace("bare-responses.jsonl")
    assert [a.label for a in sequence(trace) if a.step == 1] == ["request 1: not in the log"]
    page = trace_html(trace)
    assert "Round 1: the request was not in the log" in page and "sends 0 messages" not in page


def test_predict_mode_shows_the_reported_input_of_a_request_not_in_the_log_as_the_explorer_does(app):
    # The stream kept no request, but its usage reports 1,436 input tokens: known, and the same figure in both modes.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("anthropic-stream.jsonl",
                                                  (FIXTURES / "anthropic-stream.jsonl").read_bytes())
    at.run()
    assert figures(at)["Input tokens (reported)"].value == "1,436"
    at.toggle(key="explorer.predict").set_value(True).run()
    assert not at.exception
    assert figures(at)["Input tokens (reported)"].value == "1,436"


def test_the_tokens_page_says_why_a_round_whose_request_was_not_in_the_log_has_no_bar(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("anthropic-stream.jsonl",
                                                  (FIXTURES / "anthropic-stream.jsonl").read_bytes())
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    # Its one round is its every round: no chart is drawn at all, and the page says why.
    assert "No chart: the log kept no request of this trace" in screen(at)


def test_the_totals_of_a_call_whose_input_is_not_known_say_so_instead_of_0(app):
    # The third stream of the file kept no request and reported no usage: its input is not known, as the explorer
    # says, so neither total is "≈ 0", and nor is the cost of a call whose input is not known.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("openai-chat-stream.jsonl",
                                                  (FIXTURES / "openai-chat-stream.jsonl").read_bytes())
    at.run()
    at.selectbox(key="sidebar.conversation").set_value(2).run()
    assert figures(at)["Input tokens"].value == "not in the log"
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    metrics = {m.label: m for m in at.metric}
    assert metrics["Input billed over all calls"].value == "not in the log"
    assert "1 of them the log kept no request for: their input is not known, and not in the sum." in metrics[
        "Input billed over all calls"].help
    assert metrics["One call with the final context"].value == "not in the log"
    assert metrics["Cost of the whole trace"].value == "not known"


def test_the_tokens_page_of_a_failed_call_whose_request_the_log_lacks_totals_nothing_as_0(app):
    # Anthropic's batch results: ticket-8 failed with a 400, and the log kept neither its request nor any output.
    # Its row reads "not in the log" and "not known"; the totals above it read "≈ 0", an estimate of nothing.
    at = uploaded(app, "anthropic-batch-results.jsonl")
    picker = at.selectbox(key="sidebar.conversation")
    picker.set_value(next(i for i, label in enumerate(picker.options) if label.startswith("ticket-8"))).run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    metrics = {m.label: m for m in at.metric}
    assert metrics["Input billed over all calls"].value == "not in the log"
    assert metrics["One call with the final context"].value == "not in the log"
    assert metrics["Input billed over all calls"].help.startswith("1 call, not in this sum; not known out.")
    assert "the log kept no request for: their input is not known" in metrics["Input billed over all calls"].help


def _batch_request(app, conversation: str):
    at = uploaded(app, "anthropic-batch-requests.jsonl")
    picker = at.selectbox(key="sidebar.conversation")
    picker.set_value(next(i for i, label in enumerate(picker.options) if label.startswith(conversation + " "))).run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_a_call_whose_answer_the_log_lacks_has_no_cost_as_if_it_wrote_nothing(app):
    # Anthropic's batch requests without their results: the rounds table writes ticket-8's tokens out "not in the
    # log", and priced it, with the trace, at its input alone: "≈ US$0.00157", as if the model had written nothing.
    at = _batch_request(app, "ticket-8")
    assert {m.label: m.value for m in at.metric}["Cost of the whole trace"] == "not known"
    table = next(d.value for d in at.dataframe if "cost USD" in d.value.columns)
    assert list(table["tokens out"]) == ["not in the log"] and table["cost USD"].isna().all()
    # ticket-7's first round was answered: the total is its cost, and says what it leaves out.
    at = _batch_request(app, "ticket-7-round-1")
    total = {m.label: m.value for m in at.metric}["Cost of the whole trace"]
    assert total.startswith("≈ US$") and "left out" not in total  # the figure alone; what it leaves out, beneath
    assert "1 call not known, left out." in [c.value for c in at.caption]


def test_the_explorer_does_not_estimate_the_output_of_a_failed_call_whose_request_the_log_lacks(app):
    # ticket-8 of Anthropic's batch results failed with a 400: no output came back. The rounds table says its tokens
    # out are "not known"; the explorer's round figures said "Output tokens (estimated): ≈ 0".
    at = uploaded(app, "anthropic-batch-results.jsonl")
    picker = at.selectbox(key="sidebar.conversation")
    picker.set_value(next(i for i, label in enumerate(picker.options) if label.startswith("ticket-8"))).run()
    shown = {name: figure.value for name, figure in figures(at).items()}
    assert shown == {"Input tokens": "not in the log", "Output tokens": "not known"}


def _counter_tools(at) -> str:
    """The presenter counter's line about the tool list."""
    return next(m.value for m in at.markdown if m.value.startswith("**Tools:**"))


def test_the_presenter_counter_does_not_say_a_request_not_in_the_log_sent_no_tools(app):
    # Conversation 2 of the bare responses answers in text; its request, tool list and all, was not logged, so
    # nothing says whether tools were sent (the spans without content did send one: get_temperature).
    at = uploaded(app, "bare-responses.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(1).run()
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    assert _counter_tools(at) == "**Tools:** not in the log: the request was not kept, nor its tool list"


def test_predict_mode_does_not_give_away_that_the_model_calls_a_tool_in_the_tools_line(app):
    # The stream kept only the answer, a multiply call; before the learner predicts, the counter must not say
    # that the model called tools.
    at = uploaded(app, "openai-chat-stream.sse")
    at.toggle(key="explorer.presenter").set_value(True).run()
    at.toggle(key="explorer.predict").set_value(True).run()
    assert not at.exception
    assert "called tools" not in _counter_tools(at)


def test_predict_mode_on_a_transcript_without_tools_does_not_say_the_model_calls_tools(app):
    # tau-bench kept the messages, not the tools. Before the learner predicts round 1 (an answer in text), the
    # counter said "the model called tools, so a list was sent": a later round's answer, given away.
    at = uploaded(app, "tau-bench-airline-cut.jsonl")
    at.toggle(key="explorer.presenter").set_value(True).run()
    at.toggle(key="explorer.predict").set_value(True).run()
    assert not at.exception
    assert _counter_tools(at) == "**Tools:** not in the log: this log kept the messages, not the tool list"


def test_the_request_side_of_a_hidden_round_does_not_say_the_model_called_tools_either(app):
    # Under the request's messages the explorer, and presenter mode's step 1, said "The log kept no tool list, though
    # the model called tools" before the learner had predicted round 1.
    at = uploaded(app, "tau-bench-airline-cut.jsonl")
    at.toggle(key="explorer.predict").set_value(True).run()
    hidden = "The log kept the messages, not the tool list: it is neither shown nor counted here."
    assert "called tools" not in screen(at) and hidden in screen(at)
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    assert "called tools" not in screen(at) and hidden in screen(at)


def test_the_tokens_page_draws_no_empty_chart_for_a_trace_whose_requests_the_log_lacks(app):
    # Bare chat.completion bodies: no request, so no part of any round's input is counted and no message either.
    # Empty axes read as "nothing went in": the page says why there is no chart instead.
    at = uploaded(app, "bare-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    charted = [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]
    # One round: its input billed is said in words, not drawn as a lone dot.
    assert [[series["name"] for series in chart] for chart in charted] == [["input (reported)", "output (reported)"]]
    said = [c.value for c in at.main.caption]
    assert any(c.startswith("One round, so nothing to draw") for c in said)
    no_chart = ("No chart: the log kept no request of this trace, so none of its input or messages is counted or "
                "estimated. The input the provider reported, if any, is in the rounds table.")
    assert said.count(no_chart) == 2  # where the input goes, and messages per round
    assert not any(c.startswith("Counted with") for c in said)


def test_a_stream_without_its_request_says_what_its_reported_input_read_from_the_prompt_cache_in_both_views(app):
    # Anthropic's stream kept no request, and its message_start reports 1,024 tokens read from the prompt cache
    # (cache_read_input_tokens), inside the 1,436 input tokens: the explorer says so beneath the figure, in the words
    # the HTML file uses (lib.summary.reported_extras_words).
    said = "1,024 read from the prompt cache, 0 written to it (included in the input)."
    at = uploaded(app, "anthropic-stream.jsonl")
    assert not at.exception
    assert figures(at)["Input tokens (reported)"].value == "1,436"
    assert said in screen(at)
    trace = _first_trace("anthropic-stream.jsonl")
    assert said in trace_html(trace, summarize(trace, tiktoken_counter(load_encoding("o200k_base"))))
