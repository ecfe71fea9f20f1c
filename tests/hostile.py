"""A hostile trace: markup, scripts, remote images, links and bidi controls in every string a trace can carry."""

from __future__ import annotations

import json
import re

SCRIPT = "<script>alert('owned')</script>"
IMG = '<img src=x onerror="alert(1)">'
REMOTE = "![pixel](https://tracker.example/p.png)"
LINK = "[click me](https://evil.example/login)"
COLOR = ":red[fake warning] $x^2$"
META = "<meta http-equiv=refresh content='0;url=https://evil.example/meta'>"
ANCHOR = '<a href="https://evil.example/a">open</a>'
BARE = "https://evil.example/bare www.evil.example"
BIDI = "\u202egnp.exe"
"""A right-to-left override: `exe.png` would show as `gnp.exe` reversed, hiding what a name really is."""
HOSTILE = f"{SCRIPT} {IMG} {REMOTE} {LINK} {COLOR} {META} {ANCHOR} {BARE} {BIDI}"
SHOWN = HOSTILE.replace("\u202e", "[U+202E]")
"""How the payload reads on the page and in the exported file: every character as it is, the bidi control written out."""

MARKERS = ("<script", "<img", "<meta", "<a ", "![", "](", "tracker.example", "evil.example", ":red[", "$x^2$", "\u202e")
"""Pieces of the payload; any of them in an element that renders markdown means trace text reached markdown."""


COMMAND = f"run{BIDI}{SCRIPT}{REMOTE}"
"""The name of the command the model writes in its text (`hostile_trace(written=True)`): a bidi control, a script and a
remote image, no space (AutoGPT's result names a command in one word: lib.injected.COMMAND_RESULTS); the control
early, where a label cut short still holds it."""


def hostile_trace(text: str = HOSTILE, written: bool = False) -> bytes:
    """A three-round trace (a call, an answer, a failed call) with `text` in every string field of the native format;
    `written`: four rounds, the third writing a command in its text as AutoGPT does (its JSON `"command"`, named
    COMMAND, its `args` and `"thoughts"` carrying `text`), whose result the failed call's request carries in the
    system role ("Command COMMAND returned: `text`").

    Structural strings the reader needs to tell what a line is (`kind`, `dialect`, the `tool` and
    `assistant` roles, `type: function`) stay as they must be; every other string carries `text`,
    including the ones that should hold a number or a fixed word: an error's HTTP status and an
    execution's approval."""
    name, call_id = f"lookup{IMG}", f"call_{SCRIPT}"
    tool = {"type": "function", "function": {"name": name, "description": text,
                                             "parameters": {"type": "object", "description": text,
                                                            "properties": {"q": {"type": "string", "description": text}}}}}
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps({"q": text})}}
    system = {"role": "system", "content": text}
    user = {"role": "user", "content": text, "name": text}
    asking = {"role": "assistant", "content": text, "tool_calls": [call]}
    result = {"role": "tool", "tool_call_id": call_id, "content": text}
    answer = {"role": "assistant", "content": text}
    stranger = {"role": text, "content": text}
    request = {"model": text, "tools": [tool], "user": text}

    def response(message, finish):
        return {"id": text, "object": "chat.completion", "model": text, "system_fingerprint": text,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    lines = [
        {"kind": "trace", "version": 1, "title": f"Title {text}", "dialect": "openai-chat", "model": text,
         "description": text, "explanation": f"{text}\n\n{text}", "source": text, "metadata": {"note": text}},
        {"kind": "round", "index": 1, "request": {**request, "messages": [system, user]},
         "response": response(asking, "tool_calls"),
         "executions": [{"tool_call_id": call_id, "name": name, "arguments": {"q": text}, "output": text,
                         "ok": False, "duration_ms": 12, "approval": text, "note": text, "overrides": {"q": text}}],
         "latency_ms": 840, "started_at": text, "usage_note": text, "converted_from": text,
         "request_headers": {"anthropic-beta": text},
         # The same request refused three times before it was answered: a body as JSON, one as text, none kept.
         "tries": [{"status": 429, "message": text, "body": {"error": {"message": text, "type": text}},
                    "timestamp": text, "source_line": 1},
                   {"status": 503, "message": text, "body": text, "timestamp": text, "source_line": 2},
                   {"status": 502, "message": text, "body": None, "timestamp": None, "source_line": 3}],
         "notices": [{"by": text, "kind": text, "text": text},
                     {"by": text, "kind": text, "text": text, "after": True}]},
        {"kind": "round", "index": 2, "request": {**request, "messages": [system, user, asking, result]},
         "response": response(answer, text)},
        *_written_round(request, [system, user, asking, result, answer, stranger], response, text, written),
        {"kind": "round", "index": 4 if written else 3,
         "request": {**request, "messages": [system, user, asking, result, answer, stranger,
                                             *(_command_turns(text) if written else [])]},
         "error": {"status": text, "message": text, "body": {"error": {"message": text, "type": text, "code": text}}}},
        {"kind": "annotation", "id": text[:64], "target": "round:1", "labels": ["costly"], "note": text, "author": text[:80],
         "created": text},
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


def _command_turns(text: str) -> list[dict]:
    """The model's turn that writes COMMAND in its text, and the program's message after it with what it returned."""
    said = {"thoughts": {"text": text, "reasoning": text, "plan": text, "criticism": text, "speak": text},
            "command": {"name": COMMAND, "args": {"q": text, "url": "https://tracker.example/p.png"}}}
    return [{"role": "assistant", "content": json.dumps(said, ensure_ascii=False, indent=4)},
            {"role": "system", "content": f"Command {COMMAND} returned: {text}"}]


def _written_round(request: dict, messages: list[dict], response, text: str, written: bool) -> list[dict]:
    """Round 3 of `hostile_trace(written=True)`: its answer writes COMMAND in its text, as AutoGPT's do; none else."""
    if not written:
        return []
    return [{"kind": "round", "index": 3, "request": {**request, "messages": messages},
             "response": response(_command_turns(text)[0], "stop")}]


UNESCAPED = re.compile(r"(?<!\\)(<script|<img|!\[|\]\(https?:|:red\[|\$x)")


def markdown_like(at):
    """The text of every element, label and tooltip of the app that Streamlit renders as markdown."""
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success",
                 "toast"):
        for element in at.get(kind):
            yield element.value
    for node in _nodes(at):
        for field in ("label", "help"):
            value = getattr(node, field, None)
            if not isinstance(value, str):
                value = getattr(getattr(node, "proto", None), field, None)
            if isinstance(value, str) and value:
                yield value
        if getattr(node, "type", None) == "radio":
            yield from node.options  # radio options render markdown; a selectbox's do not


def _nodes(at):
    stack = [at._tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(getattr(node, "children", {}).values())


def markdown_leaks(at) -> list[str]:
    """Markdown-rendered strings of the app that carry a piece of the hostile payload (escaped or not)."""
    return [value for value in markdown_like(at) if any(m in value.replace("\\", "") for m in MARKERS)]
