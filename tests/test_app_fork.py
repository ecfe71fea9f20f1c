"""Fork, driven through the real app with AppTest: the structured editor, the raw JSON view, the teaching forks,
the other dialect, going on with the scenario's tools or typed results, stopping after one round, a fork of an
uploaded log, and Compare with parent."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from lib import library
from lib.catalog import TRACES_DIR
from lib.fork import request_body
from lib.ui import fork_editor
from lib.store import open_store
from tests.conftest import ROOT, load_bundled
from tests.databases import app_database  # noqa: F401 - a fixture
from tests.synthetic import synthetic_lines

HENGXIN = "hengxin-expense"
UNMADE = "no call made (Replay has no recording of this request)"
STOPPED_AS_ASKED = "Stopped after round 3 as asked; 1 call(s) were left unanswered and not run."
"""The finish line of a fork run with "Stop after this round": the option asked for it, no one pressed Stop."""
"""What every view says of a round Replay had no recording for: no call was made, and why."""


def _fork_page(app, round_: int, trace: str = HENGXIN):
    app.query_params["trace"] = trace
    at = app.run()
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(round_).run()
    assert not at.exception
    return at


def _widget(elements, suffix: str):
    """The editor's widget whose key ends with `suffix` (its key carries the trace digest and a version)."""
    return next(w for w in elements if w.key and w.key.startswith("fork.w.") and w.key.endswith(suffix))


def _texts(at) -> list[str]:
    return [t.value for t in at.main.text]


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_empty_every_result_in_the_fields_then_the_recorded_fork_answers_and_compare_diverges_at_round_2(app):
    at = _fork_page(app, 2)
    _widget(at.button, ".empty").click().run()
    assert [_widget(at.text_area, f".entry.{n}").value for n in (2, 3)] == ["", ""]
    at.button(key="fork.run").click().run()
    assert "The model answered in round 2." in _texts(at)
    _compare_with_parent(at)
    assert at.info[0].value == "The runs first diverge at row 2: left round 2, right round 2."
    verdict = list(_table(at, "verdict")["verdict"])[1]
    assert verdict.startswith("different results of queryExpense, queryTravelPolicy sent")
    assert verdict.endswith("finish_reason: tool_calls → finish_reason: stop")  # as each payload writes it
    assert list(_table(at, "findings")["rounds"]) == [4, 2]


def _compare_with_parent(at):
    at.button(key="fork.compare").click().run()
    assert not at.exception


def test_the_other_dialect_is_offered_as_converted_by_roundtrip_not_through_the_model(app):
    # "The model" is the LLM everywhere else on the page; the conversion is Roundtrip's own.
    at = _fork_page(app, 2)
    assert at.radio(key="fork.dialect").options == [
        "OpenAI Chat Completions (as recorded)", "Anthropic Messages (converted by Roundtrip, field by field)"]


def test_a_tool_result_edited_in_its_own_field_has_no_recording_and_real_providers_are_offered(app):
    at = _fork_page(app, 2)
    _widget(at.text_area, ".entry.3").set_value('{"total_limit": 5000.00}').run()
    at.button(key="fork.run").click().run()
    assert not at.exception
    assert f"Round 2: {UNMADE}." in _texts(at)
    assert "Choose a real provider above" in at.info[0].value
    assert "Connection" not in " ".join(_texts(at))
    # Said once: the page had the miss in two wordings, one under the other, and the advice twice.
    said = _texts(at) + [box.value for box in (*at.info, *at.error, *at.warning)]
    assert sum("recording" in s for s in said) == 1 and sum("provider" in s.lower() for s in said) == 1


def test_the_teaching_forks_are_listed_and_the_write_tool_removed_one_runs_offline(app):
    at = _fork_page(app, 1)
    listed = " ".join(m.value for m in at.markdown)
    for title in ("Round 2, both tool results emptied", "Round 2, calcAmountOver described as 'A helper.'",
                  "Round 3, createExpenseSupplement removed from the tools", "Round 4, tool_choice set to 'required'"):
        assert title in listed
    at.button(key="fork.lesson.write-tool-removed").click().run()
    assert at.number_input(key="fork.round").value == 3
    assert [t.value for t in at.main.text if t.value == "createExpenseSupplement"] == []
    at.button(key="fork.run").click().run()
    assert "The model answered in round 3." in _texts(at)


