"""Hostile uploads: small files that ask for a lot, well-formed JSON of a hostile shape, and lines
that JSON readers disagree on. Each is refused or read with a problem naming its line; none
raises, and none costs the server more than the caps in lib/logs/limits.py."""

import gzip
import io
import json
import tracemalloc
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib import catalog
from lib.logs.limits import UPLOAD_MB, limits
from lib.logs.native import read_trace
from lib.logs.upload import read_upload

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent
HENGXIN = (catalog.TRACES_DIR / "hengxin-expense.jsonl").read_text().splitlines()
PAIRS = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()


def _deep(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


# --- item 5: small uploads that ask for a lot ---------------------------------------------------------


def test_a_native_trace_line_past_the_line_cap_is_refused_unparsed_as_in_any_other_log(monkeypatch):
    # The native reader parsed a line of any length: a 100 MB upload, a trace header then one line of `0.0,` in a
    # list, peaked at 1.8 GB while a log line of the same bytes was refused at 64 MB, unparsed.
    monkeypatch.setenv("ROUNDTRIP_MAX_LINE_MB", "1")
    floats = b'{"kind": "round", "index": 2, "pad": [' + b"0.0," * 1_000_000 + b'0.0]}'
    data = b"\n".join([HENGXIN[0].encode(), HENGXIN[1].encode(), floats, *(line.encode() for line in HENGXIN[2:])])
    tracemalloc.start()
    upload = read_upload([("hengxin.jsonl", data)])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert f"line 3: is too large ({len(floats):,} bytes; the limit is 1,048,576)" in [str(p) for p in upload.problems]
    assert len(upload.conversations[0].trace.rounds) == len(read_trace(HENGXIN)[0].rounds)  # the other rounds load
    assert peak < 3 * len(data)


def test_a_gzip_expanding_past_the_cap_is_refused_by_name_without_being_held(monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_MAX_DECOMPRESSED_MB", "2")
    bomb = gzip.compress(bytes(32 * 1024 * 1024))
    tracemalloc.start()
    upload = read_upload([("zeros.jsonl.gz", bomb)])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [str(p) for p in upload.problems] == [
        "line 1: expands to more than 2,097,152 bytes (the limit for one file); not read"]
    assert peak < 8 * 1024 * 1024


def test_a_gzip_under_the_cap_still_loads(monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_MAX_DECOMPRESSED_MB", "1")
    upload = read_upload([("pairs.jsonl.gz", gzip.compress(b"\n".join(PAIRS)))])
    assert upload.summary() == "4 lines: 4 rounds in 2 conversations; 0 lines skipped"


def _recorded_calls(count: int, answer_bytes: int) -> list[tuple[dict, bytes]]:
    """`count` Chat Completions calls, each request with its gzip-compressed answer of `answer_bytes` text."""
    calls = []
    for number in range(1, count + 1):
        request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"Question {number}?"}]}
        answer = {"id": f"chatcmpl-{number}", "object": "chat.completion", "model": "gpt-4o-mini", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "a" * answer_bytes}, "finish_reason": "stop"}]}
        calls.append((request, gzip.compress(json.dumps(answer).encode())))
    return calls


def _har(calls: list[tuple[dict, bytes]]) -> bytes:
    import base64
    return json.dumps({"log": {"entries": [
        {"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                     "postData": {"text": json.dumps(request)}},
         "response": {"status": 200, "content": {"mimeType": "application/json", "encoding": "base64",
                                                 "text": base64.b64encode(body).decode()}}}
        for request, body in calls]}}).encode()


