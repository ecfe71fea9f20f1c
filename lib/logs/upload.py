"""Reading an uploaded log: detect each line's format, rebuild conversations, report every bad line.

The pipeline streams: each line is parsed once (its resent history not even once: see
lib/logs/resent.py), its calls are turned into model objects with their messages interned at
once, and the line's dicts are dropped. What stays in memory is the unique content plus small
per-call records.

0. Caps (lib/logs/limits.py): a gzip file is measured as a stream before it is expanded, and
   refused past the decompression cap; only the first problems are kept, the rest counted.
1. Items: lines of `.jsonl` (or `.jsonl.gz`), elements of a `.json` array (cut out one at a time,
   never parsed whole), or one `.json` object.
2. Detection: the first format in lib.logs.FORMATS whose rule matches (or the format the user chose).
3. Records: each format yields CallRecords (lib/logs/record.py).
4. Conversations: records with an id are grouped by it; the others are chained onto the
   conversation whose last request their request extends (or sends again, with the history after an
   answer), or, failing that, whose last request and answer it sends on as the model reads them
   (lib.dialects.equivalence.goes_on_from): history passed to another provider's API, written then in
   the conversation's own dialect.
5. Traces: one per conversation; a response missing from a log that kept only requests is
   inferred from the next request and marked as inferred.

It runs past 400 lines because it is the whole pipeline in reading order, each step a short
function: reading files (`_read_native`, `_read_items`, `_feed`), finishing the importers
(`_finish_importers`), then rebuilding conversations (`_Rebuilder`, `_trace`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import orjson

from lib.coerce import int_or_none, number_or_none, text, text_or_none
from lib.dialects import DIALECT_NAMES, DIALECTS, anthropic_messages, openai_chat
from lib.dialects.convert import convert
from lib.dialects.equivalence import first_item, goes_on_from, history_end, item_key, said_history
from lib.dialects.common import Pools, read_form
from lib.logs import FORMATS, documents, otlp_typed
from lib.logs.limits import Limits, limits
from lib.logs.record import CallRecord, Line, LineProblem, LogFormat, Problem, ProblemList, file_of
from lib.logs.chat_shape import describe
from lib.logs.exchanges import Inflater
from lib.failures import (ATTEMPTS, TRIES, as_failed_try, failed_tries, round_statuses, round_tries,
                          sent_again_unchanged, tries_words)
from lib.logs.near_miss import ERROR_ALONE, closest, nothing_read
from lib.logs.native import json_problem, read_execution, read_trace, shared_prefix
from lib.logs.openings import LateEnds, Openings, end_key, end_of
from lib.logs.resent import ResentParser, hold_interned, spans_checked_loads
from lib.logs.resent_text import ResentTexts
from lib.logs.spans import SpanFormat
from lib.logs.streams import is_keepalive
from lib.intern import collector_paused, content_key, loads_exact
from lib.model import (COMPACTED, COMPACTED_IN_CALL, COMPACTION, CUT_CALLS, FROM_CACHE, HISTORY_CUT, MADE_UP_IDS,
                       NOTICES, PROGRAM_WROTE, REQUEST_HEADERS, SENT_ON, STREAMED, SUMMARY_CALL, TOOLS_HELD, UNENDED_CALLS,
                       UNENDED_WRITES, Message,
                       ProviderError, Request, Response, Round, Trace)
from lib.text import plural



@dataclass(frozen=True, slots=True)
class Conversation:
    """One rebuilt conversation of an upload."""

    id: str
    """The id the log gave it, or one we made up (`conversation 3`)."""
    trace: Trace
    """Its rounds."""
    source: str = ""
    """The file that held it, in an upload of several (the files, where it spans more than one); empty where the
    upload is of one file, whose name says it."""
    named: str = ""
    """The name the log gave it, where `id` adds the file's to tell it from another file's conversation of that name
    (`sess-1` of `sess-1 (monday.jsonl)`): its title, which names the file before it, says it once."""


SAME_BYTES = "holds the same bytes as {first}, so it was read once, as {first}: a file given twice is one log, not two runs"
"""Said of a file of an upload whose bytes (once any gzip was opened) an earlier file held."""
NO_FORMAT = "matches no known log format"
"""Said of an object no format's rule matched."""
TRIED_NAMED = 3
"""How many rounds sent more than once the summary names; the rest it counts."""
UNITS = {"entry": "entries"}
"""The plural of a unit an upload is counted in, where it is not the unit and an s."""


@dataclass(frozen=True, slots=True)
class Upload:
    """Everything read from one upload."""

    conversations: tuple[Conversation, ...]
    """The conversations found, in the order they first appear."""
    problems: tuple[Problem, ...]
    """Every line that could not be used, with why."""
    lines: int
    """Items read (lines, or array elements)."""
    formats: dict[str, tuple[int, str]]
    """Per format name: how many lines it read, and the rule that recognized them (each rule with its count, when
    different lines were recognized by different rules). For a format the user chose: every line tried as it, those
    it refused as not of its shape counted in the rule ('refused as not of its shape: 3 lines')."""
    skipped: int = 0
    """Lines that could not be used, those past the listed problems included."""
    size: int = 0
    """Bytes read, after decompression: what the upload cache counts it as."""
    notes: tuple[Problem, ...] = ()
    """What lines that loaded lack, by line (spans that carry no messages): not skipped, but not whole."""
    unit: str = "line"
    """What `lines` counts: "line", "element" for a file that is one JSON array, or what a one-document file
    holds ("sample", "interaction", "entry", "document"); "item" for files of different units."""
    not_calls: int = 0
    """Items read whole that were no model call (a HAR file's page load): neither rounds nor skipped."""
    unread_calls: int = 0
    """Items that were model calls to an API Roundtrip does not read (Cohere's chat): neither rounds nor skipped."""
    not_call_spans: int = 0
    """Spans inside the items (OTLP documents) that were no model call: tool and agent spans, said as spans."""
    empty: tuple[str, ...] = ()
    """The names of the files that held no byte at all (once any gzip was opened): nothing in them to read or skip."""
    unopened: tuple[str, ...] = ()
    """The names of the files that could not be opened (a damaged gzip, one that expands past the limit): nothing in
    them was read; why is the problem on their line 1."""
    cut_runs: tuple[tuple[str, str], ...] = ()
    """(a file of a run, the file that goes on with it) for each run of a one-file format (Codex, OpenCode run output)
    whose file was cut in two or more and read as one run, which the summary says."""
    placed_by_order: int = 0
    """Rounds of a log whose lines are out of order that what the requests send could place in more than one
    conversation (a fork, or two requests alike): placed by the order of the lines, which the summary says."""
    left_apart: int = 0
    """Conversations that begin mid-way (their first request sends an answer back) among lines out of order, which the
    rebuild could not put back where they may belong (a retry, a history rewritten): the summary says how many."""

    @property
    def units(self) -> str:
        """The unit's plural: `lines`, `entries`."""
        return UNITS.get(self.unit, self.unit + "s")

    def counted(self, count: int) -> str:
        """`count` of the upload's items in words: `1 sample`, `3 entries`."""
        return plural(count, self.unit, self.units)

    def said(self, problem: Problem) -> str:
        """A problem or note as a user reads it, numbered in the upload's unit: `sample 2: ...`, `line 7: ...`; in an
        upload of several files, by its file and that file's own unit: `log.jsonl, line 2: ...`."""
        if problem.file is not None:
            return f"{problem.file}, {problem.unit} {problem.line}: {problem.message}" if problem.unit \
                else f"{problem.file}: {problem.message}"
        return f"{self.unit} {problem.line}: {problem.message}"

    def listing(self, problems: tuple[Problem, ...] | list[Problem]) -> list[str]:
        """Problems as the lines a user reads in a list: one a line, as `said`; in an upload of several files, under
        each file's name (in the order the files were given, as `problems` are), each by its own place in that file."""
        lines: list[str] = []
        heading = None
        for problem in problems:
            if problem.file is None:
                lines.append(self.said(problem))
                heading = None
                continue
            if problem.file != heading:
                heading = problem.file
                lines.append(problem.file)
            lines.append(f"  {problem.unit} {problem.line}: {problem.message}" if problem.unit else f"  {problem.message}")
        return lines

    @property
    def rounds(self) -> int:
        """Rounds over all conversations."""
        return sum(len(c.trace.rounds) for c in self.conversations)

    @property
    def skipped_lines(self) -> int:
        """Lines that could not be used: a line with two problems counts once."""
        return self.skipped or len({(p.file, p.line) for p in self.problems})

    def summary(self) -> str:
        """One line a user reads first: what loaded, what was no model call, and what did not load."""
        others = f"{self.counted(self.not_calls)} not {'a model call' if self.not_calls == 1 else 'model calls'}; " \
            if self.not_calls else ""
        if self.not_call_spans:
            spans = self.not_call_spans
            others += f"{plural(spans, 'span')} not {'a model call' if spans == 1 else 'model calls'}; "
        if self.unread_calls:
            others += f"{self.counted(self.unread_calls)} to an API Roundtrip does not read; "
        if self.unopened and not self.lines and not self.empty:  # not "0 lines: ...; 1 line skipped"
            if len(self.unopened) == 1:
                return "The file could not be opened, so nothing in it was read: why is said below."
            return "None of the files could be opened, so nothing in them was read: why is said below."
        if self.empty and not self.lines and not self.unopened:  # "0 lines: ...; 0 lines skipped" would not say why
            which = "The file is" if len(self.empty) == 1 else "Every file is"
            return f"{which} empty (0 bytes): there is nothing to read."
        if self.unopened:
            others += f"not opened: {', '.join(self.unopened)}; "
        if self.empty:
            others += f"empty (0 bytes): {', '.join(self.empty)}; "
        placed = f" ({placed_by_order(self.placed_by_order)})" if self.placed_by_order else ""
        if self.left_apart:
            placed += f" ({left_apart(self.left_apart)})"
        after = {rest for _, rest in self.cut_runs}
        going_on = dict(self.cut_runs)
        for began in (began for began, _ in self.cut_runs if began not in after):
            rest = [going_on[began]]
            while rest[-1] in going_on:
                rest.append(going_on[rest[-1]])
            if len(rest) == 1:
                others += f"{rest[0]} read as the rest of {began}'s run (one run's file cut in two); "
            else:
                others += (f"{', '.join(rest[:-1])} and {rest[-1]} read as the rest of {began}'s run, in the order "
                           f"of their names (one run's file cut in {len(rest) + 1}); ")
        return (
            f"{self.counted(self.lines)}: {plural(self.rounds, 'round')} in "
            f"{plural(len(self.conversations), 'conversation')}{placed}; {self._tried()}{others}"
            f"{self.counted(self.skipped_lines)} skipped"
        )

    def _tried(self) -> str:
        """The rounds whose request was sent more than once (lib.failures.round_tries), named with their tries."""
        tried = [(c, r, round_statuses(r)) for c in self.conversations for r in c.trace.rounds
                 if (TRIES in r.extra or ATTEMPTS in r.extra) and round_tries(r) is not None]
        if not tried:
            return ""
        named = [f"{c.named or c.id}, round {r.index}: {tries_words(statuses)}" for c, r, statuses in tried[:TRIED_NAMED]]
        more = f"; {len(tried) - TRIED_NAMED} more" if len(tried) > TRIED_NAMED else ""
        return f"{plural(len(tried), 'round')} sent more than once ({'; '.join(named)}{more}); "


def left_apart(count: int) -> str:
    """What the summary says of conversations that begin with a round read before the round it goes on from."""
    if count == 1:
        return ("1 conversation begins mid-way, its first request sending an answer back, among lines out of order: it "
                "may be another conversation's rounds, read apart")
    return (f"{count:,} conversations begin mid-way, their first requests sending an answer back, among lines out of "
            "order: they may be other conversations' rounds, read apart")


def placed_by_order(count: int) -> str:
    """What the summary says of rounds whose conversation the content of a log out of order leaves open."""
    return (f"{plural(count, 'round')} could go on from more than one request (a fork, or one request sent twice) "
            "and the lines are out of order: placed as the lines come")


# --- items -------------------------------------------------------------------------------------


def _items(data: bytes, shape: str) -> Iterator[tuple[int, bytes, int]]:
    """(item number, JSON bytes, how many lines it spans) for every line, every element of a `.json` array, or the
    one object of a `.json` file (`shape`, from `_shape`); a run of blank lines is one empty item."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if shape == "element":
        yield from ((number, element, 1) for number, element in documents.array_elements(data.lstrip()))
    elif shape == "file":
        yield 1, data.lstrip(), 1
    else:
        yield from _lines(data)


_LEADING = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n\f\v]*")
"""A byte-order mark and the blank space before a file's first value."""


def _shape(name: str, data: bytes) -> str:
    """How a file is cut into items: "element" for a `.json` file that is one JSON array, "file" for one that is one
    JSON object however many lines it spans, else "line". Decided once per file, without copying it."""
    if not name.lower().endswith(".json"):
        return "line"
    start = _LEADING.match(data).end()
    first = data[start:start + 1]
    if first == b"[":
        return "element"
    return "file" if first == b"{" and data.find(b"\n{", start) == -1 else "line"