def test_the_vague_description_fork_goes_on_with_the_real_tools_after_the_write_is_approved(app):
    at = _fork_page(app, 1)
    at.button(key="fork.lesson.vague-description").click().run()
    assert _widget(at.text_area, ".tool.2.description").value == "A helper."
    at.button(key="fork.run").click().run()
    assert "createExpenseSupplement changes data: approve or decline call call_v1." in _texts(at)
    at.button(key="fork.approve").click().run()
    assert "The model answered in round 3." in _texts(at)
    _compare_with_parent(at)
    assert list(_table(at, "findings")["rounds"]) == [4, 3]


def test_typed_results_offer_the_parents_result_and_carry_the_fork_to_the_end(app):
    at = _fork_page(app, 2)
    at.radio(key="fork.after").set_value("typed").run()
    at.button(key="fork.run").click().run()
    assert "Type the result of calcAmountOver (call call_q3), or decline the call." in _texts(at)
    typed = at.text_area(key="fork.typed.call_q3")
    assert typed.value == '{"over_amount": 60.00, "over_ratio": 0.0158, "is_over": true}'
    at.button(key="fork.answer").click().run()
    at.text_area(key="fork.typed.call_q4").set_value("").run()
    at.button(key="fork.answer").click().run()
    assert not at.exception
    assert f"Round 4: {UNMADE}." in _texts(at)


def test_stop_after_one_round_runs_none_of_the_calls(app):
    at = _fork_page(app, 3)
    at.radio(key="fork.after").set_value("stop").run()
    at.button(key="fork.run").click().run()
    assert STOPPED_AS_ASKED in _texts(at)
    assert not [t for t in _texts(at) if "Stopped by you" in t]  # no one pressed Stop: the option was set before
    _compare_with_parent(at)
    assert list(_table(at, "findings")["rounds"]) == [4, 3]


def test_stop_the_fork_here_pressed_while_a_call_waits_is_said_to_be_yours(app):
    at = _fork_page(app, 3)
    at.radio(key="fork.after").set_value("tools").run()
    at.button(key="fork.run").click().run()
    at.button(key="fork.stop").click().run()
    assert not at.exception
    assert "Stopped by you after round 3; 1 call(s) were left unanswered and not run." in _texts(at)


def test_settings_and_system_prompt_fields_change_the_request_sent(app):
    at = _fork_page(app, 4)
    _widget(at.selectbox, ".choice").set_value("required").run()
    at.button(key="fork.run").click().run()
    assert "Stopped at the cap of 4 rounds." in _texts(at)  # the forced lesson's recordings, matched by settings
    at = _fork_page(app, 1)
    _widget(at.text_area, ".system").set_value("Answer in one word.").run()
    at.radio(key="fork.mode").set_value("Raw JSON").run()
    body = json.loads(_widget(at.text_area, ".raw").value)
    assert body["messages"][0] == {"role": "system", "content": "Answer in one word."}


def test_the_fork_sent_in_the_other_dialect_is_converted_and_replay_says_no_recording(app):
    at = _fork_page(app, 2)
    at.radio(key="fork.dialect").set_value("anthropic-messages").run()
    assert at.selectbox(key="fork.provider").options == ["Replay (recorded answers only, no key)", "Anthropic"]
    at.button(key="fork.run").click().run()
    assert not at.exception
    assert f"Round 2: {UNMADE}." in _texts(at)
    _compare_with_parent(at)
    assert list(_table(at, "findings")["rounds"]) == [4, 2]


