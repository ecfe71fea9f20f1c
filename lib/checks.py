"""Pitfall checks: where a tool round trip goes wrong, pinned to the exact part of the payload.

Pure functions over lib.model; no Streamlit, no SDK. Each check is a small function registered
in `CHECKS` under its code; `run_checks(trace)` runs them all and returns the findings by round.

Severities:

- error: the provider rejects the request, or would reject a transcript's history sent as it
  stands (`missing-tool-result`, `orphan-tool-result`, `provider-error`), or the program ran a
  call it should have refused (`unknown-tool`, `invalid-arguments`, `truncated-arguments`).
  Those three call checks drop to warning when the program refused the call (a failed or
  declined execution, or an error result): the model still erred, but the program caught it. A call cut
  short by a recording that ends mid-stream (`truncated-arguments`) is an error only where the log shows
  the program ran it, and a warning otherwise: the log cannot say the program's own stream was cut.
- warning: the loop goes on, but the model is likely misled, or the person gets no finished answer:
  `answer-cut-off` (an answer stopped at the output limit; a call stopped there is `truncated-arguments`'),
  `empty-tool-result`,
  `narration-without-call`, `model-filled-identity`, `history-rewritten`, `too-many-tools`,
  `repeated-call`, `call-sent-twice` (a call and its result sent twice in one request), and a call whose whole turn
  the next request dropped (`missing-tool-result`).
- info: legal and worth knowing: `text-with-tool-calls` (a client must keep that text),
  `tools-changed`, `history-inserted` (new messages put in among a history resent whole and in order: nothing
  rewritten), `declined-call`, `model-filled-value` (an argument no earlier message holds, or one the
  tool definition holds, said so; not in a structured answer given as a call, pydantic-ai's `final_result`,
  Mirascope's formatted output tool),
  `history-rewritten` where a request sends the conversation on to another provider's API (Round.sent_on: its
  format has no place for some of what the model wrote),
  `write-tool-call` (a tool that changes something, where a person's approval belongs), `limit-in-description`
  (a string longer than its description allows in words: the schema passes it, the handler may not), and
  `model-filled-identity` when the execution records that the program replaced the model's value.

It runs past 400 lines because every check is one short function next to the registry that lists
it; a new check is one function and one line, and splitting them would hide that list.
"""

from __future__ import annotations

import datetime
import json
import re
from decimal import Decimal, InvalidOperation
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Iterable, Iterator, Literal, NamedTuple

from jsonschema.validators import validator_for

from lib.failures import (answered_without_turn, failed_tries, is_unsent, no_answer, round_statuses, sent_again,
                          stream_ended_words, tries_said, tries_words, undecoded_words, unrun_in_batch, wordless)
from lib.growth import (answer_left_out, growth, instructions_added, kept_pairs, left_out_count, places_words,
                        realigned, resent_length, resent_prefix)
from lib.intern import canonical_json
from lib.logs.record import Problem
from lib.model import (
    AWAITING,
    Message,
    ProviderError,
    Request,
    Response,
    Round,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    Trace,
)
from lib.dialects import DIALECTS
from lib.narration import narrates_without_call
from lib.steps import cut_off_words, join_path, same_call_renamed
from lib.text import as_sentence, plural, rounds_named, shorten

Severity = Literal["error", "warning", "info"]
"""How bad a finding is."""

Side = Literal["request", "response", "execution", "trace"]
"""Which part of the round a finding's path points into."""

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
"""Most serious first."""
SEVERITY_NAMES: dict[str, str] = {"error": "Errors", "warning": "Warnings", "info": "Worth knowing"}
"""Each severity's heading over its findings, on the Checks page and in the HTML file."""
NONE_FOUND = "No pitfalls found in this trace."
"""The checks' result where they found nothing and the log kept every request."""
NONE_FOUND_IN_LOG = "No pitfalls found in what the log kept."
"""The checks' result where they found nothing in a log that lacked some of what the program sent or held."""

TOO_MANY_TOOLS = 10
"""More tools than this in one request makes a wrong pick noticeably more likely."""

SAME_CALL_LIMIT = 2
"""The same call (tool and arguments) made again after this many rounds sent back its result looks like a loop."""

ID_IN_TEXT = 8
"""The shortest call id looked for in a turn's text: a provider's ids are longer, and a short one ("0") is in
any text by chance."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One pitfall in a trace, pinned to the part of the payload where it shows."""

    code: str
    """The check that found it, e.g. `missing-tool-result`."""
    severity: Severity
    """`error`, `warning` or `info` (see the module docstring)."""
    round: int
    """The 1-based round the offending part belongs to."""
    side: Side
    """Which body `path` points into: the round's request or response, its executions, or the whole trace."""
    path: str
    """JSON path inside that body, as lib.steps writes them (`messages[2].tool_calls[1]`); empty for all of it."""
    message: str
    """What goes wrong and what to do, in plain words."""
    brief: str = ""
    """The finding in one short line, for a projected slide; empty where the message is all there is."""

    @property
    def where(self) -> str:
        """`round 2 request messages[2].tool_calls[1]`: the round, side and path in one line."""
        return " ".join(piece for piece in (f"round {self.round}", self.side, self.path) if piece)


class Hit(NamedTuple):
    """What a check reports; run_checks adds the check's code to make it a Finding."""

    severity: Severity
    round: int
    side: Side
    path: str
    message: str
    brief: str = ""


Check = Callable[[Trace], Iterable[Hit]]
"""A check reads the whole trace and reports what it finds."""

CHECKS: dict[str, Check] = {}
"""Every check, by its code, in the order they run."""


def check(code: str) -> Callable[[Check], Check]:
    """Register a check under its code."""

    def register(function: Check) -> Check:
        CHECKS[code] = function
        return function

    return register


def run_checks(trace: Trace) -> tuple[Finding, ...]:
    """Every finding of every check, by round, the most serious first within a round."""
    found = [Finding(code, *hit) for code, run in CHECKS.items() for hit in run(trace)]
    return tuple(sorted(found, key=lambda f: (f.round, SEVERITIES.index(f.severity))))


EXPLANATION_HEADING = "What happened, what the model saw, and the fix"
"""Over a gallery trace's explanation (explanation_paragraphs), on the Checks page and in the HTML file."""


def explanation_paragraphs(header: dict) -> list[str]:
    """A gallery trace's explanation (header field `explanation`) as paragraphs: what happened, what the model saw,
    the fix; none when the trace has no explanation."""
    text = header.get("explanation")
    if not isinstance(text, str):
        return []
    return [" ".join(paragraph.split()) for paragraph in text.split("\n\n") if paragraph.strip()]


def counts_words(found: Iterable[Finding], unread: str | None = None) -> str:
    """How many findings of each severity, as the Checks page and the HTML file say it; then `unread`
    (unread_requests), where the log lacked requests. For at least one finding: none found is NONE_FOUND."""
    found = tuple(found)
    by = {s: sum(f.severity == s for f in found) for s in SEVERITIES}
    return (f"{plural(by['error'], 'error')}, {plural(by['warning'], 'warning')} and {by['info']} worth knowing. "
            "Each names the round and the JSON path of the part it is about." + (f" {unread}" if unread else ""))


def unread_requests(trace: Trace) -> str | None:
    """Said beside the checks' result: the rounds whose request the log did not keep, so that the checks of what the
    program sent read nothing there; None when the log kept every request."""
    missing = [r.index for r in trace.rounds if not r.request_recorded]
    if not missing:
        return None
    named = "any round" if len(missing) == len(trace.rounds) > 1 else rounds_named(missing)
    return (f"The log kept no request for {named}, so what "
            "the program sent (its messages, its tool list, the results it owed) was not checked.")


def skipped_words(problems: Iterable[Problem], skipped: int | None = None) -> str | None:
    """Said beside the checks' result, on the Checks page and in the HTML file, where the file had parts that could not
    be read (`problems`, lib.logs.record.Problem, that skipped a line; `skipped`, how many, where the sidebar counted
    them: LoadedTrace.skipped): what they held is in no round, so a finding that something is missing (a result, a
    call) may be about them; None when there are none."""
    problems = tuple(problems)
    if skipped is None:
        # Keyed by file too: line 2 of one file and line 2 of another are two parts, as the sidebar's count says.
        skipped = len({(problem.file, problem.line) for problem in problems if not problem.loaded})
    if not skipped:
        return None
    them = "it" if skipped == 1 else "them"
    had = "The files had" if any(problem.file for problem in problems) else "The file had"
    return (f"{had} {plural(skipped, 'part')} that could not be read (the sidebar lists {them}): what "
            f"{'it' if skipped == 1 else 'they'} held is in no round here, so a finding that something is missing may "
            f"be about {them}.")


# --- where things are ---------------------------------------------------------------------------


def _calls(trace: Trace) -> Iterator[tuple[Round, ToolCallPart, str]]:
    """Every call a response made, with its round and its path in the response body."""
    for round_ in trace.rounds:
        for call in round_.tool_calls:
            yield round_, call, join_path(round_.response.message_path, call.path)


def _fresh(trace: Trace) -> Iterator[tuple[Round, int, Message, set[str]]]:
    """Each message where a request first sends it at its place, with the ids of the calls made
    before it in that request. Resent messages were looked at when they were new, so a long trace
    costs what its new messages cost, and a finding is reported once, where it first appears.
    The set is the checker's running state: read it before asking for the next message."""
    made: set[str] = set()
    previous_length, previous = 0, None
    for round_ in trace.rounds:
        # A request that left some earlier messages out resends the rest (lib.growth.realigned): not new again.
        messages, prefix = round_.request.messages, resent_length(round_, previous)
        # Instructions put before the earlier request (lib.growth.instructions_added): it is resent one place on.
        again = range(1, previous_length + 1) if previous is not None and instructions_added(round_, previous) \
            else range(0)
        if again:
            prefix = 0
        elif prefix != previous_length:  # history rewritten or dropped: recount what the kept part made
            made = {call.id for message in messages[:prefix] for call in message.tool_calls}
        for i in range(prefix, len(messages)):
            if i in again:
                continue
            yield round_, i, messages[i], made
            made.update(call.id for call in messages[i].tool_calls)
        previous_length, previous = len(messages), round_


def _appended(following: Round, round_: Round) -> Iterator[tuple[int, ToolResultPart, str]]:
    """The tool results `following` adds after `round_`'s messages: after those it resends (all of them if it rewrote
    history; after the rest, where it left some out and resent the rest unchanged, lib.growth.realigned)."""
    start = _resent_of(following, round_)
    for i in range(start, len(following.request.messages)):
        for part in following.request.messages[i].tool_results:
            yield i, part, join_path(f"messages[{i}]", part.path)


def _resent_of(following: Round, round_: Round) -> int:
    """How many leading messages of `following`'s request resend `round_`'s unchanged: all of them, or, where it left
    some out and resent the rest in order, those (lib.growth.realigned); 0 where it rewrote them."""
    length = len(round_.request.messages)
    if following.resent_prefix == length:
        return length
    found = realigned(following, round_)
    return found[0] if found is not None else 0


def _sent_back_at(following: Round, round_: Round) -> int:
    """Where `following`'s request goes on from `round_`'s: past the messages it resends (_resent_of: some left out;
    one place on, after instructions it put before them: lib.growth.instructions_added), else past as many as
    `round_` sent: where its answer belongs."""
    if instructions_added(following, round_):
        return len(round_.request.messages) + 1
    return _resent_of(following, round_) or len(round_.request.messages)


def _call_path(request: Request, call_id: str) -> str | None:
    """Where a request holds the call with this id, if it does."""
    for i, message in enumerate(request.messages):
        for call in message.tool_calls:
            if call.id == call_id:
                return join_path(f"messages[{i}]", call.path)
    return None


def _responses(trace: Trace) -> Iterator[tuple[Round, Response]]:
    """Every round that got a response, with that response."""
    return ((round_, round_.response) for round_ in trace.rounds if round_.response is not None)


def _next(trace: Trace, round_: Round) -> Round | None:
    return trace.rounds[round_.index] if round_.index < len(trace.rounds) else None


def _tool(request: Request, name: str) -> ToolDefinition | None:
    # A built-in tool the program runs is offered by its type alone (the Responses API's `{"type": "apply_patch"}`,
    # `shell`, `computer_use_preview`), and its calls are named for that type.
    return next((t for t in request.tools if t.shown_name == name), None)


