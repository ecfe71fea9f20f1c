"""The Fork page: pick a round (or a bundled teaching fork), edit its request, send it, go on, compare.

The request is edited in lib/ui/fork_editor.py. It is sent in the trace's dialect or converted to
the other one, to the replay provider (recorded answers only, never a connection) or a real one
under the Live page's access rules; the API key is used for the calls and never written anywhere.
The run itself is lib/fork.py's runner, kept in the session: after the forked round it runs the
scenario's tools (writes wait for approval), waits for typed results, or stops.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from lib import access, catalog, fork_lessons
from lib.dialects import DIALECT_NAMES, OPENAI, other
from lib.failures import is_replay_miss
from lib.fork import (ForkSetup, advance, can_run_tools, in_dialect, original_result, replay, request_body,
                      resent_headers, start)
from lib.live.providers import AnthropicProvider, OpenAIProvider
from lib.live.runner import Runner
from lib.text import show_controls
from lib.ui import address, compare, explorer, fork_editor, kept, navigation, plain, predict, state
from lib.ui.live import endpoint, live_refusal

ROUND = navigation.FORK_ROUND
"""Session key: the round to fork."""
DIALECT = "fork.dialect"
"""Session key: the dialect the fork is sent in."""
PROVIDER = "fork.provider"
"""Session key: who answers the fork."""
KEY = "fork.api_key"
"""Session key of the API key field: kept in this session's memory only."""
BASE_URL = "fork.base_url"
"""Session key: another server's base URL."""
AFTER = "fork.after"
"""Session key: what happens after the forked round's answer."""
PROBLEM = "fork.problem"
"""Session key: why the last fork could not be sent, in our own words."""
RUNNING = "fork.running"
"""Session key: the fork being run (a `Running`)."""
TYPED = "fork.typed"
"""Session key prefix of a typed tool result, one per call."""
REPLAY = "replay"
"""The provider that answers from recordings only."""
PROVIDERS = {REPLAY: "Replay (recorded answers only, no key)", "openai": "OpenAI", "anthropic": "Anthropic",
             "compatible": "OpenAI-compatible server"}
AFTERWARDS = {"tools": "Run the scenario's tools for real and go on", "typed": "Type each tool result and go on",
              "stop": "Stop after this round"}


@dataclass(frozen=True)
class Running:
    """A fork in this session: its runner, where it came from, and its working folder."""

    runner: Runner
    """The live loop playing the fork."""
    setup: ForkSetup
    """What it was started with."""
    parent_choice: str
    """The parent as Compare names it: a bundled name or `upload:N`."""
    parent_digest: str
    """The parent's digest: the fork is shown only beside the trace it was forked from."""
    workdir: tempfile.TemporaryDirectory
    """The scenario's database lives here while the session does."""


def held_while_predicting(loaded: catalog.LoadedTrace) -> bool:
    """True, and said why, when predict mode is on and a round of the trace is still to predict: Replay answers a
    fork with the recorded responses, round after round, and the bundled forks' words tell what the model does."""
    first = predict.still_to_predict(loaded)
    if first is not None:
        st.info(f"Predict mode is on: round {first} of this trace is still to predict, and a fork replays its recorded "
                "answers. Predict every round in the round explorer first, or turn predict mode off there.")
    return first is not None


def chosen_round(loaded: catalog.LoadedTrace) -> int:
    """The round to fork."""
    count = len(loaded.trace.rounds)
    if (browsed := address.browsed_round(count)) is not None:
        st.session_state[ROUND] = browsed
    if st.session_state.get(ROUND, 0) > count or ROUND not in st.session_state:
        # The explorer's round, or a link's ?round= when this page is the first a visitor opens.
        st.session_state[ROUND] = explorer.current_round(loaded)
    at = st.number_input("Fork from round", min_value=1, max_value=count, step=1, key=ROUND)
    # The address carries it, as the explorer's does: a reload or a link copied from here forks the same round.
    address.write(round=str(at))
    return at


