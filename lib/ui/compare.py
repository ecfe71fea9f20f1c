"""The Compare page: two runs, their totals, every round's verdict, and one aligned pair in detail.

The runs are bundled traces, conversations of the upload open in the sidebar, or saved traces (by id). A link names them
as `?compare=A,B&round=K`, K counting the aligned rows. Everything from a trace (names, verdicts,
messages, arguments) reaches the page through dataframes, st.code or lib/ui/plain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd
import streamlit as st

from lib import catalog
from lib.compare import (Comparison, Run, RoundContent, RoundPair, answer_texts, call_changes, compare, finish_written,
                         item_text, message_changes, round_contents, tool_changes, unanswered_words, uninstructed_words,
                         unlisted_words, unrecorded_words)
from lib.deeplink import is_kept_id, linked_round
from lib.failures import unmade_words
from lib.prices import COST_NOT_KNOWN, Price, cost_figure, cost_notes, money_words
from lib.store import StoreUnavailable
from lib.summary import about
from lib.ui import address, kept, navigation, picker, plain, predict, state
from lib.ui.cache import per_trace
from lib.ui.findings import findings

LEFT = "compare.left"
"""Session key: the left run's choice (a bundled name, or `upload:N`)."""
RIGHT = "compare.right"
"""Session key: the right run's choice."""
ROW = "compare.row"
"""Session key: the 1-based aligned row shown in detail."""
UPLOADED = "upload:"
"""The prefix of a choice that is conversation N of the open upload."""
SAVED = "saved:"
"""The prefix of a choice that is the saved trace with the id after it."""
SAVED_RUNS = "compare.saved_runs"
"""Session key: the ids of the saved traces this session compares, offered as choices."""
ROW_RUNS = "compare.row_runs"
"""Session key: the two runs (the LEFT and RIGHT choices) whose aligned rows ROW counts."""
LINKED = "compare.linked"
"""Session key: the page was opened by a `?compare=` link, so the link's `round` is a row of this page."""
FORKED = "fork:"
"""The prefix of a choice that is fork N of this session."""
FORKS = "compare.forks"
"""Session key: the forks made in this session, as (native trace bytes, round forked)."""
OPEN = "compare.open"
"""Session key: another page asked for Compare to open next."""
SECOND_TRACE = "pitfalls/empty-result-invented-answer"
"""The right run when nothing else is asked for: a short trace that answers without the data."""
NOTHING = "–"
"""What a table cell says where one side has nothing: a round one run lacks, a call or a result it does not make."""
SAME_KEPT = 3
"""Of a run of entries the same in both requests, this many are listed at each end; the rest are one row."""


def _upload():
    """The upload open in the sidebar and its cache key, or (None, None)."""
    files = st.session_state.get(picker.FILES)
    if not files:
        return None, None
    forced = st.session_state.get(picker.FORMAT, "auto")
    return state.load_upload(files, st.session_state[picker.FILES_DIGEST], None if forced == "auto" else forced)


def _choices() -> dict[str, str]:
    """Every run that can be compared, by choice, with its label."""
    found = dict(predict.titles(predict.predicting()))  # a title that tells what happens waits, as in the sidebar
    upload, _ = _upload()
    for n, conversation in enumerate(upload.conversations if upload else ()):
        found[f"{UPLOADED}{n}"] = f"Your upload ({picker.files_name(st.session_state[picker.FILES])}) · " \
                                  f"{conversation.id}"
    for trace_id in st.session_state.get(SAVED_RUNS, ()):
        if (saved := _saved(trace_id)) is not None:
            found[f"{SAVED}{trace_id}"] = f"Saved · {predict.title(saved, predict.predicting())}"
    for n, (_, at) in enumerate(st.session_state.get(FORKS, ())):
        found[f"{FORKED}{n}"] = f"Your fork {n + 1} (from round {at})"
    return found


