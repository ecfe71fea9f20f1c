"""A hostile trace: markup, scripts and remote images in every string a trace can carry."""

from __future__ import annotations

import json
import re

SCRIPT = "<script>alert('owned')</script>"
IMG = '<img src=x onerror="alert(1)">'
REMOTE = "![pixel](https://tracker.example/p.png)"
LINK = "[click me](https://evil.example/login)"
COLOR = ":red[fake warning] $x^2$"
HOSTILE = f"{SCRIPT} {IMG} {REMOTE} {LINK} {COLOR}"


def hostile_trace(text: str = HOSTILE) -> bytes:
    """A two-round trace whose title, tool, call, arguments, result, execution and answer all carry `text`."""
    tool = {"type": "function", "function": {"name": f"lookup{IMG}", "description": text,
                                             "parameters": {"type": "object", "description": REMOTE}}}
    call = {"id": f"call_{SCRIPT}", "type": "function", "function": {"name": f"lookup{IMG}", "arguments": json.dumps({"q": text})}}
    assistant = {"role": "assistant", "content": text, "tool_calls": [call]}
    user = {"role": "user", "content": text}
    result = {"role": "tool", "tool_call_id": f"call_{SCRIPT}", "content": text}
    lines = [
        {"kind": "trace", "version": 1, "title": f"Title {SCRIPT} {REMOTE}", "dialect": "openai-chat",
         "model": IMG, "description": text},
        {"kind": "round", "index": 1, "request": {"model": IMG, "messages": [user], "tools": [tool]},
         "response": {"model": IMG, "choices": [{"message": assistant, "finish_reason": "tool_calls"}]},
         "executions": [{"tool_call_id": f"call_{SCRIPT}", "name": f"lookup{IMG}", "arguments": {"q": text},
                         "output": text, "note": text}]},
        {"kind": "round", "index": 2, "request": {"model": IMG, "messages": [user, assistant, result], "tools": [tool]},
         "response": {"model": IMG, "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}},
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


UNESCAPED = re.compile(r"(?<!\\)(<script|<img|!\[|\]\(https?:|:red\[|\$x)")


def markdown_like(at):
    """Every element whose text Streamlit renders as markdown."""
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success"):
        for element in at.get(kind):
            yield element.value
    for element in at.get("expander"):
        yield element.label
    for element in at.get("metric"):
        yield element.label
