"""Cline and Roo Code task histories: a task folder's `api_conversation_history.json`, with its `ui_messages.json`.

The history is one JSON array of Anthropic Messages turns (`role` user or assistant, `content` a string or content
blocks), each with the time Cline wrote it (`ts`, milliseconds); whatever provider the task called, the extension keeps
its conversation in this shape. The upload reads such an array as one transcript (`{"messages": [...]}`); the `ts` on
its turns is what tells it from any other array of messages. Each assistant turn is a round, its request the turns
before it, cut out of the file rather than recorded as sent (TRANSCRIPT_REQUEST). The system prompt and the tool list
are not in the file: every round says it lacks them (its provenance's `omitted`), never that they were empty.

Newer versions write `tool_use` and `tool_result` blocks, read as the Anthropic blocks they are. Roo Code, and Cline
before native tool calls, wrote each call as XML tags in the assistant's text (`<read_file><path>x</path></read_file>`)
and its result as text blocks opened by a header (`[read_file for 'x'] Result:`) in the user turns after it: in a
history without native blocks, a call of a tool these extensions have is read out of the text as a tool call, its id
made up, and the blocks after the header that names it, in order, become its result (`derived`: `tool calls`,
`tool calls read by the agent from the text`, `call ids`).

A Roo Code summary turn (`isSummary`, written by a separate call that condensed the conversation) is no round: its
request is not in the file. Turns the condensing or truncation hid (`condenseParent`, `truncationParent` naming a
summary or marker in the file) are left out of the requests after that summary or marker, as Roo Code leaves them out.

`ui_messages.json` holds the extension's UI events; its `say: "api_req_started"` events carry each request's counts
(`tokensIn`, `tokensOut`, `cacheWrites`, `cacheReads`). They become the rounds' usage only where the pairing is
certain (_paired): one history and one UI file in the upload, as many such events as rounds, each event between the
response before and its own. Otherwise the events are counted, not read, and a note says why. Its `say: "reasoning"`
events show the model's thinking streamed between a request's start and its response, which the history keeps no
block of: a round with usage whose request streamed some says its output count holds words it does not show.

A round names the model the files say it was sent to, and its provenance says where it was read: the response turn's
`modelInfo` (Cline 3.x), else the `<model>` Roo Code writes in the environment details closing the request's last user
turn, else the paired event's `modelInfo`. A paired event's `cost`, the extension's own figure, is said in the round's
note only: the app's cost is worked out from its own price table.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.dialects import ANTHROPIC
from lib.logs import chat_shape as convert
from lib.logs.chat_shape import describe
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem
from lib.logs.sharegpt import TEXT_CALLS
from lib.model import AGENT_READ_CALLS, MADE_UP_IDS, TRANSCRIPT_REQUEST
from lib.prices import money_words
from lib.text import plural, shorten

ROLES = ("user", "assistant")
"""The roles of the history's turns."""

UI_TYPES = ("say", "ask")
"""The `type` of a UI event: what the extension said, or what it asked the person."""

REQUEST_STARTED = "api_req_started"
"""The UI event written as each API request starts; its `text` is JSON with the request's counts once it ends."""

ENDED_BADLY = ("cancelReason", "streamingFailedMessage")
"""Keys of a request event whose request was cancelled or failed mid-stream: no response of it is in the history."""

PROVENANCE = {
    "origin": "derived",
    "note": "The request is the conversation before this response as the task history "
            "(api_conversation_history.json) kept it, not a request on record as sent. The extension keeps every "
            "conversation in Anthropic's message shape whatever provider it called, and may shorten earlier turns "
            "before sending them (dropping old turns when the context fills): a request rebuilt here may hold more "
            "than was sent. The file does not keep the system prompt: it was sent, but is neither shown nor counted "
            "here.",
    "omitted": ["system", "tools"],
}
"""Every round's provenance: what the file lacks, said where the round is shown (lib/provenance.py). What it was
converted from, the origin line says (converted_from); whether a tool list was sent, the one statement where the list
would be (lib.summary.tool_list_missing): the extension may describe its tools in the prompt's text instead."""

