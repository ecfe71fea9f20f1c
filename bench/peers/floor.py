"""Streamlit's own floor against Inspect: how much of Roundtrip's first load any Streamlit page pays.

A bare Streamlit page holding one st.text (bench/peers/bare_page.py), served as the app is (same command, same
config), is opened with the same Playwright measures as bench.peers, taking turns with Roundtrip on round 1 of the
1,000-round trace and Inspect on turn 1, RUNS fresh contexts each. Printed: the medians and their ratios to
Inspect's, then the JavaScript each page fetched (the browser's resource timing, decoded sizes): what Roundtrip's
first load evaluates on top of the bare page's.

    .venv/bin/python -m bench.peers.floor [RUNS]     (needs .venv-peers: make bench-peers makes it)
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import PurePosixPath

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app
from bench.peers.serving import ROUNDS, inputs, serve_inspect
from bench.peers.viewers import Viewer, inspect_viewer, open_settled, roundtrip_viewer

RUNS = 5
MEASURES = ("first round readable", "page settled", "longest task, first load")
_SCRIPTS = """() => performance.getEntriesByType('resource')
  .filter(entry => entry.initiatorType === 'script' || entry.name.split('?')[0].endsWith('.js'))
  .map(entry => [entry.name, entry.decodedBodySize])"""
_HASHED = re.compile(r"\.[0-9a-zA-Z_-]{8,}(?=\.js$)")


def bare_viewer(port: int) -> Viewer:
    """The bare page: its one text is the first and only thing to read."""
    words = re.compile(r"^Round 1: the program sends")
    return Viewer("bare Streamlit", f"http://127.0.0.1:{port}/", words, words, lambda page: None)


def _module(url: str) -> str:
    """A script's file name without the build's hash: `index.Bx3k9aQ1.js` → `index.js`."""
    return _HASHED.sub("", PurePosixPath(url.split("?")[0]).name)


def _scripts(page) -> dict[str, int]:
    return {_module(url): size for url, size in page.evaluate(_SCRIPTS)}


def _race(viewers: list[Viewer], runs: int) -> tuple[dict[str, list[dict]], dict[str, dict[str, int]]]:
    from playwright.sync_api import sync_playwright

    results: dict[str, list[dict]] = {viewer.name: [] for viewer in viewers}
    scripts: dict[str, dict[str, int]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for run in range(runs):
            for viewer in viewers[run % len(viewers):] + viewers[:run % len(viewers)]:
                context, page, loaded = open_settled(browser, viewer)
                scripts[viewer.name] = _scripts(page)
                context.close()
                results[viewer.name].append(loaded)
        browser.close()
    return results, scripts


def _report(results: dict[str, list[dict]], scripts: dict[str, dict[str, int]], runs: int) -> None:
    bare, ours, peer = results
    print(f"median of {runs} fresh Chromium contexts each, the three pages taking turns")
    for name in MEASURES:
        median = {viewer: statistics.median(r[name] for r in rows) for viewer, rows in results.items()}
        unit, scale = ("ms", 1) if name.startswith("longest") else ("s", 1)
        cells = ", ".join(f"{viewer} {median[viewer] * scale:.2f} {unit}" for viewer in results)
        print(f"{name:>26}: {cells}; ÷ {peer}: bare {median[bare] / median[peer]:.2f}, "
              f"{ours} {median[ours] / median[peer]:.2f}")
    floor = scripts[bare]
    extra = {module: size for module, size in scripts[ours].items() if module not in floor}
    print(f"JavaScript fetched: bare page {len(floor)} files, {sum(floor.values()) / 1e6:.2f} MB; "
          f"{ours} {len(scripts[ours])} files, {sum(scripts[ours].values()) / 1e6:.2f} MB; "
          f"{peer} {len(scripts[peer])} files, {sum(scripts[peer].values()) / 1e6:.2f} MB")
    print(f"{ours} on top of the bare page:")
    for module, size in sorted(extra.items(), key=lambda item: -item[1]):
        print(f"  {size / 1e3:8.0f} KB  {module}")


def main(runs: int = RUNS) -> None:
    traces, logs = inputs()
    bare_port, ours_port, peer_port = free_port(), free_port(), free_port()
    servers = [start_app(bare_port, script="bench/peers/bare_page.py"), start_app(ours_port, traces=traces),
               serve_inspect(logs, peer_port)]
    try:
        viewers = [bare_viewer(bare_port), roundtrip_viewer(ours_port, ROUNDS), inspect_viewer(peer_port, ROUNDS)]
        results, scripts = _race(viewers, runs)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    _report(results, scripts, runs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)
