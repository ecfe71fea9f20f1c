"""Log formats: the shared shape every importer turns its lines into.

An importer reads one parsed JSON object at a time and yields CallRecords: one model call each,
with its request and response as bodies in one of the two dialects lib.model knows
(`openai-chat` or `anthropic-messages`). Formats that are neither (Responses API, spans,
fine-tuning lines) convert their content into the Chat Completions shape and say so in
`converted_from`. lib/logs/upload.py groups records into conversations and builds traces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator

from lib.model import Dialect
from lib.text import plural


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with one line of an input file."""

    line: int
    """1-based line number in the file."""
    message: str
    """What is wrong, in words a user can act on."""
    last: int | None = None
    """The last line of a run of lines the problem covers (blank lines), when it covers more than one."""
    conversation: str | None = None
    """The conversation a note is about, when the format knows (a SWE-agent run's own counts): the pages that show
    that conversation's figures say it beside them, not only the sidebar beside the whole upload."""
    loaded: bool = False
    """True when the line loaded and this says what it lacks (a note), not why it was skipped."""
    file: str | None = None
    """The file the line is in, where the upload is of several files: said before the line's number."""
    unit: str | None = None
    """What numbers `line` in that file (`line`, `interaction`), said with it in place of the upload's unit, which for
    files of different units is only `item`; None for a problem of the whole file (a gzip that does not open)."""

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ProblemList(list):
    """Problems, the first `keep` in full and the rest only counted: a file of ten million bad
    lines must not cost ten million reports."""

    def __init__(self, keep: int) -> None:
        super().__init__()
        self.keep = keep
        """How many problems are kept in full."""
        self.unlisted = 0
        """Problems counted but not kept."""
        self.unlisted_lines = 0
        """Distinct lines among them, not counting the line of the last kept problem (lines arrive in
        order, so a change of line is a new one)."""
        self._last_line = -1

    def append(self, problem: Problem) -> None:
        if len(self) < self.keep:
            super().append(problem)
        else:
            self.unlisted += 1
            if problem.line != self._last_line:
                self.unlisted_lines += (problem.last or problem.line) - problem.line + 1
        self._last_line = problem.line

    def extend(self, problems) -> None:
        for problem in problems:
            self.append(problem)

    def lines(self) -> int:
        """How many lines the problems are about, the unlisted ones included."""
        covered = {(p.file, p.line): (p.last or p.line) - p.line + 1 for p in self}  # line 2 of two files: two lines
        return sum(covered.values()) + self.unlisted_lines

    def listed(self, files: tuple[str, ...] = ()) -> list[Problem]:
        """The kept problems by line, and one closing line saying how many more there were. In an upload of several
        `files`, file by file in the order they were given, each by its own lines: sorted by line alone, line 2 of the
        second file came before line 7 of the first."""
        order = {name: at for at, name in reversed(list(enumerate(files)))}  # a name given twice: its first place
        found = sorted(self, key=lambda p: (order.get(p.file, len(order)) if p.file is not None else len(order), p.line))
        if self.unlisted:
            found.append(Problem(self._last_line, f"and {plural(self.unlisted, 'more problem')} on "
                                                  f"{plural(self.unlisted_lines, 'more line')}, not listed "
                                                  f"(only the first {self.keep:,} are kept)"))
        return found


