"""What the provider-native formats share: the pair envelopes of lib.logs.pairs, and call ids.

Gemini, Ollama and Bedrock Converse bodies arrive under the same envelopes as Chat Completions
pairs (`request`/`response`, `input`/`output`, ...), as bare responses, or as requests alone.
Each format only says what its bodies look like and how they convert; finding them on a line,
reading the line's conversation id and time, and recognising an error body happen here once.

Some providers (Ollama, Gemini without ids, text transcripts) send calls without ids. `CallIds`
makes one up from the call's place in the conversation, so the same call gets the same id in
every round that resends it, and pairs each result with the first unanswered call of its name
in the model turn before it: by order, which the record marks as derived (`call ids`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from lib.logs.record import CallRecord, LineProblem
from lib.model import MADE_UP_IDS
from lib.text import with_article
from lib.logs.pairs import KeyedPairs, call_meta, error_of, split_pair



@dataclass
class CallIds:
    """Call ids for one request and its response, made up where the provider sent none."""

    pending: list[tuple[str, str | None]] = field(default_factory=list)
    """(id, name) of the latest model turn's calls that no result has answered yet."""
    made_up: bool = False
    """Whether any id was made up or any result paired by order."""
    by_place: bool = False
    """Whether every call is named by its place, a recorded id serving only to pair its results
    (for providers whose clients fill in ids of their own when they send a turn back)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Recorded call id -> the id by place it was given, when `by_place`."""

    def model_turn(self) -> None:
        """A new model turn starts: results after it answer its calls, not older ones."""
        self.pending.clear()

    def call(self, given: Any, name: Any, turn: int, position: int, taken: bool = False) -> str:
        """The id of the `position`-th call of the model turn at `turn` (`taken`: `given` is not the
        log's for this call but worked out, as the id an earlier response gave the same call)."""
        self.made_up = self.made_up or taken
        recorded = str(given) if isinstance(given, (str, int)) and given != "" else None
        if recorded is not None and not self.by_place:
            call_id = recorded
        else:
            call_id = f"call_{turn}_{position}"
            self.made_up = True
            if recorded is not None:
                self.aliases[recorded] = call_id
        self.pending.append((call_id, name if isinstance(name, str) else None))
        return call_id

    def result(self, given: Any, name: Any) -> str:
        """The id of the call a result answers: its own, or the first unanswered call of its name."""
        if isinstance(given, (str, int)) and given != "":
            call_id = self.aliases.get(str(given), str(given))
            self.pending = [p for p in self.pending if p[0] != call_id]
            return call_id
        self.made_up = True
        for position, (call_id, call_name) in enumerate(self.pending):
            if not isinstance(name, str) or call_name in (None, name):
                del self.pending[position]
                return call_id
        return ""  # a result with no call left to answer: the checks report it as an orphan

    def derived(self) -> list[str]:
        """The record's `derived` list."""
        return [MADE_UP_IDS] if self.made_up else []


ERROR_KEYS = frozenset({"error", "Error", "message", "Message", "__type", "code", "type", "status", "status_code"})
"""The keys an error body logged alone may have: more than these and the line is some other record with an error."""


def error_body(response: Any, status: Any = None) -> dict | None:
    """The error a logged response stands for: `{"error": {...}}`, Ollama's `{"error": "..."}`,
    or AWS's `{"Error": {"Message": ...}}` / `{"message": ...}`; None for anything else."""
    found = error_of(response, status)
    if found is not None or not isinstance(response, dict):
        return found
    inner = response.get("Error")
    if isinstance(response.get("error"), str):
        message = response["error"]
    elif isinstance(inner, dict) and isinstance(inner.get("Message"), str):
        message = inner["Message"]
    elif set(response) <= {"message", "Message", "__type", "code"} and isinstance(response.get("message", response.get("Message")), str):
        message = response.get("message", response.get("Message"))
    else:
        return None
    return {"status": status, "body": response, "message": message}


class ProviderPairFormat(KeyedPairs):
    """A provider's request and response bodies under the pair envelopes, converted to a dialect."""

    def is_request(self, body: Any) -> bool:
        """Whether `body` is this provider's request body."""
        raise NotImplementedError

    def is_response(self, body: Any) -> bool:
        """Whether `body` is this provider's response body."""
        raise NotImplementedError

    def record(self, request: dict | None, response: Any, line: int, obj: dict) -> CallRecord:
        """The call a request and (non-error) response amount to, converted."""
        raise NotImplementedError

    def call(self, request: dict | None, response: Any, line: int, obj: dict, streamed: bool = False) -> CallRecord:
        """`record`'s call, marked as streamed (CallRecord.streamed) where its response is our assembly of a stream:
        a list of chunks, which `record` joins (no API answers whole with a list), or a stream the caller joined
        (`streamed`)."""
        record = self.record(request, response, line, obj)
        record.streamed = response is not None and (streamed or isinstance(response, list))
        return record

    def detect(self, obj: dict) -> str | None:
        split = split_pair(obj)
        if split is not None:
            request, response, rule = split
            if self.is_request(request) or self.is_response(response):
                return f"{rule}, shaped as {self.title} bodies"
            return None
        if self.is_response(obj):
            return f"a bare {self.title} response"
        if self.is_response(obj.get("response")):
            return f"{with_article(self.title)} response under 'response', without its request (a batch output line)"
        if self.is_request(obj):
            return f"{with_article(self.title)} request on its own"
        return None

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        split = split_pair(obj)
        if split is None:
            if self.is_response(obj) or (set(obj) <= ERROR_KEYS and error_body(obj) is not None):
                # An error body alone answers a request the log did not keep; a record that merely has an 'error'
                # (a tool run's traceback) is no provider's answer.
                request, response = None, obj
            elif self.is_response(obj.get("response")):
                request, response = None, obj["response"]
            elif self.is_request(obj) or self.request_key in obj:
                # A forced format is fed lines its rules did not match: a request shaped like another provider's
                # (Chat Completions' for Ollama's or Cohere's) is read, but never an object without the turns.
                request, response = obj, None
            else:
                raise self.neither()
        else:
            request, response = split[0], split[1]
            if request is not obj and isinstance(request, dict) and not self.is_request(request) \
                    and self.request_key not in request:
                # As for a request alone: what a wrapper key holds (a rollout's 'payload', a run's 'inputs') is read
                # as a request only when it holds the turns.
                raise LineProblem(f"the request has no '{self.request_key}'")
            if request is obj:
                # LiteLLM-style lines put the request's fields beside the response.
                request = {k: v for k, v in obj.items() if k != "response"}
        if request is not None and not isinstance(request, dict):
            raise LineProblem("the request is not a JSON object")
        error = error_body(response, obj.get("status") or obj.get("status_code"))
        if error is None and response is not None and not self.is_response(response):
            raise LineProblem(f"the response is not {with_article(self.title)} response body")
        record = self.call(request, None if error else response, line, obj)
        record.error = error
        meta = call_meta(obj)
        record.conversation = record.conversation or meta["conversation"]
        record.latency_ms = record.latency_ms if record.latency_ms is not None else meta["latency_ms"]
        record.timestamp = record.timestamp or meta["timestamp"]
        yield record


def text_of(value: Any) -> str | None:
    """A string value, or None."""
    return value if isinstance(value, str) else None
