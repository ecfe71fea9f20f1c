"""The shared sidebar trace picker: a bundled trace, a saved one (`?trace=<id>`), or an uploaded log with its
conversations, which an editor may save to the library.

Every page calls `trace_picker()` first. (It lives here rather than in app.py because Streamlit's
AppTest does not deliver uploads to widgets drawn by the navigation frame, and the upload must be
testable through the real widget.)
"""

from __future__ import annotations

import streamlit as st

from lib import catalog, library
from lib.deeplink import closest_trace, is_kept_id
from lib.logs import format_names
from lib.logs.upload import Upload
from lib.text import plural
from lib.store import StoreUnavailable
from lib.ui import access as ui_access, address, kept, navigation, plain, predict, state

TRACE = "sidebar.trace"
"""Session key of the bundled-trace selectbox."""
UPLOAD = "sidebar.upload"
"""Session key of the file uploader widget (with `.N` after it once it was emptied N times)."""
UPLOADER_ROUND = "sidebar.upload_round"
"""Session key: how many times the uploader was emptied; a new key is the one way to empty a file uploader."""
OPENED = "(your upload)"
"""The Trace box's choice while an upload is on screen, so the box names what the page shows."""
SAVED_CHOICE = "(saved trace)"
"""The Trace box's choice while a trace from the library is on screen."""
SOURCE = "trace.upload_source"
"""Session key: where the open files came from (upload, capture, live, fork), recorded when it is saved."""
PICKED = "sidebar.picked"
"""Session key: set by a trace picked in the Trace box, for the run that follows it (address_trace)."""
BUNDLED = "sidebar.bundled"
"""Session key: the bundled trace shown last, to go back to when an upload is closed."""
FORMAT = "sidebar.format"
"""Session key of the format override: `auto` or a format name."""
CONVERSATION = "sidebar.conversation"
"""Session key of the conversation picker: an index into the upload's conversations."""
FILES = "trace.upload_files"
"""Session key: the uploaded files as (name, bytes). Kept apart from the widget, whose value a page switch drops."""
FILES_DIGEST = "trace.upload_digest"
"""Session key: the content hash of FILES, computed when they were opened."""
UPLOAD_PARAM = "upload"
"""Query parameter set while an upload is on screen (its digest's start): a reload, which ends the session and the
upload with it, is then told from a plain first visit and said, not shown as another trace at the upload's round."""
UPLOAD_GONE = ("This address was of a log opened in the page (an upload, or a run opened from Watch, Live run or "
               "Fork), and that log is no longer open: it lives only in the browser tab that opened it, so reloading "
               "the page or opening the address anew closes it. Open the file again to go on (notes saved on it show "
               "again with it), or save it to the library for an address that lasts. Showing the first bundled trace "
               "from round 1.")
"""Said on a fresh session whose address carries UPLOAD_PARAM: the upload it named was the closed session's."""
UPLOAD_CLOSED = ("This address was of a log opened in the page, closed when another trace was picked: its files went "
                 "with it, so it cannot be shown again from here. Open the file again to go on, or save it to the library "
                 "for an address that lasts. Showing the trace on screen as it was.")
"""Said where the browser's Back or Forward brings an upload's address within the session that closed the upload."""
UPLOAD_STILL_OPEN = "Open now, though the uploader above shows no file (it empties when you change page):"
"""Said under an uploader that shows no file while an upload is open, so the sidebar does not contradict itself."""
SIDEBAR_WIDTH_PX = 400
"""The sidebar's width as a page opens (app.py's page config): enough for the longest bundled trace title, whose box
(a text input) cannot wrap and would cut it mid-phrase."""
SIDEBAR_CSS = """<style>
/* A fixed rule of our own, no trace text: the same width, for the one visit the page config does not reach in time. */
section[data-testid="stSidebar"] { min-width: 25rem; }
</style>"""
"""The sidebar's width when the page config came too late. Streamlit sizes the sidebar once, as it first draws it; a
fresh server's very first visit draws it before the config arrives. This rule then widens it after the page's elements
were laid out, and every one of them is laid out again: on every other visit the config has set the width already and
the rule changes nothing (issue 21: the browser's work on a first load, 1.26 CPU-s with the rule alone, 1.13 with
both)."""
FORMAT_HELP = "auto decides line by line; choose a format when detection gets it wrong."
"""The help of the format choice for one file."""
FORMAT_HELP_SEVERAL = ("auto decides line by line, in each file. A format chosen here reads all {count} files, every "
                       "line of each: to read one of them as another format, open it on its own.")
"""The help of the format choice ("Read the files as") for several files: a choice is for all of them, as
lib.logs.upload.read_upload reads every file with the format chosen."""
KEPT = (TRACE, FORMAT, CONVERSATION, state.TOKENIZER, state.ROUND, state.VIEW, state.HIGHLIGHT, state.PRESENTER, state.PREDICT, state.STEP)
"""Widget values that must survive a page switch."""


