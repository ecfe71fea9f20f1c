"""The pieces other formats are converted with (lib/logs/chat_shape.py), where their text is what a user reads."""

from lib.logs.chat_shape import iso_time, json_text


def test_times_are_fixed_width_text_that_sorts_as_the_times_do():
    # Calls are ordered by this text when every call of a conversation has a time.
    times = [iso_time(seconds, nanos) for seconds, nanos in [(-61_000_000_000, 0), (0, 5), (1_767_610_800, 123)]]
    assert times == ["0036-12-26T11:33:20.000000000Z", "1970-01-01T00:00:00.000000005Z", "2026-01-05T11:00:00.000000123Z"]
    assert sorted(times) == times


def test_arguments_recorded_as_objects_read_as_the_json_text_an_api_sends():
    assert json_text({"city": "Zürich", "days": [1, 2.5], "metric": None}) == '{"city": "Zürich", "days": [1, 2.5], "metric": null}'
    assert json_text('{"already": "text"}') == '{"already": "text"}'