def open_in_sidebar() -> str:
    """The choice of the trace the other pages show (an upload's conversation, a saved trace, a bundled one): the left
    run when no link names one, so that Compare starts from what the user was reading."""
    if st.session_state.get(picker.FILES):
        return f"{UPLOADED}{st.session_state.get(picker.CONVERSATION, 0)}"
    if (trace_id := st.session_state.get(kept.SAVED)) is not None:
        return _saved_choice(trace_id)
    shown = st.session_state.get(picker.TRACE)
    return shown if shown in {t.name for t in state.bundled()} else catalog.FIRST_TRACE


def _saved(trace_id: str) -> catalog.LoadedTrace | None:
    try:
        return kept.load(trace_id)
    except StoreUnavailable:
        return None  # not offered; the choice falls back to a bundled trace, said so where a link asked for it


def keep_fork(data: bytes, at: int) -> str:
    """Keep a fork made in this session among the runs to compare; its choice."""
    forks = st.session_state.setdefault(FORKS, [])
    forks.append((data, at))
    return f"{FORKED}{len(forks) - 1}"


def _loaded(choice: str) -> catalog.LoadedTrace:
    if choice.startswith(SAVED):
        return _saved(choice.removeprefix(SAVED)) or state.load_bundled(catalog.FIRST_TRACE)
    if choice.startswith(FORKED):
        data, at = st.session_state[FORKS][int(choice.removeprefix(FORKED))]
        return catalog.load_bytes(data, f"fork {int(choice.removeprefix(FORKED)) + 1} (from round {at})")
    if choice.startswith(UPLOADED):
        upload, key = _upload()
        files = picker.files_name(st.session_state[picker.FILES])  # named as the explorer names it
        return catalog.from_upload(upload, files, key, int(choice.removeprefix(UPLOADED)))
    return state.load_bundled(choice)


def _run(loaded: catalog.LoadedTrace) -> Run:
    return Run(loaded.name, loaded.trace, state.summaries(loaded), findings(loaded))


def _linked(choices: dict[str, str]) -> None:
    """The runs a `?compare=A,B` link names, once per session; a name not found is said, and a default shown."""
    if LEFT in st.session_state:
        return
    asked = [_saved_choice(name) for name in st.query_params.get("compare", "").split(",") if name]
    open_now = open_in_sidebar()
    choices.update(_choices())  # the saved traces the link names, or the one open in the sidebar, now offered
    if open_now not in choices:  # a saved trace the library cannot give now
        open_now = catalog.FIRST_TRACE
    st.session_state[LINKED] = bool(asked)
    address.write(trace=None)  # the other pages' trace; this page names its two runs
    defaults = [open_now, _second(open_now, choices)]
    for n, key in enumerate((LEFT, RIGHT)):
        name = asked[n] if n < len(asked) else defaults[n]
        if name not in choices:
            st.warning(f"The link asks for a run that was not found; the {'left' if n == 0 else 'right'} side shows a "
                       "bundled trace instead. The link asked for:")
            plain.text(name)
            name = defaults[n]
        st.session_state[key] = name


def _second(first: str, choices: dict[str, str]) -> str:
    """The right run when nothing else is asked for: the upload's next conversation (or the one before the last)
    where the left run is one of an upload of several, so that Compare starts on the user's own runs; else a bundled
    pitfall trace."""
    if first.startswith(UPLOADED):
        n = int(first.removeprefix(UPLOADED))
        for other in (f"{UPLOADED}{n + 1}", f"{UPLOADED}{n - 1}"):
            if other in choices:
                return other
    return SECOND_TRACE if first != SECOND_TRACE else catalog.FIRST_TRACE


def _saved_choice(name: str) -> str:
    """A link's run as a choice: a saved trace's id (bare or as `saved:<id>`) is remembered and offered; a bundled
    trace's alias is its name."""
    trace_id = name.removeprefix(SAVED)
    if not is_kept_id(trace_id):
        return catalog.aliased(name, state.bundled())  # a bundled trace, by its name or its alias
    st.session_state[SAVED_RUNS] = [*st.session_state.get(SAVED_RUNS, []), trace_id]
    return f"{SAVED}{trace_id}"


def open_saved(left: str, right: str) -> None:
    """Open Compare on these two saved traces (by id), from their first divergence."""
    st.session_state[SAVED_RUNS] = [left, right]
    open_on(f"{SAVED}{left}", f"{SAVED}{right}")
    st.switch_page(navigation.COMPARE)


