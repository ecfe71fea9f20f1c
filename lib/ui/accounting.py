"""Token and cost figures: one round's figures, the rounds table, the snowball numbers."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from lib.summary import (NO_CALL_MADE, NOT_IN_THE_LOG, NOT_LOGGED_NAMES, REASONING_NOT_REPORTED, REQUEST_NOT_COUNTED, UNMADE_SAID,
                         RoundSummary, Snowball, OUTPUT_MISSING, billing_words, counted_parts,
                         missing_output, no_bar_words, snowball_words, not_counted_said, not_counted_words, not_logged_words,
                         output_estimate_words, output_left_out_words, overcounted, reasoning_reported,
                         other_models_named, reported_extras_words, round_cost, said_parts,
                         table_cache_written, table_cached, table_reasoning, table_tokens, tokens_words, tool_list_missing, tool_list_words)
from lib.dialects import DIALECTS
from lib.growth import CHANGED_WORDS, RESENT_WORDS, against_words
from lib.prices import Price, prices_from_rows
from lib.text import as_sentence, plural
from lib.tokens import CHANGED, HELD, NOT_COUNTED, OUTPUT_SCHEMA, OVERCOUNT, overcount, split_words
from lib.usage_gap import gap_notes_words
from lib.ui import plain, state
from lib.ui.cache import per_trace
from lib.ui.charts import tokens_per_round
from lib.tokens import Counting


REQUESTS_UNRECORDED = ("The log kept the answers, not the requests: what each request sent, its tool list included, "
                       "is not known. The input figures are what the API reported, where it did.")
"""Said wherever a request's contents would be counted, for a log that kept no request at all."""
REPORTED_INPUT = "What the provider's usage field says the model read: every message, instruction and tool definition."
"""The tooltip of a round's reported input."""
OUR_ESTIMATE = ("The same request counted offline, with the tokenizer chosen in the sidebar; the difference is what our "
                "count leaves out (the chat template's own tokens, images) or counts otherwise.")
"""The tooltip of our estimate beside a reported input."""
REPORTED_OUTPUT = "What the provider's usage field says the model wrote in its answer."
"""The tooltip of a round's reported output."""


def counting_notice(counting: Counting) -> None:
    """Say plainly when estimates are only a character rule of thumb."""
    if counting.problem:
        st.warning("No tokenizer vocabulary could be loaded, so estimates count 4 characters as one token and are "
                   "rough. Why:")
        plain.text(counting.problem)
    elif not counting.counter.exact:
        st.info("Estimates count 4 characters as one token (chosen in the sidebar); they are rough.")


def round_figures(row: RoundSummary, note: str | None = None, response_hidden: bool = False) -> None:
    """Input and output tokens of one round, saying whether the API reported them or we estimated them, and
    why our count differs from the report or what counted it (`note`, lib.usage_gap.figure_note) next to them. While the
    response is hidden (predict mode), only the input: the output's size would tell an answer from a call.

    Each figure is a caption, `name: **number**`, its explanation in the caption's tooltip: st.metric made a first
    load fetch and evaluate its own code (number formatting, 64 KB in 8 files), and the page showed none of its
    lazily loaded elements before the last of their code had arrived."""
    usage, estimate = row.usage, row.breakdown.counted
    left, middle, right = st.columns(3)
    if not row.sent:
        left.caption(f"Input tokens: **{NO_CALL_MADE}**", help=UNMADE_SAID.capitalize() + ".")
        middle.caption(f"Output tokens: **{NO_CALL_MADE}**", help=UNMADE_SAID.capitalize() + ".")
        return
    if response_hidden:
        left.caption(f"Input tokens ({usage.source}): **{tokens_words(row)[0]}**")
        # An estimated input is itself our estimate, shown: only a reported one has an estimate beside it to hide.
        hidden = "Output tokens and our estimate of the input are" if usage.source == "reported" else "Output tokens are"
        middle.caption(f"{hidden} hidden until you predict the response.")
        return
    if not row.request_recorded:
        _unrecorded_request_figures(row, left, middle)
        return
    if usage.source == "reported":
        gap = row.breakdown.not_counted
        left.caption(f"Input tokens (reported): **{usage.input_tokens:,}**", help=REPORTED_INPUT)
        middle.caption(f"Our estimate of the input: **{estimate:,}** ({-gap:+,} vs reported)", help=OUR_ESTIMATE)
        right.caption(f"Output tokens (reported): **{usage.output_tokens:,}**", help=REPORTED_OUTPUT)
        _reported_extras(row)
    else:
        how = f"The API reported no usage for this round; counted offline with {usage.method}."
        if usage.anchor_round:
            how += (f" Anchored on round {usage.anchor_round}'s reported input: its count plus the content "
                    "that differs between the two requests.")
        if billed := billing_words(row):
            how += f" {billed}"
        left.caption(f"Input tokens (estimated): **≈ {usage.input_tokens:,}**", help=how)
        _estimated_output(row, middle)
        if row.output_left_out and not missing_output(row):  # said beside the figure, not only in its tooltip
            st.caption(output_left_out_words(row.output_left_out))
    if note:
        plain.text(note)
    split = split_words(said_parts(row), usage.input_tokens, usage.source == "reported")
    st.caption(f"Where the input goes {split}."
               + ("" if row.tool_list_recorded else " " + tool_list_words(row)))


