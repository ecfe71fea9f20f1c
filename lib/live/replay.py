"""Recordings and the replay provider: answers from recorded responses, keyed by the request.

A recording pairs a request with the response (or error) it got. Its key is a digest of what the
model reads in the request: the system prompt, the messages and the tools. Settings the model
does not read (model name, temperature, tool_choice, reasoning_effort) are not part of the key, so
a changed model name still replays, while one changed character in a tool description or a
question gets "no recording for this request". A recording whose answer depends on a forced
tool_choice says so (`settings`) and answers only a request with those settings. The file format is described in
lib/live/recordings/README.md.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from lib.failures import NO_RECORDING, NO_RECORDING_SAID
from lib.live.providers import Exchange, provider_message

RECORDINGS_DIR = Path(__file__).resolve().parent / "recordings"
"""The bundled recordings, one file per scenario."""

KEY_FIELDS = ("system", "messages", "tools")
"""The parts of a request body the key is made of."""

VERSION = 1


def request_key(body: dict) -> str:
    """The canonical digest of what the model reads in a request body."""
    picked = {name: body.get(name) for name in KEY_FIELDS}
    return hashlib.sha256(_canonical(picked).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Recording:
    """One recorded model call."""

    key: str
    """`request_key(request)`."""
    request: dict
    """The request body the response answered."""
    status: int
    """The HTTP status: 200, or the error's status."""
    response: Any
    """The response body, or the error body for a status of 400 and above."""
    note: str = ""
    """Where the response came from, for a person reading the file."""
    settings: dict | None = None
    """`tool_choice` and `parallel_tool_calls` as recorded, when the answer depends on them (a forced tool
    choice): it then answers only a request with the same settings. None answers whatever the settings."""


def request_settings(body: dict) -> dict:
    """The settings a settings-bound recording must match."""
    return {"tool_choice": body.get("tool_choice"), "parallel_tool_calls": body.get("parallel_tool_calls")}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def read_recordings(path: Path) -> list[Recording]:
    """The recordings in a file; a line that is not one raises ValueError naming the line."""
    found = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            obj = json.loads(line) if line.strip() else {}
            if obj.get("kind") == "recordings" or not obj:
                continue
            if obj.get("kind") != "recording" or not isinstance(obj.get("request"), dict):
                raise ValueError(f"{path.name} line {number}: not a recording")
            found.append(Recording(obj["key"], obj["request"], int(obj.get("status", 200)), obj.get("response"),
                                   obj.get("note", ""), obj.get("settings")))
    return found


def write_recordings(path: Path, header: dict, recordings: Iterable[Recording]) -> None:
    """Write a recordings file: the header line, then one line per recording."""
    lines = [{"kind": "recordings", "version": VERSION, **header}]
    lines += [{"kind": "recording", "key": r.key, "note": r.note, "status": r.status,
               **({"settings": r.settings} if r.settings is not None else {}), "request": r.request,
               "response": r.response} for r in recordings]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")


class ReplayProvider:
    """Answers each request with the response recorded for it; needs no key and no network."""

    label = "replay"

    def __init__(self, recordings: Iterable[Recording], dialect: str):
        self.dialect = dialect
        recordings = list(recordings)
        self._by_key = {r.key: r for r in recordings if r.settings is None}
        self._by_settings = {(r.key, _canonical(r.settings)): r for r in recordings if r.settings is not None}

    def send(self, body: dict) -> Exchange:
        """The recorded answer to this request (one recorded with its settings first), or a "no recording" error."""
        started = time.perf_counter()
        key = request_key(body)
        found = self._by_settings.get((key, _canonical(request_settings(body)))) or self._by_key.get(key)
        if found is None:
            message = NO_RECORDING_SAID
            error = {"status": None, "message": message,
                     "body": {"error": {"type": NO_RECORDING, "message": message, "key": key}}}
            return Exchange(body, None, error, _ms(started))
        if found.status >= 400:
            message = provider_message(found.response, "the recorded error")
            error = {"status": found.status, "message": message, "body": found.response}
            return Exchange(body, None, error, _ms(started))
        return Exchange(body, found.response, None, _ms(started))


def recordings_from_trace(lines: Iterable[str], note: str = "") -> list[Recording]:
    """Every answered round of a native trace as a recording: any saved live run can be replayed."""
    found: dict[str, Recording] = {}
    for line in lines:
        obj = json.loads(line)
        if obj.get("kind") != "round" or not isinstance(obj.get("request"), dict):
            continue
        error = obj.get("error") or {}
        if obj.get("response") is not None:
            status, answer = 200, obj["response"]
        elif error.get("status"):
            status, answer = int(error["status"]), error.get("body")
        else:
            continue  # a timeout or a connection failure says nothing about what the model would answer
        key = request_key(obj["request"])
        found[key] = Recording(key, obj["request"], status, answer, note)
    return list(found.values())


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
