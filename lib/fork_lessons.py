"""The bundled teaching forks of the Hengxin trace, and their recordings for the replay provider.

Each lesson is one edit of one round's request. Its recordings are made by playing the fork the way
the Fork page plays it (lib/fork.py, the scenario's real tools, every write approved) against a
scripted model, so the keys are those of the requests a fork really sends. No real model wrote
these answers: each one was written here to show a documented behaviour, and its note says so.
`python -m lib.fork_lessons` rewrites lib/live/recordings/forks.jsonl after an edit here.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lib.dialects import OPENAI
from lib.fork import ForkSetup, advance, request_body, start
from lib.fork_edits import tools, with_results_emptied, with_settings, with_tool, without_tool
from lib.live.rebuild import Scripted, ScriptedProvider, said
from lib.live.replay import RECORDINGS_DIR, Recording, recordings_from_trace, request_settings, write_recordings
from lib.model import Trace

PARENT = "hengxin-expense"
"""The trace every bundled lesson forks."""
FILE = RECORDINGS_DIR / "forks.jsonl"
"""Where the lessons' recordings are kept."""
WRITTEN = "written for the teaching fork '{name}' to show {shows}; not a real model's answer"
"""The note of every lesson reply."""


@dataclass(frozen=True)
class Lesson:
    """One bundled teaching fork."""

    name: str
    """Short name, for the recordings' notes and the page's keys."""
    title: str
    """What the edit is, in a few words."""
    explanation: str
    """What the fork shows, in one line of our own words."""
    at: int
    """The Hengxin round it forks."""
    edit: Callable[[dict], dict]
    """The edit made to that round's request."""
    replies: tuple[Scripted, ...]
    """What the scripted model answers, round after round, when the fork runs on with the real tools."""
    settings_bound: bool = False
    """The answers depend on tool_choice, so they replay only for a request with the same settings."""


def body(lesson: Lesson, parent: Trace) -> dict:
    """The lesson's edited request."""
    return lesson.edit(request_body(parent, lesson.at))


def _called(name: str, arguments: dict, call_id: str, note: str) -> Scripted:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return Scripted({"object": "chat.completion", "model": "DeepSeek-V4-Flash", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]},
         "finish_reason": "tool_calls", "logprobs": None}]}, note)


def _vague(request: dict) -> dict:
    position = [t.name for t in tools(request, OPENAI)].index("calcAmountOver")
    return with_tool(request, OPENAI, position, description="A helper.")[0]


def _without_write_tool(request: dict) -> dict:
    return without_tool(request, [t.name for t in tools(request, OPENAI)].index("createExpenseSupplement"))


def _forced(request: dict) -> dict:
    return with_settings(request, OPENAI, "required", True)


_EMPTY = WRITTEN.format(name="empty-result", shows="the documented failure: with nothing in the results, a model "
                                                  "still answers, with figures it made up")
_VAGUE = WRITTEN.format(name="vague-description", shows="that a model picks tools by their descriptions: 'A helper.' "
                                                       "does not say it calculates, so the model does the sum itself")
_REMOVED = WRITTEN.format(name="write-tool-removed", shows="that a model can call only the tools listed in the request")
_FORCED = WRITTEN.format(name="tool-choice-forced", shows="what tool_choice 'required' documents: a tool call in every "
                                                         "response, so the model can never answer")
_QUERY = {"user_id": "E10238", "status": "submitted"}

LESSONS: tuple[Lesson, ...] = (
    Lesson("empty-result", "Round 2, both tool results emptied",
           "The lookups come back empty and the model answers anyway, with an amount and a verdict it invented.",
           2, with_results_emptied, (said(
               "Your travel reimbursement of 3,200.00 yuan is within the bank's travel standard of 3,800.00 yuan, so "
               "no supplementary form is needed.", _EMPTY),)),
    Lesson("vague-description", "Round 2, calcAmountOver described as 'A helper.'",
           "With a description that does not say what the tool is for, the model skips it and does the arithmetic "
           "itself, against the system prompt.",
           2, _vague, (
               _called("createExpenseSupplement", {"expense_id": "BX-20261015-0932", "over_amount": 60.00,
                                                   "reason": "Travel expenses exceeded the standard by 60 yuan"},
                       "call_v1", _VAGUE),
               said("Your reimbursement form BX-20261015-0932 (3860.00 yuan) exceeds the travel standard of 3800.00 "
                    "yuan by 60.00 yuan. A supplementary form has been submitted for you: BC-20261020-0417.",
                    _VAGUE))),
    Lesson("write-tool-removed", "Round 3, createExpenseSupplement removed from the tools",
           "Without the write tool in the list the model cannot file the form; it says so and gives the figures.",
           3, _without_write_tool, (said(
               "Your reimbursement form BX-20261015-0932 is 3860.00 yuan, which exceeds the bank's travel standard of "
               "3800.00 yuan by 60.00 yuan (about 1.58%). I cannot submit the supplementary form: no tool for "
               "submitting forms is available to me here. Please file it in the expense system.", _REMOVED),)),
    Lesson("tool-choice-forced", "Round 4, tool_choice set to 'required'",
           "Forced to call a tool in every response, the model looks the expense up again and again until the "
           "program's cap on rounds stops the loop.",
           4, _forced, tuple(_called("queryExpense", _QUERY, f"call_f{n}", _FORCED) for n in range(1, 5)),
           settings_bound=True),
)
"""The teaching forks, in the order the page lists them."""


def record(lesson: Lesson, parent: Trace) -> list[Recording]:
    """The lesson's fork played with the real tools against its scripted replies, as recordings."""
    scripted = ScriptedProvider(OPENAI, list(lesson.replies))
    with tempfile.TemporaryDirectory() as directory:
        runner = start(ForkSetup(parent, PARENT, lesson.at, body(lesson, parent), "tools"), scripted, Path(directory))
        status = advance(runner, "tools")
        while status.state == "needs-approval":
            runner.approve(status.pending.id)
            status = advance(runner, "tools")
    sent = [line for line in runner.trace.lines[1:] if json.loads(line)["index"] >= lesson.at]
    found = []
    for recording, note in zip(recordings_from_trace(sent), scripted.notes, strict=True):
        settings = request_settings(recording.request) if lesson.settings_bound else None
        found.append(Recording(recording.key, recording.request, recording.status, recording.response, note, settings))
    return found


def rebuild(parent: Trace, path: Path = FILE) -> Path:
    """Write every lesson's recordings into `path`."""
    header = {"scenario": "hengxin", "dialect": OPENAI,
              "description": "Recorded answers for the bundled teaching forks of the Hengxin trace; rebuilt by "
                             "python -m lib.fork_lessons."}
    write_recordings(path, header, [r for lesson in LESSONS for r in record(lesson, parent)])
    return path


if __name__ == "__main__":
    from lib.catalog import TRACES_DIR, load_bytes

    print(rebuild(load_bytes((TRACES_DIR / f"{PARENT}.jsonl").read_bytes(), PARENT).trace))