def _estimated_output(row: RoundSummary, column) -> None:
    if missing_output(row):  # the rounds table, charts, CLI and export read the same rule
        column.caption(f"Output tokens: **{missing_output(row)}**",
                       help=f"{OUTPUT_MISSING[missing_output(row)].capitalize()}.")
    elif row.rejected_output:
        column.caption(f"Output tokens (estimated, rejected by the provider): **≈ {row.usage.output_tokens:,}**",
                       help="What the model wrote, which the provider refused (failed_generation), counted offline.")
    else:
        column.caption(f"Output tokens (estimated): **≈ {row.usage.output_tokens:,}**",
                       help=output_estimate_words(row))


def _reported_extras(row: RoundSummary) -> None:
    """Beneath a reported usage's figures, whether the log kept the request or not: what they hold (the prompt
    cache, reasoning, another model's calls), in the HTML file's words (lib.summary.reported_extras_words)."""
    if extras := reported_extras_words(row):
        st.caption(extras)
    if row.usage.other_model_calls:  # the models as the log names them: text, never markdown
        plain.text(other_models_named(row.usage))


def _unrecorded_request_figures(row: RoundSummary, left, middle) -> None:
    # No estimate of a request we never saw: only what the API reported, if anything.
    usage = row.usage
    if usage.source == "reported":
        left.caption(f"Input tokens (reported): **{usage.input_tokens:,}**", help=REPORTED_INPUT)
        middle.caption(f"Output tokens (reported): **{usage.output_tokens:,}**", help=REPORTED_OUTPUT)
        _reported_extras(row)
    else:
        left.caption(f"Input tokens: **{NOT_IN_THE_LOG}**")  # the rounds table's word for the same figure
        _estimated_output(row, middle)  # a failed call wrote nothing to estimate
    st.caption(REQUEST_NOT_COUNTED)


RESENT_COLUMN = f"messages {RESENT_WORDS}"
"""The rounds table's column of the messages resent unchanged, in the explorer's words (lib.growth.RESENT_WORDS)."""
CHANGED_COLUMN = f"messages {CHANGED_WORDS}"
"""The rounds table's column of the messages resent with changes, in the explorer's words (lib.growth.CHANGED_WORDS);
shown only where a round has some, as the messages chart's series."""


