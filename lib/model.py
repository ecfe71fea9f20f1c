"""The provider-neutral model of a tool-calling trace.

A trace is a list of rounds. A round is one model call: the request the program sent, the
response the model sent back (or the error in its place), and the executions the program ran
before the next request. Provider dialects are mapped onto these types only in lib/dialects/.

No SDK and no Streamlit here: these are plain values.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, Union

from lib.lessons import Lesson

JSON = Any
"""A value as json.loads returns it."""

Role = str
"""system, developer, user, assistant or tool: the role as the dialect names it."""

Dialect = Literal["openai-chat", "anthropic-messages"]
"""How a trace's raw bodies are shaped."""

Stop = Literal["tool_calls", "end", "length", "content_filter", "refusal", "other"]
"""The normalized reason a response stopped."""


def built_fast(cls: type) -> type:
    """Give a frozen slots dataclass an `__init__` that sets each slot through its descriptor.

    A frozen dataclass's own `__init__` sets every field with `object.__setattr__(self, name, value)`,
    which costs about three times an unfrozen one's; reading a log builds hundreds of thousands of
    these objects (a message part is 1 to 2 µs), so the hot ones are built this way. The instances
    are the same and stay frozen: only the constructor is quicker. Same parameters, same defaults."""
    if hasattr(cls, "__post_init__") or any(found.kw_only is True for found in fields(cls)):
        # The constructor below would skip a __post_init__ and take keyword-only fields by position.
        raise TypeError(f"built_fast cannot build {cls.__name__}: it has a __post_init__ or keyword-only fields")
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    parameters, lines = [], []
    for number, found in enumerate(fields(cls)):
        namespace[f"_set{number}"] = cls.__dict__[found.name].__set__
        if found.default is not MISSING:
            namespace[f"_default{number}"] = found.default
            parameters.append(f"{found.name}=_default{number}")
        elif found.default_factory is not MISSING:
            namespace[f"_make{number}"] = found.default_factory
            parameters.append(f"{found.name}=_FACTORY")
            lines.append(f"if {found.name} is _FACTORY: {found.name} = _make{number}()")
        else:
            parameters.append(found.name)
        lines.append(f"_set{number}(self, {found.name})")
    exec(f"def __init__(self, {', '.join(parameters)}):\n    " + "\n    ".join(lines), namespace)  # noqa: S102 - our own field names
    namespace["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    namespace["__init__"].__module__ = cls.__module__
    cls.__init__ = namespace["__init__"]
    return cls


_FACTORY = object()
"""Stands for a field whose default is made per instance, not given."""


# --- message parts ---------------------------------------------------------------------------


@built_fast
@dataclass(frozen=True, slots=True)
class TextPart:
    """Text written by a person, the program or the model."""

    text: str
    """The text itself."""
    path: str = ""
    """Where this part sits inside its raw message, e.g. `content` or `content[0]`."""
    kind: Literal["text"] = "text"
    """Tag for matching on the part type."""


@built_fast
@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """The model's request that the program run a tool: the call intent."""

    id: str
    """The call id the result must carry back (`tool_calls[].id` / `tool_use.id`)."""
    name: str
    """The tool the model asked for."""
    arguments_raw: str
    """The arguments as the model wrote them (OpenAI: a JSON string; Anthropic: the input as JSON)."""
    arguments: JSON | None
    """The arguments parsed, or None when they do not parse."""
    arguments_error: str | None = None
    """Why the arguments did not parse, or None."""
    path: str = ""
    """Where this part sits inside its raw message, e.g. `tool_calls[1]`."""
    kind: Literal["tool-call"] = "tool-call"
    """Tag for matching on the part type."""


@built_fast
@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """What the program sent back to the model for one call."""

    call_id: str
    """The id of the call this answers (`tool_call_id` / `tool_use_id`)."""
    content: str
    """The result as the model reads it, flattened to text."""
    is_error: bool = False
    """True when the program marked the result as a failure."""
    path: str = ""
    """Where this part sits inside its raw message, e.g. `content[0]` or `` for a tool message."""
    kind: Literal["tool-result"] = "tool-result"
    """Tag for matching on the part type."""


@built_fast
@dataclass(frozen=True, slots=True)
class OtherPart:
    """Any part we do not model (thinking, images, server tools), kept raw."""

    type: str
    """The part's own type name, e.g. `thinking` or `image_url`."""
    raw: JSON
    """The part exactly as it was in the payload."""
    path: str = ""
    """Where this part sits inside its raw message."""
    kind: Literal["other"] = "other"
    """Tag for matching on the part type."""


Part = Union[TextPart, ToolCallPart, ToolResultPart, OtherPart]
"""One piece of a message."""


def summary_in_clear(part: Any) -> str | None:
    """The summary a `compaction` part holds as plain text (Anthropic's compaction block: the summary of the earlier
    turns the model wrote when the provider compacted the history, under `content`); None for any other part, the
    Responses API's compaction item included, whose history is `encrypted_content` no one can read here."""
    if type(part) is not OtherPart or part.type != "compaction" or not isinstance(part.raw, dict):
        return None
    content = part.raw.get("content")
    return content if isinstance(content, str) and "encrypted_content" not in part.raw else None


def spoken(message: Any) -> tuple[OtherPart, str | None] | None:
    """A spoken answer's part and its transcript (None where the log keeps none), or None for a message that holds no
    sound: the dialect keeps the answer's audio as an `audio` part (Chat Completions' `message.audio`: its sound, id
    and transcript) where `content` is null, so the message holds no text but is not an empty answer."""
    for part in getattr(message, "parts", ()):
        if type(part) is OtherPart and part.type == "audio" and isinstance(part.raw, dict):
            said = part.raw.get("transcript")
            return part, said if isinstance(said, str) and said.strip() else None
    return None


@built_fast
@dataclass(frozen=True, slots=True, eq=False)
class Message:
    """One entry of the messages array (or the system prompt), interned by content.

    Two messages with the same `key` are the same message: the trace reader stores each once and
    every round that resends it refers to that one object. Equality is by key.
    """

    role: Role
    """Who the message is from, as the dialect names it."""
    parts: tuple[Part, ...]
    """The message content, split into parts."""
    raw: JSON
    """The message exactly as it appeared in the request or response."""
    key: str
    """Digest of `raw`'s canonical JSON as the model reads it (lib.dialects.common.read_form: cache breakpoints set
    aside, a lone text block as its string): identical messages have identical keys."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def text(self) -> str:
        """All text parts joined, for display and token counts."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The call intents in this message."""
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    @property
    def tool_results(self) -> tuple[ToolResultPart, ...]:
        """The tool results in this message."""
        return tuple(p for p in self.parts if isinstance(p, ToolResultPart))


# --- tools, usage, executions ----------------------------------------------------------------


@built_fast
@dataclass(frozen=True, slots=True, eq=False)
class ToolDefinition:
    """One tool as the request describes it to the model."""

    name: str
    """The name the model calls it by."""
    description: str
    """The text the model reads to decide when to call it."""
    parameters: JSON
    """The JSON schema of its arguments."""
    raw: JSON
    """The definition exactly as sent."""
    key: str
    """Canonical JSON of `raw`."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolDefinition) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def built_in_type(self) -> str | None:
        """The type a built-in tool is offered by alone, nameless (the Responses API's `{"type": "apply_patch"}`,
        Gemini's `codeExecution`): its calls are named for that type. None for a tool with a name of its own."""
        kind = self.raw.get("type") if not self.name and isinstance(self.raw, dict) else None
        return kind if isinstance(kind, str) else None

    @property
    def shown_name(self) -> str:
        """What the tool is called where its name is shown: its name, or a built-in tool's type."""
        return self.name or self.built_in_type or ""


@built_fast
@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one round cost, normalized across providers."""

    input_tokens: int
    """All input tokens, cached ones included (OpenAI's prompt_tokens; Anthropic's three input fields added)."""
    output_tokens: int
    """Tokens the model generated, reasoning included."""
    source: Literal["reported", "estimated"]
    """`reported` by the API, or `estimated` by us with tiktoken. Never mix the two silently."""
    cache_read_tokens: int = 0
    """Input tokens served from the prompt cache."""
    cache_write_tokens: int = 0
    """Input tokens written to the prompt cache (Anthropic)."""
    reasoning_tokens: int | None = None
    """Of output_tokens, those spent on hidden reasoning; None where the usage counts none apart (Anthropic's
    output_tokens hold the thinking with no field of its own; an estimate), never a 0 that would say none was spent."""
    anchor_round: int | None = None
    """For an estimate: the round with reported usage whose input count it is offset from."""
    method: str | None = None
    """For an estimate: the tokenizer counted with, or `characters` for the rule of thumb."""
    cache_write_1h_tokens: int = 0
    """Of cache_write_tokens, those written to the cache for an hour (Anthropic's
    `cache_creation.ephemeral_1h_input_tokens`, as Claude Code writes it), billed at a higher rate than 5 minutes'."""
    other_model_calls: tuple["OtherModelCall", ...] = ()
    """Calls the provider made to another model inside this one (Anthropic's advisor tool, `usage.iterations`'
    `advisor_message`): billed at that model's rates, so never added to the counts above; priced apart
    (lib.prices.call_cost)."""


@dataclass(frozen=True, slots=True)
class OtherModelCall:
    """A call to another model the provider made inside a round, and what it used."""

    model: str | None
    """The model it called (`claude-opus-4-7`); None where the usage names none."""
    usage: Usage
    """Its own tokens, billed at its model's rates."""


REFUSED_NOTE = "refused before running"
"""How an execution's note opens when the program refused the call before any handler ran (Execution.refused)."""


@built_fast
@dataclass(frozen=True, slots=True)
class Execution:
    """What the program did for one call between a response and the next request."""

    tool_call_id: str
    """The call this executes."""
    name: str
    """The handler's tool name."""
    arguments: JSON
    """The arguments the handler received."""
    output: JSON
    """What the handler returned."""
    ok: bool = True
    """False when the handler failed or the arguments were rejected."""
    duration_ms: float | None = None
    """How long the handler ran, when recorded."""
    approval: Literal["approved", "declined"] | None = None
    """A person's decision for tools that need consent."""
    note: str | None = None
    """Checks, overrides or retries the program recorded."""
    overrides: dict | None = None
    """Arguments the program replaced with its own values (name -> value used), e.g. identity from the session."""
    raw: JSON = None
    """The execution entry exactly as in the trace file."""

    @property
    def refused(self) -> bool:
        """Whether the program refused the call before any handler ran (an unknown tool, arguments its schema
        rejects, a repeated id): nothing received the arguments, and the output is the program's own answer."""
        return not self.ok and (self.note or "").startswith(REFUSED_NOTE)


# --- provenance --------------------------------------------------------------------------------

Origin = Literal["recorded", "completed", "constructed", "derived"]
"""Where a payload came from: recorded as sent, completed from a partial record, constructed for
teaching, or derived (inferred) by an importer."""

ORIGINS = ("recorded", "completed", "constructed", "derived")
"""Every origin, in the order docs/trace-format.md lists them."""

TRANSCRIPT_REQUEST = "request"
"""The `derived` entry of a round cut out of a transcript: its request is the turns before it, not a
request the log recorded (fine-tuning lines, ShareGPT, agent trajectories)."""

MADE_UP_IDS = "call ids"
"""The `derived` entry of a round whose provider sent its calls without ids (Gemini, Ollama, transcripts): the ids are
made up from each call's place, and results paired by order."""

AGENT_READ_CALLS = "tool calls read by the agent from the text"
"""The `derived` entry of a round whose program (Cline, Roo Code) had the model write its calls as tags in its text
and read them out of it itself: the text reached the program whole, so none of it beside the calls can be lost."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a trace's or a round's payload came from, and what in it is not as recorded."""

    origin: Origin
    """recorded, completed, constructed or derived."""
    note: str = ""
    """In words: what was added, reconstructed or inferred."""
    omitted: tuple[str, ...] = ()
    """What the real request carried that this record lacks (e.g. `response_format`)."""
    sent: tuple[str, ...] = ()
    """Of `omitted`, what the writing agent sends with every request, a fact of the agent rather than of this log
    (Codex's and Gemini CLI's tool lists): said to have been sent, where the record alone could not tell."""


CUT_CALLS = "cut_calls"
"""The round key listing, by position among the response's tool calls, the calls whose stream ended before they
closed (a stream reader saw no finish chunk, no content_block_stop): their arguments are cut short by the stream."""
AWAITING = "awaiting_approval"
"""The round key a live run writes while the call it names waits for a person's Approve or Decline, and removes once
decided: a copy of the trace taken meanwhile (opened in the explorer, downloaded) says the call waited, not that its
execution is missing."""
STREAMED = "streamed"
"""The round key saying its response came as a stream: the body shown is assembled from the stream's events into the
one the API returns unstreamed, not a body the program received."""

HISTORY_CUT = "history_cut"
"""The round key of a request the program sent after cutting its history (a person undoing turns, or a compaction:
COMPACTED): how many leading messages of the previous request it kept; every message after those is new, and the rest
of that request dropped (Round.history_cut)."""
COMPACTED = "compacted"
"""The round key saying the program cut its history before this request by compacting it: it put a summary it wrote
in place of the earlier turns, as an agent does to keep a long session within the context window (Round.compacted),
rather than a person undoing turns."""

COMPACTION = "compaction"
"""The round key saying its request asked the provider to compact the conversation (the Responses API's
`/v1/responses/compact`), not for the model's next turn: its response is the compacted history the provider returned,
which the program sends in place of the earlier turns from then on (Round.compaction)."""

SUMMARY_CALL = "summary_call"
"""The round key saying its request asked the model to sum the conversation up for the program's compaction (the
Anthropic SDK tool runner's summary call, `x-stainless-helper: compaction`): its answer is a summary the program sends
in place of the history from then on, no turn of the conversation (Round.summary_call)."""

COMPACTED_IN_CALL = "compacted_in_call"
"""The round key saying the provider compacted the conversation during this ordinary call (the Responses API's
`context_management` with a `compact_threshold`): its response holds, beside the model's turn, the compacted history,
an encrypted item the model did not write (Round.compacted_in_call)."""

TOOLS_HELD = "tools_held"
"""The round key of a request that sent no tools of its own while the provider kept the conversation's (Gemini's
Interactions API under `previous_interaction_id`): the tools shown are those sent earlier, not this request's
(Round.tools_held)."""

FROM_CACHE = "from_cache"
"""The round key of a call the program's own cache answered in place of the provider (AutoGen's ChatCompletionCache,
its recorder marking the result `cached`): the cache's key (lib.provenance.CACHES). The response is a copy of an
answer the model gave an earlier request alike; no provider saw this one (RoundSummary.sent), so its usage is that
earlier call's, billed then."""

SENT_ON = "sent_on"
"""The round key of a call whose request sent the conversation on to another provider's API, in that API's own format
(pydantic-ai's message_history passed from gpt-5 to Claude): `{"api": the format it was sent in (a log format's key), "notes":
what writing it in the conversation's own dialect left out or filled in (none where its own format's reader read it)}`. The program wrote the earlier turns over in that
format, so what the model wrote comes back as that API carries it (thinking as text, or not at all)."""

PROGRAM_WROTE = "program_wrote"
"""The round key listing the texts of its request that the writing program marked as its own though it sent them in the
user's role (Claude Code's `isMeta` lines: a skill's body, an image reference, its automatic "continue"): each the
path of a text part, `messages[3].content[1]` (lib.injected.program_parts). Drawn as the program's words, not the
person asking."""

UNENDED_CALLS = "unended_calls"
"""The round key listing the ids of the response's calls whose run the log says the program started (their output so
far came back while the command was still running) and whose end is not in the log: neither success nor failure is
claimed for them (Round.unended_calls)."""
UNENDED_WRITES = "unended_writes"
"""The round key listing the ids of the response's calls that wrote to (or polled) a command the program had left
running, Codex's write_stdin: each call ran and its output so far came back, and the end of the command it wrote to is
not in the log; neither success nor failure is claimed for it (Round.unended_writes)."""

KEPT_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta", "x-stainless-helper",
                "x-stainless-helper-method", "x-stainless-stream-helper")
"""The request headers a log may keep for a round and a fork resends (lower case): those that change what the provider
does with the call (the API version, beta features, the SDK helper that made it), none of them a secret. An allow-list,
not a deny-list: a header not on it (a gateway's own key under a name of its choosing) is never written by the recording
proxy (lib.capture.proxy), never read from a log, never sent by a fork."""

LOOKS_SECRET = ("key", "token", "secret", "auth", "cookie", "password", "session")
"""Words in a header's name that mark it a credential: never kept, whatever KEPT_HEADERS says."""

SECRET_PREFIXES = ("sk-", "sk_", "bearer ", "basic ", "eyj")
"""How a credential's value begins (OpenAI's and Anthropic's keys, an Authorization scheme, a JWT): a header on
KEPT_HEADERS whose value begins so is dropped."""


def shaping_headers(headers, secrets: tuple[str, ...] = ()) -> dict[str, str]:
    """The request headers of `headers` (any mapping, names in any case) that shape a call and may be kept, sent again
    and shown: those on KEPT_HEADERS with a text value, names in lower case, less any whose name or value looks like a
    credential or holds one of `secrets` (docs/security.md: keys are never written anywhere)."""
    # Each name looked up once: most calls send none of the kept headers, and an import asks this of every call.
    lowered = {name: value for key, value in headers.items() if (name := str(key).lower()) in _KEPT}
    kept = {}
    for name in _SAFE_NAMES:
        value = lowered.get(name)
        if not isinstance(value, str):
            continue
        if value.strip().lower().startswith(SECRET_PREFIXES) or any(len(s) >= 8 and s in value for s in secrets):
            continue
        if "\r" in value or "\n" in value:  # a header cannot hold a line break: no value smuggles in another header
            continue
        kept[name] = value
    return kept


_SAFE_NAMES = tuple(name for name in KEPT_HEADERS if not any(word in name for word in LOOKS_SECRET))
"""KEPT_HEADERS less any name that looks like a credential's, should one be added to the list: never kept."""
_KEPT = frozenset(_SAFE_NAMES)
"""The same names as a set, to look each of a call's header names up once."""


REQUEST_HEADERS = "request_headers"
"""The round key holding the request headers the log kept that shape the call and are no secret (the recording proxy's
allow-list, KEPT_HEADERS: `anthropic-beta`, `openai-beta`, ...): `{name in lower case: value}`, `{}`
where the log keeps headers and this call sent none of those. Absent where the log keeps no headers (Round.request_headers).
A fork resends them."""

HEADERS_NAME = "request headers"
"""What the request headers a log kept for a round (Round.request_headers) are called above them, on every view that
shows a request: the explorer's card, presenter mode's request step, the HTML file."""
HEADERS_SAID = "sent beside the body; only those that shape the call are kept, never a key"
"""Said beside HEADERS_NAME: what these headers are, and that they are not all the call sent."""
NO_HEADERS = ("No request headers kept for this call: it sent none of those a capture keeps (the Watch page's sidebar "
              "and docs/capture.md list them). A fork sends none either.")
"""Said where a round's log keeps headers but this call sent none of those it keeps, on every view that shows a
request: the names are said once, on the Watch page, not on every such round."""


def headers_text(headers: dict[str, str]) -> str:
    """Request headers (Round.request_headers) as every view shows them, as text: one `name: value` a line."""
    return "\n".join(f"{name}: {value}" for name, value in headers.items())


NOTICES = "notices"
"""The round key listing what the writing program showed the person beside the call and never sent to the model (a
CLI's "Request cancelled."): each `{"by", "kind", "text", "after"}` (Round.notices)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A message the writing program showed the person, kept in its log between the turns: never sent to the model."""

    by: str
    """The program that showed it: `Gemini CLI`."""
    kind: str
    """Its kind in the log's words: `info`, `warning`, `error`."""
    text: str
    """What it said, as the log keeps it (untrusted: shown as text)."""
    after: bool
    """True when it came after the round's response (how the session ended), False when before its request."""


TOOLS_IN_PROMPT = "tool list (read from the system prompt)"
"""A round's `derived` entry saying its tool definitions were read out of the system prompt's text (a Hermes
`<tools>` block), not sent as a tools field: the model got them once, inside the instructions."""

RECORDED = Provenance("recorded")
"""What a payload with no stated provenance is taken to be: as the log recorded it."""


def read_provenance(raw: JSON) -> Provenance | None:
    """A `provenance` object of the native format, or None when absent or not understood."""
    if not isinstance(raw, dict) or raw.get("origin") not in ORIGINS:
        return None
    note = raw.get("note")
    omitted = raw.get("omitted")
    sent = raw.get("sent")
    return Provenance(
        origin=raw["origin"],
        note=note if isinstance(note, str) else "",
        omitted=tuple(str(x) for x in omitted) if isinstance(omitted, list) else (),
        sent=tuple(str(x) for x in sent) if isinstance(sent, list) else (),
    )


# --- one round ---------------------------------------------------------------------------------


@built_fast
@dataclass(frozen=True, slots=True)
class Request:
    """What the program sent to the model in one round."""

    messages: tuple[Message, ...]
    """The messages array as sent, oldest first (OpenAI: system included)."""
    system: Message | None
    """A top-level system prompt (Anthropic's `system`), or None."""
    tools: tuple[ToolDefinition, ...]
    """The tool list sent with this request."""
    model: str | None
    """The model asked for."""
    raw: JSON
    """The request body; its messages and tools are the interned raw objects, not copies."""
    held_by_provider: int = 0
    """How many of `messages`, right after the system message the request itself sent (if any), the program
    did not send: the provider held them under `previous_response_id` or a conversation id, and they are
    reconstructed here from the earlier rounds."""
    held_system: bool = False
    """True when the system message heading `messages` is itself one of the held ones, not sent by this request (the
    first input of the chain held under `previous_response_id`, a conversation created with it)."""
    output_schema: JSON | None = None
    """The schema the answer must follow (structured output), as the request sent it; None where it asked for none."""


@built_fast
@dataclass(frozen=True, slots=True)
class Response:
    """What the model sent back in one round."""

    message: Message
    """The assistant message: text and call intents."""
    finish_reason: str | None
    """The stop signal as the provider wrote it (`finish_reason` / `stop_reason`)."""
    stop: Stop | None
    """The stop signal normalized."""
    usage: Usage | None
    """Usage as the API reported it, or None when it reported none."""
    model: str | None
    """The model that answered."""
    raw: JSON
    """The response body as received."""
    message_path: str
    """JSON path of the assistant message in `raw`, e.g. `choices[0].message`."""
    finish_reason_path: str | None
    """JSON path of the stop signal in `raw`, or None when the body has none."""

    @property
    def stopped_short(self) -> bool:
        """The model stopped for another reason than ending its answer or asking for tools (its length limit, a
        filter, a stop signal not known): the response answers nothing."""
        return self.stop not in (None, "end", "tool_calls")


STREAM_ENDED = "stream_ended"
"""The key of a failure's record (ProviderError.body) that says an error event ended a streamed answer: its value is
{"http_status": the status the stream began under, or None where the log kept none}."""


UNDECODED = "undecoded"
"""The key of a failure's record (ProviderError.body) that says its response body came in an encoding not decoded here
(`content-encoding: br` where no brotli module is installed): its value is the encoding's name. The body's words are
then not known, which is not the same as a body that was empty."""
UNDECODED_NAMES = {"br": "brotli"}
"""The content encodings UNDECODED may name, by their header value: the compression's name."""


@built_fast
@dataclass(frozen=True, slots=True)
class ProviderError:
    """A model call that failed instead of answering."""

    status: int | None
    """HTTP status, or None when none was recorded (a connection that failed, or a log that kept no status)."""
    message: str
    """A readable summary of what the provider said."""
    body: JSON
    """The error body as received."""

    @property
    def rejected_generation(self) -> str | None:
        """The output an OpenAI-compatible provider rejected (`error.failed_generation`), where the body carries it."""
        body = self.body
        for _ in range(3):  # the log's error record, the provider's body, its `error`
            if not isinstance(body, dict):
                return None
            if isinstance(body.get("failed_generation"), str):
                return body["failed_generation"]
            body = body.get("body") if "body" in body else body.get("error")
        return None

    @property
    def ended_stream(self) -> bool:
        """Whether an error event ended an answer that had begun streaming (STREAM_ENDED): `status` is then the one the
        event names, not the HTTP status of the answer."""
        return isinstance(self.body, dict) and isinstance(self.body.get(STREAM_ENDED), dict)

    @property
    def undecoded(self) -> str | None:
        """The content encoding of a response body that was not decoded (UNDECODED), one of UNDECODED_NAMES, or None."""
        encoding = self.body.get(UNDECODED) if isinstance(self.body, dict) else None
        return encoding if isinstance(encoding, str) and encoding in UNDECODED_NAMES else None

    @property
    def stream_status(self) -> int | None:
        """Where an error event ended a streamed answer, the HTTP status the answer began under; None where the log kept
        none, or the failure was no such event."""
        status = self.body.get(STREAM_ENDED, {}).get("http_status") if self.ended_stream else None
        return status if isinstance(status, int) and not isinstance(status, bool) else None


@built_fast
@dataclass(frozen=True, slots=True)
class Round:
    """One model call and what the program did after it."""

    index: int
    """1-based position in the trace."""
    request: Request
    """What was sent."""
    response: Response | None
    """What came back, or None on error or while in flight."""
    error: ProviderError | None
    """Why the call failed, or None."""
    executions: tuple[Execution, ...]
    """Tools the program ran after this response, before the next request."""
    latency_ms: float | None
    """Wall time of the model call, when recorded."""
    resent_prefix: int = 0
    """How many leading messages are the very same as the previous request's: resent unchanged."""
    extra: dict = field(default_factory=dict)
    """Keys of the round line we do not model, kept so writing loses nothing."""

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The call intents this round's response made."""
        return self.response.message.tool_calls if self.response else ()

    def execution_of(self, call_id: str) -> Execution | None:
        """What the trace records the program did for the call `call_id`; None when it records nothing: a plain
        API log holds the model's calls, never what the program ran, so it cannot say whether or how it ran."""
        return next((e for e in self.executions if e.tool_call_id == call_id), None)

    @property
    def executions_recorded(self) -> bool:
        """Whether the trace says what the program ran after this response (any execution kept for it)."""
        return bool(self.executions)

    @property
    def history_cut(self) -> int | None:
        """How many leading messages of the previous request this one kept where the program cut its history before
        it (HISTORY_CUT); None where it did not."""
        kept = self.extra.get(HISTORY_CUT)
        return kept if isinstance(kept, int) and not isinstance(kept, bool) and kept >= 0 else None

    @property
    def compacted(self) -> bool:
        """Whether the program cut its history before this request by compacting it (COMPACTED): the messages it
        dropped are replaced by a summary it wrote, not rewritten by a person."""
        return self.extra.get(COMPACTED) is True and self.history_cut is not None

    @property
    def from_cache(self) -> str | None:
        """The program's cache that answered this round in place of the provider (FROM_CACHE), or None."""
        cache = self.extra.get(FROM_CACHE)
        return cache if isinstance(cache, str) and cache else None

    @property
    def compaction(self) -> bool:
        """Whether this round's request asked the provider to compact the conversation (COMPACTION): its response is
        the compacted history, no turn of the model's."""
        return self.extra.get(COMPACTION) is True

    @property
    def summary_call(self) -> bool:
        """Whether this round asked the model to sum the conversation up for the program's compaction (SUMMARY_CALL):
        its answer is the summary the program sends in place of the history, no turn of the conversation."""
        return self.extra.get(SUMMARY_CALL) is True

    @property
    def compacted_in_call(self) -> bool:
        """Whether the provider compacted the conversation during this call (COMPACTED_IN_CALL): beside the model's
        turn its response holds the compacted history, no words of the model's."""
        return self.extra.get(COMPACTED_IN_CALL) is True

    @property
    def request_headers(self) -> dict[str, str] | None:
        """The request headers the log kept for this call (REQUEST_HEADERS), names in lower case; None where the log
        keeps no headers, so nothing is known of what the program sent beside the body."""
        kept = self.extra.get(REQUEST_HEADERS)
        if not isinstance(kept, dict):
            return None
        return shaping_headers(kept)

    @property
    def tools_held(self) -> bool:
        """Whether the request's tools are the ones the provider kept from earlier in the conversation, not sent with
        it (TOOLS_HELD)."""
        return self.extra.get(TOOLS_HELD) is True

    @property
    def sent_on(self) -> str | None:
        """The format this call's request sent the conversation on in, where that is not the conversation's own
        (SENT_ON): a format's key (`anthropic-messages`, `openai-responses`; the trace's text where a file carried
        it); None where it did not."""
        kept = self.extra.get(SENT_ON)
        api = kept.get("api") if isinstance(kept, dict) else None
        return api if isinstance(api, str) and api else None

    @property
    def sent_on_notes(self) -> tuple[str, ...]:
        """What writing a call sent on in another API's format (SENT_ON) in the conversation's own left out or filled
        in (lib.dialects.convert's notes; the trace's text where a file carried them)."""
        kept = self.extra.get(SENT_ON)
        notes = kept.get("notes") if isinstance(kept, dict) and self.sent_on else None
        return tuple(n for n in notes if isinstance(n, str)) if isinstance(notes, list) else ()

    @property
    def notices(self) -> tuple[Notice, ...]:
        """What the writing program showed the person before this round's request or after it (NOTICES)."""
        kept = self.extra.get(NOTICES)
        if not isinstance(kept, list):
            return ()
        return tuple(Notice(str(n.get("by") or "the program"), str(n.get("kind") or ""), n["text"],
                            n.get("after") is True)
                     for n in kept if isinstance(n, dict) and isinstance(n.get("text"), str))

    @property
    def cut_calls(self) -> tuple[ToolCallPart, ...]:
        """The calls whose stream ended before they closed (CUT_CALLS): cut short, not written wrong by the model."""
        calls, positions = self.tool_calls, self.extra.get(CUT_CALLS) or ()
        return tuple(calls[p] for p in positions if type(p) is int and 0 <= p < len(calls))

    @property
    def unended_calls(self) -> frozenset[str]:
        """The ids of the calls the program started whose end is not in the log (UNENDED_CALLS)."""
        return self._call_ids(UNENDED_CALLS)

    @property
    def unended_writes(self) -> frozenset[str]:
        """The ids of the calls that ran, writing to a running command whose end is not in the log (UNENDED_WRITES)."""
        return self._call_ids(UNENDED_WRITES)

    def _call_ids(self, key: str) -> frozenset[str]:
        """The call ids a round key lists; none where it lists none or is not a list."""
        kept = self.extra.get(key)
        return frozenset(c for c in kept if isinstance(c, str)) if isinstance(kept, list) else frozenset()

    @property
    def request_recorded(self) -> bool:
        """False when the log held no request for this call (bare responses, chunk-only streams, batch output
        alone): a real request carries at least one message, so an empty one is a request the log did not keep."""
        request = self.request
        return bool(request.messages) or request.system is not None or bool(request.tools)

    @property
    def answer_recorded(self) -> bool:
        """False when the log kept none of the model's turn: an empty assistant turn in a round completed from a
        partial record (a span without content capture keeps the model, token counts and finish, not the words)."""
        response, provenance = self.response, self.provenance
        return (response is None or bool(response.message.parts) or provenance is None
                or provenance.origin != "completed")

    @property
    def request_from_transcript(self) -> bool:
        """True when the importer cut this request out of a transcript (the turns before this one): no request
        with exactly this history is on record as sent."""
        return TRANSCRIPT_REQUEST in (self.extra.get("derived") or ())

    @property
    def call_ids_made_up(self) -> bool:
        """True when the provider sent this round's calls without ids and the importer named them by place."""
        return MADE_UP_IDS in (self.extra.get("derived") or ())

    @property
    def calls_read_by_agent(self) -> bool:
        """True when the program read this round's calls out of the model's text itself (AGENT_READ_CALLS)."""
        return AGENT_READ_CALLS in (self.extra.get("derived") or ())

    @property
    def provenance(self) -> Provenance | None:
        """The round's own provenance: stated on its line, or what an importer says it derived."""
        stated = read_provenance(self.extra.get("provenance"))
        if stated is not None:
            return stated
        derived = self.extra.get("derived")
        if derived:
            return Provenance("derived", "inferred by the importer: " + ", ".join(derived))
        return None


@dataclass(frozen=True, slots=True)
class Trace:
    """A whole recorded conversation, round by round."""

    title: str
    """A short human title."""
    dialect: Dialect
    """How the raw bodies are shaped."""
    rounds: tuple[Round, ...]
    """The model calls in order."""
    model: str | None = None
    """The model named in the header."""
    description: str = ""
    """One paragraph for the trace picker."""
    header: dict = field(default_factory=dict)
    """The header line as read (unknown keys included)."""
    annotations: tuple[dict, ...] = ()
    """Annotation lines, kept as read."""
    unique_messages: int = 0
    """How many distinct messages the trace holds after interning."""
    lessons: tuple[Lesson, ...] = ()
    """The author's "what to notice" callouts, by round and step, as the file gives them."""

    @property
    def provenance(self) -> Provenance:
        """Where the trace as a whole came from (the header's `provenance`); recorded when unstated."""
        return read_provenance(self.header.get("provenance")) or RECORDED

    def round_provenance(self, round_: Round) -> Provenance:
        """Where one round's payload came from: its own provenance, else the trace's."""
        return round_.provenance or self.provenance
