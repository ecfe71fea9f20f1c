"""The Compare page, driven through the real app with AppTest on the real bundled traces."""

import re

import pandas as pd

from lib import library
from lib.store import open_store
from lib.ui import compare, picker, state
from tests.conftest import load_bundled
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.screen import FIXTURES, uploaded
from tests.synthetic import synthetic_log


def _open(app, link: str | None = None, row: str | None = None):
    if link is not None:
        app.query_params["compare"] = link
    if row is not None:
        app.query_params["round"] = row
    at = app.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    return at


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _texts(at) -> list[str]:
    return [t.value for t in at.main.text]


def test_a_link_opens_two_bundled_runs_with_totals_verdicts_and_the_first_divergence_in_detail(app):
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer")
    totals = _table(at, "findings")
    assert list(totals["name"]) == ["hengxin-expense", "pitfalls/empty-result-invented-answer"]
    assert list(totals["rounds"]) == [4, 2] and list(totals["tool calls"]) == [4, 1]
    assert at.info[0].value == "The runs first diverge at row 1: left round 1, right round 1."
    rounds = _table(at, "verdict")
    assert list(rounds["verdict"])[1:3] == ["only in the left run (removed)"] * 2
    assert [s.value for s in at.subheader] == ["Row 1: left round 1, right round 1"]
    assert any("different calls: queryExpense, queryTravelPolicy → find_orders" in t for t in _texts(at))
    messages = _table(at, "entry")
    assert "user: Has my order LK-204117 shipped yet?" in list(messages["right"])
    assert "model-filled-identity" in list(_table(at, "only in the left")["only in the left"])
    assert at.query_params["compare"] == "hengxin-expense,pitfalls/empty-result-invented-answer"


def test_the_browsers_back_button_brings_back_the_row_and_the_pair_it_showed(app):
    # Back reruns the page with the address before; the page kept its own row and pair and wrote them over it.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="2")
    at.number_input(key="compare.row").set_value(4).run()
    assert [s.value for s in at.subheader] == ["Row 4: left round 4, right round 2"]
    at.query_params["round"] = "2"  # Back
    at.run()
    assert at.number_input(key="compare.row").value == 2
    at.selectbox(key=compare.RIGHT).set_value("loan-calculator").run()
    assert at.query_params["compare"] == "hengxin-expense,loan-calculator"
    at.query_params["compare"], at.query_params["round"] = "hengxin-expense,pitfalls/empty-result-invented-answer", "3"
    at.run()  # Back, to the pair before
    assert at.selectbox(key=compare.RIGHT).value == "pitfalls/empty-result-invented-answer"
    assert at.number_input(key="compare.row").value == 3


def test_the_links_row_opens_that_pair_with_the_results_and_the_finish(app):
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="4")
    assert at.number_input(key="compare.row").value == 4
    assert [s.value for s in at.subheader] == ["Row 4: left round 4, right round 2"]
    results = next(d.value for d in at.dataframe if list(d.value.columns) == ["left", "right"])
    # Each side's stop signal as its payload writes it: Hengxin's `finish_reason` is "stop", not our "end".
    assert "finish_reason: stop" in list(results["left"]) and "finish_reason: stop" in list(results["right"])
    assert at.metric[0].label.startswith("Input tokens, right (left: ≈ 1,523)")  # estimated, as the Tokens page says


def test_a_rounds_figures_are_marked_as_estimates_and_a_missing_price_is_said_as_the_totals_say_it(app):
    # Hengxin's round 1 reported its usage; round 2's is our estimate; DeepSeek-V4-Flash has no price.
    at = _open(app, "hengxin-expense,hengxin-expense", row="2")
    figures = {m.label: m.value for m in at.metric}
    assert figures["Input tokens, right (left: ≈ 1,378)"] == "≈ 1,378"
    assert figures["Cost USD, right"] == "no price"
    rows = _table(at, "verdict")
    assert list(rows["tokens in, left"])[:2] == ["1,247", "≈ 1,378"]


def test_the_calls_are_shown_as_the_model_wrote_them_not_rewritten_with_sorted_keys(app):
    # Hengxin's round 1: the model wrote {"job_level": "P6", "city_tier": "2"}; a page headed "as the model reads it"
    # showed {"city_tier": "2", "job_level": "P6"}, the canonical form the two runs are only compared by.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="1")
    calls = _table(at, "arguments changed")
    assert list(calls["left"]) == ['call queryExpense {"user_id": "E10238", "status": "submitted"}',
                                   'call queryTravelPolicy {"job_level": "P6", "city_tier": "2"}']
    assert list(calls["right"])[0] == 'call find_orders {"order_id":"LK-204117"}'