def test_a_request_that_is_not_json_is_not_used_and_the_line_is_named(app):
    # It said "The request is not valid JSON: Expecting value at line 2, column 3.": the parser's words, where every
    # reader of a log says what is wrong and where in ours (lib.text.json_said).
    at = _fork_page(app, 3)
    at.radio(key="fork.mode").set_value("Raw JSON").run()
    _widget(at.text_area, ".raw").set_value('{"messages": [\n  oops\n]}').run()
    assert not at.exception
    assert at.error[0].value == "That edit was not made:"
    assert ("The request is not valid JSON (at line 2, character 3 of the request: no JSON value where one should be: "
            "NaN, a bare word or a single-quoted string is none).") in _texts(at)
    assert not [t for t in _texts(at) if "Expecting" in t]
    at.button(key="fork.run").click().run()
    assert "fork.running" not in at.session_state
    assert "The last edit was not made (see above): fix it, or start again from the recorded request." in _texts(at)


def test_a_message_added_before_a_chosen_message_is_sent_at_that_position(app):
    at = _fork_page(app, 2)
    where = _widget(at.selectbox, ".new.at")
    assert where.options[-1] == "at the end"
    assert "before messages[3] · tool" in where.options
    where.set_value(3).run()
    _widget(at.text_area, ".new.text").set_value("Check the limit before anything else.").run()
    _widget(at.button, ".new.add").click().run()
    at.radio(key="fork.mode").set_value("Raw JSON").run()
    sent = json.loads(_widget(at.text_area, ".raw").value)["messages"]
    recorded = request_body(load_bundled(HENGXIN).trace, 2)["messages"]
    assert sent[3] == {"role": "user", "content": "Check the limit before anything else."}
    assert sent[:3] + sent[4:] == recorded


def test_a_finished_fork_belongs_to_its_trace_and_leaves_the_screen_when_another_trace_is_picked(app):
    at = _fork_page(app, 3)
    at.radio(key="fork.after").set_value("stop").run()
    at.button(key="fork.run").click().run()
    assert STOPPED_AS_ASKED in _texts(at)

    at.selectbox(key="sidebar.trace").set_value("loan-calculator").run()
    assert not at.exception
    assert "The fork" not in [s.value for s in at.subheader]
    assert not [b for b in at.button if b.key in ("fork.compare", "fork.save")]
    assert STOPPED_AS_ASKED not in _texts(at)

    at.selectbox(key="sidebar.trace").set_value(HENGXIN).run()
    assert STOPPED_AS_ASKED in _texts(at)
    _compare_with_parent(at)
    assert list(_table(at, "findings")["rounds"]) == [4, 3]


def test_fork_from_here_on_a_round_of_the_explorer_opens_the_fork_page_on_that_round(app):
    app.query_params["trace"] = HENGXIN
    app.query_params["round"] = "3"
    at = app.run()
    at.button(key="explorer.fork").click().run()
    assert not at.exception
    assert at.number_input(key="fork.round").value == 3
    at.radio(key="fork.mode").set_value("Raw JSON").run()
    assert json.loads(_widget(at.text_area, ".raw").value) == request_body(load_bundled(HENGXIN).trace, 3)


def test_the_round_chosen_to_fork_is_in_the_address_so_a_reload_or_a_shared_link_forks_the_same_round(app):
    # The Fork page read ?round= when opened from a link, but never wrote it: its address said no round, so a reload
    # or the address handed to a learner opened round 1.
    at = _fork_page(app, 3)
    assert at.query_params["round"] == "3"
    reloaded = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    reloaded.query_params.update({"trace": HENGXIN, "round": "3"})
    again = reloaded.run()
    again.switch_page("pages/fork.py").run()
    assert not again.exception and again.number_input(key="fork.round").value == 3


def test_the_browsers_back_button_brings_back_the_round_chosen_to_fork_before(app):
    # Back reruns the page with the address before; the page kept its own round and wrote it over that address.
    at = _fork_page(app, 3)
    at.number_input(key="fork.round").set_value(2).run()
    assert at.query_params["round"] == "2"
    at.query_params["round"] = "3"  # Back
    at.run()
    assert at.number_input(key="fork.round").value == 3 and at.query_params["round"] == "3"


