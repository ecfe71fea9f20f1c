"""Download buttons for the trace as one HTML file and as a printable handout, in a popover.

lib/export_html.py builds the files; the buttons build them only when pressed (Streamlit calls
the data function on the click), so an ordinary rerun pays nothing for them. The browser draws a popover's
content only once it is opened, so a first load fetches no download button's code: the script's last element,
whose code was the last a first load waited for before Streamlit showed the page's lazily loaded elements.
"""

from __future__ import annotations

import re

import streamlit as st

from lib.catalog import LoadedTrace
from lib.export_html import handout_html, trace_html
from lib.ui import annotate, findings, state

EXPORT = "Export…"
"""The popover that holds the two downloads."""
STEM_LIMIT = 80
"""Characters of a downloaded file's name before its extension."""


def downloads(loaded: LoadedTrace) -> None:
    """The trace as a single offline HTML file, and a handout with one page per round."""
    trace = loaded.trace
    # Each is cached; the store's problems are absorbed there.
    rows, notes, rubrics = state.summaries(loaded), annotate.notes_on(loaded), annotate.snapshot().rubrics
    found = findings.findings(loaded)  # the Checks page's, computed once per trace
    # An upload's name carries its conversation's id, which a log may make as long as it likes: keep what a
    # file system takes.
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", loaded.name.removesuffix(".jsonl"))[:STEM_LIMIT].strip("-.") or "trace"
    st.subheader("Share")
    st.caption("One HTML file that opens in any browser, offline: what the checks found, and every round with its "
               "steps, tokens and notes. "
               "The handout prints one page per round, with room for a prediction, and the answers at the end.")
    box = st.popover(EXPORT, icon=":material/download:")
    box.download_button("Download the trace as one HTML file", key="share.html", on_click="ignore",
                        data=lambda: trace_html(trace, rows, notes, rubrics, found, loaded.problems,
                                                loaded.skipped).encode(), file_name=f"{stem}.html",
                        mime="text/html")
    box.download_button("Download a printable handout", key="share.handout", on_click="ignore",
                        data=lambda: handout_html(trace).encode(), file_name=f"{stem}.handout.html",
                        mime="text/html")
