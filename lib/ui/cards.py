"""Cards for one round: the request, the response, and the program's lane between them.

Every string taken from a trace goes to st.text (lib/ui/plain), st.code, st.json or st.dataframe;
markdown here holds only our own words and numbers. Nothing from a trace becomes markup.

Payloads are monospace text by default and highlighted (st.code: colours, a copy button) once asked for: st.code
loads the 1.56 MB syntax highlighter, which on a long trace's first load cost the browser a second of blocked main
thread before anything else could be read.
"""

from __future__ import annotations

import difflib
import itertools
import json
from typing import Callable, Union

import pandas as pd
import streamlit as st

from lib.annotations import NoteMark
from lib.growth import (CHANGED_WORDS, HELD_UNDER, REFERENCE_PART, REFERENCE_WORDS, RESENT_WORDS, Growth, MessageEntry,
                        Status, against_words, left_out_words,
                        answer_left_out, changed_words, held_apart, matched_words, origin_words, places_words,
                        referred_words, system_words)
from lib.summary import (log_ends_words, stop_inferred, stop_unrecorded_words, tool_list_always_sent, tool_list_missing,
                         tool_list_never_logged)
from lib.model import HEADERS_NAME, HEADERS_SAID, NO_HEADERS, Execution, Message, Round, headers_text, summary_in_clear
from lib.money import MONEY_TITLE, MONEY_WHY, worked_money
from lib.provenance import ANSWER_NOT_CAPTURED, notice_heading
from lib.checks import Finding
from lib.failures import EMPTY_BODY, NO_RESPONSE, PART_CAME_BACK, TRIES_KEPT, failure_heading, is_replay_miss, \
    odd_status, round_tries, sent_again, sent_again_words, tries_listed, undecoded_words, wordless
from lib.steps import STEP_COLORS, STEP_MARKS, StepLabel, execution_outcome, join_path, lost_between_words
from lib.tokens import OUTPUT_SCHEMA_SAID
from lib.text import as_code, milliseconds, plural, show_controls, summarize_message
from lib.ui import plain, state
from lib.ui.plain import clip

Mark = Union[StepLabel, Finding, NoteMark]
"""Something pinned to a JSON path of the round: a step label, a check's finding or a person's note."""
Pointer = Callable[[str], None]
"""Draws, on a card, a way to point a note at what the card shows, given its path in the round
(`request.messages[3]`); the Annotate page passes one, every other page none."""

SEVERITY_LOOK = {"error": (":material/error:", "red"), "warning": (":material/warning:", "orange"),
                 "info": (":material/info:", "gray")}
"""Icon and badge color per finding severity."""

RESENT_ROWS = 300
"""Resent messages listed in the collapsed table; a long trace's full history stays in Raw JSON."""
RESENT_OPEN = "cards.resent_open"
"""Session key: the table of resent messages is open."""
HELD_OPEN = "cards.held_open"
"""Session key: the table of messages the provider held is open."""
TOOLS_OPEN = "cards.tools_open"
"""Session key: the tool definitions are open."""
HELD_WHY = (f"The provider keeps these from the earlier response ({HELD_UNDER}): the model reads them again, and "
            "they are billed, but the program did not send them. Shown reconstructed from earlier rounds.")
"""Said inside the table of messages the provider held."""
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function", "unknown"})
"""The roles the dialects define: one of these is our own word and may sit in markdown; any other is shown as text."""


HIGHLIGHT_LABEL = "Colour and copy"
"""The toggle that shows payloads highlighted."""
PAYLOAD_CSS = """<style>
/* Payloads as plain monospace text in a code block's box. A fixed rule of our own: no trace text. */
[class*="st-key-payload-"] [data-testid="stText"] { background: rgba(151, 166, 195, 0.15); border-radius: 0.5rem;
  padding: 0.6rem 0.9rem; }
/* The system's monospace, as the round navigator's: no font file to fetch on a first load. */
[class*="st-key-payload-"] [data-testid="stText"] > span { font-family: monospace;
  font-size: 0.875rem; line-height: 1.5; white-space: pre-wrap; overflow-wrap: anywhere; }
</style>"""
"""How a payload looks when it is not highlighted."""
_PAYLOADS = itertools.count()
"""Numbers the payloads' containers: their keys, which the look above finds, must differ on a page."""


