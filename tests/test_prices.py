"""Prices and cost: the Larkfield ledger comes out as the course recorded it."""

from lib.model import Usage
from lib.prices import DEFAULT_PRICES, Price, cost, price_for


def test_larkfield_two_calls_cost_what_the_ledger_says():
    price = price_for("chat-small", DEFAULT_PRICES)
    total = cost(Usage(2043, 21, "reported"), price) + cost(Usage(2181, 102, "reported"), price)
    assert round(total, 5) == 0.00048


def test_a_dated_model_name_finds_its_family_and_the_longest_prefix_wins():
    assert price_for("gpt-4o-2024-08-06", DEFAULT_PRICES).model == "gpt-4o"
    assert price_for("gpt-4o-mini-2024-07-18", DEFAULT_PRICES).model == "gpt-4o-mini"
    assert price_for("openrouter/gpt-4.1", DEFAULT_PRICES).model == "gpt-4.1"
    assert price_for("DeepSeek-V4-Flash", DEFAULT_PRICES) is None
    assert price_for("claude-sonnet-4-6", DEFAULT_PRICES).model == "claude-sonnet-4-6"
    assert price_for(None, DEFAULT_PRICES) is None


def test_cache_reads_and_writes_are_charged_at_their_own_rates():
    price = Price("m", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0, as_of="x")
    usage = Usage(input_tokens=1_000_000, output_tokens=0, source="reported",
                  cache_read_tokens=600_000, cache_write_tokens=100_000)
    assert cost(usage, price) == 300_000 * 3.0 / 1e6 + 600_000 * 0.3 / 1e6 + 100_000 * 3.75 / 1e6


def test_every_default_price_is_dated():
    assert all(p.as_of and p.input >= 0 and p.output >= 0 for p in DEFAULT_PRICES)


def test_a_trace_costs_the_sum_of_its_priced_rounds_and_names_the_models_without_a_price():
    from lib.prices import trace_cost

    rounds = [("chat-small", Usage(2043, 21, "reported")), ("DeepSeek-V4-Flash", Usage(500, 5, "reported")),
              ("chat-small", Usage(2181, 102, "reported")), (None, Usage(10, 1, "estimated"))]
    spent = trace_cost(rounds, DEFAULT_PRICES)
    assert round(spent.total, 5) == 0.00048
    assert spent.unpriced == ("(the log names no model)", "DeepSeek-V4-Flash")  # not "None"
    assert trace_cost([("DeepSeek-V4-Flash", Usage(1, 1, "reported"))], DEFAULT_PRICES).total is None


def test_another_model_of_the_family_is_not_priced_as_the_row_its_name_starts_with():
    # Codex 0.125's rollout asks for gpt-5.5: gpt-5's row is another model's price, so the cost is not known.
    assert price_for("gpt-5.5", DEFAULT_PRICES) is None
    assert price_for("gpt-4.1-nano", DEFAULT_PRICES).model == "gpt-4.1-nano"
    assert price_for("gpt-5-nano-2025-08-07", DEFAULT_PRICES).model == "gpt-5-nano"
    assert price_for("claude-opus-4-1-20250805", DEFAULT_PRICES).model == "claude-opus-4-1"
    assert price_for("claude-sonnet-4-20250514", DEFAULT_PRICES).model == "claude-sonnet-4"
    assert price_for("claude-sonnet-4-7", DEFAULT_PRICES) is None
    # A dated snapshot is its family's model: Anthropic's, OpenAI's and Vertex AI's ways of writing the date.
    assert price_for("claude-sonnet-4-5-20250929", DEFAULT_PRICES).model == "claude-sonnet-4-5"
    assert price_for("gpt-5-2025-08-07", DEFAULT_PRICES).model == "gpt-5"
    assert price_for("claude-haiku-4-5@20251001", DEFAULT_PRICES).model == "claude-haiku-4-5"
