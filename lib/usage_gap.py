"""Why our count of a round's input and the reported input differ, decided from what the trace shows.

A gap of more than a fifth is said in words beside the figure: a reader must not take our count for
the provider's, nor the provider's for a mistake.
"""

from __future__ import annotations

import tiktoken.model

from lib.model import Round, Trace
from lib.summary import RoundSummary
from lib.text import plural

GAP_SHARE = 0.2
"""A gap larger than this share of the reported input gets its reason said."""


def _tokenizer_is_the_models(model: str | None) -> bool:
    try:
        tiktoken.model.encoding_name_for_model((model or "").strip().lower().rsplit("/", 1)[-1])
    except KeyError:
        return False
    return True


def _reasons(trace: Trace, round_: Round, row: RoundSummary, reported_more: bool) -> list[str]:
    reasons = []
    omitted = trace.round_provenance(round_).omitted
    if omitted and reported_more:  # a request the record abridged is counted short, never long
        reasons.append("the trace's instructions are abridged: the recorded request lacks " + ", ".join(omitted))
    counter = row.breakdown.counter
    if counter == "characters":
        reasons.append("we count 4 characters as a token, not with the model's tokenizer")
    elif not _tokenizer_is_the_models(row.model):
        reasons.append(f"we count with {counter}, which is not the tokenizer of {row.model or 'an unnamed model'}")
    reasons.append(_rendering_reason(round_, reported_more))
    return reasons


def _rendering_reason(round_: Round, reported_more: bool) -> str:
    # What the provider adds explains a report above our count; below it, only a shorter rendering can.
    if reported_more and round_.request.tools:
        return "the provider's chat template and its rendering of the tool definitions add tokens we cannot see"
    if reported_more:
        return "the provider's chat template adds tokens we cannot see"
    if round_.request.tools:
        return "we count the tool definitions as JSON text, and the provider writes them for the model in a shorter form of its own"
    return "the provider frames the messages in fewer tokens than we allow for"


def gap_reason(trace: Trace, row: RoundSummary) -> str | None:
    """The reported input against our count, and why they differ, when they differ by more than 20%; None when the
    log kept no request, since then nothing was counted to differ."""
    usage, gap = row.usage, row.breakdown.not_counted
    if not row.request_recorded:
        return None
    if usage.source == "reported":
        whose = "The reported input is"
    elif usage.anchor_round is not None:
        whose = f"This estimate carries round {usage.anchor_round}'s gap: its reported input was"
    else:
        return None
    headline = usage.input_tokens
    if not headline or abs(gap) <= GAP_SHARE * headline:
        return None
    round_ = trace.rounds[row.round - 1]
    return (f"{whose} {plural(abs(gap), 'token')} {'more' if gap > 0 else 'fewer'} than our count, "
            f"{abs(gap) / headline:.0%} of the input. Why: " + "; ".join(_reasons(trace, round_, row, gap > 0)) + ".")
