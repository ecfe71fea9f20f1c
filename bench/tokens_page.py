"""The Tokens page on a 300-round trace against the same page on the 4-round Hengxin trace.

Issue 21's target: a whole rerun of the Tokens page (summaries cached, as after the first visit) on the
300-round trace ÷ the same on Hengxin: at most 2. The median of RERUNS reruns per trace, interleaved.

    .venv/bin/python -m bench.tokens_page
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

ROUNDS = 300
RERUNS = 20
TARGET = 2.0
ROOT = Path(__file__).resolve().parent.parent


def _traces_dir() -> None:
    from lib import catalog
    from tests.synthetic import synthetic_lines

    folder = Path(tempfile.mkdtemp(prefix="roundtrip-bench-tokens-"))
    (folder / "hengxin-expense.jsonl").write_bytes((catalog.TRACES_DIR / "hengxin-expense.jsonl").read_bytes())
    (folder / f"synthetic-{ROUNDS}.jsonl").write_text("\n".join(synthetic_lines(ROUNDS)) + "\n")
    catalog.TRACES_DIR = folder  # the same seam as bench/explorer.py


def _tokens_page(name: str, rounds: int):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["trace"] = name
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    table = next(frame.value for frame in at.dataframe if "tokens in" in frame.value.columns)
    assert len(table) == rounds, f"the Tokens page shows {len(table)} rounds, not {name}'s {rounds}"
    return at


def rerun_seconds() -> tuple[float, float]:
    """(median seconds of a Tokens page rerun on Hengxin, the same on the long trace), interleaved."""
    pages = [_tokens_page("hengxin-expense", 4), _tokens_page(f"synthetic-{ROUNDS}", ROUNDS)]
    times: list[list[float]] = [[], []]
    for step in range(RERUNS):
        for which in ((0, 1) if step % 2 == 0 else (1, 0)):
            start = time.perf_counter()
            pages[which].run()
            times[which].append(time.perf_counter() - start)
            assert not pages[which].exception, pages[which].exception
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    _traces_dir()
    small, large = rerun_seconds()
    ratio = large / small
    print(f"{'Tokens page, 4 rounds (ms)':>36}: {small * 1000:.1f}")
    print(f"{f'Tokens page, {ROUNDS} rounds (ms)':>36}: {large * 1000:.1f}")
    print(f"{'Tokens page ratio':>36}: {ratio:.2f}  (target ≤ {TARGET})  {'PASS' if ratio <= TARGET else 'ABOVE TARGET'}")


if __name__ == "__main__":
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    main()
