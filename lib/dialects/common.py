"""What every dialect's reader shares: the interning pools and the helpers for arguments and content.

Each dialect module offers `read_request(body, pools)` and `read_response(body, pools)`;
`lib.logs.native` reads and writes Roundtrip's own trace file on top of them.
"""

from __future__ import annotations

import json
import json.scanner
from dataclasses import dataclass, field
from typing import Any

from lib.intern import Interner, content_key
from lib.text import json_said
from lib.model import JSON, Message, Request, Response, Stop, TextPart, ToolCallPart


@dataclass
class Pools:
    """The interning pools one trace is read with."""

    messages: Interner = field(default_factory=Interner)
    """Distinct messages."""
    tool_lists: Interner = field(default_factory=Interner)
    """Distinct tool lists (a list is usually resent whole)."""
    extended: dict[int, tuple[tuple, tuple]] = field(default_factory=dict)
    """By the id of a request's messages: (those messages, the earlier request's messages they were built by extending,
    intern_messages). That they share all of the earlier ones is then known without walking both again (the rebuild's
    resent prefix); both tuples are held, so no other tuple can take their ids."""


CACHE_BREAKPOINT = "cache_control"
"""Where a message or a content block marks a cache breakpoint (Anthropic's prompt caching, and OpenRouter's in Chat
Completions parts): how far the provider may cache, nothing the model reads. Clients move the mark to the newest
message every round, so an earlier message is resent without it: that is the message resent unchanged."""


def _one_text(blocks: list) -> str | None:
    """The text of a content list that is one plain text block, which both APIs take as that text written as a string;
    else None."""
    if len(blocks) != 1 or not isinstance(block := blocks[0], dict) or not isinstance(block.get("text"), str):
        return None
    return block["text"] if block.get("type") == "text" and len(block) == 2 else None


def read_form(raw: Any) -> Any:
    """A raw message as the model reads it: `raw` itself, or a copy without its cache breakpoints and with a lone plain
    text block written as the string it stands for. Clients that move the breakpoint on often write the message they
    unmark as a string: still the message resent unchanged. Message keys and the matching of a request to its
    conversation use this form."""
    if not isinstance(raw, dict):
        return raw
    content = raw.get("content")
    marked = isinstance(content, list) and any(isinstance(b, dict) and CACHE_BREAKPOINT in b for b in content)
    lone_text = isinstance(content, list) and _one_text(content) is not None
    if not marked and not lone_text and CACHE_BREAKPOINT not in raw:
        return raw
    copy = {k: v for k, v in raw.items() if k != CACHE_BREAKPOINT}
    if isinstance(content, list):
        blocks = [{k: v for k, v in b.items() if k != CACHE_BREAKPOINT} if isinstance(b, dict) else b for b in content]
        text = _one_text(blocks)
        copy["content"] = blocks if text is None else text
    return copy


def message_key(raw: Any, key: str) -> str:
    """Message.key for a raw message whose digest is `key`: the digest of its read form (read_form)."""
    plain = read_form(raw)
    return key if plain is raw else content_key(plain)


def intern_messages(raw_messages: Any, pools: Pools, build, previous: "Request | None", checked: bool = False) -> tuple[tuple, list]:
    """A request's messages, interned. When they start with the previous request's messages, that
    prefix is taken over without keying each message again: one C-level list comparison instead of a
    digest per resent message, which is most of the work on a long conversation.
    (Python's `==` takes 1, 1.0 and true as equal; a resent message changing only that way would be
    missed, a price worth paying for reading logs at the speed of the JSON parser.)
    `checked` says the caller has already compared the prefix. Returns the messages and their
    interned raw objects, as the request's raw body should list them."""
    raws = raw_messages if isinstance(raw_messages, list) else []
    if previous is not None:
        before = previous.raw.get("messages") or []
        if before and len(before) <= len(raws) and (checked or raws[: len(before)] == before):
            added = tuple(pools.messages.get(m, build) for m in raws[len(before):])
            messages = previous.messages + added
            if added:  # else the very tuple before, already listed under its own
                pools.extended[id(messages)] = (messages, previous.messages)
            return messages, before + [m.raw for m in added]
    messages = tuple(pools.messages.get(m, build) for m in raws)
    return messages, [m.raw for m in messages]


def intern_tools(raw_tools: list, pools: Pools, build, previous: "Request | None") -> tuple:
    """(tool definitions, raw list) for a request's tool list, taken over from the previous request when equal."""
    if previous is not None and previous.tools and previous.raw.get("tools") == raw_tools:
        return previous.tools, previous.raw["tools"]
    return pools.tool_lists.get(raw_tools, build)


_SCAN = json.scanner.make_scanner(json.JSONDecoder())
"""The scanner json.loads parses with (the C one where there is one), called directly."""

TOO_DEEP = "nested too deeply to read"
"""Why arguments deeper than the standard library's recursion limit are kept as text only."""


def free_form(call: ToolCallPart) -> bool:
    """Whether a call is a custom tool's (GPT-5's custom tools, Codex's apply_patch): its input is free text that
    stands as its own arguments, where a function call's arguments are JSON read into a value (never text equal to
    the JSON it was read from)."""
    return isinstance(call.arguments, str) and call.arguments_error is None and call.arguments == call.arguments_raw


