"""Streamlit's own floor against Inspect: how much of Roundtrip's first load any Streamlit page pays.

A bare Streamlit page holding one st.text (bench/peers/bare_page.py), served as the app is (same command, same
config), is opened with the same Playwright measures as bench.peers, taking turns with the same page plus one
st.code block (the syntax highlighter's price alone), Roundtrip on round 1 of the 1,000-round trace and Inspect on
turn 1, RUNS fresh contexts each. Printed: the medians and their ratios to
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
BARE_PAGE = "bench/peers/bare_page.py"
MEASURES = ("first round readable", "page settled", "longest task, first load")
_SCRIPTS = """() => performance.getEntriesByType('resource')
  .filter(entry => entry.initiatorType === 'script' || entry.name.split('?')[0].endsWith('.js'))
  .map(entry => [entry.name, entry.decodedBodySize])"""
_HASHED = re.compile(r"\.[0-9a-zA-Z_-]{8,}(?=\.js$)")


def bare_viewer(name: str, port: int) -> Viewer:
    """The bare page: its one text is the first thing to read."""
    words = re.compile(r"^Round 1: the program sends")
    return Viewer(name, f"http://127.0.0.1:{port}/", words, lambda page: page.get_by_text(words), lambda page: None)


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
    names = list(results)
    bare, ours, peer = names[0], names[-2], names[-1]
    print(f"median of {runs} fresh Chromium contexts each, the pages taking turns")
    for measure in MEASURES:
        median = {name: statistics.median(r[measure] for r in rows) for name, rows in results.items()}
        shown = "{:.0f} ms" if measure.startswith("longest") else "{:.2f} s"
        cells = (f"{name} {shown.format(median[name])} ({median[name] / median[peer]:.2f} × {peer})" for name in names)
        print(f"{measure}: " + "; ".join(cells))
    for name in names:
        print(f"JavaScript fetched by {name}: {len(scripts[name])} files, {sum(scripts[name].values()) / 1e6:.2f} MB")
    floor = scripts[bare]
    extra = {module: size for module, size in scripts[ours].items() if module not in floor}
    print(f"{ours} on top of {bare}, {len(extra)} files, {sum(extra.values()) / 1e6:.2f} MB; those of 5 KB or more:")
    for module, size in sorted(extra.items(), key=lambda item: -item[1]):
        if size >= 5_000:
            print(f"  {size / 1e3:8.0f} KB  {module}")


def main(runs: int = RUNS) -> None:
    traces, logs = inputs()
    bare_port, code_port, ours_port, peer_port = free_port(), free_port(), free_port(), free_port()
    servers = [start_app(bare_port, script=BARE_PAGE), start_app(code_port, script=BARE_PAGE, script_args=("code",)),
               start_app(ours_port, traces=traces), serve_inspect(logs, peer_port)]
    try:
        viewers = [bare_viewer("bare Streamlit", bare_port), bare_viewer("bare + st.code", code_port),
                   roundtrip_viewer(ours_port, ROUNDS), inspect_viewer(peer_port, ROUNDS)]
        results, scripts = _race(viewers, runs)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    _report(results, scripts, runs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)
