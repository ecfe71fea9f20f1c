"""The Fork page's editor of one round's request: fields (settings, system prompt, messages, tools) or raw JSON.

Both views edit one body kept in the session. Each widget calls one pure edit of lib/fork_edits.py;
an edit that adds, deletes or replaces parts bumps the body's version, which renames the widgets so
they are drawn again from the new body. Trace text reaches the page only as widget values or
through lib/ui/plain; labels are our own words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import streamlit as st

from lib import catalog, fork_edits
from lib.fork import parse_body, request_body
from lib.ui import plain
from lib.ui.cards import ROLES

BODY = "fork.body"
"""Session key prefix of the edited request, one per trace digest and round."""
VERSION = "fork.version"
"""Session key prefix of the edited request's version, which names its widgets."""
MODE = "fork.mode"
"""Session key: edit with fields or as raw JSON."""
PROBLEM = "fork.edit_problem"
"""Session key: why the last edit was not made."""
FIELDS, RAW = "Fields", "Raw JSON"
NOT_SENT = "(not sent)"
PARALLEL = {NOT_SENT: None, "on": True, "off": False}


@dataclass(frozen=True)
class Editing:
    """The request being edited: where it is kept and in which dialect."""

    slot: str
    """`digest.round`: what the session keys of this request end with."""
    dialect: str
    """The dialect of the request as recorded."""

    @property
    def body(self) -> dict:
        """The request as edited so far."""
        return st.session_state[f"{BODY}.{self.slot}"]

    def key(self, name: str) -> str:
        """A widget's key, renamed whenever the body is replaced."""
        return f"fork.w.{self.slot}.{st.session_state[f'{VERSION}.{self.slot}']}.{name}"

    def put(self, body: dict, redraw: bool = False) -> None:
        """Keep the edited body; `redraw` when parts were added, deleted or replaced."""
        st.session_state[f"{BODY}.{self.slot}"] = body
        if redraw:
            st.session_state[f"{VERSION}.{self.slot}"] += 1


def editing(loaded: catalog.LoadedTrace, at: int) -> Editing:
    """The request of round `at` being edited, from the recorded one the first time."""
    found = Editing(f"{loaded.digest}.{at}", loaded.trace.dialect)
    if f"{BODY}.{found.slot}" not in st.session_state:
        st.session_state[f"{BODY}.{found.slot}"] = request_body(loaded.trace, at)
        st.session_state[f"{VERSION}.{found.slot}"] = 0
    return found


def replace_body(edit: Editing, body: dict) -> None:
    """Put a whole new request in the editor (a teaching fork, the recorded request again)."""
    edit.put(body, redraw=True)
    st.session_state.pop(PROBLEM, None)


def editor(edit: Editing) -> None:
    """The editor, as fields or raw JSON, and the last edit's problem."""
    mode = st.radio("Edit the request as", [FIELDS, RAW], key=MODE, horizontal=True)
    if mode == RAW:
        _raw(edit)
    else:
        _settings(edit)
        _system(edit)
        _messages(edit)
        _tools(edit)
    if st.session_state.get(PROBLEM):
        st.error("That edit was not made:")
        plain.text(st.session_state[PROBLEM])


def _said(problem: str | None) -> None:
    st.session_state[PROBLEM] = problem


def _value(key: str):
    return st.session_state.get(key)


# --- raw JSON ----------------------------------------------------------------------------------


def _raw(edit: Editing) -> None:
    key = edit.key("raw")
    if key not in st.session_state:
        st.session_state[key] = json.dumps(edit.body, ensure_ascii=False, indent=2)
    st.text_area("Round request (JSON)", key=key, height=400, on_change=_raw_changed, args=(edit, key),
                 help="The request as the API takes it. It is used once it is valid JSON.")


def _raw_changed(edit: Editing, key: str) -> None:
    body, problem = parse_body(_value(key))
    _said(problem)
    if body is not None:
        edit.put(body, redraw=True)


# --- settings and system prompt ----------------------------------------------------------------


