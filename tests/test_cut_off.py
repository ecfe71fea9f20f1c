"""A response cut off by its output limit, on real recordings: its stop signal is labelled in our words (the model ran
out of its output budget; the budget the request gave it; what it spent it on), the same words in the explorer,
presenter mode and the HTML file, and a complete answer is not. The sequence diagram and presenter mode's step-5 lead,
with no room for all that, say it in a few words (lib.steps.cut_off_short)."""

from lib.checks import run_checks
from lib.export_html import trace_html
from lib.logs.upload import read_upload
from lib.presenter import Position, reveal
from lib.sequence import sequence
from lib.slide_words import step_lead
from lib.steps import cut_off_short, steps_for_round
from lib.ui import state
from tests.screen import FIXTURES, round_shown, screen, uploaded

REASONING_ONLY = ("finish_reason 'length': the model ran out of its output budget before it finished (the request gave "
                  "it max_completion_tokens 64; it spent all 64 on reasoning): it wrote no answer")
"""Round 3 of the Responses chain: `status: incomplete`, `max_output_tokens` 64, 64 reasoning tokens, no answer."""


def _trace(name):
    return read_upload([(name, (FIXTURES / name).read_bytes())]).conversations[0].trace


def _on_stop(trace, k):
    """The step labels pinned on round k's stop signal."""
    at = trace.rounds[k - 1].response.finish_reason_path
    return [(label.step, label.title, label.detail) for label in steps_for_round(trace, k) if label.path == at]


def test_a_response_that_spent_its_whole_budget_on_reasoning_is_labelled_cut_off_on_its_stop_signal(responses_chain):
    assert _on_stop(responses_chain, 3) == [(5, "Cut off at the output limit", REASONING_ONLY)]


def test_an_anthropic_answer_stopped_at_max_tokens_is_labelled_with_its_budget_and_its_unfinished_text():
    # Mirascope's recording: max_tokens 100, and each answer ends mid-sentence ("I'm happy to").
    trace = _trace("containers/mirascope-anthropic-unmarked-as-string.har")
    assert _on_stop(trace, 1) == [(5, "Cut off at the output limit",
                                   "stop_reason 'max_tokens': the model ran out of its output budget before it "
                                   "finished (the request gave it max_tokens 100; it spent 100 output tokens): its "
                                   "text stops where the budget ran out, so it is no finished answer")]


def test_an_anthropic_answer_stopped_by_a_full_context_window_is_not_said_to_have_run_out_of_its_output_budget():
    # Anthropic's `model_context_window_exceeded` is read as a cut-off too, but a larger output limit would not have
    # helped: the conversation filled the context window. The same recording, its stop reasons written so.
    name = "containers/mirascope-anthropic-unmarked-as-string.har"
    data = (FIXTURES / name).read_bytes().replace(b'\\"stop_reason\\":\\"max_tokens\\"',
                                                  b'\\"stop_reason\\":\\"model_context_window_exceeded\\"')
    trace = read_upload([("full.har", data)]).conversations[0].trace
    assert _on_stop(trace, 1) == [(5, "Cut off: the context window is full",
                                   "stop_reason 'model_context_window_exceeded': the conversation filled the model's "
                                   "context window before it finished (it spent 100 output tokens): its text stops "
                                   "where it was cut off, so it is no finished answer")]
    (finding, *_) = [f for f in run_checks(trace) if f.code == "answer-cut-off"]
    assert "A larger output limit does not help here" in finding.message
    assert "raise the output limit" not in finding.message


def test_a_gemini_answer_cut_by_its_output_limit_says_how_much_of_it_went_on_reasoning():
    # The Interactions API recording: max_output_tokens 64, 57 of 60 output tokens thinking, "The image displays".
    trace = _trace("containers/oi-gemini-interactions-image.yaml")
    (label,) = _on_stop(trace, 1)
    assert label[2].endswith("(the request gave it max_completion_tokens 64; it spent 60 output tokens, 57 of them "
                             "on reasoning): its text stops where the budget ran out, so it is no finished answer")