def test_a_run_compared_with_itself_is_the_same_in_every_round(app):
    at = _open(app, "hengxin-expense,hengxin-expense")
    assert at.success[0].value == "The runs say the same in every round."
    assert set(_table(at, "verdict")["verdict"]) == {"same"}
    assert set(_table(at, "entry")["entry"]) == {"same"}


def test_a_link_naming_a_missing_run_says_so_and_shows_the_first_trace(app):
    at = _open(app, "hengxin-expense,no-such-trace")
    assert "The link asks for a run that was not found" in at.warning[0].value
    assert "no-such-trace" in _texts(at)
    assert at.selectbox(key="compare.right").value == "pitfalls/empty-result-invented-answer"  # the default


def test_two_conversations_of_one_upload_can_be_compared(app):
    files = [("log.jsonl", synthetic_log(2, 3))]
    app.session_state[picker.FILES] = files
    app.session_state[picker.FILES_DIGEST] = state.files_digest(files)
    at = _open(app, "upload:0,upload:1")
    assert list(_table(at, "findings")["name"]) == ["log.jsonl · conversation 1", "log.jsonl · conversation 2"]
    assert at.selectbox(key="compare.left").value == "upload:0"
    assert len(_table(at, "verdict")) == 3


def test_each_sides_finish_is_named_by_its_own_dialects_field_and_value(app):
    at = _open(app, "order-status-anthropic,hengxin-expense", row="1")
    results = next(d.value for d in at.dataframe if list(d.value.columns) == ["left", "right"])
    assert "stop_reason: tool_use" in list(results["left"]) and "finish_reason: tool_calls" in list(results["right"])


def test_the_totals_say_no_price_and_mark_estimated_tokens_as_the_tokens_page_does(app):
    # hermes-agent's transcript names kimi-k2.6, which the price table lacks, and reports no usage: every token is
    # our estimate. The Tokens page says "no price" and "≈"; the Compare totals must say the same of the same run.
    at = uploaded(app, "sharegpt-hermes-agent.jsonl")
    at.switch_page("pages/overview.py").run()
    billed = {m.label: m.value for m in at.metric}["Input billed over all calls"]
    assert billed.startswith("≈ ")
    assert {m.label: m.value for m in at.metric}["Cost of the whole trace"] == "no price"
    at.query_params["compare"] = "upload:0,upload:0"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    totals = _table(at, "findings")
    assert list(totals["cost USD"]) == ["no price", "no price"]
    assert list(totals["tokens in"]) == [billed, billed]
    assert all(str(out).startswith("≈ ") for out in totals["tokens out"])


def test_a_rounds_cost_is_written_as_the_totals_write_it(app):
    # Row 4 pairs Hengxin's round 4 with round 2 of a run whose model has a price; both rounds' tokens are our
    # counts, so both the round's cost and the run's total are estimates, and say so.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="4")
    cost = next(m for m in at.metric if m.label == "Cost USD, right")
    assert re.fullmatch(r"≈ US\$\d+\.\d{5}", cost.value), cost.value
    assert re.fullmatch(r"≈ US\$\d+\.\d{5}", list(_table(at, "cost USD")["cost USD"])[1])


def test_a_cost_difference_taken_from_estimates_is_marked_as_one(app):
    # Both pitfall runs have a priced model and report no usage: both costs, and their difference, are our counts.
    at = _open(app, "pitfalls/empty-result-invented-answer,pitfalls/model-filled-employee-id", row="1")
    cost = next(m for m in at.metric if m.label == "Cost USD, right")
    assert cost.value.startswith("≈ US$") and cost.delta.startswith("≈ "), (cost.value, cost.delta)


def test_the_pair_shows_what_each_model_wrote_when_the_verdict_says_the_answers_differ(app):
    # Row 4: Hengxin's answer about the filed supplement beside the pitfall's invented shipping date. The verdict
    # says "different answer text"; a reader must be able to read both answers there, not only be told they differ.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="4")
    assert "different answer text" in " ".join(_texts(at))
    written = _table(at, "what the left model wrote")
    assert any("supplementary reimbursement form has been submitted" in str(t) for t in written["what the left model wrote"])
    assert any("shipped on 18 November 2026" in str(t) for t in written["what the right model wrote"])