def open_files(files: list[tuple[str, bytes]], source: library.Source = "upload") -> None:
    """Show these files (name, bytes) instead of a bundled or saved trace; hashed once, here, not on every rerun.
    `source` is what the library records if they are saved."""
    st.session_state.pop(CONVERSATION, None)
    st.session_state.pop(kept.SAVED, None)
    st.session_state[SOURCE] = source
    if files:
        st.session_state[FILES] = files
        st.session_state[FILES_DIGEST] = state.files_digest(files)
    else:
        _close_upload()


def _uploader_key() -> str:
    emptied = st.session_state.get(UPLOADER_ROUND, 0)
    return f"{UPLOAD}.{emptied}" if emptied else UPLOAD


def pick_saved(trace_id: str) -> None:
    """Make the saved trace with this id the one the picker shows next, instead of an upload or bundled trace."""
    _close_upload()
    st.session_state[kept.SAVED], st.session_state[TRACE] = trace_id, SAVED_CHOICE


def open_saved(trace_id: str) -> None:
    """Open the saved trace with this id in the round explorer, from round 1."""
    pick_saved(trace_id)
    found = _saved()
    if found is not None:
        navigation.open_round(found, 1)


def _chosen() -> None:
    """A trace picked in the Trace box replaces the upload or saved trace on screen."""
    st.session_state[PICKED] = True
    st.session_state.pop(kept.SAVED, None)
    _close_upload()


def _uploaded_changed() -> None:
    open_files([(f.name, f.getvalue()) for f in st.session_state.get(_uploader_key()) or []])


def _close_upload() -> None:
    """Back to a bundled trace: the files go, and so do they from the uploader, so the next upload is a trace of
    its own and not added to these."""
    if st.session_state.pop(FILES, None) is not None:
        st.session_state.pop(_uploader_key(), None)
        st.session_state[UPLOADER_ROUND] = st.session_state.get(UPLOADER_ROUND, 0) + 1
    st.session_state.pop(FILES_DIGEST, None)
    if st.session_state.get(TRACE) in (OPENED, SAVED_CHOICE):
        st.session_state[TRACE] = st.session_state.get(BUNDLED, catalog.FIRST_TRACE)


def trace_picker(opens_round: bool = False) -> catalog.LoadedTrace:
    """Draw the picker in the sidebar and return the trace it selects; `opens_round` on a page that shows one round
    of it and keeps that round in the address (address_trace)."""
    navigation.frame_guard()
    navigation.keep_widget_values(KEPT)
    address.arrived()
    traces = state.bundled()
    names = [t.name for t in traces]
    # In predict mode a title that tells what the model does gives way to a neutral name (predict.title).
    titles = predict.titles(predict.predicting())
    if TRACE not in st.session_state:
        st.session_state[TRACE] = _linked_trace(names, titles)
    files = st.session_state.get(FILES)
    if not files:
        _follow_browser(names)
    elif address.brought() and st.query_params.get(UPLOAD_PARAM) not in (None, st.session_state[FILES_DIGEST][:12]):
        _closed_upload_brought()  # an earlier upload's address, while another is open
    saved = None if files else _saved()
    if files:
        st.session_state[TRACE] = OPENED
        titles[OPENED] = f"Your upload: {files_name(files)}"
    elif saved is not None:
        st.session_state[TRACE] = SAVED_CHOICE
        titles[SAVED_CHOICE] = f"Saved: {predict.title(saved, predict.predicting())}"
    elif st.session_state[TRACE] in (OPENED, SAVED_CHOICE):  # the files went another way (a page opened its own)
        st.session_state[TRACE] = st.session_state.get(BUNDLED, catalog.FIRST_TRACE)
    opened = [OPENED] if files else [SAVED_CHOICE] if saved is not None else []
    with st.sidebar:
        st.html(SIDEBAR_CSS)
        st.header("Roundtrip")
        st.caption("See every round of a tool call: what the program sent, what the model answered.")
        name = st.selectbox("Trace", [*opened, *names], format_func=plain.options(titles.get), key=TRACE,
                            on_change=_chosen, persist_state="session")
        _uploader(files)
        st.selectbox("Count tokens with", state.TOKENIZERS, key=state.TOKENIZER, persist_state="session",
                     help="auto picks the trace's model's own tiktoken vocabulary where it has one (OpenAI's models), "
                          "else o200k_base, which only approximates another vendor's tokenizer; characters is a rough "
                          "rule of thumb (4 characters a token) for when no vocabulary is available.")
        if not files and saved is None:
            st.session_state[BUNDLED] = name
        address_trace(opens_round)
        if saved is not None:
            st.caption("Kept in the library; this address is its permanent link.")
            return saved
        if not files:
            return state.load_bundled(name)
        loaded, conversations = _uploaded(files)
        kept.save_button(loaded, st.session_state.get(SOURCE, "upload"), key="sidebar.save", of=conversations)
        return loaded


