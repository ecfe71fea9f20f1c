"""OpenAI Responses API logs, converted into Chat Completions bodies.

A line holds a response object, a request body, both under `request`/`response`, or a stream
event. With `previous_response_id` (or a Conversations API id) a request carries only the new
items: the history is rebuilt by joining on the earlier response's id, and the chain's first
response id names the conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from lib.dialects import OPENAI
from lib.dialects.common import flatten_content
from lib.intern import canonical_json
from lib.logs import chat_shape as convert
from lib.logs.pairs import request_headers_of
from lib.logs.record import CallRecord, LineProblem, LogFormat, Problem, per_file
from lib.text import plural

REQUEST_KEYS = ("instructions", "previous_response_id", "tools", "reasoning", "text", "store", "conversation",
                "max_output_tokens", "tool_choice", "include")
"""Keys only a Responses request has beside `input` (embeddings requests have `model` + `input` too)."""

SPEECH_KEY = "voice"
"""The key that makes a body with `input`, `model` and `instructions` a text-to-speech request (`/v1/audio/speech`)."""

FINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed")

SHELL_CALLS = (("shell_call", "shell", "action"), ("local_shell_call", "local_shell", "action"),
               ("apply_patch_call", "apply_patch", "operation"), ("computer_call", "computer_use_preview", "action"))
"""The calls of the built-in tools the program runs, not the provider (`shell`, and `local_shell` before it;
`apply_patch`, its file edit under `operation`; `computer_use_preview`): (item type, the tool it names, the key of what
the model asked for)."""

SHELL_OUTPUTS = ("shell_call_output", "local_shell_call_output", "apply_patch_call_output", "computer_call_output")
"""What the program sends back for such a call: what the commands printed, whether the edit applied (`status`, and an
`output` where it says more), the screenshot taken after the action."""
"""Stream events that carry the whole response; the other `response.*` events are pieces of it."""

INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""`incomplete_details.reason` as a Chat Completions finish_reason."""

CARRIED_PARAMETERS = ("parallel_tool_calls", "temperature", "top_p", "user", "metadata")
"""Request parameters that mean the same in both APIs."""

TEXT_PARTS = ("input_text", "output_text", "text")
"""Content part types that are plain text."""

COMPACTION_OBJECT = "response.compaction"
"""The `object` of what `/v1/responses/compact` answers: the conversation compacted, no turn of the model's."""

COMPACTION_ITEM = "compaction"
"""The item type of the compacted history (opaque, `encrypted_content`) that the next request carries."""

COMPACTION_NOTE = ("This call asked the provider to compact the conversation (the Responses API's compact endpoint), "
                   "not for the model's next turn. Its answer is no message of the model's: shown as the response is "
                   "the compacted item the provider returned, encrypted, which the program sends in place of the "
                   "earlier turns from here on; what it holds cannot be read here.")
"""The note on a compaction call's round (our words: the Chat Completions shape has no place for such a call)."""

COMPACTION_FAILED = ("This call asked the provider to compact the conversation (the Responses API's compact endpoint), "
                     "not for the model's next turn; no compacted history it returned is in the log.")
"""The note on a compaction call that failed or whose answer is not in the log."""

COMPACTED_IN_CALL_NOTE = ("The provider compacted the conversation during this call (the Responses API does so on its "
                          "own once the input passes the threshold a request sets in `context_management`): beside "
                          "the model's turn, its response holds the compacted "
                          "history, an encrypted item the provider wrote, not words of the model's. The program sends "
                          "it back with its next request so the provider can go on from it; what it holds cannot be "
                          "read here.")
STORED_PROMPT_NOTE = ("The request names a prompt stored with the provider (the Responses API's `prompt`: its id, "
                      "version and variables) in place of sending those messages. The messages shown before the "
                      "input are the ones the response says the provider filled the prompt in to (its "
                      "`instructions`), not text the program sent.")
"""The note on a call that used a stored prompt whose answer holds the prompt as the provider filled it in."""

STORED_PROMPT_UNSEEN = ("The request names a prompt stored with the provider (the Responses API's `prompt`: its id, "
                        "version and variables) in place of sending those messages, and no answer in the log says "
                        "what the provider filled it in to: the model read more than is shown here.")
"""The note on a call that used a stored prompt where the log holds no answer that spells it out."""

"""The note on an ordinary call during which the provider compacted the conversation (a `compaction` item in the
output of a `response`)."""


@dataclass
class _Link:
    """What a response leaves for the request that names it as `previous_response_id`."""

    conversation: str
    """The conversation it belongs to: the chain's first response id."""
    history: list[dict]
    """The Chat Completions messages so far, its own assistant message last (instructions excluded)."""
    instructions: Any = None
    """The `instructions` its request sent, when its request is in the log."""
    followed: bool = False
    """For a compaction call's link: a request that carries its compacted item has been read."""
    in_call: bool = False
    """For the link of an ordinary call the provider compacted during (COMPACTED_IN_CALL): a request that resends
    its whole history with the compacted item goes on as any other; only one that sends the item in place of the
    turns before it cut them."""


