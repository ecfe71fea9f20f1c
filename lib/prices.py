"""Prices per model, in US dollars per million tokens, and what a round cost.

The defaults are a snapshot, dated per row: prices change, so the app lets a user edit them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable

from lib.model import Usage
from lib.text import plural


@dataclass(frozen=True, slots=True)
class Price:
    """What one model charges."""

    model: str
    """A model name; it also matches longer names that start with it (`gpt-4o` matches `gpt-4o-2024-08-06`)."""
    input: float
    """USD per million input tokens not served from a cache."""
    cached_input: float | None
    """USD per million input tokens read from the prompt cache; None: charged as input."""
    cache_write: float | None
    """USD per million input tokens written to the cache (Anthropic); None: charged as input."""
    output: float
    """USD per million output tokens, reasoning included."""
    as_of: str
    """When these figures were read off the provider's price page (or the source named)."""
    source: str = ""
    """Where the figures come from."""
    cache_write_1h: float | None = None
    """USD per million input tokens written to the cache for an hour (Anthropic, Claude Code); None: charged as a
    cache write."""


DEFAULT_PRICES: tuple[Price, ...] = (
    Price("gpt-4o-mini", 0.15, 0.075, None, 0.60, "2025-08", "OpenAI pricing page"),
    Price("gpt-4o", 2.50, 1.25, None, 10.00, "2025-08", "OpenAI pricing page"),
    Price("gpt-4.1-mini", 0.40, 0.10, None, 1.60, "2025-08", "OpenAI pricing page"),
    Price("gpt-4.1", 2.00, 0.50, None, 8.00, "2025-08", "OpenAI pricing page"),
    Price("gpt-5-mini", 0.25, 0.025, None, 2.00, "2025-08", "OpenAI pricing page"),
    Price("gpt-5", 1.25, 0.125, None, 10.00, "2025-08", "OpenAI pricing page"),
    Price("gpt-4.1-nano", 0.10, 0.025, None, 0.40, "2025-08", "OpenAI pricing page"),
    Price("gpt-5-nano", 0.05, 0.005, None, 0.40, "2025-08", "OpenAI pricing page"),
    Price("claude-haiku-4-5", 1.00, 0.10, 1.25, 5.00, "2025-10", "Anthropic pricing page", 2.00),
    Price("claude-sonnet-4", 3.00, 0.30, 3.75, 15.00, "2025-09", "Anthropic pricing page", 6.00),
    Price("claude-opus-4", 15.00, 1.50, 18.75, 75.00, "2025-09", "Anthropic pricing page", 30.00),
    Price("claude-opus-4-1", 15.00, 1.50, 18.75, 75.00, "2025-09", "Anthropic pricing page", 30.00),
    Price("claude-opus-4-5", 5.00, 0.50, 6.25, 25.00, "2025-11", "Anthropic pricing page", 10.00),
    Price("claude-sonnet-4-5", 3.00, 0.30, 3.75, 15.00, "2025-09", "Anthropic pricing page", 6.00),
    # The live Anthropic scenario's default model.
    Price("claude-sonnet-4-6", 3.00, 0.30, 3.75, 15.00, "2026-11", "Anthropic model page", 6.00),
    Price("deepseek-chat", 0.28, 0.028, None, 0.42, "2025-09", "DeepSeek pricing page"),
    Price("chat-small", 0.10, None, None, 0.50, "2026-10",
          "Larkfield course ledger: 4,224 in + 123 out = US$0.00048"),
)


SNAPSHOT = re.compile(r"[-@]\d{4}")
"""What follows a family's name in a dated snapshot of it: `-2025-08-07`, `-20250929`, Vertex AI's `@20250929`.
Anything else after the name (`.5`, `-nano`) is another model, with a price of its own."""


def price_for(model: str | None, prices: tuple[Price, ...]) -> Price | None:
    """The price of a model: an exact name first, then the longest name of which it is a dated snapshot."""
    if not model:
        return None
    name = model.lower().split("/")[-1]
    exact = [p for p in prices if p.model.lower() == name]
    if exact:
        return exact[0]
    prefixed = [p for p in prices if name.startswith(p.model.lower())
                and SNAPSHOT.match(name, len(p.model))]
    return max(prefixed, key=lambda p: len(p.model)) if prefixed else None


def cost(usage: Usage, price: Price) -> float:
    """What a round cost in USD: uncached input, cache reads, cache writes (for 5 minutes, for an hour) and output
    each at its rate."""
    cached = usage.cache_read_tokens
    written = usage.cache_write_tokens
    for_an_hour = min(usage.cache_write_1h_tokens, written)
    fresh = max(0, usage.input_tokens - cached - written)
    dollars = fresh * price.input + usage.output_tokens * price.output
    dollars += cached * (price.cached_input if price.cached_input is not None else price.input)
    write = price.cache_write if price.cache_write is not None else price.input
    dollars += (written - for_an_hour) * write
    dollars += for_an_hour * (price.cache_write_1h if price.cache_write_1h is not None else write)
    return dollars / 1_000_000


@dataclass(frozen=True, slots=True)
class TraceCost:
    """What a trace's rounds cost at some prices."""

    total: float | None
    """USD over the rounds whose model has a price; None when no round's has."""
    unpriced: tuple[str, ...]
    """The models with no price, sorted: their rounds are left out of the total."""
    unknown: int = 0
    """Rounds left out of the total because their cost is not known (lib.summary.cost_known): the log lacks their
    request or their answer."""
    estimated: bool = False
    """A round summed reported no usage: the total is worked out from our estimate of its tokens."""
    billing_unknown: int = 0
    """Of `unknown`, the failed calls whose input is known but not whether the provider billed them
    (lib.summary.billing_known)."""
    unpriced_inside: tuple[str, ...] = ()
    """The model of each call to another model inside a round (Usage.other_model_calls) that has no price, one entry a
    call: left out of the total, said beside it (cost_notes); its model is in `unpriced` too."""