def lessons(loaded: catalog.LoadedTrace) -> None:
    """The bundled teaching forks, for the trace they were recorded on."""
    if loaded.name != fork_lessons.PARENT:
        return
    with st.expander("Bundled teaching forks (they run offline with Replay)", expanded=True):
        for lesson in fork_lessons.LESSONS:
            left, right = st.columns([5, 1])
            left.markdown(f"**{lesson.title}.** {lesson.explanation}")
            right.button("Load", key=f"fork.lesson.{lesson.name}", on_click=_load, args=(loaded, lesson))


def _load(loaded: catalog.LoadedTrace, lesson: fork_lessons.Lesson) -> None:
    st.session_state[ROUND] = lesson.at
    edit = fork_editor.editing(loaded, lesson.at)
    fork_editor.replace_body(edit, fork_lessons.body(lesson, loaded.trace))
    st.session_state.update({DIALECT: loaded.trace.dialect, PROVIDER: REPLAY, AFTER: "tools"})


def editor(loaded: catalog.LoadedTrace, at: int) -> fork_editor.Editing:
    """The request editor, with a way back to the recorded request."""
    edit = fork_editor.editing(loaded, at)
    if loaded.trace.rounds[at - 1].request_recorded:
        st.button("Start again from the recorded request", key="fork.reset",
                  on_click=lambda: fork_editor.replace_body(edit, request_body(loaded.trace, at)))
    else:  # an empty editor is not what the program sent
        st.info(f"Round {at}'s request was not in the log: there is no recorded request to start from, so the editor "
                "starts empty. Write the request to send.")
    fork_editor.editor(edit)
    return edit


def sender(loaded: catalog.LoadedTrace, at: int, edit: fork_editor.Editing) -> None:
    """The dialect, who answers, what happens after the answer, and the button that runs the fork."""
    own = loaded.trace.dialect
    dialect = st.radio("Send it as", [own, other(own)], key=DIALECT, horizontal=True,
                       format_func=lambda d: DIALECT_NAMES[d] + (" (as recorded)" if d == own else
                                                                  " (converted by Roundtrip, field by field)"))
    refusal = live_refusal()
    offered = [REPLAY] if refusal else [REPLAY, "anthropic"] if dialect != OPENAI else [REPLAY, "openai", "compatible"]
    if st.session_state.get(PROVIDER) not in offered:
        st.session_state[PROVIDER] = REPLAY
    provider = st.selectbox("Answered by", offered, key=PROVIDER, format_func=PROVIDERS.get)
    if refusal:
        plain.text(refusal)
    elif provider != REPLAY:
        st.text_input("Base URL" + ("" if provider == "compatible" else " (optional)"), key=BASE_URL)
        st.text_input("API key", type="password", key=KEY, help="Used for these calls only, never written anywhere.")
        _headers_sent(loaded, at, dialect)
    offered_after = list(AFTERWARDS) if can_run_tools(loaded.name) else ["typed", "stop"]
    if st.session_state.get(AFTER) not in offered_after:
        st.session_state[AFTER] = offered_after[0]
    st.radio("After the forked round's answer", offered_after, key=AFTER, format_func=AFTERWARDS.get)
    st.button("Run the fork", key="fork.run", type="primary", on_click=_run, args=(loaded, at, edit))
    if st.session_state.get(PROBLEM):
        st.error("The fork was not sent:")
        plain.text(st.session_state[PROBLEM])


def _headers_sent(loaded: catalog.LoadedTrace, at: int, dialect: str) -> None:
    """Before the fork is sent: the request headers round `at` kept that go with it (as text: a log's values), or
    that they do not, sent in the other dialect. Nothing where the log kept none."""
    kept = loaded.trace.rounds[at - 1].request_headers
    if not kept:
        return
    headers = resent_headers(loaded.trace, at, dialect)
    if not headers:
        st.caption(f"Round {at}'s request headers are not sent: they are for the API of the recorded dialect.")
        return
    st.caption(f"Sent with the request headers round {at} kept (the key is yours, never the log's):")
    plain.text("\n".join(f"{name}: {value}" for name, value in headers.items()))


