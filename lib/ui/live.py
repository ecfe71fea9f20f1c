"""The Live run page's parts: the set-up, the approval box, the growing trace and its exports.

They lay out; lib/live and lib/access decide. The runner lives in the session (st.session_state)
so a run can wait across reruns for a person's Approve or Decline, or a Stop. A typed API key
stays in the session's memory only and is handed to the SDK client; nothing here prints it. The
server's own key goes only where lib/access.endpoint allows. Everything a model or a provider
wrote is untrusted: it goes to st.text, st.code or st.json, never into markdown.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from lib import access, catalog
from lib.access import OFFICIAL_BASE_URLS
from lib.failures import is_replay_miss
from lib.live.launch import ENV_KEYS, PROVIDERS, RunSetup, edited, env_key, save_trace, start
from lib.live.providers import CallLimits
from lib.live.runner import LoopOptions, Runner, Teaching, nothing_to_keep
from lib.live.scenarios import SCENARIOS, Scenario, default_model
from lib.text import plural, show_controls
from lib.ui import access as ui_access
from lib.ui import explorer, kept, navigation, picker, plain, slides, state

RUNNER = "live.runner"
"""Session key: the Runner of the current run."""
WORKDIR = "live.workdir"
"""Session key: the run's temporary folder (database, trace file); removed with the session."""
PROBLEM = "live.problem"
"""Session key: why the last Run press started nothing."""
SAVED = "live.saved"
"""Session key: the file name the run was last saved under."""
SCENARIO, PROVIDER, KEY, ROUND, SHOWN, NOTE = ("live.scenario", "live.provider", "live.api_key", "live.round",
                                               "live.shown_rounds", "live.note")
TIMEOUT, RETRIES, DEADLINE = "live.timeout", "live.retries", "live.deadline"
RUN_PARAM = "run"
"""The address's mark of a page that shows a run (its scenario's name): a reload starts a new session, which has no
run, and the mark lets it say so rather than show the empty form as if nothing had been there."""
RUN_GONE = ("The live run this address showed closed with its session: a run lives only in the browser tab that "
            "started it, so reloading the page or opening the address anew ends it, and nothing more is sent. Its "
            "trace is kept only if it was downloaded, saved into traces/ or saved to the library; press Run to start "
            "again.")
"""Said on a fresh session whose address carries RUN_PARAM."""
NOT_SENT = "(not sent)"
"""The choice that leaves a setting out of the request."""


def frame_guard() -> None:
    """Go through app.py's frame, and keep the explorer's sidebar choices while this page is open."""
    navigation.frame_guard()  # this page draws no picker, which applies the guard on every other page
    navigation.keep_widget_values(picker.KEPT)


def header() -> None:
    """Title and what the page does."""
    st.title("Live run")
    st.caption("Play a scenario's tool loop for real, against OpenAI, Anthropic or any OpenAI-compatible server, or "
               "replayed from recordings with no key. Every round is written to a trace as it happens.")


def _field(scenario: Scenario, name: str) -> str:
    return f"live.{scenario.name}.{name}"


def live_refusal() -> str | None:
    """Why this visitor may not make live calls here, or None."""
    settings, wrong = ui_access.config()
    refusal = access.live_refusal(settings, ui_access.role(settings))
    return f"{wrong} {refusal}" if wrong and refusal else refusal


def setup_form() -> None:
    """The scenario, provider, settings, switches and editable conversation; the Run button."""
    with st.expander("Set up the run", expanded=st.session_state.get(RUNNER) is None):
        name = st.selectbox("Scenario", list(SCENARIOS), key=SCENARIO, format_func=lambda n: SCENARIOS[n].title)
        scenario = SCENARIOS[name]
        st.caption(scenario.description)  # our own words, from lib/live/scenarios.py
        refusal = live_refusal()
        offered = ["replay"] if refusal else list(PROVIDERS)
        provider = st.radio("Provider", offered, key=PROVIDER, format_func=PROVIDERS.get, horizontal=True)
        if refusal:
            plain.text(refusal)
        elif provider != "replay":
            _connection(scenario, provider)
        _settings(scenario)
        _conversation(scenario)
        st.button("Run", key="live.run", type="primary", on_click=_start)
    if st.session_state.get(PROBLEM):
        st.error("The run could not start:")
        plain.text(st.session_state[PROBLEM])
        previous = current()
        if previous is not None:  # kept, so the learner's last run is not lost to a missing key; said, not mixed in
            plain.text(f"The run below is the previous one ({previous.provider.label}), kept as it was.")


