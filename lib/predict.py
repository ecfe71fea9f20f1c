"""Predict mode: the learner says what the model will do before the response is shown; we score it.

A prediction names a tool call or an answer, which tool and with which arguments, and how many
messages the next request will carry. Points, per round:

- tool or answer: 1;
- when the model called a tool: which tool, 1 (any of the tools it called, for parallel calls), unless the
  request offered no tool list to choose from (a log that kept none); the argument names, 1; their values, 1
  (compared as parsed JSON, so 3860.00 and 3860 agree);
- when the trace has a next request: its number of messages, 1.

Pure functions, no Streamlit: lib/ui/predict.py keeps the scores in the session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Literal

from lib.growth import program_sent
from lib.logs.native import json_problem
from lib.model import JSON, ToolDefinition, Trace
from lib.text import plural, shorten

Action = Literal["call", "answer"]
"""What a response does: ask for a tool, or answer in text."""
ACTIONS: dict[Action, str] = {"call": "call a tool", "answer": "answer in text"}
"""Each action in a learner's words."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """What a learner expects the model to do next."""

    action: Action | None
    """A tool call or an answer; None when the learner did not say."""
    tool: str | None = None
    """The tool the learner expects, when a call."""
    arguments: JSON | None = None
    """The arguments expected, parsed; None when none were given."""
    arguments_error: str | None = None
    """Why the arguments given did not parse, or None."""
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


@dataclass(frozen=True, slots=True)
class Point:
    """One scored part of a prediction."""

    what: str
    """What was predicted, e.g. `which tool`."""
    earned: int
    """Points earned."""
    possible: int
    """Points possible."""
    says: str
    """What really happened, in our words."""


@dataclass(frozen=True, slots=True)
class Score:
    """A prediction for one round, scored."""

    round: int
    """1-based round."""
    points: tuple[Point, ...]
    """Each part, scored."""

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
    following = trace.rounds[index] if has_next_request(trace, index) else None
    return Outcome(index, "call" if calls else "answer", calls,
                   program_sent(following) if following else None,
                   tuple(c.arguments_raw for c in round_.tool_calls), tools_offered=bool(round_.request.tools))


_SAMPLES = {"string": "…", "number": 0, "integer": 0, "boolean": True, "array": [], "object": {}}
"""A value of each JSON schema type, to show the shape of arguments without suggesting any."""


def placeholder(tools: Iterable[ToolDefinition]) -> str:
    """Arguments in the shape of the first tool of this request that takes any: its own parameter names, with
    neutral values, so the hint never names another trace's fields nor suggests a value."""
    for tool in tools:
        properties = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
        if isinstance(properties, dict) and properties:
            return json.dumps({name: _SAMPLES.get(schema.get("type") if isinstance(schema, dict) else None, "…")
                               for name, schema in list(properties.items())[:3]}, ensure_ascii=False)
    return "{}"


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


def _names(calls: Iterable[tuple[str, JSON]]) -> str:
    names = list(dict.fromkeys(name for name, _ in calls))
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def _arguments(prediction: Prediction, outcome_: Outcome) -> list[Point]:
    # With no tool to choose, the learner's arguments may be meant for any of the calls.
    chosen = [outcome_.tools_offered is False or name == prediction.tool for name, _ in outcome_.calls]
    same_tool = [args for (_, args), take in zip(outcome_.calls, chosen) if take]
    # Quoted as the model wrote them: re-serialized, 3860.00 would read 3860.0.
    written = [raw for raw, take in zip(outcome_.arguments_raw, chosen) if take]
    sent = (written or list(outcome_.arguments_raw) or [json.dumps(outcome_.calls[0][1], ensure_ascii=False)])[0]
    if prediction.action != "call" or not same_tool:
        says = f"it sent {shorten(sent, 120)}"
        return [Point("argument names", 0, 1, says), Point("argument values", 0, 1, says)]
    if prediction.arguments_error:
        says = f"yours were {prediction.arguments_error}; it sent {shorten(sent, 120)}"
        return [Point("argument names", 0, 1, says), Point("argument values", 0, 1, says)]
    if prediction.arguments is None:
        says = f"you gave none; it sent {shorten(sent, 120)}"
        return [Point("argument names", 0, 1, says), Point("argument values", 0, 1, says)]
    names = any(_keys(prediction.arguments) == _keys(args) for args in same_tool)
    values = any(prediction.arguments == args for args in same_tool)
    return [
        Point("argument names", int(names), 1, f"it sent {shorten(sent, 120)}"),
        Point("argument values", int(values), 1, "the same values" if values else f"it sent {shorten(sent, 120)}"),
    ]


def _keys(value: JSON) -> frozenset | None:
    return frozenset(value) if isinstance(value, dict) else None


def score(prediction: Prediction, outcome_: Outcome) -> Score:
    """A prediction scored against what the round did."""
    points = []
    if outcome_.action == "call":
        did = f"it called {_names(outcome_.calls)}" + (" in parallel" if len(outcome_.calls) > 1 else "")
    else:
        did = "it answered in text"
    points.append(Point("tool or answer", int(prediction.action == outcome_.action), 1, did))
    if outcome_.action == "call" and outcome_.tools_offered:
        right = prediction.action == "call" and any(name == prediction.tool for name, _ in outcome_.calls)
        points.append(Point("which tool", int(right), 1, did))
    if outcome_.action == "call":
        points.extend(_arguments(prediction, outcome_))
    if outcome_.next_messages is not None:
        right = prediction.next_messages == outcome_.next_messages
        points.append(Point("messages in the next request", int(right), 1,
                            f"request {outcome_.round + 1} carried {plural(outcome_.next_messages, 'message')}"))
    return Score(outcome_.round, tuple(points))


def total(scores: Iterable[Score]) -> tuple[int, int]:
    """Points earned and possible over every scored round."""
    earned = possible = 0
    for found in scores:
        earned += found.earned
        possible += found.possible
    return earned, possible