def test_a_token_delta_with_an_estimate_on_either_side_is_marked_as_an_estimate(app):
    # A difference taken from an estimate is an estimate: Hengxin's round 4 and the pitfall's round 2 are both our
    # counts, and row 1 sets Hengxin's reported input against the pitfall's estimate. Each is marked ≈.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="4")
    shown = next(m for m in at.metric if m.label.startswith("Input tokens, right"))
    assert shown.label.startswith("Input tokens, right (left: ≈ 1,523)") and shown.delta.startswith("≈ -")
    deltas = list(_table(at, "Δ tokens in")["Δ tokens in"])
    assert deltas[0] == "≈ -1,116"  # Hengxin's reported 1,247 against the pitfall's estimated ≈ 131
    assert str(deltas[3]).startswith("≈ -")


def _cells(table) -> dict[str, list[str]]:
    """Each column's cells as the browser writes them: a missing value as the table's placeholder."""
    return {column: [table.proto.placeholder if pd.isna(v) else str(v) for v in table.value[column]]
            for column in table.value.columns}


def test_a_side_a_round_lacks_reads_as_a_dash_not_as_none(app):
    # Hengxin's rounds 2 and 3 have no counterpart in the pitfall: the table said "None" where the round would be,
    # and the pair's calls, results and messages said "None" where a side has nothing.
    at = _open(app, "hengxin-expense,pitfalls/empty-result-invented-answer", row="4")
    tools = _cells(next(d for d in at.dataframe if "change" in d.value.columns))
    assert "–" in tools["left"] + tools["right"] and "" not in tools["left"] + tools["right"]
    rounds = _cells(next(d for d in at.dataframe if "verdict" in d.value.columns))
    assert rounds["right round"][:4] == ["1", "–", "–", "2"]
    assert rounds["tokens in, right"][1:3] == ["–", "–"]
    shown = [cell for d in at.dataframe for cells in _cells(d).values() for cell in cells]
    assert "None" not in shown and "<NA>" not in shown and "nan" not in shown and "1.0" not in shown


def test_a_round_only_one_run_has_keeps_the_round_numbers_a_column_of_numbers():
    # A dash written into the data made a column of numbers and text: Streamlit converted it with a pyarrow
    # traceback in the server's log on every visit to Compare.
    from lib.ui.compare import _dashed
    frame = _dashed([{"left round": 2, "right round": None, "verdict": "only in the left run (removed)"},
                     {"left round": 3, "right round": 2, "verdict": "same"}])
    assert str(frame["right round"].dtype) == "Int64" and str(frame["left round"].dtype) == "Int64"
    assert frame["verdict"].tolist() == ["only in the left run (removed)", "same"]


def test_compare_opens_on_the_upload_the_user_was_reading_named_by_its_file(app):
    # A new user uploaded a log, read it, then opened Compare: the left run was still the bundled Hengxin trace, and
    # the upload was at the end of the list as "Your upload · conversation 1", with no file name.
    at = uploaded(app, "openai-compatible-tool-use-failed.jsonl")
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    left = at.selectbox(key="compare.left")
    assert left.value == "upload:0"
    assert left.format_func(left.value).startswith("Your upload (openai-compatible-tool-use-failed.jsonl) · ")
    assert at.selectbox(key="compare.right").value == "pitfalls/empty-result-invented-answer"


def test_compare_opens_on_the_bundled_trace_the_user_was_reading(app):
    at = app.run()
    at.selectbox(key=picker.TRACE).set_value("loan-calculator").run()
    at.switch_page("pages/compare.py").run()
    assert at.selectbox(key="compare.left").value == "loan-calculator"


def test_a_request_not_in_the_log_is_not_compared_as_an_empty_one(app):
    # The Messages stream kept only what came back: its messages and tool list are not known, so Compare says so,
    # not that the messages differ, that find_orders was added, nor that the right's system prompt is "only right".
    at = uploaded(app, "anthropic-stream.jsonl")
    # Against the bundled pitfall, whose request is in its log: the upload's other conversation, the default right
    # run, lacks its request too.
    at.query_params["compare"] = "upload:0,pitfalls/empty-result-invented-answer"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    verdict = list(_table(at, "verdict")["verdict"])[0]
    assert verdict == ("the left run's request was not in the log, so its messages and tools are not compared; "
                       "different calls: get_weather, get_local_time → find_orders; answer text in the left run only")
    assert "The left run's request was not in the log: what it sent is not known." in _texts(at) + [
        c.value for c in at.main.caption]
    assert not any("entry" in d.value.columns for d in at.dataframe)  # no messages table
    assert not any("tool" in d.value.columns for d in at.dataframe)  # no tools table


