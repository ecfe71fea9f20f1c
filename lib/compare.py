"""Two runs side by side, round by round: which rounds match, and what differs in each pair.

Rounds are aligned by what they say, not by their index, so a round one run has and the other
lacks shows as inserted or removed instead of shifting every later pair. What a round says is
read through lib/dialects/equivalence (texts, calls and results, whatever the dialect), with each
call id replaced by its tool's name: ids are made up afresh by every run, so two runs that did the
same thing never share them.

No Streamlit here. Token figures come from lib.summary's rows and costs from lib.prices, so a
round costs here what it costs on the Tokens page.

It runs past 400 lines because alignment, the per-round verdict and the detail of the pair on
screen (messages, tools, calls) read the same RoundContent; split apart, each would need it passed
around or built again.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Literal

from lib.checks import Finding
from lib.dialects.equivalence import message_items
from lib.failures import unmade_words
from lib.model import Message, Request, Round, ToolCallPart, Trace
from lib.prices import Price, TraceCost
from lib.text import plural
from lib.summary import (NOT_IN_THE_LOG, UNMADE_SAID, RoundSummary, billing_known, cost_known, round_cost,
                         rows_cost, snowball, stop_inferred, tokens_words, tool_list_kept, tool_list_never_logged,
                         not_logged_on_opt_in, parts_not_logged, unanswered_left_out)

Item = tuple
"""One thing the model reads: (`text`, role, text), (`call`, tool, arguments as JSON) or (`result`, tool, content)."""

ABSENT = object()
"""An argument one side has and the other does not."""

ANSWER_MISSING = {
    "no answer": ("call got no answer",
                  "call got no answer (it failed, or was never made): it has no calls or text to compare"),
    "not captured": ("answer was not in the log",
                     "answer was not in the log (it kept the call's figures and finish, not what the model wrote): "
                     "its calls and text are not known"),
    "not in the log": ("answer was not in the log", "answer was not in the log: its calls and text are not known"),
}
"""Why a round's answer is not known (RoundContent.answer_missing): the verdict's words, and the detail's."""


@dataclass(frozen=True, slots=True)
class Run:
    """One side of a comparison: a trace and what is already derived from it."""

    name: str
    """What the user calls it: a bundled name, a file, or an upload's conversation."""
    trace: Trace
    """The trace."""
    rows: tuple[RoundSummary, ...]
    """lib.summary's row per round: tokens, finish, model."""
    findings: tuple[Finding, ...]
    """The pitfall checks' findings."""


@dataclass(frozen=True, slots=True)
class RoundContent:
    """What one round says, whatever dialect wrote it and whatever ids its calls got."""

    added: tuple[Item, ...]
    """The request's items new since the previous request (all of them in the first round, system included)."""
    tools: tuple[tuple[str, str, str], ...]
    """Each tool sent: name, description, schema as canonical JSON."""
    answer: tuple[Item, ...]
    """The response's texts and calls; empty without a response."""
    stop: str | None
    """The normalized stop signal, or None without a response."""
    results: tuple[Item, ...]
    """The results the next request carried back for this round's calls."""
    finish: str = "finish: none recorded"
    """The stop signal as the payload writes it (`finish_reason: stop`, `stop_reason: tool_use`); `stop` compares."""
    request_recorded: bool = True
    """False when the log kept no request for this round: its messages and tools are not known, not empty."""
    tools_recorded: bool = True
    """False when the log kept no tool list though the model called tools (lib.summary.tool_list_kept): the tools
    are not known, not none."""
    tools_never_logged: bool = False
    """True when the log's format never keeps the tool list (lib.summary.tool_list_never_logged, Claude Code's):
    whether or not the model called a tool, the tools are not known."""
    instructions_never_logged: bool = False
    """True when the log's format never keeps the instructions (lib.summary.parts_not_logged: Claude Code's, Gemini
    CLI's): what the request sent as its system prompt is not known, not absent."""
    answer_missing: str | None = None
    """Why the round's answer is not known (a key of ANSWER_MISSING), so that its calls and text are not compared: an
    answer the round never got, or one the log did not keep, is not an answer without calls or text. None when known."""
    kept_on_opt_in: bool = False
    """True when what the log's format does not keep, it keeps where the instrumentation opts in
    (lib.summary.not_logged_on_opt_in: an OpenTelemetry GenAI span): the page says so, not that it never does."""

    @property
    def calls(self) -> tuple[Item, ...]:
        """The calls of the answer."""
        return tuple(item for item in self.answer if item[0] == "call")

    @property
    def key(self) -> tuple:
        """Everything the round says: equal keys are the same round. Its results are left out: they are what the
        next request sends, so a changed result makes the next round differ, not this one."""
        return self.added, self.tools, self.answer, self.stop

    @property
    def request_shape(self) -> tuple:
        """What the request added, without its words: each item's kind and its role or tool."""
        return tuple(item[:2] for item in self.added)

    @property
    def shape(self) -> tuple:
        """The tools it called and how it stopped: rounds of the same shape are one round done differently."""
        return tuple(item[1] for item in self.calls), self.stop


