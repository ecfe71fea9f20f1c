"""Claude Code's stream-json output: what `claude -p --output-format stream-json --verbose` prints, and what programs
built on the Claude Agent SDK (Python, TypeScript) log of its messages, one JSON object a line.

Its `assistant` and `user` lines carry the same Anthropic Messages `message` as a session log's (lib/logs/claude_code.py
reads them the same way: each API response a round, its lines sharing `message.id`, its request the conversation before
it), beside snake_case keys: `session_id`, `parent_tool_use_id` (the Task call a subagent's line belongs to: its own
conversation), `request_id`, `uuid`. The person's prompt is not among them unless the run echoed it
(`--replay-user-messages`): a request whose prompt the log lacks says so. The `system`/`init` line names the model and
the tools the run offered, by name only: said in a note, never taken for the tool definitions. `result` lines close a
run with its totals: no model call, but their usage is checked against the rounds' sum and any difference said.
`stream_event` lines (`--include-partial-messages`) repeat the responses as API stream events: counted as no model
call, only their `message_delta` usage taken, the one count written when the response ended. A user line marked
`isSynthetic` (the summary a compaction starts again from) or `isMeta` is Claude Code's own words, listed in the
round's `program_wrote` by the session log's code.
"""

from __future__ import annotations

import json
from typing import Iterator

from lib.coerce import int_or_none
from lib.logs.chat_shape import require
from lib.logs.claude_code import (FAILED, MESSAGE_TYPES, PROVENANCE, ClaudeCodeFormat, _Conversation, _Response,
                                  unended)
from lib.logs.record import CallRecord, LineProblem, Problem
from lib.text import plural, shorten

STREAM_TYPES = frozenset({
    "system", "result", "stream_event", "rate_limit_event", "control_request", "control_response",
    "control_cancel_request", "keep_alive", "tool_progress", "auth_status", "streamlined_text",
    "streamlined_tool_use_summary",
})
"""Line types stream-json writes beside the messages: no model call, no message the model read."""

UNKEYED_TYPES = frozenset({"rate_limit_event", "control_request", "control_response", "control_cancel_request",
                           "keep_alive"})
"""Bookkeeping types some versions write without `session_id`: stream-json's only once a line of the file was."""

USAGE_KEYS = (("input_tokens", "input"), ("cache_read_input_tokens", "cache read"),
              ("cache_creation_input_tokens", "cache write"), ("output_tokens", "output"))
"""The usage counts a `result` line totals, and their names in words."""

NO_PROMPT = ("the person's prompt before this response is not in the log (stream-json echoes it only when the run used "
             "--replay-user-messages): the request shown lacks it")
"""The note at a response whose prompt the log lacks."""

NO_SUMMARY = ("the summary Claude Code started the conversation again from after the compaction is not in the log: the "
              "request shown lacks it")
"""The note at the first response after a compaction, when no user line carried its summary."""

