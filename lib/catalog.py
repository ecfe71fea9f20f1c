"""Where traces come from: the bundled ones in traces/, bytes a user uploaded, or a live run.

Every `LoadedTrace` is built here, one constructor per source (`load_bytes`, `from_upload`,
`from_library`, `from_live_run`), so what a trace carries and how its cache key is made is decided in one place.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lib.dialects import OPENAI
from lib.live.tracefile import TraceFile
from lib.logs.record import Problem
from lib.logs.native import read_trace
from lib.logs.upload import Upload
from lib.model import Trace

TRACES_DIR = Path(__file__).resolve().parent.parent / "traces"
"""The bundled traces, in the native format."""

FIRST_TRACE = "hengxin-expense"
"""The trace the app opens with."""

PITFALLS = "pitfalls"
"""The subfolder of the pitfall gallery; its traces are named `pitfalls/<file name>`."""
PREDICT_TITLE = "predict_title"
"""The header field that names a trace in predict mode where its title would tell what the model does."""
PITFALL_NUMBER = "pitfall_number"
"""The header field that numbers a gallery trace: `Pitfall trace N` in predict mode, `pitfall-N` in its links. Given
once and never changed, so a link shared keeps opening the same trace whatever joins or leaves the gallery."""


@dataclass(frozen=True, slots=True)
class BundledTrace:
    """A trace file shipped with the app."""

    name: str
    """The file name without `.jsonl`; what `?trace=` names."""
    title: str
    """The header's title."""
    path: Path
    """Where the file is."""
    neutral: str | None = None
    """What predict mode calls it until every round is predicted (neutral_title); None where its title may show."""
    alias: str | None = None
    """What `?trace=` names it by while its neutral name is shown (neutral_alias), so the address tells no more than
    the page; a link with it opens this trace as its name does. None where its title may show."""


@dataclass(frozen=True, slots=True)
class LoadedTrace:
    """A parsed trace with what went wrong reading it."""

    name: str
    """The bundled name or the uploaded file's name."""
    digest: str
    """SHA-256 of the file's bytes: the cache key, shared by every session."""
    trace: Trace
    """The trace."""
    problems: tuple[Problem, ...]
    """Bad lines, each named by its number."""
    notes: tuple[str, ...] = ()
    """What the log says of this conversation beside what loaded (a SWE-agent run's own token counts), as a user
    reads it: said next to our figures, never added to them."""
    skipped: int | None = None
    """How many parts of the file could not be read, as the sidebar counts them (Upload.skipped_lines: those past the
    listed problems too); None where only `problems` tell (lib.checks.skipped_words counts them)."""


def bundled_traces() -> list[BundledTrace]:
    """The bundled traces, the first trace first, the rest by name, then the pitfall gallery by number (pitfall_number),
    any without one last, by name."""
    top = sorted((_bundled(path, path.stem, _header(path)) for path in TRACES_DIR.glob("*.jsonl")),
                 key=lambda t: (t.name != FIRST_TRACE, t.name))
    headers = {path: _header(path) for path in (TRACES_DIR / PITFALLS).glob("*.jsonl")}
    numbered = sorted(headers, key=lambda p: (pitfall_number(headers[p]) is None, pitfall_number(headers[p]) or 0, p))
    return top + [_bundled(path, f"{PITFALLS}/{path.stem}", headers[path], gallery=True) for path in numbered]