@dataclass(frozen=True, slots=True)
class ArgumentChange:
    """One argument that differs between two calls of the same tool."""

    path: str
    """Where it sits in the arguments, e.g. `city_tier` or `items[0].amount`."""
    left: object
    """The left call's value (ABSENT when it has none)."""
    right: object
    """The right call's value (ABSENT when it has none)."""

    @property
    def line(self) -> str:
        """city_tier: 2 → 3 (plain text: shown with st.text and in tables, where backticks would stay as they are)."""
        return f"{self.path}: {_shown(self.left)} → {_shown(self.right)}"


@dataclass(frozen=True, slots=True)
class RoundPair:
    """Two aligned rounds, or a round only one run has, with what differs between them."""

    left: int | None
    """The left run's 1-based round, or None when only the right run has this round."""
    right: int | None
    """The right run's 1-based round, or None when only the left run has it."""
    verdict: str
    """What differs, in one line: `same`, or e.g. "same call, different arguments: `city_tier` 2 → 3"; HISTORY_DIFFERS
    where the rounds say the same after histories that differ."""
    same: bool
    """True when both rounds say the same (tokens and cost may still differ), whatever history each resends."""
    tokens_left: tuple[int | None, int | None] | None
    """The left round's input and output tokens, as lib.summary reports or estimates them, each None where the log
    gives no figure (RoundSummary.input_if_known, output_if_known)."""
    tokens_right: tuple[int | None, int | None] | None
    """The right round's input and output tokens."""
    cost_left: float | None
    """The left round's cost in USD, None without a price or when it is not known (cost_known_left)."""
    cost_right: float | None
    """The right round's cost in USD."""
    findings_left: tuple[str, ...]
    """Codes of findings in the left round that the right round lacks."""
    findings_right: tuple[str, ...]
    """Codes of findings in the right round that the left round lacks."""
    estimated_left: bool = False
    """The left round's tokens are our offline estimate: its call reported no usage."""
    estimated_right: bool = False
    """The right round's tokens are our offline estimate."""
    words_left: tuple[str, str] | None = None
    """The left round's input and output tokens as the Tokens page writes them (lib.summary.tokens_words)."""
    words_right: tuple[str, str] | None = None
    """The right round's input and output tokens in words."""
    cost_known_left: bool = True
    """The left round's cost can be worked out (lib.summary.cost_known): the log has its request and its answer."""
    cost_known_right: bool = True
    """The right round's cost can be worked out."""
    failed_left: bool = False
    """The left round's call failed and whether the provider billed it, the log does not say (BILLING_NOT_KNOWN,
    lib.summary.billing_known): its cost is not known."""
    failed_right: bool = False
    """The right round's call failed."""
    unanswered_left: bool = False
    """The log holds no response to the left round's request: whether the provider billed it, the log does not say
    (lib.summary.unanswered_left_out)."""
    unanswered_right: bool = False
    """The log holds no response to the right round's request."""
    unmade_left: bool = False
    """The left round made no call (RoundSummary.sent): no provider saw its request, so it costs nothing."""
    unmade_right: bool = False
    """The right round made no call."""
    differs: bool = True
    """True when the rounds differ in something both logs hold; with `same` False, a pair whose verdict says only what
    was not compared (lib.compare.differs)."""

    @property
    def billing_words(self) -> str | None:
        """Beside the pair's cost: which side's call was never made, or failed, whose billing the log does not say;
        None when neither."""
        unmade = [side for side, no in (("left", self.unmade_left), ("right", self.unmade_right)) if no]
        if unmade:
            whose = "Neither call was made" if len(unmade) == 2 else f"The {unmade[0]} call was never made"
            return f"{whose}: {UNMADE_SAID}."
        # The cost of such a call is not known (lib.summary.cost_known): the figure beside these words says so.
        said = []
        for happened, flags in (("failed, and the log does not say", (self.failed_left, self.failed_right)),
                                ("no response in the log, so it does not say", (self.unanswered_left,
                                                                                 self.unanswered_right))):
            sides = [side for side, flag in zip(("left", "right"), flags) if flag]
            if not sides:
                continue
            both = len(sides) == 2
            whose = "Both calls" if both else f"The {sides[0]} call"
            verb = "" if happened.startswith("failed") else ("have " if both else "has ")
            said.append(f"{whose} {verb}{happened} whether the provider billed {'them' if both else 'it'}: "
                        f"{'their' if both else 'its'} cost is not known.")
        return " ".join(said) or None


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One run's totals, for the summary at the top."""

    name: str
    """The run's name."""
    rounds: int
    """Model calls."""
    calls: int
    """Tool calls over the rounds whose answer the log kept (RoundSummary.calls_if_known)."""
    calls_unknown: int
    """Rounds whose calls are not known: their answer is not in the log."""
    calls_words: str
    """calls as a sum the log can give: NOT_IN_THE_LOG when no round's calls are known, else how many rounds it leaves
    out."""
    input_tokens: int
    """Input tokens over the rounds whose input and billing are known (Snowball.billed_input)."""
    output_tokens: int
    """Output tokens over the rounds whose output and billing are known (Snowball.output)."""
    estimated_calls: int
    """Rounds whose usage was not reported, so their tokens in the sums are our offline estimate."""
    input_words: str
    """input_tokens as the Tokens page writes its total (Snowball.billed_input_words): `≈`, or what it leaves out."""
    output_words: str
    """output_tokens as the Tokens page writes its total (Snowball.output_words)."""
    cost: TraceCost
    """USD over the rounds with a price, and the models that have none."""
    findings: int
    """Findings of the pitfall checks."""
    input_figure: str = ""
    """input_tokens as a figure alone, as the Tokens page's metric shows it (Snowball.billed_input_figure): a table cell
    the browser does not cut short."""
    input_left_out: str = ""
    """The calls input_figure leaves out, said beneath it as the Tokens page says it (Snowball.billed_input_left_out);
    empty when none."""
    output_figure: str = ""
    """output_tokens as a figure alone (Snowball.output_figure): a table cell the browser does not cut short."""
    output_left_out: str = ""
    """The calls output_figure leaves out, said beneath it (Snowball.output_left_out); empty when none."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two runs aligned round by round."""

    left: RunFigures
    """The left run's totals."""
    right: RunFigures
    """The right run's totals."""
    pairs: tuple[RoundPair, ...]
    """The aligned rounds, in order."""

    @property
    def first_divergence(self) -> int | None:
        """The 1-based position in `pairs` of the first pair that differs in what both logs hold (RoundPair.differs),
        or None when none does."""
        return next((n for n, pair in enumerate(self.pairs, start=1) if pair.differs), None)

    @property
    def first_uncompared(self) -> int | None:
        """The 1-based position of the first pair not compared in full, where nothing the logs hold differs (a request
        or an answer not in a log): not known to be the same; None when there is none."""
        return next((n for n, pair in enumerate(self.pairs, start=1) if not pair.same and not pair.differs), None)


