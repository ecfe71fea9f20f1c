"""The Live run page, driven through the real app with AppTest: replayed runs with no key, the approval
step declined once and approved once, the trace growing in the explorer's layout, and no key shown."""

import json

import pytest

from bench.load_test import free_port
from lib.failures import NO_RECORDING_SAID
from lib.live.replay import RECORDINGS_DIR, read_recordings
from lib.logs.native import read_trace
from lib.sequence import sequence
from lib.slide_words import runs_words
from lib.ui import live, navigation
from tests.recorded_server import RecordedServer, Reply

SENTINEL = "sk-SENTINEL-123-do-not-leak"


def open_live(app):
    at = app.run()
    at.switch_page("pages/live.py").run()
    assert not at.exception
    return at


def press_run(at):
    at.button(key="live.run").click().run()
    assert not at.exception
    return at


def rendered(at) -> str:
    """Every element the page sent, as text: what a browser could show."""
    found = []

    def walk(node):
        if getattr(node, "proto", None) is not None:
            found.append(str(node.proto))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found).replace("\\", "")


def ended(at) -> tuple[list[str], str]:
    """The run's announcement in a success box (our words), and what happened, the page's first plain text."""
    return [b.value for b in at.success], at.text[0].value


def written_trace(at):
    runner = at.session_state[live.RUNNER]
    trace, problems = read_trace(runner.trace.path.read_text(encoding="utf-8").splitlines())
    assert problems == []
    return trace


def test_hengxin_on_replay_pauses_at_the_write_and_shows_the_exact_call(app):
    at = press_run(open_live(app))
    assert at.warning[0].value == "This call changes data. Nothing runs until you decide. The exact call:"
    (call,) = [j.value for j in at.json if "call_q4" in j.value]
    assert json.loads(call) == {"id": "call_q4", "name": "createExpenseSupplement"}
    # Exactly as the model wrote them, not re-serialized with 60 for 60.00.
    assert ('{"expense_id": "BX-20261015-0932", "over_amount": 60.00, "reason": "Business trip accommodation exceeded '
            'the standard; the difference is supplemented according to bank standards"}') in [c.value for c in at.code]
    assert not [j.value for j in at.json if "over_amount" in j.value]
    assert at.radio(key=live.ROUND).options == ["Round 1", "Round 2", "Round 3"]
    assert at.radio(key=live.ROUND).value == 3  # the newest round is on screen
    assert "Round 3: the program sends 7 messages, 2 of them new" in [s.value for s in at.subheader]
    assert written_trace(at).rounds[2].executions == ()  # nothing ran yet


def test_declining_once_then_approving_once_gives_the_two_recorded_endings(app):
    at = press_run(open_live(app))
    at.button(key="live.decline").click().run()
    assert ended(at) == (["The model answered."], "The model answered in round 4.")
    declined = written_trace(at)
    assert declined.rounds[2].executions[0].approval == "declined"
    assert declined.rounds[3].request.messages[-1].tool_results[0].content.startswith("Not executed")
    assert "I have not submitted the supplementary form" in declined.rounds[3].response.message.text
    assert "declined" in rendered(at)

    at = press_run(at)
    at.button(key="live.approve").click().run()
    assert ended(at) == (["The model answered."], "The model answered in round 4.")
    approved = written_trace(at)
    assert [len(r.request.messages) for r in approved.rounds] == [2, 5, 7, 9]
    assert [c.id for c in approved.rounds[0].tool_calls] == ["call_q1", "call_q2"]
    assert approved.rounds[2].executions[0].approval == "approved"
    assert '"supplement_id": "BC-20261020-0417"' in approved.rounds[2].executions[0].output
    assert "number BC-20261020-0417" in approved.rounds[3].response.message.text
    assert approved.header["metadata"]["scenario"] == "hengxin"


