"""The bundled workshop plan on a projector: 1600x1000, every slide walked with Next as a teacher would, each
fitting one screen in type a room can read, measured with the browser's computed styles."""

from __future__ import annotations

import re

import pytest

from lib.workshop_plan import bundled_plans, read_plan
from tests.browser.conftest import screenshot
from tests.browser.test_browser import _idle

from tests.browser.browser_api import expect

PROJECTOR = {"width": 1600, "height": 1000}
BODY_PX = 24
"""Paragraphs and plain text in presenter mode."""
README_SLIDE = "hengxin-r2s1"
"""The slide the README shows: round 2's request, where the resending is first seen."""
LABEL_PX = 18
"""Anything else that is text: badges, widget and metric labels, code, chart labels."""

MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const small = [], thin = [], spilled = [];
  let bottom = 0, lead = 0, largest = 0, largestText = '';
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, text = node.textContent.trim();
    const element = node.parentElement;
    if (!text || !element || element.closest('[data-testid="stIconMaterial"], [role="img"], style, script')) continue;
    const box = element.getBoundingClientRect(), look = getComputedStyle(element);
    if (!box.width || !box.height || look.visibility === 'hidden' || element.closest('[aria-hidden="true"]')) continue;
    if (element.closest('details:not([open]) > :not(summary)')) continue;
    bottom = Math.max(bottom, box.bottom + main.scrollTop);
    const size = parseFloat(look.fontSize);
    if (size < %(label)d) small.push(`${size}px: ${text.slice(0, 50)}`);
    const paragraph = element.closest('[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li, [data-testid="stText"]');
    if (paragraph && !paragraph.closest('[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], button')
        && parseFloat(getComputedStyle(paragraph).fontSize) < %(body)d) thin.push(`${getComputedStyle(paragraph).fontSize}: ${text.slice(0, 50)}`);
    const holder = element.closest('[data-testid="stElementContainer"]');
    const past = holder ? box.bottom - holder.getBoundingClientRect().bottom : 0;
    if (past > 8) spilled.push(`${past.toFixed(0)} px: ${text.slice(0, 50)}`);
    if (element.closest('[class*="st-key-slide-lead"]')) lead = Math.max(lead, size);
    else if (!element.closest('h1, h2, h3')) {
      if (size > largest) { largest = size; largestText = text.slice(0, 50); }
    }
  }
  // What the page scrolls past the screen: a box's border and padding below its last line count (a callout's last
  // 4 px were cut on slide 2 while its text fitted), as does anything drawn below the last text.
  const scrolled = main.scrollHeight - main.clientHeight;
  return {small, thin, spilled, bottom, height: window.innerHeight, scrolled, lead, largest, largestText};
}""" % {"label": LABEL_PX, "body": BODY_PX}
"""Every visible piece of text in the main area: the ones under the sizes, the ones that run past their own
element (over the next one), how far down the lowest reaches, how far the page scrolls past the screen,
the lead sentence's size and the largest other text's (headings aside)."""


def _plan():
    from lib import catalog
    from tests.conftest import load_bundled

    traces = {t.name: len(load_bundled(t.name).trace.rounds) for t in catalog.bundled_traces()}
    return read_plan(bundled_plans()["hengxin-workshop"].read_text(encoding="utf-8"), traces).plan


@pytest.fixture(scope="module")
def walked(browser, app_url):
    """The bundled plan walked once with Next at 1600x1000: each slide's measures by slide id."""
    from tests.browser.conftest import Watch, guard

    watch = Watch()
    context = browser.new_context(viewport=PROJECTOR, base_url=app_url)
    context.set_default_timeout(60_000)
    guard(context, watch)
    page = context.new_page()
    plan = _plan()
    page.goto("/?plan=hengxin-workshop")
    # The stylesheet arrives with the page's first run; measured before it applies, everything is 16 px.
    expect(page.locator('header[data-testid="stHeader"]')).to_be_hidden(timeout=30_000)
    found = {}
    for number, slide in enumerate(plan.slides, start=1):
        if number > 1:
            page.get_by_role("button", name="Next ▶", exact=True).click()
        expect(page.get_by_text(f"slide {number} of {len(plan.slides)}", exact=False)).to_be_visible()
        _idle(page)
        if slide.view in ("tokens", "diagram"):
            page.locator(".js-plotly-plot").first.wait_for()
            page.wait_for_timeout(500)
        page.mouse.move(0, 0)
        found[slide] = _laid_out(page)
        screenshot(page, f"workshop-{number:02d}-{slide.id}")
        if slide.id == README_SLIDE:
            screenshot(page, "workshop", readme=True)
    context.close()
    assert watch.remote == [], f"requests left for other hosts: {watch.remote}"
    return found