# --- what a round says -------------------------------------------------------------------------------


def _call_names(trace: Trace) -> dict[str, str]:
    """Each call id's tool: from the responses, and from the assistant messages the requests carry, where a call the
    log has no response of is named (a refused generation the program sent back with its result)."""
    # Only the messages each request adds are read, so that a long trace is read once, not once per round.
    named: dict[str, str] = {}
    previous = 0
    for round_ in trace.rounds:
        messages = round_.request.messages
        for message in messages[previous:] if previous <= len(messages) else messages:
            named.update((call.id, call.name) for call in message.tool_calls)
        previous = len(messages)
    named.update((call.id, call.name) for round_ in trace.rounds for call in round_.tool_calls)
    return named


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class Arguments(str):
    """A call's arguments as canonical JSON, which two calls are compared by (keys sorted, spacing alike), carrying
    the arguments as the model wrote them (`written`), which is what a person is shown: sorted keys and `3860.0`
    for the model's `3860.00` are not what the model read back."""

    written: str

    @classmethod
    def of(cls, call: ToolCallPart) -> "Arguments":
        # Arguments that do not parse compare by their text, so two different broken texts are not both `null`.
        found = cls(_canonical(call.arguments if call.arguments_error is None else call.arguments_raw))
        found.written = call.arguments_raw
        return found


def _neutral(message: Message, names: dict[str, str]) -> list[Item]:
    """A message's items with call ids replaced by tool names and instruction roles named alike."""
    out = []
    calls = iter(message.tool_calls)  # message_items lists them in this order, after the results and the texts
    for item in message_items(message):
        if item[0] == "call":
            out.append(("call", item[2], Arguments.of(next(calls))))
        elif item[0] == "result":
            out.append(("result", names.get(item[1], "?"), item[2]))
        else:
            out.append(("text", "system" if item[1] == "developer" else item[1], item[2]))
    return out


def _request_items(messages: tuple[Message, ...], names: dict[str, str]) -> list[Item]:
    return [item for message in messages for item in _neutral(message, names)]


def conversation(request: Request, names: dict[str, str]) -> list[Item]:
    """The whole request as the model reads it: the system prompt (wherever the dialect puts it), then the messages."""
    return _system_items(request, names) + _request_items(request.messages, names)


def _system_items(request: Request, names: dict[str, str]) -> list[Item]:
    system = _neutral(request.system, names) if request.system is not None else []
    return [("text", "system", item[2]) for item in system]


def round_contents(trace: Trace) -> tuple[RoundContent, ...]:
    """What each round says; linear in the messages each round adds."""
    names = _call_names(trace)
    listed = tool_list_kept(trace)
    never = any(tool_list_never_logged(r) for r in trace.rounds)
    unlogged = any("instructions" in parts_not_logged(r) for r in trace.rounds)
    opt_in = any(not_logged_on_opt_in(r) for r in trace.rounds)
    found: list[RoundContent] = []
    previous = 0
    for round_ in trace.rounds:
        request = round_.request
        added = conversation(request, names) if previous == 0 else _request_items(request.messages[previous:], names)
        response = round_.response
        answer = tuple(_neutral(response.message, names)) if response is not None else ()
        tools = tuple((t.name, t.description, _canonical(t.parameters)) for t in request.tools)
        found.append(RoundContent(tuple(added), tools, answer, response.stop if response else None, (),
                                  finish_written(round_), round_.request_recorded, listed, never, unlogged,
                                  _answer_missing(round_), opt_in))
        previous = len(request.messages)
    # A round's results arrive in the next request.
    return tuple(
        RoundContent(c.added, c.tools, c.answer, c.stop,
                     tuple(i for i in found[n + 1].added if i[0] == "result") if n + 1 < len(found) else (), c.finish,
                     c.request_recorded, c.tools_recorded, c.tools_never_logged, c.instructions_never_logged,
                     c.answer_missing, c.kept_on_opt_in)
        for n, c in enumerate(found)
    )


