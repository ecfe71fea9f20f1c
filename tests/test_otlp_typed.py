"""The typed reader of OTLP/JSON documents (lib/logs/otlp_typed.py, msgspec structs), one-document files
and collector lines alike, reads every document exactly as parsing it into dicts does: the same
conversations, rounds, raw bodies, problems and notes, on every span fixture, on the bench's shapes, on
documents with the envelope's odd but valid shapes (which it leaves to the general reader) and on
damaged documents."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import import_otlp
from lib.logs import otlp_typed
from lib.logs.native import write_trace
from lib.logs.upload import read_upload
from tests.damage import HOSTILE_VALUES, Recording, cut, damaged, garbled, paths
from tests.test_upload_damaged import FEW

FIXTURES = Path(__file__).parent / "fixtures"
SPAN_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.jsonl")
                       if (b'"traceId"' in p.read_bytes() or b'"trace_id"' in p.read_bytes())
                       and b'"run_type"' not in p.read_bytes())  # LangSmith's runs name their trace too: no spans


def _document_of(name: str) -> dict:
    """A span fixture as one OTLP/JSON document: its documents' resources, or its spans in one scope."""
    values = [json.loads(line) for line in (FIXTURES / name).read_bytes().splitlines() if line.strip()]
    resources = [r for v in values if "resourceSpans" in v for r in v["resourceSpans"]]
    spans = [v for v in values if "resourceSpans" not in v]
    if spans:
        resources.append({"scopeSpans": [{"spans": spans}]})
    return {"resourceSpans": resources}


def _everything(data: bytes, name: str) -> tuple:
    """All a user could see of an upload: each conversation as the trace file it saves to, problems, notes."""
    upload = read_upload([(name, data)])
    return (upload.summary(), upload.formats, [(c.id, list(write_trace(c.trace))) for c in upload.conversations],
            [str(p) for p in upload.problems], [str(n) for n in upload.notes])


DOCUMENT, LINES = "spans.json", "spans.jsonl"
"""A one-document file and collector lines (both decoded by otlp_typed.decode_unrepeated)."""


def _both_readers(data: bytes, monkeypatch, name: str = DOCUMENT) -> tuple[tuple, tuple, bool]:
    """(the typed reader's reading, the general reader's, whether the typed decoder took a document)."""
    taken = []
    for decoder in ("decode", "decode_unrepeated"):
        decode = getattr(otlp_typed, decoder)
        monkeypatch.setattr(otlp_typed, decoder, lambda d, decode=decode: taken.append(found := decode(d)) or found)
    typed = _everything(data, name)
    with monkeypatch.context() as general:
        for decoder in ("decode", "decode_unrepeated"):
            general.setattr(otlp_typed, decoder, lambda d: None)
        slow = _everything(data, name)
    return typed, slow, any(found is not None for found in taken)


def test_every_span_fixture_as_one_document_is_read_alike_by_both_readers(monkeypatch):
    took = []
    for name in SPAN_FIXTURES:
        typed, general, taken = _both_readers(orjson.dumps(_document_of(name)), monkeypatch)
        assert typed == general, name
        assert typed[2], name  # conversations came out, so the comparison compares something
        took.append(taken)
    # The fixtures whose times, ids and values are OTLP's own are taken; the SDK dumps' ISO times are not.
    assert sum(took) >= 5, dict(zip(SPAN_FIXTURES, took))


def test_every_span_fixture_as_lines_is_read_alike_by_both_readers(monkeypatch):
    took = []
    for name in SPAN_FIXTURES:
        typed, general, taken = _both_readers((FIXTURES / name).read_bytes(), monkeypatch, LINES)
        assert typed == general, name
        took.append(taken)
    # Lines under resent.SMALL_LINE are parsed whole as before; the OTLP documents longer than that are taken.
    assert sum(took) >= 3, dict(zip(SPAN_FIXTURES, took))


@pytest.mark.parametrize("name", [DOCUMENT, LINES])
def test_the_bench_agent_runs_are_read_alike_by_both_readers(monkeypatch, name):
    lines = [orjson.dumps(import_otlp._document(import_otlp._conversation(n))) for n in range(3)]
    per_line, whole = import_otlp._as_files(lines)
    typed, general, taken = _both_readers(whole if name == DOCUMENT else per_line, monkeypatch, name)
    assert taken and typed == general
    # Each model call's tool span is read as its execution, and counted as a span that is no model call.
    assert typed[0] == ("1 document: 120 rounds in 3 conversations; 120 spans not model calls; 0 documents skipped"
                        if name == DOCUMENT
                        else "3 lines: 120 rounds in 3 conversations; 120 spans not model calls; 0 lines skipped")


def _agent_document() -> dict:
    return orjson.loads(orjson.dumps(import_otlp._document(import_otlp._conversation(0)[:6])))


def _first_span(document: dict) -> dict:
    return document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]


def _value(key: str, value: dict) -> dict:
    return {"key": key, "value": value}