NO_USAGE = ("The history keeps no token counts: the counts are in ui_messages.json, which was not uploaded with it, "
            "so no round's usage is known.")
"""The note on a history read without its UI file."""

USAGE_FROM_UI = ("Its usage is the counts of the api_req_started event of ui_messages.json paired with it: the file "
                 "holds one such event per response, each written between the response before and this one.")
"""Added to the provenance note of a round whose usage came from the UI file."""

XML_CALLS = ("The extension had the model write its tool calls as XML tags in the text: they are read out of the "
             "text as tool calls, their ids made up, and each result is the text the next turn gives under the "
             "header naming that tool ('[read_file for ...] Result:').")
"""Added to the provenance note of every round of a history whose calls were read out of the text."""

TOOLS = ("execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
         "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question",
         "plan_mode_respond", "load_mcp_documentation", "attempt_completion", "new_task", "condense", "summarize_task",
         "report_bug", "new_rule", "web_fetch", "web_search", "apply_diff", "insert_content", "search_and_replace",
         "switch_mode", "update_todo_list", "codebase_search", "fetch_instructions", "generate_image",
         "run_slash_command", "simple_read_file", "edit_file", "apply_patch", "search_replace")
"""The tools Cline and Roo Code have had the model call in XML: a tag of another name in the text is only text."""

TAG = re.compile(r"<(/?)([a-z_][a-z0-9_]*)>")
"""An opening or closing XML tag, as the extensions write calls and their parameters."""

RESULT_HEADER = re.compile(r"\[([a-z_]+)(?:\]| (?:for|in|to) )")
"""How the block that opens a tool's result begins: the tool's name, then what it did (`[read_file for 'a.py']`,
`[new_task in Code mode: '...']`, `[switch_mode to 'code' ...]`, `[update_todo_list]`). Roo Code's `[new_task
completed] Result:`, the subtask's last words, is no result of the call: it is the turn's text."""

RESULT_LINE = re.compile(r"\[[a-z_]+(?: (?:for|in|to) [^\n]*?)?\] Result:")
"""A header on one line with the result after it in the same block, as older Cline wrote some."""

ENVIRONMENT = "<environment_details>"
"""How the extension's own report of the editor's state begins, after the results of a turn."""

INTERRUPTED = ("The extension stopped reading this response before it ended (the turn closes with its own words, "
               "'[Response interrupted ...]'): the text is what it had read, the stop is not on record, and an output "
               "count paired with it may be only what the stream reported at its start.")
"""Added to the provenance note of a round whose turn ends in the extension's interruption words."""

INTERRUPTION = re.compile(r"\[Response interrupted by [^\]]*\]\s*$")
"""The words Cline and Roo Code add at the end of a turn whose stream they stopped (a tool used, the person)."""

THOUGHT = ("ui_messages.json shows the model reasoning before this response ('say': 'reasoning'), which the history "
           "does not keep: the output count includes it, the response shown lacks it.")
"""Added to the provenance note of a round with usage whose request's UI events hold the model's reasoning."""

MODEL_IN_TURN = "The model is the one the extension recorded on this response's turn ('modelInfo')."
"""Added to the provenance note of a round whose history turn names its model (Cline 3.x)."""

MODEL_IN_ENVIRONMENT = ("The model is as the extension wrote it in the environment details of the request's last user "
                        "turn ('# Current Mode', '<model>'), which it writes as it prepares the request.")
"""Added to the provenance note of a round whose model was read from Roo Code's environment details."""

MODEL_ON_EVENT = ("The model is the one the extension recorded on this request's api_req_started event in "
                  "ui_messages.json ('modelInfo').")
"""Added to the provenance note of a round whose model came from its paired UI event (Cline 3.x)."""

CURRENT_MODE = re.compile(
    r"^# Current Mode\n<slug>[^\n]*</slug>\n<name>[^\n]*</name>\n<model>([^<\n]{1,200})</model>$", re.MULTILINE)
