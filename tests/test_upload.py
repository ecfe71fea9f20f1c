"""Uploading your own logs: formats detected per line, conversations rebuilt, every bad line named."""

import gzip
import json
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.logs.limits import limits
from lib.logs.upload import read_upload

FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"


def _read(*names, forced=None):
    return read_upload([(name, (FIXTURES / name).read_bytes()) for name in names], forced)


def _shape(upload):
    return {c.id: [len(r.request.messages) for r in c.trace.rounds] for c in upload.conversations}


def test_interleaved_pairs_without_ids_are_chained_into_their_conversations():
    upload = _read("openai-pairs.jsonl")
    assert upload.summary() == "4 lines: 4 rounds in 2 conversations; 0 lines skipped"
    assert _shape(upload) == {"conversation 1": [2, 5], "conversation 2": [2, 4]}
    oslo = upload.conversations[0].trace
    assert [c.id for c in oslo.rounds[0].tool_calls] == ["call_a0", "call_a1"]
    assert [r.latency_ms for r in oslo.rounds] == [812, 701]
    assert upload.formats["openai-chat"][0] == 4
    assert "request under 'request'" in upload.formats["openai-chat"][1]


def test_litellm_payloads_group_by_session_and_sort_by_start_time():
    upload = _read("litellm.jsonl")
    assert _shape(upload) == {"sess-42": [2, 5]}
    trace = upload.conversations[0].trace
    assert [t.name for t in trace.rounds[0].request.tools] == ["get_weather"]
    assert "response" not in trace.rounds[0].request.raw
    assert trace.rounds[1].response.usage.input_tokens == 190


def test_requests_alone_get_their_responses_inferred_and_marked():
    upload = _read("requests-only.jsonl")
    (conversation,) = upload.conversations
    first, second = conversation.trace.rounds
    assert first.extra["derived"] == ["response"]
    assert [c.id for c in first.tool_calls] == ["call_a0", "call_a1"]
    assert first.response.stop == "tool_calls" and first.response.usage is None
    assert second.response is None and "derived" not in second.extra


def test_bare_responses_load_as_rounds_without_requests():
    upload = _read("bare-responses.jsonl")
    assert upload.rounds == 2 and not upload.problems
    assert upload.conversations[0].trace.rounds[0].response.finish_reason == "tool_calls"


def test_a_400_in_the_log_becomes_an_error_round_with_the_providers_words():
    (conversation,) = _read("openai-error.jsonl").conversations
    error = conversation.trace.rounds[1].error
    assert error.status == 400 and "call_a1" in error.message


def test_anthropic_pairs_keep_their_dialect_and_cache_reads():
    (conversation,) = _read("anthropic-pairs.jsonl").conversations
    trace = conversation.trace
    assert conversation.id == "ticket-7" and trace.dialect == "anthropic-messages"
    assert trace.rounds[0].response.usage.input_tokens == 540
    assert [r.call_id for r in trace.rounds[1].request.messages[2].tool_results] == ["toolu_01AAA", "toolu_01BBB"]


def test_bad_lines_are_named_and_the_good_ones_still_load():
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    lines = [good[0], b"{not json", b"", b"\xff\xfe\x00garbage", b"[" * 2000 + b"]" * 2000, b"[1, 2, 3]",
             b'{"hello": "world"}', b'{"big": "' + b"x" * 60_000 + b'"}', good[2]]
    upload = read_upload([("mixed.jsonl", b"\n".join(lines))], caps=replace(limits(), line_bytes=50_000))
    reasons = {p.line: p.message for p in upload.problems}
    assert "is not valid JSON" in reasons[2]
    assert reasons[3] == "is empty"
    assert reasons[4] == "is not UTF-8 text"
    assert "nested too deeply" in reasons[5]
    assert reasons[6] == "is a list, not a JSON object"
    assert reasons[7] == "matches no known log format"
    assert reasons[8].startswith("is too large")
    assert upload.summary() == "9 lines: 2 rounds in 1 conversation; 7 lines skipped"


def test_gzip_and_json_arrays_are_read_like_jsonl():
    data = (FIXTURES / "openai-pairs.jsonl").read_bytes()
    assert read_upload([("log.jsonl.gz", gzip.compress(data))]).rounds == 4
    as_array = json.dumps([json.loads(line) for line in data.splitlines()]).encode()
    assert read_upload([("log.json", as_array)]).rounds == 4
    single = json.dumps(json.loads(data.splitlines()[0])).encode()
    assert read_upload([("one.json", single)]).rounds == 1