_SSE_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n\f\v]*(?:data|event|id|retry)?:")
"""How a server-sent-events text begins (a field name or a comment): no JSON line begins so."""
SSE_NOTE = ("read as server-sent events, as a stream arrives over HTTP: the JSON of each `data:` line; event names, "
            "ids, comments, keep-alive events and the closing [DONE] carry nothing more")
"""What the upload says of a file of server-sent events."""


_SSE_DATA = re.compile(rb"^data:", re.MULTILINE)
"""A `data:` line: a file of server-sent events has one, or it carried no stream (a damaged log opening with `:`)."""

_SSE_LINE = re.compile(rb"[ \t\r\n\f\v]*$|(?:data|event|id|retry)?:")
"""A line of server-sent events: blank, a comment (`:`), or one of the four fields the stream format has."""

NOT_AN_EVENT_LINE = ("is not a line of server-sent events (data:, event:, id:, retry:, or a comment opening with ':'), "
                     "so nothing of it was read")
"""Said of a line of a server-sent-events file that none of its lines can be."""


class _ServerSentEvents:
    """The `data:` lines of server-sent-events text (what `curl -N` or a proxy saves of a streamed answer), each as
    an item on its own line; `skipped` counts the other lines once read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        """The file's bytes."""
        self.skipped = 0
        """Lines that carry no JSON: event names, ids, comments, blank separators, the closing [DONE]."""

    def __iter__(self) -> Iterator[tuple[int, bytes | str, int]]:
        for number, line, span in _lines(self.data):
            if line and not _SSE_LINE.match(line, 3 if number == 1 and line.startswith(b"\xef\xbb\xbf") else 0):
                # Not a line a stream carries (a JSON line, a line of damage): said, as in any other file, not lost.
                yield number, NOT_AN_EVENT_LINE, 1
                continue
            payload = line[5:].strip() if line.startswith(b"data:") else b""
            if not payload or payload == b"[DONE]":
                self.skipped += span
                continue
            yield number, payload, 1


_BLANK_LINES = re.compile(rb"[ \t\r\n\f\v]*\n")
"""Blank lines, up to the last line break of the run (a group repeated per line would cost the
regular expression engine memory per line)."""


_BLANK_BYTES = frozenset(b" \t\r\n\f\v")
"""The bytes a blank line is made of (_BLANK_LINES), as the numbers indexing bytes gives."""


def _lines(data: bytes) -> Iterator[tuple[int, bytes, int]]:
    """The lines of a file, each without its line break; blank lines are skipped a run at a time, at the speed of a
    regular expression, since a small gzip can hold millions of them."""
    number, position, end = 1, 0, len(data)
    while position < end:
        # A line that opens with a visible byte (nearly every line) is not blank: no regular expression asked.
        blank = _BLANK_LINES.match(data, position) if data[position] in _BLANK_BYTES else None
        if blank:
            run = data.count(b"\n", position, blank.end())
            yield number, b"", run
            number, position = number + run, blank.end()
            continue
        stop = data.find(b"\n", position)
        stop = end if stop < 0 else stop
        # The break is not the line's: a line cut inside a string (a writer stopped mid-line) would otherwise reach
        # the parser with its break inside that string, said as "an unexpected control character", not as its end.
        last = stop - 1 if stop > position and data[stop - 1:stop] == b"\r" else stop
        yield number, data[position:last], 1
        number, position = number + 1, stop + 1


# --- conversations -------------------------------------------------------------------------------


def _told_file(problem: Problem) -> Problem:
    """A problem or note on a tagged line (Line): told its file and that file's unit, where it does not say them,
    and numbered with a plain int."""
    line, last = problem.line, problem.last
    if not isinstance(line, Line) and not isinstance(last, Line):
        return problem
    # A run of lines is of one file: a last line in another (an importer's first and last of several files' spans) is
    # no end of it.
    told = replace(problem, line=int(line), last=None if last is None or file_of(last) != file_of(line) else int(last))
    if problem.file is None and isinstance(line, Line):
        told = replace(told, file=line.file, unit=line.unit)
    return told


@dataclass(slots=True)
class _Call:
    """A call turned into model objects, waiting for its place in a conversation."""

    record_line: int
    request: Request
    response: Response | None
    error: ProviderError | None
    executions: tuple
    latency_ms: float | None
    derived: tuple[str, ...]
    converted_from: str | None
    timestamp: str | None
    order: int
    provenance: dict | None
    cut_calls: tuple[int, ...] = ()
    streamed: bool = False
    notices: tuple[dict, ...] = ()
    history_cut: bool = False
    program_wrote: tuple[str, ...] = ()
    unended: tuple[str, ...] = ()
    compacted: bool = False
    unended_writes: tuple[str, ...] = ()
    compaction: bool = False
    compacted_in_call: bool = False
    sent_on: dict | None = None
    """For a call that sent the conversation on in another API's format: the round's SENT_ON."""
    from_cache: str | None = None
    """The program's cache that answered the call in place of the provider: the round's FROM_CACHE."""
    file: str | None = None
    """The file of an upload of several that held the call (its record's line told it, Line); None otherwise."""
    tools_held: bool = False
    """The request's tools are the ones the provider kept, not sent with it: the round's TOOLS_HELD."""
    summary_call: bool = False
    """The call asked the model to sum the conversation up for the program's compaction (CallRecord.summary_call, or
    the request after it opens with its answer: _after_summary): the round's SUMMARY_CALL."""
    joined_file: str | None = None
    """The file that held the call's other half, where its format joined it from two (a batch's result file)."""
    request_headers: dict | None = None
    """The request headers the log kept for the call: the round's REQUEST_HEADERS."""
    line: int | Line | None = None
    """The record's line as its format told it (a Line, with its file, in an upload of several): where a note on the
    call is said."""


@dataclass
class _Thread:
    """A conversation being rebuilt."""

    id: str
    dialect: str
    opening: tuple | None = None
    """The opening the thread is indexed under; None for a thread the log named."""
    calls: list[_Call] = field(default_factory=list)
    last_sent: list | None = None
    """The `messages` list of the last call's request body, as the record held it (see CallRecord.resends)."""
    tool_effects: dict[str, str] = field(default_factory=dict)
    """What its calls' format knows of the program's tools (CallRecord.tool_effects): the header's `tool_effects`."""
    numbered: bool = False
    """Its id is ours, `conversation N`, not a name the log gave: renumbered once threads are merged
    (_Rebuilder.renumber)."""
    named: str | None = None
    """In an upload of several files, the name the log gave its calls, where the thread holds one file's calls of that
    name: the files' threads of one name are joined or told apart once all are read (_Rebuilder.join_named)."""


