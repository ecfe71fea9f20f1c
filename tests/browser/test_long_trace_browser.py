"""A 1,000-round trace in a real browser: opening it and switching rounds never blocks the page's main thread
for long (issue 21), read with the Long Tasks API in Debian's Chromium.

The targets are 500 ms on first load and 200 ms on a round switch. The thresholds below are looser, for CI's
2 shared cores, where Streamlit's own start-up is tasks of 1.0 to 2.6 s on any trace, the 4-round Hengxin trace
included: most of it is evaluating the code of the elements the page uses (1.5 MB for st.code, 1.3 MB for
st.dataframe), measured here at load averages of 10 to 20. What they catch: the charts below the round sent with
the page (a task of 5.7 s at first load), a jump that reruns the whole page and redraws them (4.5 s), a sequence
diagram of every round (about a minute). The charts of a long trace are checked directly too: none is sent until
its section is opened, and one opened is not redrawn when the round moves."""

from __future__ import annotations

import re

import pytest

from bench.longtasks import long_tasks, page_clock, watch_long_tasks
from tests.browser.conftest import VIEWPORT, Watch, guard, serve_traces
from tests.synthetic import synthetic_lines

ROUNDS = 1000
FIRST_LOAD_MS = 3_000
"""Longest main-thread task allowed while the trace opens."""
SWITCH_MS = 1_500
"""Longest main-thread task allowed while another round replaces the one on screen: 500 ms failed at load
averages of 16 to 18 (tasks of 502 to 669 ms with nothing wrong); the regressions it is for take 4.5 s and more."""


@pytest.fixture(scope="module")
def long_trace_url(chromium_present, tmp_path_factory):
    """The app serving a folder that holds only a synthetic 1,000-round trace."""
    yield from serve_traces(tmp_path_factory.mktemp("long-trace"), f"synthetic-{ROUNDS}.jsonl",
                            "\n".join(synthetic_lines(ROUNDS)) + "\n")


@pytest.fixture
def long_page(browser, long_trace_url):
    watch = Watch()
    context = browser.new_context(viewport=VIEWPORT, base_url=long_trace_url)
    context.set_default_timeout(120_000)
    guard(context, watch)
    watch_long_tasks(context)
    yield context.new_page()
    context.close()
    assert watch.remote == [], f"requests left for other hosts: {watch.remote}"
HEAVY_BUNDLES = ("StreamlitSyntaxHighlighter", "DataFrame", "PlotlyChart", "ArrowVegaLiteChart", "Json")
"""Streamlit's largest lazily loaded element bundles, which a long trace's first paint must not fetch: the syntax
highlighter behind st.code (1.56 MB, a task of a second on a loaded machine), the data grid behind st.dataframe,
plotly, Vega-Lite and st.json's viewer. Each is fetched the first time a page draws its element."""
_BUNDLE = re.compile(r"/static/js/([A-Za-z]+)\.[^/]+\.js$")
CHARTS = ".st-key-explorer-overview, .st-key-explorer-tokens_chart, .st-key-explorer-sequence"
"""The explorer's table and charts below the round, by the keys Streamlit writes into their containers' classes."""


def _settled(page) -> None:
    page.locator('[data-test-script-state="notRunning"]').wait_for(state="attached")
    page.wait_for_timeout(1_000)  # a task still running when the script ends is counted too


