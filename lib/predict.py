"""Predict mode: the learner says what the model will do before the response is shown; we score it.

A prediction names a tool call or an answer, which tools (several, for calls in parallel) and with which arguments,
and how many messages the next request will carry. Points, per round:

- tool or answer: 1 (a command the model wrote in its text, AutoGPT's JSON command or a ReAct agent's action, is a
  call where its steps call it a call intent, lib.steps.text_commands and command_unproven: the command and its `args`
  or the action's input are scored as a call's, with no tool list to choose from);
- when the model called tools: which tools, 1 for each tool it called (a point for each one named, one off for each
  named that it did not call, never below 0), unless the request offered no tool list to choose from (a log that
  kept none); per tool it called, the argument names, 1, and their values, 1, over the names the learner gave (a
  name left out costs the names point only; values compared as parsed JSON, so 3860.00 and 3860 agree). Free text
  (a `reason` of several words) cannot be predicted word for word: it is not scored, and a tool whose every value is
  free text has no values point;
- when the trace has a next request: its number of messages, 1.

Pure functions, no Streamlit: lib/ui/predict.py keeps the scores in the session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Literal

from lib.failures import is_unsent, status_words, unrun_in_batch
from lib.growth import program_sent
from lib.logs.native import json_problem
from lib.model import JSON, Round, ToolDefinition, Trace
from lib.steps import command_unproven, text_commands, written_arguments, written_call
from lib.text import plural

Action = Literal["call", "answer"]
"""What a response does: ask for a tool, or answer in text."""
ACTIONS: dict[Action, str] = {"call": "call a tool", "answer": "answer in text"}
"""Each action in a learner's words."""
PROSE_WORDS = 4
"""A string value of this many words or more is free text: no learner could write it word for word, so it is not
scored (`BX-20261015-0932` and `submitted` are; a sentence giving a reason is not). A shorter string is scored with
its case and spacing left out: `paris` for `Paris` is the value the model chose, typed another way."""


@dataclass(frozen=True, slots=True)
class Expected:
    """One tool call a learner expects."""

    tool: str | None
    """The tool; None where the request offered no tool list to choose from."""
    arguments: JSON | None = None
    """The arguments expected, parsed; None when none were given or they did not parse."""
    arguments_error: str | None = None
    """Why the arguments given did not parse, or None."""
    written: str = ""
    """The arguments as the learner wrote them: what the scored result echoes."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """What a learner expects the model to do next."""

    action: Action | None
    """A tool call or an answer; None when the learner did not say."""
    calls: tuple[Expected, ...] = ()
    """The calls expected, one per tool named; with no tool list, at most one, whose tool is None."""
    next_messages: int | None = None
    """How many messages the learner expects the next request to carry; None when not said."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the model did in one round, as a prediction is scored against it."""

    round: int
    """1-based round."""
    action: Action
    """A tool call or an answer."""
    calls: tuple[tuple[str, JSON], ...]
    """Each call's tool name and parsed arguments, in order."""
    next_messages: int | None
    """Messages in the next request, or None when the trace has no next request."""
    arguments_raw: tuple[str, ...] = ()
    """Each call's arguments as the model wrote them, in the order of `calls`: what feedback quotes."""
    tools_offered: bool = True
    """False when the request carries no tool list for the learner to choose from (the log kept none): which
    tool is then not scored, and the arguments are compared with every call's."""
    written: bool = False
    """True where the call is a command the model wrote in its text, not a tool call (AutoGPT's JSON command, a ReAct
    agent's action): its steps label it a call intent (lib.steps.text_commands, command_unproven), and so is it
    scored."""


@dataclass(frozen=True, slots=True)
class Point:
    """One scored part of a prediction."""

    what: str
    """What was predicted, e.g. `which tools`."""
    earned: int
    """Points earned."""
    possible: int
    """Points possible."""
    says: str
    """What really happened, in our words."""


@dataclass(frozen=True, slots=True)
class Side:
    """One tool's arguments as the learner predicted them beside the model's, for the scored result to show."""

    tool: str | None
    """The tool the model called; None where the request offered no tool list (every call is compared)."""
    yours: str | None
    """The learner's arguments as written; None when they gave none for this tool."""
    model: str | None
    """The model's arguments as it wrote them (the call nearest the learner's, for a tool called twice); None for a
    tool the learner named that the model did not call."""