class _Rebuilder:
    """Turns records into calls at once (interning their messages) and assigns them to threads."""

    def __init__(self) -> None:
        self.pools = Pools()
        self.threads: dict[str, _Thread] = {}
        self._openings = Openings(answer=lambda thread: _answer_key(thread.calls[-1].response))
        """The threads the rebuild opened, by their opening and by where their last request ends."""
        self._by_first_turn = LateEnds(lambda thread: end_of(thread.calls[-1].request.raw.get("messages") or []))
        """Threads that opened with a system message, by the message after it: found again when a request goes on
        under other instructions."""
        self._by_first_item = LateEnds(lambda thread: history_end(thread.calls[-1].request))
        """The threads the rebuild opened, by the first thing their conversation says as the model reads it
        (lib.dialects.equivalence.first_item): found again by a request that sends their history on in another
        format."""
        self._by_last_answer = LateEnds(lambda thread: (0, _said_answer(thread.calls[-1].response)))
        """The threads listed under an opening, by the text of their last answer: found again by a request that sends
        that answer back after a history written anew (_answer_after_rewrite)."""
        self._by_answer_item: dict[str, list[_Thread]] = {}
        """The threads by the ids of their answers' items (_item_ids): found again by a request that resends an
        answer by them after leaving out some of the history before it (_resent_by_item_id)."""
        self._by_summary: dict[str, list[_Thread]] = {}
        """The threads whose last call may have asked for a summary of the conversation (_asks_for_summary), by the
        summary's text: found again by the request that opens with it (_after_summary)."""
        self._summaries: list[tuple[_Thread, _Thread]] = []
        """(the conversation summed up, the thread its summary call opened): joined by join_summed_up."""
        self._failed: dict[tuple, list[_Thread]] = {}
        """The threads whose last call failed with no answer, by their dialect and where that call's request ends
        (lib.logs.openings.end_of): found again by the same request sent again (_retried). A thread that went on since
        is dropped when a look-up meets it."""
        self._summing_up: set[str] = set()
        """The ids of the summary calls' threads already looked up by _summed_up: looked up once."""
        self._order = 0
        self._not_put_back: list[list[_Thread]] = []
        """The threads of each opening that put_back_late_rounds did not compare, being more than PUT_BACK_MOST."""
        self.left_apart = 0
        """Conversations that begin mid-way among lines out of order, left conversations of their own where rechain
        could not place them (a retry, a history rewritten): _left_apart."""
        self.placed_by_order = 0
        """Rounds of a log whose lines came out of order that the content could place in more than one way (rechain):
        placed by the order of the lines."""

    def add(self, record: CallRecord) -> None:
        dialect = DIALECTS[record.dialect]
        body = record.request or {}
        summarized = self._after_summary(record, body)
        # Indexed under its own opening too, as a request under other instructions is: the next request extends it.
        thread, checked, opening, read = (summarized, False, _opening(body), None) if summarized is not None \
            else self._thread_for(record, body)
        previous = thread.calls[-1].request if thread.calls else None
        converted_from, provenance, sent_on = record.converted_from, record.provenance, None
        if read is not None and thread.dialect != record.dialect:
            # History sent on in another API's format: the call is written in the conversation's own (lib.dialects.
            # convert, through the model), and says what it came from and what that writing could not carry.
            request, response, notes = self._written_as(record, read, thread.dialect)
            converted_from = converted_from or record.dialect
            provenance = _converted_provenance(provenance, thread.dialect, notes)
            sent_on = {"api": converted_from, "notes": list(notes)}
            body = request.raw
        else:
            request = read or dialect.read_request(body, self.pools, previous, checked)
            response = dialect.read_response(record.response, self.pools) if record.response else None
            if read is not None and thread.calls and (record.converted_from or record.dialect) != (
                    thread.calls[-1].converted_from or thread.dialect):
                # Sent on from another API's history, the two read into one dialect by their own formats' readers
                # (Gemini's calls then Chat Completions'): nothing of ours left out, the program's rewriting shown.
                sent_on = {"api": record.converted_from or record.dialect, "notes": []}
        if record.held_by_provider:
            request = replace(request, held_by_provider=record.held_by_provider, held_system=record.held_system)
        hold_interned(body, request.raw["messages"])
        thread.last_sent = body.get("messages")
        error = None
        if record.error is not None:
            error = ProviderError(int_or_none(record.error.get("status")),
                                  text(record.error.get("message")) or "the call failed", record.error)
        executions = tuple(read_execution(e) for e in record.executions)
        if thread.id not in self.threads:
            # Registered only once its first call has been read: a call that fails leaves no empty thread.
            self.threads[thread.id] = thread
            if opening is not None:
                self._openings.add(opening, thread)
                self._by_first_item.add(first_item(request), thread)
                raws = body.get("messages") if isinstance(body.get("messages"), list) else []
                if len(raws) > 1 and _is_instruction(raws[0]):
                    self._by_first_turn.add(content_key(read_form(raws[1])), thread)
        elif opening is not None:
            # A thread that went on under other instructions (_under_other_instructions) is found again under them.
            self._openings.add(opening, thread)
        self._order += 1
        thread.tool_effects.update(record.tool_effects)
        thread.calls.append(_Call(
            int(record.line), request, response, error, executions,
            number_or_none(record.latency_ms), tuple(record.derived), converted_from,
            text_or_none(record.timestamp), self._order, provenance, tuple(record.cut_calls),
            record.streamed and response is not None, tuple(record.notices),
            record.history_cut is True or summarized is not None,
            # Nearly always empty: () without a generator for each (every call of every import passes here).
            tuple(p for p in record.program_wrote if isinstance(p, str)) if record.program_wrote else (),
            tuple(c for c in record.unended if isinstance(c, str)) if record.unended else (),
            record.compacted is True or summarized is not None,
            tuple(c for c in record.unended_writes if isinstance(c, str)) if record.unended_writes else (),
            record.compaction is True,
            record.compacted_in_call is True, sent_on, text_or_none(record.from_cache), file_of(record.line),
            record.tools_held is True, record.summary_call is True,
            file_of(record.joined_line) if record.joined_line is not None else None,
            dict(record.request_headers) if isinstance(record.request_headers, dict) else None, record.line,
        ))
        self._openings.ended(thread, request.raw.get("messages") or [])
        if error is not None and response is None and record.conversation is None:
            failed = self._failed.setdefault((thread.dialect, end_of(request.raw.get("messages") or [])), [])
            if not failed or failed[-1] is not thread:  # a retry that failed again is listed once
                failed.append(thread)
        if opening is not None:
            self._by_last_answer.add(None, thread)
        for index in (self._by_first_item, self._by_first_turn, self._by_last_answer):
            index.changed(thread)
        if response is not None and MADE_UP_IDS not in record.derived:
            for item in _item_ids(response.message.raw):
                self._by_answer_item.setdefault(item, []).append(thread)
        if response is not None and _asks_for_summary(body.get("messages"), response):
            self._by_summary.setdefault(response.message.text.strip(), []).append(thread)
            if record.summary_call and len(thread.calls) == 1:
                # The program named it its summary call: put back in the conversation it sums up now, as no request
                # after it may follow (a run that stopped on its compaction, as the Python SDK's snapshot does).
                self._summed_up(thread)

    def _after_summary(self, record: CallRecord, body: dict) -> _Thread | None:
        """The thread a request goes on from after the program compacted it: the request opens with the summary that
        thread's last call asked for, as the person's turn, in place of the turns it summed up (the Anthropic SDKs'
        tool runner with `compaction_control`: past a token threshold it asks the model to write a continuation
        summary, then sends that summary as the whole history before the turns still to come). A request that opens
        with an answer some other call gave (one agent's answer handed to the next as its task) is no such request:
        only an answer to a request ending in a second user turn in a row, the summary prompt where the model's turn
        would be, is followed. The summary call itself, read as asking anew (_asked_anew), is put back in the
        conversation it summed up (_summed_up)."""
        if not self._by_summary or record.conversation is not None:
            return None
        raws = body.get("messages") if isinstance(body.get("messages"), list) else []
        first = next((raw for raw in raws if not _is_instruction(raw)), None)
        if not isinstance(first, dict) or first.get("role") != "user" or not (said := _said_text(first)):
            return None
        for thread in reversed(self._by_summary.get(said, ())):
            last = thread.calls[-1] if thread.calls else None
            if thread.dialect != record.dialect or last is None or last.response is None \
                    or last.response.message.text.strip() != said:
                continue
            last.summary_call = True  # its answer is the summary this request sends in place of the history
            return self._summed_up(thread) if len(thread.calls) == 1 and thread.id not in self._summing_up else thread
        return None

    def _summed_up(self, summary: _Thread) -> _Thread:
        """A summary call alone in its thread, put back in the conversation it summed up: the latest thread whose
        last request the summary call's request resends whole before its summary prompt. The two are joined once the
        whole log is read (join_summed_up), as a thread found by its opening is not to lose its calls while calls are
        being placed."""
        call = summary.calls[0]
        raws = call.request.raw.get("messages") or []
        history = raws[:-1]
        opening = tuple(content_key(read_form(m)) for m in history[:2])
        keys = [opening, opening[:1]] if len(opening) == 2 else [opening]
        found = [thread for key in keys for thread in self._openings.ending_within(key, history)
                 if thread is not summary and thread.calls and thread.dialect == summary.dialect
                 and thread.calls[-1].order < call.order
                 and len(thread.calls[-1].request.raw.get("messages") or []) == len(history)
                 and _resent_unmarked(history, thread.calls[-1].request.raw.get("messages") or [])]
        if found:
            self._summaries.append((max(found, key=lambda thread: thread.calls[-1].order), summary))
        self._summing_up.add(summary.id)
        return summary

    def join_summed_up(self) -> None:
        """Move each summary call's thread (the call, and the requests that went on from its summary) to the end of
        the conversation it summed up (_summed_up)."""
        for summed, summary in self._summaries:
            if summed.calls and summary.calls and summed.calls[-1].order < summary.calls[0].order:
                summed.calls.extend(summary.calls)
                summary.calls = []

    def _thread_for(self, record: CallRecord, body: dict) -> tuple[_Thread, bool, tuple | None, Request | None]:
        """The thread a call belongs to (a new one not yet registered), whether its request was seen to
        extend the thread's last, the opening a new thread is to be indexed under, and the request read in its own
        dialect where telling its thread took reading it (None otherwise)."""
        if record.conversation is not None:
            # In an upload of several files, each file's calls of a name are a thread of their own until every file is
            # read: two files may use one name for two conversations (join_named).
            file = file_of(record.line)
            name = record.conversation
            key = name if file is None else _in_file(name, file)
            if (clash := self.threads.get(key)) is not None and clash.dialect != record.dialect:
                name = f"{record.conversation} ({record.dialect})"
                key = name if file is None else _in_file(name, file)
            thread = self.threads.get(key) or _Thread(key, record.dialect, named=None if file is None else name)
            return thread, record.resends is not None and record.resends is thread.last_sent, None, None
        raws = body.get("messages") if isinstance(body.get("messages"), list) else []
        if self._failed and raws and (retried := self._retried(record, raws)) is not None:
            return retried, raws == retried.calls[-1].request.raw.get("messages"), None, None
        # Threads are indexed by their first request's first two messages; a request is looked up
        # under its first two and its first one, so a thread that opened with one message is found.
        # A message is known by what the model reads of it (read_form): a cache breakpoint moved on is no other message.
        opening = tuple(content_key(read_form(m)) for m in raws[:2])
        keys = [opening, opening[:1]] if len(opening) == 2 else [opening]
        best, best_length, exact = None, -1, False
        repeated, repeated_length = None, 0
        extended: list[tuple[_Thread, bool]] = []
        resends_answer = _resends_answer(raws)  # asked once: every thread of the opening would ask it again

        def extends(thread: _Thread) -> bool:
            before = thread.calls[-1].request.raw.get("messages") or []
            return thread.dialect == record.dialect and (raws[: len(before)] == before or _resent_unmarked(raws, before)) \
                and not _asked_anew(thread.calls[-1], raws)

        for key in keys:
            # A thread whose last request this one repeats counts only for a request that resends an answer (below).
            for thread in self._openings.ending_within(key, raws, equal=resends_answer, extends=extends,
                                                       sought=lambda length: _sent_answer_key(raws[length])):
                before = thread.calls[-1].request.raw.get("messages") or []
                if thread.dialect != record.dialect or len(raws) < len(before):
                    continue
                if len(raws) == len(before):
                    # The thread's last request sent again as it was: a retry, or the same question asked again.
                    if len(before) > repeated_length and resends_answer and _resent_unmarked(raws, before):
                        repeated, repeated_length = thread, len(before)
                    continue
                if not extends(thread):
                    continue
                same = raws[: len(before)] == before
                extended.append((thread, same))
                if len(before) < best_length or (len(before) == best_length
                                                 and not self._answer_follows(thread, raws, best)):
                    continue
                best, best_length, exact = thread, len(before), same
        if best is not None and not _answered(best, raws):
            # The longest thread's answer is not what the request sends next, where a shorter one's is: a program that
            # ran the same question twice goes on from the second run (ADK's runner, the second run's request resending
            # its call twice, was placed after the first run's answer and read as the history rewritten).
            best, exact = max(((t, same) for t, same in extended if _answered(t, raws)),
                              key=lambda pair: len(pair[0].calls[-1].request.raw.get("messages") or []),
                              default=(best, exact))
            best_length = len(best.calls[-1].request.raw.get("messages") or [])
        if repeated is not None and (best is None or best_length < repeated_length and not (
                best.calls[-1].response is not None and _answer_resent(raws[best_length], best.calls[-1].response))
                and not _run_again(best, repeated)):
            # A request that repeats a thread's last request goes on from that thread's history, unless another
            # thread's last answer is what it resends next (the same run recorded twice): where a repeat belongs
            # follows what it resends. One that resends no answer, only an opening, opens a conversation of its own.
            best, best_length = repeated, repeated_length
            exact = raws == repeated.calls[-1].request.raw.get("messages")
        if best is None and len(raws) > 2 and _is_instruction(raws[0]):
            best = self._under_other_instructions(record.dialect, raws)
            if best is not None:
                # Indexed under its new opening too: the next request under these instructions extends this one.
                return best, False, opening, None
        if best is None and len(raws) > 1 and not _is_instruction(raws[0]):
            best = self._instructions_left_out(record.dialect, raws)
            if best is not None:
                return best, False, opening, None
        if best is None and (resumed := self._resent_by_item_id(record, raws)) is not None:
            return resumed, False, None, None
        if best is None and (rewritten := self._answer_after_rewrite(record.dialect, raws, keys)) is not None:
            # Indexed under its own opening too, as a request under other instructions is.
            return rewritten, False, opening, None
        read = None
        if best is None and _resends_answer(raws):
            # Nothing extends in this format: the history may be another format's (a conversation begun with one
            # provider and sent on to another's API), compared as the model reads it. Read only here, as few requests
            # are neither a conversation's first nor the next of one in their own format.
            read = DIALECTS[record.dialect].read_request(body, self.pools)
            best = self._sent_on(record, read)
        if best is None:
            name = record.name if record.name and record.name not in self.threads else None
            return (_Thread(name or f"conversation {len(self.threads) + 1}", record.dialect, opening,
                            numbered=name is None), False, opening, read)
        # Only a prefix resent as it was is taken over as read (`checked`): one with a breakpoint moved is read again,
        # so that each request shows the message as it sent it.
        return best, exact, None, read

    def _retried(self, record: CallRecord, raws: list) -> _Thread | None:
        """The thread whose last call failed with no answer and whose last request this one sends again (a retry:
        the SDK's own after a 429 or a 5xx, or the program's), the latest such; None where there is none. It goes on
        that thread as its next round, where a repeated opening that resends no answer would open a conversation of
        its own (the Anthropic Python SDK's two 429s then a 200 read as three conversations of one round). A request
        the log names otherwise (a batch's `custom_id`) is another request, whatever it holds."""
        key = (record.dialect, end_of(raws))
        failed = self._failed.get(key)
        if not failed:
            return None
        failed[:] = [t for t in failed if t.calls and t.calls[-1].error is not None and t.calls[-1].response is None
                     and len(t.calls[-1].request.raw.get("messages") or []) == len(raws)]
        if not failed:
            del self._failed[key]
            return None
        return next((thread for thread in reversed(failed) if (record.name is None or record.name == thread.id)
                     and _resent_unmarked(raws, thread.calls[-1].request.raw.get("messages") or [])), None)

    def _resent_by_item_id(self, record: CallRecord, raws: list) -> _Thread | None:
        """The thread whose last answer a request sends back by its items' ids (a Responses answer's reasoning and
        message items, `rs_...`, `msg_...`, which the provider names once), after some of that thread's last request
        resent in order, the rest left out: LiteLLM's Responses request that drops the first question and resends the
        reasoning item and the answer goes on from that answer. An opening that matches nothing finds no thread."""
        if MADE_UP_IDS in record.derived:
            return None
        for position, raw in enumerate(raws):
            ids = _item_ids(raw)
            if not ids or not isinstance(raw, dict) or raw.get("role") != "assistant":
                continue
            found = {id(t): t for item in sorted(ids) for t in self._by_answer_item.get(item, ())}
            for thread in sorted(found.values(), key=lambda t: -t.calls[-1].order):
                last = thread.calls[-1]
                answered = _item_ids(last.response.message.raw) if last.response is not None else set()
                before = [content_key(read_form(m)) for m in last.request.raw.get("messages") or []]
                if thread.dialect == record.dialect and answered and answered <= ids \
                        and _in_order([content_key(read_form(m)) for m in raws[:position]], before):
                    return thread
            return None  # only the first answer the request resends tells where it goes on from
        return None

    def _answer_after_rewrite(self, dialect: str, raws: list, keys: list[tuple]) -> _Thread | None:
        """The thread whose last answer a request sends back right after the question that answer was given to, under
        the same opening, the history before them written anew: AutoGPT 0.3 puts a summary of its memory ("This
        reminds you of these events from your past") among its system messages and keeps only its latest turns, so no
        request after its first resends the one before it, yet each sends back the answer the last one got. Only an
        answer that said something is followed so, and the latest thread that got it wins: a request that merely
        shares its instructions with a thread, or resends an earlier answer of it, opens a conversation of its own."""
        # Only a request that resends a turn of the model's can; each thread is then looked at by its last answer's
        # text alone before any message is compared (many one-round threads may share an opening).
        answers = {_said_text(raw) for raw in raws if isinstance(raw, dict) and raw.get("role") == "assistant"}
        if not answers:
            return None
        best = None
        for thread in self._by_last_answer.found(None, lambda length: answers if length == 0 else ()):
            last = thread.calls[-1]
            before = last.request.raw.get("messages") or []
            said = last.response.message if last.response is not None else None
            if said is None or said.text.strip() not in answers or thread.dialect != dialect or not before \
                    or not (said.text.strip() or said.tool_calls) \
                    or (best is not None and best.calls[-1].order >= last.order) \
                    or not any(self._openings.has(key, thread) for key in keys):
                continue
            question = content_key(read_form(before[-1]))
            if any(_answer_resent(raws[at], last.response) and content_key(read_form(raws[at - 1])) == question
                   for at in range(1, len(raws) - 1)):
                best = thread
        return best

    def _sent_on(self, record: CallRecord, request: Request) -> _Thread | None:
        """The thread whose last request, and the answer to it, `request` sends again in another format (or written
        otherwise: call ids the provider never gave), then goes on; or whose last request it asks again. The latest
        thread first, as a program run twice sends the same history twice."""
        made_up = MADE_UP_IDS in record.derived
        system, said = said_history(request)
        for thread in self._by_first_item.found(first_item(request), lambda length: () if length > len(said) else [
                (item_key(said[length - 1]) if length else None, system)], latest_first=True):
            last = thread.calls[-1]
            by_id = not made_up and not any(MADE_UP_IDS in call.derived for call in thread.calls)
            if goes_on_from(last.request, last.response, request, by_id):
                return thread
        return None

    def _written_as(self, record: CallRecord, request: Request, target: str) -> tuple[Request, Response | None,
                                                                                       tuple[str, ...]]:
        """A call read in its own dialect, written in `target`'s and read back: its request, its response, and what
        the writing could not carry (lib.dialects.convert)."""
        response = DIALECTS[record.dialect].read_response(record.response, self.pools) if record.response else None
        written = convert(request, response, record.dialect, target)
        reader = DIALECTS[target]
        request = reader.read_request(written.request.body, self.pools)
        response = reader.read_response(written.response.body, self.pools) if written.response else None
        return request, response, written.notes

    @staticmethod
    def _answer_follows(thread: _Thread, raws: list, rival: _Thread | None) -> bool:
        """Whether a request that extends the last requests of two threads alike (a program that asked the same thing
        twice: CrewAI with and without a response format) goes on from `thread`'s answer rather than `rival`'s: it
        resends that answer, and not the rival's, next; neither answer sent back, it sends results for `thread`'s
        calls and not the rival's (a program that dropped the model's turn and kept its results). The first thread
        found keeps it otherwise."""
        answered, rival_answered = _answered(thread, raws), rival is not None and _answered(rival, raws)
        if answered or rival_answered:
            return answered and not rival_answered
        return _results_sent(thread, raws) and not (rival is not None and _results_sent(rival, raws))

    def _under_other_instructions(self, dialect: str, raws: list) -> _Thread | None:
        """The thread a request continues under another system message: it resends the thread's last request but its
        first message, then the answer that request got (ruby_llm's with_instructions replaces the system message and
        goes on). Without the answer resent (or an empty answer left out), a request that shares a question under
        another prompt is not taken for the same conversation."""
        best, best_length = None, 0
        # Its last request resent but the first message: as many messages or fewer, ending where this one says as much.
        for thread in self._by_first_turn.found(content_key(read_form(raws[1])), lambda length: [
                end_key(raws[length - 1])] if 2 <= length < len(raws) else ()):
            last = thread.calls[-1]
            before = last.request.raw.get("messages") or []
            if thread.dialect != dialect or len(before) < 2 or len(raws) <= len(before) or len(before) <= best_length \
                    or last.response is None or not _is_instruction(before[0]) or before[0] == raws[0]:
                continue
            if _resent_unmarked(raws[1:], before[1:]) and (_answer_resent(raws[len(before)], last.response)
                                                           or _empty_answer_dropped(raws[len(before)], last.response)):
                best, best_length = thread, len(before)
        return best

    def _instructions_left_out(self, dialect: str, raws: list) -> _Thread | None:
        """The thread a request continues after leaving out the system message the thread's last request opened with:
        it resends that request but its first message, then the answer that request got (ruby_llm's Cohere chat, told
        to replace its instructions, drops the old system message and writes the new one into the history after the
        turns already sent). A request that shares only a question with the thread is not taken for it."""
        best, best_length = None, 0
        # Its last request resent from the second message: one fewer, ending where this one says as much.
        for thread in self._by_first_turn.found(content_key(read_form(raws[0])), lambda length: [
                end_key(raws[length - 2])] if 2 <= length <= len(raws) else ()):
            last = thread.calls[-1]
            before = last.request.raw.get("messages") or []
            kept = len(before) - 1  # the thread's last request without its system message
            if thread.dialect != dialect or kept < 1 or len(raws) <= kept or kept <= best_length \
                    or last.response is None or not _is_instruction(before[0]):
                continue
            if _resent_unmarked(raws, before[1:]) and (_answer_resent(raws[kept], last.response)
                                                       or _empty_answer_dropped(raws[kept], last.response)):
                best, best_length = thread, kept
        return best

    def renumber(self) -> None:
        """Number the conversations the rebuild named by their place among those left with calls, once merges
        (join_summed_up, join_late_rounds) have emptied some: conversations 1, 2 and 3, not 1, 3 and 5. Where a number
        is a name the log gave another conversation, none is renumbered: two conversations are never given one name."""
        kept = [thread for thread in self.threads.values() if thread.calls]
        names = [f"conversation {place}" if thread.numbered else thread.id for place, thread in enumerate(kept, 1)]
        if len(set(names)) < len(names):
            return
        for thread, name in zip(kept, names):
            thread.id = name
        self.threads = {thread.id: thread for thread in kept}

    def join_late_rounds(self) -> None:
        """Chain threads whose calls arrived out of order (batch results come back in any order):
        a thread whose first request extends another thread's last request continues it."""
        chained = sorted((t for t in self.threads.values() if t.opening is not None and t.calls),
                         key=lambda t: len(t.calls[0].request.messages))
        # The model's messages, compared by their digest; a thread's answer told where its raw messages are its messages.
        ends = self._openings.copied(key=lambda message: message, answer=lambda thread: _answer_key(
            thread.calls[-1].response) if len(thread.calls[-1].request.raw.get("messages") or []) == len(
            thread.calls[-1].request.messages) else None)
        for thread in self.threads.values():
            ends.ended(thread, thread.calls[-1].request.messages if thread.calls else None)
        for later in chained:
            first = later.calls[0].request.messages
            keys = [later.opening, later.opening[:1]] if len(later.opening) == 2 else [later.opening]
            raws = later.calls[0].request.raw.get("messages") or []

            def extends(earlier: _Thread) -> bool:
                last = earlier.calls[-1].request.messages if earlier.calls else ()
                return earlier is not later and bool(earlier.calls) and earlier.dialect == later.dialect \
                    and _sends_on(last, first) and not _asked_anew(earlier.calls[-1], raws)

            sought = (lambda length: _sent_answer_key(raws[length])) if len(raws) == len(first) else None
            extended = [earlier for key in keys for earlier in ends.ending_within(key, first, equal=False, sought=sought,
                                                                                  extends=extends) if extends(earlier)]
            # The longest history it extends, the first found among equals; but one whose answer it sends back next
            # before one whose it does not: a batch of one task run many times comes back in any order, every run's
            # first request alike, and each run's next request goes on from its own run's answer.
            answered = [earlier for earlier in extended if _answered(earlier, raws)]
            best = max(answered or extended, key=lambda t: len(t.calls[-1].request.messages), default=None)
            if best is not None:
                best.calls.extend(later.calls)
                later.calls = []
                ends.ended(best, best.calls[-1].request.messages)
                ends.ended(later, None)

    def put_back_late_rounds(self) -> None:
        """Put a thread back between two calls of another where it was their round in between: its first request sends
        one call's request on, and the next call sends its last request on with its answer (OpenHands writes one file
        per call: uploaded round 3's file before round 2's, round 3 went on from round 1 and round 2 was a conversation
        of its own). A request the next call does not answer from (a batch's request refused, sent beside the next
        call's, not before it) stays where it is. Threads are compared under one opening (their first two messages)."""
        by_opening: dict[tuple, list[_Thread]] = {}
        for thread in self.threads.values():
            if thread.opening is not None and thread.calls:
                by_opening.setdefault(thread.opening, []).append(thread)
        for threads in by_opening.values():
            # Every thread of an opening against every other: past PUT_BACK_MOST (a batch of one task run many times,
            # each run its own thread) the pairs would cost more than the rest of the rebuild, and are not tried: the
            # notes say so where a conversation of the opening still begins mid-way (not_put_back).
            if len(threads) > PUT_BACK_MOST:
                self._not_put_back.append(threads)
            if not 2 <= len(threads) <= PUT_BACK_MOST:
                continue
            for later in threads:
                last = later.calls[-1] if later.calls else None
                if last is None or last.response is None:
                    continue
                first, sent = later.calls[0].request.messages, last.request.messages
                raws = last.request.raw.get("messages") or []
                for earlier in threads:
                    if earlier is later or not earlier.calls or earlier.dialect != later.dialect:
                        continue
                    at = next((at for at in range(len(earlier.calls) - 1) if _between(
                        earlier.calls[at], earlier.calls[at + 1], first, sent, raws, last.response)), None)
                    if at is not None:
                        earlier.calls[at + 1:at + 1] = later.calls
                        later.calls = []
                        break

    def rechain(self) -> None:
        """Rebuild, from what the requests send, the conversations whose lines came out of order: a round whose earlier
        request sits later in the file opened a conversation of its own, and the calls read before it went on in
        another (a log of interleaved runs shuffled: 250 runs read as about 309 conversations). Among the threads of
        one opening that the log named none of and that each went on plainly (every request sends the one before it
        on whole, with more), each call's place is after the call whose request it sends on whole, with more: the
        longest such whose answer it sends back next, else the longest such (as a call read in order is placed). Where two calls go on from one (a fork,
        or one question asked twice) or two calls alike fit one place, the content cannot tell: the order of the
        lines does, as it does for a log read in order, and where the lines are out of order that is counted
        (`placed_by_order`) for the upload's summary to say. Only openings of two threads or more are looked at: a
        log read in order leaves few."""
        by_opening: dict[tuple, list[_Thread]] = {}
        for thread in self.threads.values():
            if thread.opening and thread.calls and thread.numbered:
                by_opening.setdefault((thread.dialect, thread.opening), []).append(thread)
        groups: dict[tuple, list[_Thread]] = {}
        for (dialect, opening), threads in by_opening.items():
            # A request of one message opens what a request of two that starts with it goes on from.
            alone = (dialect, opening[:1])
            groups.setdefault(alone if alone in by_opening else (dialect, opening), []).extend(threads)
        for threads in groups.values():
            if len(threads) >= 2:
                self._rechain(threads)
                self.left_apart += _left_apart(threads)
        self.placed_by_order += sum(_after_refused(thread) for thread in self.threads.values() if thread.opening)
        named: dict[tuple, list[_Thread]] = {}
        for thread in self.threads.values():
            if thread.opening and thread.calls and not thread.numbered:
                named.setdefault((thread.dialect, thread.opening[:1]), []).append(thread)
        self.left_apart += sum(_read_before_its_round(threads) for threads in named.values() if len(threads) >= 2)

    def _rechain(self, threads: list[_Thread]) -> None:
        """One opening's threads rebuilt by what their requests send on (rechain). Calls are placed shortest request
        first, each after a call nothing went on from yet, as a log read in order places each after a conversation's
        last call: the longest whose answer it sends back next, else the longest."""
        plain = [thread for thread in threads if all(
            _sends_on(before.request.messages, after.request.messages)
            for before, after in zip(thread.calls, thread.calls[1:]))]
        if len(plain) < 2:
            return
        if all(not _resends_answer(thread.calls[0].request.raw.get("messages") or []) and all(
                _call_answered(before, after.request.raw.get("messages") or [])
                for before, after in zip(thread.calls, thread.calls[1:])) for thread in plain):
            # Every conversation opens where the log's do and each call sends the answer before it back: what a log
            # read in order leaves (one task run many times), and nothing a call out of order would have left.
            return
        calls = sorted((call for thread in plain for call in thread.calls),
                       key=lambda call: (len(call.request.messages), call.order))
        by_end: dict[tuple, list[_Call]] = {}
        # Calls by where their request ends and by their answer, where their raw messages are their messages (one task
        # run many times: the calls alike are told apart by the answer sent back, not compared each with each).
        by_answer: dict[tuple, list[_Call]] = {}
        for call in sorted(calls, key=lambda call: call.order):
            sent = call.request.messages
            if sent:
                by_end.setdefault((len(sent), sent[-1]), []).append(call)
                if len(call.request.raw.get("messages") or []) == len(sent):
                    by_answer.setdefault((len(sent), sent[-1], _answer_key(call.response)), []).append(call)
        lengths = sorted({length for length, _ in by_end}, reverse=True)
        child: dict[int, _Call] = {}
        placed: set[int] = set()
        out_of_order = guessed = 0
        for call in calls:
            sent, raws = call.request.messages, call.request.raw.get("messages") or []
            aligned = len(raws) == len(sent)

            def goes_on_from(length: int, among) -> list[_Call]:
                return [p for p in among if id(p) not in child and shared_prefix(p.request.messages, sent) == length
                        and not _asked_anew(p, raws)]

            tier: list[_Call] = []
            for length in lengths:
                if length >= len(sent):
                    continue
                if aligned:
                    among = by_answer.get((length, sent[length - 1], _sent_answer_key(raws[length])), ())
                else:
                    among = [p for p in by_end.get((length, sent[length - 1]), ()) if _call_answered(p, raws)]
                if tier := goes_on_from(length, among):
                    break
            if not tier:  # no answer sent back: the longest it goes on from
                tier = next((free for length in lengths if length < len(sent)
                             and (free := goes_on_from(length, by_end.get((length, sent[length - 1]), ())))), [])
            if not tier:
                # Nothing left to go on from (a fork, or the same request sent twice): which call went on and which
                # opened a conversation of its own, only the order of the lines says.
                guessed += any(shared_prefix(p.request.messages, sent) == length for length in lengths
                               if length < len(sent) for p in by_end.get((length, sent[length - 1]), ()))
                continue
            guessed += len(tier) > 1  # calls alike: the first in the file is taken, as a log read in order takes it
            child[id(tier[0])] = call
            placed.add(id(call))
            out_of_order += tier[0].order > call.order
        if not out_of_order:
            return  # every call came after the one it goes on from: the rebuild in reading order placed them
        chains: list[list[_Call]] = []
        for root in (call for call in calls if id(call) not in placed):
            chain = [root]
            while (after := child.get(id(chain[-1]))) is not None:
                chain.append(after)
            chains.append(chain)
        if len(chains) > len(plain):
            return
        self.placed_by_order += guessed
        old = sorted(plain, key=lambda thread: min(call.order for call in thread.calls))
        # What each call's format told of the program's tools goes with the call to its conversation.
        effects = {id(call): thread.tool_effects for thread in plain for call in thread.calls}
        chains.sort(key=lambda chain: min(call.order for call in chain))
        for thread in old:
            thread.calls, thread.tool_effects = [], {}
        for thread, chain in zip(old, chains):
            thread.calls = chain
            for call in chain:
                thread.tool_effects.update(effects[id(call)])

    def not_put_back(self) -> list[Problem]:
        """A note for each opening put_back_late_rounds did not compare, where a conversation of it still opens in
        the middle of one (its first request sends an answer back): it may be rounds of another conversation that came
        out of order, read as a conversation of its own. Said on the first such conversation's first line, once the
        rebuild is done (rechain may have put them back)."""
        notes = []
        for threads in self._not_put_back:
            late = [thread for thread in threads if thread.calls
                    and _resends_answer(thread.calls[0].request.raw.get("messages") or [])]
            if late:
                first = min((thread.calls[0] for thread in late), key=lambda call: call.order)
                notes.append(Problem(first.line if first.line is not None else first.record_line, not_put_back(
                    len(threads), len(late)), loaded=True))
        return notes

    def join_named(self, going_on: dict[str, str] | None = None) -> None:
        """Join or tell apart the threads of one name in different files of an upload (each file's calls of a name are
        read as a thread of their own): a file's thread whose first request sends another's last request on, whole and
        with more after it, continues that conversation (a log rotated in the middle of it, the files given in any
        order); threads that continue none stay conversations of their own, each named by the files that held it
        (`sess-1 (monday.jsonl)`), as two runs that a program named alike are not one. In a file that goes on with
        another's run (`going_on`, by the file that began it: _cut_runs), a last request of no message (OpenCode's run
        output keeps no prompt) is sent on by any request after it."""
        going_on = going_on or {}
        parts: dict[str, list[_Thread]] = {}
        for thread in self.threads.values():
            if thread.named is not None and thread.calls:
                parts.setdefault(thread.named, []).append(thread)
        for name, threads in parts.items():
            threads.sort(key=lambda t: len(t.calls[0].request.messages))
            for later in threads:
                first = later.calls[0].request.messages
                goes_on = [earlier for earlier in threads if earlier is not later and earlier.calls
                           and earlier.dialect == later.dialect and (earlier.calls[-1].request.messages or going_on.get(
                               earlier.calls[-1].file or "") == later.calls[0].file)
                           and _sends_on(earlier.calls[-1].request.messages, first)]
                best = max(goes_on, key=lambda t: len(t.calls[-1].request.messages), default=None)
                if best is not None:
                    best.calls.extend(later.calls)
                    later.calls = []
            kept = [thread for thread in threads if thread.calls]
            held = [_held_in(_files(thread.calls), "") for thread in kept]
            ids = [name] if len(kept) == 1 else [f"{name} ({files})" for files in held]
            if len(set(ids)) < len(ids):  # more than three files each, said as "4 files" alike: numbered instead
                ids = [f"{name} ({place})" for place in range(1, len(kept) + 1)]
            for thread, new in zip(kept, ids):
                thread.id = new
        taken: set[str] = set()
        threads = {}
        for thread in self.threads.values():
            if thread.calls:
                thread.id = _unique(thread.id, taken)
                threads[thread.id] = thread
        self.threads = threads


