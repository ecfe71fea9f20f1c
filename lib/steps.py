"""The five steps of a tool round trip, attached to the payload regions they belong to.

STEP_TITLES is the one name of each step: the explorer, the presenter, the sequence diagram, the
handout and the HTML export all say it.

1. Request sent: the request, with its `tools` resent with every request.
2. Call intent: the response's tool calls, and the finish reason that signals them.
3. Program executes: what the program ran between response k and request k+1. The model never
   sees this; only the result it produces.
4. Result appended: the tool results request k carries, each paired to its call by id.
5. Model answers: a response that ends the loop with text for a person.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Literal, Sequence

from lib.dialects import DIALECTS
from lib.growth import Growth, MessageEntry, growth, kept_after, kept_before
from lib.injected import command_result, human_feedback, written_action
from lib.model import AWAITING, JSON, Execution, Message, Response, Round, ToolCallPart, Trace, spoken
from lib.narration import narrates_without_call
from lib.provenance import NOT_CAPTURED
from lib.text import plural

STEP_TITLES = {
    1: "Request sent",
    2: "Call intent",
    3: "Program executes",
    4: "Result appended",
    5: "Model answers",
}
"""The one name of each step, used wherever a step is named."""
NARRATION_TITLE = "Loop ends without a call"
"""Step 5's name for a last round's response that announces an action and calls nothing: it ends the loop, but is no
answer."""
NARRATION_GOES_ON_TITLE = "Narration without a call"
"""Step 5's name for such a response where a later round follows: the loop did not end, the program went on."""
CUT_OFF_TITLE = "Cut off at the output limit"
"""Step 5's name for a response that stopped at its output limit (cut_off_words): no finished answer."""
CONTEXT_FULL_TITLE = "Cut off: the context window is full"
"""Step 5's name for a response that stopped because the conversation filled the model's context window."""


TEXT_COMMAND_WORDS = ("a command written in the text, not as a tool call: the API sees an answer in text and gives "
                      "no call id, and the program reads the command out of the text")
"""What a command the model wrote in its text (TextCommand) is, said on its step 2 label and slide."""


def turn_ends_words(next_round: int | None) -> str:
    """What a response without a tool call did to the loop, as a clause: where round `next_round` follows, the model's
    turn ended with no call and the program went on; only where none follows does the loop end. The one wording of
    the step labels, the slides' leads and the sequence diagram."""
    if next_round is None:
        return "the loop ends"
    return f"the model's turn ended with no call; the program went on (round {next_round})"


def summary_words(next_round: int | None) -> str:
    """What a summary call's answer (Round.summary_call) is, as a clause: the summary the program asked for, no answer
    to the person, sent in place of the history from round `next_round` on where one follows. The one wording of the
    step label and the slide's lead."""
    then = f"the program sends it in place of the history from round {next_round} on" if next_round is not None \
        else "no request after it is in the log"
    return f"the summary the program asked for, not an answer to the person: {then}"


def compaction_words(next_round: int | None) -> str:
    """What a compaction call's answer (Round.compaction) is, as a clause: no turn of the model's, the history the
    provider returned compacted, sent in place of the earlier turns from round `next_round` on where one follows. The
    one wording of presenter mode's step 5 (its lead; lib.presenter.COMPACTION_TITLE its heading)."""
    then = f"which the program sends in place of the earlier turns from round {next_round} on" \
        if next_round is not None else "and no request after it is in the log"
    return ("no answer and no call: this call asked the provider to compact the conversation, and it returns the "
            f"history compacted, {then}")


def spoken_words(round_: Round) -> str | None:
    """What a response that answers in sound holds, as a clause (None for any other): a spoken answer has no text
    (`content: null`) but is an answer, and its transcript is what it said where the log keeps one. The one wording
    of the step labels, the slides' leads and the sequence diagram."""
    kept = _transcript_kept(round_)
    return f"the answer is audio, {kept}" if kept else None


def _transcript_kept(round_: Round) -> str | None:
    """Whether a spoken answer's transcript is in the log, in words; None where the response holds no sound."""
    found = spoken(round_.response.message) if round_.response is not None else None
    if found is None:
        return None
    return "its transcript kept" if found[1] else "no transcript kept"


def narration_title(next_round: int | None) -> str:
    """Step 5's name for a narration (lib.narration): the loop ends on it only where no round follows."""
    return NARRATION_TITLE if next_round is None else NARRATION_GOES_ON_TITLE

STEP_MARKS = {1: "①", 2: "②", 3: "③", 4: "④", 5: "⑤"}
"""Each step's number as one character, for headings and badges."""