def test_a_declined_call_is_shown_as_declined_and_not_run_not_as_failed(app):
    # The program's lane showed a call the person declined with a red "failed" badge over "Arguments the handler
    # received", though no handler ran.
    at = press_run(open_live(app))
    at.button(key="live.decline").click().run()
    at.radio(key=live.ROUND).set_value(3).run()
    assert not at.exception
    lane = [m.value for m in at.main.markdown] + [c.value for c in at.main.caption]
    assert ":orange-badge[declined: not run]" in lane and ":red-badge[failed]" not in lane
    assert "The call's arguments (no handler ran)" in lane and "Arguments the handler received" not in lane
    assert "What the program answered instead" in lane
    shown = rendered(at)
    assert "createExpenseSupplement (call_q4): declined, not run" in shown
    assert "createExpenseSupplement (call_q4): failed" not in shown


@pytest.mark.parametrize("scenario, rounds", [("larkfield", 2), ("order-status", 2), ("loan", 2)])
def test_the_other_scenarios_run_on_replay_without_a_key(app, scenario, rounds):
    at = open_live(app)
    at.selectbox(key=live.SCENARIO).set_value(scenario).run()
    press_run(at)
    assert ended(at) == (["The model answered."], f"The model answered in round {rounds}.")
    assert at.radio(key=live.ROUND).options == [f"Round {k}" for k in range(1, rounds + 1)]


def test_an_edited_question_has_no_recording_and_says_so(app):
    at = open_live(app)
    at.text_area(key="live.hengxin.question").input("How much was my last claim?").run()
    press_run(at)
    # Nothing was sent, so nothing errored at a provider: the headline says the run stopped, and why.
    assert "The run ended with an error." not in [box.value for box in at.error]
    assert at.warning[0].value == ("The run stopped before round 1 was sent: Replay has no recorded answer for its "
                                   "request.")
    unmade = "Round 1: no call made (Replay has no recording of this request)."  # nothing was sent, so no call failed
    assert ended(at)[1] == unmade
    # The run's end says it, and the response card: the page had it five times over, in two wordings, and the
    # advice twice.
    said = [t.value for t in at.main.text] + [box.value for box in (*at.info, *at.error, *at.warning)]
    assert [s for s in said if "recording" in s] == [unmade, NO_RECORDING_SAID]
    assert sum("real provider" in s or "live provider" in s for s in said) == 1
    assert written_trace(at).rounds[0].error is not None


def test_the_drop_a_result_switch_shows_the_providers_400_as_an_error_round(app):
    at = open_live(app)
    at.checkbox(key="live.hengxin.drop_result").check().run()
    press_run(at)
    assert "Round 2 failed: HTTP 400" in ended(at)[1]
    trace = written_trace(at)
    assert trace.rounds[1].extra["teaching"] == ["dropped-tool-result"]
    assert "did not have response messages: call_q2" in rendered(at)


def test_the_run_opens_in_the_explorer(app):
    at = press_run(open_live(app))
    at.button(key="live.approve").click().run()
    at.button(key="live.open").click().run()
    assert not at.exception
    assert "Live run: Hengxin expense reimbursement" in [t.value for t in at.main.text]  # the title, as text
    assert any(s.value == "Round 1: the program sends 2 messages, 2 of them new" for s in at.subheader)


def test_fork_from_here_forks_the_live_run_not_the_sidebars_trace(app):
    # "Fork from here" on a live run's round opened the Fork page on the sidebar's trace, the bundled Hengxin, under
    # its title and with its teaching forks: the edit and the comparison were of another conversation.
    at = press_run(open_live(app))
    at.button(key="live.approve").click().run()
    at.radio(key=live.ROUND).set_value(2).run()
    at.button(key="explorer.fork").click().run()
    assert not at.exception
    assert at.main.text[0].value == "Live run: Hengxin expense reimbursement"  # the title, as text
    assert at.number_input(key=navigation.FORK_ROUND).value == 2