def is_responses_request(body: Any) -> bool:
    """A Responses request body: `input` as text or items, with a key only this API has."""
    if not isinstance(body, dict) or any(k in body for k in ("messages", "output", "event", "kind", SPEECH_KEY)):
        return False
    items = body.get("input")
    if items is None and "input" not in body and stored_prompt(body):
        return True  # the messages are the stored prompt's, filled in by the provider
    if isinstance(items, str):
        return any(k in body for k in REQUEST_KEYS)
    return isinstance(items, list) and all(isinstance(i, dict) for i in items[:1]) and (
        "model" in body or any(k in body for k in REQUEST_KEYS))


def stored_prompt(body: Any) -> bool:
    """Whether a request names a prompt stored with the provider (`prompt` with its `id`): the Responses API fills in
    that prompt's messages from its `variables`, so the request need send no `input`."""
    prompt = body.get("prompt") if isinstance(body, dict) else None
    return isinstance(prompt, dict) and isinstance(prompt.get("id"), str) and bool(prompt["id"])


def is_responses_response(body: Any) -> bool:
    """A response object."""
    return isinstance(body, dict) and body.get("object") == "response" and isinstance(body.get("output"), list)


def is_compaction(body: Any) -> bool:
    """What `/v1/responses/compact` answers: object `response.compaction` with the compacted `output` list."""
    return isinstance(body, dict) and body.get("object") == COMPACTION_OBJECT and isinstance(body.get("output"), list)