@dataclass(frozen=True, slots=True)
class StepColor:
    """One step's color, named for Streamlit's markdown and written out for what we draw ourselves."""

    name: str
    """Streamlit's markdown color name (`:blue-background[...]`): the explorer's badges."""
    hex: str
    """The same color as hex, for the charts and the exported HTML."""


STEP_COLORS = {1: StepColor("blue", "#1c83e1"), 2: StepColor("violet", "#803df5"), 3: StepColor("orange", "#ff8700"),
               4: StepColor("green", "#21c354"), 5: StepColor("red", "#ff4b4b")}
"""Each step's color, the one palette of the app, its badges, charts and exported HTML."""

Side = Literal["request", "response", "execution"]
"""Which lane of the round a step label sits in."""


@dataclass(frozen=True, slots=True)
class StepLabel:
    """One of the five steps, pinned to a region of the real payload."""

    step: int
    """1 to 5."""
    side: Side
    """The lane: request body, response body, or the program's own work."""
    path: str
    """JSON path of the region, in the request or response body, or `executions[i]` in the round line."""
    detail: str
    """A short description of this occurrence, e.g. the tool and call id."""
    resent: bool = False
    """For step 1: the same tool list as the previous request."""
    call_id: str | None = None
    """For steps 2-4: the call this label belongs to."""
    call_round: int | None = None
    """For step 4: the round whose response made the call, when found."""
    narration: bool = False
    """For step 5: the text announces an action but no call was made (lib.narration), so it is not an answer."""
    goes_on: int | None = None
    """For step 5: the round that follows this response (the program went on), None where the loop ends on it."""
    cut_off: bool = False
    """On the stop signal: the response stopped at its output limit (cut_off_words), so it finished nothing."""
    context_full: bool = False
    """With cut_off: what stopped it was the context window the conversation filled, not the output limit."""

    @property
    def title(self) -> str:
        """The step's name."""
        if self.cut_off and self.step == 5:
            return CONTEXT_FULL_TITLE if self.context_full else CUT_OFF_TITLE
        return narration_title(self.goes_on) if self.narration else STEP_TITLES[self.step]


def join_path(*pieces: str) -> str:
    """JSON path pieces joined with dots, skipping empty ones and keeping `[i]` attached."""
    path = ""
    for piece in pieces:
        if not piece:
            continue
        path = piece if not path else path + (piece if piece.startswith("[") else "." + piece)
    return path


def same_call_renamed(call: ToolCallPart, own: Sequence[ToolCallPart],
                      other: Sequence[ToolCallPart]) -> ToolCallPart | None:
    """The call of `other` that `call`, one of `own`, is under another id: the same tool and arguments, calls alike
    (two dice rolls) paired in order, the n-th of `own` with the n-th of `other`; None when there is none or it keeps
    the id. Read from either end of a resent turn: the response's calls as the program sent them back, or the
    sent-back calls as the response made them."""
    alike = (call.name, call.arguments_raw)
    nth = 0
    for made in own:
        if made is call:
            break
        nth += (made.name, made.arguments_raw) == alike
    matches = [c for c in other if (c.name, c.arguments_raw) == alike]
    return matches[nth] if nth < len(matches) and matches[nth].id != call.id else None


def find_call(trace: Trace, call_id: str, before: int) -> tuple[int, ToolCallPart] | None:
    """The call with this id made by a response before round `before`, latest first."""
    for round_ in reversed(trace.rounds[: before - 1]):
        for call in round_.tool_calls:
            if call.id == call_id:
                return round_.index, call
    return None


def steps_for_round(trace: Trace, index: int, placed: Growth | None = None,
                    waiting: str | None = None) -> tuple[StepLabel, ...]:
    """Every step label of round `index` (1-based), in the order the steps happen; `waiting` is the id of the call
    a live run holds for the user's approval in this round, if any (its execution is not missing, it has not come)."""
    round_ = trace.rounds[index - 1]
    placed = placed or growth(trace, index)
    labels: list[StepLabel] = []
    labels.extend(_tool_list(trace, round_))
    labels.extend(_results(trace, round_, placed))
    labels.extend(_response(round_, DIALECTS[trace.dialect].FINISH_FIELD, waiting,
                            trace.rounds[index] if index < len(trace.rounds) else None, text_commands(trace, index),
                            command_unproven(trace, index), cut_off_words(round_, trace.dialect),
                            round_.response is not None
                            and DIALECTS[trace.dialect].fills_context(round_.response.finish_reason)))
    return tuple(labels)