"""How Roo Code names, in the environment details, the mode and the model the request is about to be sent to."""


def recorded_cost_words(amount: float) -> str:
    """Added to the provenance note of a round whose paired UI event holds the extension's own `cost`."""
    return (f"The extension's own cost for this request (the event's 'cost'): {money_words(amount)}. It is the "
            "extension's figure, worked out at its own prices, not a cost this app worked out: the cost shown for "
            "the round is the price table's, and the two may differ.")


UI_ALONE = ("ui_messages.json holds Cline's or Roo Code's UI events, not the conversation: upload the task's "
            "api_conversation_history.json with it to see the rounds")
"""The note on UI events read without a history."""


@dataclass(slots=True)
class _Task:
    """A history read, its rounds held until the UI events (if any) are read."""

    line: int
    """The item the history came in."""
    key: str
    """Its conversation id."""
    records: list[CallRecord]
    """Its rounds, without usage."""
    answered_at: list[int | None]
    """Each round's response time (`ts`, milliseconds), when the turn has one."""
    notes: list[Problem] = field(default_factory=list)
    """What the history lacks, said once it is read."""


class ClineTaskFormat(LogFormat):
    """A Cline or Roo Code task history, one round per assistant turn, with usage from the task's UI events."""

    name = "cline-task"
    title = "Cline / Roo Code task history"
    reads = ("a .json array of 'user' and 'assistant' turns, one with 'ts', or a UI event with 'ts' and"
             " 'type' 'say' or 'ask'")

    def __init__(self) -> None:
        self._tasks: list[_Task] = []
        self._events: list[tuple[Any, dict | None, str | None]] = []
        """The UI file's api_req_started events: their `ts`, their `text` parsed (None where it holds no object),
        and the model the event names (`modelInfo.modelId`, Cline 3.x)."""
        self._reasoned: list[int] = []
        """The `ts` of the UI file's reasoning events: the model's thinking, streamed to the person."""
        self._ui_files = 0
        self._ui_events = 0
        self._first_event = 0
        self._last_event = 0
        self._notes: list[Problem] = []

    def detect(self, obj: dict) -> str | None:
        messages = obj.get("messages")
        if isinstance(messages, list) and len(obj) == 1 and messages and all(
                isinstance(m, dict) and m.get("role") in ROLES for m in messages) and any(
                isinstance(m.get("ts"), int) and not isinstance(m.get("ts"), bool) for m in messages):
            return ("one JSON array of user and assistant turns carrying 'ts' (a Cline or Roo Code "
                    "api_conversation_history.json)")
        if obj.get("type") in UI_TYPES and isinstance(obj.get(obj["type"]), str) and isinstance(obj.get("ts"), int):
            return "a UI event with 'ts' and 'say' or 'ask' (a Cline or Roo Code ui_messages.json)"
        return None

    def chosen(self, obj: dict) -> str:
        # Chosen by the user, an array of turns carrying Cline's 'ts' is read even with a turn no history holds, so
        # that the turn is named (feed); an array without 'ts' is a transcript of another program, refused.
        rule = self.detect(obj)
        if rule:
            return rule
        messages = obj.get("messages")
        if isinstance(messages, list) and len(obj) == 1 and any(
                isinstance(m, dict) and isinstance(m.get("ts"), int) and not isinstance(m.get("ts"), bool)
                for m in messages):
            return "one JSON array of turns carrying 'ts' (a Cline or Roo Code api_conversation_history.json)"
        return super().chosen(obj)

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if "messages" in obj:
            self._tasks.append(_history(obj["messages"], line, self._task_name(obj["messages"])))
            return iter(())
        if obj.get("type") not in UI_TYPES:
            raise LineProblem("is neither a task history (an array of turns) nor a UI event ('type' say or ask)")
        self._ui_events += 1
        self._first_event = self._first_event or line
        if line <= self._last_event:  # each UI file's events are numbered from its first
            self._ui_files += 1
        self._ui_files = self._ui_files or 1
        self._last_event = line
        if obj.get("say") == "reasoning" and _ms(obj.get("ts")) is not None:
            self._reasoned.append(obj["ts"])
        if obj.get("say") == REQUEST_STARTED:
            self._events.append((obj.get("ts"), _counts(obj.get("text")), _model(obj)))
        return iter(())

    def _task_name(self, messages: list) -> str:
        """The task's conversation id, and so its title: the agent and the first words of the task the person gave
        (its first prompt), numbered where another task of the upload has the same words or none is found."""
        words = _task_words(messages)
        named = f"{AGENT} task: {words}" if words else f"{AGENT} task {len(self._tasks) + 1}"
        return f"{named} ({len(self._tasks) + 1})" if words and any(t.key == named for t in self._tasks) else named

    def finish(self) -> Iterator[CallRecord]:
        why = self._unpaired()
        for task in self._tasks:
            self._notes.extend(task.notes)
            if why is None:
                _add_usage(task, self._events, sorted(self._reasoned))
            elif why:
                self._notes.append(Problem(task.line, why, conversation=task.key, loaded=True))
            yield from task.records
        if self._ui_events and not self._tasks:
            self._notes.append(Problem(self._first_event, UI_ALONE, loaded=True))

    def not_calls(self) -> int:
        return self._ui_events

    def notes(self) -> list[Problem]:
        return self._notes

    def _unpaired(self) -> str | None:
        """Why the UI file's counts are not the rounds' usage, to be said at each history (empty where no history was
        read); None when the pairing is certain."""
        if not self._tasks:
            return ""
        if not self._ui_files:
            return NO_USAGE
        if len(self._tasks) > 1 or self._ui_files > 1:
            return (f"{plural(len(self._tasks), 'task history', 'task histories')} and "
                    f"{plural(self._ui_files, 'UI file')} were uploaded together: which counts belong to which task "
                    "is not certain, so no round's usage is read from them. Upload one task's two files at a time.")
        task = self._tasks[0]
        rounds, events = len(task.records), len(self._events)
        if rounds != events:
            return (f"ui_messages.json holds {plural(events, 'api_req_started event')} for "
                    f"{plural(rounds, 'response')} in the history (requests retried, cancelled, or made for "
                    "condensing, or turns the history no longer holds): which counts belong to which response is not "
                    "certain, so no round's usage is read from it.")
        for number, ((at, counts, _), record) in enumerate(zip(self._events, task.records), start=1):
            if counts is None or any(k in counts for k in ENDED_BADLY) or _usage(counts) is None:
                return (f"the api_req_started event of request {number} in ui_messages.json holds no complete counts "
                        "(the request failed, was cancelled, or its counts cannot be read as Anthropic's): no "
                        "round's usage is read from the file.")
            before, answered = (task.answered_at[number - 2] if number > 1 else None), task.answered_at[number - 1]
            if not isinstance(at, int) or answered is None or at > answered or (before is not None and at <= before):
                return (f"request {number}'s api_req_started event in ui_messages.json is not timed between the "
                        "response before and its own: which counts belong to which response is not certain, so no "
                        "round's usage is read from the file.")
        return None