def _header(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.loads(f.readline())


def _bundled(path: Path, name: str, header: dict, gallery: bool = False) -> BundledTrace:
    neutral = neutral_title(header, gallery)
    return BundledTrace(name=name, title=str(header.get("title", path.stem)), path=path, neutral=neutral,
                        alias=neutral_alias(header, gallery) if neutral else None)


def pitfall_number(header: dict) -> int | None:
    """A gallery trace's fixed number (PITFALL_NUMBER); None where its header gives none."""
    found = header.get(PITFALL_NUMBER)
    return found if isinstance(found, int) and not isinstance(found, bool) and found > 0 else None


def neutral_title(header: dict, gallery: bool = False) -> str | None:
    """What predict mode calls a trace until every round is predicted, where its title would tell what the model
    does: a gallery trace by its number ('Pitfall trace 2', every gallery title names its pitfall; pitfall_number)
    and its header's PREDICT_TITLE; another trace by its PREDICT_TITLE; None for one without, whose title may show.
    A gallery trace saved elsewhere keeps its number in its header, and with it its neutral name."""
    found = header.get(PREDICT_TITLE)
    words = found.strip() if isinstance(found, str) and found.strip() else None
    number = pitfall_number(header)
    if number is None and not gallery:
        return words
    named = "Pitfall trace" if number is None else f"Pitfall trace {number}"
    return f"{named}: {words}" if words else named


def neutral_alias(header: dict, gallery: bool = False) -> str:
    """The id a link names a trace by while predict mode holds its title back, made as its neutral name is: a gallery
    trace by its number ('pitfall-2': its file name names its pitfall, and its place in the gallery moves when a
    trace joins it), another by its PREDICT_TITLE's words."""
    if (number := pitfall_number(header)) is not None:
        return f"pitfall-{number}"
    words = re.sub(r"[^a-z0-9]+", "-", str(header.get(PREDICT_TITLE, "")).lower()).strip("-")
    return f"pitfall-{words}" if gallery else words


def aliased(asked: str, traces: list[BundledTrace]) -> str:
    """The bundled trace's name a link's `trace` means: the name of the trace with that alias, else as asked."""
    return next((t.name for t in traces if t.alias and t.alias == asked), asked)


def digest(data: bytes) -> str:
    """The content hash a trace is cached under."""
    return hashlib.sha256(data).hexdigest()


def load_bytes(data: bytes, name: str) -> LoadedTrace:
    """Parse a native trace file's bytes; bad lines become problems, never exceptions."""
    # A byte-order mark from Windows editors is not part of the JSON.
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    trace, problems = read_trace(io.BytesIO(text), name=name)
    return LoadedTrace(name=name, digest=digest(data), trace=trace, problems=tuple(problems))


def from_upload(upload: Upload, source: str, key: str, index: int) -> LoadedTrace:
    """Conversation `index` of an upload read under cache key `key` (`source`: the upload's name, one file's or how many
    files); with no conversation at all, an empty trace that still carries the upload's problems."""
    if not upload.conversations:
        empty = Trace(title=source, dialect=OPENAI, rounds=())
        return LoadedTrace(source, key, empty, upload.problems, skipped=upload.skipped_lines)
    chosen = upload.conversations[index]
    notes = tuple(upload.said(note) for note in upload.notes if note.conversation == chosen.id)
    # Of several files, the one that held it is named ("a.jsonl · sess-42"), not how many were uploaded; once, where
    # its id names it to tell it from another file's of that name ("monday.jsonl · sess-1", not
    # "monday.jsonl · sess-1 (monday.jsonl)").
    return LoadedTrace(f"{chosen.source or source} · {chosen.named or chosen.id}", f"{key}:{index}", chosen.trace,
                       upload.problems, notes, upload.skipped_lines)


def from_library(trace: Trace, trace_id: str, generation: tuple) -> LoadedTrace:
    """A trace kept in the library (lib/library.py); keyed by its id and the saving it was read from
    (`generation`: row number, time saved, title), since a trace deleted and saved again keeps its id (the
    fingerprint of its rounds) with another title and notes. The problems its file had were left behind."""
    return LoadedTrace(trace.title, f"library:{trace_id}:{digest(repr(generation).encode())[:16]}", trace, ())


def from_live_run(trace_file: TraceFile, name: str) -> LoadedTrace:
    """A live run's trace from the lines written so far; its digest changes as it grows."""
    trace, problems = trace_file.read()
    return LoadedTrace(name, trace_file.digest(), trace, tuple(problems))


class SizedCache:
    """Values by key within a byte budget, shared by every session of a server: the least recently
    used go first once the budget is passed, and any left unused for `idle_seconds` go at the next
    lookup, so an upload does not outlive the browsers that opened it by long. The newest entry
    stays whatever its size, or a file over the budget would be read again on every rerun."""

    def __init__(self, budget: int, idle_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        """Most bytes held at once (the newest entry excepted)."""
        self.idle_seconds = idle_seconds
        """How long an entry nobody asks for is kept."""
        self._clock = clock
        self._entries: OrderedDict[str, tuple[Any, int, float]] = OrderedDict()
        """key -> (value, cost in bytes, last used), the least recently used first."""
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """Bytes held now."""
        with self._lock:
            return sum(cost for _, cost, _ in self._entries.values())

    def get(self, key: str) -> Any | None:
        """The value kept under `key`, or None; a hit counts as a use."""
        with self._lock:
            self._drop_idle()
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries[key] = (found[0], found[1], self._clock())
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: str, value: Any, cost: int) -> None:
        """Keep `value`, which holds about `cost` bytes, dropping the least recently used past the budget."""
        with self._lock:
            self._entries[key] = (value, cost, self._clock())
            self._entries.move_to_end(key)
            total = sum(c for _, c, _ in self._entries.values())
            while total > self.budget and len(self._entries) > 1:
                _, (_, dropped, _) = self._entries.popitem(last=False)
                total -= dropped

    def sweep(self) -> None:
        """Drop the entries left unused for longer than the idle time."""
        with self._lock:
            self._drop_idle()

    def _drop_idle(self) -> None:
        oldest = self._clock() - self.idle_seconds
        for key in [k for k, (_, _, used) in self._entries.items() if used < oldest]:
            del self._entries[key]
