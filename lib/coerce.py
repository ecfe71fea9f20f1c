"""Typed fields read from untrusted JSON: each value is the type the model promises, or None.

A log may carry `"duration_ms": "x"`, a dict as a model name or a list as a title; what reaches
the model (and from there a page) is always the declared type, never a raw value of another.
"""

from __future__ import annotations

import math
from typing import Any


def text_or_none(value: Any) -> str | None:
    """A string field: strings pass, numbers are written out, anything else is absent."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def text(value: Any, default: str = "") -> str:
    """A string field that is never absent."""
    found = text_or_none(value)
    return default if found is None else found


def number_or_none(value: Any) -> float | int | None:
    """A finite number (a duration, a latency), or None; booleans and numeric strings are not numbers."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


WHOLE_NUMBERS = range(-(2 ** 63), 2 ** 63)
"""The whole numbers a table can hold (64 bits): no real status, index or token count lies outside them."""


def int_or_none(value: Any) -> int | None:
    """A whole number (an HTTP status, an index), or None; `400.0` counts, `"400"` does not, nor one past 64 bits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value in WHOLE_NUMBERS else None


def count(value: Any) -> int:
    """A token count: a whole number of at least 0, anything else 0."""
    if type(value) is int:  # the usual case, without the general checks (but within the 64 bits a table holds)
        return value if 0 < value < 2 ** 63 else 0
    found = int_or_none(value)
    return found if found is not None and found > 0 else 0


def flag(value: Any, default: bool) -> bool:
    """A boolean field: only true and false count; anything else is the default."""
    return value if isinstance(value, bool) else default


def mapping(value: Any) -> dict:
    """An object field: a dict, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}


def shown(value: Any, width: int = 60) -> str:
    """A value as a problem message quotes it: its repr, cut short, since a line may put a megabyte there."""
    said = repr(value)
    return said if len(said) <= width else said[: width - 1] + "…"