AGENT = "Cline / Roo Code"
"""The agent a task history is named after: the two extensions write the same files, which tell neither apart."""
TASK_TAG = re.compile(r"</?task>")
"""The tags the extensions wrap the person's task in, in the first prompt."""


def _task_words(messages: Any) -> str:
    """The first words of the history's first prompt (the person's task, out of its <task> tags), on one line; empty
    where the first turn holds no text."""
    first = messages[0] if isinstance(messages, list) and messages and isinstance(messages[0], dict) else {}
    content = first.get("content") if first.get("role") == "user" else None
    if isinstance(content, list):
        content = next((b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)), None)
    if not isinstance(content, str):
        return ""
    task = TASK_TAG.split(content)[1] if content.lstrip().startswith("<task>") else content
    return shorten(task.strip().lstrip("#").strip(), 60)


def _history(messages: list, line: int, key: str) -> _Task:
    """The history's rounds, each assistant turn one, its request the turns before it that were still sent."""
    if not isinstance(messages, list):
        raise LineProblem(f"'messages' is {describe(messages)}, expected the history's list of turns")
    for at, message in enumerate(messages):
        if not isinstance(message, dict):
            raise LineProblem(f"messages[{at}] is {describe(message)}, expected a user or assistant turn")
        if message.get("role") not in ROLES:
            raise LineProblem(f"messages[{at}]'s 'role' is neither 'user' nor 'assistant': a history holds no other")
    turns = [_turn(message, at) for at, message in enumerate(messages)]
    in_text = not any(isinstance(b, dict) and b.get("type") == "tool_use" for t in turns
                      if isinstance(t["content"], list) for b in t["content"]) and _read_xml_calls(turns)
    hidden_by: dict[str, list[int]] = {}
    for at, message in enumerate(messages):
        for parent in ("condenseParent", "truncationParent"):
            if isinstance(message.get(parent), str):
                hidden_by.setdefault(message[parent], []).append(at)
    task = _Task(line, key, [], [])
    hidden: set[int] = set()
    for at, message in enumerate(messages):
        marker = message.get("condenseId") if message.get("isSummary") is True else (
            message.get("truncationId") if message.get("isTruncationMarker") is True else None)
        if isinstance(marker, str):
            hidden.update(hidden_by.get(marker, ()))
        if message.get("isSummary") is True:
            task.notes.append(Problem(line, f"turn {at + 1} of the history is Roo Code's summary of the conversation "
                                            "before it, written by a separate call whose request the file does not "
                                            "hold: no round, and the requests after it start from it",
                                      conversation=key, loaded=True))
            continue
        if message["role"] != "assistant":
            continue
        request = [turns[i] for i in range(at) if i not in hidden]
        task.records.append(_round(request, turns[at], message, line, key, in_text))
        task.answered_at.append(_ms(message.get("ts")))
    if not task.records:
        raise LineProblem("the history holds no assistant turn, so there is no round")
    return task


