"""The round explorer, driven through the real app with AppTest on the real bundled traces."""

import gzip
import json
import re

from streamlit.testing.v1 import AppTest

from lib import catalog
from lib.sequence import sequence
from tests.conftest import ROOT, load_bundled
from tests.screen import figures, screen, uploaded

STEP_NAMES = {1: "Request sent", 2: "Call intent", 3: "Program executes", 4: "Result appended", 5: "Model answers"}


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _shown(at) -> str:
    """Our words (markdown) and the trace's (text), in page order by kind."""
    return _markdown(at) + "\n" + "\n".join(t.value for t in at.main.text)


def _texts(at) -> list[str]:
    return [t.value for t in at.main.text]


def _steps_shown(at) -> set[int]:
    return {n for n, name in STEP_NAMES.items() if f"Step {n} · {name}" in _markdown(at)}


def _heading(at) -> str:
    return next(s.value for s in at.subheader if s.value.startswith("Round "))


def _overview(at):
    return next(d.value for d in at.dataframe if "messages sent" in d.value.columns)


def test_payloads_are_plain_text_until_colours_are_asked_for_then_the_same_text_is_highlighted(app):
    app.query_params["round"] = "2"
    at = app.run()
    arguments = '{"actual_amount": 3860.00, "limit_amount": 3800.00}'
    assert arguments in _texts(at) and not at.main.code  # no highlighter on the page until asked for
    at.toggle(key="explorer.highlight").set_value(True).run()
    assert arguments in [c.value for c in at.main.code] and arguments not in _texts(at)
    assert next(c for c in at.main.code if c.value == arguments).language == "json"
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/explorer.py").run()
    assert arguments in [c.value for c in at.main.code]  # the choice outlasts a visit to another page


def test_the_app_opens_on_hengxin_round_1_without_a_click(app):
    at = app.run()
    assert not at.exception
    assert "Hengxin expense reimbursement" in _texts(at)  # the title, as text
    assert _heading(at) == "Round 1: the program sends 2 messages, 2 of them new"
    assert at.number_input(key="explorer.round").value == 1
    assert figures(at)["Input tokens (reported)"].value == "1,247"


def test_stepping_through_hengxin_shows_the_growth_and_the_steps(app):
    at = app.run()
    seen = []
    for k in range(1, 5):
        seen.append((_heading(at), _steps_shown(at)))
        if k < 4:
            at.button(key="explorer.next").click().run()
    assert [h for h, _ in seen] == [
        "Round 1: the program sends 2 messages, 2 of them new",
        "Round 2: the program sends 5 messages, 3 of them new",
        "Round 3: the program sends 7 messages, 2 of them new",
        "Round 4: the program sends 9 messages, 2 of them new",
    ]
    assert [steps for _, steps in seen] == [{1, 2, 3}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 4, 5}]
    assert at.button(key="explorer.next").disabled
    assert any(t.startswith("4 tools resent unchanged") for t in _texts(at))
    assert any("7 messages resent unchanged" in e.label for e in at.expander)
    assert at.query_params["round"] == ["4"] or at.query_params["round"] == "4"


def test_an_address_the_browsers_back_button_brings_opens_its_round_and_trace(app):
    # The browser's Back reruns the page with the address before: the explorer wrote its own round over it.
    at = app.run()
    for _ in range(2):
        at.button(key="explorer.next").click().run()
    assert _heading(at).startswith("Round 3:")
    at.query_params["round"] = "2"  # Back
    at.run()
    assert _heading(at) == "Round 2: the program sends 5 messages, 3 of them new"
    assert at.number_input(key="explorer.round").value == 2
    at.button(key="explorer.next").click().run()  # Next goes on from the round Back brought
    assert _heading(at).startswith("Round 3:")
    at.selectbox(key="sidebar.trace").set_value("larkfield-get-order").run()
    assert at.query_params["trace"] in ("larkfield-get-order", ["larkfield-get-order"])
    assert _heading(at).startswith("Round 1:")
    at.query_params["trace"], at.query_params["round"] = "hengxin-expense", "3"  # Back, to the trace before
    at.run()
    assert at.selectbox(key="sidebar.trace").value == "hengxin-expense"
    assert _heading(at) == "Round 3: the program sends 7 messages, 2 of them new"


