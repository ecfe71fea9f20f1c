"""Issue 15's on-screen behaviour, driven through the real app: nothing on screen surprises a user."""

import pytest

from lib.ui import live
from tests.test_live_app import open_live, press_run


@pytest.mark.parametrize("scenario", ["hengxin", "larkfield", "order-status"])
def test_each_real_provider_starts_with_a_model_of_its_own_and_the_recorded_one_is_a_note(app, scenario):
    at = open_live(app)
    at.selectbox(key=live.SCENARIO).set_value(scenario).run()
    recorded = {"hengxin": "DeepSeek-V4-Flash", "larkfield": "chat-small", "order-status": "claude-sonnet-4-6"}[scenario]
    for provider, model in (("openai", "gpt-5-mini"), ("anthropic", "claude-sonnet-4-6"), ("compatible", recorded)):
        at.radio(key=live.PROVIDER).set_value(provider).run()
        assert at.text_input(key=f"live.{scenario}.model.{provider}").value == model
        assert f"The scenario was recorded with {recorded}." in [c.value for c in at.caption]


def test_a_replay_miss_says_no_recording_matches_and_offers_the_real_providers(app):
    at = open_live(app)
    at.text_area(key="live.hengxin.question").input("How much was my last claim?").run()
    press_run(at)
    errors = [e.value for e in at.error]
    assert not any("connection failed" in e for e in errors)
    assert "No recording for this request: the replay provider answers only the requests it has recorded." in errors
    offer = next(i.value for i in at.info if "real provider" in i.value)
    assert "OpenAI" in offer and "Anthropic" in offer
    at.button(key="live.try.openai").click().run()
    assert at.radio(key=live.PROVIDER).value == "openai"


def test_the_payload_view_survives_a_page_switch_like_the_round(app):
    at = app.run()
    at.button(key="explorer.next").click().run()
    at.radio(key="explorer.view").set_value("Raw JSON").run()
    for page in ("pages/overview.py", "pages/checks.py", "pages/annotate.py", "pages/live.py"):
        at.switch_page(page).run()
        at.switch_page("pages/explorer.py").run()
        assert not at.exception
        assert at.number_input(key="explorer.round").value == 2
        assert at.radio(key="explorer.view").value == "Raw JSON", page


def test_a_deep_link_to_an_unknown_trace_says_so_and_opens_the_first_at_round_1(app):
    app.query_params.update({"trace": "does-not-exist", "round": "99"})
    at = app.run()
    assert not at.exception
    warned = [w.value for w in at.warning]
    assert "The link asks for a trace that was not found. Showing the first bundled trace from round 1:" in warned
    shown = [t.value for t in at.main.text]
    assert "Hengxin expense reimbursement" in shown and "does-not-exist" in shown  # a trace's title and the link: text
    assert at.number_input(key="explorer.round").value == 1
    assert not any("round 99" in w for w in warned)


def test_a_deep_link_to_a_misspelt_trace_offers_the_nearest_name(app):
    app.query_params.update({"trace": "larkfield-get-ordr"})
    at = app.run()
    assert any(t.value.startswith("Larkfield") for t in at.main.text)  # the nearest trace's title, as text
    at.button(key="sidebar.nearest_trace").click().run()
    assert not at.exception
    assert at.selectbox(key="sidebar.trace").value == "larkfield-get-order"


@pytest.mark.parametrize("asked, shown, said", [
    ("99", 4, "The link asks for round 99, but this trace has 4 rounds: showing round 4, the last."),
    ("0", 1, "The link asks for round 0; rounds count from 1: showing round 1."),
    ("two", 1, "The link's round is not a whole number: showing round 1."),
])
def test_a_deep_link_to_a_round_out_of_range_says_so_and_opens_the_closest(app, asked, shown, said):
    app.query_params.update({"trace": "hengxin-expense", "round": asked})
    at = app.run()
    assert not at.exception
    assert said in [w.value for w in at.warning]
    assert at.number_input(key="explorer.round").value == shown


def test_a_deep_link_in_range_opens_its_round_and_warns_of_nothing(app):
    app.query_params.update({"trace": "hengxin-expense", "round": "3"})
    at = app.run()
    assert at.number_input(key="explorer.round").value == 3
    assert not at.warning


def _uploader(at):
    (found,) = at.sidebar.get("file_uploader")
    return found


