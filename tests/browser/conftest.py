"""Browser tests: Debian's Chromium, driven by Playwright, against `streamlit run` on 127.0.0.1.

One server for the whole test session (bench/load_test.py starts it, as it does for the load
test) and one browser per module; each test gets a fresh context, so a fresh app session. Every
request a page makes is routed: loopback goes through, anything else is refused and recorded,
and a test that saw one fails. Outside CI the tests skip, saying why, when Chromium or
Playwright is missing; under CI (`CI` set, as .ci/run sets it) they fail instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

import pytest

from bench.load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_app

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path(__file__).resolve().parent / "output"
"""Screenshots and downloads of the last run (git-ignored)."""
README_SHOTS = ROOT / "docs" / "screenshots"
"""Where the README's screenshots live; `make screenshots` rewrites one only when its pixels changed."""
WRITE_SCREENSHOTS = "ROUNDTRIP_WRITE_SCREENSHOTS"
"""Set to 1 by `make screenshots` to let the tests replace the README's screenshots; `make test` never does,
so a test run leaves the work tree as it found it."""
VIEWPORT = {"width": 1280, "height": 900}
LOOPBACK = {"127.0.0.1", "localhost"}
SHOT_TOLERANCE = 0.002
"""Share of a README screenshot's pixels that may differ before the committed file is replaced."""
SHOT_TILE = 32
"""Side of the squares a screenshot is compared in, in pixels: about a word of body text."""
PLAIN_DIFFERENCE = 64
"""A pixel differs plainly when its grey level moves this much (of 255); antialiasing moves edges less."""
TILE_CHANGE = 48
"""Plainly differing pixels in one square that make a change however small the share: a glyph or two redrawn."""


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing: install Debian's chromium package (.ci/run does)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed: make test installs it from requirements.txt"
    return None


@pytest.fixture(scope="session")
def chromium_present() -> None:
    problem = _missing()
    if problem and os.environ.get("CI"):
        pytest.fail(f"The browser tests must run in CI, but {problem}.")
    if problem:
        pytest.skip(f"Browser tests skipped: {problem}.")


@pytest.fixture(scope="session")
def app_url(chromium_present, tmp_path_factory) -> str:
    """The app served on a free loopback port, with a notes database of its own."""
    yield from serve_app(tmp_path_factory.mktemp("browser-notes"))


def serve_app(data: Path) -> Iterator[str]:
    """A server of the app on a free loopback port, its notes database in `data`; stopped when the caller is done."""
    port = free_port()
    server = start_app(port, env={"ROUNDTRIP_DATABASE_URL": f"sqlite:///{data / 'notes.db'}"})
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=30)


def serve_traces(folder: Path, name: str, text: str) -> Iterator[str]:
    """The app on a free loopback port serving only the trace `name` written into `folder`: its base URL,
    for a module fixture to yield from; the server stops when the fixture ends."""
    (folder / name).write_text(text)
    port = free_port()
    server = start_app(port, traces=folder)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(chromium_present):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@dataclass
class Watch:
    """What a page tried that it must not: requests off the machine, dialogs."""

    remote: list[str] = field(default_factory=list)
    """URLs of requests to any host but loopback, each refused."""
    dialogs: list[str] = field(default_factory=list)
    """Messages of alert, confirm or prompt dialogs, each dismissed."""


def on_loopback(url: str) -> bool:
    """A request to this machine's own app."""
    return urlsplit(url).hostname in LOOPBACK


def guard(context, watch: Watch, allowed: Callable[[str], bool] = on_loopback) -> None:
    """Refuse and record every request `allowed` does not let through."""

    def route(found) -> None:
        url = found.request.url
        if allowed(url):
            found.continue_()
        else:
            watch.remote.append(url)
            found.abort()

    context.route("**/*", route)


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser, app_url, watch):
    """A new app session in its own context, confined to loopback, watched for dialogs."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True, base_url=app_url)
    context.set_default_timeout(60_000)
    guard(context, watch)
    opened = context.new_page()
    opened.on("dialog", lambda dialog: (watch.dialogs.append(dialog.message), dialog.dismiss()))
    yield opened
    context.close()
    assert watch.remote == [], f"requests left for other hosts: {watch.remote}"


def screenshot(page, name: str, readme: bool = False) -> Path:
    """Save a screenshot under the test output; a README one is copied to docs/screenshots when it changed
    and `make screenshots` asked for it."""
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / f"{name}.png"
    page.screenshot(path=str(path))
    if readme and os.environ.get(WRITE_SCREENSHOTS) == "1":
        README_SHOTS.mkdir(parents=True, exist_ok=True)
        kept = README_SHOTS / path.name
        if not kept.exists() or _changed(kept, path):
            kept.write_bytes(path.read_bytes())
    return path


def _changed(before: Path, after: Path) -> bool:
    """More than a sliver of pixels differ, or some differ plainly in one place (a word renamed): chart
    antialiasing moves a few faint pixels between runs, which is no change."""
    from PIL import Image, ImageChops

    with Image.open(before) as old, Image.open(after) as new:
        if old.size != new.size:
            return True
        difference = ImageChops.difference(old.convert("RGB"), new.convert("RGB")).convert("L")
        width, height = new.size
        if difference.point(lambda value: 255 if value else 0).histogram()[255] > SHOT_TOLERANCE * width * height:
            return True
        plain = difference.point(lambda value: 255 if value >= PLAIN_DIFFERENCE else 0)
        return any(plain.crop((x, y, x + SHOT_TILE, y + SHOT_TILE)).histogram()[255] >= TILE_CHANGE
                   for x in range(0, width, SHOT_TILE) for y in range(0, height, SHOT_TILE))
