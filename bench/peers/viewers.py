"""One Playwright script for every viewer: what a viewer is (where its first and last rounds read, how to jump),
and the three timings taken the same way for each."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Callable

from bench.longtasks import long_tasks, page_clock, watch_long_tasks

QUIET_S = 2.0
"""The page counts as settled once this long passes with no request in flight, none started, no long task."""
WAIT_MS = 180_000
VIEWPORT = {"width": 1280, "height": 900}
_SCROLL_TO_END = """() => { for (const el of document.querySelectorAll('*'))
  if (el.scrollHeight > el.clientHeight + 10) el.scrollTop = el.scrollHeight; }"""


@dataclass(frozen=True)
class Viewer:
    """A log viewer serving the trace on this machine."""

    name: str
    """What the results call it."""
    url: str
    """Where the trace opens on its first round."""
    first: re.Pattern
    """Text that shows the first round is on screen and readable."""
    last: Callable
    """The page's element that shows the last round readable, given the page."""
    jump: Callable
    """Asks the page for the last round, as a user would."""
    follows: Callable | None = None
    """Where the rest of the page shows the last round once it has followed, given the page; None when all of it
    is `last`."""


def roundtrip_viewer(port: int, rounds: int) -> Viewer:
    heading = re.compile(rf"^Round {rounds}: the program sends")

    def jump(page) -> None:
        # The round navigator holds every round in the page; End in its list shows the last at once. Found by
        # its label with CSS, as cheap a look-up as Inspect's text one, not by a walk of the accessibility tree.
        page.locator('[aria-label="Rounds"]').focus()
        page.keyboard.press("End")

    return Viewer("Roundtrip", f"http://127.0.0.1:{port}/?trace=synthetic-{rounds}&round=1",
                  re.compile(r"^Round 1: the program sends"),
                  lambda page: page.locator('[aria-label="Round navigator"] .heading').get_by_text(heading), jump,
                  lambda page: page.locator('[data-testid="stHeading"]').filter(has_text=heading))


def inspect_viewer(port: int, rounds: int) -> Viewer:
    def jump(page) -> None:
        # Inspect's transcript is a virtualised list: End, or scrolling its container to the bottom, reaches the
        # last turn. Whichever the page honours first counts.
        page.keyboard.press("End")
        deadline = time.monotonic() + WAIT_MS / 1000
        while not page.get_by_text(f"turn {rounds}/{rounds}").first.is_visible():
            if time.monotonic() > deadline:
                raise TimeoutError("Inspect never showed its last turn")
            page.evaluate(_SCROLL_TO_END)
            page.wait_for_timeout(50)

    last = re.compile(rf"^turn {rounds}/{rounds}$")
    return Viewer("Inspect", f"http://127.0.0.1:{port}/#/logs/synthetic-{rounds}.eval/samples/sample/1/1/transcript",
                  re.compile(r"^turn 1/"), lambda page: page.get_by_text(last), jump)


def _settle(page, started: float, pending: set, requests: list[int]) -> float:
    """Seconds from `started` to the page's last activity: a request ending or starting, a long task."""
    last_activity, seen = time.perf_counter(), (-1, -1, -1)
    while time.perf_counter() - last_activity < QUIET_S:
        now = (requests[0], len(pending), len(long_tasks(page)))
        if now != seen or pending:
            last_activity, seen = time.perf_counter(), now
        page.wait_for_timeout(100)
    return last_activity - started


def open_settled(browser, viewer: Viewer) -> tuple:
    """A fresh context (nothing cached between runs) on the viewer's first round, once settled: the context, the
    page, and the load's timings and longest task."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    context.route("**/*", lambda route: route.continue_() if "127.0.0.1" in route.request.url else route.abort())
    watch_long_tasks(context)
    page = context.new_page()
    pending: set = set()
    requests = [0]  # requests started so far, so that one that starts and ends between two looks still counts
    page.on("request", lambda request: (pending.add(request), requests.__setitem__(0, requests[0] + 1)))
    page.on("requestfinished", lambda request: pending.discard(request))
    page.on("requestfailed", lambda request: pending.discard(request))
    started = time.perf_counter()
    page.goto(viewer.url)
    page.get_by_text(viewer.first).first.wait_for()
    readable = time.perf_counter() - started
    settled = _settle(page, started, pending, requests)
    return context, page, {"first round readable": readable, "page settled": settled,
                           "longest task, first load": max(long_tasks(page), default=0)}


def measure(browser, viewer: Viewer) -> dict:
    """The three timings and the longest tasks, in a fresh context."""
    context, page, loaded = open_settled(browser, viewer)
    mark = page_clock(page)
    started = time.perf_counter()
    viewer.jump(page)
    viewer.last(page).first.wait_for()
    jumped = time.perf_counter() - started
    followed = jumped
    if viewer.follows is not None:
        viewer.follows(page).first.wait_for()
        followed = time.perf_counter() - started
    page.wait_for_timeout(1_000)  # a task the jump started and that outlasts the text still counts
    switch_tasks = long_tasks(page, mark)
    context.close()
    return {**loaded, "jump to last round": jumped, "the page followed": followed,
            "longest task, round switch": max(switch_tasks, default=0)}