def test_a_gemini_call_cut_off_while_thinking_says_it_wrote_no_answer():
    # pydantic-ai's generateContent recording: maxOutputTokens 5, finishReason MAX_TOKENS, 2 thinking tokens reported
    # and no part at all. The usage reports fewer tokens than the limit, so "all 2" is not said to be the budget.
    trace = _trace("containers/pydantic-ai-gemini-max-tokens-thinking-empty.yaml")
    assert _on_stop(trace, 1) == [(5, "Cut off at the output limit",
                                   "finish_reason 'length': the model ran out of its output budget before it "
                                   "finished (the request gave it max_completion_tokens 5; it spent 2 output tokens, "
                                   "all on reasoning): it wrote no answer")]


def test_a_cut_off_stream_whose_request_and_usage_the_log_lacks_says_neither_is_known():
    trace = _trace("containers/semantic-kernel-tgi-chat-stream.sse")
    (label,) = _on_stop(trace, 1)
    assert "(the log kept no request, so the budget it was given is not known; the response reports no usage, so " \
           "what it spent is not known)" in label[2]


def test_a_complete_answer_is_not_labelled_cut_off(responses_chain):
    # Round 2 answers in full ("It's 14:05 in Oslo, -3 °C with light snow").
    labels = steps_for_round(responses_chain, 2)
    assert [label.title for label in labels if label.step == 5] == ["Model answers"]
    assert not any("output budget" in label.detail for label in labels)


def test_presenter_mode_reveals_the_cut_off_on_its_answer_step(responses_chain):
    shown = reveal(responses_chain, Position(3, 5))
    assert shown.title == "Cut off at the output limit"
    assert [label.detail for label in shown.labels] == [REASONING_ONLY]


def test_the_html_file_says_the_cut_off_under_its_round(responses_chain):
    page = trace_html(responses_chain)
    assert "Step 5 · Cut off at the output limit</span> " + REASONING_ONLY.replace("'", "&#39;") in page


def test_the_explorer_labels_the_cut_off_on_its_stop_signal(app):
    shown = round_shown(app, "openai-responses.jsonl", 3)
    assert "Step 5 · Cut off at the output limit" in shown
    assert f"{REASONING_ONLY} · choices[0].finish_reason" in shown


def _full_context(name="containers/mirascope-anthropic-unmarked-as-string.har"):
    """Mirascope's recording with its stop reasons written as Anthropic's full context window."""
    data = (FIXTURES / name).read_bytes().replace(b'\\"stop_reason\\":\\"max_tokens\\"',
                                                  b'\\"stop_reason\\":\\"model_context_window_exceeded\\"')
    return read_upload([("full.har", data)]).conversations[0].trace


def _drawn(trace, k):
    """What the sequence diagram's model says back in round k."""
    return [(arrow.step, arrow.label) for arrow in sequence(trace) if arrow.round == k and arrow.source == "model"]


def test_the_sequence_diagram_says_the_response_was_cut_off_at_its_output_limit(responses_chain):
    # It drew "stops: length, no answer and no call", as for any other stop, where the step label says cut off.
    assert _drawn(responses_chain, 3) == [(None, "cut off at the output limit: no finished answer, no call")]
    # Mirascope's answer wrote text up to its max_tokens 100: unfinished, not "no answer".
    trace = _trace("containers/mirascope-anthropic-unmarked-as-string.har")
    assert _drawn(trace, 1) == [(None, "cut off at the output limit: no finished answer, no call")]


def test_the_sequence_diagram_says_a_full_context_window_cut_the_response_off():
    assert _drawn(_full_context(), 1) == [(None, "cut off by a full context window: no finished answer, no call")]


def test_presenter_modes_answer_step_leads_with_the_cut_off(app):
    # Step 5's lead said "The model stopped before an answer or a call (its stop signal says why)" under the title
    # "Cut off at the output limit".
    at = uploaded(app, "openai-responses.jsonl")
    at.number_input(key=state.ROUND).set_value(3).run()
    at.toggle(key=state.PRESENTER).set_value(True).run()
    at.session_state[state.STEP] = 5
    at.run()
    assert not at.exception
    shown = screen(at)
    assert "Cut off at the output limit" in shown
    assert "The model was cut off at the output limit: no finished answer, no call. Round 4 goes on from it." in shown
    assert "stopped before an answer or a call" not in shown


def test_presenter_modes_lead_says_a_full_context_window_cut_it_off():
    trace = _full_context()
    assert step_lead(trace.rounds[0], 5, 2, cut_off=cut_off_short(trace.rounds[0], trace.dialect)) == (
        "The model was cut off by a full context window: no finished answer, no call. Round 2 goes on from it.")
