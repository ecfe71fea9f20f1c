"""A room of 30 browsers: real headless Chromium pages stepping through rounds at once.

Starts the app on 127.0.0.1 (a free port), opens SESSIONS browser contexts in Debian's Chromium
through Playwright, and has each step through the Hengxin trace and through a larger uploaded
trace. It reports the time from a click on "Next round" to the new round on screen (p50, p95) and
every error. Bounded: each session makes a fixed number of clicks, and the whole run has a
deadline after which it stops by itself. Only loopback traffic.

    .venv/bin/python -m bench.load_test [--sessions 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CLICKS = 3
"""Round changes per trace per session."""
LARGE_ROUNDS = 200
"""Rounds of the uploaded trace."""
WAIT_S = 180
"""How long one page load or one round change may take before it counts as an error."""
JOIN_EVERY_S = 0.5
"""The gap between two learners opening the app."""
DEADLINE_S = 480
"""The whole run stops after this, finished or not."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, env: dict[str, str] | None = None, traces: Path | None = None,
              script: str = "app.py", script_args: tuple[str, ...] = (), root: Path = ROOT) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port, returned once /_stcore/health says ok.

    `env` adds to the environment the server runs with (the browser tests give it a notes
    database of their own); `traces`, a folder, replaces the bundled traces (bench/serve.py);
    `script` runs another page the same way (bench/peers/floor.py's bare page), given `script_args`; `root`,
    another checkout's app (bench/peers/against.py)."""
    launcher = ["bench.serve", str(traces)] if traces else ["streamlit"]
    arguments = ["--", *script_args] if script_args else []
    server = subprocess.Popen(
        [sys.executable, "-m", *launcher, "run", script, "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", *arguments],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})},
    )
    for _ in range(120):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as answer:
                if answer.read() == b"ok":
                    return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("the app did not come up within 60 s")


async def _round_shown(page, index: int) -> None:
    await page.get_by_text(re.compile(rf"^Round {index}: the program sends")).first.wait_for()


async def _step_through(page, first: int, clicks: int, timings: list[float]) -> None:
    for index in range(first + 1, first + 1 + clicks):
        button = page.get_by_role("button", name="Next round ▶")
        start = time.perf_counter()
        await button.click()
        await _round_shown(page, index)
        timings.append(time.perf_counter() - start)


async def session(browser, base: str, large: Path, timings: dict, errors: list[str], number: int) -> None:
    """One learner: open Hengxin, step; upload the large trace, step."""
    # Learners come in over a few seconds, as a room does, not all in the same millisecond.
    await asyncio.sleep(number * JOIN_EVERY_S)
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT_S * 1000)
    page = await context.new_page()
    try:
        await page.goto(f"{base}/?trace=hengxin-expense&round=1", wait_until="domcontentloaded")
        await _round_shown(page, 1)
        await _step_through(page, 1, CLICKS, timings["hengxin"])
        await page.locator('section[data-testid="stSidebar"] input[type="file"]').set_input_files(str(large))
        await _round_shown(page, 1)
        await page.get_by_text(re.compile(r"rounds in 1 conversation")).first.wait_for()
        await _step_through(page, 1, CLICKS, timings["large"])
    except Exception as exc:  # noqa: BLE001 - every failure is counted and reported, none stops the room
        errors.append(f"session {number}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    finally:
        await context.close()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


async def room(base: str, sessions: int, large: Path) -> dict:
    from playwright.async_api import async_playwright

    timings: dict[str, list[float]] = {"hengxin": [], "large": []}
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        started = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(session(browser, base, large, timings, errors, n) for n in range(sessions))),
            timeout=DEADLINE_S,
        )
        elapsed = time.perf_counter() - started
        await browser.close()
    result = {"sessions": sessions, "clicks per trace per session": CLICKS, "wall time (s)": round(elapsed, 1),
              "errors": len(errors)}
    for name, values in timings.items():
        if values:
            result[f"{name}: clicks timed"] = len(values)
            result[f"{name}: p50 click → round (s)"] = round(statistics.median(values), 2)
            result[f"{name}: p95 click → round (s)"] = round(_percentile(values, 0.95), 2)
    result["error lines"] = errors[:10]
    return result


def main(sessions: int) -> dict:
    from tests.synthetic import synthetic_lines

    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"{CHROMIUM} is missing: install Debian's chromium package (see .ci/run).")
    large = Path(tempfile.mkdtemp(prefix="roundtrip-load-")) / "large-trace.jsonl"
    large.write_text("\n".join(synthetic_lines(LARGE_ROUNDS)) + "\n")
    port = free_port()
    server = start_app(port)
    try:
        result = asyncio.run(room(f"http://127.0.0.1:{port}", sessions, large))
    finally:
        server.terminate()
        server.wait(timeout=30)
    result["uploaded trace (MB)"] = round(large.stat().st_size / 1e6, 1)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    for key, value in main(parser.parse_args().sessions).items():
        print(f"{key:>34}: {value}")
