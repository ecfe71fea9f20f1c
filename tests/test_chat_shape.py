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


def test_times_read_alike_on_both_sides_of_the_shortcut_and_past_what_a_date_can_hold():
    # Times from 1970 to 9999 are written by gmtime; the rest by datetime, which refuses year 10000.
    assert iso_time(0, 0) == "1970-01-01T00:00:00.000000000Z"
    assert iso_time(-1, 999_999_999) == "1969-12-31T23:59:59.999999999Z"
    assert iso_time(951_782_400, 1) == "2000-02-29T00:00:00.000000001Z"
    assert iso_time(253_402_300_799, 0) == "9999-12-31T23:59:59.000000000Z"
    assert iso_time(253_402_300_800, 0) is None
    assert iso_time("1767610800", 7) == "2026-01-05T11:00:00.000000007Z"


def test_arguments_are_written_as_json_dumps_writes_them_whatever_the_value():
    import json
    for value in [{"a": [1, 2.5, None, True, False]}, [], {}, 12345678901234567890123, -0.0, 1e300,
                  {"\u2028 line": "tab\tquote\"é"}, [[[{"deep": [1]}]]], float("nan")]:
        assert json_text(value) == json.dumps(value, ensure_ascii=False)


def test_every_second_of_a_day_and_days_far_apart_read_as_datetime_writes_them():
    # The date is written once per day and the time of day worked out: both must agree with datetime.
    from datetime import datetime, timezone
    day = 1_767_571_200  # 2026-01-05T00:00:00Z
    seconds = [*range(day - 2, day + 86_402, 997), day + 86_399, 0, 68_169_600, 951_868_799, 253_402_214_400]
    for whole in seconds:
        expected = datetime.fromtimestamp(whole, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        assert iso_time(whole, 42) == f"{expected}.000000042Z"