def _laid_out(page) -> dict:
    """The slide's measures once four readings 250 ms apart agree: the run's end is marked before the lazily loaded
    elements (the highlighted code blocks) are drawn, and on a busy machine a reading before them saw 5 px of scroll
    on a slide that fits with 6 px to spare."""
    measured, same = page.evaluate(MEASURE), 0
    for _ in range(40):
        page.wait_for_timeout(250)
        again = page.evaluate(MEASURE)
        same = same + 1 if again == measured else 0
        measured = again
        if same == 3:
            break
    return measured


def _overflowing(found) -> dict[str, str]:
    """Slides whose lowest text runs past the screen, or that the page scrolls: a box below the text counts too."""
    return {s.id: f"text to {v['bottom']:.0f} of {v['height']} px, scrolls {v['scrolled']} px" for s, v in found.items()
            if v["bottom"] > v["height"] or v["scrolled"] > 0}


def _sizes(found) -> tuple[dict, dict]:
    small = {s.id: v["small"] for s, v in found.items() if v["small"]}
    return small, {s.id: v["thin"] for s, v in found.items() if v["thin"]}


def test_every_slide_of_the_workshop_is_in_type_a_room_can_read(walked):
    small, thin = _sizes(walked)
    assert small == {}, f"text under {LABEL_PX} px: {small}"
    assert thin == {}, f"paragraphs under {BODY_PX} px: {thin}"
    spilled = {s.id: v["spilled"] for s, v in walked.items() if v["spilled"]}
    assert spilled == {}, f"text running over the element below it: {spilled}"


def test_tokens_dialects_diagram_gallery_and_closing_slides_fit_one_screen_their_lead_the_largest_text(walked):
    views = {s: v for s, v in walked.items() if s.view != "step"}
    assert {s.view for s in views} == {"tokens", "dialects", "diagram", "gallery", "closing"}
    assert _overflowing(views) == {}
    assert _leads_not_largest(views) == {}, "a lead sentence is not the largest text"


def test_every_step_slide_fits_one_screen_its_lead_the_largest_text(walked):
    steps = {s: v for s, v in walked.items() if s.view == "step"}
    assert {s.trace for s in steps} >= {"hengxin-expense", "pitfalls/narration-without-call"}
    assert _overflowing(steps) == {}
    assert _leads_not_largest(steps) == {}, "a lead sentence is not the largest text"


def _leads_not_largest(found) -> dict[str, tuple]:
    """Slides whose lead sentence is missing, or not larger than every other text but the heading."""
    leads = {s.id: (v["lead"], v["largest"], v["largestText"]) for s, v in found.items()}
    return {k: v for k, v in leads.items() if not v[0] or v[0] <= v[1]}


def test_the_printed_handout_shows_every_tool_definition_and_its_schema(browser, hengxin):
    from lib.export_html import handout_html

    page = browser.new_page(viewport=PROJECTOR)
    page.route("**/*", lambda found: found.abort())  # the handout loads nothing; nothing may leave
    page.set_content(handout_html(hengxin))
    page.emulate_media(media="print")
    first_page = page.locator("section.page").first
    for tool in hengxin.rounds[0].request.tools:
        expect(first_page.get_by_text(tool.description.split("\n")[0][:60], exact=False).first).to_be_visible()
        for name in tool.parameters["properties"]:
            expect(first_page.locator("pre", has_text=f'"{name}"').first).to_be_visible()
    assert len(page.pdf(format="A4")) > 1_000  # and it prints
    page.close()