def cut_off_words(round_: Round, dialect: str) -> str | None:
    """What a response that stopped at its output limit (Response.stop `length`: each format module reads its own
    signal so, OpenAI's `length`, the Responses API's `max_output_tokens`, Anthropic's and Bedrock's `max_tokens`,
    Gemini's `MAX_TOKENS`) did, as a clause: the budget the request gave it and what it spent it on; None for any other
    response. The one wording of the step label on its stop signal and of the check `answer-cut-off`; cut_off_short says
    it in a few words."""
    response = round_.response
    if response is None or response.stop != "length":
        return None
    limit = DIALECTS[dialect].output_limit(round_.request.raw) if round_.request_recorded else None
    full = DIALECTS[dialect].fills_context(response.finish_reason)
    if not round_.request_recorded:
        budget = "the log kept no request, so the budget it was given is not known"
    elif limit is None:
        budget = "the request sets no limit, so the provider's own applied; the log does not say how much that is"
    elif isinstance(limit[1], int) and not isinstance(limit[1], bool):
        budget = f"the request gave it {limit[0]} {limit[1]:,}"
    else:
        budget = f"the request's {limit[0]} is not a number of tokens"
    usage = response.usage
    if usage is None or usage.source != "reported":
        spent = "the response reports no usage, so what it spent is not known"
    elif usage.reasoning_tokens and usage.reasoning_tokens >= usage.output_tokens:
        # A provider may report fewer tokens than the limit it stopped at (Gemini's thinking): "all" of what it reports.
        spent = f"it spent all {usage.output_tokens:,} on reasoning" if limit is not None \
            and limit[1] == usage.output_tokens else f"it spent {usage.output_tokens:,} output tokens, all on reasoning"
    elif usage.reasoning_tokens:
        spent = f"it spent {usage.output_tokens:,} output tokens, {usage.reasoning_tokens:,} of them on reasoning"
    else:
        spent = f"it spent {usage.output_tokens:,} output tokens"
    if response.message.tool_calls:
        wrote = "the calls it wrote may be cut short"
    elif not round_.answer_recorded:
        wrote = NOT_CAPTURED
    elif response.message.text.strip():
        wrote = f"its text stops where {'it was cut off' if full else 'the budget ran out'}, so it is no finished answer"
    else:
        wrote = "it wrote no answer"
    if full:
        return f"the conversation filled the model's context window before it finished ({spent}): {wrote}"
    return f"the model ran out of its output budget before it finished ({budget}; {spent}): {wrote}"


def cut_off_short(round_: Round, dialect: str) -> str | None:
    """cut_off_words in a few words, where a label has no room for the budget and what was spent (the sequence
    diagram's arrow, presenter mode's step-5 lead): what cut the response off and that it finished nothing; None for
    any other response."""
    response = round_.response
    if response is None or response.stop != "length":
        return None
    where = "by a full context window" if DIALECTS[dialect].fills_context(response.finish_reason) \
        else "at the output limit"
    wrote = "its calls may be cut short" if response.message.tool_calls else "no finished answer, no call"
    return f"cut off {where}: {wrote}"


@dataclass(frozen=True, slots=True)
class TextCommand:
    """A command the model wrote in its response's text, not as a tool call (AutoGPT's JSON `"command"`, a ReAct
    agent's "Action:"), that the program read out of the text and ran: the next request carries its result
    (lib.injected.command_result, lib.injected.observed), or the first later one the log kept where it did not keep the
    next."""

    name: str
    """The command, as its result names it."""
    path: str
    """Where in the response body the text that names it is."""
    result_at: int
    """Where in that request its result is (`messages[i]`)."""
    result_round: int
    """The round whose request carries its result: the next, or a later one where the log did not keep the requests in
    between."""
    action_input: str | None = None
    """A ReAct action's "Action Input:" exactly as the model wrote it (trace text); None for AutoGPT's command."""


def _command_entries(trace: Trace, round_: Round, placed: Growth) -> list[tuple[MessageEntry, str, int | None]]:
    """The new messages of the round's request that carry a command's result (lib.injected.command_result), each with
    the command and the round whose answer wrote it: the latest earlier one whose text names it, None where none does
    (no call id pairs them)."""
    found = []
    for entry in placed.new:
        if entry.origin != "command-result":
            continue
        name = command_result(entry.message)
        if name is None:  # a ReAct observation: growth finds it only right after the previous round's action
            name, made = written_action(trace.rounds[round_.index - 2])[0], round_.index - 1
        else:
            made = next((r.index for r in reversed(trace.rounds[:round_.index - 1])
                         if r.response is not None and f'"{name}"' in r.response.message.text), None)
        found.append((entry, name, made))
    return found


