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
