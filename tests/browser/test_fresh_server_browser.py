"""A fresh server's first visitor, opened straight at a page whose address is not its file's name."""

from __future__ import annotations

import pytest

from tests.browser.browser_api import expect
from tests.browser.conftest import VIEWPORT, guard, screenshot, serve_app
from tests.browser.test_browser import _idle


@pytest.fixture(scope="module")
def fresh_url(chromium_present, tmp_path_factory) -> str:
    """A server no session has visited yet."""
    yield from serve_app(tmp_path_factory.mktemp("fresh-overview-notes"))


def test_the_first_visitor_of_a_fresh_server_opens_overview_on_the_tokens_page_with_no_page_not_found(
        browser, fresh_url, watch):
    # Streamlit, finding a top-level pages/ folder, runs a fresh server's first script run in its legacy mode, which
    # names pages by their files: with the Tokens page in pages/tokens.py, /overview was none of them ("Page not
    # found"); in pages/overview.py it is found, and frame_guard sends it through app.py's frame.
    context = browser.new_context(viewport=VIEWPORT, base_url=fresh_url)
    guard(context, watch)
    page = context.new_page()
    page.goto("/overview?trace=hengxin-expense")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="Where each round's input goes")).to_be_visible()
    _idle(page)
    page.wait_for_timeout(1000)  # a late dialog would be on screen by now
    screenshot(page, "overview-fresh-server")
    assert page.get_by_text("Page not found").count() == 0
    assert page.get_by_text("does not seem to exist").count() == 0
    assert "/overview" in page.url and "trace=hengxin-expense" in page.url
    context.close()
    assert watch.remote == []


@pytest.fixture(scope="module")
def fresh_watch_url(chromium_present, tmp_path_factory) -> str:
    """Another server no session has visited yet."""
    yield from serve_app(tmp_path_factory.mktemp("fresh-watch-notes"))


def test_the_first_visitor_of_a_fresh_server_opens_watch_inside_the_apps_frame(browser, fresh_watch_url, watch):
    # The Watch page, alone of the pages, did not go through app.py's frame: opened first on a fresh server (or
    # reconnecting to a restarted one) it ran in Streamlit's legacy mode, its sidebar listing the files "app,
    # annotate, checks, ... watch" where the app's pages are named.
    context = browser.new_context(viewport=VIEWPORT, base_url=fresh_watch_url)
    guard(context, watch)
    page = context.new_page()
    page.goto("/watch")
    expect(page.get_by_role("heading", name="Watch your agent")).to_be_visible()
    nav = page.locator('[data-testid="stSidebarNav"]')
    expect(nav).to_contain_text("Round explorer")
    _idle(page)
    assert "annotate" not in nav.inner_text()
    assert "/watch" in page.url
    context.close()
    assert watch.remote == []
