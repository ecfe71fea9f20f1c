"""The app in a real browser: what a learner in a workshop sees, clicks and downloads.

Chromium (Debian's) runs the real frontend against `streamlit run`, so these catch what AppTest
cannot: the sidebar's real file chooser, CSS that hides the sidebar, markup a browser would run,
requests a page would send off the machine, a downloaded file opened offline.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

import pytest

from lib import catalog
from lib.ui.share import EXPORT
from tests.browser.conftest import OUTPUT, Watch, guard, on_loopback, screenshot
from tests.hostile import HOSTILE, hostile_trace

from tests.browser.browser_api import expect

SIDEBAR = 'section[data-testid="stSidebar"]'
OWNED = "<script>window.__owned = 'script'</script> <img src=x onerror=\"window.__owned = 'img'\">"
"""Markup that, if a browser ever ran it, would leave a mark we can read."""


def _idle(page) -> None:
    """Wait until the app has finished its script run (Streamlit marks the app element)."""
    page.locator('[data-test-script-state="notRunning"]').wait_for(state="attached")


def _round_heading(page, text: str):
    heading = page.get_by_role("heading", name=text)
    expect(heading).to_be_visible(timeout=30_000)  # a fresh server's first run, on a busy machine
    return heading


def _to_top(locator) -> None:
    # Streamlit's main area scrolls inside its own container; bring a heading to the top of it.
    locator.evaluate("element => element.scrollIntoView({block: 'start'})")


def _step_labels(page) -> list[str]:
    """The step badges on screen, as `N · Title`."""
    found = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"]').all_inner_texts()
    return [f"{m.group(1)} · {m.group(2)}" for text in found
            for m in [re.search(r"Step (\d) · (Request sent|Call intent|Program executes|Result appended|Model answers)",
                                text)] if m]


def test_the_explorer_opens_on_hengxin_and_steps_to_round_2(page):
    page.goto("/?trace=hengxin-expense&round=1")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    expect(page.get_by_text("1,247").first).to_be_visible()
    page.get_by_role("button", name="Next round ▶", exact=True).click()
    heading = _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    _idle(page)
    expect(page.get_by_text(re.compile(r"^2 messages resent unchanged"))).to_be_visible()
    assert "round=2" in page.url
    _to_top(heading)
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    screenshot(page, "explorer", readme=True)


def test_the_browsers_back_and_forward_buttons_go_through_the_rounds_and_traces_shown(page):
    # Back after Next left the round on screen: Streamlit adds each round's address to the history, but the explorer
    # kept the round of the session and wrote it back over the address Back had brought.
    page.goto("/?trace=hengxin-expense&round=1")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    for heading, address in (("Round 2: the program sends 5 messages, 3 of them new", "round=2"),
                             ("Round 3: the program sends 7 messages, 2 of them new", "round=3")):
        page.get_by_role("button", name="Next round ▶", exact=True).click()
        _round_heading(page, heading)
        expect(page).to_have_url(re.compile(rf"{address}(&|$)"))  # Back goes to the address before the last written
    page.go_back()
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    expect(page).to_have_url(re.compile(r"round=2(&|$)"))
    page.go_forward()
    _round_heading(page, "Round 3: the program sends 7 messages, 2 of them new")
    expect(page).to_have_url(re.compile(r"round=3(&|$)"))
    # Another trace picked in the sidebar is one address (its round 1), and Back returns to Hengxin's round 3.
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="Larkfield", exact=False).first.click()
    expect(page).to_have_url(re.compile(r"trace=larkfield-get-order"))
    _round_heading(page, "Round 1: the program sends")
    page.get_by_role("button", name="Next round ▶", exact=True).click()
    _round_heading(page, "Round 2: the program sends")
    expect(page).to_have_url(re.compile(r"round=2(&|$)"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"round=1(&|$)"))
    _round_heading(page, "Round 1: the program sends")
    page.go_back()
    expect(page).to_have_url(re.compile(r"trace=hengxin-expense"))
    _round_heading(page, "Round 3: the program sends 7 messages, 2 of them new")
    page.get_by_role("button", name="Next round ▶", exact=True).click()  # Next goes on from the round Back brought
    _round_heading(page, "Round 4: the program sends")


def test_a_first_visit_adds_one_address_to_the_history_so_the_first_back_leaves_round_1(page):
    # The trace written first and round 1 after it made two addresses: Back from round 2 reached round 1, and the
    # next Back showed round 1 again instead of the page the visitor came from.
    page.goto("/")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    _idle(page)
    expect(page).to_have_url(re.compile(r"trace=hengxin-expense&round=1$"))
    visited = page.evaluate("history.length")
    page.get_by_role("button", name="Next round ▶", exact=True).click()
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    _idle(page)
    assert page.evaluate("history.length") == visited + 1
    # The blank page the browser opened with, the address typed, and the app's one address for round 1.
    assert visited == 3
    page.go_back()
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")


def test_a_page_opened_from_the_sidebar_is_one_entry_in_the_history(page):
    # Streamlit empties the address on a page switch; the trace the page wrote back made an entry at the explorer's
    # path (its round lost), then Streamlit one at the page's: Back showed the explorer, and the next Back the same.
    page.goto("/?trace=hengxin-expense&round=1")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    page.get_by_role("button", name="Next round ▶", exact=True).click()
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    _idle(page)
    before = page.evaluate("history.length")
    page.locator(SIDEBAR).get_by_text("Tokens and cost").click()
    expect(page.get_by_role("heading", name="Where each round's input goes")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/overview\?trace=hengxin-expense"))
    _idle(page)
    assert page.evaluate("history.length") == before + 1
    page.go_back()
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    page.go_back()
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")


def test_compares_row_is_not_taken_for_a_round_on_the_page_opened_after_it(page):
    # The address put back on a page opened from the sidebar is a trace page's: Compare's `round` is a row of its
    # alignment, and the explorer read it as a link's round (or warned that "the link asks for round 7").
    page.goto("/compare?compare=hengxin-expense,loan-calculator")
    row = page.get_by_label("Row")
    expect(row).to_be_visible(timeout=30_000)
    row.fill("3")
    row.press("Enter")
    expect(page).to_have_url(re.compile(r"round=3"))
    _idle(page)
    page.locator(SIDEBAR).get_by_text("Round explorer").click()
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    _idle(page)
    expect(page).not_to_have_url(re.compile(r"compare="))
    expect(page.get_by_text("The link asks for round")).to_have_count(0)


def test_the_token_breakdown_page_draws_its_charts(page):
    page.goto("/?trace=hengxin-expense")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    page.locator(SIDEBAR).get_by_text("Tokens and cost").click()
    heading = page.get_by_role("heading", name="Where each round's input goes")
    expect(heading).to_be_visible()
    _idle(page)
    # plotly's bundle loads with the first chart a fresh server draws: seconds on a busy machine.
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Input billed over all calls")).to_be_visible()
    _to_top(heading)
    page.wait_for_timeout(500)
    screenshot(page, "tokens", readme=True)


HENGXIN_WALK = [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4),
                (4, 1), (4, 5)]
TITLES = {1: "① Request sent", 2: "② Call intent", 3: "③ Program executes",
          4: "④ Result appended", 5: "⑤ Model answers"}


def test_presenter_mode_steps_to_round_4_and_reads_the_step_labels(page):
    page.goto("/?trace=hengxin-expense&mode=present")
    labels = {}
    for number, (round_, step) in enumerate(HENGXIN_WALK):
        if number:
            page.get_by_role("button", name="Next ▶", exact=True).click()
        expect(page).to_have_url(re.compile(rf"round={round_}&step={step}|step={step}.*round={round_}"))
        expect(page.get_by_role("heading", name=TITLES[step])).to_be_visible()
        expect(page.get_by_text(f"round {round_} of 4")).to_be_visible()
        _idle(page)
        labels[(round_, step)] = _step_labels(page)
        if (round_, step) == (1, 2):
            expect(page.get_by_text("queryTravelPolicy").first).to_be_visible()
            page.mouse.move(0, 0)  # a hovered button looks pressed
            screenshot(page, "presenter", readme=True)
        screenshot(page, f"presenter-round{round_}-step{step}")
    expect(page.locator(SIDEBAR)).to_be_hidden()
    expect(page.get_by_role("button", name="Next ▶", exact=True)).to_be_disabled()
    assert labels[(1, 2)] == ["2 · Call intent"] * 3  # two calls and the finish reason
    assert labels[(1, 3)] == ["3 · Program executes"] * 2
    assert labels[(3, 4)] == ["4 · Result appended"]
    # Request 4's new messages are the ones steps 2 and 4 of round 3 already showed: collapsed, labels and all.
    assert labels[(4, 1)] == ["1 · Request sent"]
    assert labels[(4, 5)] == ["5 · Model answers"]
    # The type is a presenter's: body text well above Streamlit's 16 px.
    size = page.get_by_text("round 4 of 4").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 22


def test_a_deep_link_opens_round_3_step_4_in_presenter_mode(page):
    page.goto("/?trace=hengxin-expense&round=3&step=4&mode=present")
    expect(page.get_by_role("heading", name=TITLES[4])).to_be_visible()
    expect(page.get_by_text("round 3 of 4")).to_be_visible()
    _idle(page)
    assert _step_labels(page) == ["4 · Result appended"]
    expect(page.locator(SIDEBAR)).to_be_hidden()


def test_the_browsers_back_button_goes_to_the_step_before_in_presenter_mode(page):
    # A room's teacher pressed Back and the step stayed: presenter mode wrote its own position over the address Back
    # brought, and a step across rounds wrote two addresses (the round, then the step).
    page.goto("/?trace=hengxin-expense&round=1&step=3&mode=present")
    expect(page.get_by_role("heading", name=TITLES[3])).to_be_visible()
    page.get_by_role("button", name="Next ▶", exact=True).click()
    expect(page).to_have_url(re.compile(r"round=1&step=4"))
    page.get_by_role("button", name="Next ▶", exact=True).click()
    expect(page).to_have_url(re.compile(r"round=2&step=1"))
    expect(page.get_by_text("round 2 of 4")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(re.compile(r"round=1&step=4"))
    expect(page.get_by_role("heading", name=TITLES[4])).to_be_visible()
    expect(page.get_by_text("round 1 of 4")).to_be_visible()
    page.go_back()
    expect(page.get_by_role("heading", name=TITLES[3])).to_be_visible()
    page.go_forward()
    expect(page.get_by_role("heading", name=TITLES[4])).to_be_visible()


def test_the_browsers_back_button_leaves_presenter_mode_for_the_explorer(page):
    # Back after Present was switched on kept the slide: the switch held its session value and wrote `mode=present`
    # back over the address Back had brought; switching it on added two addresses (the mode, then the step).
    page.goto("/?trace=hengxin-expense&round=2")
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    _idle(page)
    before = page.evaluate("history.length")
    page.get_by_text("Present", exact=True).click()
    expect(page.get_by_text("round 2 of 4")).to_be_visible()
    expect(page).to_have_url(re.compile(r"round=2.*mode=present|mode=present.*round=2"))
    _idle(page)
    assert page.evaluate("history.length") == before + 1
    page.go_back()
    _round_heading(page, "Round 2: the program sends 5 messages, 3 of them new")
    expect(page).not_to_have_url(re.compile(r"mode=present"))
    page.go_forward()
    expect(page.get_by_text("round 2 of 4")).to_be_visible()
    expect(page).to_have_url(re.compile(r"mode=present"))


def test_a_jsonl_file_uploads_through_the_real_file_chooser(page, tmp_path):
    lines = (catalog.TRACES_DIR / "loan-calculator.jsonl").read_text().splitlines()
    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join([lines[0], lines[1], '{"kind": "round", "index": 2, "request": ', lines[2]]) + "\n")
    page.goto("/")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    with page.expect_file_chooser() as chosen:
        page.locator(SIDEBAR).get_by_role("button", name="Upload", exact=True).click()
    assert chosen.value.element.evaluate(f"e => e.type === 'file' && !!e.closest('{SIDEBAR}')")
    chosen.value.set_files(str(mine))
    expect(page.get_by_text("Loan payment calculator", exact=True)).to_be_visible()
    expect(page.locator(SIDEBAR).get_by_text("2 rounds in 1 conversation; 1 line skipped")).to_be_visible()
    screenshot(page, "upload")


@pytest.mark.parametrize("name, unit", [("inspect-arithmetic-with-tool.eval", "samples"),
                                        ("pydantic-ai-openai-tool-calls.yaml", "interactions"),
                                        ("openai-tool-calls.har", "entries"), ("swe-agent-test-repo.traj", "documents")])
def test_a_whole_document_log_uploads_through_the_real_file_chooser(page, name, unit):
    # The uploader refuses a suffix missing from its type list ("application/x-yaml files are not allowed").
    fixture = Path(__file__).parent.parent / "fixtures" / "containers" / name
    page.goto("/")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    page.locator(f'{SIDEBAR} input[type="file"]').set_input_files(str(fixture))
    expect(page.locator(SIDEBAR).get_by_text(f"0 {unit} skipped")).to_be_visible(timeout=60_000)  # a loaded machine reruns slowly
    expect(page.locator(SIDEBAR).get_by_text("files are not allowed")).to_have_count(0)


def _owned(page) -> object:
    return page.evaluate("() => window.__owned ?? null")


def _trace_links(page) -> list[str]:
    """Every link and image address on the page that is not the app's own: a loopback URL or an in-page #anchor."""
    # HTML links and images, and SVG ones (plotly draws the sequence diagram's labels in SVG, where an <a> or an
    # <image> carries xlink:href).
    found = page.evaluate("""() => [...document.querySelectorAll('a, img, image, iframe, link, source')]
        .flatMap(e => ['href', 'src', 'xlink:href'].map(name => e.getAttribute(name)).filter(url => url))""")
    ours = ("#", "data:", "blob:")  # in-page anchors, and the favicon and chart images the app makes itself
    return [url for url in found if not url.startswith(ours) and not on_loopback(urljoin(page.url, url))
            or any(marker in url for marker in ("evil.example", "tracker.example"))]


