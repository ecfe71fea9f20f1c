"""The Library in real Chromium, as two people on one server: what one session's save does to the other's selection.

The list's selection is kept by the browser as row positions. A trace saved through another session is listed first
(latest saved first) and moves every row down a place: the ticks stayed where they were, over other traces, and the
buttons below acted on those.
"""

from __future__ import annotations

import pytest

from lib import library
from lib.store import open_store
from lib.ui.library import RESELECT
from tests.browser.browser_api import expect
from tests.browser.conftest import VIEWPORT, Watch, guard, screenshot, serve_app
from tests.conftest import load_bundled

WAIT = 60_000
"""Milliseconds to wait for what must appear on a busy machine."""


@pytest.fixture(scope="module")
def served(chromium_present, tmp_path_factory):
    """The app on a free loopback port with a library of its own, and that library's URL."""
    data = tmp_path_factory.mktemp("library-browser")
    url = f"sqlite:///{data / 'notes.db'}"
    store = open_store(url)
    for name in ("hengxin-expense", "loan-calculator"):
        library.save(store, load_bundled(name).trace, source="upload", author="Ada")
    store.close()
    for base in serve_app(data):
        yield base, url


def _tick(page, row: int) -> None:
    """Tick the selection box of the list's row (1-based), in the table's first column."""
    grid = page.locator('[data-testid="stDataFrame"]').first.bounding_box()
    row_height = 35  # Streamlit's default row height; the header row is as tall
    page.mouse.click(grid["x"] + 15, grid["y"] + row_height * row + row_height / 2)


def test_a_trace_saved_through_another_session_lets_go_of_a_selection_it_moved(browser, served):
    base, url = served
    watch = Watch()
    context = browser.new_context(viewport=VIEWPORT, base_url=base)
    context.set_default_timeout(WAIT)
    guard(context, watch)
    page = context.new_page()
    page.goto("/library")
    expect(page.get_by_text("2 saved traces match")).to_be_visible(timeout=WAIT)
    _tick(page, 1)
    expect(page.get_by_role("button", name="Open in the round explorer")).to_be_visible(timeout=WAIT)
    _tick(page, 2)
    compare = page.get_by_role("button", name="Compare these two")
    expect(compare).to_be_visible(timeout=WAIT)

    store = open_store(url)  # another session, another person: saved while this one has two rows ticked
    library.save(store, load_bundled("larkfield-get-order").trace, source="upload", author="Grace")
    store.close()

    compare.click()
    expect(page.get_by_text(RESELECT)).to_be_visible(timeout=WAIT)
    expect(page.get_by_text("3 saved traces match")).to_be_visible(timeout=WAIT)
    assert "/compare" not in page.url
    expect(page.get_by_role("button", name="Compare these two")).to_have_count(0)
    screenshot(page, "library-selection-let-go")

    # No tick was left over the rows: one new tick is one trace selected, not three.
    _tick(page, 3)
    expect(page.get_by_role("button", name="Open in the round explorer")).to_be_visible(timeout=WAIT)
    expect(page.get_by_role("button", name="Delete 1 trace…")).to_be_visible(timeout=WAIT)
    context.close()
    assert watch.remote == []
