"""Rebuild the bundled recordings: `python -m lib.live.rebuild`.

Each scenario is played along a few paths (the default question; a declined write; the teaching
switches) by a scripted model that answers in order. The responses of the default paths are the
bundled traces' own (traces/*.jsonl); the others are written here and say so in their note. The
runner makes the real requests, so the keys always match what a run sends. Run this after editing
a scenario's prompt, question or tool descriptions; tests/test_live_replay.py checks the bundled
files are exactly what it writes.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lib.catalog import TRACES_DIR
from lib.live.launch import RunSetup, start
from lib.live.providers import Exchange, provider_message
from lib.live.replay import RECORDINGS_DIR, Recording, recordings_from_trace, write_recordings
from lib.live.runner import Teaching
from lib.live.scenarios import SCENARIOS


@dataclass(frozen=True)
class Scripted:
    """One scripted reply: a response body, or an error body with its status."""

    body: dict
    """What the model (or the provider, for an error) sends back."""
    note: str
    """Where it came from."""
    status: int = 200
    """200, or the error's HTTP status."""


class ScriptedProvider:
    """Answers requests with scripted replies in order, whatever they ask; a stand-in model for building."""

    label = "scripted"

    def __init__(self, dialect: str, replies: list[Scripted]):
        self.dialect = dialect
        self._replies = list(replies)
        self.notes: list[str] = []

    def send(self, body: dict) -> Exchange:
        """The next reply."""
        reply = self._replies.pop(0)
        self.notes.append(reply.note)
        if reply.status >= 400:
            said = provider_message(reply.body, "the scripted error")
            error = {"status": reply.status, "message": said, "body": reply.body}
            return Exchange(body, None, error, 0.0)
        return Exchange(body, reply.body, None, 0.0)


@dataclass(frozen=True)
class Walk:
    """One way through a scenario."""

    replies: list[Scripted]
    """The model's replies, in order."""
    decline: bool = False
    """Decline every write call instead of approving it."""
    teaching: Teaching = field(default_factory=Teaching)
    """Switches on for this path."""


def _bundled(name: str) -> list[Scripted]:
    lines = [json.loads(line) for line in (TRACES_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    return [Scripted(line["response"], f"round {line['index']} of traces/{name}.jsonl")
            for line in lines if line.get("kind") == "round"]


def said(text: str, note: str) -> Scripted:
    body = {"object": "chat.completion", "model": "DeepSeek-V4-Flash", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop", "logprobs": None}]}
    return Scripted(body, note)


HENGXIN = _bundled("hengxin-expense")
DROPPED_400 = Scripted({"error": {
    "message": "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
               "'tool_call_id'. The following tool_call_ids did not have response messages: call_q2",
    "type": "invalid_request_error", "param": "messages.[2].role", "code": None}},
    "written for the drop-a-result switch, in the words OpenAI uses for this 400", 400)

WALKS: dict[str, list[Walk]] = {
    "hengxin": [
        Walk(HENGXIN),
        Walk(HENGXIN[:3] + [said(
            "I have not submitted the supplementary form: the submission was declined. For your information, your "
            "reimbursement form BX-20261015-0932 amounts to 3860.00 yuan, which exceeds the bank's travel standard "
            "of 3800.00 yuan by 60.00 yuan (about 1.58%). If you still want the supplement filed, ask me again and "
            "approve the submission.", "written for the path where the person declines createExpenseSupplement")],
            decline=True),
        Walk(HENGXIN[:1] + [DROPPED_400], teaching=Teaching(drop_result=True)),
        Walk(HENGXIN[:1] + [said(
            "I could not find a recent reimbursement form for you, so there is nothing that exceeds the bank's "
            "travel standard and no supplementary form is needed.",
            "written for the empty-result switch: the model reads an empty result as 'nothing found'")],
            teaching=Teaching(empty_result=True)),
        Walk([said("Let me check your most recent reimbursement form and the bank's travel standard first.",
                     "written for the tools-in-the-system-prompt switch: the model only narrates"),
               said("I cannot look up your reimbursement form or the travel standard: no tool is available to me in "
                     "this conversation. Please check the amount in the expense system, or ask again once the lookup "
                     "tools are connected.", "written for the narration guard's re-ask")],
              teaching=Teaching(tools_in_system=True)),
    ],
    "larkfield": [Walk(_bundled("larkfield-get-order"))],
    "order-status": [Walk(_bundled("order-status-anthropic"))],
    "loan": [Walk(_bundled("loan-calculator"))],
}
"""Every path recorded, per scenario."""


def record(name: str) -> list[Recording]:
    """The recordings of every walk through one scenario, in order of first appearance."""
    scenario = SCENARIOS[name]
    found: dict[str, Recording] = {}
    for walk in WALKS[name]:
        scripted = ScriptedProvider(scenario.dialect, walk.replies)
        with tempfile.TemporaryDirectory() as directory:
            runner = start(RunSetup(scenario, teaching=walk.teaching), None, Path(directory), provider=scripted)
            status = runner.run()
            while status.state == "needs-approval":
                call_id = status.pending.id
                runner.decline(call_id) if walk.decline else runner.approve(call_id)
                status = runner.run()
        for recording, note in zip(recordings_from_trace(runner.trace.lines), scripted.notes, strict=True):
            recording = Recording(recording.key, recording.request, recording.status, recording.response, note)
            if found.get(recording.key, recording) != recording:
                raise ValueError(f"{name}: two walks answer the same request differently")
            found[recording.key] = recording
    return list(found.values())


def rebuild(directory: Path = RECORDINGS_DIR) -> list[Path]:
    """Write every scenario's recordings file into `directory`."""
    written = []
    for name, scenario in SCENARIOS.items():
        target = directory / f"{name}.jsonl"
        header = {"scenario": name, "dialect": scenario.dialect,
                  "description": f"Recorded answers for the {scenario.title} scenario; rebuilt by "
                                 "python -m lib.live.rebuild."}
        write_recordings(target, header, record(name))
        written.append(target)
    return written


if __name__ == "__main__":
    for written in rebuild():
        print(written)