def test_a_rounds_figure_the_log_does_not_give_is_named_as_the_explorer_names_it_not_0(app):
    # Round 4 of the Responses chain is a request the log ends on: its output is "not in the log" in the explorer
    # and the Tokens page, not "≈ 0".
    at = uploaded(app, "openai-responses.jsonl")
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare.right").set_value("upload:0").run()
    at.number_input(key="compare.row").set_value(4).run()
    assert not at.exception
    output = next(m for m in at.metric if m.label.startswith("Output tokens"))
    assert (output.label, output.value) == ("Output tokens, right (left: not in the log)", "not in the log")
    assert not output.delta  # no difference is taken from a figure the log does not give
    assert next(m for m in at.metric if m.label.startswith("Input tokens")).value == "≈ 324"


def test_a_cost_difference_too_small_to_write_has_no_arrow_saying_it_went_up(app):
    # The two bare responses cost US$0.000036 and US$0.000039: both written US$0.00004, their difference +0.00000.
    # An arrow pointing up beside "+0.00000" says the cost rose by an amount the page shows as none.
    at = uploaded(app, "bare-responses.jsonl")
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="compare.left").set_value("upload:0").run()
    at.selectbox(key="compare.right").set_value("upload:1").run()
    assert not at.exception
    cost = next(m for m in at.metric if m.label == "Cost USD, right")
    assert (cost.value, cost.delta) == ("US$0.00004", "+0.00000")
    assert cost.proto.direction == cost.proto.MetricDirection.NONE


def test_a_run_whose_log_kept_no_tool_list_is_not_said_to_have_removed_its_tools(app):
    # The same two calls, recorded twice: by the browser (the HAR keeps get_temperature in each request) and by the
    # openai-v2 instrumentation (its span keeps the messages, not the tools). Nothing was removed.
    files = [(name, (FIXTURES / path).read_bytes()) for name, path in
             (("calls.har", "containers/openai-tool-calls.har"), ("spans.jsonl", "otlp-span-per-call.jsonl"))]
    app.session_state[picker.FILES] = files
    app.session_state[picker.FILES_DIGEST] = state.files_digest(files)
    at = _open(app, "upload:0,upload:1", row="1")
    verdicts = list(_table(at, "verdict")["verdict"])
    assert verdicts[0] == "the right run's log kept no tool list, so the tools are not compared"
    assert not any("removed" in v for v in verdicts)
    # The span's gen_ai.tool.definitions is opt-in: its log does not say a list was sent, nor that none was.
    assert ("The right run's log keeps no tool list (its format keeps one only where the instrumentation opts in, as "
            "an OpenTelemetry GenAI span does): its tools are not known.") in [c.value for c in at.main.caption]


def _files(app, *names: str) -> None:
    files = [(name, (FIXTURES / name).read_bytes()) for name in names]
    app.session_state[picker.FILES] = files
    app.session_state[picker.FILES_DIGEST] = state.files_digest(files)


def test_an_answer_the_log_did_not_capture_is_not_compared_as_no_call_and_no_text(app):
    # The same instrumented loop recorded twice: with message content, and without it. The no-content span kept the
    # model, the token counts and `finish_reason: tool_calls`, not the call: Compare said "get_temperature → no call"
    # and "Neither response carries text", of an answer whose words it does not have.
    _files(app, "otlp-span-per-call.jsonl", "otlp-span-per-call-no-content.jsonl")
    at = _open(app, "upload:0,upload:1", row="1")
    verdict = list(_table(at, "verdict")["verdict"])[0]
    assert "no call" not in verdict
    assert ("the right run's answer was not in the log, so the calls and the answer text are not compared"
            in verdict)
    captions = [c.value for c in at.main.caption]
    assert "Neither response carries text." not in captions
    said = ("The right run's answer was not in the log (it kept the call's figures and finish, not what the model "
            "wrote): its calls and text are not known.")
    assert captions.count(said) == 2  # under Calls and under What the model wrote
    calls = next(d.value for d in at.dataframe if "arguments changed" not in d.value.columns
                 and list(d.value.columns) == ["left"])
    assert list(calls["left"]) == ['call get_temperature {"city": "Tokyo"}']  # the left's call, alone