def _walk_views(page, hostile: Path):
    """The hostile trace opened, then every page and view, each named as it is reached: the trace is
    `hostile_trace(written=True)`, whose round 3 writes a command in its text named with a bidi control, a script
    and a remote image, which the cards, the raw JSON and the presenter's steps 2 to 4 each show."""
    page.goto("/")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    page.locator(f'{SIDEBAR} input[type="file"]').set_input_files(str(hostile))
    # Hengxin's round 1 also sends 2 messages: wait for the hostile trace's own text.
    expect(page.get_by_text(OWNED).first).to_be_attached(timeout=30_000)  # the markup is there, as text
    expect(page.get_by_text("Round 1: the program sends 2 messages, 2 of them new")).to_be_visible()
    _idle(page)
    yield "explorer, round 1, cards"
    for round_, heading in ((1, None), (2, "Round 2: the program sends 4 messages, 2 of them new"),
                            (3, "Round 3: the program sends 6 messages, 2 of them new"),
                            (4, "Round 4: the program sends 8 messages, 2 of them new")):
        if heading:
            page.get_by_role("button", name="Next round ▶", exact=True).click()
            expect(page.get_by_text(heading)).to_be_visible()
            _idle(page)
        for view in ("Raw JSON", "Both dialects", "Cards"):
            page.get_by_text(view, exact=True).click()
            _idle(page)
            yield f"explorer, round {round_}, {view}"
    screenshot(page, "hostile-explorer")
    page.get_by_role("button", name="◀ Previous round", exact=True).click()  # round 4 failed: nothing to predict
    expect(page.get_by_text("Round 3: the program sends 6 messages, 2 of them new")).to_be_visible()
    page.get_by_text("Predict", exact=True).click()
    # Round 1 is still to predict: predict mode holds the explorer there (round 2's request carries its answer).
    expect(page.get_by_text("What will the model do with request 1?")).to_be_visible()
    _idle(page)
    yield "predict mode"
    page.get_by_text("Predict", exact=True).click()  # predict mode off: back on round 3, where it held the explorer
    expect(page.get_by_text("Round 3: the program sends 6 messages, 2 of them new")).to_be_visible()
    _idle(page)
    page.get_by_text("Present", exact=True).click()
    expect(page.get_by_role("heading", name=TITLES[1])).to_be_visible()
    expect(page.get_by_text("round 3 of 4")).to_be_visible()
    _idle(page)
    # Every step of every round: back from round 3's request to round 1's, then forward through the command round 3
    # wrote in its text (steps 2 to 4) to the failed call.
    back = [(2, 5), (2, 1), (1, 4), (1, 3), (1, 2), (1, 1)]
    forward = [(1, 2), (1, 3), (1, 4), (2, 1), (2, 5), (3, 1), (3, 2), (3, 3), (3, 4), (4, 1), (4, 2)]
    walk = [("◀ Previous", at) for at in back] + [("Next ▶", at) for at in forward]
    for button, (round_, step) in walk:
        page.get_by_role("button", name=button, exact=True).click()
        # Round 2's finish_reason is the hostile text, no stop the loop knows: the cards label no answer on it.
        title = {(4, 2): "② The provider refuses the call",
                 (2, 5): "⑤ The model stops without an answer or a call"}.get((round_, step), TITLES[step])
        expect(page.get_by_role("heading", name=title)).to_be_visible()
        expect(page.get_by_text(f"round {round_} of 4")).to_be_visible()
        _idle(page)
        yield f"presenter, round {round_} step {step}"
    screenshot(page, "hostile-presenter")
    page.get_by_text("Present", exact=True).click()
    _idle(page)
    for title, heading in (("Tokens and cost", "Where each round's input goes"), ("Checks", "Checks"),
                           ("Annotate", "Annotate")):
        page.locator(SIDEBAR).get_by_text(title, exact=True).click()
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        _idle(page)
        yield title
    page.get_by_role("button", name="Import them").click()
    expect(page.get_by_text("Imported 1 note.", exact=True)).to_be_visible(timeout=30_000)
    _idle(page)
    yield "Annotate, with the note"
    page.get_by_role("combobox", name="About").click()  # a selectbox's options hold tool names and ids: open its list
    expect(page.get_by_text(re.compile(r"\d+ options? available"))).to_be_attached()  # the list's live region
    page.wait_for_timeout(300)
    yield "Annotate, the About list open"