def text_commands(trace: Trace, index: int) -> tuple[TextCommand, ...]:
    """The commands round `index`'s response wrote in its text and the program ran: only those whose result the next
    request carries, as its step 4 pairs it with this round (_command_results), or where the log did not keep the next
    request, the first later one it kept, whose step 4 pairs it so; none where the response holds a tool call, or no
    kept request follows. The steps, presenter mode and the sequence diagram draw them as a call intent (2) and the
    program running it (3), not as an answer."""
    round_ = trace.rounds[index - 1]
    response = round_.response
    if response is None or response.message.tool_calls or not response.message.text or index >= len(trace.rounds):
        return ()
    # A request the log did not keep carries nothing to read; the first kept after it carries what it resends.
    following = kept_after(trace.rounds, index)
    if following is None:
        return ()
    # Placing the next request is the costly part: only where it holds a command's result at all, past the leading
    # messages it resends unchanged (Round.resent_prefix), which hold nothing new.
    action = written_action(round_)
    if action is None and not any(command_result(m) is not None for m in
                                  following.request.messages[following.resent_prefix:] if m.role == "system"):
        return ()
    return tuple(TextCommand(name, _command_path(response, name), entry.index, following.index,
                             action[1] if action is not None else None)
                 for entry, name, made in _command_entries(trace, following, growth(trace, following.index))
                 if made == index)


def carried_commands(trace: Trace, index: int) -> tuple[TextCommand, ...]:
    """The commands earlier rounds wrote in their text whose results round `index`'s request carries (text_commands):
    the previous round's, and an earlier round's where the log did not keep the requests in between."""
    found: list[TextCommand] = []
    for k in range(index - 1, 0, -1):
        found.extend(c for c in text_commands(trace, k) if c.result_round == index)
        if trace.rounds[k - 1].request_recorded:  # round k's own request holds what came before it
            break
    return tuple(found)


def lost_between_words(index: int, result_round: int) -> str:
    """The requests the log lost between round `index` and round `result_round`, whose request carries round `index`'s
    results (growth.kept_after), as a clause; empty where that is the next round. The one wording of a written
    command's step 3 label and presenter mode's step 4."""
    if result_round == index + 2:
        return f"round {index + 1}'s request, in between, is not in the log"
    if result_round > index + 2:
        return f"rounds {index + 1} to {result_round - 1}'s requests, in between, are not in the log"
    return ""


def _command_path(response: Response, name: str) -> str:
    """Where in the response body the text part that names the command `name` is: the first text part where none
    quotes it."""
    texts = [p for p in response.message.parts if getattr(p, "kind", None) == "text"]
    part = next((p for p in texts if f'"{name}"' in p.text), texts[0])
    return join_path(response.message_path, part.path)


def command_written(round_: Round) -> str | None:
    """The command round_'s response wrote in its text as AutoGPT does (a JSON object whose `"command"` holds a
    `"name"`, beside its `"thoughts"`) or as a ReAct agent does ("Action: <tool>", lib.injected.written_action), or
    None: a response with a tool call, no text, or text of another shape."""
    found = written_call(round_)
    return found[0] if found is not None else None


def written_call(round_: Round) -> tuple[str, JSON] | None:
    """The command round_'s response wrote in its text (command_written) with its arguments: AutoGPT's command and its
    `"args"` (an empty object where it gives none), or a ReAct agent's action (lib.injected.written_action) and its
    input (action_arguments); None for any other response."""
    found = _json_command(round_)
    if found is not None:
        return found
    action = written_action(round_)
    return (action[0], action_arguments(action[1])) if action is not None else None


def action_arguments(action_input: str) -> JSON:
    """A ReAct action's input as the program reads it: the JSON object between its outermost braces, as llama_index's
    parser takes it out of a fence or a sentence; else the text itself, which LangChain hands the tool as it is."""
    said = _outermost_object(action_input)
    return said if said is not None else action_input


def _outermost_object(text: str) -> dict | None:
    """The JSON object between text's first "{" and its last "}", as AutoGPT and llama_index read it out of a fence or
    a sentence around it; None where that is no JSON object."""
    start, end = text.find("{"), text.rfind("}")
    try:
        said = json.loads(text[start:end + 1]) if 0 <= start < end else None
    except (ValueError, RecursionError):
        return None
    return said if isinstance(said, dict) else None