def _connection(scenario: Scenario, provider: str) -> None:
    left, right = st.columns(2)
    left.text_input("Model", value=default_model(scenario, provider), key=_field(scenario, f"model.{provider}"))
    left.caption(f"The scenario was recorded with {scenario.options.model}.")
    # Where the run goes with the field left empty: the operator's address, else the provider's own API. Said, so an
    # empty field with an example in grey is not read as the default or as a field that must be filled.
    configured = ui_access.config()[0].base_urls.get(provider)
    default = configured or OFFICIAL_BASE_URLS.get(provider)
    right.text_input("Base URL" + (" (optional)" if default else ""), key=f"live.base_url.{provider}",
                     placeholder=access.shown_url(default) if default else "http://localhost:11434/v1/")
    if default:  # the address itself only in the field (plain text), never in markdown
        whose = "the one this server's operator configured" if configured else f"{PROVIDERS[provider]}'s own API"
        right.caption(f"Left empty, the run goes to the address in grey: {whose}.")
    found = _operator_key(provider)
    st.text_input("API key", type="password", key=KEY,
                  help="Kept in this session's memory only, never written to a trace or shown again.",
                  placeholder="using the key found in the environment or secrets" if found else "")
    st.caption("A base URL typed here is used only with a key typed here too; the server's own key goes only to "
               "the address its operator configured.")
    if provider != "compatible" and not found:
        st.caption(f"No key found in {ENV_KEYS[provider]} or in st.secrets: type one above.")
    left, middle, right = st.columns(3)
    left.number_input("Timeout per read (s)", min_value=1, max_value=600, value=60, key=TIMEOUT)
    middle.number_input("Deadline per call (s)", min_value=1, max_value=600, value=int(CallLimits.deadline_s),
                        key=DEADLINE, help="Wall clock for one model call, the retries included. The answer may "
                                           f"be at most {CallLimits.max_response_bytes:,} bytes.")
    right.number_input("SDK retries (429, 5xx, connection)", min_value=0, max_value=5, value=2, key=RETRIES)


def _settings(scenario: Scenario) -> None:
    options = scenario.options
    choices = [NOT_SENT, "auto", "required", "none", *(t.name for t in scenario.tools)]
    one, two, three, four = st.columns(4)
    one.selectbox("tool_choice", choices, key=_field(scenario, "tool_choice"),
                  index=choices.index(options.tool_choice or NOT_SENT))
    parallel = {None: NOT_SENT, True: "on", False: "off"}
    two.selectbox("Parallel tool calls", list(parallel.values()), key=_field(scenario, "parallel"),
                  index=list(parallel).index(options.parallel_tool_calls))
    three.number_input("Temperature (empty: not sent)", min_value=0.0, max_value=2.0, step=0.1, value=None,
                       key=_field(scenario, "temperature"))
    four.number_input("Max rounds", min_value=1, max_value=30, value=8, key=_field(scenario, "max_rounds"))
    st.checkbox("Narration guard: re-ask once when the model answers with no call and no data", value=True,
                key=_field(scenario, "guard"))
    st.markdown("**Break it on purpose** (each switch is marked in the trace)")
    st.checkbox("Drop one tool result (the provider answers 400)", key=_field(scenario, "drop_result"))
    st.checkbox("Return an empty result", key=_field(scenario, "empty_result"))
    st.checkbox("Put the tool list in the system prompt instead of `tools`", key=_field(scenario, "tools_in_system"))


def _conversation(scenario: Scenario) -> None:
    st.markdown("**The starting conversation**")
    st.text_area("System prompt", value=scenario.system, key=_field(scenario, "system"))
    st.text_area("Question", value=scenario.question, key=_field(scenario, "question"))
    for key, value in scenario.session.items():
        st.text_input(f"{key} (from the app's session, never from the model)", value=value,
                      key=_field(scenario, f"session.{key}"))
    st.markdown("**Tool descriptions**: what the model reads to choose a tool")
    for tool in scenario.tools:
        label = tool.name + (" (changes data: asks for approval)" if tool.writes else "")
        st.text_area(label, value=tool.description, key=_field(scenario, f"tool.{tool.name}"))


def _operator_key(provider: str) -> str | None:
    """The server's own key for the provider: the environment, else st.secrets."""
    return env_key(provider) or ui_access.secret(ENV_KEYS[provider])


