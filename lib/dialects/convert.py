"""One round in either dialect: the model's Request and Response written by the target dialect's
writers (`write_request`, `write_response` in lib/dialects/<dialect>.py).

The conversion goes through Roundtrip's data model (lib/model.py), never from one dialect's JSON straight to
the other's: messages, parts, call ids, results and the stop signal come from the model; only
the request's settings (max_tokens, tool_choice, stop sequences), which the model does not hold,
are asked of the source dialect's module.

What "the same model" means, and what cannot survive, is `ModelView` (lib/dialects/equivalence.py)
and the section "Dialects" of docs/architecture.md. Everything a conversion leaves out or has to
fill in is named in `Converted.notes`, never dropped silently.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from lib.dialects import DIALECTS
from lib.dialects.common import Pools
from lib.model import Dialect, Request, Response


@dataclass(frozen=True, slots=True)
class Converted:
    """A body written in one dialect, and what of the source it could not carry."""

    dialect: Dialect
    """The dialect the body is written in."""
    body: dict
    """The request or response body."""
    notes: tuple[str, ...]
    """Each thing the source held that the body does not, or that had to be filled in, in a user's words."""


@dataclass(frozen=True, slots=True)
class ConvertedRound:
    """A round's request and response written in one dialect."""

    request: Converted
    """The request body."""
    response: Converted | None
    """The response body, or None when the round has no response (an error, a call in flight)."""

    @property
    def notes(self) -> tuple[str, ...]:
        """Everything the request and the response could not carry."""
        return self.request.notes + (self.response.notes if self.response else ())


def _converted(dialect: Dialect, body: dict, notes: list[str]) -> Converted:
    # The body shares values (arguments, schemas) with a trace every session reads: a copy keeps it read-only.
    return Converted(dialect, copy.deepcopy(body), tuple(notes))


# --- whole rounds, and reading a converted round back into the model --------------------------


def convert(request: Request, response: Response | None, source: Dialect, target: Dialect) -> ConvertedRound:
    """The round written in `target`, from the model read out of `source`."""
    reader, writer = DIALECTS[source], DIALECTS[target]
    written = _converted(target, *writer.write_request(request, reader))
    if response is None:
        return ConvertedRound(written, None)
    return ConvertedRound(written, _converted(target, *writer.write_response(response, reader)))


def reread(converted: ConvertedRound) -> tuple[Request, Response | None]:
    """The converted bodies read back into the model by the target dialect's own reader."""
    reader = DIALECTS[converted.request.dialect]
    pools = Pools()
    request = reader.read_request(converted.request.body, pools)
    response = reader.read_response(converted.response.body, pools) if converted.response else None
    return request, response