def address_trace(opens_round: bool = False) -> None:
    """Put the sidebar's trace in the address (`?trace=`): a saved trace's id, its permanent link that opens on any
    replica, or a bundled trace's link name (no punchline in predict mode); none for an upload, whose digest's start
    is written instead (UPLOAD_PARAM). Not while a plan is presented (`?plan=`): there the slide is the position, and
    a `trace=` written and taken away again on every run added two addresses to the browser's history per slide, so
    Back landed on the same slide. `opens_round`: the page shows a round (trace_picker)."""
    picked = st.session_state.pop(PICKED, False)
    files = st.session_state.get(FILES)
    upload = st.session_state[FILES_DIGEST][:12] if files else None
    if st.query_params.get("plan") is not None:
        if st.query_params.get(UPLOAD_PARAM) != upload:
            address.write(upload=upload)
        return
    if files:
        trace = None
    elif st.session_state.get(kept.SAVED) is not None:
        trace = st.session_state[kept.SAVED]
    else:
        trace = predict.link_name(st.session_state[TRACE], predict.predicting())
    # A trace picked opens on its round 1 (and presenter mode on its step 1): written with it, one address in the
    # browser's history, where the trace written first and the round after made two, the new trace at the old round
    # between them.
    opening = {"round": "1", **({"step": "1"} if "step" in st.query_params else {})} if picked else {}
    # A page that shows a round writes it on a session's first run: with the trace, one address, where the trace
    # written first and round 1 after it made the first Back show round 1 again.
    if opens_round and not address.written() and "round" not in st.query_params:
        opening = {"round": "1"}
    address.write(trace=trace, upload=upload, **opening)


def _closed_upload_brought() -> None:
    """The browser's Back or Forward brought the address of an upload closed since: said, and its round and step are
    not taken for the trace on screen."""
    address.forget()
    st.warning(UPLOAD_CLOSED)


def _follow_browser(names: list[str]) -> None:
    """A trace the browser's Back or Forward brought to the address becomes the trace on screen: a bundled one, or
    one kept in the library. Not an upload's address: its files were closed when another trace was picked, said so,
    and its round and step are not taken for the trace on screen."""
    if address.brought() and st.query_params.get(UPLOAD_PARAM) is not None:
        _closed_upload_brought()
        return
    brought = address.browsed_trace()
    if brought is None:
        return
    asked = catalog.aliased(brought, state.bundled())
    if asked in names:
        st.session_state.pop(kept.SAVED, None)
        st.session_state[TRACE] = asked
    elif is_kept_id(brought):
        st.session_state[kept.SAVED] = brought


def _uploader(files: list[tuple[str, bytes]] | None) -> None:
    """The file uploader, for an editor; a viewer is told why there is none. Under it, the upload on screen when
    the uploader shows none: Streamlit drops its files on another page, the upload stays open."""
    if not ui_access.visitor().edits:
        st.caption("On this server viewers open the traces listed here and the links they are given; only editors "
                   "open their own logs. Sign in as an editor to upload.")
        ui_access.say_login_refusal()
        return
    shown = st.file_uploader(
        "Or open your own log (.jsonl, .json, .jsonl.gz, .eval, .yaml, .har, .traj, .httprr, .sse)",
        type=["jsonl", "json", "gz", "eval", "yaml", "yml", "har", "traj", "httprr", "sse", "txt"],
        accept_multiple_files=True, key=_uploader_key(), on_change=_uploaded_changed,
        help="A Roundtrip trace, or logs of model calls in most common shapes: request and response pairs, "
             "streams, batches, Responses API, fine-tuning lines, OpenTelemetry spans, Inspect AI eval logs, agent "
             "session logs and trajectories, the HTTP recordings tests keep (VCR cassettes, HAR files, Go httprr, "
             "Node nock, Rust httpmock, Llama Stack's and Mastra's recorders) and a streamed answer's server-sent "
             "events as saved from the wire (.sse or .txt). docs/log-formats.md lists every format.",
    )
    if files and not shown:
        st.caption(UPLOAD_STILL_OPEN)
        plain.text(", ".join(name for name, _ in files))  # the user's file names: text, never markdown


def files_name(files: list[tuple[str, bytes]]) -> str:
    """What the open files are called: the file's name, or how many files there are."""
    return files[0][0] if len(files) == 1 else plural(len(files), "file")