def _turn(message: dict, at: int) -> dict:
    """A history turn as the Anthropic message it was sent as: its role and content, the extension's keys left out."""
    content = message.get("content")
    where = f"messages[{at}]"
    if isinstance(content, list):
        for i, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise LineProblem(f"{where}.content[{i}] is {describe(block)}, expected a content block with a 'type'")
    elif not isinstance(content, str):
        found = "missing" if "content" not in message else describe(content)
        raise LineProblem(f"{where}.content is {found}, expected a string or a list of content blocks")
    return {"role": message["role"], "content": content}


def _round(request: list[dict], turn: dict, message: dict, line: int, key: str, in_text: bool) -> CallRecord:
    """One assistant turn as a round: its response the turn, its stop read from its blocks (none is recorded);
    `in_text`: the history's calls were read out of its text."""
    blocks = turn["content"] if isinstance(turn["content"], list) else [{"type": "text", "text": turn["content"]}]
    called = any(block.get("type") == "tool_use" for block in blocks)
    response: dict = {"type": "message", "role": "assistant", "content": blocks,
                      "stop_reason": "tool_use" if called else "end_turn"}
    model, whence = _model(message), MODEL_IN_TURN
    if model is None:
        model, whence = _environment_model(request), MODEL_IN_ENVIRONMENT
    if model is not None:
        response["model"] = model
    texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
    said = [PROVENANCE["note"], *([whence] if model else []), *([XML_CALLS] if in_text else []),
            *([INTERRUPTED] if texts and INTERRUPTION.search(texts[-1][-400:]) else [])]
    return CallRecord(line=line, dialect=ANTHROPIC, request={"messages": request}, response=response,
                      conversation=key, derived=[TRANSCRIPT_REQUEST, "usage", "finish",
                                                 *([TEXT_CALLS, AGENT_READ_CALLS, MADE_UP_IDS] if in_text else [])],
                      converted_from="cline-task", provenance={**PROVENANCE, "note": " ".join(said)})


