"""What every benchmark times with: the best of a few runs, each after a collection."""

from __future__ import annotations

import gc
import time
from typing import Callable


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The shortest of `runs` timings of `work`, in seconds: the least disturbed by the rest of the machine."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()  # a collection left over from the last run must not land in this one
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def best_of_interleaved(runs: int, *works: Callable[[], object]) -> list[float]:
    """The shortest of `runs` timings of each of `works`, timed in turn within every run, so that a busy spell of
    the machine falls on all of them rather than on whichever happened to run then."""
    best = [float("inf")] * len(works)
    for _ in range(runs):
        for i, work in enumerate(works):
            gc.collect()
            start = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - start)
    return best
