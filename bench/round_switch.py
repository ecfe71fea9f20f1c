"""Switching rounds in the served app: the server's CPU and the wait per round switch, in Chromium.

`bench.explorer` times the explorer's rerun through AppTest, which runs the page's script and nothing else. A served
app does more per run: Streamlit's runner, the messages sent, and whatever it does after the script ends (until
2026-12-07 a full garbage collection of the whole process, which AppTest never ran). This serves the app on the
1,000-round synthetic trace and on Hengxin, opens each in a fresh Chromium context, steps rounds 1 → 4 → 1 with the
explorer's buttons (the same rounds on both traces), and reads the server process's CPU time (/proc) and the wall
time from each click to the new round's heading. Given OTHER (a copy of another commit's tree, as for
bench.peers.against), it serves that too, the checkouts taking turns, and prints this checkout's figures against it.

Target: server CPU per switch on 1,000 rounds ÷ the same on Hengxin at most 1.5, as for `bench.explorer`.

    .venv/bin/python -m bench.round_switch [OTHER]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, ROOT, free_port, start_app
from bench.peers.serving import ROUNDS
from bench.peers.viewers import VIEWPORT

TRACES = {"Hengxin": "hengxin-expense", f"{ROUNDS} rounds": f"synthetic-{ROUNDS}"}
"""The traces stepped through, by their names in `?trace=`."""
STEPS = [2, 3, 4, 3, 2, 1] * 2
"""The rounds shown in turn: Next three times, Previous three times, twice."""
REPEATS = 3
"""Fresh contexts per trace and checkout; the median is reported."""
TARGET = 1.5
_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _traces_folder() -> Path:
    """A folder of the two traces, made once under bench/results (no peer environment needed)."""
    from tests.synthetic import synthetic_lines

    folder = ROOT / "bench" / "results" / "round_switch"
    folder.mkdir(parents=True, exist_ok=True)
    synthetic = folder / f"synthetic-{ROUNDS}.jsonl"
    if not synthetic.exists():
        synthetic.write_text("\n".join(synthetic_lines(ROUNDS)) + "\n")
    shutil.copyfile(ROOT / "traces" / "hengxin-expense.jsonl", folder / "hengxin-expense.jsonl")
    return folder


def _idle(page) -> None:
    page.locator('[data-test-script-state="notRunning"]').wait_for(state="attached", timeout=60_000)


def _switches(browser, port: int, pid: int, trace: str) -> tuple[float, float]:
    """(server CPU seconds, wall seconds) per round switch on `trace`, in a fresh context once the page settled."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{port}/?trace={trace}&round=1")
    page.get_by_role("heading", name="Round 1: the program sends").first.wait_for(timeout=120_000)
    _idle(page)
    page.wait_for_timeout(1_000)
    shown, cpu, started = 1, _cpu_seconds(pid), time.perf_counter()
    for round_ in STEPS:
        page.get_by_role("button", name="Next round" if round_ > shown else "Previous round").click()
        page.get_by_role("heading", name=f"Round {round_}: the program sends").first.wait_for(timeout=60_000)
        _idle(page)  # a click while the run that drew the round is still going is lost on Hengxin's page
        shown = round_
    wall = time.perf_counter() - started
    page.wait_for_timeout(500)  # work the last switch left running in the server still counts
    cpu = _cpu_seconds(pid) - cpu
    context.close()
    return cpu / len(STEPS), wall / len(STEPS)


def main(other: Path | None) -> None:
    from playwright.sync_api import sync_playwright

    folder = _traces_folder()
    roots = {"here": ROOT, **({f"at {other.name}": other} if other else {})}
    servers = {name: start_app(free_port(), traces=folder, root=root) for name, root in roots.items()}
    ports = {name: int(server.args[server.args.index("--server.port") + 1]) for name, server in servers.items()}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(REPEATS):
                for name, server in servers.items():
                    for label, trace in TRACES.items():
                        figures.setdefault((name, label), []).append(_switches(browser, ports[name], server.pid, trace))
            browser.close()
    finally:
        for server in servers.values():
            server.terminate()
    medians = {key: (statistics.median(c for c, _ in rows), statistics.median(w for _, w in rows))
               for key, rows in figures.items()}
    print(f"median of {REPEATS} fresh contexts, {len(STEPS)} round switches each")
    for (name, label), (cpu, wall) in medians.items():
        print(f"  Roundtrip {name}, {label}: server CPU {cpu * 1000:.0f} ms, "
              f"click to the run's end {wall * 1000:.0f} ms per switch")
    for name in roots:
        ratio = medians[(name, f"{ROUNDS} rounds")][0] / medians[(name, "Hengxin")][0]
        print(f"server CPU per switch, {ROUNDS} rounds ÷ Hengxin, {name}: {ratio:.2f} "
              f"({'PASS' if ratio <= TARGET else 'ABOVE TARGET'}, target ≤ {TARGET})")
    if other:
        for label in TRACES:
            here, there = medians[("here", label)], medians[(f"at {other.name}", label)]
            print(f"{label}, here ÷ at {other.name}: server CPU {here[0] / there[0]:.2f}, "
                  f"click to the run's end {here[1] / there[1]:.2f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None)