def _start() -> None:
    """Build the run from the form's values and put its runner in the session."""
    get = st.session_state.get
    scenario = SCENARIOS[get(SCENARIO)]
    provider = get(PROVIDER)
    try:
        pair = _endpoint(provider)
    except access.AccessError as exc:
        st.session_state[PROBLEM] = str(exc)
        return

    def field(name: str):
        return get(_field(scenario, name))

    choice = field("tool_choice")
    options = replace(scenario.options, model=field(f"model.{provider}") or default_model(scenario, provider),
                      temperature=field("temperature"), tool_choice=None if choice == NOT_SENT else choice,
                      parallel_tool_calls={"on": True, "off": False}.get(field("parallel")))
    chosen = edited(scenario, field("system"), field("question"),
                    {t.name: field(f"tool.{t.name}") for t in scenario.tools},
                    {k: field(f"session.{k}") for k in scenario.session})
    setup = RunSetup(chosen, provider, options, LoopOptions(max_rounds=int(field("max_rounds")),
                                                            narration_guard=bool(field("guard"))),
                     Teaching(bool(field("drop_result")), bool(field("empty_result")), bool(field("tools_in_system"))),
                     base_url=pair.base_url, timeout_s=float(get(TIMEOUT) or 60),
                     max_retries=int(get(RETRIES) if get(RETRIES) is not None else 2),
                     limits=CallLimits(deadline_s=float(get(DEADLINE) or CallLimits.deadline_s)),
                     public_only=pair.public_only)
    workdir = tempfile.TemporaryDirectory(prefix="roundtrip-live-")
    try:
        runner = start(setup, pair.api_key, Path(workdir.name))
    except Exception as exc:  # noqa: BLE001 - a run that cannot start is a message, never a crash
        workdir.cleanup()
        # Our own ValueErrors are written for a person; anything else is named, its text not shown.
        st.session_state[PROBLEM] = str(exc) if isinstance(exc, ValueError) else (
            f"The run could not start ({type(exc).__name__}).")
        return
    # The folder object lives in the session: when the session goes, so does the folder.
    st.session_state.update({RUNNER: runner, WORKDIR: workdir, PROBLEM: None, SAVED: None, SHOWN: 0})


def _endpoint(provider: str) -> access.Endpoint:
    """Where a run with this provider may go and with which key; AccessError when it may not go at all."""
    get = st.session_state.get
    return endpoint(provider, get(KEY), get(f"live.base_url.{provider}"))


def endpoint(provider: str, typed_key: str | None, typed_url: str | None) -> access.Endpoint:
    """Where a call to this provider may go, with the key and URL typed in this session; AccessError when it may
    not go at all. The Live and Fork pages both ask here."""
    if provider == "replay":
        return access.Endpoint(None, None)
    refusal = live_refusal()  # checked again here: the form's choices are the browser's to tamper with
    if refusal:
        raise access.AccessError(refusal)
    settings, _ = ui_access.config()
    return access.endpoint(settings, provider, typed_key, typed_url, _operator_key(provider))


def current() -> Runner | None:
    """The session's runner, if a run was started."""
    return st.session_state.get(RUNNER)


def address() -> None:
    """Mark the address of a page that shows a run (RUN_PARAM); on a fresh session whose address is so marked, say
    that the run is gone, once, as a reloaded upload does (picker.UPLOAD_GONE)."""
    runner = current()
    if runner is not None:
        st.query_params[RUN_PARAM] = runner_scenario(runner)
    elif st.query_params.get(RUN_PARAM) is not None:
        st.query_params.pop(RUN_PARAM, None)
        st.warning(RUN_GONE)


OUTCOMES = {"answered": (st.success, "The model answered."), "error": (st.error, "The run ended with an error."),
            "cancelled": (st.warning, "You stopped the run."), None: (st.error, "The run ended early.")}
"""How each ending is announced, in our own words; what happened follows as plain text."""

UNSENT = {"no-recording": "Replay has no recorded answer for its request.",
          "refused": "Roundtrip refused to send its request."}
"""Why a run stopped with a request no provider saw, by outcome: not an error of any provider's."""