PUT_BACK_MOST = 400
"""The most threads under one opening that put_back_late_rounds compares, each against each."""


def not_put_back(threads: int, late: int) -> str:
    """What the notes say of an opening of more conversations than PUT_BACK_MOST (_Rebuilder.not_put_back)."""
    some = f"{late:,} of them begin" if late > 1 else "1 of them begins"
    what = "rounds of other conversations, read as conversations of their own" if late > 1 \
        else "rounds of another conversation, read as a conversation of its own"
    return (f"{threads:,} conversations open with this line's first two messages, more than the {PUT_BACK_MOST} "
            f"whose rounds are compared each with each to put back rounds that came out of order: {some} in the middle "
            f"of a conversation (its first request sends an answer back), and may be {what}")


def _between(before: _Call, after: _Call, first: tuple, sent: tuple, raws: list, answer: Response) -> bool:
    """Whether calls whose first request is `first` and whose last is `sent` (its raw messages `raws`), answered with
    `answer`, are the rounds between `before` and `after`: the first sends `before`'s request on, and `after` sends the
    last on, with its answer next."""
    if not (_sends_on(before.request.messages, first) and _sends_on(sent, after.request.messages)):
        return False
    resent = after.request.raw.get("messages") or []
    return len(raws) < len(resent) and _answer_resent(resent[len(raws)], answer)