# (what is changed, the change, whether the typed reader takes the document). Valid OTLP/JSON all of it:
# what the typed reader does not read as the general reader does, it must leave to the general reader.
SHAPES = [
    ("trace id under another key", lambda d: _first_span(d).update(traceId="", trace_id="ab" * 16), False),
    ("times as numbers", lambda d: _first_span(d).update(startTimeUnixNano=1, endTimeUnixNano=2), False),
    ("times as ISO text", lambda d: _first_span(d).update(startTimeUnixNano="2026-01-05T10:00:00Z"), False),
    ("an array value", lambda d: _first_span(d)["attributes"].append(_value(
        "gen_ai.response.finish_reasons", {"arrayValue": {"values": [{"stringValue": "tool_calls"}]}})), True),
    ("a null array", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.response.finish_reasons",
                                                                         {"arrayValue": None})), True),
    ("an integral double", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.request.temperature",
                                                                               {"doubleValue": 1})), True),
    ("a double past 64 bits", lambda d: _first_span(d)["attributes"].append(_value(
        "gen_ai.usage.input_tokens", {"doubleValue": 2 ** 70})), True),
    ("a double below int64", lambda d: _first_span(d)["attributes"].append(_value(
        "gen_ai.usage.input_tokens", {"doubleValue": -2 ** 63 - 1})), True),
    ("a key-value list", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.request.model", {
        "kvlistValue": {"values": [{"key": "name", "value": {"boolValue": True}}, {"value": None}]}})), False),
    ("a bool beside a string", lambda d: _first_span(d)["attributes"].append(_value(
        "gen_ai.response.id", {"boolValue": False, "stringValue": "x"})), True),
    ("an int64 as a number", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.usage.input_tokens",
                                                                                 {"intValue": 7})), False),
    ("an AnyValue of two kinds", lambda d: _first_span(d)["attributes"].append(_value(
        "gen_ai.usage.input_tokens", {"stringValue": "x", "intValue": "9"})), True),
    ("a null string", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.response.id",
                                                                          {"stringValue": None})), False),
    ("an empty AnyValue", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.response.id", {})), True),
    ("an attribute without a value", lambda d: _first_span(d)["attributes"].append({"key": "gen_ai.response.id"}), False),
    ("attributes as an object", lambda d: _first_span(d).update(attributes={"gen_ai.operation.name": "chat"}), False),
    ("no attributes", lambda d: _first_span(d).pop("attributes"), True),
    ("a repeated attribute", lambda d: _first_span(d)["attributes"].append(_value("gen_ai.request.model",
                                                                                 {"stringValue": "o3"})), True),
    ("an error status", lambda d: _first_span(d).update(status={"code": 2, "message": "rate limited"}), True),
    ("a status code as text", lambda d: _first_span(d).update(status={"code": "STATUS_CODE_ERROR"}), True),
    ("a status without a message", lambda d: _first_span(d).update(status={"status_code": "ERROR", "message": ""}), True),
    ("a status of another field", lambda d: _first_span(d).update(status={"code": 2, "reason": "quota"}), False),
    ("a trace id written 0x", lambda d: _first_span(d).update(traceId="0x" + _first_span(d)["traceId"]), True),
    ("the old scope key", lambda d: d["resourceSpans"][0].update(
        instrumentationLibrarySpans=d["resourceSpans"][0].pop("scopeSpans")), False),
    ("a resource without spans", lambda d: d["resourceSpans"].insert(0, {"resource": {}}), True),
    ("a scope without spans", lambda d: d["resourceSpans"][0]["scopeSpans"].insert(0, {"scope": {}}), True),
    ("a key beside resourceSpans", lambda d: d.update(schemaUrl="https://opentelemetry.io/schemas/1.26.0"), False),
    ("a span that is not an object", lambda d: d["resourceSpans"][0]["scopeSpans"][0]["spans"].append("span"), False),
    ("end before start", lambda d: _first_span(d).update(endTimeUnixNano="1"), True),
]


