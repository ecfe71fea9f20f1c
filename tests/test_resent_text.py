"""Reading OTLP spans' resent `gen_ai.input.messages` strings from the earlier strings they extend:
the same values as parsing each line whole, and the resent bytes not read again."""

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.logs.resent import ResentParser
from lib.logs.resent_text import ResentTexts
from tests.test_resent_parser import _assert_parses_like_orjson

SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "Answer from the order records only. " * 120}]}


def _span(history: list[dict], number: int) -> dict:
    """A chat span as opentelemetry-instrumentation-openai-v2 writes it: the input as JSON text."""
    return {"traceId": f"{number:032x}", "spanId": f"{number:016x}", "name": "chat gpt-4o-mini",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(history)}}]}


def _history(rounds: int, run: str = "") -> list[list[dict]]:
    """Each call's input: the one before it with an answer and a tool result appended."""
    inputs, history = [], [SYSTEM, {"role": "user", "parts": [{"type": "text", "content": f"Where is order 7?{run}"}]}]
    for k in range(rounds):
        inputs.append(history)
        history = history + [
            {"role": "assistant", "parts": [{"type": "tool_call", "id": f"c{k}", "name": "lookup", "arguments": {"k": k}}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"c{k}", "response": f"shipped — “{k}” \\ \"ok\""}]}]
    return inputs


def _document(spans: list[dict], spaced: bool = False) -> bytes:
    document = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    return json.dumps(document, separators=(", ", ": ") if spaced else (",", ":"), ensure_ascii=False).encode()


def test_a_document_of_one_run_reads_each_calls_history_once_and_gives_what_orjson_gives():
    document = _document([_span(history, n) for n, history in enumerate(_history(12))])
    reader = ResentTexts(orjson.loads)
    assert reader.parse(document) == orjson.loads(document)
    # Every string after the first resends the one before it, all but its closing bracket.
    resent = sum(len(json.dumps(json.dumps(h))) - 3 for h in _history(12)[:-1])
    assert reader.saved_bytes >= resent - 12 * 4


def test_collector_lines_reuse_strings_across_lines_and_interleaved_runs():
    runs = [_history(8, run=f" (run {r})") for r in range(3)]
    lines = [_document([_span(runs[r][k], 10 * r + k)]) for k in range(8) for r in range(3)]
    parser = ResentParser()
    for line in lines:
        assert parser.parse(line) == orjson.loads(line)
    assert parser.texts.saved_bytes > 0.6 * sum(map(len, lines))


def test_spaced_documents_and_json_dumps_escapes_are_read_the_same():
    for spaced in (False, True):
        document = _document([_span(history, n) for n, history in enumerate(_history(5))], spaced=spaced)
        reader = ResentTexts(orjson.loads)
        assert reader.parse(document) == orjson.loads(document)
        assert reader.saved_bytes > 0


def test_a_string_that_is_not_an_array_and_a_key_that_only_ends_in_the_name_are_left_to_the_whole_parse():
    spans = [_span(history, n) for n, history in enumerate(_history(4))]
    spans[1]["attributes"][1]["value"]["stringValue"] = "not JSON ] at all"
    spans[2]["attributes"].insert(0, {"key": 'x"gen_ai.input.messages', "value": {"stringValue": "[1]"}})
    spans[3]["attributes"][1]["value"] = {"stringValue": "[]", "other": '"gen_ai.input.messages","value":{"stringValue":"['}
    document = _document(spans)
    assert ResentTexts(orjson.loads).parse(document) == orjson.loads(document)


def test_a_broken_or_repeated_key_line_is_refused_as_the_whole_parse_refuses_it():
    inputs = _history(3)
    parser = ResentParser()
    parser.parse(_document([_span(inputs[0], 1), _span(inputs[1], 2)]))
    broken = _document([_span(inputs[2], 3)]).replace(b'"role', b'"ro\\le', 1)
    with pytest.raises(orjson.JSONDecodeError):
        parser.parse(broken)
    repeated = _document([_span(inputs[2], 3)]).replace(b'"name":', b'"traceId":"x","name":', 1)
    with pytest.raises(ValueError, match="'traceId' twice"):
        parser.parse(repeated)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=10)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(_TEXT, min_size=1, max_size=6),
    spaced=st.booleans(),
    mutations=st.lists(st.tuples(st.integers(0, 40_000), st.integers(0, 255)), max_size=3),
)
def test_random_runs_with_random_byte_changes_parse_as_orjson_does(texts, spaced, mutations):
    history, spans = [SYSTEM], []
    for n, text in enumerate(texts):
        history = history + [{"role": "user", "parts": [{"type": "text", "content": text}]}]
        spans.append(_span(history, n))
    document = bytearray(_document(spans, spaced))
    for where, byte in mutations:
        document[where % len(document)] = byte
    reader = ResentTexts(orjson.loads)
    for line in (_document(spans[:1], spaced), bytes(document)):
        _assert_parses_like_orjson(reader, line)