def _left_apart(threads: list[_Thread]) -> int:
    """How many of one opening's threads begin in the middle of a conversation (their first request sends an answer
    back) where the opening's lines are out of order (a request sends on whole, with more, a request that sits later
    in the file): rounds that may be another conversation's, read before the round they go on from or after the round
    that goes on from them, and left conversations of their own. Not asked past PUT_BACK_MOST threads (the notes say
    those were not compared: not_put_back), nor of more calls than OUT_OF_ORDER_MOST, compared each with each."""
    late = sum(1 for thread in threads
               if thread.calls and _resends_answer(thread.calls[0].request.raw.get("messages") or []))
    if not late or len(threads) > PUT_BACK_MOST:
        return 0
    calls = sorted((call for thread in threads for call in thread.calls), key=lambda call: call.order)
    if len(calls) > OUT_OF_ORDER_MOST:
        return 0
    out_of_order = any(len(later.request.messages) < len(earlier.request.messages)
                       and _sends_on(later.request.messages, earlier.request.messages)
                       for at, earlier in enumerate(calls) for later in calls[at + 1:])
    return late if out_of_order else 0


OUT_OF_ORDER_MOST = 1000
"""The most calls of one opening that _left_apart compares each with each."""


def _read_before_its_round(threads: list[_Thread]) -> int:
    """How many of one opening's threads that the log named by their first request (a batch's custom_id, which rechain
    leaves as they are) begin mid-way, sending on the request and answer of a call read after them: a fork (two
    requests going on from one answer) whose lines are out of order, the round one of them goes on from taken by
    whichever was read first. Not asked past PUT_BACK_MOST threads, as _left_apart is not."""
    if len(threads) > PUT_BACK_MOST:
        return 0
    late = [thread for thread in threads if _resends_answer(thread.calls[0].request.raw.get("messages") or [])]
    calls = [call for thread in threads for call in thread.calls] if late else []
    return sum(1 for thread in late for first in thread.calls[:1]
               if any(call.order > first.order and len(call.request.messages) < len(first.request.messages)
                      and _sends_on(call.request.messages, first.request.messages) and call.response is not None
                      # Its answer next, as read (a batch's results are not written as the requests resend them).
                      and first.request.messages[len(call.request.messages)] == call.response.message for call in calls))


def _after_refused(thread: _Thread) -> int:
    """How many of a thread's calls go on from a request that failed with no answer where they send on, as well, the
    answer before that request: sent after it (a request put right and sent again) or beside it (a batch's request
    refused, sent with the next), only the order of the lines says, and those three lines are out of order (rechain).
    Three read in order are placed as a log in order places them, wherever else the thread's lines are out of order."""
    calls = thread.calls
    if all(before.order < after.order for before, after in zip(calls, calls[1:])):
        return 0
    return sum(1 for before, failed, after in zip(calls, calls[1:], calls[2:])
               if failed.response is None and failed.error is not None
               and not before.order < failed.order < after.order
               and _call_answered(before, after.request.raw.get("messages") or []))


def _call_answered(call: _Call, raws: list) -> bool:
    """Whether a request whose raw messages `raws` send `call`'s request on sends its answer back right after it."""
    position = len(call.request.raw.get("messages") or [])
    return call.response is not None and position < len(raws) and _answer_resent(raws[position], call.response)


def _sends_on(before: tuple, now: tuple) -> bool:
    """Whether a request's messages `now` send every message of `before` on, unchanged and first, with more after them."""
    return len(before) < len(now) and shared_prefix(before, now) == len(before)


def _in_file(name: str, file: str) -> str:
    """The name a log gave a conversation, as one file's calls of it are held apart: `sess-1 (monday.jsonl)`."""
    return f"{name} ({file})"


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or, where another conversation has it, the name with the first number that no other has after it; added
    to `taken`."""
    said, place = name, 1
    while said in taken:
        place += 1
        said = f"{name} {place}"
    taken.add(said)
    return said


def _converted_provenance(provenance: dict | None, target: str, notes: tuple[str, ...]) -> dict:
    """A call written in another dialect than its own: what the record said of it, and what the writing left out or
    filled in."""
    note = (f"This call went to another API than the one this conversation is written in, {DIALECT_NAMES[target]}: "
            "its request sends the conversation on in that API's own format, and it is written here in the "
            "conversation's.")
    if notes:
        note += " Written so, it leaves out or fills in: " + "; ".join(notes) + "."
    if provenance and provenance.get("note"):
        note = f"{provenance['note']} {note}"
    return {**(provenance or {}), "origin": (provenance or {}).get("origin", "recorded"), "note": note}


def _is_instruction(raw: Any) -> bool:
    """Whether a request's message is its instructions (a system or developer message)."""
    return isinstance(raw, dict) and raw.get("role") in ("system", "developer")


def _run_again(best: _Thread, repeated: _Thread) -> bool:
    """Whether a request that repeats `repeated`'s last request goes on from `best`, whose last request it extends, just
    as well: `best`'s last request is one `repeated` sent too, and got the same answer there, and `best` went on later.
    A program that ran the same task twice and rewrites the answer it sends back (llama_index's ReAct agent writes the
    model's action input anew) sends the second run's next request as the first run's was: the bytes cannot tell the
    runs apart, the order of the lines does."""
    last = best.calls[-1]
    if last.response is None or last.order < repeated.calls[-1].order:
        return False
    before = last.request.raw.get("messages") or []
    answer = _answer_key(last.response)
    return any(call.response is not None and len(call.request.raw.get("messages") or []) == len(before)
               and _answer_key(call.response) == answer and call.request.raw.get("messages") == before
               for call in repeated.calls)


def _answered(thread: _Thread, raws: list) -> bool:
    """Whether a request that extends the thread's last request sends that request's answer back next."""
    last = thread.calls[-1] if thread.calls else None
    position = len(last.request.raw.get("messages") or []) if last is not None else 0
    return last is not None and last.response is not None and position < len(raws) \
        and _answer_resent(raws[position], last.response)


def _asked_anew(last: _Call, raws: list) -> bool:
    """Whether a request that starts with `last`'s request asks anew on that prompt rather than going on from it: the
    answer `last` got said something and is not sent back next, and nothing the request adds is a turn of the model's
    or a tool's result (a result for the answer's calls, the answer written otherwise). ldp's online trainer asks the
    same question five times, the later calls with memories of earlier attempts added as a second user message: each
    is a call of its own, not a conversation whose turn was dropped. A program that rewrote the answer or left it out
    but sent its calls' results still sends something of the model's or a tool's, and goes on from it.
    Only an answer that asked for calls is read so: a call no result follows is no turn a conversation can go on
    from. An answer of text alone, left out before a new user turn, is read as the conversation going on without it
    (a retry message that names the answer it leaves out, a chat that keeps only the person's turns): the bytes cannot
    tell that from asking anew, and the Checks page and the explorer say both (lib.growth.answer_left_out)."""
    response = last.response
    if response is None or not response.message.tool_calls:
        return False  # no call left unanswered (a failed call, an empty answer dropped and asked again, plain text)
    before = last.request.raw.get("messages") or []
    if len(raws) <= len(before) or _answer_resent(raws[len(before)], response):
        return False
    return not any(_of_model_or_tool(raw) for raw in raws[len(before):])