FIGURES = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')].map(metric => {
  const size = selector => {
    const found = metric.querySelector(selector);
    return found ? parseFloat(getComputedStyle(found).fontSize) : null;
  };
  return {label: metric.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
          label_px: size('[data-testid="stMetricLabel"] p'), value_px: size('[data-testid="stMetricValue"] p'),
          note_px: size('[data-testid="stMetricDelta"] p')};
})"""
"""Each figure on the screen: its label, and the font sizes of its label, its value and the note under it."""


@pytest.mark.parametrize("slide", [15, 29])
def test_on_the_tokens_and_closing_slides_each_figure_is_larger_than_its_label_and_its_note(browser, app_url, slide):
    from tests.browser.conftest import Watch, guard

    context = browser.new_context(viewport=PROJECTOR, base_url=app_url)
    context.set_default_timeout(60_000)
    watch = Watch()
    guard(context, watch)
    page = context.new_page()
    page.goto(f"/?plan=hengxin-workshop&slide={slide}")
    expect(page.locator('header[data-testid="stHeader"]')).to_be_hidden(timeout=30_000)
    expect(page.get_by_text(f"slide {slide} of", exact=False)).to_be_visible()
    _idle(page)
    # A metric's code loads once the script has run: its figures are drawn a moment after the app goes idle, and on
    # a busy machine not all in the same frame.
    labels = page.locator('[data-testid="stMain"] [data-testid="stMetricLabel"]')
    for label in ("One call with the final context", "Tool list, every round"):
        expect(labels.filter(has_text=label)).to_be_visible()
    figures = page.evaluate(FIGURES)
    context.close()
    assert watch.remote == []
    assert {f["label"] for f in figures} >= {"One call with the final context", "Tool list, every round"}
    small = [f for f in figures if f["value_px"] <= max(f["label_px"], f["note_px"] or 0)]
    assert small == [], f"a figure no larger than its label or its note: {small}"


LEGEND = """() => {
  const legend = document.querySelector('[data-testid="stMain"] .js-plotly-plot .legend');
  const box = legend.querySelector('.bg').getBoundingClientRect();
  return [...legend.querySelectorAll('.legendtext')].map(text => {
    const found = text.getBoundingClientRect();
    return {text: text.textContent, inside: found.top >= box.top - 1 && found.bottom <= box.bottom + 1};
  });
}"""
"""Each entry of the slide chart's legend, and whether it lies inside the legend's box (not scrolled out of it)."""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720}, PROJECTOR])
def test_the_tokens_slide_legend_names_every_part_of_the_bars_on_a_small_projector(browser, app_url, viewport):
    # At 1280 wide the legend wrapped one entry a row and plotly scrolled the last, the hatched estimate that fills
    # most of rounds 2 to 4, out of sight behind a scrollbar.
    from tests.browser.conftest import Watch, guard

    context = browser.new_context(viewport=viewport, base_url=app_url)
    context.set_default_timeout(60_000)
    watch = Watch()
    guard(context, watch)
    page = context.new_page()
    page.goto("/?plan=hengxin-workshop&slide=15")
    expect(page.get_by_text("slide 15 of", exact=False)).to_be_visible()
    _idle(page)
    page.locator('[data-testid="stMain"] .js-plotly-plot .legendtext').first.wait_for()
    entries = page.evaluate(LEGEND)
    context.close()
    assert watch.remote == []
    assert "beyond our count as round 1 reported it (template, provider tokens)" in [e["text"] for e in entries]
    assert [e["text"] for e in entries if not e["inside"]] == []


def test_a_revealed_prediction_on_a_slide_leaves_the_models_calls_on_the_screen(page):
    # Revealed on slide 2 (Hengxin's round 1, predict mode), the score, the echo, five points and both pairs of
    # arguments filled the screen: the model's two calls, the answer the room had just predicted, began 760 px below
    # its bottom edge. The score stays in view; the point-by-point account is one click away.
    page.set_viewport_size(PROJECTOR)
    page.goto("/?plan=hengxin-workshop&slide=2&mode=present,predict")
    page.get_by_text("call a tool", exact=True).click()
    for tool in ("queryExpense", "queryTravelPolicy"):
        page.get_by_test_id("stMultiSelect").click()
        page.get_by_role("option", name=tool).click()
    page.keyboard.press("Escape")
    expect(page.locator('[data-testid="stMain"] textarea')).to_have_count(2)
    page.get_by_role("button", name="Reveal the response").click()
    expect(page.get_by_text(re.compile(r"^Your prediction: \d+ of 8 points$"))).to_be_visible()
    expect(page.get_by_text("What you said, point by point")).to_be_visible()
    call = page.get_by_text("Call queryExpense · id call_q1").first
    expect(call).to_be_visible()
    assert call.bounding_box()["y"] + call.bounding_box()["height"] <= PROJECTOR["height"]
    screenshot(page, "predict-revealed-slide")


def test_the_browsers_back_and_forward_buttons_move_between_the_slides_of_a_plan(page):
    # Back after Next left the slide on screen: Streamlit adds each slide's address to the history, but the plan kept
    # the slide of the session and wrote it back over the address Back had brought.
    page.goto("/?plan=hengxin-workshop&slide=3")
    expect(page.get_by_text("slide 3 of 29", exact=False)).to_be_visible()
    for number in (4, 5):
        page.get_by_role("button", name="Next ▶", exact=True).click()
        expect(page.get_by_text(f"slide {number} of 29", exact=False)).to_be_visible()
        # Back goes to the address before the last one written: pressed before slide 5's came (a busy machine), it
        # went to slide 3's.
        expect(page).to_have_url(re.compile(rf"slide={number}(&|$)"))
    page.go_back()
    expect(page.get_by_text("slide 4 of 29", exact=False)).to_be_visible()
    # The address is written by a message of its own after the slide's: waited for, as the text is.
    expect(page).to_have_url(re.compile(r"slide=4(&|$)"))
    page.go_back()
    expect(page.get_by_text("slide 3 of 29", exact=False)).to_be_visible()
    page.go_forward()
    expect(page.get_by_text("slide 4 of 29", exact=False)).to_be_visible()
    page.get_by_role("button", name="Next ▶", exact=True).click()  # Next goes on from the slide Back brought
    expect(page.get_by_text("slide 5 of 29", exact=False)).to_be_visible()
    expect(page).to_have_url(re.compile(r"slide=5(&|$)"))
