"""Batch files: request lines and result lines joined on custom_id, whatever the order or the file."""

import pytest
from anthropic.types.messages import MessageBatchIndividualResponse
from openai.types.chat import ChatCompletion

from lib.logs.batches import AnthropicBatchFormat, OpenAIBatchFormat
from lib.logs.upload import read_upload
from tests.formats_support import (FIXTURES, assert_detects_only_its_own, assert_only_line_problems, calls, feed,
                                    feed_files, lines, problems, read, results)

OPENAI_FILES = ("openai-batch-input.jsonl", "openai-batch-output.jsonl")
ANTHROPIC_FILES = ("anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl")


def _openai(*names):
    """Records by custom_id and problems by (file, line), the files fed one after the other."""
    fmt = OpenAIBatchFormat()
    records, found = [], {}
    for name in names:
        more, problems_here = problems(fmt, lines(name), finish=False)
        records += more
        found.update({(name, n): p for n, p in problems_here.items()})
    records += list(fmt.finish())
    return {r.name: r for r in records}, found


# --- OpenAI Batch API ------------------------------------------------------------------------------


def test_fixture_output_bodies_are_real_chat_completions():
    for obj in lines("openai-batch-output.jsonl"):
        if obj["response"] and obj["response"]["status_code"] == 200:
            ChatCompletion.model_validate(obj["response"]["body"])


def test_inputs_and_outputs_from_two_files_are_joined_on_custom_id():
    by_id, _ = _openai(*OPENAI_FILES)
    assert set(by_id) == {"trip-17-round-1", "trip-17-round-2", "trip-18-missing-result", "trip-19-never-ran", "trip-20-expired"}
    first = by_id["trip-17-round-1"]
    assert (first.dialect, first.line) == ("openai-chat", 1)
    request, response = read(first)
    assert len(request.messages) == 2 and [t.name for t in request.tools] == ["get_weather", "get_local_time"]
    assert calls(response) == [("call_Bq1uT5yH8kLm3N", "get_weather"), ("call_Bq2vU6zJ9nPq4R", "get_local_time")]
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (142, 46)


def test_the_second_round_answers_both_calls_and_stops():
    by_id, _ = _openai(*OPENAI_FILES)
    request, response = read(by_id["trip-17-round-2"])
    assert len(request.messages) == 5
    assert results(request) == ["call_Bq1uT5yH8kLm3N", "call_Bq2vU6zJ9nPq4R"]
    assert response.stop == "end" and response.usage.cache_read_tokens == 128


def test_the_join_does_not_depend_on_which_file_comes_first():
    inputs_first, _ = _openai(*OPENAI_FILES)
    outputs_first, _ = _openai(*reversed(OPENAI_FILES))
    for custom_id, record in inputs_first.items():
        other = outputs_first[custom_id]
        assert (other.request, other.response, other.error) == (record.request, record.response, record.error)


def test_a_4xx_output_becomes_the_error_of_its_request_with_the_providers_words():
    by_id, _ = _openai(*OPENAI_FILES)
    record = by_id["trip-18-missing-result"]
    assert record.response is None and record.request is not None
    assert record.error["status"] == 400
    assert "did not have response messages: call_Bq2vU6zJ9nPq4R" in record.error["message"]


def test_unmatched_halves_are_yielded_at_the_end_on_their_own():
    by_id, _ = _openai(*OPENAI_FILES)
    never_ran, expired = by_id["trip-19-never-ran"], by_id["trip-20-expired"]
    assert never_ran.response is None and never_ran.error is None and len(never_ran.request["messages"]) == 1
    assert expired.request is None and expired.response is None
    words = "This request could not be executed before the completion window expired."
    assert expired.error == {"status": None, "body": {"code": "batch_expired", "message": words}, "message": words}


def test_a_request_to_another_endpoint_is_a_line_problem_naming_the_url_and_so_is_its_output():
    # A batch targets one endpoint; an embeddings batch uploaded by mistake must say so, line by line.
    request = {"custom_id": "embed-3", "method": "POST", "url": "/v1/embeddings",
               "body": {"model": "text-embedding-3-small", "input": "light snow in Oslo"}}
    output = {"id": "batch_req_1", "custom_id": "embed-3", "error": None,
              "response": {"status_code": 200, "request_id": "req_1", "body": {"object": "list", "data": []}}}
    records, found = problems(OpenAIBatchFormat(), [request, output])
    assert records == []
    assert "url '/v1/embeddings' is not supported" in found[1]
    assert "answers request 'embed-3' to /v1/embeddings" in found[2]
    records, found = problems(OpenAIBatchFormat(), [output, request])
    assert records == [] and "url '/v1/embeddings' is not supported" in found[2]


