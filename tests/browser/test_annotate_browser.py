"""The Annotate page in Chromium: what only a browser shows, which tab stays open when a form on it is saved."""

from __future__ import annotations

from tests.browser.browser_api import expect
from tests.browser.conftest import screenshot
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
