"""What is derived from a trace is computed once per trace and extra key, and only so many are kept."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from lib import library, tokens
from lib.lru import LeastRecentlyUsed
from lib.model import Message, TextPart
from lib.ui import cache
from tests.conftest import load_bundled
from tests.databases import database_url, postgres_url, sqlite_url, store  # noqa: F401 (fixtures)


def test_a_derived_value_is_computed_once_per_trace_and_key(monkeypatch):
    st.cache_resource.clear()
    calls = []

    @cache.per_trace()
    def rounds_from(loaded, first):
        calls.append((loaded.name, first))
        return len(loaded.trace.rounds) - first

    hengxin, larkfield = load_bundled("hengxin-expense"), load_bundled("larkfield-get-order")
    assert [rounds_from(hengxin, 1), rounds_from(hengxin, 1), rounds_from(hengxin, 2), rounds_from(larkfield, 1)] \
        == [3, 3, 2, 1]
    assert calls == [("hengxin-expense", 1), ("hengxin-expense", 2), ("larkfield-get-order", 1)]
    st.cache_resource.clear()


def test_the_per_trace_cache_keeps_a_bounded_number_of_values(monkeypatch):
    st.cache_resource.clear()
    monkeypatch.setattr(cache, "KEPT", 2)
    calls = []

    @cache.per_trace()
    def title_of(loaded):
        calls.append(loaded.name)
        return loaded.trace.title

    names = ["hengxin-expense", "larkfield-get-order", "loan-calculator", "hengxin-expense"]
    for name in names:
        title_of(load_bundled(name))
    assert calls == names  # the first trace was dropped when the third came in
    st.cache_resource.clear()


def test_the_shared_token_counts_forget_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(tokens, "_counts", LeastRecentlyUsed(2))
    counted = []
    counter = tokens.TokenCounter("test-words", False, lambda text: counted.append(text) or len(text.split()))
    first, second, third = (Message("user", (TextPart(text),), {"role": "user", "content": text}, text) for text in ("one", "two words", "three"))
    for message in (first, second, first, third, first, second):
        tokens.message_tokens(message, counter)
    assert len(tokens._counts) == 2
    assert counted == ["one", "two words", "three", "two words"]  # "one" stayed: it was used last but one


def test_a_trace_saved_again_under_the_same_id_never_shows_what_was_derived_from_its_earlier_saving(store):
    # The id is the rounds' fingerprint: deleted and saved again with another title and other notes, a
    # trace keeps its id, and what the explorer derived from the first saving must not be shown for the second.
    st.cache_resource.clear()

    @cache.per_trace()
    def heading(loaded):
        return f"{loaded.trace.title}: {len(loaded.trace.annotations)} notes"

    opened = library.OpenedTraces(store)
    trace = load_bundled("hengxin-expense").trace
    trace_id = library.save(store, trace, source="upload", title="Week 48")
    assert heading(opened.open(trace_id)) == "Week 48: 0 notes"

    assert library.delete(store, trace_id)
    note = {"kind": "annotation", "target": {"round": 1}, "label": "good", "author": "ana", "created": "2026-11-30T10:00:00Z"}
    again = replace(trace, annotations=(note,))
    assert library.save(store, again, source="upload", title="Week 49") == trace_id
    assert heading(opened.open(trace_id)) == "Week 49: 1 notes"
    assert heading(library.open_kept(store, trace_id)) == "Week 49: 1 notes"
    st.cache_resource.clear()
