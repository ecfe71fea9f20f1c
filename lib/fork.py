"""A fork: one round's request edited and sent again, saved as a new trace that names its parent.

The fork keeps the parent's rounds before the forked one as they were (written in the other
dialect when the fork is sent in it), then runs the edited request with lib/live's loop from that
round on: the loop appends the answer unchanged, answers every call with its id, waits for a
person before a write, and refuses a call id already used in the conversation. Who answers the
calls is the toolbox: a bundled scenario's real tools, a person typing each result, or nobody
(the fork stops after one round). No SDK and no Streamlit here: the model is whatever lib/live
provider the caller passes, and the replay provider answers only requests it has a recording for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lib.dialects import DIALECT_NAMES, DIALECTS
from lib.dialects.common import Pools
from lib.dialects.convert import convert
from lib.fork_edits import copied, json_object
from lib.live.launch import toolbox as scenario_toolbox
from lib.live.providers import Provider
from lib.live.replay import RECORDINGS_DIR, ReplayProvider, read_recordings, recordings_from_trace
from lib.live.runner import LoopOptions, Runner, Status
from lib.live.scenarios import SCENARIOS
from lib.live.tools import DECLINED, Result, Toolbox
from lib.live.tracefile import TraceFile
from lib.logs.native import round_line, write_trace
from lib.model import ToolCallPart, Trace

Continuation = Literal["tools", "typed", "stop"]
"""After the forked round: run the scenario's tools, have a person type each result, or stop."""

SCENARIO_OF = {"hengxin-expense": "hengxin", "larkfield-get-order": "larkfield",
               "order-status-anthropic": "order-status", "loan-calculator": "loan"}
"""The bundled traces whose tools the program can run for real: trace name -> lib/live scenario."""

MORE_ROUNDS = 4
"""How many model calls a fork may make, the forked round included, before the loop's cap stops it."""

TYPED = "typed by the person running the fork, not produced by the program"
"""The execution note of a result a person typed."""


def request_body(trace: Trace, at: int) -> dict:
    """A copy of round `at`'s request body, to edit."""
    return copied(trace.rounds[at - 1].request.raw)


def parse_body(text: str) -> tuple[dict | None, str | None]:
    """The edited request as a JSON object, or why it is not one (where in it, in our words: lib.text.json_said)."""
    return json_object(text, "The request", "request")


def in_dialect(body: dict, source: str, target: str) -> tuple[dict, tuple[str, ...]]:
    """The request written in `target` through Roundtrip's data model, and what the conversion could not carry."""
    if source == target:
        return body, ()
    written = convert(DIALECTS[source].read_request(body, Pools()), None, source, target).request
    return written.body, written.notes


def resent_headers(parent: Trace, at: int, dialect: str) -> dict[str, str]:
    """The request headers the parent's round `at` kept that a fork of it sends again with each call (an
    `anthropic-beta` that switched a feature on): only those lib.model.shaping_headers allows, never a key (the key is
    the operator's, as always); none where the fork is sent in the other dialect, whose API they mean nothing to."""
    headers = parent.rounds[at - 1].request_headers
    return dict(headers) if headers and dialect == parent.dialect else {}


def replay(parent: Trace, dialect: str) -> ReplayProvider:
    """The replay provider of a fork: the parent's own rounds, the bundled recordings and the teaching forks'."""
    found = recordings_from_trace(write_trace(parent), "a round of the parent trace")
    for path in sorted(RECORDINGS_DIR.glob("*.jsonl")):
        found += read_recordings(path)
    return ReplayProvider(found, dialect)


def can_run_tools(parent_name: str) -> bool:
    """Whether the program has the tools of this trace: a bundled scenario's."""
    return parent_name in SCENARIO_OF


class TypedResults:
    """The tools of a fork of an imported trace: every call waits for a person to type its result."""

    tools: dict = {}
    """No tool runs here."""

    def check(self, call: ToolCallPart) -> Result | None:
        """Any call can be answered by a person."""
        return None

    def ask(self, call: ToolCallPart) -> str:
        """Every call waits for its result."""
        return f"Type the result of {call.name} (call {call.id}), or decline the call."

    def run(self, call: ToolCallPart, approval: str | None = None, note: str = "") -> Result:
        """The typed text as the result, or the declined answer."""
        declined = approval == "declined"
        content = DECLINED + (f" Their note: {note}" if note else "") if declined else note
        entry = {"tool_call_id": call.id, "name": call.name,
                 "arguments": call.arguments if call.arguments is not None else call.arguments_raw,
                 "output": content, "ok": not declined, "note": "declined by the person running the fork" if declined
                 else TYPED}
        return Result(entry, content)


def original_result(parent: Trace, call: ToolCallPart) -> str:
    """What the parent sent back for this call (by its id, else for the first call of the same tool), or ''."""
    results = {r.call_id: r.content for round_ in parent.rounds for m in round_.request.messages
               for r in m.tool_results}
    for round_ in parent.rounds:
        results.update({e.tool_call_id: e.output if isinstance(e.output, str) else json.dumps(e.output)
                        for e in round_.executions if e.tool_call_id not in results})
    if call.id in results:
        return results[call.id]
    same = [c.id for round_ in parent.rounds for c in round_.tool_calls if c.name == call.name and c.id in results]
    return results[same[0]] if same else ""


