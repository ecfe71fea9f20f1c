"""Several files uploaded at once: what Roundtrip shows does not depend on the order the files are given in.

Every group of fixtures that a test uploads together is read in each order its files can be given in: the same
conversations (names, the files that held them, rounds, messages and calls per round), the same summary, and the same
problems and notes on each file's lines. Conversations the log names none of are numbered in the order their first
calls were given (`conversation 1`, `conversation 2`): that order is the user's, so their numbers are left out of the
comparison, what each holds is not."""

import itertools
import json
import random
import re

import pytest
import yaml

from lib.logs.upload import Upload, read_upload
from tests.formats_support import FIXTURES, lines
from tests.synthetic import synthetic_log

CONTAINERS = "containers/"
NUMBERED = re.compile(r"^conversation \d+")
"""The name of a conversation the log gave none: numbered in the order the upload gives its calls."""


def _openhands_completion_files() -> list[tuple[str, bytes]]:
    """OpenHands' one file per call, as test_openhands uploads them: '<model>-<time>.json'."""
    return [(f"openai__openrouter-llama-4-maverick-{call['timestamp']}.json", json.dumps(call, indent=2).encode())
            for call in lines("openhands-completions.jsonl")]


def _fixtures(*names: str) -> list[tuple[str, bytes]]:
    return [(name.rsplit("/", 1)[-1], (FIXTURES / name).read_bytes()) for name in names]