def test_a_native_trace_uploads_as_one_conversation():
    data = (FIXTURES.parent.parent / "traces" / "hengxin-expense.jsonl").read_bytes()
    upload = read_upload([("hengxin.jsonl", data)])
    # The header, 4 rounds and 10 lessons: a lesson line is read, not skipped.
    assert upload.summary() == "15 lines: 4 rounds in 1 conversation; 0 lines skipped"
    assert len(upload.conversations[0].trace.lessons) == 10
    assert upload.formats["native"][1] == "a Roundtrip header line"


def test_forcing_the_wrong_format_reports_each_line_instead_of_guessing():
    upload = _read("openai-pairs.jsonl", forced="anthropic-messages")
    assert upload.rounds == 0 and [p.line for p in upload.problems] == [1, 2, 3, 4]
    assert {p.message for p in upload.problems} == {
        "not read as Anthropic Messages: a request under 'request' and a response under 'response', but the response "
        "is neither its response nor its error body"}


VALID = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data):
    upload = read_upload([("random.jsonl", data)])
    assert upload.lines >= 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 4000), st.binary(max_size=8)), max_size=6))
def test_mutated_valid_lines_never_raise_and_every_line_is_used_or_reported(mutations):
    lines = list(VALID)
    for which, position, junk in mutations:
        line = lines[which]
        at = position % (len(line) + 1)
        lines[which] = line[:at] + junk + line[at + len(junk):]
    data = b"\n".join(lines)
    upload = read_upload([("mutated.jsonl", data)])
    assert upload.lines == len(data.split(b"\n")) - (1 if data.endswith(b"\n") else 0)
    used = {r.extra["source_line"] for c in upload.conversations for r in c.trace.rounds}
    reported = {n for p in upload.problems for n in range(p.line, (p.last or p.line) + 1)}
    assert used | reported == set(range(1, upload.lines + 1))


def test_a_line_that_is_not_json_is_named_by_its_line_and_the_place_in_it():
    # orjson counts lines within what it was given, one line here: its "line 1 column 2" is not the file's line.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    upload = read_upload([("broken.jsonl", b"\n".join([good[0], b"{not json", b'{"model": "gpt-4o",', good[2]]))])
    assert [upload.said(p) for p in upload.problems] == [
        "line 2: is not valid JSON (at character 2 of the line: a key is not a string in double quotes: unquoted, in "
        "single quotes, or after a comma too many)",
        "line 3: is not valid JSON (at the end of the line: cut short: the JSON stops before it is complete)",
    ]
    # One object over many lines (a .json file) is one document: the file's line where it stops is said in its
    # problem, not line 1 and a line within it.
    upload = read_upload([("one.json", b'\n{\n  "model": "gpt-4o",\n  "messages": [oops]\n}\n')])
    assert [upload.said(p) for p in upload.problems] == [
        "document 1: is not valid JSON (at line 4, character 16: no JSON value where one should be: NaN, a bare word or a single-quoted string is none)"]
    assert upload.summary() == "1 document: 0 rounds in 0 conversations; 1 document skipped"


def test_a_line_cut_inside_a_string_is_said_to_end_early_not_to_hold_a_control_character():
    # A writer stopped mid-line (a crash, a full disk) leaves a line that ends inside a string, and the next line
    # goes on. Its line break reached the parser inside that string, and the sidebar said "unexpected control
    # character in string": there is none in the line to find. With a Windows line end (CRLF) the same.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    lines = [good[0], good[1][: good[1].index(b'"content"') + 20], good[2]]
    for end in (b"\n", b"\r\n"):
        upload = read_upload([("crashed.jsonl", end.join(lines) + end)])
        assert [upload.said(p) for p in upload.problems] == [
            "line 2: is not valid JSON (at the end of the line: cut short: the JSON stops before it is complete)"]
        assert upload.summary() == "3 lines: 2 rounds in 1 conversation; 1 line skipped"