def _answer_missing(round_: Round) -> str | None:
    """Why the round's answer is not known (ANSWER_MISSING), or None when it is."""
    if round_.response is None:
        return "no answer" if round_.error is not None else "not in the log"
    return None if round_.answer_recorded else "not captured"


# --- alignment -----------------------------------------------------------------------------------------


def _matched(left: list, right: list) -> list[tuple]:
    return difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes()


def _paired(left: list[int], right: list[int], keys: list) -> list[tuple[int | None, int | None]]:
    """Rounds in a stretch that differs, paired by the first key, then within what still differs by the next
    ones, then by position; what is left over is inserted or removed."""
    if not keys:
        shared = min(len(left), len(right))
        return [*zip(left, right), *((i, None) for i in left[shared:]), *((None, j) for j in right[shared:])]
    key, rest = keys[0], keys[1:]
    out: list[tuple[int | None, int | None]] = []
    for tag, i1, i2, j1, j2 in _matched([key[0][i] for i in left], [key[1][j] for j in right]):
        a, b = left[i1:i2], right[j1:j2]
        if tag == "equal":
            out += list(zip(a, b))
        elif tag == "replace":
            out += _paired(a, b, rest)
        else:
            out += [(i, None) for i in a] + [(None, j) for j in b]
    return out


def align(lefts: tuple[RoundContent, ...], rights: tuple[RoundContent, ...]) -> list[tuple[int | None, int | None]]:
    """0-based round positions paired: rounds that say the same first; between them, rounds whose requests have
    the same shape (a fork's edited round beside the round it redoes), then rounds that call the same tools."""
    keys = [tuple([hash(c.key) for c in side] for side in (lefts, rights)),
            tuple([c.request_shape for c in side] for side in (lefts, rights)),
            tuple([c.shape for c in side] for side in (lefts, rights))]
    return _paired(list(range(len(lefts))), list(range(len(rights))), keys)


# --- what differs --------------------------------------------------------------------------------------


def _shown(value) -> str:
    return "(absent)" if value is ABSENT else json.dumps(value, ensure_ascii=False)


def argument_changes(left, right, path: str = "") -> list[ArgumentChange]:
    """Every value that differs between two parsed argument objects, nested objects followed into."""
    if isinstance(left, dict) and isinstance(right, dict):
        out = []
        for key in [*left, *(k for k in right if k not in left)]:
            inner = f"{path}.{key}" if path else str(key)
            out += argument_changes(left.get(key, ABSENT), right.get(key, ABSENT), inner)
        return out
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [c for n, (a, b) in enumerate(zip(left, right)) for c in argument_changes(a, b, f"{path}[{n}]")]
    return [] if left == right else [ArgumentChange(path or "(arguments)", left, right)]


def _arguments(item: Item):
    return json.loads(item[2])


def _calls_verdict(left: RoundContent, right: RoundContent) -> str | None:
    if left.calls == right.calls:
        return None
    if left.shape[0] != right.shape[0]:
        return f"different calls: {_call_list(left)} → {_call_list(right)}"
    changes = [c for a, b in zip(left.calls, right.calls) for c in argument_changes(_arguments(a), _arguments(b))]
    return "same call, different arguments: " + ", ".join(c.line for c in changes)


def _call_list(content: RoundContent) -> str:
    return ", ".join(content.shape[0]) or "no call"


def _lacking(left_kept: bool, right_kept: bool) -> str | None:
    """Which side's log lacks something: `left`, `right` or `neither` (both lack it); None when both kept it."""
    if left_kept and right_kept:
        return None
    if not (left_kept or right_kept):
        return "neither"
    return "left" if not left_kept else "right"


def _unlisted(left: RoundContent, right: RoundContent) -> str | None:
    """Whose log kept no tool list (_lacking)."""
    return _lacking(left.tools_recorded, right.tools_recorded)


def unlisted_words(left: RoundContent, right: RoundContent) -> str | None:
    """Where the tools of two rounds would be compared: which side's log kept no tool list, so that they are not;
    None when both kept theirs."""
    side = _unlisted(left, right)
    if side is None:
        return None
    if side == "neither" and left.tools_never_logged and right.tools_never_logged:
        return (f"Neither run's log keeps a tool list (their format {_unkept_words(left, right, it='one')}): their "
                "tools are not known.")
    if side == "neither" and (left.tools_never_logged or right.tools_never_logged):
        never, called = ("left", "right") if left.tools_never_logged else ("right", "left")
        unkept = _unkept_words(*((left,) if never == "left" else (right,)), it="one")
        return (f"Neither run's log kept a tool list (the {never} run's format {unkept}; the {called} run's model "
                "called tools): their tools are not known.")
    if side == "neither":
        return "Neither run's log kept a tool list, though their models called tools: their tools are not known."
    if (left if side == "left" else right).tools_never_logged:
        return (f"The {side} run's log keeps no tool list (its format "
                f"{_unkept_words(left if side == 'left' else right, it='one')}): its tools are not known.")
    return f"The {side} run's log kept no tool list, though its model called tools: its tools are not known."


