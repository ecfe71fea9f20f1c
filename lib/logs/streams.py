"""Streamed responses logged event by event: Chat Completions chunks and Anthropic stream events.

A stream's pieces arrive on many lines; each format assembles them into the body the API would
have returned without streaming, so the rest of the app sees an ordinary response.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.coerce import shown
from lib.dialects import ANTHROPIC, OPENAI, openai_chat
from lib.logs.chat_shape import as_int, chat_completion, describe, iso_time, object_at, require, tool_call
from lib.logs.record import CallRecord, LineProblem, LogFormat, per_file
from lib.model import STREAM_ENDED

KEEPALIVE = "keepalive"
"""The type of the event some servers send into a long stream to keep the connection open (OpenAI's Responses API,
OpenAI-compatible proxies): `{"type": "keepalive"}`, at most with a `sequence_number`. It carries nothing of the
answer."""


def is_keepalive(event: Any) -> bool:
    """Whether a stream's event is a keep-alive, to be passed over as a comment line is."""
    return isinstance(event, dict) and event.get("type") == KEEPALIVE


# --- OpenAI Chat Completions chunks -------------------------------------------------------------


def _usage_of(chunk: dict) -> dict | None:
    """The usage a chunk reports: `usage`, or Groq's `x_groq.usage`, which its last chunk carries instead (the usage
    object of Groq's unstreamed answer, timings and all)."""
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        return usage
    groq = chunk.get("x_groq")
    usage = groq.get("usage") if isinstance(groq, dict) else None
    return usage if isinstance(usage, dict) else None


def is_tgi_chunk(obj: dict) -> bool:
    """Whether a line is a Chat Completions chunk as Hugging Face's Text Generation Inference 1.x streamed it from its
    OpenAI-compatible `/v1/chat/completions`: `object: "text_completion"` (a legacy completion's name), its choices
    holding a `delta` as a chunk's do, where a legacy completion's hold `text`."""
    choices = obj.get("choices")
    return obj.get("object") == "text_completion" and isinstance(choices, list) and bool(choices) \
        and all(isinstance(choice, dict) and isinstance(choice.get("delta"), dict) for choice in choices)


REASONING_KEYS = ("reasoning_content", "reasoning")
"""Delta keys of the model's reasoning: DeepSeek's and vLLM's `reasoning_content`, OpenRouter's `reasoning`."""


@dataclass
class _ChoiceStream:
    """One choice of one streamed completion, as its chunks arrive."""

    line: int
    """The line of its first chunk."""
    head: dict
    """id, created, model and system_fingerprint from the first chunk."""
    index: int
    """The choice index."""
    content: list[str] = field(default_factory=list)
    """Text fragments, in order."""
    reasoning: dict[str, list[str]] = field(default_factory=dict)
    """Reasoning fragments some OpenAI-compatible servers stream beside the text, by the key they name it with
    (REASONING_KEYS), each kept apart: a server may send the same text under both."""
    refusal: list[str] = field(default_factory=list)
    """Refusal fragments."""
    calls: dict[int, dict] = field(default_factory=dict)
    """Tool calls by their fragment `index`: id, name and argument fragments."""
    function_call: dict[str, list[str]] = field(default_factory=dict)
    """The legacy `function_call` (before tool_calls; LangChain's OpenAI functions agent): name and argument
    fragments."""
    audio_id: str | None = None
    """A spoken answer's id (`delta.audio.id`), by which the program sends it back."""
    transcript: list[str] = field(default_factory=list)
    """A spoken answer's transcript fragments (`delta.audio.transcript`), in order; its sound is not kept."""
    finish_reason: str | None = None
    """The choice's finish_reason; stays None when the stream was cut off."""
    usage: dict | None = None
    """Usage from the stream's chunks (kept on choice 0 only: it counts the whole call)."""
    request: dict | None = None
    """The request body, when a logged chunk line carried it."""