def _results_sent(thread: _Thread, raws: list) -> bool:
    """Whether a request that extends the thread's last request sends a result for a call of that request's answer."""
    last = thread.calls[-1] if thread.calls else None
    if last is None or last.response is None or not last.response.message.tool_calls:
        return False
    ids = {c.id for c in last.response.message.tool_calls if c.id}
    for raw in raws[len(last.request.raw.get("messages") or []):]:
        if not isinstance(raw, dict):
            continue
        if raw.get("role") == "tool" and raw.get("tool_call_id") in ids:
            return True
        content = raw.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                             and b.get("tool_use_id") in ids for b in content):
            return True
    return False


def _opening(body: dict) -> tuple:
    """What a request's conversation is indexed under: its first two messages as the model reads them."""
    raws = body.get("messages") if isinstance(body.get("messages"), list) else []
    return tuple(content_key(read_form(m)) for m in raws[:2])


def _asks_for_summary(raws: Any, response: Response) -> bool:
    """Whether a call may have asked for a summary of the conversation to go on from (_Rebuilder._after_summary): its
    request ends in two user turns in a row, the model's answer to the first left out, and the answer is text alone."""
    return isinstance(raws, list) and len(raws) > 1 and all(
        isinstance(raw, dict) and raw.get("role") == "user" for raw in raws[-2:]) \
        and not response.message.tool_calls and bool(response.message.text.strip())


def _of_model_or_tool(raw: Any) -> bool:
    """Whether a request's message is the model's turn or carries a tool's result (a `tool` or `function` message, a
    `tool_result` block in a user turn)."""
    if not isinstance(raw, dict):
        return False
    if raw.get("role") in ("assistant", "model", "tool", "function"):
        return True
    content = raw.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") in ("tool_result", "function_call_output") for b in content)


def _answer_resent(raw: Any, response: Response) -> bool:
    """Whether a request's message is the response's answer sent back: the model's text, and its calls by id."""
    if not isinstance(raw, dict) or raw.get("role") != "assistant":
        return False
    calls = raw.get("tool_calls") if isinstance(raw.get("tool_calls"), list) else []
    ids = [c.get("id") for c in calls if isinstance(c, dict)]
    return _said_text(raw) == response.message.text.strip() and ids == [c.id for c in response.message.tool_calls]


def _said_answer(response: Response | None) -> str | None:
    """The text of a response's answer as _answer_after_rewrite compares it; None without a response."""
    return response.message.text.strip() if response is not None else None


NOT_AN_ANSWER = object()
"""What `_answer_key` and `_sent_answer_key` give where there is no answer: equal to nothing else."""


def _answer_key(response: Response | None) -> Any:
    """A response's answer as _answer_resent compares it: its text, stripped, and its calls' ids."""
    if response is None:
        return NOT_AN_ANSWER
    return response.message.text.strip(), tuple(c.id for c in response.message.tool_calls)


def _sent_answer_key(raw: Any) -> Any:
    """A request's message as _answer_resent compares it with an answer: equal to `_answer_key` of the responses whose
    answer it sends back, and to no other."""
    if not isinstance(raw, dict) or raw.get("role") != "assistant":
        return NOT_AN_ANSWER
    calls = raw.get("tool_calls") if isinstance(raw.get("tool_calls"), list) else []
    ids = tuple(c.get("id") for c in calls if isinstance(c, dict))
    if not all(i is None or isinstance(i, str) for i in ids):
        return NOT_AN_ANSWER  # an id no provider gave (an object, a number) is no call of a response's
    return _said_text(raw), ids


def _said_text(raw: dict) -> str:
    """The text of a request's message as _answer_resent compares it: its content's text, stripped."""
    content = raw.get("content")
    said = content if isinstance(content, str) else "".join(
        str(b.get("text") or "") for b in content if isinstance(b, dict)) if isinstance(content, list) else ""
    return said.strip()


def _item_ids(raw: Any) -> set[str]:
    """The ids of a model turn's content items (a Responses answer's `rs_...` reasoning and `msg_...` message, read
    into one turn), which the provider gives each item once; empty where it has none."""
    content = raw.get("content") if isinstance(raw, dict) else None
    return {b["id"] for b in content if isinstance(b, dict) and isinstance(b.get("id"), str) and b["id"]} \
        if isinstance(content, list) else set()


def _in_order(sent: list, before: list) -> bool:
    """Whether every message of `sent` is one of `before`'s, in the same order, some of them left out."""
    at = 0
    for key in sent:
        at = next((i + 1 for i in range(at, len(before)) if before[i] == key), -1)
        if at < 0:
            return False
    return True


def _resends_answer(raws: list) -> bool:
    """Whether a request resends an answer of the model's: it holds history, not an opening alone."""
    return any(isinstance(raw, dict) and raw.get("role") == "assistant" for raw in raws)


def _empty_answer_dropped(raw: Any, response: Response) -> bool:
    """Whether the response said nothing (no text, no call) and the request goes on without it: CrewAI drops an empty
    answer and asks again, its system prompt written twice over (a Gemini run in its cassettes)."""
    said = response.message
    return not said.text.strip() and not said.tool_calls and not (isinstance(raw, dict) and raw.get("role") == "assistant")


def _resent_unmarked(raws: list, before: list) -> bool:
    """Whether `raws` starts with the messages of `before` as the model reads them (read_form)."""
    if before and len(raws) >= len(before) and not _same_read(before[-1], raws[len(before) - 1]):
        return False  # where requests of one opening part, their last messages do: the cheap answer first
    return all(_same_read(old, new) for old, new in zip(before, raws))


def _same_read(old: Any, new: Any) -> bool:
    """Whether two raw messages are the same as the model reads them (read_form)."""
    return old == new or read_form(old) == read_form(new)


def _inferred_response(dialect: str, request: Request, following: Request, pools: Pools) -> Response | None:
    """Response k read off request k+1: the assistant turn that follows request k's messages."""
    position = len(request.messages)
    if len(following.messages) <= position or following.messages[position].role != "assistant":
        return None
    message: Message = following.messages[position]
    if dialect == openai_chat.DIALECT:
        body = {"choices": [{"index": 0, "message": message.raw,
                             "finish_reason": "tool_calls" if message.tool_calls else "stop"}]}
        return openai_chat.read_response(body, pools)
    body = {"type": "message", "role": "assistant", "content": message.raw.get("content") or [],
            "stop_reason": "tool_use" if message.tool_calls else "end_turn"}
    return anthropic_messages.read_response(body, pools)


def _held_in(thread_files: list[str | None], source: str) -> str:
    """What a conversation is said to come from: the file that held its calls, in an upload of several ("a.jsonl"
    rather than "4 files"), the files where it spans more than one; `source` (the upload's name) where a call's file
    is not known."""
    files = list(dict.fromkeys(thread_files))
    if not files or None in files:
        return source
    return files[0] if len(files) == 1 else " + ".join(files) if len(files) <= 3 else plural(len(files), "file")


def _named(thread: _Thread) -> str:
    """The name the log gave a conversation whose id adds its file's (`sess-1` of `sess-1 (monday.jsonl)`); else
    empty."""
    return thread.named if thread.named is not None and thread.id != thread.named else ""


def _files(calls: list[_Call]) -> list[str | None]:
    """The files that held the calls, in their order: each call's, and the file of the half it was joined to (a batch's
    request file, then its result file)."""
    return [file for call in calls for file in (call.file, *([call.joined_file] if call.joined_file else []))]


def _trace(thread: _Thread, source: str, pools: Pools) -> Trace:
    calls = thread.calls
    if all(c.timestamp for c in calls):
        # Calls of one second keep the place the rebuild gave them, not the order their lines came in.
        calls = sorted(calls, key=lambda c: c.timestamp)
    rounds: list[Round] = []
    for position, call in enumerate(calls):
        if rounds and rounds[-1].error is not None and sent_again_unchanged(rounds[-1], call.request):
            # The same body sent again after the provider refused it: one round tried again, as a live run reads it.
            failed = rounds.pop()
            tries = [*failed_tries(failed), as_failed_try(failed, calls[position - 1].timestamp)]
        else:
            tries = []
        response, derived = call.response, call.derived
        if response is None and call.error is None and position + 1 < len(calls):
            response = _inferred_response(thread.dialect, call.request, calls[position + 1].request, pools)
            if response is not None:
                derived = (*derived, "response")
        previous = rounds[-1].request.messages if rounds else ()
        extra = {"source_line": call.record_line}
        if derived:
            extra["derived"] = list(derived)
        if call.converted_from:
            extra["converted_from"] = call.converted_from
        if call.provenance:
            extra["provenance"] = call.provenance
        if call.cut_calls:
            extra[CUT_CALLS] = list(call.cut_calls)
        if call.streamed:
            extra[STREAMED] = True
        if call.notices:
            extra[NOTICES] = list(call.notices)
        if call.program_wrote:
            extra[PROGRAM_WROTE] = list(call.program_wrote)
        if call.unended:
            extra[UNENDED_CALLS] = list(call.unended)
        if call.unended_writes:
            extra[UNENDED_WRITES] = list(call.unended_writes)
        if call.compaction:
            extra[COMPACTION] = True
        if call.compacted_in_call:
            extra[COMPACTED_IN_CALL] = True
        if call.sent_on:
            extra[SENT_ON] = call.sent_on
        if call.from_cache:
            extra[FROM_CACHE] = call.from_cache
        if call.tools_held:
            extra[TOOLS_HELD] = True
        if call.summary_call:
            extra[SUMMARY_CALL] = True
        if call.request_headers is not None:
            extra[REQUEST_HEADERS] = call.request_headers
        if tries:
            extra[TRIES] = tries
        now = call.request.messages
        built = pools.extended.get(id(now))
        # Messages built by extending the round before's (intern_messages) share all of them: not walked again.
        resent = len(previous) if built is not None and built[0] is now and built[1] is previous \
            else shared_prefix(previous, now)
        if call.history_cut and rounds:
            extra[HISTORY_CUT] = resent
            if call.compacted:
                extra[COMPACTED] = True
        rounds.append(Round(
            index=len(rounds) + 1, request=call.request, response=response, error=call.error,
            executions=call.executions, latency_ms=call.latency_ms, resent_prefix=resent, extra=extra,
        ))
    # A log of streamed answers keeps no request, but every chunk names the model that answered.
    model = next((c.request.model for c in calls if c.request.model), None) \
        or next((c.response.model for c in calls if c.response and c.response.model), None)
    header = {"kind": "trace", "version": 1, "title": f"{source} · {_named(thread) or thread.id}",
              "dialect": thread.dialect, "source": source, "conversation": thread.id}
    if model:
        header["model"] = model
    if thread.tool_effects:
        header["tool_effects"] = dict(thread.tool_effects)
    return Trace(title=header["title"], dialect=thread.dialect, rounds=tuple(rounds), model=model,
                 header=header, unique_messages=len(pools.messages))


# --- the whole upload ------------------------------------------------------------------------------


NATIVE_HEADER_BYTES = 1024 * 1024
"""A native header line is a few hundred bytes; a longer first line is some other file's."""


def _is_native(data: bytes) -> bool:
    start = 3 if data[:3] == b"\xef\xbb\xbf" else 0
    end = data.find(b"\n", start, start + NATIVE_HEADER_BYTES)
    first = data[start: end if end >= 0 else start + NATIVE_HEADER_BYTES + 1]
    if len(first) > NATIVE_HEADER_BYTES or first.lstrip()[:1] != b"{":
        return False
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return isinstance(obj, dict) and obj.get("kind") == "trace"


GZIP_PIECE = 1024 * 1024
"""Bytes decompressed at a time while measuring a gzip file."""


def gunzip(data: bytes, cap: int) -> bytes:
    """A gzip file's content; raises ValueError, before holding any of it, when it would pass `cap` bytes,
    and OSError, EOFError or zlib.error when it is not gzip."""
    # Measured as a stream first, keeping nothing: a bomb is refused having held one piece.
    size = 0
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        while piece := stream.read(GZIP_PIECE):
            size += len(piece)
            if size > cap:
                raise ValueError(f"expands to more than {cap:,} bytes (the limit for one file); not read")
    return gzip.decompress(data)


def read_upload(files: list[tuple[str, bytes]], forced: str | None = None, caps: Limits | None = None) -> Upload:
    """Read one or more uploaded files as one upload; never raises on bad content. `caps` defaults to
    the limits in force (lib/logs/limits.py)."""
    with collector_paused():
        return _read_upload(files, forced, caps or limits())