def _tools_verdict(left: RoundContent, right: RoundContent) -> str | None:
    side = _unlisted(left, right)
    if side is not None:  # an unknown list compared as an empty one would have every tool of the other "removed"
        return (None if side == "neither" else
                f"the {side} run's log kept no tool list, so the tools are not compared")
    if left.tools == right.tools:
        return None
    return "tool list changed: " + ", ".join(f"{c.name} {c.status}" for c in tool_changes(left, right))


def _uninstructed(left: RoundContent, right: RoundContent) -> str | None:
    """Whose log's format never keeps the instructions (_lacking)."""
    return _lacking(not left.instructions_never_logged, not right.instructions_never_logged)


def _added_verdict(left: RoundContent, right: RoundContent) -> str | None:
    a, b = left.added, right.added
    side, said = _uninstructed(left, right), None
    if side is not None:
        # Instructions one log never keeps, compared with the other's, would read as "different system message sent".
        a, b = _unsystem(a), _unsystem(b)
        if len(a) + len(b) < len(left.added) + len(right.added):
            said = ("neither run's log keeps the instructions, so they are not compared" if side == "neither"
                    else f"the {side} run's log keeps no instructions, so they are not compared")
    verdict = _items_verdict(a, b)
    return "; ".join(s for s in (said, verdict) if s) or None


def uninstructed_words(left: RoundContent, right: RoundContent) -> str | None:
    """Beside the two requests' messages: that one side's log never keeps the instructions, so the other's are
    listed as only there, not as instructions the first did without; or that neither log keeps them; None when both
    logs keep theirs."""
    side = _uninstructed(left, right)
    if side is None:
        return None
    if side == "neither":
        return (f"Neither run's log keeps the instructions (their format {_unkept_words(left, right, it='them')}): "
                "what either sent as its system prompt is not known, so it is not compared.")
    other = "left" if side == "right" else "right"
    lacking = left if side == "left" else right
    # A span's format keeps the instructions only on opt-in: whether any were sent is not in it, as the Tokens page says.
    sent = (f"though whether the {side} run sent any is not in its log" if lacking.kept_on_opt_in
            else f"though the {side} run sent its own, which are not known")
    return (f"The {side} run's log keeps no instructions (its format {_unkept_words(lacking, it='them')}): the "
            f"{other} run's are listed as only in the {other}, {sent}.")


def _unkept_words(*sides: RoundContent, it: str) -> str:
    """How the format of these runs' logs keeps what they lack, as the Tokens page says it (RoundContent.kept_on_opt_in,
    lib.summary.not_logged_on_opt_in): only where the instrumentation opts in for an OpenTelemetry span, else not
    always, as an agent's session log never does."""
    if all(side.kept_on_opt_in for side in sides):
        return f"keeps {it} only where the instrumentation opts in, as an OpenTelemetry GenAI span does"
    return f"does not always keep {it}, as an agent's session log never does"


