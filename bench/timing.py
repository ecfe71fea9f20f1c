"""What every benchmark times with: the best of a few runs, each after a collection."""

from __future__ import annotations

import gc
import time
from typing import Callable


def best_of(runs: int, work: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """The shortest of `runs` timings of `work`, in seconds: the least disturbed by the rest of the machine.
    `clock` is wall time unless a benchmark says otherwise (`time.process_time` counts only this
    process's CPU, which other programs waiting for the same cores do not inflate)."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()  # a collection left over from the last run must not land in this one
        start = clock()
        work()
        best = min(best, clock() - start)
    return best


def best_of_each(runs: int, *works: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """`best_of` for several works taken in turn within every run, so that a spell of load from the
    rest of the machine slows each of them rather than whichever happened to run then."""
    best = [float("inf")] * len(works)
    for _ in range(runs):
        for position, work in enumerate(works):
            best[position] = min(best[position], best_of(1, work, clock))
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
