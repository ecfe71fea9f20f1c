"""From a run's set-up to a runner writing its trace, for the Live page and `python -m lib run`.

The API key is an argument here, read by the caller from the environment, st.secrets or a
password field. It goes into the SDK client and nowhere else: not the header, not the trace.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from lib.live.data import create_database
from lib.live.wire import RequestOptions
from lib.access import OFFICIAL_BASE_URLS, check_base_url, shown_url
from lib.live.providers import AnthropicProvider, CallLimits, OpenAIProvider, Provider
from lib.live.replay import RECORDINGS_DIR, ReplayProvider, read_recordings
from lib.live.runner import LoopOptions, Runner, Teaching
from lib.live.scenarios import Scenario
from lib.live.tools import Context, Toolbox
from lib.live.tracefile import TraceFile
from lib.text import plural, terminal_safe

PROVIDERS = {"replay": "Replay (recorded, no key)", "openai": "OpenAI", "anthropic": "Anthropic",
             "compatible": "OpenAI-compatible server"}
"""The providers a run can use, with their labels."""

ENV_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "compatible": "OPENAI_API_KEY"}
"""Where each provider's key is read from in the environment."""


@dataclass(frozen=True)
class RunSetup:
    """Everything a run is started with, except the key."""

    scenario: Scenario
    """The scenario, with any edits to its prompt, question and tool descriptions."""
    provider: str = "replay"
    """A key of PROVIDERS."""
    options: RequestOptions | None = None
    """Request settings; None uses the scenario's own."""
    loop: LoopOptions = field(default_factory=LoopOptions)
    """The cap on rounds and the narration guard."""
    teaching: Teaching = field(default_factory=Teaching)
    """Mistakes to make on purpose."""
    base_url: str | None = None
    """Where an OpenAI-compatible (or a test) server listens."""
    timeout_s: float = 60.0
    """The SDK client's timeout per attempt."""
    max_retries: int = 2
    """The SDK's own retries on 429, 5xx and connection failures."""
    limits: CallLimits = field(default_factory=CallLimits)
    """Each model call's deadline and response size cap."""
    public_only: bool = False
    """The base URL may lead only to public addresses (one a visitor typed on a server; lib/access.Endpoint)."""


def edited(scenario: Scenario, system: str | None = None, question: str | None = None,
           descriptions: dict[str, str] | None = None, session: dict | None = None) -> Scenario:
    """The scenario with a person's edits: system prompt, question, tool descriptions, the app's session."""
    tools = tuple(replace(t, description=(descriptions or {}).get(t.name, t.description)) for t in scenario.tools)
    return replace(scenario, system=scenario.system if system is None else system,
                   question=scenario.question if question is None else question, tools=tools,
                   session=scenario.session if session is None else session)


def env_key(provider: str) -> str | None:
    """The provider's key from the environment, if one is set."""
    name = ENV_KEYS.get(provider)
    return os.environ.get(name) or None if name else None


def make_provider(setup: RunSetup, api_key: str | None) -> Provider:
    """The provider the set-up names; ValueError (without the key in it) when it cannot be made."""
    if setup.provider == "replay":
        path = RECORDINGS_DIR / f"{setup.scenario.name}.jsonl"
        return ReplayProvider(read_recordings(path), setup.scenario.dialect)
    # Always named: left out, the SDK would follow OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the environment.
    base_url = setup.base_url or OFFICIAL_BASE_URLS.get(setup.provider)
    if base_url is None:
        raise ValueError("An OpenAI-compatible server needs its base URL, e.g. http://localhost:11434/v1/.")
    check_base_url(base_url)
    if setup.provider != "compatible" and not api_key:
        raise ValueError(f"No API key for {PROVIDERS[setup.provider]}: set {ENV_KEYS[setup.provider]}, "
                         "add it to .streamlit/secrets.toml, or type it in.")
    connection = {"base_url": base_url, "timeout_s": setup.timeout_s, "max_retries": setup.max_retries,
                  "limits": setup.limits, "public_only": setup.public_only}
    if setup.provider == "anthropic":
        return AnthropicProvider(api_key, **connection)
    # Local servers such as Ollama ignore the key, but the SDK insists on one.
    return OpenAIProvider(api_key or "not-needed", **connection)


def start(setup: RunSetup, api_key: str | None, directory: Path, trace_path: Path | None = None,
          provider: Provider | None = None) -> Runner:
    """A runner for the set-up, its database and trace file in `directory` (trace at `trace_path` if given).

    `provider` replaces the one the set-up names: the seam for a scripted model.
    """
    scenario = setup.scenario
    provider = provider or make_provider(setup, api_key)
    options = setup.options or scenario.options
    trace = TraceFile(_header(setup, provider, options), trace_path or directory / "run.jsonl")
    return Runner(provider, toolbox(scenario, directory), options, scenario.system, scenario.question, trace,
                  setup.loop, setup.teaching)


def toolbox(scenario: Scenario, directory: Path) -> Toolbox:
    """The scenario's tools with real code, over a fresh copy of its database made in `directory`."""
    database = create_database(directory / f"{scenario.name}.sqlite", scenario.data) if scenario.data else None
    context = Context(database, dict(scenario.session), scenario.now)
    return Toolbox({tool.name: tool for tool in scenario.tools}, context)


def _header(setup: RunSetup, provider: Provider, options: RequestOptions) -> dict:
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    settings = {"model": options.model, "temperature": options.temperature, "tool_choice": options.tool_choice,
                "parallel_tool_calls": options.parallel_tool_calls, "max_tokens": options.max_tokens,
                "max_rounds": setup.loop.max_rounds, "narration_guard": setup.loop.narration_guard}
    metadata = {"scenario": setup.scenario.name, "provider": provider.label, "settings": settings,
                "teaching": [name for name, on in vars(setup.teaching).items() if on],
                "session": setup.scenario.session}
    if setup.base_url:
        metadata["base_url"] = shown_url(setup.base_url)  # only where the server is: a URL can carry credentials
    return {"kind": "trace", "version": 1, "title": f"Live run: {setup.scenario.title}", "dialect": provider.dialect,
            "model": options.model, "description": setup.scenario.description,
            "source": f"Live run of the {setup.scenario.name} scenario with the {provider.label} provider, "
                      f"started {started}.", "metadata": metadata}


def save_trace(text: str, directory: Path, scenario: str) -> Path:
    """Write a finished run into `directory` under a new name, never over another file."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = directory / f"live-{scenario}-{stamp}.jsonl"
    counter = 1
    while path.exists():
        counter += 1
        path = directory / f"live-{scenario}-{stamp}-{counter}.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def run_headless(setup: RunSetup, output: Path, decline: bool = False) -> int:
    """`python -m lib run`: play a run to the end, deciding every write call the same way; the exit status."""
    with tempfile.TemporaryDirectory(prefix="roundtrip-run-") as directory:
        try:
            runner = start(setup, env_key(setup.provider), Path(directory), trace_path=output)
        except ValueError as exc:
            print(terminal_safe(f"run: {exc}"), file=sys.stderr)
            return 2
        status = runner.run()
        while status.state == "needs-approval":
            call = status.pending
            print(terminal_safe(f"{'declined' if decline else 'approved'} {call.name} {call.id} {call.arguments_raw}"))
            status = runner.decline(call.id) if decline else runner.approve(call.id)
            status = runner.run()
    print(terminal_safe(f"{output}: {plural(runner.rounds, 'round')}. {status.message}"))
    return 0 if status.outcome == "answered" else 1