def _model(item: dict) -> str | None:
    """The model a history turn or UI event names (`modelInfo.modelId`), or None."""
    model = convert.object_at(item, "modelInfo").get("modelId")
    return model if isinstance(model, str) and model.strip() else None


def _environment_model(request: list[dict]) -> str | None:
    """The model Roo Code named in the environment details closing the request's last turn, a user turn; None where
    that turn has none. Only its own environment-details block counts, and the last one (a resumed task's turn holds
    one per resumption): a `<model>` anywhere else is text the person or a tool wrote."""
    last = request[-1] if request else None
    if last is None or last["role"] != "user" or not isinstance(last["content"], list):
        return None
    details = [b["text"] for b in last["content"] if b.get("type") == "text" and isinstance(b.get("text"), str)
               and b["text"].startswith(ENVIRONMENT)]
    if not details:
        return None
    found = CURRENT_MODE.findall(details[-1].split("</environment_details>", 1)[0])
    return (found[-1].strip() or None) if found else None


def _read_xml_calls(turns: list[dict]) -> bool:
    """The calls written as XML in the assistant turns' text made tool_use blocks, and the results the next turn gives
    under their headers made tool_result blocks, in place; whether any call was read."""
    found, waiting = False, []
    for at, turn in enumerate(turns):
        if turn["role"] == "assistant":
            turns[at], waiting = _calls_read(turn, at)
            found = found or bool(waiting)
        elif waiting and isinstance(turn["content"], list):  # the results may come a user turn later (new_task)
            turns[at] = {**turn, "content": _results_read(turn["content"], waiting)}
    return found