def rounds_table(rows: tuple[RoundSummary, ...], prices: tuple[Price, ...] | None = None,
                 finish_field: str = "finish_reason") -> pd.DataFrame:
    """One row per round; with prices, the cost of each round in USD. The stop signal's column is named
    after the trace dialect's own field (`finish_reason`, `stop_reason`)."""
    # The part beyond our count, as each round's own line names it (lib.summary.not_counted_said): a column for each
    # name, so that an estimate carrying round 1's gap is not filed under what a round "reported".
    named = not_counted_words(rows)
    remainders = tuple(dict.fromkeys(not_counted_said(r, named) for r in rows))
    over = overcounted(rows)
    records = []
    for r in rows:
        record = {
            "round": r.round,
            # The provider held some of them: the model reads them (the input counts them), the program sent none.
            # A blank cell read as nothing said, and a 0 as a count: what the log lacks is named.
            "messages sent": _or_unknown(r.sent_if_known),
            "messages held by the provider": _or_unknown(r.held_if_known),
            "new messages": _or_unknown(r.new_if_known),
            # The rest of what the program sent, placed as the explorer and the messages chart place it
            # (lib.growth.standing): new, these two and the held ones add up to the request's messages.
            RESENT_COLUMN: _or_unknown(r.resent_if_known),
            CHANGED_COLUMN: _or_unknown(r.changed_if_known),
            "tool calls": _or_unknown(r.calls_if_known),
            finish_field.replace("_", " "): r.finish_reason,
            **dict(zip(("tokens in", "tokens out"), table_tokens(r))),
            "tokens are": r.usage.source,
            **_parts_record(r, named, remainders, over),
            "cached in": table_cached(r),
            "written to cache": table_cache_written(r),
            "reasoning": table_reasoning(r),
            "latency ms": r.latency_ms,
        }
        if prices is not None:
            record["model"] = r.model
            record["cost USD"] = round_cost(r, prices)
        records.append(record)
    table = pd.DataFrame(records)
    if table.empty or table["latency ms"].isna().all():
        # A log that timed no call: a column of "None" says nothing; a round that is timed shows its time.
        table = table.drop(columns="latency ms", errors="ignore")
    # A log whose usage never counts reasoning apart (Anthropic's, an estimate's): a column that could say nothing.
    if not reasoning_reported(rows):
        table = table.drop(columns="reasoning", errors="ignore")
    # Only a previous_response_id or conversation chain has held messages: elsewhere a column of zeros says nothing.
    if not any(r.messages_held for r in rows):
        table = table.drop(columns=["messages held by the provider", f"in: {HELD}"], errors="ignore")
    if not any(r.breakdown.output_schema for r in rows):  # no request asked for structured output
        table = table.drop(columns=f"in: {OUTPUT_SCHEMA}", errors="ignore")
    if not any(r.breakdown.changed for r in rows):  # no round resent a message with changes: a column of zeros
        table = table.drop(columns=f"in: {CHANGED}", errors="ignore")
    if not any(r.changed_if_known for r in rows):  # as the messages chart draws no changed series
        table = table.drop(columns=CHANGED_COLUMN, errors="ignore")
    if any(r.request_recorded for r in rows) and not _remainder(rows):
        # All our estimate: no part beyond our count, as the explorer's split names none (where the log kept no
        # request, every part's column is blank alike).
        table = table.drop(columns=[f"in: {name}" for name in remainders], errors="ignore")
    elif over:
        # A name whose every round is overcounted has a column of blanks: left out, as the input chart draws no such
        # part.
        table = table.drop(columns=[c for c in (f"in: {name}" for name in remainders) if table[c].isna().all()])
    if len(remainders) > 1 or over:
        # Blank where a round names its part otherwise, or has none (our count above its input): counts stay counts,
        # not 503.0.
        for column in [c for c in (*(f"in: {name}" for name in remainders), OVERCOUNT) if c in table.columns]:
            if not table[column].isin([NOT_IN_THE_LOG]).any():
                table[column] = table[column].astype("Int64")
    # Arrow takes no column of numbers and words: Streamlit would log a traceback on every draw and convert it itself.
    words = [NOT_IN_THE_LOG, NO_CALL_MADE, REASONING_NOT_REPORTED, *OUTPUT_MISSING]
    for column in table.columns[table.isin(words).any()]:
        table[column] = table[column].astype(str)
    return table


def _parts_record(row: RoundSummary, named: str, remainders: tuple[str, ...], over: bool = False) -> dict:
    """The round's input parts as the rounds table's columns: the part beyond our count under the name the round's
    own line gives it (`remainders`: every round's, `named` the trace's), blank under the others'. With `over` (a
    round of the table is overcounted), how far our count is above the input (lib.tokens.overcount) under OVERCOUNT:
    where it is, the parts are our count's, as the explorer's split lists them, and none is beyond our count."""
    record = {}
    own = not_counted_said(row, named)
    parts = counted_parts(row)
    above = overcount(parts)
    for label, tokens in parts:
        # A part the log lacks (parts_unlogged) reads as such; a request the log lacks leaves its parts blank.
        shown = NOT_IN_THE_LOG if tokens is None and row.request_recorded else tokens
        if label != NOT_COUNTED:
            record[f"in: {label}"] = shown
            continue
        for name in remainders:
            record[f"in: {name}"] = shown if name == own and not above else None
    if over:
        record[OVERCOUNT] = above if row.request_recorded else None
    return record


def rounds_columns(table: pd.DataFrame) -> dict:
    """How the rounds table's columns are drawn: counts with the reader's thousands separator (1,247, as every other
    view writes them), the round's number and cost as they are."""
    counts = [c for c in table.columns if c not in ("round", "cost USD") and pd.api.types.is_numeric_dtype(table[c])]
    return {**{c: st.column_config.NumberColumn(format="localized") for c in counts},
            "cost USD": st.column_config.NumberColumn(format="%.6f")}