def open_on(left: str, right: str) -> None:
    """Make these the runs Compare shows when it opens next, from their first divergence."""
    st.session_state[LEFT], st.session_state[RIGHT] = left, right
    st.session_state[LINKED] = False
    st.session_state.pop(ROW, None)


def pickers() -> tuple[catalog.LoadedTrace, catalog.LoadedTrace]:
    """The two runs, chosen side by side."""
    navigation.frame_guard()
    navigation.keep_widget_values((*picker.KEPT, LEFT, RIGHT))
    address.arrived()
    choices = _choices()
    _linked(choices)
    _follow_browser(choices)
    for side, key in (("left", LEFT), ("right", RIGHT)):
        if st.session_state[key] not in choices:  # an upload closed since, or a saved trace deleted since
            if st.session_state[key].startswith(SAVED):  # not the user's doing: said, not swapped in silence
                st.warning(f"The saved trace the {side} side showed cannot be opened now: it was deleted from the "
                           "library (by you or someone else on this server), or the library does not answer. That side "
                           "shows the first bundled trace instead.")
            st.session_state[key] = catalog.FIRST_TRACE
    left, right = st.columns(2)
    a = left.selectbox("Left run", list(choices), format_func=plain.options(choices.get), key=LEFT,
                       persist_state="session")
    b = right.selectbox("Right run", list(choices), format_func=plain.options(choices.get), key=RIGHT,
                        persist_state="session")
    predicting = predict.predicting()  # no punchline in the address: a trace still to predict by its alias
    pair = f"{predict.link_name(a, predicting)},{predict.link_name(b, predicting)}"
    # Another pair's row is no row of this one: taken away with the pair written, so that Back never brings the new
    # pair at the old pair's row, a page never shown (chosen_row writes the new pair's row after).
    address.write(compare=pair, **({"round": None} if st.query_params.get("compare", pair) != pair else {}))
    return _loaded(a), _loaded(b)


def _follow_browser(choices: dict[str, str]) -> None:
    """Two runs the browser's Back or Forward brought to the address (`?compare=`) become the two on screen, from
    the row the address names; a run no longer offered leaves the pair as it is."""
    brought = address.browsed_trace("compare")
    asked = [_saved_choice(name) for name in (brought or "").split(",") if name]
    if len(asked) == 2 and all(name in choices for name in asked):
        st.session_state[LEFT], st.session_state[RIGHT] = asked


def held_while_predicting(left: catalog.LoadedTrace, right: catalog.LoadedTrace) -> bool:
    """True, and said why, when predict mode is on and a run has a round still to predict: every row of the page
    names what the model did in its rounds (its calls, its answer), and the totals count them."""
    for side, run in (("left", left), ("right", right)):
        if (first := predict.still_to_predict(run)) is not None:
            st.info(f"Predict mode is on: the {side} run has round {first} still to predict, and comparing the runs "
                    "would give away what the model does in it. Predict it in the round explorer, or turn predict "
                    "mode off there.")
            return True
    return False


def comparison(left: catalog.LoadedTrace, right: catalog.LoadedTrace) -> Comparison:
    """The two runs aligned, their figures from the same cached rows and findings as every other page; once per
    pair of traces and tokenizers."""
    return _aligned(left, right, (state.counting(left).counter.name, state.counting(right).counter.name),
                    state.prices())


@per_trace(key=lambda right, counters, prices: (right.digest, counters, prices), spinner="Aligning the runs…")
def _aligned(left: catalog.LoadedTrace, right: catalog.LoadedTrace, counters: tuple[str, str],
             prices: tuple[Price, ...]) -> Comparison:
    return compare(_run(left), _run(right), prices)


@per_trace()
def _contents(loaded: catalog.LoadedTrace) -> tuple[RoundContent, ...]:
    return round_contents(loaded.trace)


@per_trace(key=lambda right, rounds: (right.digest, rounds))
def _message_changes(left: catalog.LoadedTrace, right: catalog.LoadedTrace, rounds: tuple[int, int]):
    return message_changes(left.trace.rounds[rounds[0] - 1], left.trace, right.trace.rounds[rounds[1] - 1], right.trace,
                           SAME_KEPT)