@dataclass(frozen=True, slots=True)
class Score:
    """A prediction for one round, scored."""

    round: int
    """1-based round."""
    points: tuple[Point, ...]
    """Each part, scored."""
    prediction: Prediction | None = None
    """What the learner predicted, echoed back with the score."""
    sides: tuple[Side, ...] = ()
    """Per tool the model called, the learner's arguments beside its own."""

    @property
    def earned(self) -> int:
        """Points earned over all parts."""
        return sum(p.earned for p in self.points)

    @property
    def possible(self) -> int:
        """Points possible over all parts."""
        return sum(p.possible for p in self.points)


def has_next_request(trace: Trace, index: int) -> bool:
    """True when round `index` is followed by another request, whose messages a learner can be asked to count."""
    return index < len(trace.rounds)


def outcome(trace: Trace, index: int) -> Outcome | None:
    """What round `index` did, or None when it has no response to predict (an error, a call in flight)."""
    round_ = trace.rounds[index - 1]
    if round_.response is None:
        return None
    calls = tuple((c.name, c.arguments) for c in round_.tool_calls)
    raw = tuple(c.arguments_raw for c in round_.tool_calls)
    following = trace.rounds[index] if has_next_request(trace, index) else None
    written = _written(trace, index) if not calls else None
    if written is not None:  # a call intent written in the text, as the round's step 2 says: no answer
        # Shown as the model wrote them; where it wrote no `args` (or another command ran), the value scored.
        exact = written_arguments(round_) if written == written_call(round_) else None
        calls, raw = (written,), (exact if exact is not None else json.dumps(written[1], ensure_ascii=False, indent=2),)
    return Outcome(index, "call" if calls else "answer", calls,
                   program_sent(following) if following else None,
                   raw, tools_offered=bool(round_.request.tools), written=written is not None)


def _written(trace: Trace, index: int) -> tuple[str, JSON] | None:
    """The command round `index`'s response wrote in its text with its arguments, where its steps label it a call
    intent: the program ran it (text_commands), or no request carries its result (command_unproven); None elsewhere."""
    found = written_call(trace.rounds[index - 1])
    if found is None:
        return None
    ran = [c.name for c in text_commands(trace, index)]
    if ran:
        return found if found[0] in ran else (ran[0], {})
    return found if command_unproven(trace, index) is not None else None


def nothing_to_predict_words(round_: Round) -> str:
    """Why a round has no response to predict (outcome is None), in our words: the call failed, no provider saw its
    request, or the log ends on it. Said where a worksheet would otherwise ask what the model does there."""
    error = round_.error
    if error is None:
        return "Nothing to predict in this round: the log ends on this request, with no response recorded."
    if is_unsent(error) or unrun_in_batch(error):
        return "Nothing to predict in this round: no provider saw this request, so no model answered it."
    return (f"Nothing to predict in this round: the call failed ({status_words(error)}), so no response from the model "
            "came back.")


_SAMPLES = {"string": "…", "number": 0, "integer": 0, "boolean": True, "array": [], "object": {}}
"""A value of each JSON schema type, to show the shape of arguments without suggesting any."""


def placeholder(tool: ToolDefinition | None) -> str:
    """Arguments in the shape of the tool chosen, read off its definition in the request's tool list (which the
    learner sees: it was sent): its parameter names, with neutral values, so the hint suggests no value. With no
    tool chosen, or one that takes no parameters, `{}`."""
    properties = tool.parameters.get("properties") if tool and isinstance(tool.parameters, dict) else None
    if not isinstance(properties, dict) or not properties:
        return "{}"
    return json.dumps({name: _SAMPLES.get(schema.get("type") if isinstance(schema, dict) else None, "…")
                       for name, schema in properties.items()}, ensure_ascii=False)


def read_arguments(text: str) -> tuple[JSON | None, str | None]:
    """A learner's arguments as (parsed value, None), (None, why not) or (None, None) when left empty."""
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except ValueError as exc:  # worded as an upload's line is, not as Python's "line 1 column 2 (char 1)"
        return None, json_problem(exc, "arguments").removeprefix("is ")
    except RecursionError:
        return None, "not valid JSON (it is nested too deeply to read)"


def expected(tool: str | None, text: str) -> Expected:
    """One call a learner expects, from the tool chosen and the arguments as typed."""
    arguments, problem = read_arguments(text)
    return Expected(tool, arguments, problem, text.strip())


def _listed(names: Iterable[str]) -> str:
    names = list(dict.fromkeys(names))
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def is_prose(value: JSON) -> bool:
    """Whether a value is free text, which is not scored (PROSE_WORDS)."""
    return isinstance(value, str) and len(value.split()) >= PROSE_WORDS


