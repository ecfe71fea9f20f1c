"""What each element drawn costs the browser's main thread on a first load: React's work, not the network.

Serves bench/peers/kind_page.py once and opens `?kind=K&n=N` (the bare page's one st.text and N elements of kind K)
in fresh Chromium contexts, the kinds taking turns, with Chrome's timeline recorded; prints per kind the median
main-thread time spent in JavaScript calls (the trace's FunctionCall events: React rendering the deltas) and in
layout and paint, and what one element adds over the bare page. Only kinds without a widget id, which Streamlit
lets a page draw many times over.

    .venv/bin/python -m bench.peers.elements [RUNS] [N]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import urllib.parse
from dataclasses import replace
from pathlib import Path

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app
from bench.peers.floor import bare_viewer
from bench.peers.viewers import VIEWPORT

PAGE = "bench/peers/kind_page.py"
KINDS = ("text", "caption", "markdown", "bordered container", "columns")
"""The kinds the explorer's round is mostly made of."""
_LAYOUT = ("Layout", "UpdateLayoutTree", "Paint")


def main_thread_ms(trace: Path) -> tuple[float, float]:
    """JavaScript calls and layout-and-paint time on the page's main thread, in ms, from a Chrome timeline."""
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    script = layout = 0.0
    for e in events:
        if e.get("ph") == "X" and (e["pid"], e["tid"]) in main:
            if e["name"] == "FunctionCall":
                script += e.get("dur", 0) / 1000
            elif e["name"] in _LAYOUT:
                layout += e.get("dur", 0) / 1000
    return script, layout


def main(runs: int = 5, count: int = 40) -> None:
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start_app(port, script=PAGE)
    base = bare_viewer("kind", port)
    kinds = ("none", *KINDS)
    results: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
    try:
        with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            trace = Path(folder) / "trace.json"
            for run in range(runs + 1):  # the first round of visits warms the server and is left out
                for kind in kinds:
                    n = 0 if kind == "none" else count
                    query = urllib.parse.urlencode({"kind": "text" if kind == "none" else kind, "n": n})
                    viewer = replace(base, url=f"{base.url}?{query}")
                    context = browser.new_context(viewport=VIEWPORT)
                    page = context.new_page()
                    browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline"])
                    page.goto(viewer.url)
                    page.get_by_text(viewer.first).first.wait_for()
                    page.wait_for_timeout(1_200)
                    browser.stop_tracing()
                    context.close()
                    if run:
                        results[kind].append(main_thread_ms(trace))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    bare = statistics.median(script for script, _ in results["none"])
    print(f"median of {runs} fresh Chromium contexts each, {count} elements of a kind on the bare page")
    for kind in kinds:
        script = statistics.median(s for s, _ in results[kind])
        layout = statistics.median(lay for _, lay in results[kind])
        each = "" if kind == "none" else f"; {(script - bare) / count:.2f} ms of JavaScript an element"
        print(f"{kind}: JavaScript {script:.0f} ms, layout and paint {layout:.0f} ms{each}")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