def _calls_read(turn: dict, at: int) -> tuple[dict, list[tuple[str, str]]]:
    """The assistant turn with its XML calls as tool_use blocks after its text, and (name, id) of each call."""
    content = turn["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not blocks or any(b.get("type") != "text" or not isinstance(b.get("text"), str) for b in blocks):
        return turn, []
    text = "\n".join(b["text"] for b in blocks)
    written = _elements(text, frozenset(TOOLS))
    calls = [{"type": "tool_use", "id": f"call_{at}_{n}", "name": name,
              "input": {tag: value.strip() for tag, value, _, _ in _elements(body)}}
             for n, (name, body, _, _) in enumerate(written)]
    if not calls:
        return turn, []
    kept, last = [], 0
    for _, _, start, end in written:
        kept.append(text[last:start])
        last = end
    kept = "".join(kept + [text[last:]]).strip()
    return ({**turn, "content": ([{"type": "text", "text": kept}] if kept else []) + calls},
            [(c["name"], c["id"]) for c in calls])


def _elements(text: str, names: frozenset[str] | None = None) -> list[tuple[str, str, int, int]]:
    """The outermost XML elements of the text, of the tags `names` (any tag when None), each closed: (tag, what is
    inside, where it starts, where it ends). A tag left open is text, as the extensions leave a call cut off. Each tag
    is found once, and each closing tag by bisection, so no text makes this slow (a regular expression with a
    backreference scans to the end for every open tag)."""
    tags = [(m.start(), m.end(), m.group(2), m.group(1) == "/") for m in TAG.finditer(text)
            if names is None or m.group(2) in names]
    closing: dict[str, list[int]] = {}
    for position, (_, _, tag, closes) in enumerate(tags):
        if closes:
            closing.setdefault(tag, []).append(position)
    found, position = [], 0
    while position < len(tags):
        start, end, tag, closes = tags[position]
        after = closing.get(tag, [])
        nearest = bisect.bisect_right(after, position)
        if closes or nearest == len(after):
            position += 1
            continue
        close = tags[after[nearest]]
        found.append((tag, text[end:close[0]], start, close[1]))
        position = after[nearest] + 1
    return found


def _results_read(blocks: list, waiting: list[tuple[str, str]]) -> list:
    """The user turn's blocks with each result of a waiting call (its header naming the call's tool, in the calls'
    order) as one tool_result block of what follows the header, up to the next header or the editor's state."""
    out: list = []
    result: list | None = None
    for block in blocks:
        text = block.get("text") if block.get("type") == "text" and isinstance(block.get("text"), str) else None
        header = _header(text) if text is not None else None
        if header and waiting and header[0] == waiting[0][0]:
            id_ = waiting.pop(0)[1]
            result = []
            out.append({"type": "tool_result", "tool_use_id": id_, "content": result})
            if header[1]:
                result.append({"type": "text", "text": header[1]})
            continue
        if result is not None and not header and not (text or "").startswith(ENVIRONMENT):
            result.append(block)
            continue
        result = None
        out.append(block)
    return out


def _header(text: str) -> tuple[str, str] | None:
    """(the tool's name, the result written after the header in the same block) of a block opening a result; None
    for any other block. A header alone in its block ends `] Result:`, whatever lines its description spans."""
    begun = RESULT_HEADER.match(text)
    if begun is None:
        return None
    if text.rstrip().endswith("] Result:"):
        return begun.group(1), ""
    line = RESULT_LINE.match(text)
    return (begun.group(1), text[line.end():].strip()) if line else None


def _counts(text: Any) -> dict | None:
    """An api_req_started event's `text` as the object it holds, or None where it holds none."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _count(counts: dict, key: str) -> int | None:
    """A count of the event: a whole number of tokens, 0 where the event leaves it out; None where it is no count."""
    value = counts.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 \
            or value != int(value):
        return None
    return int(value)


def _usage(counts: dict) -> dict | None:
    """The event's counts as Anthropic's usage, or None where they cannot be read so with certainty.

    Roo Code says how it counted (`apiProtocol`): Anthropic's way, input without the cache; or OpenAI's, the cache
    read and written inside the input. Cline does not say: its counts stand only where no cache was read or written,
    so the two ways agree."""
    if "tokensIn" not in counts or "tokensOut" not in counts:
        return None
    found = {key: _count(counts, key) for key in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads")}
    if any(value is None for value in found.values()):
        return None
    written, read, taken = found["cacheWrites"], found["cacheReads"], found["tokensIn"]
    protocol = counts.get("apiProtocol")
    if protocol == "openai":
        taken -= written + read
    elif protocol != "anthropic" and (written or read):
        return None
    if taken < 0:
        return None
    return {"input_tokens": taken, "output_tokens": found["tokensOut"], "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read}


def _add_usage(task: _Task, events: list[tuple[Any, dict | None, str | None]], reasoned: list[int]) -> None:
    """The paired events' counts as the rounds' usage, each round's time its request's start; a round whose request
    streamed reasoning (`reasoned`: the reasoning events' times) the history does not keep says so. The event's model
    names a round the history names none for, and the extension's own cost is said beside the round."""
    for record, (at, counts, model), answered in zip(task.records, events, task.answered_at):
        thought = bisect.bisect_right(reasoned, at) < bisect.bisect_right(reasoned, answered) and not any(
            block.get("type") in ("thinking", "redacted_thinking") for block in record.response["content"])
        record.response["usage"] = _usage(counts)
        record.derived = [d for d in record.derived if d != "usage"]
        record.timestamp = convert.iso_time(at // 1000, (at % 1000) * 1_000_000)
        named = model is not None and "model" not in record.response
        if named:
            record.response["model"] = model
        spent = _recorded_cost(counts)
        said = " ".join([record.provenance["note"], USAGE_FROM_UI, *([MODEL_ON_EVENT] if named else []),
                         *([recorded_cost_words(spent)] if spent is not None else []), *([THOUGHT] if thought else [])])
        record.provenance = {**record.provenance, "note": said}


def _recorded_cost(counts: dict) -> float | None:
    """The event's `cost`, US dollars as the extension worked them out; None where it is no amount."""
    value = counts.get("cost")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _ms(value: Any) -> int | None:
    """A turn's `ts`, when it is a whole number of milliseconds."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