def test_a_typed_key_is_never_shown_even_when_the_server_echoes_it(app):
    at = open_live(app)
    at.radio(key=live.PROVIDER).set_value("openai").run()
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401, echo_credentials=True)]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    assert SENTINEL in server.received[0].headers["authorization"]
    shown = rendered(at)
    assert "HTTP 401: Incorrect API key provided: Bearer [key hidden]" in shown
    assert SENTINEL not in shown
    assert SENTINEL not in at.session_state[live.RUNNER].trace.text()


def test_a_wrong_key_is_said_to_be_the_keys_fault_not_the_requests(app):
    # A 401 for a mistyped key read "The provider refused this request with HTTP 401 ... fix the request and send it
    # again", sending the learner to edit a request nothing was wrong with.
    at = open_live(app)
    at.radio(key=live.PROVIDER).set_value("openai").run()
    wrong = {"error": {"type": "invalid_request_error", "code": "invalid_api_key",
                       "message": "Incorrect API key provided: sk-wrong***0001."}}
    with RecordedServer({"/v1/chat/completions": [Reply(wrong, 401)]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input("sk-wrong-key-0001").run()
        press_run(at)
    shown = rendered(at)
    assert "HTTP 401 refuses the caller (the API key, or what it may use), not what the request says" in shown
    assert "fix the request" not in shown


def test_a_live_provider_without_a_key_says_where_to_put_one_and_starts_nothing(app, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = open_live(app)
    at.radio(key=live.PROVIDER).set_value("anthropic").run()
    press_run(at)
    assert at.error[0].value == "The run could not start:"
    assert any("No API key for Anthropic: set ANTHROPIC_API_KEY" in t.value for t in at.text)
    assert live.RUNNER not in at.session_state
    assert "Choose a scenario and press Run" in at.info[0].value


OPERATOR_KEY = "sk-OPERATOR-SENTINEL-never-leaves"


def choose_openai(at):
    at.radio(key=live.PROVIDER).set_value("openai").run()
    return at


def test_the_servers_key_never_goes_to_a_base_url_typed_in_the_page(app, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401, echo_credentials=True)]}) as attacker:
        at.text_input(key="live.base_url.openai").input(attacker.url + "/v1").run()
        press_run(at)
    assert attacker.received == []
    assert "A base URL typed here is used only with an API key typed here too" in rendered(at)
    assert live.RUNNER not in at.session_state


def test_the_servers_key_goes_only_to_the_operators_base_url_never_to_an_sdk_environment_url(app, monkeypatch):
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401)]}) as operator, \
            RecordedServer({"/v1/chat/completions": [Reply({}, 401)]}) as elsewhere:
        monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
        monkeypatch.setenv("ROUNDTRIP_OPENAI_BASE_URL", operator.url + "/v1")
        monkeypatch.setenv("OPENAI_BASE_URL", elsewhere.url + "/v1")  # the SDK would follow this if let
        press_run(choose_openai(open_live(app)))
    assert [r.headers["authorization"] for r in operator.received] == [f"Bearer {OPERATOR_KEY}"]
    assert elsewhere.received == []


