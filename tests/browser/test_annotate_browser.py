"""The Annotate page in Chromium: what only a browser shows, which tab stays open when a form on it is saved."""

from __future__ import annotations

import pytest

from tests.browser.browser_api import expect
from tests.browser.conftest import VIEWPORT, guard, screenshot, serve_app
from tests.browser.test_browser import _idle

RUBRICS = "One rubric per line: a name, a colon, then a range (grounded: 0-3) or pass/fail"


def test_saving_the_rubrics_leaves_the_editor_on_screen_with_what_the_save_said(page):
    page.goto("/annotate?trace=hengxin-expense")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("tab", name="Labels and rubrics").click()
    rubrics = main.get_by_role("textbox", name=RUBRICS)
    rubrics.fill("grounded: 0-3\nbroken rubric")
    main.get_by_role("button", name="Save the rubrics").click()
    expect(main.get_by_text("The rubrics were not saved:")).to_be_visible()
    _idle(page)
    screenshot(page, "annotate-rubric-refused")
    expect(rubrics).to_be_visible()  # still on the tab, the line to fix in front of the editor
    rubrics.fill("grounded: 0-3\ncorrect: pass/fail")
    main.get_by_role("button", name="Save the rubrics").click()
    expect(main.get_by_text("Saved 2 rubrics.")).to_be_visible()
    _idle(page)
    expect(main.get_by_role("textbox", name=RUBRICS)).to_have_value("grounded: 0-3\ncorrect: pass/fail")


@pytest.fixture(scope="module")
def fresh_url(chromium_present, tmp_path_factory) -> str:
    """A server no session has visited yet: its first visitor is the one a link was handed to."""
    yield from serve_app(tmp_path_factory.mktemp("fresh-notes"))


def test_a_link_to_a_page_opens_that_page_for_a_fresh_servers_first_visitor(browser, fresh_url, watch):
    context = browser.new_context(viewport=VIEWPORT, base_url=fresh_url)
    guard(context, watch)
    page = context.new_page()
    page.goto("/annotate?trace=order-status-anthropic&round=2")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="Annotate")).to_be_visible()
    expect(main.get_by_text("Add a note to round 2")).to_be_visible()
    _idle(page)
    screenshot(page, "annotate-fresh-server-link")
    assert "/annotate?" in page.url and "trace=order-status-anthropic" in page.url
    context.close()
    assert watch.remote == []