def _json_command(round_: Round) -> tuple[str, JSON] | None:
    """AutoGPT's command in round_'s response text with its `"args"` (written_call), or None."""
    response = round_.response
    if response is None or response.message.tool_calls or "command" not in response.message.text:
        return None
    # AutoGPT reads the outermost braces of the text: a fence or a sentence around the object is no other command.
    said = _outermost_object(response.message.text.strip())
    command = said.get("command") if said is not None and "thoughts" in said else None
    name = command.get("name") if isinstance(command, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None
    return name, command.get("args", {})


def written_arguments(round_: Round) -> str | None:
    """The arguments of the command round_'s response wrote in its text (written_call) exactly as the model wrote them:
    the characters of its `"args"` value, spacing, key order and escapes its own; None where it wrote no `"args"` or
    no such command; a ReAct action's input as written. Only for showing: everything computed goes by written_call's
    parsed value."""
    if _json_command(round_) is None:
        action = written_action(round_)
        return action[1] if action is not None else None
    text = round_.response.message.text.strip()
    try:
        command = _member(text, text.find("{"), "command")
        found = _member(text, command[0], "args") if command is not None and text[command[0]] == "{" else None
    except (ValueError, IndexError, RecursionError):  # written_call read it, so this reading does too; kept safe
        return None
    return text[found[0]:found[1]] if found is not None else None


_DECODER = json.JSONDecoder()


def _member(text: str, at: int, key: str) -> tuple[int, int] | None:
    """Where the value of `key` in the JSON object that starts at text[at] begins and ends; the last where the key is
    written twice, as json.loads keeps it; None where the object has no such key."""
    found, i = None, _skip(text, at + 1)
    while text[i] != "}":
        name, i = json.decoder.scanstring(text, text.index('"', i) + 1)
        i = _skip(text, text.index(":", i) + 1)
        _, end = _DECODER.raw_decode(text, i)
        if name == key:
            found = (i, end)
        i = _skip(text, end)
        i = _skip(text, i + 1) if text[i] == "," else i
    return found


def _skip(text: str, i: int) -> int:
    """The first index from i that is not JSON whitespace."""
    return json.decoder.WHITESPACE.match(text, i).end()


def command_unseen(trace: Trace, index: int) -> str | None:
    """The command round `index`'s response wrote in its text (command_written) where the log ends on that response:
    no request after it can carry its result, so nothing shows the program ran it; None for any other round. The
    steps, presenter mode, the diagram, predict mode and the HTML file say so in command_unseen_words."""
    return command_written(trace.rounds[index - 1]) if index == len(trace.rounds) else None


UNPROVEN_SAID = {
    "log ends": "The model wrote a command in its text, not as a tool call, and the log ends on this response: no "
                "request carries its result, so nothing shows the program ran it.",
    "request not kept": "The model wrote a command in its text, not as a tool call; the log does not hold the next "
                        "request, which would carry its result, so whether the program ran it is not known.",
    "no result": "The model wrote a command in its text, not as a tool call; the next request carries no result of "
                 "it, so nothing shows the program ran it.",
    "person answered": "The model wrote a command in its text, not as a tool call; in place of its result, the next "
                       "request carries a person's answer to it.",
}
"""By UnprovenCommand.why: what is known of the command, in our words alone, for the places drawn as markdown (a
slide's lead, the round's end under its cards): the command's name is the model's text, so it is said only where
text is shown as text (the step 3 label, the HTML file)."""


def command_unseen_words(name: str) -> str:
    """What is known of a command the model wrote in its text where the log ends on that response (command_unseen), as
    a clause: the one wording of its step 3 label and the HTML file's program lane (UNPROVEN_SAID says it without the
    name where markdown is drawn)."""
    return (f"the model wrote the command {name} in its text, not as a tool call; the log ends before any request "
            "carries its result, so nothing shows the program ran it")


def command_unanswered(trace: Trace, index: int) -> str | None:
    """The command round `index`'s response wrote in its text (command_written) where a later round follows and its
    request, kept in the log, carries no result of it (text_commands pairs none with this round): a person may have
    declined it, or the program could not read it, and the log does not say which; None for any other round."""
    if index >= len(trace.rounds) or not trace.rounds[index].request_recorded:
        return None
    name = command_written(trace.rounds[index - 1])
    return name if name is not None and not text_commands(trace, index) else None


def command_unanswered_words(name: str) -> str:
    """What is known of a command the model wrote in its text whose result the next request does not carry
    (command_unanswered), as a clause: the one wording of its step 3 label, the slide's lead and the HTML file's
    program lane."""
    return (f"the model wrote the command {name} in its text, not as a tool call; the next request carries no result "
            "of it, so nothing shows the program ran it")


def command_unrecorded(trace: Trace, index: int) -> str | None:
    """The command round `index`'s response wrote in its text (command_written) where a later round follows but the
    log did not keep its request (Round.request_recorded), and no later request it kept carries its result
    (text_commands): whether it ran is not known; None for any other round."""
    if index >= len(trace.rounds) or trace.rounds[index].request_recorded:
        return None
    name = command_written(trace.rounds[index - 1])
    return name if name is not None and not text_commands(trace, index) else None


def command_unrecorded_words(name: str, next_round: int) -> str:
    """What is known of a command the model wrote in its text where the log did not keep the next request
    (command_unrecorded), as a clause: the one wording of its step 3 label, the slide's lead and the HTML file's
    program lane."""
    return (f"the model wrote the command {name} in its text, not as a tool call; the log does not hold the next "
            f"request (round {next_round}'s), which would carry its result, so whether the program ran it is not known")


def command_answered_words(name: str, next_round: int, at: int) -> str:
    """What is known of a command the model wrote in its text where the next request carries, in place of its result, a
    person's reply (lib.injected.human_feedback, at `messages[at]`), as a clause: the one wording of its step 3 label,
    the slide's lead and the HTML file's program lane."""
    return (f"the model wrote the command {name} in its text, not as a tool call; in place of its result, round "
            f"{next_round}'s request carries a person's answer to it (messages[{at}]): the person replied instead of "
            "letting it run")


@dataclass(frozen=True, slots=True)
class UnprovenCommand:
    """A command the model wrote in its text that no request in the log carries the result of: a call intent (step 2)
    whose running nothing shows (step 3 says what is known), and no answer."""

    name: str
    """The command, as the text names it."""
    words: str
    """What is known of it, as a clause: command_unseen_words, command_unrecorded_words or command_unanswered_words."""
    why: Literal["log ends", "request not kept", "no result", "person answered"]
    """Why no request shows its result: the log ends on the response (command_unseen), the log did not keep the next
    request (command_unrecorded), the next request carries none (command_unanswered), or it carries a person's answer
    in its place (lib.injected.human_feedback)."""
    answer: str | None = None
    """Where a person answered it: their words, as the next request carries them (trace text, shown as text)."""
    action_input: str | None = None
    """A ReAct action's "Action Input:" exactly as the model wrote it (trace text); None for AutoGPT's command."""


def command_unproven(trace: Trace, index: int) -> UnprovenCommand | None:
    """The command round `index`'s response wrote in its text that no request carries the result of, the log ending on
    it (command_unseen), not keeping the next request (command_unrecorded) or the next request carrying none
    (command_unanswered); None for any other round. The steps, presenter mode, the diagram, predict mode and the HTML
    file all go by it."""
    if (name := command_unseen(trace, index)) is not None:
        found = UnprovenCommand(name, command_unseen_words(name), "log ends")
    elif (name := command_unrecorded(trace, index)) is not None:
        found = UnprovenCommand(name, command_unrecorded_words(name, index + 1), "request not kept")
    elif (name := command_unanswered(trace, index)) is not None:
        answered = next(((e.index, said) for e in growth(trace, index + 1).new
                         if (said := human_feedback(e.message)) is not None), None)
        found = UnprovenCommand(name, command_answered_words(name, index + 1, answered[0]), "person answered",
                                answered[1]) if answered is not None \
            else UnprovenCommand(name, command_unanswered_words(name), "no result")
    else:
        return None
    action = written_action(trace.rounds[index - 1])
    return replace(found, action_input=action[1]) if action is not None else found


def _tool_list(trace: Trace, round_: Round) -> list[StepLabel]:
    tools = round_.request.tools
    if not tools:
        return []
    field = "functions" if "functions" in round_.request.raw and "tools" not in round_.request.raw else "tools"
    kept = kept_before(trace.rounds, round_.index)  # a request the log lost held no tool list we know of
    resent = kept is not None and kept.request.tools == tools
    names = ", ".join(t.shown_name for t in tools)
    if round_.tools_held:
        detail = f"{plural(len(tools), 'tool')} held by the provider from earlier in the conversation, not sent: {names}"
    elif kept is None:
        detail = f"{plural(len(tools), 'tool')} sent: {names}"
    elif resent:
        detail = f"{plural(len(tools), 'tool')} resent unchanged: {names}"
    else:
        detail = f"{plural(len(tools), 'tool')}, changed since round {kept.index}: {names}"
    return [StepLabel(1, "request", field, detail, resent=resent)]


def _command_results(trace: Trace, round_: Round, placed: Growth) -> list[StepLabel]:
    """Step 4 on the results of commands the model wrote in its text (lib.injected.command_result: AutoGPT's), which
    the program appended in the system role: no call id pairs them, so the round is the latest earlier one whose
    answer names the command, where there is one."""
    labels = []
    for entry, name, made in _command_entries(trace, round_, placed):
        where = f"written in the text of round {made}'s answer" if made is not None \
            else "named in no earlier answer in the log"
        text = next(p for p in entry.message.parts if getattr(p, "kind", None) == "text")
        role = "system role" if entry.message.role == "system" else "user's role, as its Observation"
        labels.append(StepLabel(4, "request", join_path(f"messages[{entry.index}]", text.path),
                                f"result of the command {name}, {where}: no tool call, so no call id; the program read "
                                f"the command from the text, ran it and appended its result in the {role}",
                                call_round=made))
    return labels


def _results(trace: Trace, round_: Round, placed: Growth) -> list[StepLabel]:
    labels = _command_results(trace, round_, placed)
    for entry in placed.new:
        for part in entry.message.tool_results:
            found = find_call(trace, part.call_id, round_.index)
            sent = next((i for i, m in enumerate(round_.request.messages[:entry.index])
                         if any(c.id == part.call_id for c in m.tool_calls)), None) if found is None else None
            renamed = _sent_back_as(trace, round_, round_.request.messages[sent], part.call_id) \
                if sent is not None else None
            if renamed is not None:
                # The previous response made this call; the program sent its turn back with an id of its own.
                made = f"as {renamed[1].id}" if renamed[1].id else "with an empty id"
                detail = (f"result for {renamed[1].name} ({part.call_id}, called in round {renamed[0]} {made}, which "
                          "the program sent back under this one)")
                found = renamed
            elif sent is not None:
                # A history that starts before the log: the call is in this request, from no response it kept.
                detail = (f"result for {part.call_id}, called in messages[{sent}] of this request (by no response in "
                          "the log)")
            elif found is None:
                detail = f"result for {part.call_id}, which no earlier call made"
            else:
                detail = f"result for {found[1].name} ({part.call_id}, called in round {found[0]})"
            labels.append(
                StepLabel(
                    4,
                    "request",
                    join_path(f"messages[{entry.index}]", part.path),
                    detail,
                    call_id=part.call_id,
                    call_round=found[0] if found else None,
                )
            )
    return labels


def _sent_back_as(trace: Trace, round_: Round, message: Message, call_id: str) -> tuple[int, ToolCallPart] | None:
    """The call of the previous round's response that `message`, in this request, sends back under the id `call_id`
    (the same tool and arguments, another id), with that round; None when there is none."""
    sent = next(c for c in message.tool_calls if c.id == call_id)
    previous = trace.rounds[round_.index - 2] if round_.index > 1 else None
    made = same_call_renamed(sent, message.tool_calls, previous.tool_calls) if previous is not None else None
    # A call the request also sends back under its own id was not renamed: this one is a second copy of it.
    if made is None or any(c.id == made.id for m in round_.request.messages for c in m.tool_calls):
        return None
    return previous.index, made


def _intent_words(name: str, action_input: str | None) -> str:
    """Step 2's label on a command written in the text: AutoGPT's by its name, a ReAct action as the model wrote it."""
    written = f"Action: {name}, Action Input: {action_input}" if action_input is not None else name
    return f"{written}: {TEXT_COMMAND_WORDS}"


def _response(round_: Round, finish_field: str, waiting: str | None = None,
              next_round: Round | None = None, commands: tuple[TextCommand, ...] = (),
              unseen: UnprovenCommand | None = None, cut_off: str | None = None,
              context_full: bool = False) -> list[StepLabel]:
    response = round_.response
    if response is None:  # a failure says what happened itself; a request the log ends on says nothing more
        return [] if round_.error is not None else [StepLabel(
            3, "execution", "", "not recorded: the trace has no response to this request, so nor what the program did next")]
    labels = []
    for call in response.message.tool_calls:
        path = join_path(response.message_path, call.path)
        labels.append(StepLabel(2, "response", path, f"{call.name} ({call.id})", call_id=call.id))
    for command in commands:
        labels.append(StepLabel(2, "response", command.path, _intent_words(command.name, command.action_input)))
    if response.stop == "tool_calls" and response.finish_reason_path:
        labels.append(
            StepLabel(2, "response", response.finish_reason_path,
                      # Whether the log recorded it is said under the response (lib.summary.stop_unrecorded_words).
                      f"{finish_field} {response.finish_reason!r}: run the tools")
        )
    if cut_off is not None and response.finish_reason_path:
        # Cut inside its calls, it is still a call intent (step 2); else it stands where its answer would (step 5).
        labels.append(StepLabel(2 if response.message.tool_calls else 5, "response", response.finish_reason_path,
                                f"{finish_field} {response.finish_reason!r}: {cut_off}", cut_off=True,
                                context_full=context_full))
    for i, execution in enumerate(round_.executions):
        outcome = execution_outcome(execution)
        labels.append(
            StepLabel(3, "execution", f"executions[{i}]", f"{execution.name} ({execution.tool_call_id}): {outcome}",
                      call_id=execution.tool_call_id)
        )
    unended = [call for call in response.message.tool_calls
               if call.id in round_.unended_calls | round_.unended_writes and round_.execution_of(call.id) is None]
    for call in unended:
        # Started, with its output so far in the log, and no end: the same as the sequence's arrow and the round's note.
        # A call that wrote to a running command ran; the end missing is the command's.
        said = "ran; the end of the command it wrote to is not in the log" if call.id in round_.unended_writes \
            else "started; its end is not in the log"
        labels.append(StepLabel(3, "execution", "", f"{call.name} ({call.id}): {said}", call_id=call.id))
    for command in commands:
        between = lost_between_words(round_.index, command.result_round)
        labels.append(StepLabel(3, "execution", "", f"{command.name}: the program read the command out of the text and "
                                f"ran it; round {command.result_round}'s request carries its result "
                                f"(messages[{command.result_at}]){'; ' + between if between else ''}"))
    if commands:  # the text is the call intent, not an answer: no step 5
        return labels
    if unseen is not None:
        # A command written in the text that no request carries the result of (the log ends on it, or the next request
        # holds none): a call intent whose running nothing shows, and no answer.
        return labels + [StepLabel(2, "response", _command_path(response, unseen.name),
                                   _intent_words(unseen.name, unseen.action_input)),
                         StepLabel(3, "execution", "", f"not known: {unseen.words}" if unseen.answer is None else
                                   f"answered by a person: {unseen.words}. Their answer: {unseen.answer}")]
    held = [call for call in response.message.tool_calls if call.id == waiting]
    for call in held:
        labels.append(StepLabel(3, "execution", "", f"waiting for your approval: {call.name} ({call.id})",
                                call_id=call.id))
    if not held:  # a copy of a live run taken while a call waited for a person: the wait is recorded, not missing
        held = [call for call in response.message.tool_calls
                if call.id == round_.extra.get(AWAITING) and round_.execution_of(call.id) is None]
        for call in held:
            labels.append(StepLabel(3, "execution", "", "waiting for approval when the trace was written: "
                                                        f"{call.name} ({call.id})", call_id=call.id))
    # A stop for tools whose calls the log did not keep (a span without content) asked the program to run them too.
    if (response.message.tool_calls or response.stop == "tool_calls") and not round_.executions_recorded and not held \
            and not unended:
        labels.append(StepLabel(3, "execution", "", "not recorded: the trace does not say what the program ran"))
    narration = narrates_without_call(round_)
    following = next_round.index if next_round is not None else None
    # A provider may end a turn of calls with its plain stop (OpenRouter's Llama writes 'stop'): the calls, not the
    # stop, say the loop goes on, so their text is no answer in place of a call.
    if (narration or (response.stop == "end" and not response.message.tool_calls)) and response.message.text:
        text_part = next(p for p in response.message.parts if p.kind == "text")
        path = join_path(response.message_path, text_part.path)
        if narration and following is None:
            labels.append(StepLabel(5, "response", path, "the loop ended with no call made: the text announces an "
                                    "action, it does not answer", narration=True))
        elif narration:
            # Where the program went on, the title and the slide's lead say so (turn_ends_words); the label says what
            # the text is.
            labels.append(StepLabel(5, "response", path, "the text announces an action, it does not answer",
                                    narration=True, goes_on=following))
        elif round_.summary_call:
            labels.append(StepLabel(5, "response", path, summary_words(following), goes_on=following))
        elif following is None:
            labels.append(StepLabel(5, "response", path, "final answer"))
        else:
            # A text-protocol agent (commands in the text, run by the program) or a person's next question goes on.
            labels.append(StepLabel(5, "response", path, f"answer in text: {turn_ends_words(following)}",
                                    goes_on=following))
    elif response.stop == "end" and not response.message.tool_calls and spoken_words(round_):
        part = spoken(response.message)[0]
        said = spoken_words(round_)
        labels.append(StepLabel(5, "response", join_path(response.message_path, part.path),
                                f"final answer, in audio: {_transcript_kept(round_)}" if following is None
                                else f"{said}: {turn_ends_words(following)}", goes_on=following))
    elif response.stop == "end" and not response.message.tool_calls and response.finish_reason_path:
        # A span that kept no content still says the turn ended: its stop signal is the step on the payload.
        said = f"{finish_field} {response.finish_reason!r}"
        held = NOT_CAPTURED if not round_.answer_recorded else \
            "the response holds no text (the log kept none, or the model wrote none)"
        labels.append(StepLabel(5, "response", response.finish_reason_path,
                                f"{said}: {turn_ends_words(following)}; {held}", goes_on=following))
    return labels


def execution_outcome(execution: Execution) -> str:
    """How one execution ended, in a step's words: a call a person declined, or the program refused before any
    handler ran, never ran, so no handler failed."""
    if execution.ok:
        return "ok"
    if execution.approval == "declined":
        return "declined, not run"
    return "refused, not run" if execution.refused else "failed"
