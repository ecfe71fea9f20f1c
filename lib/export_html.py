"""A trace as one self-contained HTML file, and a printable handout: pure string building.

The files work offline and load nothing: the CSS is inline, there is no script at all and no URL
of any kind, and a Content-Security-Policy would refuse a script or a remote load even if one
slipped in. Every string taken from a trace or a note goes through `html.escape`, so markup in a
trace shows as the text it is. No Streamlit here.
"""

from __future__ import annotations

from html import escape
from typing import Iterable

from lib.annotations import Note, round_of
from lib.growth import ORIGIN_WORDS, Growth, MessageEntry, growth
from lib.model import Message, Round, Trace
from lib.overview import RoundSummary
from lib.steps import STEP_HEX, STEP_MARKS, STEP_TITLES, steps_for_round
from lib.text import as_code, plural

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'"
"""The file's own Content-Security-Policy: inline styles, and nothing else at all."""

_STEP_CSS = "\n".join(f".s{n} {{ border-left: 6px solid {color}; }} .s{n} .mark {{ color: {color}; }}"
                      for n, color in STEP_HEX.items())
CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2330; margin: 0 auto;
       max-width: 1200px; padding: 24px; }
h1 { font-size: 1.8em; margin: 0 0 .2em; } h2 { margin: 1.6em 0 .4em; border-bottom: 2px solid #e6e8ef; }
h3 { font-size: 1.05em; margin: 1em 0 .3em; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f7fa; border: 1px solid #e6e8ef;
      border-radius: 4px; padding: 8px; margin: 4px 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
code { font: 13px ui-monospace, Menlo, Consolas, monospace; background: #f0f2f6; padding: 0 3px; border-radius: 3px; }
table { border-collapse: collapse; margin: 8px 0; } td, th { border: 1px solid #dde1ea; padding: 3px 8px; text-align: left; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.msg, .exec, .note { border: 1px solid #dde1ea; border-radius: 6px; padding: 8px 10px; margin: 8px 0; }
.meta { color: #5b6172; font-size: .92em; }
.steps { list-style: none; padding: 0; } .steps li { padding: 3px 8px; margin: 3px 0; background: #fafbfd; }
.mark { font-weight: bold; }
.muted { color: #6b7080; } .error { color: #b00020; }
.predict p { margin: 14px 0; border-bottom: 1px solid #9aa0ad; padding-bottom: 2px; }
@media print {
  body { max-width: none; padding: 0; font-size: 12px; }
  .page { break-after: page; }
  details > summary { list-style: none; }
  .cols { grid-template-columns: 1fr 1fr; }
}
""" + _STEP_CSS

def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def _pre(value) -> str:
    text, _ = as_code(value)
    return f"<pre>{escape(text) if text else '(empty)'}</pre>"


def _parts(message: Message) -> str:
    out = []
    for part in message.parts:
        match part.kind:
            case "text":
                out.append(_pre(part.text) if part.text else "<p class=\"muted\">(empty text)</p>")
            case "tool-call":
                out.append(f"<div>Call <b>{escape(part.name)}</b> · id <code>{escape(part.id)}</code></div>")
                out.append(_pre(part.arguments_raw))
                if part.arguments_error:
                    out.append(f"<p class=\"error\">These arguments are {escape(part.arguments_error)}</p>")
            case "tool-result":
                flag = " · marked as an error" if part.is_error else ""
                out.append(f"<div>Result for call <code>{escape(part.call_id)}</code>{flag}</div>")
                out.append(_pre(part.content))
            case _:
                out.append(f"<div>A {escape(part.type)} part, kept as sent</div>")
                out.append(_pre(part.raw))
    return "".join(out) or "<p class=\"muted\">(no content)</p>"


def _message(entry: MessageEntry) -> str:
    status = "new this round" if entry.status == "new" else "changed since the previous request"
    origin = f" · {ORIGIN_WORDS[entry.origin]}" if entry.status == "new" else ""
    return (f"<div class=\"msg\"><div class=\"meta\"><code>messages[{entry.index}]</code> · role "
            f"<b>{escape(entry.message.role)}</b> · {status}{origin}</div>{_parts(entry.message)}</div>")


def _request(round_: Round, placed: Growth, previous: Round | None) -> str:
    out = []
    system = round_.request.system
    if system is not None and (previous is None or previous.request.system != system):
        out.append(f"<div class=\"msg\"><div class=\"meta\"><b>system</b> (a top-level field, outside the messages "
                   f"array)</div>{_parts(system)}</div>")
    resent = placed.resent
    if resent:
        out.append(f"<p class=\"muted\">{plural(len(resent), 'message')} resent unchanged (messages[{resent[0].index}]"
                   f" to messages[{resent[-1].index}]): each is shown in the round that added it.</p>")
    if placed.dropped:
        out.append(f"<p class=\"error\">{plural(placed.dropped, 'message')} of the previous request missing from this one.</p>")
    out.extend(_message(e) for e in placed.entries if e.status != "resent")
    tools = round_.request.tools
    if tools and (previous is None or previous.request.tools != tools):
        listed = "".join(f"<div><b>{escape(t.name)}</b></div>{_pre(t.description or '(no description)')}"
                         f"<details><summary>arguments schema</summary>{_pre(t.parameters)}</details>" for t in tools)
        out.append(f"<details><summary>{plural(len(tools), 'tool definition')}: what the model reads</summary>{listed}</details>")
    elif tools:
        out.append(f"<p class=\"muted\">The same {plural(len(tools), 'tool')} as the round before.</p>")
    return "".join(out)


def _response(round_: Round) -> str:
    if round_.error is not None:
        status = f"HTTP {round_.error.status}" if round_.error.status else "no HTTP status (connection failed)"
        return f"<p class=\"error\">The call failed: {status}. The provider said:</p>{_pre(round_.error.message)}"
    response = round_.response
    if response is None:
        return "<p class=\"muted\">No response recorded: the call was still in flight.</p>"
    model = f" · model {escape(response.model)}" if response.model else ""
    stop = (f"<p>Stop signal <code>{escape(response.finish_reason_path)}</code>: "
            f"<b>{escape(str(response.finish_reason))}</b></p>") if response.finish_reason_path else ""
    return (f"<div class=\"msg\"><div class=\"meta\"><b>assistant</b> · the model's turn{model}</div>"
            f"{_parts(response.message)}</div>{stop}")


def _executions(round_: Round) -> str:
    if not round_.executions:
        if round_.tool_calls:
            return "<p class=\"muted\">The trace does not say what the program ran.</p>"
        return ""
    out = []
    for execution in round_.executions:
        facts = [f"handler <b>{escape(execution.name)}</b>", f"call <code>{escape(execution.tool_call_id)}</code>",
                 "ok" if execution.ok else "<span class=\"error\">failed</span>"]
        if execution.duration_ms is not None:
            facts.append(f"{execution.duration_ms:g} ms")
        if execution.approval:
            facts.append(escape(execution.approval))
        note = _pre(execution.note) if execution.note else ""
        out.append(f"<div class=\"exec\"><div class=\"meta\">{' · '.join(facts)}</div>"
                   f"<div class=\"cols\"><div>Arguments the handler received{_pre(execution.arguments)}</div>"
                   f"<div>What it returned{_pre(execution.output)}</div></div>{note}</div>")
    return ("<h3>The program's lane (the model never sees it)</h3>" + "".join(out))


def _steps(trace: Trace, index: int, placed: Growth) -> str:
    items = []
    for label in steps_for_round(trace, index, placed):
        where = f" <code>{escape(label.path)}</code>" if label.path else ""
        items.append(f"<li class=\"s{label.step}\"><span class=\"mark\">{STEP_MARKS[label.step]} Step {label.step} · "
                     f"{label.title}</span> {escape(label.detail)}{where}</li>")
    return f"<ol class=\"steps\">{''.join(items)}</ol>" if items else ""


def _tokens(row: RoundSummary | None) -> str:
    if row is None:
        return ""
    usage = row.usage
    if usage.source == "reported":
        return (f"<p class=\"meta\">Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out, as the API "
                "reported them.</p>")
    return (f"<p class=\"meta\">Tokens: ≈ {usage.input_tokens:,} in, ≈ {usage.output_tokens:,} out, estimated "
            f"offline ({escape(str(usage.method))}); the API reported none.</p>")


def _notes(notes: Iterable[Note]) -> str:
    out = []
    for note in notes:
        labels = "".join(f" · <b>{escape(label)}</b>" for label in note.labels)
        text = _pre(note.text) if note.text else ""
        out.append(f"<div class=\"note\"><div class=\"meta\"><code>{escape(note.target)}</code>{labels} · "
                   f"{escape(note.author)} · {escape(note.created)}</div>{text}</div>")
    return "".join(out)


def _overview(trace: Trace, rows: tuple[RoundSummary, ...] | None) -> str:
    head = "<tr><th>round</th><th>messages sent</th><th>tool calls</th><th>finish reason</th>"
    head += "<th>tokens in</th><th>tokens out</th><th>tokens are</th></tr>" if rows else "</tr>"
    body = []
    for round_ in trace.rounds:
        finish = (str(round_.response.finish_reason) if round_.response and round_.response.finish_reason
                  else "error" if round_.error else "")
        cells = [str(round_.index), str(len(round_.request.messages)), str(len(round_.tool_calls)), escape(finish)]
        if rows:
            usage = rows[round_.index - 1].usage
            cells += [f"{usage.input_tokens:,}", f"{usage.output_tokens:,}", usage.source]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table>{head}{''.join(body)}</table>"


def trace_html(trace: Trace, rows: tuple[RoundSummary, ...] | None = None, notes: Iterable[Note] = ()) -> str:
    """The whole trace as one HTML page: every round's steps, request, response, program lane, tokens and notes."""
    by_round: dict[int | None, list[Note]] = {}
    for note in notes:
        by_round.setdefault(round_of(note.target), []).append(note)
    out = [f"<h1>{escape(trace.title)}</h1>"]
    if trace.description:
        out.append(f"<p>{escape(trace.description)}</p>")
    out.append(f"<p class=\"meta\">{plural(len(trace.rounds), 'round')}"
               + (f" · model {escape(trace.model)}" if trace.model else "")
               + ". A model never runs a tool: it writes a request, the program runs the tool, appends the result "
               "and calls the model again, resending the whole conversation every round.</p>")
    out.append("<p>" + " ".join(f"<span class=\"s{n}\" style=\"padding: 0 6px\"><span class=\"mark\">{STEP_MARKS[n]}</span> "
                                f"{t}</span>" for n, t in STEP_TITLES.items()) + "</p>")
    out.append(_overview(trace, rows))
    if by_round.get(None):
        out.append(f"<h2>Notes on the whole trace</h2>{_notes(by_round[None])}")
    for round_ in trace.rounds:
        k = round_.index
        placed = growth(trace, k)
        previous = trace.rounds[k - 2] if k > 1 else None
        sent, new = len(round_.request.messages), len(placed.new)
        out.append(f"<section class=\"round\" id=\"round-{k}\">"
                   f"<h2>Round {k}: the program sends {plural(sent, 'message')}, {new} of them new</h2>")
        out.append(_tokens(rows[k - 1] if rows else None))
        out.append(_steps(trace, k, placed))
        out.append(f"<div class=\"cols\"><div><h3>➡️ Request {k}: program → model</h3>{_request(round_, placed, previous)}</div>"
                   f"<div><h3>⬅️ Response {k}: model → program</h3>{_response(round_)}</div></div>")
        out.append(_executions(round_))
        if by_round.get(k):
            out.append(f"<h3>📝 Notes on this round</h3>{_notes(by_round[k])}")
        out.append("</section>")
    return _page(trace.title, "\n".join(out))


def handout_html(trace: Trace, rounds: Iterable[int] | None = None) -> str:
    """A printable worksheet: one page per round with what the program sends and room to predict; answers last."""
    chosen = list(rounds) if rounds is not None else [r.index for r in trace.rounds]
    out = [f"<h1>{escape(trace.title)}</h1>",
           "<p>One page per round. Read what the program sends, then write down what the model will do before "
           "you turn to the answers at the end.</p>"]
    answers = []
    for k in chosen:
        round_ = trace.rounds[k - 1]
        placed = growth(trace, k)
        previous = trace.rounds[k - 2] if k > 1 else None
        out.append(f"<section class=\"page\"><h2>Round {k}: the program sends {plural(len(round_.request.messages), 'message')}"
                   f" and {plural(len(round_.request.tools), 'tool')}</h2>{_request(round_, placed, previous)}"
                   "<div class=\"predict\"><h3>Your prediction</h3>"
                   "<p>The model will: ☐ call a tool &nbsp; ☐ answer in text</p><p>Which tool:</p>"
                   "<p>With which arguments:</p><p>How many messages will the next request carry?</p></div></section>")
        following = trace.rounds[k] if k < len(trace.rounds) else None
        carried = (f"<p>Request {k + 1} carried {plural(len(following.request.messages), 'message')}.</p>"
                   if following else "<p class=\"muted\">The trace has no next request.</p>")
        answers.append(f"<h3>Round {k}</h3>{_response(round_)}{carried}")
    out.append(f"<section class=\"page\"><h2>Answers</h2>{''.join(answers)}</section>")
    return _page(f"{trace.title}: handout", "\n".join(out))