def _linked_trace(names: list[str], titles: dict[str, str]) -> str:
    """The trace a deep link asks for; when there is none of that name, the first one, said so, and the
    nearest name offered."""
    asked = st.query_params.get("trace")
    if asked is None and st.query_params.get(UPLOAD_PARAM) is not None and not st.session_state.get(FILES):
        # A reload of a page that showed an upload: the upload went with the session. Its round is not this trace's.
        st.query_params.pop(UPLOAD_PARAM, None)
        st.query_params.pop("round", None)
        st.warning(UPLOAD_GONE)
        return catalog.FIRST_TRACE
    asked = asked and catalog.aliased(asked, state.bundled())
    if asked is None or asked in names:
        return asked or catalog.FIRST_TRACE
    if is_kept_id(asked):
        st.session_state[kept.SAVED] = asked  # opened (or said missing) by _saved, as every later run does
        return SAVED_CHOICE
    st.query_params.pop("round", None)  # a round of a trace that is not here means nothing in another
    # The titles are a trace's words: shown as text beside our sentence, never inside it.
    st.warning("The link asks for a trace that was not found. Showing the first bundled trace from round 1:")
    plain.text(titles[catalog.FIRST_TRACE])
    st.caption("The link asked for:")
    plain.text(asked)
    nearest = closest_trace(asked, names)
    if nearest is not None and nearest != catalog.FIRST_TRACE:
        plain.text(titles[nearest])
        st.button("Open the nearest name instead", key="sidebar.nearest_trace", on_click=_pick, args=(nearest,))
    return catalog.FIRST_TRACE


def _saved() -> catalog.LoadedTrace | None:
    """The saved trace the session shows, if any; when it cannot be read, the first bundled trace instead, said so."""
    trace_id = st.session_state.get(kept.SAVED)
    if trace_id is None:
        return None
    try:
        found = kept.load(trace_id)
        problem = None if found else "No trace with this id is kept in the library: it was deleted, or saved to " \
                                     "another database."
    except StoreUnavailable as exc:
        found, problem = None, str(exc)
    if found is None:
        st.session_state.pop(kept.SAVED)
        st.session_state[TRACE] = st.session_state.get(BUNDLED, catalog.FIRST_TRACE)
        st.query_params.pop("round", None)
        st.warning("The saved trace asked for cannot be opened. Showing a bundled trace instead, from round 1.")
        plain.text(problem)
    return found


def _pick(name: str) -> None:
    st.session_state[TRACE] = name
    st.session_state.pop(state.ROUND, None)


def skipped_lines(upload: Upload) -> None:
    """The lines that could not be used, each with why (open when nothing else loaded); nothing when none."""
    if upload.problems:
        with st.expander(f"Skipped {upload.units} ({upload.skipped_lines:,})", expanded=not upload.conversations):
            st.text("\n".join(upload.listing(upload.problems[:200])))
            if len(upload.problems) > 200:
                st.caption(f"and {len(upload.problems) - 200:,} more.")


def _uploaded(files: list[tuple[str, bytes]]) -> tuple[catalog.LoadedTrace, int]:
    """The upload's summary, format, conversation picker and skipped lines; the chosen conversation, and how many
    the upload holds."""
    several = len(files) > 1
    forced = st.selectbox("Read the files as" if several else "Read the file as", ["auto", *format_names()], key=FORMAT,
                          persist_state="session",
                          help=FORMAT_HELP_SEVERAL.format(count=len(files)) if several else FORMAT_HELP)
    upload, digest = state.load_upload(files, st.session_state[FILES_DIGEST], None if forced == "auto" else forced)
    st.button("Back to the bundled traces", on_click=_close_upload, key="sidebar.close_upload")
    plain.text(upload.summary())
    for format_name, (count, rule) in upload.formats.items():
        if forced != "auto":  # every line was tried as the chosen format; those it could not read are skipped
            kept = count - upload.skipped_lines
            plain.text(f"{upload.counted(count)} tried as {format_name}, your choice: {max(kept, 0):,} read, "
                       f"{upload.skipped_lines:,} skipped. {rule}")
        else:
            plain.text(f"{upload.counted(count)} read as {format_name}: {rule}")
    for note in upload.notes:
        plain.text(upload.said(note))
    skipped_lines(upload)
    source = files_name(files)
    if not upload.conversations:
        return catalog.from_upload(upload, source, digest, 0), 0
    labels = [f"{c.id} · {plural(len(c.trace.rounds), 'round')}" for c in upload.conversations]
    if st.session_state.get(CONVERSATION, 0) >= len(labels):
        st.session_state[CONVERSATION] = 0
    index = st.selectbox("Conversation", range(len(labels)), format_func=plain.options(labels.__getitem__),
                         key=CONVERSATION, persist_state="session")
    return catalog.from_upload(upload, source, digest, index), len(upload.conversations)
