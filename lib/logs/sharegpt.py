"""ShareGPT and Hermes-style function-calling transcripts: one conversation per line, calls written as text.

ShareGPT lines hold `conversations: [{"from", "value"}]` (`system`, `human`, `gpt`, and for tools
`function_call` / `observation` as in Glaive and LLaMA-Factory, or `tool`); Hermes-style
transcripts write each call as `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` inside
the assistant's text and each result as `<tool_response>...</tool_response>` in a `tool` turn
(Llama 3.1 calls that turn `ipython`). The same text conventions in a `messages` list of
role/content are read too. Tools come from a `tools` field or the system prompt's `<tools>`.

Like a fine-tuning line, each assistant turn is one round's response and what comes before it
that round's request; a turn that called tools ends its round even when another assistant turn
follows with no result between (hermes-agent trajectories that kept no results). Calls are parsed
out of text and carry no ids: every record says so in `derived` (`tool calls` parsed from text,
`call ids` made up and paired by order), except that a `<tool_response>` recording the call's
`tool_call_id` (as hermes-agent writes them) gives the call it answers that id. A top-level `model`
is the model the transcript ran with.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from lib.logs import chat_shape as convert
from lib.logs.record import CallRecord, LineProblem, LogFormat
from lib.logs.provider_pairs import CallIds
from lib.model import TOOLS_IN_PROMPT, TRANSCRIPT_REQUEST

ROLES = {"system": "system", "human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
         "model": "assistant", "function_call": "assistant", "tool": "tool", "observation": "tool",
         "function": "tool", "ipython": "tool", "function_response": "tool", "tool_response": "tool"}
"""ShareGPT `from` values (and role spellings) as Chat Completions roles."""

CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
"""A Hermes-style call written in the assistant's text."""

RESPONSE = re.compile(r"<tool_response>\s*(.*?)\s*</tool_response>", re.DOTALL)
"""A Hermes-style result written in a tool turn's text."""

TOOLS = re.compile(r"<tools>\s*(.*?)\s*</tools>", re.DOTALL)
"""The tool list a Hermes system prompt carries."""

TEXT_CALLS = "tool calls"
"""The `derived` entry saying the calls were parsed out of text."""


def _turns_of(obj: dict) -> tuple[list, str, str] | None:
    """(the turns, the role key, the text key) of a transcript line, or None."""
    if isinstance(obj.get("conversations"), list):
        return obj["conversations"], "from", "value"
    if isinstance(obj.get("messages"), list) and "model" not in obj:
        return obj["messages"], "role", "content"
    return None


class ShareGPTFormat(LogFormat):
    """ShareGPT / Hermes function-calling transcripts, split into one round per assistant turn."""

    name = "sharegpt"
    title = "ShareGPT / Hermes transcript"
    reads = ("'conversations' of 'from'/'value' turns, or 'messages' whose assistant text holds"
             " '<tool_call>' (or an 'ipython' turn)")

    def detect(self, obj: dict) -> str | None:
        found = _turns_of(obj)
        if found is None:
            return None
        turns, role_key, text_key = found
        if role_key == "from":
            if turns and all(isinstance(t, dict) and "from" in t for t in turns[:1]):
                return "'conversations' of from/value turns (ShareGPT)"
            return None
        # A role/content line is a fine-tuning line unless it writes its calls as text.
        for turn in turns:
            if not isinstance(turn, dict):
                continue
            content = turn.get("content")
            if turn.get("role") == "ipython" or (turn.get("role") == "assistant" and isinstance(content, str) and "<tool_call>" in content):
                return "'messages' with <tool_call> text in an assistant turn (Hermes-style)"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        turns, role_key, text_key = _turns_of(obj) or ([], "from", "value")
        ids, unnamed = CallIds(), {}
        messages = [m for position, turn in enumerate(turns)
                    for m in _messages(turn, position, role_key, text_key, ids, unnamed)]
        if not any(m["role"] == "assistant" for m in messages):
            raise LineProblem("the transcript has no assistant turn, so there is no round to split off")
        tools, in_prompt = _tools(obj, messages)
        # Agent trajectories (hermes-agent) name the model the run used beside the turns.
        model = {"model": obj["model"]} if isinstance(obj.get("model"), str) and obj["model"] else {}
        parameters = {"tools": tools} if tools else {}
        derived = [TRANSCRIPT_REQUEST, "usage", "finish", TEXT_CALLS, *ids.derived(),
                   *([TOOLS_IN_PROMPT] if in_prompt else [])]
        for position, message in enumerate(messages):
            if message["role"] != "assistant" or _continued(messages, position):
                continue
            yield CallRecord(
                line=line, dialect="openai-chat", request={**model, "messages": messages[:position], **parameters},
                response=convert.chat_completion(message, "tool_calls" if message.get("tool_calls") else "stop"),
                conversation=f"line {line}", derived=list(derived), converted_from=self.name,
            )


