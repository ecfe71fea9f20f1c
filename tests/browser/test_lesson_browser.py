"""The lesson layer at projector size: every presenter step of Hengxin walked with Next at 1600x1000, its text
measured with the browser's computed styles: 24 px and up for what is read, 18 px and up for labels and badges."""

from __future__ import annotations

from tests.browser.browser_api import PlaywrightTimeout
from tests.browser.conftest import Watch, guard, screenshot
from tests.browser.test_browser import HENGXIN_WALK, _idle
from tests.browser.test_workshop_browser import BODY_PX, LABEL_PX, PROJECTOR, expect

STYLED = """() => {
  const counter = document.querySelector('[class*="st-key-snowball"] p');
  return counter && parseFloat(getComputedStyle(counter).fontSize) >= 24;
}"""
"""True once the lesson layer's stylesheet is applied."""

SIZES = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const small = [], thin = [];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim(), element = walker.currentNode.parentElement;
    if (!text || !element || element.closest('[data-testid="stIconMaterial"], [role="img"], style, script')) continue;
    const box = element.getBoundingClientRect();
    if (!box.width || !box.height || element.closest('details:not([open]) > :not(summary), [aria-hidden="true"]')) continue;
    const size = parseFloat(getComputedStyle(element).fontSize);
    if (size < %(label)d) small.push(`${size}px: ${text.slice(0, 40)}`);
    const read = element.closest('[class*="st-key-lesson"] [data-testid="stText"], [class*="st-key-snowball"] p, '
                                 + '[class*="st-key-resent-stack"] [data-testid="stText"], [class*="st-key-slide-lead"] p, '
                                 + '[class*="st-key-asks"] p');
    if (read && parseFloat(getComputedStyle(read).fontSize) < %(body)d) thin.push(`${size}px: ${text.slice(0, 40)}`);
  }
  return {small, thin};
}""" % {"label": LABEL_PX, "body": BODY_PX}
"""The visible text under the label size anywhere, and the lesson layer's own text under the body size."""


def test_every_hengxin_step_slide_shows_the_lesson_layer_in_type_a_room_can_read(browser, app_url):
    watch = Watch()
    context = browser.new_context(viewport=PROJECTOR, base_url=app_url)
    context.set_default_timeout(60_000)
    guard(context, watch)
    page = context.new_page()
    page.goto("/?trace=hengxin-expense&round=1&step=1&mode=present")
    found = {}
    for number, (round_, step) in enumerate(HENGXIN_WALK):
        if number:
            page.get_by_role("button", name="Next ▶", exact=True).click()
        expect(page.get_by_text(f"round {round_} of 4", exact=True)).to_be_visible(timeout=60_000)
        _idle(page)
        expect(page.get_by_text("Messages sent, round by round:", exact=False)).to_be_visible()
        page.wait_for_function(STYLED)  # the stylesheet arrives with the script run's elements, not before them
        try:  # the presenter's own stylesheet is a separate element and can land a moment after the lesson's
            page.wait_for_function(f"() => ({SIZES})().small.length === 0", timeout=15_000)
        except PlaywrightTimeout:
            pass  # still small after 15 s: a real failure, which the assertion below names
        found[(round_, step)] = page.evaluate(SIZES)
        screenshot(page, f"lesson-r{round_}s{step}")
    context.close()
    assert watch.remote == []
    assert {p: v["small"] for p, v in found.items() if v["small"]} == {}, f"text under {LABEL_PX} px"
    assert {p: v["thin"] for p, v in found.items() if v["thin"]} == {}, f"lesson text under {BODY_PX} px"