def _settings(edit: Editing) -> None:
    st.markdown("**Request settings**")
    choice, parallel = fork_edits.settings(edit.body, edit.dialect)
    names = [t.name for t in fork_edits.tools(edit.body, edit.dialect)]
    options = [NOT_SENT, "auto", "required", "none", *[n for n in names if n not in ("auto", "required", "none")]]
    a, b, c = st.columns(3)
    a.text_input("model", value=str(edit.body.get("model", "")), key=edit.key("model"), on_change=_model,
                 args=(edit,))
    b.selectbox("tool_choice", options, index=options.index(choice) if choice in options else 0,
                key=edit.key("choice"), on_change=_choice, args=(edit,),
                help="auto lets the model decide; required forces a call; a tool's name forces that tool.")
    c.selectbox("parallel_tool_calls", list(PARALLEL), index=list(PARALLEL.values()).index(parallel),
                key=edit.key("parallel"), on_change=_choice, args=(edit,))


def _model(edit: Editing) -> None:
    edit.put(fork_edits.with_model(edit.body, _value(edit.key("model")) or ""))


def _choice(edit: Editing) -> None:
    choice = _value(edit.key("choice"))
    edit.put(fork_edits.with_settings(edit.body, edit.dialect, None if choice == NOT_SENT else choice,
                                      PARALLEL[_value(edit.key("parallel"))]))


def _system(edit: Editing) -> None:
    st.text_area("System prompt", value=fork_edits.system_prompt(edit.body, edit.dialect), key=edit.key("system"),
                 on_change=lambda: edit.put(fork_edits.with_system(edit.body, edit.dialect,
                                                                   _value(edit.key("system"))), redraw=True))


# --- messages ----------------------------------------------------------------------------------

LABELS = {"text": "Text", "result": "Tool result", "json": "The message as JSON"}
PAGE = 10
"""Message fields drawn at once: a late round of a long trace resends thousands of messages, and a field and a
button for each would make every rerun of the page take seconds."""


def _messages(edit: Editing) -> None:
    st.markdown("**Messages**")
    st.button("Empty every tool result", key=edit.key("empty"),
              on_click=lambda: edit.put(fork_edits.with_results_emptied(edit.body), redraw=True))
    found = fork_edits.entries(edit.body)
    shown = _shown(edit, found)
    for n in shown:
        entry = found[n]
        role = entry.role if entry.role in ROLES else "other role"
        where = f"messages[{entry.message}]" + (f".content[{entry.block}]" if entry.block is not None else "")
        st.caption(f"{where} · {role}" + (" · answers the call:" if entry.call_id else ""))
        if entry.call_id:
            plain.text(entry.call_id)
        key = edit.key(f"entry.{n}")
        left, right = st.columns([6, 1])
        left.text_area(LABELS[entry.kind], value=entry.text, key=key, on_change=_entry, args=(edit, entry, key),
                       height=200 if entry.kind == "json" else None)
        right.button("Delete", key=edit.key(f"delete.{n}"), on_click=_delete, args=(edit, entry))
    _add_message(edit, {found[n].message for n in shown} if len(shown) < len(found) else None)


def _shown(edit: Editing, found: list[fork_edits.Entry]) -> range:
    """Which entries to draw: all of a short request; of a long one the page chosen, the newest by default."""
    ends = list(range(len(found), 0, -PAGE))[::-1]
    if len(ends) <= 1:
        return range(len(found))

    def words(page: int) -> str:
        first, last = found[max(0, ends[page] - PAGE)].message, found[ends[page] - 1].message
        where = f"messages[{first}]" if first == last else f"messages[{first}] to messages[{last}]"
        return where + (" (the newest)" if page == len(ends) - 1 else "")

    # Not renamed with the body's version: an edit keeps the page it was made on.
    page = st.selectbox(f"{len(found):,} messages and results, {PAGE} at a time", range(len(ends)),
                        index=len(ends) - 1, format_func=words, key=f"fork.w.{edit.slot}.page")
    return range(max(0, ends[page] - PAGE), ends[page])


def _entry(edit: Editing, entry: fork_edits.Entry, key: str) -> None:
    body, problem = fork_edits.with_entry(edit.body, entry, _value(key))
    _said(problem)
    edit.put(body, redraw=entry.kind == "json" and problem is None)