def _continued(messages: list[dict], position: int) -> bool:
    """Whether the assistant turn at `position` runs on into the next one, so both are one answer.

    A turn that asked for tools ended its answer (the program ran them) even when the transcript
    kept no result before the next assistant turn: that turn is a model call of its own."""
    following = messages[position + 1] if position + 1 < len(messages) else None
    return following is not None and following["role"] == "assistant" and not messages[position].get("tool_calls")


def _messages(turn: Any, position: int, role_key: str, text_key: str, ids: CallIds, unnamed: dict[str, dict]) -> list[dict]:
    """One transcript turn as Chat Completions messages (a tool turn may hold several results);
    `unnamed` holds each call by the id made up for it, until a result names its real one."""
    where = f"{'conversations' if role_key == 'from' else 'messages'}[{position}]"
    if not isinstance(turn, dict):
        raise LineProblem(f"{where} is {convert.describe(turn)}, expected a turn object")
    role = convert.require(turn, role_key, str, f"{where} ")
    text = turn.get(text_key)
    text = text if isinstance(text, str) else convert.json_text(text if text is not None else "")
    kind = ROLES.get(role, role)
    if kind == "assistant":
        ids.model_turn()
        message = _assistant(text, role == "function_call", position, ids)
        unnamed.update((call["id"], call) for call in message.get("tool_calls", ()))
        return [message]
    if kind == "tool":
        return [{"role": "tool", "tool_call_id": _answered(ids.result(None, name), recorded, unnamed), "content": content}
                for name, content, recorded in _results(text, turn.get("name"))]
    return [{"role": kind, "content": text}]


def _assistant(text: str, whole_call: bool, position: int, ids: CallIds) -> dict:
    """An assistant turn with its `<tool_call>` blocks (or, for `function_call` turns, its whole text) as calls."""
    written = [text] if whole_call else CALL.findall(text)
    calls, kept = [], CALL.sub("", text).strip() if not whole_call else ""
    for body in written:
        call = _json(body)
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            # Not a call we can read: it stays in the text, where the checks can see it.
            kept = text if whole_call else kept
            continue
        calls.append(convert.tool_call(ids.call(None, call["name"], position, len(calls)), call["name"],
                                       call.get("arguments", call.get("parameters", {}))))
    message: dict = {"role": "assistant", "content": kept or (None if calls else "")}
    if calls:
        message["tool_calls"] = calls
    return message


def _answered(paired: str, recorded: str | None, unnamed: dict[str, dict]) -> str:
    """The id of the call a result answers: the one the result records (hermes-agent writes the
    call's real id only there), given to the call it pairs with by order; else the paired id."""
    call = unnamed.pop(paired, None)
    if recorded is None or call is None:
        return paired
    call["id"] = recorded
    return recorded


def _results(text: str, name: Any) -> list[tuple[str | None, str, str | None]]:
    """(tool name, content, the call id it records) of each result a tool turn holds: its
    `<tool_response>` blocks, or its whole text."""
    blocks = RESPONSE.findall(text) or [text]
    found = []
    for block in blocks:
        value = _json(block)
        if isinstance(value, dict) and isinstance(value.get("name"), str) and "content" in value:
            recorded = value.get("tool_call_id")
            found.append((value["name"], convert.json_text(value["content"]),
                          recorded if isinstance(recorded, str) and recorded else None))
        else:
            found.append((name if isinstance(name, str) else None, block, None))
    return found


def _tools(obj: dict, messages: list[dict]) -> tuple[list[dict], bool]:
    """The tool list: the line's `tools` (a list, or a list as JSON text), else the system prompt's `<tools>`; and
    whether it was read out of the system prompt."""
    tools = obj.get("tools")
    if isinstance(tools, str):
        tools = _json(tools)
    in_prompt = not isinstance(tools, list)
    if in_prompt:
        system = next((m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str)), "")
        # The prompt may name the tags before it fills them: the first block that parses is the list.
        tools = next((found for found in map(_json, TOOLS.findall(system)) if isinstance(found, list)), None)
    if not isinstance(tools, list):
        return [], False
    return [t if isinstance(t, dict) and isinstance(t.get("function"), dict)
            else convert.function_tool(t.get("name"), t.get("description"), t.get("parameters"))
            for t in tools if isinstance(t, dict)], in_prompt


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