def _same(model: JSON, yours) -> bool:
    """Whether the learner's value is the model's, free text anywhere inside it taken as right."""
    if is_prose(model):
        return True
    if isinstance(model, bool) or isinstance(yours, bool):  # JSON's true is not 1
        return model is yours
    if isinstance(model, str) and isinstance(yours, str):
        return _typed_alike(model) == _typed_alike(yours)
    if isinstance(model, dict):
        return (isinstance(yours, dict) and set(model) == set(yours)
                and all(_same(v, yours[k]) for k, v in model.items()))
    if isinstance(model, list):
        return isinstance(yours, list) and len(model) == len(yours) and all(map(_same, model, yours))
    return model == yours


def _typed_alike(text: str) -> str:
    return " ".join(text.casefold().split())


def _compared(model: JSON, yours: JSON) -> list[str]:
    """The model's argument names whose values are scored: those the learner gave too, free text aside. A name the
    learner left out is the names point's loss alone: no value of theirs differs on it."""
    if isinstance(model, dict) and isinstance(yours, dict):
        return [k for k, v in model.items() if k in yours and not is_prose(v)]
    return []


def _differing(model: JSON, yours: JSON) -> list[str]:
    """The model's argument names whose values the learner gave differently (free text aside); `arguments` for a
    value that is no object."""
    if isinstance(model, dict) and isinstance(yours, dict):
        return [k for k in _compared(model, yours) if not _same(model[k], yours[k])]
    return [] if _same(model, yours) else ["arguments"]


def _values_right(model: JSON, yours: JSON) -> bool:
    """Whether the values point is earned: every value compared is the model's, and at least one was compared."""
    if isinstance(model, dict) and isinstance(yours, dict) and not _compared(model, yours):
        return False
    return not _differing(model, yours)


def _scored_values(model: JSON) -> bool:
    """Whether the model's arguments hold any value that is scored: not only free text, nor no value at all."""
    if isinstance(model, dict):
        return any(not is_prose(v) for v in model.values())
    return not is_prose(model)


def _keys(value: JSON) -> frozenset | None:
    return frozenset(value) if isinstance(value, dict) else None


def _names_words(model: JSON, yours: JSON) -> str:
    if _keys(model) == _keys(yours):
        return "the same names"
    if not isinstance(model, dict) or not isinstance(yours, dict):
        return "yours were not an object of names and values" if isinstance(model, dict) else "the names differ"
    left_out, extra = [k for k in model if k not in yours], [k for k in yours if k not in model]
    said = [f"you gave no {_listed(left_out)}"] if left_out else []
    return "; ".join(said + ([f"it sent no {_listed(extra)}"] if extra else []))


def _values_words(model: JSON, yours: JSON) -> str:
    differ = _differing(model, yours)
    prose = [k for k, v in model.items() if is_prose(v)] if isinstance(model, dict) else []
    scored = [k for k, v in model.items() if not is_prose(v)] if isinstance(model, dict) else []
    compared = _compared(model, yours)
    if differ:
        said = f"values differ: {_listed(differ)}"
    elif isinstance(model, dict) and isinstance(yours, dict) and not compared:
        said = f"no value of yours to compare: it sent {_listed(scored)}"
    else:
        # A name left out is said at the names point; the values are those of the names given.
        said = "the same values" if compared == scored else f"the same values for {_listed(compared)}"
    if prose:
        said += f" ({_listed(prose)}: free text, not scored)"
    return said


def _nearest(calls: list[tuple[JSON, str]], yours: JSON) -> tuple[JSON, str]:
    """Of a tool's calls, the one the learner's arguments match best: same names first, then fewest values apart."""
    return min(calls, key=lambda c: (_keys(c[0]) != _keys(yours), len(_differing(c[0], yours))))


