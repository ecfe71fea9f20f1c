"""Our words for counts (lib.text)."""

from lib.text import ordinal


def test_how_many_times_is_spelled_out_to_the_tenth_then_written_in_figures():
    assert [ordinal(n) for n in (1, 2, 4, 10)] == ["first", "second", "fourth", "tenth"]
    assert [ordinal(n) for n in (11, 12, 13, 21, 22, 23, 101, 111, 1002)] == [
        "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "1,002nd"]
