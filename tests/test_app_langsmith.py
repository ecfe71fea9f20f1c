"""LangSmith run exports, as a LangChain or LangGraph user who wrote out their traces with list_runs reads them."""

import json
import re

from lib.ui import state
from tests.screen import screen, uploaded

SUPPORT = "support_agent · trace 1f0a9c31-02aa-6c7e-b4d1-55e0c3a9d200 · 2 rounds"


def test_a_langgraph_trace_opens_with_its_tool_run_paired_to_the_call_by_id_and_its_bound_tools_counted(app):
    at = uploaded(app, "langsmith-runs.jsonl")
    assert at.selectbox(key="sidebar.conversation").options == [
        "LangGraph · trace 1f0a9c2e-5b7d-6e41-9a3c-7d2b1e4f8a01 · 2 rounds", SUPPORT]
    sidebar = [t.value for t in at.sidebar.text]
    assert "12 lines: 4 rounds in 2 conversations; 8 lines not model calls; 0 lines skipped" in sidebar
    at.number_input(key=state.ROUND).set_value(1).run()
    shown = screen(at)
    assert "Converted from a LangSmith run export" in shown
    assert "get_weather (call_Xq3nUu1Pz8R2): ok · executions[0]" in shown
    assert "It's 18°C and sunny in Paris." in shown
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    assert "tool definitions not in the log" not in split


def test_a_run_without_a_tool_list_says_it_is_not_in_the_log_and_its_tool_runs_say_how_they_were_paired(app):
    at = uploaded(app, "langsmith-runs.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(SUPPORT).run()
    at.number_input(key=state.ROUND).set_value(1).run()
    assert not at.exception
    shown = screen(at)
    split = next(line for line in shown.splitlines() if line.startswith("Where the input goes"))
    # The calls prove a list was sent; the export's format does keep a bound list, so it is not said never to.
    assert "The log kept no tool list, though the model called tools: the list was sent" in split
    assert "never keeps" not in shown
    assert "whether tools were sent" not in shown and "whether or not one was sent" not in shown
    assert "The run holds no tool list: LangChain keeps the tools it binds under extra.invocation_params.tools" in shown
    assert "search_docs (toolu_01B7): failed · executions[1]" in shown
    assert "paired by its name and order in the trace: the tool run holds no tool_call_id" in shown
    assert "TimeoutError: search backend did not answer" in shown
    assert "Traceback" not in shown


def _split_line(at) -> str:
    return next(line for line in screen(at).splitlines() if line.startswith("Where the input goes"))


def test_a_tool_list_sent_but_not_kept_reads_not_in_the_log_on_the_explorer_and_the_tokens_page_never_0(app):
    # The support agent's calls prove a list was sent and billed; the run export kept none of it.
    at = uploaded(app, "langsmith-runs.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(SUPPORT).run()
    at.number_input(key=state.ROUND).set_value(1).run()
    split = _split_line(at)
    assert "tool definitions not in the log" in split and "tool definitions 0" not in split
    assert "reported beyond our count (the tool definitions the log lacks, template, provider tokens) 396" in split
    assert split.endswith("The log kept no tool list, though the model called tools: the list was sent, but it is "
                          "neither shown nor counted here.")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["in: tool definitions"].tolist() == ["not in the log", "not in the log"]
    chart = json.loads(next(c.proto.spec for c in at.get("plotly_chart")))["data"]
    assert "tool definitions" not in [series["name"] for series in chart]  # no bar of 0 for a list that was sent
    caption = next(c.value for c in at.main.caption if c.value.startswith("Counted with"))
    assert "The log kept no tool list, though the model called tools" in caption


def test_a_search_query_the_model_wrote_is_not_said_to_be_a_value_someone_should_have_given(app):
    # The support agent searches its docs for "refund policy" and "returns window": the queries are the model's own
    # words for what it looks up, as a command or a search pattern is, not facts it should have asked the person for.
    at = uploaded(app, "langsmith-runs.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(SUPPORT).run()
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    shown = screen(at)
    assert "text-with-tool-calls" in shown
    assert "model-filled-value" not in shown and "refund policy" not in shown


def test_a_support_agent_round_says_once_that_its_tool_list_was_sent_and_once_what_it_was_converted_from(app):
    # The model called tools, so a list was sent: the run's note says where LangChain would have kept it, and leaves
    # whether it was sent to the one statement where the list would be; the source is named once, on every view.
    from lib.export_html import trace_html
    from lib.logs.upload import read_upload
    from lib.summary import TOOL_LIST_UNRECORDED, summarize
    from lib.tokens import CHARACTER_COUNTER
    from tests.screen import FIXTURES
    at = uploaded(app, "langsmith-runs.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(SUPPORT).run()
    trace = read_upload([("langsmith-runs.jsonl", (FIXTURES / "langsmith-runs.jsonl").read_bytes())]
                        ).conversations[1].trace
    page = trace_html(trace, summarize(trace, CHARACTER_COUNTER))
    for k in (1, 2):
        at.number_input(key=state.ROUND).set_value(k).run()
        shown = screen(at)
        for view, rounds in ((shown, 1), (page, 2)):
            assert "whether tools were sent" not in view and "whether or not one was sent" not in view
            assert TOOL_LIST_UNRECORDED in view
            assert "Read from a LangSmith run export" not in view
            assert view.count("Converted from a LangSmith run export") == rounds


def test_the_share_sent_again_says_it_is_of_our_count_where_the_log_lacks_what_was_billed(app):
    # 973 input tokens were billed over the two rounds; we counted under a hundred of them (the tool list is not in
    # the export): the share is of that count, said beside it, never as if of the bill.
    at = uploaded(app, "langsmith-runs.jsonl")
    at.selectbox(key="sidebar.conversation").set_value(SUPPORT).run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.value == "973"
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert re.fullmatch(r"\d+%", resent.value)
    basis = next(c.value for c in at.caption if c.value.startswith("A share of the "))
    counted = re.fullmatch(r"A share of the (\d+) tokens we counted in \d+ requests, not of the 973 billed\.",
                           basis).group(1)
    assert int(counted) < 973
    assert f"We counted {counted} tokens in those requests and the input billed for them was 973" in resent.help
    assert "the share of the billed input sent again is not in the log" in resent.help
