"""Importing a 1,000-call VCR cassette, against the fastest way to read the cassette itself (issue 16's bench line).

The cassette is synthesised in the two shapes recorders write (see tests/fixtures/containers/):
- vcrpy / pytest-recording: each body as JSON text (`body: '{...}'`, `body: {string: '{...}'}`);
- pydantic-ai: each body as YAML (`parsed_body:`), the JSON already turned into mappings.

Each is 25 agent runs of 40 Chat Completions calls, each call resending the history before it, as
agents do. Baselines, each timed on the same bytes in the same run:
- the container: `yaml.load(data, CSafeLoader)`, PyYAML's fastest safe load of the whole file, with
  nothing done to what it returns. The target is on this one: import time ÷ it at most 1.5.
- the recorder's own load: vcrpy's `vcr.serialize.deserialize` (when vcrpy is importable; it is not a
  dependency of the project) for the vcrpy shape; `yaml.safe_load` for pydantic-ai's, the pure-Python
  loader its tests' cassette serializer calls (it then also writes every `parsed_body` back as JSON,
  which is not timed here: a lower bound).
- `orjson.loads` of every body written as JSON: what the same calls would cost as a JSON-lines log.
  A cassette's bodies are YAML (pydantic-ai) or JSON inside YAML strings (vcrpy), so this is far
  below what any YAML reader can do; it is printed for scale, not as the target.

Every figure is CPU time (`time.process_time`), the best of 3 taken in turn (the recorders' own
loads: one run).

    .venv/bin/python -m bench.import_cassette
"""

from __future__ import annotations

import time

import orjson
import yaml

from bench.timing import best_of, best_of_each
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


def _recorder_load(parsed: bool):
    """The recorder's own load of a cassette, or None when it cannot be run here."""
    if parsed:
        return "pydantic-ai's own load (yaml.safe_load, lower bound)", lambda data: yaml.safe_load(data)
    try:
        from vcr import serialize
        from vcr.serializers import yamlserializer
    except ImportError:
        return None
    return "vcrpy's own load (vcr.serialize.deserialize)", lambda data: serialize.deserialize(data.decode(), yamlserializer)


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

        yaml_s, import_s, parse_s = best_of_each(3, yaml_only, import_cassette, parse_only, clock=time.process_time)
        result[f"{label}: size (MB)"] = round(len(data) / 1e6, 1)
        result[f"{label}: import (s)"] = round(import_s, 3)
        result[f"{label}: yaml.load with CSafeLoader (s)"] = round(yaml_s, 3)
        result[f"{label}: time ratio (import ÷ CSafeLoader load)"] = round(import_s / yaml_s, 2)
        recorder = _recorder_load(parsed)
        if recorder is None:
            result[f"{label}: vcrpy's own load"] = "vcrpy not importable here (pip install vcrpy to compare)"
        else:
            name, load = recorder

            def recorder_only(data=data, load=load):
                with collector_paused():
                    load(data)

            recorder_s = best_of(1, recorder_only, time.process_time)  # pure-Python YAML: one run is a minute
            result[f"{label}: {name} (s)"] = round(recorder_s, 3)
            result[f"{label}: import ÷ {name.split(' (')[0]}"] = round(import_s / recorder_s, 2)
        result[f"{label}: orjson.loads of the bodies as JSON, for scale (s)"] = round(parse_s, 3)
        result[f"{label}: import ÷ orjson.loads of the bodies"] = round(import_s / parse_s, 1)
    result["time target"] = TIME_TARGET
    return result


if __name__ == "__main__":
    print_outcome(main())