class Line(int):
    """An item's number in its own file, told that file, as importers are fed it in an upload of several files
    (lib.logs.upload). The importers of an upload read every file in turn and keep the numbers they were fed in what
    they hold until the end (a stream still open, a session's last prompt, a batch's request waiting for its result):
    what they make of it then, a call, a note or a problem, carries the number, and so the file it was read from, not
    whichever was read last. An int to every importer, which keeps it as one; a number it works out from it (the line
    after, `line + 1`; the line before, `line - 1`) is of the same file, and so told it too. The difference of two lines
    is a count of lines, a plain int."""

    def __new__(cls, number: int, file: str, unit: str) -> "Line":
        line = super().__new__(cls, number)
        line.file, line.unit = file, unit
        return line

    def __getnewargs__(self) -> tuple[int, str, str]:
        return int(self), self.file, self.unit

    def __add__(self, other: object) -> "Line | int":
        if type(other) is not int:
            return NotImplemented if not isinstance(other, int) else int(self) + other
        return Line(int(self) + other, self.file, self.unit)

    __radd__ = __add__

    def __sub__(self, other: object) -> "Line | int":
        if type(other) is not int:
            return NotImplemented if not isinstance(other, int) else int(self) - other
        return Line(int(self) - other, self.file, self.unit)


def file_of(line: int) -> str | None:
    """The file an item's number was read from, where the upload is of several files (Line); None otherwise."""
    return line.file if isinstance(line, Line) else None


def per_file(items: list, line: Any = None) -> list[list]:
    """`items` in runs of one file each, in the order each file's first came (`line` gives an item's number; the item
    itself by default): a note that counts lines of an upload of several files counts each file's on that file's line,
    not every file's on the first file's. One run where the numbers are told no file (an upload of one)."""
    runs: dict[str | None, list] = {}
    for item in items:
        runs.setdefault(getattr(item if line is None else line(item), "file", None), []).append(item)
    return list(runs.values())


class LineProblem(Exception):
    """A line that a format recognized but cannot use; the message says why, in a user's words."""