class ResponsesFormat(LogFormat):
    """Responses API requests, responses and stream events, with their chains rebuilt."""

    name = "openai-responses"
    title = "OpenAI Responses API"
    reads = "'object': 'response', a request with 'input' and Responses keys, or a 'response.*' stream event"

    def __init__(self, waits: bool = True) -> None:
        self._links: dict[str, _Link] = {}
        self._answers: dict[bytes, list[_Link]] = {}
        """The links by their own assistant message's canonical JSON (see `_resent_link`)."""
        self._idless_answers: dict[bytes, list[_Link]] = {}
        """The same links by their assistant message without call ids (`_idless`)."""
        self._conversations: dict[str, list[dict]] = {}
        self._compactions: dict[str, _Link] = {}
        """The compaction calls' links by the compacted items they returned (`_compaction_keys`): a request that
        carries one goes on from that call."""
        self.interleaved: list[int] = []
        """Lines whose request's input has the model's text after its call in one turn (see `notes`)."""
        self._streamed_items: dict[int, dict] = {}
        """The items of the stream being read, by output index, from its `response.output_item.done` events (see
        with_streamed_items)."""
        self.zero_usage: list[int] = []
        """Lines whose response reports 0 input and 0 output tokens beside output the model wrote (see `notes`)."""
        self.waits = waits
        """Whether a call waits for the call it goes on from (`_in_chain_order`): not where one call is read alone."""
        self._waiting: dict[tuple, list[_Waiting]] = {}
        """The calls waiting, by what they wait for (`_needs`)."""
        self._held_threads: dict[str, int] = {}
        """Per Conversations API conversation, how many of its calls wait."""
        self._held_count = 0
        """How many calls have waited so far: the next one's place in the order they were read (_Waiting.read)."""
        self._made: set[tuple] = set()
        """What the calls read so far have given (`_gives`): the calls made in each conversation."""
        self.unread: list[Problem] = []
        """Why a call that waited could not be read, on its own line (`_released`, skipped_later)."""

    def skipped_later(self) -> list[Problem]:
        return self.unread

    def notes(self) -> list[Problem]:
        notes = []
        if self.interleaved:
            notes.extend(_said_once(self.interleaved, "the request's input has the model's text after one of its calls "
                                    "in the same turn (text, call, text, call), an order no Chat Completions message "
                                    "can hold: the turn is shown as one assistant message, its texts before its calls",
                                    "request", ("holds", "hold"), "such a turn"))
        if self.zero_usage:
            notes.extend(_said_once(self.zero_usage, "the response reports a usage of 0 input and 0 output tokens "
                                    "beside the output the model wrote: no call reads and writes nothing, so those "
                                    "zeros are no count of what it used, and the round's tokens are estimated",
                                    "response", ("reports", "report"), "such a usage"))
        return notes

    def detect(self, obj: dict) -> str | None:
        kind = obj.get("type")
        if isinstance(kind, str) and kind.startswith("response.") and "object" not in obj:
            return "type names a Responses stream event"
        if _stream_error(obj):
            return "type is 'error' with a sequence_number (a Responses stream's error event)"
        if is_responses_response(obj):
            return "object is 'response' with an 'output' list"
        if is_compaction(obj):
            return "object is 'response.compaction' with an 'output' list (a compaction)"
        if "request" in obj or "response" in obj:
            if is_responses_response(obj.get("response")) or is_compaction(obj.get("response")) \
                    or is_responses_request(obj.get("request")):
                return "a Responses request under 'request' and its response under 'response'"
            return None
        if is_responses_request(obj):
            return "'input' with Responses request keys"
        return None

    def near_miss(self, obj: dict) -> str | None:
        if "input" in obj and SPEECH_KEY in obj:
            return "has 'input' beside 'voice': a text-to-speech request (/v1/audio/speech), not a Responses request"
        if "input" in obj and not is_responses_request(obj):
            return "has 'input', but no 'model' nor a key only a Responses request has ('instructions', 'tools', ...)"
        if obj.get("object") == "response":
            return "object is 'response', but it has no 'output' list"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        kind = obj.get("type")
        if isinstance(kind, str) and kind.startswith("response.") and "object" not in obj:
            if kind == "response.created":
                self._streamed_items = {}
            elif kind == ITEM_DONE:
                add_streamed_item(self._streamed_items, obj)
            elif kind in FINAL_EVENTS:
                items, self._streamed_items = self._streamed_items, {}
                yield from self._in_chain_order(None, with_streamed_items(_body(obj, "response"), items), line)
            return
        if _stream_error(obj):
            # The stream's error event comes before its `response.failed`, which holds the same error and ends it.
            return
        if obj.get("object") in ("response", COMPACTION_OBJECT):
            yield from self._in_chain_order(None, obj, line)
        elif "request" in obj or "response" in obj:
            request, response = _body(obj, "request", optional=True), _body(obj, "response", optional=True)
            if request is None and response is None:
                raise LineProblem("'request' and 'response' are both null")
            # The recording proxy keeps the request's headers beside the bodies.
            yield from self._in_chain_order(request, response, line, convert.as_int(obj.get("status_code",
                                            obj.get("status"))), request_headers_of(obj))
        else:
            yield from self._in_chain_order(obj, None, line)

    def finish(self) -> Iterator[CallRecord]:
        # Calls whose earlier call never came: read as they would have been in place, in the order of their lines, the
        # files' in the order the upload read them (a line number alone puts file 2's line 3 before file 1's line 9).
        # Sorted once: a log whose every call names a response it lacks (a sample of a longer log) waits whole.
        for first in sorted((call for calls in self._waiting.values() for call in calls), key=lambda call: call.read):
            waiting = self._waiting.get(first.needs, [])
            if not any(call is first for call in waiting):
                continue  # released already, by a call read before it here
            waiting.remove(first)
            if not waiting:
                del self._waiting[first.needs]
            if first.request is not None and _thread_id(first.request) in self._held_threads:
                self._held_threads[_thread_id(first.request)] -= 1
            yield from self._released(first, reading=False)

    def _in_chain_order(self, request: dict | None, response: dict | None, line: int, status: int | None = None,
                        headers: dict | None = None) -> Iterator[CallRecord]:
        """The call, read once the call it goes on from has been (a log's lines out of order): a request that names a
        `previous_response_id` not read yet, or that sends, in a Conversations API conversation, the result of a call
        no response of that conversation has made yet, waits for it; then the calls that waited for this one."""
        call = _Waiting(request, response, line, status, headers, self._needs(request, response) if self.waits else None)
        if call.needs is None:
            yield from self._released(call)
            return
        # Checked now, so that a line that cannot be read is said of itself, not of the line that would release it.
        if request is not None:
            item_turns(_input_items(request), "input")
        if response is not None and is_responses_response(response):
            _assistant(response)
        call.read = self._held_count
        self._held_count += 1
        self._waiting.setdefault(call.needs, []).append(call)
        thread = _thread_id(request) if request is not None else None
        if thread is not None:
            self._held_threads[thread] = self._held_threads.get(thread, 0) + 1

    def _released(self, call: _Waiting, reading: bool = True) -> Iterator[CallRecord]:
        """The call read, then every call that waited for it, in turn. A call that cannot be read is said of its own
        line (`unread`), and the others go on, except the one on the line being read (`reading`), which the upload
        says of that line as of any other."""
        first, ready = call, [call]
        while ready:
            call = ready.pop(0)
            try:
                record = self._record(call.request, call.response, call.line, call.status)
            except LineProblem as problem:
                if reading and call is first:
                    raise
                self.unread.append(Problem(call.line, str(problem)))
                continue
            if call.headers is not None:
                record.request_headers = call.headers
            yield record
            given = _gives(call.request, call.response)
            self._made.update(given)
            for key in given:
                for waiting in self._waiting.pop(key, ()):
                    thread = _thread_id(waiting.request) if waiting.request is not None else None
                    if thread in self._held_threads:
                        self._held_threads[thread] -= 1
                    ready.append(waiting)

    def _needs(self, request: dict | None, response: dict | None) -> tuple | None:
        """What the call waits for before it is read (`_in_chain_order`), None where nothing: the response named as
        `previous_response_id`; in a Conversations API conversation, the call whose result the request sends, and,
        while an earlier line of the conversation waits, whatever that line waits for (so the lines in order keep
        their order), unless this call makes what it waits for."""
        either = [b for b in (request, response) if b is not None]
        thread = next((t for t in map(_thread_id, either) if t), None)
        if thread is not None:
            answered = [item["call_id"] for item in (request or {}).get("input") or () if isinstance(item, dict)
                        and str(item.get("type", "")).endswith("_output") and isinstance(item.get("call_id"), str)]
            missing = next((("call", thread, c) for c in answered if ("call", thread, c) not in self._made), None)
            if missing is not None or not self._held_threads.get(thread):
                return missing
            makes = set(_gives(request, response))
            if any(key in makes for key in self._waiting if key[:2] == ("call", thread)):
                return None
            return ("after", thread)
        previous = next((_text(b.get("previous_response_id")) for b in either if b.get("previous_response_id")), None)
        return ("id", previous) if previous is not None and previous not in self._links else None

    def conversation_items(self, conversation: str, items: list) -> None:
        """Items the program put into a Conversations API conversation outside a model call (created with `items`, or
        added to its `items`): the provider holds them, and the next call in that conversation goes on from them."""
        turns = convert.chat_messages(item_turns(items, "items"))
        self._conversations[conversation] = self._conversations.get(conversation, []) + turns

    def compaction_call(self, request: dict, response: dict | None, line: int, status: int | None) -> CallRecord:
        """A call an HTTP recording shows went to `/v1/responses/compact`: a compaction call also where it failed,
        and so no answer of `response.compaction` says it was one."""
        return self._record(request, response, line, status, asked_to_compact=True)

    def _record(self, request: dict | None, response: dict | None, line: int, status: int | None = None,
                asked_to_compact: bool = False) -> CallRecord:
        """One call, its history rebuilt and its response remembered for the calls that chain on it (`status`: the
        HTTP status the line recorded beside the bodies; `asked_to_compact`: the recording names the compaction
        endpoint)."""
        history, conversation = self._history(request, response)
        carried = None
        messages = history
        provenance = None
        chat_request = None
        compacted = None
        compaction = is_compaction(response) or asked_to_compact
        # Compaction switched on in an ordinary request: the provider compacted during the call, beside the answer.
        in_call = not compaction and is_responses_response(response) and any(
            isinstance(item, dict) and item.get("type") == COMPACTION_ITEM for item in response["output"])
        if request is not None:
            items = _input_items(request)
            if _interleaved(items):
                self.interleaved.append(line)
            prompted = []
            if stored_prompt(request):
                # The messages the provider filled the stored prompt in to, which its answer lists as `instructions`
                # (the request sent only the prompt's id and variables): what the model read before the input.
                filled = response.get("instructions") if is_responses_response(response) else None
                prompted = convert.chat_messages(item_turns(filled, "instructions")) if isinstance(filled, list) else []
                provenance = {"origin": "completed", "note": STORED_PROMPT_NOTE if isinstance(filled, list)
                              else STORED_PROMPT_UNSEEN, "omitted": [] if isinstance(filled, list) else ["messages"]}
            messages = history + prompted + convert.chat_messages(
                item_turns(items, "input", provider_ran(request.get("tools"))))
            chat_request = _chat_request(request, messages)
            # A request that carries the item a compaction call returned goes on from that call: the program sends
            # the compacted item in place of the turns before it (whether it keeps a `previous_response_id` or not).
            compacted = self._compacted_from(items)
            if compacted is not None and compacted.in_call and not _sent_in_place(messages, compacted):
                compacted = None  # the history resent up to the compacted item, which follows the answer: nothing cut
            if conversation is None and compacted is not None:
                conversation = compacted.conversation
            # Only the first request after the compaction is cut from the one before; later ones resend the item.
            if compacted is not None and compacted.followed:
                compacted = None
            elif compacted is not None:
                compacted.followed = True
            if conversation is None and _continues(messages):
                link = self._resent_link(messages, ends=compaction)
                if link is not None and link.instructions != request.get("instructions"):
                    conversation = link.conversation
                else:
                    # Chained on content by the upload (its request extends the last one as sent), under the name its
                    # first round gave the chain: a round that goes on from this one under other instructions keeps
                    # that name, not this response's id. The program may have rewritten the call ids it resends
                    # (pydantic-ai prefixes a reused `call_0` with its response id), which the upload's chaining on
                    # request prefixes does not mind; nor does this look-up.
                    link = link or self._resent_link(messages, _idless, ends=compaction)
                    carried = link.conversation if link is not None else None
        chat_response, error, opens = None, None, None
        if response is not None and not (is_responses_response(response) or is_compaction(response)):
            error = _error_body(response, status)
            response = None
        if response is not None:
            assistant = _assistant(response)
            zero = _zero_usage(response)
            if zero:
                self.zero_usage.append(line)
            chat_response, error = _chat_response(response, assistant, compaction, counted=not zero)
            if conversation is None and not _continues(messages):
                # A first round: its response id names the chain. With its request logged, it is a
                # name only, so a later round that resends the whole history still chains on content.
                opens = _text(response.get("id"))
                conversation = opens if request is None else None
            link = self._remember(request, response, conversation or carried or opens, messages + [assistant])
            if (compaction or in_call) and link is not None:
                # A request may send the compacted item back by its id alone (the provider stored it) or whole: either
                # way it goes on from this call. An item returned beside an answer is indexed as one a compaction call
                # returned, marked so: a request that resends the whole history with it cut nothing.
                link.in_call = in_call
                for item in response["output"]:
                    for key in _compaction_keys(item):
                        self._compactions[key] = link
        return CallRecord(
            line=line, dialect=OPENAI, request=chat_request, response=chat_response, error=error,
            conversation=conversation, name=opens, converted_from="openai-responses",
            held_by_provider=len(history) if request is not None else 0,
            # Instructions the request sends go in front of the history: a system message heading it is held only
            # where the request sent none.
            held_system=request is not None and bool(history) and history[0].get("role") == "system"
            and not (isinstance(request.get("instructions"), str) and request["instructions"]),
            timestamp=convert.iso_time((response or {}).get("created_at")),
            compaction=compaction, history_cut=compacted is not None, compacted=compacted is not None,
            compacted_in_call=in_call,
            provenance={"origin": "recorded", "note": _compaction_note(response) if response is not None
                        else COMPACTION_FAILED} if compaction
            else {"origin": "recorded", "note": COMPACTED_IN_CALL_NOTE} if in_call else provenance,
        )

    def _compacted_from(self, items: list) -> _Link | None:
        """The call whose compacted item the request's input carries (whole, by its id, or as an `item_reference` to
        it), if that call is in the log: a compaction call, or an ordinary one the provider compacted during."""
        for item in items:
            keys = _compaction_keys(item) or _reference_keys(item)
            link = next((self._compactions[k] for k in keys if k in self._compactions), None)
            if link is not None:
                return link
        return None

    def _history(self, request: dict | None, response: dict | None) -> tuple[list[dict], str | None]:
        """The messages before this call's input, and the conversation it continues (None: a new one)."""
        either = [b for b in (request, response) if b is not None]
        thread = next((t for t in map(_thread_id, either) if t), None)
        if thread is not None:
            return list(self._conversations.get(thread, ())), thread
        previous = next((_text(b.get("previous_response_id")) for b in either if b.get("previous_response_id")), None)
        if previous is None:
            return [], None
        link = self._links.get(previous)
        if link is None:
            # The earlier response is not in this upload: its id is the best name for the chain.
            return [], previous
        return list(link.history), link.conversation

    def _resent_link(self, messages: list[dict], form: Callable[[dict], dict] | None = None,
                     ends: bool = False) -> _Link | None:
        """The round whose latest history `messages` resends whole and goes on from, if its response is in the log.

        A handoff (OpenAI Agents SDK) sends the run's history on under the next agent's instructions, without a
        `previous_response_id`: the new instructions keep the request from extending the earlier one as sent, yet
        its input is that round's input, the model's output and the results; so does a run given the history of one
        that ended (pydantic-ai's `message_history`) with no instructions of its own. Under the same instructions the
        request extends the earlier one as sent, and the upload chains it on content as it does any other. With `ends`
        (a compaction call: it sends the history to compact, the model's last answer last) `messages` may end on that
        round's answer."""
        # Looked up by the last model turn the request resends, so a long log costs one look-up per request; the
        # latest first, as a test that runs twice records the same turns twice.
        last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "assistant"), None)
        if last is None or (last == len(messages) - 1 and not ends):
            return None
        answers, key = (self._answers, messages[last]) if form is None else (self._idless_answers, form(messages[last]))
        for link in reversed(answers.get(canonical_json(key), ())):
            if len(link.history) != last + 1:
                continue
            if messages[: last + 1] == link.history if form is None else all(
                    form(a) == form(b) for a, b in zip(messages, link.history)):
                return link
        return None

    def _remember(self, request: dict | None, response: dict, conversation: str | None,
                  history: list[dict]) -> _Link | None:
        """Keep the history after a response, under its id and its Conversations API id; the link kept under its id,
        None for a response without one."""
        response_id = _text(response.get("id"))
        thread = _thread_id(request or {}) or _thread_id(response)
        if thread is not None:
            self._conversations[thread] = history
        if response_id is not None:
            link = _Link(conversation or response_id, history, (request or {}).get("instructions"))
            self._links[response_id] = link
            key, idless = canonical_json(history[-1]), _idless(history[-1])
            self._answers.setdefault(key, []).append(link)
            self._idless_answers.setdefault(key if idless is history[-1] else canonical_json(idless), []).append(link)
            return link
        return None