def test_a_key_typed_in_the_session_goes_to_the_url_typed_with_it_and_the_servers_key_stays_home(app, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [Reply({}, 401)]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    assert [r.headers["authorization"] for r in server.received] == [f"Bearer {SENTINEL}"]
    assert OPERATOR_KEY not in json.dumps([r.headers for r in server.received])


def test_a_visitor_on_a_server_deployment_is_a_viewer_and_gets_replay_only(app, monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_DEPLOYMENT", "server")
    monkeypatch.setenv("ROUNDTRIP_IDENTITY_HEADER", "X-Forwarded-Email")  # a header nobody sent
    at = open_live(app)
    assert at.radio(key=live.PROVIDER).options == ["Replay (recorded, no key)"]
    assert "only editors make live calls" in rendered(at)
    press_run(at)  # replay still works for a viewer, but what every visitor sees stays the editors' to change
    assert "needs-approval" == at.session_state[live.RUNNER].status.state
    assert not any(b.key == "live.save" for b in at.button)
    assert "only the editors its operator names save into traces/" in rendered(at)


def test_the_operator_turns_live_runs_off_in_the_secrets_roundtrip_table(app):
    at = app
    at.secrets["roundtrip"] = {"ROUNDTRIP_LIVE_RUNS": "off"}
    at = open_live(at)
    assert at.radio(key=live.PROVIDER).options == ["Replay (recorded, no key)"]
    assert "Live runs are turned off here" in rendered(at)


def test_a_misspelt_deployment_locks_the_app_down_and_says_which_setting(app, monkeypatch):
    monkeypatch.setenv("ROUNDTRIP_DEPLOYMENT", "sever")
    at = open_live(app)
    assert at.radio(key=live.PROVIDER).options == ["Replay (recorded, no key)"]
    assert "ROUNDTRIP_DEPLOYMENT is 'sever'" in rendered(at)


def test_stop_ends_a_waiting_run_without_running_the_write_and_the_trace_records_it(app):
    at = press_run(open_live(app))
    at.button(key="live.stop").click().run()
    assert not at.exception
    assert "You stopped the run." in [w.value for w in at.warning]
    assert at.text[0].value == "Stopped by you after round 3; 1 call(s) were left unanswered and not run."
    assert not any(b.key == "live.approve" for b in at.button)
    trace = written_trace(at)
    assert len(trace.rounds) == 3 and trace.rounds[2].extra["stopped"]["by"] == "person"
    (left,) = trace.rounds[2].executions
    assert left.name == "createExpenseSupplement" and left.ok is False and left.approval is None


def test_the_deadline_typed_on_the_page_cuts_off_a_server_that_trickles_its_answer(app):
    at = choose_openai(open_live(app))
    trickle = Reply({"object": "chat.completion", "choices": []}, trickle_s=0.1)
    with RecordedServer({"/v1/chat/completions": [trickle]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL)
        at.number_input(key=live.DEADLINE).set_value(1).run()
        press_run(at)
    assert at.error[0].value == "The run ended with an error."
    assert "Round 1 failed: The call passed its deadline of 1 s" in ended(at)[1]


def test_a_call_waiting_for_approval_is_said_to_wait_not_to_be_unrecorded(app):
    at = press_run(open_live(app))
    lane = [t.value for t in at.text]
    assert "waiting for your approval: createExpenseSupplement (call_q4)" in lane
    assert not [t for t in lane if "the trace does not say what the program ran" in t]


def test_the_write_finding_on_a_call_waiting_for_approval_says_the_run_waits_not_that_no_approval_is_recorded(app):
    # The round's write-tool-call finding said "The trace records no approval." while the approval box above asked for
    # one: the run had not recorded an approval because the person had not given it yet.
    at = press_run(open_live(app))
    shown = rendered(at)
    assert "The trace records no approval." not in shown
    assert ("createExpenseSupplement changes something: it is a write tool. The model can only ask for it; a person "
            "approves it between the call intent (step 2) and the program running it (step 3), shown what it will do. "
            "The run is waiting for your approval: this call has not run.") in shown
    # Declined, the trace records that: the finding on the call says what became of it.
    at.button(key="live.decline").click().run()
    at.radio(key=live.ROUND).set_value(3).run()
    shown = rendered(at)
    assert "The program declined to run it." in shown and "waiting for your approval" not in shown


def _completion(*calls):
    """A Chat Completions response that asks for `calls`, (id, name, arguments) each, in one turn."""
    return {"id": "chatcmpl-mixed", "object": "chat.completion", "created": 1764547200, "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                               for i, n, a in calls]}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960}}


def test_a_round_whose_read_ran_and_whose_write_waits_says_both_in_the_program_lane(app):
    # One turn asks for a read (queryExpense) and a write (createExpenseSupplement): the program runs the read at
    # once and holds the write for the person. The lane must show the read as run and the write as waiting.
    read = ("call_r1", "queryExpense", '{"user_id": "E10238", "status": "submitted"}')
    write = ("call_w1", "createExpenseSupplement", '{"expense_id": "BX-20261015-0932", "over_amount": 60.00, '
                                                   '"reason": "accommodation over the standard"}')
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [Reply(_completion(read, write))]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    assert len(server.received) == 1
    assert at.session_state[live.RUNNER].status.pending.id == "call_w1"
    (ran,) = written_trace(at).rounds[0].executions
    assert (ran.name, ran.tool_call_id, ran.ok) == ("queryExpense", "call_r1", True)
    lane = [t.value for t in at.text]
    assert "handler queryExpense · call call_r1" in " ".join(lane)
    assert "waiting for your approval: createExpenseSupplement (call_w1)" in rendered(at)
    assert not [t for t in lane if "the trace does not say what the program ran" in t]


def test_a_call_to_a_tool_the_run_does_not_offer_is_shown_refused_and_not_run_not_as_a_handler_that_failed(app):
    # The program refused deleteEverything (Hengxin offers no such tool) before anything ran; the lane showed a red
    # "failed" over "handler deleteEverything · 0 ms" and "Arguments the handler received".
    invented = ("call_x", "deleteEverything", '{"all": true}')
    answer = {"id": "c2", "object": "chat.completion", "created": 2, "model": "gpt-4.1-mini", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "I cannot do that."}}]}
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [Reply(_completion(invented)), Reply(answer)]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    (refused,) = written_trace(at).rounds[0].executions
    assert refused.refused and not refused.ok
    at.radio(key=live.ROUND).set_value(1).run()
    lane = [m.value for m in at.main.markdown] + [c.value for c in at.main.caption] + [t.value for t in at.text]
    assert ":red-badge[refused: not run]" in lane and ":red-badge[failed]" not in lane
    assert "tool deleteEverything · call call_x" in lane
    assert "The call's arguments (no handler ran)" in lane and "Arguments the handler received" not in lane
    shown = rendered(at)
    assert "deleteEverything (call_x): refused, not run" in shown
    trace = written_trace(at)
    assert "1 call was refused before running" in runs_words(trace.rounds[0])
    assert "refuses deleteEverything" in [a.label for a in sequence(trace)]
    assert "fails" not in [a.label for a in sequence(trace)]


def test_a_refusal_shows_the_providers_own_words_under_the_status_not_the_status_twice(app):
    # The provider's body says only its sentence; the status is the response's, said once in our own words above it.
    # The Watch page shows a captured refusal this way; a live run's must read the same.
    said = "Invalid 'messages[1].content': this model does not accept tools."
    at = open_live(app)
    at.radio(key=live.PROVIDER).set_value("openai").run()
    body = {"error": {"message": said, "type": "invalid_request_error", "code": None}}
    with RecordedServer({"/v1/chat/completions": [Reply(body, 400)]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input("sk-test").run()
        press_run(at)
    assert ended(at)[1] == f"Round 1 failed: HTTP 400: {said}"
    texts = [t.value for t in at.main.text]
    assert "The call failed: HTTP 400. The provider said:" in [e.value for e in at.error]
    assert said in texts
    assert any(f'Its words: "{said}"' in t for t in texts)
    assert written_trace(at).rounds[0].error.message == said


def test_a_run_that_cannot_start_says_the_run_below_is_the_previous_one(app, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_live(app)
    at.selectbox(key=live.SCENARIO).set_value("loan").run()
    press_run(at)
    assert [b.value for b in at.success] == ["The model answered."]
    at.radio(key=live.PROVIDER).set_value("openai").run()
    press_run(at)
    assert at.error[0].value == "The run could not start:"
    assert "The run below is the previous one (replay), kept as it was." in [t.value for t in at.text]
    assert [b.value for b in at.success] == ["The model answered."]  # the previous run, still there below


def test_the_approval_shows_a_bidi_control_in_the_arguments_written_out(app):
    # The arguments were shown as written, controls and all: beside Approve, everything after the reason's \u202e
    # read reversed ("9981-tnuocca ot 1000"), the amount and the account included.
    write = ("call_w1", "createExpenseSupplement", '{"expense_id": "BX-20261015-0932", "over_amount": 60.00, '
                                                   '"reason": "refund \u202e0001 to account-1899"}')
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [Reply(_completion(write))]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    status = at.session_state[live.RUNNER].status
    assert status.pending is not None, status
    shown = [c.value for c in at.code]
    assert any('"reason": "refund [U+202E]0001 to account-1899"' in value for value in shown)
    assert not [value for value in shown if "\u202e" in value]


OVERLOADED = {"error": {"message": "upstream model overloaded", "code": 503}}
"""What a gateway in front of a model sends with HTTP 200 when the model behind it is overloaded."""


@pytest.mark.parametrize("reply, words", [
    (Reply(OVERLOADED), "upstream model overloaded"),
    (Reply({"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": []}), '"choices": []'),
    (Reply('{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess',
           content_type="application/json; charset=utf-8"), '{"id": "chatcmpl-x"'),
], ids=["error-body", "no-choices", "cut-json"])
def test_a_200_with_no_model_turn_in_it_ends_the_run_at_round_1_with_the_status_and_what_was_sent(app, reply, words):
    # A 200 whose body held no model turn (a gateway's error object, an empty choices list) was taken for the model's
    # turn: the error object went into the conversation as an assistant message and the narration guard re-asked,
    # so a second request carried it to the provider and the page blamed round 2. A body cut off mid-JSON was said
    # to have "no HTTP status recorded (the log does not say whether a server answered)", though a server had
    # answered 200.
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [reply]}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    assert len(server.received) == 1  # nothing more was sent
    assert at.error[0].value == "The run ended with an error."
    assert ended(at)[1].startswith("Round 1 failed: HTTP 200, with no model turn in the body")
    (round_,) = written_trace(at).rounds
    assert round_.response is None and round_.error.status == 200
    shown = rendered(at)
    assert "The server answered HTTP 200, but sent no model turn. What it sent:" in shown
    assert words in shown
    assert "no HTTP status was recorded" not in shown and "HTTP status not recorded" not in shown
    assert "answers HTTP 200 with no model turn" in [a.label for a in sequence(written_trace(at))]


def test_the_call_waiting_for_approval_is_shown_whole_without_scrolling_sideways(app):
    # The arguments sat on one line cut at the box's edge: "...\"reason\": \"Business trip accommodation ex" beside
    # Approve, the rest of the reason only for whoever scrolled the box sideways.
    at = press_run(open_live(app))
    (arguments,) = [c for c in at.code if '"reason": "Business trip accommodation exceeded the standard' in c.value]
    assert arguments.proto.wrap_lines


def test_a_429_the_sdk_retried_past_is_said_on_the_round_and_a_500_on_every_try_says_how_many_were_made(app):
    # The server got round 1's request twice (a 429, then the answer), but the round read as one call, its latency
    # the SDK's back-off included and unexplained; a 500 on all three tries said "HTTP 500: Internal server error" and
    # "send it again after a pause", as if it had been sent once.
    slow_down = Reply({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}, 429,
                      headers={"retry-after-ms": "50"})
    hengxin = read_recordings(RECORDINGS_DIR / "hengxin.jsonl")
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [slow_down]}, recordings=hengxin) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    assert len(server.received) == 4  # round 1 twice, rounds 2 and 3 once
    assert written_trace(at).rounds[0].extra["attempts"] == [429, 200]
    # The diagram draws the try the SDK sent first, as the explorer lists it.
    assert [a.label for a in sequence(written_trace(at)) if a.round == 1 and a.target in ("api", "model")] == [
        "request 1: 2 messages + 4 tools", "request 1 again: 2 messages + 4 tools"]
    assert "Try 1 of 2 failed: HTTP 429." in [a.label for a in sequence(written_trace(at))]
    at.radio(key=live.ROUND).set_value(1).run()
    notes = [c.value for c in at.main.caption]
    assert ("The SDK sent this request 2 times: HTTP 429, then HTTP 200. The HTTP 429 is a rate limit, set by "
            "the provider or by a gateway on the way. The program got only what the last try brought back.") in notes
    at.radio(key=live.ROUND).set_value(2).run()
    assert not [n for n in (c.value for c in at.main.caption) if "The SDK sent this request" in n]

    broken = Reply({"error": {"message": "Internal server error", "type": "server_error"}}, 500)
    with RecordedServer({"/v1/chat/completions": [broken] * 3}) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1").run()
        press_run(at)
    assert len(server.received) == 3
    assert ended(at)[1] == ("Round 1 failed: HTTP 500: Internal server error (the SDK sent the request 3 times: "
                            "HTTP 500, HTTP 500, then HTTP 500)")
    assert written_trace(at).rounds[0].extra["attempts"] == [500, 500, 500]
    assert ("send it again after a pause. The SDK sent it 3 times in all, this try the last: HTTP 500, HTTP 500, "
            "then HTTP 500." in rendered(at))
    # A 5xx may be a gateway's or a proxy's (a 502 where the upstream could not be reached): the round said "The
    # provider saw it each time", which its statuses do not tell.
    at.radio(key=live.ROUND).set_value(1).run()
    notes = [c.value for c in at.main.caption]
    assert ("The SDK sent this request 3 times: HTTP 500, HTTP 500, then HTTP 500. Who sent the HTTP 500 is not known "
            "from the status alone: the provider, or a gateway or proxy on the way. The program got only what the "
            "last try brought back.") in notes
    assert "saw it" not in rendered(at)


def test_the_html_file_and_the_handout_say_the_sdks_retries_as_the_explorer_does(app):
    # The explorer said "The SDK sent this request 2 times: HTTP 429, then HTTP 200." under round 1's response; the HTML
    # file and the handout's answers of the same run said nothing of it: one call, as far as they told.
    from lib.export_html import handout_html, trace_html
    slow_down = Reply({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}, 429,
                      headers={"retry-after-ms": "50"})
    at = choose_openai(open_live(app))
    with RecordedServer({"/v1/chat/completions": [slow_down]},
                        recordings=read_recordings(RECORDINGS_DIR / "hengxin.jsonl")) as server:
        at.text_input(key="live.base_url.openai").input(server.url + "/v1")
        at.text_input(key=live.KEY).input(SENTINEL).run()
        press_run(at)
    trace = written_trace(at)
    said = ("The SDK sent this request 2 times: HTTP 429, then HTTP 200. The HTTP 429 is a rate limit, set by "
            "the provider or by a gateway on the way. The program got only what the last try brought back.")
    at.radio(key=live.ROUND).set_value(1).run()
    assert said in [c.value for c in at.main.caption]
    for page in (trace_html(trace), handout_html(trace)):
        assert page.count(said) == 1  # round 1's, under its response; rounds 2 and 3 were sent once


def test_the_form_says_where_a_run_goes_when_the_base_url_is_left_empty(app, monkeypatch):
    # With the operator's ROUNDTRIP_COMPATIBLE_BASE_URL set, the OpenAI-compatible form showed an empty "Base URL" as if
    # it had to be filled, its grey example "http://localhost:11434/v1/" read as the default; nothing said the run would
    # go to the operator's server. The address is shown without the user part or query that may carry a credential.
    monkeypatch.setenv("ROUNDTRIP_COMPATIBLE_BASE_URL", "http://gateway:s3cr3t@127.0.0.1:9/v1?token=abc")
    at = open_live(app)
    at.radio(key=live.PROVIDER).set_value("compatible").run()
    field = at.text_input(key="live.base_url.compatible")
    assert field.label == "Base URL (optional)" and field.placeholder == "http://127.0.0.1:9/v1"
    shown = rendered(at)
    assert "Left empty, the run goes to the address in grey: the one this server's operator configured." in shown
    assert "s3cr3t" not in shown and "token=abc" not in shown
    at.radio(key=live.PROVIDER).set_value("anthropic").run()
    assert at.text_input(key="live.base_url.anthropic").placeholder == "https://api.anthropic.com"
    assert "Left empty, the run goes to the address in grey: Anthropic's own API." in rendered(at)

    monkeypatch.delenv("ROUNDTRIP_COMPATIBLE_BASE_URL")
    at.radio(key=live.PROVIDER).set_value("compatible").run()
    field = at.text_input(key="live.base_url.compatible")
    assert field.label == "Base URL" and field.placeholder == "http://localhost:11434/v1/"
    assert "Left empty, the run goes to" not in rendered(at)


@pytest.mark.parametrize("cause", ["slow", "unreachable", "deadline"])
def test_a_call_that_got_no_answer_says_so_not_that_the_log_kept_no_status(app, cause):
    # A timeout, a passed deadline or a refused connection read "The call failed, and no HTTP status was recorded (the
    # log does not say whether a server answered). What was said:", and the round's finding quoted Roundtrip's own
    # sentence as the provider's "words" and said "the log does not say whether the request was at fault": the run
    # knew no answer had come.
    at = choose_openai(open_live(app))
    reply = Reply({"object": "chat.completion", "choices": []}, delay_s=3.0)
    with RecordedServer({"/v1/chat/completions": [reply]}) as server:
        url = server.url + "/v1" if cause != "unreachable" else f"http://127.0.0.1:{free_port()}/v1"
        at.text_input(key="live.base_url.openai").input(url)
        at.text_input(key=live.KEY).input(SENTINEL)
        at.number_input(key=live.RETRIES).set_value(0)
        at.number_input(key=live.DEADLINE if cause == "deadline" else live.TIMEOUT).set_value(1).run()
        press_run(at)
    shown = rendered(at)
    assert "The call got no answer, so there is no HTTP status. What happened:" in shown
    assert "no HTTP status was recorded" not in shown and "HTTP status not recorded" not in shown
    assert "This call got no answer: " in shown and "Its words" not in shown
    assert "error: no answer came" in [a.label for a in sequence(written_trace(at))]


def test_a_run_opened_in_the_explorer_while_a_call_waits_shows_it_waiting_not_unrecorded(app):
    # Opened in the explorer while createExpenseSupplement waited for Approve, round 3 read "not recorded: the trace
    # does not say what the program ran", its finding "The trace records no approval.", and the picture "runs
    # createExpenseSupplement? (not recorded)": the run knew the call was waiting for a person.
    at = press_run(open_live(app))
    at.button(key="live.open").click().run()
    at.switch_page("pages/explorer.py").run()  # where Open in the explorer went: AppTest stays there only when told
    assert not at.exception
    for _ in range(2):
        next_round = [b for b in at.button if b.label == "Next round ▶"][0]
        next_round.click().run()
    assert "Round 3: the program sends 7 messages, 2 of them new" in [s.value for s in at.subheader]
    shown = rendered(at)
    assert "waiting for approval when the trace was written: createExpenseSupplement (call_q4)" in shown
    assert "The run was waiting for approval when the trace was written: this call had not run." in shown
    assert "the trace does not say what the program ran" not in shown
    assert "The trace records no approval." not in shown
    labels = [a.label for a in sequence(read_trace(at.session_state[live.RUNNER].trace.text().splitlines())[0])]
    assert "waits for approval: createExpenseSupplement" in labels
    assert not [label for label in labels if "createExpenseSupplement? (not recorded)" in label]


def test_open_in_the_explorer_during_a_run_says_it_opens_a_copy_that_does_not_grow(app):
    # Opened while a call waited, the explorer showed three rounds and stayed at three after Approve on the Live page:
    # nothing said the explorer holds a copy taken at the click.
    at = press_run(open_live(app))
    assert at.button(key="live.open").help == ("Opens a copy of the trace as it is now, 3 rounds: the copy does not grow "
                                               "with the run. Open it again once the run has ended for the whole run.")
    at.button(key="live.approve").click().run()
    assert not at.button(key="live.open").help