@dataclass(slots=True)
class CallRecord:
    """One model call found in a log."""

    line: int
    """The 1-based line it came from (the first line, for calls assembled from several)."""
    dialect: Dialect
    """How `request` and `response` are shaped."""
    request: dict | None
    """The request body, or None when the log kept only the response."""
    response: dict | None = None
    """The response body, or None when the log kept only the request (or the call failed)."""
    error: dict | None = None
    """`{"status": int | None, "body": ..., "message": str}` when the call failed."""
    conversation: str | None = None
    """The conversation id the format carries (trace id, conversation id, session id), if any."""
    name: str | None = None
    """An id of this one call (a batch's custom_id): it names the conversation the call opens when
    calls are chained, since one conversation's rounds carry different custom_ids."""
    joined_line: int | None = None
    """The line of the call's other half, where the format joined it from two (a batch's result, joined to its request
    on custom_id): in an upload of several files, that line's file held the call too."""
    executions: list[dict] = field(default_factory=list)
    """Native-format execution entries, when the log recorded what the program ran."""
    latency_ms: float | None = None
    """Wall time of the call, when the log has it."""
    derived: list[str] = field(default_factory=list)
    """What we worked out rather than read: `request` (the turns before this one in a transcript,
    lib.model.TRANSCRIPT_REQUEST), `response` (inferred from the next request),
    `usage` or `finish` (derived from a whole conversation), `tool calls` (parsed out of text),
    `call ids` (made up where the log has none, results paired by order)."""
    converted_from: str | None = None
    """The format whose content was converted into the dialect's shape, when it was."""
    timestamp: str | None = None
    """When the call started, for ordering calls of one conversation."""
    held_by_provider: int = 0
    """Messages of `request` the provider held rather than the program sent (see lib.model.Request)."""
    held_system: bool = False
    """The held messages begin with the system message heading `request` (see lib.model.Request.held_system)."""
    resends: list | None = None
    """The `messages` list of an earlier record's request whose very objects `request`'s messages start
    with, when the format built them so: if that record is the call before in the conversation, the
    rebuilding takes its messages over without comparing them again."""
    provenance: dict | None = None
    """The round's provenance as the native format writes it (lib.model.read_provenance), when the log
    lacks part of the call: a span whose instrumentation captured no messages."""
    cut_calls: list[int] = field(default_factory=list)
    """Positions among the response's tool calls (0-based) of the calls whose stream ended before they closed:
    their arguments are cut short by the stream, not written wrong by the model (lib.model.CUT_CALLS)."""
    streamed: bool = False
    """The response came as a stream and `response` is our assembly of its events into the unstreamed body
    (lib.model.STREAMED): what is shown of it was not received in that shape."""
    notices: list[dict] = field(default_factory=list)
    """What the writing program showed the person beside this call and never sent to the model (lib.model.NOTICES):
    each `{"by", "kind", "text", "after"}`, `after` when it came after the round rather than before its request."""
    history_cut: bool = False
    """The program cut its history before this request (a person undid turns, or it compacted): the messages past
    those it shares with the previous request are new, not rewrites of what that request held there
    (lib.model.HISTORY_CUT)."""
    compacted: bool = False
    """With `history_cut`: the cut is a compaction, the program's summary put in place of the earlier turns, not a
    person undoing turns (lib.model.COMPACTED)."""
    request_headers: dict | None = None
    """The request headers the log kept that shape the call (lib.model.REQUEST_HEADERS), `{}` where it keeps headers and
    the call sent none of those; None where the log keeps no headers."""
    from_cache: str | None = None
    """The program's own cache that answered the call in place of the provider, named (lib.model.FROM_CACHE): the
    recording says so (AutoGen's `cached` result)."""
    compaction: bool = False
    """The call asked the provider to compact the conversation (the Responses API's `/v1/responses/compact`), not
    for the model's next turn: its response is the compacted history (lib.model.COMPACTION)."""
    summary_call: bool = False
    """The program marked this call as the one asking the model to sum the conversation up for a compaction (the
    Anthropic SDK tool runner's `x-stainless-helper: compaction`): it belongs at the end of the conversation it sums up,
    whether or not a request after it goes on from the summary (lib.logs.upload._Rebuilder)."""
    compacted_in_call: bool = False
    """The provider compacted the conversation during this ordinary call (the Responses API's `context_management`):
    its response holds the compacted history beside the model's turn (lib.model.COMPACTED_IN_CALL)."""
    tools_held: bool = False
    """The request sent no tools and the provider kept the conversation's: `request`'s tools are those sent earlier
    (lib.model.TOOLS_HELD)."""
    unended: list[str] = field(default_factory=list)
    """The ids of the response's calls the program started whose end the log does not hold (a command still running
    when its output was written, and never ended in the log): lib.model.UNENDED_CALLS."""
    unended_writes: list[str] = field(default_factory=list)
    """The ids of the response's calls that ran, writing to a command left running whose end the log does not hold
    (Codex's write_stdin): lib.model.UNENDED_WRITES."""
    program_wrote: list[str] = field(default_factory=list)
    """The paths of the request's user-role texts the writing program marked as its own (lib.model.PROGRAM_WROTE):
    `messages[3].content[1]`."""
    tool_effects: dict[str, str] = field(default_factory=dict)
    """What the format knows of its program's own tools, by name: `write` (it changes something), `read` (it does
    not), or `narration` (the model's account of its work to the person, every argument its own words); the
    conversation's trace header carries them (lib.checks.is_write_tool)."""