class OpenAIChatStreamFormat(LogFormat):
    """`chat.completion.chunk` lines, assembled per completion id and choice into chat.completion bodies."""

    name = "openai-chat-stream"
    title = "OpenAI Chat Completions stream"
    reads = "chunks of 'object': 'chat.completion.chunk'"

    def __init__(self, one_completion: bool = False) -> None:
        self._streams: dict[tuple[str, int], _ChoiceStream] = {}
        self._one_completion = one_completion
        """Whether every chunk fed belongs to one completion whatever its id: the chunks of one HTTP response body,
        where a proxy may write its own first chunk (Avian's `chatcmpl-...` before OpenRouter's `gen-...` chunks)."""
        self._body: str | None = None
        """The completion every chunk joins while a file of server-sent events (one HTTP body) is read."""
        self._bodies = 0
        self._ended: set[str] = set()
        """The completions a usage chunk has ended, by the key their chunks are joined under."""

    def one_body(self, begins: bool) -> None:
        self._bodies += begins
        self._body = f"server-sent events {self._bodies}" if begins else None

    def detect(self, obj: dict) -> str | None:
        if obj.get("object") == "chat.completion.chunk":
            return "object is 'chat.completion.chunk'"
        if is_tgi_chunk(obj):
            return "object is 'text_completion' with choices[].delta (a chat chunk as Text Generation Inference 1.x " \
                   "named it)"
        if self._streams and "choices" not in obj and isinstance(obj.get("error"), dict):
            # Only after chunks of an answer not yet closed: an error object alone could be any API's.
            return "an 'error' object after chunks of an unfinished answer (a stream ended by a failure)"
        if obj.get("object") == "chat.completion.done":  # Perplexity's last chunk: it holds the finish reason
            return "object is 'chat.completion.done' (Perplexity's last chunk)"
        if obj.get("choices") == [] and "prompt_filter_results" in obj and not obj.get("object"):
            return "'prompt_filter_results' with no choices (Azure OpenAI's first chunk)"  # nothing of the answer
        if not obj.get("object") and _filter_results_only(obj.get("choices")):
            return "choices holding only 'content_filter_results' (Azure OpenAI's asynchronous filter's chunk)"
        return None

    def refusal(self, obj: dict) -> str:
        if obj.get("object") == "chat.completion" or openai_chat.is_response(obj):
            return f"not read as {self.title}: a whole Chat Completions response (choices[].message, no delta), not a chunk"
        return super().refusal(obj)

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        if "choices" not in obj and isinstance(obj.get("error"), dict):
            yield from self._fail(obj, line)
            return
        if "choices" not in obj and obj.get("object") == "chat.completion.chunk":
            # An answer spoken as audio streams chunks with no 'choices' at all between its audio deltas (OpenAI's
            # gpt-audio models): a chunk of nothing, not a damaged one.
            choices: list = []
        else:
            choices = require(obj, "choices", list)
        if obj.get("object") == "chat.completion" or any(isinstance(c, dict) and "message" in c and "delta" not in c
                                                         for c in choices):
            # Only a forced format is fed it: a whole response read as a chunk would lose its message to the delta rule.
            raise LineProblem("not a stream chunk: a whole Chat Completions response (choices[].message, no delta)")
        if _filter_results_only(choices):
            # Azure's asynchronous filter annotates text already sent, after its finish_reason, under no id or model:
            # nothing of the answer, and no answer of its own (read as one, it was an empty answer).
            return
        stream_id = "" if self._one_completion else self._body or str(obj.get("id") or "")
        if stream_id in self._ended and all(isinstance(c, dict) and _says_nothing(c) for c in choices):
            # A spoken answer's last chunk (its audio's `expires_at`) comes after the usage chunk that ended it: no new
            # answer.
            return
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict):
                raise LineProblem(f"choices[{position}] is {describe(choice)}, expected an object")
            self._add_choice(obj, stream_id, choice, line)
        usage = _usage_of(obj)
        for (sid, index), stream in self._streams.items():
            if sid == stream_id and isinstance(obj.get("request"), dict):
                stream.request = obj["request"]
            if sid == stream_id and index == 0 and usage is not None:
                # Counts the whole call; servers that repeat it on every chunk keep a running total.
                stream.usage = usage
        if not choices and usage is not None:
            # The usage chunk is always a stream's last: the completion is whole now.
            self._ended.add(stream_id)
            yield from self._close(stream_id)

    def _add_choice(self, obj: dict, stream_id: str, choice: dict, line: int) -> None:
        """Add one chunk's choice delta to its stream."""
        index = as_int(choice.get("index")) or 0
        delta = choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise LineProblem(f"choices[{index}].delta is {describe(delta)}, expected an object")
        stream = self._streams.get((stream_id, index))
        if stream is None:
            head = {k: obj[k] for k in ("id", "created", "model", "system_fingerprint") if k in obj}
            stream = self._streams[(stream_id, index)] = _ChoiceStream(line, head, index)
        for key, pieces in (("content", stream.content), ("refusal", stream.refusal)):
            piece = (delta or {}).get(key)
            if isinstance(piece, str):
                pieces.append(piece)
        for key in REASONING_KEYS:
            piece = (delta or {}).get(key)
            if isinstance(piece, str):
                stream.reasoning.setdefault(key, []).append(piece)
        fragments = (delta or {}).get("tool_calls")
        if fragments is not None and not isinstance(fragments, list):
            raise LineProblem(f"choices[{index}].delta.tool_calls is {describe(fragments)}, expected a list")
        for fragment in fragments or ():
            self._merge_fragment(stream, fragment)
        legacy = (delta or {}).get("function_call")
        if legacy is not None and not isinstance(legacy, dict):
            raise LineProblem(f"choices[{index}].delta.function_call is {describe(legacy)}, expected an object")
        for key, piece in (legacy or {}).items():
            if key in ("name", "arguments") and isinstance(piece, str):
                stream.function_call.setdefault(key, []).append(piece)
        audio = (delta or {}).get("audio")
        if isinstance(audio, dict):
            if stream.audio_id is None and isinstance(audio.get("id"), str):
                stream.audio_id = audio["id"]
            if isinstance(audio.get("transcript"), str):
                stream.transcript.append(audio["transcript"])
        if choice.get("finish_reason") is not None:
            stream.finish_reason = str(choice["finish_reason"])

    def _merge_fragment(self, stream: _ChoiceStream, fragment: Any) -> None:
        """Add one tool_calls fragment to the call it continues (or starts)."""
        if not isinstance(fragment, dict):
            raise LineProblem(f"a tool_calls fragment is {describe(fragment)}, expected an object")
        # A GPT-5 custom tool's call carries free text under `custom.input` where a function's has `arguments`, as
        # the unstreamed call does ({"type": "custom", "custom": {"name", "input"}}): its pieces are joined alike.
        custom = fragment.get("type") == "custom" or isinstance(fragment.get("custom"), dict)
        function = object_at(fragment, "custom" if custom else "function")
        arguments = function.get("input" if custom else "arguments")
        if arguments is not None and not isinstance(arguments, str):
            where = "custom.input" if custom else "function.arguments"
            raise LineProblem(f"a tool_calls fragment's {where} is {describe(arguments)}, expected a string piece")
        index = as_int(fragment.get("index"))
        if index is None:
            # Some compatible servers leave out `index`: a fragment with a new id starts a call.
            starts_call = bool(fragment.get("id")) and all(c["id"] != fragment["id"] for c in stream.calls.values())
            index = len(stream.calls) if starts_call or not stream.calls else max(stream.calls)
        call = stream.calls.setdefault(index, {"id": None, "type": "function", "name": None, "arguments": []})
        if custom:
            call["type"] = "custom"
        # id and name come with the first fragment only; later fragments carry argument pieces.
        if call["id"] is None and fragment.get("id"):
            call["id"] = str(fragment["id"])
        if call["name"] is None and function.get("name"):
            call["name"] = str(function["name"])
        if arguments:
            call["arguments"].append(arguments)

    def _close(self, stream_id: str) -> Iterator[CallRecord]:
        """Every choice of a completion whose stream has ended."""
        for key in [k for k in self._streams if k[0] == stream_id]:
            yield _chunk_record(self._streams.pop(key))

    def finish(self) -> Iterator[CallRecord]:
        streams, self._streams = self._streams, {}
        # In the order read: the files' in the order the upload read them (they are kept in the order their first
        # chunks came), each file's by its lines (a line number alone puts file 2's line 1 before file 1's line 9).
        for run in per_file(list(streams.values()), lambda s: s.line):
            for stream in sorted(run, key=lambda s: (s.line, s.index)):
                yield _chunk_record(stream)

    def _fail(self, event: dict, line: int) -> Iterator[CallRecord]:
        """The open completion, ended by an error event (`data: {"error": {...}}`, with no choices): Groq sends one
        mid-stream, under HTTP 200, when the call it was writing fails validation (`tool_use_failed`, the rejected
        output under `failed_generation`). Its status is the one the event names, if any: the HTTP status was the
        stream's, sent before the failure."""
        inner = event["error"]
        status = inner.get("status_code")
        error = {"status": status if isinstance(status, int) and not isinstance(status, bool) else None, "body": event,
                 "message": str(inner.get("message") or inner.get("type") or "the stream failed"),
                 STREAM_ENDED: {"http_status": None}}
        # Chunks carry their completion's id and the error event none: it ends the latest completion opened.
        latest = max(self._streams, key=lambda key: self._streams[key].line, default=None)
        if latest is None:
            yield CallRecord(line=line, dialect=OPENAI, request=None, response=None, error=error, streamed=True)
            return
        for record in self._close(latest[0]):
            # The provider returned no answer, as unstreamed (a 400 with the same body). What had streamed is what
            # the model wrote and the provider rejected: its text stands for `failed_generation` where the event
            # leaves that empty (Groq's "Tool choice is required, but model did not call a tool" after "maybe").
            written = (record.response or {}).get("choices", [{}])[0].get("message", {}).get("content")
            if not inner.get("failed_generation") and isinstance(written, str) and written:
                error = {**error, "failed_generation": written}
            record.response, record.error = None, error
            yield record