def test_a_fork_of_an_uploaded_log_types_the_results_and_compares_with_the_upload(app):
    data = (TRACES_DIR / f"{HENGXIN}.jsonl").read_bytes()
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("mine.jsonl", data).run()
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(3).run()
    assert at.radio(key="fork.after").options == ["Type each tool result and go on", "Stop after this round"]
    at.button(key="fork.run").click().run()
    assert "Type the result of createExpenseSupplement (call call_q4), or decline the call." in _texts(at)
    at.button(key="fork.answer").click().run()
    assert "The model answered in round 4." in _texts(at)
    _compare_with_parent(at)
    assert not at.exception
    assert at.success[0].value == "The runs say the same in every round."
    assert list(_table(at, "findings")["name"])[0].startswith("mine.jsonl")  # as the explorer names the upload


def test_with_live_runs_turned_off_the_fork_offers_replay_only_and_says_why(app):
    app.secrets["roundtrip"] = {"ROUNDTRIP_LIVE_RUNS": "off"}
    at = _fork_page(app, 2)
    assert at.selectbox(key="fork.provider").options == ["Replay (recorded answers only, no key)"]
    assert "Live runs are turned off here (ROUNDTRIP_LIVE_RUNS=off). Replay still works." in _texts(at)


def test_a_fork_of_a_long_traces_last_round_draws_one_page_of_its_messages_and_reaches_the_first(app):
    # Round 80 of a synthetic trace sends 160 messages; a field and a button each made every rerun of the
    # Fork page redraw them all (about 4,000 widgets at round 999 of 1,000, 28 s a rerun).
    at = app.run()
    at.file_uploader(key="sidebar.upload").upload("long.jsonl", "\n".join(synthetic_lines(80)).encode()).run()
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(80).run()
    fields = [w for w in at.text_area if ".entry." in str(w.key)]
    assert len(fields) == fork_editor.PAGE
    assert [w.value for w in fields][-1] == json.dumps({"n": 79, "record": "record 79", "notes": ""})
    pages = _widget(at.selectbox, ".page")
    assert pages.format_func(pages.value) == f"messages[{160 - fork_editor.PAGE}] to messages[159] (the newest)"
    pages.set_value(0).run()
    first = [w for w in at.text_area if ".entry." in str(w.key)]
    assert first[0].value == "Look up records 1 to 79, one per call, then summarize."
    _widget(at.button, ".empty").click().run()
    at.radio(key="fork.mode").set_value("Raw JSON").run()
    sent = json.loads(_widget(at.text_area, ".raw").value)["messages"]
    assert [m["content"] for m in sent if m["role"] == "tool"] == [""] * 79  # an edit still reaches every page


def test_a_page_of_one_message_is_named_by_that_message_alone(app):
    # tau-bench's round 6 has 11 messages and results: paged back from the newest, the first page holds one.
    from tests.screen import uploaded
    at = uploaded(app, "tau-bench-airline-cut.jsonl")
    at.switch_page("pages/fork.py").run()
    at.number_input(key="fork.round").set_value(6).run()
    pages = _widget(at.selectbox, ".page")
    assert [pages.format_func(page) for page in range(len(pages.options))] == [
        "messages[1]", "messages[2] to messages[11] (the newest)"]


def test_a_fork_sent_to_a_server_that_is_not_there_names_its_host_not_an_exception_class(app):
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again before the call: nothing listens there
    at = _fork_page(app, 2)
    at.selectbox(key="fork.provider").set_value("openai").run()
    at.text_input(key="fork.base_url").set_value(f"http://learner:pw-SECRET@127.0.0.1:{port}/v1?token=T0KEN").run()
    at.text_input(key="fork.api_key").set_value("sk-typed-0001").run()
    at.button(key="fork.run").click().run(timeout=30)
    shown = " ".join(_texts(at) + [e.value for e in at.error])
    assert f"Connection failed: 127.0.0.1:{port} could not be reached" in shown
    assert "ConnectError" not in shown and "(ConnectError)" not in shown
    assert "pw-SECRET" not in shown and "T0KEN" not in shown and "learner" not in shown
    # ...while the recorded error keeps the transport's own word for it, for whoever reads the raw error
    fork = next(r for r in at.session_state["fork.running"].runner.trace.read()[0].rounds if r.error)
    assert fork.error.body["body"]["error"]["cause"] == "ConnectError"