NO_MODEL = "(the log names no model)"
"""How a round whose log names no model is listed among those without a price."""


def call_cost(model: str | None, usage: Usage, prices: tuple[Price, ...]) -> tuple[float | None, tuple[str, ...]]:
    """What one round's call cost in USD, with the calls to other models inside it (Usage.other_model_calls) each
    at its own model's rates; None when the round's model has no price. With it, the model of each call inside that
    has no price: left out of the figure, which every view says (cost_notes, other_calls_unpriced_words)."""
    price = price_for(model, prices)
    if price is None:
        return None, ()
    dollars, unpriced = [cost(usage, price)], []
    for call in usage.other_model_calls:
        inner = price_for(call.model, prices)
        if inner is None:
            unpriced.append(str(call.model) if call.model else NO_MODEL)
        else:
            dollars.append(cost(call.usage, inner))
    return math.fsum(dollars), tuple(unpriced)


def trace_cost(rounds: Iterable[tuple[str | None, Usage]], prices: tuple[Price, ...]) -> TraceCost:
    """The cost of every (model, usage) round, summed over those with a price (call_cost)."""
    costs, unpriced, inside = [], set(), []
    for model, usage in rounds:
        spent, left_out = call_cost(model, usage, prices)
        if spent is None:
            unpriced.add(str(model) if model else NO_MODEL)
        else:
            costs.append(spent)
            inside.extend(left_out)
    return TraceCost(math.fsum(costs) if costs else None, tuple(sorted(unpriced | set(inside))),
                     unpriced_inside=tuple(sorted(inside)))


COST_NOT_KNOWN = "not known"
"""A cost the log does not give the tokens for: never the price of the tokens it does give alone."""


def cost_words(spent: TraceCost, estimated: bool = False) -> str:
    """A trace's cost as every page writes it in one cell: its figure (cost_figure) and, in brackets, what that
    figure leaves out (cost_notes)."""
    notes = cost_notes(spent)
    return cost_figure(spent, estimated) + (f" ({notes})" if notes else "")


def cost_figure(spent: TraceCost, estimated: bool = False) -> str:
    """A trace's cost as a figure alone: `US$0.01234`, or `no price` when no round's model has one; marked `≈` when
    it was worked out from `estimated` tokens; COST_NOT_KNOWN when no round's cost is known."""
    if spent.total is None and spent.unknown and not spent.unpriced:
        return COST_NOT_KNOWN
    return money_words(spent.total, estimated or spent.estimated)


def cost_notes(spent: TraceCost) -> str:
    """What cost_figure leaves out, said beside it (a metric's caption, a cell's brackets): rounds with no price, and
    the calls left out (calls_left_out_words); empty when nothing is."""
    if spent.total is None and spent.unknown and not spent.unpriced:
        return ""
    rounds_unpriced = set(spent.unpriced) - set(spent.unpriced_inside)
    unpriced = ["some rounds: no price"] if spent.total is not None and rounds_unpriced else []
    inside = [other_calls_unpriced_words(spent.unpriced_inside)] if spent.unpriced_inside else []
    left_out = calls_left_out_words(spent.unknown - spent.billing_unknown, spent.billing_unknown)
    return "; ".join(unpriced + inside + ([left_out] if left_out else []))


def other_calls_unpriced_words(models: tuple[str, ...]) -> str:
    """The calls to other models inside rounds (Usage.other_model_calls: Anthropic's advisor) that a cost leaves out
    for want of their model's price, one model a call, as every cost says it beside its figure. Our words and a
    count only, for markdown: the models, the log's words, are in TraceCost.unpriced, which pages list as text."""
    if len(models) == 1:
        return "one call to another model inside a round, not in the cost: its model has no price"
    return f"{len(models)} calls to other models inside rounds, not in the cost: their models have no price"


def calls_left_out_words(unknown: int, billing_unknown: int) -> str:
    """The calls a sum of tokens or a cost leaves out, as every figure says it: those whose figure is `unknown`, and
    the failed calls whose input is known but not whether the provider billed them (`billing_unknown`); empty when
    none is."""
    said = []
    if unknown:
        said.append(f"{plural(unknown, 'call')} not known, left out")
    if billing_unknown:
        said.append(f"{plural(billing_unknown, 'failed call')} left out: whether "
                    f"{'it was' if billing_unknown == 1 else 'they were'} billed is not in the log")
    return "; ".join(said)


def money_words(amount: float | None, estimated: bool = False) -> str:
    """An amount of dollars as every page writes it: `US$0.01234`, or `no price` when there is none; `≈ US$0.01234`
    when it was worked out from `estimated` tokens, since then it is an estimate too."""
    if amount is None:
        return "no price"
    return f"≈ US${amount:.5f}" if estimated else f"US${amount:.5f}"


def _number(value) -> float | None:
    # Table cells arrive as NaN, None or text when a user clears or mistypes them.
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number or number < 0 else number


def prices_from_rows(rows: list[dict]) -> tuple[Price, ...]:
    """Prices from edited table rows; rows without a model, input or output price are left out."""
    found = []
    for row in rows:
        model, input_, output = str(row.get("model") or "").strip(), _number(row.get("input")), _number(row.get("output"))
        if model and input_ is not None and output is not None:
            found.append(Price(model, input_, _number(row.get("cached_input")), _number(row.get("cache_write")),
                               output, str(row.get("as_of") or ""), str(row.get("source") or ""),
                               _number(row.get("cache_write_1h"))))
    return tuple(found)