def test_back_to_an_uploads_address_after_another_trace_was_picked_says_the_upload_is_closed(app):
    # Picking a bundled trace closes the upload (its files go): Back to the upload's address cannot show it again, and
    # its round is the upload's, not the trace's now on screen.
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("hengxin.jsonl", (ROOT / "traces" / "hengxin-expense.jsonl").read_bytes())
    at.run()
    at.button(key="explorer.next").click().run()
    at.button(key="explorer.next").click().run()
    assert _heading(at).startswith("Round 3:")
    upload_address = {key: at.query_params[key] for key in ("upload", "round")}
    at.selectbox(key="sidebar.trace").set_value("larkfield-get-order").run()
    assert _heading(at).startswith("Round 1:")
    at.query_params.pop("trace")
    at.query_params.update(upload_address)  # Back, to the upload's address
    at.run()
    assert not at.exception
    assert any("closed when another trace was picked" in w.value for w in at.warning)
    assert at.selectbox(key="sidebar.trace").value == "larkfield-get-order"
    assert _heading(at).startswith("Round 1:")  # not the upload's round 3
    assert at.query_params.get("trace") in ("larkfield-get-order", ["larkfield-get-order"])


def test_back_to_an_uploads_address_while_another_upload_is_open_says_the_first_is_closed(app):
    # A second upload closes the first: Back to the first's address applied its round to the second, silently.
    at = app.run()
    uploader = at.file_uploader(key="sidebar.upload")
    uploader.upload("hengxin.jsonl", (ROOT / "traces" / "hengxin-expense.jsonl").read_bytes())
    at.run()
    at.button(key="explorer.next").click().run()
    at.button(key="explorer.next").click().run()
    first = {key: at.query_params[key] for key in ("upload", "round")}
    at.file_uploader(key="sidebar.upload").clear().run()
    at.sidebar.file_uploader[0].upload("loan.jsonl", (ROOT / "traces" / "loan-calculator.jsonl").read_bytes())
    at.run()
    assert _heading(at).startswith("Round 1:") and at.query_params["upload"] != first["upload"]
    at.query_params.update(first)  # Back, to the first upload's address at its round 3
    at.run()
    assert not at.exception
    assert any("closed when another trace was picked" in w.value for w in at.warning)
    assert _heading(at).startswith("Round 1:")


def test_a_round_the_page_did_not_write_stays_when_the_address_is_unchanged(app):
    # A rerun with the address as the page left it (a widget, a page's own rerun) is no Back: the round box decides.
    app.query_params["round"] = "2"
    at = app.run()
    at.number_input(key="explorer.round").set_value(4).run()
    assert _heading(at).startswith("Round 4:")
    at.run()
    assert _heading(at).startswith("Round 4:")


def test_the_overview_table_lists_every_round(app):
    at = app.run()
    table = _overview(at)
    assert table["messages sent"].tolist() == [2, 5, 7, 9]
    assert table["new messages"].tolist() == [2, 3, 2, 2]
    assert table["tool calls"].tolist() == [2, 1, 1, 0]
    assert table["finish reason"].tolist() == ["tool_calls", "tool_calls", "tool_calls", "stop"]
    assert table["tokens are"].tolist() == ["reported", "estimated", "estimated", "estimated"]
    assert table["tokens in"][0] == 1247 and table["tokens out"][0] == 58
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {trace["name"] for trace in chart["data"]}
    assert names == {"input (reported)", "input (estimated)", "output (reported)", "output (estimated)"}


def test_the_program_lane_says_the_model_never_sees_it(app):
    at = app.run()
    captions = "\n".join(c.value for c in at.caption)
    assert "invisible to the model" in captions
    assert "Appended to round 2's request as messages[3].content." in captions


def test_a_deep_link_opens_the_anthropic_trace_at_round_2_with_both_results_paired(app):
    app.query_params["trace"] = "order-status-anthropic"
    app.query_params["round"] = "2"
    at = app.run()
    assert not at.exception
    assert _heading(at) == "Round 2: the program sends 3 messages, 2 of them new"
    shown = _shown(at)
    for call_id in ("toolu_01A9kXq3vTn8RcW2mLp5dYh7", "toolu_01Fm4Rz8KwQ2nVb6TxJc9sLd"):
        assert f"result for get_order_status ({call_id}, called in round 1)" in shown
    assert "messages[2].content[0]" in shown and "messages[2].content[1]" in shown
    assert _steps_shown(at) == {1, 4, 5}


