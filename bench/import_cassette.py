"""Importing a 1,000-call VCR cassette, against parsing the same bodies with orjson alone (issue 16's bench line).

The cassette is synthesised in the two shapes recorders write (see tests/fixtures/containers/):
- vcrpy / pytest-recording: each body as JSON text (`body: '{...}'`, `body: {string: '{...}'}`);
- pydantic-ai: each body as YAML (`parsed_body:`), the JSON already turned into mappings.

Each is 25 agent runs of 40 Chat Completions calls, each call resending the history before it, as
agents do. The baseline is `orjson.loads` of every request and response body written as JSON: what
the import would cost if the bodies came as a JSON-lines log. PyYAML's C safe loader
(`yaml.load(..., CSafeLoader)`) is timed on its own, since it is most of the import.

Target: import time ÷ `orjson.loads` time at most 1.5.

    .venv/bin/python -m bench.import_cassette
"""

from __future__ import annotations

import orjson
import yaml

from bench.timing import best_of
from bench.import_otlp import print_outcome
from lib.intern import collector_paused
from lib.logs.documents import YAML_LOADER
from lib.logs.upload import read_upload

CONVERSATIONS = 25
ROUNDS = 40
"""Calls per run: 25 × 40 = 1,000 calls in the cassette."""
TIME_TARGET = 1.5
URI = "https://api.openai.com/v1/chat/completions"

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_TOOLS = [{"type": "function", "function": {
    "name": "lookup_order", "description": "Look up an order.", "strict": True,
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"],
                   "additionalProperties": False}}}]


def _calls(number: int) -> list[tuple[dict, dict]]:
    """One agent run: ROUNDS (request body, response body) pairs, each request resending the history."""
    history: list[dict] = [{"role": "system", "content": "You are a helpful assistant."},
                           {"role": "user", "content": f"Run {number}: where are my orders? " * 4}]
    pairs = []
    for round_ in range(ROUNDS):
        call_id = f"call_{number}_{round_}"
        message = {"role": "assistant", "content": None, "refusal": None, "annotations": [], "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "lookup_order", "arguments": orjson.dumps({"order_id": f"A-{number}-{round_}"}).decode()}}]}
        request = {"messages": list(history), "model": "gpt-4.1-mini", "stream": False, "tool_choice": "auto", "tools": _TOOLS}
        response = {"id": f"chatcmpl-{number}-{round_}", "object": "chat.completion", "created": 1769747647 + round_,
                    "model": "gpt-4.1-mini-2025-04-14",
                    "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}],
                    "usage": {"prompt_tokens": 60 + 30 * round_, "completion_tokens": 18, "total_tokens": 78 + 30 * round_}}
        pairs.append((request, response))
        result = f'{{"order": "A-{number}-{round_}", "status": "shipped", "eta": "2026-01-0{round_ % 9 + 1}"}}'
        history += [message, {"role": "tool", "tool_call_id": call_id, "content": result}]
    return pairs


def _headers(content_type: str, length: int) -> dict:
    return {"content-type": [content_type], "content-length": [str(length)], "connection": ["keep-alive"]}


def _interaction(request: dict, response: dict, parsed: bool) -> dict:
    """One interaction as vcrpy writes it (bodies as JSON text) or as pydantic-ai does (`parsed_body`)."""
    sent, answer = orjson.dumps(request).decode(), orjson.dumps(response).decode()
    if parsed:  # copies: a shared object would be written as a YAML alias, which the importer refuses
        return {"request": {"headers": _headers("application/json", len(sent)), "method": "POST",
                            "parsed_body": orjson.loads(sent), "uri": URI},
                "response": {"headers": _headers("application/json", len(answer)), "parsed_body": orjson.loads(answer),
                             "status": {"code": 200, "message": "OK"}}}
    return {"request": {"body": sent, "headers": _headers("application/json", len(sent)), "method": "POST", "uri": URI},
            "response": {"body": {"string": answer}, "headers": _headers("application/json", len(answer)),
                         "status": {"code": 200, "message": "OK"}}}


def synthetic_cassette(parsed: bool) -> tuple[bytes, list[bytes]]:
    """(the cassette's bytes, every body as JSON bytes) for CONVERSATIONS × ROUNDS calls."""
    pairs = [pair for number in range(CONVERSATIONS) for pair in _calls(number)]
    document = {"interactions": [_interaction(request, response, parsed) for request, response in pairs], "version": 1}
    data = yaml.dump(document, Dumper=_DUMPER, default_flow_style=False, allow_unicode=True, width=1 << 30).encode()
    return data, [orjson.dumps(body) for pair in pairs for body in pair]


def main() -> dict:
    result: dict = {"calls": CONVERSATIONS * ROUNDS}
    for label, parsed in (("vcrpy (JSON text bodies)", False), ("pydantic-ai (parsed_body)", True)):
        data, bodies = synthetic_cassette(parsed)

        def parse_only(bodies=bodies):
            with collector_paused():
                for body in bodies:
                    orjson.loads(body)

        def yaml_only(data=data):
            with collector_paused():
                yaml.load(data, Loader=YAML_LOADER)  # noqa: S506 - the safe loader, as the importer uses

        def import_cassette(data=data):
            upload = read_upload([("cassette.yaml", data)])
            assert upload.rounds == CONVERSATIONS * ROUNDS and len(upload.conversations) == CONVERSATIONS, upload.summary()

        parse_s, yaml_s, import_s = best_of(3, parse_only), best_of(2, yaml_only), best_of(2, import_cassette)
        result[f"{label}: size (MB)"] = round(len(data) / 1e6, 1)
        result[f"{label}: orjson.loads of the bodies (s)"] = round(parse_s, 3)
        result[f"{label}: YAML load alone (s)"] = round(yaml_s, 3)
        result[f"{label}: import (s)"] = round(import_s, 3)
        result[f"{label}: time ratio"] = round(import_s / parse_s, 2)
    result["time target"] = TIME_TARGET
    return result


if __name__ == "__main__":
    print_outcome(main())
