"""One element kind alone on a page, for bench.peers.kinds: `?kind=metric` draws one st.metric under the same text
as the bare page. Every element is given our own fixed words."""

import streamlit as st

KINDS = {
    "text": lambda: None,
    "markdown": lambda: st.markdown("**bold** and :green-background[a step]"),
    "caption": lambda: st.caption("a caption"),
    "caption with help": lambda: st.caption("a caption", help="why"),
    "subheader": lambda: st.subheader("a subheader"),
    "divider": lambda: st.divider(),
    "columns": lambda: st.columns(2)[0].text("in a column"),
    "bordered container": lambda: st.container(border=True).text("in a box"),
    "expander (closed)": lambda: st.expander("an expander").text("inside"),
    "expander (on_change)": lambda: st.expander("an expander", key="x", on_change="rerun"),
    "popover": lambda: st.popover("a popover").text("inside"),
    "popover holding a download button": lambda: st.popover("Export").download_button("a download", data=b"x",
                                                                                        on_click="ignore"),
    "closed expander holding a toggle": lambda: st.expander("more").toggle("a toggle"),
    "html": lambda: st.html("<style>.x{}</style>"),
    "markdown holding a style": lambda: st.markdown("<style>.x{}</style>", unsafe_allow_html=True),
    "button": lambda: st.button("a button"),
    "button with icon": lambda: st.button("a button", icon=":material/fork_right:"),
    "toggle": lambda: st.toggle("a toggle"),
    "checkbox": lambda: st.checkbox("a checkbox"),
    "radio": lambda: st.radio("a radio", ["a", "b", "c"], horizontal=True),
    "segmented control": lambda: st.segmented_control("a choice", ["a", "b", "c"], default="a"),
    "pills": lambda: st.pills("a choice", ["a", "b", "c"], default="a"),
    "selectbox": lambda: st.selectbox("a select box", ["a", "b"]),
    "number input": lambda: st.number_input("a number", 1, 10),
    "metric": lambda: st.metric("a metric", "1,234", delta="+5 vs reported", delta_color="off", help="why"),
    "download button": lambda: st.download_button("a download", data=b"x", on_click="ignore"),
    "file uploader": lambda: st.file_uploader("an upload"),
    "info": lambda: st.info("an info"),
}
"""Each kind the explorer's first screen draws, or might draw instead, by name."""

if __name__ == "__main__":  # as `streamlit run` runs it; bench.peers.kinds imports KINDS only
    st.text("Round 1: the program sends the conversation")
    for _ in range(int(st.query_params.get("n", "1"))):  # bench.peers.elements draws many of one kind
        KINDS[st.query_params.get("kind", "text")]()