def test_an_upload_after_back_to_the_bundled_traces_is_a_trace_of_its_own(app):
    from tests.test_app_upload import FIXTURES

    at = app.run()
    _uploader(at).upload("first.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes())
    at.run()
    assert at.selectbox(key="sidebar.trace").value == "(your upload)"
    assert at.selectbox(key="sidebar.trace").format_func("(your upload)") == "Your upload: first.jsonl"
    at.button(key="sidebar.close_upload").click().run()
    assert at.selectbox(key="sidebar.trace").value == "hengxin-expense"
    assert _uploader(at).value in (None, [])
    _uploader(at).upload("second.jsonl", (FIXTURES / "anthropic-pairs.jsonl").read_bytes())
    at.run()
    assert not at.exception
    texts = [t.value for t in at.main.text]
    assert any(t.startswith("second.jsonl · ") for t in texts)
    assert not any("2 files" in t or "first.jsonl" in t for t in texts)
    assert at.selectbox(key="sidebar.trace").format_func(at.selectbox(key="sidebar.trace").value) == \
        "Your upload: second.jsonl"


def test_the_trace_box_names_the_upload_on_screen_and_a_bundled_pick_closes_it(app):
    from tests.test_app_upload import FIXTURES

    at = app.run()
    at.selectbox(key="sidebar.trace").set_value("larkfield-get-order").run()
    _uploader(at).upload("mine.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes())
    at.run()
    assert at.selectbox(key="sidebar.trace").value == "(your upload)"
    at.selectbox(key="sidebar.trace").set_value("loan-calculator").run()
    assert not at.exception
    assert "Loan payment calculator" in [t.value for t in at.main.text]
    assert _uploader(at).value in (None, [])


def _picture(at):
    import json

    return next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Program" in c.proto.spec)


def test_the_pictures_window_follows_the_round_being_viewed(app):
    from tests.synthetic import synthetic_lines

    at = app.run()
    _uploader(at).upload("long.jsonl", "\n".join(synthetic_lines(30)).encode())
    at.run()
    assert _picture(at)["layout"]["title"]["text"] == "Rounds 1 to 12 of 30"
    at.number_input(key="explorer.round").set_value(14).run()
    assert not at.exception
    assert _picture(at)["layout"]["title"]["text"] == "Rounds 13 to 24 of 30"
    at.number_input(key="explorer.round").set_value(27).run()
    assert _picture(at)["layout"]["title"]["text"] == "Rounds 19 to 30 of 30"
    at.button(key="explorer.previous").click().run()  # still inside the window: it stays
    assert _picture(at)["layout"]["title"]["text"] == "Rounds 19 to 30 of 30"


def test_a_forced_wrong_format_never_says_lines_were_read_that_were_skipped(app):
    from tests.test_app_upload import FIXTURES

    at = app.run()
    _uploader(at).upload("pairs.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes())
    at.run()
    at.selectbox(key="sidebar.format").set_value("anthropic-messages").run()
    sidebar = [t.value for t in at.sidebar.text]
    assert any(t.startswith("4 lines tried as anthropic-messages, your choice: 0 read, 4 skipped.") for t in sidebar)
    assert not any("read as anthropic-messages" in t for t in sidebar)


def test_the_rounds_table_has_no_latency_column_of_none_when_no_call_was_timed(app):
    at = app.run()
    at.switch_page("pages/overview.py").run()
    table = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert "latency ms" not in table.columns
    assert "None" not in table.astype(str).to_string()


def test_a_timed_log_shows_its_latency(app):
    from tests.test_app_upload import FIXTURES

    at = app.run()
    _uploader(at).upload("pairs.jsonl", (FIXTURES / "openai-pairs.jsonl").read_bytes())
    at.run()
    at.switch_page("pages/overview.py").run()
    table = next(d.value for d in at.dataframe if "tokens in" in d.value.columns)
    assert list(table["latency ms"]) == [812, 701]


def test_chart_legends_sit_above_the_plot_clear_of_the_round_axis_title(hengxin):
    from lib.summary import summarize
    from lib.tokens import CHARACTER_COUNTER
    from lib.ui import charts

    rows = summarize(hengxin, CHARACTER_COUNTER)
    for figure in (charts.tokens_per_round(rows), charts.input_breakdown(rows), charts.messages_per_round(rows),
                   charts.cumulative_input(rows)):
        assert figure.layout.xaxis.title.text == "round"
        assert figure.layout.legend.orientation == "h" and figure.layout.legend.y > 1
        assert figure.layout.legend.yanchor == "bottom"


def test_an_article_fits_the_word_after_it():
    from lib.logs.upload import read_upload
    from lib.text import with_article
    import json

    assert [with_article(w) for w in ("Anthropic Messages", "OpenAI Chat Completions", "Ollama /api/chat",
                                       "Google Gemini generateContent")] == [
        "an Anthropic Messages", "an OpenAI Chat Completions", "an Ollama /api/chat", "a Google Gemini generateContent"]
    body = {"model": "llama3", "created_at": "2024-01-01T00:00:00Z", "message": {"role": "assistant", "content": "hi"},
            "done": True, "done_reason": "stop", "prompt_eval_count": 3, "eval_count": 1}
    upload = read_upload([("x.jsonl", json.dumps({"response": body}).encode())], None)
    assert upload.formats["ollama"][1].startswith("an Ollama /api/chat response under 'response'")



def _round_after_the_box_is_dropped() -> None:
    import streamlit as st

    from lib.ui import explorer, state
    loaded = state.load_bundled("hengxin-expense")
    if "shown" not in st.session_state:
        st.session_state["shown"] = explorer.current_round(loaded)
        st.session_state[state.ROUND] = 3  # the user moves on to round 3
        explorer.current_round(loaded)
        del st.session_state[state.ROUND]  # what Streamlit does to a widget's value a page switch left behind
    st.text(f"round {explorer.current_round(loaded)}")


def test_the_round_survives_a_page_switch_that_drops_the_round_boxs_value():
    """Streamlit clears the widgets a page switch leaves behind when the switch interrupts a run before the app
    could keep them (seen in Chromium on a busy machine): the explorer comes back on the same round, not round 1."""
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_function(_round_after_the_box_is_dropped).run()
    assert not at.exception
    assert [t.value for t in at.text] == ["round 3"]
