"""What the importer tests share: fixtures fed line by line, converted bodies read back, hostile lines."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable, Iterator

from lib.dialects import anthropic_messages, openai_chat
from lib.dialects.common import Pools
from lib.logs.record import CallRecord, LineProblem, LogFormat

FIXTURES = Path(__file__).parent / "fixtures"

FOREIGN = {
    "a chat.completion body": {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1767607200, "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    },
    "a Chat Completions request": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"},
                                                                   {"role": "assistant", "content": "Hello"}]},
    "an Anthropic message body": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    },
    "a native header line": {"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"},
    "a native round line": {
        "kind": "round", "index": 1,
        "request": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]},
        "response": {"object": "chat.completion",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]},
        "executions": [],
    },
    "a native annotation line": {"kind": "annotation", "target": "round:1", "labels": ["ok"], "note": ""},
}
"""Objects other importers own: no format of this package may claim them."""

FIXTURE_FORMATS = {
    "openai-chat-stream.jsonl": "openai-chat-stream",
    "anthropic-stream.jsonl": "anthropic-stream",
    "openai-responses.jsonl": "openai-responses",
    "openai-batch-input.jsonl": "openai-batch",
    "openai-batch-output.jsonl": "openai-batch",
    "anthropic-batch-requests.jsonl": "anthropic-batch",
    "anthropic-batch-results.jsonl": "anthropic-batch",
    "openai-finetune.jsonl": "openai-finetune",
    "otel-genai.jsonl": "spans",
    "otel-genai-legacy.jsonl": "spans",
    "openinference.jsonl": "spans",
    "otlp-resource-spans.jsonl": "spans",
    "gemini.jsonl": "gemini",
    "gemini-stream.jsonl": "gemini",
    "ollama-chat.jsonl": "ollama",
    "ollama-chat-cloud.jsonl": "ollama",
    "bedrock-converse.jsonl": "bedrock-converse",
    "sharegpt-glaive.jsonl": "sharegpt",
    "sharegpt-hermes.jsonl": "sharegpt",
    "sharegpt-hermes-agent.jsonl": "sharegpt",
    "goose-session.jsonl": "goose-session",
    "openhands-completions.jsonl": "openhands-completions",
    "openhands-output.jsonl": "openhands-trajectory",
    "openhands-resolver-output.jsonl": "openhands-trajectory",
    "langsmith-runs.jsonl": "langsmith",
    # Written for the request/response pair importers; none of the formats here may claim them.
    "openai-pairs.jsonl": None,
    "anthropic-pairs.jsonl": None,
    "bare-responses.jsonl": None,
    "litellm.jsonl": None,
    "openai-error.jsonl": None,
    "requests-only.jsonl": None,
}
"""Which format each fixture is written in."""

ODD_VALUES = (None, 0, -1, "", "x", [], {}, [None], True)
"""What a mutated line puts in place of a value."""


def lines(name: str) -> list[dict]:
    """A fixture's lines, parsed."""
    return [json.loads(text) for text in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if text.strip()]


def feed(fmt: LogFormat, objs: list[dict]) -> list[CallRecord]:
    """Feed objects as lines 1..n, then finish; a LineProblem fails the test."""
    records: list[CallRecord] = []
    for number, obj in enumerate(objs, start=1):
        records.extend(fmt.feed(obj, number))
    records.extend(fmt.finish())
    return records


def feed_files(fmt: LogFormat, *names: str) -> list[CallRecord]:
    """Feed fixture files one after the other into one instance, as an upload of several files does."""
    records: list[CallRecord] = []
    for name in names:
        for number, obj in enumerate(lines(name), start=1):
            records.extend(fmt.feed(obj, number))
    records.extend(fmt.finish())
    return records


def problems(fmt: LogFormat, objs: list[dict], *, finish: bool = True) -> tuple[list[CallRecord], dict[int, str]]:
    """Feed objects, collecting each line's LineProblem instead of failing; finish unless another file follows."""
    records: list[CallRecord] = []
    found: dict[int, str] = {}
    for number, obj in enumerate(objs, start=1):
        try:
            records.extend(fmt.feed(obj, number))
        except LineProblem as problem:
            found[number] = str(problem)
    if finish:
        records.extend(fmt.finish())
    return records, found