def test_the_raw_json_view_shows_the_real_payload_with_step_paths(app):
    at = app.run()
    at.radio(key="explorer.view").set_value("Raw JSON").run()
    bodies = [json.loads(j.value) for j in at.json]
    assert bodies[0]["messages"][0]["role"] == "system"
    assert bodies[1]["usage"] == {"prompt_tokens": 1247, "completion_tokens": 58, "total_tokens": 1305}
    paths = {p for d in at.dataframe if "JSON path" in d.value.columns for p in d.value["JSON path"]}
    assert {"tools", "choices[0].message.tool_calls[0]", "choices[0].finish_reason"} <= paths


def test_an_uploaded_native_file_opens_and_its_bad_lines_are_named(app):
    at = app.run()
    lines = (catalog.TRACES_DIR / "loan-calculator.jsonl").read_text().splitlines()
    broken = "\n".join([lines[0], lines[1], '{"kind": "round", "index": 2, "request": ', lines[2]]).encode()
    at.file_uploader(key="sidebar.upload").upload("mine.jsonl", broken).run()
    assert not at.exception
    assert "Loan payment calculator" in _texts(at)
    summary = " ".join(t.value for t in at.sidebar.text)
    assert "4 lines: 2 rounds in 1 conversation; 1 line skipped" in summary
    problems = " ".join(t.value for t in at.sidebar.text)
    assert re.search(r"line 3: is not valid JSON", problems)
    assert "line 4: has index 2 where 2" not in problems
    assert _overview(at)["round"].tolist() == [1, 2]


def test_payload_text_is_shown_exactly_as_sent_and_estimates_say_so(app):
    app.query_params["round"] = "2"
    at = app.run()
    payloads = _texts(at)
    assert '{"actual_amount": 3860.00, "limit_amount": 3800.00}' in payloads
    assert any('"amount": 3860.00' in t for t in payloads)
    metric = next(f for f in figures(at).values() if f.label.startswith("Input tokens"))
    assert metric.label == "Input tokens (estimated)" and metric.value.startswith("≈ ")
    assert int(metric.value[2:].replace(",", "")) > 1247
    assert "Anchored on round 1" in metric.help


def test_a_pitfall_shows_its_badge_on_the_offending_message(app):
    app.query_params["trace"] = "pitfalls/unanswered-parallel-call"
    app.query_params["round"] = "2"
    at = app.run()
    assert not at.exception
    shown = _markdown(at)
    assert "missing-tool-result" in shown and "provider-error" in shown
    card = next(e for e in at.expander if e.label.startswith("Checks on this round"))
    assert "round 2 request messages[2].tool_calls[1]" in " ".join(t.value for t in card.text)


def test_a_long_traces_picture_is_drawn_twelve_rounds_at_a_time_from_any_round(app):
    from tests.synthetic import synthetic_lines

    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("long.jsonl", "\n".join(synthetic_lines(30)).encode()).run()
    assert not at.exception

    def picture():
        return next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Program" in c.proto.spec)

    assert picture()["layout"]["title"]["text"] == "Rounds 1 to 12 of 30"
    at.number_input(key="explorer.sequence_from").set_value(19).run()
    figure = picture()
    assert figure["layout"]["title"]["text"] == "Rounds 19 to 30 of 30"
    rounds = [a["text"] for a in figure["layout"]["annotations"] if a.get("text", "").startswith("<b>Round")]
    assert rounds[0] == "<b>Round 19</b>" and rounds[-1] == "<b>Round 30</b>"


def test_a_narration_that_ends_the_loop_is_not_labelled_as_the_model_answering(app):
    app.query_params["trace"] = "pitfalls/narration-without-call"
    at = app.run()
    assert not at.exception
    shown = _markdown(at)
    assert "Step 5 · Narration without a call" in shown and "Step 5 · Model answers" not in shown
    assert "the text announces an action, it does not answer" in _shown(at)


def test_a_round_completed_by_the_trace_builder_says_so_next_to_the_payload(app):
    app.query_params["round"] = "2"
    at = app.run()
    captions = [c.value for c in at.caption]
    assert "Completed from a partial record: parts of this payload were added, not recorded." in captions
    assert not any(c.startswith("As recorded") for c in captions)
    assert any("added its envelope" in t for t in _texts(at))
    at.radio(key="explorer.view").set_value("Both dialects").run()
    captions = [c.value for c in at.caption]
    assert "As recorded: the real payload." not in captions
    assert "Completed from a partial record: parts of this payload were added, not recorded." in captions


def test_the_pitfall_gallery_says_it_was_constructed_for_teaching(app):
    app.query_params["trace"] = "pitfalls/unanswered-parallel-call"
    at = app.run()
    assert "Constructed for teaching: not a recording." in [c.value for c in at.caption]


