"""The explorer on a 1,000-round trace against the 4-round Hengxin trace, and 30 sessions at once.

Issue 9's targets (issue 21 tightened the first), each a ratio of two measurements taken side by
side in this run:
- switching rounds (an AppTest rerun) on the 1,000-round trace ÷ the same on Hengxin: at most 1.5,
  the median of RERUNS reruns per size, the two sizes interleaved so that a busy spell of the
  machine falls on both; measured as a visitor finds the page (a long trace's table, tokens chart
  and diagram closed), and again with those three sections open, as Hengxin always draws them;
- first open of the 1,000-round trace (parse, intern, count, check) ÷ `orjson.loads` of its
  lines: at most 3;
- memory while 30 sessions hold the 1,000-round trace ÷ memory with one session: at most 1.5.

    .venv/bin/python -m bench.explorer
"""

from __future__ import annotations

import gc
import io
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import orjson

ROUNDS = 1000
SESSIONS = 30
RERUNS = 24
TARGETS = {"rerun": 1.5, "first open": 3.0, "memory": 1.5}
ROOT = Path(__file__).resolve().parent.parent


def _traces_dir() -> Path:
    """A traces folder holding Hengxin and a synthetic 1,000-round trace, for the app to offer."""
    from lib import catalog
    from tests.synthetic import synthetic_lines

    folder = Path(tempfile.mkdtemp(prefix="roundtrip-bench-"))
    (folder / "hengxin-expense.jsonl").write_bytes((catalog.TRACES_DIR / "hengxin-expense.jsonl").read_bytes())
    (folder / "synthetic-1000.jsonl").write_text("\n".join(synthetic_lines(ROUNDS)) + "\n")
    # The app lists what is in TRACES_DIR; pointing it at this folder is the one seam the bench needs.
    catalog.TRACES_DIR = folder
    return folder


OPENED = ("explorer.overview_open", "explorer.tokens_chart_open", "explorer.sequence_open")
"""Session keys of the sections a long trace draws only once opened: its table of every round, tokens chart, diagram."""


def _session(name: str, rounds: list[int], opened: tuple[str, ...] = ()):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["trace"] = name
    at.query_params["round"] = str(rounds[0])
    for key in opened:
        at.session_state[key] = True
    at.run()
    assert not at.exception, at.exception
    return at


def _switch(at, index: int) -> float:
    start = time.perf_counter()
    at.number_input(key="explorer.round").set_value(index).run()
    elapsed = time.perf_counter() - start
    assert not at.exception, at.exception
    return elapsed


def rerun_seconds(small: tuple[str, list[int]], large: tuple[str, list[int]],
                  opened: tuple[str, ...] = ()) -> tuple[float, float]:
    """Median seconds of an AppTest rerun switching rounds on each trace, the two interleaved; `opened`, the
    sections opened in the large trace's session."""
    sessions = [(_session(small[0], small[1]), small[1]), (_session(large[0], large[1], opened), large[1])]
    times: list[list[float]] = [[], []]
    for step in range(RERUNS):
        # Alternate which size goes first so neither always runs right after the other's garbage.
        order = (0, 1) if step % 2 == 0 else (1, 0)
        for which in order:
            at, rounds = sessions[which]
            times[which].append(_switch(at, rounds[1:][step % (len(rounds) - 1)]))
    return statistics.median(times[0]), statistics.median(times[1])


def first_open(path: Path) -> tuple[float, float]:
    """(seconds to parse, intern, count and check the trace; seconds for orjson.loads of its lines)."""
    from lib import catalog
    from lib.checks import run_checks
    from lib.encodings import count_tokens, load_encoding
    from lib.intern import collector_paused
    from lib.summary import summarize
    from lib.tokens import TokenCounter

    data = path.read_bytes()
    encoding = load_encoding("o200k_base")
    gc.collect()
    # The parser alone at its best: the collector paused, as the import pauses it.
    with collector_paused():
        start = time.perf_counter()
        for line in io.BytesIO(data):
            orjson.loads(line)
        parse_only = time.perf_counter() - start
    gc.collect()
    start = time.perf_counter()
    loaded = catalog.load_bytes(data, path.stem)
    summarize(loaded.trace, TokenCounter("o200k-first-open", True, lambda text: count_tokens(text, encoding)))
    run_checks(loaded.trace)
    return time.perf_counter() - start, parse_only


def memory_ratio(name: str) -> tuple[float, float]:
    """(MB traced with one session on the trace, MB with SESSIONS sessions)."""
    import streamlit as st

    st.cache_resource.clear()
    gc.collect()
    tracemalloc.start()
    sessions = [_session(name, [ROUNDS // 2])]
    gc.collect()
    one = tracemalloc.get_traced_memory()[0]
    sessions += [_session(name, [ROUNDS // 2]) for _ in range(SESSIONS - 1)]
    gc.collect()
    many = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(sessions) == SESSIONS
    return one / 1e6, many / 1e6


def main() -> dict:
    folder = _traces_dir()
    opened, parsed = first_open(folder / "synthetic-1000.jsonl")  # first, before sessions fill the heap
    hengxin, synthetic = ("hengxin-expense", [1, 2, 3, 4, 3, 2]), ("synthetic-1000", [990, 995, 999, 1000, 996, 991])
    small, large = rerun_seconds(hengxin, synthetic)
    # The same with the long trace's table, chart and diagram open, as the short trace always draws them.
    small_open, large_open = rerun_seconds(hengxin, synthetic, OPENED)
    one, many = memory_ratio("synthetic-1000")
    return {
        "rerun, 4 rounds (ms)": round(small * 1000, 1),
        "rerun, 1,000 rounds (ms)": round(large * 1000, 1),
        "rerun ratio": (round(large / small, 2), TARGETS["rerun"]),
        "rerun, sections open (ms)": round(large_open * 1000, 1),
        "rerun ratio, sections open": (round(large_open / small_open, 2), TARGETS["rerun"]),
        "trace size (MB)": round((folder / "synthetic-1000.jsonl").stat().st_size / 1e6, 1),
        "orjson.loads alone (s)": round(parsed, 2),
        "first open (s)": round(opened, 2),
        "first open ratio": (round(opened / parsed, 2), TARGETS["first open"]),
        "memory, 1 session (MB)": round(one, 1),
        f"memory, {SESSIONS} sessions (MB)": round(many, 1),
        "memory ratio": (round(many / one, 2), TARGETS["memory"]),
    }


if __name__ == "__main__":
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    for key, value in main().items():
        if isinstance(value, tuple):
            print(f"{key:>28}: {value[0]}  (target ≤ {value[1]})  {'PASS' if value[0] <= value[1] else 'ABOVE TARGET'}")
        else:
            print(f"{key:>28}: {value}")