def highlighted() -> bool:
    """Whether payloads are drawn by st.code: when asked for, and always in presenter mode (the slides' look)."""
    return bool(st.session_state.get(state.HIGHLIGHT) or st.session_state.get(state.PRESENTER))


def payload_look() -> None:
    """The toggle between plain and highlighted payloads, and the plain look's style."""
    st.toggle(HIGHLIGHT_LABEL, key=state.HIGHLIGHT, persist_state="session",
              help="Payloads are shown as plain monospace text. Turn this on for JSON in colour and a copy button "
                   "on each block (the page then loads the highlighter's code, 1.5 MB, once).")
    if not highlighted():
        st.html(PAYLOAD_CSS)


def payload(text: str, language: str | None, where=st) -> None:
    """Text from a trace as sent: highlighted in a code block when asked for, else monospace plain text."""
    if highlighted():
        where.code(text, language=language, wrap_lines=True)
        return
    with where.container(key=f"payload-{next(_PAYLOADS)}"):
        st.text(text, width="stretch")


def code_block(value, where=st) -> None:
    """A value in a code block: strings exactly as sent, clipped only when huge."""
    text, language = as_code(value)
    payload(clip(show_controls(text)) or "(empty)", language, where)


def step_badge(label: StepLabel) -> None:
    """A step's number and name pinned above the region it labels, with the region's JSON path."""
    st.markdown(f":{STEP_COLORS[label.step].name}-background[**{STEP_MARKS[label.step]} Step {label.step} · {label.title}**]")
    plain.text(f"{label.detail} · {label.path}" if label.path else label.detail)


def finding_badge(finding: Finding) -> None:
    """A check's finding pinned above the part it is about."""
    icon, color = SEVERITY_LOOK[finding.severity]
    st.markdown(f":{color}-badge[{icon} {finding.code}]")
    plain.text(finding.message)


def note_badge(mark: NoteMark) -> None:
    """A person's note pinned above the part it is about; its text, untrusted, as plain text."""
    note = mark.note
    st.markdown(":blue-badge[:material/edit_note: note]")
    plain.text(" · ".join([note.author, *note.labels]))
    if note.text:
        plain.text(note.text)


def _badges_at(marks: list[Mark], path: str, steps: bool = True) -> None:
    for mark in marks:
        if mark.path != path:
            continue
        if isinstance(mark, StepLabel):
            if steps:
                step_badge(mark)
        elif isinstance(mark, NoteMark):
            note_badge(mark)
        else:
            finding_badge(mark)


COMPACTION_PART = "compaction"
"""The part type of the Responses API's compacted history (lib.logs.responses.COMPACTION_ITEM)."""
COMPACTION_PART_WORDS = ("The compacted history the provider returned: an encrypted item the provider wrote, not words "
                         "of the model's; what it holds cannot be read here. Shown as the payload holds it.")
"""What a compaction part is, said above its payload."""
SUMMARY_PART_WORDS = ("The summary of the earlier turns that the provider had the model write when it compacted the "
                      "history (Anthropic's compaction), in plain text: sent back in a request, it stands in for the "
                      "turns before it, which the provider drops. Shown as the payload holds it.")
"""What a compaction part that holds its summary in the clear is (lib.model.summary_in_clear), said above it."""


def _parts(message: Message, base: str, marks: list[Mark], empty: str = "(no content)",
           referred: tuple[tuple[str, str | None], ...] = ()) -> None:
    for part in message.parts:
        path = join_path(base, part.path)
        _badges_at(marks, path)
        match part.kind:
            case "text":
                plain.text(part.text or "(empty text)")
            case "tool-call":
                plain.text(f"Call {part.name} · id {part.id}")
                code_block(part.arguments_raw)
                if part.arguments_error:
                    st.warning("These arguments cannot be used as sent:", icon=":material/warning:")
                    plain.text(part.arguments_error)
            case "tool-result":
                plain.text(f"Result for call {part.call_id}" + (" · marked as an error" if part.is_error else ""))
                code_block(part.content)
            case _ if getattr(part, "type", None) == COMPACTION_PART:
                # The Responses API's compacted history is the provider's encrypted item; Anthropic's is a summary the
                # model wrote, readable, wherever it is carried.
                plain.text(SUMMARY_PART_WORDS if summary_in_clear(part) is not None else COMPACTION_PART_WORDS)
                code_block(part.raw)
            case _ if getattr(part, "type", None) == REFERENCE_PART:
                plain.text(REFERENCE_WORDS)
                reference(part.raw.get("id") if isinstance(part.raw, dict) else None, referred)
                code_block(part.raw)
            case _:
                # Not "as sent": the payload may be an importer's conversion (an OpenCode export's reasoning written
                # as a thinking block), as the round's provenance says.
                plain.text(f"A {part.type} part, shown as the payload holds it")
                code_block(part.raw)
    if not message.parts:
        st.text(empty)