def test_a_hostile_trace_runs_nothing_opens_no_dialog_loads_nothing_remote_and_links_nowhere(page, watch: Watch,
                                                                                              tmp_path):
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(hostile_trace(f"{HOSTILE} {OWNED}", written=True))
    walked = []
    for where in _walk_views(page, hostile):
        assert _trace_links(page) == [], where
        assert watch.remote == [], where
        walked.append(where)
    assert len(walked) == 1 + 12 + 1 + 17 + 3 + 2
    page.wait_for_timeout(500)  # an onerror handler or a late script would have run by now

    assert _owned(page) is None
    assert watch.dialogs == []
    assert watch.remote == []


def _download(page, label: str, where: Path) -> Path:
    button = page.get_by_role("button", name=label)
    if not button.is_visible():  # the downloads are drawn once their popover is opened
        page.get_by_role("button", name=re.compile(re.escape(EXPORT))).click()
    with page.expect_download() as started:
        button.click()
    target = where / started.value.suggested_filename
    started.value.save_as(target)
    return target


def test_the_exported_file_of_an_upload_with_a_line_it_could_not_read_says_so_as_the_checks_page_does(page, tmp_path):
    # A Claude Code session whose tool_result line (line 8) was cut short: the Checks page says a part of the file could
    # not be read and may be what a finding says is missing; the file handed out said only the finding.
    lines = (Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.233.jsonl").read_bytes().splitlines(keepends=True)
    lines[7] = lines[7][:120] + b"\n"
    session = tmp_path / "session.jsonl"
    session.write_bytes(b"".join(lines))
    page.goto("/")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    page.locator(f'{SIDEBAR} input[type="file"]').set_input_files(str(session))
    expect(page.locator(SIDEBAR).get_by_text("1 line skipped")).to_be_visible(timeout=60_000)
    _idle(page)
    text = _download(page, "Download the trace as one HTML file", tmp_path).read_text(encoding="utf-8")
    assert "This transcript records no result for the Bash call" in text
    assert ("The file had 1 part that could not be read (the sidebar lists it): what it held is in no round here, so a "
            "finding that something is missing may be about it.") in text


def test_the_exported_hengxin_file_shows_all_4_rounds_offline(page, browser, tmp_path):
    page.goto("/?trace=hengxin-expense")
    _round_heading(page, "Round 1: the program sends 2 messages, 2 of them new")
    exported = _download(page, "Download the trace as one HTML file", tmp_path)
    assert exported.name == "hengxin-expense.html"
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / exported.name).write_bytes(exported.read_bytes())

    offline, watch = browser.new_context(offline=True, viewport={"width": 1280, "height": 900}), Watch()
    guard(offline, watch, allowed=lambda url: url == exported.as_uri())
    try:
        opened = offline.new_page()
        opened.on("dialog", lambda dialog: (watch.dialogs.append(dialog.message), dialog.dismiss()))
        opened.goto(exported.as_uri())
        rounds = opened.locator("section.round")
        expect(rounds).to_have_count(4)
        for k, sent in zip(range(1, 5), (2, 5, 7, 9)):
            expect(opened.get_by_role("heading", name=re.compile(rf"^Round {k}: the program sends {sent} messages"))).to_be_visible()
        expect(opened.get_by_text("Tokens: 1,247 in, 58 out, as the API reported them.")).to_be_visible()
        opened.screenshot(path=str(OUTPUT / "exported-hengxin.png"))
        assert opened.evaluate("() => document.scripts.length") == 0
    finally:
        offline.close()
    assert watch.remote == [] and watch.dialogs == []