class LogFormat:
    """Base of every importer. One instance reads one file, so it may keep state across lines."""

    name: ClassVar[str]
    """Short id, used by the format override and the CLI's `--format`."""
    title: ClassVar[str]
    """Human name for the picker."""
    reads: ClassVar[str | None] = None
    """What its rules look for, in words, said when a user forces it on a file none of whose lines it matches."""
    one_file: ClassVar[bool] = False
    """Whether what it holds between lines is one file's: a session's history in a log that is one run (a Codex
    rollout, a run's printed events). In an upload of several files each file is then read by an importer of its own,
    finished at the file's end, so that one file's history never runs on into the next file's calls of that session
    (lib.logs.upload joins or tells apart the files' conversations of one name). Formats whose halves may sit in two
    files (a batch's requests and results) keep theirs across files."""

    detect_keys: ClassVar[frozenset[str] | None] = None
    """Keys of which an object must hold one for `detect` to recognize it or change anything in the importer: detection
    does not ask the format of an object with none of them (lib.logs.upload._detect), so that a log of a format late in
    the order is not tried against every earlier one line by line. None: asked of every object."""

    def detect(self, obj: dict) -> str | None:
        """The rule that recognizes `obj` as this format, in words, or None."""
        raise NotImplementedError

    def goes_on(self, obj: dict) -> bool:
        """For a format of one file's history (`one_file`): whether a file whose first line is `obj` goes on with a run
        that another file began (one run's file cut in two), where every file of a run begins one way; False where
        the format cannot tell."""
        return False

    def continues(self, obj: dict, earlier_first: dict, earlier: bytes) -> bool:
        """For a format of one file's history (`one_file`): whether a file whose first line `obj` begins as a run
        begins (not `goes_on`) goes on nonetheless with the run in `earlier` (another file's bytes, its first line
        `earlier_first`), where their lines say so (one run's file cut at a place where a run could begin); False where
        the format cannot tell."""
        return False

    def near_miss(self, obj: dict) -> str | None:
        """Why `obj`, close to this format, is not it, in words; None when it is not close. Asked only
        when no format detects a line, so detection stays fast."""
        return None

    def chosen(self, obj: dict) -> str:
        """The rule under which this format reads `obj` when a user chose it for the whole file ("Read the file as",
        `--format`); raise LineProblem saying which of its rules `obj` fails when it is not this format's shape, so
        that a line of another format is refused, never rebuilt as if it were this one's. By default its detection
        rules: a format that reads more of its own shape when chosen (a request alone) says so in its own."""
        rule = self.detect(obj)
        if rule:
            return rule
        raise LineProblem(self.refusal(obj))

    def refusal(self, obj: dict) -> str:
        """Why `obj` is not this format's shape, in words: its near miss, or what its rules read."""
        try:
            why = self.near_miss(obj)
        except Exception:  # noqa: BLE001 - an explanation must never cost the upload
            why = None
        if why:
            return f"not read as {self.title}: {why}"
        if self.reads:
            return f"not read as {self.title}: none of its rules matches (it reads {self.reads})"
        return f"not read as {self.title}: none of its rules matches"

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        """The calls this object completes; raise LineProblem for an object this format cannot use."""
        raise NotImplementedError

    def finish(self) -> Iterator[CallRecord]:
        """Calls still buffered at the end of the file (streams, batches waiting for a partner)."""
        return iter(())

    def not_calls(self) -> int:
        """Items read whole that were no model call (a HAR file's page load, a cassette's token refresh): left
        out on purpose, counted so the upload's summary adds up."""
        return 0

    def one_body(self, begins: bool) -> None:
        """The items fed from now on (`begins`), or no longer, are the events of one HTTP response body: a file of
        server-sent events holds one answer. Formats whose chunks say where an answer ends ignore it."""

    def share_bodies(self, inflater: Any) -> None:
        """Take the upload's one budget for opening recorded gzip bodies (lib.logs.exchanges.Inflater), so that a HAR
        file and a cassette uploaded together do not each get the whole of it. Formats that open none ignore it."""

    def unread_calls(self) -> int:
        """Items that were model calls to an API no format here reads (Cohere's chat): left out, and named in a note."""
        return 0

    def not_call_spans(self) -> int:
        """Spans inside an item (an OTLP document's) that were no model call: tool and agent spans, counted as spans,
        since the one item that holds them may hold model calls too."""
        return 0

    def notes(self) -> list[Problem]:
        """What the lines read lack, said once per upload after finish(): lines that loaded, but without
        something a user would look for (spans whose instrumentation captured no messages)."""
        return []

    def skipped_later(self) -> list[Problem]:
        """Lines held back to be read after another (a Responses call waiting for the response it goes on from) that
        could not be read when their turn came, each on its own line: skipped, as a LineProblem's line is."""
        return []
