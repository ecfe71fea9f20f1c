"""The one way trace text reaches the page: as text, never as markdown, HTML, a link or an image.

Streamlit renders markdown in st.markdown, st.caption, headings, alerts, and in the labels and
tooltips of widgets, expanders, tabs and metrics. There `![x](https://…)` is a remote image that
loads with no click and a bare `https://…` is a live link, however the text is escaped. So every
string taken from a trace, a note or a log goes through `text` (st.text, which makes no markup of
anything), next to labels made only of our own words; payloads go to st.code, st.json or a
dataframe, which make none either.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from lib.text import show_controls

BROWSER_EXACT = 2 ** 53
"""The largest integer a browser's JSON.parse keeps exact: st.json shows anything past it rounded."""
DISPLAY_LIMIT = 20_000
"""Characters of one value shown at once; the raw JSON view keeps the whole value."""

TITLE_CSS = """<style>
/* A trace's title, shown as text (no markdown) in a heading's size. A fixed rule of our own: no trace text. */
[class*="st-key-trace-title"] [data-testid="stText"] { font-size: 2.25rem; font-weight: 700; line-height: 1.25; }
</style>"""
"""How a trace's title looks: like the page title it stands in for."""


def clip(value: str) -> str:
    """The value whole when short enough, else its start and how much was left out."""
    if len(value) <= DISPLAY_LIMIT:
        return value
    return value[:DISPLAY_LIMIT] + f"\n… {len(value) - DISPLAY_LIMIT:,} more characters (see Raw JSON)"


def text(value, where=None) -> None:
    """Untrusted text on the page, exactly as it is: no link, image, HTML or formatting can come of it."""
    (where or st).text(clip(show_controls(str(value))))


def cells(frame):
    """A table for st.dataframe with the bidi controls of every text cell and column name written out (`[U+202E]`), as
    `text` writes them: a table draws its cells as they are, and "Refund approved \u202egnp.exe" read "Refund approved
    exe.png". Columns of numbers are left as they are."""
    shown = frame.rename(columns=lambda name: show_controls(name) if isinstance(name, str) else name)
    for place, kind in enumerate(shown.dtypes):
        if kind == object or pd.api.types.is_string_dtype(kind):
            shown.isetitem(place, shown.iloc[:, place].map(lambda v: show_controls(v) if isinstance(v, str) else v))
    return shown


def options(words):
    """A `format_func` for a list whose options hold trace text: `words(option)` with its bidi controls written out,
    since a list draws its options as they are."""
    return lambda option: show_controls(str(words(option)))


def title(value, words: str | None = None) -> None:
    """A page's title: our own `words` as the heading, when given, and the trace's title as text in a heading's size."""
    if words:
        st.title(words, anchor=False)
    st.html(TITLE_CSS)
    with st.container(key="trace-title"):
        text(value)


def ours(value, words) -> str | None:
    """`value` when it is one of our own `words` (so markdown may show it), else None."""
    return value if isinstance(value, str) and value in words else None


def _shown_as_text(body: Any) -> bool:
    """Whether the body must be shown as JSON text, not folded by st.json: it holds an integer past BROWSER_EXACT,
    which the browser would round, or a bidi control in a key or a string, which st.json would draw as it is. A
    stack, not recursion: bodies nest deep."""
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
            stack.extend(value.keys())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            if show_controls(value) != value:
                return True
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > BROWSER_EXACT:
            return True
    return False


def payload(body: Any) -> None:
    """A whole JSON body, folded by st.json; as JSON text when it holds an integer the browser would round or a bidi
    control, written out as `text` writes it."""
    if _shown_as_text(body):
        st.code(show_controls(json.dumps(body, ensure_ascii=False, indent=2)), language="json")
    else:
        st.json(body, expanded=3)