# The bundled order-status trace names a model the SDK warns about; the warning is not what this test is about.
@pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")
def test_a_forked_rounds_body_sets_no_header_on_the_call_that_carries_the_operators_key(app, monkeypatch, tmp_path):
    """A shared log's request asks for another workspace and user profile, fields that anthropic's SDK would turn
    into the headers anthropic-workspace-id and anthropic-user-profile-id: forked with the operator's key, they stay
    in the body as written."""
    from tests.recorded_server import RecordedServer, Reply
    operator_key = "sk-ant-OPERATOR-SENTINEL-0123456789"
    lines = (TRACES_DIR / "order-status-anthropic.jsonl").read_text().splitlines()
    first = json.loads(lines[1])
    first["request"].update(workspace_id="wrkspc_someone_else", user_profile_id="up_someone_else")
    lines[1] = json.dumps(first)
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
              "stop_reason": "end_turn", "content": [{"type": "text", "text": "Noted."}],
              "usage": {"input_tokens": 5, "output_tokens": 2}}
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", f"sqlite:///{tmp_path / 'notes.db'}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", operator_key)
    with RecordedServer({"/v1/messages": [Reply(answer)]}) as server:
        monkeypatch.setenv("ROUNDTRIP_ANTHROPIC_BASE_URL", server.url)
        at = app.run()
        at.file_uploader(key="sidebar.upload").upload("shared.jsonl", "\n".join(lines).encode()).run()
        at.switch_page("pages/fork.py").run()
        at.number_input(key="fork.round").set_value(1).run()
        at.selectbox(key="fork.provider").set_value("anthropic").run()
        at.radio(key="fork.after").set_value("stop").run()
        at.button(key="fork.run").click().run(timeout=30)
    assert not at.exception
    (received,) = server.received
    assert operator_key in received.headers.get("x-api-key", "") + received.headers.get("authorization", "")
    assert not {"anthropic-workspace-id", "anthropic-user-profile-id"} & set(received.headers)
    assert [h for h, value in received.headers.items() if "someone_else" in value] == []
    assert (received.body["workspace_id"], received.body["user_profile_id"]) == ("wrkspc_someone_else",
                                                                                  "up_someone_else")


def test_forking_a_round_whose_request_was_not_in_the_log_says_the_editor_starts_empty(app):
    # A Messages stream kept only what came back: there is no recorded request to start from or go back to.
    from tests.screen import uploaded
    at = uploaded(app, "anthropic-stream.jsonl")
    at.switch_page("pages/fork.py").run()
    assert not at.exception
    assert [i.value for i in at.info] == ["Round 1's request was not in the log: there is no recorded request to "
                                          "start from, so the editor starts empty. Write the request to send."]
    assert not [b for b in at.button if b.key == "fork.reset"]


def test_compare_with_parent_says_the_forks_round_made_no_call_not_that_no_finish_was_recorded(app):
    # Replay has no recording for an edited result, so the fork's round 2 made no call: no response at all.
    at = _fork_page(app, 2)
    _widget(at.text_area, ".entry.3").set_value('{"total_limit": 5000.00}').run()
    at.button(key="fork.run").click().run()
    _compare_with_parent(at)
    verdict = list(_table(at, "verdict")["verdict"])[1]
    assert verdict.endswith(f"finish_reason: tool_calls → {UNMADE}")
    assert "none recorded" not in verdict


def _missed_at_round_2(app):
    """Hengxin's round 2 forked with an edited result: Replay has no recording of it, so no call is made."""
    at = _fork_page(app, 2)
    _widget(at.text_area, ".entry.3").set_value('{"total_limit": 5000.00}').run()
    at.button(key="fork.run").click().run()
    assert at.info[0].value.startswith("Nothing was sent to a model.")
    return at


def _missed_fork_opened(app):
    """The fork of _missed_at_round_2 downloaded from Compare and opened again as an upload; with its bytes."""
    at = _missed_at_round_2(app)
    _compare_with_parent(at)
    data, _ = at.session_state["compare.forks"][0]
    at.switch_page("app.py").run()
    at.file_uploader(key="sidebar.upload").upload("fork-round-2.jsonl", data)
    at.run()
    return at, data