def status(runner: Runner) -> DeltaGenerator | None:
    """Where the run stands; the approval box when a call waits for a person; Stop while it can go on. Returns the
    place where `advance` says, while the run goes on, what is under way and for how long."""
    now, place = runner.status, None
    if now.state == "needs-approval":
        _approval(runner)
    elif now.state == "done" and now.outcome in UNSENT:
        # No call was made, so nothing errored at a provider: the run stopped before this round went out.
        st.warning(f"The run stopped before round {runner.rounds:d} was sent: {UNSENT[now.outcome]}")
        st.text(now.message)
    elif now.state == "done":
        box, heading = OUTCOMES.get(now.outcome, OUTCOMES[None])
        box(heading)
        # The message can carry a provider's or a model's words (an error body, a tool name): text only.
        st.text(now.message)
    elif runner.stopping:
        # The call on its way cannot be called back: said, so the learner does not think it was never made.
        st.info(f"Stopping after round {runner.rounds:d}: a request already sent cannot be called back, so the run "
                "ends when its answer is in; that answer is kept in the trace.")
        place = st.container()
    else:
        place = st.container()  # filled by `advance`, which knows whether a request or the tools are awaited
    if now.state == "done" and now.outcome == "no-recording":
        _offer_real_providers(runner)
    if now.state != "done" and not runner.stopping:
        st.button("Stop", key="live.stop", on_click=_stop,
                  help="End the run after the step in progress; nothing more is sent and no waiting call runs.")
    return place


def _offer_real_providers(runner: Runner) -> None:
    """After a replay miss: the request was sent nowhere, and a real provider would answer it."""
    rounds_ = loaded(runner).trace.rounds
    if not rounds_ or not is_replay_miss(rounds_[-1].error):
        return
    if live_refusal():
        st.info("Nothing was sent to a model. Live calls to a real provider are not open to you on this server.")
        return
    real = [p for p in PROVIDERS if p != "replay"]
    st.info("Nothing was sent to a model. To send this request for real, choose a real provider: "
            + ", ".join(PROVIDERS[p] for p in real) + ".")
    for column, provider in zip(st.columns(len(real)), real):
        column.button(f"Use {PROVIDERS[provider]}", key=f"live.try.{provider}", on_click=_choose, args=(provider,),
                      width="stretch")


def _choose(provider: str) -> None:
    st.session_state[PROVIDER] = provider


def _stop() -> None:
    runner = current()
    if runner is not None:
        runner.stop()


def _approval(runner: Runner) -> None:
    call = runner.status.pending
    st.warning("This call changes data. Nothing runs until you decide. The exact call:")
    # The arguments only as written: st.json would parse them again and show 60.00 as 60.
    plain.payload({"id": call.id, "name": call.name})
    st.caption("The arguments as the model wrote them:")
    # Bidi controls written out: "\u202e0001" would read as an amount of 1000 on the button's way to Approve. Lines
    # wrapped: the whole call is read before Approve, not cut at the box's edge.
    st.code(plain.clip(show_controls(call.arguments_raw)), language="json", wrap_lines=True)
    st.text_input("A note for the model if you decline (optional)", key=NOTE)
    left, right = st.columns(2)
    left.button("Approve", key="live.approve", type="primary", on_click=_decide, args=(call.id, True), width="stretch")
    right.button("Decline", key="live.decline", on_click=_decide, args=(call.id, False), width="stretch")


def _decide(call_id: str, approved: bool) -> None:
    runner = current()
    pending = runner.status.pending if runner else None
    if pending is None or pending.id != call_id:
        return  # a second click on a decision already taken
    if approved:
        runner.approve(call_id)
    else:
        runner.decline(call_id, st.session_state.get(NOTE) or "")
    st.session_state[NOTE] = ""


def loaded(runner: Runner) -> catalog.LoadedTrace:
    """The trace so far, as the explorer takes it; its digest changes as it grows."""
    return catalog.from_live_run(runner.trace, f"live-{runner_scenario(runner)}")


def runner_scenario(runner: Runner) -> str:
    """The scenario name the run's trace header records."""
    return str(runner.trace.header.get("metadata", {}).get("scenario", "run"))


def rounds(runner: Runner) -> None:
    """The rounds so far in the explorer's own layout; each new round comes on screen as it is written."""
    shown = loaded(runner)
    count = len(shown.trace.rounds)
    last = shown.trace.rounds[-1] if count else None
    if runner.in_flight and last is not None and last.response is None and last.error is None:
        # Its request is on its way (this rerun came during the call): drawn once the answer is in, not as a round
        # whose response "was not in the log". The spinner below says what is awaited.
        count -= 1
    if not count:
        # Nothing to draw: the status above says what is under way ("Request 1 is on its way") or why the run ended
        # before a round was written. "No round yet." beside it read as a second, contradicting state.
        return
    if st.session_state.get(SHOWN) != count or ROUND not in st.session_state:
        st.session_state[SHOWN], st.session_state[ROUND] = count, count  # follow the trace as it grows
    st.session_state[ROUND] = min(st.session_state[ROUND], count)
    index = st.radio("Round", range(1, count + 1), key=ROUND, horizontal=True, format_func=lambda k: f"Round {k}")
    pending = runner.status.pending if runner.status.state == "needs-approval" else None
    explorer.round_view(shown, index, waiting=pending.id if pending and index == count else None,
                        fork=lambda at: _fork(runner, at))


