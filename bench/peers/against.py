"""First load of two builds of Roundtrip side by side, with Inspect: this checkout against another one.

Serves the app from this checkout and from OTHER (a copy of another commit's tree, for example
`git archive 9ea0d1e | tar -x -C /tmp/before`), both on the same 1,000-round trace, and Inspect; opens each in turn,
RUNS fresh contexts each, with bench.peers' load measures, and prints the medians, their ratios to Inspect's and
every run's figures. What a change costs or saves on first load, taken in one run rather than across runs minutes
apart on a busy machine.

    .venv/bin/python -m bench.peers.against OTHER [RUNS]
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import replace
from pathlib import Path

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app
from bench.peers.floor import MEASURES
from bench.peers.serving import ROUNDS, inputs, serve_inspect
from bench.peers.viewers import inspect_viewer, open_settled, roundtrip_viewer

RUNS = 7


def main(other: Path, runs: int = RUNS) -> None:
    from playwright.sync_api import sync_playwright

    traces, logs = inputs()
    theirs, ours, peer = free_port(), free_port(), free_port()
    servers = [start_app(theirs, traces=traces, root=other), start_app(ours, traces=traces), serve_inspect(logs, peer)]
    viewers = [replace(roundtrip_viewer(theirs, ROUNDS), name=f"Roundtrip at {other.name}"),
               replace(roundtrip_viewer(ours, ROUNDS), name="Roundtrip here"), inspect_viewer(peer, ROUNDS)]
    results: dict[str, list[dict]] = {viewer.name: [] for viewer in viewers}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for run in range(runs):
                for viewer in viewers[run % 3:] + viewers[:run % 3]:
                    context, _, loaded = open_settled(browser, viewer)
                    context.close()
                    results[viewer.name].append(loaded)
            browser.close()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    print(f"median of {runs} fresh Chromium contexts each, the three taking turns")
    for measure in MEASURES:
        median = {name: statistics.median(r[measure] for r in rows) for name, rows in results.items()}
        inspect = median[viewers[-1].name]
        print(f"{measure}: " + "; ".join(f"{name} {value:.2f} ({value / inspect:.2f} × Inspect)"
                                         for name, value in median.items()))
        print("    every run: " + "; ".join(f"{name} {[round(r[measure], 2) for r in rows]}"
                                            for name, rows in results.items()))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), int(sys.argv[2]) if len(sys.argv) > 2 else RUNS)