def parse_arguments(raw: Any) -> tuple[str, Any, str | None]:
    """Arguments as (raw text, parsed value or None, parse error or None); never raises."""
    if not isinstance(raw, str):
        try:
            return json.dumps(raw, ensure_ascii=False), raw, None
        except (RecursionError, ValueError):
            return "", None, TOO_DEEP
    if raw.strip() == "":
        # Several OpenAI-compatible servers send "" for a tool without parameters.
        return raw, {}, None
    try:
        # json.loads's own scanner, without its wrapper (a third of the time on short arguments): the
        # same value when the text is one value with no space around it; anything else goes to json.loads.
        value, end = _SCAN(raw, 0)
        if end == len(raw):
            return raw, value, None
    except (StopIteration, ValueError, RecursionError):
        pass  # json.loads below says what is wrong, as it always did
    try:
        return raw, json.loads(raw), None
    except json.JSONDecodeError as exc:
        return raw, None, f"not valid JSON ({json_said(exc, 'arguments')})"
    except ValueError as exc:
        return raw, None, f"not valid JSON: {exc}"
    except RecursionError:
        return raw, None, TOO_DEEP


def arguments_value(raw: Any) -> Any:
    """Arguments as an execution entry keeps them: their JSON value when they parse, the text as written when not."""
    text, parsed, error = parse_arguments(raw)
    return text if error else parsed


class WrittenNumber(float):
    """A JSON number that remembers how the model wrote it (`3860.00`), so writing it again keeps its digits."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> "WrittenNumber":
        number = super().__new__(cls, text)
        number.text = text
        return number


def loads_as_written(text: str) -> Any:
    """JSON text parsed with every fractional number kept as written (WrittenNumber); raises like json.loads."""
    return json.loads(text, parse_float=WrittenNumber)


def dumps_as_written(value: Any, indent: int | None = None, depth: int = 0) -> str:
    """JSON text of a value, with each WrittenNumber in the digits it was written with (json.dumps would
    write 3860.00 as 3860.0)."""
    if isinstance(value, WrittenNumber):
        return value.text
    if isinstance(value, dict):
        items = [f"{json.dumps(str(k), ensure_ascii=False)}: {dumps_as_written(v, indent, depth + 1)}"
                 for k, v in value.items()]
        return _joined(items, "{}", indent, depth)
    if isinstance(value, (list, tuple)):
        return _joined([dumps_as_written(v, indent, depth + 1) for v in value], "[]", indent, depth)
    return json.dumps(value, ensure_ascii=False)


def _joined(items: list[str], brackets: str, indent: int | None, depth: int) -> str:
    if not items or indent is None:
        return brackets[0] + ", ".join(items) + brackets[1]
    pad = "\n" + " " * (indent * (depth + 1))
    return brackets[0] + pad + ("," + pad).join(items) + "\n" + " " * (indent * depth) + brackets[1]


def flatten_content(content: Any) -> str:
    """Message or tool-result content as plain text; non-text blocks become a short marker."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                pieces.append(block["text"])
            elif isinstance(block, dict):
                pieces.append(f"[{block.get('type', 'block')}]")
            else:
                pieces.append(str(block))
        return "\n".join(pieces)
    return json.dumps(content, ensure_ascii=False)


# --- what every dialect's writer shares --------------------------------------------------------

EMPTY_SCHEMA: JSON = {"type": "object", "properties": {}}
"""The arguments schema of a tool that takes none: Anthropic requires `input_schema`."""
SHARED_SETTINGS = ("model", "temperature", "top_p", "stream")
"""Request settings both dialects spell the same way."""


def texts_of(message: Message) -> list[str]:
    """The message's texts, in order."""
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def others(message: Message, where: str, keep: bool, notes: list[str], target: str) -> list:
    """The raw parts the model keeps as they were, when `keep`; otherwise a note for each in `notes`."""
    found = [p for p in message.parts if p.kind == "other"]
    if not keep:
        notes.extend(f"{at(where, p.path)}: a {p.type} part has no {target} form; left out" for p in found)
        return []
    return [p.raw for p in found]


def at(where: str, path: str) -> str:
    """A part's path inside the body: where its message sits, then where the part sits in it."""
    return f"{where}.{path}" if path else where


def envelope(response: Response) -> tuple[dict, dict]:
    """The response's raw body, and a new body holding its id, the one envelope field both dialects have."""
    raw = response.raw if isinstance(response.raw, dict) else {}
    return raw, ({"id": raw["id"]} if "id" in raw else {})


def finish(response: Response, table: dict[Stop, str], notes: list[str]) -> str:
    """The response's stop written through a dialect's table; a note when it had to be made up."""
    stop: Stop = response.stop or ("tool_calls" if response.message.tool_calls else "end")
    written = table[stop]
    if response.finish_reason is None:
        notes.append(f"the source recorded no stop signal; {written!r} is written from the message")
    elif stop == "other":
        notes.append(f"the stop signal {response.finish_reason!r} has no equivalent; written as {written!r}")
    return written


def unmapped(raw: dict, known: set[str], target: str, prefix: str = "") -> list[str]:
    """A note for every field with a value that the target dialect has no place for (empty ones say nothing)."""
    return [f"{prefix}{key}: has no {target} form; left out" for key, value in raw.items()
            if key not in known and value not in (None, "", [], {})]