def _provider(parent: catalog.LoadedTrace, dialect: str, provider: str, at: int):
    """The provider chosen, sending again the request headers round `at` kept (lib.fork.resent_headers); AccessError or
    ValueError in our own words when it cannot be made."""
    if provider == REPLAY:
        return replay(parent.trace, dialect)
    place = endpoint(provider, st.session_state.get(KEY), st.session_state.get(BASE_URL))
    if place.base_url is None:
        raise ValueError("An OpenAI-compatible server needs its base URL, e.g. http://localhost:11434/v1/.")
    if provider != "compatible" and not place.api_key:
        raise ValueError(f"No API key for {PROVIDERS[provider]}: type one, or have the server's operator set it.")
    headers = resent_headers(parent.trace, at, dialect)
    if provider == "anthropic":
        return AnthropicProvider(place.api_key, place.base_url, public_only=place.public_only, headers=headers)
    return OpenAIProvider(place.api_key or "not-needed", place.base_url, public_only=place.public_only, headers=headers)


def _run(loaded: catalog.LoadedTrace, at: int, edit: fork_editor.Editing) -> None:
    st.session_state.pop(PROBLEM, None)
    # The earlier fork answered an earlier edit: left under "The fork" beside a run that was not sent, it reads as
    # this one's outcome. Kept or downloaded, it is still there; here it goes.
    st.session_state.pop(RUNNING, None)
    if st.session_state.get(fork_editor.PROBLEM):
        # The body holds the last edit that worked; sending it would not be what the editor shows.
        st.session_state[PROBLEM] = "The last edit was not made (see above): fix it, or start again from the recorded request."
        return
    dialect, after = st.session_state[DIALECT], st.session_state[AFTER]
    try:
        body, notes = in_dialect(edit.body, loaded.trace.dialect, dialect)
        provider = _provider(loaded, dialect, st.session_state[PROVIDER], at)
    except (access.AccessError, ValueError) as exc:
        st.session_state[PROBLEM] = str(exc)
        return
    except Exception as exc:  # noqa: BLE001 - a request the converter cannot read is a message, never a crash
        st.session_state[PROBLEM] = f"The request could not be written as {DIALECT_NAMES[dialect]} ({type(exc).__name__})."
        return
    setup = ForkSetup(loaded.trace, loaded.name, at, body, after, notes)
    workdir = tempfile.TemporaryDirectory(prefix="roundtrip-fork-")
    runner = start(setup, provider, Path(workdir.name))
    # The parent as Compare opens on it: a saved trace by its id (its title named no run, and Compare with parent
    # showed the first bundled trace in its place), an upload's conversation, a bundled trace.
    st.session_state[RUNNING] = Running(runner, setup, compare.open_in_sidebar(), loaded.digest, workdir)
    advance(runner, after)


def progress(loaded: catalog.LoadedTrace) -> None:
    """The fork of this trace being run: what happened, the call waiting for a person, and Compare with parent when
    done. A fork of another trace stays in the session, out of sight, until its trace is picked again."""
    running: Running | None = st.session_state.get(RUNNING)
    if running is None or running.parent_digest != loaded.digest:
        return
    status = running.runner.status
    st.subheader("The fork", anchor=False)
    if running.setup.notes:
        st.caption("Written in the other dialect; what the conversion could not carry:")
        plain.text("\n".join(running.setup.notes))
    plain.text(status.message)
    if status.state == "needs-approval":
        _waiting(running)
    elif status.state == "done":
        _done(running)