FILTER_KEYS = ("content_filter_results", "content_filter_offsets")
"""What Azure OpenAI's content filter writes on a choice: its results, and (with the asynchronous filter) where in the
text already streamed they apply."""


def _filter_results_only(choices: Any) -> bool:
    """Whether a chunk's choices are the content filter's annotations alone (Azure OpenAI's asynchronous filter, after
    the answer's finish_reason): each has filter results and no delta, and none ends the answer."""
    return isinstance(choices, list) and bool(choices) and all(
        isinstance(c, dict) and "delta" not in c and c.get("finish_reason") is None
        and any(isinstance(c.get(key), dict) for key in FILTER_KEYS) for c in choices)


def _says_nothing(choice: dict) -> bool:
    """Whether a chunk's choice carries nothing of an answer: no text, refusal, reasoning, call or transcript, and no
    finish_reason."""
    delta = choice.get("delta")
    if choice.get("finish_reason") is not None or (delta is not None and not isinstance(delta, dict)):
        return False
    delta = delta or {}
    audio = delta.get("audio")
    return not any(delta.get(key) for key in ("content", "refusal", "tool_calls", "function_call", *REASONING_KEYS)) \
        and not (isinstance(audio, dict) and audio.get("transcript"))


def _chunk_record(stream: _ChoiceStream) -> CallRecord:
    """The chat.completion a finished (or cut-off) choice stream amounts to."""
    message: dict = {"role": "assistant", "content": "".join(stream.content) if stream.content else None}
    if stream.refusal:
        message["refusal"] = "".join(stream.refusal)
    for key, pieces in stream.reasoning.items():
        message[key] = "".join(pieces)
    if stream.calls:
        message["tool_calls"] = [
            {"id": call["id"], "type": "custom", "custom": {"name": call["name"], "input": "".join(call["arguments"])}}
            if call["type"] == "custom" else tool_call(call["id"], call["name"], "".join(call["arguments"]))
            for _, call in sorted(stream.calls.items())]
    if stream.function_call:
        message["function_call"] = {key: "".join(pieces) for key, pieces in stream.function_call.items()}
    if stream.audio_id is not None or stream.transcript:
        # What a spoken answer said, without its sound (base64 audio, which no view reads).
        message["audio"] = {"id": stream.audio_id, "transcript": "".join(stream.transcript)}
    if not stream.calls and not stream.function_call and message["content"] is None and "audio" not in message:
        message["content"] = ""
    head = stream.head
    body = chat_completion(message, stream.finish_reason, id=head.get("id"), model=head.get("model"),
                           created=head.get("created"), usage=stream.usage, index=stream.index)
    if "system_fingerprint" in head:
        body["system_fingerprint"] = head["system_fingerprint"]
    # Calls stream one after another: with no finish_reason the stream ended inside the last one.
    cut = [len(stream.calls) - 1] if stream.calls and stream.finish_reason is None else []
    return CallRecord(line=stream.line, dialect=OPENAI, request=stream.request, response=body,
                      timestamp=iso_time(head.get("created")), cut_calls=cut, streamed=True)


