"""Trace content is untrusted: markup in a trace comes out as text, never as HTML or a remote image."""

import json
import re

from lib.text import md_escape

SCRIPT = "<script>alert('owned')</script>"
IMG = '<img src=x onerror="alert(1)">'
REMOTE = "![pixel](https://tracker.example/p.png)"
LINK = "[click me](https://evil.example/login)"
COLOR = ":red[fake warning] $x^2$"
HOSTILE = f"{SCRIPT} {IMG} {REMOTE} {LINK} {COLOR}"


def _hostile_trace() -> bytes:
    tool = {"type": "function", "function": {"name": f"lookup{IMG}", "description": HOSTILE,
                                             "parameters": {"type": "object", "description": REMOTE}}}
    call = {"id": f"call_{SCRIPT}", "type": "function", "function": {"name": f"lookup{IMG}", "arguments": json.dumps({"q": HOSTILE})}}
    assistant = {"role": "assistant", "content": HOSTILE, "tool_calls": [call]}
    user = {"role": "user", "content": HOSTILE}
    result = {"role": "tool", "tool_call_id": f"call_{SCRIPT}", "content": HOSTILE}
    lines = [
        {"kind": "trace", "version": 1, "title": f"Title {SCRIPT} {REMOTE}", "dialect": "openai-chat",
         "model": IMG, "description": HOSTILE},
        {"kind": "round", "index": 1, "request": {"model": IMG, "messages": [user], "tools": [tool]},
         "response": {"model": IMG, "choices": [{"message": assistant, "finish_reason": "tool_calls"}]},
         "executions": [{"tool_call_id": f"call_{SCRIPT}", "name": f"lookup{IMG}", "arguments": {"q": HOSTILE},
                         "output": HOSTILE, "note": HOSTILE}]},
        {"kind": "round", "index": 2, "request": {"model": IMG, "messages": [user, assistant, result], "tools": [tool]},
         "response": {"model": IMG, "choices": [{"message": {"role": "assistant", "content": HOSTILE}, "finish_reason": "stop"}]}},
    ]
    return "\n".join(json.dumps(line) for line in lines).encode()


UNESCAPED = re.compile(r"(?<!\\)(<script|<img|!\[|\]\(https?:|:red\[|\$x)")


def _markdown_like(at):
    """Every element whose text Streamlit renders as markdown."""
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success"):
        for element in at.get(kind):
            yield element.value
    for element in at.get("expander"):
        yield element.label
    for element in at.get("metric"):
        yield element.label


def _render_both_rounds(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hostile.jsonl", _hostile_trace()).run()
    assert not at.exception
    yield at
    at.button(key="explorer.next").click().run()
    assert not at.exception
    yield at


def test_hostile_markup_is_never_handed_to_markdown_unescaped(app):
    for at in _render_both_rounds(app):
        for value in _markdown_like(at):
            assert not UNESCAPED.search(value), value


def test_hostile_markup_is_shown_literally_as_text(app):
    for at in _render_both_rounds(app):
        literal = [e.value for e in at.get("text")] + [e.value for e in at.get("code")]
        assert any(HOSTILE in value for value in literal)
        assert any(SCRIPT in value for value in literal)


def test_md_escape_neutralizes_markdown_and_html():
    escaped = md_escape(HOSTILE)
    assert not UNESCAPED.search(escaped)
    assert escaped.replace("\\", "") == HOSTILE
