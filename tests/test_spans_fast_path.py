"""The span reader's fast path (GenAI spans looked up as their flat attributes, `spans._Plain`) reads
every span exactly as the general path (`spans._Attributes`, every lookup checked) does: the same
conversations, rounds, raw bodies, problems and notes, on every span fixture and on the bench's shapes."""

from pathlib import Path

import orjson
import pytest

from bench import import_otlp
from lib.logs import spans
from lib.logs.native import write_trace
from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures"
SPAN_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.jsonl")
                       if (b'"traceId"' in p.read_bytes() or b'"trace_id"' in p.read_bytes())
                       and b'"run_type"' not in p.read_bytes())  # LangSmith's runs name their trace too: no spans


def _everything(files: list[tuple[str, bytes]]) -> tuple:
    """All a user could see of an upload: each conversation as the trace file it saves to, problems, notes."""
    upload = read_upload(files)
    return (upload.summary(), upload.formats, [(c.id, list(write_trace(c.trace))) for c in upload.conversations],
            [str(p) for p in upload.problems], [str(n) for n in upload.notes])


def _both_paths(files: list[tuple[str, bytes]], monkeypatch) -> tuple[tuple, tuple, int]:
    """(fast path's reading, general path's reading, spans the fast path took)."""
    taken = []
    plain = spans._plain
    monkeypatch.setattr(spans, "_plain",
                        lambda flat, *objects: taken.append(1) or plain(flat, *objects) if plain(flat, *objects) else False)
    fast = _everything(files)
    with monkeypatch.context() as general:
        general.setattr(spans._Attributes, "DIRECT", False)
        slow = _everything(files)
    return fast, slow, len(taken)


def _agent_runs(runs: int) -> list[bytes]:
    """The bench's agent runs, a run's OTLP/JSON document per line."""
    return [orjson.dumps(import_otlp._document(import_otlp._conversation(n))) for n in range(runs)]


def test_every_span_fixture_is_read_alike_by_both_paths(monkeypatch):
    assert len(SPAN_FIXTURES) >= 7, SPAN_FIXTURES  # the real recordings and the documented shapes
    took = 0
    for name in SPAN_FIXTURES:
        fast, slow, taken = _both_paths([(name, (FIXTURES / name).read_bytes())], monkeypatch)
        assert fast == slow, name
        took += taken
    assert took >= 10  # the fast path was taken, so the comparison compares something


@pytest.mark.parametrize("as_document", [False, True], ids=["collector lines", "one document"])
def test_the_bench_agent_runs_are_read_alike_by_both_paths(monkeypatch, as_document):
    lines = _agent_runs(3)
    per_line, whole = import_otlp._as_files(lines)
    files = [("otlp.json", whole)] if as_document else [("otlp.jsonl", per_line)]
    fast, slow, taken = _both_paths(files, monkeypatch)
    assert fast == slow
    assert taken == 3 * 2 * import_otlp.ROUNDS
    unit = "document" if as_document else "line"
    assert fast[0] == f"{1 if as_document else 3} {unit}{'' if as_document else 's'}: 120 rounds in 3 conversations; " \
                      f"120 spans not model calls; 0 {unit}s skipped"


# Keys beside the ones a GenAI span reads that change what the general path's dotted lookup finds:
# above a path read, below one, a flattened list, an object value. The fast path must leave such a span alone.
ODD_KEYS = [
    {"gen_ai.request.model.version": "2024-07-18"},
    {"gen_ai.usage": "unknown"},
    {"gen_ai.response": "partial"},
    {"gen_ai.tool.definitions.0.name": "lookup_order"},
    {"llm.model_name": "gpt-4o-mini"},
    {"gen_ai.request.model": None},
    {"gen_ai.usage.input_tokens": "120"},
]


@pytest.mark.parametrize("extra", ODD_KEYS, ids=lambda e: next(iter(e)))
def test_spans_with_odd_keys_are_read_alike_by_both_paths(monkeypatch, extra):
    document = orjson.loads(_agent_runs(1)[0])
    for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] += import_otlp._attributes({k: v for k, v in extra.items() if v is not None})
        if None in extra.values():
            span["attributes"] = [a for a in span["attributes"] if a["key"] not in extra]
    fast, slow, taken = _both_paths([("otlp.jsonl", orjson.dumps(document))], monkeypatch)
    assert fast == slow
    assert taken == 0 or next(iter(extra)) in spans.PLAIN_PATHS  # odd keys send the spans the general way


def test_an_object_attribute_leaves_the_span_to_the_general_path():
    flat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": {"name": "gpt-4o"}}
    assert not spans._plain(flat)
    assert spans._plain({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"})


def test_a_reader_asking_the_fast_path_for_an_unchecked_path_fails_loudly():
    # Every path a GenAI span is read by must be in PLAIN_PATHS, or the fast path could answer None
    # where the general path finds a value; a new lookup not added there fails here, not silently.
    with pytest.raises(KeyError, match="PLAIN_PATHS"):
        spans._Plain({"gen_ai.operation.name": "chat"})["gen_ai.request.temperature"]
