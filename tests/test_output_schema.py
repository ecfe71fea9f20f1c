"""A structured-output schema sent with a request: read where each provider puts it, counted as its own part of the
input, shown with the request, and named where our count and the reported input differ. Real recorded bodies in."""

from pathlib import Path

import pytest

from lib.encodings import load_encoding
from lib.export_html import trace_html
from lib.logs.upload import read_upload
from lib.summary import summarize
from lib.tokens import OUTPUT_SCHEMA_SAID, tiktoken_counter

FIXTURES = Path(__file__).parent / "fixtures"
COUNTER = tiktoken_counter(load_encoding("o200k_base"))


def _traces(name):
    path = FIXTURES / name
    return [c.trace for c in read_upload([(path.name, path.read_bytes())]).conversations]


@pytest.mark.parametrize("name, conversation, round_, holds", [
    # Chat Completions: response_format {"type": "json_schema", "json_schema": {"schema": ...}}
    ("containers/crewai-openai-asked-twice.yaml", 0, 1, "Structured output for calculation results."),
    # Messages: output_config.format {"type": "json_schema", "schema": ...}
    ("containers/anthropic-py-rate-limited-twice-then-answered.json", 0, 1, "OrderDetails"),
    ("containers/chatlas-anthropic-json-respaced.yaml", 0, 1, "ArticleSummary"),
    # Gemini: generationConfig.responseSchema, in Gemini's own type names
    ("containers/sublayer-gemini-lone-content.yml", 0, 1, "The answer to the given question"),
    # Responses: text.format {"type": "json_schema", "name": ..., "schema": ...}
    ("containers/weave-agents-handoff.yaml", 1, 1, "Is Homework"),
])
def test_the_schema_a_request_asks_the_answer_to_follow_is_read_where_its_provider_puts_it(name, conversation,
                                                                                          round_, holds):
    request = _traces(name)[conversation].rounds[round_ - 1].request
    assert request.output_schema is not None and holds in str(request.output_schema)


def test_a_request_without_a_schema_asks_for_none():
    # Interactions 1 and 2 of crewAI's recording send the same messages and tools; only the first carries the schema.
    first, second = _traces("containers/crewai-openai-asked-twice.yaml")
    assert first.rounds[0].request.output_schema is not None
    assert second.rounds[0].request.output_schema is None


def test_the_schema_is_its_own_part_of_the_input_and_the_gap_names_it_not_the_tool_definitions_alone():
    # Anthropic's messages.parse sent no tools and no system prompt, only a question and the schema: the reported
    # 406 input tokens were laid at "the provider's chat template" beside "tool definitions 0", the schema unnamed.
    trace = _traces("containers/anthropic-py-rate-limited-twice-then-answered.json")[0]
    row = summarize(trace, COUNTER)[0]
    assert row.breakdown.output_schema > 0
    assert row.breakdown.counted == (row.breakdown.instructions + row.breakdown.output_schema + row.breakdown.new
                                     + row.breakdown.framing)
    page = trace_html(trace, summarize(trace, COUNTER))
    assert f"output schema {row.breakdown.output_schema:,}" in page
    assert ("the provider&#39;s chat template and its rendering of the output schema add tokens we cannot see; we count "
            "the output schema as its JSON text, an estimate of how the provider writes it for the model.") in page
    assert OUTPUT_SCHEMA_SAID in page and "&#34;OrderDetails&#34;" in page


def test_a_schema_sent_again_unchanged_is_counted_as_resent():
    # chatlas sent the same schema with both rounds of its conversation.
    rows = summarize(_traces("containers/chatlas-anthropic-json-respaced.yaml")[0], COUNTER)
    assert rows[1].breakdown.output_schema == rows[0].breakdown.output_schema == 72
    # Already sent in round 1: the system prompt (7), the question (38) and its framing (3), and the schema (72).
    assert rows[1].breakdown.resent == 7 + 38 + 3 + 72