@dataclass
class _Waiting:
    """A call read after the call it goes on from (ResponsesFormat._in_chain_order)."""

    request: dict | None
    """Its request body."""
    response: dict | None
    """Its response body."""
    line: int
    """Its line."""
    status: int | None
    """The HTTP status recorded beside the bodies."""
    headers: dict | None
    """The request's headers recorded beside the bodies."""
    needs: tuple | None
    """What it waits for (ResponsesFormat._needs)."""
    read: int = 0
    """Its place among the calls that waited, in the order they were read: the upload's files in turn, each file's
    lines in order (ResponsesFormat.finish reads those left in it)."""


def _gives(request: dict | None, response: dict | None) -> list[tuple]:
    """What a call read gives the calls waiting (ResponsesFormat._needs): its response's id, the calls it made in its
    Conversations API conversation, and the place after it in that conversation."""
    if response is None or not is_responses_response(response):
        return []
    thread = next((t for t in (_thread_id(request or {}), _thread_id(response)) if t), None)
    given = [("id", response["id"])] if isinstance(response.get("id"), str) else []
    if thread is not None:
        given += [("call", thread, item["call_id"]) for item in response["output"] if isinstance(item, dict)
                  and isinstance(item.get("call_id"), str)] + [("after", thread)]
    return given