def ends_with_done(text: str) -> bool:
    """Whether a Chat Completions stream's SSE body ends with `data: [DONE]`, the server's word that nothing follows:
    a call still open then was not cut short by the recording, though no chunk named a finish_reason (OpenRouter's
    providers Novita and Fireworks send none)."""
    tail = text.rstrip()
    return tail.endswith("[DONE]") and tail[:-len("[DONE]")].rstrip().endswith("data:")


# --- Anthropic stream events ---------------------------------------------------------------------

STREAM_EVENTS = ("message_start", "content_block_start", "content_block_delta", "content_block_stop",
                 "message_delta", "message_stop", "ping")
"""The event types of a Messages stream."""

DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}
"""Delta types whose one field is appended to the block's field of the same name."""


@dataclass
class _MessageStream:
    """One streamed message between message_start and message_stop."""

    line: int
    """The line of its message_start."""
    message: dict
    """The message from message_start, updated by message_delta."""
    blocks: dict[int, dict] = field(default_factory=dict)
    """Content blocks by index, as content_block_start opened them."""
    pieces: dict[int, list[str]] = field(default_factory=dict)
    """Per tool_use block index, the partial_json pieces to join and parse at content_block_stop."""
    request: dict | None = None
    """The request body, when a logged event line carried it."""