class ClaudeStreamJsonFormat(ClaudeCodeFormat):
    """Claude Code's stream-json output (the CLI's `-p` mode, the Agent SDK), one round per API response."""

    one_file = True

    name = "claude-stream-json"
    title = "Claude Code stream-json output"
    reads = ("'user', 'assistant', 'system' or 'result' lines with a snake_case 'session_id' (beside a turn's"
             " 'parent_tool_use_id')")
    request_id_key = "request_id"
    # The session log's `isMeta` and `isCompactSummary`, and the `isSynthetic` the SDK's user messages carry (the
    # summary a compaction starts again from, as Claude Code 2.1.x writes it after a compact_boundary line).
    program_keys = ("isMeta", "isCompactSummary", "isSynthetic")
    program = "Claude Code"
    """The program that wrote the output, as its notes name it."""
    no_prompt = NO_PROMPT
    """The note at a response whose prompt the output lacks."""
    prompt_missing = ("A user turn before this response is not in the log either (the person's prompt, which "
                      "stream-json echoes only with --replay-user-messages, or the summary a compaction started "
                      "from): the request shown lacks it.")
    """Said in the provenance of a request that lacks a user turn."""

    def refusal(self, obj: dict) -> str:
        # Claude Code's session log holds the same messages: what tells its lines apart is how they name the session.
        if "sessionId" in obj and "session_id" not in obj:
            return f"not read as {self.title}: its 'sessionId' (camel case) is a Claude Code session log's; " \
                   f"stream-json output names the session 'session_id'"
        return super().refusal(obj)

    def __init__(self) -> None:
        super().__init__()
        self._seen = False
        """True once a line of this file was recognized by one of stream-json's own keys."""
        self._offered: set[tuple] = set()
        """The (session, model, tools) of each init line already noted."""
        self._started: dict[str, str] = {}
        """Per conversation, the `message.id` of the last stream event's message_start."""
        self._run: dict[str, list] = {}
        """Per session, the usage of each round since its last `result` line (None where a round reported none)."""
        self._compacted_keys: set[str] = set()
        """The conversations compacted since their last response: the turn due is the summary, not a prompt."""
        self._amp_runs: set[str] = set()
        """The sessions a line of which was Amp's (amp_rule): their other lines are Amp's too."""

    def detect(self, obj: dict) -> str | None:
        if self._amp(obj):  # Amp's output in Claude Code's shapes: its own format's (AmpStreamJsonFormat)
            return None
        return self._detect(obj)

    def _amp(self, obj: dict) -> str | None:
        """Why the line is Amp's output, if it is: its own shape (amp_rule), or an earlier line of its session's.
        Both readers keep the same record, each line Claude Code's leaves going to Amp's next."""
        session = obj.get("session_id")
        rule = amp_rule(obj)
        if rule is not None:
            self._amp_runs.add(session)
            return rule
        if isinstance(session, str) and session in self._amp_runs:
            return "an earlier line of its session was Amp's"
        return None

    def _detect(self, obj: dict) -> str | None:
        """The rule of stream-json's shapes that recognizes the line, if one does."""
        kind = obj.get("type")
        keyed = "session_id" in obj
        if keyed and "parent_tool_use_id" in obj and kind in MESSAGE_TYPES + ("stream_event",):
            self._seen = True
            return "a line with 'session_id' and 'parent_tool_use_id' (Claude Code's stream-json output)"
        if keyed and kind == "system" and obj.get("subtype") == "init":
            self._seen = True
            return "a system init line with 'session_id' (Claude Code's stream-json output)"
        if self._seen and keyed and kind in MESSAGE_TYPES and isinstance(obj.get("message"), dict):
            # The summary a compaction starts again from comes as a user line without 'parent_tool_use_id' (2.1.207).
            return "a user or assistant line with 'session_id', after a line of Claude Code's stream-json output"
        if (keyed and kind in STREAM_TYPES) or (self._seen and kind in UNKEYED_TYPES):
            return "a result, system or other bookkeeping line of Claude Code's stream-json output"
        return None

    def goes_on(self, obj: dict) -> bool:
        # Every run's output begins with its system init line: a file that begins otherwise is the rest of one.
        return not (obj.get("type") == "system" and obj.get("subtype") == "init")

    def feed(self, obj: dict, line: int) -> Iterator[CallRecord]:
        kind = obj.get("type")
        if kind in MESSAGE_TYPES:
            if not isinstance(obj.get("session_id"), str) and obj.get("session_id") is not None:
                raise LineProblem("its 'session_id' is not a string")
            yield from super().feed(obj, line)
            if kind == "user":
                self._heard(obj)
            return
        if kind not in STREAM_TYPES:
            raise LineProblem("is no line of Claude Code's stream-json output: its 'type' is none of its types")
        self._not_calls += 1
        if kind == "system" and obj.get("subtype") == "init":
            self._init(obj, line)
        elif kind == "system" and obj.get("subtype") == "compact_boundary":
            yield from self._compacted(obj, line)
            conversation = self._conversations.get(self._conversation_of(obj))
            if conversation is not None:  # unless a user line carries the summary it starts from, the request lacks it
                conversation.prompt_due, conversation.prompts_unlogged = True, 0
                self._compacted_keys.add(self._conversation_of(obj))
        elif kind == "stream_event":
            self._stream_event(obj)
        elif kind == "result":
            yield from self._result(obj, line)

    def _heard(self, obj: dict) -> None:
        """A user line: one that carries more than tool results is the person's prompt, which the next response
        follows."""
        content = obj["message"].get("content")
        conversation = self._conversations.get(self._conversation_of(obj))
        if conversation is not None and (isinstance(content, str) or any(
                block.get("type") != "tool_result" for block in content)):
            conversation.prompt_due = False

    def _opening(self, key: str, conversation: _Conversation, line: int) -> bool:
        if conversation.prompt_due:
            conversation.prompts_unlogged += 1
            said = NO_SUMMARY if key in self._compacted_keys else self.no_prompt
            self._notes.append(Problem(line, said, conversation=key, loaded=True))
        conversation.prompt_due = False
        self._compacted_keys.discard(key)
        return conversation.prompts_unlogged > 0

    def _provenance(self, response: _Response) -> dict:
        return self._said(PROVENANCE["note"], response.lacks_prompt, unended(response))

    def _failed_provenance(self, lacks_prompt: bool) -> dict:
        return self._said(FAILED, lacks_prompt, "")

    def _said(self, note: str, lacks_prompt: bool, unended_words: str) -> dict:
        """A round's provenance as stream-json's: the session log's, named for this output, with what it lacks."""
        note = note.replace("a Claude Code session log", f"{self.program}'s stream-json output").replace(
            "Claude Code does not log", f"{self.program} does not log").replace(
            "Claude Code wrote this error", f"{self.program} wrote this error")
        omitted = list(PROVENANCE["omitted"])
        if lacks_prompt:
            note += " " + self.prompt_missing
            omitted.append("a user turn (the person's prompt)")
        if unended_words:
            note += " " + unended_words
        # Another program's run may offer no tools (its init line lists them): that one was sent is not said for it.
        return {**PROVENANCE, "note": note, "omitted": omitted, "sent": []}

    def _conversation_of(self, obj: dict) -> str:
        """`session <id>`; a subagent's lines (`parent_tool_use_id` set) the conversation of the Task call they
        answer to."""
        session = obj.get("session_id") if isinstance(obj.get("session_id"), str) else self._session
        self._session = session
        named = f"session {session}" if session else "session"
        parent = obj.get("parent_tool_use_id")
        return f"{named}, subagent of call {parent}" if isinstance(parent, str) and parent else named

    def _closed(self, record: CallRecord) -> None:
        usage = record.response.get("usage") if isinstance(record.response, dict) else None
        run = (record.conversation or "").split(", subagent")[0]
        self._run.setdefault(run, []).append(usage if isinstance(usage, dict) else None)

    def _init(self, obj: dict, line: int) -> None:
        """A note of the model and the tool names the run offered: names only, never the definitions."""
        tools = obj.get("tools")
        names = tuple(str(t) for t in tools) if isinstance(tools, list) else None
        model = obj.get("model") if isinstance(obj.get("model"), str) else None
        key = self._conversation_of(obj)
        if names is None or (key, model, names) in self._offered:
            return
        self._offered.add((key, model, names))
        started = f"was started with model {model} and " if model else ""
        if names:
            said = (f"offered {plural(len(names), 'tool')} by name ({', '.join(names)}): the log keeps their names "
                    "only, not their definitions, so the tool list is neither shown nor counted")
        else:
            said = "offered no tools"
        self._notes.append(Problem(line, f"{self.program}'s init line says the run {started}{said}",
                                   conversation=key, loaded=True))

    def _stream_event(self, obj: dict) -> None:
        """A stream event repeats a response the assistant lines carry: only the count its message_delta writes
        when the response ends is taken, as the response's usage."""
        event = require(obj, "event", dict)
        key = self._conversation_of(obj)
        if event.get("type") == "message_start" and isinstance(event.get("message"), dict):
            self._started[key] = event["message"].get("id")
        elif event.get("type") == "message_delta" and isinstance(event.get("usage"), dict):
            conversation = self._conversations.get(key)
            response = conversation.response if conversation is not None else None
            if response is not None and response.id is not None and response.id == self._started.get(key):
                response.usage = event["usage"]
                stop = event.get("delta", {}).get("stop_reason") if isinstance(event.get("delta"), dict) else None
                response.stop_reason = stop or response.stop_reason

    def _result(self, obj: dict, line: int) -> Iterator[CallRecord]:
        """A run's end: its responses are complete, the person's next prompt is due, and its totals are checked
        against the rounds'."""
        session = self._conversation_of(obj)
        for key, conversation in self._conversations.items():
            if key == session or key.startswith(session + ", subagent"):
                yield from self._close(key, conversation)
        if session in self._conversations:
            self._conversations[session].prompt_due = True
        rounds = self._run.pop(session, [])
        said = self._totals_differ(obj.get("usage"), rounds)
        ended = obj.get("subtype")
        if obj.get("is_error") is True or (isinstance(ended, str) and ended != "success"):
            # Its words (Amp's `error`; the `result` of a run that ended in error) say why: not only that it did.
            words = next((w for w in (obj.get("error"), obj.get("result")) if isinstance(w, str) and w.strip()), None)
            quoted = f" (its words: {json.dumps(shorten(words.strip(), 300), ensure_ascii=False)})" if words else ""
            said.append(f"the run ended with {ended if isinstance(ended, str) else 'an error'}{quoted}")
        if said:
            self._notes.append(Problem(line, "; ".join(said), conversation=session, loaded=True))

    @staticmethod
    def _totals_differ(usage: object, rounds: list) -> list[str]:
        """What a result line's totals say that the rounds since the run began do not, in words."""
        if not isinstance(usage, dict):
            return []
        reported = {word: int_or_none(usage.get(k)) for k, word in USAGE_KEYS}
        summed = {word: sum(int_or_none(u.get(k)) or 0 for u in rounds if u) for k, word in USAGE_KEYS}
        differ = [w for w, n in reported.items() if n is not None and n != summed[w] and (n or rounds)]
        if not differ:
            return []
        if not rounds:
            counts = ", ".join(f"{w} {reported[w]:,}" for w in differ)
            return [f"the result line reports usage ({counts}) for a run whose responses are not in the log"]
        both = ", ".join(f"{w} {reported[w]:,} against {summed[w]:,}" for w in differ)
        return [f"the result line's usage differs from the sum of the {plural(len(rounds), 'round')} read since the "
                f"run began ({both}); each round shows the counts its own lines report"]