def test_compare_with_parent_says_a_round_replay_missed_made_no_call_and_prices_nothing_for_it(app):
    # The fork page says nothing was sent to a model; Compare priced the round's estimated input as a call that
    # failed, "had it been billed", and added it to the fork's input.
    at = _missed_at_round_2(app)
    _compare_with_parent(at)
    metrics = {m.label.split(" (")[0]: m for m in at.metric}
    assert metrics["Input tokens, right"].value == "no call made"
    assert metrics["Output tokens, right"].value == "no call made"
    assert metrics["Cost USD, right"].help == ("The right call was never made: no provider saw the request, so "
                                               "nothing was billed for it.")
    runs = _table(at, "run")
    assert list(runs["tokens in"]) == ["≈ 5,580", "1,247"]  # the fork's round 1 alone: its round 2 made no call


def test_the_tokens_page_of_a_fork_says_the_round_replay_missed_made_no_call(app):
    # The fork downloaded and opened again: its round 2 was never sent, so nothing of it is billed input.
    at, data = _missed_fork_opened(app)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    rounds = _table(at, "tokens in")
    assert list(rounds["tokens in"])[1] == "no call made" and list(rounds["tokens out"])[1] == "no call made"
    billed = next(m for m in at.metric if m.label == "Input billed over all calls")
    assert billed.value == "1,247"
    assert "1 of them was never made: no provider saw its request, so nothing of it is in the sums." in billed.help
    assert "whether the provider billed" not in billed.help


def test_a_round_replay_missed_has_no_input_bar_and_the_summary_says_no_call_was_made(app):
    # The fork's round 2 was never sent: the chart of where each round's input goes drew its counted request as a bar
    # of input, and `summarize --json` gave null usage with nothing to tell "no call made" from "not in the log".
    from lib.cli import summary_of
    from lib.logs.upload import read_upload
    at, data = _missed_fork_opened(app)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    breakdown = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert all(y == 0 or x != 2 for series in breakdown for x, y in zip(series["x"], series["y"]))
    assert any("Round 2 has no bar here: no call was made, so nothing of its request was read or billed." in c.value
               for c in at.caption)
    [conversation] = summary_of(read_upload([("fork-round-2.jsonl", data)]))["conversations"]
    assert [r["call_made"] for r in conversation["rounds"]] == [True, False]
    assert conversation["rounds"][1]["usage"]["input"] is None
    assert set(conversation["rounds"][1]["usage"]["input_parts"].values()) == {None}


def test_a_replay_miss_after_the_forked_round_is_not_put_down_to_an_edit_nobody_made(app):
    # Round 1 forked unedited: Replay answers it, the scenario's tools run for real, and their results are not the
    # recorded ones, so round 2's request has no recording. The page told the user to "undo the edit".
    at = _fork_page(app, 1, "order-status-anthropic")
    at.button(key="fork.run").click().run()
    assert not at.exception
    assert f"Round 2: {UNMADE}." in _texts(at)
    said = at.info[0].value
    assert "undo the edit" not in said
    assert said.startswith("Nothing was sent to a model for round 2: Replay has no recording of its request, which "
                           "carries the results this fork sent back.")


def test_the_explorer_of_a_fork_says_the_round_replay_missed_made_no_call(app):
    # Its figures said "Input tokens (estimated): ≈ 1,343", "the call failed, and the log does not say whether the
    # provider billed it", for a request Replay never sent anywhere.
    from lib.ui import state
    from tests.screen import figures
    at, data = _missed_fork_opened(app)
    at.number_input(key=state.ROUND).set_value(2).run()
    assert not at.exception
    shown = figures(at)
    assert shown["Input tokens"].value == "no call made" and shown["Output tokens"].value == "no call made"
    assert shown["Input tokens"].help == "No provider saw the request, so nothing was billed for it."