def test_the_exported_hostile_file_and_handout_run_nothing(page, browser, tmp_path):
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_bytes(hostile_trace(f"{HOSTILE} {OWNED}", written=True))
    page.goto("/")
    page.locator(f'{SIDEBAR} input[type="file"]').set_input_files(str(hostile))
    expect(page.get_by_text(OWNED).first).to_be_attached(timeout=30_000)
    _idle(page)
    files = [_download(page, "Download the trace as one HTML file", tmp_path),
             _download(page, "Download a printable handout", tmp_path)]
    offline, watch = browser.new_context(offline=True), Watch()
    guard(offline, watch, allowed=lambda url: url.startswith("file:"))
    try:
        for exported in files:
            opened = offline.new_page()
            opened.on("dialog", lambda dialog: (watch.dialogs.append(dialog.message), dialog.dismiss()))
            opened.goto(exported.as_uri())
            expect(opened.get_by_text(OWNED).first).to_be_visible()
            opened.wait_for_timeout(300)
            assert _owned(opened) is None
            assert json.loads(opened.evaluate("() => JSON.stringify([document.images.length, document.scripts.length])")) == [0, 0]
    finally:
        offline.close()
    assert watch.remote == [] and watch.dialogs == []


def _opened_alone(browser, exported: Path):
    """The file in a context of its own where every request but the file itself is refused and recorded,
    and every navigation of the page is recorded."""
    context, watch = browser.new_context(), Watch()
    guard(context, watch, allowed=lambda url: url == exported.as_uri())
    opened = context.new_page()
    navigated: list[str] = []
    opened.on("framenavigated", lambda frame: navigated.append(frame.url))
    opened.on("dialog", lambda dialog: (watch.dialogs.append(dialog.message), dialog.dismiss()))
    opened.goto(exported.as_uri())
    return context, opened, watch, navigated


