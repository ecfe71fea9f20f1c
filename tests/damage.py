"""Real recordings damaged on purpose: one field replaced by any value, or the bytes cut or garbled.

Every recording in tests/fixtures/ is opened the way its format is written (lines of JSON, one JSON
document, a YAML cassette, an Inspect `.eval` zip), so a field anywhere in it can be replaced and the
file written back in the same layout. A string that itself holds JSON (a cassette's or a HAR entry's
body, an OTLP attribute carrying messages) is opened too: its fields are fields of the recording.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml
from hypothesis import strategies as st

from lib.logs.documents import load_yaml

FIXTURES = Path(__file__).parent / "fixtures"

INSIDE_JSON = "<json>"
"""A path step: the string here is JSON; parse it, go on inside, write it back."""

LINE_FIXTURES = sorted(path.name for path in FIXTURES.glob("*.jsonl"))
"""Every line-per-call recording."""
DOCUMENT_FIXTURES = sorted(f"containers/{path.name}" for path in (FIXTURES / "containers").iterdir()
                           if path.suffix in (".json", ".traj", ".har", ".yaml", ".yml", ".eval"))
"""Every whole-document recording: Inspect logs, SWE-agent, tau-bench, VCR cassettes, HAR."""
PARTNERS = {"openai-batch-input.jsonl": "openai-batch-output.jsonl",
            "openai-batch-output.jsonl": "openai-batch-input.jsonl",
            "anthropic-batch-requests.jsonl": "anthropic-batch-results.jsonl",
            "anthropic-batch-results.jsonl": "anthropic-batch-requests.jsonl"}
"""Batch halves are uploaded together, as a user uploads them: the damaged file beside its intact partner."""

HOSTILE_VALUES = st.one_of(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8),
    st.sampled_from([2 ** 70, -1, 0, 1.5e308, "", "x" * 200_000, "<b>", "null", "{}", "[]",
                     {"type": None}, {"role": None, "content": None}, [None], [[]], [{}]]),
    st.integers(min_value=50, max_value=900).map(lambda depth: json.loads("[" * depth + "]" * depth)),
)
"""Any JSON value: null, booleans, numbers big and small, strings empty and huge, lists, objects, deep nesting."""


@dataclass(frozen=True)
class Recording:
    """A recording opened for damage: its values, and how to write them back as the file's bytes."""

    name: str
    """The file name the upload carries (it picks the reader, as a user's file name does)."""
    values: Any
    """The parsed content: a list of lines, one document, or {member: document} of a zip."""
    write: Callable[[Any], bytes]
    """The content back to bytes, in the file's own layout."""


def _write_lines(values: list) -> bytes:
    return "\n".join(json.dumps(value) for value in values).encode()


def _write_yaml(document) -> bytes:
    try:
        return yaml.safe_dump(document, sort_keys=False).encode()
    except RecursionError:  # PyYAML's writer recurses per level; JSON is YAML too, and the reader's depth guard sees it
        return json.dumps(document, default=str).encode()


def _write_zip(members: dict) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, document in members.items():
            archive.writestr(member, json.dumps(document) if not isinstance(document, bytes) else document)
    return out.getvalue()


def _read_zip(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {member: json.loads(archive.read(member)) if member.endswith(".json") else archive.read(member)
                for member in archive.namelist()}


def opened(fixture: str) -> Recording:
    """The fixture (a path under tests/fixtures/) parsed into values that can be damaged."""
    path = FIXTURES / fixture
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return Recording(path.name, [json.loads(line) for line in data.splitlines() if line.strip()], _write_lines)
    if path.suffix in (".yaml", ".yml"):
        # As the app reads it: a cassette recorded through aiohttp tags its header names, which safe_load refuses.
        return Recording(path.name, load_yaml(data), _write_yaml)
    if path.suffix == ".eval":
        return Recording(path.name, _read_zip(data), _write_zip)
    return Recording(path.name, json.loads(data), lambda doc: json.dumps(doc).encode())


ELEMENT_LISTS = (("samples",), ("log", "entries"), ("interactions",), ("http_interactions",))
"""Where a document keeps the elements the importer numbers: an Inspect log's samples, a HAR's entries, a cassette's interactions."""


def items(recording: Recording) -> list[tuple]:
    """The path to each item the importer names on its own: a line, an array's element, a sample, an entry, an
    interaction (none for a file that is one object)."""
    values = recording.values
    if recording.name.endswith(".eval"):
        return [(member,) for member in values if member.startswith("samples/")]
    if isinstance(values, list):
        return [(n,) for n in range(len(values))]
    for prefix in ELEMENT_LISTS:
        found = values
        for step in prefix:
            found = found.get(step) if isinstance(found, dict) else None
        if isinstance(found, list):
            return [(*prefix, n) for n in range(len(found))]
    return []


def _json_inside(value: str) -> Any:
    if len(value) < 2 or value.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def paths(value, path=()):
    """Every path to a field of the content, inside JSON held in strings too."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    elif isinstance(value, str) and (inner := _json_inside(value)) is not None:
        yield from paths(inner, (*path, INSIDE_JSON))
        return
    else:
        return
    for key, inner in items:
        yield (*path, key)
        yield from paths(inner, (*path, key))


def replaced(value, path: tuple, new) -> Any:
    """`value` with the field at `path` replaced by `new` (a copy along the path; the rest shared)."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if step == INSIDE_JSON:
        return json.dumps(replaced(json.loads(value), rest, new))
    if isinstance(value, dict):
        return {**value, step: replaced(value[step], rest, new)}
    copy = list(value)
    copy[step] = replaced(copy[step], rest, new)
    return copy


def value_at(value, path: tuple) -> Any:
    """The field at `path` (inside JSON held in strings too)."""
    for step in path:
        value = json.loads(value) if step == INSIDE_JSON else value[step]
    return value


def damaged(recording: Recording, path: tuple, new) -> bytes:
    """The recording's bytes with one field replaced."""
    return recording.write(replaced(recording.values, path, new))


def cut(data: bytes, at: int) -> bytes:
    """The first `at` bytes: a file truncated mid-write."""
    return data[:at]


def garbled(data: bytes, at: int, junk: bytes) -> bytes:
    """`junk` written over the bytes at `at`: a disk or a copy that damaged a stretch."""
    return data[:at] + junk + data[at + len(junk):]


INTERNAL = re.compile(r"\b(?:[A-Z][a-z]+)+(?:Error|Exception)\b|Traceback|\bNoneType\b|object has no attribute|"
                      r"not subscriptable|object is not|unhashable type|takes \d+ positional")
"""What a Python exception's message looks like: a reader crashed, and its crash was caught and shown as is."""


def unclear(problems) -> list[str]:
    """The problems that read as a crash caught, not as what is wrong with the line."""
    return [str(p) for p in problems if INTERNAL.search(p.message)]