def _delete(edit: Editing, entry: fork_edits.Entry) -> None:
    edit.put(fork_edits.without_entry(edit.body, entry), redraw=True)


def _add_message(edit: Editing, near: set[int] | None) -> None:
    """The form that adds a message; `near`, when only some messages are shown, the ones it may go before."""
    body = edit.body  # once: each reading goes through the session state
    end = len(body.get("messages") or [])
    places = {n: _before(body, n) for n in fork_edits.insert_positions(body, edit.dialect)
              if near is None or n in near or n == end}
    with st.expander("Add a message"):
        st.selectbox("Role", ["user", "assistant", "tool"], key=edit.key("new.role"),
                     format_func={"user": "user", "assistant": "assistant", "tool": "tool result"}.get)
        st.selectbox("Where", list(places), index=len(places) - 1, key=edit.key("new.at"), format_func=places.get)
        st.text_area("Its text, or the tool result", key=edit.key("new.text"))
        st.text_input("The call it answers (tool results only)", key=edit.key("new.call"))
        st.button("Add the message", key=edit.key("new.add"), on_click=_added_message, args=(edit,))


def _added_message(edit: Editing) -> None:
    role, call = _value(edit.key("new.role")), (_value(edit.key("new.call")) or "").strip()
    if role == "tool" and not call:
        return _said("A tool result needs the id of the call it answers.")
    edit.put(fork_edits.with_message(edit.body, edit.dialect, role, _value(edit.key("new.text")) or "", call,
                                     at=_value(edit.key("new.at"))), redraw=True)
    _said(None)


def _before(body: dict, position: int) -> str:
    """A place in the messages array, in our words: before which message (by role), or at the end."""
    messages = body.get("messages") or []
    if position >= len(messages):
        return "at the end"
    role = messages[position].get("role") if isinstance(messages[position], dict) else None
    return f"before messages[{position}] · {role if role in ROLES else 'other role'}"


# --- tools -------------------------------------------------------------------------------------


def _tools(edit: Editing) -> None:
    st.markdown("**Tools**")
    for n, tool in enumerate(fork_edits.tools(edit.body, edit.dialect)):
        with st.expander(f"tools[{n}]", expanded=False):
            plain.text(tool.name)
            st.text_area("Description", value=tool.description, key=edit.key(f"tool.{n}.description"),
                         on_change=_tool, args=(edit, n))
            st.text_area("Schema (JSON)", value=tool.schema, key=edit.key(f"tool.{n}.schema"), height=200,
                         on_change=_tool, args=(edit, n))
            st.checkbox("strict", value=tool.strict, key=edit.key(f"tool.{n}.strict"), on_change=_tool,
                        args=(edit, n))
            st.button("Remove this tool", key=edit.key(f"tool.{n}.remove"),
                      on_click=lambda n=n: edit.put(fork_edits.without_tool(edit.body, n), redraw=True))
    with st.expander("Add a tool"):
        st.text_input("Name", key=edit.key("newtool.name"))
        st.text_area("Description", key=edit.key("newtool.description"))
        st.text_area("Schema (JSON)", value='{"type": "object", "properties": {}}', key=edit.key("newtool.schema"))
        st.button("Add the tool", key=edit.key("newtool.add"), on_click=_added_tool, args=(edit,))


def _tool(edit: Editing, n: int) -> None:
    body, problem = fork_edits.with_tool(edit.body, edit.dialect, n, _value(edit.key(f"tool.{n}.description")),
                                         _value(edit.key(f"tool.{n}.schema")), _value(edit.key(f"tool.{n}.strict")))
    _said(problem)
    edit.put(body)


def _added_tool(edit: Editing) -> None:
    body, problem = fork_edits.with_added_tool(edit.body, edit.dialect, (_value(edit.key("newtool.name")) or "").strip(),
                                               _value(edit.key("newtool.description")) or "",
                                               _value(edit.key("newtool.schema")) or "")
    _said(problem)
    edit.put(body, redraw=problem is None)