def _unsystem(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """The items without the system prompt's."""
    return tuple(item for item in items if item[:2] != ("text", "system"))


def _items_verdict(left: tuple[Item, ...], right: tuple[Item, ...]) -> str | None:
    """What differs between the items two requests added, in a few words; None when nothing does."""
    if left == right:
        return None
    differing = [a for a, b in zip(left, right) if a != b]
    first = differing[0] if differing else None
    if first is not None and first[0] == "result":
        tools = list(dict.fromkeys(item[1] for item in differing if item[0] == "result"))
        return f"different result{'s' if len(tools) > 1 else ''} of {', '.join(tools)} sent"
    if first is not None and first[0] == "text":
        return f"different {first[1]} message sent"
    return "different messages sent"


def _unrecorded(left: RoundContent, right: RoundContent) -> str | None:
    """Whose request the log did not keep (_lacking)."""
    return _lacking(left.request_recorded, right.request_recorded)


def unrecorded_words(left: RoundContent, right: RoundContent) -> str | None:
    """Where the messages and tools of two rounds would be compared: which side's request the log did not keep, so
    that they are not; None when both sides kept theirs."""
    side = _unrecorded(left, right)
    if side is None:
        return None
    if side == "neither":
        return "Neither run's request was in the log: what either sent is not known."
    return f"The {side} run's request was not in the log: what it sent is not known."


def verdict(left: RoundContent | None, right: RoundContent | None) -> str:
    """What differs between two aligned rounds, in one line. A request the log did not keep is not compared: an
    unknown one is not an empty one."""
    return "; ".join(text for text, _ in _clauses(left, right)) or "same"


def differs(left: RoundContent | None, right: RoundContent | None) -> bool:
    """Whether two aligned rounds differ in something both logs hold: a verdict that says only which parts were not
    compared (a request or an answer not in a log) does not say the runs diverge there, nor that they agree."""
    return any(difference for _, difference in _clauses(left, right))


def _clauses(left: RoundContent | None, right: RoundContent | None) -> list[tuple[str, bool]]:
    """The verdict's clauses in order, each with whether it says a difference (False: a part not compared)."""
    if right is None:
        return [("only in the left run (removed)", True)]
    if left is None:
        return [("only in the right run (inserted)", True)]
    side = _unrecorded(left, right)
    unknown = (None if side is None else
               "neither run's request was in the log, so their messages and tools are not compared" if side == "neither"
               else f"the {side} run's request was not in the log, so its messages and tools are not compared")
    unanswered = _unanswered(left, right)
    said = [
        (unknown, False) if unknown else (_added_verdict(left, right), True),
        (None if unknown else _tools_verdict(left, right), True),
        *((text, not unanswered) for text in _answers_verdict(left, right)),
        (f"{left.finish} → {right.finish}" if left.stop != right.stop else None, True),
    ]
    return [(text, difference) for text, difference in said if text]


def _answers_verdict(left: RoundContent, right: RoundContent) -> tuple[str | None, ...]:
    """What differs in the two answers: their calls and their text, or whose answer is not known to compare."""
    unanswered = _unanswered(left, right)
    if unanswered or (left.answer_missing and right.answer_missing):
        return (unanswered,)
    return _calls_verdict(left, right), _answer_verdict(left, right)


def _unanswered(left: RoundContent, right: RoundContent) -> str | None:
    """Whose answer is not known, so that the calls and texts are not compared; None when both are known, or when
    both calls got no answer (the same failure on each side differs in nothing the logs hold)."""
    side = _lacking(left.answer_missing is None, right.answer_missing is None)
    if side is None or (left.answer_missing == right.answer_missing == "no answer"):
        return None
    said = "calls and the answer text are not compared"
    if side == "neither":
        return f"neither run's answer is known, so the {said}"
    return f"the {side} run's {ANSWER_MISSING[(left if side == 'left' else right).answer_missing][0]}, so the {said}"


def unanswered_words(content: RoundContent, side: str) -> str | None:
    """Beside a round's calls and text: why its answer is not known; None when it is."""
    if content.answer_missing is None:
        return None
    return f"The {side} run's {ANSWER_MISSING[content.answer_missing][1]}."


def _answer_verdict(left: RoundContent, right: RoundContent) -> str | None:
    a, b = answer_texts(left), answer_texts(right)
    if a == b:
        return None
    # A text one side never wrote is not "different": saying so would claim both answers said something.
    if not a or not b:
        return f"answer text in the {'left' if a else 'right'} run only"
    return "different answer text"


def finish_written(round_: Round) -> str:
    """The stop signal as the round's payload writes it (`finish_reason: stop`, `stop_reason: tool_use`), not the
    normalized one the verdicts compare by. A failed call has no stop signal to record: it says it failed; a call never
    made says so (unmade_words), as every view does."""
    response = round_.response
    if response is None and round_.error is not None:
        return unmade_words(round_.error) or "the call failed"
    if response is None or response.finish_reason is None:
        return "finish: none recorded"
    said = f"{(response.finish_reason_path or 'finish').rsplit('.', 1)[-1]}: {response.finish_reason}"
    # A transcript's or a batch input's finish is the importer's reading of the turn (stop_inferred), not a payload's.
    return f"{said} (worked out by Roundtrip: the log recorded none)" if stop_inferred(round_) else said


def answer_texts(content: RoundContent) -> tuple[str, ...]:
    """What the model wrote in words in this round's response, each text part on its own."""
    return tuple(item[2] for item in content.answer if item[0] == "text")


# --- figures ---------------------------------------------------------------------------------------------


def figures(run: Run, prices: tuple[Price, ...]) -> RunFigures:
    """A run's totals."""
    rows = run.rows
    ball = snowball(rows)  # the Tokens page's own totals, so that both pages write the same figure
    return RunFigures(
        name=run.name,
        rounds=len(rows),
        calls=(calls := sum(r.calls_if_known or 0 for r in rows)),
        calls_unknown=(unknown := sum(r.calls_if_known is None for r in rows)),
        calls_words=_calls_words(calls, unknown, len(rows)),
        input_tokens=ball.billed_input,
        output_tokens=ball.output,
        estimated_calls=ball.estimated_calls,
        input_words=ball.billed_input_words,
        output_words=ball.output_words,
        cost=rows_cost(rows, prices),
        findings=len(run.findings),
        input_figure=ball.billed_input_figure,
        input_left_out=ball.billed_input_left_out,
        output_figure=ball.output_figure,
        output_left_out=ball.output_left_out,
    )


def _calls_words(calls: int, unknown: int, rounds: int) -> str:
    # A round whose answer the log did not keep made calls that are not known: they are not added in as 0.
    if rounds and unknown >= rounds:
        return NOT_IN_THE_LOG
    left_out = f" ({plural(unknown, 'round')} whose answer is not in the log left out)" if unknown else ""
    return f"{calls:,}{left_out}"


def _codes_by_round(findings: tuple[Finding, ...]) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for finding in findings:
        found.setdefault(finding.round, set()).add(finding.code)
    return found


def compare(left: Run, right: Run, prices: tuple[Price, ...]) -> Comparison:
    """The two runs aligned, each pair with its verdict and figures, and the totals of each run."""
    lefts, rights = round_contents(left.trace), round_contents(right.trace)
    codes_left, codes_right = _codes_by_round(left.findings), _codes_by_round(right.findings)
    histories = _histories(lefts), _histories(rights)
    pairs = []
    for i, j in align(lefts, rights):
        a, b = (lefts[i] if i is not None else None), (rights[j] if j is not None else None)
        row_a, row_b = (left.rows[i] if i is not None else None), (right.rows[j] if j is not None else None)
        found_a = codes_left.get(i + 1, set()) if i is not None else set()
        found_b = codes_right.get(j + 1, set()) if j is not None else set()
        said = verdict(a, b)
        same = said == "same"
        if same and histories[0][i] != histories[1][j]:
            # "same" stood above a messages array that said "changed": the round after a changed result resends it.
            said = HISTORY_DIFFERS
        pairs.append(RoundPair(
            left=None if i is None else i + 1, right=None if j is None else j + 1, verdict=said, same=same,
            differs=differs(a, b),
            tokens_left=_tokens(row_a), tokens_right=_tokens(row_b),
            cost_left=round_cost(row_a, prices) if row_a else None, cost_right=round_cost(row_b, prices) if row_b else None,
            findings_left=tuple(sorted(found_a - found_b)), findings_right=tuple(sorted(found_b - found_a)),
            estimated_left=_estimated(row_a), estimated_right=_estimated(row_b),
            words_left=tokens_words(row_a) if row_a else None, words_right=tokens_words(row_b) if row_b else None,
            cost_known_left=row_a is None or cost_known(row_a), cost_known_right=row_b is None or cost_known(row_b),
            # Only where the billing is not known: a failed call whose usage was reported is priced.
            failed_left=row_a is not None and row_a.failed and not billing_known(row_a),
            failed_right=row_b is not None and row_b.failed and not billing_known(row_b),
            unanswered_left=row_a is not None and unanswered_left_out(row_a),
            unanswered_right=row_b is not None and unanswered_left_out(row_b),
            unmade_left=row_a is not None and not row_a.sent, unmade_right=row_b is not None and not row_b.sent,
        ))
    return Comparison(figures(left, prices), figures(right, prices), tuple(pairs))


HISTORY_DIFFERS = "same new messages and answer; the earlier messages it resends differ"
"""The verdict of two rounds that add and answer the same, sent after histories that differ (a result changed in an
earlier round, a round only one run has): the model read different requests, so they are not said to be the same."""


def _histories(contents: tuple[RoundContent, ...]) -> list[int]:
    """For each round, a hash of every item the requests up to it added: the whole conversation its request sends, as
    round_contents reads it. Built as it goes, so that a thousand rounds cost what they add, not what they resend."""
    found, running = [], hash(())
    for content in contents:
        running = hash((running, content.added))
        found.append(running)
    return found


def _tokens(row: RoundSummary | None) -> tuple[int | None, int | None] | None:
    # A figure the log cannot give is None, never a 0 to subtract: the Tokens page says "not in the log" there.
    return (row.input_if_known, row.output_if_known) if row else None


def _estimated(row: RoundSummary | None) -> bool:
    # A call never made costs nothing exactly, whatever estimate its tokens are: its 0 is no estimate.
    return row is not None and row.sent and row.usage.source != "reported"


# --- one pair in detail ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessageChange:
    """One entry of the two requests' messages, as the model reads them, compared."""

    status: Literal["same", "changed", "only left", "only right"]
    """Whether both requests carry it, changed or not, or only one does."""
    left: str | None
    """The left request's entry as text, None when only the right has it."""
    right: str | None
    """The right request's entry as text."""
    diff: str = ""
    """For a changed entry: a line diff of the two texts."""


@dataclass(frozen=True, slots=True)
class ToolChange:
    """One tool that differs between two requests' tool lists."""

    name: str
    """The tool's name."""
    status: Literal["added", "removed", "description changed", "schema changed", "description and schema changed"]
    """What happened to it, from left to right."""
    left: str
    """Its description and schema on the left, empty when added."""
    right: str
    """Its description and schema on the right, empty when removed."""


@dataclass(frozen=True, slots=True)
class CallChange:
    """The n-th call of two aligned rounds compared."""

    left: str | None
    """The left call: tool and arguments, None when the left round made fewer calls."""
    right: str | None
    """The right call."""
    arguments: tuple[str, ...]
    """For two calls of one tool, each argument that differs (`city_tier` 2 → 3)."""


def item_text(item: Item) -> str:
    """One item as a line a person reads."""
    if item[0] == "call":
        return f"call {item[1]} {item[2].written}"
    if item[0] == "result":
        return f"result of {item[1]}: {item[2]}"
    return f"{item[1]}: {item[2]}"


def _text_diff(left: str, right: str) -> str:
    return "\n".join(difflib.unified_diff(left.splitlines(), right.splitlines(), "left", "right", n=1, lineterm=""))


def message_changes(left: Round, left_trace: Trace, right: Round, right_trace: Trace,
                    kept: int | None = None) -> tuple[MessageChange, ...]:
    """The two requests' messages arrays diffed entry by entry: same, changed (with a text diff), only left, only right.
    With `kept`, a run of more than 2 × `kept` + 1 entries the same in both keeps its first and last `kept`, with one
    entry between them saying how many it stands for: a late round of a long trace resends thousands, nearly all
    the same, and none of the others is written out."""
    names_a, names_b = _call_names(left_trace), _call_names(right_trace)
    # The messages both requests open with (the same objects, in a trace compared with itself or its fork) are not
    # taken apart: only the few entries listed are.
    opening = _shared_opening(left.request, right.request) if kept is not None else 0
    out: list[MessageChange] = _same_opening(left.request, opening, names_a, kept) if opening else []
    a = _request_items(left.request.messages[opening:], names_a) if opening else conversation(left.request, names_a)
    b = _request_items(right.request.messages[opening:], names_b) if opening else conversation(right.request, names_b)
    # What follows is matched by a plain walk as far as it is the same: difflib over thousands of entries is slow.
    start = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    out += _same_run(a[:start], kept)
    for tag, i1, i2, j1, j2 in _matched(a[start:], b[start:]):
        i1, i2, j1, j2 = i1 + start, i2 + start, j1 + start, j2 + start
        if tag == "equal":
            out += _same_run(a[i1:i2], kept)
            continue
        paired = tag == "replace"
        for x, y in zip(a[i1:i2], b[j1:j2]) if paired else ():
            out += _replaced(x, y)
        shared = min(i2 - i1, j2 - j1) if paired else 0
        out += [MessageChange("only left", item_text(x), None) for x in a[i1 + shared:i2]]
        out += [MessageChange("only right", None, item_text(y)) for y in b[j1 + shared:j2]]
    return tuple(out)


def _replaced(x: Item, y: Item) -> list[MessageChange]:
    """Two entries at one place: one entry changed when both are the same kind (a call, a result, a role's text),
    else each in its own run only: a call did not become a result."""
    left, right = item_text(x), item_text(y)
    if x[0] == y[0] and (x[0] != "text" or x[1] == y[1]):
        return [MessageChange("changed", left, right, _text_diff(left, right))]
    return [MessageChange("only left", left, None), MessageChange("only right", None, right)]


def _shared_opening(left: Request, right: Request) -> int:
    """How many messages the two requests open with alike, under the same system prompt; 0 when it differs."""
    if left.system != right.system:
        return 0
    pairs = zip(left.messages, right.messages)
    return next((n for n, (x, y) in enumerate(pairs) if not (x is y or x == y)),
                min(len(left.messages), len(right.messages)))


def _same_opening(request: Request, count: int, names: dict[str, str], kept: int) -> list[MessageChange]:
    """The system prompt and the first `count` messages, the same in both requests: the entries of the messages at
    either end, at least `kept` each, and one entry between them saying how many messages it stands for."""
    messages = request.messages[:count]
    head, n = _system_items(request, names), 0
    while len(head) < kept and n < len(messages):
        head += _request_items(messages[n:n + 1], names)
        n += 1
    tail, m = [], len(messages)
    while len(tail) < kept and m > n:
        m -= 1
        tail = _request_items(messages[m:m + 1], names) + tail
    if m - n <= 1:
        return _same_run(head + _request_items(messages[n:m], names) + tail, None)
    hidden = f"({m - n:,} more messages, the same in both)"
    return [*_same_run(head, None), MessageChange("same", hidden, hidden), *_same_run(tail, None)]


def _same_run(items: list, kept: int | None) -> list[MessageChange]:
    if kept is None or len(items) <= 2 * kept + 1:
        return [MessageChange("same", text, text) for text in map(item_text, items)]
    hidden = f"({len(items) - 2 * kept:,} more entries, the same in both)"
    return [*_same_run(items[:kept], None), MessageChange("same", hidden, hidden), *_same_run(items[-kept:], None)]


def tool_changes(left: RoundContent, right: RoundContent) -> tuple[ToolChange, ...]:
    """Tools added, removed, or described differently from the left request to the right one."""
    a = {name: (text, schema) for name, text, schema in left.tools}
    b = {name: (text, schema) for name, text, schema in right.tools}
    out = []
    for name in [*a, *(n for n in b if n not in a)]:
        if name not in b:
            out.append(ToolChange(name, "removed", "\n".join(a[name]), ""))
        elif name not in a:
            out.append(ToolChange(name, "added", "", "\n".join(b[name])))
        elif a[name] != b[name]:
            text, schema = a[name][0] != b[name][0], a[name][1] != b[name][1]
            status = "description and schema changed" if text and schema else (
                "description changed" if text else "schema changed")
            out.append(ToolChange(name, status, "\n".join(a[name]), "\n".join(b[name])))
    return tuple(out)


def call_changes(left: RoundContent, right: RoundContent) -> tuple[CallChange, ...]:
    """The calls of two aligned rounds side by side, arguments diffed as JSON for two calls of one tool."""
    a, b = left.calls, right.calls
    out = []
    for n in range(max(len(a), len(b))):
        x, y = (a[n] if n < len(a) else None), (b[n] if n < len(b) else None)
        same_tool = x is not None and y is not None and x[1] == y[1]
        changes = argument_changes(_arguments(x), _arguments(y)) if same_tool else []
        out.append(CallChange(item_text(x) if x else None, item_text(y) if y else None, tuple(c.line for c in changes)))
    return tuple(out)