@per_trace(key=lambda right, counters, prices: (right.digest, counters, prices))
def _rounds_frame(left: catalog.LoadedTrace, right: catalog.LoadedTrace, counters: tuple[str, str],
                  prices: tuple[Price, ...]) -> pd.DataFrame:
    found = _aligned(left, right, counters, prices)
    records = [{"row": n, "left round": p.left, "right round": p.right, "verdict": p.verdict,
                "tokens in, left": _tokens(p.words_left, 0),
                "tokens in, right": _tokens(p.words_right, 0),
                "Δ tokens in": _token_delta(p, 0)}
               for n, p in enumerate(found.pairs, start=1)]
    return _dashed(records)


def summary(found: Comparison) -> None:
    """Each run's totals, and where the runs first part."""
    # Counts stay numbers unless a side's are not all known: then both are words, as Arrow takes no mixed column.
    worded = any(f.calls_unknown for f in (found.left, found.right))
    table = pd.DataFrame([{"run": side, "name": f.name, "rounds": f.rounds,
                           "tool calls": f.calls_words if worded else f.calls,
                           "tokens in": f.input_figure, "tokens out": f.output_figure,
                           "cost USD": cost_figure(f.cost),
                           "findings": f.findings}
                          for side, f in (("left", found.left), ("right", found.right))])
    st.dataframe(plain.cells(table), hide_index=True, width="stretch", key="compare.summary", placeholder=NOTHING)
    # What a total leaves out, beneath it as on the Tokens page: in the cell, the browser cut the figure's words short.
    for side, f in (("left", found.left), ("right", found.right)):
        if f.input_left_out:
            st.caption(f"Tokens in of the {side} run: {f.input_left_out}.")
        if f.output_left_out:
            st.caption(f"Tokens out of the {side} run: {f.output_left_out}.")
        if cost_notes(f.cost):
            st.caption(f"Cost of the {side} run: {cost_notes(f.cost)}.")
    first, unsure = found.first_divergence, found.first_uncompared
    if first is None and unsure is not None:  # not known to differ, nor to be the same
        st.info(f"Nothing the logs hold differs between the runs, but not every round could be compared: from row "
                f"{unsure:,} on, a request or an answer is not in a log (each row's verdict says which).")
    elif first is None:
        st.success("The runs say the same in every round.")
    else:
        pair = found.pairs[first - 1]
        st.info(f"The runs first diverge at row {first}: left round {pair.left or '–'}, right round {pair.right or '–'}.")


def forked(left: catalog.LoadedTrace, right: catalog.LoadedTrace) -> None:
    """For a run that is a fork: which rounds it copied from its parent and which it sent again, as its file says. A
    round copied reads "same" beside the parent's, and is counted in the fork's totals, though the fork did not send
    it."""
    for side, loaded in (("left", left), ("right", right)):
        if isinstance(loaded.trace.header.get("fork"), dict) and (note := loaded.trace.provenance.note):
            st.caption(f"The {side} run is a fork. A round it copied from its parent reads \u201csame\u201d beside the "
                       "parent's and counts in its totals, though the fork did not send it. What it copied and what it "
                       "sent again, as its file says:")
            plain.text(note)


def _delta(left, right):
    return None if left is None or right is None else right - left


def _token_delta(pair: RoundPair, n: int) -> str | None:
    """Input (n=0) or output (n=1) tokens, right less left: an estimate, marked ≈, when either side is one."""
    change = _delta(*(t[n] if t else None for t in (pair.tokens_left, pair.tokens_right)))
    return None if change is None else about(change, pair.estimated_left or pair.estimated_right)


def rounds_table(left: catalog.LoadedTrace, right: catalog.LoadedTrace) -> None:
    """One row per aligned pair: the rounds, the verdict, and the tokens on each side."""
    table = _rounds_frame(left, right, (state.counting(left).counter.name, state.counting(right).counter.name),
                          state.prices())
    st.dataframe(plain.cells(table), hide_index=True, width="stretch", key="compare.rounds", placeholder=NOTHING)