def test_a_pitfall_says_once_that_it_was_constructed_for_teaching(app):
    # The origin line and the trace's own provenance note both said it, one under the other.
    app.query_params["trace"] = "pitfalls/unanswered-parallel-call"
    at = app.run()
    assert screen(at).count("Constructed for teaching") == 1


def _open_long_trace(app, rounds: int):
    from tests.synthetic import synthetic_lines

    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("long.jsonl", "\n".join(synthetic_lines(rounds)).encode()).run()
    assert not at.exception
    return at


def test_a_long_traces_charts_wait_below_the_round_until_their_section_is_opened(app):
    at = _open_long_trace(app, 61)
    assert at.get("plotly_chart") == []  # nothing below the fold for the browser to draw on every load
    assert {"Every round in a table (61 rows)", "Tokens per round, as a chart",
            "The sequence diagram, 12 rounds at a time"} <= {e.label for e in at.expander}
    assert not any("messages sent" in d.value.columns for d in at.dataframe)

    at.session_state["explorer.overview_open"] = True
    at.run()
    assert _overview(at)["round"].tolist() == list(range(1, 62))

    at.session_state["explorer.tokens_chart_open"] = True
    at.run()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert [{t["name"] for t in chart["data"]} for chart in charts] == [{"input (reported)", "output (reported)"}]


def test_a_long_traces_diagram_opens_on_the_window_of_the_round_on_screen(app):
    at = _open_long_trace(app, 61)
    at.number_input(key="explorer.round").set_value(50).run()
    assert at.get("plotly_chart") == []
    at.session_state["explorer.sequence_open"] = True
    at.run()
    picture = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Program" in c.proto.spec)
    assert picture["layout"]["title"]["text"] == "Rounds 49 to 60 of 61"
    at.number_input(key="explorer.round").set_value(61).run()
    picture = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Program" in c.proto.spec)
    assert picture["layout"]["title"]["text"] == "Rounds 50 to 61 of 61"


def test_the_resent_messages_table_is_sent_only_once_opened(app):
    app.query_params["round"] = "4"
    at = app.run()
    assert any("7 messages resent unchanged (messages[0] to messages[6])" == e.label for e in at.expander)
    assert not any("path" in d.value.columns for d in at.dataframe)  # a collapsed table costs every round switch
    at.session_state["cards.resent_open"] = True
    at.run()
    table = next(d.value for d in at.dataframe if "path" in d.value.columns)
    assert table["path"].tolist() == [f"messages[{i}]" for i in range(7)]
    assert table["role"].tolist()[:2] == ["system", "user"]


def test_the_tool_definitions_are_sent_only_once_opened(app):
    # Closed, Hengxin's four tools were still sent and laid out on every round: a name, a description and the
    # parameters each, twelve elements no one sees.
    at = app.run()
    assert "Tool definitions: what the model reads" in [e.label for e in at.expander]
    assert "queryTravelPolicy" not in _texts(at)
    at.session_state["cards.tools_open"] = True
    at.run()
    assert {"queryExpense", "queryTravelPolicy", "calcAmountOver", "createExpenseSupplement"} <= set(_texts(at))
    assert any(t.startswith("Query the bank's current travel expense standards") for t in _texts(at))


def _navigator_data(at) -> list[dict]:
    """What the round navigator was given on the last run: its component's line of JSON, and the condensed rounds'
    after it when they were sent."""
    found = []
    for element in at.get("bidi_component"):
        head, _, rounds = element.proto.bytes.partition(b"\n")
        found.append(json.loads(head) | (json.loads(gzip.decompress(rounds)) if rounds else {}))
    return found


def test_a_long_trace_gets_a_round_navigator_sent_every_round_once_then_only_the_round(app):
    at = _open_long_trace(app, 61)
    (first,) = _navigator_data(at)
    assert first["round"] == 1 and len(first["rounds"]) == 61
    assert first["rounds"][60]["heading"] == "Round 61: the program sends 122 messages, 2 of them new"
    at.number_input(key="explorer.round").set_value(61).run()
    # The browser holds the rounds since the first run: a switch sends the round on screen, not the trace again.
    assert _navigator_data(at) == [{"trace": first["trace"], "round": 61}]