def test_an_output_alone_whose_body_is_not_a_chat_completion_is_a_line_problem():
    output = {"id": "batch_req_1", "custom_id": "e-1", "error": None,
              "response": {"status_code": 200, "request_id": "req_1", "body": {"object": "list", "data": []}}}
    _, found = problems(OpenAIBatchFormat(), [output])
    assert "response body is a 'list'" in found[1]


def test_a_custom_id_seen_twice_on_one_side_is_a_line_problem():
    first = lines(OPENAI_FILES[0])[0]
    records, found = problems(OpenAIBatchFormat(), [first, first])
    assert "custom_id 'trip-17-round-1' is on a second request line" in found[2]
    assert len(records) == 1


@pytest.mark.parametrize("make, obj, words", [
    (OpenAIBatchFormat, {"custom_id": "a", "method": "POST", "url": 7, "body": {}}, "'url' is a number"),
    (OpenAIBatchFormat, {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": "{}"}, "'body' is a string"),
    (OpenAIBatchFormat, {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "gpt-4o"}},
     "body 'messages' is missing"),
    (OpenAIBatchFormat, {"custom_id": None, "method": "POST", "url": "/v1/chat/completions", "body": {}}, "'custom_id' is null"),
    (OpenAIBatchFormat, {"custom_id": "a", "response": "ok", "error": None}, "'response' is a string"),
    (OpenAIBatchFormat, {"custom_id": "a", "response": None, "error": None}, "both null"),
    (OpenAIBatchFormat, {"custom_id": "a", "response": {"status_code": 200, "body": None}, "error": None}, "response 'body' is null"),
    (AnthropicBatchFormat, {"custom_id": "a", "result": {"type": "vanished"}}, "result 'type' is 'vanished'"),
    (AnthropicBatchFormat, {"custom_id": "a", "result": {"type": "succeeded"}}, "result 'message' is missing"),
    (AnthropicBatchFormat, {"custom_id": "a", "params": {"model": "claude-sonnet-4-5"}}, "params 'messages' is missing"),
    (AnthropicBatchFormat, {"custom_id": "a", "params": []}, "'params' is a list"),
])
def test_a_malformed_batch_line_is_a_line_problem_that_names_the_field(make, obj, words):
    _, found = problems(make(), [obj])
    assert words in found[1]


def test_openai_batch_detection_claims_its_lines_and_nothing_else():
    assert_detects_only_its_own(OpenAIBatchFormat)


def test_any_one_place_changed_in_an_openai_batch_line_gives_a_line_problem_or_a_record_never_a_crash():
    objs = lines(OPENAI_FILES[0]) + lines(OPENAI_FILES[1])
    assert assert_only_line_problems(OpenAIBatchFormat, objs, stride=2) > 900


# --- Anthropic Message Batches ---------------------------------------------------------------------


def _anthropic(*names):
    return {r.name: r for r in feed_files(AnthropicBatchFormat(), *names)}


def test_fixture_result_lines_are_real_batch_results():
    for obj in lines("anthropic-batch-results.jsonl"):
        MessageBatchIndividualResponse.model_validate(obj)


def test_requests_and_results_are_joined_into_messages_rounds():
    by_id = _anthropic(*ANTHROPIC_FILES)
    assert set(by_id) == {"ticket-7-round-1", "ticket-7-round-2", "ticket-8", "ticket-9", "ticket-10", "ticket-11"}
    request, response = read(by_id["ticket-7-round-1"])
    assert by_id["ticket-7-round-1"].dialect == "anthropic-messages"
    assert request.system.text.startswith("You are a concise travel assistant") and len(request.messages) == 1
    assert calls(response) == [("toolu_01Mb3Xq9Lr2Vn8Ks5Tw7Yz1P", "get_weather"), ("toolu_01Nc4Yr0Ms3Wo9Lt6Ux8Za2Q", "get_local_time")]
    assert response.stop == "tool_calls" and response.usage.input_tokens == 540
    request, response = read(by_id["ticket-7-round-2"])
    assert results(request) == ["toolu_01Mb3Xq9Lr2Vn8Ks5Tw7Yz1P", "toolu_01Nc4Yr0Ms3Wo9Lt6Ux8Za2Q"]
    assert response.stop == "end" and response.usage.input_tokens == 610 + 512


def test_results_that_did_not_succeed_are_errors_that_say_why():
    by_id = _anthropic(*ANTHROPIC_FILES)
    errored = by_id["ticket-8"]
    assert errored.response is None and errored.error["status"] == 400
    assert errored.error["message"].startswith("errored: messages.2: `tool_use` ids were found without `tool_result` blocks")
    assert by_id["ticket-9"].error["message"].startswith("expired: the batch ran out of time")
    assert by_id["ticket-10"].error["message"].startswith("canceled: the batch was canceled")
    assert all(by_id[t].request is not None for t in ("ticket-8", "ticket-9", "ticket-10"))


def test_a_result_without_its_request_is_yielded_response_only():
    by_id = _anthropic(*ANTHROPIC_FILES)
    alone = by_id["ticket-11"]
    assert alone.request is None and alone.line == 6
    assert read(alone)[1].message.text == "Hello!"


def test_results_alone_still_load_when_the_requests_file_is_missing():
    records = feed_files(AnthropicBatchFormat(), ANTHROPIC_FILES[1])
    assert len(records) == 6 and all(r.request is None for r in records)
    assert sum(r.response is not None for r in records) == 3


def test_anthropic_batch_detection_claims_its_lines_and_nothing_else():
    assert_detects_only_its_own(AnthropicBatchFormat)


def test_any_one_place_changed_in_an_anthropic_batch_line_gives_a_line_problem_or_a_record_never_a_crash():
    objs = lines(ANTHROPIC_FILES[0]) + lines(ANTHROPIC_FILES[1])
    assert assert_only_line_problems(AnthropicBatchFormat, objs, stride=2) > 900
    assert feed(AnthropicBatchFormat(), []) == []


@pytest.mark.parametrize("names", [OPENAI_FILES, ANTHROPIC_FILES], ids=["openai", "anthropic"])
def test_a_batch_uploaded_results_first_reads_as_it_does_requests_first(names):
    # With the output file first, the failed request trip-18-missing-result was a conversation of its own; with the
    # input file first, trip-17-round-1 had 3 rounds (2 → 4 → 5), trip-17-round-2 said to go on from trip-18's failed
    # request. The batch sent both at once, each from round 1's answer: trip-18 is another request, as the input file
    # alone reads it, and each file's order gives that.
    from lib.logs.upload import read_upload
    files = [(name, (FIXTURES / name).read_bytes()) for name in names]

    def seen(upload):
        return ([(c.id, c.source, [len(r.request.messages) for r in c.trace.rounds]) for c in upload.conversations],
                upload.summary(), [upload.said(p) for p in (*upload.problems, *upload.notes)])

    forward, backward = read_upload(files), read_upload(files[::-1])
    assert seen(forward) == seen(backward)
    if names == OPENAI_FILES:
        both = " + ".join(OPENAI_FILES)
        assert seen(forward)[0] == [("trip-17-round-1", both, [2, 5]), ("trip-18-missing-result", both, [4]),
                                    ("trip-19-never-ran", OPENAI_FILES[0], [1]),
                                    ("trip-20-expired", OPENAI_FILES[1], [0])]


def test_a_batch_of_more_runs_than_are_compared_for_rounds_out_of_order_says_so_in_its_notes():
    # The fixture's batch run 401 times (a batch of one task run many times, each run its own custom_id and call ids):
    # 802 conversations open with the same two messages, more than put_back_late_rounds compares each with each. The
    # runs' requests that begin mid-conversation (trip 18's, refused) are not checked for being another's rounds that
    # came out of order: the notes say so, counted, once for the opening.
    def runs(name: str) -> bytes:
        text = (FIXTURES / name).read_text()
        return "".join(text.replace("trip-", f"run-{run}-trip-").replace("call_Bq", f"call_{run}Bq")
                       for run in range(401)).encode()

    upload = read_upload([("input.jsonl", runs("openai-batch-input.jsonl")),
                          ("output.jsonl", runs("openai-batch-output.jsonl"))])
    said = [upload.said(note) for note in upload.notes if "compared each with each" in note.message]
    assert said == ["input.jsonl, line 3: 802 conversations open with this line's first two messages, more than "
                    "the 400 whose rounds are compared each with each to put back rounds that came out of order: 401 "
                    "of them begin in the middle of a conversation (its first request sends an answer back), and may "
                    "be rounds of other conversations, read as conversations of their own"]
    the_fixture = read_upload([("input.jsonl", (FIXTURES / "openai-batch-input.jsonl").read_bytes()),
                               ("output.jsonl", (FIXTURES / "openai-batch-output.jsonl").read_bytes())])
    assert not [note for note in the_fixture.notes if "compared each with each" in note.message]