def test_the_exported_file_and_handout_of_a_hostile_trace_request_nothing_and_go_nowhere(browser, tmp_path):
    """Every string field of the trace carries images, links, raw HTML and a meta refresh; the error's HTTP
    status carries the refresh too, as a model object may hold it whatever the reader made of the line."""
    from dataclasses import replace

    from lib.export_html import handout_html, trace_html
    from tests.hostile import META

    trace = catalog.load_bytes(hostile_trace(f"{HOSTILE} {OWNED}", written=True), "hostile.jsonl").trace
    last = trace.rounds[-1]
    trace = replace(trace, rounds=(*trace.rounds[:-1], replace(last, error=replace(last.error, status=META))))
    files = []
    for name, page_text in (("hostile.html", trace_html(trace)), ("hostile.handout.html", handout_html(trace))):
        files.append(tmp_path / name)
        files[-1].write_text(page_text, encoding="utf-8")
    for exported in files:
        context, opened, watch, navigated = _opened_alone(browser, exported)
        try:
            expect(opened.get_by_text(OWNED).first).to_be_visible()
            opened.wait_for_timeout(1500)  # a refresh of 0 seconds, or a late load, would have gone by now
            assert opened.url == exported.as_uri()
            assert navigated == [exported.as_uri()]
            assert watch.remote == [] and watch.dialogs == []
            assert _owned(opened) is None
            assert json.loads(opened.evaluate("() => JSON.stringify([document.images.length, document.scripts.length,"
                                              " document.links.length])")) == [0, 0, 0]
        finally:
            context.close()


def test_a_link_to_the_fork_page_opens_the_round_it_names(page):
    # /fork?trace=…&round=3 opened round 1 to fork: the Fork page read only the round the explorer had set, and a
    # visitor who follows the link never saw the explorer.
    page.goto("/fork?trace=hengxin-expense&round=3")
    field = page.get_by_label("Fork from round")
    expect(field).to_have_value("3")
