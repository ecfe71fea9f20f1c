"""One round in both dialects side by side, with the field mapping panel above them.

lib/dialects/convert.py converts through Roundtrip's data model (lib/model.py); this lays the two
bodies out. The dialect a trace was recorded in shows its real payload; the other shows the conversion and what it
could not carry. Trace strings reach the screen only through st.json, st.dataframe and st.text.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.catalog import LoadedTrace
from lib.dialects import ANTHROPIC, DIALECT_NAMES, OPENAI
from lib.dialects.common import dumps_as_written
from lib.dialects.convert import ConvertedRound, convert
from lib.dialects.field_table import field_mapping
from lib.failures import NO_RESPONSE
from lib.model import Round, Trace
from lib.summary import parts_not_logged
from lib.text import plural, show_controls
from lib.ui import plain
from lib.ui.cards import request_not_in_log
from lib.provenance import converted_lacks
from lib.ui.provenance import provenance_line


def side_by_side(loaded: LoadedTrace, index: int, revealed: bool = True) -> None:
    """Round `index` as Chat Completions and as Messages, and the fields where the two differ."""
    trace = loaded.trace
    round_ = trace.rounds[index - 1]
    response = round_.response if revealed else None  # before a prediction the response must not leak
    both = {d: convert(round_.request, response, trace.dialect, d) for d in (OPENAI, ANTHROPIC)}
    rows = field_mapping(both[OPENAI], both[ANTHROPIC], parts_not_logged(round_))
    st.markdown("**Where the two dialects differ**")
    # The rules are our own words (no trace text), so a markdown table may show them, wrapped; this round's own
    # fields, which hold trace text, go to the dataframe below.
    st.markdown("\n".join([f"| | {DIALECT_NAMES[OPENAI]} | {DIALECT_NAMES[ANTHROPIC]} |", "| --- | --- | --- |",
                           *(f"| **{r.what}** | {r.openai} | {r.anthropic} |"
                             for r in rows)]))
    st.markdown(f"**The same fields in round {index}**")
    st.dataframe(plain.cells(pd.DataFrame([{"what": r.what, DIALECT_NAMES[OPENAI]: r.openai_here,
                                            DIALECT_NAMES[ANTHROPIC]: r.anthropic_here} for r in rows])),
                 hide_index=True, width="stretch", key="dialects.mapping")
    columns = st.columns(2, gap="medium")
    for column, dialect in zip(columns, (OPENAI, ANTHROPIC)):
        with column:
            _body(trace, round_, both[dialect], recorded=dialect == trace.dialect, revealed=revealed)


def _body(trace: Trace, round_: Round, converted: ConvertedRound, recorded: bool, revealed: bool) -> None:
    st.markdown(f"#### {DIALECT_NAMES[converted.request.dialect]}")
    if recorded:
        provenance_line(trace, round_)
    else:
        st.caption("Converted by Roundtrip, field by field.")
    st.markdown("**Request**")
    if round_.request_recorded:
        lacks = "" if recorded else converted_lacks(trace.round_provenance(round_))
        if lacks:
            plain.text(lacks)  # names the trace's own `omitted` entries
        _payload(round_.request.raw, recorded, converted.request.body)
    else:
        request_not_in_log()
    st.markdown("**Response**")
    if not revealed:
        st.caption("Hidden until you predict it.")
    elif round_.error is not None:
        st.caption("The call failed; a provider's error body is its own and is not converted.")
        plain.payload(round_.error.body)
    elif round_.response is None:
        st.caption(NO_RESPONSE)
    else:
        _payload(round_.response.raw, recorded, converted.response.body)
    if not recorded and converted.notes:
        with st.expander(f"What this conversion could not carry ({plural(len(converted.notes), 'item')})"):
            st.text("\n".join(converted.notes))


def _payload(raw, recorded: bool, converted_body) -> None:
    if recorded:
        plain.payload(raw)
    else:
        # As text, not st.json: the browser would parse the numbers again and show 60.00 as 60.
        st.code(plain.clip(show_controls(dumps_as_written(converted_body, indent=2))), language="json")