class AnthropicStreamFormat(LogFormat):
    """Messages stream events, assembled in file order into `type: message` bodies."""

    name = "anthropic-stream"
    title = "Anthropic Messages stream"
    reads = "events whose 'type' is a stream event ('message_start', 'content_block_delta', ...)"

    def __init__(self) -> None:
        self._open: _MessageStream | None = None

    def detect(self, obj: dict) -> str | None:
        if obj.get("type") in STREAM_EVENTS:
            return "type names a Messages stream event"
        if self._open is not None and obj.get("type") == "error" and isinstance(obj.get("error"), dict):
            # Only inside an open message: Anthropic's error event has no key another format's error lacks.
            return "an error event inside an unfinished message (a Messages stream ended by a failure)"
        if obj.get("event") in STREAM_EVENTS and isinstance(obj.get("data"), dict):
            return "event names a Messages stream event, with its data"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        event = obj["data"] if isinstance(obj.get("data"), dict) and "type" not in obj else obj
        kind = event.get("type")
        if kind == "ping":
            return
        if kind == "message_start":
            message = require(event, "message", dict)
            if self._open is not None:
                # A new message before message_stop: the previous stream was cut off.
                yield _event_record(self._open)
            # A message_start may already hold whole blocks (a call made by the code execution tool, answered
            # by the client): they are the first blocks, and content_block_start indices go on after them.
            started = message.get("content") if isinstance(message.get("content"), list) else []
            blocks = {index: dict(block) for index, block in enumerate(started) if isinstance(block, dict)}
            self._open = _MessageStream(line, {**message, "content": []}, blocks)
        elif kind == "error":
            yield from self._fail(event)
        elif kind in STREAM_EVENTS:
            stream = self._stream(kind)
            if isinstance(obj.get("request"), dict):
                stream.request = obj["request"]
            if kind == "message_stop":
                self._open = None
                yield _event_record(stream)
            elif kind == "message_delta":
                _apply_message_delta(stream, event)
            else:
                _apply_block_event(stream, kind, event)
        else:
            if "type" not in event:
                raise LineProblem("'type' is missing, expected a Messages stream event's type")
            raise LineProblem(f"type {shown(kind)} is not a Messages stream event")

    def _stream(self, kind: str) -> _MessageStream:
        """The open message an event belongs to."""
        if self._open is None:
            raise LineProblem(f"{kind} arrived outside a message (no message_start before it)")
        return self._open

    def _fail(self, event: dict) -> Iterator[CallRecord]:
        """The open message, ended by an error event."""
        # An error event ends the stream in its place; without an open message it is not ours.
        stream = self._stream("an error event")
        self._open = None
        record = _event_record(stream)
        inner = object_at(event, "error")
        record.error = {"status": None, "body": event, "message": str(inner.get("message") or "the stream failed"),
                        STREAM_ENDED: {"http_status": None}}
        yield record

    def finish(self) -> Iterator[CallRecord]:
        stream, self._open = self._open, None
        if stream is not None:
            yield _event_record(stream)