def _tools_path(request: Request) -> str:
    return "functions" if "functions" in request.raw and "tools" not in request.raw else "tools"


def _text_path(response: Response) -> str:
    part = next(p for p in response.message.parts if p.kind == "text" and p.text.strip())
    return join_path(response.message_path, part.path)


def _outcomes(trace: Trace, round_: Round, call_id: str) -> tuple[bool, ...]:
    """What the log shows of a call's run, each True where it went ahead: its execution (False when it failed or was
    declined), else each result the next request sent back for it (False for an error result); () when neither."""
    execution = round_.execution_of(call_id)
    if execution is not None:
        return (execution.ok and execution.approval != "declined",)
    following = _next(trace, round_)
    if following is None:
        return ()
    return tuple(not p.is_error for _, p, _ in _appended(following, round_) if p.call_id == call_id)


def _refused(trace: Trace, round_: Round, call_id: str) -> bool:
    """Whether the program did not run a call: a failed or declined execution, or an error result."""
    return not all(_outcomes(trace, round_, call_id))


def _ran(trace: Trace, round_: Round, call_id: str) -> bool:
    """Whether the log shows the program ran a call: an execution that went ahead, or a result the next request sent
    back that is not an error."""
    return any(_outcomes(trace, round_, call_id))


def _bad_call(trace: Trace, round_: Round, call: ToolCallPart) -> Severity:
    # The model erred either way; what decides the harm is whether the program ran the call.
    return "warning" if _refused(trace, round_, call.id) else "error"


# --- the checks, in the order of the issue -------------------------------------------------------


@check("missing-tool-result")
def _missing_tool_result(trace: Trace) -> Iterator[Hit]:
    reported: set[tuple[int, str]] = set()
    for hit in _unanswered_after_response(trace):
        reported.add((hit.round, hit.path))
        yield hit
    # A request's history may hold a call no logged response made (the first request of a batch, a log that starts
    # mid-conversation): it needs its result in that same request all the same.
    for round_, i, message, _ in _fresh(trace):
        answered = {p.call_id for m in round_.request.messages[i + 1:] for p in m.tool_results}
        for call in message.tool_calls:
            path = join_path(f"messages[{i}]", call.path)
            if call.id not in answered and (round_.index, path) not in reported and round_.request_recorded:
                # A result that names no call may answer this one by its place alone: said, not passed over.
                idless = next((j for j in range(i + 1, len(round_.request.messages))
                               if any(not p.call_id for p in round_.request.messages[j].tool_results)), None)
                yield Hit("error", round_.index, "request", path, _unanswered_message(round_, call, idless=idless))


def _call_words(call: ToolCallPart) -> str:
    """A call as a finding names it: its tool and its id. A call sent without an id is read under its tool's name (a
    legacy function call pairs so), and an empty id is no name: neither is said as the call's id."""
    if not call.id:
        return f"the {call.name} call, whose id is empty,"
    return f"the {call.name} call" if call.id == call.name else f"the {call.name} call {call.id}"


def _unanswered_message(round_: Round, call: ToolCallPart, resent: bool = False, renamed: str | None = None,
                        idless: int | None = None) -> str:
    """What a request that carries a call and no result for it is, as far as the log shows what became of it;
    `renamed` is the other id the request resends the call under, if it does; `idless` the message after the call
    that holds a result naming no call, if one does."""
    carries = "resends" if resent or renamed else "carries"
    if idless is not None and not round_.request_from_transcript:
        # Writer's API (openllmetry's recordings) took a history whose call has no id and whose result names none: the
        # result is there, so "no result follows" would be untrue; only its place ties it to the call.
        said = (f"This request {carries} {_call_words(call)} with no result that names it: the result in "
                f"messages[{idless}] names no call (its call id is missing or empty), so only its place after the call "
                "pairs the two.")
        if round_.response is not None and round_.error is None:
            return (f"{said} This provider answered it anyway; OpenAI's API today refuses a call without an id and a "
                    "result without one with a 400, so give each call its id and copy it into its result.")
        return f"{said} Give each call its id and copy it into its result."
    if round_.request_from_transcript:
        # A transcript is not a request log: it shows no request sent with this history, only a history that could
        # not be sent as it stands.
        # A request the log ends on (no response, no error) has no next turn of the model's to name.
        until = "the last turn, where the log ends" if round_.response is None and round_.error is None \
            else "the model's next turn"
        return (f"This transcript records no result for the {call.name} call {call.id} before {until}: "
                "the log kept none, or the program never answered it. Sent or replayed as it stands, this history is "
                f"invalid: a provider rejects a request that {carries} a call without its result, so give every call "
                "its own result, a failure included.")
    said = f"This request {carries} {_call_words(call).rstrip(',')}, but no result for it follows."
    if renamed is not None:
        said = (f"This request resends the {call.name} call {call.id} under another id, {renamed}, and no result for "
                "it follows, under either id: the program rewrote the call id and sent no result. Keep the provider's "
                "id.")
    fix = "every call needs its own result, a failure included, before the model is called again."
    if round_.response is not None and round_.error is None:  # an older API, or a compatible server, let it through
        return (f"{said} This provider answered it anyway; OpenAI's and Anthropic's APIs today refuse such a request "
                f"with a 400, so {fix}")
    return f"{said} The provider rejects such a request: {fix}"


def _unanswered_after_response(trace: Trace) -> Iterator[Hit]:
    """Each call a logged response made that the next request does not answer: resent without its result, resent
    under another id, or left out."""
    for round_, call, path in _calls(trace):
        following = _next(trace, round_)
        if following is None or not following.request_recorded \
                or any(p.call_id == call.id for _, p, _ in _appended(following, round_)):
            continue  # a request the log lost may have carried the result
        echoed = _call_path(following.request, call.id)
        if echoed is not None:
            yield Hit("error", following.index, "request", echoed, _unanswered_message(following, call, resent=True))
        elif (renamed := _renamed_call(following, round_, call)) is not None:
            if round_.call_ids_made_up or not call.id:
                continue  # the provider gave the call no id to keep: the program's own id, answered, is no rewrite
            if not any(p.call_id == renamed[0] for _, p, _ in _appended(following, round_)):
                # Resent under a new id with nothing answering it: the request still lacks the call's result.
                yield Hit("error", following.index, "request", renamed[1],
                          _unanswered_message(following, call, renamed=renamed[0]))
                continue
            yield Hit("warning", following.index, "request", renamed[1],
                      f"This request resends the {call.name} call {call.id} under another id, "
                      f"{renamed[0]}, with its result paired to that id: the program rewrote the call id. The model "
                      "reads a call it did not make that way; keep the provider's id, or give each call an id "
                      "before the first request that resends it.")
        elif _asks_again(following, round_):
            continue  # the same request sent again (a retry): it asks anew, it does not go on from this answer
        elif _resent_after_compaction(trace, following, call):
            continue  # left out of the request for a summary alone: the model reads it again, with its result
        elif following.summary_call and _next(trace, following) is None:
            yield Hit("info", round_.index, "response", path,
                      f"Round {following.index}'s request carries neither call {call.id} ({call.name}) nor a result "
                      f"for it: {no_result_why(trace, round_)}. Whether the program sent them is not in the log.")
        elif round_.response.stop != "length":  # A turn cut off by the output limit is rightly discarded.
            # An assistant turn where this one belongs is this turn rewritten (history-rewritten says how), not dropped.
            turn = _turn_sent_back(following.request, _sent_back_at(following, round_))
            if turn and is_output_tool(call.name, _tool(round_.request, call.name)):
                continue  # the model's structured answer, not a request to act: no result is owed for it
            if _written_in_text(call, turn):
                what = written_out_words(1)
            else:
                what = ("the turn sent back there was rewritten without it" if turn else "the turn was dropped") \
                    + ", so the model never learns what became of its request"
            yield Hit("warning", round_.index, "response", path,
                      f"Round {following.index}'s request carries neither call {call.id} ({call.name}) nor a result "
                      f"for it: {what}. Send the assistant turn back as received, with a result for every call.")


def _written_in_text(call: ToolCallPart, turn: list[tuple[int, Message]]) -> bool:
    """Whether the turn a request sends back names `call` by its id in its text. smolagents' ToolCallingAgent writes
    the call into the turn's text ("Calling tools: [{'id': ...") and the result into a user message ("Observation:
    ..."): the model does read an answer, as words."""
    return len(call.id or "") >= ID_IN_TEXT and any(call.id in m.text for _, m in turn)


def written_out_words(calls: int) -> str:
    """What became of `calls` calls whose turn the next request sends back naming them in its text (_written_in_text),
    as a clause: the one wording of the check missing-tool-result and presenter mode's step 4 (no_result_why)."""
    if calls == 1:
        return ("the turn sent back there names the call in its text, written out as words rather than sent as a "
                "call, so whatever answers it reaches the model as ordinary text, not as the call's result")
    return ("the turn sent back there names the calls in its text, written out as words rather than sent as calls, so "
            "whatever answers them reaches the model as ordinary text, not as their results")


def no_result_why(trace: Trace, round_: Round) -> str | None:
    """Why the next request of `trace` carries no result for `round_`'s calls, where the requests show it, as a clause:
    it is `round_`'s request sent again (a retry asks anew), it asks for a summary and the request after it carries
    them or the log ends first (a compaction), the calls are the model's structured answer (an output tool), or the turn it sends back names
    them in its text; None where they show nothing of why. The reasons the check missing-tool-result goes by, for
    presenter mode's step 4."""
    following = trace.rounds[round_.index]
    if _asks_again(following, round_):
        return (f"it is round {round_.index}'s request sent again as it was, so it asks anew and does not go on from "
                f"round {round_.index}'s answer")
    calls = round_.tool_calls
    if calls and all(_resent_after_compaction(trace, following, c) for c in calls):
        return (f"it asks only for a summary of the conversation (the summary call of a compaction), and round "
                f"{following.index + 1}'s request, which sends the summary, carries the results after it")
    if calls and following.summary_call and following.index == len(trace.rounds):
        return ("it asks only for a summary of the conversation (the summary call of a compaction), and the log ends "
                "before the request that would send the summary and the results after it")
    turn = _turn_sent_back(following.request, _sent_back_at(following, round_))
    if calls and turn and all(is_output_tool(c.name, _tool(round_.request, c.name)) for c in calls):
        return ("the call is the model's answer in structured form (an output tool), not a request to act, so no "
                "result is owed for it") if len(calls) == 1 else \
            ("the calls are the model's answer in structured form (an output tool), not requests to act, so no result "
             "is owed for them")
    if calls and all(_written_in_text(c, turn) for c in calls):
        return written_out_words(len(calls))
    return None


def _resent_after_compaction(trace: Trace, following: Round, call: ToolCallPart) -> bool:
    """Whether the round after `following` is the first after the program compacted the history (Round.compacted) and
    sends `call` back with its result: `following` asked for the summary (the Anthropic SDKs' tool runner leaves the
    model's last turn out of that request, then sends it and its results after the summary)."""
    later = _next(trace, following)
    return later is not None and later.compacted and any(
        p.call_id == call.id for m in later.request.messages for p in m.tool_results)


def _asks_again(following: Round, round_: Round) -> bool:
    """Whether `following`'s request sends `round_`'s messages again as they were, and nothing after them."""
    return following.request.messages == round_.request.messages


def _renamed_call(following: Round, round_: Round, call: ToolCallPart) -> tuple[str, str] | None:
    """(the new id, its path) where `following`'s request resends `call`, same tool and arguments, under another id.
    Calls alike (two dice rolls: one tool, no arguments) are paired in order, so each is named by its own new id."""
    sent = [(i, c) for i, message in _split_turn(following.request, _sent_back_at(following, round_),
                                                 round_.tool_calls)
            for c in message.tool_calls]
    resent = same_call_renamed(call, round_.tool_calls, [c for _, c in sent])
    if resent is None:
        return None
    i = next(i for i, c in sent if c is resent)
    return resent.id, join_path(f"messages[{i}]", resent.path)