def _compaction_keys(item: Any) -> list[str]:
    """What a compacted item is known by when the program sends it back: its id, and its encrypted content (a program
    may leave the id out)."""
    if not isinstance(item, dict) or item.get("type") != COMPACTION_ITEM:
        return []
    keys = [f"id:{item['id']}"] if isinstance(item.get("id"), str) and item["id"] else []
    content = item.get("encrypted_content")
    return keys + ([f"content:{content}"] if isinstance(content, str) and content else [])


def _sent_in_place(messages: list[dict], link: _Link) -> bool:
    """Whether `messages` send the compacted item an ordinary call returned beside its answer (`link`, in_call) in place
    of turns before it: fewer messages come before the one that carries it than came before that answer."""
    returned = {key for part in _parts(link.history[-1]) for key in _compaction_keys(part)} if link.history else set()
    at = next((i for i, message in enumerate(messages) for part in _parts(message)
               if returned & {*_compaction_keys(part), *_reference_keys(part)}), None)
    return at is not None and at < len(link.history) - 1


def _parts(message: Any) -> list:
    """A Chat Completions message's content parts (none for a text content)."""
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _reference_keys(item: Any) -> list[str]:
    """What an `item_reference` input item names: the id of an item the provider stored (a compacted item among them)."""
    if isinstance(item, dict) and item.get("type") == "item_reference" and isinstance(item.get("id"), str) \
            and item["id"]:
        return [f"id:{item['id']}"]
    return []


