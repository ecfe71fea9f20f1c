"""`python -m lib save` and `python -m lib search`, run as a team loading logs nightly would run them,
against a real SQLite file and a real PostgreSQL server named by ROUNDTRIP_DATABASE_URL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

from lib import library
from lib.annotations import Note
from lib.store import open_store
from tests.conftest import ROOT
from tests.databases import database_url, postgres_url, sqlite_url  # noqa: F401 (fixtures)
from tests.synthetic import synthetic_log

GOOD_THEN_BAD = b'{"kind": "trace", "version": 1, "title": "Two rounds", "dialect": "openai-chat"}\n'


def run(url: str, *args):
    env = {**os.environ, "ROUNDTRIP_DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env)


def test_save_keeps_every_conversation_prints_ids_and_links_and_names_bad_lines(database_url, tmp_path):
    log = tmp_path / "nightly.jsonl"
    log.write_bytes(synthetic_log(conversations=2, rounds=3) + b"{not json\n")
    done = run(database_url, "save", "traces/loan-calculator.jsonl", str(log), "--source", "capture")
    assert done.returncode == 2, done.stderr  # a line could not be read; the good conversations are saved anyway
    assert "nightly.jsonl: line 7: is not valid JSON" in done.stderr
    saved = [line for line in done.stdout.splitlines() if " saved as " in line]
    assert len(saved) == 3
    assert saved[0].startswith("traces/loan-calculator.jsonl: Loan payment calculator: 2 rounds saved as ")
    ids = [line.split(" saved as ")[1].split()[0] for line in saved]
    assert all(line.endswith(f"?trace={trace_id}") for line, trace_id in zip(saved, ids))
    store = open_store(database_url)
    try:
        assert [library.load(store, trace_id) is not None for trace_id in ids] == [True] * 3
        assert library.search(store, library.LibraryQuery(source="capture")).total == 3
    finally:
        store.close()
    again = run(database_url, "save", "traces/loan-calculator.jsonl")
    assert again.returncode == 0 and ids[0] in again.stdout  # the same content, the same id


def test_search_prints_the_matches_as_json_with_each_filter(database_url):
    assert run(database_url, "save", "traces/larkfield-get-order.jsonl", "traces/hengxin-expense.jsonl",
               "traces/pitfalls/unanswered-parallel-call.jsonl").returncode == 0
    store = open_store(database_url)
    try:
        hengxin = next(r.id for r in library.search(store, library.LibraryQuery(model="DeepSeek-V4-Flash")).rows)
        store.add(Note(id=str(uuid.uuid4()), trace=hengxin, target="trace", labels=("costly",), text="",
                       author="ada", created="2026-11-30T10:00:00Z"))
    finally:
        store.close()

    def found(*args) -> list[str]:
        done = run(database_url, "search", *args, "--json")
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        assert document["total"] == len(document["matches"])
        return sorted(match["title"] for match in document["matches"])

    assert found("garden", "shed") == ["Larkfield ticket T-80008: get_order"]
    assert found("--tool", "get_order") == ["Larkfield ticket T-80008: get_order", "Pitfall: a parallel call answered in part"]
    assert found("--model", "DeepSeek-V4-Flash") == ["Hengxin expense reimbursement"]
    assert found("--finding", "missing-tool-result") == ["Pitfall: a parallel call answered in part"]
    assert found("--label", "costly") == ["Hengxin expense reimbursement"]
    match = json.loads(run(database_url, "search", "--finding", "missing-tool-result", "--json").stdout)["matches"][0]
    assert set(match) == {"id", "title", "model", "rounds", "tokens", "tokens_estimated", "tokens_words",
                          "estimate_of_what_the_log_holds", "findings", "link"}
    assert match["tokens_estimated"]  # no round of the parallel-call pitfall reports usage
    # Its failed call wrote no output we know of, nor is it known to be billed: the total is not known, its words say
    # which calls it sums, as the Tokens page says them.
    assert match["tokens"] is None and match["tokens_words"].endswith(
        "(1 failed call left out: whether it was billed is not in the log)")
    assert (match["model"], match["rounds"], match["findings"]) == ("gpt-4o-mini", 3, ["missing-tool-result", "provider-error"])
    plain = run(database_url, "search", "--tool", "get_order")
    assert plain.returncode == 0 and plain.stdout.splitlines()[-1] == "2 matching"
    # Larkfield reports usage on every round; the pitfall's figure is our estimate, and reads so.
    tokens = {line.split("  ")[1]: line.split("  ")[4] for line in plain.stdout.splitlines()[:-1]}
    assert tokens["Larkfield ticket T-80008: get_order"] == "tokens 4,347"
    assert tokens["Pitfall: a parallel call answered in part"].startswith("tokens ≈ ")


def test_search_says_a_total_the_log_does_not_give_is_not_known_as_the_tokens_page_does(database_url):
    # The batch requests without their results: no call of ticket-8 has its answer in the log. The search printed its
    # input alone, "≈ 520 tokens", as if that were the conversation's tokens.
    assert run(database_url, "save", "tests/fixtures/anthropic-batch-requests.jsonl").returncode == 0
    done = run(database_url, "search", "--json")
    matches = {match["title"].rsplit(" · ", 1)[1]: match for match in json.loads(done.stdout)["matches"]}
    assert (matches["ticket-8"]["tokens"], matches["ticket-8"]["tokens_words"]) == (None, "not known")
    assert matches["ticket-7-round-1"]["tokens_words"] == "≈ 514 (1 call not known, left out)"
    plain = {line.split("  ")[1].rsplit(" · ", 1)[1]: line.split("  ")[4]
             for line in run(database_url, "search").stdout.splitlines()[:-1]}
    assert plain["ticket-8"] == "tokens not known"


def test_search_says_an_agent_sessions_estimate_counts_what_the_log_holds_only(database_url):
    # Goose's log reports no usage and never keeps the instructions or the tool list its requests sent.
    assert run(database_url, "save", "tests/fixtures/goose-session.jsonl").returncode == 0
    [match] = json.loads(run(database_url, "search", "--json").stdout)["matches"]
    assert match["tokens_estimated"] and match["estimate_of_what_the_log_holds"]
    [line] = run(database_url, "search").stdout.splitlines()[:-1]
    assert line.split("  ")[4] == f"tokens {match['tokens_words']} (estimated of what the log holds only)"


def test_a_store_that_cannot_be_reached_exits_3_without_showing_the_password():
    done = run("postgresql+psycopg://nightly:s3cret@127.0.0.1:1/library?connect_timeout=1", "search", "--json")
    assert done.returncode == 3
    assert "cannot be used" in done.stderr and "s3cret" not in done.stderr and "Traceback" not in done.stderr
