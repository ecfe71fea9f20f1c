"""A half-recorded conversation: the log lost one round's request but kept the rounds around it.

The trace is tests/fixtures/otlp-resource-spans.jsonl (three chat spans of one OTLP trace: 1, 3 and 5 messages)
with the second chat span's content attributes gone, as a collector that drops an oversized attribute leaves it.
Round 3's request is then placed against round 1's, the latest the log kept: its first message was in round 1's
request and is resent, the other four are new since round 1, and every view says it counts against round 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lib.checks import run_checks
from lib.condensed import condensed_rounds
from lib.encodings import load_encoding
from lib.export_html import trace_html
from lib.growth import growth
from lib.logs.upload import read_upload
from lib.steps import steps_for_round
from lib.summary import summarize
from lib.tokens import tiktoken_counter
from lib.ui import state
from tests.conftest import ROOT

SPANS = ROOT / "tests" / "fixtures" / "otlp-resource-spans.jsonl"
CONTENT = ("gen_ai.input.messages", "gen_ai.tool.definitions")


def _without_content(chat_span: int) -> bytes:
    """The recording with chat span `chat_span` (1-based) stripped of its request's content."""
    document = json.loads(SPANS.read_text())
    chats = [s for rs in document["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]
             if s["name"].startswith("chat")]
    span = chats[chat_span - 1]
    span["attributes"] = [a for a in span["attributes"] if a["key"] not in CONTENT]
    return json.dumps(document).encode()


def _trace(chat_span: int):
    (conversation,) = read_upload([("spans.jsonl", _without_content(chat_span))]).conversations
    return conversation.trace


def _rows(trace):
    return summarize(trace, tiktoken_counter(load_encoding("o200k_base")))


def test_the_round_after_a_lost_request_is_placed_against_the_latest_request_the_log_kept():
    trace = _trace(2)
    assert [r.request_recorded for r in trace.rounds] == [True, False, True]
    placed = growth(trace, 3)
    assert placed.against == 1
    assert [e.message.text for e in placed.resent] == [trace.rounds[0].request.messages[0].text]
    assert len(placed.new) == 4 and placed.dropped == 0
    assert placed.new_words == "new since round 1's request"


def test_a_lost_request_itself_drops_nothing_and_is_placed_against_nothing():
    placed = growth(_trace(2), 2)
    assert (placed.entries, placed.dropped, placed.against) == ((), 0, None)


def test_the_summary_counts_new_messages_against_the_latest_request_kept():
    rows = _rows(_trace(2))
    assert [r.new_if_known for r in rows] == [1, None, 4]
    assert [r.new_against for r in rows] == [None, None, 1]


def test_with_no_earlier_request_in_the_log_the_new_count_is_not_known():
    trace = _trace(1)
    assert [r.request_recorded for r in trace.rounds] == [False, True, True]
    rows = _rows(trace)
    assert [r.new_if_known for r in rows] == [None, None, 2]
    assert growth(trace, 2).new_words == "new to the log"


def test_the_tool_list_is_said_resent_against_the_latest_request_kept_not_changed_since_the_lost_one():
    trace = _trace(2)
    [tools] = [label for label in steps_for_round(trace, 3) if label.step == 1]
    assert tools.resent and "resent unchanged" in tools.detail and "changed since" not in tools.detail


def test_no_check_says_what_a_lost_request_held_or_lacked():
    said = [(f.code, f.round) for f in run_checks(_trace(2))
            if f.code in ("history-rewritten", "tools-changed", "missing-tool-result")]
    assert said == []


def test_summarize_json_counts_against_the_latest_request_kept(tmp_path):
    log = tmp_path / "spans.jsonl"
    log.write_bytes(_without_content(2))
    done = subprocess.run([sys.executable, "-m", "lib", "summarize", str(log), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    rounds = json.loads(done.stdout)["conversations"][0]["rounds"]
    assert [(r["new_messages"], r["new_counted_against"]) for r in rounds] == [(1, None), (None, None), (4, 1)]


def _uploaded(app, chat_span: int):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("spans.jsonl", _without_content(chat_span))
    return at.run()


def test_the_explorer_says_round_3_counts_new_messages_against_round_1(app):
    at = _uploaded(app, 2)
    at.number_input(key="explorer.round").set_value(3).run()
    assert not at.exception
    said = [c.value for c in at.caption]
    assert "Round 3's new messages are counted against round 1's request: round 2's is not in the log." in said
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert sum("new since round 1's request" in b for b in badges) == 4
    assert not any("new this round" in b for b in badges)


def test_the_tokens_page_says_which_round_the_new_messages_count_against(app):
    at = _uploaded(app, 2)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    said = [c.value for c in at.caption]
    assert "Round 3's new messages are counted against round 1's request: round 2's is not in the log." in said


def test_the_input_tokens_split_resent_and_new_against_the_latest_request_kept():
    first, _, third = _rows(_trace(2))
    # Round 1's one message is resent in round 3, and so is its tool list: both were sent before, in round 1.
    assert third.breakdown.history == first.breakdown.new > 0
    assert third.breakdown.resent >= third.breakdown.tools + third.breakdown.history
    assert third.breakdown.tools == first.breakdown.tools > 0


def test_the_round_navigator_heads_round_3_as_the_explorer_does():
    navigated = condensed_rounds(_trace(2))["rounds"][2]
    assert navigated["heading"] == "Round 3: the program sends 5 messages, 4 of them new since round 1's request"
    assert len(navigated["new"]) == 4 and navigated["changed"] == []


def test_presenter_mode_badges_round_3s_messages_new_since_round_1(app):
    at = _uploaded(app, 2)
    at.number_input(key="explorer.round").set_value(3).run()
    at.toggle(key=state.PRESENTER).set_value(True).run()
    assert not at.exception
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert any("new since round 1's request" in b for b in badges)
    assert not any("new this round" in b for b in badges)


def test_the_exported_page_says_round_3_counts_against_round_1():
    page = trace_html(_trace(2))
    assert "Round 3&#39;s new messages are counted against round 1&#39;s request" in page
    assert page.count("new since round 1&#39;s request") == 4 + 1  # four cards and the heading