def _split_turn(request: Request, i: int, made: tuple[ToolCallPart, ...]) -> list[tuple[int, Message]]:
    """The assistant messages from index `i` on that send back a turn whose calls were `made`: those in a row, then,
    past the results after them, any that carry nothing but calls of that turn not yet sent back. raix sends a turn's
    calls back one assistant message each, every call's result before the next call."""
    turn = _turn_sent_back(request, i)
    left = [(c.name, c.arguments_raw) for c in made]
    for _, message in turn:
        for sent in message.tool_calls:
            if (sent.name, sent.arguments_raw) in left:
                left.remove((sent.name, sent.arguments_raw))
    j = i + len(turn)
    while left and j < len(request.messages):
        message = request.messages[j]
        if message.role != "assistant" and message.tool_results and not message.tool_calls:
            j += 1  # a result between the calls
            continue
        calls = [(c.name, c.arguments_raw) for c in message.tool_calls]
        if message.role != "assistant" or not calls or message.text.strip() or any(
                calls.count(c) > left.count(c) for c in calls):
            break
        for c in calls:
            left.remove(c)
        turn.append((j, message))
        j += 1
    return turn


def _turn_sent_back(request: Request, i: int) -> list[tuple[int, Message]]:
    """The assistant messages from index `i` on, with their indexes: the turn a request sends back. Some clients
    (simonw/llm) send one turn as two messages, an empty text and then the calls."""
    turn = []
    while i < len(request.messages) and request.messages[i].role == "assistant":
        turn.append((i, request.messages[i]))
        i += 1
    return turn


@check("orphan-tool-result")
def _orphan_tool_result(trace: Trace) -> Iterator[Hit]:
    reported: set[str] = set()
    for round_, i, message, made in _fresh(trace):
        for part in message.tool_results:
            if part.call_id not in made and part.call_id not in reported:
                reported.add(part.call_id)
                yield Hit("error", round_.index, "request", join_path(f"messages[{i}]", part.path),
                          _orphan_message(part.call_id, round_.request_from_transcript,
                                          round_.response is not None and round_.error is None))


def _orphan_message(call_id: str, transcript: bool, answered: bool = False) -> str:
    fix = ("keep the assistant turn that made the call, and copy its id into the result unchanged." if call_id
           else "give the call it answers an id, and copy that id into the result.")
    if transcript:
        # A transcript shows no request sent with this history, only a history that could not be sent as it stands.
        return (f"This transcript records a result for {call_id}, but no earlier turn makes a call with that id. Sent "
                "or replayed as it stands, this history is invalid: a provider rejects a request that carries a "
                f"result for a call it does not make, so {fix}")
    said = (f"This result answers {call_id}, but no earlier message of the request makes a call with that id." if call_id
            else "This result names no call (its call id is missing or empty), so nothing pairs it with a call of the "
                 "request.")
    if answered:  # the log shows an answer: an older API, or a compatible server, let it through
        return (f"{said} This provider answered it anyway; OpenAI's and Anthropic's APIs today refuse such a request "
                f"with a 400, so {fix}")
    return f"{said} The provider rejects it: {fix}"


_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
"""Reasoning a model writes in its text between `<think>` tags (an open tag runs to the end: the text was cut)."""


@check("text-with-tool-calls")
def _text_with_tool_calls(trace: Trace) -> Iterator[Hit]:
    for round_, response in _responses(trace):
        text = response.message.text
        # Calls the agent read out of the text itself (Roo Code's XML tags): it got the text whole, and resends it.
        if not (response.message.tool_calls and text.strip()) or round_.calls_read_by_agent:
            continue
        if _THINK.search(text) is None and _sent_back(trace, round_, text):
            said = ("The model wrote text beside its tool calls. That is legal, and the next request in the log "
                    "carries it back with the calls, as it should: a client that reads only the calls loses it. Show "
                    "it to the person too.")
        elif _THINK.search(text) is None:
            said = ("The model wrote text beside its tool calls. That is legal, but a client that reads only the "
                    "calls loses it: show it to the person and send it back with the calls in the next request.")
        elif _THINK.sub("", text).strip():
            said = ("The model wrote text beside its tool calls, after reasoning in <think> tags. That is legal, but a "
                    "client that reads only the calls loses it: show the person the text outside the tags (the "
                    "reasoning is not an answer for them) and send it all back with the calls in the next request.")
        else:
            # Reasoning is the model thinking before it acts: shown to a person as a reply, it reads as one.
            said = ("The model wrote reasoning, in <think> tags, beside its tool calls. It is not an answer for the "
                    "person: do not show it as one. A client that reads only the calls loses it; send it back with "
                    "the calls where the model's chat format keeps earlier reasoning.")
        yield Hit("info", round_.index, "response", _text_path(response), said)


def _sent_back(trace: Trace, round_: Round, text: str) -> bool:
    """Whether the next request the log kept carries the model's turn with this text: the program sent it back."""
    following = _next(trace, round_)
    return following is not None and following.request_recorded and any(
        m.role == "assistant" and m.text == text for m in following.request.messages)


def _is_empty(content: str) -> bool:
    try:
        return json.loads(content) in (None, "", [], {})
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit, so far from empty
        return not content.strip()


def _result_named(round_: Round, at: int, call_id: str) -> str:
    """The call a result at messages[`at`] answers, as a finding names it: by its id, or where the provider gave its
    calls none (Gemini, ADK) by its tool, the id said to be the importer's, which the file does not hold."""
    if not round_.call_ids_made_up:
        return call_id
    name = next((call.name for message in reversed(round_.request.messages[:at]) for call in message.tool_calls
                 if call.id == call_id), None)
    named = f"the {name} call" if name else "the call"
    return f"{named} (its id, {call_id}, is the importer's: the log gives the call none)"


@check("empty-tool-result")
def _empty_tool_result(trace: Trace) -> Iterator[Hit]:
    seen: set[str] = set()
    for round_, i, message, _ in _fresh(trace):
        for part in message.tool_results:
            path = join_path(f"messages[{i}]", part.path)
            if part.call_id not in seen and _is_empty(part.content):
                yield Hit("warning", round_.index, "request", path,
                          f"The result for {_result_named(round_, i, part.call_id)} is empty. A model reads an empty "
                          "result as 'nothing there' "
                          "and may invent an answer to fill the gap. Say what happened instead: what was searched and "
                          "that nothing matched, or that the lookup failed and why.")
            seen.add(part.call_id)


@check("narration-without-call")
def _narration_without_call(trace: Trace) -> Iterator[Hit]:
    for round_, response in _responses(trace):
        if narrates_without_call(round_):
            yield Hit("warning", round_.index, "response", _text_path(response),
                      "The model says it is about to act but calls no tool, and the turn ends. Shown to a person "
                      "this reads as a hang. Detect it (no call, no result since the question) and ask the model "
                      "once to make the call; stop after one retry.")