def _fork_missed_by_replay(app):
    """Compare with parent of Hengxin's round 2 forked with an edited result: Replay has no recording of it, so the
    fork's round 2 got no answer, and no call was made."""
    at = app.run()
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(2).run()
    area = next(w for w in at.text_area if w.key and w.key.startswith("fork.w.") and w.key.endswith(".entry.3"))
    area.set_value('{"total_limit": 5000.00}').run()
    at.button(key="fork.run").click().run()
    at.button(key="fork.compare").click().run()
    assert not at.exception
    return at


def test_a_forks_round_that_got_no_answer_is_not_said_to_have_made_no_call(app):
    # Compare said "different calls: calcAmountOver → no call" and "Neither response carries text": a model answer
    # the fork never got.
    at = _fork_missed_by_replay(app)
    verdict = list(_table(at, "verdict")["verdict"])[1]
    assert verdict == ("different result of queryTravelPolicy sent; the right run's call got no answer, so the calls "
                       "and the answer text are not compared; finish_reason: tool_calls → no call made (Replay has no "
                       "recording of this request)")
    captions = [c.value for c in at.main.caption]
    assert "Neither response carries text." not in captions
    assert ("The right run's call got no answer (it failed, or was never made): it has no calls or text to compare."
            in captions)


def test_the_message_of_a_round_replay_missed_is_not_headed_as_a_failed_call(app):
    # Above Replay's "No recording for this request", Compare wrote "The right round's call failed:", beside a finish
    # and figures that say no call was made.
    at = _fork_missed_by_replay(app)
    captions = [c.value for c in at.main.caption]
    assert "The right round's call failed:" not in captions
    assert "The right round made no call; why:" in captions
    assert ("No recording for this request: the replay provider answers only the requests it has recorded."
            in _texts(at))


def test_a_call_never_made_costs_nothing_exactly_not_about_nothing(app):
    # The fork's round 2 was never sent: its cost is 0, as the Tokens page's column has it, not "≈ US$0.00000".
    at = _fork_missed_by_replay(app)
    cost = next(m for m in at.metric if m.label == "Cost USD, right")
    assert cost.value == "US$0.00000"


def test_two_logs_that_never_keep_the_instructions_say_so_beside_the_messages(app):
    # Two Claude Code sessions: neither log keeps the system prompt Claude Code sent (most of each round's 32,000
    # input tokens). The messages table listed the user's turns "as the model reads it" and said nothing of it.
    _files(app, "claude-code-session.jsonl", "claude-code-2.1.233.jsonl")
    at = _open(app, "upload:0,upload:1", row="1")
    assert ("Neither run's log keeps the instructions (their format does not always keep them, as an agent's "
            "session log never does): what either sent as its system prompt is not known, so it is not compared."
            in [c.value for c in at.main.caption])


def test_tool_calls_of_an_answer_the_log_did_not_capture_are_not_counted_as_none(app):
    # The no-content span kept `finish_reason: tool_calls`, not the call: the totals said the run made 0 tool calls,
    # and the Tokens page's rounds table said 0 for its round.
    _files(app, "otlp-span-per-call.jsonl", "otlp-span-per-call-no-content.jsonl")
    at = _open(app, "upload:0,upload:1")
    assert list(_table(at, "findings")["tool calls"]) == ["1", "not in the log"]
    at.switch_page("pages/overview.py").run()
    at.selectbox(key=picker.CONVERSATION).set_value(1).run()
    assert not at.exception
    assert list(_table(at, "tokens in")["tool calls"]) == ["not in the log"]


def test_choosing_another_run_opens_the_new_pair_at_its_first_divergence_not_the_old_pairs_row(app):
    # Row 4 of Hengxin beside itself was read; then the right run changed. The page still showed row 4 of the new
    # alignment (a round only the left run has) under "The runs first diverge at row 1".
    at = _open(app, "hengxin-expense,hengxin-expense")
    at.number_input(key="compare.row").set_value(4).run()
    at.selectbox(key="compare.right").set_value("pitfalls/empty-result-invented-answer").run()
    assert not at.exception
    assert at.info[0].value == "The runs first diverge at row 1: left round 1, right round 1."
    assert at.number_input(key="compare.row").value == 1
    assert [s.value for s in at.subheader] == ["Row 1: left round 1, right round 1"]


