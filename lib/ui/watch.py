"""The Watch page's parts: how to point an agent at the proxy, the captures newest first, and the
chosen capture's rounds, redrawn every second by a fragment so new rounds appear without a rerun
of the page. A capture is untrusted like any log: it reaches the page only through the explorer's
own views and plain text."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lib import catalog
from lib.capture import files
from lib.model import KEPT_HEADERS
from lib.ui import access as ui_access, explorer, kept, navigation, picker, plain, state

CAPTURE, CONVERSATION, ROUND, SHOWN, PORT, FORK_ASKED, RUNS = (
    "watch.capture", "watch.conversation", "watch.round", "watch.shown_rounds", "watch.port", "watch.fork_asked",
    "watch.shown_conversations")
KNOWN = "watch.known_captures"
"""Session key: the captures listed when the page last drew, to tell one that appeared since."""
"""Session keys of the Watch page."""

PYTHON = ".venv/bin/python"
"""The interpreter `make run` sets up, which the proxy's command names (docs/capture.md)."""
REFRESH_S = 1.0
"""How often the chosen capture is read again."""
CHOICES_UP_TO = 12
"""Rounds offered as a row of choices; a longer capture gets a number field: a thousand choices, their labels
written and sent again every second, made each rerun of the page take twice Hengxin's."""


def frame_guard() -> None:
    """Go through app.py's frame, and keep the explorer's sidebar choices while this page is open."""
    navigation.frame_guard()  # this page draws no picker, which applies the guard on every other page
    navigation.keep_widget_values(picker.KEPT)


def for_editors() -> bool:
    """Whether this visitor may watch captures; a viewer is told why not. Captures hold whatever the operator's
    agents sent, unreviewed: an editor saves one to the library to share it."""
    # Not every editor: in a room where every learner who signs in edits (`*`), the operator's captures, unreviewed,
    # would be every learner's to read.
    if ui_access.moderates():
        return True
    st.info("On this server only the editors its operator names watch captures. A capture an editor saves to the "
            "library opens for everyone by its link.")
    return False


def how_to_connect() -> None:
    """The sidebar: the command that starts the proxy and each client's exact base URL, with copy buttons."""
    with st.sidebar:
        st.subheader("Point your agent here")
        port = st.number_input("Proxy port", 1, 65535, 8700, key=PORT)
        base = f"http://127.0.0.1:{port}"
        st.caption("In Roundtrip's folder, start the proxy (it records into data/captures/):")
        # Wrapped: the sidebar is narrower than each line, and a line cut at its edge reads as the whole of it. The
        # virtual environment's Python, as docs/capture.md writes it: a bare `python` lacks the packages.
        st.code(f"{PYTHON} -m lib proxy --port {port} --upstream https://api.openai.com", language="bash",
                wrap_lines=True)
        st.caption("OpenAI SDK (or any OpenAI-compatible server given as --upstream):")
        st.code(f'OpenAI(base_url="{base}/v1")', language="python", wrap_lines=True)
        st.caption("Anthropic SDK:")
        st.code(f'Anthropic(base_url="{base}")', language="python", wrap_lines=True)
        st.caption("OpenTelemetry OTLP/HTTP exporter:")
        st.code(f"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={base}/v1/traces", language="bash", wrap_lines=True)
        st.caption(capture_keeps_words())


def capture_keeps_words() -> str:
    """What a capture keeps of each call, the request headers it keeps named (lib.model.KEPT_HEADERS): said once, in the
    sidebar, not on every round."""
    names = ", ".join(f"`{name}`" for name in KEPT_HEADERS)
    return ("A capture keeps each call's request and response bodies, its status, latency and time, and of its request "
            f"headers only those that switch provider features on: {names}. Never `Authorization`, `x-api-key`, a "
            "cookie or any other header: no key is written.")


def chosen_capture() -> Path | None:
    """The capture picked from the list, newest first; None (with a word on how to start) when there is none. A
    capture that appeared since the page last drew (a proxy started, or started again) is picked: it is where the
    agent's calls now go."""
    captures = files.list_captures()
    if not captures:
        st.info("No capture yet in data/captures/. Start the proxy (see the sidebar), point your agent at it, and its "
                "calls appear here. A proxy given -o FILE writes that file instead: open it on the Round explorer.")
        st.session_state[KNOWN] = ()
        st.fragment(run_every=REFRESH_S)(_redraw_on_new_capture)()
        return None
    names = [p.name for p in captures]
    known = st.session_state.get(KNOWN)
    appeared = [name for name in names if known is not None and name not in known]
    if st.session_state.get(CAPTURE) not in names or appeared:
        st.session_state[CAPTURE] = (appeared or names)[0]
    st.session_state[KNOWN] = tuple(names)
    # The names alone: a label that changed with every call would make Streamlit forget the choice.
    name = st.selectbox("Capture", names, key=CAPTURE, help="Newest first; each file is named after the time its proxy started (UTC).")
    return files.CAPTURES_DIR / name


def open_in_explorer(path: Path) -> None:
    """A button that shows the whole capture in the round explorer, on the conversation and round on screen."""
    if st.button("Open in the explorer", key="watch.open"):
        # Else the explorer opened on conversation 1, round 1: another run than the one being watched, unsaid.
        conversation, index = st.session_state.get(CONVERSATION), st.session_state.get(ROUND)
        _open(path, conversation)
        if isinstance(conversation, int) and isinstance(index, int):
            _point_explorer(conversation, index)
        _leave(navigation.EXPLORER)