class _Reading:
    """What reading an upload has gathered so far, file after file."""

    def __init__(self, forced: str | None, caps: Limits) -> None:
        self.forced = forced
        """The format the user chose, or None to detect line by line."""
        self.caps = caps
        """The limits in force."""
        self.instances = [cls() for cls in FORMATS if not forced or forced == "native" or cls.name == forced]
        """The importers that may read a line, in detection order, each with its own state."""
        bodies = Inflater(caps.decompressed_bytes)
        for instance in self.instances:
            instance.share_bodies(bodies)
        self.bodies = bodies
        """The upload's one budget for opening recorded gzip bodies, shared by every importer."""
        self.done: list[LogFormat] = []
        """Importers that read one file of several and were finished at its end (LogFormat.one_file): what they
        counted and noted is the upload's too."""
        self.rebuilder = _Rebuilder()
        """The calls read so far, grouped into conversations."""
        self.problems = ProblemList(caps.problems_kept)
        """Every line that could not be used."""
        self.formats: dict[str, tuple[int, str]] = {}
        """Per format name: lines read, and the rule that recognized them (see Upload.formats)."""
        self.notes: list[Problem] = []
        """What lines that loaded lack (see Upload.notes), said by the reader rather than an importer."""
        self.rules: dict[str, dict[str, int]] = {}
        """Per format name: each rule that recognized a line, and how many it recognized."""
        self.native: list[Conversation] = []
        """The conversations of native trace files, read whole."""
        self.first: tuple[int, dict] | None = None
        """The first object read (its line and value): kept to say why nothing read the file, if nothing does."""
        self.lines = 0
        """Items read so far."""
        self.size = 0
        """Bytes read so far, after decompression."""
        self.empty: list[str] = []
        """The names of the files that held no byte."""
        self.unopened: list[str] = []
        """The names of the files that could not be opened."""
        self.near_asked = 0
        """Unmatched lines whose near misses were asked (_unmatched)."""
        self.units: set[str] = set()
        """What the items of each file were: "line", or "element" of a JSON array."""
        self.refused = 0
        """Items the format the user chose refused as not of its shape (LogFormat.chosen)."""
        self.many = False
        """Whether the upload is of several files: its importers are then fed each item's number told its file."""
        self.file: tuple[str, str] | None = None
        """In an upload of several files, the file being read and its unit, told to the numbers fed (Line)."""
        self.last_fed: dict[int, Line] = {}
        """In an upload of several files, per importer (by id), the last item fed to it: the file whose end it met."""
        self.ends: dict[str, int] = {}
        """In an upload of several files, per file, the number of its last item."""
        self.askable: dict[frozenset, tuple[int, ...]] = {}
        """Per set of top-level keys met, the places in `instances` of the importers whose `detect_keys` allow them to
        recognize an object of those keys (_detect): at most ASKABLE_SETS of them."""
        self.going_on: dict[str, str] = {}
        """Per file of a run of a one-file format, the file given with it that goes on with that run (_cut_runs):
        read by the same importer, right after it."""


def _read_upload(files: list[tuple[str, bytes]], forced: str | None, caps: Limits) -> Upload:
    reading = _Reading(forced, caps)
    many = reading.many = len(files) > 1
    if many:
        files = _cut_runs(files, reading)
    seen: dict[bytes, str] = {}  # per file's bytes (by digest), the first file that held them
    for name, data in files:
        label = f"{name}: " if many else ""
        start = len(reading.problems), len(reading.notes)
        data = _unpacked(name, data, label, reading)
        if data is None:
            reading.unopened.append(name)
            _placed(reading, start, name, label, None)
            continue
        reading.size += len(data)
        if not data:
            reading.empty.append(name)
            continue
        if many:  # hashed only beside other files: one file alone cannot be its own copy, and 84 MB take 40 ms to hash
            digest = hashlib.sha256(data).digest()
            if digest in seen:
                # One file given twice (a copy beside the original) is one run: read twice, its calls made each
                # conversation's rounds twice over, or its requests were taken for the next rounds of the first copy's.
                reading.notes.append(Problem(1, SAME_BYTES.format(first=seen[digest]), loaded=True, file=name))
                continue
            seen[digest] = name
        if forced == "native" or (forced is None and _is_native(data)):
            _read_native(name, data, label, reading)
            unit = "line"
        else:
            unit = _read_items(name, data, label, reading)
        if many:
            _placed(reading, start, name, label, unit)
            _file_read(reading, name)
    _finish_importers(reading)
    if many:  # what the importers made at the end of the upload, of lines they kept told their file: said with it
        for found in (reading.problems, reading.notes):
            found[:] = [_told_file(problem) for problem in found]
    rebuilder = reading.rebuilder
    rebuilder.join_summed_up()
    rebuilder.join_late_rounds()
    rebuilder.put_back_late_rounds()
    rebuilder.rechain()
    rebuilder.join_named(reading.going_on)
    rebuilder.renumber()
    # A forced format that took every line and found no model call among them (a cassette of token counts) has said
    # so in its count of what are not model calls, as detection would: no line was refused.
    took_all = forced and any(instance.not_calls() for instance in reading.instances) and not reading.problems
    if not rebuilder.threads and not reading.native and (forced or not (reading.formats or reading.rules)) \
            and not took_all:
        for why in nothing_read(reading.instances, forced, reading.first, len(files)):
            _in_place_of_its_line(reading.problems, _told_file(why))  # on its file's line, in an upload of several
    source = files[0][0] if len(files) == 1 else f"{len(files)} files"
    conversations = reading.native + [
        Conversation(thread.id, _trace(thread, held, rebuilder.pools), held if many else "", _named(thread))
        for thread in rebuilder.threads.values()
        if thread.calls
        for held in [_held_in(_files(thread.calls), source) if many else source]
    ]
    problems = reading.problems
    every = [*reading.done, *reading.instances]
    problems.extend(replace(problem, message=_as_read(problem.message, instance))
                    for instance in every for problem in instance.skipped_later())
    notes = (*reading.notes, *(_told_file(note) for instance in every for note in instance.notes()),
             *(_told_file(note) for note in rebuilder.not_put_back()))
    unit = reading.units.pop() if len(reading.units) == 1 else "item" if reading.units else "line"  # "item": an array and lines
    for name, fired in reading.rules.items():
        reading.formats[name] = (sum(fired.values()), _rules_said(fired, unit))
    if forced and forced != "native" and reading.refused:
        # Every item was tried as the chosen format: those it refused count as tried, and its entry says so even when
        # it read none (the sidebar's 'tried as', the summary's format).
        read, said = reading.formats.get(forced, (0, ""))
        refused = f"refused as not of its shape: {plural(reading.refused, unit, UNITS.get(unit, unit + 's'))}"
        reading.formats[forced] = (read + reading.refused, f"{said}; {refused}" if said else refused)
    not_calls = sum(instance.not_calls() for instance in every)
    unread = sum(instance.unread_calls() for instance in every)
    spans = sum(instance.not_call_spans() for instance in every)
    listed = problems.listed(tuple(name for name, _ in files))
    joined = {(call.file, later.file) for thread in rebuilder.threads.values()
              for call, later in zip(thread.calls, thread.calls[1:]) if call.file != later.file}
    cut = tuple((began, rest) for began, rest in reading.going_on.items() if (began, rest) in joined)
    return Upload(tuple(conversations), tuple(listed), reading.lines, reading.formats, problems.lines(), reading.size,
                  notes, unit, not_calls, unread, spans, tuple(reading.empty), tuple(reading.unopened), cut,
                  rebuilder.placed_by_order, rebuilder.left_apart)


def _cut_runs(files: list[tuple[str, bytes]], reading: _Reading) -> list[tuple[str, bytes]]:
    """The files in the order they are read: a file of a one-file format (LogFormat.one_file) that goes on with a run
    (LogFormat.goes_on: it does not begin as that format's runs begin) right after the one file of that format that
    begins one, so that one importer reads both, as the run it was before it was cut in two. Whichever order they were
    given in; only where the upload holds one file of the format that begins a run, as which run the files that go on
    go on with, the files cannot say; several that go on are read in the order of their names. A file that begins as a
    run begins goes on where its first line says it continues the run of the one other file of its format that begins
    one (LogFormat.continues: a Claude Code session cut before a prompt)."""
    begins: dict[str, list[str]] = {}
    goes: dict[str, list[str]] = {}
    if len({name for name, _ in files}) < len(files):
        return files  # two files of one name: which of them goes on could not be said
    opened: dict[str, tuple[LogFormat, dict]] = {}
    for name, data in files:
        first = _first_line(name, data)
        # Asked of fresh importers, as detection asks the reading's: the first line tells what each file is.
        instance = _detect([cls() for cls in FORMATS if not reading.forced or cls.name == reading.forced], first,
                           None)[0] if first else None
        if instance is not None and instance.one_file:
            (goes if instance.goes_on(first) else begins).setdefault(instance.name, []).append(name)
            opened[name] = instance, first
    by_name = dict(files)
    for name, began in begins.items():
        # Which began the run and which go on, only the files' lines can say: each that continues another goes on.
        rest = [b for b in began if any(a != b and opened[b][0].continues(opened[b][1], opened[a][1], by_name[a]) for a in began)] \
            if len(began) > 1 else []
        if len(began) - len(rest) == 1:
            began[:] = [b for b in began if b not in rest]
            goes.setdefault(name, []).extend(rest)
    for name, rest in goes.items():
        if len(begins.get(name, ())) == 1:
            # A run cut in more than two: which part goes on from which, only the files' names say (part-2, part-3),
            # and the summary says they did (Upload.summary).
            chain = [begins[name][0], *sorted(rest, key=_name_order)]
            reading.going_on.update(zip(chain, chain[1:]))
    if not reading.going_on:
        return files
    after = {rest: began for began, rest in reading.going_on.items()}
    ordered = []
    for name, data in files:
        if name in after:
            continue
        ordered.append((name, data))
        while name in reading.going_on:
            name = reading.going_on[name]
            ordered.append((name, by_name[name]))
    return ordered


def _name_order(name: str) -> list:
    """A file's name as its parts are ordered: numbers by their value (part-10 after part-9)."""
    return [(0, int(part), "") if part.isdecimal() else (1, 0, part) for part in re.split(r"(\d+)", name)]


def _first_line(name: str, data: bytes) -> dict:
    """The first line of a file of JSON lines, parsed, where it is an object; else an empty one (no format's)."""
    if data[:2] == b"\x1f\x8b" or _shape(name, data) != "line":
        return {}
    start = _LEADING.match(data).end()
    end = data.find(b"\n", start, start + NATIVE_HEADER_BYTES)
    if end < 0 and len(data) - start > NATIVE_HEADER_BYTES:
        return {}  # a first line past a megabyte is no run's first event, and is not parsed twice
    try:
        first = orjson.loads(data[start:end if end >= 0 else len(data)])
    except orjson.JSONDecodeError:
        return {}
    return first if isinstance(first, dict) else {}


def _placed(reading: _Reading, start: tuple[int, int], name: str, label: str, unit: str | None) -> None:
    """The problems and notes one file of several added since `start` (their counts before it), told their file and
    its unit: numbered in the upload's unit they read `item 2: log.jsonl: ...` where files of different units were
    uploaded together, an item that is the file's line 2."""
    for found, first in ((reading.problems, start[0]), (reading.notes, start[1])):
        for at in range(first, len(found)):
            problem = found[at]
            if label and problem.file is None and problem.message.startswith(label):
                found[at] = replace(problem, message=problem.message[len(label):], file=name, unit=unit)


def _unpacked(name: str, data: bytes, label: str, reading: _Reading) -> bytes | None:
    """The file's bytes, gunzipped when they are gzip's; None, with the problem said, when they cannot be."""
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gunzip(data, reading.caps.decompressed_bytes)
    except ValueError as exc:
        reading.problems.append(Problem(1, f"{label}{exc}"))
        return None
    except (OSError, EOFError, zlib.error) as exc:
        if name.lower().endswith(".gz"):
            reading.problems.append(Problem(1, f"{label}is not a readable gzip file ({exc})"))
            return None
        return data  # two bytes that merely look like gzip's signature: read the file as text


def _read_native(name: str, data: bytes, label: str, reading: _Reading) -> None:
    """A Roundtrip trace file, read whole by lib/logs/native.py."""
    trace, found = read_trace(io.BytesIO(data), name=name, keep=reading.caps.problems_kept)
    reading.lines += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    reading.units.add("line")
    reading.problems.extend(Problem(p.line, label + p.message, p.last) for p in found if not p.loaded)
    reading.notes.extend(Problem(p.line, label + p.message, p.last, loaded=True) for p in found if p.loaded)
    if trace.rounds:
        reading.native.append(Conversation(trace.title, trace, name if reading.many else ""))
        reading.formats["native"] = (reading.formats.get("native", (0, ""))[0] + len(trace.rounds),
                                     "a Roundtrip header line")


CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
"""The roles of Chat Completions messages."""


def _is_chat_message(value: Any) -> bool:
    role = value.get("role") if isinstance(value, dict) else None
    return isinstance(role, str) and role in CHAT_ROLES and ("content" in value or "tool_calls" in value)


