"""A request the log holds no response to: whether the provider billed it is not in the log, so every figure that
sums billed calls leaves it out, as the cost does, and says so where the figure is shown.

The trace is the bundled Larkfield ticket cut after round 2's request, as a log that ends mid-call reads: round 1
reported 2,043 in and 21 out (US$0.00021 at chat-small's price), round 2's request was sent and nothing came back.
"""

import json
import subprocess
import sys

import pytest

from lib import catalog, library
from lib.export_html import trace_html
from lib.library_search import LibraryQuery, search
from lib.summary import summarize
from lib.tokens import CHARACTER_COUNTER
from tests.databases import database_url, postgres_url, sqlite_url, store  # noqa: F401 (fixtures)
from tests.screen import FIXTURES, figures, screen

NO_RESPONSE = ("Round 2 has no response in the log: whether the provider billed it, the log does not say, so it is "
               "left out of the input billed, as of the output and the cost.")
"""Under the input billed so far: which round, and why."""
LEFT_OUT = "1 call not known, left out."
"""Beneath the input billed and beneath the cost: one wording, as the output and the Library say it."""
BILLING = "The log holds no response to this call, so it does not say whether the provider billed it."
"""Beside the round's own input, on every view of the round."""


def _cut() -> bytes:
    """larkfield-get-order.jsonl with round 2's response (and what the program did with it) cut off."""
    lines = []
    for line in (catalog.TRACES_DIR / "larkfield-get-order.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "round" and record["index"] == 2:
            line = json.dumps({"kind": "round", "index": 2, "request": record["request"]})
        lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def _tokens_page(app):
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("larkfield-cut.jsonl", _cut())
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    return at


def test_the_input_billed_leaves_out_the_unanswered_call_as_the_cost_does(app):
    at = _tokens_page(app)
    metrics = {m.label: m for m in at.metric}
    # Round 1's 2,043 alone: the cost prices round 1 alone, so the input billed sums the same calls.
    billed = metrics["Input billed over all calls"]
    assert billed.value == "2,043"
    assert billed.help.startswith("2 calls, of which 1 is in this sum; 21 (1 call not known, left out) out.")
    assert ("1 call has no response in the log: whether it was billed is not in the log, so it is in no sum."
            in billed.help)
    assert metrics["Cost of the whole trace"].value == "US$0.00021"
    captions = [c.value for c in at.caption]
    assert captions.count(LEFT_OUT) == 2  # beneath the input billed and beneath the cost
    assert NO_RESPONSE in captions
    assert "4,196" not in screen(at)  # 2,043 + round 2's 2,153 counted: a sum no bill is known to hold


def test_the_input_billed_so_far_has_no_point_for_the_unanswered_call(app):
    at = _tokens_page(app)
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "input billed so far" in c.proto.spec)
    series = {s["name"]: (s["x"], s["y"]) for s in chart["data"]}
    assert series["input billed so far"] == ([1], [2043])
    # Its context was sent: drawn as the context, never added to what was billed.
    assert series["this round's context in one call"] == ([1, 2], [2043, 2153])


def test_the_rounds_table_and_its_csv_give_the_unanswered_calls_input_and_no_cost(app):
    at = _tokens_page(app)
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens in"].tolist() == [2043, 2153]
    assert rounds["tokens out"].tolist() == ["21", "not in the log"]
    assert rounds["cost USD"].isna().tolist() == [False, True]


def test_the_explorer_says_beside_the_rounds_input_that_its_billing_is_not_in_the_log(app):
    from lib.ui import state

    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("larkfield-cut.jsonl", _cut())
    at.run()
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = figures(at)
    assert shown["Input tokens (estimated)"].value == "≈ 2,153"
    assert BILLING in shown["Input tokens (estimated)"].help


def test_summarize_json_gives_no_billed_input_for_the_unanswered_call_and_says_why(tmp_path):
    cut = tmp_path / "larkfield-cut.jsonl"
    cut.write_bytes(_cut())
    done = subprocess.run([sys.executable, "-m", "lib", "summarize", str(cut), "--json"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rounds = json.loads(done.stdout)["conversations"][0]["rounds"]
    assert [(r["usage"]["input"], r["usage"]["billed_input"], r["usage"]["billing"]) for r in rounds] == [
        (2043, 2043, None), (2153, None, BILLING)]


def test_the_html_export_says_beside_the_rounds_input_that_its_billing_is_not_in_the_log():
    trace = catalog.load_bytes(_cut(), "larkfield-cut.jsonl").trace
    page = trace_html(trace, summarize(trace, CHARACTER_COUNTER))
    assert page.count(BILLING) == 1


def test_the_library_keeps_the_same_sums_the_tokens_page_shows(store):  # noqa: F811 (fixture)
    loaded = catalog.load_bytes(_cut(), "larkfield-cut.jsonl")
    library.save(store, loaded.trace, source="upload")
    [row] = search(store, LibraryQuery()).rows
    # Round 1 alone, in and out, and its cost: the unanswered call is left out of both, in the Tokens page's words.
    assert row.tokens_words == "2,064 (1 call not known, left out)"
    assert row.cost_words == "US$0.00021 (1 call not known, left out)"


@pytest.mark.parametrize("fixture, out, reasoning", [("gemini.jsonl", [322, 117], [292, 107])])
def test_gemini_thought_tokens_are_output_on_the_tokens_page_as_openai_reasoning_is(app, fixture, out, reasoning):
    # usageMetadata's thoughtsTokenCount (292) is billed as output beside candidatesTokenCount (30): the table's
    # tokens out hold both, and its reasoning column gives the thoughts, as for OpenAI's reasoning_tokens.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload(fixture, (FIXTURES / fixture).read_bytes())
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert rounds["tokens out"].tolist() == out and rounds["reasoning"].tolist() == reasoning
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert f" {sum(out):,} out." in billed.help  # the output summed is the thoughts and the answer alike


def test_the_counter_on_the_rounds_slide_does_not_say_the_unanswered_requests_tool_list_was_paid_for():
    from lib.slide_words import snowball, tools_line

    trace = catalog.load_bytes(_cut(), "larkfield-cut.jsonl").trace
    rows = summarize(trace, CHARACTER_COUNTER)
    said = tools_line(snowball(trace, rows, 2))
    assert "paid for" not in said
    assert said.endswith("resent unchanged; the log holds no response to this call, so it does not say whether the "
                         "provider billed it")


def test_compare_says_beside_the_unanswered_rounds_cost_why_it_is_not_known(app):
    # Larkfield beside its cut copy, round 2: the cut one's cost read "not known" with no word of why.
    from lib.ui import picker, state

    files = [("larkfield-cut.jsonl", _cut())]
    app.session_state[picker.FILES] = files
    app.session_state[picker.FILES_DIGEST] = state.files_digest(files)
    app.query_params.update({"compare": "larkfield-get-order,upload:0", "round": "2"})
    at = app.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    cost = next(m for m in at.metric if m.label.startswith("Cost USD, right"))
    assert cost.value == "not known"
    assert cost.help == ("The right call has no response in the log, so it does not say whether the provider billed "
                         "it: its cost is not known.")
