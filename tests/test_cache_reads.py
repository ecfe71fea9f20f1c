"""Input read from the prompt cache: a usage that counts it (0 included) gives its figure; a usage without the count,
or no usage at all, is "not in the log" on every view, null in `summarize --json`, never a 0 cached."""

import csv
import io

from lib.cli import summary_of
from lib.logs.upload import read_upload
from lib.spreadsheet import table_csv
from lib.summary import NOT_IN_THE_LOG, summarize
from lib.tokens import counter_for
from lib.ui.accounting import rounds_table
from tests.formats_support import FIXTURES


def _upload(name: str):
    return read_upload([(name, (FIXTURES / name).read_bytes())])


def _cached(name: str) -> dict[str, list]:
    """The rounds table's "cached in" column of each conversation, by its id's opening."""
    counter = counter_for("o200k_base").counter
    return {c.id.split(" · ")[0]: rounds_table(summarize(c.trace, counter))["cached in"].tolist()
            for c in _upload(name).conversations}


def test_langchain_usage_without_a_cache_read_is_not_in_the_log_and_one_of_0_is_0():
    # LangGraph's OpenAI usage_metadata writes input_token_details.cache_read: 0 in round 1; round 2's holds no
    # details, nor do the support agent's Anthropic input and output counts.
    # (A column of numbers and words is written as text, as every such column of the table is.)
    assert _cached("langsmith-runs.jsonl") == {"LangGraph": ["0", NOT_IN_THE_LOG],
                                                "support_agent": [NOT_IN_THE_LOG, NOT_IN_THE_LOG]}


def test_a_failed_span_with_no_usage_has_no_cache_figure_in_the_table_or_its_csv():
    trace = _upload("otel-genai.jsonl").conversations[1].trace
    table = rounds_table(summarize(trace, counter_for("o200k_base").counter))
    assert table["cached in"].tolist() == [NOT_IN_THE_LOG]
    [row] = csv.DictReader(io.StringIO(table_csv(table)))
    assert row["cached in"] == NOT_IN_THE_LOG


def test_summarize_json_gives_null_where_the_log_holds_no_cache_count_and_0_where_it_holds_0():
    document = summary_of(_upload("langsmith-runs.jsonl"))
    cached = {c["title"].split(" · ")[1]: [r["usage"]["cached"] for r in c["rounds"]]
              for c in document["conversations"]}
    assert cached == {"LangGraph": [0, None], "support_agent": [None, None]}
    document = summary_of(_upload("otel-genai.jsonl"))
    assert [r["usage"]["cached"] for c in document["conversations"] for r in c["rounds"]] == [None, None, None]


def test_a_usage_that_counts_its_cache_reads_keeps_its_figures():
    # The Responses API's usage writes input_tokens_details.cached_tokens in every round.
    assert _cached("openai-responses.jsonl")["resp_68b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"][:3] == ["0", "128", "128"]


def test_a_reasoning_count_of_0_langchain_recorded_is_0_not_a_figure_the_log_lacks():
    # LangGraph's OpenAI rounds keep output_token_details.reasoning: 0, a count the provider reported.
    document = summary_of(_upload("langsmith-runs.jsonl"))
    reasoning = {c["title"].split(" · ")[1]: [r["usage"]["reasoning"] for r in c["rounds"]]
                 for c in document["conversations"]}
    assert reasoning["LangGraph"][0] == 0


def test_the_cache_writes_claude_code_reports_are_in_the_table_its_csv_and_the_json():
    # Claude Code's usage writes cache_creation_input_tokens: 9,907 written for an hour in round 1, 1,914 in round 2,
    # as the explorer says and the cost prices them; the table gave the reads alone.
    [conversation] = _upload("claude-code-2.1.233.jsonl").conversations
    table = rounds_table(summarize(conversation.trace, counter_for("o200k_base").counter))
    assert table["written to cache"].tolist() == [9907, 1914]
    assert [row["written to cache"] for row in csv.DictReader(io.StringIO(table_csv(table)))] == ["9907", "1914"]
    document = summary_of(_upload("claude-code-2.1.233.jsonl"))
    assert [r["usage"]["cache_written"] for r in document["conversations"][0]["rounds"]] == [9907, 1914]


def test_a_usage_with_no_cache_write_count_is_not_in_the_log_not_0():
    # OpenAI's usage counts the cached input it read (round 1's 0 here), never what it wrote.
    table = rounds_table(summarize(_upload("langsmith-runs.jsonl").conversations[0].trace,
                                   counter_for("o200k_base").counter))
    assert table["written to cache"].tolist() == [NOT_IN_THE_LOG, NOT_IN_THE_LOG]
    document = summary_of(_upload("langsmith-runs.jsonl"))
    assert [r["usage"]["cache_written"] for c in document["conversations"] for r in c["rounds"]] == [None] * 4