def chosen_row(found: Comparison) -> int:
    """The row to show in detail: the link's, else the first divergence, kept in the link."""
    count = len(found.pairs)
    runs = (st.session_state.get(LEFT), st.session_state.get(RIGHT))
    if st.session_state.get(ROW_RUNS, runs) != runs:  # a row of the old pair's alignment is no row of this one
        st.session_state.pop(ROW, None)
        st.session_state[LINKED] = False
    st.session_state[ROW_RUNS] = runs
    if (browsed := address.browsed_round(count)) is not None:
        st.session_state[ROW] = browsed
    if ROW not in st.session_state:
        linked = linked_round(st.query_params.get("round"), count)
        # Another page's `round` counts that page's rounds, not these rows.
        asked = st.session_state.get(LINKED) and "round" in st.query_params
        if asked and linked.problem:
            st.warning(linked.problem.replace("round", "row"))
        st.session_state[ROW] = linked.round if asked else (found.first_divergence or found.first_uncompared or 1)
    st.session_state[ROW] = min(max(st.session_state[ROW], 1), count)
    row = st.number_input("Row", min_value=1, max_value=count, step=1, key=ROW)
    address.write(round=str(row))
    return row


def _tokens(words: tuple[str, str] | None, n: int) -> str | None:
    """Input (n=0) or output (n=1) tokens of one side's round as the Tokens page writes them (RoundPair.words_left)."""
    return None if words is None else words[n]


def _figures(pair: RoundPair) -> None:
    a, b, c = st.columns(3)
    for column, label, n in ((a, "Input tokens", 0), (b, "Output tokens", 1)):
        change = _delta(*(t[n] if t else None for t in (pair.tokens_left, pair.tokens_right))) or 0
        # A delta written "≈ -86" does not start with its sign, so the arrow is given, not guessed.
        column.metric(f"{label}, right (left: {_tokens(pair.words_left, n) or '–'})",
                      _tokens(pair.words_right, n) or "–", delta=_token_delta(pair, n),
                      delta_color="off", delta_arrow="down" if change < 0 else "up" if change > 0 else "off")
    cost = _delta(pair.cost_left, pair.cost_right)
    if cost is not None:  # the arrow follows the difference as written: none beside "+0.00000", nor a "-0.00000"
        cost = round(cost, 5) + 0.0
    spent = "–" if pair.right is None else (money_words(pair.cost_right, pair.estimated_right)
                                            if pair.cost_known_right else COST_NOT_KNOWN)
    # A difference taken from an estimate on either side is one too; written "≈ +0.00001", its arrow is given.
    mark = "≈ " if pair.estimated_left or pair.estimated_right else ""
    c.metric("Cost USD, right", spent, delta=None if cost is None else f"{mark}{cost:+.5f}", delta_color="off",
             delta_arrow="off" if not cost else "down" if cost < 0 else "up", help=pair.billing_words)