def exports(runner: Runner) -> None:
    """Download the trace, save it into traces/, or open it in the explorer, once it holds a round to keep; till then,
    say why not."""
    empty = nothing_to_keep(loaded(runner).trace, runner.status.state != "done")
    if empty:
        st.caption(empty)
        return
    name = f"live-{runner_scenario(runner)}.jsonl"
    left, middle, right = st.columns(3)
    left.download_button("Download the trace", runner.trace.text().encode("utf-8"), file_name=name,
                         mime="application/jsonl", key="live.download", width="stretch")
    if _editor():
        middle.button("Save into traces/", key="live.save", on_click=_save, width="stretch")
    else:
        middle.caption("On this server only the editors its operator names save into traces/, which every visitor "
                       "sees.")
    # The explorer shows a copy taken at the click; the run goes on here.
    copy = (f"Opens a copy of the trace as it is now, {plural(runner.rounds, 'round')}: the copy does not grow with the "
            "run. Open it again once the run has ended for the whole run." if runner.status.state != "done" else None)
    if right.button("Open in the explorer", key="live.open", width="stretch", help=copy):
        _open(runner)
        st.switch_page(navigation.EXPLORER)
    if st.session_state.get(SAVED):
        st.caption("Saved into traces/; it is listed with the bundled traces:")
        plain.text(st.session_state[SAVED])
    if runner.status.state != "running":
        kept.save_button(loaded(runner), "live", key="live.save_library")
    if runner.status.state == "done" and runner.rounds:
        # An ended run is offered to this tab's workshop plans from memory: no file is written that the operator did
        # not ask for, and the page says how far that reaches.
        name = slides.offer(loaded(runner), f"live-{runner_scenario(runner)}")
        st.caption("The Workshop plan page lists this run for slides in this browser tab only (a plan's link or file "
                   "opened elsewhere cannot show it; saved into traces/, it is listed for every link), as:")
        plain.text(name)


def _fork(runner: Runner, index: int) -> None:
    """Open the Fork page on round `index` of this run, not of the sidebar's trace."""
    _open(runner)
    navigation.fork_from(index)


def _open(runner: Runner) -> None:
    """Make the run so far the sidebar's trace, which the explorer, Tokens and Fork pages show."""
    picker.open_files([(f"live-{runner_scenario(runner)}.jsonl", runner.trace.text().encode("utf-8"))], source="live")


def _editor() -> bool:
    """Whether this visitor may save into traces/: in a room where every learner who signs in edits (`*`), a file each
    click, for every visitor's list to read, is the named editors' to write."""
    return ui_access.moderates()


def _save() -> None:
    runner = current()
    if not _editor():
        return  # the button is not drawn for a viewer; a forged click changes nothing
    try:
        path = save_trace(runner.trace.text(), catalog.TRACES_DIR, runner_scenario(runner))
    except OSError as exc:
        st.session_state[PROBLEM] = f"The trace could not be saved into traces/ ({exc.strerror or type(exc).__name__})."
        return
    state.bundled.clear()  # the trace list is cached per server
    st.session_state[SAVED] = path.name


def advance(runner: Runner, place: DeltaGenerator | None = None) -> None:
    """One more round, then draw again: the page shows each round as soon as it is written. A rerun while a step is in
    flight (a click during a model call) waits for that step here, rather than sending its request a second time.
    `place`, from `status`, is where the page says what is under way, its seconds counted beside it: one place, at the
    top, not a status line above and a spinner under the rounds ("Ready to send request 1." once stayed on screen the
    whole wait, and "No round yet." stood between the two)."""
    if runner.status.state != "running" and not runner.stopping:
        return
    place = place if place is not None else st.container()
    number = runner.rounds if runner.in_flight else runner.rounds + 1
    if runner.stopping:
        said, waiting = None, f"Waiting for the answer to round {runner.rounds}'s call…"  # the box above says why
    elif runner.sends_next:
        said, waiting = f"Request {number} is on its way: sent to the model.", "Waiting for its answer…"
    else:
        said, waiting = runner.status.message, f"Round {runner.rounds}: running the tools…"
    if said:
        place.text(said)
    with place, st.spinner(waiting, show_time=True):  # the seconds so far: a slow model is told from a stuck page
        runner.step()
    st.rerun()