AMP_THREAD = "T-"
"""How Amp's thread ids, its output's `session_id`, begin (`T-<uuid>`); Claude Code's session ids are bare UUIDs."""

CLAUDE_INIT_KEYS = ("model", "uuid", "apiKeySource", "permissionMode", "claude_code_version")
"""Keys of Claude Code's init line (the model, beside the working directory since 1.0): Amp's has none of them."""


def amp_rule(obj: dict) -> str | None:
    """The rule by which the line is Amp's (`amp -x --stream-json`, recorded from amp 0.0.1775837683), if one does:
    its `session_id` is an Amp thread id; or it is an init line naming the working directory and not the model; or
    an assistant line whose message has content and usage but neither the `id` nor the `model` of the API's response,
    which Claude Code copies whole (its own lines name the model `<synthetic>`), nor a line `uuid`."""
    session = obj.get("session_id")
    if not isinstance(session, str):
        return None
    if session.startswith(AMP_THREAD):
        return "whose 'session_id' is an Amp thread id (T-...)"
    kind, message = obj.get("type"), obj.get("message")
    if kind == "system" and obj.get("subtype") == "init" and "cwd" in obj and not any(
            key in obj for key in CLAUDE_INIT_KEYS):
        return "an init line naming the working directory but no model"
    if (kind == "assistant" and "uuid" not in obj and isinstance(message, dict)
            and isinstance(message.get("content"), list) and isinstance(message.get("usage"), dict)
            and "id" not in message and "model" not in message):
        return "an assistant line whose message has usage but no 'id' or 'model' of the API's response"
    return None


