"""Fine-tuning chat lines: one conversation per line, split into one round per assistant message."""

import pytest

from lib.dialects.common import Pools
from lib.logs.finetune import FineTuningFormat
from tests.formats_support import (assert_detects_only_its_own, assert_only_line_problems, calls, feed,
                                    feed_files, lines, problems, read, results)


def _rounds(line_number):
    return [r for r in feed_files(FineTuningFormat(), "openai-finetune.jsonl") if r.line == line_number]


def test_a_conversation_splits_at_each_assistant_message():
    assert [len(_rounds(n)) for n in (1, 2, 3)] == [2, 1, 3]
    first, second = _rounds(1)
    assert [len(r.request["messages"]) for r in (first, second)] == [2, 5]
    assert {(r.dialect, r.conversation) for r in (first, second)} == {("openai-chat", "line 1")}


def test_each_response_is_the_assistant_message_with_its_finish_derived():
    first, second = _rounds(1)
    _, response = read(first)
    assert calls(response) == [("call_ft1", "get_weather"), ("call_ft2", "get_local_time")]
    assert response.finish_reason == "tool_calls" and response.usage is None
    _, response = read(second)
    assert response.finish_reason == "stop" and response.message.text.startswith("It's 14:05 in Oslo")
    assert first.derived == second.derived == ["request", "usage", "finish"]
    assert first.response["object"] == "chat.completion"


def test_the_tool_results_sit_in_the_next_rounds_request_with_the_tools_and_parameters():
    _, second = _rounds(1)
    request, _ = read(second)
    assert results(request) == ["call_ft1", "call_ft2"]
    assert [t.name for t in request.tools] == ["get_weather", "get_local_time"]
    assert request.raw["parallel_tool_calls"] is True
    assert "model" not in request.raw


def test_training_weights_are_dropped_so_each_round_resends_the_previous_answer_unchanged():
    rounds = _rounds(3)
    assert not any("weight" in m for r in rounds for m in [*r.request["messages"], r.response["choices"][0]["message"]])
    pools = Pools()
    _, first_response = read(rounds[0], pools)
    second_request, _ = read(rounds[1], pools)
    assert second_request.messages[1] is first_response.message


def test_a_line_ending_after_a_user_turn_keeps_only_the_rounds_it_can_split():
    (record,) = feed(FineTuningFormat(), [{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                                                        {"role": "user", "content": "Bye"}]}])
    assert record.request["messages"] == [{"role": "user", "content": "Hi"}]


@pytest.mark.parametrize("obj, words", [
    ({"messages": "hello"}, "'messages' is a string"),
    ({"messages": [{"role": "user", "content": "Hi"}, "Hello"]}, "messages[1] is a string"),
    ({"messages": [{"content": "Hi"}, {"role": "assistant", "content": "Hello"}]}, "messages[0] 'role' is missing"),
    ({"messages": [{"role": "user", "content": "Hi"}]}, "no assistant message"),
])
def test_a_malformed_fine_tuning_line_is_a_line_problem_that_names_the_field(obj, words):
    _, found = problems(FineTuningFormat(), [obj])
    assert words in found[1]


def test_fine_tuning_detection_needs_no_model_and_a_final_assistant_turn():
    fmt = FineTuningFormat()
    conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    assert fmt.detect({"messages": conversation}) == "'messages' ending in an assistant turn, without a 'model' (a fine-tuning line)"
    assert fmt.detect({"messages": conversation, "model": "gpt-4o"}) is None
    assert fmt.detect({"messages": conversation[:1]}) is None
    assert fmt.detect({"messages": conversation, "response": {"object": "chat.completion"}}) is None
    assert_detects_only_its_own(FineTuningFormat)


def test_any_one_place_changed_in_a_fine_tuning_line_gives_a_line_problem_or_records_never_a_crash():
    assert assert_only_line_problems(FineTuningFormat, lines("openai-finetune.jsonl")) > 1000