def _compaction_note(response: dict) -> str:
    """COMPACTION_NOTE, and what else the compacted window lists: the user's messages it kept as they were sent."""
    kept = sum(1 for item in response["output"] if isinstance(item, dict)
               and item.get("type", "message" if "role" in item else None) == "message" and item.get("role") == "user")
    if not kept:
        return COMPACTION_NOTE
    return (f"{COMPACTION_NOTE} Before that item the provider's answer lists {plural(kept, 'user message')} of the "
            f"conversation kept as {'it was' if kept == 1 else 'they were'} sent; those are in the request, and are "
            "not shown again as the response.")


def _idless(message: dict) -> dict:
    """A Chat Completions message without the ids that pair calls with results: the message as a program that
    rewrote those ids resends it."""
    calls = message.get("tool_calls")
    if "tool_call_id" not in message and not isinstance(calls, list):
        return message
    copy = {k: v for k, v in message.items() if k != "tool_call_id"}
    if isinstance(calls, list):
        copy["tool_calls"] = [{k: v for k, v in c.items() if k != "id"} if isinstance(c, dict) else c for c in calls]
    return copy


ITEM_DONE = "response.output_item.done"
"""The stream event that carries one whole output item."""


def add_streamed_item(items: dict[int, dict], event: dict) -> None:
    """Keep the item a `response.output_item.done` event carries, at its output index (in arrival order without one)."""
    item = event.get("item")
    if isinstance(item, dict):
        index = convert.as_int(event.get("output_index"))
        items[index if index is not None else len(items)] = item


def with_streamed_items(final: dict | None, items: dict[int, dict]) -> dict | None:
    """A stream's final response, its `output` taken from the stream's `response.output_item.done` events where it
    came empty beside them: ChatGPT's Codex backend (`/backend-api/codex/responses`, what Codex CLI calls when signed
    in with ChatGPT) ends its streams with `output: []` in `response.completed`, the items only in those events."""
    if isinstance(final, dict) and final.get("output") == [] and items:
        return {**final, "output": [items[index] for index in sorted(items)]}
    return final


def _body(obj: dict, key: str, optional: bool = False) -> dict | None:
    """The object under `key` of a pair line."""
    value = obj.get(key)
    if isinstance(value, dict) or (optional and value is None):
        return value
    raise LineProblem(f"'{key}' is {convert.describe(value) if key in obj else 'missing'}, expected an object")


def _error_body(body: dict, status: int | None) -> dict:
    """The error a logged `{"error": {...}}` body in the response's place stands for; with an HTTP error status
    recorded, whatever body came with it."""
    error = body.get("error")
    if not isinstance(error, dict) and not (status and status >= 400):
        raise LineProblem("'response' is neither a response object (object 'response' with an 'output' list) nor an error")
    said = error.get("message") if isinstance(error, dict) else error if isinstance(error, str) else None
    message = str(said or (f"HTTP {status}" if status else "the call failed"))
    return {"status": status or convert.as_int(body.get("status_code")), "body": body, "message": message}


def _text(value: Any) -> str | None:
    """An id as text, or None when there is none."""
    return str(value) if isinstance(value, (str, int)) and value != "" else None


def _stream_error(obj: dict) -> bool:
    """Whether a line is a Responses stream's `error` event (numbered like every event of the stream, unlike the
    error event of an Anthropic stream)."""
    return obj.get("type") == "error" and "sequence_number" in obj and isinstance(obj.get("error"), dict)


def _thread_id(body: dict) -> str | None:
    """The Conversations API id a request or response belongs to, if any."""
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        return _text(conversation.get("id"))
    return _text(conversation)