class AmpStreamJsonFormat(ClaudeStreamJsonFormat):
    """Amp's `--stream-json` output: Claude Code's stream-json shapes, written by Amp (amp_rule)."""

    name = "amp-stream-json"
    title = "Amp stream-json output"
    reads = "the stream-json lines of Amp: a 'session_id' that is a thread id ('T-...'), or Amp's own line shapes"
    program = "Amp"
    no_prompt = "the person's prompt before this response is not in the log: the request shown lacks it"
    prompt_missing = "A user turn before this response (the person's prompt) is not in the log either: the request " \
                     "shown lacks it."

    def detect(self, obj: dict) -> str | None:
        rule = self._amp(obj)
        # Amp writes no 'parent_tool_use_id': a user or assistant line of an Amp thread is its output also before any
        # line of stream-json's own was read (the rest of a run's file cut in two begins with one).
        if rule is None or not (self._detect(obj) or (obj.get("type") in MESSAGE_TYPES
                                                      and isinstance(obj.get("message"), dict))):
            return None
        return f"a line in Claude Code's stream-json shape {rule}: Amp's output" if rule.startswith("whose") else \
            f"a line in Claude Code's stream-json shape ({rule}): Amp's output"

    def _provenance(self, response: _Response) -> dict:
        # Whether Amp writes a line before its response ends is not known: its counts are shown as recorded.
        return self._said(PROVENANCE["note"], response.lacks_prompt, "")