def reference(item_id, referred: tuple[tuple[str, str | None], ...]) -> None:
    """Under an `item_reference` part: the id it names (the trace's text) and what the trace holds under it."""
    if isinstance(item_id, str) and item_id:
        plain.text(f"It names the id {item_id}.")
    plain.text(referred_words(referred, item_id))


def money_block(round_: Round, execution: Execution) -> None:
    """In the program's lane, beside the execution of a call that hands over two amounts: the Decimal computation a
    program does, quantize then compare (lib.money.worked_money, as the HTML file shows it). The program does the
    arithmetic, never the model."""
    worked = worked_money(round_, execution)
    if worked is not None:
        st.markdown(f":{STEP_COLORS[3].name}-badge[:material/calculate: {MONEY_TITLE}]")
        st.caption(MONEY_WHY)
        payload("\n".join(worked.lines()), "python")


def message_card(entry: MessageEntry, marks: list[Mark], pointer: Pointer | None = None,
                 new_words: str = "new this round") -> None:
    """One new or changed message of a request, with the step marks on its parts."""
    path = f"messages[{entry.index}]"
    with st.container(border=True):
        if pointer:
            pointer(f"request.{path}")
        status = new_words if entry.status == "new" else CHANGED_WORDS
        role = plain.ours(entry.message.role, ROLES)
        st.markdown(f"**{path}**" + (f" · role **{role}**" if role else "") +
                    f" · :{'green' if entry.status == 'new' else 'orange'}-badge[{status}]")
        if role is None:
            plain.text(f"role {entry.message.role}")
        if entry.status == "new":
            said = origin_words(entry)
            st.caption(said[:1].upper() + said[1:] + ".")  # not capitalize(): it would lower "API"
        _badges_at(marks, path)
        _parts(entry.message, path, marks, referred=entry.referred)
        if entry.previous is not None:
            if why := changed_words(entry):
                st.caption(why)
            st.caption("What changed against the copy sent before:")
            payload(show_controls(_diff(entry.previous, entry.message)), "diff")


def _diff(before: Message, after: Message) -> str:
    old = json.dumps(before.raw, ensure_ascii=False, indent=2).splitlines()
    new = json.dumps(after.raw, ensure_ascii=False, indent=2).splitlines()
    return "\n".join(difflib.unified_diff(old, new, "sent before", "sent now", lineterm=""))


def resent_table(held: tuple[MessageEntry, ...], resent: tuple[MessageEntry, ...]) -> None:
    """The resent messages, collapsed into one table: they go out again byte for byte. Those the provider held
    (previous_response_id or a conversation) have a table of their own: the program did not send them."""
    if held:
        _message_table(held, f"{plural(len(held), 'earlier message')} held by the provider ({_where(held)}), not "
                       "sent in this request", HELD_WHY, HELD_OPEN)
    if resent:
        _message_table(resent, f"{plural(len(resent), 'message')} {RESENT_WORDS} ({_where(resent)})",
                       "The model keeps no memory between calls, so the program sends the whole history again.",
                       RESENT_OPEN)


def _where(entries: tuple[MessageEntry, ...]) -> str:
    return places_words([e.index for e in entries])


def _message_table(entries: tuple[MessageEntry, ...], label: str, why: str, key: str) -> None:
    # Sent (and its rows built) only while open: on a long trace it is hundreds of rows on every round switch.
    section = st.expander(label, key=key, on_change="rerun")
    if not section.open:
        return
    with section:
        st.caption(why)
        shown = entries[-RESENT_ROWS:]
        if len(shown) < len(entries):
            st.caption(f"The last {len(shown):,} of them; Raw JSON has every one.")
        rows = [{"path": f"messages[{e.index}]", "role": e.message.role, "content": summarize_message(e.message)}
                for e in shown]
        st.dataframe(plain.cells(pd.DataFrame(rows)), hide_index=True, width="stretch")


