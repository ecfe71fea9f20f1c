"""Roundtrip against Inspect AI's log viewer on the same 1,000-round trace, side by side in one run.

The synthetic trace (tests/synthetic.py) is converted to an Inspect log with Inspect's own library
(bench/peers/to_inspect.py, run in .venv-peers); both viewers are served on 127.0.0.1 and the same
Playwright script drives each in a fresh headless Chromium context, the two taking turns, RUNS times:
- first round readable: from navigation to the first round's text on screen;
- page settled: from navigation to the last request finished or long task ended, before QUIET_S of neither;
- jump to the last round: from asking for round 1,000 to its text on screen (Roundtrip: End in the round
  navigator's list; the time until the round's cards below have followed is printed too, for information).
Each viewer is first visited once before the runs, its server just started: that visit (Roundtrip's imports its
modules and reads the trace then, for every later visitor) is printed on its own, outside the medians, so that one
cold visit in three does not decide them.
Each median ÷ Inspect's is printed with its target (≤ 0.5), PASS or ABOVE TARGET, and Roundtrip's
longest main-thread tasks against issue 21's 500 ms (first load) and 200 ms (round switch).

    make bench-peers        (makes .venv-peers from bench/peers/requirements.txt first)
"""

from __future__ import annotations

import statistics
import sys

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app
from bench.peers.serving import ROUNDS, inputs, serve_inspect
from bench.peers.viewers import Viewer, inspect_viewer, measure, open_settled, roundtrip_viewer

RUNS = 5
TARGET = 0.5
LONG_TASK_TARGETS = {"first load": 500, "round switch": 200}


def _race(viewers: list[Viewer]) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """(each viewer's first visit after its server started, then every run's measures by viewer)."""
    from playwright.sync_api import sync_playwright

    first_visits: dict[str, dict] = {}
    results: dict[str, list[dict]] = {viewer.name: [] for viewer in viewers}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for viewer in viewers:
            context, _, first_visits[viewer.name] = open_settled(browser, viewer)
            context.close()
        for run in range(RUNS):
            for viewer in viewers if run % 2 == 0 else viewers[::-1]:
                results[viewer.name].append(measure(browser, viewer))
        browser.close()
    return first_visits, results


def _verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "ABOVE TARGET"


def main() -> None:
    traces, logs = inputs()
    roundtrip_port, inspect_port = free_port(), free_port()
    servers = [start_app(roundtrip_port, traces=traces), serve_inspect(logs, inspect_port)]
    try:
        ours, theirs = roundtrip_viewer(roundtrip_port, ROUNDS), inspect_viewer(inspect_port, ROUNDS)
        first_visits, results = _race([ours, theirs])
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    print(f"{ROUNDS}-round synthetic trace, median of {RUNS} fresh Chromium contexts each, viewers taking turns")
    print("first visit after the server started (not in the medians): " + "; ".join(
        f"{name} readable {visit['first round readable']:.2f} s, settled {visit['page settled']:.2f} s"
        for name, visit in first_visits.items()))
    for measure_name in ("first round readable", "page settled", "jump to last round"):
        mine = statistics.median(r[measure_name] for r in results[ours.name])
        peer = statistics.median(r[measure_name] for r in results[theirs.name])
        ratio = mine / peer
        print(f"{measure_name:>22}: Roundtrip {mine:6.2f} s, Inspect {peer:6.2f} s, ratio {ratio:.2f} "
              f"(target ≤ {TARGET})  {_verdict(ratio, TARGET)}")
    followed = statistics.median(r["the page followed"] for r in results[ours.name])
    print(f"{'the cards followed':>22}: Roundtrip {followed:6.2f} s after the jump was asked for (not a target)")
    for moment, target in LONG_TASK_TARGETS.items():
        worst = max(r[f"longest task, {moment}"] for r in results[ours.name])
        peer = max(r[f"longest task, {moment}"] for r in results[theirs.name])
        print(f"{'longest task, ' + moment:>28}: Roundtrip {worst:5.0f} ms (target ≤ {target})  "
              f"{_verdict(worst, target)}; Inspect {peer:5.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