def test_with_live_runs_turned_off_a_replay_miss_does_not_send_the_user_to_a_provider_they_cannot_choose(app):
    # Replay is the one choice offered here; the fork said "Choose a real provider above (OpenAI, Anthropic or an
    # OpenAI-compatible server)".
    app.secrets["roundtrip"] = {"ROUNDTRIP_LIVE_RUNS": "off"}
    at = _fork_page(app, 2)
    _widget(at.text_area, ".entry.3").set_value('{"total_limit": 5000.00}').run()
    at.button(key="fork.run").click().run()
    assert not at.exception
    said = at.info[0].value
    assert said == ("Nothing was sent to a model. Replay answers only the requests it has recorded, and no real "
                    "provider is offered here (why is said under “Answered by”): undo the edit to replay the recorded "
                    "answer.")



def test_every_view_of_a_round_replay_missed_says_no_call_was_made_not_that_the_call_failed(app):
    # Nothing was sent to any model: the fork's finish line said "Round 2 failed", Compare's finish "the call failed"
    # and the Tokens page's finish column "error", while the figures beside them said "no call made".
    at = _missed_at_round_2(app)
    assert f"Round 2: {UNMADE}." in _texts(at)
    assert not any("failed" in t for t in _texts(at))
    _compare_with_parent(at)
    assert list(_table(at, "verdict")["verdict"])[1].endswith(f"finish_reason: tool_calls → {UNMADE}")
    at, _ = _missed_fork_opened(app)
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert list(_table(at, "tokens in")["finish reason"])[1] == UNMADE


def test_a_fork_that_could_not_be_sent_leaves_no_earlier_forks_answer_under_the_fork(app, monkeypatch):
    # The earlier fork's finish line and its buttons stayed under "The fork", below the new run's error: read as its
    # outcome.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    earlier = "Stopped after round 2 as asked; 1 call(s) were left unanswered and not run."
    at = _fork_page(app, 2)
    at.radio(key="fork.after").set_value("stop").run()
    at.button(key="fork.run").click().run()
    assert earlier in _texts(at)
    at.selectbox(key="fork.provider").set_value("openai").run()
    at.button(key="fork.run").click().run()
    assert not at.exception
    assert at.error[0].value == "The fork was not sent:"
    assert "No API key for OpenAI: type one, or have the server's operator set it." in _texts(at)
    assert earlier not in _texts(at)
    assert "The fork" not in [h.value for h in at.subheader]


def test_a_fork_does_not_take_over_what_the_parents_author_said_of_the_parents_rounds(app):
    # A fork of the empty-result pitfall from its first round, stopped there, opened as an upload: its explorer said
    # the parent's description ("The order lookup finds nothing and returns an empty list; the model answers with a
    # shipping date…") above a fork of 1 round, its Checks page the parent's "What happened" and "The fix", and its
    # provenance "rounds 1 to 0 copied from …".
    pitfall = "pitfalls/empty-result-invented-answer"
    parent = load_bundled(pitfall).trace
    at = _fork_page(app, 1, pitfall)
    at.radio(key="fork.after").set_value("stop").run()
    at.button(key="fork.run").click().run()
    _compare_with_parent(at)
    data, _ = at.session_state["compare.forks"][0]
    at.switch_page("app.py").run()
    at.file_uploader(key="sidebar.upload").upload("fork-round-1.jsonl", data).run()
    assert not at.exception
    said = _texts(at) + [c.value for c in at.caption]
    assert parent.description not in said
    described = ("A fork of Pitfall: an empty result, then an invented answer at round 1: no round copied from "
                 f"{pitfall}; from round 1 on, answered by Replay from recordings where it had one, each answer's note "
                 "saying how it was made.")
    assert described in said
    assert not [s for s in said if "rounds 1 to 0" in s]
    at.switch_page("pages/checks.py").run()
    assert not at.exception
    assert not [m for m in at.markdown if "What happened" in m.value]
    assert not [t for t in _texts(at) if t.startswith("What happened:")]


def test_compare_with_parent_of_a_fork_of_a_saved_trace_shows_that_saved_trace_beside_it(app, app_database):
    # The saved trace was named to Compare by its title, which is no run Compare offers: the left side fell back to
    # the first bundled trace, Hengxin, and its 4 rounds were diffed against a fork of another trace.
    store = open_store(app_database)
    trace_id = library.save(store, load_bundled("order-status-anthropic").trace, source="upload", author="Ada")
    store.close()
    at = _fork_page(app, 2, trace_id)
    at.radio(key="fork.after").set_value("stop").run()
    at.button(key="fork.run").click().run()
    _compare_with_parent(at)
    assert at.selectbox(key="compare.left").value == f"saved:{trace_id}"
    assert at.selectbox(key="compare.right").value == "fork:0"
    assert list(_table(at, "findings")["rounds"]) == [2, 2]
    assert list(_table(at, "verdict")["verdict"])[0] == "same"


