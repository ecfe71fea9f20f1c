"""Every format the importer reads, from its real recordings, damaged: one field replaced by any value,
the file cut short, or a stretch of it garbled. The upload never raises, every problem names its line
(or element) and says what is wrong in a user's words, never as a caught crash, and what the damage
did not touch still loads."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from lib.logs.upload import read_upload
from tests.damage import (DOCUMENT_FIXTURES, HOSTILE_VALUES, LINE_FIXTURES, PARTNERS, FIXTURES, cut, damaged,
                          garbled, items, opened, paths, unclear, value_at)
from tests.test_upload_hostile import _assert_typed

FEW = settings(max_examples=50, deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Enough examples to walk a recording's fields in a few seconds on a CI core; the same ones every run."""

ALL = LINE_FIXTURES + DOCUMENT_FIXTURES


def _upload(name: str, data: bytes):
    """The upload as a user makes it: a batch half goes up with its intact partner."""
    files = [(name, data)]
    if name in PARTNERS:
        files.append((PARTNERS[name], (FIXTURES / PARTNERS[name]).read_bytes()))
    return read_upload(files)


def _assert_sound(upload, data: bytes) -> None:
    """What any upload owes its user, however damaged the file: typed traces, problems named by an item that exists
    (an element, or for a document that cannot be cut into elements at all, a line of the file), in words."""
    for conversation in upload.conversations:
        _assert_typed(conversation.trace)
    last = max(upload.lines, data.count(b"\n") + 1)
    for problem in (*upload.problems, *upload.notes):
        assert isinstance(problem.message, str) and problem.message
        assert 1 <= problem.line <= last, str(problem)
    assert unclear(upload.problems) == [] and unclear(upload.notes) == []


@pytest.mark.parametrize("fixture", ALL)
def test_each_recording_reads_clean_before_any_damage(fixture):
    recording = opened(fixture)
    data = recording.write(recording.values)
    upload = _upload(recording.name, data)
    # Cohere's v1 calls: read, and named as an API left out; token counts: read, and none of them a model call.
    assert upload.rounds > 0 or upload.unread_calls > 0 or upload.not_calls == upload.lines > 0
    _assert_sound(upload, data)


@pytest.mark.parametrize("fixture", ALL)
def test_any_field_of_a_real_recording_replaced_by_any_value_loads_the_rest_and_names_the_item(fixture):
    recording = opened(fixture)
    fields = list(paths(recording.values))

    @FEW
    @given(st.sampled_from(fields), HOSTILE_VALUES)
    def replace_one(path, value):
        data = damaged(recording, path, value)
        _assert_sound(_upload(recording.name, data), data)

    replace_one()


@pytest.mark.parametrize("fixture", [f for f in ALL if len(items(opened(f))) > 1])
def test_one_damaged_item_costs_at_most_what_that_item_carried(fixture):
    """The other lines (samples, entries, interactions) still load: as many rounds as when the damaged item is
    an empty object."""
    recording = opened(fixture)
    places = items(recording)
    without = {place: _upload(recording.name, damaged(recording, place, {})).rounds for place in places}
    fields = [(place, path) for place in places for path in paths(value_at(recording.values, place), place)]

    @FEW
    @given(st.sampled_from(fields), HOSTILE_VALUES)
    def replace_one(field, value):
        place, path = field
        upload = _upload(recording.name, damaged(recording, path, value))
        deep = any("nests deeper than" in p.message for p in upload.problems)
        if recording.name.endswith((".yaml", ".yml")) and deep:
            return  # YAML too deep to parse safely is refused whole: libyaml cannot be stopped partway (lib/logs/documents.py)
        assert upload.rounds >= without[place], (path, value, [str(p) for p in upload.problems])

    replace_one()


@pytest.mark.parametrize("fixture", ALL)
def test_a_real_recording_cut_short_or_garbled_anywhere_never_raises_and_names_the_item(fixture):
    recording = opened(fixture)
    data = recording.write(recording.values)

    @FEW
    @given(st.integers(0, len(data)), st.binary(min_size=1, max_size=12) | st.sampled_from(
        [b"\x00", b"\n", b'"', b"}", b"\xff\xfe", b"\r\n\r\n", b"NaN", b"\\u0000", b"[" * 12]), st.booleans())
    def break_bytes(at, junk, truncate):
        broken = cut(data, at) if truncate else garbled(data, at, junk)
        _assert_sound(_upload(recording.name, broken), broken)

    break_bytes()