@pytest.mark.parametrize("name", [DOCUMENT, LINES])
@pytest.mark.parametrize("change, taken", [(s[1], s[2]) for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_odd_but_valid_envelopes_are_read_alike_by_both_readers(monkeypatch, change, taken, name):
    document = _agent_document()
    change(document)
    typed, general, took = _both_readers(json.dumps(document).encode(), monkeypatch, name)
    assert typed == general
    # A field's default written (a null, as in the key-value list) is written back without it, one quote pair short,
    # and left to the general reader, which checks for keys written twice (decode_unrepeated). A line under
    # resent.SMALL_LINE is parsed whole: lines take at most what documents take.
    assert took == taken if name == DOCUMENT else took <= taken


def test_a_line_that_writes_a_key_twice_is_refused_alike_by_both_readers(monkeypatch):
    # orjson keeps the last value of a key written twice, as msgspec does; the line reader refuses such a
    # line (readers disagree on it), so the typed reader must not take it.
    data = json.dumps(_agent_document()).encode().replace(b'"kind": 3', b'"kind": 3, "kind": 1', 1)
    typed, general, took = _both_readers(data, monkeypatch, LINES)
    assert typed == general and not took
    assert "twice in one object" in typed[3][0]


@pytest.mark.parametrize("name, unit", [(DOCUMENT, "document"), (LINES, "line")])
def test_a_recorded_export_that_writes_a_key_twice_is_refused_as_one_document_as_it_is_as_a_line(monkeypatch, name,
                                                                                                  unit):
    # The same export as a `.json` file loaded silently, as if the key were written once (orjson and msgspec keep
    # its last value, other readers its first: the model gpt-4o here, gpt-4.1-mini there), where as a collector's
    # line it was refused.
    data = (FIXTURES / "otlp-span-per-call.jsonl").read_bytes().replace(
        b'"gen_ai.request.model","value":{"stringValue":"gpt-4.1-mini"}',
        b'"gen_ai.request.model","value":{"stringValue":"gpt-4.1-mini","stringValue":"gpt-4o"}', 1)
    typed, general, took = _both_readers(data, monkeypatch, name)
    assert typed == general and not took
    assert typed[0] == f"1 {unit}: 0 rounds in 0 conversations; 1 {unit} skipped"
    assert typed[3] == [f"line 1: has 'stringValue' twice in one object; readers disagree on which value counts, "
                        f"so the {unit} is skipped"]


def test_a_document_the_typed_reader_leaves_alone_is_still_read():
    document = _agent_document()
    _first_span(document)["attributes"].append(_value("gen_ai.request.temperature", {"doubleValue": "0.2"}))
    assert otlp_typed.decode(orjson.dumps(document)) is None
    assert read_upload([("spans.json", orjson.dumps(document))]).summary() == \
        "1 document: 3 rounds in 1 conversation; 3 spans not model calls; 0 documents skipped"


# Bytes orjson refuses in the fields the span reader does not read: the typed reader must refuse them too
# (a decoder that skipped those fields unread would load a document that parsing it whole cannot).
UNREAD = [
    ("a byte that is not UTF-8", b'"name": "chat gpt-4o-mini"', b'"name": "chat \xff"'),
    ("a surrogate written in UTF-8", b'"name": "chat gpt-4o-mini"', b'"name": "chat \xed\xa0\x80"'),
    ("a number beyond a double", b'"kind": 3', b'"kind": 1e400'),
    ("an integer beyond 64 bits", b'"kind": 3', b'"kind": 123456789012345678901234567890'),
    ("a key the schema does not have", b'"kind": 3', b'"kind": 3, "extra": {"deep": [[[1]]]}'),
    ("nesting past orjson's limit", b'"kind": 3', b'"kind": 3, "extra": ' + b"[" * 1100 + b"]" * 1100),
    ("an array nested in an array", b'"status": {}', b'"status": {}, "attributes": [{"key": "k", "value": '
                                                   b'{"arrayValue": {"values": [{"arrayValue": {}}]}}}]'),
]


@pytest.mark.parametrize("name", [DOCUMENT, LINES])
@pytest.mark.parametrize("found, written", [u[1:] for u in UNREAD], ids=[u[0] for u in UNREAD])
def test_bytes_orjson_refuses_in_fields_not_read_are_refused_alike(monkeypatch, found, written, name):
    data = json.dumps(_agent_document()).encode()
    assert found in data
    broken = data.replace(found, written.decode("unicode_escape").encode("latin-1"), 1)
    typed, general, _ = _both_readers(broken, monkeypatch, name)
    assert typed == general


def _recording() -> Recording:
    return Recording("spans.json", _document_of("otlp-span-per-call.jsonl"), lambda doc: json.dumps(doc).encode())


@pytest.mark.parametrize("name", [DOCUMENT, LINES])
def test_any_field_of_a_document_replaced_by_any_value_is_read_alike_by_both_readers(monkeypatch, name):
    recording = _recording()
    took = []

    @FEW
    @given(st.sampled_from(list(paths(recording.values))), HOSTILE_VALUES)
    def replace_one(path, value):
        typed, general, taken = _both_readers(damaged(recording, path, value), monkeypatch, name)
        assert typed == general
        took.append(taken)

    replace_one()
    assert 0 < sum(took) < len(took)  # both kinds of damage: the kind the typed reader takes, and the kind it leaves


@pytest.mark.parametrize("name", [DOCUMENT, LINES])
def test_a_document_cut_or_garbled_is_read_alike_by_both_readers(monkeypatch, name):
    data = _recording().write(_recording().values)

    @FEW
    @given(st.integers(0, len(data)), st.binary(min_size=1, max_size=12) | st.sampled_from(
        [b'"', b"]", b'\\"', b'"}', b"\xff", b"\\ud800"]), st.booleans())
    def break_it(at, junk, cut_it):
        broken = cut(data, at) if cut_it else garbled(data, at, junk)
        typed, general, taken = _both_readers(broken, monkeypatch, name)
        assert typed == general
        took.append(taken)

    took = []
    break_it()
    assert 0 < sum(took) < len(took)