def _apply_block_event(stream: _MessageStream, kind: str, event: dict) -> None:
    """Open, grow or close one content block."""
    index = as_int(event.get("index"))
    if index is None:
        raise LineProblem(f"{kind} 'index' is {describe(event.get('index'))}, expected a block number")
    if kind == "content_block_start":
        block = require(event, "content_block", dict)
        stream.blocks[index] = dict(block)
        if block.get("type") in ("tool_use", "server_tool_use"):
            stream.pieces[index] = []
        return
    if index not in stream.blocks:
        raise LineProblem(f"{kind} for block {index}, which no content_block_start opened")
    if kind == "content_block_stop":
        _finish_block(stream, index)
        return
    delta = require(event, "delta", dict)
    if delta.get("type") == "input_json_delta":
        piece = delta.get("partial_json")
        if not isinstance(piece, str):
            raise LineProblem(f"input_json_delta 'partial_json' is {describe(piece)}, expected a string")
        stream.pieces.setdefault(index, []).append(piece)
    elif isinstance(delta.get("type"), str) and delta["type"] in DELTA_FIELDS:
        name = DELTA_FIELDS[delta["type"]]
        block = stream.blocks[index]
        block[name] = str(block.get(name) or "") + str(delta.get(name) or "")
    elif delta.get("type") == "citations_delta":
        block = stream.blocks[index]
        # The block may open with `"citations": null` (no citations yet): the first delta starts the list.
        if not isinstance(block.get("citations"), list):
            block["citations"] = []
        block["citations"].append(delta.get("citation"))


def _finish_block(stream: _MessageStream, index: int) -> None:
    """A tool_use block's input, parsed from its pieces; text that does not parse is kept as it is."""
    pieces = stream.pieces.pop(index, None)
    if pieces is None:
        return
    text = "".join(pieces)
    if not text.strip():
        # No pieces (a tool without parameters): the start event's input stands.
        return
    try:
        stream.blocks[index]["input"] = json.loads(text)
    except ValueError:
        stream.blocks[index]["input"] = text


def _apply_message_delta(stream: _MessageStream, event: dict) -> None:
    """Take the stop reason and the final usage from message_delta."""
    delta = event.get("delta")
    if delta is not None and not isinstance(delta, dict):
        raise LineProblem(f"message_delta 'delta' is {describe(delta)}, expected an object")
    for key in ("stop_reason", "stop_sequence"):
        if (delta or {}).get(key) is not None:
            stream.message[key] = delta[key]
    usage = event.get("usage")
    if isinstance(usage, dict):
        # message_delta counts are cumulative: they replace what message_start said.
        started = stream.message.get("usage")
        merged = dict(started) if isinstance(started, dict) else {}
        merged.update({k: v for k, v in usage.items() if v is not None})
        stream.message["usage"] = merged


def _event_record(stream: _MessageStream) -> CallRecord:
    """The `type: message` body a stream amounts to, blocks in index order."""
    # A tool_use block still collecting pieces got no content_block_stop: the stream ended inside it.
    unclosed = set(stream.pieces)
    for index in list(stream.pieces):
        _finish_block(stream, index)
    body = dict(stream.message)
    blocks = sorted(stream.blocks.items())
    body["content"] = [block for _, block in blocks]
    body.setdefault("stop_reason", None)
    calls = [index for index, block in blocks if block.get("type") == "tool_use"]
    return CallRecord(line=stream.line, dialect=ANTHROPIC, request=stream.request, response=body,
                      cut_calls=[position for position, index in enumerate(calls) if index in unclosed],
                      streamed=True)