def test_every_session_gets_a_long_traces_rounds_as_the_json_made_once_for_the_trace():
    # Given a dict, Streamlit serialized the rounds on every session's first run, twice (to send them, and sorted, to
    # name the element): 430 KB of JSON per visitor for a 1,000-round trace, in the process serving the page its code.
    sessions = [_open_long_trace(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), 61) for _ in range(2)]
    given = [next(iter(at.get("bidi_component"))).proto for at in sessions]
    assert [proto.WhichOneof("data") for proto in given] == ["bytes", "bytes"]
    head, _, rounds = given[0].bytes.partition(b"\n")
    assert given[0].bytes == given[1].bytes and json.loads(head)["round"] == 1


def test_a_long_traces_rounds_reach_the_browser_compressed_to_a_small_part_of_their_json():
    # The browser reads a websocket message on its main thread, between the tasks that draw the round: 400 KB of JSON
    # for the 1,000-round trace arrived 0.3 to 0.6 s after it left, and the page settled only after it (issue 21).
    at = _open_long_trace(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60), 61)
    _, _, rounds = next(iter(at.get("bidi_component"))).proto.bytes.partition(b"\n")
    assert len(rounds) * 5 < len(gzip.decompress(rounds))


def test_a_short_trace_gets_no_round_navigator(app):
    at = app.run()
    assert not at.exception and _navigator_data(at) == []


def test_predict_mode_gets_no_round_navigator_on_a_long_trace(app):
    app.query_params["mode"] = "predict"
    at = _open_long_trace(app, 61)
    assert any(e.value.startswith("Round 1:") for e in at.subheader)
    assert _navigator_data(at) == []  # it holds every response: it would give the predictions away


def test_a_request_that_extends_a_response_held_by_the_provider_is_not_said_to_resend_it(app):
    # The Responses API chain: round 2 sends previous_response_id, its instructions and two tool results; the
    # provider holds the question and the model's turn. The cards under the heading must say so, as the heading does.
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key="explorer.round").set_value(2).run()
    assert not at.exception
    assert "2 earlier messages held by the provider" in _heading(at)
    labels = [e.label for e in at.expander]
    assert "2 earlier messages held by the provider (messages[1] to messages[2]), not sent in this request" in labels
    assert "1 message resent unchanged (messages[0])" in labels  # the instructions do go out again
    assert not any("2 messages resent unchanged" in label for label in labels)


SYSTEM_CARD = "**system** (a top-level field, outside the messages array)"


def test_the_top_level_system_field_is_marked_new_resent_or_changed_as_presenter_mode_marks_it(app):
    # Anthropic's system prompt is a field of the request, not a message. Round 1's card said nothing of it being new
    # (presenter mode said "new this round"), and a changed one read as if nothing had happened to it.
    app.query_params["trace"] = "order-status-anthropic"
    at = app.run()
    assert f"{SYSTEM_CARD} · :green-badge[new this round]" in _markdown(at)
    at.number_input(key="explorer.round").set_value(2).run()
    assert f"{SYSTEM_CARD} · resent unchanged" in _markdown(at)
    text = (ROOT / "traces" / "order-status-anthropic.jsonl").read_text()
    first, second, rest = text.split("\n", 2)
    changed = second + "\n" + rest.replace('"system": "You are the support assistant of an online shop.',
                                           '"system": "You are the friendly support assistant of an online shop.', 1)
    at.file_uploader(key="sidebar.upload").upload("changed-system.jsonl", (first + "\n" + changed).encode())
    at.run()
    at.number_input(key="explorer.round").set_value(2).run()
    assert not at.exception
    assert f"{SYSTEM_CARD} · :orange-badge[changed since the previous request]" in _markdown(at)


def test_a_call_whose_arguments_the_program_rejected_is_shown_refused_not_run_by_a_handler(app):
    # Pitfall 2: book_room's arguments failed the schema, so the program answered with the problems and ran nothing.
    # Its step 3 said "failed", "Arguments the handler received" and, in the picture, "runs book_room".
    app.query_params["trace"] = "pitfalls/invalid-arguments-corrected"
    at = app.run()
    assert not at.exception
    shown = _shown(at)
    assert ":red-badge[refused: not run]" in shown and ":red-badge[failed]" not in shown
    captions = [c.value for c in at.main.caption]
    assert "The call's arguments (no handler ran)" in captions and "Arguments the handler received" not in captions
    assert "tool book_room · call call_Wd4nHq8TzL1vBx6KmR3cPs9Y" in _texts(at)  # no handler, no handler's 2 ms
    labels = [a.label for a in sequence(load_bundled("pitfalls/invalid-arguments-corrected").trace)]
    assert labels.count("refuses book_room") == 1 and labels.count("runs book_room") == 1  # round 2's call ran