def _arguments(prediction: Prediction, outcome_: Outcome) -> tuple[list[Point], list[Side]]:
    # Per tool the model called; with no tool list to choose from, every call is one group and the learner's one set
    # of arguments may be meant for any of them.
    groups: dict[str | None, list[tuple[JSON, str]]] = {}
    raw = outcome_.arguments_raw or tuple(json.dumps(args, ensure_ascii=False) for _, args in outcome_.calls)
    for (name, args), written in zip(outcome_.calls, raw):
        groups.setdefault(name if outcome_.tools_offered else None, []).append((args, written))
    yours = {c.tool: c for c in prediction.calls} if prediction.action == "call" else {}
    names_earned = values_earned = values_possible = 0
    names_said, values_said, sides = [], [], []
    for tool, calls in groups.items():
        mine = yours.get(tool)
        about = f"{tool}: " if tool is not None and len(groups) > 1 else ""
        scored = any(_scored_values(args) for args, _ in calls)
        values_possible += scored
        if mine is None or mine.arguments is None:
            why = ("you did not name it" if tool is not None else "you predicted no call") if mine is None else (
                f"yours were {mine.arguments_error}" if mine.arguments_error else "you gave none")
            names_said.append(about + why)
            values_said.append(about + why)
            sides.append(Side(tool, mine.written or None if mine else None, calls[0][1]))
            continue
        model, written = _nearest(calls, mine.arguments)
        sides.append(Side(tool, mine.written, written))
        names_right = _keys(model) == _keys(mine.arguments)
        names_earned += names_right
        names_said.append(about + _names_words(model, mine.arguments))
        if scored:
            values_earned += _values_right(model, mine.arguments)
            values_said.append(about + _values_words(model, mine.arguments))
        else:
            values_said.append(about + "nothing but free text, not scored")
    points = [Point("argument names", names_earned, len(groups), "; ".join(names_said))]
    if values_possible:
        points.append(Point("argument values", values_earned, values_possible, "; ".join(values_said)))
    return points, sides


def _tools_point(prediction: Prediction, outcome_: Outcome, did: str) -> Point:
    called = list(dict.fromkeys(name for name, _ in outcome_.calls))
    named = [c.tool for c in prediction.calls if c.tool is not None] if prediction.action == "call" else []
    right, wrong = [n for n in named if n in called], [n for n in named if n not in called]
    said = f"you named {_listed(named)}" if named else "you named none"
    if wrong:
        said += f"; it did not call {_listed(wrong)}"
    return Point("which tools" if len(called) > 1 else "which tool", max(len(right) - len(wrong), 0), len(called),
                 f"{did}; {said}")


def score(prediction: Prediction, outcome_: Outcome) -> Score:
    """A prediction scored against what the round did."""
    points, sides = [], []
    named = outcome_.action == "call" and outcome_.tools_offered
    if outcome_.written:
        action = did = (f"it wrote the command {_listed(name for name, _ in outcome_.calls)} in its text, not as a "
                        "tool call: a call intent all the same")
    elif outcome_.action == "call":
        count = len(outcome_.calls)
        did = f"it called {_listed(name for name, _ in outcome_.calls)}" + (
            f" in parallel: {count} calls in one response" if count > 1 else "")
        # Where the next point names the tools, this one says only what the model did, so no line is said twice.
        action = ("it called a tool" if count == 1 else f"it called {count} tools in parallel") if named else did
    else:
        action = did = "it answered in text"
    points.append(Point("tool or answer", int(prediction.action == outcome_.action), 1, action))
    if named:
        points.append(_tools_point(prediction, outcome_, did))
    if outcome_.action == "call":
        argued, sides = _arguments(prediction, outcome_)
        points.extend(argued)
    if outcome_.next_messages is not None:
        right = prediction.next_messages == outcome_.next_messages
        points.append(Point("messages in the next request", int(right), 1,
                            f"request {outcome_.round + 1} carried {plural(outcome_.next_messages, 'message')}"))
    called = {name for name, _ in outcome_.calls} if outcome_.tools_offered else {None}
    if prediction.action == "call":  # the learner's arguments for a tool it did not call are echoed too
        sides += [Side(c.tool, c.written or None, None) for c in prediction.calls
                  if c.tool not in called and (c.tool is not None or c.written)]
    return Score(outcome_.round, tuple(points), prediction, tuple(sides))


def echo(prediction: Prediction, counted: bool = True) -> str:
    """What the learner predicted, in one line of our words and their tool names: what the scored result echoes.
    The messages asked for are echoed too where no request follows (`counted` False), said not scored there."""
    said = [ACTIONS[prediction.action] if prediction.action else "nothing said of a call or an answer"]
    named = [c.tool for c in prediction.calls if c.tool is not None]
    if named:
        said[0] += f": {_listed(named)}"
    if prediction.next_messages is not None:
        said.append(f"the next request: {plural(prediction.next_messages, 'message')}"
                    + ("" if counted else " (not scored)"))
    return "; ".join(said)


def total(scores: Iterable[Score]) -> tuple[int, int]:
    """Points earned and possible over every scored round."""
    earned = possible = 0
    for found in scores:
        earned += found.earned
        possible += found.possible
    return earned, possible