# --- what the damage found, each at its smallest ----------------------------------------------------


PAIRS = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()


def test_a_line_that_is_null_or_a_number_says_so_in_json_words_not_python_ones():
    upload = read_upload([("log.jsonl", b"\n".join([PAIRS[0], b"null", b"12", b"[1]", PAIRS[1]]))])
    assert [str(p) for p in upload.problems] == ["line 2: is null, not a JSON object", "line 3: is a number, not a JSON object",
                                                 "line 4: is a list, not a JSON object"]
    assert upload.rounds == 2


def test_a_json_document_that_is_null_says_so_in_json_words():
    upload = read_upload([("episode.traj", b"null")])
    assert [str(p) for p in upload.problems] == ["line 1: is null, not a JSON object"]


def test_a_native_trace_line_that_is_null_says_so_in_json_words():
    from lib.logs.native import read_trace
    from tests.test_upload_hostile import HENGXIN

    trace, problems = read_trace([HENGXIN[0], "null", *HENGXIN[1:]])
    assert [str(p) for p in problems] == ["line 2: is null, expected an object with a 'kind'"]
    assert len(trace.rounds) == 4


def test_a_tool_whose_type_is_a_list_loads_its_line_with_the_tool_named():
    line = json.loads(PAIRS[0])
    line["request"]["tools"][0]["type"] = ["function"]
    upload = read_upload([("log.jsonl", b"\n".join([json.dumps(line).encode(), *PAIRS[1:]]))])
    assert upload.problems == () and upload.rounds == 4
    (first_tool, *_) = upload.conversations[0].trace.rounds[0].request.tools
    assert first_tool.name == line["request"]["tools"][0]["function"]["name"]


def test_an_eval_whose_sample_does_not_inflate_names_that_sample_and_loads_the_other():
    data = (FIXTURES / "containers" / "inspect-arithmetic-with-tool.eval").read_bytes()
    damaged_first_sample = data[:1359] + b"\x00" + data[1360:]  # inside samples/1_epoch_1.json's deflated bytes
    upload = read_upload([("arithmetic.eval", damaged_first_sample)])
    assert [p.line for p in upload.problems] == [1]
    assert upload.problems[0].message.startswith("samples/1_epoch_1.json (sample 1) is damaged: its compressed data does not inflate")
    assert [c.id for c in upload.conversations] == ["sample 2 epoch 1"]


def test_an_eval_whose_sample_is_marked_encrypted_names_that_sample_and_loads_the_other():
    data = bytearray((FIXTURES / "containers" / "inspect-arithmetic-with-tool.eval").read_bytes())
    # Bit 0 of the flags, in the member's local header and in its central directory entry: "encrypted".
    name = b"samples/1_epoch_1.json"
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        header = next(at for at in range(len(data)) if data.startswith(signature, at) and
                      data.find(name, at, at + 64 + len(name)) > at)
        data[header + flags] |= 1
    upload = read_upload([("arithmetic.eval", bytes(data))])
    assert [upload.said(p) for p in upload.problems] == [
        "sample 1: samples/1_epoch_1.json (sample 1) is encrypted; Roundtrip reads no password-protected member"]
    assert [c.id for c in upload.conversations] == ["sample 2 epoch 1"]


def test_an_eval_whose_directory_asks_for_a_zip_version_past_pythons_is_named_not_raised():
    data = bytearray((FIXTURES / "containers" / "inspect-arithmetic-with-tool.eval").read_bytes())
    data[data.find(b"PK\x01\x02") + 6] = 99  # "version needed to extract": 9.9, one damaged byte
    upload = read_upload([("arithmetic.eval", bytes(data))])
    assert [upload.said(p) for p in upload.problems] == [
        "document 1: is not a readable .eval (zip) file (zip file version 9.9)"]