def _or_unknown(figure: int | None) -> int | str:
    return NOT_IN_THE_LOG if figure is None else figure


def gap_notes(trace, rows: tuple[RoundSummary, ...]) -> None:
    """Beside the rounds table: why our count and the input differ (lib.usage_gap.gap_notes_words), each explanation
    once, with the rounds it holds for. As text: the reasons name the trace's model."""
    for line in gap_notes_words(trace, rows):
        plain.text(line)


def parts_not_logged_words(rows: tuple[RoundSummary, ...]) -> str:
    """Under the input chart, for a log whose format never keeps the instructions or the tool list: what has no bar
    (lib.summary.not_logged_words), and where its tokens went: in the part reported beyond our count where usage was
    reported, in no figure where the input is our estimate; empty for any other log."""
    lacking = [r for r in rows if r.parts_not_logged]
    if not lacking:
        return ""
    fields = tuple(dict.fromkeys(f for r in lacking for f in r.parts_not_logged))
    lacked, they = not_logged_words(fields)
    were, have, their = ("were", "have", "their") if they == "they" else ("was", "has", "its")
    reported = sum(r.usage.source == "reported" for r in lacking)
    if reported == len(lacking):
        where = f"{they} {have} no bar of {their} own; {their} tokens are in the part reported beyond our count."
    elif not reported:
        where = (f"no usage was reported, so no figure here holds {'them' if they == 'they' else 'it'}: each round's "
                 "input is estimated from what the log holds.")
    else:
        where = (f"{they} {have} no bar of {their} own: on a round with reported usage {their} tokens are in the part "
                 "reported beyond our count; on a round whose input is estimated, from what the log holds, no figure "
                 f"holds {'them' if they == 'they' else 'it'}.")
    if all(r.not_logged_on_opt_in for r in lacking):
        # An OpenTelemetry span: its format keeps them where the instrumentation opts in, so it is no agent's log
        # that never does; and only the calls prove a tool list was sent, never that instructions were.
        what = " and ".join(NOT_LOGGED_NAMES[f] for f in NOT_LOGGED_NAMES if f in fields)
        opening = (f"This log's format (an OpenTelemetry GenAI span) keeps {what} only where the instrumentation opts "
                   f"in, and this log has {'none' if they == 'it' else 'neither'}: ")
        if fields == ("tools",) and all(r.tool_list_sent for r in lacking):
            return f"{opening}it was sent and billed, but {where}"
        return f"{opening}whether {they} {were} sent is not in it; any sent {were} billed, but {where}"
    if all(r.tool_list_sent for r in lacking):  # as the round's own statement (lib.summary.tool_list_missing) says
        return f"This log's format (an agent's session log) keeps {lacked}: {they} {were} sent and billed, but {where}"
    # A model class's span (MLflow's): whether a list or a system prompt went with its messages is not in the trace.
    return (f"This log's format keeps {lacked}: whether {they} {were} sent is not in it; any sent {were} billed, but "
            f"{where}")


def breakdown_caption(counting: Counting, rows: tuple[RoundSummary, ...]) -> None:
    """Under the chart of where each round's input goes: what counted, what the bars reach, and which rounds have
    none (lib.summary.no_bar_words)."""
    missing = no_bar_words(rows)
    st.caption("Counted with " + counting.counter.name + "; each bar reaches the round's input in the table"
               + (", the part reported beyond our count included" if _remainder(rows) else
                  "; no usage was reported, so each bar is our count of what the log holds")
               + ("; where our count is above the input, the bar reaches our count and "
               "what it is above hangs below zero" if overcounted(rows) else "") + "."
               + (f" {ridden}" if (ridden := snowball_words(rows)) else "") + (f" {missing}" if missing else "")
               + (f" {unlogged}" if (unlogged := parts_not_logged_words(rows)) else "")
               + (f" {unkept}" if (unkept := tool_list_unkept_words(rows)) else ""))


def _remainder(rows: tuple[RoundSummary, ...]) -> bool:
    """Whether any charted round's input may have a part beyond our count: its usage was reported, or its estimate
    carries a reported round's gap. A trace whose usage is all our estimate has none, and its chart no such part
    (lib.ui.charts.input_breakdown)."""
    return any(r.usage.source == "reported" or r.usage.anchor_round is not None or r.breakdown.not_counted
               for r in rows if r.request_recorded)


