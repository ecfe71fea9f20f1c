"""Where `bench.import_otlp`'s agent-run import spends its time, phase by phase (CPU µs per span).

Runs the import's steps one after the other on the bench's agent runs, each timed apart: the parse
(resent strings read, the marked copy parsed), the span reader, tool runs and trace chaining, the
rebuilding into model objects, conversations, the cyclic collector once it runs again (its first pass
comes right after the import, so the bench's import time holds it), and freeing. Not a figure with a target: the table
in bench/README.md's spans section is made with it.

    .venv/bin/python -m bench.otlp_phases [--lines] [--megabytes 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import time

import orjson

from bench import import_otlp
from lib.intern import collector_paused
from lib.logs import otlp_typed, spans, upload
from lib.logs.resent import ResentParser, spans_checked_loads
from lib.logs.resent_text import ResentTexts

PHASES = ("orjson.loads of each line, the bench's baseline", "parse: strings read, marked copy parsed",
          "reading and converting spans", "tool runs to their calls, traces chained",
          "rebuilding calls (interning, model objects)", "conversations",
          "the collector after reading (resumed, what was kept)", "freeing what was read and built")


def _one_run(data: bytes, whole: bool) -> list[float]:
    """The CPU seconds of each phase, in PHASES order, for one import of `data`. Each line is parsed,
    read and freed before the next, as the import does."""
    clock, times = time.process_time, [0.0] * len(PHASES)

    def timed(phase, work):
        start = clock()
        result = work()
        times[phase] += clock() - start
        return result

    paused = collector_paused()  # entered and left by hand, as the import's `with` is, so that its end is timed
    paused.__enter__()
    kept = _steps(data, whole, timed)
    # The import returns with the collector running again: its first pass comes right after, over what was kept.
    timed(6, lambda: (paused.__exit__(None, None, None), [[] for _ in range(1_000)]))
    timed(7, kept.clear)
    return times


def _steps(data: bytes, whole: bool, timed) -> list:
    """The import's steps, each timed as its phase; what they built, for the caller to free."""
    def baseline():
        for line in data.splitlines():
            orjson.loads(line)
    timed(0, baseline)
    # As the import parses them: a one-document file as lib/logs/documents.py does, lines as _read_items does.
    parser = ResentTexts(spans_checked_loads, otlp_typed.decode_unrepeated) if whole else ResentParser(typed=otlp_typed.decode_unrepeated)
    reader = spans.SpanFormat()
    for number, line in enumerate(data.splitlines(), start=1):
        document = timed(1, lambda: parser.parse(line))
        timed(2, lambda: list(reader.feed(document, number)))
        timed(7, lambda: document.clear())  # what is left of it that nothing read holds
        del document
    records = timed(3, lambda: list(reader.finish()))
    rebuilder = upload._Rebuilder()
    timed(4, lambda: [rebuilder.add(record) for record in records])
    traces = timed(5, lambda: [upload._trace(thread, "bench", rebuilder.pools) for thread in rebuilder.threads.values()])
    return [reader, records, rebuilder, traces]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", action="store_true", help="collector lines rather than one document")
    options.add_argument("--megabytes", type=float, default=import_otlp.TARGET_BYTES / 1e6)
    options.add_argument("--runs", type=int, default=3)
    chosen = options.parse_args()
    import_otlp.TARGET_BYTES = int(chosen.megabytes * 1e6)
    per_line, whole, conversations = import_otlp.synthetic_otlp()
    data = per_line if chosen.lines else whole
    del per_line, whole
    runs = [_one_run(data, not chosen.lines) for _ in range(chosen.runs)]
    best = [min(run[phase] for run in runs) for phase in range(len(PHASES))]
    span_count = 2 * conversations * import_otlp.ROUNDS
    width = max(map(len, PHASES))
    for phase, seconds in zip(PHASES, best):
        print(f"{phase:>{width}}: {seconds / span_count * 1e6:6.1f} µs a span")
    print(f"{'import ÷ baseline':>{width}}: {sum(best[1:]) / best[0]:6.2f}")


if __name__ == "__main__":
    main()