def test_prices_edited_this_session_price_the_tokens_page_and_compare_alike(app):
    # The Tokens page's price table is the session's: a price added there for hermes-agent's kimi-k2.6 gives the run
    # a cost on the Tokens page and the same cost on Compare, where the default table has none.
    from lib.prices import DEFAULT_PRICES, Price

    at = uploaded(app, "sharegpt-hermes-agent.jsonl")
    at.session_state[state.PRICES] = DEFAULT_PRICES + (Price("kimi-k2.6", 0.6, None, None, 2.5, "2026-12-06"),)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    cost = {m.label: m.value for m in at.metric}["Cost of the whole trace"]
    assert cost.startswith("≈ US$")
    assert any("price every cost you see in it: this page and Compare" in c.value for c in at.caption)
    at.query_params["compare"] = "upload:0,upload:0"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert list(_table(at, "findings")["cost USD"]) == [cost, cost]


def test_a_result_sent_back_for_a_refused_call_is_named_by_the_tool_the_next_request_names(app):
    # Groq refused round 1's generation (HTTP 400, tool_use_failed); the program sent the failed call back in round
    # 2's request as an assistant message calling get_something_by_name, with the validation errors as its result.
    # Compare named that result "result of ?": it looked the call id up among the responses alone.
    _files(app, "openai-compatible-tool-use-failed.jsonl")
    at = _open(app, "upload:0,upload:0", row="1")
    results = next(d.value for d in at.dataframe if list(d.value.columns) == ["left", "right"]
                   and any(str(v).startswith("result of") for v in d.value["left"]))
    assert list(results["left"])[0].startswith("result of get_something_by_name: 2 validation errors")
    assert not [v for v in results["left"] if str(v).startswith("result of ?")]


def test_a_saved_run_deleted_through_another_session_is_said_gone_not_swapped_for_hengxin_in_silence(app,
                                                                                                    app_database):
    # Compare was open on two saved traces; another session deleted the left one. The next click showed Hengxin on
    # the left, its rounds diffed against the loan calculator, and nothing said the saved trace had gone.
    store = open_store(app_database)
    left = library.save(store, load_bundled("order-status-anthropic").trace, source="upload", author="Ada")
    right = library.save(store, load_bundled("loan-calculator").trace, source="upload", author="Ada")
    at = _open(app, f"{left},{right}")
    assert at.selectbox(key="compare.left").value == f"saved:{left}" and not at.warning
    library.delete(store, left)
    store.close()
    at.number_input(key="compare.row").set_value(2).run()
    assert not at.exception
    assert [w.value for w in at.warning] == [
        "The saved trace the left side showed cannot be opened now: it was deleted from the library (by you or "
        "someone else on this server), or the library does not answer. That side shows the first bundled trace "
        "instead."]
    assert at.selectbox(key="compare.left").value == "hengxin-expense"


def test_a_log_compared_with_itself_where_a_request_is_not_kept_is_not_said_to_diverge(app):
    # A span kept without content, compared with itself: its request and answer are not in the log, so the pair is
    # not compared; the page said "The runs first diverge at row 1", a difference nothing in the logs shows.
    _files(app, "otlp-span-per-call-no-content.jsonl")
    at = _open(app, "upload:0,upload:0")
    said = [i.value for i in at.info] + [s.value for s in at.success]
    assert not [s for s in said if "diverge" in s]
    assert ("Nothing the logs hold differs between the runs, but not every round could be compared: from row 1 on, a "
            "request or an answer is not in a log (each row's verdict says which).") in said
    assert list(_table(at, "verdict")["verdict"])[0].startswith("neither run's request was in the log")


def test_what_a_runs_input_total_leaves_out_is_said_beneath_the_totals_not_in_its_cell(app):
    # The cell read "637 (1 failed call left out: whether it was billed is not in the log)", cut short by the browser;
    # the Tokens page shows the figure alone and says what it leaves out beneath it.
    _files(app, "openai-compatible-tool-use-failed.jsonl")
    at = _open(app, "upload:0,hengxin-expense")
    assert list(_table(at, "findings")["tokens in"]) == ["637", "≈ 5,580"]
    captions = [c.value for c in at.main.caption]
    assert ("Tokens in of the left run: 1 failed call left out: whether it was billed is not in the log."
            in captions)
    assert not [c for c in captions if c.startswith("Tokens in of the right run")]
    assert list(_table(at, "findings")["cost USD"]) == ["no price", "no price"]
    assert "Cost of the left run: 1 failed call left out: whether it was billed is not in the log." in captions