def tool_list_unkept_words(rows: tuple[RoundSummary, ...]) -> str:
    """Under the input chart, for a log that kept the messages but no tool list though the model called tools: why
    the tool definitions have no bar (lib.summary.parts_unlogged); empty for any other log, a format that never keeps
    the list included (parts_not_logged_words says that)."""
    unkept = any(r.request_recorded and not r.tool_list_recorded and not r.tool_list_never_logged for r in rows)
    return tool_list_missing(never_logged=False) if unkept else ""


OVERCOUNT_SAID = ("Where our count is above a round's input, its parts under “in:” are our count's: they add up to "
                  f"more than its tokens in, by the figure under “{OVERCOUNT}”, and no part of that input is beyond "
                  "our count.")
"""Under a rounds table with an overcounted round: what its row's figures are, as the explorer's split says them."""


def overcount_note(rows: tuple[RoundSummary, ...]) -> None:
    """Under a rounds table with a round whose input our count is above (lib.summary.overcounted): what its row's
    figures are."""
    if overcounted(rows):
        st.caption(OVERCOUNT_SAID)


def counted_against_notes(rows: tuple[RoundSummary, ...]) -> None:
    """Under the rounds table, when the log lost a request between two it kept: which request the next round's
    "new messages" count against (lib.growth.against_words), said for the first such round, the others counted."""
    said = [words for words in (against_words(r.round, r.new_against) for r in rows if r.request_recorded) if words]
    if said:
        more = f" The same holds for {plural(len(said) - 1, 'other round')}." if len(said) > 1 else ""
        st.caption(said[0] + more)


def snowball_metrics(ball: Snowball, predicted: int | None = None) -> None:
    """The conversation's totals: what resending everything every round adds up to. With `predicted`, predict mode's
    rounds 1 to `predicted` when a round after them is still to predict: the totals are labelled as theirs, as the
    caption above them says (lib.slide_words.predicted_only_words), never as every call's."""
    # Two by two: four abreast cut the longer labels short at 1280 px.
    (a, b), (c, d) = st.columns(2), st.columns(2)
    # A sum with one estimate in it is an estimate: say so on the figure, as the explorer does on each round's.
    # An agent's session log never keeps the tool list: an estimate of its request cannot hold what was billed for it.
    holds = (", of what the log holds only: a tool list, which its format does not always keep, is billed too where "
             "one was sent, and is in no estimate" if ball.tool_list_never_logged else "")
    # Only the calls in the sum: an estimated call left out of it (a refused one) makes no figure here an estimate.
    estimated = (f" {ball.summed_estimated_calls:,} of them reported no usage: their tokens are our offline "
                 f"estimate{holds}." if ball.summed_estimated_calls else "")
    if ball.unmade_calls:
        were = "was" if ball.unmade_calls == 1 else "were"
        estimated += (f" {ball.unmade_calls:,} of them {were} never made: no provider saw "
                      f"{'its request' if ball.unmade_calls == 1 else 'their requests'}, so nothing of "
                      f"{'it' if ball.unmade_calls == 1 else 'them'} is in the sums.")
    if ball.unknown_input_calls:
        estimated += (f" {ball.unknown_input_calls:,} of them the log kept no request for: their input is not known, "
                      "and not in the sum.")
    if ball.unanswered_words:  # their input is known, not whether it was billed: no sum holds them (billing_known)
        estimated += f" {ball.unanswered_words}"
    # A metric's value is the figure alone: the browser cuts a long one short. What it leaves out is said beneath it,
    # in the words every view uses (lib.prices.calls_left_out_words).
    a.metric("Input billed over the rounds predicted so far" if predicted else "Input billed over all calls",
             ball.billed_input_figure,
             help=f"{ball.calls_summed_words} {ball.output_words} out.{estimated}")
    if ball.billed_input_left_out:
        a.caption(as_sentence(ball.billed_input_left_out))
    # The notes under these two figures are no change since a figure before: no arrow, no color, so that a cost
    # that grew reads as what it is, not as up and good.
    b.metric(f"One call with round {predicted}'s context" if predicted else "One call with the final context",
             ball.single_call_words,
             delta=ball.times_words, help=ball.billing_unknown_words or None,
             delta_color="off", delta_arrow="off")
    if not ball.requests_recorded:
        c.metric("Input already sent in the previous request", NOT_IN_THE_LOG, help=REQUESTS_UNRECORDED)
        d.metric("Tool list, every round", NOT_IN_THE_LOG, help=REQUESTS_UNRECORDED)
        return
    c.metric("Input already sent in the previous request", ball.resent_words, help=ball.resent_help)
    c.caption(ball.resent_basis_words)
    if not ball.tool_list_recorded:
        d.metric("Tool list, every round", NOT_IN_THE_LOG, help=tool_list_words(ball))
        return
    d.metric("Tool list, every round", ball.tools_words,
             delta=f"{ball.tools_total:,} in all, over {plural(ball.rounds, 'round')}", delta_color="off",
             delta_arrow="off",
             help=None if not ball.tools_vary else
             "The tool list was not the same size in every request: an agent handoff or a program that changes "
             "its tools sends another list. The figure gives the smallest and the largest.")
    if ball.tools_basis_words:  # our count, not the provider's: said where the figure is, so the figures reconcile
        d.caption(ball.tools_basis_words)