@pytest.mark.parametrize("calls", [5, 2 ** 70, "call_1", True])
def test_tool_calls_that_are_not_a_list_load_the_line_and_keep_the_value_in_sight(calls):
    line = json.loads(PAIRS[0])
    line["response"]["choices"][0]["message"]["tool_calls"] = calls
    upload = read_upload([("log.jsonl", b"\n".join([json.dumps(line).encode(), *PAIRS[1:]]))])
    assert upload.problems == () and upload.rounds == 4
    message = upload.conversations[0].trace.rounds[0].response.message
    assert message.tool_calls == () and [part.raw for part in message.parts if part.path == "tool_calls"] == [calls]


def test_a_cassette_cut_short_inside_a_key_names_its_last_line_not_the_one_after():
    data = (FIXTURES / "containers" / "pydantic-ai-anthropic-stream.yaml").read_bytes()
    cut_inside_a_key = data[:data.index(b"\n      h", 200) + 8]  # ends on a line that reads "      h"
    lines = cut_inside_a_key.count(b"\n") + 1
    upload = read_upload([("cassette.yaml", cut_inside_a_key)])
    assert [upload.said(p) for p in upload.problems] == [
        f"document 1: is not valid YAML at line {lines} (could not find expected ':')"]


ANTHROPIC = (FIXTURES / "anthropic-pairs.jsonl").read_bytes().splitlines()


@pytest.mark.parametrize("where", [("system",), ("messages", 0, "content")])
@pytest.mark.parametrize("value", [5, 2 ** 70, True, {"type": "text", "text": "hi"}])
def test_anthropic_content_that_is_neither_text_nor_blocks_loads_the_line_and_keeps_the_value_in_sight(where, value):
    line = json.loads(ANTHROPIC[0])
    target = line["input"]
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    upload = read_upload([("log.jsonl", b"\n".join([json.dumps(line).encode(), *ANTHROPIC[1:]]))])
    assert upload.problems == () and upload.rounds == len(ANTHROPIC)
    request = upload.conversations[0].trace.rounds[0].request
    message = request.system if where == ("system",) else request.messages[0]
    assert [part.raw for part in message.parts] == [value]


@pytest.mark.parametrize("message", [5, None, [1], "text"])
def test_a_message_that_is_not_an_object_converts_to_both_dialects(message):
    from lib.dialects.convert import convert

    line = json.loads(ANTHROPIC[1])
    line["input"]["messages"][1] = message
    upload = read_upload([("log.jsonl", b"\n".join([ANTHROPIC[0], json.dumps(line).encode(), *ANTHROPIC[2:]]))])
    assert upload.problems == ()
    for trace in (c.trace for c in upload.conversations):
        for round_ in trace.rounds:
            for target in ("openai-chat", "anthropic-messages"):
                convert(round_.request, round_.response, trace.dialect, target)  # the Both dialects view


def test_a_token_count_too_large_for_any_table_is_no_count():
    line = json.loads(PAIRS[0])
    line["response"]["usage"]["prompt_tokens"] = 2 ** 70
    line["response"]["usage"]["completion_tokens"] = 1e30
    upload = read_upload([("log.jsonl", b"\n".join([json.dumps(line).encode(), *PAIRS[1:]]))])
    usage = upload.conversations[0].trace.rounds[0].response.usage
    assert (usage.input_tokens, usage.output_tokens) == (0, 0)


CONTAINERS = FIXTURES / "containers"


def test_a_har_cut_off_inside_its_last_entry_loads_the_entries_before_it():
    data = (CONTAINERS / "openai-tool-calls.har").read_bytes()
    cut_off = data[:data.rfind(b'"request"')]  # inside the third entry: the second call
    upload = read_upload([("recording.har", cut_off)])
    assert upload.rounds == 1  # the first call (entry 1 is the page's script)
    (problem,) = upload.problems
    assert problem.line == 3 and problem.message.startswith(
        "entry 3 is not valid JSON (at the end of the entry: cut short: the JSON stops before it is complete)")
    assert problem.message.endswith("the file does not parse whole, so its entries were read one by one")