def _one_transcript(data: bytes, items: Iterator[tuple[int, bytes, int]], most: int,
                    reading: _Reading) -> Iterator[tuple[int, bytes | dict, int]]:
    """A `.json` array of chat messages (what `json.dump(messages)` writes) as one transcript, `{"messages": [...]}`,
    when it is no larger than one item may be; any other array's elements as they come."""
    first = next(items, None)
    if first is None:
        return
    try:
        head = loads_exact(first[1])
    except ValueError:
        head = None
    if _is_chat_message(head) and len(data) <= most:
        try:
            messages = loads_exact(data[3:] if data[:3] == b"\xef\xbb\xbf" else data)
        except ValueError:
            messages = None
        if isinstance(messages, list) and all(_is_chat_message(m) for m in messages):
            yield 1, {"messages": messages}, len(messages)  # said as one conversation where a format reads it
            return
    yield first
    yield from items


def _read_items(name: str, data: bytes, label: str, reading: _Reading) -> str:
    """Every line (or array element) of a log: parsed, its format detected, fed to that importer. Returns what its
    items are numbered as (`line`, `element`, `interaction`)."""
    # OTLP documents are decoded into typed spans when only the span reader may read them.
    spans_only = reading.forced in (None, SpanFormat.name)
    parser = ResentParser(typed=otlp_typed.decode_unrepeated if spans_only else None)
    caps, problems, rules = reading.caps, reading.problems, reading.rules
    # A one-document file is checked for repeated keys as a collector's line of it is (spans_checked_loads).
    typed = otlp_typed.decode_unrepeated if spans_only else None
    whole = documents.elements(name, data, caps.line_bytes, ResentTexts(spans_checked_loads, typed).parse)  # .eval, cassettes, HAR, .traj: one document, cut into elements
    # What an item that does not parse is called where the parser's place in it is said: the file's own unit.
    said_as, events = "line", None
    if whole is None:
        said_as = _shape(name, data)
        items = _items(data, said_as)
        if said_as == "element":
            items = _one_transcript(data, items, caps.line_bytes, reading)
        # A .json file that is one object over many lines is one document, as it is when it parses (documents.WHOLE):
        # a damaged one is counted so too, not as "1 line" beside a problem on its line 44.
        unit = documents.WHOLE if said_as == "file" else said_as
        reading.units.add(unit)
        if said_as == "line" and _SSE_START.match(data) and _SSE_DATA.search(data):
            items = events = _ServerSentEvents(data)
            said_as = "event's data"  # a place in the JSON after `data:`, not in the line
            reading.notes.append(Problem(1, label + SSE_NOTE, loaded=True))
            for instance in reading.instances:
                instance.one_body(True)
    else:
        items = ((number, element, 1) for number, element in whole[1])
        unit = whole[0]
        reading.units.add(unit)
    if reading.many:
        reading.file = (name, unit)
    for number, item, span in items:
        reading.lines += span
        if reading.many:
            reading.ends[name] = number + span - 1
        if isinstance(item, str):  # an element the document reader could not cut out, and why
            problems.append(Problem(number, label + item))
            continue
        if isinstance(item, dict):
            obj = item
        elif item.isspace() or not item:  # isspace scans without copying an 80 MB line
            after = ", and so is the line after it" if span == 2 else \
                f", and so are the {span - 1:,} lines after it" if span > 2 else ""
            problems.append(Problem(number, f"{label}is empty{after}", number + span - 1 if span > 1 else None))
            continue
        elif len(item) > caps.line_bytes:
            problems.append(Problem(number, f"{label}is too large ({len(item):,} bytes; the limit is {caps.line_bytes:,})"))
            continue
        else:
            try:
                obj = parser.parse(item)
            except ValueError as exc:  # orjson's errors, and the lines strict_loads refuses
                line = None
                if said_as == "file" and isinstance(exc, json.JSONDecodeError):
                    # One object over many lines: the parser's line within it, past any blank ones, is the file's,
                    # said in the words of the document's problem.
                    line = _LEADING.match(data).group().count(b"\n") + exc.lineno
                problems.append(Problem(number, label + json_problem(exc, said_as, line)))
                continue
            shallow = parser.kept_shallow(obj)
            if shallow:
                reading.notes.extend(Problem(number, label + said, loaded=True) for said in shallow)
        if not isinstance(obj, dict):
            problems.append(Problem(number, f"{label}is {describe(obj)}, not a JSON object"))
            continue
        if events is not None and is_keepalive(obj):
            continue  # `{"type": "keepalive"}` between a stream's events: nothing of the answer, as a comment line
        reading.first = reading.first or (Line(number, *reading.file) if reading.file else number, obj)
        chosen, rule = _detect(reading.instances, obj, reading.forced, reading.askable)
        if chosen is None:
            if reading.forced:  # the chosen format's rule that the line fails, said in place of 'matches no format'
                reading.refused += span
                # A whole array taken as one transcript is refused whole: every element of it is skipped.
                problems.append(Problem(number, label + rule, number + span - 1 if span > 1 else None))
            else:
                problems.append(Problem(number, label + _unmatched(reading, obj)))
            continue
        if said_as == "element" and isinstance(item, dict):  # _one_transcript's array of chat messages
            reading.notes.append(Problem(number, f"{label}the file is one JSON array of {span:,} chat messages: read as "
                                                 "one conversation", loaded=True))
        fired = rules.setdefault(chosen.name, {})
        fired[rule] = fired.get(rule, 0) + span  # a transcript made of a whole array counts its elements
        _feed(chosen, obj, number, label, reading)
    if events is not None:
        reading.lines += events.skipped
        for instance in reading.instances:
            instance.one_body(False)
    return unit


NEAR_MISSES = 50
"""Lines that match no format, beside lines that did, whose near misses are asked: past these, the line is only said to
match none, so a file of junk costs no more than detection."""


def _unmatched(reading: _Reading, obj: dict) -> str:
    """Why a line matches no format. Beside lines a format read, that format may say how close it came (an
    interaction with no response, the last of a cassette cut short): said after NO_FORMAT, for the first few."""
    in_use = [instance for instance in reading.instances if instance.name in reading.rules]
    if not in_use or reading.near_asked >= NEAR_MISSES:
        return NO_FORMAT
    reading.near_asked += 1
    said = closest(in_use, obj)
    return f"{NO_FORMAT}; {said}" if said.startswith("closest") or said == ERROR_ALONE else NO_FORMAT


def _in_place_of_its_line(problems: list[Problem], why: Problem) -> None:
    """Why no format read the file, said on its first object's line in place of that line's 'matches no known log
    format': the skipped-line list names each line once."""
    for at, problem in enumerate(problems):
        if (problem.file, problem.line) == (why.file, why.line) and not problem.loaded \
                and problem.message.endswith(NO_FORMAT):
            problems[at] = why
            return
    problems.append(why)


def _rules_said(fired: dict[str, int], unit: str) -> str:
    """The rule that recognized a format's lines, or, when several did, each with how many it recognized."""
    if len(fired) == 1:
        return next(iter(fired))
    ranked = sorted(fired.items(), key=lambda item: -item[1])
    return "; ".join(f"{rule} ({plural(count, unit, UNITS.get(unit, unit + 's'))})" for rule, count in ranked)


def _feed(chosen: LogFormat, obj: dict, number: int, label: str, reading: _Reading) -> None:
    """One line to its importer; whatever it cannot read becomes a problem of that line."""
    problems = reading.problems
    if reading.file is not None:
        number = reading.last_fed[id(chosen)] = Line(number, *reading.file)
    try:
        for record in chosen.feed(obj, number):
            reading.rebuilder.add(record)
            _note_answers(record, label, reading)
    except LineProblem as exc:
        problems.append(Problem(number, f"{label}{_as_read(str(exc), chosen)}"))
    except RecursionError:
        problems.append(Problem(number, f"{label}is nested too deeply to read (read as {chosen.title})"))
    except Exception as exc:  # noqa: BLE001 - a bad line must never take the upload down
        problems.append(Problem(number, f"{label}could not be read as {chosen.title}: {type(exc).__name__}: {exc}"))


def _as_read(problem: str, instance: LogFormat) -> str:
    """A format's problem with a line, with the format that read it named once: after it, unless its words name it."""
    return problem if instance.title in problem else f"{problem} (read as {instance.title})"


def _file_read(reading: _Reading, name: str) -> None:
    """The end of one file of several: each importer of one file's history (LogFormat.one_file) that read it is
    finished, and a fresh one reads the next file; a Codex rollout beside another of the same session made one
    conversation of both files' rounds, the second file's requests carrying the first file's history."""
    if name in reading.going_on:
        return  # the next file goes on with this file's run: read by the same importers (_cut_runs)
    for at, instance in enumerate(reading.instances):
        last = reading.last_fed.get(id(instance))
        if not instance.one_file or last is None or last.file != name:
            continue
        _finish_importers(reading, [instance])
        reading.done.append(instance)
        fresh = reading.instances[at] = type(instance)()
        fresh.share_bodies(reading.bodies)


def _finish_importers(reading: _Reading, instances: list[LogFormat] | None = None) -> None:
    """What the importers held back until the end (stream chunks, batch halves), added as calls."""
    problems = reading.problems
    for instance in reading.instances if instances is None else instances:
        try:
            for record in instance.finish():
                try:
                    reading.rebuilder.add(record)
                    _note_answers(record, "", reading)
                except Exception as exc:  # noqa: BLE001 - one odd record must not drop the ones after it
                    problems.append(Problem(record.line, f"could not be read as {instance.title}: {type(exc).__name__}: {exc}"))
        except LineProblem as exc:
            problems.append(Problem(_end(reading, instance), f"at the end of the file: {_as_read(str(exc), instance)}"))
        except Exception as exc:  # noqa: BLE001 - same promise as for lines
            problems.append(Problem(_end(reading, instance),
                                    f"at the end of the file, {instance.title}: {type(exc).__name__}: {exc}"))


def _end(reading: _Reading, instance: LogFormat) -> int:
    """The item an importer's problem at the end is said on: the upload's last; in an upload of several files, the
    last item of the last file it read, told that file (Line), since the end it met is that file's."""
    last = reading.last_fed.get(id(instance))
    return reading.lines if last is None else Line(reading.ends.get(last.file, int(last)), last.file, last.unit)


def _note_answers(record: CallRecord, label: str, reading: _Reading) -> None:
    """A note on a Chat Completions call that asked for several answers at once (`n`): a round shows one."""
    if record.dialect != openai_chat.DIALECT:
        return
    asked = int_or_none(record.request.get("n")) if isinstance(record.request, dict) else None
    choices = record.response.get("choices") if isinstance(record.response, dict) else None
    answers = max(asked or 1, len(choices) if isinstance(choices, list) else 1)
    if answers > 1:
        if isinstance(record.line, Line):
            label = ""  # said on the line of the file its importer read it from (a batch's request), not the one fed now
        every = "both" if answers == 2 else f"all {answers}"
        reading.notes.append(Problem(record.line, f"{label}the call asked for {answers} answers at once (n = {answers}): "
                                     f"the round shows the first, and any usage the provider reported counts {every}",
                                     loaded=True))


ASKABLE_SETS, ASKABLE_KEYS = 256, 64
"""Sets of top-level keys whose askable importers a reading remembers, and the most keys of a set remembered (a log
has a few sets of a few keys; a file built to have a new set on every line, or thousands of keys to a line, costs what
detection cost before, not memory)."""


def _detect(instances: list[LogFormat], obj: dict, forced: str | None,
            askable: dict[frozenset, tuple[int, ...]] | None = None) -> tuple[LogFormat | None, str]:
    """The format that reads `obj` and the rule that fired: the first in detection order. When the user chose the
    format, that one if `obj` is its shape (LogFormat.chosen), else None and the rule of it that `obj` fails.
    An importer whose `detect_keys` `obj` holds none of is not asked: its answer would be None (a collector's span
    lines, late in the order, were tried against 23 earlier formats each, 9 µs a line). `askable` remembers which
    are asked per set of keys."""
    if forced:
        instance = instances[0]
        try:
            return instance, f"chosen by you: {instance.chosen(obj)}"
        except LineProblem as exc:
            return None, str(exc)
        except Exception:  # noqa: BLE001 - a rule that cannot read the line does not recognize it
            return None, instance.refusal(obj)
    keys = frozenset(obj)
    places = askable.get(keys) if askable is not None else None
    if places is None:
        places = tuple(at for at, instance in enumerate(instances)
                       if instance.detect_keys is None or not instance.detect_keys.isdisjoint(keys))
        if askable is not None and len(askable) < ASKABLE_SETS and len(keys) <= ASKABLE_KEYS:
            askable[keys] = places
    for at in places:
        instance = instances[at]  # by place: an importer finished at a file's end is replaced in place (_file_read)
        try:
            rule = instance.detect(obj)
        except Exception:  # noqa: BLE001 - a rule that cannot read the line does not recognize it
            continue
        if rule:
            return instance, rule
    return None, ""
