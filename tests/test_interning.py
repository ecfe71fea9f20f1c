"""Interning: memory grows with the unique content, not with the square of the rounds."""

import gc
import weakref

import orjson

from lib import intern
from lib.intern import Interner, collector_paused, kept_shallow, nests_deeper
from lib.logs.native import read_trace
from tests.synthetic import synthetic_lines


def test_a_200_round_trace_holds_each_message_once():
    trace, problems = read_trace(synthetic_lines(200))
    assert problems == []
    assert len(trace.rounds) == 200
    # system + user + (assistant call + tool result) for 199 rounds + the final answer
    assert trace.unique_messages == 2 + 2 * 199 + 1
    first_copy = {}
    sent = 0
    for round_ in trace.rounds:
        for i, message in enumerate(round_.request.messages):
            sent += 1
            first_copy.setdefault(i, message)
            assert message is first_copy[i], f"round {round_.index} holds its own copy of messages[{i}]"
            assert round_.request.raw["messages"][i] is first_copy[i].raw
    assert sent == sum(2 * k for k in range(1, 201))  # 40,200 messages sent, 401 stored
    tool_lists = {id(r.request.raw["tools"]) for r in trace.rounds}
    assert len(tool_lists) == 1


def test_the_assistant_turn_echoed_back_is_the_response_message_itself():
    trace, _ = read_trace(synthetic_lines(3))
    assert trace.rounds[1].request.messages[2] is trace.rounds[0].response.message


def test_messages_with_the_same_content_in_another_key_order_are_one():
    lines = [
        '{"kind": "trace", "version": 1, "title": "t", "dialect": "openai-chat"}',
        '{"kind": "round", "index": 1, "request": {"messages": [{"role": "user", "content": "hi"}]}}',
        '{"kind": "round", "index": 2, "request": {"messages": [{"content": "hi", "role": "user"}]}}',
    ]
    trace, _ = read_trace(lines)
    assert trace.rounds[0].request.messages[0] is trace.rounds[1].request.messages[0]
    assert trace.unique_messages == 1


def _built(raw, key):
    return {"built from": dict(raw), "key": key}


def test_a_held_answer_resent_as_the_very_dict_is_found_without_digesting_it_again(monkeypatch):
    # Span importers hand a call's answer on as the object the next request resends.
    pool, answer = Interner(), {"role": "assistant", "content": "Shipped."}
    built = pool.get(answer, _built, hold=True)
    digested = []
    monkeypatch.setattr(intern, "content_key", lambda value, key=intern.content_key: digested.append(value) or key(value))
    assert pool.get(answer, _built) is built and digested == []
    assert pool.get(dict(answer), _built) is built  # an equal copy is found by its content, digested
    assert digested == [answer]


def test_only_the_latest_held_answers_are_remembered(monkeypatch):
    pool = Interner()
    answers = [{"n": n} for n in range(Interner.HELD + 10)]
    for answer in answers:
        pool.get(answer, _built, hold=True)
    digested = []
    monkeypatch.setattr(intern, "content_key", lambda value, key=intern.content_key: digested.append(value) or key(value))
    pool.get(answers[-1], _built)
    pool.get(answers[0], _built)
    assert digested == [answers[0]]  # the oldest was forgotten; found again by its content


def test_a_line_nests_too_deep_only_past_200_levels_of_structure_not_of_brackets_inside_strings():
    assert not nests_deeper(b"[" * 200 + b"]" * 200)
    assert nests_deeper(b"[" * 201 + b"]" * 201)
    assert nests_deeper('{"a": ' + "[" * 300 + "]" * 300 + "}")
    assert not nests_deeper(b'["' + b"[" * 5000 + b'"]')  # a string of brackets is one level, whatever it holds


def test_what_lies_past_200_levels_is_kept_as_its_json_text_and_each_field_named():
    value = orjson.loads(b'{"request": {"metadata": {"tree": ' + b"[" * 1000 + b'"bottom", {"k": 1.5}' + b"]" * 1000
                         + b'}}, "executions": [{"overrides": {"q": ' + b"[" * 300 + b"null" + b"]" * 300 + b"}}]}")
    assert sorted(kept_shallow(value)) == ["executions[0].overrides.q", "request.metadata.tree"]
    tree = value["request"]["metadata"]["tree"]
    for _ in range(196):  # the root object, request and metadata are 3 of the 200 levels kept; the tree has 197
        tree = tree[0]
    assert tree[0] == "[" * 803 + '"bottom",{"k":1.5}' + "]" * 803
    assert not nests_deeper(orjson.dumps(value))


def _kept_by_a_read() -> list:
    with collector_paused():
        return [{"role": "user", "content": [f"message {n}"]} for n in range(2_000)]


def test_what_a_read_keeps_waits_in_the_oldest_generation_not_for_a_young_pass():
    gc.collect()
    kept = _kept_by_a_read()
    # A young pass would walk every one of them, only to find them all alive.
    assert gc.isenabled() and gc.get_count()[0] < 100
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(message) in oldest and id(message["content"]) in oldest for message in kept)
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_while_reading_is_still_collected():
    with collector_paused():
        cycle: list = []
        cycle.append(cycle)
        watched = weakref.ref(_Node(cycle))
    del cycle
    gc.collect()
    assert watched() is None


def test_objects_frozen_on_purpose_stay_frozen():
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _kept_by_a_read()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        _kept_by_a_read()
        assert not gc.isenabled()
    finally:
        gc.enable()


class _Node:
    """Something a weak reference can watch, held in a cycle."""

    def __init__(self, cycle: list) -> None:
        self.cycle = cycle
        cycle.append(self)


def test_each_round_says_how_much_of_the_round_before_it_resends():
    """The resent prefix of a round built by extending the one before (known without comparing them again) is what
    comparing the two gives: the whole previous request, on the collector lines of five interleaved conversations."""
    from bench import import_otlp
    from lib.logs.native import shared_prefix
    from lib.logs.upload import read_upload

    per_line, _ = import_otlp.main_log_otlp()
    upload = read_upload([("otlp.jsonl", b"\n".join(per_line.splitlines()[:60]) + b"\n")])
    assert upload.rounds == 60 and len(upload.conversations) == 5
    for conversation in upload.conversations:
        rounds = conversation.trace.rounds
        for before, round_ in zip(rounds, rounds[1:]):
            assert round_.resent_prefix == shared_prefix(before.request.messages, round_.request.messages) \
                == len(before.request.messages)