def _continues(messages: list[dict]) -> bool:
    """Whether the input already holds model turns."""
    # Input that already holds model turns resends a whole history (store=false): no chain id.
    return any(m.get("role") in ("assistant", "tool") for m in messages)


def _input_items(request: dict) -> list:
    """A request's `input` as items (a string is one user message)."""
    items = request.get("input")
    if isinstance(items, str):
        return [{"type": "message", "role": "user", "content": items}]
    if isinstance(items, list):
        return items
    if "input" not in request and stored_prompt(request):
        return []  # the stored prompt holds the messages (stored_prompt)
    found = convert.describe(items) if "input" in request else "missing"
    raise LineProblem(f"'input' is {found}, expected text or a list of items")


# --- items -------------------------------------------------------------------------------------


def _interleaved(items: list) -> bool:
    """Whether a run of the model's items has a text message after a call: merged into one turn, the order is lost."""
    called = False
    for item in items:
        kind = item.get("type", "message" if "role" in item else None) if isinstance(item, dict) else None
        if kind in ("function_call", "custom_tool_call"):
            called = True
        elif kind == "message" and item.get("role") == "assistant":
            if called:
                return True
        elif kind not in ("reasoning", None):
            called = False
    return False


def provider_ran(tools: Any) -> Callable[[str], bool] | None:
    """Which calls by name the provider ran itself, for a request whose tools are `tools`: with a built-in tool offered
    (xAI's `x_search`), a custom tool call named for no function or custom tool the program declared is one of the
    built-in tool's own calls (xAI writes its searches so, `x_keyword_search`, and answers after them in the same
    response). None where the tools are not known or none is built in."""
    if not isinstance(tools, list):
        return None
    declared = {str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("type") in ("function", "custom")}
    built_in = any(isinstance(t, dict) and t.get("type") not in ("function", "custom") for t in tools)
    return (lambda name: name not in declared) if built_in else None


def item_turns(items: Iterable[Any], where: str, ran: Callable[[str], bool] | None = None) -> list[tuple[str, list]]:
    """Items as (role, parts) turns; neighbouring model items (reasoning, text, calls) become one turn. `ran`: which
    custom tool calls the provider ran (provider_ran), kept raw beside the text as its other tools' items are."""
    turns: list[tuple[str, list]] = []
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise LineProblem(f"{where}[{position}] is {convert.describe(item)}, expected an item object")
        if ran is not None and item.get("type") == "custom_tool_call" and ran(str(item.get("name"))):
            role, parts = "assistant", [item]
        else:
            role, parts = item_turn(item, f"{where}[{position}]")
        if role == "assistant" and turns and turns[-1][0] == "assistant":
            turns[-1][1].extend(parts)
        else:
            turns.append((role, parts))
    return turns


def item_turn(item: dict, where: str) -> tuple[str, list]:
    """One input or output item as a (role, parts) turn."""
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        return str(item.get("role") or "user"), _content_parts(item.get("content"), where)
    if kind == "function_call":
        call_id = _call_id(item, kind, where)
        return "assistant", [convert.tool_call_part(call_id, item.get("name"), item.get("arguments"))]
    if kind == "custom_tool_call":  # a custom tool's free-text input (GPT-5's custom tools, Codex's apply_patch)
        call_id = _call_id(item, kind, where)
        return "assistant", [convert.custom_call_part(call_id, item.get("name"), item.get("input"))]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        output = flatten_content(output) if isinstance(output, list) else output
        return "tool", [convert.tool_result_part(_call_id(item, kind, where), output)]
    shell = next(((tool, asked) for call, tool, asked in SHELL_CALLS if kind == call), None)
    shell_call_id = _text(item.get("call_id")) or _text(item.get("id"))
    if shell is not None and shell_call_id is not None:
        # These built-in tools run on the program's side: the model asks for the commands, the edit or the action, and
        # the program sends back what came of it under the same call_id (Codex's local_shell calls, the item id).
        return "assistant", [convert.tool_call_part(shell_call_id, shell[0], item.get(shell[1]))]
    if isinstance(kind, str) and kind in SHELL_OUTPUTS:
        # An edit's result may hold only its `status` ("completed" or "failed"): that is what the program answered.
        output = item.get("output") if item.get("output") is not None or kind != "apply_patch_call_output" \
            else item.get("status")
        return "tool", [convert.tool_result_part(_call_id(item, kind, where), output)]
    # reasoning, web_search_call and other model-side items stay raw beside the text.
    return "assistant", [item]


def _call_id(item: dict, kind: str, where: str) -> str:
    """The call_id a call and its output are paired on."""
    # Results pair on call_id; the fc_... item id is not what the model's call is answered by.
    call_id = _text(item.get("call_id"))
    if call_id is None:
        raise LineProblem(f"{where} {kind} has no 'call_id', so its result cannot be paired")
    return call_id


def _content_parts(content: Any, where: str) -> list:
    """A message item's content as parts: input_text/output_text become text, the rest stays raw."""
    if isinstance(content, str):
        return [convert.text_part(content)]
    if not isinstance(content, list):
        raise LineProblem(f"{where}.content is {convert.describe(content)}, expected text or a list of parts")
    return [convert.text_or_raw(p, TEXT_PARTS) for p in content]