def _cassette(calls: list[tuple[dict, bytes]]) -> bytes:
    import yaml
    return yaml.safe_dump({"version": 1, "interactions": [
        {"request": {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions", "body": json.dumps(request)},
         "response": {"status": {"code": 200}, "headers": {"Content-Encoding": ["gzip"]}, "body": {"string": body}}}
        for request, body in calls]}).encode()


@pytest.mark.parametrize("name, written, unit", [("bombs.har", _har, "entry"), ("bombs.yaml", _cassette, "interaction")])
def test_gzip_bodies_inside_one_file_open_to_the_decompression_cap_together_not_each(monkeypatch, name, written, unit):
    # Each body alone is under the 64 MB cap on one body; 80 of them, a few kilobytes uploaded, would
    # hold 80 MB (and a 200 MB file of them terabytes) had each been measured on its own.
    monkeypatch.setenv("ROUNDTRIP_MAX_DECOMPRESSED_MB", "3")
    data = written(_recorded_calls(80, 1024 * 1024))
    assert len(data) < 512 * 1024
    tracemalloc.start()
    upload = read_upload([(name, data)])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert upload.rounds == 2
    assert len(upload.problems) == 78
    assert upload.said(upload.problems[0]).startswith(
        f"{unit} 3: the response body of POST https://api.openai.com/v1/chat/completions opens to more "
        "than the 3,145,728 bytes that the gzip bodies of one upload may open to together")
    assert peak < 32 * 1024 * 1024


def test_a_har_file_and_a_cassette_uploaded_together_share_the_one_cap_on_opened_bodies(monkeypatch):
    # Each format had its own budget: the two files together opened twice the cap.
    monkeypatch.setenv("ROUNDTRIP_MAX_DECOMPRESSED_MB", "3")
    calls = _recorded_calls(20, 1024 * 1024)
    upload = read_upload([("a.har", _har(calls)), ("b.yaml", _cassette(calls))])
    assert upload.rounds == 2
    refused = [p for p in upload.problems if "that the gzip bodies of one upload may open to together" in p.message]
    assert len(refused) == 38  # of the 40 bodies of 1 MiB, only the first two fit in 3 MB


def test_millions_of_empty_lines_are_one_problem_and_all_counted():
    data = b"\n".join(PAIRS[:2]) + b"\n" + b"\n" * 2_000_000 + b"\n".join(PAIRS[2:])
    upload = read_upload([("padded.jsonl.gz", gzip.compress(data))])
    assert [str(p) for p in upload.problems] == ["line 3: is empty, and so are the 1,999,999 lines after it"]
    assert upload.problems[0].last == 2_000_002
    assert upload.summary() == "2,000,004 lines: 4 rounds in 2 conversations; 2,000,000 lines skipped"


def test_only_the_first_problems_are_kept_and_the_rest_are_counted(monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_MAX_PROBLEMS", "5")
    data = b"\n".join([PAIRS[0]] + [b"{oops"] * 1000)
    upload = read_upload([("broken.jsonl", data)])
    assert [p.line for p in upload.problems] == [2, 3, 4, 5, 6, 1001]
    assert upload.problems[-1].message == ("and 995 more problems on 995 more lines, not listed "
                                           "(only the first 5 are kept)")
    assert upload.summary() == "1,001 lines: 1 round in 1 conversation; 1,000 lines skipped"


def test_a_line_with_two_problems_across_the_cut_counts_once():
    from lib.logs.record import Problem, ProblemList

    problems = ProblemList(keep=2)
    problems.extend([Problem(1, "a"), Problem(2, "b"), Problem(2, "c"), Problem(3, "d")])
    assert problems.lines() == 3
    assert problems.listed()[-1].message.startswith("and 2 more problems on 1 more line,")


def test_a_native_trace_keeps_only_the_first_problems_too():
    trace, problems = read_trace([HENGXIN[0], *(["{oops"] * 50), HENGXIN[1]], keep=3)
    assert len(trace.rounds) == 1
    assert [p.line for p in problems] == [2, 3, 4, 51]
    assert problems[-1].message.startswith("and 47 more problems on 47 more lines")


def test_every_cap_has_a_default_and_an_environment_setting(monkeypatch):
    defaults = limits()
    assert defaults.decompressed_bytes == 2 * UPLOAD_MB * 1024 * 1024
    assert (defaults.problems_kept, defaults.cache_idle_seconds) == (1000, 1800)
    for variable, value in [("ROUNDTRIP_MAX_DECOMPRESSED_MB", "7"), ("ROUNDTRIP_MAX_PROBLEMS", "9"),
                            ("ROUNDTRIP_MAX_LINE_MB", "3"), ("ROUNDTRIP_UPLOAD_CACHE_MB", "11"),
                            ("ROUNDTRIP_UPLOAD_CACHE_IDLE_S", "60")]:
        monkeypatch.setenv(variable, value)
    assert limits() == replace(defaults, decompressed_bytes=7 * 2 ** 20, problems_kept=9, line_bytes=3 * 2 ** 20,
                               cache_bytes=11 * 2 ** 20, cache_idle_seconds=60)
    monkeypatch.setenv("ROUNDTRIP_MAX_PROBLEMS", "lots")
    assert limits().problems_kept == 1000


def test_the_upload_limit_is_explicit_in_the_streamlit_config_and_matches_the_cap():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == UPLOAD_MB


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_upload_cache_keeps_the_recently_used_within_its_byte_budget():
    cache = catalog.SizedCache(budget=100, idle_seconds=600, clock=_Clock())
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # now b is the least recently used
    cache.put("c", "C", 40)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("A", None, "C")
    assert cache.held == 80
    cache.put("huge", "H", 500)
    assert (cache.get("a"), cache.get("c"), cache.get("huge")) == (None, None, "H")


def test_an_upload_nobody_opens_is_dropped_after_the_idle_time():
    clock = _Clock()
    cache = catalog.SizedCache(budget=100, idle_seconds=60, clock=clock)
    cache.put("closed browser", "X", 10)
    cache.put("open browser", "Y", 10)
    clock.now = 50
    assert cache.get("open browser") == "Y"
    clock.now = 100
    assert cache.get("open browser") == "Y"
    assert cache.get("closed browser") is None and cache.held == 10
    clock.now = 200
    cache.sweep()
    assert cache.held == 0


# --- item 6: well-formed JSON of a hostile structure ----------------------------------------------------


def _call_line(arguments: str) -> bytes:
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                      "function": {"name": "f", "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "done"}]
    return json.dumps({"request": {"model": "m", "messages": messages}}).encode()


def test_thousand_deep_tool_arguments_load_with_the_depth_named():
    upload = read_upload([("deep.jsonl", _call_line('{"a": ' + _deep(1000) + "}"))])
    assert upload.summary() == "1 line: 1 round in 1 conversation; 0 lines skipped"
    (call,) = upload.conversations[0].trace.rounds[0].request.messages[1].tool_calls
    assert call.arguments is None and call.arguments_error == "nested too deeply to read"


def test_a_first_line_nested_too_deep_is_read_with_the_field_named_and_leaves_no_empty_conversation_behind():
    # Under orjson's 1,024 levels, over what the standard library's encoder reaches when keying the message:
    # below 200 levels the content is kept as its JSON text (lib.intern.DEEPEST), so the line is read.
    deep = (b'{"request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "response": {"choices": '
            b'[{"message": {"role": "assistant", "content": ' + _deep(1015).encode() + b"}}]}}")
    upload = read_upload([("deep.jsonl", b"\n".join([deep, PAIRS[0]]))])
    # The line loaded: a note of what it lacks, not a skipped line.
    assert upload.summary() == "2 lines: 2 rounds in 2 conversations; 0 lines skipped"
    assert upload.problems == ()
    assert [upload.said(note) for note in upload.notes] == [
        "line 1: has response.choices[0].message.content nested more than 200 levels deep; shown as text"]
    assert [len(c.trace.rounds) for c in upload.conversations] == [1, 1]


def test_a_tool_list_that_is_not_a_list_does_not_take_the_upload_down():
    lines = [json.loads(line) for line in PAIRS]
    lines[0]["request"]["tools"] = True
    upload = read_upload([("odd.jsonl", "\n".join(json.dumps(line) for line in lines).encode())])
    assert upload.rounds == 4 and upload.problems == ()


def test_a_native_line_nested_past_the_parser_is_named():
    line = '{"kind": "round", "index": 1, "request": {"messages": []}, "extra": ' + _deep(2000) + "}"
    trace, problems = read_trace([HENGXIN[0], line, HENGXIN[1]])
    assert [str(p) for p in problems] == ["line 2: is nested too deeply (more than 1,024 levels)"]
    assert len(trace.rounds) == 1


def test_a_native_round_nested_too_deep_for_the_standard_library_is_a_problem_not_a_crash():
    messages = [{"role": "user", "content": "x"}]
    line = json.dumps({"kind": "round", "index": 1, "request": {"messages": messages}})[:-2] + \
        ', "tools": [{"type": "function", "function": {"name": "f", "parameters": ' + _deep(1015) + "}}]}}"
    trace, problems = read_trace([HENGXIN[0], line])
    assert trace.rounds == () or trace.rounds[0].index == 1
    assert all(p.line == 2 for p in problems)


WRONG_TYPES = {
    "title is a list": (0, ["title"], ["a", "list"]),
    "model is a dict": (0, ["model"], {"name": "gpt"}),
    "description is a number": (0, ["description"], 12),
    "latency is text": (1, ["latency_ms"], "slow"),
    "index is text": (2, ["index"], "2"),
    "duration is text": (1, ["executions", 0, "duration_ms"], "x"),
    "tool name is a dict": (1, ["executions", 0, "name"], {"n": 1}),
    "ok is text": (1, ["executions", 0, "ok"], "yes"),
    "request model is a list": (1, ["request", "model"], ["m"]),
    "usage is text": (1, ["response", "usage", "prompt_tokens"], "many"),
    "finish reason is a dict": (1, ["response", "choices", 0, "finish_reason"], {"why": "stop"}),
}


def _applied(source: list[str], mutations) -> list:
    """The lines as JSON values, each mutation's value put at its line and path."""
    lines = [json.loads(line) for line in source]
    for (number, path), value in mutations:
        target = lines[number]
        try:
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed the way there
    return lines


def _mutated(line_number: int, path: list, value) -> list[str]:
    """The Hengxin trace's lines with one field replaced."""
    return [json.dumps(line) for line in _applied(HENGXIN, [((line_number, path), value)])]


def _assert_typed(trace) -> None:
    assert isinstance(trace.title, str) and isinstance(trace.description, str)
    assert trace.model is None or isinstance(trace.model, str)
    for round_ in trace.rounds:
        assert isinstance(round_.index, int)
        assert round_.latency_ms is None or type(round_.latency_ms) in (int, float)
        assert round_.request.model is None or isinstance(round_.request.model, str)
        if round_.response is not None:
            assert round_.response.finish_reason is None or isinstance(round_.response.finish_reason, str)
            assert round_.response.model is None or isinstance(round_.response.model, str)
            usage = round_.response.usage
            assert usage is None or all(type(n) is int for n in (usage.input_tokens, usage.output_tokens))
        if round_.error is not None:
            assert round_.error.status is None or type(round_.error.status) is int
            assert isinstance(round_.error.message, str)
        derived = round_.extra.get("derived", [])
        assert isinstance(derived, list) and all(isinstance(x, str) for x in derived)
        for execution in round_.executions:
            assert isinstance(execution.name, str) and isinstance(execution.tool_call_id, str)
            assert type(execution.ok) is bool
            assert execution.duration_ms is None or type(execution.duration_ms) in (int, float)
            assert execution.approval in (None, "approved", "declined")
            assert execution.note is None or isinstance(execution.note, str)
    for lesson in trace.lessons:
        assert type(lesson.round) is int and lesson.step in range(1, 6)
        assert all(isinstance(words, str) for words in (lesson.title, lesson.text, lesson.fix))
        assert all(type(point) is int for point in lesson.points)


@pytest.mark.parametrize("case", WRONG_TYPES)
def test_a_field_of_the_wrong_type_is_read_as_its_declared_type(case):
    trace, _ = read_trace(_mutated(*WRONG_TYPES[case]))
    assert len(trace.rounds) == 4
    _assert_typed(trace)


def test_documented_round_fields_of_the_wrong_type_are_dropped_by_name():
    lines = [json.loads(line) for line in HENGXIN]
    lines[1].update({"derived": 5, "converted_from": ["x"], "source_line": "<b>3</b>", "started_at": "10:00"})
    trace, problems = read_trace([json.dumps(line) for line in lines])
    assert trace.rounds[0].extra == {"started_at": "10:00"}
    assert [str(p) for p in problems] == ["line 2: has 'derived' of the wrong type (5); ignored",
                                          "line 2: has 'converted_from' of the wrong type (['x']); ignored",
                                          "line 2: has 'source_line' of the wrong type ('<b>3</b>'); ignored"]


def test_an_error_status_is_an_int_or_none_never_text():
    lines = (catalog.TRACES_DIR / "pitfalls" / "unanswered-parallel-call.jsonl").read_text().splitlines()
    parsed = [json.loads(line) for line in lines]
    errored = next(i for i, line in enumerate(parsed) if line.get("error"))
    for status, read in [("<b>400</b>", None), (400.0, 400), (True, None), (429, 429)]:
        parsed[errored]["error"]["status"] = status
        trace, _ = read_trace([json.dumps(line) for line in parsed])
        assert trace.rounds[errored - 1].error.status == read


HOSTILE_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _paths(value, path=()):
    """Every path to a field in a parsed line, nested ones included."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, inner in items:
        yield (*path, key)
        yield from _paths(inner, (*path, key))


FIELDS = [(number, path) for number, line in enumerate(HENGXIN) for path in _paths(json.loads(line))]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(FIELDS), HOSTILE_VALUES), min_size=1, max_size=4))
def test_any_field_of_a_native_trace_replaced_by_any_value_reads_typed_or_names_the_line(mutations):
    lines = _applied(HENGXIN, mutations)
    trace, problems = read_trace([json.dumps(line) for line in lines])
    _assert_typed(trace)
    named = {p.line for p in problems}
    assert named <= set(range(1, len(lines) + 1))
    kept = len(trace.rounds) + len(trace.annotations) + len(trace.lessons)
    assert kept + len(named - {1}) >= len(lines) - 1, "a line went missing unnamed"
    upload = read_upload([("mutated.jsonl", "\n".join(json.dumps(line) for line in lines).encode())])
    for conversation in upload.conversations:
        _assert_typed(conversation.trace)


LOG_FIELDS = [(number, path) for number, line in enumerate(PAIRS) for path in _paths(json.loads(line))]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(LOG_FIELDS), HOSTILE_VALUES), min_size=1, max_size=4))
def test_any_field_of_a_logged_call_replaced_by_any_value_reads_typed_or_names_the_line(mutations):
    lines = _applied(PAIRS, mutations)
    upload = read_upload([("mutated.jsonl", "\n".join(json.dumps(line) for line in lines).encode())])
    for conversation in upload.conversations:
        _assert_typed(conversation.trace)
    used = {r.extra["source_line"] for c in upload.conversations for r in c.trace.rounds}
    reported = {n for p in upload.problems for n in range(p.line, (p.last or p.line) + 1)}
    assert used | reported == set(range(1, len(lines) + 1))


# --- item 10: lines rewritten in silence ----------------------------------------------------------------


def _with_nan(line: str) -> str:
    return line[:-1] + ', "score": NaN}'


def test_nan_is_refused_by_name_in_a_native_trace_and_in_a_log_alike():
    trace, problems = read_trace([HENGXIN[0], _with_nan(HENGXIN[1])])
    assert [str(p) for p in problems] == ["line 2: has NaN, which JSON does not allow; the line is skipped"]
    upload = read_upload([("log.jsonl", b"\n".join([PAIRS[0], _with_nan(PAIRS[1].decode()).encode()]))])
    assert [str(p) for p in upload.problems] == ["line 2: has NaN, which JSON does not allow; the line is skipped"]


def test_infinity_is_refused_by_name_too():
    line = HENGXIN[1][:-1] + ', "score": -Infinity}'
    _, problems = read_trace([HENGXIN[0], line])
    assert [str(p) for p in problems] == ["line 2: has -Infinity, which JSON does not allow; the line is skipped"]


def test_a_repeated_key_is_named_in_a_log_line():
    line = PAIRS[0][:-1] + b', "request": {"model": "other", "messages": []}}'
    upload = read_upload([("log.jsonl", b"\n".join([line, PAIRS[1]]))])
    assert [str(p) for p in upload.problems] == [
        "line 1: has 'request' twice in one object; readers disagree on which value counts, so the line is skipped"]


def test_a_repeated_key_is_named_in_a_resent_message_of_a_long_native_trace():
    # Hengxin's later rounds are long enough for the resent-history parser: the repeat sits in a new message.
    lines = [json.loads(line) for line in HENGXIN]
    last = json.dumps(lines[4])
    assert len(last) > 4096
    marker = '"role": "tool"'
    at = last.rindex(marker)
    lines_text = HENGXIN[:4] + [last[:at] + '"role": "user", ' + last[at:]]
    trace, problems = read_trace([line.encode() for line in lines_text])
    assert [str(p) for p in problems] == [
        "line 5: has 'role' twice in one object; readers disagree on which value counts, so the line is skipped"]
    assert len(trace.rounds) == 3


def test_a_repeated_key_written_with_space_before_its_colon_is_named_too():
    line = b'{"note": "first", "note" : "second", ' + PAIRS[0][1:]
    upload = read_upload([("log.jsonl", b"\n".join([line, PAIRS[1]]))])
    assert [str(p) for p in upload.problems] == [
        "line 1: has 'note' twice in one object; readers disagree on which value counts, so the line is skipped"]


def test_a_repeated_key_in_a_har_entry_is_named_on_that_entry_and_the_other_entries_still_load():
    # Chromium's HAR of a two-round loop (tests/fixtures/containers): the second call's response writes its status
    # twice, 500 then 200. orjson kept the 200 without a word; a reader that keeps the first sees a failed call.
    har = (FIXTURES / "containers" / "chromium-openai-tool-calls.har").read_bytes()
    at = har.rindex(b'"response":{"status":200,') + len(b'"response":{')
    upload = read_upload([("agent.har", har[:at] + b'"status":500,' + har[at:])])
    assert [upload.said(p) for p in upload.problems] == [
        "entry 3: has 'status' twice in one object; readers disagree on which value counts, so the entry is skipped"]
    assert upload.summary() == "3 entries: 1 round in 1 conversation; 1 entry not a model call; 1 entry skipped"


def test_a_repeated_key_in_an_inspect_json_log_is_named_on_its_sample_and_in_an_eval_member_too():
    # Inspect's .json log (inspect-system-prompt.json) and .eval zip (inspect-arithmetic-with-tool.eval), a message of
    # their first sample written with its role twice.
    log = (FIXTURES / "containers" / "inspect-system-prompt.json").read_text()
    at = log.index('"role": "user"')
    upload = read_upload([("log.json", (log[:at] + '"role": "system", ' + log[at:]).encode())])
    assert [upload.said(p) for p in upload.problems] == [
        "sample 1: has 'role' twice in one object; readers disagree on which value counts, so the sample is skipped"]
    assert upload.summary() == "2 samples: 2 rounds in 2 conversations; 1 sample skipped"
    archive = zipfile.ZipFile(io.BytesIO((FIXTURES / "containers" / "inspect-arithmetic-with-tool.eval").read_bytes()))
    written = io.BytesIO()
    with zipfile.ZipFile(written, "w", zipfile.ZIP_DEFLATED) as out:
        for member in archive.infolist():
            data = archive.read(member)
            if member.filename == "samples/1_epoch_1.json":
                at = data.index(b'"role": "assistant"') if b'"role": "assistant"' in data else data.index(b'"role":"assistant"')
                data = data[:at] + b'"role": "user", ' + data[at:]
            out.writestr(member, data)
    upload = read_upload([("log.eval", written.getvalue())])
    assert [upload.said(p) for p in upload.problems] == [
        "sample 1: samples/1_epoch_1.json (sample 1) has 'role' twice in one object; readers disagree on which value "
        "counts, so the sample is skipped"]


def test_a_repeated_key_in_a_json_document_read_whole_refuses_the_document():
    # ADK's session (adk-session-function-call.json) is one conversation: a repeat anywhere in it is the document's.
    session = (FIXTURES / "containers" / "adk-session-function-call.json").read_text()
    at = session.index('"role": "user"')
    upload = read_upload([("session.json", (session[:at] + '"role": "model", ' + session[at:]).encode())])
    assert [upload.said(p) for p in upload.problems] == [
        "document 1: has 'role' twice in one object; readers disagree on which value counts, so the document is skipped"]
    assert upload.rounds == 0


def test_quotes_escaped_inside_strings_are_not_taken_for_a_repeat():
    line = PAIRS[0][:-1] + b', "note": "he said \\"no\\" \\u0022twice\\u0022 \\\\"}'
    upload = read_upload([("log.jsonl", line)])
    assert upload.problems == () and upload.rounds == 1


def test_a_key_text_inside_a_string_is_not_taken_for_a_repeat():
    line = PAIRS[0][:-1] + b', "note": "\\"request\\": twice \\":\\""}'
    upload = read_upload([("log.jsonl", line)])
    assert upload.problems == () and upload.rounds == 1


def test_the_bundled_traces_have_no_repeats_and_no_nan():
    for bundled in catalog.bundled_traces():
        _, problems = read_trace(io.BytesIO(bundled.path.read_bytes()))
        assert problems == [], bundled.name