@check("unknown-tool")
def _unknown_tool(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        # A request recorded without its tool list tells us nothing about which names exist.
        if round_.request.tools and _tool(round_.request, call.name) is None:
            yield Hit(_bad_call(trace, round_, call), round_.index, "response", path,
                      f"The model called {call.name}, which this request does not offer. Never run it: answer the "
                      "call with a plain result saying the tool is not available, so the model can choose again.")


@lru_cache(maxsize=256)
def _validator(tool: ToolDefinition):
    """A JSON schema validator for the tool's parameters, or None when they are not a usable schema."""
    if not isinstance(tool.parameters, dict):
        return None
    try:
        cls = validator_for(tool.parameters)
        cls.check_schema(tool.parameters)
    except Exception:  # Custom tools carry a grammar here; an uploaded schema can be broken in many ways.
        return None
    return cls(tool.parameters)


def _argument_problems(call: ToolCallPart, tool: ToolDefinition | None) -> list[str]:
    if call.arguments_error:
        return [call.arguments_error]
    validator = _validator(tool) if tool is not None else None
    try:
        errors = list(validator.iter_errors(call.arguments)) if validator is not None else []
    except Exception:  # A $ref that leads nowhere: a schema we cannot follow is not the model's fault.
        return []
    errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
    # jsonschema writes values as Python does (None, True, ['a']); the payload says null, true, ["a"].
    said = (f"{'.'.join(map(str, e.absolute_path)) or 'arguments'}: {_schema_words(e)}" for e in errors)
    return list(dict.fromkeys(said))  # Each missing property is an error of its own, worded for all of them.


TYPE_WORDS = {"string": "a string", "number": "a number", "integer": "an integer", "boolean": "true or false",
              "object": "an object", "array": "an array", "null": "null"}
"""A JSON schema type, as the sentence "… is not ___" ends."""

BOUND_WORDS = {"minimum": "below the minimum", "maximum": "above the maximum",
               "exclusiveMinimum": "not above", "exclusiveMaximum": "not below",
               "minLength": "shorter than the fewest characters allowed,", "maxLength":
               "longer than the most characters allowed,", "minItems": "fewer items than the fewest allowed,",
               "maxItems": "more items than the most allowed,", "pattern": "not matched by the pattern"}
"""A bound a value broke, as the sentence "… is ___ <bound>" goes on."""


def _as_json(value) -> str:
    return shorten(json.dumps(value, ensure_ascii=False, default=str), 60)


def _schema_words(error) -> str:
    """One schema error in JSON's words; jsonschema's own message for the keywords worded nowhere here."""
    keyword, expected, value = error.validator, error.validator_value, error.instance
    if keyword == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        return f"{_as_json(value)} is not {' or '.join(TYPE_WORDS.get(n, n) for n in names)}"
    if keyword == "required" and isinstance(value, dict):
        missing = [name for name in expected if name not in value]
        return f"the required {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
    if keyword == "enum":
        return f"{_as_json(value)} is not one of {', '.join(_as_json(v) for v in expected)}"
    if keyword == "const":
        return f"{_as_json(value)} is not {_as_json(expected)}"
    if keyword == "additionalProperties" and expected is False and isinstance(value, dict):
        named, patterns = error.schema.get("properties") or {}, error.schema.get("patternProperties") or {}
        extra = [k for k in value if k not in named and not any(re.search(p, k) for p in patterns)]
        return f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not among the parameters it allows"
    if keyword in BOUND_WORDS:
        return f"{_as_json(value)} is {BOUND_WORDS[keyword]} {_as_json(expected)}"
    return error.message


@check("invalid-arguments")
def _invalid_arguments(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        if round_.response.stop == "length" or _stream_cut(round_, call):
            continue  # Cut off mid-call: truncated-arguments names the cause.
        problems = _argument_problems(call, _tool(round_.request, call.name))
        if problems:
            listed = "; ".join(shorten(p, 160) for p in problems[:4]) + ("; …" if len(problems) > 4 else "")
            execution = round_.execution_of(call.id)
            # Where the program did what the advice says, the finding says so instead of telling it to.
            advice = ("The program refused it before running and sent these problems back as its result, as it "
                      "should: the model can correct them in the next round." if execution and execution.refused else
                      "Do not run the call: return these problems as an error result so the model can correct them "
                      "in the next round.")
            yield Hit(_bad_call(trace, round_, call), round_.index, "response", path,
                      f"The arguments of {call.name} break its schema ({listed}). {advice}")


PROSE_LIMIT = re.compile(r"\b(no more than|not more than|at most|up to|a maximum of|maximum|max\.?|under|fewer than|"
                         r"less than)\s+(\d{1,6})\s+(?:characters|chars)\b", re.IGNORECASE)
"""A length limit a parameter's description states in words ("no more than 50 characters"); "under", "fewer than"
and "less than" exclude the number itself."""
STRICT_LIMITS = ("under", "fewer than", "less than")


def _prose_limit(schema) -> int | None:
    """The most characters a string parameter's description allows, where its schema states no maxLength."""
    if not isinstance(schema, dict) or "maxLength" in schema or not isinstance(schema.get("description"), str):
        return None
    found = PROSE_LIMIT.search(schema["description"])
    if found is None:
        return None
    most = int(found.group(2))
    return most - 1 if found.group(1).lower() in STRICT_LIMITS else most


@check("limit-in-description")
def _limit_in_description(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        tool = _tool(round_.request, call.name)
        properties = tool.parameters.get("properties") if tool and isinstance(tool.parameters, dict) else None
        if not isinstance(properties, dict) or not isinstance(call.arguments, dict):
            continue
        for name, value in call.arguments.items():
            most = _prose_limit(properties.get(name))
            if isinstance(value, str) and most is not None and len(value) > most:
                yield Hit("info", round_.index, "response", path,
                          f"{call.name}'s {name} is {len(value):,} characters, and its description allows {most:,}. "
                          "A limit said only in words binds nothing: the model may overlook it, and no schema check "
                          f"catches it. State it in the schema (\"maxLength\": {most}) and check it in the program "
                          "before the call runs, returning the problem as an error result.",
                          f"{name}: {len(value):,} characters, {most:,} allowed in words only")


def _stream_cut(round_: Round, call: ToolCallPart) -> bool:
    """The stream ended before this call closed (lib.model.CUT_CALLS)."""
    return any(cut is call for cut in round_.cut_calls)


@check("truncated-arguments")
def _truncated_arguments(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        if round_.response.stop == "length":
            yield Hit(_bad_call(trace, round_, call), round_.index, "response", path,
                      f"The response hit its output limit while writing this {call.name} call, so the arguments may "
                      "be cut short. Do not run it: raise the output limit (max_tokens) or ask again.")
        elif _stream_cut(round_, call) and round_.error is not None and round_.error.ended_stream:
            # The provider's error event ended the stream here: the log says why the call is cut short.
            ran = _ran(trace, round_, call.id)
            yield Hit("error" if ran else "warning", round_.index, "response", path,
                      f"The provider's error event ended the stream while the model was writing this {call.name} "
                      "call, before its arguments closed: the arguments shown are cut short by that failure, not "
                      "written wrong by the model. "
                      + ("Yet the program ran the call, with arguments the model never finished. " if ran else "")
                      + "A call cut short like this should not be run: send the request again.")
        elif _stream_cut(round_, call):
            # What is known is that the recording ends mid-call: whether the program's own stream was cut there, the
            # log cannot say. It is an error only where the log shows the program ran the call all the same.
            ran = _ran(trace, round_, call.id)
            yield Hit("error" if ran else "warning", round_.index, "response", path,
                      f"The recording ends while the model was writing this {call.name} call, before its arguments "
                      "closed: the arguments shown are cut short by the recording, not written wrong by the model. "
                      "The log does not show whether the program got the rest of the stream, and "
                      + ("yet the program ran the call: if its stream was cut here too, it ran arguments the model "
                         "never finished." if ran else "nothing in it shows the program ran the call.")
                      + " A call whose stream is cut like this should not be run: send the request again.")


@check("answer-cut-off")
def _answer_cut_off(trace: Trace) -> Iterator[Hit]:
    for round_, response in _responses(trace):
        said = cut_off_words(round_, trace.dialect)
        if said is None or response.message.tool_calls:  # a call cut short is truncated-arguments'
            continue
        full = DIALECTS[trace.dialect].fills_context(response.finish_reason)
        if full:
            fix = ("A larger output limit does not help here: the program should send less (compact or cut the "
                   "history it resends) and send the request again, and not show what came back as complete.")
        elif response.message.text.strip() or not round_.answer_recorded:
            fix = ("Do not show it as complete: raise the output limit, or continue the answer (send it back as the "
                   "model's turn and ask it to go on).")
        else:
            fix = ("The program should not go on as if it had one: raise the output limit (a reasoning model spends "
                   "part of it thinking before it writes) and send the request again.")
        yield Hit("warning", round_.index, "response", response.finish_reason_path or response.message_path,
                  f"{as_sentence(said)} {fix}",
                  "the answer was cut off: the context window was full" if full
                  else "the answer was cut off at the output limit")


_IDENTITY_NAMES = {"userid", "customerid", "employeeid", "accountid", "memberid", "tenantid", "staffid"}
"""Argument names (lowercase, separators removed) that say who the caller is."""

_APP_SUPPLIED = re.compile(
    r"\b(from the (login |user )?session|log(ged)?[- ]?in|signed[- ]in|authenticated|current user)\b"
    r"|\b(supplied|provided|filled in|set) by the (app|application|program|system|server|backend)\b",
    re.IGNORECASE,
)
"""Description wording that says the application, not the model, knows the value."""


def _parameter(tool: ToolDefinition | None, name: str) -> dict:
    """The schema of one of a tool's parameters, or {} when the tool or its schema does not say."""
    schema = tool.parameters if tool is not None and isinstance(tool.parameters, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    return properties.get(name) if isinstance(properties.get(name), dict) else {}


def _is_identity(name: str, tool: ToolDefinition | None) -> bool:
    if re.sub(r"[\W_]", "", name).lower() in _IDENTITY_NAMES:
        return True
    return bool(_APP_SUPPLIED.search(str(_parameter(tool, name).get("description") or "")))


def _overridden(round_: Round, call: ToolCallPart, name: str) -> bool:
    """Whether the program ran the call with its own value for this argument rather than the model's."""
    execution = round_.execution_of(call.id)
    if execution is None:
        return False
    if execution.overrides and name in execution.overrides:
        return True
    return isinstance(execution.arguments, dict) and execution.arguments.get(name, object()) != call.arguments[name]


@check("model-filled-identity")
def _model_filled_identity(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        if not isinstance(call.arguments, dict):
            continue
        tool = _tool(round_.request, call.name)
        for name, value in call.arguments.items():
            if not _is_identity(name, tool):
                continue
            # A value the tool definition holds (an id given as the form to write it in): say where it came from.
            source = definition_source(tool, name, value) if not _said_by_user(round_.request, value) else None
            shown = shorten(json.dumps(value, ensure_ascii=False), 60)
            copied = (f" {shown} is in the tool definition sent with the request ({source.where or 'its default'}), "
                      f"though no earlier message says it: the model may have taken it from there. {shown} is the "
                      f"definition's {'default' if source.default else 'example'}, not an id anyone gave it."
                      if source else "")
            if _overridden(round_, call, name):
                yield Hit("info", round_.index, "response", path,
                          f"The model filled the identity argument {name} of {call.name} itself; the program used its "
                          f"own value instead, as it should.{copied} Leaving {name} out of the schema would stop the "
                          "model from being asked at all.")
            elif _said_by_user(round_.request, value) and round_.execution_of(call.id) is None:
                # Copied from the user, and the log does not show the program running it as given.
                yield Hit("info", round_.index, "response", path,
                          f"The model filled the identity argument {name} of {call.name} with "
                          f"{shorten(json.dumps(value, ensure_ascii=False), 60)}, which the user gave it earlier in "
                          "the conversation: the model did not invent it. Whether the program checks it against the "
                          "login session is not in the log.")
            else:
                yield Hit("warning", round_.index, "response", path,
                          f"The model filled the identity argument {name} of {call.name} with {shown}, and nothing "
                          f"shows the program replaced it.{copied} Whoever writes the conversation can steer that "
                          "value to someone else's record: take identity from the login session in the program, and "
                          "record the override.")


def _said_by_user(request: Request, value: object) -> bool:
    """Whether a user message of the request contains the value, so the model copied it rather than made it up."""
    said = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return len(said) > 2 and any(said in m.text for m in request.messages if m.role == "user")


FACT_WORDS = 3
"""A string argument of more words than this is the model's own prose (a reason, a reply), not a fact it filled."""
FACT_LENGTH = 40
"""Nor is a string longer than this."""
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
"""A number as a message writes it: `3860.00`, `$250,000`, `2`."""


def _fact(value: object) -> bool:
    """A value the model either copied or made up: a number, or a short string (a code, a name, a date)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and 0 < len(value) <= FACT_LENGTH and len(value.split()) <= FACT_WORDS


def _decimal(said: str) -> Decimal | None:
    try:
        return Decimal(said.replace(",", ""))
    except InvalidOperation:
        return None


_PERCENT = re.compile(r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?) ?%")
"""A percentage as a message writes it: `6.5%`."""
_WORD = re.compile(r"\w[\w\-:./@+]*\w|\w")
"""A word as an argument value would be written: `P6`, `LK-581106`, `2026-11-24`, `10:00`."""


_MONTHS = {name: number for number, full in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december"), 1) for name in (full, full[:3], "sept" if number == 9 else full)}
"""A month as a message names it, by its number: `January`, `Jan`, `Sept`."""
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATE = re.compile(rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?),?"
                   r"\s+(\d{4})\b", re.IGNORECASE)
"""A date written out in words, day first or month first: `1st January 2022`, `Jan 1, 2022`. All-number forms
(`01/02/2022`) are left out: which is the day and which the month, the text does not say."""


def _iso_dates(text: str) -> Iterator[str]:
    """The dates a text writes out in words, each as a model writes it into an argument: `2022-01-01`."""
    for day, month, month_first, day_second, year in _DATE.findall(text):
        try:
            yield datetime.date(int(year), _MONTHS[(month or month_first).lower()], int(day or day_second)).isoformat()
        except ValueError:  # 31st February: no day to restate
            continue


class Said(NamedTuple):
    """What a conversation has said so far: its words (lowercase) and its numbers (by value)."""

    words: set[str]
    numbers: set[Decimal]

    def add(self, message: Message) -> None:
        """Take in one message: its text, its tool results and the arguments of its calls."""
        for piece in (message.text, *(p.content for p in message.tool_results),
                      *(p.arguments_raw for p in message.tool_calls)):
            self.add_text(piece)

    def add_text(self, piece: str) -> None:
        """Take in one text: its words, the dates it writes out and its numbers."""
        if piece:
            self.words.update(word.lower() for word in _WORD.findall(piece))
            # "1st January 2022" says 2022-01-01: a date restated in the ISO form a schema asks for is copied.
            self.words.update(_iso_dates(piece))
            self.numbers.update(n for n in map(_decimal, _NUMBER.findall(piece)) if n is not None)
            # "6.5%" says 0.065 as much as 6.5: a rate copied into an argument is written as a fraction.
            self.numbers.update(n / 100 for n in map(_decimal, _PERCENT.findall(piece)) if n is not None)

    def holds(self, value: object) -> bool:
        """Whether the value was said: a number as any number of equal value, a string word for word, any case."""
        said = str(value)
        number = _decimal(said) if _NUMBER.fullmatch(said) else None
        if number is not None:
            return number in self.numbers
        words = [word.lower() for word in _WORD.findall(said)]
        return bool(words) and all(word in self.words for word in words)

    def part(self, value: object) -> list[str]:
        """The words of a string value that were said (as the value writes them), when some were and some were not."""
        words = _WORD.findall(value) if isinstance(value, str) else []
        kept = [word for word in words if word.lower() in self.words]
        # A short word ("a", "of") said somewhere is no sign the value was: one of three letters or more must be.
        return kept if len(kept) < len(words) and any(len(word) >= 3 for word in kept) else []


def _said_so_far(trace: Trace) -> Iterator[tuple[Round, Said]]:
    """Each round with what its request says, taken in one new message at a time, as `_fresh` does: a long
    trace costs what its new messages cost. Read the state before asking for the next round."""
    said, previous_length, system = Said(set(), set()), 0, None
    for round_ in trace.rounds:
        messages, prefix = round_.request.messages, round_.resent_prefix
        if prefix != previous_length:  # history rewritten or dropped: what was said may be gone
            said, prefix, system = Said(set(), set()), 0, None
        if round_.request.system is not None and round_.request.system is not system:
            system = round_.request.system
            said.add(system)
        for message in messages[prefix:]:
            said.add(message)
        previous_length = len(messages)
        yield round_, said


def _allowed_values(tool: ToolDefinition | None, name: str) -> list:
    allowed = _parameter(tool, name).get("enum")
    return allowed if isinstance(allowed, list) else []


@check("model-filled-value")
def _model_filled_value(trace: Trace) -> Iterator[Hit]:
    """A short value in a call that no earlier message holds: a fact (an id, a date, an amount, a name, a place)
    someone should have given, which the model either read from words said another way or made up.

    Not every value is such a fact. What the model composes is its own work, and nobody was meant to give it: prose
    (a `description` of the command, a file's `content`, a message `body`), code and commands (`command`, `code`,
    a search `pattern` or `query`), the path of a file it reads or creates (`file_path`), and how long it lets a tool run
    (`timeout`). A coding agent fills these in every call; asking the person for them would be wrong advice. Such
    parameters are known by name (AUTHORED_NAMES, or a name ending in `_path`), since logs like Claude Code's keep
    no schema to say more."""
    for round_, said in _said_so_far(trace):
        if not round_.request_recorded:  # nothing says what the request held: no value is known to be unsaid
            continue
        # A log that keeps no system prompt (Claude Code's) cannot say the instructions did not hold the value.
        unlogged = "system" in trace.round_provenance(round_).omitted
        for call in round_.tool_calls:
            if not isinstance(call.arguments, dict):
                continue
            tool = _tool(round_.request, call.name)
            if is_output_tool(call.name, tool) or declared_effect(trace, call.name) == "narration":
                continue  # the model's answer or its account of its work: every value in it is the model's to write
            # Identity is model-filled-identity's to report; prose is the model's own writing, not a fact it filled.
            unsaid = [(name, value) for name, value in call.arguments.items()
                      if not _is_identity(name, tool) and not _authored(name) and _fact(value)
                      and not said.holds(value) and not (name == "type" and _built_in(tool))]
            # The tool definition sent with the request says a default or holds the value, though no message does:
            # the model did not make it up, as it did not make up what the person said.
            sources = {name: definition_source(tool, name, value) for name, value in unsaid}
            defaults = [(name, value) for name, value in unsaid if sources[name] and sources[name].default]
            given = [(name, value) for name, value in unsaid if sources[name] and not sources[name].default]
            # "San Francisco" said, "San Francisco, CA" written as the description's example shows: the person gave the
            # value, the model wrote it in the definition's form. Not "nobody gave it".
            parts = {name: said.part(value) for name, value in given}
            completed = [(name, value) for name, value in given if parts[name]]
            given = [(name, value) for name, value in given if not parts[name]]
            filled = [(name, value) for name, value in unsaid if not sources[name]]
            if unsaid:
                path = join_path(round_.response.message_path, call.path)
                briefs = [f"Filled by the model, in no earlier message: {', '.join(_named(filled))}"] if filled else []
                briefs += [f"in the tool definition: {', '.join(_named(given))}"] if given else []
                briefs += [f"said in part, completed as the tool definition writes it: {', '.join(_named(completed))}"
                           ] if completed else []
                in_schema = [(name, value) for name, value in defaults if not sources[name].where]
                described = [(name, value) for name, value in defaults if sources[name].where]
                briefs += [f"the schema's default: {', '.join(_named(in_schema))}"] if in_schema else []
                briefs += [f"the default its description states: {', '.join(_named(described))}"] if described else []
                brief = "; ".join(briefs)
                said_first = _filled_message(call.name, filled, defaults, tool, unlogged, given, sources) \
                    if filled or defaults or given else ""
                yield Hit("info", round_.index, "response", path,
                          " ".join(w for w in (said_first, _completed_words(call.name, completed, parts, sources,
                                                                            not said_first)) if w),
                          brief[0].upper() + brief[1:])


def _built_in(tool: ToolDefinition | None) -> bool:
    """Whether a tool is one the API defines, offered by its type alone (_tool): a call's action is then written in
    the API's own schema, its `type` (computer use's `screenshot` or `click`, apply_patch's `create_file`) the kind of
    action the schema names, not a value anyone should have given."""
    return tool is not None and tool.built_in_type is not None


AUTHORED_NAMES = frozenset({
    "description", "content", "contents", "text", "body", "message", "summary", "prompt", "reason", "comment",
    "command", "cmd", "script", "code", "pattern", "regex", "glob", "query", "oldstring", "newstring",
    "path", "filepath", "filename", "directory", "dir", "cwd",
    "timeout", "timeoutms", "timeoutseconds", "yieldtimems", "maxoutputtokens", "offset", "limit",
    "isinput", "securityrisk",
})
"""Parameter names (lower case, no `_`) whose value the model composes itself: prose it writes, code and commands
it runs (an edit's `old_string` and `new_string`, OpenCode's `oldString`, `newString`), what it searches for (a
search tool's `query`: the model's words for what it looks up, as a search `pattern` is), paths it reads or creates,
how long it lets a tool run and how much of its output or of a file it reads (Codex's `yield_time_ms`,
`max_output_tokens`; a read's `offset` and `limit`), how it drives a command and how risky it rates its own call
(OpenHands' `is_input`, `security_risk`). None is a fact someone should have given."""


def _authored(name: str) -> bool:
    """Whether the argument is the model's own work (AUTHORED_NAMES, or a path such as `notebook_path`)."""
    return re.sub(r"[\W_]", "", name).lower() in AUTHORED_NAMES or name.lower().endswith("_path")


def _named(filled: list[tuple[str, object]]) -> list[str]:
    """`job_level "P6"`: each argument's name and its value as JSON, cut short."""
    return [f"{name} {shorten(json.dumps(value, ensure_ascii=False), 40)}" for name, value in filled]


def _sourced(pairs: list[tuple[str, object]], sources: dict[str, Source | None]) -> str:
    """`status "submitted" (status's description: "…")`: each argument with where the definition holds it."""
    return " and ".join(f"{named} ({sources[name].where})" if sources.get(name) and sources[name].where else named
                        for (name, _), named in zip(pairs, _named(pairs)))


def _given_words(tool_name: str, given: list[tuple[str, object]], sources: dict[str, Source | None],
                 lead: bool) -> str:
    """What is said of values the tool definition holds though no message does (definition_source): where, and
    that a definition's words are no one's answer. `lead` when nothing the model filled itself is said before it,
    which then ends with the advice; else the advice is that sentence's."""
    one = len(given) == 1
    it = "it" if one else "them"
    place = (f"The model filled {_sourced(given, sources)} in the {tool_name} call with "
             f"{'a value' if one else 'values'} the tool definition sent with the request holds" if lead else
             f"{_sourced(given, sources)} {'is' if one else 'are'} in the tool definition sent with the request")
    said = (f"{place}, though no earlier message says {it}: the model may have taken {it} from there, not from the "
            "person or a tool result.")
    if not lead:
        return said
    return (f"{said} A definition's words are written for every call, not as this one's answer: what the program "
            "knows should come from the program; what nobody gave, the model should ask the person for.")


def _completed_words(tool_name: str, completed: list[tuple[str, object]], parts: dict[str, list[str]],
                     sources: dict[str, Source | None], lead: bool) -> str:
    """What is said of values an earlier message says in part and the tool definition holds whole: the model
    completed what was said in the definition's form; the part it added is its own."""
    if not completed:
        return ""
    one = len(completed) == 1
    said = " and ".join(shorten(json.dumps(" ".join(parts[name]), ensure_ascii=False), 40) for name, _ in completed)
    place = (f"The model filled {_sourced(completed, sources)} in the {tool_name} call" if lead else
             f"{_sourced(completed, sources)} {'is' if one else 'are'} in the tool definition sent with the request")
    return (f"{place}: an earlier message says {said}, and the tool definition writes {'it' if one else 'them'} "
            f"whole. The model completed what was said in the form the definition shows; the rest is its own guess, "
            "which the conversation does not confirm.")


def _defaults_given(pairs: list[tuple[str, object]], sources: dict[str, Source | None]) -> str:
    """`the default the tool's schema gives`, or `the default its description states in words (status's description:
    "…")`: where the tool definition gives these defaults, the schema's `default` or a description's words."""
    if len(pairs) == 1:
        where = sources[pairs[0][0]].where if sources.get(pairs[0][0]) else ""
        return f"the default its description states in words ({where})" if where else \
            "the default the tool's schema gives"
    each = "; ".join(sources[name].where if sources.get(name) and sources[name].where else f"{name}: the schema's "
                     "default" for name, _ in pairs)
    return f"the defaults the tool definition gives ({each})"


def _filled_message(tool_name: str, filled: list[tuple[str, object]], defaults: list[tuple[str, object]],
                    tool: ToolDefinition | None, instructions_unlogged: bool = False,
                    given: list[tuple[str, object]] = (), sources: dict[str, Source | None] | None = None) -> str:
    sources = sources or {}
    named, single = " and ".join(_named(defaults)), len(defaults) == 1
    from_definition = _defaults_given(defaults, sources) if defaults else ""
    defaulted = (f"The model filled {named} in the {tool_name} call with {from_definition}: the tool definition says "
                 f"{'it' if single else 'them'}, though no earlier message does.") if defaults else ""
    if not filled:
        return " ".join(words for words in (defaulted, _given_words(tool_name, given, sources, not defaults) if given
                                            else "") if words)
    # Each value's source is said with the values, before the advice that closes the finding.
    given = ((" " + _given_words(tool_name, given, sources, False)) if given else "") + ((
        f" {named} {'is' if single else 'are'} {from_definition}: the tool definition says so, though no earlier "
        "message does.") if defaults else "")
    listed = " and ".join(_named(filled))
    chosen = [(name, value) for name, value in filled if value in _allowed_values(tool, name)]
    allows = "; ".join(f"{shorten(json.dumps(value, ensure_ascii=False), 40)} is one of the values {name} allows"
                       for name, value in chosen)
    among = f" {allows}, but nothing in the conversation says which." if chosen else ""
    one = len(filled) == 1
    # Only an exact copy (or the same day, number or rate written another way) is recognised: "tomorrow at 10 for an
    # hour" turned into a date, a time and 60 minutes is not, so the words may not claim the values were invented.
    searched, either = "the person's words, a tool result, the instructions", "Either"
    if instructions_unlogged:
        searched = (f"the person's words, a tool result; the log does not keep the instructions, which may hold "
                    f"{'it' if one else 'them'}")
        either = "If they do not, either"
    return (f"The model filled {listed} in the {tool_name} call itself: "
            f"{'it appears' if one else 'they appear'} in no earlier message as written ({searched}).{among} "
            f"{either} the model read {'it' if one else 'them'} from something said another way "
            f"(a day as \"tomorrow\", a length as \"for an hour\"), or it made {'it' if one else 'them'} up: "
            f"the conversation alone cannot tell which.{given} A value the program knows should come from the "
            "program; one nobody gave, the model should ask the person for.")


_DEFAULT_SAID = re.compile(r"\bdefaults?(?:\s+(?:value|is|to|of))*\s*[:=]?\s*[\"'`“‘]?([^\s\"'`”’,;)]+)",
                           re.IGNORECASE)
"""A default a parameter's description states in words: `defaults to submitted`, `Default: 10`, `(default "c")`."""


class Source(NamedTuple):
    """Where the tool definition holds a value the model filled, though no earlier message does."""

    default: bool
    """The definition gives it as the parameter's default: in the schema's `default`, or in words in its
    description (`defaults to submitted`)."""
    where: str
    """The place, in our words, quoting the definition's own (`status's description: "…"`); empty for the schema's
    `default`, which the message names itself."""


def _quoted(text: str, value: object) -> str:
    """The definition's words around the value, as JSON: whole when short, else cut around where the value is."""
    line = " ".join(text.split())
    at = line.lower().find(str(value).lower())
    if len(line) > 90 and at >= 0:
        start, end = max(0, at - 40), min(len(line), at + len(str(value)) + 40)
        cut = line[start:end]
        # Whole words only: a word cut in two reads as another word.
        cut = cut.split(" ", 1)[-1] if start and " " in cut[: at - start] else cut
        cut = cut.rsplit(" ", 1)[0] if end < len(line) and " " in cut[at - start:] else cut
        line = ("…" if start else "") + cut + ("…" if end < len(line) else "")
    return json.dumps(shorten(line, 100), ensure_ascii=False)


def _holds(text: object, value: object) -> bool:
    """Whether a text of the tool definition holds the value as a message would (Said.holds)."""
    if not isinstance(text, str) or not text:
        return False
    said = Said(set(), set())
    said.add_text(text)
    return said.holds(value)


def definition_source(tool: ToolDefinition | None, name: str, value: object) -> Source | None:
    """Where the tool definition sent with the request holds the value the model filled for `name`: its schema's
    `default`, a default its description states, its `examples`, its description, or the tool's own description;
    None where it holds none of them. Only an exact copy is found, as in the messages (Said.holds)."""
    if tool is None or isinstance(value, bool) or value is None:
        return None
    parameter = _parameter(tool, name)
    if _is_default(tool, name, value):
        return Source(True, "")
    description = parameter.get("description")
    if isinstance(description, str):
        stated = [m.group(1) for m in _DEFAULT_SAID.finditer(description)]
        if any(said.lower() == str(value).lower() for said in stated):
            return Source(True, f"{name}'s description: {_quoted(description, value)}")
    examples = parameter.get("examples") if isinstance(parameter.get("examples"), list) else []
    if "example" in parameter:
        examples = [*examples, parameter["example"]]
    if any(example == value and isinstance(example, bool) == isinstance(value, bool) for example in examples):
        return Source(False, f"{name}'s examples")
    if _holds(description, value):
        return Source(False, f"{name}'s description: {_quoted(description, value)}")
    if _holds(tool.description, value):
        return Source(False, f"the tool's description: {_quoted(tool.description, value)}")
    return None


def _is_default(tool: ToolDefinition | None, name: str, value: object) -> bool:
    """Whether the value is the `default` the tool's schema gives this parameter: 1.0 is 1, but true is not."""
    parameter = _parameter(tool, name)
    default = parameter.get("default", object())
    return default == value and isinstance(default, bool) == isinstance(value, bool)


WRITE_VERBS = frozenset({
    "create", "add", "insert", "new", "update", "set", "edit", "modify", "change", "patch", "delete", "remove",
    "cancel", "submit", "send", "post", "publish", "book", "reserve", "pay", "transfer", "refund", "approve",
    "reject", "assign", "file", "order", "write", "save", "upload", "move", "close", "archive",
})
"""First words of a tool name that say the tool changes something (createExpenseSupplement, cancel_order)."""
ALONE_NOT_WRITE = frozenset({"add", "set", "new", "file", "order", "post", "move", "close", "change"})
"""Of those verbs, the ones that as a whole name more often compute or look something up: `add` of two numbers
(every tutorial's first tool), a `file` or an `order` fetched. With an object after them they change something."""
READ_VERBS = frozenset({"get", "fetch", "read", "list", "search", "find", "lookup", "load", "view", "show", "query",
                        "download", "retrieve", "describe", "count", "check"})
"""Verbs that only look something up. After a WRITE_VERBS word that is as often a thing (NOUN_FIRST), the first
word names that thing (file_fetch, order_lookup, post_search), and this verb what the tool does with it."""
NOUN_FIRST = frozenset({"file", "order", "post"})
"""Of ALONE_NOT_WRITE, the words that before a reading verb name a thing, not an act (add_list adds a list)."""
NUMBER_WORDS = frozenset({"number", "numbers", "two", "integers", "ints", "floats", "digits"})
"""Words after `add` that say it adds numbers together (add_numbers, add_two_numbers, addIntegers): it computes."""


def name_words(name: str) -> list[str]:
    """A tool name's words, lowercase: camelCase, snake_case, kebab-case and dotted names alike."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]


_HANDOFF = re.compile(r"\s*hand[- ]?off to\b", re.IGNORECASE)
"""How an agent handoff's description opens; the OpenAI Agents SDK writes "Handoff to the Symphony Composer agent to
handle the request." for its `transfer_to_symphony_composer` tool."""


_OUTPUT_TOOL = re.compile(r"final_result(?:_\w+)?|__mirascope_formatted_output_tool__|_structured_tool_call")
"""The names of the tool through which the model gives its structured answer: pydantic-ai's (`final_result`, or
`final_result_<Type>` for one of several output types), Mirascope's and ellmer's (`chat_structured()`), both of which
send it back as text."""


def is_output_tool(name: str, tool: ToolDefinition | None) -> bool:
    """Whether the call is the model's final answer in structured form (pydantic-ai's, Mirascope's or ellmer's output
    tool; pydantic-ai's default description is "The final response which ends this conversation") rather than a tool
    the program runs."""
    described = tool is not None and tool.description.startswith("The final response which ends this conversation")
    return described or _OUTPUT_TOOL.fullmatch(name) is not None


def is_handoff(tool: ToolDefinition | None) -> bool:
    """Whether the tool's description says it hands the conversation to another agent: the program's routing,
    which changes nothing itself, though its name starts with a verb that may (transfer_to_…)."""
    return tool is not None and bool(_HANDOFF.match(tool.description))


def declared_effect(trace: Trace, name: str) -> object:
    """What the trace header's `tool_effects` says the tool does (`write`, `read`, `narration`), or None."""
    declared = trace.header.get("tool_effects")
    return declared.get(name) if isinstance(declared, dict) else None


def is_write_tool(trace: Trace, name: str, tool: ToolDefinition | None = None) -> bool:
    """Whether a tool changes something: as the header's `tool_effects` declares it ("write"; "read" and
    "narration" do not), else when its name starts with a verb that changes things (WRITE_VERBS) and its
    definition, where the request has one, is not an agent handoff."""
    effect = declared_effect(trace, name)
    if effect in ("write", "read", "narration"):
        return effect == "write"
    if is_handoff(tool):
        return False
    words = name_words(name)
    if not words or words[0] not in WRITE_VERBS:
        return False
    if words[0] == "add" and set(words[1:]) <= NUMBER_WORDS:
        return False
    if words[0] in NOUN_FIRST and len(words) > 1 and words[1] in READ_VERBS:
        return False
    return len(words) > 1 or words[0] not in ALONE_NOT_WRITE


_APPROVALS = {"approved": "The execution records that a person approved it.",
              "declined": "The program declined to run it."}
"""What the trace says of a write call's approval, by the execution's `approval`."""
WAITING_FOR_APPROVAL = "The run is waiting for your approval: this call has not run."
"""What the write-tool-call finding says of a call a live run holds for the user's approval (awaiting_approval): its
trace records no approval because none has been given yet."""


WAITED_FOR_APPROVAL = "The run was waiting for approval when the trace was written: this call had not run."
"""What the write-tool-call finding says of a call the trace marks as waiting for a person (lib.model.AWAITING)."""


def _write_words(name: str, recorded: str) -> tuple[str, str]:
    """The write-tool-call finding's message and brief for a call of tool `name`, ending with what became of it."""
    return (f"{name} changes something: it is a write tool. The model can only ask for it; a person approves it "
            f"between the call intent (step 2) and the program running it (step 3), shown what it will do. {recorded}",
            f"A write tool: a person approves it here, before step 3 runs it. {recorded}")


def awaiting_approval(findings: Iterable[Finding], round_: Round, waiting: str | None) -> tuple[Finding, ...]:
    """`findings` as they read while a live run holds call `waiting` of `round_` for the user's approval: the
    write-tool-call finding on that call says the run waits for it, not that the trace records no approval."""
    findings = tuple(findings)
    call = next((c for c in round_.tool_calls if c.id == waiting), None) if waiting is not None else None
    if call is None:
        return findings
    path = join_path(round_.response.message_path, call.path)
    message, brief = _write_words(call.name, WAITING_FOR_APPROVAL)
    return tuple(replace(f, message=message, brief=brief)
                 if f.code == "write-tool-call" and f.round == round_.index and f.path == path else f for f in findings)


@check("write-tool-call")
def _write_tool_call(trace: Trace) -> Iterator[Hit]:
    for round_, call, path in _calls(trace):
        tool = _tool(round_.request, call.name)
        if round_.request.tools and tool is None:
            continue  # a tool the request does not offer changes nothing: unknown-tool says never run it
        if not is_write_tool(trace, call.name, tool):
            continue
        execution = round_.execution_of(call.id)
        recorded = _APPROVALS.get(execution.approval if execution else None, "The trace records no approval.")
        if execution is not None and execution.refused:
            recorded = "The program refused it before running, so nothing was changed and no approval was needed."
        if execution is None and round_.extra.get(AWAITING) == call.id:  # a live run's copy taken during the wait
            recorded = WAITED_FOR_APPROVAL
        yield Hit("info", round_.index, "response", path, *_write_words(call.name, recorded))


def _echo_differs(previous: Round, request: Request, i: int) -> tuple[int, str] | None:
    """Where the assistant turn that resends the previous response, from index `i` on, is not what the model wrote: the
    turn's index, and what differs in words."""
    turn = _turn_sent_back(request, i)
    if previous.response is None or not turn:
        return None
    written = previous.response.message
    as_written = [(c.id, c.name, c.arguments) for c in written.tool_calls]
    split = _split_turn(request, i, written.tool_calls)
    sent = [(c.id, c.name, c.arguments) for _, m in split for c in m.tool_calls]
    # Clients may drop null fields or thinking blocks; what matters is the text and the calls. Whitespace alone is not
    # text: Anthropic refuses an empty text block, so clients send " " where the model wrote none.
    text_written, text_sent = written.text.strip(), "".join(m.text for _, m in turn).strip()
    if as_written and not sent and text_sent and not text_written:
        return i, f"its {' and '.join(dict.fromkeys(c.name for c in written.tool_calls))} call is sent back as text"
    differences = []
    if len(split) > len(turn):
        differences.append(f"its {len(as_written)} calls are sent back in {len(split)} assistant messages, each after "
                           "the result of the one before, where the model made them in one turn")
    if text_sent != text_written:
        differences.append("the text the model wrote beside its calls is left out" if not text_sent and as_written
                           else "its text is left out" if not text_sent
                           else _text_added(written, text_sent) if not text_written
                           else _text_rewritten(text_written, text_sent))
    if sent != as_written:
        # Only the ids rewritten, each to a new one: missing-tool-result names every one of them, in so many words.
        # (Ids swapped between calls stay here: each result then answers another call.)
        same_calls = [c[1:] for c in sent] == [c[1:] for c in as_written]
        renamed = same_calls and not {c[0] for c in sent} & {c[0] for c in as_written}
        if not renamed:
            some_kept = sent and all(c in as_written for c in sent) and len(sent) < len(as_written)
            differences.append(f"it carries {len(sent)} of the {len(as_written)} calls the model made" if some_kept
                               else "its calls are not the calls the model made (tool, arguments or ids)")
    return (i, "; ".join(differences)) if differences else None


def _text_added(written: Message, sent: str) -> str:
    """What the text sent back in a turn whose answer held none is. A client may write the reasoning a provider
    returned beside the answer (Groq's `reasoning`) into the turn's content in <think> tags (pydantic-ai does): the
    model wrote those words, so they are not said to be someone else's."""
    inner = _THINK.sub(lambda m: m.group()[len("<think>"):].removesuffix("</think>"), sent).strip()
    returned = written.raw.values() if isinstance(written.raw, dict) else ()
    if _THINK.sub("", sent).strip() == "" and any(isinstance(v, str) and v.strip() == inner for v in returned):
        return ("it carries the reasoning the model returned beside its answer as the turn's text, in <think> tags, "
                "where the model wrote no text")
    refusal = written.raw.get("refusal") if isinstance(written.raw, dict) else None
    if isinstance(refusal, str) and refusal.strip() == sent:
        # The model's own words, moved: a client that keeps no refusal field (rig) writes the refusal as content.
        return ("it carries the model's refusal as the turn's text, where the model returned it in the refusal "
                "field and wrote no text")
    return "it carries text the model did not write in its answer"


def _text_rewritten(written: str, sent: str) -> str:
    """How the text sent back differs from the text the model wrote. A client that parses a structured answer and
    writes it out again (chatlas, ellmer) sends the same JSON with other spacing: said so, not left to be looked for."""
    if written[:1] in "{[" and sent[:1] in "{[":
        try:
            same = json.loads(written) == json.loads(sent)
        except (ValueError, RecursionError):  # trace text: not JSON, or nested past what the parser walks
            same = False
        if same:
            return "its text is the JSON the model wrote, written out again with the same values (other spacing or " \
                   "key order)"
    return "its text is not the text the model wrote"


@check("history-rewritten")
def _history_rewritten(trace: Trace) -> Iterator[Hit]:
    for previous, round_ in kept_pairs(trace):
        if round_.request.held_by_provider:
            continue  # the provider held the history: the program resent nothing that could differ
        # Interning makes an unchanged prefix cheap to see; only a break in it needs the full comparison.
        placed = growth(trace, round_.index) if round_.resent_prefix < len(previous.request.messages) else None
        # Other instructions are no history the model wrote: a handoff to another agent (OpenAI Agents SDK) sends the
        # run on under the next agent's own.
        instructions = placed is not None and not placed.dropped and bool(placed.changed) and all(
            e.index == 0 and e.message.role == "system" and e.previous.role == "system" for e in placed.changed)
        if instructions_added(round_, previous):
            yield Hit("info", round_.index, "request", "messages[0]",
                      f"This request puts instructions before the messages of round {previous.index}'s request, which "
                      "had none, and resends those unchanged after them: the model answers this round under "
                      "instructions it did not have before (a handoff to an agent that has them does this). That is "
                      "allowed, but it invalidates the prompt cache.")
        if instructions:
            yield Hit("info", round_.index, "request", "messages[0]",
                      f"The instructions differ from round {previous.index}'s: the model answers this round under "
                      "other instructions (a handoff to another agent does this). That is allowed, but it invalidates "
                      "the prompt cache.")
        if placed is not None and (placed.changed or placed.dropped) and round_.compacted:
            # A compaction is the agent's own summary put in place of the turns before it, the usual way to keep a
            # long session within the context window: nothing to fix, and no person's words were rewritten.
            left_out = f"the {plural(placed.dropped, 'message')}" if placed.dropped else "the messages"
            place = "its place" if placed.dropped == 1 else "their place"
            # A compaction call (Round.compaction) had the provider write it, not the program.
            # So did an ordinary call the provider compacted during, its item sent back alone (growth's origin).
            providers = previous.compaction or any(e.origin == "compaction" for e in placed.new)
            summary = (f"the compacted history the provider returned in round {previous.index}" if providers
                       else "a summary it wrote")
            yield Hit("info", round_.index, "request", "messages",
                      f"The program compacted the conversation before this request: it left out {left_out} of round "
                      f"{previous.index}'s request and sent {summary} in {place}, so the model works "
                      "from that summary from here on. Agents do this to keep a long session within the context "
                      "window. What the summary leaves out, the model no longer sees, and the prompt cache starts "
                      "again.")
        elif placed is not None and placed.dropped_at and not placed.changed:
            # Left out, not rewritten: what remains is what the model saw, resent unchanged and in order.
            earlier = previous.request.messages
            resent = plural(len(placed.resent), "other message")
            resent += " is" if len(placed.resent) == 1 else " are"
            if placed.dropped_at == (0,) and earlier[0].role == "system":
                yield Hit("warning", round_.index, "request", "messages",
                          f"This request resends round {previous.index}'s messages without the instructions they began "
                          f"with (the system message); the {resent} resent unchanged. The model answers this round "
                          "without those instructions, and the prompt cache starts again. If the model should keep "
                          "following them, send them with every request.")
            else:
                where = ", ".join(f"messages[{i}]" for i in placed.dropped_at[:5]) + (
                    ", …" if len(placed.dropped_at) > 5 else "")
                # None resent: the request left out the whole of the earlier one and goes on from its answer.
                kept = (f"the {resent} resent unchanged and in order" if placed.resent else
                        "it resends none of that request and goes on from the answer to it")
                yield Hit("warning", round_.index, "request", "messages",
                          f"This request leaves out {plural(placed.dropped, 'message')} of round {previous.index}'s "
                          f"request ({where} there); {kept}. The model no "
                          "longer sees what was left out, and the prompt cache starts again from the first gap. If "
                          "this is deliberate trimming, keep each call together with its result.")
            # What it resends is unchanged; the answer it sends back after them may not be.
            if (echo := _echo_hit(previous, round_)) is not None:
                yield echo
        elif placed is not None and (placed.changed or placed.dropped) and not instructions:
            counts = [plural(len(placed.changed), "resent message") + " changed"] if placed.changed else []
            counts += [left_out_count(placed.dropped)] if placed.dropped else []
            # Placed by matching (lib.growth.matched): what it put in among the history, and what it resent elsewhere.
            counts += [plural(len(placed.inserted), "new message") + " put in among the resent ones"] \
                if placed.inserted else []
            counts += [plural(len(placed.moved), "message") + " resent unchanged at another place"] \
                if placed.moved else []
            told = ", ".join(counts[:-1]) + " and " + counts[-1] if len(counts) > 1 else counts[0]
            first = placed.changed or placed.inserted
            path = f"messages[{first[0].index}]" if first else "messages"
            if round_.sent_on:
                yield Hit("info", round_.index, "request", path,
                          f"Compared with round {previous.index}'s request, {told}. "
                          + _sent_on_words(previous, round_))
            else:
                yield Hit("warning", round_.index, "request", path,
                          f"Compared with round {previous.index}'s request, {told}. The model now "
                          "reads a history it did not write, and the prompt cache is lost. If this is deliberate "
                          "trimming, keep each call together with its result.")
        elif answer_left_out(previous, round_):
            at = len(previous.request.messages)
            yield Hit("warning", round_.index, "request", f"messages[{at}]",
                      f"This request resends round {previous.index}'s messages and then a new user turn, without the "
                      f"answer round {previous.index} got: messages[{at}] is where the model's turn belongs, so the "
                      "model does not see what it said. Either the program left that answer out of the history, or "
                      "it asked anew on the same prompt; the log cannot tell which. To go on from the answer, send "
                      "the assistant turn back before the next user turn; a new question on the same prompt needs "
                      "nothing more.",
                      f"round {previous.index}'s answer is not sent back before the next user turn")
        elif (echo := _echo_hit(previous, round_)) is not None:
            yield echo


@check("history-inserted")
def _history_inserted(trace: Trace) -> Iterator[Hit]:
    # Messages put in among a history resent whole (lib.growth.Growth.inserted_only): nothing the model read is
    # rewritten or gone, so this is no history-rewritten; what it costs is the cache from the first one put in.
    for previous, round_ in kept_pairs(trace):
        if round_.request.held_by_provider or round_.resent_prefix >= len(previous.request.messages):
            continue  # the earlier request resent whole in front: anything after it is new, not put in among it
        placed = growth(trace, round_.index)
        if not placed.inserted_only:
            continue
        put_in = [e.index for e in placed.inserted]
        one = len(put_in) == 1
        yield Hit("info", round_.index, "request", f"messages[{put_in[0]}]",
                  f"This request resends every message of round {previous.index}'s request unchanged and in order, "
                  f"and puts {plural(len(put_in), 'new message')} in among them ({places_words(put_in)}): nothing "
                  f"is rewritten or left out. The model now reads its history with {'a message' if one else 'messages'}"
                  f" in it that {'was' if one else 'were'} not there when it answered (an agent that adds a memory "
                  "or context message each step does this). That is allowed, but the prompt cache starts again from "
                  f"{'that message' if one else 'the first of them'}.",
                  f"{plural(len(put_in), 'message')} put in among the history, nothing rewritten")


def _echo_hit(previous: Round, round_: Round) -> Hit | None:
    """The finding on the assistant turn `round_`'s request sends back where it is not what the model wrote in
    `previous`: looked for where the request goes on from that request (_sent_back_at: past the messages it resent,
    some of them left out or not), so a request that left its instructions out is read as growth reads it."""
    echo = _echo_differs(previous, round_.request, _sent_back_at(round_, previous))
    if echo is None:
        return None
    said = f"The assistant turn sent back here is not what the model wrote in round {previous.index}: {echo[1]}. "
    if round_.sent_on:
        return Hit("info", round_.index, "request", f"messages[{echo[0]}]", said + _sent_on_words(previous, round_))
    return Hit("warning", round_.index, "request", f"messages[{echo[0]}]",
               said + "Send the turn back as received, text beside the calls included.")


def _sent_on_words(previous: Round, round_: Round) -> str:
    """Why a history sent on to another provider's API (Round.sent_on) differs from what the model wrote: the program
    wrote it over in that API's format, which has no place for some of it. Nothing to fix short of not switching."""
    models = previous.request.model, round_.request.model
    to = f" ({models[1]}; round {previous.index} asked {models[0]})" if None not in models and models[0] != models[1] \
        else ""
    return (f"This request sends the conversation on to another provider's API{to}, in that API's own format: the "
            "program wrote the earlier turns over in it, and what that format writes otherwise (a call's id, a "
            "result's shape) or has no place for (the model's thinking) comes back changed, as text, or not at all. "
            "That is what passing a history to another provider's API does: the model of this round reads the "
            "earlier turns as the program wrote them over, not as they were written.")


@check("instructions-not-resent")
def _instructions_not_resent(trace: Trace) -> Iterator[Hit]:
    for previous, round_ in zip(trace.rounds, trace.rounds[1:]):
        before, now = previous.request.messages, round_.request.messages
        if round_.request.held_by_provider and before and before[0].role == "system" \
                and not (now and now[0].role == "system"):
            yield Hit("warning", round_.index, "request", "",
                      f"Round {previous.index} sent instructions and this request sends none. The provider keeps the "
                      "earlier items under previous_response_id (or the conversation), but it does not carry them "
                      "over: the model answers this round without its instructions. Send them with every request.")


@check("tools-changed")
def _tools_changed(trace: Trace) -> Iterator[Hit]:
    for previous, round_ in kept_pairs(trace):
        before, now = previous.request.tools, round_.request.tools
        if before == now:
            continue
        was, is_ = {t.name: t for t in before}, {t.name: t for t in now}
        added, removed = sorted(is_.keys() - was.keys()), sorted(was.keys() - is_.keys())
        edited = sorted(name for name in is_.keys() & was.keys() if is_[name] != was[name])
        what = [f"added {', '.join(added)}"] if added else []
        what += [f"removed {', '.join(removed)}"] if removed else []
        what += [f"{edited[0]}'s definition edited" if len(edited) == 1
                 else f"the definitions of {', '.join(edited)} edited"] if edited else []
        what += ["the tools sent in another order"] if not what else []
        models = previous.request.model, round_.request.model
        # Another model has a cache of its own: the earlier rounds never filled it, whatever the tools.
        cache = (f"This request goes to another model ({models[1]}; round {previous.index} asked {models[0]}), so no "
                 "prompt cache carries over in any case." if None not in models and models[0] != models[1] else
                 "That is allowed, but it invalidates the prompt cache.")
        yield Hit("info", round_.index, "request", _tools_path(round_.request),
                  f"The tool list differs from round {previous.index}'s ({'; '.join(what)}). {cache}"
                  + (" A model may still call a tool it saw earlier." if removed else ""))


@check("too-many-tools")
def _too_many_tools(trace: Trace) -> Iterator[Hit]:
    before: tuple[ToolDefinition, ...] = ()
    for round_ in trace.rounds:
        tools = round_.request.tools
        if len(tools) > TOO_MANY_TOOLS and tools != before:
            yield Hit("warning", round_.index, "request", _tools_path(round_.request),
                      f"This request offers {len(tools)} tools. Past about {TOO_MANY_TOOLS}, tools with similar "
                      "descriptions get confused. Merge look-alikes, or send only the tools this step needs.")
        before = tools


@check("repeated-call")
def _repeated_call(trace: Trace) -> Iterator[Hit]:
    # A loop is a call made again after its result came back: copies in one turn (three topics for three jokes)
    # were asked for together, before any result, and a copy the program dropped got none (missing-tool-result says
    # so), so only rounds whose copy was answered count, each once.
    # A copy whose results were not all the same (a die rolled, the time asked) told the model something new each
    # time: asked again, it is no loop on a result that says too little.
    answered: dict[tuple, dict[int, str]] = {}
    reported: set[tuple] = set()
    for round_, call, path in _calls(trace):
        key = (call.name, canonical_json(call.arguments) if call.arguments is not None else call.arguments_raw)
        if key in reported:
            continue
        results = answered.setdefault(key, {})
        earlier = [said for index, said in results.items() if index != round_.index]
        if len(earlier) >= SAME_CALL_LIMIT and len(set(earlier)) == 1:
            reported.add(key)
            yield Hit("warning", round_.index, "response", path,
                      f"{call.name} is called again with the same arguments, after the results of {SAME_CALL_LIMIT} "
                      "calls like it came back. The model is probably looping because the result does not tell it "
                      "what it needs. Make the result say plainly what happened, and cap the number of rounds.")
        elif (said := _result_sent(trace, round_, call)) is not None:
            results.setdefault(round_.index, said)


def _result_sent(trace: Trace, round_: Round, call: ToolCallPart) -> str | None:
    """The result the next request sends the model for this call, under its id or the id it was resent under; None
    where it sends none."""
    following = _next(trace, round_)
    if following is None or not following.request_recorded:
        return None  # the log does not show the model any result
    renamed = _renamed_call(following, round_, call)
    ids = {call.id, renamed[0]} if renamed is not None else {call.id}
    return next((p.content for _, p, _ in _appended(following, round_) if p.call_id in ids), None)


@check("reused-call-id")
def _reused_call_id(trace: Trace) -> Iterator[Hit]:
    made: dict[str, tuple[int, str]] = {}
    for round_, call, path in _calls(trace):
        if not call.id:
            continue
        if call.id in made:
            earlier_round, earlier_name = made[call.id]
            yield Hit("warning", round_.index, "response", path,
                      f"This {call.name} call has the id {call.id}, which the {earlier_name} call of round "
                      f"{earlier_round} already had. Its result can be paired with the wrong call, and providers may "
                      "reject the history: give every call its own id (rewrite duplicates before resending).")
        else:
            made[call.id] = (round_.index, call.name)


@check("call-sent-twice")
def _call_sent_twice(trace: Trace) -> Iterator[Hit]:
    # A program that rebuilds its history from events can append a call and its result it already holds (ADK's
    # runner, run again on the same session): the model reads the same exchange twice, as if it had called twice.
    # Where the provider names its calls (OpenAI, Anthropic), the same id is the same call. Where it names none
    # (Gemini: the ids are named by place, Round.extra "call ids"), two alike calls with alike results may be a call
    # the model made again (repeated-call): a copy is one that the logged responses made fewer times than the request
    # holds it, and at least once. Where no logged response made it (a log that starts mid-conversation, or one that
    # kept only this request), the request alone still shows the call and its result twice, in two turns: that much
    # is said, as info, with who added the second copy left open, since the log cannot tell.
    reported: set = set()
    made: dict[tuple, int] = {}
    paired: _CallsPaired | None = None
    for round_ in trace.rounds:
        if round_.request_recorded:
            by_place = "call ids" in (round_.extra.get("derived") or [])
            # Every request resends the one before: read on from where that one ended, so that a long trace is read
            # once, not once a round (1,000 rounds: 2.3 s read over and over).
            if paired is None or paired.by_place != by_place \
                    or resent_prefix(trace.rounds, round_.index) < paired.read:
                paired = _CallsPaired(by_place)
            paired.read_on(round_.request.messages)
            yield from _sent_twice_in(round_, paired, made, reported)
        for call in round_.tool_calls:
            key = _call_key(call)
            made[key] = made.get(key, 0) + 1


def _call_key(call: ToolCallPart) -> tuple:
    return call.name, canonical_json(call.arguments) if call.arguments is not None else call.arguments_raw


class _CallsPaired:
    """A request's calls, each with the first result after it that answers it, grouped by what makes two of them the
    same exchange (the call id, or where the provider gives none, name, arguments and result)."""

    def __init__(self, by_place: bool) -> None:
        self.by_place = by_place
        """Whether calls are told apart by what they say (the provider gives no ids) rather than by id."""
        self.read = 0
        """How many leading messages have been read."""
        self.copies: dict[object, list[tuple[int, int, int, ToolCallPart]]] = {}
        """Each exchange's copies: (the call's message, the call's place among all calls, its result's message, the
        call), in the order their results were read."""
        self.twice: set = set()
        """The exchanges held more than once."""
        self._waiting: list[tuple[int, int, ToolCallPart]] = []
        self._calls = 0

    def read_on(self, messages: tuple[Message, ...]) -> None:
        """Read the messages past those already read (the request before resent whole ahead of them)."""
        for j in range(self.read, len(messages)):
            results = messages[j].tool_results
            if results and self._waiting:
                waiting = []
                for i, n, call in self._waiting:
                    answer = next((part for part in results if part.call_id == call.id), None)
                    if answer is None:
                        waiting.append((i, n, call))
                        continue
                    key = (*_call_key(call), answer.content) if self.by_place else call.id
                    copies = self.copies.setdefault(key, [])
                    copies.append((i, n, j, call))
                    if len(copies) == 2:
                        self.twice.add(key)
                self._waiting = waiting
            for call in messages[j].tool_calls:  # one whose result never comes is missing-tool-result's
                self._waiting.append((j, self._calls, call))
                self._calls += 1
        self.read = len(messages)


def _sent_twice_in(round_: Round, paired: _CallsPaired, made: dict[tuple, int], reported: set) -> Iterator[Hit]:
    by_place = paired.by_place
    # In the order the request holds them, as the hits of every other check are.
    for key in sorted(paired.twice - reported, key=lambda k: min(copy[:2] for copy in paired.copies[k])):
        copies = sorted(paired.copies[key], key=lambda copy: copy[:2])
        unseen = by_place and made.get(key[:2], 0) == 0  # no logged response made this call
        if by_place and made.get(key[:2], 0) >= len(copies):
            continue  # the model made it as often as the request holds it: repeated-call's, if anything
        (first, _, first_result, call), (again, _, again_result, copy) = copies[0], copies[1]
        if unseen and first == again:
            continue  # both in one turn: the model asked for them together, whatever the log kept of it
        reported.add(key)
        named = ("the provider gives calls no id, so they are alike in name, arguments and result"
                 if by_place else f"call id {call.id}")
        held = (f"{call.name} {_as_json(call.arguments)} and its result are in messages[{first}] and "
                f"messages[{first_result}], and again in messages[{again}] and messages[{again_result}] ({named}).")
        where = join_path(f"messages[{again}]", copy.path)
        if unseen:
            yield Hit("info", round_.index, "request", where,
                      f"This request holds the same call and result twice: {held} No response in the log made this "
                      "call, so whether the model made it twice or the program added a copy of it is not known from "
                      "the log. Either way the model reads two calls, and the second costs its tokens on every round "
                      "after. If the program rebuilds the history from its events, check that it appends each call "
                      "and its result once.",
                      f"{call.name}: call and result in the request twice")
            continue
        yield Hit("warning", round_.index, "request", where,
                  f"The model reads the same call and result twice: {held} It reads as a second call the model made, "
                  "and costs its tokens on every round after. Append each call and its result once: a program that "
                  "rebuilds the history from its events should not add a turn it already holds.",
                  f"{call.name}: call and result sent twice")


_MESSAGE_INDEX = re.compile(r"\bmessages?\.?\[?(\d+)\]?")
"""`messages.5:` (Anthropic), `messages.[6].role` (OpenAI's `param`), `messages[3]`."""


def _offending_message(request: Request, said: str) -> int | None:
    """The message a provider's error text points at: by its index, else by a call id it names."""
    for found in _MESSAGE_INDEX.finditer(said):
        if int(found.group(1)) < len(request.messages):
            return int(found.group(1))
    for i, message in enumerate(request.messages):
        ids = [c.id for c in message.tool_calls] + [r.call_id for r in message.tool_results]
        if any(re.search(rf"(?<![\w-]){re.escape(id_)}(?![\w-])", said) for id_ in ids if id_):
            return i
    return None


@check("provider-error")
def _provider_error(trace: Trace) -> Iterator[Hit]:
    # A replay miss, or a call Roundtrip would not send, reached no provider: nothing in it was refused or failed,
    # and its card says so already.
    following = dict(zip((r.index for r in trace.rounds), trace.rounds[1:]))
    for round_, error in ((r, r.error) for r in trace.rounds if r.error is not None and not is_unsent(r.error)):
        index = _offending_message(round_.request, f"{error.message} {json.dumps(error.body, ensure_ascii=False)}")
        # A log that kept no status says nothing about the connection: claim only what it recorded.
        status = f"with HTTP {error.status}" if error.status is not None else "(HTTP status not recorded)"
        pointer = f", pointing at messages[{index}]" if index is not None else ""
        # A status recorded with an empty body: the message is the status we wrote, not words the provider sent.
        words = (f"{undecoded} " if (undecoded := undecoded_words(error)) is not None
                 else "It sent no words: the response body was empty. " if wordless(error)
                 else f"Its words: \"{shorten(error.message, 240)}\" ")
        rejected = error.rejected_generation
        # An error event that ended a stream came after the HTTP status, which said the answer was on its way: the
        # status the event names is not the call's.
        refused = (f"The provider stopped this answer part way{pointer}: {stream_ended_words(error)}."
                   if error.ended_stream else f"The provider refused this request {status}{pointer}.")
        if (unrun := unrun_in_batch(error)) is not None:  # no HTTP exchange, no provider: the batch ended first
            ended = "expired" if unrun == "expired" else "was canceled"
            said = (f"The batch never ran this request: the batch {ended} before its turn came. {words}No provider "
                    "looked at the request, so nothing in it was at fault: send it again, in a new batch.")
        elif rejected:  # the model's output refused after the fact: the request itself was fine
            said = (f"{refused} {words}What the model wrote, rejected: "
                    f"\"{shorten(rejected, 240)}\" The model did answer: the provider rejected what it wrote and "
                    "returned no response. Send the request again, or append the rejected call with the reason so "
                    "the model can correct it.")
        elif no_answer(error) and not error.status:  # Roundtrip recorded that nothing answered: no status to miss
            said = (f"This call got no answer{pointer}: {shorten(error.message, 240)} Nothing came back from the "
                    "provider, so nothing says the request was at fault: send it again (with a longer timeout or "
                    "deadline for a slow model), or check the address and the network if the connection failed.")
        elif answered_without_turn(error):  # a body came back under a success status, but no model turn in it
            said = (f"The server answered this request {status}{pointer}, but its body held no model turn. "
                    f"{words}The program had nothing to read or append: send it again, and if a 200 keeps coming "
                    "back without an answer, the server (or a gateway in front of the model) is reporting a failure "
                    "under a success status.")
        elif error.status in (401, 403) and not error.ended_stream:  # the caller refused, not what the request says
            said = (f"The provider refused this request {status}. {words}HTTP {error.status} refuses the caller (the "
                    "API key, or what it may use), not what the request says: the model saw nothing of this round. "
                    "Send it again with a key the API accepts for this model.")
        elif _refusal(error.status):
            said = f"{refused} {words}" + ("The provider returned no answer for this round: fix the request and send "
                                            "it again." if error.ended_stream else
                                            "The model saw nothing of this round: fix the request and send it again.")
        else:  # a timeout, an overloaded server: nothing says the request was at fault
            # A response the failure broke off (a Claude Code stream cut mid-response) did partly come back.
            came = ("The response broke off part way: what came before the failure is shown, and " if round_.response
                    else "No response came back, and ")
            failed = (f"This call failed part way{pointer}: {stream_ended_words(error)}." if error.ended_stream
                      else f"This call failed {status}{pointer}.")
            said = (f"{failed} {words}{came}"
                    + ("the status is the provider's trouble, not the request's: send it again after a pause."
                       if _numeric_status(error.status) else
                       "the log does not say whether the request was at fault: read the words before sending it again."))
        tries = round_statuses(round_)
        if tries_said(tries) is not None:  # "send it again" reads otherwise as if it had been sent once
            # A log holds the same body sent again, not whether the SDK or the program sent it.
            sender = "It was sent" if failed_tries(round_) else "The SDK sent it"
            said += f" {sender} {len(tries)} times in all, this try the last: {tries_words(tries)}."
        if (after := following.get(round_.index)) is not None and sent_again(round_, after):
            # A retry logged as the next round (an SDK's through the recording proxy): the advice alone read as undone.
            said += f" Round {after.index} sends the same request again."
        yield Hit("error", round_.index, "request", f"messages[{index}]" if index is not None else "", said)


def _numeric_status(status: object) -> bool:
    return isinstance(status, int) and not isinstance(status, bool)


def _refusal(status: object) -> bool:
    """An HTTP status that blames the request: a 4xx, but not a timeout (408) or a rate limit (429)."""
    return _numeric_status(status) and 400 <= status < 500 and status not in (408, 429)


@check("declined-call")
def _declined_call(trace: Trace) -> Iterator[Hit]:
    for round_ in trace.rounds:
        for i, execution in enumerate(round_.executions):
            if execution.approval == "declined":
                yield Hit("info", round_.index, "execution", f"executions[{i}]",
                          f"The program declined to run {execution.name} ({execution.tool_call_id}). That is the right "
                          "move when the model picked the wrong tool or a person said no, as long as the result tells "
                          "the model so in plain words and it can choose another way.")
