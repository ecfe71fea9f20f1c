"""The Fork page: edit one round's request, send it again, and compare the fork with its parent.

Minimal on purpose: the request is edited as JSON, sent once in the trace's own dialect, and the
fork stops after that round. The replay provider answers from the parent's own rounds and the
bundled recordings, so an unedited request replays and an edited one gets "no recording for
this request". The API key is used for the call and never written anywhere.
"""

from __future__ import annotations

import json

import streamlit as st

from lib import catalog
from lib.access import OFFICIAL_BASE_URLS, check_base_url, live_refusal
from lib.dialects import ANTHROPIC
from lib.fork import parse_body, request_body, run_fork
from lib.live.providers import AnthropicProvider, OpenAIProvider
from lib.live.replay import RECORDINGS_DIR, ReplayProvider, read_recordings, recordings_from_trace
from lib.logs.native import write_trace
from lib.ui import compare, navigation, picker, plain, state
from lib.ui import access as ui_access
from lib.live.launch import ENV_KEYS, env_key

ROUND = navigation.FORK_ROUND
"""Session key: the round to fork."""
BODY = "fork.body"
"""Session key prefix of the request editor, one per trace digest and round."""
PROVIDER = "fork.provider"
"""Session key: who answers the fork."""
KEY = "fork.api_key"
"""Session key of the API key field: kept in this session's memory only."""
BASE_URL = "fork.base_url"
"""Session key: an OpenAI-compatible server's base URL."""
PROBLEM = "fork.problem"
"""Session key: why the last fork could not be sent, in our own words or the provider's."""
DONE = "fork.done"
"""Session key: a fork was just saved; the page then opens Compare on it."""
REPLAY = "replay"
"""The provider that answers from recordings only."""


def _providers(dialect: str) -> list[str]:
    return [REPLAY, "anthropic"] if dialect == ANTHROPIC else [REPLAY, "openai", "compatible"]


def editor(loaded: catalog.LoadedTrace) -> tuple[int, str]:
    """The round to fork and its request as editable JSON."""
    count = len(loaded.trace.rounds)
    if st.session_state.get(ROUND, 0) > count or ROUND not in st.session_state:
        st.session_state[ROUND] = min(st.session_state.get(state.ROUND, 1), count)
    at = st.number_input("Fork from round", min_value=1, max_value=count, step=1, key=ROUND)
    key = f"{BODY}.{loaded.digest}.{at}"
    if key not in st.session_state:
        st.session_state[key] = json.dumps(request_body(loaded.trace, at), ensure_ascii=False, indent=2)
    st.caption("Edit the request as the API takes it: delete or add messages (tool results included), change the "
               "system prompt, tool descriptions and schemas, tool_choice or parallel_tool_calls.")
    st.text_area("Round request (JSON)", key=key, height=400)
    return at, key


def _send(loaded: catalog.LoadedTrace, provider: str):
    """The provider's send function; ValueError in our own words when it cannot be made."""
    dialect = loaded.trace.dialect
    if provider == REPLAY:
        found = recordings_from_trace(list(write_trace(loaded.trace)), f"round of {loaded.name}")
        for path in sorted(RECORDINGS_DIR.glob("*.jsonl")):
            found += read_recordings(path)
        return ReplayProvider(found, dialect).send
    settings, _ = ui_access.config()
    if refusal := live_refusal(settings, ui_access.visitor(settings).role):
        raise ValueError(refusal)
    typed = st.session_state.get(KEY) or None
    base_url = (st.session_state.get(BASE_URL) or "").strip() or OFFICIAL_BASE_URLS.get(provider)
    if base_url is None:
        raise ValueError("An OpenAI-compatible server needs its base URL, e.g. http://localhost:11434/v1/.")
    check_base_url(base_url)
    # The server's own key goes only to the provider's official address, as on the Live page.
    own = env_key(provider) or ui_access.secret(ENV_KEYS[provider]) if base_url == OFFICIAL_BASE_URLS.get(provider) else None
    key = typed or own
    if provider != "compatible" and not key:
        raise ValueError(f"No API key for {provider}: type one, or set {ENV_KEYS[provider]}.")
    if provider == "anthropic":
        return AnthropicProvider(key, base_url).send
    return OpenAIProvider(key or "not-needed", base_url).send


def _run(loaded: catalog.LoadedTrace, at: int, key: str, provider: str) -> None:
    st.session_state.pop(PROBLEM, None)
    body, problem = parse_body(st.session_state[key])
    try:
        send = _send(loaded, provider) if body is not None else None
    except ValueError as exc:
        send, problem = None, str(exc)
    if send is None:
        st.session_state[PROBLEM] = problem
        return
    lines = run_fork(loaded.trace, loaded.name, at, body, send)
    name = f"fork-of-{loaded.name.replace('/', '-')}-round-{at}.jsonl"
    picker.open_files([(name, "".join(line + "\n" for line in lines).encode())], source="fork")
    compare.open_on(loaded.name, f"{compare.UPLOADED}0")
    st.session_state[DONE] = True


def runner(loaded: catalog.LoadedTrace, at: int, key: str) -> None:
    """Who answers, and the button that sends the fork and opens Compare on parent and fork."""
    provider = st.selectbox("Answered by", _providers(loaded.trace.dialect), key=PROVIDER,
                            format_func={REPLAY: "Replay (recorded answers only, no key)", "openai": "OpenAI",
                                         "anthropic": "Anthropic", "compatible": "OpenAI-compatible server"}.get)
    if provider != REPLAY:
        st.text_input("Base URL" + ("" if provider == "compatible" else " (optional)"), key=BASE_URL)
        st.text_input("API key", type="password", key=KEY, help="Used for this call only, never written anywhere.")
    st.button("Run the fork", key="fork.run", type="primary", on_click=_run, args=(loaded, at, key, provider))
    if st.session_state.get(PROBLEM):
        st.error("The fork was not sent:")
        plain.text(st.session_state[PROBLEM])
    st.caption("Not built yet: going on after the forked round (running the tools or typing their results), sending "
               "a round in the other dialect, and the bundled teaching forks. The fork stops after one round.")


def compare_when_sent() -> None:
    """Right after a fork was saved, open Compare on it and its parent."""
    if st.session_state.pop(DONE, False):
        st.switch_page(navigation.COMPARE)


def bundled_only(loaded: catalog.LoadedTrace) -> bool:
    """Forks start from bundled traces for now: the fork opens as the upload, which would replace an uploaded parent."""
    if st.session_state.get(picker.FILES):
        st.info("Forking an uploaded trace is not built yet: pick a bundled trace in the sidebar.")
        return False
    navigation.require_rounds(loaded)
    return True