def log_notes(notes: tuple[str, ...]) -> None:
    """What the log says of the run itself (catalog.LoadedTrace.notes: a SWE-agent run's own counts), under the
    totals as text of its own: beside our figures, never in them."""
    if notes:
        st.caption("What the log itself says of this run, beside our figures (neither is added to the other):")
        for note in notes:
            plain.text(note)


PRICES_EDITOR = "overview.prices"
"""Session key prefix: the price table's editor (state.PRICES_EDITS numbers it)."""


def price_editor() -> tuple[Price, ...]:
    """The editable price table, from this session's prices; an edit becomes the session's prices (state.prices),
    which every page that prices a trace this session uses, and the editor starts afresh from them."""
    current = state.prices()
    table = pd.DataFrame([asdict(p) for p in current])
    edits = st.session_state.get(state.PRICES_EDITS, 0)
    # A new key per edit: the editor's own state is its changes to the table it was given, and it is given the
    # edited table next, which those changes must not be applied to twice.
    edited = st.data_editor(
        table, num_rows="dynamic", hide_index=True, width="stretch", key=f"{PRICES_EDITOR}.{edits}",
        column_order=("model", "input", "cached_input", "cache_write", "cache_write_1h", "output", "as_of", "source"),
        column_config={
            "model": st.column_config.TextColumn("model (or name prefix)", required=True),
            "input": st.column_config.NumberColumn("input $/M", min_value=0.0, format="%.3f", required=True),
            "cached_input": st.column_config.NumberColumn("cached input $/M", min_value=0.0, format="%.3f"),
            "cache_write": st.column_config.NumberColumn("cache write $/M", min_value=0.0, format="%.3f"),
            "cache_write_1h": st.column_config.NumberColumn("cache write, 1 hour $/M", min_value=0.0, format="%.3f"),
            "output": st.column_config.NumberColumn("output $/M", min_value=0.0, format="%.3f", required=True),
            "as_of": st.column_config.TextColumn("as of"),
            "source": st.column_config.TextColumn("source"),
        },
    )
    rows = edited.to_dict("records")
    chosen = prices_from_rows(rows)
    # A row still being filled in (no model or price yet) is left out of the costs; the edit is kept for the
    # session once every row is complete, so that starting the editor afresh loses nothing typed.
    if chosen != current and len(chosen) == len(rows):
        st.session_state[state.PRICES] = chosen
        st.session_state[state.PRICES_EDITS] = edits + 1
        st.rerun()
    return chosen


@per_trace(key=lambda counter_name, rows: counter_name)
def _overview_parts(loaded, counter_name: str, rows: tuple[RoundSummary, ...]):
    return rounds_table(rows, finish_field=DIALECTS[loaded.trace.dialect].FINISH_FIELD), tokens_per_round(rows)


def overview_parts(loaded) -> tuple[pd.DataFrame, object]:
    """The explorer's all-rounds table and tokens chart, built once per trace and counter: a
    1,000-round trace must not rebuild them on every click. Shared read-only, like the trace."""
    return _overview_parts(loaded, state.counting(loaded).counter.name, state.summaries(loaded))


def output_left_out_note(rows: tuple[RoundSummary, ...]) -> None:
    """Under the rounds table: which rounds' estimated output leaves parts of the response out, and what."""
    left_out = [r for r in rows if r.output_left_out and not missing_output(r)]
    if left_out:
        st.caption(f"Tokens out of {plural(len(left_out), 'round')} "
                   f"({', '.join(str(r.round) for r in left_out)}), estimated: "
                   f"{output_left_out_words(left_out[0].output_left_out)}")