def _waiting(running: Running) -> None:
    call = running.runner.status.pending
    plain.payload({"id": call.id, "name": call.name})
    st.caption("The arguments as the model wrote them:")
    st.code(plain.clip(show_controls(call.arguments_raw)), language="json")  # bidi controls written out
    if running.setup.continuation == "typed":
        key = f"{TYPED}.{call.id}"
        if key not in st.session_state:
            st.session_state[key] = original_result(running.setup.parent, call)
        st.text_area("The tool result to send (the parent's result is offered)", key=key)
        left, right = st.columns(2)
        left.button("Send this result", key="fork.answer", type="primary", on_click=_decide,
                    args=(call.id, "typed"))
    else:
        st.warning("This call changes data. Nothing runs until you decide.")
        left, right = st.columns(2)
        left.button("Approve", key="fork.approve", type="primary", on_click=_decide, args=(call.id, "approved"))
    right.button("Decline", key="fork.decline", on_click=_decide, args=(call.id, "declined"))
    st.button("Stop the fork here", key="fork.stop", on_click=lambda: running.runner.stop())


def _decide(call_id: str, decision: str) -> None:
    running: Running | None = st.session_state.get(RUNNING)
    pending = running.runner.status.pending if running else None
    if pending is None or pending.id != call_id:
        return  # a second click on a decision already taken
    runner = running.runner
    if decision == "typed":
        runner.answer(call_id, st.session_state.get(f"{TYPED}.{call_id}") or "")
    elif decision == "approved":
        runner.approve(call_id)
    else:
        runner.decline(call_id)
    advance(runner, running.setup.continuation)


def _done(running: Running) -> None:
    fork, _ = running.runner.trace.read()
    last = fork.rounds[-1] if fork.rounds else None
    if last is None or not is_replay_miss(last.error):  # a miss is said below, with what to do
        # What the fork sent and what it holds of its parent: "The model answered in round 2" alone does not say.
        plain.text(fork.provenance.note)
    # Where live runs are refused, Replay is the one choice offered: no provider above can be chosen.
    refused = live_refusal() is not None
    if last is not None and is_replay_miss(last.error) and last.index == running.setup.at:
        st.info("Nothing was sent to a model. Replay answers only the requests it has recorded, and no real provider "
                "is offered here (why is said under “Answered by”): undo the edit to replay the recorded answer."
                if refused else
                "Nothing was sent to a model. Choose a real provider above (OpenAI, Anthropic or an "
                "OpenAI-compatible server) to send this request to a model, or undo the edit.")
    elif last is not None and is_replay_miss(last.error):  # past the forked round: the results sent back differ
        st.info(f"Nothing was sent to a model for round {last.index}: Replay has no recording of its request, which "
                "carries the results this fork sent back. " +
                ("No real provider is offered here (why is said under “Answered by”): stop after the forked round."
                 if refused else
                 "Choose a real provider above (OpenAI, Anthropic or an OpenAI-compatible server) to go on past "
                 f"round {running.setup.at}, or stop after the forked round."))
    text = running.runner.trace.text()
    left, right = st.columns(2)
    left.button("Compare with parent", key="fork.compare", type="primary", on_click=_compare, args=(running,))
    right.download_button("Download the fork (.jsonl)", text.encode("utf-8"), key="fork.download",
                          file_name=f"fork-round-{running.setup.at}.jsonl", mime="application/x-ndjson")
    kept.save_button(catalog.load_bytes(text.encode("utf-8"), f"fork-round-{running.setup.at}"), "fork", key="fork.save")


def _compare(running: Running) -> None:
    lines = running.runner.trace.text().encode("utf-8")
    choice = compare.keep_fork(lines, running.setup.at)
    compare.open_on(running.parent_choice, choice)
    st.session_state[compare.OPEN] = True


def compare_when_asked() -> None:
    """After Compare with parent, open the Compare page on parent and fork."""
    if st.session_state.pop(compare.OPEN, False):
        st.switch_page(navigation.COMPARE)