def _dashed(records: list[dict]) -> pd.DataFrame:
    """The records as a table whose columns of whole numbers stay whole numbers where a side has nothing (shown as
    `–`, the tables' placeholder, as the headings write it, not "None"). A `–` put in the data itself made a column
    of numbers and text, which Streamlit converts with a traceback in the server's log."""
    frame = pd.DataFrame(records)
    for name in frame.columns:
        values = [record[name] for record in records if record.get(name) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            frame[name] = pd.array([record.get(name) for record in records], dtype="Int64")
    return frame


def _table(records: list[dict], key: str, empty: str) -> None:
    if records:
        st.dataframe(plain.cells(_dashed(records)), hide_index=True, width="stretch", key=key, placeholder=NOTHING)
    else:
        st.caption(empty)


def detail(left: catalog.LoadedTrace, right: catalog.LoadedTrace, found: Comparison, row: int) -> None:
    """One aligned pair side by side: messages, tools, calls, results, finish, tokens, findings."""
    pair = found.pairs[row - 1]
    st.subheader(f"Row {row}: left round {pair.left or '–'}, right round {pair.right or '–'}", anchor=False)
    plain.text(pair.verdict)
    _figures(pair)
    _table([{"only in the left": code} for code in pair.findings_left]
           + [{"only in the right": code} for code in pair.findings_right], "compare.findings",
           "No finding of the checks is in one of these rounds and not the other.")
    if pair.left is None or pair.right is None:
        st.caption("This round is in one run only: open it in the round explorer to read it.")
        return
    a, b = left.trace.rounds[pair.left - 1], right.trace.rounds[pair.right - 1]
    content_a, content_b = _contents(left)[pair.left - 1], _contents(right)[pair.right - 1]
    unknown = unrecorded_words(content_a, content_b)
    st.markdown("**The messages array, as the model reads it**")
    if unknown:  # an unknown request diffed as an empty one would list the other's every message as "only" there
        st.caption(unknown)
    else:
        changes = _message_changes(left, right, (pair.left, pair.right))
        _table([{"entry": c.status, "left": c.left, "right": c.right} for c in changes],
               "compare.messages", "Neither request carries a message.")
        for change in (c for c in changes if c.diff):
            st.code(change.diff, language="diff")
        if uninstructed := uninstructed_words(content_a, content_b):
            st.caption(uninstructed)
    st.markdown("**Tools**")
    # A side a tool is missing from, or a call with no argument changed, has nothing: the placeholder, not a blank.
    if unknown or unlisted_words(content_a, content_b):
        st.caption(unknown or unlisted_words(content_a, content_b))
    else:
        _table([{"tool": t.name, "change": t.status, "left": t.left or None, "right": t.right or None}
                for t in tool_changes(content_a, content_b)], "compare.tools", "The same tools, described alike.")
    unanswered = content_a.answer_missing or content_b.answer_missing
    st.markdown("**Calls**")
    if unanswered:  # an answer not known, diffed as one without calls, would list the other's as "–" there
        _answered_side(content_a, content_b, "compare.calls",
                       lambda c: [{c.side: item_text(call)} for call in c.content.calls], "round made no call")
    else:
        _table([{"left": c.left, "right": c.right, "arguments changed": ", ".join(c.arguments) or None}
                for c in call_changes(content_a, content_b)], "compare.calls", "Neither round made a call.")
    st.markdown("**What the model wrote**")
    if unanswered:
        _answered_side(content_a, content_b, "compare.answers",
                       lambda c: [{f"what the {c.side} model wrote": text} for text in answer_texts(c.content)],
                       "model wrote no text")
    else:
        _table([{"what the left model wrote": x, "what the right model wrote": y}
                for x, y in _zipped(answer_texts(content_a), answer_texts(content_b))],
               "compare.answers", "Neither response carries text.")
    st.markdown("**Results sent back, and the finish**")
    results = [{"left": item_text(x) if x else None, "right": item_text(y) if y else None}
               for x, y in _zipped(content_a.results, content_b.results)]
    _table(results + [{"left": finish_written(a), "right": finish_written(b)}],
           "compare.results", "")
    for side, round_ in (("left", a), ("right", b)):
        if round_.error is not None:  # a request no provider saw did not fail: no call was made (unmade_words)
            st.caption(f"The {side} round's call failed:" if unmade_words(round_.error) is None else
                       f"The {side} round made no call; why:")
            plain.text(round_.error.message)


@dataclass(frozen=True, slots=True)
class _Side:
    """One side of a pair, named."""

    side: str
    """`left` or `right`."""
    content: RoundContent
    """What its round says."""


def _answered_side(content_a: RoundContent, content_b: RoundContent, key: str,
                   records: Callable[[_Side], list[dict]], none: str) -> None:
    """Where a side's answer is not known: why, and the other side's part of the answer alone."""
    for side in (_Side("left", content_a), _Side("right", content_b)):
        if words := unanswered_words(side.content, side.side):
            st.caption(words)
        else:
            _table(records(side), key, f"The {side.side} {none}.")


def _zipped(a: tuple, b: tuple) -> list[tuple]:
    return [(a[n] if n < len(a) else None, b[n] if n < len(b) else None) for n in range(max(len(a), len(b)))]
