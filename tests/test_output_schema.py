"""A structured-output schema sent with a request: read where each provider puts it, counted as its own part of the
input, shown with the request, and named where our count and the reported input differ. Real recorded bodies in."""

from pathlib import Path

import pytest

from lib.dialects import ANTHROPIC, OPENAI, other
from lib.dialects.convert import convert, reread
from lib.dialects.equivalence import model_view
from lib.encodings import load_encoding
from lib.export_html import trace_html
from lib.logs.upload import read_upload
from lib.summary import summarize
from lib.tokens import OUTPUT_SCHEMA_SAID, tiktoken_counter
from tests.screen import uploaded

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


# --- the "Both dialects" view: the schema written the way the other provider takes it --------------------------------


def _written(name, conversation, target):
    trace = _traces(name)[conversation]
    round_ = trace.rounds[0]
    return round_, convert(round_.request, round_.response, trace.dialect, target)


def test_a_chat_completions_schema_is_written_as_messages_output_config_and_says_what_it_leaves_out():
    # crewAI's response_format names the schema "CalculationResult" and asks for strict mode; Messages' output_config
    # has no name for a schema, and holds every answer to it.
    round_, there = _written("containers/crewai-openai-asked-twice.yaml", 0, ANTHROPIC)
    assert there.request.body["output_config"] == {"format": {"type": "json_schema",
                                                              "schema": round_.request.output_schema}}
    assert reread(there)[0].output_schema == round_.request.output_schema
    assert "response_format: has no Messages form; left out" not in there.notes
    assert "response_format.json_schema.name: has no Messages form; left out" in there.notes


def test_a_schema_without_strict_mode_is_said_to_be_held_to_it_in_messages():
    # sublayer's Gemini request, carried into response_format, asks for no strict mode: Messages has no other kind.
    _, there = _written("containers/sublayer-gemini-lone-content.yml", 0, ANTHROPIC)
    assert there.request.body["output_config"]["format"]["schema"]["properties"]["the_answer"]["description"] == \
        "The answer to the given question"
    assert "response_format.json_schema.strict: not asked for; Messages holds every answer to its schema" in there.notes


def test_a_messages_schema_is_written_as_a_chat_completions_response_format_with_a_name_filled_in():
    round_, there = _written("containers/anthropic-py-rate-limited-twice-then-answered.json", 0, OPENAI)
    assert there.request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": round_.request.output_schema, "strict": True}}
    assert reread(there)[0].output_schema == round_.request.output_schema
    assert "output_config: has no Chat Completions form; left out" not in there.notes
    assert any(n.startswith("response_format.json_schema.name: Chat Completions requires one") for n in there.notes)


@pytest.mark.parametrize("name, conversation, field", [
    ("containers/crewai-openai-asked-twice.yaml", 0, "response_format"),
    ("containers/weave-agents-handoff.yaml", 1, "response_format"),
    ("containers/chatlas-anthropic-json-respaced.yaml", 0, "output_config"),
])
def test_in_its_own_dialect_the_request_keeps_its_schema_as_sent(name, conversation, field):
    trace = _traces(name)[conversation]
    round_, own = _written(name, conversation, trace.dialect)
    assert own.request.body[field] == round_.request.raw[field]
    assert not any(n.startswith(field) for n in own.notes)


def test_the_schema_survives_the_other_dialect_and_back_as_the_same_model():
    for name, conversation in [("containers/crewai-openai-asked-twice.yaml", 0),
                               ("containers/chatlas-anthropic-json-respaced.yaml", 0)]:
        trace = _traces(name)[conversation]
        round_ = trace.rounds[0]
        there = convert(round_.request, round_.response, trace.dialect, other(trace.dialect))
        back = convert(*reread(there), other(trace.dialect), trace.dialect)
        assert model_view(*reread(back)) == model_view(round_.request, round_.response)
        assert model_view(*reread(back)).output_schema == round_.request.output_schema


# --- presenter mode ----------------------------------------------------------------------------------------------------


def test_presenter_mode_shows_the_schema_beside_the_tool_list_in_the_cards_words(app):
    # Step 1 of crewAI's first interaction: the tool list, then the schema the answer must follow, as the explorer's
    # request card shows it.
    at = uploaded(app, "containers/crewai-openai-asked-twice.yaml")
    at.toggle(key="explorer.presenter").set_value(True).run()
    assert not at.exception
    assert OUTPUT_SCHEMA_SAID in [c.value for c in at.main.caption]
    assert any('"Structured output for calculation results."' in t.value for t in [*at.main.text, *at.main.code])