def test_a_har_entry_holding_nan_costs_that_entry_only():
    data = (CONTAINERS / "openai-tool-calls.har").read_bytes()
    first = data.index(b'"startedDateTime"')  # entry 1: the page's script
    damaged_first = data[:first] + b'"score": NaN, ' + data[first:]
    upload = read_upload([("recording.har", damaged_first)])
    assert upload.rounds == 2 and [p.line for p in upload.problems] == [1]


def test_an_inspect_log_cut_off_inside_its_second_sample_loads_the_first():
    data = (CONTAINERS / "inspect-system-prompt.json").read_bytes()
    second = data.index(b'"id": 2,')
    upload = read_upload([("log.json", data[:second + 20])])
    assert [c.id for c in upload.conversations] == ["sample 1 epoch 1", "sample 1 epoch 1, scorer model_graded_qa"]
    assert [p.line for p in upload.problems] == [2]
    assert upload.problems[0].message.startswith("sample 2 is not valid JSON (")


def test_a_json_document_broken_outside_its_entries_still_says_so():
    data = (CONTAINERS / "openai-tool-calls.har").read_bytes().rstrip()
    upload = read_upload([("recording.har", data[:-1] + b", oops}")])  # after the entries, in the log object
    assert upload.rounds == 2
    assert [str(p).split(" (")[0] for p in upload.problems] == ["line 1: is not one JSON document"]


def test_an_episode_holding_nan_in_a_json_array_costs_that_episode_only():
    data = (CONTAINERS / "tau-bench-airline.json").read_bytes()
    at = data.index(b'"traj"')  # in episode 1
    upload = read_upload([("episodes.json", data[:at] + b'"score": NaN, ' + data[at:])])
    assert [p.line for p in upload.problems] == [1]
    assert [c.id for c in upload.conversations] == ["episode 2 (task 35, trial 3)"]


@pytest.mark.parametrize("kind", ["arrayValue", "kvlistValue"])
def test_an_otlp_attribute_whose_values_are_not_a_list_costs_that_attribute_only(kind):
    document = json.loads((FIXTURES / "otlp-span-per-call.jsonl").read_bytes())
    clean = read_upload([("spans.jsonl", json.dumps(document).encode())])
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["attributes"].append({"key": "app.damaged", "value": {kind: {"values": 5}}})
    upload = read_upload([("spans.jsonl", json.dumps(document).encode())])
    assert upload.problems == () and upload.rounds == clean.rounds


@pytest.mark.parametrize("name", ["spans.json", "spans.jsonl"])
@pytest.mark.parametrize("field", ["startTimeUnixNano", "intValue", "key"])
def test_otlp_numbers_written_in_superscript_digits_cost_that_value_only(name, field):
    # "²" is a digit to str.isdigit but no number to int(): it once lost the whole document to "ValueError: invalid literal".
    document = json.loads((FIXTURES / "otlp-span-per-call.jsonl").read_bytes())
    clean = read_upload([(name, json.dumps(document).encode())])
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    if field == "startTimeUnixNano":
        span["startTimeUnixNano"] = "1767610800²"
    elif field == "intValue":
        span["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": {"intValue": "¹²"}})
    else:
        span["attributes"].append({"key": "app.step.²", "value": {"stringValue": "a flattened list's odd index"}})
    upload = read_upload([(name, json.dumps(document, ensure_ascii=False).encode())])
    assert upload.problems == () and upload.rounds == clean.rounds
    if field != "startTimeUnixNano":  # a call whose time is lost is ordered after the timed ones, as any such call is
        assert len(upload.conversations) == len(clean.conversations)


def test_a_cassette_cut_short_says_its_last_interaction_has_no_response_not_only_that_it_matches_no_format():
    # pydantic-ai's recorded cassette cut in half, inside the second interaction's request headers: the sidebar said
    # "interaction 2: matches no known log format", as if the file held something else.
    name = "pydantic-ai-openai-tool-calls.yaml"
    data = (FIXTURES / "containers" / name).read_bytes()
    upload = read_upload([(name, data[:len(data) // 2])])
    assert upload.summary() == "2 interactions: 1 round in 1 conversation; 1 interaction skipped"
    assert [upload.said(p) for p in upload.problems] == [
        "interaction 2: matches no known log format; closest: VCR cassette: the interaction has a request and no "
        "response (a cassette cut short ends so)"]