# --- bodies ------------------------------------------------------------------------------------


def _chat_request(request: dict, messages: list[dict]) -> dict:
    """The Chat Completions request the Responses request amounts to."""
    body: dict = {}
    if "model" in request:
        body["model"] = request["model"]
    instructions = request.get("instructions")
    system = [{"role": "system", "content": instructions}] if isinstance(instructions, str) and instructions else []
    body["messages"] = system + messages
    if isinstance(request.get("tools"), list):
        body["tools"] = [_tool(t) for t in request["tools"]]
    if "tool_choice" in request:
        body["tool_choice"] = _tool_choice(request["tool_choice"])
    for key in CARRIED_PARAMETERS:
        if key in request:
            body[key] = request[key]
    if "max_output_tokens" in request:
        body["max_completion_tokens"] = request["max_output_tokens"]
    answer = convert.object_at(convert.object_at(request, "text"), "format")
    if answer.get("type") == "json_schema":  # Chat Completions' response_format holds the same, one level down
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {k: v for k, v in answer.items() if k != "type"}}
    return body


def _tool(tool: Any) -> Any:
    """A flat Responses tool as a Chat Completions tool; built-in tools have no twin and stay as sent."""
    if not isinstance(tool, dict) or tool.get("type") not in ("function", "custom") or tool.get("type") in tool:
        return tool
    if tool["type"] == "custom":
        return {"type": "custom", "custom": {k: tool[k] for k in ("name", "description", "format") if k in tool}}
    converted = convert.function_tool(tool.get("name"), tool.get("description"), tool.get("parameters"))
    if "strict" in tool:
        converted["function"]["strict"] = tool["strict"]
    return converted


def _tool_choice(choice: Any) -> Any:
    """A forced function choice the Chat Completions way; other choices read the same in both APIs."""
    if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
        return {"type": "function", "function": {"name": choice["name"]}}
    return choice


def _assistant(response: dict) -> dict:
    """All of a response's output items as one assistant message."""
    ran = provider_ran(response.get("tools"))
    messages = convert.chat_messages(item_turns(response.get("output") or (), "output", ran))
    return next((m for m in messages if m.get("role") == "assistant"), {"role": "assistant", "content": ""})


def _zero_usage(response: dict) -> bool:
    """Whether a completed response reports 0 input and 0 output tokens beside output items: no count, since every
    call reads its input and this one wrote. A response of March 2025 answering two function calls reported one (the
    OpenAI Agents SDK's recordings in logfire's tests hold one); taken as reported, they showed a round of 0 tokens
    costing nothing, its input parts summing to -139."""
    usage = response.get("usage")
    return (isinstance(usage, dict) and usage.get("input_tokens") == 0 and usage.get("output_tokens") == 0
            and response.get("status") in ("completed", None) and bool(response.get("output")))


def _chat_response(response: dict, assistant: dict, compaction: bool = False,
                   counted: bool = True) -> tuple[dict | None, dict | None]:
    """(the chat.completion body, None), or (None, the error) for a failed response. A compaction has no finish: no
    turn of the model's stopped (finish_reason null). `counted` False: the response's usage is no count (`_zero_usage`)
    and is left out, so the round's tokens are estimated, not shown as 0."""
    if response.get("status") == "failed":
        error = convert.object_at(response, "error")
        return None, {"status": None, "body": response, "message": str(error.get("message") or "the response failed")}
    usage = convert.object_at(response, "usage") if counted else {}
    input_details = convert.object_at(usage, "input_tokens_details")
    output_details = convert.object_at(usage, "output_tokens_details")
    body = convert.chat_completion(
        assistant, None if compaction else _finish_reason(response, bool(assistant.get("tool_calls"))),
        id=response.get("id"), model=response.get("model"), created=convert.as_int(response.get("created_at")),
        usage=convert.chat_usage(usage.get("input_tokens"), usage.get("output_tokens"),
                                 cached=input_details.get("cached_tokens"), reasoning=output_details.get("reasoning_tokens")),
    )
    return body, None


def _finish_reason(response: dict, has_calls: bool) -> str | None:
    """Responses have a status, not a finish_reason: a tool-call stop shows in the output items."""
    status = response.get("status")
    if status == "incomplete":
        details = convert.object_at(response, "incomplete_details")
        reason = details.get("reason")
        return INCOMPLETE_REASONS.get(str(reason), str(reason or "incomplete"))
    if status in ("completed", None):
        return "tool_calls" if has_calls else "stop"
    if status == "cancelled":  # a background call the program cancelled (`POST /v1/responses/<id>/cancel`)
        return "cancelled"
    # queued, in_progress: the call has not stopped.
    return None


def _said_once(every: list[int], said: str, item: str, verbs: tuple[str, str], what: str) -> list[Problem]:
    """A note on the first of `every` line, counting the others after it ("2 more requests hold such a turn too"):
    one per file, in an upload of several (per_file)."""
    notes = []
    for lines in per_file(every):
        more = len(lines) - 1
        verb = verbs[0] if more == 1 else verbs[1]
        notes.append(Problem(lines[0], said + (f"; {plural(more, 'more ' + item)} {verb} {what} too" if more else ""),
                             loaded=True))
    return notes