def test_the_fork_and_compare_say_which_rounds_were_copied_from_the_parent_and_which_were_sent_again(app):
    # The Fork page said only "The model answered in round 2."; Compare listed round 1 as "same" and counted its
    # 1,247 tokens in the fork's totals, with nothing saying the fork never sent it.
    copied = ("round 1 copied from hengxin-expense; from round 2 on, answered by Replay from recordings where it had "
              "one, each answer's note saying how it was made")
    at = _fork_page(app, 2)
    at.button(key="fork.lesson.empty-result").click().run()
    at.button(key="fork.run").click().run()
    assert "The model answered in round 2." in _texts(at)
    assert copied in _texts(at)
    _compare_with_parent(at)
    assert copied in _texts(at)
    assert [c.value for c in at.caption if c.value.startswith("The right run is a fork.")] == [
        "The right run is a fork. A round it copied from its parent reads “same” beside the parent's and counts in "
        "its totals, though the fork did not send it. What it copied and what it sent again, as its file says:"]
    assert not [c.value for c in at.caption if c.value.startswith("The left run is a fork")]


def test_a_fork_resends_the_request_headers_the_log_kept_never_its_key_and_its_note_says_where_it_went(
        app, monkeypatch, tmp_path):
    """A captured round asked for a beta feature (`anthropic-beta`): its fork asks for it too, with the operator's key,
    never a key the log held; the fork's note says which round was sent, edited or not, where, and with which
    headers. It resent none of them, and said only "round 1 on sent again"."""
    from tests.recorded_server import RecordedServer, Reply
    operator_key = "sk-ant-OPERATOR-SENTINEL-0123456789"
    lines = (TRACES_DIR / "order-status-anthropic.jsonl").read_text().splitlines()
    first = json.loads(lines[1])
    first["request_headers"] = {"anthropic-beta": "token-efficient-tools-2025-02-19",
                                "x-api-key": "sk-ant-SOMEONE-ELSES-KEY-0000000000"}
    lines[1] = json.dumps(first)
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
              "stop_reason": "end_turn", "content": [{"type": "text", "text": "Noted."}],
              "usage": {"input_tokens": 5, "output_tokens": 2}}
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", f"sqlite:///{tmp_path / 'notes.db'}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", operator_key)
    with RecordedServer({"/v1/messages": [Reply(answer)]}) as server:
        monkeypatch.setenv("ROUNDTRIP_ANTHROPIC_BASE_URL", server.url)
        at = app.run()
        at.file_uploader(key="sidebar.upload").upload("captured.jsonl", "\n".join(lines).encode()).run()
        at.switch_page("pages/fork.py").run()
        at.number_input(key="fork.round").set_value(1).run()
        at.selectbox(key="fork.provider").set_value("anthropic").run()
        at.radio(key="fork.after").set_value("stop").run()
        assert "Sent with the request headers round 1 kept (the key is yours, never the log's):" in [
            c.value for c in at.caption]
        assert "anthropic-beta: token-efficient-tools-2025-02-19" in _texts(at)
        at.button(key="fork.run").click().run(timeout=30)
    assert not at.exception
    (received,) = server.received
    assert received.headers["anthropic-beta"] == "token-efficient-tools-2025-02-19"
    assert operator_key in received.headers.get("x-api-key", "") + received.headers.get("authorization", "")
    assert "SOMEONE-ELSES" not in json.dumps(dict(received.headers))
    host = server.url.split("://")[1].rstrip("/")
    said = (f"; round 1, unedited, sent again to Anthropic at {host} with the request headers the parent's round 1 kept (anthropic-beta)")
    assert [t for t in _texts(at) if said in t], _texts(at)