GROUPS = {
    # A batch's requests and its results (test_formats_batches, test_upload_fixtures, test_cli, test_app_upload).
    "openai-batch": lambda: _fixtures("openai-batch-input.jsonl", "openai-batch-output.jsonl"),
    "anthropic-batch": lambda: _fixtures("anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl"),
    # A Roo Code task's API history beside its UI messages (test_cline_task, test_upload_fixtures).
    "roo-code": lambda: _fixtures(CONTAINERS + "roo-code-api_conversation_history.json",
                                  CONTAINERS + "roo-code-ui_messages.json"),
    # A tool runner's compaction beside another recording (test_formats_containers).
    "ts-compaction": lambda: _fixtures(CONTAINERS + "anthropic-ts-tool-runner-compaction.json",
                                       CONTAINERS + "anthropic-py-tool-runner-http-snapshot.json"),
    "py-compaction": lambda: _fixtures(CONTAINERS + "anthropic-py-tool-runner-compaction-summary.json",
                                       CONTAINERS + "anthropic-py-tool-runner-http-snapshot.json"),
    # OpenHands' completion files of one run (test_openhands).
    "openhands-completions": _openhands_completion_files,
    # Two runs of one session in two files (test_upload), and one file beside a copy of itself.
    "codex-two-runs": lambda: [("monday.jsonl", (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes()),
                               ("tuesday.jsonl", (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes() + b"\n")],
    "stream-json-copy": lambda: [("run.jsonl", (FIXTURES / "claude-stream-json-read.jsonl").read_bytes()),
                                 ("run (copy).jsonl", (FIXTURES / "claude-stream-json-read.jsonl").read_bytes())],
    # Cassettes of calls to an API Roundtrip does not read (test_upload).
    "unread-cassettes": lambda: [("a.yml", (FIXTURES / CONTAINERS / "ruby-openai-assistants-run-stream.yml").read_bytes()),
                                 ("b.yml", (FIXTURES / CONTAINERS / "ruby-openai-assistants-run-stream.yml").read_bytes()
                                  + b"\n")],
}


def _seen(upload: Upload, copies: set[str]) -> dict:
    """What a user sees of an upload, told apart from the order of its files: each conversation by its name, with the
    files that held it (in name order: 'a + b' or 'b + a' is the same two files) and each round's messages and calls; every
    problem and note by its file and line. A copy's note names whichever file came first: said of both alike."""
    conversations = sorted(
        (NUMBERED.sub("conversation", c.id), tuple(sorted({"a copy" if name in copies else name for name in c.source.split(" + ")})),
         tuple((len(r.request.messages), len(r.tool_calls), r.error is not None) for r in c.trace.rounds))
        for c in upload.conversations)
    said = sorted((p.file, p.line, p.message) for p in upload.problems)
    noted = sorted(("a copy", n.line, "") if n.file in copies else (n.file, n.line, n.message) for n in upload.notes)
    return {"summary": upload.summary(), "conversations": conversations, "problems": said, "notes": noted,
            "formats": sorted(upload.formats)}


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_order_of_the_files_reads_to_what_the_first_order_does(group):
    files = GROUPS[group]()
    # A file whose bytes another holds too is read once, as whichever came first: either may be the copy.
    copies = {name for name, data in files if sum(d == data for _, d in files) > 1}
    orders = list(itertools.permutations(files)) if len(files) <= 4 else [files, files[::-1]]
    seen = [_seen(read_upload(list(order)), copies) for order in orders]
    assert seen[0]["conversations"] or seen[0]["notes"], "the group reads to nothing: nothing to compare"
    for other in seen[1:]:
        assert other == seen[0]


def _cassette_pairs(name: str) -> list[bytes]:
    """A cassette's calls as the lines of a request/response log that names no conversation, one a call."""
    cassette = yaml.safe_load((FIXTURES / CONTAINERS / name).read_text())
    return [json.dumps({"request": json.loads(i["request"]["body"]["string"]),
                        "response": json.loads(i["response"]["body"]["string"])}).encode()
            for i in cassette["http_interactions"]]


def _rounds_of(upload: Upload) -> list[tuple]:
    """Each conversation as the messages its rounds send, told apart from its number."""
    return sorted(tuple(len(r.request.messages) for r in c.trace.rounds) for c in upload.conversations)


def test_a_log_whose_lines_come_in_any_order_rebuilds_each_run_as_the_log_in_order_does():
    # ruby_llm's run that rolls a die three times, one call a round (four calls), beside two conversations of another
    # log: every order of the run's lines, the other log's lines shuffled among them.
    run, other = _cassette_pairs("ruby-llm-ollama-cloud-three-rolls.yml"), lines("openai-pairs.jsonl")
    other = [json.dumps(line).encode() for line in other]
    in_order = read_upload([("log.jsonl", b"\n".join(run + other) + b"\n")])
    assert _rounds_of(in_order) == [(2, 4), (2, 4, 6, 8), (2, 5)]
    assert in_order.summary() == "8 lines: 8 rounds in 3 conversations; 0 lines skipped"
    for number, order in enumerate(itertools.permutations(run)):
        mixed = list(order) + other
        random.Random(number).shuffle(mixed)
        upload = read_upload([("log.jsonl", b"\n".join(mixed) + b"\n")])
        assert _rounds_of(upload) == _rounds_of(in_order), [run.index(line) + 1 for line in order]
        assert upload.summary() == in_order.summary()
        rolls = next(c.trace for c in upload.conversations if len(c.trace.rounds) == 4)
        assert [r.response.message.tool_calls[0].id if r.response.message.tool_calls else None for r in rolls.rounds] \
            == [r.response.message.tool_calls[0].id if r.response.message.tool_calls else None
                for r in next(c.trace for c in in_order.conversations if len(c.trace.rounds) == 4).rounds]


def test_interleaved_runs_shuffled_read_as_as_many_conversations_as_runs():
    # The log bench/import_log.py reads, 250 runs of 4 rounds that name no conversation, its lines shuffled: every
    # request sends the one before it on whole, with more, wherever the two sit in the file.
    data = synthetic_log(250, 4, record_words=5).splitlines()
    random.Random(7).shuffle(data)
    upload = read_upload([("log.jsonl", b"\n".join(data) + b"\n")])
    assert upload.summary() == "1,000 lines: 1,000 rounds in 250 conversations; 0 lines skipped"
    assert {tuple(len(r.request.messages) for r in c.trace.rounds) for c in upload.conversations} == {(2, 4, 6, 8)}


def test_a_run_asked_twice_reads_alike_in_any_order_and_the_summary_says_what_the_order_decided():
    # Google ADK's runner asks the same question twice: both runs' first requests and answers are alike, and the second
    # run's next request resends its call twice. In any order of the calls, each run is its own conversation, as the
    # cassette in order reads; which of two alike first calls is whose only the order can say, and the summary says so.
    cassette = yaml.safe_load((FIXTURES / CONTAINERS / "langsmith-adk-second-run-call-twice.yaml").read_text())
    calls = cassette["interactions"]
    for order in itertools.permutations(range(len(calls))):
        data = yaml.safe_dump({**cassette, "interactions": [calls[at] for at in order]}).encode()
        upload = read_upload([("adk.yaml", data)])
        assert _rounds_of(upload) == [(2, 4), (2, 6)], order
    data = yaml.safe_dump({**cassette, "interactions": [calls[at] for at in (0, 1, 3, 2)]}).encode()
    assert read_upload([("adk.yaml", data)]).summary() == (
        "4 interactions: 4 rounds in 2 conversations (1 round could go on from more than one request (a fork, or one "
        "request sent twice) and the lines are out of order: placed as the lines come); 0 interactions skipped")
    assert "placed as the lines come" not in read_upload([("adk.yaml", yaml.safe_dump(cassette).encode())]).summary()


def _cut(name: str, at: int) -> list[tuple[str, bytes]]:
    """A fixture's lines cut in two files before line `at`, as a run's output split by a size limit or a copy."""
    data = (FIXTURES / name).read_bytes().splitlines(keepends=True)
    return [("part-1.jsonl", b"".join(data[:at - 1])), ("part-2.jsonl", b"".join(data[at - 1:]))]


CUT_RUNS = {
    # Codex's rollout cut after its first call's lines: the rest begins with a response_item, not a session_meta.
    "codex-rollout-0.125.jsonl": 10,
    # OpenCode's run output cut inside its first step: the rest begins with the step's step_finish.
    "opencode-run-json.jsonl": 3,
    # A Claude Code session cut after its tool's result: the rest begins with the model's next turn, an assistant line.
    "claude-code-2.1.233.jsonl": 9,
    # Claude Code's stream-json output cut after its first response: the rest begins with a rate_limit_event line, not
    # the run's system init.
    "claude-stream-json-read.jsonl": 4,
    # Amp's stream-json output cut after its first tool call: the rest begins with the tool result, a user line.
    "amp-stream-json-success.jsonl": 3,
}


@pytest.mark.parametrize("name", list(CUT_RUNS))
def test_one_runs_file_cut_in_two_reads_as_that_one_run_in_either_order_and_the_summary_says_the_join(name):
    whole = read_upload([(name, (FIXTURES / name).read_bytes())])
    files = _cut(name, CUT_RUNS[name])
    for order in (files, files[::-1]):
        upload = read_upload(order)
        (run,) = upload.conversations
        assert run.id == whole.conversations[0].id and run.source == "part-1.jsonl + part-2.jsonl"
        assert [len(r.request.messages) for r in run.trace.rounds] == \
            [len(r.request.messages) for r in whole.conversations[0].trace.rounds]
        assert [r.resent_prefix for r in run.trace.rounds] == [r.resent_prefix for r in whole.conversations[0].trace.rounds]
        assert "part-2.jsonl read as the rest of part-1.jsonl's run (one run's file cut in two)" in upload.summary()
        assert upload.summary().replace("part-2.jsonl read as the rest of part-1.jsonl's run (one run's file cut in "
                                        "two); ", "") == whole.summary()


def test_one_runs_file_cut_in_three_reads_as_that_one_run_in_any_order_and_the_summary_says_the_names_decided():
    # Codex's rollout cut after its first call's lines and after its second's: neither rest begins with a session_meta
    # line, so which goes on from which only the files' names say, and the summary says they did.
    name = "codex-rollout-0.125.jsonl"
    whole = read_upload([(name, (FIXTURES / name).read_bytes())])
    data = (FIXTURES / name).read_bytes().splitlines(keepends=True)
    files = [("part-1.jsonl", b"".join(data[:9])), ("part-2.jsonl", b"".join(data[9:14])),
             ("part-3.jsonl", b"".join(data[14:]))]
    for order in itertools.permutations(files):
        upload = read_upload(list(order))
        (run,) = upload.conversations
        assert run.id == whole.conversations[0].id and run.source == "part-1.jsonl + part-2.jsonl + part-3.jsonl"
        assert [len(r.request.messages) for r in run.trace.rounds] == \
            [len(r.request.messages) for r in whole.conversations[0].trace.rounds]
        said = ("part-2.jsonl and part-3.jsonl read as the rest of part-1.jsonl's run, in the order of their names "
                "(one run's file cut in 3); ")
        assert said in upload.summary() and upload.summary().replace(said, "") == whole.summary()


def test_a_cut_runs_file_whose_name_holds_a_superscript_digit_still_reads():
    # The names' numbers were read with str.isdigit, true of "²", which int() refuses: the upload raised.
    data = (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes().splitlines(keepends=True)
    upload = read_upload([("run1²2.jsonl", b"".join(data[9:14])), ("run.jsonl", b"".join(data[:9])),
                          ("run1²3.jsonl", b"".join(data[14:]))])
    assert len(upload.conversations) == 1
    assert "run1²2.jsonl and run1²3.jsonl read as the rest of run.jsonl's run" in upload.summary()


def test_two_runs_of_one_session_each_beginning_as_a_run_does_are_not_joined():
    # Two Codex rollouts, each opening with its session_meta: two runs of one session, told apart as before.
    data = (FIXTURES / "codex-rollout-0.125.jsonl").read_bytes()
    upload = read_upload([("monday.jsonl", data), ("tuesday.jsonl", data + b"\n")])
    assert len(upload.conversations) == 2 and "rest of" not in upload.summary()


def test_a_run_rebuilt_by_rules_beyond_plain_resending_says_when_its_lines_out_of_order_left_rounds_apart():
    # CrewAI's Gemini run drops an empty answer and asks again, its system prompt written twice over: its rounds are
    # chained by the rules for a history rewritten, which follow the order of the calls. Given out of order, it reads as
    # two conversations, one of them beginning mid-way: the summary says so, as it says nothing of the run in order.
    cassette = yaml.safe_load((FIXTURES / CONTAINERS / "crewai-gemini-empty-answer-retry.yaml").read_text())
    field = "http_interactions" if "http_interactions" in cassette else "interactions"
    calls = cassette[field]
    shuffled = read_upload([("crewai.yaml", yaml.safe_dump({**cassette, field: [calls[at] for at in (1, 0, 3, 2)]})
                             .encode())])
    assert shuffled.summary() == (
        "4 interactions: 4 rounds in 2 conversations (1 conversation begins mid-way, its first request sending an "
        "answer back, among lines out of order: it may be another conversation's rounds, read apart); 0 interactions "
        "skipped")
    in_order = read_upload([("crewai.yaml", yaml.safe_dump(cassette).encode())])
    assert in_order.summary() == "4 interactions: 4 rounds in 1 conversation; 0 interactions skipped"


def _conversations_of(upload: Upload) -> list[tuple]:
    """Each conversation by its name, as the messages its rounds send and the calls each round makes."""
    return sorted((c.id, tuple((len(r.request.messages), tuple(t.id for t in r.tool_calls)) for r in c.trace.rounds))
                  for c in upload.conversations)


@pytest.mark.parametrize("name", ["openai-responses.jsonl", "openai-responses-conversation.jsonl",
                                  "openai-responses-resent.jsonl"])
def test_responses_api_calls_chained_by_the_provider_read_alike_in_any_order_of_their_lines(name):
    # The requests send only what is new: the rest the provider holds, named by `previous_response_id` (the SDK's chain
    # of four rounds, beside a call of its own) or by the Conversations API conversation (a call, then its result).
    # A request read before the response it goes on from waits for it, and the log reads as it does in order. Or the
    # request resends the history whole (pydantic-ai), its two responses made in one second: the rounds keep the order
    # the history gives them, not that of their lines.
    data = [line for line in (FIXTURES / name).read_bytes().splitlines() if line.strip()]
    in_order = read_upload([(name, b"\n".join(data) + b"\n")])
    orders = itertools.permutations(data) if len(data) <= 4 else (random.Random(seed).sample(data, len(data))
                                                                  for seed in range(40))
    for order in orders:
        upload = read_upload([(name, b"\n".join(order) + b"\n")])
        assert _conversations_of(upload) == _conversations_of(in_order), [data.index(line) + 1 for line in order]
        assert upload.summary() == in_order.summary() and not upload.problems


def _batch_orders(requests: str, results: str, *names: str):
    """A batch's request lines in the file's order, then in every other, each read beside the results file: (the
    order, the upload), the file in order first; and the request lines whose custom_id holds each of `names`."""
    lines = [line for line in (FIXTURES / requests).read_bytes().splitlines() if line.strip()]
    named = [next(line for line in lines if name.encode() in line) for name in names]
    read = ((order, read_upload([(requests, b"\n".join(order) + b"\n"), (results, (FIXTURES / results).read_bytes())]))
            for order in itertools.permutations(lines))
    return lines, named, read


def test_a_batch_whose_requests_come_in_any_order_reads_as_in_order_or_the_summary_says_the_order_decided():
    # trip-17-round-2 and trip-18's request (refused: a tool result missing) both go on from round 1's answer, and
    # round 2 sends all trip-18 sent, with the missing result: it went on from round 1 beside trip-18 (the batch's file
    # in order), or from trip-18, put right and sent again (round 1, trip-18 and round 2 in that order). Where round 2
    # is read before either, only the order of the lines said which, and the summary says so.
    requests, (first, round_2, refused), read = _batch_orders(
        "openai-batch-input.jsonl", "openai-batch-output.jsonl", "trip-17-round-1", "trip-17-round-2", "trip-18")
    _, in_order = next(read)
    assert [(c.id, [len(r.request.messages) for r in c.trace.rounds]) for c in in_order.conversations][:2] == [
        ("trip-17-round-1", [2, 5]), ("trip-18-missing-result", [4])]
    said = "could go on from more than one request (a fork, or one request sent twice) and the lines are out of order"
    assert said not in in_order.summary()
    for order, upload in read:
        if order.index(first) < order.index(refused) < order.index(round_2):
            trip = next(c for c in upload.conversations if c.id == "trip-17-round-1")
            assert [len(r.request.messages) for r in trip.trace.rounds] == [2, 4, 5] and said not in upload.summary()
        elif _conversations_of(upload) != _conversations_of(in_order):
            assert said in upload.summary(), [requests.index(line) + 1 for line in order]


def test_a_batch_fork_whose_requests_come_out_of_order_says_the_order_placed_it():
    # ticket-7-round-2 (the tool results) and ticket-8 ('Never mind.') both go on from round 1's answer: whichever is
    # read first after round 1 goes on in its conversation, as the file in order reads. Where one of them is read
    # before round 1, which took the place only the order of the lines said, and the summary says so.
    requests, (first, round_2, fork), read = _batch_orders(
        "anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl", "ticket-7-round-1", "ticket-7-round-2",
        "ticket-8")
    _, in_order = next(read)
    said = "begins mid-way, its first request sending an answer back, among lines out of order"
    assert said not in in_order.summary()
    for order, upload in read:
        if order.index(first) < min(order.index(round_2), order.index(fork)):
            assert said not in upload.summary()  # a fork read in order: the first read after round 1 goes on
        elif _conversations_of(upload) != _conversations_of(in_order):
            assert said in upload.summary(), [requests.index(line) + 1 for line in order]


def test_a_call_held_for_the_response_it_names_that_cannot_be_read_is_skipped_on_its_own_line():
    # Line 1 names resp_2 as previous_response_id and waits for line 2. Read in its turn, its stored prompt's
    # instructions could not be read: that was said of line 2, the line that released it, and anything waiting behind it
    # was lost with it.
    held = {"request": {"previous_response_id": "resp_2", "prompt": {"id": "pmpt_1"}, "input": "and now?",
                        "model": "gpt-4o"},
            "response": {"object": "response", "id": "resp_3", "model": "gpt-4o", "output": [], "instructions": ["x"]}}
    named = {"request": {"input": "hello", "model": "gpt-4o"},
             "response": {"object": "response", "id": "resp_2", "model": "gpt-4o", "output": [
                 {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi there"}]}]}}
    upload = read_upload([("held.jsonl", b"".join(json.dumps(o).encode() + b"\n" for o in (held, named)))])
    assert upload.summary() == "2 lines: 1 round in 1 conversation; 1 line skipped"
    assert [(p.line, p.message) for p in upload.problems] == [(1, "instructions[0] is a string, expected an item object (read as OpenAI Responses API)")]


def test_responses_calls_still_held_at_the_end_of_several_files_read_in_the_files_order_then_their_lines():
    # pydantic-ai's chain of Responses calls (tests/fixtures/containers/pyd-responses-compact-chain.yaml), each
    # interaction's request and response as one {"request", "response"} line, in two files: Monday's line 3 and
    # Tuesday's line 1 each name a response no file holds (a compaction's), and wait to the end. Ordered by line number
    # alone, Tuesday's line 1 came before Monday's line 3, though Monday's file is read first.
    cassette = yaml.safe_load((FIXTURES / "containers" / "pyd-responses-compact-chain.yaml").read_text())
    pairs = [json.dumps({"request": i["request"]["parsed_body"], "response": i["response"]["parsed_body"]}).encode()
             for i in cassette["interactions"]]
    upload = read_upload([("monday.jsonl", b"\n".join(pairs[i] for i in (0, 1, 6)) + b"\n"),
                          ("tuesday.jsonl", pairs[4] + b"\n")])
    assert upload.summary() == "4 lines: 4 rounds in 4 conversations; 0 lines skipped"
    first, (held_monday, held_tuesday) = json.loads(pairs[0])["response"]["id"], (
        json.loads(pairs[i])["request"]["previous_response_id"] for i in (6, 4))
    assert [c.trace.title for c in upload.conversations] == [
        f"monday.jsonl · {first}", f"monday.jsonl · {first}", f"monday.jsonl · {held_monday}",
        f"tuesday.jsonl · {held_tuesday}"]


def _chunk_lines(text: str) -> bytes:
    """A stream's server-sent events as a log of its chunks, one JSON object a line: each `data:` line's object, the
    closing `[DONE]` and keepalive events (no chunk of the answer) left out."""
    chunks = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return b"".join(c.encode() + b"\n" for c in chunks if c.startswith("{") and '"keepalive"' not in c)


def test_chat_streams_left_open_at_the_end_of_several_files_read_in_the_files_order_then_their_lines():
    # Monday's log: pydantic-ai's first recorded stream (ended by its usage chunk, read in place), then openai-php's
    # stream from an OpenAI-compatible endpoint (no usage chunk: it stays open to the end) from line 9. Tuesday's: Text
    # Generation Inference's stream (no usage chunk either) from line 1. Ordered by line number alone, Tuesday's
    # answer came before Monday's second, though Monday's file is read first.
    recorded = json.loads((FIXTURES / "openai-chat-stream-with-request.jsonl").read_text().splitlines()[0])["response"]
    monday = _chunk_lines(recorded) + _chunk_lines((FIXTURES / CONTAINERS / "openai-php-chat-keepalive.sse").read_text())
    tuesday = _chunk_lines((FIXTURES / CONTAINERS / "semantic-kernel-tgi-chat-stream.sse").read_text())
    upload = read_upload([("monday.jsonl", monday), ("tuesday.jsonl", tuesday)])
    assert upload.summary() == "110 lines: 3 rounds in 3 conversations; 0 lines skipped"
    assert [(c.source, c.trace.rounds[0].response.raw["model"]) for c in upload.conversations] == [
        ("monday.jsonl", "gpt-4o-mini-2024-07-18"), ("monday.jsonl", "claude-3-7-sonnet-20250219"),
        ("tuesday.jsonl", "teknium/OpenHermes-2.5-Mistral-7B")]