def _point_explorer(conversation: int, index: int) -> None:
    """Make round `index` of this conversation of the capture just opened (_open) the explorer's round, read as the
    explorer will read it: its round is kept only for the trace it was set for."""
    opened = st.session_state[picker.FILES]
    forced = st.session_state.get(picker.FORMAT, "auto")
    upload, key = state.load_upload(opened, st.session_state[picker.FILES_DIGEST], None if forced == "auto" else forced)
    if conversation < len(upload.conversations) and 1 <= index <= len(upload.conversations[conversation].trace.rounds):
        navigation.point_explorer_at(catalog.from_upload(upload, picker.files_name(opened), key, conversation), index)


def _fork(path: Path, conversation: int, index: int) -> None:
    """Open the Fork page on this round of the capture, not of the sidebar's trace. Asked from inside the fragment, the
    page switch is left to the whole page's run (fork_if_asked): switched from the fragment, the Fork page drew for a
    moment, then the fragment's next redraw left it blank."""
    _open(path, conversation)
    st.session_state[navigation.FORK_ROUND] = index
    st.session_state[FORK_ASKED] = True
    st.rerun(scope="app")


def fork_if_asked() -> None:
    """Open the Fork page when Fork from here was pressed in the rounds below."""
    if st.session_state.pop(FORK_ASKED, False):
        _leave(navigation.FORK)


def _leave(page: str) -> None:
    """Switch to `page`, first forgetting the rounds' fragment, so that no late redraw of it blanks that page."""
    # The browser asks for a redraw every second until it hears of the switch. One asked for just before, reaching the
    # server after the next page's run began, waited behind that run and then ran as a redraw of this page's rounds:
    # the browser took it for this page coming back, cleared the page it had just drawn and drew nothing (a Fork page
    # that stayed blank). Streamlit drops a redraw of a fragment it no longer holds, and folds one that came before
    # the switch into the switch's own rerun; it forgets this page's fragments only at the end of a whole run, which
    # the switch cuts short, so they are forgotten here (the next page registers its own as it draws).
    ctx = get_script_run_ctx()
    if ctx is not None:
        ctx.fragment_storage.clear()
    st.switch_page(page)


def _open(path: Path, conversation: int | None = None) -> None:
    """Make the capture (and the conversation on screen) the sidebar's trace, which the other pages show."""
    picker.open_files([(path.name, path.read_bytes())], source="capture")
    if conversation is not None:
        st.session_state[picker.CONVERSATION] = conversation


def rounds(path: Path) -> None:
    """The capture's rounds, following the newest: drawn by a fragment that runs every second."""
    st.fragment(run_every=REFRESH_S)(_rounds)(path)


def _redraw_on_new_capture() -> None:
    """Redraw the whole page when a capture appears that it does not list: the list and the choice are drawn outside
    the fragments that run every second. Else a proxy started (or started again, into a new file) while the page was
    open went unseen: the page said "No capture yet", or went on showing the last capture, finished."""
    if any(p.name not in st.session_state.get(KNOWN, ()) for p in files.list_captures()):
        st.rerun(scope="app")


def _rounds(path: Path) -> None:
    _redraw_on_new_capture()
    try:
        upload, key = state.load_growing(path)
    except OSError as exc:
        st.warning(f"The capture cannot be read ({exc.strerror or type(exc).__name__}).")
        return
    plain.text(upload.summary())
    picker.skipped_lines(upload)  # why a captured call is not a round, in the reader's words
    if not upload.conversations:
        if not upload.problems:
            st.info("No round captured yet: calls appear here within a second of completing.")
        return
    # The ids alone, as the captures' names: a label with the round count changed with every call, and the browser
    # then sent back a label no option had, which Streamlit hands over as that text instead of a conversation.
    labels = [c.id for c in upload.conversations]
    chosen = st.session_state.get(CONVERSATION)
    seen = st.session_state.get(RUNS)
    if not isinstance(chosen, int) or chosen >= len(labels) or (seen is not None and seen[0] != path.name):
        # Another capture opens on its newest conversation, set here so that the browser is told: left to the box's
        # default, it went on naming the last capture's conversation ("c1dd2ba7…") above this capture's rounds.
        st.session_state[CONVERSATION] = len(labels) - 1
    elif seen is not None and len(labels) > seen[1]:
        # A conversation that was not there a second ago is the agent's new run: followed, as a new round is. Else the
        # page went on showing the run it opened on, finished, while the new one's rounds arrived out of sight.
        st.session_state[CONVERSATION] = len(labels) - 1
    st.session_state[RUNS] = (path.name, len(labels))
    index = st.selectbox("Conversation", range(len(labels)), index=len(labels) - 1,
                         format_func=plain.options(labels.__getitem__),
                         key=CONVERSATION, persist_state="session")
    _follow(catalog.from_upload(upload, path.name, key, index), lambda at: _fork(path, index, at), len(labels))


def _follow(loaded: catalog.LoadedTrace, fork, runs: int) -> None:
    """The chosen conversation's rounds, the newest shown as it arrives (as the Live run page does)."""
    count = len(loaded.trace.rounds)
    if st.session_state.get(SHOWN) != count or ROUND not in st.session_state:
        st.session_state[SHOWN], st.session_state[ROUND] = count, count
    st.session_state[ROUND] = min(st.session_state[ROUND], count)
    if count <= CHOICES_UP_TO:
        index = st.radio("Round", range(1, count + 1), key=ROUND, horizontal=True, format_func=lambda k: f"Round {k}")
    else:
        index = st.number_input(f"Round (1 to {count:,})", min_value=1, max_value=count, step=1, key=ROUND)
    # Beside "3 rounds in 2 conversations", a bare "Saved to the library" read as the whole capture kept.
    kept.save_button(loaded, "capture", key="watch.save", of=runs, whole="capture")
    explorer.round_view(loaded, index, fork=fork)