@dataclass(frozen=True)
class ForkSetup:
    """What a fork is started with, besides who answers."""

    parent: Trace
    """The trace forked."""
    parent_name: str
    """How the app names the parent (a bundled name, or the upload's conversation)."""
    at: int
    """The round forked, 1-based."""
    body: dict
    """The edited request, in the dialect of the provider that answers it."""
    continuation: Continuation = "stop"
    """What happens after the forked round's answer."""
    notes: tuple[str, ...] = ()
    """What a conversion to the other dialect could not carry."""


def start(setup: ForkSetup, provider: Provider, directory: Path) -> Runner:
    """The fork's runner, its trace holding the parent's earlier rounds; run it with `advance`."""
    toolbox = _tools(setup, directory, provider.dialect) if setup.continuation == "tools" else TypedResults()
    cap = 1 if setup.continuation == "stop" else MORE_ROUNDS
    trace = TraceFile(_header(setup, provider))
    for line in _earlier(setup.parent, setup.at, provider.dialect):
        trace.put(line)
    return Runner.resumed(provider, toolbox, setup.body, setup.at, trace, LoopOptions(max_rounds=cap))


def advance(runner: Runner, continuation: Continuation) -> Status:
    """Run until a person is needed or the fork is done; a fork that stops after one round never runs a call."""
    status = runner.run()
    if continuation == "stop" and status.state == "needs-approval":
        status = runner.stop(asked=True)
    return status


def _tools(setup: ForkSetup, directory: Path, dialect: str) -> Toolbox:
    """The scenario's tools, only those the edited request still lists: the model can reach no other."""
    full = scenario_toolbox(SCENARIOS[SCENARIO_OF[setup.parent_name]], directory)
    listed = {tool.name for tool in DIALECTS[dialect].read_request(setup.body, Pools()).tools}
    return Toolbox({name: tool for name, tool in full.tools.items() if name in listed}, full.context)


PARENTS_WORDS = ("description", "explanation")
"""Header fields in which the parent's author says what happens in the parent's rounds (how many, what the model did,
the fix): a fork's rounds from the forked one on are not those, so it does not take them over."""


def copied_words(name: str, at: int) -> str:
    """Which of the parent's rounds a fork forked at round `at` holds as they were: none when it forks the first."""
    if at == 1:
        return f"no round copied from {name}"
    return f"{'round 1' if at == 2 else f'rounds 1 to {at - 1}'} copied from {name}"


PROVIDER_WORDS = {"openai": "OpenAI", "anthropic": "Anthropic", "openai-compatible": "an OpenAI-compatible server"}
"""How a fork's note names the API a provider label sends to."""


def sent_words(setup: ForkSetup, provider: Provider) -> str:
    """What a fork sent, for its note: which round, edited or not, to which API at which host, with which of the
    parent's request headers, and that the rounds after it went there too."""
    at = setup.at
    try:
        recorded, _ = in_dialect(request_body(setup.parent, at), setup.parent.dialect, provider.dialect)
        state = "edited" if recorded != setup.body else "unedited"
    except Exception:  # noqa: BLE001 - a parent request the converter cannot read: the note says less, never fails
        state = "as the fork's editor left it"
    where = getattr(provider, "where", None)
    said = (f"round {at}, {state}, sent again to {PROVIDER_WORDS.get(provider.label, provider.label)}"
            + (f" at {where}" if where else ""))
    headers = getattr(provider, "headers", None) or {}
    if headers:
        said += f" with the request headers the parent's round {at} kept ({', '.join(headers)})"
    elif setup.parent.rounds[at - 1].request_headers and provider.dialect != setup.parent.dialect:
        said += f" without the request headers the parent's round {at} kept (they are for the other API)"
    if setup.continuation != "stop":
        said += ", and the rounds after it sent there too"
    return said


def _header(setup: ForkSetup, provider: Provider) -> dict:
    header = {k: v for k, v in json.loads(next(write_trace(setup.parent))).items() if k not in PARENTS_WORDS}
    name, at = setup.parent_name, setup.at
    converted = provider.dialect != setup.parent.dialect
    note = copied_words(name, at) + (
        f" and written as {DIALECT_NAMES[provider.dialect]}" if converted and at > 1 else "") + (
        # Replay sends nothing to a model, and answers only a request it has a recording of.
        f"; from round {at} on, answered by Replay from recordings where it had one, each answer's note saying how it "
        "was made" if provider.label == "replay" else f"; {sent_words(setup, provider)}")
    origin = (header.get("provenance") or {}).get("origin", "recorded")
    header["description"] = f"A fork of {setup.parent.title} at round {at}: {note}."
    header.update({"title": f"Fork of {setup.parent.title} at round {at}", "dialect": provider.dialect,
                   "fork": {"parent": name, "round": at, "provider": provider.label, "continuation": setup.continuation},
                   "provenance": {"origin": origin, "note": note}})
    if setup.notes:
        header["fork"]["conversion_notes"] = list(setup.notes)
    if getattr(provider, "headers", None):
        header["fork"]["request_headers"] = dict(provider.headers)
    return header


def _earlier(parent: Trace, at: int, dialect: str) -> list[dict]:
    """The parent's rounds before `at` as trace lines, written in `dialect`."""
    lines = []
    for round_ in parent.rounds[:at - 1]:
        line = round_line(round_)
        if dialect != parent.dialect:
            written = convert(round_.request, round_.response, parent.dialect, dialect)
            line["request"] = written.request.body
            if written.response is not None:
                line["response"] = written.response.body
        lines.append(line)
    return lines