def tools_section(round_: Round, marks: list[Mark], pointer: Pointer | None = None,
                  tool_list_recorded: bool = True, secret: bool = False, tool_list_sent: bool = False) -> None:
    """Step 1: the tool list that travels with the request; `tool_list_recorded` False for a log that kept the
    messages but not the tools (RoundSummary.tool_list_recorded), `tool_list_sent` where one was sent all the same
    (RoundSummary.tool_list_sent); `secret` True in predict mode before the learner has predicted."""
    label = next((m for m in marks if isinstance(m, StepLabel) and m.step == 1), None)
    if label is None:
        st.caption("No tools in this request: the model cannot ask for any." if tool_list_recorded
                   else tool_list_missing(tool_list_never_logged(round_), secret,
                                          tool_list_always_sent(round_) or (tool_list_sent and not secret)))
        return
    step_badge(label)
    _badges_at(marks, "tools", steps=False)
    title = "Tool definitions, the same as last round" if label.resent else "Tool definitions: what the model reads"
    field = "functions" if "tools" not in round_.request.raw else "tools"
    # Drawn only while open, as the resent table: a closed section's content is still sent and laid out on every
    # round, three elements a tool on the first screen.
    section = st.expander(title, key=TOOLS_OPEN, on_change="rerun")
    if not section.open:
        return
    with section:
        for i, tool in enumerate(round_.request.tools):
            plain.text(tool.name)
            if pointer:
                pointer(f"request.{field}[{i}]")
            plain.text(tool.description or "(no description)")
            code_block(tool.parameters)


def placement(placed: Growth) -> None:
    """Under the resent messages, what else became of the earlier request's: how many this one left out, and, for a
    request placed by matching, where it resends them and what it put in among them (matched_words). The explorer's
    request and presenter mode's step 1 say it alike."""
    if (left_out := left_out_words(placed)) is not None:
        st.warning(left_out)
    if (matching := matched_words(placed)) is not None:
        st.caption(matching)


def request_not_in_log() -> None:
    """Said in place of a request the log did not keep: nothing about it can be shown, not even its tool list."""
    st.info("The request was not in the log: it recorded only what came back, so what the program sent "
            "(its messages, its tool list) is not known.")


HEADERS_HEADING = f"**{HEADERS_NAME}** ({HEADERS_SAID})"
"""Above the request headers a log kept for a round: the HTML file's words (lib.model.HEADERS_NAME, HEADERS_SAID)."""


def request_headers_block(round_: Round) -> None:
    """The request headers the log kept for the round, as text, marked as request headers; where the log keeps headers
    and this call sent none of them, says so. Nothing for a round of a log that never keeps headers (most formats):
    a line saying so on every round would only crowd the page. The explorer's request and presenter mode's request
    step show it alike, and the HTML file in the same words."""
    headers = round_.request_headers
    if headers is None:
        return
    if not headers:
        st.caption(NO_HEADERS)
        return
    with st.container(border=True):
        st.markdown(HEADERS_HEADING)
        payload(clip(show_controls(headers_text(headers))), "text")


def request_cards(round_: Round, placed: Growth, marks: list[Mark], system_status: Status | None,
                  pointer: Pointer | None = None, tool_list_recorded: bool = True, secret: bool = False,
                  tool_list_sent: bool = False, previous: Round | None = None) -> None:
    """The request side as cards: the system prompt (marked as `system_status`, RoundView.system, says: new, resent or
    changed, as a message is), the messages array, then the tools (see tools_section). `previous`: the round before
    in the conversation, whose answer this request may leave out."""
    if not round_.request_recorded:
        request_not_in_log()
        return
    request_headers_block(round_)
    system = round_.request.system
    if system is not None:
        with st.container(border=True):
            if pointer:
                pointer("request.system")
            words = system_words(system_status, placed.new_words) if system_status else None
            colour = {"new": "green", "changed": "orange"}.get(system_status)
            st.markdown("**system** (a top-level field, outside the messages array)"
                        + (f" · :{colour}-badge[{words}]" if colour else f" · {words}" if words else ""))
            _parts(system, "system", marks)
    if (again := sent_again_words(previous, round_)) is not None:
        st.caption(again)
    held, sent = held_apart(round_, placed.entries)
    against = against_words(round_.index, placed.against)
    if against is not None:
        st.caption(against)
    resent_table(held, tuple(e for e in sent if e.status == "resent"))
    placement(placed)
    if answer_left_out(previous, round_):
        st.warning(f"Round {previous.index}'s answer is not in this request: a new user turn follows round "
                   f"{previous.index}'s messages where the model's turn belongs, so the model does not see what it "
                   "said. The program left the answer out, or asked anew on the same prompt: the log cannot tell "
                   "which.")
    for entry in sent:
        if entry.status != "resent":
            message_card(entry, marks, pointer, placed.new_words)
    tools_section(round_, marks, pointer, tool_list_recorded, secret, tool_list_sent)
    output_schema_section(round_)


