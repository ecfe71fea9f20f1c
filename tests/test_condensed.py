"""The condensed trace the round navigator holds in the browser: each distinct message once, each round what its
cards read first, texts exactly as sent (the navigator shows them as text) and cut when long."""

from __future__ import annotations

import json

from lib import catalog
from lib.condensed import CLIP, condensed_rounds
from lib.growth import growth
from tests.hostile import SHOWN, hostile_trace
from tests.synthetic import synthetic_lines


def _trace(lines) -> catalog.LoadedTrace:
    return catalog.load_bytes(("\n".join(lines) + "\n").encode(), "trace.jsonl")


def _texts(condensed: dict, ids: list[int]) -> list[str]:
    return [part[2] for id_ in ids for part in condensed["messages"][id_][1]]


def test_a_snowball_is_held_once_each_message_not_once_per_resend():
    loaded = _trace(synthetic_lines(200))
    condensed = condensed_rounds(loaded.trace)
    # 200 requests send 40,200 messages in all; 400 distinct ones, and the last answer, which is never sent back.
    assert len(condensed["messages"]) == 401
    assert len(json.dumps(condensed)) < 200_000
    last = condensed["rounds"][-1]
    assert last["heading"] == "Round 200: the program sends 400 messages, 2 of them new"
    assert _texts(condensed, [last["response"]]) == ["All 199 records looked up."]
    assert _texts(condensed, last["new"]) == ['{"n": 199}', '{"n": 199, "record": "record 199", "notes": ""}']


def test_each_round_holds_what_its_cards_count_as_new_and_the_program_ran():
    loaded = _trace(synthetic_lines(5))
    for round_, held in zip(loaded.trace.rounds, condensed_rounds(loaded.trace)["rounds"]):
        assert len(held["new"]) == len(growth(loaded.trace, round_.index).new)
    third = condensed_rounds(loaded.trace)["rounds"][2]
    assert third["results"] == [["lookup", "call_3", True, '{"n": 3, "record": "record 3", "notes": ""}']]
    assert _texts(condensed_rounds(loaded.trace), [third["response"]]) == ['{"n": 3}']


def test_hostile_text_is_held_as_sent_for_the_navigator_to_show_as_text():
    condensed = condensed_rounds(catalog.load_bytes(hostile_trace(), "hostile.jsonl").trace)
    first, second, failed = condensed["rounds"]
    assert SHOWN in _texts(condensed, first["new"])  # markup kept as characters; the bidi control written out
    assert "\u202e" not in json.dumps(condensed, ensure_ascii=False)  # nor in a role, a call's name, a result
    assert failed["error"].endswith(SHOWN) and "response" not in failed


def test_a_long_text_is_cut_and_says_how_much_is_left_for_the_cards():
    lines = list(synthetic_lines(3, record_words=400))
    condensed = condensed_rounds(_trace(lines).trace)
    output = condensed["rounds"][0]["results"][0][3]
    assert output.startswith('{"n": 1, "record": "record 1", "notes": "')
    head, tail = output.split("\n… ")
    assert len(head) == CLIP and tail.endswith("more characters, in the round's cards below")


def test_a_model_turn_the_span_did_not_capture_says_so_in_the_navigator_not_no_content():
    # opentelemetry-instrumentation-openai-v2 without content capture: the navigator drew "(no content)", as if the
    # model wrote nothing, where the explorer's card says the log did not capture the turn (Round.answer_recorded).
    from lib.logs.upload import read_upload
    from lib.provenance import ANSWER_NOT_CAPTURED
    from tests.screen import FIXTURES
    upload = read_upload([("spans.jsonl", (FIXTURES / "otlp-span-per-call-no-content.jsonl").read_bytes())])
    for conversation in upload.conversations:
        [held] = condensed_rounds(conversation.trace)["rounds"]
        assert held["response_empty"] == ANSWER_NOT_CAPTURED
    # What the navigator shows of it: tests/browser/test_round_navigator_browser.py, in Chromium.


def test_a_captured_response_keeps_the_navigators_own_words_for_an_empty_turn():
    condensed = condensed_rounds(_trace(synthetic_lines(2)).trace)
    assert all("response_empty" not in held for held in condensed["rounds"])