def read(record: CallRecord, pools: Pools | None = None):
    """(Request | None, Response | None) read from a record's bodies as the app reads them."""
    dialect = {"openai-chat": openai_chat, "anthropic-messages": anthropic_messages}[record.dialect]
    pools = pools or Pools()
    request = dialect.read_request(record.request, pools) if record.request is not None else None
    response = dialect.read_response(record.response, pools) if record.response is not None else None
    return request, response


def calls(response) -> list[tuple[str, str]]:
    """(id, name) of each call intent a response made."""
    return [(c.id, c.name) for c in response.message.tool_calls]


def results(request) -> list[str]:
    """The call ids answered anywhere in a request, in order."""
    return [r.call_id for m in request.messages for r in m.tool_results]


def claimed(fmt: LogFormat, name: str) -> list[str | None]:
    """The rule `fmt.detect` gives each line of a fixture."""
    return [fmt.detect(obj) for obj in lines(name)]


def assert_detects_only_its_own(make: Callable[[], LogFormat]) -> None:
    """The format claims every line of its fixtures and nothing of anyone else's."""
    fmt = make()
    for label, obj in FOREIGN.items():
        assert fmt.detect(obj) is None, f"{fmt.name} claims {label}"
    for name, owner in FIXTURE_FORMATS.items():
        if not (FIXTURES / name).exists():
            continue
        rules = claimed(fmt, name)
        if owner == fmt.name:
            assert all(isinstance(rule, str) and rule for rule in rules), f"{fmt.name} misses lines of {name}"
        else:
            assert rules == [None] * len(rules), f"{fmt.name} claims lines of {name}"


def mutations(value: Any, depth: int = 7) -> Iterator[tuple[str, Any]]:
    """(path, copy of `value` with one place changed) for each place and odd value, and each key removed."""
    for path, parent, key in _places(value, "", depth):
        for odd in ODD_VALUES:
            changed = copy.deepcopy(value)
            _locate(changed, path)[key] = copy.deepcopy(odd)
            yield f"{path}/{key}={odd!r}", changed
        if isinstance(parent, dict):
            changed = copy.deepcopy(value)
            del _locate(changed, path)[key]
            yield f"{path}/{key} removed", changed


def _places(value: Any, path: str, depth: int) -> Iterator[tuple[str, Any, Any]]:
    if depth == 0:
        return
    keys = list(value) if isinstance(value, dict) else range(len(value)) if isinstance(value, list) else ()
    for key in keys:
        yield path, value, key
        yield from _places(value[key], f"{path}/{key}", depth - 1)


def _locate(value: Any, path: str) -> Any:
    for step in filter(None, path.split("/")):
        value = value[int(step)] if isinstance(value, list) else value[step]
    return value


def assert_only_line_problems(make: Callable[[], LogFormat], objs: list[dict], *, stride: int = 1) -> int:
    """Every one-place mutation of every line: detect() and finish() never raise, feed() raises only LineProblem.

    Returns how many mutated uploads were read, so a test can check it really tried.
    """
    failures: list[str] = []
    tried = 0
    for position in range(0, len(objs), stride):
        for where, mutated in mutations(objs[position]):
            tried += 1
            fmt = make()
            try:
                fmt.detect(mutated)
                for number, obj in enumerate([*objs[:position], mutated, *objs[position + 1:]], start=1):
                    try:
                        list(fmt.feed(obj, number))
                    except LineProblem as problem:
                        assert str(problem), "a LineProblem without words"
                list(fmt.finish())
            except Exception as exc:  # noqa: BLE001 - the point is to catch anything else
                failures.append(f"line {position + 1} {where}: {type(exc).__name__}: {exc}")
    assert not failures, f"{len(failures)} of {tried} mutations raised:\n" + "\n".join(failures[:40])
    return tried