def output_schema_section(round_: Round) -> None:
    """The schema the answer must follow (Request.output_schema), where the request sent one: part of the input, as
    the HTML file shows it (lib.tokens.OUTPUT_SCHEMA_SAID)."""
    if round_.request.output_schema is None:
        return
    with st.container(border=True):
        st.caption(OUTPUT_SCHEMA_SAID)
        code_block(round_.request.output_schema)


def response_cards(round_: Round, marks: list[Mark], pointer: Pointer | None = None, stop_said: bool = False) -> None:
    """The response side as cards: the assistant turn, its call intents and the stop signal (its value left to
    the caller when `stop_said`: presenter mode's callout says it)."""
    if round_.error is not None:
        st.error(failure_heading(round_.error))
        if odd_status(round_.error):
            plain.text(round_.error.status)
        if (undecoded := undecoded_words(round_.error)) is not None:  # its message is only the status we wrote
            st.caption(undecoded)
        elif wordless(round_.error):  # so is its message: the provider sent no body
            st.caption(EMPTY_BODY)
        elif not is_replay_miss(round_.error):  # a miss's message is the heading's own sentence
            code_block(round_.error.message)
        if round_.response is None:
            return
        # The failure broke a response off part way (a Claude Code stream): what came before it is shown below.
        st.caption(PART_CAME_BACK)
    response = round_.response
    if response is None:
        st.info(NO_RESPONSE)
        return
    with st.container(border=True):
        if pointer:
            pointer(join_path("response", response.message_path))
        # A compaction call's answer sits in the assistant's place of the body, but no turn of the model's is in it.
        st.markdown("**assistant** · " + ("the provider's compacted history, no turn of the model's"
                                          if round_.compaction else
                                          "the model's turn, and beside it the history the provider compacted during "
                                          "this call" if round_.compacted_in_call else "the model's turn"))
        if response.model:
            plain.text(f"model {response.model}")
        if response.message_path:
            _badges_at(marks, response.message_path)
        _parts(response.message, response.message_path, marks,
               "(no content)" if round_.answer_recorded else ANSWER_NOT_CAPTURED)
    if response.finish_reason_path:
        _badges_at(marks, response.finish_reason_path)
        if stop_inferred(round_):  # the importer wrote it in the body (a transcript's turn): no signal is on record
            plain.text(stop_unrecorded_words(round_))
        elif not stop_said:
            plain.text(f"Stop signal {response.finish_reason_path}: {response.finish_reason}")
    else:
        plain.text(stop_unrecorded_words(round_))


def _nothing_ran(round_: Round, next_round: Round | None) -> str:
    if round_.error is None and next_round is None:
        return "The program ran nothing after this response: the log ends here."
    if round_.error is None:
        # An agent that reads commands out of the text runs them between rounds; no tool call says which.
        return (f"The model called no tool here, so no tool call ran; round {next_round.index} is the program's next "
                "request.")
    # A failed call is often retried: the trace goes on, so only its last round ends it.
    if next_round is None:
        return "The call failed, so the program ran nothing: the log ends here."
    if sent_again(round_, next_round):
        return (f"The call failed, so the program ran nothing; round {next_round.index} sends the same request again "
                "(a retry).")
    return f"The call failed, so the program ran nothing; round {next_round.index} is its next request."