def test_a_1000_round_trace_opens_and_switches_rounds_without_blocking_the_browser(long_page):
    long_page.goto(f"/?trace=synthetic-{ROUNDS}&round=1")
    long_page.get_by_text(re.compile(r"^Round 1: the program sends")).first.wait_for()
    _settled(long_page)
    on_load = long_tasks(long_page)
    assert max(on_load, default=0) <= FIRST_LOAD_MS, f"long tasks on first load (ms): {sorted(on_load)}"
    # The charts' element containers, there as soon as their deltas arrive, before plotly's code has even loaded.
    assert long_page.locator(CHARTS).count() == 0, "a table or chart below the round was sent before its section was opened"

    before = page_clock(long_page)
    field = long_page.get_by_label(re.compile(r"^Round \(1 to"))
    field.fill(str(ROUNDS))
    field.press("Enter")
    long_page.get_by_text(re.compile(rf"^Round {ROUNDS}: the program sends")).first.wait_for()
    _settled(long_page)
    on_switch = long_tasks(long_page, before)
    assert max(on_switch, default=0) <= SWITCH_MS, f"long tasks on a jump to round {ROUNDS} (ms): {sorted(on_switch)}"

    long_page.get_by_text("Tokens per round, as a chart").click()
    long_page.locator(".js-plotly-plot").first.wait_for()
    _settled(long_page)
    assert long_page.locator(CHARTS).count() == 1, "opening the tokens chart drew the table or the diagram too"
    before = page_clock(long_page)
    long_page.get_by_role("button", name="◀ Previous round").click()
    long_page.get_by_text(re.compile(rf"^Round {ROUNDS - 1}: the program sends")).first.wait_for()
    _settled(long_page)
    on_step = long_tasks(long_page, before)
    assert max(on_step, default=0) <= SWITCH_MS, f"long tasks on a step with the chart open (ms): {sorted(on_step)}"


def _bundles(page, requested: list[str]) -> list[str]:
    page.on("request", lambda request: requested.append(request.url))
    return requested


def _heavy(requested: list[str]) -> list[str]:
    return [found.group(1) for found in map(_BUNDLE.search, requested) if found and found.group(1) in HEAVY_BUNDLES]


def test_a_long_traces_first_load_fetches_none_of_the_heavy_element_bundles_and_colours_come_on_demand(long_page):
    requested = _bundles(long_page, [])
    long_page.goto(f"/?trace=synthetic-{ROUNDS}&round=1")
    long_page.get_by_text(re.compile(r"^Round 1: the program sends")).first.wait_for()
    _settled(long_page)
    assert any(_BUNDLE.search(url) for url in requested), "no element bundle seen: the check would see nothing"
    assert _heavy(requested) == [], "the first load fetched a heavy element bundle"
    arguments = long_page.locator('[class*="st-key-payload-"] [data-testid="stText"]').filter(has_text='{"n": 1}')
    assert arguments.first.is_visible(), "round 1's call arguments are not on screen as text"

    long_page.get_by_text("Colour and copy").click()
    long_page.locator('[data-testid="stCode"]').filter(has_text='{"n": 1}').first.wait_for()
    assert _heavy(requested) == ["StreamlitSyntaxHighlighter"], "asking for colours did not bring the highlighter"


ON_DEMAND = ("Metric", "DownloadButton")
"""Element bundles the explorer's first screen no longer needs: the round's token figures are captions (st.metric
brought its own number formatting), and the downloads wait in a popover, whose content the browser draws only once
it is opened. Streamlit shows the lazily loaded elements of a page once the last of their code has arrived, and the
download buttons', the script's last element, was the last a first load asked for."""


def test_a_long_traces_first_screen_fetches_no_metric_or_download_code_and_the_downloads_come_when_asked(long_page):
    requested = _bundles(long_page, [])
    long_page.goto(f"/?trace=synthetic-{ROUNDS}&round=1")
    long_page.get_by_text(re.compile(r"^Round 1: the program sends")).first.wait_for()
    _settled(long_page)
    fetched = {found.group(1) for found in map(_BUNDLE.search, requested) if found}
    assert "Text" in fetched, "no element bundle seen: the check would see nothing"
    assert fetched.isdisjoint(ON_DEMAND), f"the first load fetched {sorted(fetched & set(ON_DEMAND))}"
    served = [url for url in requested if re.search(r"^http://[^/]+/media/", url)]  # Streamlit's media route
    assert not served, f"the favicon travels in the page config; the first load asked for {served}"
    assert long_page.get_by_text("Input tokens (reported):").first.is_visible(), "round 1's token figures are missing"
    download = long_page.get_by_role("button", name="Download the trace as one HTML file")
    assert not download.is_visible()

    long_page.get_by_role("button", name=re.compile("Export…")).click()
    download.wait_for()
    assert long_page.get_by_role("button", name="Download a printable handout").is_visible()
