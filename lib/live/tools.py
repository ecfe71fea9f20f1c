"""The tool registry: an explicit name -> tool map, argument checks, and one call's execution.

Nothing the model writes raises here. An unknown name, arguments that do not parse or break the
schema, a declined call and a handler that fails all become a tool result the model can read.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Callable

from jsonschema import Draft202012Validator

from lib.live.data import Database
from lib.model import REFUSED_NOTE, ToolCallPart

DECLINED = "Not executed: the person reviewing this call declined it."
"""The result a declined call returns: plain, so the model can tell the user what did not happen."""


@dataclass(frozen=True)
class Context:
    """What a handler may use besides its arguments."""

    database: Database | None
    """The scenario's SQLite database, or None for a tool that needs no data."""
    session: dict
    """Values the app knows about the person (who is signed in); never taken from the model."""
    now: datetime
    """The clock: the scenario's own day, so a replayed run writes the same ticket numbers."""


@dataclass(frozen=True)
class Tool:
    """One tool: what the model reads about it, and the Python that runs it."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the model reads to decide when to call it."""
    parameters: dict
    """The JSON schema of its arguments."""
    handler: Callable[[Context, dict], Any]
    """The ordinary function that does the work; returns a JSON value (a dict with `ok`)."""
    writes: bool = False
    """It changes data, so a person approves each call first."""
    from_session: tuple[str, ...] = ()
    """Arguments the program fills from the app's session, whatever the model wrote."""
    strict: bool = False
    """Ask OpenAI-dialect providers to hold the arguments to the schema (`strict: true`)."""


@dataclass(frozen=True)
class Result:
    """One call's execution and the tool result the model will read."""

    execution: dict
    """The execution entry of the native trace (docs/trace-format.md)."""
    content: str
    """The tool result text sent back."""
    rejected: bool = False
    """The arguments or the tool name were refused: a correction attempt is used up."""


@dataclass(frozen=True)
class Toolbox:
    """The tools of one run, by name, and the context their handlers share."""

    tools: dict[str, Tool]
    """The explicit name -> tool map: the only functions the model can reach."""
    context: Context
    """What the handlers may use."""

    def check(self, call: ToolCallPart) -> Result | None:
        """The refusal for a call that cannot run (unknown tool, bad arguments), or None when it may run."""
        tool = self.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.tools) or "none"
            return _refused(call, f"No tool named {call.name!r} is available. The tools are: {names}.")
        if call.arguments_error is not None or not isinstance(call.arguments, dict):
            why = call.arguments_error or "they are not a JSON object"
            return _refused(call, f"Invalid arguments for {call.name}: {why}. Send the arguments as one JSON object.")
        problems = schema_problems(tool.parameters, call.arguments)
        if problems:
            return _refused(call, f"Invalid arguments for {call.name}: " + "; ".join(problems) + ".")
        return None

    def ask(self, call: ToolCallPart) -> str | None:
        """What a person must decide before this call (after `check`) runs, or None when it runs at once."""
        return f"{call.name} changes data: approve or decline call {call.id}." if self.tools[call.name].writes else None

    def run(self, call: ToolCallPart, approval: str | None = None, note: str = "") -> Result:
        """Execute one call (after `check`); a declined call is answered without running anything."""
        refused = self.check(call)
        if refused is not None:
            return refused
        tool = self.tools[call.name]
        arguments, overrides = self._with_session(tool, call.arguments)
        entry = {"tool_call_id": call.id, "name": call.name, "arguments": arguments}
        notes = [f"{name} taken from the app's session, not from the model" for name in overrides]
        if approval == "declined":
            content = DECLINED + (f" Their note: {note}" if note else "")
            entry.update(output=content, ok=False, approval="declined")
            return Result(_finish(entry, overrides, notes), content)
        started = time.perf_counter()
        try:
            output = tool.handler(self.context, arguments)
        except Exception as exc:  # noqa: BLE001 - a broken handler is a result, never a crash
            # The model reads this: say what failed, not the program's internals.
            output = {"ok": False, "error": f"{call.name} failed inside the program ({type(exc).__name__}); "
                                            "nothing was changed."}
        entry.update(output=result_text(output), ok=not (isinstance(output, dict) and output.get("ok") is False),
                     duration_ms=round((time.perf_counter() - started) * 1000, 2))
        if approval:
            entry["approval"] = approval
        return Result(_finish(entry, overrides, notes), entry["output"])

    def _with_session(self, tool: Tool, arguments: dict) -> tuple[dict, dict]:
        overrides = {name: self.context.session[name] for name in tool.from_session if name in self.context.session}
        return {**arguments, **overrides}, overrides


def _finish(entry: dict, overrides: dict, notes: list[str]) -> dict:
    if overrides:
        entry["overrides"] = overrides
    if notes:
        entry["note"] = "; ".join(notes)
    return entry


def repeated_id(call: ToolCallPart) -> Result:
    """The refusal for a call whose id was already used in this conversation: never run, whatever it asks."""
    message = (f"Not executed: the call id {call.id!r} was already used earlier in this conversation, and each "
               "call needs an id of its own. Nothing was run for this call; call the tool again if you still need it.")
    return _refused(call, message, f"{REFUSED_NOTE}: repeated call id {call.id!r}; nothing was executed")


def _refused(call: ToolCallPart, message: str,
             note: str = f"{REFUSED_NOTE}: nothing was executed") -> Result:
    entry = {"tool_call_id": call.id, "name": call.name,
             "arguments": call.arguments if call.arguments is not None else call.arguments_raw,
             "output": message, "ok": False, "duration_ms": 0.0, "note": note}
    return Result(entry, message, rejected=True)


def schema_problems(schema: dict, arguments: Any) -> list[str]:
    """Each way the arguments break the schema, in words a model can act on."""
    problems = []
    for error in sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path)
        problems.append(f"{where}: {error.message}" if where else error.message)
    return problems


def result_text(value: Any) -> str:
    """A handler's return value as the text the model reads: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else _json(value)


def _json(value: Any) -> str:
    # Money (Decimal) keeps its cents: 60.00 stays 60.00 where a float would print 60.0.
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)