def execution_lane(round_: Round, next_round: Round | None, marks: list[Mark], pointer: Pointer | None = None,
                   across: int = 1, explain: bool = True, carrier: Round | None = None) -> None:
    """Step 3: what the program ran between this response and the next request, `across` executions side by side
    (then each one's arguments above what it returned); `explain` False where the slide's lead says it already.
    `carrier`: the first later round whose request the log kept (growth.kept_after), where results are looked for;
    the next round when not given."""
    lane = [m for m in marks if isinstance(m, StepLabel) and m.step == 3]
    if not lane:
        st.caption(_nothing_ran(round_, next_round))
        notices(round_, after=True)
        return
    if explain:
        st.caption("This lane is invisible to the model. It never sees the handler run, only the result the "
                   "program appends to the next request.")
    _executions(round_, next_round, marks, pointer, across, carrier if carrier is not None else next_round)
    if round_.executions and next_round is None:  # said once for all of them, not under each
        st.caption(log_ends_words(round_))
    for label in lane:
        if not label.path:  # said of a call with no execution: it waits for approval, or the log kept none
            step_badge(label)
    notices(round_, after=True)


def notices(round_: Round, after: bool) -> None:
    """What the writing program showed the person before this round's request, or `after` its response: each
    marked as the program's, never the model's, its words as the log keeps them."""
    for notice in (n for n in round_.notices if n.after == after):
        plain.text(notice_heading(notice))
        plain.text(notice.text)


def _executions(round_: Round, next_round: Round | None, marks: list[Mark], pointer: Pointer | None,
                across: int, carrier: Round | None) -> None:
    appended = {}
    # A request the log did not keep holds no messages: the results are looked for in the first later one it kept.
    carrier = carrier if carrier is not None and carrier.request_recorded else None
    between = lost_between_words(round_.index, carrier.index) if carrier is not None else ""
    if carrier is not None:
        for i, message in enumerate(carrier.request.messages):
            for part in message.tool_results:
                appended.setdefault(part.call_id, join_path(f"messages[{i}]", part.path))
    slots = st.columns(across) if across > 1 and len(round_.executions) > 1 else None
    for i, execution in enumerate(round_.executions):
        with (slots[i % across] if slots else st).container(border=True):
            if pointer:
                pointer(f"executions[{i}]")
            _badges_at(marks, f"executions[{i}]")
            # A declined or refused call never reached a handler: nothing received its arguments.
            declined = not execution.ok and execution.approval == "declined"
            not_run = declined or execution.refused
            st.markdown(":green-badge[ran ok]" if execution.ok else ":orange-badge[declined: not run]" if declined
                        else ":red-badge[refused: not run]" if execution.refused else ":red-badge[failed]")
            facts = [f"{'tool' if not_run else 'handler'} {execution.name}", f"call {execution.tool_call_id}"]
            if execution.duration_ms is not None and not not_run:
                facts.append(f"{milliseconds(execution.duration_ms)} ms")
            if execution.approval:
                facts.append(str(execution.approval))
            plain.text(" · ".join(facts))
            left, right = (st, st) if slots else st.columns(2)
            left.caption("The call's arguments (no handler ran)" if not_run else "Arguments the handler received")
            code_block(execution.arguments, left)
            right.caption("What the program answered instead" if not_run else "What it returned")
            code_block(execution.output, right)
            money_block(round_, execution)
            if execution.note:
                plain.text(execution.note)
            where = appended.get(execution.tool_call_id)
            if where:
                st.caption(f"Appended to round {carrier.index}'s request as {where}{'; ' + between if between else ''}.")
            elif carrier is not None:
                st.caption(f"Round {carrier.index}'s request carries no result for this call"
                           f"{'; ' + between if between else ''}.")
            elif next_round is not None:
                st.caption(f"The log holds no request after round {round_.index}'s: whether the program appended this "
                           "call's result is not known.")


def tries(round_: Round) -> None:
    """What a round says of its request's tries (lib.failures.round_tries), then each failed try a log kept of it
    (lib.failures.tries_listed): its status, when, and the body the provider sent; nothing for a request sent once.
    Shown with the response, in the explorer and on presenter mode's response steps."""
    if (said := round_tries(round_)) is None:
        return
    st.caption(said)  # our words, the statuses checked ints
    listed = tries_listed(round_)
    if not listed:
        return
    # Folded: the round's own answer comes first, not the error bodies before it.
    with st.expander(f"{TRIES_KEPT}: {len(listed)}"):
        for tried in listed:
            st.caption(tried.heading)  # our words, the status checked an int
            if tried.sent is not None:
                plain.text(tried.sent)
            if isinstance(tried.said, (dict, list)):
                plain.payload(tried.said)
            elif tried.said is not None:
                plain.text(tried.said)