def test_a_json_array_is_read_an_element_at_a_time_and_a_broken_element_is_named():
    good = [json.loads(line) for line in (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()]
    elements = [json.dumps(e, indent=2, ensure_ascii=False) for e in good]
    pretty = ("[\n" + ",\n".join(elements) + "\n]").encode()
    assert read_upload([("log.json", pretty)]).summary() == "4 elements: 4 rounds in 2 conversations; 0 elements skipped"

    cut = ("[" + ",".join(elements[:3]) + "," + elements[3][: len(elements[3]) // 2]).encode()
    upload = read_upload([("cut.json", cut)])
    assert upload.rounds == 3
    assert [upload.said(p) for p in upload.problems] == [
        "element 4: is not valid JSON (at the end of the element: cut short: the JSON stops before it is complete)"]
    bare = ("[" + ",".join(elements[:3]) + "," + elements[3].replace('"role"', "role", 1) + "]").encode()
    [problem] = read_upload([("bare.json", bare)]).problems
    assert problem.line == 4 and re.fullmatch(r"is not valid JSON \(at line \d+, character \d+ of the element: "
                                              r"a key is not a string in double quotes: unquoted, in single quotes, "
                                              r"or after a comma too many\)",
                                              problem.message)

    no_comma = ("[" + ",".join(elements[:2]) + " " + elements[2] + "]").encode()
    upload = read_upload([("no-comma.json", no_comma)])
    assert upload.rounds == 2 and [p.line for p in upload.problems] == [3]

    assert read_upload([("empty.json", b" [ ] ")]).summary() == "0 elements: 0 rounds in 0 conversations; 0 elements skipped"
    numbers = read_upload([("numbers.json", b"[1, 2.5]")])
    assert [p.message for p in numbers.problems] == ["is a number, not a JSON object", "is a number, not a JSON object"]


def test_an_empty_file_is_said_to_be_empty_not_left_as_zero_lines_with_nothing_skipped():
    # The sidebar showed "0 lines: 0 rounds in 0 conversations; 0 lines skipped" and the page "The sidebar says what it
    # holds and why none could be read": it said neither.
    assert read_upload([("session.jsonl", b"")]).summary() == "The file is empty (0 bytes): there is nothing to read."
    assert read_upload([("session.jsonl.gz", gzip.compress(b""))]).summary() == \
        "The file is empty (0 bytes): there is nothing to read."
    goose = (FIXTURES / "goose-session.jsonl").read_bytes()
    beside = read_upload([("empty.jsonl", b""), ("goose-session.jsonl", goose)])
    assert beside.summary() == ("4 lines: 1 round in 1 conversation; 1 line not a model call; "
                                "empty (0 bytes): empty.jsonl; 0 lines skipped")


def test_a_damaged_gzip_is_said_not_opened_not_zero_lines_with_one_skipped():
    # A recorded Codex rollout, gzipped and cut in half (a download that stopped): the sidebar said "0 lines: 0 rounds
    # in 0 conversations; 1 line skipped", a line skipped of none read.
    packed = gzip.compress((FIXTURES / "codex-rollout-0.125.jsonl").read_bytes())
    cut = read_upload([("rollout.jsonl.gz", packed[:len(packed) // 2])])
    assert cut.summary() == "The file could not be opened, so nothing in it was read: why is said below."
    assert [cut.said(p) for p in cut.problems] == [
        "line 1: is not a readable gzip file (Compressed file ended before the end-of-stream marker was reached)"]
    beside = read_upload([("rollout.jsonl.gz", packed[:len(packed) // 2]),
                          ("goose-session.jsonl", (FIXTURES / "goose-session.jsonl").read_bytes())])
    assert "not opened: rollout.jsonl.gz" in beside.summary() and beside.rounds == 1


def _one_task_run_many_times(runs: int) -> tuple[list[bytes], list[bytes]]:
    """An eval's log: `runs` runs of one task, every run opening with the same two messages, the model answering each
    in its own words, and each run's second call sending its own answer back. (first calls, second calls)"""
    opening = [{"role": "system", "content": "You are a travel assistant."},
               {"role": "user", "content": "What is the weather in Paris?"}]

    def call(messages, said, call_id):
        return json.dumps({"request": {"model": "gpt-4o", "messages": messages}, "response": {
            "id": call_id, "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": said}, "finish_reason": "stop"}]}}).encode()

    firsts = [call(opening, f"Run {n}: sunny.", f"run-{n}-1") for n in range(runs)]
    seconds = [call(opening + [{"role": "assistant", "content": f"Run {n}: sunny."},
                               {"role": "user", "content": f"And tomorrow? (run {n})"}], f"Run {n}: rain.", f"run-{n}-2")
               for n in range(runs)]
    return firsts, seconds


def test_every_run_of_one_task_is_its_own_conversation_in_whatever_order_the_log_holds_its_calls():
    # A batch of one task run many times comes back in any order. Each run's second call was joined to the first run
    # found of that opening: "Run 0: sunny." followed by "Run 299: rain.", whose request resends run 299's answer.
    firsts, seconds = _one_task_run_many_times(300)
    orders = {"run by run": [line for pair in zip(firsts, seconds) for line in pair],
              "every first call, then every second": firsts + seconds,
              "the second calls first, last run first": seconds[::-1] + firsts}
    for order, lines in orders.items():
        upload = read_upload([("eval.jsonl", b"\n".join(lines))])
        assert upload.summary() == "600 lines: 600 rounds in 300 conversations; 0 lines skipped", order
        runs = {tuple(r.response.message.text for r in c.trace.rounds) for c in upload.conversations}
        assert runs == {(f"Run {n}: sunny.", f"Run {n}: rain.") for n in range(300)}, order


def test_a_problem_in_one_of_several_files_is_named_by_that_file_and_its_own_line():
    # A JSONL log uploaded beside a cassette: the upload counts 'items', and a broken line was said as
    # "item 2: broken.jsonl: is not valid JSON ...", a number that is neither the upload's second item (the cassette's
    # interactions come first) nor said to be the file's line. Now the file and its own unit number it.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    cassette = (FIXTURES / "containers" / "crewai-openai-max-usage.yaml").read_bytes()
    upload = read_upload([("agent.yaml", cassette), ("broken.jsonl", b"\n".join([good[0], b"{not json", good[2]])),
                          ("damaged.jsonl.gz", b"\x1f\x8b not gzip")])
    assert upload.unit == "item"
    assert sorted(upload.said(p) for p in upload.problems) == [
        "broken.jsonl, line 2: is not valid JSON (at character 2 of the line: a key is not a string in double quotes: "
        "unquoted, in single quotes, or after a comma too many)",
        "damaged.jsonl.gz: is not a readable gzip file (Unknown compression method)"]
    # Several files of lines: the same words, the file's line said after its name.
    upload = read_upload([("a.jsonl", good[0]), ("broken.jsonl", b"\n".join([good[0], b"{not json"]))])
    assert [upload.said(p) for p in upload.problems] == [
        "broken.jsonl, line 2: is not valid JSON (at character 2 of the line: a key is not a string in double quotes: "
        "unquoted, in single quotes, or after a comma too many)"]


def test_the_same_line_number_broken_in_two_files_counts_two_skipped_lines():
    # Line 2 of one file and line 2 of another were one line to the count: "1 line skipped" above a list of two.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    upload = read_upload([("a.jsonl", b"\n".join([good[0], b"{x"])), ("b.jsonl", b"\n".join([good[2], b"{y"]))])
    assert upload.summary() == "4 lines: 2 rounds in 1 conversation; 2 lines skipped"
    assert [upload.said(p).split(":")[0] for p in upload.problems] == ["a.jsonl, line 2", "b.jsonl, line 2"]


def test_the_problems_of_several_files_are_listed_file_by_file_in_the_order_given_each_under_its_name():
    # They were sorted by line number alone, across files: b.jsonl's line 2 before a.jsonl's line 7.
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    a = b"\n".join([good[0], good[1], good[2], good[3], b"{x", good[0], b"{y"])
    b = b"\n".join([good[0], b"{z"])
    upload = read_upload([("a.jsonl", a), ("b.jsonl", b)])
    assert [(p.file, p.line) for p in upload.problems] == [("a.jsonl", 5), ("a.jsonl", 7), ("b.jsonl", 2)]
    listed = upload.listing(upload.problems)
    assert [line.split(":")[0] for line in listed] == ["a.jsonl", "  line 5", "  line 7", "b.jsonl", "  line 2"]
    # Given the other way round, b.jsonl's come first.
    upload = read_upload([("b.jsonl", b), ("a.jsonl", a)])
    assert [line.split(":")[0] for line in upload.listing(upload.problems)] == [
        "b.jsonl", "  line 2", "a.jsonl", "  line 5", "  line 7"]
    # One file: one line each, as before.
    upload = read_upload([("a.jsonl", a)])
    assert [line.split(":")[0] for line in upload.listing(upload.problems)] == ["line 5", "line 7"]


def test_a_conversation_of_an_upload_of_several_files_is_named_by_the_file_that_held_it():
    # Every conversation was titled by how many files were uploaded: "3 files · conversation 2" for one that
    # sess-42.jsonl alone held.
    pairs = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    upload = read_upload([("monday.jsonl", pairs[0]), ("tuesday.jsonl", pairs[2]), ("sess-42.jsonl", pairs[1])])
    titles = {c.id: (c.source, c.trace.title) for c in upload.conversations}
    assert titles == {
        "conversation 1": ("monday.jsonl + tuesday.jsonl", "monday.jsonl + tuesday.jsonl · conversation 1"),
        "conversation 2": ("sess-42.jsonl", "sess-42.jsonl · conversation 2")}
    # A batch's requests in one file and its results in another: named by both files where both hold its calls (it
    # was titled "openai-batch-input.jsonl · trip-17-round-1", its answers read from the other file), by the file of
    # its requests or of its result where only one holds it.
    names = ["openai-batch-input.jsonl", "openai-batch-output.jsonl"]
    upload = read_upload([(name, (FIXTURES / name).read_bytes()) for name in names])
    assert [c.trace.title for c in upload.conversations] == [
        "openai-batch-input.jsonl + openai-batch-output.jsonl · trip-17-round-1",
        "openai-batch-input.jsonl + openai-batch-output.jsonl · trip-18-missing-result",
        "openai-batch-input.jsonl · trip-19-never-ran", "openai-batch-output.jsonl · trip-20-expired"]
    names = ["anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl"]
    upload = read_upload([(name, (FIXTURES / name).read_bytes()) for name in names])
    assert [c.source for c in upload.conversations] == [" + ".join(names)] * 4 + ["anthropic-batch-results.jsonl"]
    # One file: its name, as before.
    (conversation,) = read_upload([("sess-42.jsonl", pairs[1])]).conversations
    assert conversation.trace.title == "sess-42.jsonl · conversation 1" and conversation.source == ""


def test_what_an_importer_says_once_several_files_are_read_names_the_file_it_is_about():
    # A Claude Code prompt with no response is said when the importer finishes, after every file: it was said as
    # "line 1: ..." and "line 3: ...", in an upload of two files, naming neither.
    session = [json.loads(line) for line in (FIXTURES / "claude-code-session.jsonl").read_bytes().splitlines()]

    def prompt(session_id: str) -> bytes:
        line = {**session[0], "sessionId": session_id, "uuid": f"u-{session_id}"}
        return json.dumps({**line, "message": {"role": "user", "content": [{"type": "text", "text": "Still there?"}]}}
                          ).encode()

    answered = b"\n".join(json.dumps(line).encode() for line in session[:2])
    upload = read_upload([("a.jsonl", prompt("s-a")), ("b.jsonl", b"\n".join([answered, prompt("s-b")]))])
    assert [upload.said(note).split(": ")[0] for note in upload.notes] == ["a.jsonl, line 1", "b.jsonl, line 3"]
    assert all("holds a prompt, and no response" in note.message for note in upload.notes)
    (conversation,) = upload.conversations
    assert conversation.trace.title == "b.jsonl · session test_session"


BROKEN_LINES = [b'{"a": tru}', b'{"model": "gpt-4o" "messages": []}', b'{"a": 1,}', b'{"a": 01}', b'{"a": "\\q"}',
                b'{"a": 1} {"b": 2}']
"""Lines a hand edit or a crashed writer leaves, each wrong in one way."""
BROKEN_SAID = [
    "line 2: is not valid JSON (at character 7 of the line: a bare word that is none of JSON's three: true, false, "
    "null)",
    "line 3: is not valid JSON (at character 20 of the line: a value inside an object is followed by neither ',' nor "
    "'}': a comma left out?)",
    "line 4: is not valid JSON (at character 8 of the line: a comma before a closing bracket, which JSON does not "
    "allow)",
    "line 5: is not valid JSON (at character 7 of the line: a number begins with 0, which JSON does not allow)",
    "line 6: is not valid JSON (at character 8 of the line: a string holds a backslash escape that JSON does not "
    "have)",
    "line 7: is not valid JSON (at character 10 of the line: more follows after its one JSON value has ended)"]
"""What the sidebar, `lib check` and `lib summarize` say of them."""


def test_a_broken_json_line_says_in_our_words_what_is_wrong_with_it_not_in_the_parsers():
    # orjson's own words were shown: "invalid literal, expected 'true'", "unexpected character, expected ',' or '}'".
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    upload = read_upload([("edited.jsonl", b"\n".join([good[0], *BROKEN_LINES]))])
    assert [upload.said(p) for p in upload.problems] == BROKEN_SAID
    assert not [p for p in upload.problems if re.search(r"invalid literal|unexpected character|column|\(char ", p.message)]


def test_two_blank_lines_in_a_row_are_said_as_one_line_and_the_line_after_it():
    # "line 5: is empty, and so are the 1 lines after it".
    good = (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()
    upload = read_upload([("gaps.jsonl", b"\n".join([good[0], b"", b"", good[2], b"", b"", b"", good[1]]))])
    assert [upload.said(p) for p in upload.problems] == ["line 2: is empty, and so is the line after it",
                                                        "line 5: is empty, and so are the 2 lines after it"]


def test_a_note_on_a_batch_call_names_the_file_and_line_of_its_request_when_its_result_is_in_another_file():
    # The request asked for 2 answers (n = 2) on line 2 of requests.jsonl; its result, on line 1 of results.jsonl,
    # completed the call, and the note was said as "results.jsonl, line 2": the other file's label on this one's line.
    requests = [json.loads(line) for line in (FIXTURES / "openai-batch-input.jsonl").read_bytes().splitlines()]
    results = [json.loads(line) for line in (FIXTURES / "openai-batch-output.jsonl").read_bytes().splitlines()]
    asked = next(r for r in requests if r["custom_id"] == "trip-17-round-2")
    asked["body"]["n"] = 2
    answered = next(r for r in results if r["custom_id"] == "trip-17-round-2")
    others = [r for r in requests if r is not asked][:1]
    upload = read_upload([("requests.jsonl", b"\n".join(json.dumps(r).encode() for r in [*others, asked])),
                          ("results.jsonl", json.dumps(answered).encode())])
    (note,) = [n for n in upload.notes if "answers at once" in n.message]
    assert upload.said(note).startswith("requests.jsonl, line 2: the call asked for 2 answers at once (n = 2)")


def test_why_no_format_read_several_files_is_said_on_the_first_objects_line_under_its_file():
    # It was listed apart, "line 1: no line of the file matches ...", under no file, beside b.jsonl's own line 1.
    upload = read_upload([("a.jsonl", b'{"city": "Paris"}\n{"x": 1}'), ("b.jsonl", b'{"city": "Oslo"}')])
    assert upload.listing(upload.problems) == [
        "a.jsonl",
        "  line 1: no line of the 2 files matches a known log format; none comes close (the first object's keys: "
        "'city')",
        "  line 2: matches no known log format",
        "b.jsonl",
        "  line 1: matches no known log format"]
    assert upload.summary() == "3 lines: 0 rounds in 0 conversations; 3 lines skipped"


def _named(name: str, lines: list[dict]) -> bytes:
    return b"\n".join(json.dumps({**line, "conversation": name}).encode() for line in lines)


def test_two_files_that_each_name_a_conversation_sess_1_are_two_conversations_each_named_by_its_file():
    # Monday's and Tuesday's logs each held a run its program called "sess-1": one conversation "monday.jsonl +
    # tuesday.jsonl · sess-1" of four rounds, Tuesday's first round placed after Monday's last as if it went on from
    # it.
    pairs = [json.loads(line) for line in (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()]
    oslo, lima = [pairs[0], pairs[2]], [pairs[1], pairs[3]]
    upload = read_upload([("monday.jsonl", _named("sess-1", oslo)), ("tuesday.jsonl", _named("sess-1", lima))])
    assert upload.summary() == "4 lines: 4 rounds in 2 conversations; 0 lines skipped"
    said = {c.id: (c.source, [r.request.messages[1].text for r in c.trace.rounds]) for c in upload.conversations}
    assert said == {"sess-1 (monday.jsonl)": ("monday.jsonl", ["Weather in Oslo and Rome?"] * 2),
                    "sess-1 (tuesday.jsonl)": ("tuesday.jsonl", ["Weather in Lima?"] * 2)}
    # Titled by its file, as any conversation of several files is, and by the name the log gave it.
    assert [c.trace.title for c in upload.conversations] == ["monday.jsonl · sess-1", "tuesday.jsonl · sess-1"]
    # The same run saved twice, not byte for byte (a copy with a newline more), is not one conversation of its rounds
    # twice over; a copy byte for byte is read once (test_a_file_uploaded_beside_a_copy_of_itself_...).
    upload = read_upload([("run.jsonl", _named("sess-1", oslo)), ("run (copy).jsonl", _named("sess-1", oslo) + b"\n")])
    assert [(c.id, len(c.trace.rounds)) for c in upload.conversations] == [("sess-1 (run.jsonl)", 2),
                                                                           ("sess-1 (run (copy).jsonl)", 2)]


def test_a_conversation_named_alike_in_two_files_is_one_where_the_second_file_goes_on_from_the_first():
    # A log rotated in the middle of sess-1: the second file's first request resends the first file's last one and
    # goes on. One conversation of both files, in its order, whichever file is given first.
    pairs = [json.loads(line) for line in (FIXTURES / "openai-pairs.jsonl").read_bytes().splitlines()]
    files = [("app.log.1.jsonl", _named("sess-1", [pairs[0]])), ("app.log.jsonl", _named("sess-1", [pairs[2]]))]
    for given in (files, files[::-1]):
        (conversation,) = read_upload(given).conversations
        assert conversation.id == "sess-1" and conversation.source == "app.log.1.jsonl + app.log.jsonl"
        assert [len(r.request.messages) for r in conversation.trace.rounds] == [2, 5]


def test_two_otlp_exports_with_the_same_trace_id_are_two_conversations_unless_one_goes_on_from_the_other():
    # Two OTLP files of the same trace id (the same run exported twice) became one conversation of each call twice.
    spans = (FIXTURES / "otel-genai.jsonl").read_bytes().splitlines()
    upload = read_upload([("a.jsonl", spans[0]), ("b.jsonl", spans[0] + b"\n")])  # byte for byte, it is read once
    trace = "4bf92f3577b34da6a3ce929d0e0e4736"
    assert [(c.id, c.source) for c in upload.conversations] == [(f"{trace} (a.jsonl)", "a.jsonl"),
                                                                (f"{trace} (b.jsonl)", "b.jsonl")]
    # An export cut between the trace's two model calls: one conversation of both files, as the trace was.
    upload = read_upload([("a.jsonl", b"\n".join(spans[:1])), ("b.jsonl", b"\n".join(spans[1:]))])
    assert [(c.id, c.source, len(c.trace.rounds)) for c in upload.conversations] == [
        (trace, "a.jsonl + b.jsonl", 2), ("9a8b7c6d5e4f30211203f4e5d6c7b8a9", "b.jsonl", 1)]


def test_a_note_on_spans_of_several_files_names_the_file_of_its_last_line():
    # Spans without their messages in a.jsonl (one line) and b.jsonl (two): the note said "a.jsonl, line 1: 6 model-call
    # spans, from this line to line 2, carry no messages", and a.jsonl has no line 2.
    document = (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes().strip()
    other_trace = document.replace(b"03bc", b"13bc")
    upload = read_upload([("a.jsonl", document), ("b.jsonl", b"\n".join([document, other_trace]))])
    (note,) = upload.notes
    assert upload.said(note).startswith("a.jsonl, line 1: 6 model-call spans, from this line to line 2 of b.jsonl, "
                                        "carry no messages")
    assert note.last is None  # no run of a.jsonl's lines
    # One file: its own lines, as before.
    (note,) = read_upload([("b.jsonl", b"\n".join([document, other_trace]))]).notes
    assert note.last == 2
    assert note.message.startswith("4 model-call spans, from this line to line 2, carry no messages")


def test_conversations_named_by_their_line_in_two_files_are_not_one():
    # A training file names each example by its line ("line 1"): line 1 of a.jsonl and line 1 of b.jsonl were one
    # conversation "line 1", the second example's rounds after the first's.
    examples = (FIXTURES / "openai-finetune.jsonl").read_bytes().splitlines()
    upload = read_upload([("a.jsonl", examples[0]), ("b.jsonl", examples[1])])
    assert [(c.id, c.source) for c in upload.conversations] == [("line 1 (a.jsonl)", "a.jsonl"),
                                                                ("line 1 (b.jsonl)", "b.jsonl")]


def test_a_line_an_importer_works_out_from_the_one_it_was_fed_is_of_the_same_file(monkeypatch):
    # An importer that says something of the line after the one it read (`line + 1`: where a record it holds ends)
    # or the one before got a plain number, told no file: in an upload of several, said as of no file or the wrong one.
    import lib.logs.upload as upload_module
    from lib.logs.record import LogFormat, Problem

    class Ranges(LogFormat):
        name, title = "ranges", "a format that reads ranges"

        def __init__(self):
            self.said = []

        def detect(self, obj):
            return "'range'" if "range" in obj else None

        def feed(self, obj, line):
            self.said += [Problem(line + 1, "the line after it", loaded=True),
                          Problem(1 + line, "also the line after it", loaded=True),
                          Problem(line - 1, "the line before it", loaded=True)]
            return iter(())

        def notes(self):
            return self.said

    monkeypatch.setattr(upload_module, "FORMATS", [Ranges, *upload_module.FORMATS])
    upload = read_upload([("a.jsonl", b'{"range": 1}\n{"range": 2}'), ("b.jsonl", b'{"range": 3}\n{"range": 4}')])
    said = [upload.said(note) for note in upload.notes if note.file == "b.jsonl"]
    assert said[-3:] == ["b.jsonl, line 3: the line after it", "b.jsonl, line 3: also the line after it",
                         "b.jsonl, line 1: the line before it"]
    assert not [note for note in upload.notes if note.file is None]


@pytest.mark.parametrize("name", ["codex-rollout-0.125.jsonl", "claude-stream-json-read.jsonl", "opencode-run-json.jsonl",
                                  "claude-code-session.jsonl", "requests-only.jsonl", "openai-batch-input.jsonl"])
def test_a_file_uploaded_beside_a_copy_of_itself_is_read_once_and_the_copy_said_so(name):
    # A Codex rollout beside its copy was one conversation, 'session 019e1625-…', with every round twice (6 rounds of
    # a 3-round run): the importers keyed by a session carried the first file's history into the second. A file of
    # requests chained the copy's requests onto the first's; a batch's copy was 'custom_id … is on a second request
    # line' on every line. The same bytes twice are one log given twice.
    data = (FIXTURES / name).read_bytes()
    alone = read_upload([(name, data)])
    twice = read_upload([(name, data), ("copy of " + name, gzip.compress(data))])
    assert [(c.id, len(c.trace.rounds)) for c in twice.conversations] == \
        [(c.id, len(c.trace.rounds)) for c in alone.conversations]
    assert twice.problems == alone.problems
    assert (f"copy of {name}: holds the same bytes as {name}, so it was read once, as {name}: a file given twice is "
            "one log, not two runs") in [twice.said(note) for note in twice.notes]
    assert twice.summary() == alone.summary()


@pytest.mark.parametrize("name", ["codex-rollout-0.125.jsonl", "claude-stream-json-read.jsonl", "opencode-run-json.jsonl",
                                  "amp-stream-json-success.jsonl", "claude-code-session.jsonl"])
def test_two_runs_of_one_session_in_two_files_are_two_conversations_each_named_by_its_file(name):
    # The same run saved twice, not byte for byte (one copy with a newline more at its end): a Codex rollout was one
    # conversation, 'session 019e1625-…', of 6 rounds, its importer's history carried from the first file into the
    # second's calls. Each file is one run; neither file's first request sends the other's last on.
    data = (FIXTURES / name).read_bytes()
    [alone] = read_upload([(name, data)]).conversations
    for files in ([("monday.jsonl", data), ("tuesday.jsonl", data + b"\n")],
                  [("tuesday.jsonl", data + b"\n"), ("monday.jsonl", data)]):
        upload = read_upload(files)
        assert sorted((c.id, c.source, len(c.trace.rounds)) for c in upload.conversations) == [
            (f"{alone.id} (monday.jsonl)", "monday.jsonl", len(alone.trace.rounds)),
            (f"{alone.id} (tuesday.jsonl)", "tuesday.jsonl", len(alone.trace.rounds))]
        assert [r.request.messages for r in upload.conversations[0].trace.rounds] == \
            [r.request.messages for r in alone.trace.rounds]


def test_a_note_counting_calls_left_out_counts_each_files_on_that_files_line():
    # ruby-openai's Assistants API runs, two calls a cassette, saved as two cassettes: the note was "a.yml, interaction
    # 1: a model call to api.openai.com/v1/threads/<thread>/runs ... left out, and so are 3 more calls to it", a.yml
    # holding one more, b.yml the other two.
    cassette = (FIXTURES / "containers/ruby-openai-assistants-run-stream.yml").read_bytes()
    upload = read_upload([("a.yml", cassette), ("b.yml", cassette + b"\n")])
    assert upload.summary() == ("4 interactions: 0 rounds in 0 conversations; 4 interactions to an API Roundtrip does "
                                "not read; 0 interactions skipped")
    said = [upload.said(note) for note in upload.notes]
    assert [s.split(": a model call")[0] for s in said] == ["a.yml, interaction 1", "b.yml, interaction 1"]
    assert all(s.endswith("left out, and so is 1 more call to it") for s in said)
